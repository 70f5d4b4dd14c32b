"""A PyTorch frontend: `torch.export` graphs to sift MLIR, compiled.

    import sift.torch

    def sampler(labels):
        pos = torch.nonzero(labels == 1).flatten()
        take = torch.randperm(pos.numel())[:min(pos.numel(), 8)]
        return pos[take]

    fn = sift.torch.compile(sampler, (labels,))        # torch.export, sift
    fn(labels, seed=7)            # torch tensors in, torch tensors out
    fn.mlir, fn.static_mlir, fn.report                 # what happened
    fb = sift.torch.compile(sampler, (labels,), batch=32)
    fb(labels_32xN, seed=seeds_32)                     # one call, 32 rows

The exported graph's data-dependent sizes (`nonzero`, boolean masks,
`unique`, slices of computed length, `randperm` of a count) become dynamic
tensors in MLIR, which `--sift-staticize` turns into padded tensors and
counts; with `batch=B`, `--sift-batch` then lifts the per-sample program
over a leading batch dimension of B. The compiled function returns results
trimmed (`trim=True`, as eager PyTorch returns them; one host sync per
bounded result) or as `sift.Bounded` pairs of torch tensors.

The translated ATen overloads are listed in `SUPPORTED` (the op table is
`sift/torch/_ops.py`); an op without a handler is first decomposed by
PyTorch's own decompositions (`masked_fill`, `narrow`, `x[a:b] = v`, in-place
ops), and anything left is a `sift.UnsupportedError` naming the op and
the user's source line. uint8 tensors are carried as int16 holding
0..255 (converted on the way in and out; arithmetic wraps modulo 256).
Random ops (`randperm`, `rand`, `bernoulli`, `randint`, `randn`,
`multinomial`) use
sift's counter-based Philox streams keyed by a `seed` argument the
compiled function gains (each call site its own stream offset): results
match PyTorch in distribution, not bit for bit. `torch.randperm` becomes
`sift.randperm` (its default keyed bijection: no sort). Inputs must have the
static shapes of the example inputs; parameters and buffers of a module
are passed by the compiled function itself. Negative indices count from
the end in indexing (`x[-1]`, `x[idx]`, `x[idx] = v`), as in PyTorch; an
index outside [-n, n) reads 0 and writes nothing, where PyTorch raises.
"""

import inspect
import re

import torch
import torch._decomp

from ..errors import UnsupportedError
from ._ops import HANDLERS, SIZE_OPS, SUPPORTED, overload_name
from ._translate import (Translator, Value, register_stack_trace_anchors,
                         static_shape, element_type)

__all__ = ["export_mlir", "compile", "backend", "SUPPORTED",
           "CompiledFunction"]


def _export(fn, example_args):
    if isinstance(fn, torch.export.ExportedProgram):
        return fn
    register_stack_trace_anchors(fn)
    module = fn if isinstance(fn, torch.nn.Module) else _module_of(
        fn, len(example_args))
    try:
        return torch.export.export(module, tuple(example_args))
    except Exception as e:
        if type(e).__name__ != "GuardOnDataDependentSymNode":
            raise
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        if re.search(r"expression Eq\(u\d+, u\d+\)", first):
            # Two sizes export cannot relate, whose equality an op needs:
            # most often two selections by the same mask (`x[m]` twice).
            raise UnsupportedError(
                "sift.torch: torch.export cannot tell that two "
                f"data-dependent sizes are equal ({first}). Select once "
                "and reuse the result (a = x[m]; f(a, g(a)) rather than "
                "f(x[m], g(x[m]))), or state it with "
                "torch._check(a.numel() == b.numel()); see "
                "docs/Tutorial.md") from e
        raise UnsupportedError(
            "sift.torch: torch.export cannot follow a Python branch (or "
            "bool/int conversion) on a data-dependent size: "
            f"{first}. Write it with min/max on the sizes "
            "(torch.sym_min/torch.sym_max), or bound it with torch._check; "
            "see docs/Tutorial.md") from e


