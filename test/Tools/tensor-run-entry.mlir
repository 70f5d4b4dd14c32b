// With -e, tensor-run compiles only that function and what it calls: a
// function whose lowering fails does not stop another from running.
//
// RUN: tensor-run %s -e twice --random | FileCheck %s
// RUN: not tensor-run %s -e wide --random 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: not tensor-run %s --random 2>&1 | FileCheck %s --check-prefix=WIDE

// CHECK: @twice: 1 argument(s), 1 result(s)
// WIDE: error: {{.*}}'sift.argsort' op has no CPU lowering for element type 'i128'

func.func @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @wide(%a: tensor<8xi128>) -> tensor<8xi64> {
  %p = sift.argsort %a : tensor<8xi128> -> tensor<8xi64>
  return %p : tensor<8xi64>
}
