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
