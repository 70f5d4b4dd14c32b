"""compile_mlir, Module, Function signatures and calls with NumPy arrays."""

import inspect

import numpy as np
import pytest

import sift

ADD = """
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @hidden(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @scale(%x: tensor<2x?xf64>, %s: f64) -> (tensor<2x?xf64>, f64) {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<2x?xf64>
  %e = tensor.empty(%n) : tensor<2x?xf64>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x?xf64>) outs(%e : tensor<2x?xf64>) {
    ^bb0(%v: f64, %o: f64):
      %m = arith.mulf %v, %s : f64
      linalg.yield %m : f64
  } -> tensor<2x?xf64>
  %s2 = arith.addf %s, %s : f64
  return %r, %s2 : tensor<2x?xf64>, f64
}
"""

# Every dtype sift exchanges: an identity-like function per element type
# (x + x, or x xor x for i1), so that the result's dtype and values are
# checked against NumPy's own arithmetic.
DTYPES = [("i8", np.int8), ("i16", np.int16), ("i32", np.int32),
          ("i64", np.int64), ("f32", np.float32), ("f64", np.float64)]


@pytest.fixture(scope="module")
def module():
    return sift.compile_mlir(ADD)


def test_public_functions_are_attributes(module):
    assert list(module.functions) == ["add", "scale"]
    assert module.add is module["add"] is module.functions["add"]
    assert "add" in dir(module) and "scale" in dir(module)
    with pytest.raises(AttributeError, match="no public function 'hidden'"):
        module.hidden


def test_signature_is_introspectable(module):
    sig = module.add.signature
    assert sig.name == "add"
    assert [t.name for t in sig.inputs] == ["a", "b"]
    assert [t.dtype for t in sig.inputs] == [np.dtype(np.float32)] * 2
    assert [t.shape for t in sig.inputs] == [(4,), (4,)]
    assert len(sig.results) == 1
    assert sig.results[0].name == "result0"
    assert sig.results[0].shape == (4,)
    assert sig.results[0].mlir_type == "tensor<4xf32>"
    assert str(inspect.signature(module.add)) == "(a, b)"
    scale = module.scale.signature
    assert scale.inputs[0].shape == (2, None)
    assert scale.inputs[0].mlir_type == "tensor<2x?xf64>"
    assert not scale.inputs[1].is_tensor and scale.inputs[1].shape == ()
    assert scale.inputs[1].dtype == np.float64
    assert not scale.results[1].is_tensor


def test_call_positional_and_by_name(module):
    a = np.array([1, 2, 3, 4], dtype=np.float32)
    b = np.array([0.5, -2, 10, 0], dtype=np.float32)
    want = a + b
    np.testing.assert_array_equal(module.add(a, b), want)
    np.testing.assert_array_equal(module.add(a, b=b), want)
    np.testing.assert_array_equal(module.add(b=b, a=a), want)
    with pytest.raises(sift.InvalidArgumentError, match="'add'"):
        module.add(a, b, b)
    with pytest.raises(sift.InvalidArgumentError, match="'add'"):
        module.add(a, c=b)


def test_dynamic_shapes_scalars_and_several_results(module):
    x = np.arange(10, dtype=np.float64).reshape(2, 5)
    r, s2 = module.scale(x, 1.5)
    np.testing.assert_array_equal(r, x * 1.5)
    assert r.shape == (2, 5) and r.dtype == np.float64
    # A scalar result comes back as a NumPy scalar.
    assert isinstance(s2, np.float64) and s2 == 3.0
    # NumPy scalars and ints are accepted for a float parameter.
    np.testing.assert_array_equal(module.scale(x, np.float32(2))[0], x * 2)
    np.testing.assert_array_equal(module.scale(x, 3)[0], x * 3)


def test_results_own_their_memory():
    m = sift.compile_mlir(ADD)
    a = np.ones(4, dtype=np.float32)
    r = m.add(a, a)
    assert r.flags.c_contiguous and r.flags.writeable
    assert not np.shares_memory(r, a)
    del m
    import gc
    gc.collect()
    # The result outlives the module and is a normal, writable array.
    r += 1
    np.testing.assert_array_equal(r, np.full(4, 3, dtype=np.float32))


@pytest.mark.parametrize("name,dtype", DTYPES)
def test_dtypes_round_trip(name, dtype):
    m = sift.compile_mlir(f"""
func.func @twice(%x: tensor<5x{name}>) -> tensor<5x{name}> {{
  %0 = arith.add{"f" if name.startswith("f") else "i"} %x, %x : tensor<5x{name}>
  return %0 : tensor<5x{name}>
}}""")
    x = np.array([0, 1, -2, 3, 60], dtype=dtype)
    r = m.twice(x)
    assert r.dtype == dtype and r.shape == (5,)
    np.testing.assert_array_equal(r, x + x)
    assert m.twice.signature.inputs[0].dtype == dtype


