"""The balanced sampler as PyTorch users write it (bench/sampler/
torch_sampler.py's dynamic_sampler, with its `if`s as min/max so that
torch.export takes it), through sift.torch.compile: unbatched and batched,
against eager PyTorch's properties (random ops match in distribution, not
bit for bit)."""

import re

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
st = pytest.importorskip("sift.torch", reason="sift.torch needs PyTorch")

K = 64
N = 1000


def sampler(labels):
    """K indices into labels: K/2 positives (1) and K/2 negatives (0) in
    random order, a short group filled up from the other one."""
    half = K // 2
    pos = torch.nonzero(labels == 1).flatten()
    neg = torch.nonzero(labels == 0).flatten()
    num_pos = min(pos.numel(), half)
    num_neg = min(neg.numel(), half)
    # `if num_neg < half: num_pos = min(K - num_neg, len(pos))` and its
    # `elif`, without a Python branch on a data-dependent size:
    num_pos = min(max(num_pos, K - num_neg), pos.numel())
    num_neg = min(K - num_pos, neg.numel())
    take_pos = torch.randperm(pos.numel())[:num_pos]
    take_neg = torch.randperm(neg.numel())[:num_neg]
    idx = torch.cat([pos[take_pos], neg[take_neg]])
    return idx[torch.randperm(idx.numel())]


def labels_with(n_pos, n_neg, seed):
    g = torch.Generator().manual_seed(seed)
    labels = torch.full((N,), -1, dtype=torch.int64)
    where = torch.randperm(N, generator=g)
    labels[where[:n_pos]] = 1
    labels[where[n_pos:n_pos + n_neg]] = 0
    return labels


CASES = [(300, 500), (10, 900), (900, 5), (20, 10), (0, 0), (0, 700),
         (N, 0)]


def check_properties(idx, labels, want):
    """idx is a valid sample of labels with the eager sampler's counts."""
    assert idx.dtype == torch.int64 and idx.dim() == 1
    assert idx.numel() == want.numel()
    assert len(set(idx.tolist())) == idx.numel()          # distinct
    picked = labels[idx]
    assert bool(((picked == 0) | (picked == 1)).all())    # eligible only
    assert int((picked == 1).sum()) == int((labels[want] == 1).sum())
    assert int((picked == 0).sum()) == int((labels[want] == 0).sum())


@pytest.fixture(scope="module")
def compiled():
    return st.compile(sampler, (labels_with(300, 500, 0),))


def test_translation_keeps_the_natural_ops(compiled):
    text = compiled.mlir
    assert len(re.findall(r"sift\.nonzero", text)) == 2
    assert len(re.findall(r"sift\.randperm %\d+, %seed offset %\d+ :",
                          text)) == 3
    assert re.search(r"arith\.minsi", text) and re.search(r"arith\.maxsi",
                                                          text)
    assert "tensor.concat dim(0)" in text and "sift.gather" in text
    assert compiled.takes_seed


@pytest.mark.parametrize("n_pos,n_neg", CASES)
def test_unbatched_matches_eager_properties(compiled, n_pos, n_neg):
    labels = labels_with(n_pos, n_neg, n_pos + 7 * n_neg)
    want = sampler(labels)
    for seed in (1, 2):
        check_properties(compiled(labels, seed=seed), labels, want)


def test_seeds_give_streams(compiled):
    labels = labels_with(300, 500, 3)
    a, b, c = (compiled(labels, seed=s) for s in (11, 11, 12))
    assert torch.equal(a, b) and not torch.equal(a, c)
    assert torch.equal(torch.sort(a).values, torch.sort(a).values)


def test_every_eligible_item_can_be_drawn(compiled):
    # Over seeds, a group larger than its share is sampled all over
    # (randperm's distribution, not PyTorch's bits).
    labels = labels_with(100, 800, 4)
    seen = set()
    for seed in range(40):
        idx = compiled(labels, seed=seed)
        seen |= {int(i) for i in idx if labels[i] == 1}
    assert len(seen) > 90


def test_static_program_and_report(compiled):
    static = compiled.static_mlir
    if static is not None:
        assert "?" not in re.sub(r"loc\(.*?\)", "", static.split(
            "func.func", 1)[1])
        assert "sift.nonzero" not in static
        assert "sift.randperm " not in static  # randperm_prefix: static
    report = compiled.report
    assert "host syncs removed: 5" in report
    assert re.search(r"padded tensor<\d+xi64>", report)


def test_batched_rows_equal_unbatched_calls(compiled):
    B = 6
    batched = st.compile(sampler, (labels_with(300, 500, 0),), batch=B)
    rows = torch.stack([labels_with(p, n, i) for i, (p, n) in
                        enumerate(CASES[:B])])
    seeds = torch.arange(100, 100 + B)
    out = batched(rows, seed=seeds)
    assert isinstance(out, list) and len(out) == B
    for i in range(B):
        assert torch.equal(out[i], compiled(rows[i], seed=int(seeds[i])))
        check_properties(out[i], rows[i], sampler(rows[i]))
    # Untrimmed: one padded tensor and a count per row, no host sync.
    pairs = st.compile(sampler, (rows[0],), batch=B, trim=False)(
        rows, seed=seeds)
    assert pairs.data.shape[0] == B and tuple(pairs.count.shape) == (B,)
    assert [int(c) for c in pairs.count] == [o.numel() for o in out]
    assert "batched (--sift-batch size=6)" in batched.report
