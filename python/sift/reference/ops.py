"""NumPy references of the sift ops, written from their ODS contracts.

Each function here implements the `description` of one op in
include/sift/Dialect/Sift/IR/SiftOps.td (and docs/Dialect.md), independently
of the C++ code. The conformance runner (test/Conformance) compares compiled
code against them; python/tests/test_reference_ops.py checks them against
NumPy idioms, hand-computed cases and, when it is installed, PyTorch.

Conventions:

* Inputs are NumPy arrays; `i1` is `np.bool_`, the other signless integers are
  NumPy's signed integers (sift compares integers as signed values).
* Index, count and permutation results are `np.int64`.
* Random ops take `seed` and `offset` as Python integers (64-bit, wrapping) and
  use the bit-exact Philox stream of `philox.py`.
* Orderings (`sort`, `argsort`, `topk`) use sift's total order: integers as
  signed values (`False < True`), floats with `-0.0 == +0.0` and every NaN
  equal to every other NaN and larger than every number. Sorts are stable in
  both directions. They are implemented with Python's stable `sorted` (whose
  `reverse=True` also keeps equal keys in input order) on explicit keys, not
  with NumPy's sort, so that the tests can check one against the other.
"""

import math

import numpy as np

from . import philox

MASK64 = (1 << 64) - 1

__all__ = [
    "nonzero", "unique", "masked_select", "randperm", "randperm_sort",
    "randperm_prefix", "count", "compact",
    "cumsum", "sort", "argsort", "topk", "gather", "scatter", "random_bits",
    "random_uniform", "sample_balanced", "cross_entropy", "order_key",
]


# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------

def _is_float(a):
    return np.issubdtype(np.asarray(a).dtype, np.floating)


def _nonzero_mask(x):
    """`x != 0` with sift's meaning: NaN is non-zero, +-0.0 is zero."""
    x = np.asarray(x)
    if x.dtype == np.bool_:
        return x.copy()
    # IEEE `!=` is true for NaN and false for -0.0 == 0.0, as required.
    return x != 0


def _axis(dim, rank):
    if rank < 1:
        raise ValueError("the input must have rank at least 1")
    if not -rank <= dim < rank:
        raise ValueError("dim %d out of range for rank %d" % (dim, rank))
    return dim + rank if dim < 0 else dim


def order_key(v):
    """The sort key of one element in sift's total order."""
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return (1, 0.0)
        return (0, f + 0.0)  # -0.0 + 0.0 == +0.0; they compare equal anyway
    return (0, int(v))


def _stable_order(row, descending):
    """Indices that sort a 1-D sequence stably in sift's total order."""
    keys = [order_key(v) for v in row]
    return sorted(range(len(keys)), key=lambda i: keys[i], reverse=descending)


def _rows_along(x, axis):
    """x with `axis` moved last, reshaped to [rows, n]."""
    moved = np.moveaxis(x, axis, -1)
    n = moved.shape[-1]
    rows = int(np.prod(moved.shape[:-1], dtype=np.int64))
    return moved, moved.reshape(rows, n)


# ----------------------------------------------------------------------------
# Data-dependent ops
# ----------------------------------------------------------------------------

def nonzero(x):
    """`sift.nonzero`: row-major coordinates of the non-zero elements.

    A 1-D input gives `[n]` flat indices; rank R >= 2 gives `[n, R]`.
    """
    x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError("sift.nonzero needs an input of rank >= 1")
    m = _nonzero_mask(x).reshape(-1)
    flat = [i for i in range(m.size) if m[i]]
    if x.ndim == 1:
        return np.array(flat, dtype=np.int64)
    out = np.zeros((len(flat), x.ndim), dtype=np.int64)
    for r, f in enumerate(flat):
        for d in range(x.ndim - 1, -1, -1):
            out[r, d] = f % x.shape[d]
            f //= x.shape[d]
    return out


