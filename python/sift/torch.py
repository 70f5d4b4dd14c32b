"""A PyTorch frontend: `torch.export` graphs to sift MLIR, compiled.

    import sift.torch

    def f(x, labels):
        pos = torch.nonzero(labels == 1).squeeze(1)
        return x[pos] * 2.0

    fn = sift.torch.compile(f, (x, labels))   # torch.export, then sift
    fn(x, labels)           # torch tensors in, torch tensors out
    sift.torch.export_mlir(f, (x, labels))    # the MLIR text

The exported graph's data-dependent sizes (`nonzero`, boolean-mask
indexing, gathers by such indices) become dynamic tensors in MLIR, which
`--sift-staticize` turns into padded tensors and counts; the compiled
function returns them trimmed (`trim=True`, the eager result, one host
sync per bounded result) or as `sift.Bounded` pairs of torch tensors.

The frontend translates a small set of ATen ops (listed in `SUPPORTED`);
anything else is a `sift.UnsupportedError` naming the op. Inputs must be
user inputs (no parameters or buffers) with the static shapes of the
example inputs; integer indices must be in range (sift's gather gives 0
for an index outside [0, n), where PyTorch wraps negative ones).
"""

import inspect
import operator

import torch

from .errors import UnsupportedError

__all__ = ["export_mlir", "compile", "SUPPORTED"]

_ELEMENT_TYPES = {
    torch.bool: "i1", torch.int8: "i8", torch.int16: "i16",
    torch.int32: "i32", torch.int64: "i64", torch.float32: "f32",
    torch.float64: "f64",
}

_aten = torch.ops.aten

# Comparisons: ATen op -> (integer predicate, float predicate).
_COMPARISONS = {
    "eq": ("eq", "oeq"), "ne": ("ne", "une"), "lt": ("slt", "olt"),
    "le": ("sle", "ole"), "gt": ("sgt", "ogt"), "ge": ("sge", "oge"),
}
# Arithmetic: ATen op -> (integer op, float op).
_ARITHMETIC = {
    "add": ("arith.addi", "arith.addf"), "sub": ("arith.subi", "arith.subf"),
    "mul": ("arith.muli", "arith.mulf"), "div": (None, "arith.divf"),
}
_LOGICAL = {"logical_and": "arith.andi", "logical_or": "arith.ori",
            "bitwise_and": "arith.andi", "bitwise_or": "arith.ori"}

SUPPORTED = sorted(
    [f"aten.{n}.Tensor" for n in _COMPARISONS]
    + [f"aten.{n}.Scalar" for n in _COMPARISONS]
    + [f"aten.{n}.Tensor" for n in _ARITHMETIC]
    + [f"aten.{n}.default" for n in _LOGICAL if n.startswith("logical")]
    + [f"aten.{n}.Tensor" for n in _LOGICAL if n.startswith("bitwise")]
    + ["aten.nonzero.default", "aten.squeeze.dim", "aten.squeeze.dims",
       "aten.index.Tensor", "aten.index_select.default",
       "aten.masked_select.default", "aten._to_copy.default"])


def _element_type(dtype, what):
    try:
        return _ELEMENT_TYPES[dtype]
    except KeyError:
        raise UnsupportedError(
            f"sift.torch: {what} has dtype {dtype}, which sift does not "
            f"exchange (supported: "
            f"{', '.join(str(d) for d in _ELEMENT_TYPES)})") from None


def _is_float(dtype):
    return dtype.is_floating_point


class _Value:
    """An MLIR SSA value with its torch dtype and shape (None: dynamic).
    `unsqueezed`: a 1-D sift.nonzero result standing for torch's [n, 1]."""

    def __init__(self, name, dtype, shape, unsqueezed=False):
        self.name = name
        self.dtype = dtype
        self.shape = tuple(shape)
        self.unsqueezed = unsqueezed

    @property
    def type(self):
        dims = "".join(("?" if d is None else str(d)) + "x"
                       for d in self.shape)
        return f"tensor<{dims}{_element_type(self.dtype, self.name)}>"


def _static_shape(shape):
    """A torch shape with symbolic (data-dependent) sizes as None."""
    return [d if isinstance(d, int) else None for d in shape]


