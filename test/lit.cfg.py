# lit configuration of the sift suite.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "sift"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]

# Tests run from the build tree; the sources stay read-only.
config.test_source_root = os.path.join(config.sift_src_root, "test")
config.test_exec_root = os.path.join(config.sift_obj_root, "test")

llvm_config.with_system_environment(["HOME", "TMP", "TEMP", "SIFT_CACHE"])
# tensor-run's compile cache lives in the build tree unless SIFT_CACHE_DIR
# names another directory: tests never write to the user's.
config.environment["SIFT_CACHE_DIR"] = os.environ.get(
    "SIFT_CACHE_DIR", os.path.join(config.sift_obj_root, "jit-cache"))
llvm_config.use_default_substitutions()

config.substitutions.append(("%sift_src_root", config.sift_src_root))

tool_dirs = [config.sift_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["tensor-opt", "tensor-run", "FileCheck",
                                    "not", "count"], tool_dirs)
llvm_config.with_environment("PATH", config.sift_tools_dir, append_path=True)

# Integration tests run the lowered code with mlir-runner, the MLIR runner
# utilities (printMemref*) and the sift runtime (sift_rt_error & co).
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(
    ("%mlir_runner", os.path.join(config.llvm_tools_dir, "mlir-runner")))
config.substitutions.append(("%shlibs", ",".join([
    os.path.join(llvm_lib_dir, "libmlir_runner_utils.so"),
    os.path.join(llvm_lib_dir, "libmlir_c_runner_utils.so"),
    os.path.join(llvm_lib_dir, "libomp.so"),
    os.path.join(config.sift_obj_root, "lib", "libsift_runtime.so"),
])))

# GPU tests. `ptxas`: the CUDA toolkit's PTX assembler (in
# $CUDA_HOME/bin, /usr/local/cuda/bin or PATH) checks the PTX the GPU
# pipeline makes. `cuda-driver`: the CUDA driver loads and finds a device,
# so compiled code can run on it; tests that need one carry
# `REQUIRES: cuda-driver` and are unsupported elsewhere.
import ctypes
import shutil

cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
ptxas = shutil.which("ptxas", path=os.pathsep.join(
    [os.path.join(cuda_home, "bin"), "/usr/local/cuda/bin",
     os.environ.get("PATH", "")]))
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    config.substitutions.append(
        ("%cuda_toolkit", os.path.dirname(os.path.dirname(ptxas))))
config.substitutions.append(
    ("%extract_ptx", "python3 " + os.path.join(config.sift_src_root, "test",
                                               "GPU", "Inputs",
                                               "extract_ptx.py")))


def cuda_device_present():
    if os.environ.get("SIFT_CUDA_DISABLE") == "1":
        return False
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return (cuda.cuInit(0) == 0 and
            cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and
            count.value > 0)


if cuda_device_present():
    config.available_features.add("cuda-driver")

# `valgrind`: memcheck finds reads of freed memory inside libMLIR.so, which
# the sanitizer build does not instrument (a pass that uses an op after a
# rewrite erased it). Not in the sanitizer build, whose programs cannot run
# under valgrind.
valgrind = shutil.which("valgrind")
if valgrind and not getattr(config, "sift_sanitize", False):
    config.available_features.add("valgrind")
    config.substitutions.append(
        ("%valgrind", f"{valgrind} -q --error-exitcode=1"))
