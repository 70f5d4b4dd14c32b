"""The op table: every ATen overload sift.torch translates, and how.

`HANDLERS` maps an overload's name (``aten.add.Tensor``) to a function
``handler(t, node, meta)`` that emits MLIR through the Translator `t` and
returns the node's Value (a list for ops with several results), or None
for nodes that emit nothing (sizes are emitted where they are used).
`SIZE_OPS` lists the nodes that compute sizes (SymInts) and the checks
export adds; the translator builds sizes from export's symbolic
expressions instead (`Translator.size`).

Data-dependent and sampling ops become `sift` ops (nonzero, masked_select,
unique, randperm, sort, argsort, topk, cumsum, gather, random_uniform,
cross_entropy, which nll_loss of a log_softmax also becomes); the rest
becomes `arith`, `math`, `tensor` and `linalg`.
"""

import operator

import torch

from ._translate import (Scalar, Value, element_type, is_float, static_shape,
                         tensor_type)

HANDLERS = {}

# Nodes that compute sizes or check them: no code of their own.
SIZE_OPS = {
    "aten.sym_size.int", "aten.sym_numel.default", "aten.sym_stride.int",
    "aten.sym_storage_offset.default",
    "aten._assert_scalar.default", "aten._assert_tensor_metadata.default",
    "aten.sym_constrain_range_for_size.default",
    "aten.sym_constrain_range.default", "aten._assert_async.msg",
    "operator.add", "operator.sub", "operator.mul", "operator.floordiv",
    "operator.mod", "operator.neg", "operator.ge", "operator.gt",
    "operator.le", "operator.lt", "operator.eq", "operator.ne",
    "operator.and_", "operator.or_", "torch.sym_min", "torch.sym_max",
    "torch.sym_not", "torch.sym_sum",
}


