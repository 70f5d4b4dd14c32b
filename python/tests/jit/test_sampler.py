"""examples/sampler.mlir, made static (--sift-staticize) and batched
(--sift-batch{func=sampler size=4}), called from Python and checked against
an independent NumPy reference of the dynamic program (written here from
the NumPy references of the ops in sift.reference.ops), and by properties."""

import numpy as np
import pytest

import sift
from sift.reference import ops

N, D, K, HALF, B = 10000, 16, 1000, 500, 4


def sampler_reference(feats, labels, seed):
    """The dynamic sampler of examples/sampler.mlir, step by step."""
    pos = ops.nonzero(labels == 1)
    neg = ops.nonzero(labels == 0)
    num_pos0, num_neg0 = min(len(pos), HALF), min(len(neg), HALF)
    neg_short, pos_short = num_neg0 < HALF, num_pos0 < HALF
    num_pos1 = K - num_neg0 if neg_short else num_pos0
    num_neg1 = K - num_pos0 if pos_short else num_neg0
    num_neg2 = num_neg0 if neg_short else num_neg1
    num_pos, num_neg = min(num_pos1, len(pos)), min(num_neg2, len(neg))
    pos_idx = pos[ops.randperm(len(pos), seed)[:num_pos]]
    neg_idx = neg[ops.randperm(len(neg), seed, offset=1)[:num_neg]]
    both = np.concatenate([pos_idx, neg_idx])
    idx = both[ops.randperm(num_pos + num_neg, seed, offset=2)]
    return feats[idx], labels[idx]


def make_rows():
    """Four rows: 30 % positives; positives short (fill with negatives);
    negatives short (fill with positives); fewer than K eligible items.
    Row r's feature row j is (j, r, ...), so a picked row tells its index."""
    rng = np.random.default_rng(42)
    labels = np.full((B, N), -1, dtype=np.int64)
    kinds = rng.random((B, N))
    labels[0] = np.where(kinds[0] < 0.3, 1, np.where(kinds[0] < 0.9, 0, -1))
    labels[1] = np.where(kinds[1] < 0.01, 1, np.where(kinds[1] < 0.5, 0, -1))
    labels[2] = np.where(kinds[2] < 0.5, 1, np.where(kinds[2] < 0.52, 0, -1))
    labels[3] = np.where(kinds[3] < 0.02, 1, np.where(kinds[3] < 0.06, 0, -1))
    feats = rng.random((B, N, D), dtype=np.float32)
    feats[:, :, 0] = np.arange(N, dtype=np.float32)
    feats[:, :, 1] = np.arange(B, dtype=np.float32)[:, None]
    seeds = np.array([7, 123456789, 2**40 + 3, 0], dtype=np.int64)
    return feats, labels, seeds


@pytest.fixture(scope="module")
def module(examples_dir):
    return sift.compile_mlir(
        examples_dir / "sampler.mlir",
        transforms=["sift-staticize", "sift-batch{func=sampler size=4}"])


@pytest.fixture(scope="module")
def rows():
    return make_rows()


def test_signatures(module):
    single = module.sampler.signature
    assert [t.name for t in single.inputs] == ["input", "labels", "seed"]
    assert [type(r) for r in single.results] == [sift.BoundedType] * 2
    assert single.results[0].data.shape == (K, D)
    assert single.results[1].data.shape == (K,)
    batched = module.sampler_batched.signature
    assert [t.shape for t in batched.inputs] == [(B, N, D), (B, N), (B,)]
    assert batched.results[0].data.shape == (B, K, D)
    assert batched.results[0].count.shape == (B,)


def check_row(feats, labels, seed, got_feats, got_labels, r):
    want_feats, want_labels = sampler_reference(feats, labels, int(seed))
    assert int(got_feats.count) == int(got_labels.count) == len(want_labels)
    np.testing.assert_array_equal(got_feats.trim(), want_feats)
    np.testing.assert_array_equal(got_labels.trim(), want_labels)
    # Properties, independent of the reference: distinct items, of the
    # row, labelled as the returned labels say, none ignored.
    picked = got_feats.trim()[:, 0].astype(np.int64)
    assert len(np.unique(picked)) == len(picked)
    assert (got_feats.trim()[:, 1] == r).all()
    np.testing.assert_array_equal(labels[picked], got_labels.trim())
    assert set(np.unique(got_labels.trim())) <= {0, 1}
    n_pos, n_neg = (labels == 1).sum(), (labels == 0).sum()
    taken_pos = int((got_labels.trim() == 1).sum())
    assert taken_pos == min(n_pos, max(HALF, K - min(n_neg, HALF)))
    assert len(picked) == min(K, n_pos + n_neg)


def test_per_sample_function_matches_the_reference(module, rows):
    feats, labels, seeds = rows
    for r in range(B):
        got_feats, got_labels = module.sampler(feats[r], labels[r], seeds[r])
        assert isinstance(got_feats, sift.Bounded)
        assert got_feats.data.shape == (K, D)
        check_row(feats[r], labels[r], seeds[r], got_feats, got_labels, r)


def test_batched_function_matches_the_reference(module, rows):
    feats, labels, seeds = rows
    got_feats, got_labels = module.sampler_batched(feats, labels, seeds)
    assert got_feats.data.shape == (B, K, D)
    assert got_feats.count.shape == (B,)
    # Row 3 has fewer than K eligible items.
    assert got_feats.count[3] < K and got_feats.count[0] == K
    trimmed = got_labels.trim()
    assert len(trimmed) == B
    for r in range(B):
        row_feats = sift.Bounded(got_feats.data[r], got_feats.count[r])
        row_labels = sift.Bounded(got_labels.data[r], got_labels.count[r])
        check_row(feats[r], labels[r], seeds[r], row_feats, row_labels, r)
        np.testing.assert_array_equal(trimmed[r], row_labels.trim())


def test_batched_from_torch(module, rows):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    feats, labels, seeds = rows
    got = module.sampler_batched(torch.from_numpy(feats),
                                 torch.from_numpy(labels),
                                 torch.from_numpy(seeds))
    want = module.sampler_batched(feats, labels, seeds)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.data, w.data)
        np.testing.assert_array_equal(g.count, w.count)
    counts = torch.from_dlpack(got[1].count)
    assert counts.tolist() == list(want[1].count)