class _Translator:
    def __init__(self, name):
        self.name = name
        self.lines = []
        self.counter = 0
        self.values = {}

    def fresh(self):
        # Numbered names: the arguments have identifiers (the parameter
        # names), which never start with a digit.
        self.counter += 1
        return f"%{self.counter}"

    def emit(self, line):
        self.lines.append("  " + line)

    def unsupported(self, node, why):
        raise UnsupportedError(
            f"sift.torch: cannot translate node '{node.name}' "
            f"({node.target}): {why}")

    def value(self, node, arg):
        if not isinstance(arg, torch.fx.Node):
            self.unsupported(node, f"expected a tensor operand, got {arg!r}")
        v = self.values.get(arg)
        if v is None:
            self.unsupported(node, f"operand '{arg.name}' is not a tensor "
                             "this frontend translated")
        if v.unsqueezed:
            self.unsupported(
                node, "the [n, 1] result of nonzero on a 1-D tensor is "
                "supported only through squeeze(1)")
        return v

    def dims_of(self, v):
        """`tensor.dim` SSA names of v's dynamic dimensions."""
        names = []
        for i, d in enumerate(v.shape):
            if d is None:
                c, n = self.fresh(), self.fresh()
                self.emit(f"{c} = arith.constant {i} : index")
                self.emit(f"{n} = tensor.dim {v.name}, {c} : {v.type}")
                names.append(n)
        return names

    def cast(self, v, dtype):
        """v converted elementwise to dtype (PyTorch's promotion)."""
        if v.dtype == dtype:
            return v
        out = _Value(self.fresh(), dtype, v.shape)
        src, dst = v.dtype, dtype
        if _is_float(src) and _is_float(dst):
            op = "arith.extf" if dst.itemsize > src.itemsize else \
                "arith.truncf"
        elif _is_float(dst):
            op = "arith.uitofp" if src == torch.bool else "arith.sitofp"
        elif _is_float(src):
            op = "arith.fptosi"
        elif src == torch.bool:
            op = "arith.extui"
        else:
            op = "arith.extsi" if dst.itemsize > src.itemsize else \
                "arith.trunci"
        self.emit(f"{out.name} = {op} {v.name} : {v.type} to {out.type}")
        return out

    def splat(self, like, scalar, dtype):
        """A tensor of like's shape filled with the Python number scalar."""
        et = _element_type(dtype, "a scalar")
        if et == "i1":
            literal = "true" if scalar else "false"
        elif _is_float(dtype):
            literal = repr(float(scalar))
            if literal in ("inf", "-inf", "nan"):
                raise UnsupportedError(
                    f"sift.torch: the scalar {scalar} has no MLIR literal "
                    "here")
        else:
            literal = str(int(scalar))
        c = self.fresh()
        self.emit(f"{c} = arith.constant {literal} : {et}")
        out = _Value(self.fresh(), dtype, like.shape)
        dims = self.dims_of(like)
        dyn = f"[{', '.join(dims)}]" if dims else ""
        self.emit(f"{out.name} = tensor.splat {c}{dyn} : {out.type}")
        return out

    def operands(self, node):
        """Both operands of a binary op as values of one promoted dtype."""
        a, b = node.args[0], node.args[1]
        fake = [x.meta["val"] if isinstance(x, torch.fx.Node) else x
                for x in (a, b)]
        dtype = torch.result_type(*fake)
        va = self.value(node, a) if isinstance(a, torch.fx.Node) else None
        vb = self.value(node, b) if isinstance(b, torch.fx.Node) else None
        if va is None and vb is None:
            self.unsupported(node, "no tensor operand")
        like = va or vb
        if va is not None and vb is not None and va.shape != vb.shape:
            self.unsupported(node, f"broadcasting ({va.shape} with "
                             f"{vb.shape}) is not supported")
        va = self.cast(va, dtype) if va else self.splat(like, a, dtype)
        vb = self.cast(vb, dtype) if vb else self.splat(like, b, dtype)
        return va, vb, dtype

    def translate(self, node):
        target = node.target
        op = getattr(target, "_opname", None)
        meta = node.meta.get("val")
        if target in (_aten.sym_size.int, _aten._assert_scalar.default,
                      _aten._assert_tensor_metadata.default, operator.ge, operator.le, operator.gt, operator.lt,
                      operator.eq):
            # Size queries and the range checks export adds: sift's
            # bounds come from the program itself.
            if any(u.op == "output" for u in node.users):
                self.unsupported(node, "a size is returned")
            return
        if not isinstance(meta, torch.Tensor):
            self.unsupported(node, "its result is not a tensor")
        overload = f"aten.{op}.{target._overloadname}" if op else str(target)
        if overload not in SUPPORTED:
            self.unsupported(node, "this op is not supported (supported: "
                             f"{', '.join(SUPPORTED)})")
        shape = _static_shape(meta.shape)
        result = _Value(self.fresh(), meta.dtype, shape)

        if op in _COMPARISONS:
            a, b, dtype = self.operands(node)
            pred = _COMPARISONS[op][1 if _is_float(dtype) else 0]
            cmp = "arith.cmpf" if _is_float(dtype) else "arith.cmpi"
            self.emit(f"{result.name} = {cmp} {pred}, {a.name}, {b.name} : "
                      f"{a.type}")
        elif op in _ARITHMETIC:
            if len(node.args) > 2 or node.kwargs:
                self.unsupported(node, "alpha or rounding_mode is not "
                                 "supported")
            a, b, dtype = self.operands(node)
            if dtype != meta.dtype:
                self.unsupported(node, f"result dtype {meta.dtype}")
            name = _ARITHMETIC[op][1 if _is_float(dtype) else 0]
            if name is None:
                self.unsupported(node, "integer division")
            self.emit(f"{result.name} = {name} {a.name}, {b.name} : "
                      f"{a.type}")
        elif op in _LOGICAL:
            a, b, dtype = self.operands(node)
            if op.startswith("logical"):
                a, b = self.cast(a, torch.bool), self.cast(b, torch.bool)
            self.emit(f"{result.name} = {_LOGICAL[op]} {a.name}, {b.name} : "
                      f"{a.type}")
        elif op == "nonzero":
            x = self.value(node, node.args[0])
            if len(x.shape) == 1:
                # torch gives [n, 1]; sift's 1-D form is [n].
                result = _Value(result.name, torch.int64, [None],
                                unsqueezed=True)
            self.emit(f"{result.name} = sift.nonzero {x.name} : {x.type} -> "
                      f"{result.type}")
        elif op == "squeeze":
            arg = node.args[0]
            src = self.values.get(arg) if isinstance(arg, torch.fx.Node) \
                else None
            dims = node.args[1] if len(node.args) > 1 else None
            dims = [dims] if isinstance(dims, int) else list(dims or [])
            if src is None or not src.unsqueezed or dims not in ([1], [-1]):
                self.unsupported(node, "only squeeze(1) of nonzero's result "
                                 "on a 1-D tensor is supported")
            self.values[node] = _Value(src.name, src.dtype, src.shape)
            return
        elif op in ("index", "index_select"):
            x = self.value(node, node.args[0])
            if op == "index":
                indices = node.args[1]
                if len(indices) != 1 or indices[0] is None:
                    self.unsupported(node, "only x[index] on dimension 0")
                idx = self.value(node, indices[0])
            else:
                if node.args[1] != 0:
                    self.unsupported(node, "only dimension 0")
                idx = self.value(node, node.args[2])
            if idx.dtype == torch.bool:
                self.emit(f"{result.name} = sift.masked_select {x.name}, "
                          f"{idx.name} : {x.type}, {idx.type} -> "
                          f"{result.type}")
            else:
                if len(idx.shape) != 1:
                    self.unsupported(node, "only 1-D index tensors")
                idx = self.cast(idx, torch.int64)
                self.emit(f"{result.name} = sift.gather {x.name}"
                          f"[{idx.name}] : {x.type}, {idx.type} -> "
                          f"{result.type}")
        elif op == "_to_copy":
            # .to(dtype) on the CPU: a conversion.
            extra = set(node.kwargs) - {"dtype", "device", "layout"}
            if extra or node.kwargs.get("device") not in (
                    None, torch.device("cpu")):
                self.unsupported(node, "only .to(dtype) on the CPU")
            x = self.value(node, node.args[0])
            self.values[node] = self.cast(x, meta.dtype)
            return
        elif op == "masked_select":
            x = self.value(node, node.args[0])
            mask = self.value(node, node.args[1])
            if mask.shape != x.shape:
                self.unsupported(node, "the mask must have the input's "
                                 "shape")
            self.emit(f"{result.name} = sift.masked_select {x.name}, "
                      f"{mask.name} : {x.type}, {mask.type} -> "
                      f"{result.type}")
        self.values[node] = result