def test_bool_and_uint8():
    m = sift.compile_mlir("""
func.func @xor(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = arith.xori %a, %b : tensor<4xi1>
  return %0 : tensor<4xi1>
}
func.func @inc(%a: tensor<3xi8>) -> tensor<3xi8> {
  %c = arith.constant dense<1> : tensor<3xi8>
  %0 = arith.addi %a, %c : tensor<3xi8>
  return %0 : tensor<3xi8>
}""")
    a = np.array([True, False, True, False])
    b = np.array([True, True, False, False])
    r = m.xor(a, b)
    assert r.dtype == np.bool_
    np.testing.assert_array_equal(r, a ^ b)
    assert m.xor.signature.inputs[0].dtype == np.bool_
    # i8 parameters take uint8 data too (the engine's U8): 255 + 1 wraps.
    r = m.inc(np.array([1, 127, 255], dtype=np.uint8))
    np.testing.assert_array_equal(r, np.array([2, -128, 0], dtype=np.int8))


def test_non_contiguous_arrays_are_copied(module):
    # Documented: strided inputs are copied into contiguous buffers by the
    # engine; the results are those of the contiguous data.
    base = np.arange(16, dtype=np.float32)
    a = base[::4]
    b = base.reshape(4, 4)[:, 1]
    assert not a.flags.c_contiguous and not b.flags.c_contiguous
    np.testing.assert_array_equal(module.add(a, b), a + b)
    # Negative strides too.
    c = base[3::-1]
    np.testing.assert_array_equal(module.add(c, c), c + c)


def test_source_from_a_path(tmp_path):
    path = tmp_path / "add.mlir"
    path.write_text(ADD)
    for source in (path, str(path)):
        m = sift.compile_mlir(source, functions=["add"])
        assert list(m.functions) == ["add"]
        one = np.ones(4, dtype=np.float32)
        np.testing.assert_array_equal(m.add(one, one), 2 * one)


def test_transforms_as_list_or_string(examples_dir):
    for transforms in (["sift-staticize"], "sift-staticize"):
        m = sift.compile_mlir(examples_dir / "sampler.mlir",
                              transforms=transforms)
        results = m.sampler.signature.results
        assert [type(r) for r in results] == [sift.BoundedType] * 2
        assert results[0].data.shape == (1000, 16)
        assert results[0].count.shape == ()
        assert results[1].data.dtype == np.int64


def test_bounded_trim():
    data = np.arange(10).reshape(2, 5)
    single = sift.Bounded(data[0], np.array(3))
    np.testing.assert_array_equal(single.trim(), [0, 1, 2])
    batched = sift.Bounded(data, np.array([2, 0]))
    rows = batched.trim()
    assert len(rows) == 2
    np.testing.assert_array_equal(rows[0], [0, 1])
    assert rows[1].shape == (0,)
    d, c = batched  # a named pair
    assert d is data and c is batched.count
    # Padded along a later dimension (x[:, mask]): trimmed there, the
    # batch dimensions of the count first.
    cols = sift.Bounded(data, np.array(2), dim=1)
    np.testing.assert_array_equal(cols.trim(), [[0, 1], [5, 6]])
    assert cols.dim == 1 and "dim=1" in repr(cols) and len(cols) == 2
    cube = np.arange(24).reshape(2, 3, 4)
    rows = sift.Bounded(cube, np.array([1, 3]), dim=1).trim()
    np.testing.assert_array_equal(rows[0], cube[0][:, :1])
    np.testing.assert_array_equal(rows[1], cube[1][:, :3])


def test_compile_cache(tmp_path, monkeypatch):
    """A second compile of the same source and options loads the object
    code the first stored (in SIFT_CACHE_DIR), and computes the same;
    other options or cache=False compile afresh."""
    monkeypatch.setenv("SIFT_CACHE_DIR", str(tmp_path))
    first = sift.compile_mlir(ADD, name="add.mlir")
    assert not first.loaded_from_cache
    assert any(tmp_path.iterdir())
    second = sift.compile_mlir(ADD, name="add.mlir")
    assert second.loaded_from_cache
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(second.add(x, x), first.add(x, x))
    np.testing.assert_array_equal(second.add(x, x), 2 * x)
    assert not sift.compile_mlir(ADD, name="add.mlir",
                                 opt_level=1).loaded_from_cache
    assert not sift.compile_mlir(ADD, name="add.mlir",
                                 cache=False).loaded_from_cache
