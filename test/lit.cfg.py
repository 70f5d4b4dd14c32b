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

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
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
