"""Zero-copy exchange: NumPy arrays and DLPack producers (PyTorch, JAX) in,
NumPy arrays out that torch.from_dlpack views without a copy."""

import numpy as np
import pytest

import sift
from sift import _sift

ADD = """
func.func @add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = arith.addf %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""


@pytest.fixture(scope="module")
def module():
    return sift.compile_mlir(ADD)


def test_numpy_input_is_not_copied():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    address, dtype, shape, strides = _sift._view_info(a)
    assert address == a.ctypes.data
    assert (dtype, shape, strides) == ("f32", (2, 3), (3, 1))
    # A strided view is passed as it is laid out (the engine copies it
    # only because compiled code takes contiguous tensors).
    t = a.T
    address, _, shape, strides = _sift._view_info(t)
    assert address == t.ctypes.data
    assert (shape, strides) == ((3, 2), (1, 3))


def test_torch_tensors_in_and_out(module):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    a = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    b = torch.full((2, 3), 0.5)
    address, dtype, shape, _ = _sift._view_info(a)
    assert address == a.data_ptr() and dtype == "f32" and shape == (2, 3)
    r = module.add(a, b)
    assert isinstance(r, np.ndarray)
    np.testing.assert_array_equal(r, (a + b).numpy())
    # The result is viewed by PyTorch without a copy, and the view keeps
    # the buffer alive.
    t = torch.from_dlpack(r)
    assert t.data_ptr() == r.ctypes.data
    assert t.dtype == torch.float32 and tuple(t.shape) == (2, 3)
    del r
    assert torch.equal(t, a + b)
    # torch tensors of every exchanged dtype map to sift's.
    for dt, name in [(torch.bool, "i1"), (torch.int8, "i8"),
                     (torch.uint8, "u8"), (torch.int16, "i16"),
                     (torch.int32, "i32"), (torch.int64, "i64"),
                     (torch.float64, "f64")]:
        assert _sift._view_info(torch.zeros(3, dtype=dt))[1] == name


def test_torch_unsupported_dtype_is_rejected(module):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    half = torch.zeros(2, 3, dtype=torch.float16)
    with pytest.raises(sift.InvalidArgumentError,
                       match=r"function 'add': argument 0: .*float16"):
        module.add(half, half)


def test_jax_arrays_in(module):
    jnp = pytest.importorskip("jax.numpy", reason="JAX is not installed")
    import jax
    a = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)
    b = jnp.ones((2, 3), dtype=jnp.float32)
    r = module.add(a, b)
    np.testing.assert_array_equal(r, np.asarray(a) + np.asarray(b))
    # The view points at the JAX buffer itself.
    address = _sift._view_info(a)[0]
    assert address == a.unsafe_buffer_pointer()
    # And JAX views the result back through DLPack.
    back = jax.dlpack.from_dlpack(r)
    np.testing.assert_array_equal(np.asarray(back), r)
