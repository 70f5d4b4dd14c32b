"""sift.torch's op table, one overload family at a time: the MLIR each
emits (the op it becomes), and the compiled function against eager PyTorch
(exact for integer, index and boolean results; a tight tolerance for
floats)."""

import re

import pytest

import sift

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
st = pytest.importorskip("sift.torch", reason="sift.torch needs PyTorch")

G = torch.Generator().manual_seed(15)


def randn(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=G, dtype=dtype)


def randint(lo, hi, *shape):
    return torch.randint(lo, hi, shape, generator=G)


def _same(got, want):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    if isinstance(want, int):  # A returned size: a rank-0 int64 tensor.
        assert got.shape == () and int(got) == want
        return
    assert isinstance(got, torch.Tensor), type(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.is_floating_point:
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6,
                                   equal_nan=True)
    else:
        assert torch.equal(got, want), (got, want)


def check(fn, args, emits=(), trials=()):
    """fn's MLIR holds each pattern of `emits`; compiled, it matches eager
    on args and on each tuple of `trials`."""
    compiled = st.compile(fn, args)
    for pattern in emits:
        assert re.search(pattern, compiled.mlir), (pattern, compiled.mlir)
    for case in (args,) + tuple(trials):
        _same(compiled(*case), fn(*case))
    return compiled


# -- elementwise ----------------------------------------------------------

def test_comparisons_tensor_and_scalar():
    def f(x, y, i):
        return (x < y, x >= 0.5, x == y, x != 0, i > 1, i <= y.to(torch.int64),
                i.eq(2))
    x = randn(6, 3)
    check(f, (x, x.flip(0), randint(0, 4, 6, 3)),
          emits=[r"arith\.cmpf olt", r"arith\.cmpf oge", r"arith\.cmpi sgt",
                 r"arith\.cmpi sle"])


