// Bounds of computed sizes: arithmetic, min/max, select and scf.if on sizes,
// and extract_slice with a computed offset, size and stride.
// RUN: tensor-opt %s --sift-staticize=report=1 --sift-verify-static -verify-diagnostics | FileCheck %s

// The size is min(n, 500): the slice is padded to 500 rows. Row i reads row
// offset + i * stride of the source, and -1 (invalid) past its count.
// CHECK-LABEL: func @slice_min
// CHECK-SAME: -> (tensor<500xi64>, tensor<i64>)
// expected-remark @+1 {{sift-staticize: 2 data-dependent values rewritten, 1 host syncs removed}}
func.func @slice_min(%m: tensor<1000xi1>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c500 = arith.constant 500 : index
  // expected-remark @+1 {{'sift.nonzero' padded to 1000 rows}}
  %idx = sift.nonzero %m : tensor<1000xi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %k = arith.minui %n, %c500 : index
  // CHECK: %[[IDX:.*]], %[[CNT:.*]] = sift.compact
  // CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %{{.*}} : tensor<500xi64>
  // CHECK: %[[FROM:.*]] = arith.addi %[[ROWS]], %{{.*}} : tensor<500xi64>
  // CHECK: %[[IN:.*]] = arith.cmpi slt, %[[FROM]], %{{.*}} : tensor<500xi64>
  // CHECK: %[[SEL:.*]] = arith.select %[[IN]], %[[FROM]], %{{.*}} : tensor<500xi1>, tensor<500xi64>
  // CHECK: sift.gather %[[IDX]][%[[SEL]]] : tensor<1000xi64>, tensor<500xi64> -> tensor<500xi64>
  // expected-remark @+1 {{'tensor.extract_slice' padded to 500 rows}}
  %s = tensor.extract_slice %idx[%c3] [%k] [%c2] : tensor<?xi64> to tensor<?xi64>
  return %s : tensor<?xi64>
}

// select, subtraction and scf.if: the bound is the largest of the choices.
// CHECK-LABEL: func @select_and_if
// CHECK-SAME: -> (tensor<300xi64>, tensor<i64>)
// expected-remark @+1 {{sift-staticize: 2 data-dependent values rewritten, 1 host syncs removed}}
func.func @select_and_if(%m: tensor<400xi1>, %flag: i1) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %c100 = arith.constant 100 : index
  %c300 = arith.constant 300 : index
  // expected-remark @+1 {{'sift.nonzero' padded to 400 rows}}
  %idx = sift.nonzero %m : tensor<400xi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %a = arith.minsi %n, %c100 : index
  %rest = arith.subi %c300, %a : index
  %b = arith.select %flag, %rest, %a : index
  %size = scf.if %flag -> index {
    scf.yield %b : index
  } else {
    %small = arith.minsi %n, %c100 : index
    scf.yield %small : index
  }
  %len = arith.minsi %size, %n : index
  // expected-remark @+1 {{'tensor.extract_slice' padded to 300 rows}}
  %s = tensor.extract_slice %idx[0] [%len] [1] : tensor<?xi64> to tensor<?xi64>
  return %s : tensor<?xi64>
}