def op(*names):
    def register(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn
    return register


def overload_name(target):
    """``aten.add.Tensor`` for an OpOverload; ``operator.add`` and
    ``torch.sym_min`` for Python callables."""
    opname = getattr(target, "_opname", None)
    if opname is not None and hasattr(target, "_overloadname"):
        ns = getattr(target, "namespace", "aten")
        return f"{ns}.{opname}.{target._overloadname}"
    mod = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", str(target))
    if mod in ("_operator", "operator"):
        return f"operator.{name}"
    if mod.startswith("torch"):
        return f"torch.{name}"
    return f"{mod}.{name}"


def _arg(node, i, name, default=None):
    if len(node.args) > i:
        return node.args[i]
    return node.kwargs.get(name, default)


def _is_tensor(x):
    return isinstance(x, torch.fx.Node) and isinstance(
        x.meta.get("val"), torch.Tensor)


def _result(t, meta, dtype=None, shape=None):
    return Value(t.fresh(), dtype or meta.dtype,
                 static_shape(meta.shape) if shape is None else shape)


def _dim(d, rank):
    d = int(d)
    return d + rank if d < 0 else d


def _operand(t, node, x, dtype, meta):
    """An operand of an elementwise op as a tensor of dtype broadcast to
    the result's shape (a Python number or size becomes a splat)."""
    shape = static_shape(meta.shape)
    if _is_tensor(x):
        v = t.cast(t.plain(node, x), dtype)
        return t.broadcast(node, v, shape, fake_shape=meta.shape)
    if isinstance(x, torch.fx.Node) and isinstance(t.values.get(x), Scalar):
        s = t.values[x]
        # A scalar from item(): as a rank-0 tensor, converted, broadcast.
        r = Value(t.fresh(), _scalar_dtype(s), ())
        t.emit(f"{r.name} = tensor.from_elements {s.name} : {r.type}")
        return t.broadcast(node, t.cast(r, dtype), shape,
                           fake_shape=meta.shape)
    return t.splat(None, x, dtype, shape=shape, fake_shape=meta.shape)


def _scalar_dtype(s):
    return {"i64": torch.int64, "i32": torch.int32, "f32": torch.float32,
            "f64": torch.float64, "i1": torch.bool}[s.type]


def _fake(x):
    if isinstance(x, torch.fx.Node):
        return x.meta.get("val")
    return x


def _promoted(*xs):
    fakes = [_fake(x) for x in xs if x is not None]
    return torch.result_type(*fakes) if len(fakes) > 1 else fakes[0].dtype


def _elementwise(t, node, meta, name_int, name_float, dtype=None):
    a, b = node.args[0], node.args[1]
    dtype = dtype or _promoted(a, b)
    va = _operand(t, node, a, dtype, meta)
    vb = _operand(t, node, b, dtype, meta)
    out = _result(t, meta, dtype)
    name = name_float if is_float(dtype) else name_int
    if name is None:
        t.unsupported(node, f"not supported for {dtype}")
    t.emit(f"{out.name} = {name} {va.name}, {vb.name} : {va.type}")
    return t.cast(out, meta.dtype)


# -- comparisons and arithmetic ------------------------------------------

_COMPARISONS = {
    "eq": ("eq", "oeq"), "ne": ("ne", "une"), "lt": ("slt", "olt"),
    "le": ("sle", "ole"), "gt": ("sgt", "ogt"), "ge": ("sge", "oge"),
}


def _comparison(pred_int, pred_float):
    def handler(t, node, meta):
        a, b = node.args[0], node.args[1]
        dtype = _promoted(a, b)
        va = _operand(t, node, a, dtype, meta)
        vb = _operand(t, node, b, dtype, meta)
        out = _result(t, meta)
        if is_float(dtype):
            t.emit(f"{out.name} = arith.cmpf {pred_float}, {va.name}, "
                   f"{vb.name} : {va.type}")
        else:
            pred = pred_int
            if dtype == torch.bool and pred[0] == "s":
                pred = "u" + pred[1:]
            t.emit(f"{out.name} = arith.cmpi {pred}, {va.name}, {vb.name} "
                   f": {va.type}")
        return out
    return handler


for _n, (_pi, _pf) in _COMPARISONS.items():
    op(f"aten.{_n}.Tensor", f"aten.{_n}.Scalar")(_comparison(_pi, _pf))

_ARITH = {
    "add": ("arith.addi", "arith.addf", "arith.ori"),
    "sub": ("arith.subi", "arith.subf", None),
    "mul": ("arith.muli", "arith.mulf", "arith.andi"),
}


def _arith(int_op, float_op, bool_op):
    def handler(t, node, meta):
        alpha = node.kwargs.get("alpha", 1)
        if len(node.args) > 2 or alpha != 1:
            t.unsupported(node, "alpha other than 1 is not supported")
        if meta.dtype == torch.bool:
            if bool_op is None:
                t.unsupported(node, "not supported for booleans")
            return _elementwise(t, node, meta, bool_op, None)
        return _elementwise(t, node, meta, int_op, float_op,
                            dtype=meta.dtype)
    return handler


for _n, _ops3 in _ARITH.items():
    op(f"aten.{_n}.Tensor", f"aten.{_n}.Scalar")(_arith(*_ops3))


@op("aten.rsub.Scalar")
def _rsub(t, node, meta):
    a, b = node.args[0], node.args[1]
    vb = _operand(t, node, b, meta.dtype, meta)
    va = _operand(t, node, a, meta.dtype, meta)
    out = _result(t, meta)
    name = "arith.subf" if is_float(meta.dtype) else "arith.subi"
    t.emit(f"{out.name} = {name} {vb.name}, {va.name} : {va.type}")
    return out


@op("aten.div.Tensor", "aten.div.Scalar", "aten.div.Tensor_mode",
    "aten.div.Scalar_mode", "aten.floor_divide.default",
    "aten.floor_divide.Scalar")
def _div(t, node, meta):
    mode = node.kwargs.get("rounding_mode", _arg(node, 2, "rounding_mode"))
    if node.target.__name__.startswith("floor_divide"):
        mode = "floor"
    if is_float(meta.dtype):
        out = _elementwise(t, node, meta, None, "arith.divf",
                           dtype=meta.dtype)
        if mode in ("floor", "trunc"):
            r = _result(t, meta)
            t.emit(f"{r.name} = math.{mode} {out.name} : {out.type}")
            out = r
        return out
    if mode is None:
        t.unsupported(node, "integer true division")
    name = "arith.floordivsi" if mode == "floor" else "arith.divsi"
    return _elementwise(t, node, meta, name, None, dtype=meta.dtype)


@op("aten.remainder.Scalar", "aten.remainder.Tensor")
def _remainder(t, node, meta):
    a, b = node.args[0], node.args[1]
    dtype = meta.dtype
    va = _operand(t, node, a, dtype, meta)
    vb = _operand(t, node, b, dtype, meta)
    ty = va.type
    r = t.fresh()
    if is_float(dtype):
        # a - floor(a / b) * b, Python's sign convention.
        q, f, m = t.fresh(), t.fresh(), t.fresh()
        t.emit(f"{q} = arith.divf {va.name}, {vb.name} : {ty}")
        t.emit(f"{f} = math.floor {q} : {ty}")
        t.emit(f"{m} = arith.mulf {f}, {vb.name} : {ty}")
        t.emit(f"{r} = arith.subf {va.name}, {m} : {ty}")
        return Value(r, dtype, va.shape)
    # remsi takes the dividend's sign; Python's the divisor's.
    zero = t.splat(va, 0, dtype)
    rem, nz, rneg, bneg, diff, fix, adj = (t.fresh() for _ in range(7))
    bty = tensor_type(torch.bool, va.shape)
    t.emit(f"{rem} = arith.remsi {va.name}, {vb.name} : {ty}")
    t.emit(f"{nz} = arith.cmpi ne, {rem}, {zero.name} : {ty}")
    t.emit(f"{rneg} = arith.cmpi slt, {rem}, {zero.name} : {ty}")
    t.emit(f"{bneg} = arith.cmpi slt, {vb.name}, {zero.name} : {ty}")
    t.emit(f"{diff} = arith.xori {rneg}, {bneg} : {bty}")
    t.emit(f"{fix} = arith.andi {nz}, {diff} : {bty}")
    t.emit(f"{adj} = arith.addi {rem}, {vb.name} : {ty}")
    t.emit(f"{r} = arith.select {fix}, {adj}, {rem} : {bty}, {ty}")
    return Value(r, dtype, va.shape)


@op("aten.fmod.Scalar", "aten.fmod.Tensor")
def _fmod(t, node, meta):
    """C's fmod: the remainder with the dividend's sign (remainder, above,
    takes the divisor's)."""
    return _elementwise(t, node, meta, "arith.remsi", "arith.remf",
                        dtype=meta.dtype)


@op("aten.atan2.default")
def _atan2(t, node, meta):
    # Integers are promoted to the float result first (dtype=meta.dtype).
    return _elementwise(t, node, meta, None, "math.atan2", dtype=meta.dtype)


@op("aten.sign.default", "aten.sgn.default")
def _sign(t, node, meta):
    """1, -1 or 0 (NaN gives 0, as PyTorch's); booleans are themselves."""
    x = t.plain(node, node.args[0])
    if x.dtype == torch.bool:
        return x
    zero = t.splat(x, 0, x.dtype)
    cmp = "arith.cmpf o" if is_float(x.dtype) else "arith.cmpi s"
    pos, neg = (Value(t.fresh(), torch.bool, x.shape) for _ in range(2))
    t.emit(f"{pos.name} = {cmp}gt, {x.name}, {zero.name} : {x.type}")
    t.emit(f"{neg.name} = {cmp}lt, {x.name}, {zero.name} : {x.type}")
    inner, out = (Value(t.fresh(), x.dtype, x.shape) for _ in range(2))
    t.emit(f"{inner.name} = arith.select {neg.name}, "
           f"{t.splat(x, -1, x.dtype).name}, {zero.name} : {neg.type}, "
           f"{x.type}")
    t.emit(f"{out.name} = arith.select {pos.name}, "
           f"{t.splat(x, 1, x.dtype).name}, {inner.name} : {pos.type}, "
           f"{x.type}")
    return out


@op("aten.maximum.default", "aten.minimum.default")
def _maxmin(t, node, meta):
    mx = node.target.__name__.startswith("maximum")
    return _elementwise(t, node, meta,
                        "arith.maxsi" if mx else "arith.minsi",
                        "arith.maximumf" if mx else "arith.minimumf",
                        dtype=meta.dtype)


_LOGICAL = {"logical_and": "arith.andi", "logical_or": "arith.ori",
            "logical_xor": "arith.xori"}
_BITWISE = {"bitwise_and": "arith.andi", "bitwise_or": "arith.ori",
            "bitwise_xor": "arith.xori"}


def _logical(name):
    def handler(t, node, meta):
        a, b = node.args[0], node.args[1]
        va = _operand(t, node, a, torch.bool, meta)
        vb = _operand(t, node, b, torch.bool, meta)
        out = _result(t, meta)
        t.emit(f"{out.name} = {name} {va.name}, {vb.name} : {va.type}")
        return out
    return handler


def _bitwise(name):
    def handler(t, node, meta):
        if is_float(meta.dtype):
            t.unsupported(node, "bitwise ops on floats")
        return _elementwise(t, node, meta, name, None, dtype=meta.dtype)
    return handler


for _n, _name in _LOGICAL.items():
    op(f"aten.{_n}.default")(_logical(_name))
for _n, _name in _BITWISE.items():
    _dunder = f"__{_n[len('bitwise_'):]}__"
    op(f"aten.{_n}.Tensor", f"aten.{_n}.Scalar", f"aten.{_dunder}.Tensor",
       f"aten.{_dunder}.Scalar")(_bitwise(_name))


@op("aten.logical_not.default", "aten.bitwise_not.default")
def _not(t, node, meta):
    x = t.plain(node, node.args[0])
    if node.target.__name__.startswith("logical"):
        x = t.cast(x, torch.bool)
    elif is_float(x.dtype):
        t.unsupported(node, "bitwise_not of floats")
    ones = t.splat(x, True if x.dtype == torch.bool else -1, x.dtype)
    out = _result(t, meta)
    t.emit(f"{out.name} = arith.xori {x.name}, {ones.name} : {x.type}")
    return out


_MATH = {"exp": "math.exp", "log": "math.log", "sqrt": "math.sqrt",
         "rsqrt": "math.rsqrt", "tanh": "math.tanh", "floor": "math.floor",
         "ceil": "math.ceil", "round": "math.roundeven",
         "trunc": "math.trunc", "log1p": "math.log1p", "expm1": "math.expm1",
         "erf": "math.erf"}


def _unary_math(name):
    def handler(t, node, meta):
        x = t.cast(t.plain(node, node.args[0]), meta.dtype)
        if not is_float(x.dtype):
            if name in ("math.floor", "math.ceil", "math.roundeven",
                        "math.trunc"):
                return x  # Integers round to themselves.
            t.unsupported(node, "needs a float input")
        out = _result(t, meta)
        t.emit(f"{out.name} = {name} {x.name} : {x.type}")
        return out
    return handler


for _n, _name in _MATH.items():
    op(f"aten.{_n}.default")(_unary_math(_name))


@op("aten.neg.default")
def _neg(t, node, meta):
    x = t.plain(node, node.args[0])
    out = _result(t, meta)
    if is_float(x.dtype):
        t.emit(f"{out.name} = arith.negf {x.name} : {x.type}")
    else:
        zero = t.splat(x, 0, x.dtype)
        t.emit(f"{out.name} = arith.subi {zero.name}, {x.name} : {x.type}")
    return out


@op("aten.abs.default")
def _abs(t, node, meta):
    x = t.plain(node, node.args[0])
    out = _result(t, meta)
    name = "math.absf" if is_float(x.dtype) else "math.absi"
    t.emit(f"{out.name} = {name} {x.name} : {x.type}")
    return out


@op("aten.sigmoid.default")
def _sigmoid(t, node, meta):
    x = t.plain(node, node.args[0])
    one = t.splat(x, 1.0, x.dtype)
    n, e, s, out = t.fresh(), t.fresh(), t.fresh(), _result(t, meta)
    t.emit(f"{n} = arith.negf {x.name} : {x.type}")
    t.emit(f"{e} = math.exp {n} : {x.type}")
    t.emit(f"{s} = arith.addf {one.name}, {e} : {x.type}")
    t.emit(f"{out.name} = arith.divf {one.name}, {s} : {x.type}")
    return out


@op("aten.relu.default")
def _relu(t, node, meta):
    """max(x, 0); NaN stays NaN, as in PyTorch."""
    x = t.plain(node, node.args[0])
    zero = t.splat(x, 0, x.dtype)
    out = _result(t, meta)
    name = "arith.maximumf" if is_float(x.dtype) else "arith.maxsi"
    t.emit(f"{out.name} = {name} {x.name}, {zero.name} : {x.type}")
    return out


def _apply(t, meta, name, a, b):
    """The binary op `name` of a and b, the result as meta."""
    out = _result(t, meta)
    t.emit(f"{out.name} = {name} {a.name}, {b.name} : {a.type}")
    return out


@op("aten.pow.Tensor_Scalar", "aten.pow.Tensor_Tensor")
def _pow(t, node, meta):
    """x ** e: products for the small integer powers PyTorch also
    computes by multiplying (0 to 3, and their reciprocals for floats),
    sqrt for 0.5, math.powf otherwise; integers to a constant non-negative
    power by squaring and multiplying (wrapping, as PyTorch's do)."""
    base, e = node.args[0], node.args[1]
    dtype = meta.dtype
    x = _operand(t, node, base, dtype, meta)
    if not _is_tensor(e) and not isinstance(e, torch.fx.Node):
        k = float(e)
        if is_float(dtype) and k in (0.0, 1.0, 2.0, 3.0, -1.0, -2.0, 0.5):
            if k == 0.5:
                out = _result(t, meta)
                t.emit(f"{out.name} = math.sqrt {x.name} : {x.type}")
                return out
            one = t.splat(x, 1.0, dtype)
            v = one
            for _ in range(int(abs(k))):
                v = _apply(t, meta, "arith.mulf", v, x)
            return _apply(t, meta, "arith.divf", one, v) if k < 0 else v
        if not is_float(dtype):
            if k < 0 or k != int(k):
                t.unsupported(node, "an integer to a negative power")
            # Square and multiply, wrapping as PyTorch's integers do.
            v, square, k = t.splat(x, 1, dtype), x, int(k)
            while k:
                if k & 1:
                    v = _apply(t, meta, "arith.muli", v, square)
                k >>= 1
                if k:
                    square = _apply(t, meta, "arith.muli", square, square)
            return v
    if not is_float(dtype):
        t.unsupported(node, "an integer tensor to a tensor of powers")
    y = _operand(t, node, e, dtype, meta)
    out = _result(t, meta)
    t.emit(f"{out.name} = math.powf {x.name}, {y.name} : {x.type}")
    return out


@op("aten.isnan.default", "aten.isinf.default", "aten.isfinite.default",
    "aten.isposinf.default", "aten.isneginf.default")
def _isnan(t, node, meta):
    """NaN, infinity and finiteness tests (all false, false, true for
    integers)."""
    x = t.plain(node, node.args[0])
    kind = node.target._opname
    out = _result(t, meta)
    if not is_float(x.dtype):
        return t.splat(x, kind == "isfinite", torch.bool)
    if kind == "isnan":
        t.emit(f"{out.name} = arith.cmpf uno, {x.name}, {x.name} : "
               f"{x.type}")
        return out
    inf = t.splat(x, float("inf"), x.dtype)
    if kind in ("isposinf", "isneginf"):
        ref = inf if kind == "isposinf" else t.splat(x, float("-inf"),
                                                      x.dtype)
        t.emit(f"{out.name} = arith.cmpf oeq, {x.name}, {ref.name} : "
               f"{x.type}")
        return out
    a = Value(t.fresh(), x.dtype, x.shape)
    t.emit(f"{a.name} = math.absf {x.name} : {x.type}")
    # isinf: |x| == inf; isfinite: |x| < inf (false for NaN).
    pred = "oeq" if kind == "isinf" else "olt"
    t.emit(f"{out.name} = arith.cmpf {pred}, {a.name}, {inf.name} : "
           f"{x.type}")
    return out


@op("aten.nan_to_num.default")
def _nan_to_num(t, node, meta):
    """NaN to `nan` (0), +inf to `posinf` and -inf to `neginf` (the
    dtype's largest and lowest finite values by default); integers are
    unchanged."""
    x = t.plain(node, node.args[0])
    if not is_float(x.dtype):
        return x
    info = torch.finfo(x.dtype)
    nan = _arg(node, 1, "nan")
    posinf, neginf = _arg(node, 2, "posinf"), _arg(node, 3, "neginf")
    out = x
    for pred, ref, value in (("uno", x, 0.0 if nan is None else nan),
                             ("oeq", float("inf"),
                              info.max if posinf is None else posinf),
                             ("oeq", float("-inf"),
                              info.min if neginf is None else neginf)):
        if not isinstance(ref, Value):
            ref = t.splat(x, ref, x.dtype)
        hit = Value(t.fresh(), torch.bool, x.shape)
        t.emit(f"{hit.name} = arith.cmpf {pred}, {x.name}, {ref.name} : "
               f"{x.type}")
        fixed = Value(t.fresh(), x.dtype, x.shape)
        t.emit(f"{fixed.name} = arith.select {hit.name}, "
               f"{t.splat(x, float(value), x.dtype).name}, {out.name} : "
               f"{hit.type}, {x.type}")
        out = fixed
    return out


# -- where, clamp, conversions, constants ------------------------------------

@op("aten.where.self", "aten.where.ScalarOther", "aten.where.ScalarSelf",
    "aten.where.Scalar")
def _where(t, node, meta):
    cond, a, b = node.args[:3]
    c = _operand(t, node, cond, torch.bool, meta)
    va = _operand(t, node, a, meta.dtype, meta)
    vb = _operand(t, node, b, meta.dtype, meta)
    out = _result(t, meta)
    t.emit(f"{out.name} = arith.select {c.name}, {va.name}, {vb.name} : "
           f"{c.type}, {va.type}")
    return out


@op("aten.clamp.default", "aten.clamp.Tensor", "aten.clamp_min.default",
    "aten.clamp_max.default", "aten.clamp_min.Tensor",
    "aten.clamp_max.Tensor")
def _clamp(t, node, meta):
    name = node.target.__name__
    x = node.args[0]
    if name.startswith("clamp_min"):
        lo, hi = node.args[1], None
    elif name.startswith("clamp_max"):
        lo, hi = None, node.args[1]
    else:
        lo, hi = _arg(node, 1, "min"), _arg(node, 2, "max")
    dtype = meta.dtype
    v = _operand(t, node, x, dtype, meta)
    for bound, (iop, fop) in ((lo, ("arith.maxsi", "arith.maximumf")),
                              (hi, ("arith.minsi", "arith.minimumf"))):
        if bound is None:
            continue
        b = _operand(t, node, bound, dtype, meta)
        out = _result(t, meta)
        t.emit(f"{out.name} = {fop if is_float(dtype) else iop} {v.name}, "
               f"{b.name} : {v.type}")
        v = out
    return v


@op("aten._to_copy.default", "aten.to.dtype", "aten.to.dtype_layout",
    "aten.to.device", "aten.type_as.default", "aten.clone.default",
    "aten.alias.default", "aten.detach.default", "aten.detach_.default",
    "aten.lift_fresh_copy.default",
    "aten.contiguous.default")
def _convert(t, node, meta):
    device = node.kwargs.get("device")
    if device is not None and torch.device(device).type != "cpu":
        t.unsupported(node, "only CPU tensors")
    x = t.value(node, node.args[0])
    if x.unsqueezed and meta.dtype == x.dtype:
        return x
    return t.cast(t.plain(node, node.args[0]), meta.dtype)


def _fill_like(t, node, meta, value):
    return t.splat(None, value, meta.dtype, shape=static_shape(meta.shape),
                   fake_shape=meta.shape)


@op("aten.scalar_tensor.default")
def _scalar_tensor(t, node, meta):
    return _fill_like(t, node, meta, node.args[0])


@op("aten.full.default", "aten.full_like.default")
def _full(t, node, meta):
    return _fill_like(t, node, meta, node.args[1])


@op("aten.zeros.default", "aten.zeros_like.default", "aten.ones.default",
    "aten.ones_like.default", "aten.new_zeros.default",
    "aten.new_ones.default")
def _zeros_ones(t, node, meta):
    return _fill_like(t, node, meta,
                      1 if "ones" in node.target.__name__ else 0)


@op("aten.empty_permuted.default")
def _empty_permuted(t, node, meta):
    # Its contents are unspecified: zeros (what decompositions then fill).
    return _fill_like(t, node, meta, 0)


@op("aten.arange.default", "aten.arange.start", "aten.arange.start_step")
def _arange(t, node, meta):
    args = list(node.args)
    if len(args) == 1:
        start, end, step = 0, args[0], 1
    else:
        start, end = args[0], args[1]
        step = args[2] if len(args) > 2 else node.kwargs.get("step", 1)
    for x in (start, step):
        if not isinstance(x, (int, float)):
            t.unsupported(node, "start and step must be numbers")
    init = t.empty(meta.dtype, static_shape(meta.shape),
                   fake_shape=meta.shape)
    return _range(t, init, _result(t, meta), start, step)


def _range(t, init, out, start=0, step=1):
    """start + i * step at each position i of a 1-D `out` (init: its
    tensor.empty): one linalg.generic over linalg.index."""
    dtype = out.dtype
    et = element_type(dtype)
    i, i64 = t.fresh(), t.fresh()
    lines = [f"{i} = linalg.index 0 : index",
             f"{i64} = arith.index_cast {i} : index to i64"]
    v = i64
    if is_float(dtype):
        f = t.fresh()
        lines.append(f"{f} = arith.sitofp {i64} : i64 to {et}")
        v = f
    elif et != "i64":
        f = t.fresh()
        lines.append(f"{f} = arith.trunci {i64} : i64 to {et}")
        v = f
    mul, add = ("arith.mulf", "arith.addf") if is_float(dtype) else \
        ("arith.muli", "arith.addi")
    if step != 1:
        c, m = t.fresh(), t.fresh()
        lit, _ = t.literal(step, dtype)
        lines += [f"{c} = arith.constant {lit} : {et}",
                  f"{m} = {mul} {v}, {c} : {et}"]
        v = m
    if start != 0:
        c, a = t.fresh(), t.fresh()
        lit, _ = t.literal(start, dtype)
        lines += [f"{c} = arith.constant {lit} : {et}",
                  f"{a} = {add} {v}, {c} : {et}"]
        v = a
    t.emit_raw(
        f"{out.name} = linalg.generic {{indexing_maps = "
        "[affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]} "
        f"outs({init.name} : {init.type}) {{")
    t.emit_raw(f"  ^bb0({t.fresh()}: {et}):")
    for line in lines:
        t.emit("  " + line)
    t.emit(f"  linalg.yield {v} : {et}")
    t.emit_close(f"}} -> {out.type}")
    return out


@op("aten.rand.default", "aten.rand_like.default")
def _rand(t, node, meta):
    shape = static_shape(meta.shape)
    if None in shape:
        t.unsupported(node, "random tensors need a static shape")
    out = _result(t, meta)
    seed, offset = t.random_site()
    t.emit(f"{out.name} = sift.random_uniform {seed} offset {offset} : "
           f"{out.type}")
    return out


def _uniform(t, node, shape, dtype):
    """Uniform floats in [0, 1) of a static shape from the call site's own
    Philox stream."""
    if None in shape:
        t.unsupported(node, "random tensors need a static shape")
    out = Value(t.fresh(), dtype, shape)
    seed, offset = t.random_site()
    t.emit(f"{out.name} = sift.random_uniform {seed} offset {offset} : "
           f"{out.type}")
    return out


@op("aten.bernoulli.default", "aten.bernoulli.p")
def _bernoulli(t, node, meta):
    """1 with probability p (a tensor of probabilities, or a number), else
    0: a uniform draw below p."""
    x = t.plain(node, node.args[0])
    fdt = x.dtype if is_float(x.dtype) else torch.float32
    u = _uniform(t, node, x.shape, fdt)
    if node.target._overloadname == "p":  # bernoulli(x, p=0.5)
        p = node.args[1] if len(node.args) > 1 else node.kwargs.get("p", 0.5)
        p = t.splat(x, float(p), fdt)
    else:  # bernoulli(probabilities)
        p = t.cast(x, fdt)
    hit = Value(t.fresh(), torch.bool, x.shape)
    t.emit(f"{hit.name} = arith.cmpf olt, {u.name}, {p.name} : {u.type}")
    return t.cast(hit, meta.dtype)


@op("aten.multinomial.default")
def _multinomial(t, node, meta):
    """torch.multinomial(weights, k, replacement): k positions of each row
    drawn with probability proportional to its weights, from the call
    site's Philox stream (PyTorch's bits are not matched). With
    replacement, the inverse of the row's running total at u times the
    total (PyTorch's binary search, right side); without, the k largest
    keys log(u) / w (Efraimidis-Spirakis), so a zero weight comes last."""
    w = t.plain(node, node.args[0])
    k = node.args[1]
    replacement = _arg(node, 2, "replacement", False)
    if not isinstance(k, int) or w.rank not in (1, 2) or None in w.shape:
        t.unsupported(node, "a constant number of samples from 1-D or 2-D "
                      "weights of static extents")
    fdt = w.dtype if is_float(w.dtype) else torch.float32
    w = t.cast(w, fdt)
    m, lead = w.shape[-1], w.shape[:-1]
    if not replacement and k > m:
        t.unsupported(node, "more samples than categories without "
                      "replacement")
    if replacement:
        totals = Value(t.fresh(), fdt, w.shape)
        t.emit(f"{totals.name} = sift.cumsum {w.name} : {w.type} -> "
               f"{totals.type}")
        last = Value(t.fresh(), fdt, lead + (1,))
        offs = ", ".join(["0"] * len(lead) + [str(m - 1)])
        sizes = ", ".join([str(d) for d in lead] + ["1"])
        ones = ", ".join(["1"] * w.rank)
        t.emit(f"{last.name} = tensor.extract_slice {totals.name}[{offs}] "
               f"[{sizes}] [{ones}] : {totals.type} to {last.type}")
        u = _uniform(t, node, lead + (k,), fdt)
        target = Value(t.fresh(), fdt, u.shape)
        t.emit(f"{target.name} = arith.mulf {u.name}, "
               f"{t.broadcast(node, last, u.shape).name} : {u.type}")
        pos = _binary_search(t, node, totals, target, right=True)
        # u * total may round up to the total: the last position.
        top = t.splat(pos, m - 1, torch.int64)
        out = Value(t.fresh(), torch.int64, pos.shape)
        t.emit(f"{out.name} = arith.minsi {pos.name}, {top.name} : "
               f"{pos.type}")
        return out
    u = _uniform(t, node, w.shape, fdt)
    logs, keys = (Value(t.fresh(), fdt, w.shape) for _ in range(2))
    t.emit(f"{logs.name} = math.log {u.name} : {u.type}")
    t.emit(f"{keys.name} = arith.divf {logs.name}, {w.name} : {w.type}")
    vals = Value(t.fresh(), fdt, lead + (k,))
    out = Value(t.fresh(), torch.int64, lead + (k,))
    t.emit(f"{vals.name}, {out.name} = sift.topk {keys.name} k({k}) : "
           f"{keys.type} -> {vals.type}, {out.type}")
    return out


@op("aten.randint.default", "aten.randint.low", "aten.randint_like.default",
    "aten.randint_like.low_dtype")
def _randint(t, node, meta):
    """Integers uniform in [low, high): floor(u * (high - low)) + low of a
    53-bit uniform u."""
    name = node.target._overloadname
    if node.target._opname == "randint_like":
        args = node.args[1:]
    else:
        args = node.args
    if name in ("low", "low_dtype"):
        low, high = args[0], args[1]
    else:
        low, high = 0, args[0]
    if not all(isinstance(v, int) for v in (low, high)) or high <= low:
        t.unsupported(node, "randint with constant bounds low < high")
    shape = static_shape(meta.shape)
    u = _uniform(t, node, shape, torch.float64)
    span = t.splat(u, float(high - low), torch.float64)
    scaled = Value(t.fresh(), torch.float64, shape)
    t.emit(f"{scaled.name} = arith.mulf {u.name}, {span.name} : {u.type}")
    floor = Value(t.fresh(), torch.float64, shape)
    t.emit(f"{floor.name} = math.floor {scaled.name} : {u.type}")
    ints = t.cast(floor, torch.int64)
    base = t.splat(ints, low, torch.int64)
    out = Value(t.fresh(), torch.int64, shape)
    t.emit(f"{out.name} = arith.addi {ints.name}, {base.name} : {ints.type}")
    return t.cast(out, meta.dtype)


@op("aten.randn.default", "aten.randn_like.default")
def _randn(t, node, meta):
    """Standard normal floats by Box-Muller from two uniform draws:
    sqrt(-2 log(1 - u1)) * cos(2 pi u2)."""
    shape = static_shape(meta.shape)
    dtype = meta.dtype
    both = _uniform(t, node, (2,) + shape, dtype)
    halves = []
    for i in range(2):
        h = Value(t.fresh(), dtype, shape)
        sizes = ", ".join(["1"] + [str(d) for d in shape])
        zeros = ", ".join(["0"] * len(shape))
        ones = ", ".join(["1"] * (len(shape) + 1))
        t.emit(f"{h.name} = tensor.extract_slice {both.name}[{i}"
               f"{', ' + zeros if shape else ''}] [{sizes}] [{ones}] : "
               f"{both.type} to {h.type}")
        halves.append(h)
    u1, u2 = halves
    one, m2, tau = (t.splat(u1, c, dtype) for c in (1.0, -2.0,
                                                    6.283185307179586))
    names = [t.fresh() for _ in range(6)]
    a, lg, r2, r, ang, c = names
    typ = u1.type
    t.emit(f"{a} = arith.subf {one.name}, {u1.name} : {typ}")
    t.emit(f"{lg} = math.log {a} : {typ}")
    t.emit(f"{r2} = arith.mulf {lg}, {m2.name} : {typ}")
    t.emit(f"{r} = math.sqrt {r2} : {typ}")
    t.emit(f"{ang} = arith.mulf {u2.name}, {tau.name} : {typ}")
    t.emit(f"{c} = math.cos {ang} : {typ}")
    out = _result(t, meta)
    t.emit(f"{out.name} = arith.mulf {r}, {c} : {typ}")
    return out


# -- shapes -------------------------------------------------------------------

@op("aten.squeeze.default", "aten.squeeze.dim", "aten.squeeze.dims",
    "aten.unsqueeze.default", "aten.flatten.using_ints", "aten.view.default",
    "aten.reshape.default", "aten._unsafe_view.default",
    "aten.view_as.default", "aten.reshape_as.default", "aten.ravel.default")
def _reshape(t, node, meta):
    x = t.value(node, node.args[0])
    shape = static_shape(meta.shape)
    if x.unsqueezed:
        if len(shape) == 1:
            return Value(x.name, x.dtype, x.shape)
        x = t.plain(node, node.args[0])
    return t.reshape(node, x, shape)


@op("aten.expand.default", "aten.expand_as.default",
    "aten.broadcast_to.default")
def _expand(t, node, meta):
    x = t.plain(node, node.args[0])
    return t.broadcast(node, x, static_shape(meta.shape),
                       fake_shape=meta.shape)


def _slice_parts(t, x, dim, offset, size, stride, rank_reduce=False):
    offs, sizes, strides = [], [], []
    for i in range(x.rank):
        if i == dim:
            offs.append(offset)
            sizes.append(size)
            strides.append(stride)
        else:
            offs.append("0")
            sizes.append(str(x.shape[i]) if x.shape[i] is not None
                         else t.dim(x, i))
            strides.append("1")
    return (f"[{', '.join(offs)}] [{', '.join(sizes)}] "
            f"[{', '.join(strides)}]")


def _slice_along(t, x, dim, start, size):
    """x[..., start:start + size, ...] along dim (static start and size)."""
    part = Value(t.fresh(), x.dtype,
                 x.shape[:dim] + (size,) + x.shape[dim + 1:])
    t.emit(f"{part.name} = tensor.extract_slice {x.name}"
           f"{_slice_parts(t, x, dim, str(start), str(size), '1')} : "
           f"{x.type} to {part.type}")
    return part


@op("aten.slice.Tensor")
def _slice(t, node, meta):
    x = t.plain(node, node.args[0])
    dim = _dim(_arg(node, 1, "dim", 0), x.rank)
    start = _arg(node, 2, "start")
    step = _arg(node, 4, "step", 1)
    if not isinstance(step, int) or step < 1:
        t.unsupported(node, "the step must be a positive number")
    extent = x.shape[dim]
    if start is None:
        offset = "0"
    elif isinstance(start, int):
        if start < 0:
            if extent is None:
                t.unsupported(node, "a negative start on a data-dependent "
                              "extent")
            start = max(start + extent, 0)
        if extent is not None:
            start = min(start, extent)
        offset = str(start)
    else:
        offset = None
    size = meta.shape[dim]
    end = _arg(node, 3, "end")
    if offset is None or isinstance(end, torch.fx.Node):
        # A start or end computed at run time (`x[n:]` with n from
        # `.item()`): Python's clamping, and the length from it (export
        # gives the length a symbol of its own, related to nothing).
        ext = t.dim(x, dim)
        lo = (_clamped_bound(t, t.size(start), ext) if offset is None
              else t.index_const(int(offset)))
        offset = lo
        hi = (_clamped_bound(t, t.size(end), ext)
              if isinstance(end, torch.fx.Node) else
              ext if end is None or end >= (extent or 2 ** 62) else
              _clamped_bound(t, t.index_const(int(end)), ext))
        n = _ceil_length(t, lo, hi, step)
        if not isinstance(size, int):
            t.sizes.setdefault(_sym_key(size), n)
    if dim == 0 and extent is not None and not isinstance(size, int):
        # A computed length of a static tensor: the rows offset + i * step
        # for i < size, gathered (--sift-staticize pads the index range).
        if offset == "0":
            offset = t.index_const(0)
        rows = _index_range(t, t.size(size), offset, step)
        return _gather_rows(t, node, meta, x, rows)
    size = str(size) if isinstance(size, int) else t.size(size)
    out = _result(t, meta)
    t.emit(f"{out.name} = tensor.extract_slice {x.name}"
           f"{_slice_parts(t, x, dim, offset, size, str(step))} : "
           f"{x.type} to {out.type}")
    return out


def _clamped_bound(t, v, extent):
    """A slice's start or end v (an index SSA name, maybe negative) as
    Python clamps it to [0, extent]: v + extent when negative."""
    zero = t.index_const(0)
    neg, wrapped, lo, hi, out = (t.fresh() for _ in range(5))
    t.emit(f"{neg} = arith.cmpi slt, {v}, {zero} : index")
    t.emit(f"{wrapped} = arith.addi {v}, {extent} : index")
    t.emit(f"{lo} = arith.select {neg}, {wrapped}, {v} : index")
    t.emit(f"{hi} = arith.maxsi {lo}, {zero} : index")
    t.emit(f"{out} = arith.minsi {hi}, {extent} : index")
    return out


def _ceil_length(t, lo, hi, step):
    """The number of positions lo, lo + step, ... below hi (0 if none)."""
    d, n = t.fresh(), t.fresh()
    t.emit(f"{d} = arith.subi {hi}, {lo} : index")
    if step != 1:
        c, q = t.index_const(int(step)), t.fresh()
        t.emit(f"{q} = arith.ceildivsi {d}, {c} : index")
        d = q
    t.emit(f"{n} = arith.maxsi {d}, {t.index_const(0)} : index")
    return n


def _sym_key(size):
    return size.node.expr if isinstance(size, torch.SymInt) else size


def _index_range(t, size, offset, step):
    """The i64 tensor [offset + i * step for i < size] (SSA index names)."""
    init = Value(t.fresh(), torch.int64, (None,))
    t.emit(f"{init.name} = tensor.empty({size}) : {init.type}")
    out = Value(t.fresh(), torch.int64, (None,))
    i, i64, o, m, c = (t.fresh() for _ in range(5))
    t.emit_raw(
        f"{out.name} = linalg.generic {{indexing_maps = "
        "[affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]} "
        f"outs({init.name} : {init.type}) {{")
    t.emit_raw(f"  ^bb0({t.fresh()}: i64):")
    t.emit(f"    {i} = linalg.index 0 : index")
    t.emit(f"    {c} = arith.constant {int(step)} : index")
    t.emit(f"    {m} = arith.muli {i}, {c} : index")
    t.emit(f"    {o} = arith.addi {m}, {offset} : index")
    t.emit(f"    {i64} = arith.index_cast {o} : index to i64")
    t.emit(f"    linalg.yield {i64} : i64")
    t.emit_close(f"}} -> {out.type}")
    return out


@op("aten.flip.default")
def _flip(t, node, meta):
    """x reversed along dims: a linalg.generic reading E - 1 - i along a
    static extent E; along a data-dependent first extent (`x[mask]`
    flipped), a gather of its rows n - 1, n - 2, ..., 0."""
    x = t.plain(node, node.args[0])
    dims = {_dim(d, x.rank) for d in node.args[1]}
    if 0 in dims and x.shape[0] is None:
        n = t.dim(x, 0)
        last = t.fresh()
        t.emit(f"{last} = arith.subi {n}, {t.index_const(1)} : index")
        rows = _index_range(t, n, last, -1)
        out = Value(t.fresh(), x.dtype, x.shape)
        t.emit(f"{out.name} = sift.gather {x.name}[{rows.name}] : {x.type}, "
               f"{rows.type} -> {out.type}")
        x = out
        dims.discard(0)
    if any(x.shape[d] is None for d in dims):
        t.unsupported(node, "flipping a data-dependent extent other than "
                      "the first")
    if not dims:
        return x
    return _read_at(t, x, x.shape, lambda i, d: f"{x.shape[i] - 1} - {d}"
                    if i in dims else d)


def _read_at(t, x, shape, position):
    """A tensor of `shape` whose element at (d0, d1, ...) is x's at the
    affine position `position(i, di)` along each dimension i (a copy
    through one linalg.generic: reversed, repeated)."""
    ds = [f"d{i}" for i in range(len(shape))]
    src = [position(i, d) for i, d in enumerate(ds)]
    maps = (f"affine_map<({', '.join(ds)}) -> ({', '.join(src)})>, "
            f"affine_map<({', '.join(ds)}) -> ({', '.join(ds)})>")
    init = t.empty(x.dtype, shape, like=x if shape == x.shape else None)
    out = Value(t.fresh(), x.dtype, shape)
    et = element_type(x.dtype)
    a, b = t.fresh(), t.fresh()
    par = ", ".join('"parallel"' for _ in shape)
    t.emit_raw(f"{out.name} = linalg.generic {{indexing_maps = [{maps}], "
               f"iterator_types = [{par}]}} ins({x.name} : {x.type}) "
               f"outs({init.name} : {init.type}) {{")
    t.emit_raw(f"  ^bb0({a}: {et}, {b}: {et}):")
    t.emit(f"  linalg.yield {a} : {et}")
    t.emit_close(f"}} -> {init.type}")
    return out


@op("aten.select.int")
def _select(t, node, meta):
    x = t.plain(node, node.args[0])
    dim = _dim(node.args[1], x.rank)
    index = node.args[2]
    if isinstance(index, int):
        if index < 0 and x.shape[dim] is None:
            # x[-1] of a selection: counted from its run-time end.
            offset = t.fresh()
            t.emit(f"{offset} = arith.addi {t.dim(x, dim)}, "
                   f"{t.index_const(index)} : index")
        else:
            if index < 0:
                index += x.shape[dim]
            offset = str(index)
    else:
        offset = t.size(index)
    out = _result(t, meta)
    t.emit(f"{out.name} = tensor.extract_slice {x.name}"
           f"{_slice_parts(t, x, dim, offset, '1', '1')} : {x.type} to "
           f"{out.type}")
    return out


@op("aten.cat.default", "aten.concat.default", "aten.concatenate.default")
def _cat(t, node, meta):
    parts = [t.cast(t.plain(node, a), meta.dtype) for a in node.args[0]]
    parts = [p for p in parts if not (p.rank == 1 and p.shape[0] == 0
                                      and len(meta.shape) != 1)]
    return _concat(t, parts, _dim(_arg(node, 1, "dim", 0), len(meta.shape)),
                   meta.dtype, static_shape(meta.shape))


def _concat(t, parts, dim, dtype, shape):
    """tensor.concat of parts along dim into a tensor of `shape`."""
    if len(parts) == 1:
        return parts[0]
    out = Value(t.fresh(), dtype, tuple(shape))
    t.emit(f"{out.name} = tensor.concat dim({dim}) "
           f"{', '.join(p.name for p in parts)} : "
           f"({', '.join(p.type for p in parts)}) -> {out.type}")
    return out


@op("aten.stack.default")
def _stack(t, node, meta):
    """torch.stack(xs, dim): each x with a unit extent inserted at dim,
    concatenated along it (not PyTorch's decomposition, a concatenation
    of flat tensors reshaped, which cannot keep a data-dependent extent)."""
    dim = _dim(_arg(node, 1, "dim", 0), len(meta.shape))
    parts = []
    for a in node.args[0]:
        x = t.cast(t.plain(node, a), meta.dtype)
        parts.append(t.reshape(node, x, x.shape[:dim] + (1,) + x.shape[dim:]))
    return _concat(t, parts, dim, meta.dtype, static_shape(meta.shape))


@op("aten.pad.default", "aten.constant_pad_nd.default")
def _pad(t, node, meta):
    """F.pad(x, pad, "constant", value): pad lists (before, after) pairs
    from the last dimension back; the value everywhere, x inserted at the
    befores. Negative pads (crops) and other modes are not supported."""
    x = t.plain(node, node.args[0])
    pad = list(node.args[1])
    if node.target._opname == "pad":
        mode, value = _arg(node, 2, "mode", "constant"), _arg(node, 3,
                                                               "value")
    else:
        mode, value = "constant", _arg(node, 2, "value", 0)
    if mode != "constant" or not all(isinstance(p, int) and p >= 0
                                     for p in pad) or None in x.shape:
        t.unsupported(node, "constant padding by nonnegative amounts of "
                      "static extents")
    before = [0] * x.rank
    for i in range(len(pad) // 2):
        before[x.rank - 1 - i] = pad[2 * i]
    filled = t.splat(None, 0 if value is None else value, x.dtype,
                     shape=static_shape(meta.shape))
    out = _result(t, meta)
    t.emit(f"{out.name} = tensor.insert_slice {x.name} into {filled.name}"
           f"[{', '.join(map(str, before))}] "
           f"[{', '.join(map(str, x.shape))}] "
           f"[{', '.join('1' for _ in x.shape)}] : {x.type} into "
           f"{filled.type}")
    return out


@op("aten.diff.default")
def _diff(t, node, meta):
    """torch.diff(x, n, dim, prepend, append): x[1:] - x[:-1] along dim
    (`!=` for booleans), n times, after the prepend and append are
    concatenated."""
    x = t.plain(node, node.args[0])
    n = _arg(node, 1, "n", 1)
    dim = _dim(_arg(node, 2, "dim", -1), x.rank)
    parts = [_arg(node, 3, "prepend"), x, _arg(node, 4, "append")]
    parts = [t.cast(p if isinstance(p, Value) else t.plain(node, p),
                    x.dtype) for p in parts if p is not None]
    shape = list(x.shape)
    shape[dim] = sum(p.shape[dim] for p in parts)
    x = _concat(t, parts, dim, x.dtype, shape)
    if None in x.shape:
        t.unsupported(node, "diff of data-dependent extents")
    for _ in range(n):
        m = x.shape[dim] - 1
        if m < 0:
            break
        hi, lo = _slice_along(t, x, dim, 1, m), _slice_along(t, x, dim, 0, m)
        out = Value(t.fresh(), x.dtype, hi.shape)
        op = ("arith.xori" if x.dtype == torch.bool else "arith.subf"
              if is_float(x.dtype) else "arith.subi")
        t.emit(f"{out.name} = {op} {hi.name}, {lo.name} : {hi.type}")
        x = out
    return x


@op("aten.split_with_sizes.default", "aten.split.Tensor")
def _split(t, node, metas):
    """torch.split / chunk: consecutive slices along dim (split.Tensor: of
    one size, the last shorter)."""
    x = t.plain(node, node.args[0])
    dim = _dim(_arg(node, 2, "dim", 0), x.rank)
    extent = x.shape[dim]
    if extent is None:
        t.unsupported(node, "a split of a data-dependent extent")
    sizes = node.args[1]
    if isinstance(sizes, int):
        sizes = [min(sizes, extent - s) for s in range(0, extent, sizes)]
    if not all(isinstance(n, int) for n in sizes):
        t.unsupported(node, "constant split sizes")
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    return [_slice_along(t, x, dim, a, n) for a, n in zip(starts, sizes)]


def _ranks(t, flags):
    """cumsum(flags) - 1 as i64 over the 1-D `flags`: at each set flag, how
    many set flags come before it (masked_scatter's source positions,
    unique_consecutive's inverse)."""
    counts = t.cast(flags, torch.int64)
    runs = Value(t.fresh(), torch.int64, counts.shape)
    t.emit(f"{runs.name} = sift.cumsum {counts.name} : {counts.type} -> "
           f"{runs.type}")
    ranks = Value(t.fresh(), torch.int64, counts.shape)
    t.emit(f"{ranks.name} = arith.subi {runs.name}, "
           f"{t.splat(runs, 1, torch.int64).name} : {runs.type}")
    return ranks


@op("aten.masked_scatter.default")
def _masked_scatter(t, node, meta):
    """x.masked_scatter(mask, src): the elements where mask holds, in
    order, take src's flattened elements in order: src at the running
    count of the mask less one, selected where it holds."""
    x = t.plain(node, node.args[0])
    mask = t.cast(t.plain(node, node.args[1]), torch.bool)
    src = t.cast(t.plain(node, node.args[2]), x.dtype)
    if None in x.shape or None in src.shape:
        t.unsupported(node, "tensors of static extents")
    mask = t.broadcast(node, mask, x.shape)
    n = _numel_of(x)
    pos = _ranks(t, t.reshape(node, mask, (n,)))
    flat_src = t.reshape(node, src, (_numel_of(src),))
    taken = Value(t.fresh(), x.dtype, (n,))
    t.emit(f"{taken.name} = sift.gather {flat_src.name}[{pos.name}] : "
           f"{flat_src.type}, {pos.type} -> {taken.type}")
    out = _result(t, meta)
    t.emit(f"{out.name} = arith.select {mask.name}, "
           f"{t.reshape(node, taken, x.shape).name}, {x.name} : "
           f"{mask.type}, {x.type}")
    return out


@op("aten.copy.default")
def _copy(t, node, meta):
    """copy(dst, src): src broadcast to dst's shape, in dst's dtype (what
    `x[a:b] = v` copies before its slice_scatter)."""
    src = t.cast(t.plain(node, node.args[1]), meta.dtype)
    return t.broadcast(node, src, static_shape(meta.shape),
                       fake_shape=meta.shape)


@op("aten.slice_scatter.default")
def _slice_scatter(t, node, meta):
    """x with x[start:end:step] along dim replaced by src (what
    `x[2:6] = v` becomes): a tensor.insert_slice."""
    x = t.plain(node, node.args[0])
    dim = _dim(_arg(node, 2, "dim", 0), x.rank)
    src = t.cast(t.plain(node, node.args[1]), x.dtype)
    start, end = _arg(node, 3, "start"), _arg(node, 4, "end")
    step = _arg(node, 5, "step", 1)
    extent = x.shape[dim]
    if extent is None or not all(isinstance(v, int) or v is None
                                 for v in (start, end, step)):
        t.unsupported(node, "a slice of constant bounds along a static "
                      "extent")
    start, _, step = slice(start, end, step).indices(extent)
    if src.shape[dim] == 0:
        return x
    out = Value(t.fresh(), x.dtype, x.shape)
    parts = _slice_parts(t, src, dim, str(start), str(src.shape[dim]),
                         str(step))
    t.emit(f"{out.name} = tensor.insert_slice {src.name} into {x.name}"
           f"{parts} : {src.type} into {x.type}")
    return out


# -- reductions ---------------------------------------------------------------

def _reduce(t, node, meta, x, dims, combine_int, combine_float, init):
    """linalg.reduce of x over dims into the result's dtype and shape
    (keepdim handled by a reshape)."""
    dtype = meta.dtype
    x = t.cast(x, dtype)
    kept = tuple(d for i, d in enumerate(x.shape) if i not in dims)
    acc = t.empty(dtype, kept, fake_shape=[
        s for i, s in enumerate(_fake(node.args[0]).shape) if i not in dims])
    c = t.scalar(init, dtype)
    et = element_type(dtype)
    filled = Value(t.fresh(), dtype, kept)
    t.emit(f"{filled.name} = linalg.fill ins({c} : {et}) outs({acc.name} : "
           f"{acc.type}) -> {acc.type}")
    out = Value(t.fresh(), dtype, kept)
    a, b, r = t.fresh(), t.fresh(), t.fresh()
    t.emit_raw(f"{out.name} = linalg.reduce ins({x.name} : {x.type}) "
               f"outs({filled.name} : {filled.type}) dimensions = "
               f"[{', '.join(map(str, sorted(dims)))}]")
    t.emit_raw(f"  ({a}: {et}, {b}: {et}) {{")
    t.emit(f"    {r} = {combine_float if is_float(dtype) else combine_int} "
           f"{a}, {b} : {et}")
    t.emit(f"    linalg.yield {r} : {et}")
    t.emit_close("  }")
    return t.reshape(node, out, static_shape(meta.shape))


def _reduce_dims(node, rank, i=1):
    dims = _arg(node, i, "dim")
    if dims is None or dims == []:
        return set(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return {_dim(d, rank) for d in dims}


@op("aten.sum.default", "aten.sum.dim_IntList")
def _sum(t, node, meta):
    x = t.plain(node, node.args[0])
    dims = _reduce_dims(node, x.rank)
    if x.dtype == torch.bool and meta.dtype == torch.int64:
        # `mask.sum()`: a count, which sift bounds by the mask's extent (a
        # size made from it, `arange(mask.sum().item())`, has a bound).
        counted = _count(t, node, meta, x, dims)
        if counted is not None:
            return counted
    return _reduce(t, node, meta, x, dims, "arith.addi", "arith.addf", 0)


@op("aten.prod.default", "aten.prod.dim_int")
def _prod(t, node, meta):
    x = t.plain(node, node.args[0])
    dims = _reduce_dims(node, x.rank)
    return _reduce(t, node, meta, x, dims, "arith.muli", "arith.mulf", 1)


_LOWEST = {torch.float32: float("-inf"), torch.float64: float("-inf"),
           torch.int64: -2 ** 63, torch.int32: -2 ** 31,
           torch.int16: -2 ** 15, torch.int8: -2 ** 7, torch.bool: 0,
           torch.uint8: 0}
_HIGHEST = {torch.float32: float("inf"), torch.float64: float("inf"),
            torch.int64: 2 ** 63 - 1, torch.int32: 2 ** 31 - 1,
            torch.int16: 2 ** 15 - 1, torch.int8: 2 ** 7 - 1,
            torch.bool: 1, torch.uint8: 255}


@op("aten.amax.default", "aten.amin.default", "aten.max.default",
    "aten.min.default")
def _amax(t, node, meta):
    x = t.plain(node, node.args[0])
    mx = node.target._opname in ("amax", "max")
    dims = _reduce_dims(node, x.rank) if node.target._opname.startswith(
        "am") else set(range(x.rank))
    if x.dtype == torch.bool:
        int_op = "arith.ori" if mx else "arith.andi"
    else:
        int_op = "arith.maxsi" if mx else "arith.minsi"
    return _reduce(t, node, meta, x, dims, int_op,
                   "arith.maximumf" if mx else "arith.minimumf",
                   (_LOWEST if mx else _HIGHEST)[x.dtype])


@op("aten.any.default", "aten.any.dim", "aten.any.dims",
    "aten.all.default", "aten.all.dim", "aten.all.dims")
def _any_all(t, node, meta):
    """Whether any (all) element along the dims is nonzero: an or (and)
    reduction of x != 0. Over nothing (an empty tensor) any is false and
    all true, as in PyTorch."""
    x = t.cast(t.plain(node, node.args[0]), torch.bool)
    dims = _reduce_dims(node, x.rank)
    is_any = node.target._opname == "any"
    return _reduce(t, node, meta, x, dims,
                   "arith.ori" if is_any else "arith.andi", None,
                   0 if is_any else 1)


def _arg_reduce(t, node, x, dim, largest, shape, want_values):
    """The first position of the largest (smallest) element along `dim`
    of x, NaN counting as larger (smaller) than anything (PyTorch's
    argmax, argmin, max.dim and min.dim): one linalg.generic reducing dim
    into a value and a position, whose combination prefers the greater
    value, then the smaller position (so any order of reduction gives the
    first). Returns (values or None, positions), reshaped to `shape`."""
    et = element_type(x.dtype)
    full, kept = _maps(x.rank, dim)
    kept_shape = tuple(d for i, d in enumerate(x.shape) if i != dim)
    iters = ", ".join('"reduction"' if i == dim else '"parallel"'
                      for i in range(x.rank))
    init_v = (_LOWEST if largest else _HIGHEST)[x.dtype]
    fake = _fake(node.args[0]).shape
    fake_kept = ([d for i, d in enumerate(fake) if i != dim]
                 if len(fake) == x.rank else None)
    acc_v = t.splat(None, init_v, x.dtype, shape=kept_shape,
                    fake_shape=fake_kept)
    acc_i = t.splat(None, 2 ** 63 - 1, torch.int64, shape=kept_shape,
                    fake_shape=fake_kept)
    vals = Value(t.fresh(), x.dtype, kept_shape)
    idxs = Value(t.fresh(), torch.int64, kept_shape)
    bx, bv, bi = t.fresh(), t.fresh(), t.fresh()
    t.emit_raw(f"{vals.name}, {idxs.name} = linalg.generic {{indexing_maps "
               f"= [{full}, {kept}, {kept}], iterator_types = [{iters}]}} "
               f"ins({x.name} : {x.type}) outs({acc_v.name}, {acc_i.name} : "
               f"{acc_v.type}, {acc_i.type}) {{")
    t.emit_raw(f"  ^bb0({bx}: {et}, {bv}: {et}, {bi}: i64):")
    pos, pos64 = t.fresh(), t.fresh()
    t.emit(f"  {pos} = linalg.index {dim} : index")
    t.emit(f"  {pos64} = arith.index_cast {pos} : index to i64")
    before, better, same, pick = t.fresh(), t.fresh(), t.fresh(), t.fresh()
    t.emit(f"  {before} = arith.cmpi slt, {pos64}, {bi} : i64")
    if is_float(x.dtype):
        pred = "ogt" if largest else "olt"
        gt, xnan, vnan, gtn = (t.fresh() for _ in range(4))
        t.emit(f"  {gt} = arith.cmpf {pred}, {bx}, {bv} : {et}")
        t.emit(f"  {xnan} = arith.cmpf uno, {bx}, {bx} : {et}")
        t.emit(f"  {vnan} = arith.cmpf uno, {bv}, {bv} : {et}")
        # x beats v: greater, or a NaN over a number; ties (equal, or two
        # NaNs) go to the earlier position.
        notv, nanwin, eq, bothnan = (t.fresh() for _ in range(4))
        true = _true(t)
        t.emit(f"  {notv} = arith.xori {vnan}, {true} : i1")
        t.emit(f"  {nanwin} = arith.andi {xnan}, {notv} : i1")
        t.emit(f"  {gtn} = arith.ori {gt}, {nanwin} : i1")
        t.emit(f"  {eq} = arith.cmpf oeq, {bx}, {bv} : {et}")
        t.emit(f"  {bothnan} = arith.andi {xnan}, {vnan} : i1")
        t.emit(f"  {same} = arith.ori {eq}, {bothnan} : i1")
        better = gtn
    else:
        pred = "sgt" if largest else "slt"
        t.emit(f"  {better} = arith.cmpi {pred}, {bx}, {bv} : {et}")
        t.emit(f"  {same} = arith.cmpi eq, {bx}, {bv} : {et}")
    tie, nv, ni = t.fresh(), t.fresh(), t.fresh()
    t.emit(f"  {tie} = arith.andi {same}, {before} : i1")
    t.emit(f"  {pick} = arith.ori {better}, {tie} : i1")
    t.emit(f"  {nv} = arith.select {pick}, {bx}, {bv} : {et}")
    t.emit(f"  {ni} = arith.select {pick}, {pos64}, {bi} : i64")
    t.emit(f"  linalg.yield {nv}, {ni} : {et}, i64")
    t.emit_close(f"}} -> ({acc_v.type}, {acc_i.type})")
    out_i = t.reshape(node, idxs, shape)
    out_v = t.reshape(node, vals, shape) if want_values else None
    return out_v, out_i


def _true(t):
    name = t.fresh()
    t.emit(f"{name} = arith.constant true")
    return name


def _arg_reduce_input(t, node, dim):
    x = t.plain(node, node.args[0])
    if dim is None:
        if None in x.shape and x.rank > 1:
            t.unsupported(node, "an arg-reduction over all dimensions of a "
                          "tensor with a data-dependent extent")
        if x.rank != 1:
            n = 1
            for d in x.shape:
                n *= d
            x = t.reshape(node, x, (n,))
        return x, 0
    return x, _dim(dim, x.rank)


@op("aten.argmax.default", "aten.argmin.default")
def _argmax(t, node, meta):
    x, dim = _arg_reduce_input(t, node, _arg(node, 1, "dim"))
    if x.shape[dim] == 0:
        t.unsupported(node, "an arg-reduction over an empty extent")
    largest = node.target._opname == "argmax"
    return _arg_reduce(t, node, x, dim, largest, static_shape(meta.shape),
                       False)[1]


@op("aten.max.dim", "aten.min.dim")
def _max_dim(t, node, meta):
    x, dim = _arg_reduce_input(t, node, node.args[1])
    if x.shape[dim] == 0:
        t.unsupported(node, "a reduction over an empty extent")
    largest = node.target._opname == "max"
    v, i = _arg_reduce(t, node, x, dim, largest,
                       static_shape(meta[0].shape), True)
    return [v, i]


def _sum_kept(t, x, dims):
    """The sum of float x over dims, keeping them as unit extents."""
    kept = tuple(d for i, d in enumerate(x.shape) if i not in dims)
    dyn = [t.dim(x, i) for i, d in enumerate(x.shape)
           if d is None and i not in dims]
    et = element_type(x.dtype)
    acc = Value(t.fresh(), x.dtype, kept)
    t.emit(f"{acc.name} = tensor.empty({', '.join(dyn)}) : {acc.type}")
    zero, filled = t.scalar(0.0, x.dtype), Value(t.fresh(), x.dtype, kept)
    t.emit(f"{filled.name} = linalg.fill ins({zero} : {et}) outs("
           f"{acc.name} : {acc.type}) -> {acc.type}")
    out = Value(t.fresh(), x.dtype, kept)
    a, b, r = t.fresh(), t.fresh(), t.fresh()
    t.emit_raw(f"{out.name} = linalg.reduce ins({x.name} : {x.type}) "
               f"outs({filled.name} : {filled.type}) dimensions = "
               f"[{', '.join(map(str, sorted(dims)))}]")
    t.emit_raw(f"  ({a}: {et}, {b}: {et}) {{")
    t.emit(f"    {r} = arith.addf {a}, {b} : {et}")
    t.emit(f"    linalg.yield {r} : {et}")
    t.emit_close("  }")
    unit = tuple(1 if i in dims else d for i, d in enumerate(x.shape))
    return t.reshape_units(None, out, unit)


def _count_of(t, x, dims, minus, dtype, like):
    """The number of elements of x over dims, less `minus`, as a float
    splat of `like`'s shape."""
    n = None
    for d in sorted(dims):
        e = t.dim(x, d)
        if n is None:
            n = e
        else:
            m = t.fresh()
            t.emit(f"{m} = arith.muli {n}, {e} : index")
            n = m
    i64, f = t.fresh(), t.fresh()
    t.emit(f"{i64} = arith.index_cast {n} : index to i64")
    et = element_type(dtype)
    t.emit(f"{f} = arith.sitofp {i64} : i64 to {et}")
    if minus:
        # max(n - minus, 0), as PyTorch's divisor: 0 / 0 is NaN when
        # there are no more elements than the correction.
        c, g = t.scalar(float(minus), dtype), t.fresh()
        z, h = t.scalar(0.0, dtype), t.fresh()
        t.emit(f"{g} = arith.subf {f}, {c} : {et}")
        t.emit(f"{h} = arith.maximumf {g}, {z} : {et}")
        f = h
    dyn = [t.dim(like, i) for i, d in enumerate(like.shape) if d is None]
    out = Value(t.fresh(), dtype, like.shape)
    sizes = f"[{', '.join(dyn)}]" if dyn else ""
    t.emit(f"{out.name} = tensor.splat {f}{sizes} : {out.type}")
    return out


@op("aten.var.dim", "aten.var.correction", "aten.var.default",
    "aten.std.dim", "aten.std.correction", "aten.std.default")
def _var(t, node, meta):
    """Variance (std: its square root) over dims with Bessel's correction
    (1 unless `correction`/`unbiased` says otherwise): the mean, then the
    sum of squared deviations over n - correction, as PyTorch computes
    it (NaN or inf when n <= correction)."""
    x = t.plain(node, node.args[0])
    if not is_float(meta.dtype):
        t.unsupported(node, "variance of integers")
    x = t.cast(x, meta.dtype)
    overload = node.target._overloadname
    if overload == "default":
        dims = set(range(x.rank))
        unbiased = _arg(node, 1, "unbiased", True)
        correction = 1 if unbiased else 0
    else:
        dims = _reduce_dims(node, x.rank)
        if overload == "dim":
            correction = 1 if _arg(node, 2, "unbiased", True) else 0
        else:
            c = node.kwargs.get("correction")
            correction = 1 if c is None else c
    var, mean = _moments(t, node, x, dims, correction)
    if node.target._opname == "std":
        r = Value(t.fresh(), x.dtype, var.shape)
        t.emit(f"{r.name} = math.sqrt {var.name} : {var.type}")
        var = r
    return t.reshape(node, var, static_shape(meta.shape))


@op("aten.var_mean.correction", "aten.var_mean.dim")
def _var_mean(t, node, metas):
    """(variance, mean) over dims, as var (what layer_norm and group_norm
    decompose into)."""
    x = t.plain(node, node.args[0])
    mv, mm = node.meta["val"]
    if not is_float(mv.dtype):
        t.unsupported(node, "variance of integers")
    x = t.cast(x, mv.dtype)
    dims = _reduce_dims(node, x.rank)
    if node.target._overloadname == "dim":
        correction = 1 if _arg(node, 2, "unbiased", True) else 0
    else:
        c = node.kwargs.get("correction")
        correction = 1 if c is None else c
    var, mean = _moments(t, node, x, dims, correction)
    return [t.reshape(node, var, static_shape(mv.shape)),
            t.reshape(node, mean, static_shape(mm.shape))]


def _moments(t, node, x, dims, correction):
    """The variance and mean of x over dims (all when empty), the dims
    dropped."""
    if not dims:
        dims = set(range(x.rank))
    total = _sum_kept(t, x, dims)
    n = _count_of(t, x, dims, 0, x.dtype, total)
    mean = Value(t.fresh(), x.dtype, total.shape)
    t.emit(f"{mean.name} = arith.divf {total.name}, {n.name} : {mean.type}")
    wide = t.broadcast(node, mean, x.shape,
                       fake_shape=_fake(node.args[0]).shape)
    d = Value(t.fresh(), x.dtype, x.shape)
    t.emit(f"{d.name} = arith.subf {x.name}, {wide.name} : {x.type}")
    sq = Value(t.fresh(), x.dtype, x.shape)
    t.emit(f"{sq.name} = arith.mulf {d.name}, {d.name} : {x.type}")
    ss = _sum_kept(t, sq, dims)
    dof = _count_of(t, x, dims, correction, x.dtype, ss)
    var = Value(t.fresh(), x.dtype, ss.shape)
    t.emit(f"{var.name} = arith.divf {ss.name}, {dof.name} : {var.type}")
    return var, mean


@op("aten.repeat.default")
def _repeat(t, node, meta):
    """x tiled `repeats` times along each dimension (leading repeats add
    dimensions): a linalg.generic reading x at each index modulo x's
    extent."""
    x = t.plain(node, node.args[0])
    reps = list(node.args[1])
    if None in x.shape:
        t.unsupported(node, "repeating a data-dependent extent")
    x = t.reshape(node, x, (1,) * (len(reps) - x.rank) + x.shape)
    shape = tuple(e * r for e, r in zip(x.shape, reps))
    return _read_at(t, x, shape, lambda i, d: d if reps[i] == 1
                    else f"{d} mod {x.shape[i]}")


@op("aten.mean.default", "aten.mean.dim")
def _mean(t, node, meta):
    x = t.plain(node, node.args[0])
    if not is_float(meta.dtype):
        t.unsupported(node, "mean of integers")
    dims = _reduce_dims(node, x.rank)
    s = _reduce(t, node, meta, x, dims, None, "arith.addf", 0)
    # Divided by the number of elements reduced (a size when dynamic).
    cnt = _count_of(t, x, dims, 0, meta.dtype, s)
    out = _result(t, meta)
    t.emit(f"{out.name} = arith.divf {s.name}, {cnt.name} : {s.type}")
    return out


def _count(t, node, meta, x, dims):
    """`sift.count` of x's nonzero elements along `dims` (its last one, or
    all of them: x flattened first), or None for other dims. Keeps the
    result's unit dimensions (keepdim)."""
    if x.rank == 0:
        return None
    if dims == set(range(x.rank)) and x.rank > 1 and None not in x.shape:
        n = 1
        for d in x.shape:
            n *= d
        x = t.reshape(node, x, (n,))
    elif dims != {x.rank - 1}:
        return None
    out = Value(t.fresh(), torch.int64, x.shape[:-1])
    t.emit(f"{out.name} = sift.count {x.name} : {x.type} -> {out.type}")
    shape = static_shape(meta.shape)
    return out if out.shape == shape else t.reshape(node, out, shape)


@op("aten.count_nonzero.default", "aten.count_nonzero.dim_IntList")
def _count_nonzero(t, node, meta):
    x = t.plain(node, node.args[0])
    dims = _reduce_dims(node, x.rank)
    counted = _count(t, node, meta, x, dims)
    if counted is not None:
        return counted
    return _reduce(t, node, meta, t.cast(x, torch.bool), dims, "arith.addi",
                   None, 0)


# -- data-dependent and sift ops ----------------------------------------------

def _numel_of(x):
    n = 1
    for d in x.shape:
        if d is None:
            return 2 ** 62
        n *= d
    return n


def _note_natural(t, meta, bound, dim=0):
    d = meta.shape[dim]
    if isinstance(d, torch.SymInt):
        t._natural.setdefault(d.node.expr, bound)


@op("aten.nonzero.default")
def _nonzero(t, node, meta):
    x = t.plain(node, node.args[0])
    if x.rank == 0:
        t.unsupported(node, "nonzero of a rank-0 tensor")
    _note_natural(t, meta, _numel_of(x))
    if x.rank == 1:
        # torch gives [n, 1]; sift's 1-D form is [n].
        out = Value(t.fresh(), torch.int64, (None,), unsqueezed=True)
    else:
        out = _result(t, meta)
    t.emit(f"{out.name} = sift.nonzero {x.name} : {x.type} -> {out.type}")
    return out


@op("aten.masked_select.default")
def _masked_select(t, node, meta):
    x = t.plain(node, node.args[0])
    mask = t.cast(t.plain(node, node.args[1]), torch.bool)
    if mask.shape != x.shape:
        x = t.broadcast(node, x, mask.shape) if x.rank <= mask.rank else x
        mask = t.broadcast(node, mask, x.shape)
    _note_natural(t, meta, _numel_of(x))
    out = _result(t, meta)
    t.emit(f"{out.name} = sift.masked_select {x.name}, {mask.name} : "
           f"{x.type}, {mask.type} -> {out.type}")
    return out


def _index_several(t, node, meta, x, indices):
    """x[i0, i1, ...] with integer index tensors on the leading dimensions
    (`logits[torch.arange(n), target]`): the indices broadcast together
    and linearized into one row index of x with those dimensions
    collapsed, which one gather reads."""
    k = len(indices)
    if any(v is None for v in indices):
        t.unsupported(node, "index tensors must be on the leading dimensions "
                      "with no slice between them")
    if any(d is None for d in x.shape[:k]):
        t.unsupported(node, "several index tensors on data-dependent "
                      "extents")
    fakes = [_fake(v) for v in indices]
    if any(f.dtype == torch.bool for f in fakes):
        t.unsupported(node, "a boolean mask beside another index")
    shape = static_shape(torch.broadcast_shapes(*(f.shape for f in fakes)))
    flat = None
    stride = 1
    for d in reversed(range(k)):
        v = _wrap_negative(t, t.plain(node, indices[d]), x, d)
        v = t.broadcast(node, v, shape)
        # An index outside [0, n) of its own dimension stays outside the
        # linear range (sift's gather gives 0 there), not another row.
        n = x.shape[d]
        lo, hi = t.splat(v, 0, torch.int64), t.splat(v, n, torch.int64)
        bad = Value(t.fresh(), torch.bool, v.shape)
        below, above = t.fresh(), t.fresh()
        t.emit(f"{below} = arith.cmpi slt, {v.name}, {lo.name} : {v.type}")
        t.emit(f"{above} = arith.cmpi sge, {v.name}, {hi.name} : {v.type}")
        t.emit(f"{bad.name} = arith.ori {below}, {above} : {bad.type}")
        if stride != 1:
            s_ = t.splat(v, stride, torch.int64)
            m = Value(t.fresh(), torch.int64, v.shape)
            t.emit(f"{m.name} = arith.muli {v.name}, {s_.name} : {v.type}")
            v = m
        if flat is not None:
            a = Value(t.fresh(), torch.int64, v.shape)
            t.emit(f"{a.name} = arith.addi {flat.name}, {v.name} : "
                   f"{v.type}")
            v = a
        total = 1
        for e in x.shape[:k]:
            total *= e
        out_of_range = t.splat(v, total, torch.int64)
        guarded = Value(t.fresh(), torch.int64, v.shape)
        t.emit(f"{guarded.name} = arith.select {bad.name}, "
               f"{out_of_range.name}, {v.name} : {bad.type}, {v.type}")
        flat = guarded
        stride *= n
    rows = 1
    for e in x.shape[:k]:
        rows *= e
    collapsed = t.reshape(node, x, (rows,) + x.shape[k:])
    return _gather_rows(t, node, meta, collapsed, flat)


def _wrap_negative(t, idx, x, dim):
    """Integer indices into dimension `dim` of x with the negative ones
    counted from the end (idx + n below 0), as PyTorch's indexing
    (`x[idx]`, `x[idx] = v`) takes them."""
    idx = t.cast(idx, torch.int64)
    zero = t.splat(idx, 0, torch.int64)
    n = t.fresh()
    t.emit(f"{n} = arith.index_cast {t.dim(x, dim)} : index to i64")
    ext = Value(t.fresh(), torch.int64, idx.shape)
    dyn = [t.dim(idx, i) for i, d in enumerate(idx.shape) if d is None]
    t.emit(f"{ext.name} = tensor.splat {n}"
           f"{'[' + ', '.join(dyn) + ']' if dyn else ''} : {ext.type}")
    neg, shifted = t.fresh(), Value(t.fresh(), torch.int64, idx.shape)
    out = Value(t.fresh(), torch.int64, idx.shape)
    t.emit(f"{neg} = arith.cmpi slt, {idx.name}, {zero.name} : {idx.type}")
    t.emit(f"{shifted.name} = arith.addi {idx.name}, {ext.name} : "
           f"{idx.type}")
    t.emit(f"{out.name} = arith.select {neg}, {shifted.name}, {idx.name} : "
           f"{tensor_type(torch.bool, idx.shape)}, {idx.type}")
    return out


def _gather_rows(t, node, meta, x, idx):
    idx = t.cast(idx, torch.int64)
    out = _result(t, meta)
    t.emit(f"{out.name} = sift.gather {x.name}[{idx.name}] : {x.type}, "
           f"{idx.type} -> {out.type}")
    return out


@op("aten.index.Tensor")
def _index(t, node, meta):
    x = t.plain(node, node.args[0])
    indices = list(node.args[1])
    while indices and indices[-1] is None:
        indices.pop()
    given = [i for i, v in enumerate(indices) if v is not None]
    if len(given) == 1 and given[0] > 0:
        # x[:, idx] and x[:, mask]: along a later dimension.
        dim = given[0]
        idx = t.plain(node, indices[dim])
        if idx.dtype == torch.bool:
            if idx.rank != 1 or idx.shape[0] != x.shape[dim]:
                t.unsupported(node, "a boolean mask of a later dimension "
                              "must be 1-D and match its extent")
            _note_natural(t, meta, _numel_of(idx), dim)
            pos = Value(t.fresh(), torch.int64, (None,))
            t.emit(f"{pos.name} = sift.nonzero {idx.name} : {idx.type} -> "
                   f"{pos.type}")
            return _rows_along(t, node, x, dim, pos)
        if idx.rank != 1:
            t.unsupported(node, "an index of a later dimension that is not "
                          "1-D")
        return _rows_along(t, node, x, dim, _wrap_negative(t, idx, x, dim))
    if len(given) > 1:
        return _index_several(t, node, meta, x, indices)
    if len(indices) != 1 or indices[0] is None:
        t.unsupported(node, "only x[index] with one index tensor on "
                      "dimension 0")
    idx = t.plain(node, indices[0])
    if idx.dtype == torch.bool:
        if idx.shape != x.shape[:idx.rank]:
            t.unsupported(node, "a boolean mask must match the leading "
                          "extents of the tensor")
        _note_natural(t, meta, _numel_of(idx))
        out = _result(t, meta)
        t.emit(f"{out.name} = sift.masked_select {x.name}, {idx.name} : "
               f"{x.type}, {idx.type} -> {out.type}")
        return out
    return _gather_rows(t, node, meta, x, _wrap_negative(t, idx, x, 0))


def _inverse(perm):
    """The permutation that undoes `perm`."""
    back = [0] * len(perm)
    for i, p in enumerate(perm):
        back[p] = i
    return back


def _permute(t, x, perm):
    """x with its dimensions in the order `perm` (linalg.transpose)."""
    perm = list(perm)
    if perm == list(range(x.rank)):
        return x
    shape = tuple(x.shape[p] for p in perm)
    dyn = [t.dim(x, p) for p in perm if x.shape[p] is None]
    init = Value(t.fresh(), x.dtype, shape)
    t.emit(f"{init.name} = tensor.empty({', '.join(dyn)}) : {init.type}")
    out = Value(t.fresh(), x.dtype, shape)
    t.emit(f"{out.name} = linalg.transpose ins({x.name} : {x.type}) "
           f"outs({init.name} : {init.type}) permutation = "
           f"[{', '.join(map(str, perm))}]")
    return out


@op("aten.permute.default", "aten.t.default", "aten.transpose.int",
    "aten.numpy_T.default", "aten.swapaxes.default",
    "aten.swapdims.default", "aten.movedim.int")
def _transpose(t, node, meta):
    x = t.plain(node, node.args[0])
    name = node.target._opname
    perm = list(range(x.rank))
    if name == "permute":
        perm = [_dim(d, x.rank) for d in node.args[1]]
    elif name in ("t", "numpy_T"):
        perm = perm[::-1]
    elif name == "movedim":
        src, dst = _dim(node.args[1], x.rank), _dim(node.args[2], x.rank)
        perm.remove(src)
        perm.insert(dst, src)
    else:
        a, b = _dim(node.args[1], x.rank), _dim(node.args[2], x.rank)
        perm[a], perm[b] = perm[b], perm[a]
    return _permute(t, x, perm)


def _rows_along(t, node, x, dim, idx):
    """x indexed by the 1-D integer tensor idx along `dim` (torch's
    index_select, x[:, idx]): dim moved first, its rows gathered, moved
    back."""
    perm = [dim] + [d for d in range(x.rank) if d != dim]
    front = _permute(t, x, perm)
    idx = t.cast(idx, torch.int64)
    shape = (idx.shape[0],) + front.shape[1:]
    rows = Value(t.fresh(), x.dtype, shape)
    t.emit(f"{rows.name} = sift.gather {front.name}[{idx.name}] : "
           f"{front.type}, {idx.type} -> {rows.type}")
    back = _inverse(perm)
    return _permute(t, rows, back)


@op("aten.index_select.default")
def _index_select(t, node, meta):
    x = t.plain(node, node.args[0])
    dim = _dim(node.args[1], x.rank)
    idx = t.plain(node, node.args[2])
    if dim == 0:
        return _gather_rows(t, node, meta, x, idx)
    if idx.rank != 1:
        t.unsupported(node, "an index that is not 1-D")
    return _rows_along(t, node, x, dim, idx)


def _scatter_into(t, dest, idx, updates, reduce, batch_dims):
    """sift.scatter of updates into dest at idx (reduce: None, "add",
    "max" or "min")."""
    idx = t.cast(idx, torch.int64)
    updates = t.cast(updates, dest.dtype)
    out = Value(t.fresh(), dest.dtype, dest.shape)
    red = f" reduce({reduce})" if reduce else ""
    attr = f" {{batch_dims = {batch_dims} : i64}}" if batch_dims else ""
    t.emit(f"{out.name} = sift.scatter {updates.name} into {dest.name}"
           f"[{idx.name}]{red}{attr} : {updates.type}, {idx.type} into "
           f"{dest.type}")
    return out


_SCATTER_REDUCE = {"sum": "add", "add": "add", "amax": "max", "amin": "min"}


@op("aten.scatter.src", "aten.scatter.value", "aten.scatter_add.default",
    "aten.scatter_reduce.two")
def _scatter(t, node, meta):
    """torch.scatter(x, dim, index, src) along a dimension: x[..., index[...,
    j], ...] = src[..., j, ...] (scatter_add and scatter_reduce's sum,
    amax and amin combine instead). `dim` is moved last when it is not,
    and the other extents of the index must be x's. An index outside
    [0, n) skips its lane (PyTorch raises)."""
    x = t.plain(node, node.args[0])
    dim = _dim(node.args[1], x.rank)
    idx = t.cast(t.plain(node, node.args[2]), torch.int64)
    name = node.target._opname
    reduce = None
    if name == "scatter_add":
        reduce = "add"
    elif name == "scatter_reduce":
        how = node.args[4]
        if how not in _SCATTER_REDUCE or not _arg(node, 5, "include_self",
                                                   True):
            t.unsupported(node, "scatter_reduce with 'sum', 'amax' or "
                          "'amin', including self")
        reduce = _SCATTER_REDUCE[how]
    if idx.rank != x.rank or None in x.shape or any(
            idx.shape[d] != x.shape[d] for d in range(x.rank) if d != dim):
        t.unsupported(node, "an index whose extents other than `dim` are "
                      "the input's (static)")
    src = node.args[3]
    if _is_tensor(src):
        upd = t.plain(node, src)
        if None in idx.shape and [str(d) for d in _fake(src).shape] != [
                str(d) for d in _fake(node.args[2]).shape]:
            # An index of data-dependent length (`scatter_add(0, col,
            # ones(len(col)))`): a source of the same extents only.
            t.unsupported(node, "a source whose extents are not the "
                          "data-dependent index's")
        if upd.shape != idx.shape:
            if None in upd.shape:
                t.unsupported(node, "a source of data-dependent extents")
            sizes = ", ".join(map(str, idx.shape))
            cut = Value(t.fresh(), upd.dtype, idx.shape)
            t.emit(f"{cut.name} = tensor.extract_slice {upd.name}"
                   f"[{', '.join('0' for _ in idx.shape)}] [{sizes}] "
                   f"[{', '.join('1' for _ in idx.shape)}] : {upd.type} to "
                   f"{cut.type}")
            upd = cut
    else:
        upd = t.splat(idx, src, x.dtype)
    perm = [d for d in range(x.rank) if d != dim] + [dim]
    back = _inverse(perm)
    xs, ids, ups = (_permute(t, v, perm) for v in (x, idx, upd))
    out = _scatter_into(t, xs, ids, ups, reduce, x.rank - 1)
    return _permute(t, out, back)


@op("aten.index_add.default")
def _index_add(t, node, meta):
    """x.index_add(dim, index, source, alpha): x's slices at index along
    dim plus source's, alpha times (an index outside [0, n) skips its
    slice)."""
    x = t.plain(node, node.args[0])
    dim = _dim(node.args[1], x.rank)
    idx = t.plain(node, node.args[2])
    src = t.cast(t.plain(node, node.args[3]), x.dtype)
    alpha = _arg(node, 4, "alpha", 1)
    if idx.rank != 1 or None in x.shape:
        t.unsupported(node, "a 1-D index into a tensor of static extents")
    if alpha != 1:
        a = t.splat(src, alpha, x.dtype)
        scaled = Value(t.fresh(), x.dtype, src.shape)
        mul = "arith.mulf" if is_float(x.dtype) else "arith.muli"
        t.emit(f"{scaled.name} = {mul} {src.name}, {a.name} : {src.type}")
        src = scaled
    perm = [dim] + [d for d in range(x.rank) if d != dim]
    back = _inverse(perm)
    xs, ss = _permute(t, x, perm), _permute(t, src, perm)
    out = _scatter_into(t, xs, idx, ss, "add", 0)
    return _permute(t, out, back)


@op("aten.index_put.default")
def _index_put(t, node, meta):
    """x[idx] = values (accumulate: +=) with one integer index tensor on
    dimension 0 (a boolean mask is decomposed into a where first); an
    index outside [0, n) skips its row, and of repeated indices the last
    write wins."""
    x = t.plain(node, node.args[0])
    indices = list(node.args[1])
    while indices and indices[-1] is None:
        indices.pop()
    lead = 0
    while lead < len(indices) and indices[lead] is None:
        lead += 1
    if len(indices) != lead + 1:
        t.unsupported(node, "x[..., index] = v with one index tensor")
    idx = t.plain(node, indices[lead])
    accumulate = bool(_arg(node, 3, "accumulate", False))
    if lead:
        return _index_put_along(t, node, x, idx, lead, accumulate)
    if idx.dtype == torch.bool:
        return _index_put_mask(t, node, x, idx, accumulate)
    if idx.rank != 1:
        t.unsupported(node, "x[index] = v with a 1-D integer index")
    idx = _wrap_negative(t, idx, x, 0)
    shape = (idx.shape[0],) + x.shape[1:]
    fake = ((_fake(indices[0]).shape[0],)
            + tuple(_fake(node.args[0]).shape[1:]))
    vals = _operand(t, node, node.args[2], x.dtype, _ShapeMeta(fake, x.dtype))
    return _scatter_into(t, x, idx, vals, "add" if accumulate else None, 0)


def _index_put_along(t, node, x, idx, dim, accumulate):
    """x[:, idx] = v (and index_fill along dim): dim moved first, the same
    scatter of rows as on dimension 0, and moved back."""
    if idx.dtype == torch.bool or idx.rank != 1 or None in x.shape:
        t.unsupported(node, "x[:, index] = v with a 1-D integer index into "
                      "static extents")
    idx = _wrap_negative(t, idx, x, dim)
    fake_x = _fake(node.args[0]).shape
    fake = (tuple(fake_x[:dim]) + (_fake(node.args[1][dim]).shape[0],)
            + tuple(fake_x[dim + 1:]))
    vals = _operand(t, node, node.args[2], x.dtype, _ShapeMeta(fake, x.dtype))
    perm = [dim] + [d for d in range(x.rank) if d != dim]
    out = _scatter_into(t, _permute(t, x, perm), idx, _permute(t, vals, perm),
                        "add" if accumulate else None, 0)
    return _permute(t, out, _inverse(perm))


def _index_put_mask(t, node, x, mask, accumulate):
    """x[mask] = v: v's rows (one per true element of the mask, in order)
    written at the mask's positions, the mask covering x's leading
    dimensions (a value of one row or a number: every selected row gets
    it). The positions are sift.nonzero of the flattened mask, and one
    sift.scatter writes the rows."""
    k = mask.rank
    if mask.shape != x.shape[:k] or None in x.shape:
        t.unsupported(node, "x[mask] = v with a mask of x's leading static "
                      "extents")
    n = 1
    for d in x.shape[:k]:
        n *= d
    rest = x.shape[k:]
    flat_x = t.reshape(node, x, (n,) + rest)
    flat_m = t.reshape(node, mask, (n,))
    pos = Value(t.fresh(), torch.int64, (None,))
    t.emit(f"{pos.name} = sift.nonzero {flat_m.name} : {flat_m.type} -> "
           f"{pos.type}")
    values = node.args[2]
    fake_v = _fake(values)
    # v's rows, one per selected row, unless v is one row (a static
    # leading 1) that goes to every selected row.
    per_row = _is_tensor(values) and fake_v.dim() == len(rest) + 1
    lead = fake_v.shape[0] if per_row else None
    if isinstance(lead, int) and lead == 1 and n != 1:
        per_row = False
    if per_row:
        vals = t.cast(t.plain(node, values), x.dtype)
    else:
        # One value for every selected row, broadcast to the rows.
        dim = t.dim(pos, 0)
        one = _operand(t, node, values, x.dtype,
                       _ShapeMeta(tuple(rest), x.dtype))
        vals = Value(t.fresh(), x.dtype, (None,) + rest)
        init = Value(t.fresh(), x.dtype, vals.shape)
        t.emit(f"{init.name} = tensor.empty({dim}) : {init.type}")
        t.emit(f"{vals.name} = linalg.broadcast ins({one.name} : {one.type})"
               f" outs({init.name} : {init.type}) dimensions = [0]")
    out = _scatter_into(t, flat_x, pos, vals, "add" if accumulate else None,
                        0)
    return t.reshape(node, out, x.shape)


class _ShapeMeta:
    """A fake tensor's shape and dtype, for `_operand`."""

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype


def _product(t, name, a, b, dtype, shape, dyn=()):
    """linalg.matmul or linalg.batch_matmul (`name`) of a and b into
    zeros of `shape` (its dynamic extents the SSA names `dyn`)."""
    et = element_type(dtype)
    init = Value(t.fresh(), dtype, shape)
    t.emit(f"{init.name} = tensor.empty({', '.join(dyn)}) : {init.type}")
    zero, acc = t.scalar(0, dtype), Value(t.fresh(), dtype, shape)
    t.emit(f"{acc.name} = linalg.fill ins({zero} : {et}) outs({init.name} "
           f": {init.type}) -> {init.type}")
    out = Value(t.fresh(), dtype, shape)
    t.emit(f"{out.name} = {name} ins({a.name}, {b.name} : {a.type}, "
           f"{b.type}) outs({acc.name} : {acc.type}) -> {acc.type}")
    return out


def _matmul2d(t, a, b, dtype):
    """a [M, K] @ b [K, N] (linalg.matmul into zeros)."""
    shape = (a.shape[0], b.shape[1])
    dyn = [t.dim(a, 0)] if shape[0] is None else []
    if shape[1] is None:
        dyn.append(t.dim(b, 1))
    return _product(t, "linalg.matmul", a, b, dtype, shape, dyn)


@op("aten.mm.default", "aten.matmul.default", "aten.bmm.default")
def _mm(t, node, meta):
    """Matrix products: 2-D @ 2-D (and a 1-D side as a row or column, as
    torch.matmul treats it), 3-D @ 3-D batches (linalg.batch_matmul); K
    static. Sums in the result's dtype, in the order linalg.matmul
    takes."""
    dtype = meta.dtype
    a = t.cast(t.plain(node, node.args[0]), dtype)
    b = t.cast(t.plain(node, node.args[1]), dtype)
    if a.rank == 3 and b.rank == 3:
        if a.shape[0] != b.shape[0] or None in a.shape[1:] + b.shape:
            t.unsupported(node, "batched products of static extents")
        shape = (a.shape[0], a.shape[1], b.shape[2])
        return _product(t, "linalg.batch_matmul", a, b, dtype, shape)
    if a.rank not in (1, 2) or b.rank not in (1, 2):
        t.unsupported(node, "products of 1-D, 2-D or two 3-D tensors")
    a2 = a if a.rank == 2 else t.reshape(node, a, (1, a.shape[0]))
    b2 = b if b.rank == 2 else t.reshape(node, b, (b.shape[0], 1))
    if a2.shape[1] is None or a2.shape[1] != b2.shape[0]:
        t.unsupported(node, "a contracted extent that is data-dependent")
    out = _matmul2d(t, a2, b2, dtype)
    want = static_shape(meta.shape)
    return out if out.shape == want else t.reshape(node, out, want)


@op("aten.linear.default", "aten.addmm.default")
def _linear(t, node, meta):
    """F.linear(x, w, b) = x @ w.T + b over x's last dimension (leading
    dimensions flattened into rows, static but for the first), and
    addmm(input, m1, m2, beta, alpha) = beta * input + alpha * m1 @ m2."""
    dtype = meta.dtype
    if node.target._opname == "linear":
        x = t.cast(t.plain(node, node.args[0]), dtype)
        w = t.cast(t.plain(node, node.args[1]), dtype)
        bias = _arg(node, 2, "bias")
        if x.rank < 1 or w.rank != 2 or None in x.shape[1:]:
            t.unsupported(node, "linear of [..., K] inputs with static "
                          "trailing extents")
        rows = x.shape[:-1]
        if x.rank == 1:
            x2 = t.reshape(node, x, (1, x.shape[0]))
        elif x.rank == 2:
            x2 = x
        else:
            if None in rows:
                t.unsupported(node, "linear of a rank > 2 input with a "
                              "data-dependent extent")
            n = 1
            for d in rows:
                n *= d
            x2 = t.reshape(node, x, (n, x.shape[-1]))
        out = _matmul2d(t, x2, _permute(t, w, [1, 0]), dtype)
        beta, alpha, add = 1, 1, bias
    else:
        add, m1, m2 = node.args[0], node.args[1], node.args[2]
        beta, alpha = _arg(node, 3, "beta", 1), _arg(node, 4, "alpha", 1)
        out = _matmul2d(t, t.cast(t.plain(node, m1), dtype),
                        t.cast(t.plain(node, m2), dtype), dtype)
    mul = "arith.mulf" if is_float(dtype) else "arith.muli"
    plus = "arith.addf" if is_float(dtype) else "arith.addi"
    if alpha != 1:
        a, r = t.splat(out, alpha, dtype), Value(t.fresh(), dtype, out.shape)
        t.emit(f"{r.name} = {mul} {out.name}, {a.name} : {out.type}")
        out = r
    if add is not None and beta != 0:
        # Only a rank-2 result has a data-dependent first extent here.
        rows = _fake(node).shape[0] if out.shape[0] is None else out.shape[0]
        v = t.cast(t.plain(node, add), dtype)
        v = t.broadcast(node, v, out.shape, fake_shape=[rows, out.shape[1]])
        if beta != 1:
            bb, r = t.splat(v, beta, dtype), Value(t.fresh(), dtype, v.shape)
            t.emit(f"{r.name} = {mul} {v.name}, {bb.name} : {v.type}")
            v = r
        r = Value(t.fresh(), dtype, out.shape)
        t.emit(f"{r.name} = {plus} {out.name}, {v.name} : {out.type}")
        out = r
    want = static_shape(meta.shape)
    return out if out.shape == want else t.reshape(node, out, want)


@op("aten.gather.default")
def _gather(t, node, meta):
    x = t.plain(node, node.args[0])
    dim = _dim(node.args[1], x.rank)
    idx = t.cast(t.plain(node, node.args[2]), torch.int64)
    if dim != x.rank - 1 or idx.rank != x.rank or \
            idx.shape[:-1] != x.shape[:-1]:
        t.unsupported(node, "only torch.gather along the last dimension "
                      "with an index of the input's leading extents")
    out = _result(t, meta)
    attr = f" {{batch_dims = {x.rank - 1} : i64}}" if x.rank > 1 else ""
    t.emit(f"{out.name} = sift.gather {x.name}[{idx.name}]{attr} : "
           f"{x.type}, {idx.type} -> {out.type}")
    return out


def _dim_attr(dim, rank):
    return "" if dim in (-1, rank - 1) else f" {{dim = {dim} : i64}}"


@op("aten.sort.default", "aten.sort.stable")
def _sort(t, node, meta):
    x = t.plain(node, node.args[0])
    if node.target._overloadname == "stable":
        dim = node.kwargs.get("dim", -1)
        desc = node.kwargs.get("descending", False)
    else:
        dim, desc = _arg(node, 1, "dim", -1), _arg(node, 2, "descending",
                                                   False)
    dim = _dim(dim, x.rank)
    v, i = Value(t.fresh(), x.dtype, x.shape), Value(t.fresh(), torch.int64,
                                                     x.shape)
    t.emit(f"{v.name}, {i.name} = sift.sort {x.name}"
           f"{' descending' if desc else ''}{_dim_attr(dim, x.rank)} : "
           f"{x.type} -> {v.type}, {i.type}")
    return [v, i]


@op("aten.argsort.default", "aten.argsort.stable")
def _argsort(t, node, meta):
    x = t.plain(node, node.args[0])
    if node.target._overloadname == "stable":
        dim = node.kwargs.get("dim", -1)
        desc = node.kwargs.get("descending", False)
    else:
        dim, desc = _arg(node, 1, "dim", -1), _arg(node, 2, "descending",
                                                   False)
    dim = _dim(dim, x.rank)
    out = _result(t, meta)
    t.emit(f"{out.name} = sift.argsort {x.name}"
           f"{' descending' if desc else ''}{_dim_attr(dim, x.rank)} : "
           f"{x.type} -> {out.type}")
    return out


@op("aten.topk.default")
def _topk(t, node, meta_tuple):
    x = t.plain(node, node.args[0])
    k = node.args[1]
    dim = _dim(_arg(node, 2, "dim", -1), x.rank)
    largest = _arg(node, 3, "largest", True)
    sorted_ = _arg(node, 4, "sorted", True)
    meta = node.meta["val"][0]
    if isinstance(k, int):
        v, i = _result(t, meta), _result(t, meta, torch.int64)
        t.emit(f"{v.name}, {i.name} = sift.topk {x.name} k({k})"
               f"{'' if largest else ' smallest'}"
               f"{'' if sorted_ else ' unsorted'}{_dim_attr(dim, x.rank)} : "
               f"{x.type} -> {v.type}, {i.type}")
        return [v, i]
    # A computed k: the first k of a stable argsort (which --sift-staticize
    # turns back into a top-k of k's bound), and the values gathered.
    if x.rank != 1:
        t.unsupported(node, "a computed k needs a 1-D input")
    order = Value(t.fresh(), torch.int64, x.shape)
    t.emit(f"{order.name} = sift.argsort {x.name}"
           f"{' descending' if largest else ''} : {x.type} -> {order.type}")
    i = _result(t, meta, torch.int64)
    t.emit(f"{i.name} = tensor.extract_slice {order.name}[0] "
           f"[{t.size(k)}] [1] : {order.type} to {i.type}")
    v = _result(t, meta)
    t.emit(f"{v.name} = sift.gather {x.name}[{i.name}] : {x.type}, "
           f"{i.type} -> {v.type}")
    return [v, i]


@op("aten.cumsum.default")
def _cumsum(t, node, meta):
    x = t.plain(node, node.args[0])
    dim = _dim(node.args[1], x.rank)
    x = t.cast(x, meta.dtype)
    out = _result(t, meta)
    t.emit(f"{out.name} = sift.cumsum {x.name}{_dim_attr(dim, x.rank)} : "
           f"{x.type} -> {out.type}")
    return out


def _binary_search(t, node, seq, vals, right):
    """For each of vals, PyTorch's binary search in the sorted last
    dimension of seq (its leading dimensions vals' leading ones): the
    first position whose element is not below the value (`right`: not at
    or below it); NaN compares as largest, as PyTorch's search. The same
    halvings of [start, end) per value, on whole tensors: M.bit_length()
    steps, each a sift.gather of the middle elements, shrink every interval
    to nothing."""
    m = seq.shape[-1]
    if m is None:
        t.unsupported(node, "a sorted sequence of static length")
    batch = seq.rank - 1
    if batch and tuple(vals.shape[:batch]) != tuple(seq.shape[:batch]):
        t.unsupported(node, "a sorted sequence whose leading extents are "
                      "the values'")
    i64 = tensor_type(torch.int64, vals.shape)
    start = t.splat(vals, 0, torch.int64)
    end = t.splat(vals, m, torch.int64)
    one = t.splat(vals, 1, torch.int64)
    zero = start
    if is_float(vals.dtype):
        below = "arith.cmpf ule" if right else "arith.cmpf ult"
    else:
        below = "arith.cmpi sle" if right else "arith.cmpi slt"
    attr = f" {{batch_dims = {batch} : i64}}" if batch else ""
    bty = tensor_type(torch.bool, vals.shape)
    for _ in range(m.bit_length()):
        active, span, half, mid, safe, midv, go, up, down, after, s2, e2 = (
            t.fresh() for _ in range(12))
        t.emit(f"{active} = arith.cmpi slt, {start.name}, {end.name} : "
               f"{i64}")
        t.emit(f"{span} = arith.subi {end.name}, {start.name} : {i64}")
        t.emit(f"{half} = arith.shrui {span}, {one.name} : {i64}")
        t.emit(f"{mid} = arith.addi {start.name}, {half} : {i64}")
        t.emit(f"{safe} = arith.select {active}, {mid}, {zero.name} : "
               f"{bty}, {i64}")
        t.emit(f"{midv} = sift.gather {seq.name}[{safe}]{attr} : "
               f"{seq.type}, {i64} -> {vals.type}")
        # !(middle >= value): the value lies past the middle.
        t.emit(f"{go} = {below}, {midv}, {vals.name} : {vals.type}")
        t.emit(f"{up} = arith.andi {active}, {go} : {bty}")
        t.emit(f"{down} = arith.xori {active}, {up} : {bty}")
        t.emit(f"{after} = arith.addi {mid}, {one.name} : {i64}")
        t.emit(f"{s2} = arith.select {up}, {after}, {start.name} : {bty}, "
               f"{i64}")
        t.emit(f"{e2} = arith.select {down}, {mid}, {end.name} : {bty}, "
               f"{i64}")
        start = Value(s2, torch.int64, vals.shape)
        end = Value(e2, torch.int64, vals.shape)
    return start


@op("aten.searchsorted.Tensor", "aten.searchsorted.Scalar",
    "aten.bucketize.Tensor", "aten.bucketize.Scalar")
def _searchsorted(t, node, meta):
    """searchsorted(seq, values, right=, side=) and bucketize(values,
    boundaries, right=): positions in the sorted last dimension of seq
    (PyTorch's binary search), in int64 or int32 (out_int32). Both in
    their promoted dtype; a sorter is not supported."""
    if node.target._opname == "bucketize":
        vals_arg, seq_arg = node.args[0], node.args[1]
        right = _arg(node, 3, "right", False)
    else:
        seq_arg, vals_arg = node.args[0], node.args[1]
        right = _arg(node, 3, "right", False)
        if _arg(node, 4, "side") is not None:
            right = _arg(node, 4, "side") == "right"
        if _arg(node, 5, "sorter") is not None:
            t.unsupported(node, "a sorter (sort the sequence first)")
    seq = t.plain(node, seq_arg)
    if _is_tensor(vals_arg):
        vals = t.plain(node, vals_arg)
    else:  # A number: a rank-0 tensor of PyTorch's dtype for it.
        kind = (torch.bool if isinstance(vals_arg, bool) else torch.int64
                if isinstance(vals_arg, int) else torch.get_default_dtype())
        vals = t.splat(None, vals_arg, kind, shape=())
    dtype = torch.promote_types(seq.dtype, vals.dtype)
    if dtype == torch.bool:
        t.unsupported(node, "boolean sequences")
    pos = _binary_search(t, node, t.cast(seq, dtype), t.cast(vals, dtype),
                         bool(right))
    return t.cast(pos, meta.dtype)


@op("aten.repeat_interleave.Tensor")
def _repeat_interleave(t, node, meta):
    """repeat_interleave(repeats, output_size=K): position i repeated
    repeats[i] times, K positions (what x.repeat_interleave(repeats, dim,
    output_size=K) gathers x's slices at): for each j < K, the first i
    whose running total of repeats exceeds j. Positions past the total
    (K larger than it) are len(repeats), which gathers nothing."""
    shape = static_shape(meta.shape)
    if None in shape:
        t.unsupported(node, "repeat_interleave with tensor repeats needs "
                      "output_size= (the result's length is their sum, "
                      "with no bound sift can pad to)")
    reps = t.cast(t.plain(node, node.args[0]), torch.int64)
    if reps.rank != 1 or reps.shape[0] is None:
        t.unsupported(node, "1-D repeats of static length")
    totals = Value(t.fresh(), torch.int64, reps.shape)
    t.emit(f"{totals.name} = sift.cumsum {reps.name} : {reps.type} -> "
           f"{totals.type}")
    lanes = _range(t, t.empty(torch.int64, shape),
                   Value(t.fresh(), torch.int64, shape))
    pos = _binary_search(t, node, totals, lanes, right=True)
    return t.cast(pos, meta.dtype)


@op("aten._unique2.default")
def _unique(t, node, meta):
    x = t.plain(node, node.args[0])
    inverse = _arg(node, 2, "return_inverse", False)
    counts = _arg(node, 3, "return_counts", False)
    metas = node.meta["val"]
    _note_natural(t, metas[0], _numel_of(x))
    u = _result(t, metas[0])
    inv = Value(t.fresh(), torch.int64, x.shape) if inverse else None
    cnt = _result(t, metas[2]) if counts else None
    names = [r.name for r in (u, inv, cnt) if r is not None]
    types = [r.type for r in (u, inv, cnt) if r is not None]
    t.emit(f"{', '.join(names)} = sift.unique {x.name}"
           f"{' inverse' if inverse else ''}{' counts' if counts else ''} : "
           f"{x.type} -> {', '.join(types)}")
    results = [u]
    for r, m in ((inv, metas[1]), (cnt, metas[2])):
        if r is None:  # Not asked for: torch returns an empty tensor.
            r = t.empty(m.dtype, static_shape(m.shape), fake_shape=m.shape)
        results.append(r)
    return results


@op("aten.unique_consecutive.default")
def _unique_consecutive(t, node, meta):
    """torch.unique_consecutive(x) of the flattened x: a run starts where
    an element differs from the one before (`!=`, so each NaN is a run of
    its own) and ends where it differs from the one after. The values are
    x at the starts (sift.nonzero of those flags, a gather), the inverse
    the running count of starts less one, the counts each run's end less
    its start plus one."""
    if _arg(node, 3, "dim") is not None:
        t.unsupported(node, "unique_consecutive along a dimension")
    x = t.plain(node, node.args[0])
    if None in x.shape:
        t.unsupported(node, "unique_consecutive of data-dependent extents")
    metas = node.meta["val"]
    n = _numel_of(x)
    flat = t.reshape(node, x, (n,))
    if n == 0:
        return [t.empty(m.dtype, static_shape(m.shape)) for m in metas]
    for m in (metas[0], metas[2]):
        _note_natural(t, m, n)
    b = Value(t.fresh(), torch.bool, (n,))
    if n == 1:
        t.emit(f"{b.name} = arith.constant dense<true> : {b.type}")
        starts = ends = b
    else:
        parts = [_slice_along(t, flat, 0, offset, n - 1) for offset in (0, 1)]
        differs = Value(t.fresh(), torch.bool, (n - 1,))
        cmp = "arith.cmpf une" if is_float(x.dtype) else "arith.cmpi ne"
        t.emit(f"{differs.name} = {cmp}, {parts[1].name}, {parts[0].name} : "
               f"{parts[0].type}")
        one = Value(t.fresh(), torch.bool, (1,))
        t.emit(f"{one.name} = arith.constant dense<true> : {one.type}")
        starts, ends = (Value(t.fresh(), torch.bool, (n,)) for _ in range(2))
        for flags, pieces in ((starts, (one, differs)),
                              (ends, (differs, one))):
            t.emit(f"{flags.name} = tensor.concat dim(0) "
                   f"{pieces[0].name}, {pieces[1].name} : ({pieces[0].type}, "
                   f"{pieces[1].type}) -> {flags.type}")
    first, last = (Value(t.fresh(), torch.int64, (None,)) for _ in range(2))
    for pos, flags in ((first, starts), (last, ends)):
        t.emit(f"{pos.name} = sift.nonzero {flags.name} : {flags.type} -> "
               f"{pos.type}")
    values = Value(t.fresh(), x.dtype, (None,))
    t.emit(f"{values.name} = sift.gather {flat.name}[{first.name}] : "
           f"{flat.type}, {first.type} -> {values.type}")
    inverse = _ranks(t, starts)
    span, counts = (Value(t.fresh(), torch.int64, (None,)) for _ in range(2))
    t.emit(f"{span.name} = arith.subi {last.name}, {first.name} : "
           f"{first.type}")
    t.emit(f"{counts.name} = arith.addi {span.name}, "
           f"{t.splat(span, 1, torch.int64).name} : {span.type}")
    return [values, t.reshape(node, inverse, static_shape(metas[1].shape)),
            counts]


@op("aten.randperm.default")
def _randperm(t, node, meta):
    n = node.args[0]
    shape = static_shape(meta.shape)
    out = Value(t.fresh(), torch.int64, shape)
    seed, offset = t.random_site()
    # PyTorch's bits are not matched anyway: sift's default (Feistel)
    # permutation, which needs no sort and whose prefixes cost their length.
    t.emit(f"{out.name} = sift.randperm {t.size(n)}, {seed} offset "
           f"{offset} : {out.type}")
    return t.cast(out, meta.dtype)


_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


@op("aten.cross_entropy_loss.default")
def _cross_entropy(t, node, meta):
    logits = t.plain(node, node.args[0])
    target = t.plain(node, node.args[1])
    weight = _arg(node, 2, "weight")
    reduction = _arg(node, 3, "reduction", 1)
    ignore = _arg(node, 4, "ignore_index", -100)
    smoothing = _arg(node, 5, "label_smoothing", 0.0)
    if target.dtype == torch.bool or is_float(target.dtype):
        t.unsupported(node, "only class-index targets (no probabilities)")
    spatial = None
    if logits.rank > 2:
        # [N, C, d1, ...] (per-pixel or per-token classes in dimension 1):
        # the classes moved last and the rest flattened into rows; the
        # mean over every element is the mean over those rows.
        if None in logits.shape or None in target.shape:
            t.unsupported(node, "logits of rank > 2 with data-dependent "
                          "extents")
        spatial = target.shape
        rows = 1
        for d in target.shape:
            rows *= d
        perm = [0] + list(range(2, logits.rank)) + [1]
        logits = t.reshape(node, _permute(t, logits, perm),
                           (rows, logits.shape[1]))
        target = t.reshape(node, target, (rows,))
    attrs = []
    if ignore != -100:
        attrs.append(f"ignore_index = {int(ignore)} : i64")
    if smoothing:
        attrs.append(f"label_smoothing = "
                     f"{t.literal(smoothing, torch.float64)[0]} : f64")
    attrs = f" {{{', '.join(attrs)}}}" if attrs else ""
    w = ""
    if weight is not None:
        wv = t.cast(t.plain(node, weight), logits.dtype)
        w = f" weight({wv.name} : {wv.type})"
    out = _result(t, meta) if spatial is None or reduction != 0 else \
        Value(t.fresh(), meta.dtype, target.shape)
    t.emit(f"{out.name} = sift.cross_entropy {logits.name}, {target.name}"
           f"{w} reduction = {_REDUCTIONS[reduction]}{attrs} : "
           f"{logits.type}, {target.type} -> {out.type}")
    if out.shape != static_shape(meta.shape):
        out = t.reshape(node, out, static_shape(meta.shape))
    return out


def _maps(rank, dim):
    """The identity map and the map that drops `dim`, of `rank` loops."""
    ds = [f"d{i}" for i in range(rank)]
    full = f"affine_map<({', '.join(ds)}) -> ({', '.join(ds)})>"
    kept = [d for i, d in enumerate(ds) if i != dim]
    return full, f"affine_map<({', '.join(ds)}) -> ({', '.join(kept)})>"


@op("aten.log_softmax.int", "aten._log_softmax.default",
    "aten.softmax.int", "aten._softmax.default")
def _log_softmax(t, node, meta):
    """x - m - log(sum exp(x - m)) along `dim`, m the maximum (softmax:
    exp(x - m) / sum exp(x - m)): a max reduction, a sum of exps (one
    linalg.generic reducing `dim`) and the elementwise result. A row of
    -inf gives NaN, as PyTorch's does."""
    log = "log_softmax" in node.target._opname
    x = t.plain(node, node.args[0])
    if not is_float(meta.dtype):
        t.unsupported(node, "softmax of integers")
    x = t.cast(x, meta.dtype)
    dim = _dim(node.args[1], x.rank)
    et = element_type(meta.dtype)
    full, kept = _maps(x.rank, dim)
    fake_kept = [d for i, d in enumerate(_fake(node.args[0]).shape)
                 if i != dim]
    kept_shape = tuple(d for i, d in enumerate(x.shape) if i != dim)
    iters = ", ".join('"reduction"' if i == dim else '"parallel"'
                      for i in range(x.rank))

    def reduced(init):
        acc = t.empty(meta.dtype, kept_shape, fake_shape=fake_kept)
        c = t.scalar(init, meta.dtype)
        filled = Value(t.fresh(), meta.dtype, kept_shape)
        t.emit(f"{filled.name} = linalg.fill ins({c} : {et}) "
               f"outs({acc.name} : {acc.type}) -> {acc.type}")
        return filled

    # m = max over dim.
    filled = reduced(float("-inf"))
    m = Value(t.fresh(), meta.dtype, kept_shape)
    t.emit_raw(f"{m.name} = linalg.reduce ins({x.name} : {x.type}) "
               f"outs({filled.name} : {filled.type}) dimensions = [{dim}]")
    bi, ba, r = t.fresh(), t.fresh(), t.fresh()
    t.emit_raw(f"  ({bi}: {et}, {ba}: {et}) {{")
    t.emit(f"    {r} = arith.maximumf {bi}, {ba} : {et}")
    t.emit(f"    linalg.yield {r} : {et}")
    t.emit_close("  }")
    # s = sum exp(x - m) over dim.
    filled = reduced(0.0)
    ssum = Value(t.fresh(), meta.dtype, kept_shape)
    bx, bm, ba = t.fresh(), t.fresh(), t.fresh()
    d, e, a = t.fresh(), t.fresh(), t.fresh()
    t.emit_raw(f"{ssum.name} = linalg.generic {{indexing_maps = [{full}, "
               f"{kept}, {kept}], iterator_types = [{iters}]}} "
               f"ins({x.name}, {m.name} : {x.type}, {m.type}) "
               f"outs({filled.name} : {filled.type}) {{")
    t.emit_raw(f"  ^bb0({bx}: {et}, {bm}: {et}, {ba}: {et}):")
    t.emit(f"  {d} = arith.subf {bx}, {bm} : {et}")
    t.emit(f"  {e} = math.exp {d} : {et}")
    t.emit(f"  {a} = arith.addf {ba}, {e} : {et}")
    t.emit(f"  linalg.yield {a} : {et}")
    t.emit_close(f"}} -> {filled.type}")
    # x - m - log(s), elementwise.
    init = t.empty(meta.dtype, x.shape, like=x)
    out = Value(t.fresh(), meta.dtype, x.shape)
    par = ", ".join('"parallel"' for _ in range(x.rank))
    bx, bm, bs, bo = t.fresh(), t.fresh(), t.fresh(), t.fresh()
    d, lg, o = t.fresh(), t.fresh(), t.fresh()
    t.emit_raw(f"{out.name} = linalg.generic {{indexing_maps = [{full}, "
               f"{kept}, {kept}, {full}], iterator_types = [{par}]}} "
               f"ins({x.name}, {m.name}, {ssum.name} : {x.type}, {m.type}, "
               f"{ssum.type}) outs({init.name} : {init.type}) {{")
    t.emit_raw(f"  ^bb0({bx}: {et}, {bm}: {et}, {bs}: {et}, {bo}: {et}):")
    t.emit(f"  {d} = arith.subf {bx}, {bm} : {et}")
    if log:
        t.emit(f"  {lg} = math.log {bs} : {et}")
        t.emit(f"  {o} = arith.subf {d}, {lg} : {et}")
    else:
        t.emit(f"  {lg} = math.exp {d} : {et}")
        t.emit(f"  {o} = arith.divf {lg}, {bs} : {et}")
    t.emit(f"  linalg.yield {o} : {et}")
    t.emit_close(f"}} -> {init.type}")
    return out


@op("aten.nll_loss_nd.default", "aten.nll_loss.default")
def _nll_loss(t, node, meta):
    """nll_loss(log_softmax(x, classes), target) is cross_entropy(x,
    target): one sift.cross_entropy on x (its log_softmax is then unused
    and left out by canonicalization). Of anything else it is refused:
    nll_loss of arbitrary scores is a gather, not a loss sift models."""
    src = node.args[0]
    # Rows selected after the log_softmax (`log_softmax(x)[mask]`,
    # `log_softmax(x)[idx]`) are the log_softmax of the selected rows: the
    # selection moves onto x.
    selection = None
    if isinstance(src, torch.fx.Node) and \
            src.target == torch.ops.aten.index.Tensor and \
            len(src.args[1]) == 1 and src.args[1][0] is not None:
        selection, src = src, src.args[0]
    ls = src.target if isinstance(src, torch.fx.Node) else None
    if ls not in (torch.ops.aten.log_softmax.int,
                  torch.ops.aten._log_softmax.default):
        t.unsupported(node, "nll_loss of something other than log_softmax "
                      "(write F.cross_entropy, or nll_loss(log_softmax(x)))")
    x = t.plain(node, src.args[0])
    if selection is not None:
        if x.rank != 2 or _dim(src.args[1], 2) != 1:
            t.unsupported(node, "nll_loss of selected rows of a log_softmax "
                          "that is not over the classes of [N, C]")
        idx = t.plain(node, selection.args[1][0])
        fake = _fake(selection)
        if idx.dtype == torch.bool:
            _note_natural(t, fake, _numel_of(idx))
            sel = _result(t, fake, x.dtype)
            t.emit(f"{sel.name} = sift.masked_select {x.name}, {idx.name} "
                   f": {x.type}, {idx.type} -> {sel.type}")
        else:
            sel = _gather_rows(t, node, fake, x, idx)
            sel = t.cast(sel, x.dtype) if sel.dtype != x.dtype else sel
        x = sel
    if _dim(src.args[1], x.rank) != (1 if x.rank > 1 else 0):
        t.unsupported(node, "nll_loss of a log_softmax over a dimension "
                      "other than the classes")
    if x.rank > 2:
        t.unsupported(node, "only logits [N, C] or [C]")
    target = t.plain(node, node.args[1])
    x = t.cast(x, _fake(src).dtype)
    weight = _arg(node, 2, "weight")
    reduction = _arg(node, 3, "reduction", 1)
    ignore = _arg(node, 4, "ignore_index", -100)
    attrs = f" {{ignore_index = {int(ignore)} : i64}}" if ignore != -100 \
        else ""
    w = ""
    if weight is not None:
        wv = t.cast(t.plain(node, weight), x.dtype)
        w = f" weight({wv.name} : {wv.type})"
    out = _result(t, meta)
    t.emit(f"{out.name} = sift.cross_entropy {x.name}, {target.name}"
           f"{w} reduction = {_REDUCTIONS[reduction]}{attrs} : "
           f"{x.type}, {target.type} -> {out.type}")
    return out


@op("aten._local_scalar_dense.default", "aten.item.default")
def _item(t, node, meta_unused):
    x = t.plain(node, node.args[0])
    if x.rank:
        x = t.reshape(node, x, ())
    s = t.fresh()
    et = element_type(x.dtype)
    t.emit(f"{s} = tensor.extract {x.name}[] : {x.type}")
    val = node.meta.get("val")
    if isinstance(val, torch.SymInt):
        idx = t.fresh()
        t.emit(f"{idx} = arith.index_cast {s} : {et} to index")
        import sympy
        if isinstance(val.node.expr, sympy.Symbol):
            t.sizes[val.node.expr] = t.clamp_to_range(val.node.expr, idx,
                                                      None)
    return Scalar(s, et)


@op("operator.getitem")
def _getitem(t, node, meta):
    src = t.values.get(node.args[0])
    if not isinstance(src, list):
        t.unsupported(node, "indexing a value that is not a tuple of "
                      "results")
    return src[node.args[1]]


SUPPORTED = sorted(set(HANDLERS) | SIZE_OPS)