def unique(x, return_inverse=False, return_counts=False):
    """`sift.unique` of the flattened input: ascending distinct values.

    All NaNs are one value, sorted last; -0.0 and +0.0 are one value (the
    representative is the first of them in input order, which is what a stable
    sort followed by "differs from the previous" gives). Returns `values`, or a
    tuple with `inverse` (input's shape) and/or `counts` (1-D), in that order.
    """
    x = np.asarray(x)
    flat = x.reshape(-1)
    order = _stable_order(flat, descending=False)
    values, counts = [], []
    inverse = np.zeros(flat.size, dtype=np.int64)
    prev = None
    for i in order:
        k = order_key(flat[i])
        if prev is None or k != prev:
            values.append(flat[i])
            counts.append(0)
            prev = k
        counts[-1] += 1
        inverse[i] = len(values) - 1
    vals = np.array(values, dtype=x.dtype).reshape(len(values))
    out = [vals]
    if return_inverse:
        out.append(inverse.reshape(x.shape))
    if return_counts:
        out.append(np.array(counts, dtype=np.int64))
    return out[0] if len(out) == 1 else tuple(out)


def masked_select(x, mask):
    """`sift.masked_select`: sub-tensors of `x` where `mask` (the leading
    dimensions of `x`) is true, stacked in row-major order of the mask."""
    x = np.asarray(x)
    mask = np.asarray(mask)
    if mask.dtype != np.bool_:
        raise TypeError("the mask must be i1 (bool)")
    r = mask.ndim
    if r < 1 or tuple(x.shape[:r]) != tuple(mask.shape):
        raise ValueError("mask shape %s is not the leading dimensions of %s"
                         % (mask.shape, x.shape))
    tail = x.shape[r:]
    rows = x.reshape((int(np.prod(mask.shape, dtype=np.int64)),) + tail)
    flat = mask.reshape(-1)
    picked = [rows[i] for i in range(flat.size) if flat[i]]
    out = np.zeros((len(picked),) + tail, dtype=x.dtype)
    for j, row in enumerate(picked):
        out[j] = row
    return out


def randperm_sort(n, seed, offset=0):
    """`sift.randperm ... sort`: stable ascending argsort of the first `n`
    unsigned 32-bit words of the stream (seed, offset)."""
    if n < 0:
        raise ValueError("randperm needs n >= 0")
    return np.array(philox.randperm(n, seed, offset), dtype=np.int64)


_M32 = 0xFFFFFFFF


def _fmix32(h):
    """MurmurHash3's 32-bit finalizer, on uint64 arrays holding 32-bit values."""
    h = h ^ (h >> 16)
    h = (h * 0x85EBCA6B) & _M32
    h = h ^ (h >> 13)
    h = (h * 0xC2B2AE35) & _M32
    return h ^ (h >> 16)


def randperm(n, seed, offset=0, count=None):
    """`sift.randperm` (without `sort`): element j is P(j), P(P(j)), ... the
    first below n, where P is six rounds of an unbalanced Feistel network on
    b = max(8, ceil(log2 n)) bits keyed by words 0..5 of the stream (seed,
    offset). `count` elements (default n; at most n)."""
    if n < 0:
        raise ValueError("randperm needs n >= 0")
    if n > 1 << 32:
        raise ValueError("the Feistel randperm needs n <= 2^32")
    count = n if count is None else min(count, n)
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    keys = [int(k) for k in philox.words(seed, offset, 6)]
    b = max(8, (n - 1).bit_length())
    left, right = b // 2, b - b // 2

    def rounds(x):
        for i, k in enumerate(keys):
            hl, hr = (left, right) if i % 2 == 0 else (right, left)
            c = x & ((1 << hr) - 1)
            a = x >> hr
            f = _fmix32(c ^ k)
            x = (c << hl) | ((a ^ f) & ((1 << hl) - 1))
        return x

    x = rounds(np.arange(count, dtype=np.uint64))
    out = x >= n
    while out.any():
        x[out] = rounds(x[out])
        out = x >= n
    return x.astype(np.int64)


