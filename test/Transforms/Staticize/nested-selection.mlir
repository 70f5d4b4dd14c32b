// Selections of selections: nonzero, masked_select and unique of a bounded
// input. The inner bound bounds the outer one; padding rows select nothing
// (zero / false), and unique sorts them after every valid key.
// RUN: tensor-opt %s --sift-staticize --sift-verify-static -split-input-file | FileCheck %s

// CHECK-LABEL: func @select_of_select
// CHECK-SAME: -> (tensor<64xf32>, tensor<i64>, tensor<64xi64>, tensor<i64>)
// CHECK: %[[I1:.*]], %[[C1:.*]] = sift.compact %{{.*}} : tensor<64xi1> -> tensor<64xi64>, tensor<i64>
// CHECK: %[[S1:.*]] = sift.gather %{{.*}}[%[[I1]]] : tensor<64xf32>, tensor<64xi64> -> tensor<64xf32>
// CHECK: %[[BIG:.*]] = arith.cmpf ogt, %[[S1]], %{{.*}} : tensor<64xf32>
// CHECK: %[[FALSE:.*]] = arith.constant dense<false> : tensor<64xi1>
// CHECK: %[[ROWS:.*]] = linalg.generic
// CHECK: %[[M:.*]] = arith.select %[[ROWS]], %[[BIG]], %[[FALSE]] : tensor<64xi1>, tensor<64xi1>
// CHECK: %[[I2:.*]], %[[C2:.*]] = sift.compact %[[M]] : tensor<64xi1> -> tensor<64xi64>, tensor<i64>
// CHECK: sift.gather %[[S1]][%[[I2]]] : tensor<64xf32>, tensor<64xi64> -> tensor<64xf32>
// CHECK: %[[M2:.*]] = arith.select %{{.*}}, %[[BIG]], %{{.*}} : tensor<64xi1>, tensor<64xi1>
// CHECK: sift.compact %[[M2]] : tensor<64xi1> -> tensor<64xi64>, tensor<i64>
func.func @select_of_select(%x: tensor<64xf32>, %m: tensor<64xi1>) -> (tensor<?xf32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %sel = sift.masked_select %x, %m : tensor<64xf32>, tensor<64xi1> -> tensor<?xf32>
  %n = tensor.dim %sel, %c0 : tensor<?xf32>
  %t = arith.constant 0.5 : f32
  %ts = tensor.splat %t[%n] : tensor<?xf32>
  %big = arith.cmpf ogt, %sel, %ts : tensor<?xf32>
  %sel2 = sift.masked_select %sel, %big : tensor<?xf32>, tensor<?xi1> -> tensor<?xf32>
  %nz = sift.nonzero %big : tensor<?xi1> -> tensor<?xi64>
  return %sel2, %nz : tensor<?xf32>, tensor<?xi64>
}

// -----

// unique(x[m]): padding keys INT64_MAX; only the first count sorted lanes
// start groups, and the last group ends at the count.
// CHECK-LABEL: func @unique_of_select
// CHECK-SAME: -> (tensor<40xi64>, tensor<i64>, tensor<40xi64>, tensor<i64>, tensor<40xi64>, tensor<i64>)
// CHECK: %[[MAX:.*]] = arith.constant dense<9223372036854775807> : tensor<40xi64>
// CHECK: %[[KEYS:.*]] = arith.select %{{.*}}, %{{.*}}, %[[MAX]] : tensor<40xi1>, tensor<40xi64>
// CHECK: %[[SORTED:.*]], %[[PERM:.*]] = sift.sort %[[KEYS]] : tensor<40xi64> -> tensor<40xi64>, tensor<40xi64>
// CHECK: %[[FLAGS:.*]] = arith.ori
// CHECK: %[[VALID:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<40xi64>
// CHECK: %[[STARTS:.*]] = arith.andi %[[FLAGS]], %[[VALID]] : tensor<40xi1>
// CHECK: sift.compact %[[STARTS]]
func.func @unique_of_select(%ids: tensor<40xi64>, %m: tensor<40xi1>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %sel = sift.masked_select %ids, %m : tensor<40xi64>, tensor<40xi1> -> tensor<?xi64>
  %u, %inv, %cnt = sift.unique %sel inverse counts : tensor<?xi64> -> tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
  return %u, %inv, %cnt : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}

// -----

// torch.where(s >= 0.7)[0] of a selection s: the inner nonzero's [n, 1]
// form (expand_shape), a slice of it sized by its own extent, collapsed
// back. The bound of an expansion's extent is its stated size (the inner
// nonzero's, 20), of a collapse the product of its group's bounds; before
// these rules the slice had no derivable bound.
// CHECK-LABEL: func @where_of_a_selection
// CHECK-SAME: -> (tensor<20xi64>, tensor<i64>, tensor<20xi64>, tensor<i64>)
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [20, 1] : tensor<20xi64> into tensor<20x1xi64>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<20x1xi64> into tensor<20xi64>
func.func @where_of_a_selection(%s: tensor<20xf32>)
    -> (tensor<?xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %half = arith.constant 0.5 : f32
  %halves = tensor.splat %half : tensor<20xf32>
  %m = arith.cmpf oge, %s, %halves : tensor<20xf32>
  %keep = sift.nonzero %m : tensor<20xi1> -> tensor<?xi64>
  %sel = sift.gather %s[%keep] : tensor<20xf32>, tensor<?xi64> -> tensor<?xf32>
  %n = tensor.dim %keep, %c0 : tensor<?xi64>
  %t = arith.constant 0.7 : f32
  %ts = tensor.splat %t[%n] : tensor<?xf32>
  %big = arith.cmpf oge, %sel, %ts : tensor<?xf32>
  %nz = sift.nonzero %big : tensor<?xi1> -> tensor<?xi64>
  %k = tensor.dim %nz, %c0 : tensor<?xi64>
  %col = tensor.expand_shape %nz [[0, 1]] output_shape [%k, 1]
      : tensor<?xi64> into tensor<?x1xi64>
  %rows = tensor.dim %col, %c0 : tensor<?x1xi64>
  %first = tensor.extract_slice %col[0, 0] [%rows, 1] [1, 1]
      : tensor<?x1xi64> to tensor<?x1xi64>
  %flat = tensor.collapse_shape %first [[0, 1]]
      : tensor<?x1xi64> into tensor<?xi64>
  %both = tensor.collapse_shape %col [[0, 1]]
      : tensor<?x1xi64> into tensor<?xi64>
  %len = tensor.dim %both, %c0 : tensor<?xi64>
  %again = tensor.extract_slice %both[0] [%len] [1]
      : tensor<?xi64> to tensor<?xi64>
  return %flat, %again : tensor<?xi64>, tensor<?xi64>
}