def _export(fn, example_args):
    if isinstance(fn, torch.export.ExportedProgram):
        return fn
    module = fn if isinstance(fn, torch.nn.Module) else _module_of(fn)
    return torch.export.export(module, tuple(example_args))


def _module_of(fn):
    """An nn.Module calling fn, whose forward has fn's parameter names (so
    that they name the exported inputs, and the MLIR arguments)."""
    try:
        params = [p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD,
                            default=inspect.Parameter.empty)
                  for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = None

    def forward(self, *args):
        return fn(*args)

    if params is not None:
        forward.__signature__ = inspect.Signature(
            [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            + params)
    return type("SiftExported", (torch.nn.Module,), {"forward": forward})()


def export_mlir(fn, example_args, name="forward"):
    """The MLIR text (func.func @name) of `fn` (a function, an nn.Module
    without parameters, or a torch.export.ExportedProgram) traced by
    torch.export on `example_args` (torch tensors)."""
    program = _export(fn, example_args).run_decompositions()
    from torch.export.graph_signature import InputKind
    for spec in program.graph_signature.input_specs:
        if spec.kind != InputKind.USER_INPUT:
            raise UnsupportedError(
                f"sift.torch: input '{spec.arg.name}' is a {spec.kind.name} "
                "(only user inputs are supported: pass parameters and "
                "buffers as arguments)")
    t = _Translator(name)
    params, results = [], []
    for node in program.graph.nodes:
        if node.op == "placeholder":
            fake = node.meta["val"]
            if not isinstance(fake, torch.Tensor):
                t.unsupported(node, "non-tensor inputs are not supported")
            shape = _static_shape(fake.shape)
            if None in shape:
                t.unsupported(node, "inputs need static shapes")
            v = _Value(f"%{node.name}", fake.dtype, shape)
            t.values[node] = v
            params.append(f"{v.name}: {v.type}")
        elif node.op == "call_function":
            t.translate(node)
        elif node.op == "output":
            outs = node.args[0]
            outs = outs if isinstance(outs, (tuple, list)) else [outs]
            for o in outs:
                results.append(t.value(node, o))
        else:
            t.unsupported(node, f"graph node kind '{node.op}'")
    if not results:
        raise UnsupportedError("sift.torch: the function returns nothing")
    header = (f"func.func @{name}({', '.join(params)}) -> "
              f"({', '.join(r.type for r in results)}) {{")
    ret = (f"  return {', '.join(r.name for r in results)} : "
           f"{', '.join(r.type for r in results)}")
    return "\n".join([header] + t.lines + [ret, "}"]) + "\n"


class CompiledFunction:
    """`fn` exported and compiled by sift: call it with torch tensors of
    the example inputs' shapes and dtypes; results are torch tensors (views
    of sift's result buffers, no copy)."""

    def __init__(self, mlir, name, trim, **options):
        from ._runtime import compile_mlir
        self.mlir = mlir
        self.trim = trim
        transforms = options.pop("transforms", None) or []
        if isinstance(transforms, str):
            transforms = [transforms]
        self.module = compile_mlir(
            mlir, transforms=["sift-staticize"] + list(transforms),
            name=f"<sift.torch {name}>", **options)
        self.function = self.module[name]

    def __call__(self, *args):
        from .bounded import Bounded
        out = self.function(*args)
        # (A Bounded is a named pair: a tuple too.)
        single = isinstance(out, Bounded) or not isinstance(out, tuple)
        out = (out,) if single else out
        converted = []
        for r in out:
            if isinstance(r, Bounded):
                if self.trim:
                    converted.append(torch.from_dlpack(r.trim()))
                else:
                    converted.append(Bounded(torch.from_dlpack(r.data),
                                             torch.from_dlpack(r.count)))
            else:
                converted.append(torch.from_dlpack(r))
        return converted[0] if single else tuple(converted)


def compile(fn, example_args, trim=True, name="forward", **options):
    """Exports `fn` with torch.export on `example_args`, translates it
    (export_mlir), staticizes it and compiles it for the CPU. Options go to
    sift.compile_mlir (e.g. `transforms` after sift-staticize, `opt_level`).
    With `trim`, a data-dependent result comes back as its valid part (as
    eager PyTorch returns it); without, as a sift.Bounded pair."""
    return CompiledFunction(export_mlir(fn, example_args, name), name, trim,
                            **options)
