"""sift.torch: programs exported with torch.export, translated to sift MLIR,
staticized, compiled and called on torch tensors, against eager PyTorch."""

import numpy as np
import pytest

import sift

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
st = pytest.importorskip("sift.torch", reason="sift.torch needs PyTorch")


def check(fn, *args, trials=()):
    """Compiles fn on args, then compares with eager on args and on each
    argument tuple of `trials` (same shapes, other data)."""
    compiled = st.compile(fn, args)
    for case in (args,) + tuple(trials):
        want = fn(*case)
        got = compiled(*case)
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert isinstance(g, torch.Tensor)
            assert g.dtype == w.dtype and g.shape == w.shape
            torch.testing.assert_close(g, w, rtol=0, atol=0)
    return compiled


def test_nonzero_then_gather_rows():
    def pick(x, labels):
        pos = torch.nonzero(labels == 1).squeeze(1)
        return x[pos] * 2.0, labels + 1

    g = torch.Generator().manual_seed(0)
    x = torch.randn(64, 5, generator=g)
    labels = torch.randint(-1, 2, (64,), generator=g)
    compiled = check(pick, x, labels, trials=[
        (x, torch.ones(64, dtype=torch.int64)),         # everything
        (x, torch.zeros(64, dtype=torch.int64)),        # nothing
        (x.flip(0), torch.randint(-1, 2, (64,), generator=g))])
    # The function is static after sift-staticize: a bounded result.
    sig = compiled.function.signature
    assert [t.name for t in sig.inputs] == ["x", "labels"]
    assert isinstance(sig.results[0], sift.BoundedType)
    assert sig.results[0].data.shape == (64, 5)
    assert "sift.nonzero" in compiled.mlir


def test_masked_select_and_boolean_indexing():
    def keep(scores, boxes):
        good = (scores > 0.5) & (scores < 0.9)
        return scores[good], boxes[good], torch.masked_select(scores,
                                                              scores > 0.2)

    g = torch.Generator().manual_seed(1)
    scores = torch.rand(100, generator=g)
    boxes = torch.rand(100, 4, generator=g)
    check(keep, scores, boxes,
          trials=[(torch.rand(100, generator=g), boxes),
                  (torch.zeros(100), boxes)])


def test_index_select_and_promotion():
    def f(x, idx, n):
        sel = torch.index_select(x, 0, idx)
        return sel * 3 - 1.5, (n * 2 + 1) > 4, n.to(torch.int32) == 3

    x = torch.randn(10, 2, dtype=torch.float64)
    idx = torch.tensor([9, 0, 3, 3], dtype=torch.int64)
    n = torch.arange(6, dtype=torch.int64)
    check(f, x, idx, n)


def test_parameter_names_do_not_clash_with_temporaries():
    def f(v1, v2, t1):
        return (v1 + v2) * t1

    args = tuple(torch.full((3,), float(i + 1)) for i in range(3))
    compiled = check(f, *args)
    assert [t.name for t in compiled.function.signature.inputs] == [
        "v1", "v2", "t1"]


def test_parameters_past_the_examples_keep_their_defaults():
    # torchvision's remove_small_boxes(boxes, min_size), compiled with the
    # boxes only: min_size is its default, a constant of the program.
    def remove_small_boxes(boxes, min_size: float = 0.1):
        ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
        keep = (ws >= min_size) & (hs >= min_size)
        return torch.where(keep)[0]

    g = torch.Generator().manual_seed(4)
    boxes = torch.rand(50, 4, generator=g).sort(1).values
    f = st.compile(remove_small_boxes, (boxes,))
    assert "%boxes" in f.mlir and "min_size" not in f.mlir
    assert torch.equal(f(boxes), remove_small_boxes(boxes))


def test_no_copy_of_results():
    def f(x):
        return x + x

    compiled = st.compile(f, (torch.ones(1000),))
    r = compiled(torch.ones(1000))
    assert torch.equal(r, torch.full((1000,), 2.0))
    # A view of sift's NumPy result: writable, and it is not the input.
    r += 1
    assert torch.equal(r, torch.full((1000,), 3.0))


def test_bounded_results_untrimmed():
    def f(x):
        return x[x > 0]

    x = torch.tensor([1.0, -1.0, 2.0, -3.0, 4.0])
    compiled = st.compile(f, (x,), trim=False)
    out = compiled(x)
    assert isinstance(out, sift.Bounded)
    assert int(out.count) == 3 and tuple(out.data.shape) == (5,)
    assert torch.equal(out.data[:3], torch.tensor([1.0, 2.0, 4.0]))


def test_unsupported_ops_are_named():
    def f(x):
        return torch.linalg.det(x)

    with pytest.raises(sift.UnsupportedError, match="aten.linalg_det"):
        st.export_mlir(f, (torch.randn(3, 3),))

    with pytest.raises(sift.UnsupportedError, match="float16"):
        st.export_mlir(lambda x: x + x, (torch.ones(4, dtype=torch.float16),))


def test_module_parameters_and_buffers_are_passed_by_the_function():
    class Scale(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.arange(4.0))
            self.register_buffer("b", torch.ones(4))

        def forward(self, x):
            return x[x > 0].sum() * self.w + self.b

    m = Scale()
    x = torch.tensor([1.0, -2.0, 3.0, 0.5])
    compiled = st.compile(m, (x,))
    torch.testing.assert_close(compiled(x), m(x).detach())
    # The parameter is read at each call: updates are seen.
    with torch.no_grad():
        m.w.mul_(2)
    # (export captured the tensors themselves, so the update shows.)
    torch.testing.assert_close(compiled(x), m(x).detach())


def test_translation_is_mlir_sift_accepts():
    def f(x, labels):
        return x[torch.nonzero(labels != 0).squeeze(1)]

    text = st.export_mlir(f, (torch.randn(16, 3),
                              torch.zeros(16, dtype=torch.int64)))
    m = sift.compile_mlir(text, transforms="sift-staticize")
    labels = np.array([0, 1] * 8)
    x = np.arange(48, dtype=np.float32).reshape(16, 3)
    out = m.forward(x, labels)
    np.testing.assert_array_equal(out.trim(), x[labels != 0])