def randperm_prefix(n, seed, k, offset=0, limit=None):
    """`sift.randperm_prefix`: per line, the first k lanes of the Feistel
    permutation of [0, n), -1 past n and past `limit`. `n`, `seed`, `offset`
    and `limit` are scalars or arrays: n and limit of the lines' shape, seed
    and offset of a prefix of it."""
    n = np.asarray(n, dtype=np.int64)
    seed = np.asarray(seed, dtype=np.int64)
    offset = np.asarray(offset, dtype=np.int64)
    limit = np.asarray(k if limit is None else limit, dtype=np.int64)
    lines = max((n.shape, seed.shape, offset.shape, limit.shape), key=len)
    out = np.full(tuple(lines) + (k,), -1, dtype=np.int64)
    for line in np.ndindex(*lines):
        def at(a):
            return int(a[line[:a.ndim]]) if a.ndim else int(a)
        m = min(max(at(n), 0), 1 << 32)
        row = randperm(m, at(seed) & ((1 << 64) - 1), at(offset),
                       count=max(0, min(k, at(limit))))
        out[line][:len(row)] = row
    return out


# ----------------------------------------------------------------------------
# Static primitives
# ----------------------------------------------------------------------------

def count(x):
    """`sift.count`: non-zero elements along the last axis (NaN counts)."""
    x = np.asarray(x)
    if x.ndim < 1:
        raise ValueError("sift.count needs rank >= 1")
    m = _nonzero_mask(x)
    out = np.zeros(x.shape[:-1], dtype=np.int64)
    for idx in np.ndindex(*x.shape[:-1]):
        out[idx] = sum(1 for v in m[idx] if v)
    return out


def compact(mask, k, fill=-1):
    """`sift.compact`: per row of the last axis, the indices of the true lanes
    (increasing) in lanes 0..count-1, `fill` elsewhere; count = min(total, k).
    Returns (indices [B..., k], count [B...])."""
    mask = np.asarray(mask)
    if mask.dtype != np.bool_:
        raise TypeError("the mask must be i1 (bool)")
    if mask.ndim < 1:
        raise ValueError("sift.compact needs rank >= 1")
    if k < 0:
        raise ValueError("k must be >= 0")
    batch = mask.shape[:-1]
    idx = np.full(batch + (k,), fill, dtype=np.int64)
    cnt = np.zeros(batch, dtype=np.int64)
    for b in np.ndindex(*batch):
        lanes = [i for i, v in enumerate(mask[b]) if v][:k]
        idx[b][:len(lanes)] = lanes
        cnt[b] = len(lanes)
    return idx, cnt