def _module_of(fn, count):
    """An nn.Module calling fn, whose forward has the names of fn's first
    `count` parameters, the ones the example inputs fill (so that they name
    the exported inputs, and the MLIR arguments); the others keep their
    defaults (`def f(boxes, min_size=0.1)` called with the boxes)."""
    try:
        params = [p.replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD,
                            default=inspect.Parameter.empty)
                  for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if len(params) < count:
            params = None
        else:
            params = params[:count]
    except (TypeError, ValueError):
        params = None

    def forward(self, *args):
        return fn(*args)

    if params is not None:
        forward.__signature__ = inspect.Signature(
            [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            + params)
    return type("SiftExported", (torch.nn.Module,), {"forward": forward})()


class _Translation:
    """The MLIR text of one exported program, and what the caller needs to
    know about its arguments: `inputs` (the placeholders in order, each
    ("user", index) or ("state", tensor) for parameters, buffers and
    constants) and whether it takes a seed."""

    def __init__(self, text, inputs, has_seed, seed_name, clamped,
                 result_dtypes):
        self.text = text
        # torch dtypes of the results (uint8 ones come back as int16).
        self.result_dtypes = result_dtypes
        self.inputs = inputs
        self.has_seed = has_seed
        self.seed_name = seed_name
        self.clamped = clamped


def _unsupported_overloads(program):
    return {overload_name(n.target) for n in program.graph.nodes
            if n.op == "call_function"} - set(HANDLERS) - SIZE_OPS


def _decompose_unsupported(program):
    """The program with the ATen ops sift.torch has no handler for
    decomposed by PyTorch's own decompositions (`masked_fill`, `x[a:b] = v`,
    `narrow`, `argwhere`, `isfinite`, in-place ops, ...), the ops it
    translates left as they are (a decomposed `cross_entropy` would lose
    its fused form); then, for the ops still without one, PyTorch's other
    decompositions of them (`native_layer_norm`, `gelu`, `split`, ...).
    Unchanged when every op has a handler, or when the decomposed program
    still has an op without one: the translator then names the user's op
    (`linalg_inv`), not a piece of its decomposition."""
    if not _unsupported_overloads(program):
        return program
    table = {k: v for k, v in torch.export.default_decompositions().items()
             if overload_name(k) not in HANDLERS}
    # Ops export keeps as core ATen (gelu, leaky_relu, native_layer_norm,
    # split_with_sizes, embedding, ...) have decompositions of their own
    # outside the default table: added for the ops still left, a level at
    # a time (the whole table would go down to prims).
    for _ in range(4):
        try:
            decomposed = program.run_decompositions(table)
        except Exception:
            return program
        left = _unsupported_overloads(decomposed)
        if not left:
            return decomposed
        more = {k: v for k, v in torch._decomp.decomposition_table.items()
                if overload_name(k) in left and k not in table}
        if not more:
            return program
        table.update(more)
    return program


def _translate(program, name):
    from torch.export.graph_signature import InputKind
    program = _decompose_unsupported(program)
    state = dict(program.state_dict)
    state.update(getattr(program, "constants", {}) or {})
    specs = {s.arg.name: s for s in program.graph_signature.input_specs}
    t = Translator(name, program.range_constraints)
    params, inputs, results = [], [], []
    placeholders = [n for n in program.graph.nodes if n.op == "placeholder"]
    names = {n.name for n in placeholders}
    seed_name = "seed" if "seed" not in names else "sift_seed"
    user = 0
    for node in program.graph.nodes:
        t.set_node(node)
        if node.op == "placeholder":
            fake = node.meta["val"]
            if not isinstance(fake, torch.Tensor):
                t.unsupported(node, "non-tensor inputs are not supported")
            shape = static_shape(fake.shape)
            if None in shape:
                t.unsupported(node, "inputs need static shapes")
            spec = specs.get(node.name)
            if spec is not None and spec.kind != InputKind.USER_INPUT:
                if spec.target not in state:
                    t.unsupported(node, f"the {spec.kind.name} "
                                  f"'{spec.target}' has no value")
                inputs.append(("state", state[spec.target]))
            else:
                inputs.append(("user", user))
                user += 1
            v = Value(f"%{node.name}", fake.dtype, shape)
            element_type(fake.dtype, f"input '{node.name}'")
            t.define(node, v)
            params.append(f"{v.name}: {v.type}")
        elif node.op == "call_function":
            _translate_node(t, node)
        elif node.op == "output":
            outs = node.args[0]
            outs = outs if isinstance(outs, (tuple, list)) else [outs]
            for o in outs:
                results.append(_output(t, node, o))
        else:
            t.unsupported(node, f"graph node kind '{node.op}'")
    if not results:
        raise UnsupportedError("sift.torch: the function returns nothing")
    text = "\n".join(
        [f"func.func @{name}({', '.join(params)}"
         + (f", %{seed_name}: i64" if t.seed else "")
         + f") -> ({', '.join(r.type for r in results)}) {{"]
        + [line.replace("%seed,", f"%{seed_name},").replace(
            "%seed offset", f"%{seed_name} offset") for line in t.lines]
        + [f"  return {', '.join(r.name for r in results)} : "
           f"{', '.join(r.type for r in results)}", "}"]) + "\n"
    return _Translation(text, inputs, bool(t.seed), seed_name, t.clamped,
                        [r.dtype for r in results])


def _translate_node(t, node):
    name = overload_name(node.target)
    if name in SIZE_OPS:
        # Sizes are built where they are used, from export's expressions.
        return
    handler = HANDLERS.get(name)
    if handler is None:
        t.unsupported(node, f"{name} is not supported by sift.torch "
                      f"({len(SUPPORTED)} overloads are: "
                      "sift.torch.SUPPORTED lists them)")
    meta = node.meta.get("val")
    if name not in ("operator.getitem", "aten._local_scalar_dense.default",
                    "aten.item.default"):
        fake = meta[0] if isinstance(meta, (tuple, list)) else meta
        if not isinstance(fake, torch.Tensor):
            t.unsupported(node, "its result is not a tensor")
        element_type(fake.dtype, f"the result of {name}")
    result = handler(t, node, meta)
    if isinstance(result, Value) and result.dtype == torch.uint8 and \
            getattr(node.target, "_opname", None) in _UINT8_WRAPS:
        result = t.wrap_uint8(result)
    if result is not None:
        t.define(node, result)


# The ops whose uint8 results can leave 0..255 before wrapping (conversions
# wrap in Translator.cast; PyTorch refuses constants outside the range).
_UINT8_WRAPS = {"add", "sub", "rsub", "mul", "neg", "bitwise_not", "pow",
                "cumsum", "sum"}


def _output(t, node, o):
    if isinstance(o, torch.fx.Node) and isinstance(
            o.meta.get("val"), torch.SymInt):
        # A returned size: a rank-0 int64 tensor.
        idx = t.size(o)
        i64, out = t.fresh(), Value(t.fresh(), torch.int64, ())
        t.emit(f"{i64} = arith.index_cast {idx} : index to i64")
        t.emit(f"{out.name} = tensor.from_elements {i64} : {out.type}")
        return out
    # (nonzero's 1-D result as torch's [n, 1].)
    return t.plain(node, o)


def export_mlir(fn, example_args, name="forward"):
    """The MLIR text (func.func @name) of `fn` (a function, an nn.Module or
    a torch.export.ExportedProgram) traced by torch.export on
    `example_args` (torch tensors). A random op adds a last argument
    `%seed: i64`."""
    return _translate(_export(fn, example_args), name).text


from ._compile import CompiledFunction, backend, compile  # noqa: E402