def test_broadcasting_arithmetic_with_promotion():
    def f(x, row, col, n):
        return (x + row, x * col - 1, n * 2.5, n + row.to(torch.int32),
                x / n, n // 3, (n - 7) % 3, 2 - x)
    x, row, col = randn(4, 3), randn(3), randn(4, 1)
    n = randint(-9, 9, 4, 3)
    check(f, (x, row, col, n),
          emits=[r"linalg\.broadcast", r"arith\.sitofp", r"arith\.divf",
                 r"arith\.floordivsi", r"arith\.remsi", r"arith\.subf"])


def test_float64_and_int32_promotion():
    def f(a, b, c):
        return a * b, c + 1, (c * b).sum()
    a = randn(5, dtype=torch.float64)
    b = randn(5)
    c = torch.arange(5, dtype=torch.int32)
    check(f, (a, b, c), emits=[r"arith\.extf"])


def test_unary_math_and_minmax():
    def f(x, y, i):
        return (torch.exp(x), torch.log(x.abs() + 1), torch.sqrt(x * x),
                -x, -i, i.abs(), torch.maximum(x, y), torch.minimum(i, 2 * i),
                torch.sigmoid(x), torch.floor(x * 3))
    check(f, (randn(7), randn(7), randint(-5, 5, 7)),
          emits=[r"math\.exp", r"math\.absi", r"arith\.maximumf",
                 r"arith\.minsi"])


def test_logical_and_bitwise():
    def f(x, i):
        a, b = x > 0, x < 0.5
        return (a & b, a | b, ~a, torch.logical_not(i), torch.logical_and(i, a),
                i & 6, i ^ 3)
    check(f, (randn(9), randint(0, 8, 9)),
          emits=[r"arith\.andi", r"arith\.ori", r"arith\.xori"])


def test_where_and_clamp():
    def f(x, i):
        return (torch.where(x > 0, x, 0.0), torch.where(i > 2, i, x),
                torch.where(x > 0, 1, -1), x.clamp(-0.5, 0.5),
                i.clamp(min=1), i.clamp(max=3), x.clamp(min=0))
    check(f, (randn(4, 5), randint(0, 6, 4, 5)),
          emits=[r"arith\.select", r"arith\.minimumf", r"arith\.maxsi"])


def test_conversions_and_constants():
    def f(x, i):
        return (i.float(), x.to(torch.int64), (x > 0).to(torch.int32),
                i.to(torch.bool), torch.zeros_like(x) + 1,
                torch.full((3,), 7), torch.arange(5) * 2 + 1)
    check(f, (randn(5) * 3, randint(-2, 3, 5)),
          emits=[r"arith\.fptosi", r"arith\.extui", r"linalg\.generic"])


# -- shapes ---------------------------------------------------------------

def test_reshapes_slices_select_cat():
    def f(x, v):
        return (x.unsqueeze(0).squeeze(0), x.flatten(), x.view(2, 6),
                x[:, 1:3], x[1], x[:, -1], v[2:7:2], x.reshape(-1)[-4:],
                torch.cat([v, v[:3]]), torch.cat([x, x], dim=1),
                v.unsqueeze(1).expand(10, 2))
    check(f, (randn(3, 4), randn(10)),
          emits=[r"tensor\.expand_shape", r"tensor\.collapse_shape",
                 r"tensor\.extract_slice", r"tensor\.concat dim\(1\)"])


# -- reductions -----------------------------------------------------------

def test_reductions():
    def f(x, i, m):
        return (x.sum(), x.sum(0), x.sum(1, keepdim=True), i.sum(), m.sum(1),
                x.amax(1), x.amin(0), i.max(), x.mean(), x.mean(1),
                torch.count_nonzero(m, dim=1))
    check(f, (randn(4, 6), randint(-3, 9, 4, 6), randn(4, 6) > 0),
          emits=[r"linalg\.reduce", r"arith\.maximumf", r"sift\.count"])


def test_a_sum_of_a_mask_is_a_count_that_bounds_a_size():
    # `mask.sum()` becomes sift.count, bounded by the mask's extent, so a
    # size made from it (`arange(n)`, `x.narrow(0, 0, n)`) has a bound.
    def f(x):
        n = (x > 0).sum().item()
        return (torch.arange(n) * 2, x.narrow(0, 0, n),
                (x.reshape(4, 5) > 0).sum(), (x.reshape(4, 5) > 0).sum(1),
                (x.reshape(4, 5) > 0).sum(0, keepdim=True))
    x = randn(20)
    c = check(f, (x,), emits=[r"sift\.count \S+ : tensor<20xi1> -> "
                              r"tensor<i64>"],
              trials=[(torch.zeros(20),), (torch.ones(20),)])
    assert c.function.signature.results[0].data.shape == (20,)


def test_any_all_and_nan_tests():
    def f(x, i):
        m = x.reshape(4, 5)
        return ((m > 1).any(), (m > -1).all(), (m > 0).any(1),
                (m > 0).all(0, keepdim=True), i.any(), x[x > 9].any(),
                x[x > 9].all(), torch.isnan(x), torch.isinf(x),
                torch.isfinite(x), torch.isposinf(x), torch.isneginf(x),
                torch.isfinite(i))
    x = randn(20)
    x[3], x[7], x[11] = float("nan"), float("inf"), float("-inf")
    check(f, (x, randint(0, 2, 6)), emits=[r"arith\.ori", r"arith\.andi",
                                            r"arith\.cmpf uno"],
          trials=[(torch.zeros(20), torch.zeros(6, dtype=torch.int64))])


def test_argmax_argmin_and_max_min_along_a_dim():
    # The first position of the extreme, NaN counting as the extreme (as
    # PyTorch's); max.dim returns torch's named (values, indices).
    def f(x):
        m = x.reshape(6, 5)
        return (m.argmax(1), m.argmin(0, keepdim=True), x.argmax(),
                m.argmin(), m.max(dim=1), m.min(dim=0, keepdim=True),
                x[x > 0].argmax())
    ties = randint(-2, 3, 30).float()
    nans = randn(30)
    nans[4] = nans[17] = nans[23] = float("nan")
    c = check(f, (randn(30),), trials=[(ties,), (nans,)])
    assert type(c(ties)[4]) is torch.return_types.max
    assert c(ties)[4].indices.dtype == torch.int64

    def g(i):
        return i.reshape(3, 4).max(1), i.argmin()
    zeros = torch.zeros(12, dtype=torch.int64)
    check(g, (randint(-5, 5, 12),), trials=[(zeros,)])


def test_flip_of_static_and_selected_rows():
    def f(x):
        m = x.reshape(5, 4)
        return (torch.flip(m, [1]), torch.flip(m, [0, 1]),
                torch.flip(x[x > 0], [0]),
                torch.flip(m[m[:, 0] > 0], [0, 1]))
    check(f, (randn(20),), trials=[(torch.zeros(20),), (torch.ones(20),)])
    # Batched, the flips run after the row kernels (--sift-fuse keeps
    # reversed reads out of them: upstream's tiling slices them wrongly).
    rows = torch.stack([randn(20), torch.zeros(20), randn(20)])
    got = st.compile(f, (rows[0],), batch=3)(rows)
    for r in range(3):
        _same([g[r] for g in got], list(f(rows[r])))


def test_powers_relu_softmax():
    def f(x, i):
        return (x ** 2, x ** 3, x ** -1, x.abs() ** 0.5, x.abs() ** 1.7,
                torch.pow(x.abs(), x), i ** 3, i ** 0, torch.relu(x),
                torch.relu(i), torch.softmax(x.reshape(4, 5), dim=1),
                torch.softmax(x.reshape(4, 5), dim=0))
    check(f, (randn(20), randint(-40, 40, 6)), emits=[r"math\.powf"])


def test_slices_of_computed_starts_and_ends():
    # Python's clamping: a start from `.item()` may be negative (from the
    # end) or past the end.
    def f(x, a, b):
        s, e = a.item(), b.item()
        return x[s:], x[:e], x[s:e], x[s::3], torch.sort(x).values[s:]
    x = randn(10)
    trials = [(x, torch.tensor(a), torch.tensor(b))
              for a, b in ((0, 10), (-3, -1), (12, 4), (-20, 30), (7, 2),
                           (10, 10))]
    check(f, trials[0], trials=trials[1:])


def test_ops_torch_decomposes_masked_fill_narrow_argwhere():
    # Ops without a handler that PyTorch's decompositions turn into ones
    # with (masked_fill, narrow, argwhere, index_put of a mask).
    def f(x):
        y = x.masked_fill(x < 0, 0.0)
        z = x.clone()
        z[z > 1] = 1.0
        return (y[y > 0.5], z, torch.argwhere(x.reshape(4, 5) > 0.5),
                x.narrow(0, 2, 5))
    check(f, (randn(20),), trials=[(torch.zeros(20),)])


def test_searchsorted_bucketize_and_repeat_interleave():
    # PyTorch's binary search on whole tensors (a sift.gather of the
    # middle elements a step): both sides, int32 results, NaN (largest, as
    # PyTorch's search) and infinities, repeated boundaries, a sorted row
    # per row of values, integers, a number, values of a selection;
    # repeat_interleave(repeats, output_size=) searches the running totals
    # of the repeats (zeros among them) and gathers.
    def f(x, b, rows, v, ib, iv, r):
        return (torch.searchsorted(b, x), torch.searchsorted(b, x, right=True),
                torch.searchsorted(b, x, side="right", out_int32=True),
                torch.bucketize(x, b), torch.bucketize(x, b, right=True),
                torch.searchsorted(rows, v), torch.searchsorted(ib, iv),
                torch.searchsorted(b, x[x > 0.3]),
                v.repeat_interleave(r, dim=1, output_size=40),
                torch.repeat_interleave(r, output_size=40))

    def case(nan=False):
        x = randn(30)
        x[:4] = torch.tensor([0.5, -float("inf"), float("inf"), 0.1])
        if nan:
            x[5] = float("nan")
        b = torch.tensor([-1.0, 0.1, 0.5, 0.5, 0.9, 1.5])
        rows = randn(3, 8).sort(dim=1).values
        r = torch.bincount(randint(0, 10, 40), minlength=10)  # sums to 40
        return (x, b, rows, randn(3, 10), torch.tensor([0, 2, 2, 5, 9]),
                randint(-1, 11, 7), r)

    check(f, case(), emits=[r"sift\.gather", r"sift\.cumsum"],
          trials=[case(nan=True), case()])


def test_pad_diff_and_nan_to_num():
    F = torch.nn.functional

    def f(x, i, b):
        return (F.pad(x, (1, 2), value=0.5), F.pad(x, (0, 0, 2, 1)),
                torch.diff(x, dim=0), torch.diff(i),
                torch.diff(i, n=2, prepend=torch.zeros(3, 1,
                                                       dtype=torch.long)),
                torch.diff(b), torch.diff(x, append=x[:, :1]),
                torch.nan_to_num(x.log()),
                torch.nan_to_num(x.log(), nan=-1.0, posinf=9.0, neginf=-9.0),
                torch.nan_to_num(i))
    x = randn(4, 5)
    x[0, 0], x[1, 1] = 0.0, float("inf")
    check(f, (x, randint(-5, 5, 3, 6), randn(7) > 0),
          emits=[r"tensor\.insert_slice", r"arith\.xori"])


def test_ops_decomposed_a_level_at_a_time():
    # Core ATen ops that export keeps whole and whose own decompositions
    # reach ops with handlers (layer_norm and group_norm through var_mean,
    # gelu through erf, roll through fmod, chunk through split, ...), and
    # the handlers those needed.
    F = torch.nn.functional

    def f(x, ids, i):
        return (F.layer_norm(x, (6,)),
                F.group_norm(x.reshape(2, 4, 3), 2),
                F.gelu(x), F.gelu(x, approximate="tanh"), F.leaky_relu(x),
                F.elu(x), F.hardtanh(x), F.silu(x), torch.erf(x),
                torch.sign(x), torch.sign(i), torch.fmod(x, 0.7),
                torch.fmod(i, 3), torch.roll(x, 2, 1), torch.chunk(x, 4, 1),
                torch.split(x, [2, 4], 1), F.embedding(ids, x),
                F.hinge_embedding_loss(x, torch.sign(x)),
                torch.var_mean(x, dim=1), torch.atan2(x, x.flip(0)),
                torch.atan2(i, i.flip(1)),
                x.masked_scatter(x > 0, torch.arange(30.0)),
                i.masked_scatter(i[:1] > 0, -torch.arange(12).reshape(3, 4)),
                x.index_fill(1, torch.tensor([0, 4, -1]), -1.0), put(x))

    def put(x):  # x[:, idx] = v and +=, an index along dimension 1
        y = x.clone()
        y[:, torch.tensor([1, -2])] = x[:, :2] * 2
        y[:, torch.tensor([3])] += 1.0
        return y
    x = randn(4, 6)
    x[0, :3] = torch.tensor([0.0, float("nan"), -0.0])
    check(f, (x, randint(0, 4, 5), randint(-7, 7, 3, 4)),
          emits=[r"math\.erf", r"arith\.remf", r"math\.atan2"])


def test_stack_prod_and_slice_assignment():
    # torch.stack has a handler (PyTorch's decomposition reshapes a flat
    # concatenation, which cannot keep a data-dependent extent): stacks of
    # selections along either dimension. `x[a:b:c] = v` is a slice_scatter
    # (tensor.insert_slice); prod multiplies (integers and booleans in
    # int64, as PyTorch).
    def f(x, i, m):
        s = x[m]
        y = x.clone()
        y[2:8:3] = 0.5
        z = i.clone()
        z[:, 1:] = i[:, :-1]
        return (torch.stack([x, -x], dim=-1), torch.stack([s, s * 2]),
                torch.stack([s, s + 1], dim=1), y, z,
                torch.stack([x.sum(), x[x < 0].sum()]),
                torch.stack([x[:3], x[3:6]], dim=1),
                i.prod(), i.prod(1), x.reshape(4, 5).prod(0, keepdim=True),
                m.prod(), m.reshape(4, 5).prod(1))
    ones = torch.ones(20, dtype=torch.bool)
    check(f, (randn(20), randint(-3, 4, 3, 5), randn(20) > 0),
          emits=[r"arith\.muli", r"tensor\.insert_slice",
                 r"tensor\.concat dim\(1\)"],
          trials=[(randn(20), randint(-3, 4, 3, 5), ~ones),
                  (randn(20), randint(-3, 4, 3, 5), ones)])


def test_transposes_and_indexing_along_other_dimensions():
    def f(x, lab):
        cube = x.reshape(2, 4, 6)
        return (x.t(), x.t()[x.t()[:, 0] > 0], cube.permute(2, 0, 1),
                cube.transpose(0, 2), torch.movedim(cube, 2, 0), x.T,
                cube.swapaxes(0, 1),
                torch.index_select(x, 1, torch.tensor([5, 0, 5])),
                x[:, torch.tensor([1, 3])],
                # Several index tensors: logits[arange(n), target], and an
                # index outside its dimension giving 0 (not another row).
                x[torch.arange(8), lab[:, 0]],
                x[lab[:, 0], torch.tensor(5)])
    x = randn(8, 6)
    lab = randint(0, 4, 8, 6)
    check(f, (x, lab), emits=[r"linalg\.transpose"])
    # An index outside its own dimension gives 0 (PyTorch raises for row
    # 9 of 8), not the element that its linear position would name.
    got = st.compile(lambda x: x[torch.tensor([0, 7, 9, 1]),
                                 torch.tensor([1, 1, 1, 6])], (x,))(x)
    _same(got[:2], x[[0, 7], 1])
    assert got[2:].tolist() == [0.0, 0.0]
    # A mask of a later dimension: its result is data-dependent along
    # dimension 1 (padded there, sift.bounded_dims), also through
    # elementwise ops, rows and reductions of it.
    check(lambda x: (x[:, x[0] > 0], x[:, x[0] > 0][1] % 3,
                     (x[:, x[0] > 0] * 2).sum(0)), (x,),
          trials=[(-x.abs(),), (x.abs() + 1,)])


# PyTorch warns of the variance of no rows (NaN, which sift gives too).
@pytest.mark.filterwarnings(r"ignore:var\(\)")
def test_variance_repeat_and_losses_of_other_shapes():
    F = torch.nn.functional

    def f(x, lab):
        keep = lab[:, 0] > 0
        return (x.var(dim=1), x.std(), x.var(0, unbiased=False, keepdim=True),
                torch.var(x, dim=(0, 1), correction=0), x[keep].var(0),
                x.flatten()[x.flatten() > 0].std(), x.repeat(2, 1),
                x[:2].repeat(1, 2, 3),
                # classes in dimension 1 of [N, C, L] logits
                F.cross_entropy(x.reshape(2, 6, 4), lab[:2, :4].clamp(max=5)),
                F.cross_entropy(x.reshape(2, 6, 4), lab[:2, :4].clamp(max=5),
                                reduction="none"),
                # nll_loss of rows selected from a log_softmax
                F.nll_loss(F.log_softmax(x, 1)[keep], lab[:, 1][keep]),
                F.nll_loss(F.log_softmax(x, 1)[torch.tensor([3, 1])],
                           lab[:2, 2], reduction="sum"))
    lab = randint(0, 4, 8, 6)
    check(f, (randn(8, 6), lab),
          emits=[r"sift\.cross_entropy \S+, \S+ reduction = mean : "
                 r"tensor<8x6xf32>"],
          trials=[(randn(8, 6), torch.zeros(8, 6, dtype=torch.int64))])


def test_uint8_inputs_results_and_wrapping_arithmetic():
    # uint8 (segmentation labels with 255 = ignore, byte masks) is carried
    # as int16 holding 0..255: comparisons, sorts and divisions stay
    # unsigned, arithmetic wraps modulo 256 as PyTorch's does.
    F = torch.nn.functional

    def f(u, seg, x):
        keep = seg != 255
        return (u[u > 128], u + 200, u * 3, -u, ~u, u - 100, u // 7, u % 9,
                u.float() / 2, u.sum(), u.max(), u.argmax(),
                torch.sort(u).values, torch.unique(u[u < 50]),
                (x[:, 0] * 100).to(torch.uint8), (u > 100).to(torch.uint8),
                u + torch.arange(u.numel(), dtype=torch.int8),
                F.cross_entropy(x[keep], seg[keep].long()))
    u = torch.randint(0, 256, (64,), dtype=torch.uint8, generator=G)
    seg = torch.randint(0, 4, (64,), dtype=torch.uint8, generator=G)
    seg[::5] = 255
    x = randn(64, 4)
    c = check(f, (u, seg, x), emits=[r"tensor<64xi16>"],
              trials=[(torch.full((64,), 255, dtype=torch.uint8), seg, x),
                      (torch.zeros(64, dtype=torch.uint8), seg, x)])
    pair = st.compile(f, (u, seg, x), trim=False)(u, seg, x)[0]
    assert pair.data.dtype == torch.uint8
    assert torch.equal(pair.trim(), u[u > 128])
    rows = torch.stack([u, 255 - u, u // 2])
    got = st.compile(lambda u: u[u > 128] + 100, (u,), batch=3)(rows)
    for r in range(3):
        _same(got[r], rows[r][rows[r] > 128] + 100)


def test_scatters_index_add_and_index_put():
    # All become sift.scatter (an index outside [0, n) would skip its lane).
    def f(x, lab):
        top = torch.topk(x, 3, dim=-1)
        y = x.clone()
        y[lab[:3] + 1] = 0.0
        return (torch.zeros_like(x).scatter(-1, top.indices, top.values),
                torch.zeros(6, 10).scatter(0, torch.argsort(x, 0)[:2], x[:2]),
                x.scatter(1, torch.argmax(x, 1, keepdim=True), -1.0),
                torch.zeros(4, dtype=torch.int64).scatter_add(
                    0, lab, torch.ones_like(lab)),
                torch.zeros(4).scatter_reduce(0, lab, x.flatten()[:20],
                                              "amax"),
                torch.zeros(4, 10).index_add(0, lab[:6], x, alpha=2.0),
                torch.zeros(6, 4).index_add(1, lab[:10], x), y,
                torch.zeros(4).index_put((lab,), x.flatten()[:20],
                                         accumulate=True))
    x, lab = randn(6, 10), randint(0, 4, 20)
    check(f, (x, lab), emits=[r"sift\.scatter \S+ into \S+\[\S+\] "
                              r"reduce\(add\)"],
          trials=[(randn(6, 10), torch.zeros(20, dtype=torch.int64))])
    rows = torch.stack([x, -x, 2 * x]), torch.stack([lab, lab.flip(0), lab])
    got = st.compile(f, (x, lab), batch=3)(*rows)
    for r in range(3):
        _same([g[r] for g in got], list(f(rows[0][r], rows[1][r])))


def test_matmul_linear_and_float_literals():
    F = torch.nn.functional

    def f(e, lab, w):
        sel = e[lab == 1]
        return (e @ w.t(), sel @ e.t(), e @ e[0], e[0] @ e[1],
                torch.bmm(e.reshape(3, 10, 8), e.reshape(3, 8, 10)),
                F.linear(sel, w, torch.arange(5.0)), F.linear(e[0], w),
                F.linear(e.reshape(3, 10, 8), w),
                torch.addmm(torch.ones(30, 5), e, w.t(), beta=0.5,
                            alpha=2.0),
                # 1e-12: MLIR's float literals need the point (1.0e-12).
                F.normalize(sel, dim=1), e.clamp(min=1e-12) * 1e20)
    e, lab, w = randn(30, 8), randint(0, 3, 30), randn(5, 8)
    check(f, (e, lab, w), emits=[r"linalg\.matmul", r"linalg\.batch_matmul",
                                 r"1\.0e-12"],
          trials=[(randn(30, 8), torch.ones(30, dtype=torch.int64), w)])


def test_assignments_through_boolean_masks():
    # x[mask] = v: v's rows in the mask's order (masked_scatter), or one
    # value for all; with a mask of two dimensions too.
    def f(x, m):
        y = x.clone()
        y[m] = x[m] * 2 + 1
        z = x.clone()
        z[m] = -1.0
        w = x.reshape(4, 5).clone()
        rows = w[:, 0] > 0
        w[rows] = w[rows].flip(1)
        v = x.reshape(4, 5).clone()
        v[m.reshape(4, 5)] = torch.arange(20.0)[m]
        return y, z, w, v
    x = randn(20)
    check(f, (x, x > 0), trials=[(x, torch.zeros(20, dtype=torch.bool)),
                                 (x, torch.ones(20, dtype=torch.bool))])


def test_random_draws_bernoulli_randint_randn():
    # Draws from sift's streams: their distribution, the HuggingFace MLM
    # collator's masking as written there.
    def mlm(inputs):
        labels = inputs.clone()
        probability_matrix = torch.full(labels.shape, 0.15)
        probability_matrix.masked_fill_(inputs < 10, value=0.0)
        masked_indices = torch.bernoulli(probability_matrix).bool()
        labels[~masked_indices] = -100
        indices_replaced = torch.bernoulli(
            torch.full(labels.shape, 0.8)).bool() & masked_indices
        inputs = inputs.clone()
        inputs[indices_replaced] = 4
        indices_random = torch.bernoulli(torch.full(
            labels.shape, 0.5)).bool() & masked_indices & ~indices_replaced
        random_words = torch.randint(1000, labels.shape, dtype=torch.long)
        inputs[indices_random] = random_words[indices_random]
        return inputs, labels
    ids = randint(5, 100, 64, 128)
    inp, lab = st.compile(mlm, (ids,))(ids, seed=1)
    masked = lab != -100
    eligible = float((ids >= 10).float().mean())
    assert abs(float(masked.float().mean()) - 0.15 * eligible) < 0.01
    assert torch.equal(lab[masked], ids[masked])
    assert not bool((masked & (ids < 10)).any())
    assert bool((inp == ids)[~masked].all())
    replaced = float(((inp == 4) & masked).sum()) / float(masked.sum())
    assert abs(replaced - 0.8) < 0.03

    def draws(x):
        return (torch.randn_like(x), torch.randint(-3, 4, (20000,)),
                torch.bernoulli(torch.full_like(x, 0.3)),
                # bernoulli(x, p): p, not x's values, is the probability.
                torch.bernoulli(x, 0.7),
                torch.randint_like(x, 2, 5))
    z, ri, be, bp, rl = st.compile(draws, (torch.zeros(100, 200),))(
        torch.zeros(100, 200), seed=5)
    assert abs(float(z.mean())) < 0.02 and abs(float(z.std()) - 1) < 0.02
    assert int(ri.min()) == -3 and int(ri.max()) == 3
    assert abs(float(ri.float().mean())) < 0.05
    assert be.dtype == torch.float32 and abs(float(be.mean()) - 0.3) < 0.01
    assert abs(float(bp.mean()) - 0.7) < 0.01
    assert rl.dtype == torch.float32 and float(rl.min()) == 2.0
    assert float(rl.max()) == 4.0 and abs(float(rl.mean()) - 3.0) < 0.02


def test_multinomial_with_and_without_replacement():
    # Draws from sift's streams: frequencies follow the weights (a zero
    # weight is never drawn), rows without replacement have distinct
    # positions, and their first pick follows the weights too.
    w = torch.tensor([0.1, 0.0, 0.4, 0.2, 0.3])
    rows = torch.stack([w, w.flip(0)]) * 7  # unnormalized weights

    def f(w, rows):
        return (torch.multinomial(w, 20000, replacement=True),
                torch.multinomial(rows, 3),
                torch.multinomial(rows, 8000, replacement=True))
    g = st.compile(f, (w, rows))
    many, picks, per_row = g(w, rows, seed=3)
    assert many.dtype == torch.int64 and picks.shape == (2, 3)
    freq = torch.bincount(many, minlength=5) / 20000.0
    assert float((freq - w).abs().max()) < 0.015 and int(freq[1]) == 0
    freq = torch.bincount(per_row[1], minlength=5) / 8000.0
    assert float((freq - w.flip(0)).abs().max()) < 0.02
    firsts = []
    for seed in range(300):
        _, picks, _ = g(w, rows, seed=seed)
        assert all(len(set(r.tolist())) == 3 for r in picks)
        assert not bool((picks[0] == 1).any() or (picks[1] == 3).any())
        firsts.append(int(picks[0, 0]))
    freq = torch.bincount(torch.tensor(firsts), minlength=5) / 300.0
    assert float((freq - w).abs().max()) < 0.09


def test_negative_indices_count_from_the_end():
    # As PyTorch's indexing takes them, of static and selected rows: a
    # voice-activity span (first and last loud frame), x[-1] of a
    # selection, a pick by two indices, an assignment.
    def f(w, x):
        loud = torch.nonzero(w > 0.9).flatten()
        y = x.clone()
        y[torch.tensor([-1, 0])] = 0.0
        return (loud[[0, -1]], w[w > 0.5][-1], x[torch.tensor([-1, -20, 3])],
                x.reshape(4, 5)[torch.tensor([-1, 0]), torch.tensor([-2, 1])],
                x.reshape(4, 5)[:, torch.tensor([-1])], y)
    w = torch.rand(100, generator=G)
    check(f, (w, randn(20)), trials=[(w.flip(0), randn(20))])


def test_results_keep_the_functions_structure():
    def f(x):
        return {"pos": x[x > 0], "parts": [x.sum(), x[x < 0]]}
    x = randn(12)
    got = st.compile(f, (x,))(x)
    assert set(got) == {"pos", "parts"} and isinstance(got["parts"], list)
    _same(got["pos"], f(x)["pos"])
    _same(got["parts"], f(x)["parts"])


# -- sift ops -------------------------------------------------------------

def test_sort_argsort_topk_cumsum():
    def f(x, i, m):
        v, k = torch.sort(x, descending=True)
        tv, ti = torch.topk(x, 3)
        sv, si = torch.topk(x, 2, largest=False)
        return (v, k, torch.argsort(x), tv, ti, sv, si, torch.cumsum(i, 0),
                torch.cumsum(m, 0), torch.cumsum(x, 0))
    x = torch.randperm(12, generator=G).float()  # no ties
    check(f, (x, randint(-4, 4, 12), x > 5),
          emits=[r"sift\.sort \S+ descending", r"sift\.argsort",
                 r"sift\.topk \S+ k\(3\)", r"k\(2\) smallest",
                 r"sift\.cumsum"])


def test_topk_of_a_computed_k():
    def f(scores):
        keep = scores[scores > 0.2]
        k = min(keep.numel(), 5)
        return torch.topk(keep, k)
    x = torch.randperm(40, generator=G).float() / 40
    compiled = check(f, (x,), emits=[r"sift\.argsort", r"arith\.minsi"],
                     trials=[(x.flip(0),), (torch.zeros(40),),
                             (x * 0.3,)])
    assert "tensor<5xf32>" in compiled.static_mlir or \
        compiled.static_mlir is None


def test_unique_with_inverse_and_counts():
    def f(ids):
        u, inv, cnt = torch.unique(ids, return_inverse=True,
                                   return_counts=True)
        return u, inv, cnt, torch.unique(ids)
    ids = randint(0, 6, 20)
    check(f, (ids,), emits=[r"sift\.unique \S+ inverse counts"],
          trials=[(torch.zeros(20, dtype=torch.int64),),
                  (torch.arange(20),)])


def test_unique_consecutive():
    # Runs of equal neighbours (`!=`: each NaN a run, -0.0 == 0.0), of the
    # flattened tensor; values, inverse and counts, unbatched and batched.
    def f(ids, x):
        a = torch.unique_consecutive(ids, return_inverse=True,
                                     return_counts=True)
        b = torch.unique_consecutive(x, return_counts=True)
        return a, b, torch.unique_consecutive(ids.reshape(4, 5))

    def case():
        x = randint(0, 3, 8).double()
        x[randint(0, 8, 3)] = float("nan")
        x[randint(0, 8, 1)] = -0.0
        return randint(0, 3, 20), x

    check(f, case(), emits=[r"sift\.nonzero", r"sift\.cumsum"],
          trials=[case(), (torch.zeros(20, dtype=torch.int64),
                           torch.arange(8, dtype=torch.float64)),
                  (torch.arange(20), torch.zeros(8, dtype=torch.float64))])
    cases = [case() for _ in range(3)]
    batched = st.compile(f, cases[0], batch=3)(
        *(torch.stack(xs) for xs in zip(*cases)))
    for i, one in enumerate(cases):
        want = f(*one)
        got = ((batched[0][0][i], batched[0][1][i], batched[0][2][i]),
               (batched[1][0][i], batched[1][1][i]), batched[2][i])
        _same(got, want)


def test_gathers_and_masks():
    def f(x, idx, labels):
        rows = x[idx]
        pos = torch.nonzero(labels == 1).squeeze(1)
        return (rows, torch.index_select(x, 0, idx), x[labels > 0],
                torch.masked_select(x[:, 0], labels >= 0),
                torch.gather(x, 1, idx[:6, None].clamp(0, 2).expand(6, 2)),
                x[pos].sum(0), torch.nonzero(x > 0))
    x = randn(6, 3)
    check(f, (x, torch.tensor([5, 0, 2, 2, 1, 3, 4]), randint(-1, 2, 6)),
          emits=[r"sift\.gather", r"sift\.masked_select", r"sift\.nonzero",
                 r"batch_dims = 1"],
          trials=[(x, torch.tensor([0, 0, 0, 1, 1, 1, 5]),
                   torch.ones(6, dtype=torch.int64))])


def test_cross_entropy():
    F = torch.nn.functional

    def f(logits, t, w):
        return (F.cross_entropy(logits, t),
                F.cross_entropy(logits, t, reduction="none"),
                F.cross_entropy(logits, t.clamp(min=0), reduction="sum",
                                ignore_index=2),
                F.cross_entropy(logits, t, weight=w),
                F.cross_entropy(logits, t, label_smoothing=0.1))
    t = randint(0, 5, 8)
    t[3] = -100
    check(f, (randn(8, 5), t, torch.rand(5, generator=G) + 0.5),
          emits=[r"sift\.cross_entropy \S+, \S+ reduction = mean",
                 r"reduction = none", r"ignore_index = 2 : i64",
                 r"weight\(", r"label_smoothing"])


def test_log_softmax_and_nll_loss_of_it():
    """log_softmax along any dimension (linalg: max, sum of exps, x - m -
    log s; a row of -inf is NaN as in PyTorch), and nll_loss of a
    log_softmax over the classes as one sift.cross_entropy of the logits."""
    F = torch.nn.functional

    def f(x, t, w):
        return (F.log_softmax(x, dim=1), F.log_softmax(x, dim=0),
                F.nll_loss(F.log_softmax(x, dim=1), t),
                F.nll_loss(F.log_softmax(x, dim=-1), t, reduction="none"),
                F.nll_loss(F.log_softmax(x, dim=1), t, weight=w,
                           reduction="sum", ignore_index=1))
    x = randn(8, 5)
    x[2] = float("-inf")
    x[4, 3] = float("-inf")
    t = randint(0, 5, 8)
    t[2] = 1  # the NaN row's loss is ignored in the sum
    compiled = check(f, (x, t, torch.rand(5, generator=G) + 0.5),
                     emits=[r"math\.exp", r"linalg\.reduce",
                            r"sift\.cross_entropy %x, \S+ reduction = mean",
                            r"reduction = none",
                            r"weight\(.*reduction = sum \{ignore_index = 1"])
    assert "nll_loss" not in compiled.mlir

    def g(x, t):
        return F.nll_loss(x, t)
    with pytest.raises(sift.UnsupportedError, match="nll_loss of something "
                       "other than log_softmax"):
        st.compile(g, (randn(8, 5), t))


def test_argument_names_never_clash_with_region_arguments():
    """Region arguments are fresh names: parameters called out, acc or in
    (names a generated region could use) are fine."""
    def f(out, acc, n):
        return (out.sum(dim=1), acc.amax(dim=0),
                torch.arange(n.shape[0]) + n)
    check(f, (randn(4, 3), randn(4, 3), randint(0, 9, 5)))


def test_item_as_a_size_and_arange_of_a_count():
    def f(x, n):
        k = n.clamp(0, 8).item()
        torch._check(k >= 0)
        torch._check(k <= 8)
        head = x[:k]
        lanes = torch.arange(head.numel())
        return head * 2, lanes
    x = randn(8)
    check(f, (x, torch.tensor(3)), emits=[r"tensor\.extract \S+\[\]"],
          trials=[(x, torch.tensor(0)), (x, torch.tensor(8))])


def test_returned_sizes_and_nonzero_2d():
    def f(m):
        pos = torch.nonzero(m)
        return pos, pos.shape[0]
    m = randn(4, 5) > 0
    check(f, (m,), emits=[r"sift\.nonzero \S+ : tensor<4x5xi1> -> "
                          r"tensor<\?x2xi64>"],
          trials=[(torch.zeros(4, 5, dtype=torch.bool),)])


def test_a_range_from_torch_check_tightens_the_bound():
    def f(labels):
        pos = torch.nonzero(labels == 1).flatten()
        n = pos.numel()
        torch._check(n <= 10)
        return torch.randperm(n)
    labels = torch.zeros(1000, dtype=torch.int64)
    labels[:7] = 1
    compiled = st.compile(f, (labels,))
    assert re.search(r"arith\.minsi %\d+, %\d+ : index", compiled.mlir)
    out = compiled(labels, seed=1)
    assert sorted(out.tolist()) == list(range(7))
    assert compiled.function.signature.results[0].data.shape == (10,)
    assert "<= 10" in compiled.report


def test_randperm_is_a_permutation_with_seeded_streams():
    def f(x):
        keep = torch.nonzero(x > 0).flatten()
        return keep[torch.randperm(keep.numel())], torch.randperm(5)
    x = randn(50)
    compiled = st.compile(f, (x,))
    assert compiled.takes_seed
    assert re.search(r"sift\.randperm %\d+, %seed offset %\d+ : "
                     r"tensor<\?xi64>", compiled.mlir)
    assert re.search(r"sift\.randperm %\d+, %seed offset %\d+ : "
                     r"tensor<5xi64>", compiled.mlir)
    a, p = compiled(x, seed=3)
    b, _ = compiled(x, seed=3)
    c, _ = compiled(x, seed=4)
    want = torch.nonzero(x > 0).flatten()
    assert torch.equal(a, b)                       # a seed is a stream
    assert sorted(a.tolist()) == want.tolist()     # a permutation of it
    assert sorted(c.tolist()) == want.tolist()
    assert sorted(p.tolist()) == list(range(5))
    # Over many seeds every position takes every value (in distribution).
    firsts = {int(compiled(x, seed=s)[1][0]) for s in range(60)}
    assert firsts == set(range(5))


# -- errors ---------------------------------------------------------------

def test_unsupported_op_names_the_op_and_the_line():
    def f(x):
        y = x * 2
        return torch.linalg.inv(y)  # the line the error names

    with pytest.raises(sift.UnsupportedError) as e:
        st.export_mlir(f, (randn(3, 3),))
    msg = str(e.value)
    assert "aten.linalg_inv" in msg
    assert "test_torch_ops.py:" in msg and "torch.linalg.inv(y)" in msg


def test_locations_point_at_the_users_lines():
    def f(x):
        pos = torch.nonzero(x > 0).flatten()
        return x[pos]

    text = st.export_mlir(f, (randn(8),))
    assert re.search(r'sift\.nonzero .* loc\(".*test_torch_ops\.py":\d+:1\)',
                     text)


def test_supported_lists_the_overloads():
    for name in ("aten.nonzero.default", "aten.randperm.default",
                 "aten._unique2.default", "aten.slice.Tensor",
                 "aten.cat.default", "aten.topk.default", "torch.sym_min",
                 "aten.cross_entropy_loss.default", "aten.where.self",
                 "aten._local_scalar_dense.default"):
        assert name in st.SUPPORTED
    assert len(st.SUPPORTED) >= 30


def test_transform_runs_passes_on_text():
    from sift import _sift
    text = st.export_mlir(lambda x: x[x > 0], (randn(16),))
    out, diags = _sift.transform(text, "sift-staticize{report=1}")
    assert "sift.compact" in out and "tensor<16xf32>" in out
    assert "padded to 16 rows" in diags and "remark" in diags
    with pytest.raises(sift.ParseError, match="transform"):
        _sift.transform("func.func @f(", "canonicalize")
    with pytest.raises(sift.InvalidArgumentError, match="no-such-pass"):
        _sift.transform(text, "no-such-pass")


def test_torch_compile_backend():
    def f(x, labels):
        pos = torch.nonzero(labels == 1).flatten()
        return x[pos].sum(0) * 2, (x > 0).sum()

    torch._dynamo.reset()
    flag = torch._dynamo.config.capture_dynamic_output_shape_ops
    torch._dynamo.config.capture_dynamic_output_shape_ops = True
    try:
        be = st.backend()
        compiled = torch.compile(f, backend=be)
        x, labels = randn(50, 3), randint(0, 2, 50)
        _same(compiled(x, labels), f(x, labels))
        assert len(be.compiled) == 1 and not be.fallbacks
        assert "sift.nonzero" in be.compiled[0].mlir
    finally:
        torch._dynamo.config.capture_dynamic_output_shape_ops = flag
        torch._dynamo.reset()


def test_two_selections_by_one_mask_say_how_to_write_them():
    F = torch.nn.functional

    def f(x):
        return F.mse_loss(x[x > 0], torch.zeros_like(x[x > 0]))

    with pytest.raises(sift.UnsupportedError, match="Select once"):
        st.export_mlir(f, (randn(20),))

    def g(x):
        a = x[x > 0]
        return F.mse_loss(a, torch.zeros_like(a))
    check(g, (randn(20),))


def test_a_python_branch_on_a_size_says_how_to_write_it():
    def f(labels):
        pos = torch.nonzero(labels == 1).flatten()
        if pos.numel() < 4:
            return pos
        return pos[:4]

    with pytest.raises(sift.UnsupportedError, match="min/max"):
        st.export_mlir(f, (randint(0, 2, 20),))
