"""The translator's core: MLIR values, emission, sizes and locations.

A `Translator` walks a torch.export graph (its ATen nodes in order) and
writes one `func.func` as MLIR text. Tensors are `_Value`s (an SSA name, a
torch dtype, a shape with None for a data-dependent extent); sizes
(`SymInt`s) are `index` SSA values. The op table (`_ops.py`) translates each
ATen overload with the helpers here: casts for PyTorch's type promotion,
broadcasting, reshapes that add or drop unit dimensions, splats of Python
numbers, and sizes built from export's symbolic expressions.
"""

import os
import re

import torch

from ..errors import UnsupportedError

# uint8 is carried as i16 holding 0..255 (MLIR's integers are signless,
# and sift's comparisons, divisions and sorts are signed): compiled
# functions take and return int16 where PyTorch has uint8 (CompiledFunction
# converts), and arithmetic that can leave 0..255 wraps (`wrap_uint8`).
_ELEMENT_TYPES = {
    torch.bool: "i1", torch.int8: "i8", torch.int16: "i16",
    torch.int32: "i32", torch.int64: "i64", torch.float32: "f32",
    torch.float64: "f64", torch.uint8: "i16",
}

_TORCH_DIR = os.path.dirname(torch.__file__)
_SIFT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)\n(.*)')


def element_type(dtype, what="a value"):
    try:
        return _ELEMENT_TYPES[dtype]
    except KeyError:
        raise UnsupportedError(
            f"sift.torch: {what} has dtype {dtype}, which sift does not "
            f"exchange (supported: "
            f"{', '.join(str(d) for d in _ELEMENT_TYPES)})") from None


def is_float(dtype):
    return dtype.is_floating_point


def tensor_type(dtype, shape):
    dims = "".join(("?" if d is None else str(d)) + "x" for d in shape)
    return f"tensor<{dims}{element_type(dtype)}>"


class Value:
    """An MLIR tensor SSA value with its torch dtype and shape (None: a
    data-dependent extent). `unsqueezed`: a 1-D sift.nonzero result that
    stands for torch's [n, 1] (any reshape to [n] makes it 1-D again)."""

    def __init__(self, name, dtype, shape, unsqueezed=False):
        self.name = name
        self.dtype = dtype
        self.shape = tuple(shape)
        self.unsqueezed = unsqueezed

    @property
    def type(self):
        return tensor_type(self.dtype, self.shape)

    @property
    def rank(self):
        return len(self.shape)


class Scalar:
    """A scalar SSA value (`index` for sizes, else an element type)."""

    def __init__(self, name, type):
        self.name = name
        self.type = type


def static_shape(shape):
    """A torch shape with symbolic (data-dependent) sizes as None."""
    return tuple(d if isinstance(d, int) else None for d in shape)


def _sym_expr(x):
    """The sympy expression of a SymInt (or an int)."""
    if isinstance(x, torch.SymInt):
        return x.node.expr
    import sympy
    return sympy.Integer(int(x))


def user_frame(node):
    """(file, line, code) of the innermost frame of the user's code in the
    node's stack trace, or None."""
    trace = node.meta.get("stack_trace") or ""
    best = None
    for m in _FRAME.finditer(trace):
        path = m.group(1)
        if path.startswith(_TORCH_DIR) or path.startswith(_SIFT_DIR):
            continue
        best = (path, int(m.group(2)), m.group(4).strip())
    return best


def register_stack_trace_anchors(fn):
    """Asks torch.export to keep the frames of `fn` and the functions
    beside it in its file in the nodes' stack traces (by default it keeps
    only frames named `forward`), so that locations name the user's line."""
    try:
        from torch.fx.proxy import _register_stack_trace_anchor
    except ImportError:  # An older or newer torch: locations stay coarser.
        return
    code = getattr(fn, "__code__", None)
    if code is None:
        fn = getattr(type(fn), "forward", None)
        code = getattr(fn, "__code__", None)
        if code is None:
            return
    _register_stack_trace_anchor(fn)
    for g in list(getattr(fn, "__globals__", {}).values()):
        gcode = getattr(g, "__code__", None)
        if gcode is not None and gcode.co_filename == code.co_filename:
            _register_stack_trace_anchor(g)