def cumsum(x, dim=-1, exclusive=False, dtype=None):
    """`sift.cumsum`: inclusive (or exclusive) prefix sum along `dim`.

    The result has the input's element type; for an `i1` input `dtype` must
    name a wider integer type (np.int32 or np.int64). Integer sums wrap. Float
    sums are accumulated sequentially in the element type.
    """
    x = np.asarray(x)
    axis = _axis(dim, x.ndim)
    if x.dtype == np.bool_:
        if dtype is None or not np.issubdtype(np.dtype(dtype), np.integer):
            raise ValueError("an i1 cumsum needs an integer result dtype")
        out_dtype = np.dtype(dtype)
    else:
        if dtype is not None and np.dtype(dtype) != x.dtype:
            raise ValueError("the result type must equal the input's")
        out_dtype = x.dtype
    src = np.moveaxis(x.astype(out_dtype), axis, -1)
    out = np.zeros(src.shape, dtype=out_dtype)
    acc = np.zeros(src.shape[:-1], dtype=out_dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(src.shape[-1]):
            if exclusive:
                out[..., i] = acc
                acc = (acc + src[..., i]).astype(out_dtype)
            else:
                acc = (acc + src[..., i]).astype(out_dtype)
                out[..., i] = acc
    return np.moveaxis(out, -1, axis)


def sort(x, dim=-1, descending=False):
    """`sift.sort`: (values, indices), stable in both directions, NaN
    largest, -0.0 == +0.0."""
    x = np.asarray(x)
    axis = _axis(dim, x.ndim)
    moved, rows = _rows_along(x, axis)
    vals = np.empty_like(rows)
    idxs = np.empty(rows.shape, dtype=np.int64)
    for r in range(rows.shape[0]):
        order = _stable_order(rows[r], descending)
        idxs[r] = order
        vals[r] = rows[r][order] if order else rows[r]
    vals = np.moveaxis(vals.reshape(moved.shape), -1, axis)
    idxs = np.moveaxis(idxs.reshape(moved.shape), -1, axis)
    return vals, idxs


def _as_unsigned(x):
    """The integers of `x` as the unsigned integers of their bits (the order
    of an argsort or top-k marked `unsigned`)."""
    x = np.asarray(x)
    if x.dtype.kind not in "iu":
        raise ValueError("an unsigned order needs integers, not %s" % x.dtype)
    return x.view(np.dtype("u%d" % x.dtype.itemsize))


def argsort(x, dim=-1, descending=False, unsigned=False):
    """`sift.argsort`: the indices of `sort`; with `unsigned`, of the
    integers compared as unsigned."""
    return sort(_as_unsigned(x) if unsigned else x, dim, descending)[1]


def topk(x, k, dim=-1, smallest=False, unsigned=False):
    """`sift.topk` (sorted form): the k best along `dim`, best first; ties go
    to the lower index; NaN is the largest value; with `unsigned`, integers
    compare as unsigned. Returns (values, indices). For `unsorted`, compare
    the same set of (value, index) pairs."""
    x = np.asarray(x)
    axis = _axis(dim, x.ndim)
    if not 0 <= k <= x.shape[axis]:
        raise ValueError("k = %d outside [0, %d]" % (k, x.shape[axis]))
    # Largest first = stable descending sort (lower index first among ties,
    # NaN first); smallest first = stable ascending (NaN last).
    _, idxs = sort(_as_unsigned(x) if unsigned else x, axis,
                   descending=not smallest)
    sl = [slice(None)] * x.ndim
    sl[axis] = slice(0, k)
    idxs = idxs[tuple(sl)].copy()
    return np.take_along_axis(x, idxs, axis), idxs


def gather(source, indices, batch_dims=0, fill=0):
    """`sift.gather` (tf.gather with axis = batch_dims):
    result[b..., i..., d...] = source[b..., indices[b..., i...], d...], and
    `fill` where the index is outside [0, n) (no wrap-around)."""
    source = np.asarray(source)
    indices = np.asarray(indices)
    b = batch_dims
    if not 0 <= b < source.ndim or indices.ndim < b:
        raise ValueError("bad batch_dims %d for ranks %d, %d"
                         % (b, source.ndim, indices.ndim))
    if source.shape[:b] != indices.shape[:b]:
        raise ValueError("batch dimensions differ")
    n = source.shape[b]
    tail = source.shape[b + 1:]
    out = np.empty(indices.shape + tail, dtype=source.dtype)
    for pos in np.ndindex(*indices.shape):
        j = int(indices[pos])
        if 0 <= j < n:
            out[pos] = source[pos[:b] + (j,)]
        else:
            out[pos] = fill
    return out


_SCATTER_COMBINE = {"add": np.add, "max": np.maximum, "min": np.minimum}


def scatter(dest, indices, updates, batch_dims=0, reduce="none"):
    """`sift.scatter` (the dual of `gather`): a copy of `dest` where, for
    every lane p = (b..., i...) of `indices` in row-major order with
    j = indices[p] in [0, n), result[b..., j, d...] becomes
    updates[p, d...] (`none`: the last such lane wins) or
    combine(result[b..., j, d...], updates[p, d...]) with np.add,
    np.maximum or np.minimum; other lanes are skipped."""
    dest = np.asarray(dest)
    indices = np.asarray(indices)
    updates = np.asarray(updates)
    b = batch_dims
    if not 0 <= b < dest.ndim or indices.ndim < b:
        raise ValueError("bad batch_dims %d for ranks %d, %d"
                         % (b, dest.ndim, indices.ndim))
    if dest.shape[:b] != indices.shape[:b]:
        raise ValueError("batch dimensions differ")
    if updates.shape != indices.shape + dest.shape[b + 1:]:
        raise ValueError("updates shape %s, expected %s" % (
            updates.shape, indices.shape + dest.shape[b + 1:]))
    if reduce != "none" and reduce not in _SCATTER_COMBINE:
        raise ValueError("unknown reduce %r" % reduce)
    n = dest.shape[b]
    out = dest.copy()
    valid = (indices >= 0) & (indices < n)
    if reduce == "none":
        for pos in np.ndindex(*indices.shape):
            if valid[pos]:
                out[pos[:b] + (int(indices[pos]),)] = updates[pos]
        return out
    # ufunc.at applies its operation once per lane, in lane order, repeated
    # indices included (integers wrap).
    lanes = np.nonzero(valid)
    target = lanes[:b] + (indices[lanes],)
    with np.errstate(over="ignore", invalid="ignore"):
        _SCATTER_COMBINE[reduce].at(out, target, updates[lanes])
    return out


def random_bits(seed, shape, dtype=np.int32, offset=0):
    """`sift.random_bits`: the Philox stream as i32 (word i) or i64 (words 2i
    low, 2i+1 high), row-major, two's complement."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == np.int32:
        u = np.array(philox.random_bits(seed, offset, n, 32), dtype=np.uint32)
    elif dtype == np.int64:
        u = np.array(philox.random_bits(seed, offset, n, 64), dtype=np.uint64)
    else:
        raise ValueError("random_bits is i32 or i64, not %s" % dtype)
    return u.view(dtype).reshape(shape)


def _truncate_to(values64, dtype):
    """Rounds non-negative float64 values toward zero into `dtype`."""
    out = values64.astype(dtype)  # round to nearest...
    too_big = out.astype(np.float64) > values64
    # ...then step down one ulp where that rounded up.
    out[too_big] = np.nextafter(out[too_big], dtype.type(0))
    return out


def random_uniform(seed, shape, dtype=np.float32, offset=0):
    """`sift.random_uniform`: floats in [0, 1).

    f32/f16/bf16: (w >> 8) * 2^-24 from word i, rounded toward zero to the
    type; f64: ((hi >> 11) * 2^32 + lo) * 2^-53 from words 2i, 2i+1. Pass
    dtype="bfloat16" for bf16: NumPy has no such type, so the values come
    back as float32 holding exactly the bf16 values (low 16 bits zero).
    """
    n = int(np.prod(shape, dtype=np.int64))
    if isinstance(dtype, str) and dtype == "bfloat16":
        f = np.array(philox.random_uniform(seed, offset, n, 32),
                     dtype=np.float32)
        bits = f.view(np.uint32) & np.uint32(0xFFFF0000)
        return bits.view(np.float32).reshape(shape)
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        return np.array(philox.random_uniform(seed, offset, n, 64),
                        dtype=np.float64).reshape(shape)
    if dtype in (np.float32, np.float16):
        v = np.array(philox.random_uniform(seed, offset, n, 32),
                     dtype=np.float64)
        return _truncate_to(v, dtype).reshape(shape)
    raise ValueError("random_uniform has no %s form" % dtype)


# ----------------------------------------------------------------------------
# Sampling and loss
# ----------------------------------------------------------------------------

def sample_balanced(labels, seed, num_samples, positive_fraction=0.5,
                    ignore_label=-1, negative_label=0, offset=0):
    """`sift.sample_balanced` (Detectron2's subsample_labels, keyed).

    Per row r (row-major over the batch dimensions): item j's key is word j
    of the stream (seed, offset + r) as an unsigned 32-bit integer. Positives
    (labels neither ignore nor negative) and negatives (== negative_label)
    each take their items with the smallest keys, ties to the lower index, in
    increasing key order; num_pos = min(P, floor(num_samples * fraction)),
    num_neg = min(Q, num_samples - num_pos). Returns (indices [B...,
    num_samples], positives then negatives then -1; count [B...]).
    """
    labels = np.asarray(labels)
    if labels.ndim < 1:
        raise ValueError("labels need rank >= 1")
    if num_samples < 0 or not 0.0 <= positive_fraction <= 1.0:
        raise ValueError("bad num_samples or positive_fraction")
    if ignore_label == negative_label:
        raise ValueError("ignore_label must differ from negative_label")
    batch = labels.shape[:-1]
    n = labels.shape[-1]
    idx = np.full(batch + (num_samples,), -1, dtype=np.int64)
    cnt = np.zeros(batch, dtype=np.int64)
    # Python float arithmetic is IEEE double, as the f64 attribute.
    pos_quota = int(math.floor(num_samples * positive_fraction))
    for r, b in enumerate(np.ndindex(*batch)):
        row = [int(v) for v in labels[b]]
        keys = philox.words(seed, (offset + r) & MASK64, n)
        pos = [j for j in range(n)
               if row[j] != ignore_label and row[j] != negative_label]
        neg = [j for j in range(n) if row[j] == negative_label]
        num_pos = min(len(pos), pos_quota)
        num_neg = min(len(neg), num_samples - num_pos)
        pos = sorted(pos, key=lambda j: (keys[j], j))[:num_pos]
        neg = sorted(neg, key=lambda j: (keys[j], j))[:num_neg]
        chosen = pos + neg
        idx[b][:len(chosen)] = chosen
        cnt[b] = len(chosen)
    return idx, cnt


def cross_entropy(logits, targets, weight=None, reduction="mean",
                  ignore_index=-100, label_smoothing=0.0):
    """`sift.cross_entropy` with classes last (PyTorch's formula).

    Computed in float64 and returned in the logits' type. Per element with
    target t (not ignored): (1-s)*w[t]*(lse - x_t) + (s/C)*sum_c w[c]*(lse -
    x_c); like PyTorch, the smoothing term exists only when s > 0. Ignored
    elements are exactly 0 and leave the mean. `mean` divides the sum by the
    sum of w[t] over the non-ignored elements (NaN when all are ignored).
    A target outside [0, C) that is not ignore_index raises ValueError.
    """
    logits = np.asarray(logits)
    targets = np.asarray(targets)
    if logits.ndim < 1 or targets.shape != logits.shape[:-1]:
        raise ValueError("targets must be the logits' shape without C")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError("label_smoothing outside [0, 1]")
    if reduction not in ("none", "sum", "mean"):
        raise ValueError("unknown reduction %r" % (reduction,))
    c = logits.shape[-1]
    x = logits.astype(np.float64)
    w = (np.ones(c) if weight is None
         else np.asarray(weight).astype(np.float64))
    if w.shape != (c,):
        raise ValueError("weight must be [C]")
    s = float(label_smoothing)
    loss = np.zeros(targets.shape, dtype=np.float64)
    wsum = 0.0
    with np.errstate(all="ignore"):
        for pos in np.ndindex(*targets.shape):
            t = int(targets[pos])
            if t == ignore_index:
                continue
            if not 0 <= t < c:
                raise ValueError("target %d outside [0, %d)" % (t, c))
            row = x[pos]
            m = np.max(row) if c else -np.inf
            lse = m + np.log(np.sum(np.exp(row - m)))
            nll = lse - row  # -log_softmax
            value = (1.0 - s) * w[t] * nll[t]
            if s > 0:
                value += (s / c) * np.sum(w * nll)
            loss[pos] = value
            wsum += w[t]
        if reduction == "none":
            out = loss
        elif reduction == "sum":
            out = np.array(np.sum(loss))
        else:
            # 0/0 is NaN when every target is ignored, as in PyTorch.
            out = np.array(np.float64(np.sum(loss)) / np.float64(wsum))
    return out.astype(logits.dtype)
