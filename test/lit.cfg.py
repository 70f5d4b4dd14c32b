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
llvm_config.add_tool_substitutions(["tensor-opt", "FileCheck", "not",
                                    "count"], tool_dirs)
llvm_config.with_environment("PATH", config.sift_tools_dir, append_path=True)
