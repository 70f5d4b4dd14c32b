// Bounds of computed sizes: arithmetic, min/max, select and scf.if on sizes,
// and extract_slice with a computed offset, size and stride.
// RUN: tensor-opt %s --sift-staticize=report=1 --sift-verify-static -verify-diagnostics | FileCheck %s

// The size is min(n, 500), and the slice lies within its source (at most
// 1000 rows): from row 3 with stride 2 that is at most 499 rows. Row i reads
// row offset + i * stride of the source, and -1 (invalid) past its count.
// CHECK-LABEL: func @slice_min
// CHECK-SAME: -> (tensor<499xi64>, tensor<i64>)
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
  // CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %{{.*}} : tensor<499xi64>
  // CHECK: %[[FROM:.*]] = arith.addi %[[ROWS]], %{{.*}} : tensor<499xi64>
  // CHECK: %[[IN:.*]] = arith.cmpi slt, %[[FROM]], %{{.*}} : tensor<499xi64>
  // CHECK: %[[SEL:.*]] = arith.select %[[IN]], %[[FROM]], %{{.*}} : tensor<499xi1>, tensor<499xi64>
  // CHECK: sift.gather %[[IDX]][%[[SEL]]] : tensor<1000xi64>, tensor<499xi64> -> tensor<499xi64>
  // expected-remark @+1 {{'tensor.extract_slice' padded to 499 rows}}
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

// Bounds by cases: a + (k - a) under each assignment of the select
// condition. Intervals alone give 40 + 64 = 104 for the sum; by cases it is 64
// when the condition picks the complement, and 40 + 24 otherwise.
// CHECK-LABEL: func @by_cases
// CHECK-SAME: -> (tensor<64xi64>, tensor<i64>)
// expected-remark @+1 {{sift-staticize: 4 data-dependent values rewritten, 2 host syncs removed}}
func.func @by_cases(%m: tensor<64xi1>, %q: tensor<64xi1>, %c: i1) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %c24 = arith.constant 24 : index
  %c40 = arith.constant 40 : index
  %c64 = arith.constant 64 : index
  // expected-remark @+1 {{'sift.nonzero' padded to 64 rows}}
  %a = sift.nonzero %m : tensor<64xi1> -> tensor<?xi64>
  // expected-remark @+1 {{'sift.nonzero' padded to 64 rows}}
  %b = sift.nonzero %q : tensor<64xi1> -> tensor<?xi64>
  %na = tensor.dim %a, %c0 : tensor<?xi64>
  %nb = tensor.dim %b, %c0 : tensor<?xi64>
  %x = arith.minui %na, %c40 : index
  %rest = arith.subi %c64, %x : index
  %y0 = arith.minui %nb, %c24 : index
  %y = arith.select %c, %rest, %y0 : index
  %total = arith.addi %x, %y : index
  // expected-remark @+1 {{'tensor.empty' padded to 64 rows}}
  %e = tensor.empty(%total) : tensor<?xi64>
  %z = arith.constant 0 : i64
  // expected-remark @+1 {{'linalg.fill' padded to 64 rows}}
  %f = linalg.fill ins(%z : i64) outs(%e : tensor<?xi64>) -> tensor<?xi64>
  return %f : tensor<?xi64>
}

// A slice of computed length of a static tensor (x[:k], k read from the
// data, no min in the program) lies within the tensor: at most its 100
// rows. The program has no sift op of its own; the rewrite makes one.
// CHECK-LABEL: func @slice_of_static
// CHECK-SAME: -> (tensor<100xf32>, tensor<i64>)
// CHECK: sift.gather %arg0[%{{.*}}] : tensor<100xf32>, tensor<100xi64> -> tensor<100xf32>
// expected-remark @+1 {{sift-staticize: 1 data-dependent values rewritten, 0 host syncs removed}}
func.func @slice_of_static(%x: tensor<100xf32>, %k: tensor<i64>) -> tensor<?xf32> {
  %v = tensor.extract %k[] : tensor<i64>
  %n = arith.index_cast %v : i64 to index
  // expected-remark @+1 {{'tensor.extract_slice' padded to 100 rows}}
  %s = tensor.extract_slice %x[0] [%n] [1] : tensor<100xf32> to tensor<?xf32>
  return %s : tensor<?xf32>
}