def _mlir_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Translator:
    def __init__(self, name, range_constraints=None):
        self.name = name
        self.lines = []
        self.counter = 0
        self.values = {}
        self.materialized = {}  # nonzero results made [n, 1] (`plain`)
        self.loc = ""
        self.node = None
        # Sizes: sympy expression -> index SSA name; unbacked symbol ->
        # (tensor Value, dim) that has it as an extent.
        self.sizes = {}
        self.symbol_dims = {}
        self.ranges = {}
        for sym, vr in (range_constraints or {}).items():
            self.ranges[getattr(sym, "node", sym)] = vr
        self.random_sites = 0
        self.seed = None
        self.clamped = []   # (symbol, bound, location) for the report
        # Data-dependent symbol -> the element count it is at most.
        self._natural = {}

    # -- emission ---------------------------------------------------------
    def fresh(self):
        # Numbered names: the arguments have identifiers (the parameter
        # names), which never start with a digit.
        self.counter += 1
        return f"%{self.counter}"

    def emit(self, line):
        self.lines.append("  " + line + self.loc)

    def emit_raw(self, line):
        """A line without a location (the head of an op with a region)."""
        self.lines.append("  " + line)

    def emit_close(self, line):
        """The last line of an op with a region: its location."""
        self.lines.append("  " + line + self.loc)

    def random_site(self):
        """(seed, offset) SSA names for a new random call site: the seed
        argument the function gains, and an offset of its own."""
        self.seed = "%seed"
        c = self.fresh()
        self.emit(f"{c} = arith.constant {self.random_sites} : i64")
        self.random_sites += 1
        return self.seed, c

    def set_node(self, node):
        self.node = node
        frame = user_frame(node)
        self.frame = frame
        self.loc = (f" loc({_mlir_string(frame[0])}:{frame[1]}:1)"
                    if frame else "")

    def where(self, node=None):
        frame = user_frame(node) if node is not None else self.frame
        if not frame:
            return ""
        return f"{frame[0]}:{frame[1]}: "

    def unsupported(self, node, why):
        frame = user_frame(node)
        where = f" at {frame[0]}:{frame[1]} (`{frame[2]}`)" if frame else ""
        raise UnsupportedError(
            f"sift.torch: cannot translate {node.target}{where} "
            f"(node '{node.name}'): {why}")

    # -- operands ---------------------------------------------------------
    def value(self, node, arg):
        if not isinstance(arg, torch.fx.Node):
            self.unsupported(node, f"expected a tensor operand, got {arg!r}")
        v = self.values.get(arg)
        if v is None or not isinstance(v, Value):
            self.unsupported(node, f"operand '{arg.name}' is not a tensor "
                             "this frontend translated")
        return v

    def plain(self, node, arg):
        """A tensor operand as it is in torch: nonzero's 1-D result as
        torch's [n, 1] (an expand_shape, made once; reshapes to [n] use
        the 1-D value directly)."""
        v = self.value(node, arg)
        if v.unsqueezed:
            if arg not in self.materialized:
                out = Value(self.fresh(), v.dtype, (None, 1))
                c0, n = self.index_const(0), self.fresh()
                self.emit(f"{n} = tensor.dim {v.name}, {c0} : {v.type}")
                self.emit(f"{out.name} = tensor.expand_shape {v.name} "
                          f"[[0, 1]] output_shape [{n}, 1] : {v.type} into "
                          f"{out.type}")
                self.materialized[arg] = out
            return self.materialized[arg]
        return v

    def define(self, node, value):
        self.values[node] = value
        self.note_symbols(node, value)

    def note_symbols(self, node, value):
        """Remembers which data-dependent symbols value's extents are."""
        fake = node.meta.get("val")
        if not isinstance(value, Value) or not isinstance(fake, torch.Tensor):
            return
        shape = fake.shape
        if value.unsqueezed:
            shape = shape[:1]
        import sympy
        for i, d in enumerate(shape):
            if isinstance(d, torch.SymInt) and isinstance(d.node.expr,
                                                          sympy.Symbol):
                self.symbol_dims.setdefault(d.node.expr, (value, i))

    # -- sizes --------------------------------------------------------------
    def index_const(self, k):
        import sympy
        key = sympy.Integer(int(k))
        if key not in self.sizes:
            n = self.fresh()
            self.emit(f"{n} = arith.constant {int(k)} : index")
            self.sizes[key] = n
        return self.sizes[key]

    def dim(self, v, i):
        """The extent i of v as an index SSA name."""
        if v.shape[i] is not None:
            return self.index_const(v.shape[i])
        c, n = self.index_const(i), self.fresh()
        self.emit(f"{n} = tensor.dim {v.name}, {c} : {v.type}")
        return n

    def size(self, x):
        """An index SSA name for a size: an int, a SymInt, an fx node of a
        SymInt, or a sympy expression."""
        if isinstance(x, torch.fx.Node):
            x = x.meta.get("val")
        if isinstance(x, (int, torch.SymInt)):
            x = _sym_expr(x)
        return self.sym(x)

    def sym(self, expr):
        import sympy
        from torch.utils._sympy.functions import (
            FloorDiv, Max, Min, PythonMod)
        if expr in self.sizes:
            return self.sizes[expr]
        if isinstance(expr, sympy.Integer):
            return self.index_const(int(expr))
        if isinstance(expr, sympy.Symbol):
            if expr not in self.symbol_dims:
                raise UnsupportedError(
                    f"sift.torch: {self.where()}the size {expr} comes from "
                    "no tensor this frontend translated")
            v, i = self.symbol_dims[expr]
            name = self.dim(v, i)
            name = self.clamp_to_range(expr, name, v)
        elif isinstance(expr, sympy.Add):
            terms = list(expr.args)
            # Start from a positive term so that `16 - x` is one subi.
            terms.sort(key=lambda t: t.could_extract_minus_sign())
            name = None
            for t in terms:
                neg = t.could_extract_minus_sign()
                tn = self.sym(-t if neg else t)
                if name is None:
                    if neg:
                        name = self.fresh()
                        self.emit(f"{name} = arith.subi "
                                  f"{self.index_const(0)}, {tn} : index")
                    else:
                        name = tn
                    continue
                out = self.fresh()
                op = "arith.subi" if neg else "arith.addi"
                self.emit(f"{out} = {op} {name}, {tn} : index")
                name = out
        elif isinstance(expr, sympy.Mul):
            name = None
            for t in expr.args:
                tn = self.sym(t)
                if name is None:
                    name = tn
                    continue
                out = self.fresh()
                self.emit(f"{out} = arith.muli {name}, {tn} : index")
                name = out
        elif isinstance(expr, (Min, Max)):
            op = "arith.minsi" if isinstance(expr, Min) else "arith.maxsi"
            args = sorted(expr.args, key=lambda a: isinstance(a,
                                                              sympy.Integer))
            name = self.sym(args[0])
            for a in args[1:]:
                out = self.fresh()
                self.emit(f"{out} = {op} {name}, {self.sym(a)} : index")
                name = out
        elif isinstance(expr, FloorDiv):
            a, b = (self.sym(x) for x in expr.args)
            name = self.fresh()
            self.emit(f"{name} = arith.floordivsi {a}, {b} : index")
        elif isinstance(expr, PythonMod):
            a, b = (self.sym(x) for x in expr.args)
            name = self.fresh()
            self.emit(f"{name} = arith.remsi {a}, {b} : index")
        else:
            raise UnsupportedError(
                f"sift.torch: {self.where()}the size expression {expr} "
                f"({type(expr).__name__}) is not supported")
        self.sizes[expr] = name
        return name

    def clamp_to_range(self, symbol, name, source):
        """Export's value range of a data-dependent size (from the ops and
        from the user's `torch._check`) where it is tighter than what the
        size can be anyway (the elements of the tensor it counts): the size
        clamped to it, so that sift's bound analysis sees the bound too.
        torch checks the range at run time in eager mode; here it is
        assumed."""
        vr = self.ranges.get(symbol)
        if vr is None:
            return name
        import sympy
        # Unbounded above: export's int_oo (which claims to be finite) or
        # sympy's oo; neither converts to int.
        if not isinstance(vr.upper, (int, sympy.Integer)):
            return name
        upper = int(vr.upper)
        if upper >= 2 ** 62:
            return name
        if upper >= self.natural_bound(symbol):
            return name
        out = self.fresh()
        self.emit(f"{out} = arith.minsi {name}, {self.index_const(upper)} "
                  ": index")
        self.clamped.append((str(symbol), upper, self.where().rstrip(": ")))
        return out

    def natural_bound(self, symbol):
        """The number of elements of the input of the op whose result has
        the data-dependent extent `symbol` (what sift bounds it by)."""
        return self._natural.get(symbol, 2 ** 62)

    # -- conversions ---------------------------------------------------------
    def cast(self, v, dtype):
        """v converted elementwise to dtype (PyTorch's promotion)."""
        if v.dtype == dtype:
            return v
        out = Value(self.fresh(), dtype, v.shape)
        src, dst = v.dtype, dtype
        if dst == torch.bool:
            zero = self.splat(v, 0, src)
            cmp = "arith.cmpf une" if is_float(src) else "arith.cmpi ne"
            self.emit(f"{out.name} = {cmp}, {v.name}, {zero.name} : {v.type}")
            return out
        if is_float(src) and is_float(dst):
            op = "arith.extf" if dst.itemsize > src.itemsize else \
                "arith.truncf"
        elif is_float(dst):
            op = "arith.uitofp" if src == torch.bool else "arith.sitofp"
        elif is_float(src):
            op = "arith.fptosi"
        elif src == torch.bool:
            op = "arith.extui"
        else:
            ws, wd = (int(element_type(d)[1:]) for d in (src, dst))
            if ws == wd:  # uint8 and int16 share i16
                op = None
            else:
                op = "arith.extsi" if wd > ws else "arith.trunci"
        if op is None:
            out = Value(v.name, dst, v.shape)
        else:
            self.emit(f"{out.name} = {op} {v.name} : {v.type} to "
                      f"{out.type}")
        if dst == torch.uint8 and src != torch.bool:
            out = self.wrap_uint8(out)
        return out

    def wrap_uint8(self, v):
        """A uint8 value (carried as i16) reduced modulo 256, as PyTorch's
        uint8 arithmetic and conversions wrap."""
        mask = self.splat(v, 255, torch.int16)
        out = Value(self.fresh(), torch.uint8, v.shape)
        self.emit(f"{out.name} = arith.andi {v.name}, {mask.name} : "
                  f"{v.type}")
        return out

    def literal(self, scalar, dtype):
        et = element_type(dtype, "a scalar")
        if et == "i1":
            return "true" if scalar else "false", et
        if is_float(dtype):
            f = float(scalar)
            if f != f or f in (float("inf"), float("-inf")):
                import struct
                bits = (struct.unpack("<I", struct.pack("<f", f))[0]
                        if dtype == torch.float32 else
                        struct.unpack("<Q", struct.pack("<d", f))[0])
                return f"0x{bits:X}", et
            text = repr(f)
            mantissa, e, exponent = text.partition("e")
            if e and "." not in mantissa:
                # MLIR's float literals need the point: 1e-12 is 1.0e-12.
                text = f"{mantissa}.0e{exponent}"
            return text, et
        return str(int(scalar)), et

    def scalar(self, scalar, dtype):
        """An SSA scalar of dtype: a Python number, or a SymInt node."""
        if isinstance(scalar, torch.fx.Node):
            val = scalar.meta.get("val")
            if not isinstance(val, torch.SymInt):
                self.unsupported(self.node, f"the operand {scalar.name} is "
                                 "neither a tensor nor a size")
            idx = self.size(val)
            i64 = self.fresh()
            self.emit(f"{i64} = arith.index_cast {idx} : index to i64")
            if dtype == torch.int64:
                return i64
            # Converted like a rank-0 tensor, then extracted.
            t = self.fresh()
            self.emit(f"{t} = tensor.from_elements {i64} : tensor<i64>")
            c = self.cast(Value(t, torch.int64, ()), dtype)
            e = self.fresh()
            self.emit(f"{e} = tensor.extract {c.name}[] : {c.type}")
            return e
        literal, et = self.literal(scalar, dtype)
        c = self.fresh()
        typed = "" if et == "i1" else f" : {et}"
        self.emit(f"{c} = arith.constant {literal}{typed}")
        return c

    def empty(self, dtype, shape, like=None, fake_shape=None):
        """tensor.empty of shape; dynamic extents from `like` (a Value of
        the same shape) or from the fake tensor's symbolic shape."""
        out = Value(self.fresh(), dtype, shape)
        dyn = []
        for i, d in enumerate(shape):
            if d is None:
                if like is not None and like.rank == len(shape):
                    dyn.append(self.dim(like, i))
                else:
                    dyn.append(self.size(fake_shape[i]))
        self.emit(f"{out.name} = tensor.empty({', '.join(dyn)}) : "
                  f"{out.type}")
        return out

    def splat(self, like, scalar, dtype, shape=None, fake_shape=None):
        """A tensor of like's shape (or `shape`) filled with a Python
        number or a size."""
        c = self.scalar(scalar, dtype)
        shape = like.shape if shape is None else shape
        out = Value(self.fresh(), dtype, shape)
        dyn = []
        for i, d in enumerate(shape):
            if d is None:
                dyn.append(self.dim(like, i) if like is not None
                           and like.rank == len(shape)
                           else self.size(fake_shape[i]))
        dyn = f"[{', '.join(dyn)}]" if dyn else ""
        self.emit(f"{out.name} = tensor.splat {c}{dyn} : {out.type}")
        return out

    # -- shapes ----------------------------------------------------------------
    def reshape_units(self, node, v, shape):
        """v reshaped to `shape`, which differs from v's by unit extents
        only (squeeze, unsqueeze, flatten/view of such shapes); None when
        the shapes differ otherwise."""
        src, dst = list(v.shape), list(shape)
        if src == dst:
            return v
        expand = len(dst) > len(src)
        long, short = (dst, src) if expand else (src, dst)
        groups, i = [], 0
        for d in short:
            g = []
            while i < len(long) and long[i] == 1 and d != 1:
                g.append(i)
                i += 1
            if i >= len(long) or long[i] != d:
                return None
            g.append(i)
            i += 1
            groups.append(g)
        rest = list(range(i, len(long)))
        if any(long[j] != 1 for j in rest):
            return None
        if groups:
            groups[-1] += rest
        elif long and any(d != 1 for d in long):
            return None
        reassoc = "[" + ", ".join(
            "[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"
        out = Value(self.fresh(), v.dtype, shape)
        if expand:
            sizes = []
            for j, d in enumerate(dst):
                if d is None:
                    # The one dynamic extent of its group: the source's.
                    k = next(n for n, g in enumerate(groups) if j in g)
                    sizes.append(self.dim(v, k))
                else:
                    sizes.append(str(d))
            self.emit(f"{out.name} = tensor.expand_shape {v.name} {reassoc} "
                      f"output_shape [{', '.join(sizes)}] : {v.type} into "
                      f"{out.type}")
        else:
            self.emit(f"{out.name} = tensor.collapse_shape {v.name} "
                      f"{reassoc} : {v.type} into {out.type}")
        return out

    def reshape(self, node, v, shape):
        """v reshaped to `shape` (row-major, as torch.reshape)."""
        out = self.reshape_units(node, v, shape)
        if out is not None:
            return out
        if None in v.shape or None in shape:
            self.unsupported(node, f"reshaping {v.shape} to {shape}: only "
                             "unit extents may change around a "
                             "data-dependent one")
        flat = v
        if v.rank != 1:
            flat = Value(self.fresh(), v.dtype, (_numel(v.shape),))
            reassoc = "[[" + ", ".join(map(str, range(v.rank))) + "]]"
            self.emit(f"{flat.name} = tensor.collapse_shape {v.name} "
                      f"{reassoc} : {v.type} into {flat.type}")
        if len(shape) == 1:
            return flat
        out = Value(self.fresh(), v.dtype, shape)
        reassoc = "[[" + ", ".join(map(str, range(len(shape)))) + "]]"
        self.emit(f"{out.name} = tensor.expand_shape {flat.name} {reassoc} "
                  f"output_shape [{', '.join(map(str, shape))}] : "
                  f"{flat.type} into {out.type}")
        return out

    def broadcast(self, node, v, shape, fake_shape=None):
        """v broadcast to `shape` (PyTorch's rules: align right, unit
        extents stretch)."""
        if v.shape == tuple(shape):
            return v
        r, R = v.rank, len(shape)
        if r > R:
            self.unsupported(node, f"cannot broadcast {v.shape} to {shape}")
        # Drop the unit extents that stretch, then add dimensions.
        kept, added = [], []
        for j in range(R):
            i = j - (R - r)
            if i >= 0 and (v.shape[i] == shape[j] and v.shape[i] != 1
                           or v.shape[i] == 1 and shape[j] == 1):
                kept.append(i)
            elif i >= 0 and v.shape[i] not in (1,) and v.shape[i] != shape[j]:
                if v.shape[i] is None and shape[j] is None:
                    kept.append(i)  # The same data-dependent extent.
                    continue
                self.unsupported(node, f"cannot broadcast {v.shape} to "
                                 f"{shape}")
            else:
                added.append(j)
        squeezed = tuple(v.shape[i] for i in kept)
        src = self.reshape_units(node, v, squeezed)
        if src is None:
            self.unsupported(node, f"cannot broadcast {v.shape} to {shape}")
        if not added:
            return self.reshape_units(node, src, shape)
        init = self.empty(v.dtype, shape, fake_shape=fake_shape)
        out = Value(self.fresh(), v.dtype, shape)
        self.emit(f"{out.name} = linalg.broadcast ins({src.name} : "
                  f"{src.type}) outs({init.name} : {init.type}) "
                  f"dimensions = [{', '.join(map(str, added))}]")
        return out


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n
