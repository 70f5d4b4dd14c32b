// Malformed input gets a diagnostic with its location and a non-zero exit,
// never a crash.
// RUN: not tensor-opt %s 2>&1 | FileCheck %s
// RUN: not tensor-opt %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK: tensor-opt-bad-input.mlir:[[@LINE+3]]:{{[0-9]+}}: error: expected ','
// MISSING: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
func.func @truncated(%x: tensor<4xf32>) {
  %0:2 = sift.topk %x k(2) : tensor<4xf32> -> tensor<2xf32>
  return
}
