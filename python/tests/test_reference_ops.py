"""The NumPy references of the sift ops (sift/reference/ops.py) against NumPy
idioms, hand-computed cases and, when it is installed, PyTorch."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

try:
    import numpy as np
except ImportError:  # pragma: no cover - depends on the machine
    np = None

try:
    import torch
except ImportError:  # pragma: no cover - depends on the machine
    torch = None

if np is not None:
    from sift.reference import ops, philox  # noqa: E402

NEED_NUMPY = unittest.skipIf(
    np is None, "numpy is not installed (scripts/bootstrap.sh installs it)")
NEED_TORCH = unittest.skipIf(
    torch is None, "PyTorch is not installed: the torch cross-checks are "
    "skipped (the NumPy and hand-computed checks still run)")

NAN = float("nan")
INF = float("inf")


def assert_same(tc, got, want, exact_dtype=True):
    """Same shape, same dtype, same values (NaN equal to NaN; -0.0 == 0.0)."""
    got = np.asarray(got)
    want = np.asarray(want)
    tc.assertEqual(got.shape, want.shape, "shape")
    if exact_dtype:
        tc.assertEqual(got.dtype, want.dtype, "dtype")
    if got.dtype.kind == "f" or want.dtype.kind == "f":
        tc.assertTrue(np.array_equal(got, want, equal_nan=True),
                      "%r != %r" % (got, want))
    else:
        tc.assertTrue(np.array_equal(got, want), "%r != %r" % (got, want))


@NEED_NUMPY
class Nonzero(unittest.TestCase):
    def test_1d_matches_flatnonzero(self):
        rng = np.random.default_rng(0)
        for dtype in (np.bool_, np.int8, np.int32, np.int64, np.float32):
            x = (rng.integers(0, 3, 50) == 0).astype(dtype)
            assert_same(self, ops.nonzero(x), np.flatnonzero(x).astype(np.int64))

    def test_nd_matches_argwhere(self):
        rng = np.random.default_rng(1)
        for shape in ((4, 5), (2, 3, 4), (1, 1), (3, 0)):
            x = rng.integers(-1, 2, shape).astype(np.int64)
            assert_same(self, ops.nonzero(x), np.argwhere(x).astype(np.int64))
            self.assertEqual(ops.nonzero(x).shape[1:], (len(shape),))

    def test_nan_is_nonzero_and_signed_zero_is_zero(self):
        x = np.array([0.0, -0.0, NAN, 1.0, -INF], dtype=np.float32)
        assert_same(self, ops.nonzero(x), np.array([2, 3, 4], dtype=np.int64))

    def test_hand_2d(self):
        x = np.array([[0, 7], [3, 0]], dtype=np.int32)
        assert_same(self, ops.nonzero(x), np.array([[0, 1], [1, 0]], np.int64))

    def test_empty_and_nothing(self):
        assert_same(self, ops.nonzero(np.zeros(5, np.bool_)),
                    np.zeros(0, np.int64))
        assert_same(self, ops.nonzero(np.zeros((0,), np.float32)),
                    np.zeros(0, np.int64))
        assert_same(self, ops.nonzero(np.zeros((3, 2), np.int64)),
                    np.zeros((0, 2), np.int64))

    def test_rank0_is_an_error(self):
        with self.assertRaises(ValueError):
            ops.nonzero(np.array(1))


@NEED_NUMPY
class Unique(unittest.TestCase):
    def test_matches_np_unique(self):
        rng = np.random.default_rng(2)
        for shape in ((100,), (7, 9), (0,), (1,)):
            x = rng.integers(-5, 5, shape).astype(np.int64)
            u, inv, cnt = ops.unique(x, True, True)
            nu, ninv, ncnt = np.unique(x, return_inverse=True,
                                       return_counts=True)
            assert_same(self, u, nu)
            assert_same(self, inv, ninv.reshape(x.shape).astype(np.int64))
            assert_same(self, cnt, ncnt.astype(np.int64))
            # The inverse rebuilds the input.
            assert_same(self, u[inv], x)

    def test_nans_collapse_last(self):
        x = np.array([NAN, 2.0, NAN, -1.0, 2.0, INF, NAN], dtype=np.float32)
        u, inv, cnt = ops.unique(x, True, True)
        assert_same(self, u, np.array([-1.0, 2.0, INF, NAN], np.float32))
        assert_same(self, inv, np.array([3, 1, 3, 0, 1, 2, 3], np.int64))
        assert_same(self, cnt, np.array([1, 2, 1, 3], np.int64))
        nu = np.unique(x, equal_nan=True)
        assert_same(self, u, nu)

    def test_signed_zeros_are_one_value(self):
        x = np.array([0.0, -0.0, 1.0, -0.0], dtype=np.float64)
        u, cnt = ops.unique(x, return_counts=True)
        self.assertEqual(u.shape, (2,))
        self.assertEqual(list(cnt), [3, 1])
        # The representative is the first occurrence (stable sort).
        self.assertFalse(math.copysign(1.0, u[0]) < 0)

    def test_only_inverse_or_counts(self):
        x = np.array([3, 1, 3], dtype=np.int32)
        u, inv = ops.unique(x, return_inverse=True)
        assert_same(self, inv, np.array([1, 0, 1], np.int64))
        u, cnt = ops.unique(x, return_counts=True)
        assert_same(self, cnt, np.array([1, 2], np.int64))
        assert_same(self, ops.unique(x), np.array([1, 3], np.int32))

    def test_bool(self):
        u, cnt = ops.unique(np.array([True, False, True]), return_counts=True)
        assert_same(self, u, np.array([False, True]))
        assert_same(self, cnt, np.array([1, 2], np.int64))

    def test_empty(self):
        u, inv, cnt = ops.unique(np.zeros((0, 3), np.float32), True, True)
        self.assertEqual((u.shape, inv.shape, cnt.shape),
                         ((0,), (0, 3), (0,)))

    @NEED_TORCH
    def test_torch(self):
        x = np.random.default_rng(3).integers(0, 6, (5, 8)).astype(np.int64)
        tu, tinv, tcnt = torch.unique(torch.from_numpy(x), sorted=True,
                                      return_inverse=True, return_counts=True)
        u, inv, cnt = ops.unique(x, True, True)
        assert_same(self, u, tu.numpy())
        assert_same(self, inv, tinv.numpy())
        assert_same(self, cnt, tcnt.numpy())


@NEED_NUMPY
class MaskedSelect(unittest.TestCase):
    def test_matches_boolean_indexing(self):
        rng = np.random.default_rng(4)
        for xs, r in (((20,), 1), ((20, 4), 1), ((5, 6), 2), ((3, 4, 2), 2),
                      ((0, 3), 1)):
            x = rng.standard_normal(xs).astype(np.float32)
            m = rng.integers(0, 2, xs[:r]).astype(np.bool_)
            assert_same(self, ops.masked_select(x, m), x[m])

    def test_nothing_and_everything(self):
        x = np.arange(12, dtype=np.int64).reshape(4, 3)
        assert_same(self, ops.masked_select(x, np.zeros(4, np.bool_)),
                    np.zeros((0, 3), np.int64))
        assert_same(self, ops.masked_select(x, np.ones(4, np.bool_)), x)

    def test_hand(self):
        x = np.array([[1, 2], [3, 4], [5, 6]], dtype=np.int32)
        assert_same(self, ops.masked_select(x, np.array([True, False, True])),
                    np.array([[1, 2], [5, 6]], np.int32))
        assert_same(self, ops.masked_select(
            x, np.array([[False, True], [True, False], [False, False]])),
            np.array([2, 3], np.int32))

    def test_shape_mismatch(self):
        with self.assertRaises(ValueError):
            ops.masked_select(np.zeros((4, 3)), np.zeros(3, np.bool_))

    @NEED_TORCH
    def test_torch(self):
        x = np.random.default_rng(5).standard_normal((6, 7)).astype(np.float32)
        m = x > 0
        assert_same(self, ops.masked_select(x, m),
                    torch.masked_select(torch.from_numpy(x),
                                        torch.from_numpy(m)).numpy())


@NEED_NUMPY
class RandpermSort(unittest.TestCase):
    def test_is_stable_unsigned_argsort_of_words(self):
        for n, seed, off in ((0, 1, 0), (1, 1, 0), (17, 42, 3), (1000, 7, 0),
                             (50, -1, -1)):
            w = np.array(philox.words(seed, off, n), dtype=np.uint32)
            want = np.argsort(w, kind="stable").astype(np.int64)
            assert_same(self, ops.randperm_sort(n, seed, off), want)

    def test_permutation_and_seeds(self):
        p = ops.randperm_sort(300, 5)
        assert_same(self, np.sort(p), np.arange(300, dtype=np.int64))
        self.assertFalse(np.array_equal(p, ops.randperm_sort(300, 6)))
        self.assertFalse(np.array_equal(p, ops.randperm_sort(300, 5, 1)))
        assert_same(self, p, ops.randperm_sort(300, 5))

    def test_prefix_property(self):
        # The staticize rewrite relies on this: keys of lanes >= n sort last,
        # so randperm(n) is the first n of argsort(words(B) with tail = 2^32).
        n, bound = 37, 64
        w = np.array(philox.words(9, 2, bound), dtype=np.int64)
        w[n:] = 1 << 32
        assert_same(self, np.argsort(w, kind="stable")[:n].astype(np.int64),
                    ops.randperm_sort(n, 9, 2))


def _feistel_by_the_text(n, seed, off):
    """The definition of sift.randperm_prefix's permutation (SiftOps.td),
    one element at a time in plain integers."""
    keys = philox.words(seed, off, 6)
    b = max(8, math.ceil(math.log2(n)) if n > 1 else 0)
    l, r = b // 2, b - b // 2

    def fmix(h):
        h ^= h >> 16
        h = (h * 0x85EBCA6B) % 2 ** 32
        h ^= h >> 13
        h = (h * 0xC2B2AE35) % 2 ** 32
        return h ^ (h >> 16)

    def p(x):
        for i in range(6):
            hl, hr = (l, r) if i % 2 == 0 else (r, l)
            c, a = x % 2 ** hr, x >> hr
            x = (c << hl) | ((a ^ fmix(c ^ keys[i])) % 2 ** hl)
        return x

    out = []
    for j in range(n):
        x = p(j)
        while x >= n:
            x = p(x)
        out.append(x)
    return out


@NEED_NUMPY
class Randperm(unittest.TestCase):
    def test_matches_the_definition(self):
        for n, seed, off in ((1, 3, 0), (2, 3, 0), (5, 7, 1), (255, 9, 0),
                             (256, 9, 0), (257, -2, 5), (3000, 11, 1 << 40)):
            assert_same(self, ops.randperm(n, seed, off),
                        np.array(_feistel_by_the_text(n, seed, off),
                                 dtype=np.int64))

    def test_permutation_and_seeds(self):
        p = ops.randperm(1000, 5)
        assert_same(self, np.sort(p), np.arange(1000, dtype=np.int64))
        self.assertFalse(np.array_equal(p, ops.randperm(1000, 6)))
        self.assertFalse(np.array_equal(p, ops.randperm(1000, 5, 1)))
        self.assertEqual(len(ops.randperm(0, 5)), 0)
        with self.assertRaises(ValueError):
            ops.randperm((1 << 32) + 1, 5)

    def test_prefix_lanes_and_padding(self):
        full = ops.randperm(40, 8, 2)
        assert_same(self, ops.randperm_prefix(40, 8, 10, 2), full[:10])
        want = np.full(50, -1, dtype=np.int64)
        want[:40] = full
        assert_same(self, ops.randperm_prefix(40, 8, 50, 2), want)
        want[7:] = -1
        assert_same(self, ops.randperm_prefix(40, 8, 50, 2, limit=7), want)
        rows = ops.randperm_prefix(np.array([3, 0]), np.array([1, 2]), 4)
        assert_same(self, rows[0, :3], ops.randperm(3, 1))
        assert_same(self, rows[1], np.full(4, -1, dtype=np.int64))


@NEED_NUMPY
class Count(unittest.TestCase):
    def test_matches_count_nonzero(self):
        rng = np.random.default_rng(6)
        for shape in ((10,), (3, 7), (2, 3, 0), (0, 4)):
            x = rng.integers(-1, 2, shape).astype(np.float32)
            assert_same(self, ops.count(x),
                        np.count_nonzero(x, axis=-1).astype(np.int64))

    def test_nan_counts(self):
        x = np.array([[NAN, 0.0, -0.0], [1.0, 2.0, 0.0]], np.float64)
        assert_same(self, ops.count(x), np.array([1, 2], np.int64))
        self.assertEqual(ops.count(np.array([True, True])).shape, ())


@NEED_NUMPY
class Compact(unittest.TestCase):
    def test_hand(self):
        m = np.array([False, True, True, False, True])
        for k, idx, c in ((5, [1, 2, 4, -1, -1], 3), (2, [1, 2], 2),
                          (7, [1, 2, 4, -1, -1, -1, -1], 3), (0, [], 0)):
            gi, gc = ops.compact(m, k)
            assert_same(self, gi, np.array(idx, np.int64))
            assert_same(self, gc, np.array(c, np.int64))

    def test_fill_and_nothing(self):
        gi, gc = ops.compact(np.zeros(4, np.bool_), 3, fill=0)
        assert_same(self, gi, np.zeros(3, np.int64))
        assert_same(self, gc, np.array(0, np.int64))

    def test_batched_matches_flatnonzero(self):
        rng = np.random.default_rng(7)
        m = rng.random((3, 4, 20)) < 0.3
        for k in (0, 3, 20, 25):
            gi, gc = ops.compact(m, k, fill=-7)
            self.assertEqual(gi.shape, (3, 4, k))
            for b in np.ndindex(3, 4):
                nz = np.flatnonzero(m[b])[:k]
                want = np.full(k, -7, np.int64)
                want[:len(nz)] = nz
                assert_same(self, gi[b], want)
                self.assertEqual(gc[b], min(np.count_nonzero(m[b]), k))


@NEED_NUMPY
class Cumsum(unittest.TestCase):
    def test_matches_np_cumsum(self):
        rng = np.random.default_rng(8)
        x = rng.integers(-100, 100, (4, 5, 6)).astype(np.int64)
        for dim in (-3, -2, -1, 0, 1, 2):
            axis = dim % 3
            assert_same(self, ops.cumsum(x, dim), np.cumsum(x, axis=axis))
            assert_same(self, ops.cumsum(x, dim, exclusive=True),
                        np.cumsum(x, axis=axis) - x)

    def test_mask_to_wider_int(self):
        m = np.array([True, False, True, True])
        assert_same(self, ops.cumsum(m, dtype=np.int64),
                    np.array([1, 1, 2, 3], np.int64))
        assert_same(self, ops.cumsum(m, exclusive=True, dtype=np.int32),
                    np.array([0, 1, 1, 2], np.int32))
        with self.assertRaises(ValueError):
            ops.cumsum(m)

    def test_wraps(self):
        x = np.array([100, 27, 1, 1], dtype=np.int8)
        assert_same(self, ops.cumsum(x), np.array([100, 127, -128, -127],
                                                  np.int8))

    def test_float_sequential(self):
        x = np.array([1e8, 1.0, -1e8, 1.0], dtype=np.float32)
        # Sequential f32 summation: 1e8 + 1 rounds to 1e8.
        assert_same(self, ops.cumsum(x), np.array([1e8, 1e8, 0.0, 1.0],
                                                  np.float32))
        assert_same(self, ops.cumsum(x, exclusive=True),
                    np.array([0.0, 1e8, 1e8, 0.0], np.float32))

    def test_empty_axis_and_bad_dim(self):
        self.assertEqual(ops.cumsum(np.zeros((3, 0), np.float32)).shape, (3, 0))
        with self.assertRaises(ValueError):
            ops.cumsum(np.zeros(3), dim=1)

    @NEED_TORCH
    def test_torch(self):
        x = np.random.default_rng(9).integers(-9, 9, (3, 8)).astype(np.int64)
        assert_same(self, ops.cumsum(x, 0),
                    torch.cumsum(torch.from_numpy(x), 0).numpy())


@NEED_NUMPY
class SortOrder(unittest.TestCase):
    def setUp(self):
        self.X = np.array([1.0, 3.0, 1.0, NAN, 3.0, -0.0, 0.0, NAN, -INF],
                          np.float32)

    def test_ascending_hand(self):
        v, i = ops.sort(self.X)
        assert_same(self, i, np.array([8, 5, 6, 0, 2, 1, 4, 3, 7], np.int64))
        assert_same(self, v, self.X[i])

    def test_descending_hand(self):
        v, i = ops.sort(self.X, descending=True)
        # NaN first, ties (and -0.0 == +0.0) keep input order.
        assert_same(self, i, np.array([3, 7, 1, 4, 0, 2, 5, 6, 8], np.int64))
        self.assertTrue(math.copysign(1, v[6]) < 0)  # -0.0 from index 5

    def test_ascending_matches_numpy_stable(self):
        rng = np.random.default_rng(10)
        for dtype in (np.int8, np.int32, np.int64, np.float32, np.float64):
            x = rng.integers(-4, 4, (5, 30)).astype(dtype)
            if dtype in (np.float32, np.float64):
                x[x == 3] = NAN
                x[x == 0] = -0.0
            for dim in (0, 1, -1):
                v, i = ops.sort(x, dim)
                assert_same(self, i, np.argsort(x, axis=dim, kind="stable"))
                assert_same(self, v, np.sort(x, axis=dim, kind="stable"))
                assert_same(self, ops.argsort(x, dim), i)

    def test_descending_matches_negated_integer_keys(self):
        rng = np.random.default_rng(11)
        x = rng.integers(-5, 5, (4, 40)).astype(np.int32)
        want = np.argsort(-x.astype(np.int64), axis=1, kind="stable")
        assert_same(self, ops.argsort(x, 1, descending=True), want)
        # Extremes: INT_MIN cannot be negated in its own type.
        e = np.array([np.iinfo(np.int64).min, 0, np.iinfo(np.int64).max, 0])
        assert_same(self, ops.argsort(e, descending=True),
                    np.array([2, 1, 3, 0], np.int64))

    def test_bool(self):
        v, i = ops.sort(np.array([True, False, True, False]), descending=True)
        assert_same(self, i, np.array([0, 2, 1, 3], np.int64))

    def test_empty(self):
        v, i = ops.sort(np.zeros((2, 0), np.float32))
        self.assertEqual((v.shape, i.shape), ((2, 0), (2, 0)))

    @NEED_TORCH
    def test_torch(self):
        rng = np.random.default_rng(12)
        x = rng.integers(0, 5, (3, 50)).astype(np.float32)
        x[x == 4] = NAN
        for desc in (False, True):
            tv, ti = torch.sort(torch.from_numpy(x), dim=1, descending=desc,
                                stable=True)
            v, i = ops.sort(x, 1, desc)
            assert_same(self, i, ti.numpy())
            assert_same(self, v, tv.numpy())


@NEED_NUMPY
class Topk(unittest.TestCase):
    def test_hand(self):
        x = np.array([2.0, 5.0, NAN, 5.0, 1.0, 2.0], np.float32)
        v, i = ops.topk(x, 3)
        assert_same(self, i, np.array([2, 1, 3], np.int64))
        v, i = ops.topk(x, 3, smallest=True)
        assert_same(self, i, np.array([4, 0, 5], np.int64))
        assert_same(self, v, np.array([1.0, 2.0, 2.0], np.float32))
        v, i = ops.topk(x, 6, smallest=True)
        assert_same(self, i, np.array([4, 0, 5, 1, 3, 2], np.int64))

    def test_k0_and_bounds(self):
        v, i = ops.topk(np.arange(4, dtype=np.int64), 0)
        self.assertEqual((v.shape, i.shape), ((0,), (0,)))
        with self.assertRaises(ValueError):
            ops.topk(np.arange(4), 5)

    def test_against_brute_force(self):
        rng = np.random.default_rng(13)
        x = rng.integers(0, 6, (4, 25)).astype(np.int32)
        for k in (1, 7, 25):
            v, i = ops.topk(x, k, dim=1)
            for r in range(4):
                pairs = sorted(((-int(x[r, j]), j) for j in range(25)))[:k]
                self.assertEqual(list(i[r]), [j for _, j in pairs])
                self.assertEqual(list(v[r]), [-a for a, _ in pairs])
        v, i = ops.topk(x, 2, dim=0, smallest=True)
        self.assertEqual(v.shape, (2, 25))
        assert_same(self, i, np.argsort(x, axis=0, kind="stable")[:2])

    @NEED_TORCH
    def test_torch_values(self):
        x = np.random.default_rng(14).standard_normal((3, 40)).astype(np.float32)
        tv, ti = torch.topk(torch.from_numpy(x), 5, dim=1)
        v, i = ops.topk(x, 5, 1)
        assert_same(self, v, tv.numpy())
        assert_same(self, i, ti.numpy())  # no ties in random normals


@NEED_NUMPY
class Gather(unittest.TestCase):
    def test_rows_match_take(self):
        rng = np.random.default_rng(15)
        src = rng.standard_normal((10, 3)).astype(np.float32)
        idx = rng.integers(0, 10, (4, 5)).astype(np.int64)
        assert_same(self, ops.gather(src, idx), np.take(src, idx, axis=0))

    def test_invalid_lanes_fill(self):
        src = np.array([10, 20, 30], np.int64)
        idx = np.array([2, -1, 3, 0, -4, 1 << 40], np.int64)
        assert_same(self, ops.gather(src, idx, fill=-1),
                    np.array([30, -1, -1, 10, -1, -1], np.int64))
        assert_same(self, ops.gather(src, idx),
                    np.array([30, 0, 0, 10, 0, 0], np.int64))

    def test_batched_matches_take_along_axis(self):
        rng = np.random.default_rng(16)
        src = rng.integers(0, 100, (4, 9)).astype(np.int32)
        idx = rng.integers(0, 9, (4, 6)).astype(np.int64)
        assert_same(self, ops.gather(src, idx, batch_dims=1),
                    np.take_along_axis(src, idx, axis=1))
        # batch_dims = 1 with trailing source dims and extra index dims.
        src3 = rng.integers(0, 100, (2, 5, 3)).astype(np.int64)
        idx3 = rng.integers(-1, 6, (2, 2, 4)).astype(np.int64)
        got = ops.gather(src3, idx3, batch_dims=1, fill=-9)
        self.assertEqual(got.shape, (2, 2, 4, 3))
        for b, i, j in np.ndindex(2, 2, 4):
            k = idx3[b, i, j]
            want = src3[b, k] if 0 <= k < 5 else np.full(3, -9)
            assert_same(self, got[b, i, j], want.astype(np.int64))

    def test_empty_indices(self):
        got = ops.gather(np.zeros((0, 2), np.float32),
                         np.array([0, -1], np.int64), fill=1.5)
        assert_same(self, got, np.full((2, 2), 1.5, np.float32))

    @NEED_TORCH
    def test_torch(self):
        rng = np.random.default_rng(17)
        src = rng.standard_normal((3, 8)).astype(np.float32)
        idx = rng.integers(0, 8, (3, 5)).astype(np.int64)
        assert_same(self, ops.gather(src, idx, batch_dims=1),
                    torch.gather(torch.from_numpy(src), 1,
                                 torch.from_numpy(idx)).numpy())


@NEED_NUMPY
class Scatter(unittest.TestCase):
    def test_add_is_bincount(self):
        rng = np.random.default_rng(18)
        labels = rng.integers(-2, 12, 200).astype(np.int64)
        got = ops.scatter(np.zeros(10, np.int64), labels,
                          np.ones(200, np.int64), reduce="add")
        want = np.bincount(labels[(labels >= 0) & (labels < 10)],
                           minlength=10)
        assert_same(self, got, want.astype(np.int64))

    def test_none_last_write_wins_and_skips(self):
        dest = np.array([10, 20, 30, 40], np.float32)
        idx = np.array([1, -1, 1, 3, 4, 0], np.int64)
        upd = np.arange(1, 7, dtype=np.float32)
        assert_same(self, ops.scatter(dest, idx, upd),
                    np.array([6, 3, 30, 4], np.float32))
        assert_same(self, ops.scatter(dest, idx, upd, reduce="max"),
                    np.array([10, 20, 30, 40], np.float32))
        assert_same(self, ops.scatter(dest, idx, upd, reduce="min"),
                    np.array([6, 1, 30, 4], np.float32))

    def test_rows_and_batch(self):
        rng = np.random.default_rng(19)
        dest = rng.standard_normal((5, 3)).astype(np.float32)
        idx = rng.integers(0, 5, 8).astype(np.int64)
        upd = rng.standard_normal((8, 3)).astype(np.float32)
        want = dest.copy()
        np.add.at(want, idx, upd)
        assert_same(self, ops.scatter(dest, idx, upd, reduce="add"), want)
        d2 = rng.integers(0, 9, (3, 7)).astype(np.int32)
        i2 = rng.integers(-1, 7, (3, 4)).astype(np.int64)
        u2 = rng.integers(0, 9, (3, 4)).astype(np.int32)
        got = ops.scatter(d2, i2, u2, batch_dims=1, reduce="max")
        for r in range(3):
            want = d2[r].copy()
            ok = i2[r] >= 0
            np.maximum.at(want, i2[r][ok], u2[r][ok])
            assert_same(self, got[r], want)

    @NEED_TORCH
    def test_torch(self):
        rng = np.random.default_rng(20)
        dest = rng.standard_normal((3, 8)).astype(np.float32)
        idx = rng.integers(0, 8, (3, 5)).astype(np.int64)
        upd = rng.standard_normal((3, 5)).astype(np.float32)
        t = torch.from_numpy(dest.copy()).scatter_add(
            1, torch.from_numpy(idx), torch.from_numpy(upd))
        np.testing.assert_allclose(ops.scatter(dest, idx, upd, batch_dims=1,
                                               reduce="add"), t.numpy(),
                                   rtol=1e-6)
        for mode, red in (("max", "amax"), ("min", "amin")):
            t = torch.from_numpy(dest.copy()).scatter_reduce(
                1, torch.from_numpy(idx), torch.from_numpy(upd), red)
            assert_same(self, ops.scatter(dest, idx, upd, batch_dims=1,
                                          reduce=mode), t.numpy())
        rows = rng.integers(0, 6, 4).astype(np.int64)
        src = rng.standard_normal((4, 2)).astype(np.float32)
        t = torch.zeros(6, 2).index_add(0, torch.from_numpy(rows),
                                        torch.from_numpy(src))
        np.testing.assert_allclose(ops.scatter(np.zeros((6, 2), np.float32),
                                               rows, src, reduce="add"),
                                   t.numpy(), rtol=1e-6)


@NEED_NUMPY
class Random(unittest.TestCase):
    def test_bits_layout(self):
        w = philox.words(3, 4, 12)
        b32 = ops.random_bits(3, (2, 3), np.int32, offset=4)
        self.assertEqual(b32.dtype, np.int32)
        self.assertEqual(list(b32.reshape(-1).view(np.uint32)), w[:6])
        b64 = ops.random_bits(3, (6,), np.int64, offset=4)
        self.assertEqual([int(v) for v in b64.view(np.uint64)],
                         [w[2 * i] | (w[2 * i + 1] << 32) for i in range(6)])

    def test_uniform_f32_exact(self):
        u = ops.random_uniform(11, (64,), np.float32)
        w = np.array(philox.words(11, 0, 64), dtype=np.uint64)
        assert_same(self, u, ((w >> 8).astype(np.float64) * 2.0 ** -24)
                    .astype(np.float32))
        self.assertTrue(np.all((u >= 0) & (u < 1)))

    def test_uniform_f64(self):
        u = ops.random_uniform(11, (4, 4), np.float64, offset=2)
        w = philox.words(11, 2, 32)
        want = [((w[2 * i + 1] >> 11) * 2 ** 32 + w[2 * i]) / 2.0 ** 53
                for i in range(16)]
        assert_same(self, u.reshape(-1), np.array(want))

    def test_uniform_f16_truncates(self):
        u32 = ops.random_uniform(5, (2000,), np.float32)
        u16 = ops.random_uniform(5, (2000,), np.float16)
        self.assertTrue(np.all(u16.astype(np.float32) <= u32))
        nxt = np.nextafter(u16, np.float16(1)).astype(np.float32)
        self.assertTrue(np.all(nxt > u32))
        self.assertTrue(np.all(u16 < 1))
        # Something just below 1 must not round to 1.0.
        self.assertEqual(ops._truncate_to(np.array([1 - 2.0 ** -24]),
                                          np.dtype(np.float16))[0],
                         np.float16(1 - 2.0 ** -11))

    def test_uniform_bf16(self):
        u32 = ops.random_uniform(5, (500,), np.float32)
        b = ops.random_uniform(5, (500,), "bfloat16")
        self.assertTrue(np.all(b <= u32))
        self.assertTrue(np.all(b.view(np.uint32) & 0xFFFF == 0))


@NEED_NUMPY
class SampleBalanced(unittest.TestCase):
    def brute(self, labels, seed, k, frac, ign, neg, off, r):
        keys = philox.words(seed, off + r, len(labels))
        pos = [j for j, l in enumerate(labels) if l != ign and l != neg]
        ng = [j for j, l in enumerate(labels) if l == neg]
        npos = min(len(pos), int(k * frac))
        nneg = min(len(ng), k - npos)
        by_key = lambda js: [j for _, j in sorted((keys[j], j) for j in js)]
        out = by_key(pos)[:npos] + by_key(ng)[:nneg]
        return out + [-1] * (k - len(out)), len(out)

    def test_hand_small(self):
        labels = np.array([1, 0, -1, 0, 2, 0, 1], np.int64)
        keys = philox.words(123, 0, 7)
        idx, cnt = ops.sample_balanced(labels, 123, 4)
        pos = sorted([0, 4, 6], key=lambda j: keys[j])[:2]
        neg = sorted([1, 3, 5], key=lambda j: keys[j])[:2]
        assert_same(self, idx, np.array(pos + neg, np.int64))
        assert_same(self, cnt, np.array(4, np.int64))

    def test_fill_up_and_short(self):
        # One positive: negatives fill up. Nothing eligible: count 0.
        labels = np.array([[0, 0, 1, 0, 0, -1],
                           [-1, -1, -1, -1, -1, -1],
                           [5, 5, 5, 5, 5, 0]], np.int32)
        idx, cnt = ops.sample_balanced(labels, 9, 4, offset=10)
        assert_same(self, cnt, np.array([4, 0, 3], np.int64))
        self.assertEqual(idx[0, 0], 2)
        self.assertEqual(sorted(idx[0, 1:]), sorted(set(idx[0, 1:])))
        assert_same(self, idx[1], np.full(4, -1, np.int64))
        self.assertEqual(idx[2, 2], 5)  # 2 positives (quota), then the negative
        self.assertEqual(idx[2, 3], -1)
        for r in range(3):
            want, c = self.brute(list(labels[r]), 9, 4, 0.5, -1, 0, 10, r)
            self.assertEqual(list(idx[r]), want)
            self.assertEqual(cnt[r], c)

    def test_against_brute_force_batched(self):
        rng = np.random.default_rng(18)
        labels = rng.integers(-1, 3, (2, 3, 50)).astype(np.int64)
        for k, frac, ign, neg in ((10, 0.25, -1, 0), (0, 0.5, -1, 0),
                                  (60, 0.5, 2, 1), (7, 1.0, -1, 0),
                                  (7, 0.0, -1, 0)):
            idx, cnt = ops.sample_balanced(labels, 77, k, frac, ign, neg, 5)
            self.assertEqual(idx.shape, (2, 3, k))
            for r, b in enumerate(np.ndindex(2, 3)):
                want, c = self.brute(list(labels[b]), 77, k, frac, ign, neg,
                                     5, r)
                self.assertEqual(list(idx[b]), want)
                self.assertEqual(cnt[b], c)

    def test_properties(self):
        labels = np.array([1] * 30 + [0] * 200 + [-1] * 20, np.int64)
        idx, cnt = ops.sample_balanced(labels, 1, 64, 0.25)
        self.assertEqual(int(cnt), 64)
        self.assertEqual(len(set(idx.tolist())), 64)
        self.assertEqual(int(np.sum(labels[idx] == 1)), 16)
        self.assertEqual(int(np.sum(labels[idx] == 0)), 48)
        idx2, _ = ops.sample_balanced(labels, 2, 64, 0.25)
        self.assertFalse(np.array_equal(idx, idx2))

    def test_fraction_is_floored(self):
        labels = np.array([1] * 10 + [0] * 10, np.int64)
        _, cnt = ops.sample_balanced(labels, 3, 3, 0.5)  # floor(1.5) = 1
        idx, _ = ops.sample_balanced(labels, 3, 3, 0.5)
        self.assertEqual(int(np.sum(labels[idx] == 1)), 1)
        self.assertEqual(int(cnt), 3)


@NEED_NUMPY
class CrossEntropy(unittest.TestCase):
    def hand(self, x, t, w, s):
        c = len(x)
        lse = math.log(sum(math.exp(v) for v in x))
        w = w or [1.0] * c
        return ((1 - s) * w[t] * (lse - x[t])
                + (s / c) * sum(w[j] * (lse - x[j]) for j in range(c)))

    def test_hand(self):
        x = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0], [2.0, 2.0, 2.0]],
                     np.float64)
        t = np.array([1, -100, 0], np.int64)
        w = [0.5, 2.0, 1.0]
        for weight in (None, w):
            for s in (0.0, 0.1, 1.0):
                want = [self.hand(list(x[0]), 1, weight, s), 0.0,
                        self.hand(list(x[2]), 0, weight, s)]
                ww = np.array(weight) if weight else None
                got = ops.cross_entropy(x, t, ww, "none", label_smoothing=s)
                np.testing.assert_allclose(got, want, rtol=1e-12)
                got = ops.cross_entropy(x, t, ww, "sum", label_smoothing=s)
                np.testing.assert_allclose(got, sum(want), rtol=1e-12)
                denom = (weight[1] + weight[0]) if weight else 2.0
                got = ops.cross_entropy(x, t, ww, "mean", label_smoothing=s)
                np.testing.assert_allclose(got, sum(want) / denom, rtol=1e-12)
                self.assertEqual(got.shape, ())

    def test_all_ignored(self):
        x = np.ones((3, 4), np.float32)
        t = np.full(3, 7, np.int64)
        self.assertTrue(np.isnan(ops.cross_entropy(x, t, reduction="mean",
                                                   ignore_index=7)))
        self.assertEqual(float(ops.cross_entropy(x, t, reduction="sum",
                                                 ignore_index=7)), 0.0)
        assert_same(self, ops.cross_entropy(x, t, reduction="none",
                                            ignore_index=7),
                    np.zeros(3, np.float32))

    def test_stable_lse_and_dtype(self):
        x = np.array([[1000.0, 0.0]], np.float32)
        got = ops.cross_entropy(x, np.array([1]), reduction="none")
        self.assertEqual(got.dtype, np.float32)
        np.testing.assert_allclose(got, [1000.0], rtol=1e-6)

    def test_nonfinite_logits(self):
        t = np.array([0, 1, 0], np.int64)
        x = np.array([[NAN, 0.0], [-INF, 0.0], [INF, 0.0]], np.float32)
        got = ops.cross_entropy(x, t, reduction="none")
        self.assertTrue(np.isnan(got[0]))
        self.assertEqual(got[1], 0.0)  # -inf logit of another class is fine
        self.assertTrue(np.isnan(got[2]))  # inf - inf
        # With smoothing the -inf class enters: the loss is infinite.
        got = ops.cross_entropy(x[1:2], t[1:2], reduction="none",
                                label_smoothing=0.1)
        self.assertEqual(got[0], INF)

    def test_out_of_range(self):
        with self.assertRaises(ValueError):
            ops.cross_entropy(np.zeros((2, 3)), np.array([0, 3]))
        with self.assertRaises(ValueError):
            ops.cross_entropy(np.zeros((2, 3)), np.array([0, -1]))

    def test_batched_shape(self):
        x = np.random.default_rng(19).standard_normal((2, 3, 5))
        t = np.array([[0, 1, 4], [2, -100, 3]])
        self.assertEqual(ops.cross_entropy(x, t, reduction="none").shape,
                         (2, 3))

    @NEED_TORCH
    def test_torch(self):
        rng = np.random.default_rng(20)
        x = rng.standard_normal((4, 6, 5)).astype(np.float64)
        t = rng.integers(0, 5, (4, 6)).astype(np.int64)
        t[0, :3] = -100
        w = rng.random(5) + 0.1
        for red in ("none", "sum", "mean"):
            for s in (0.0, 0.2):
                for weight in (None, w):
                    tw = torch.from_numpy(weight) if weight is not None else None
                    want = torch.nn.functional.cross_entropy(
                        torch.from_numpy(x).movedim(-1, 1),
                        torch.from_numpy(t), weight=tw, reduction=red,
                        label_smoothing=s).numpy()
                    got = ops.cross_entropy(x, t, weight, red,
                                            label_smoothing=s)
                    np.testing.assert_allclose(got, want, rtol=1e-10,
                                               atol=1e-12)


if __name__ == "__main__":
    unittest.main()
