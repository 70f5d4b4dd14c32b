// SIFT_OPENMP_RUNTIME replaces the OpenMP runtime the CPU target loads (the
// tools moved to a machine without LLVM, scripts/device-bundle.sh): a path
// that does not exist is an error naming it.
//
// RUN: env SIFT_OPENMP_RUNTIME=%t.missing-libomp.so not tensor-run %s --random --no-compile-cache 2>&1 | FileCheck %s
// CHECK: tensor-run: error: JIT compilation failed: cannot load '{{.*}}missing-libomp.so'
func.func @add(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %s = arith.addf %a, %b : tensor<8xf32>
  return %s : tensor<8xf32>
}
