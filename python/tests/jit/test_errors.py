"""Errors are sift.Error subclasses with the engine's message, the source
location, and for calls the function and argument at fault."""

import numpy as np
import pytest

import sift

ADD = """
func.func @add(%lhs: tensor<4xf32>, %rhs: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %lhs, %rhs : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @pick(%x: tensor<8xi64>, %n: index {sift.bound = 8 : i64}) -> i64 {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c0] : tensor<8xi64>
  return %v : i64
}
"""


@pytest.fixture(scope="module")
def module():
    return sift.compile_mlir(ADD)


def test_hierarchy():
    for cls in (sift.InvalidArgumentError, sift.NotFoundError,
                sift.ParseError, sift.CompileError, sift.UnsupportedError,
                sift.ExecutionError, sift.OutOfMemoryError):
        assert issubclass(cls, sift.Error)
    assert issubclass(sift.InvalidArgumentError, ValueError)
    assert len({cls.code for cls in sift.Error.__subclasses__()}) == 7


def test_parse_error_has_the_location():
    source = "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n" \
             "  %0 = arith.addf %a, %a : tensor<4xf32>\n" \
             "  return %nope : tensor<4xf32>\n}\n"
    with pytest.raises(sift.ParseError) as info:
        sift.compile_mlir(source, name="mine.mlir")
    e = info.value
    assert e.location == ("mine.mlir", 3, 10)
    assert e.location.line == 3 and str(e.location) == "mine.mlir:3:10"
    assert "use of undeclared SSA value name" in str(e)
    assert e.code == 3


def test_verifier_error_in_a_file(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %0 = arith.addf %a, %a : tensor<4xf32>\n"
                    "  return %0 : tensor<4xi32>\n}\n")
    with pytest.raises(sift.ParseError) as info:
        sift.compile_mlir(path)
    assert info.value.location.file == str(path)
    assert info.value.location.line == 3


def test_missing_file_and_function(tmp_path):
    with pytest.raises(sift.NotFoundError, match="cannot open"):
        sift.compile_mlir(tmp_path / "absent.mlir")
    with pytest.raises(sift.NotFoundError, match="nope"):
        sift.compile_mlir(ADD, functions=["nope"])


def test_compile_errors(examples_dir, monkeypatch):
    with pytest.raises(sift.InvalidArgumentError, match="no-such-pass"):
        sift.compile_mlir(ADD, transforms="no-such-pass")
    # A transform that fails reports where: the first data-dependent op of
    # the sampler, a `sift.nonzero`.
    path = examples_dir / "sampler.mlir"
    with pytest.raises(sift.CompileError) as info:
        sift.compile_mlir(path, transforms="sift-verify-static")
    assert info.value.location.file == str(path)
    line = path.read_text().splitlines()[info.value.location.line - 1]
    assert "sift.nonzero" in line
    # The CUDA target compiles with the GPU pipeline, then needs a driver:
    # without one (SIFT_CUDA_DISABLE=1 makes any machine such a one, if no
    # call loaded the driver before) it is an UnsupportedError that says so.
    monkeypatch.setenv("SIFT_CUDA_DISABLE", "1")
    with pytest.raises(sift.UnsupportedError, match="no CUDA driver/device"):
        sift.compile_mlir(ADD, target="cuda", functions=["add"])
    with pytest.raises(sift.InvalidArgumentError, match="unknown target"):
        sift.compile_mlir(ADD, target="tpu")
    with pytest.raises(sift.InvalidArgumentError, match="opt_level"):
        sift.compile_mlir(ADD, opt_level=7)


def test_call_errors_name_function_and_argument(module):
    good = np.zeros(4, dtype=np.float32)
    cases = [
        ((good, np.zeros(4, dtype=np.int64)), 1, "element type f32"),
        ((good, np.zeros(5, dtype=np.float32)), 1, "shape"),
        ((np.zeros((2, 2), dtype=np.float32), good), 0, "rank"),
        ((good, [1.0, 2.0, 3.0, 4.0]), 1, "got list"),
        ((good, 3.0), 1, "got float"),
    ]
    for args, position, text in cases:
        with pytest.raises(sift.InvalidArgumentError) as info:
            module.add(*args)
        e = info.value
        assert e.function == "add"
        assert e.argument == position
        assert e.argument_name == ["lhs", "rhs"][position]
        assert text in str(e)
        assert f"argument {position} is '{e.argument_name}'" in str(e)
    with pytest.raises(sift.InvalidArgumentError,
                       match="expected 2 argument"):
        module.add(good)


def test_scalar_errors(module):
    x = np.arange(8)
    assert module.pick(x, 8) == 0
    with pytest.raises(sift.InvalidArgumentError, match="bound") as info:
        module.pick(x, 9)
    assert info.value.argument_name == "n"
    with pytest.raises(sift.InvalidArgumentError, match="integer"):
        module.pick(x, 2.5)
    with pytest.raises(sift.InvalidArgumentError, match="does not fit"):
        module.pick(x, 2**70)
    with pytest.raises(sift.InvalidArgumentError, match="got str"):
        module.pick(x, "3")
    # 0-d arrays are scalars; larger arrays are not.
    assert module.pick(x, np.array(4)) == 0
    with pytest.raises(sift.InvalidArgumentError, match="expected a scalar i64, got .*ndarray"):
        module.pick(x, np.array([1, 2]))


def test_runtime_error_is_an_execution_error():
    m = sift.compile_mlir("""
func.func private @sift_rt_error(i64, i64)
func.func @check(%a: tensor<2xi64>, %bad: i1) -> tensor<2xi64> {
  scf.if %bad {
    %code = arith.constant 1 : i64
    %value = arith.constant 42 : i64
    func.call @sift_rt_error(%code, %value) : (i64, i64) -> ()
  }
  return %a : tensor<2xi64>
}""")
    a = np.array([1, 2])
    np.testing.assert_array_equal(m.check(a, False), a)
    with pytest.raises(sift.ExecutionError, match="runtime error") as info:
        m.check(a, True)
    assert info.value.function == "check"
    # The module still works after the error.
    np.testing.assert_array_equal(m.check(a, 0), a)
    np.testing.assert_array_equal(m.check(a, np.False_), a)
    with pytest.raises(sift.ExecutionError):
        m.check(a, np.True_)
    with pytest.raises(sift.InvalidArgumentError, match="does not fit"):
        m.check(a, 2)
