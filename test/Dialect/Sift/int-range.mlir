// Integer range analysis knows a count is in [0, n]: upstream
// --int-range-optimizations folds comparisons that the range decides.
// RUN: tensor-opt %s --int-range-optimizations --canonicalize | FileCheck %s

// CHECK-LABEL: func @count_in_range
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[C:.*]] = sift.count
// Not decided by the range (count <= 7): stays.
// CHECK: %[[LE7:.*]] = arith.cmpi sle, %[[C]], %{{.*}} : tensor<i64>
// CHECK: %[[D:.*]] = tensor.extract %[[LE7]]
// CHECK: return %[[TRUE]], %[[TRUE]], %[[D]] : i1, i1, i1
func.func @count_in_range(%m: tensor<8xi1>) -> (i1, i1, i1) {
  %c = sift.count %m : tensor<8xi1> -> tensor<i64>
  %eight = arith.constant dense<8> : tensor<i64>
  %zero = arith.constant dense<0> : tensor<i64>
  %seven = arith.constant dense<7> : tensor<i64>
  %le = arith.cmpi sle, %c, %eight : tensor<i64>
  %ge = arith.cmpi sge, %c, %zero : tensor<i64>
  %le7 = arith.cmpi sle, %c, %seven : tensor<i64>
  %a = tensor.extract %le[] : tensor<i1>
  %b = tensor.extract %ge[] : tensor<i1>
  %d = tensor.extract %le7[] : tensor<i1>
  return %a, %b, %d : i1, i1, i1
}

// Padded indices are in [min(fill, 0), n - 1]; unpadded ones may be
// anything (their lanes past the count are unwritten).
// CHECK-LABEL: func @compact_indices_range
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[LT:.*]] = arith.cmpi slt
// CHECK: tensor.extract %[[LT]]
// CHECK: return %[[TRUE]], %{{.*}} : i1, i1
func.func @compact_indices_range(%m: tensor<100xi1>) -> (i1, i1) {
  %i, %c = sift.compact %m : tensor<100xi1> -> tensor<1xi32>, tensor<i64>
  %j, %d = sift.compact %m unpadded : tensor<100xi1> -> tensor<1xi32>, tensor<i64>
  %n = arith.constant dense<100> : tensor<1xi32>
  %lt = arith.cmpi slt, %i, %n : tensor<1xi32>
  %ltj = arith.cmpi slt, %j, %n : tensor<1xi32>
  %c0 = arith.constant 0 : index
  %a = tensor.extract %lt[%c0] : tensor<1xi1>
  %b = tensor.extract %ltj[%c0] : tensor<1xi1>
  return %a, %b : i1, i1
}

// The count of a compaction is at most min(n, K).
// CHECK-LABEL: func @compact_count_in_range
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: return %[[TRUE]]
func.func @compact_count_in_range(%m: tensor<100xi1>) -> i1 {
  %i, %c = sift.compact %m : tensor<100xi1> -> tensor<16xi64>, tensor<i64>
  %k = arith.constant dense<16> : tensor<i64>
  %le = arith.cmpi sle, %c, %k : tensor<i64>
  %a = tensor.extract %le[] : tensor<i1>
  return %a : i1
}
