// randperm of a data-dependent n: the argsort of the Philox keys of the
// bound's length, 32-bit (the word with its sign bit flipped, which orders
// as a signed i32 as the word does unsigned), with the lanes at or past n
// keyed INT32_MAX so that they sort after every valid lane; the first n
// lanes are exactly randperm(n).
// RUN: tensor-opt %s --sift-staticize --sift-verify-static | FileCheck %s

// CHECK-LABEL: func @randperm_of_count
// CHECK-SAME: %[[M:.*]]: tensor<50xi1>, %[[SEED:.*]]: i64
func.func @randperm_of_count(%m: tensor<50xi1>, %seed: i64) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i64
  %idx = sift.nonzero %m : tensor<50xi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  // CHECK: %[[BITS:.*]] = sift.random_bits %[[SEED]] offset %{{.*}} : tensor<50xi32>
  // CHECK: %[[SIGN:.*]] = arith.constant dense<-2147483648> : tensor<50xi32>
  // CHECK: %[[KEYS:.*]] = arith.xori %[[BITS]], %[[SIGN]] : tensor<50xi32>
  // CHECK: %[[PAST:.*]] = arith.constant dense<2147483647> : tensor<50xi32>
  // CHECK: %[[VALID:.*]] = arith.cmpi slt
  // CHECK: %[[MASKED:.*]] = arith.select %[[VALID]], %[[KEYS]], %[[PAST]]
  // CHECK: %[[PERM:.*]] = sift.argsort %[[MASKED]] : tensor<50xi32> -> tensor<50xi64>
  // CHECK: return %[[PERM]]
  %p = sift.randperm %n, %seed offset %c7 : tensor<?xi64>
  return %p : tensor<?xi64>
}

// A size argument with a user-supplied bound.
// CHECK-LABEL: func @randperm_annotated
// CHECK: sift.random_bits %{{.*}} : tensor<64xi32>
// CHECK: sift.argsort %{{.*}} : tensor<64xi32> -> tensor<64xi64>
func.func @randperm_annotated(%n: index {sift.bound = 64 : i64}, %seed: i64)
    -> tensor<?xi64> {
  %p = sift.randperm %n, %seed : tensor<?xi64>
  return %p : tensor<?xi64>
}

// randperm(n)[:k] with k bounded by 8 is the sorted top-8 of the same keys:
// no full argsort (ties by the lower index, as the stable argsort breaks
// them; the argsort left without uses goes at the next canonicalization). A
// slice that does not start at 0 stays a gather of the argsort. The top-k
// ranks only the first n keys (`valid`, n the count of the nonzero): its
// selection reads no padding.
// CHECK-LABEL: func @randperm_prefix
// CHECK: %{{.*}}, %[[COUNT:.*]] = sift.compact
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[MASKED:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<50xi1>, tensor<50xi32>
// CHECK: %{{.*}}, %[[FIRST:.*]] = sift.topk %[[MASKED]] k(8) valid(%[[N]] : index) smallest {dim = 0 : i64} : tensor<50xi32> -> tensor<8xi32>, tensor<8xi64>
// CHECK: arith.select %{{.*}}, %[[FIRST]], %{{.*}} : tensor<8xi1>, tensor<8xi64>
// CHECK: sift.argsort
// CHECK: sift.gather
func.func @randperm_prefix(%m: tensor<50xi1>, %seed: i64) -> (tensor<?xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %idx = sift.nonzero %m : tensor<50xi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %k = arith.minui %n, %c8 : index
  %p = sift.randperm %n, %seed : tensor<?xi64>
  %first = tensor.extract_slice %p[0] [%k] [1] : tensor<?xi64> to tensor<?xi64>
  %q = sift.randperm %n, %seed : tensor<?xi64>
  %rest = tensor.extract_slice %q[%c1] [%k] [1] : tensor<?xi64> to tensor<?xi64>
  return %first, %rest : tensor<?xi64>, tensor<?xi64>
}
