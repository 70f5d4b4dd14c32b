// randperm ... sort of a data-dependent n: the unsigned argsort of the
// Philox words of the bound's length, with the lanes at or past n keyed
// 0xFFFFFFFF so that they sort after every valid lane; the first n lanes
// are exactly randperm(n).
// RUN: tensor-opt %s --sift-staticize --sift-verify-static | FileCheck %s

// CHECK-LABEL: func @randperm_of_count
// CHECK-SAME: %[[M:.*]]: tensor<50xi1>, %[[SEED:.*]]: i64
func.func @randperm_of_count(%m: tensor<50xi1>, %seed: i64) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i64
  %idx = sift.nonzero %m : tensor<50xi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  // CHECK: %[[BITS:.*]] = sift.random_bits %[[SEED]] offset %{{.*}} : tensor<50xi32>
  // CHECK-NOT: arith.xori
  // CHECK: %[[PAST:.*]] = arith.constant dense<-1> : tensor<50xi32>
  // CHECK: %[[VALID:.*]] = arith.cmpi slt
  // CHECK: %[[MASKED:.*]] = arith.select %[[VALID]], %[[BITS]], %[[PAST]]
  // CHECK: %[[PERM:.*]] = sift.argsort %[[MASKED]] unsigned : tensor<50xi32> -> tensor<50xi64>
  // CHECK: return %[[PERM]]
  %p = sift.randperm %n, %seed offset %c7 sort : tensor<?xi64>
  return %p : tensor<?xi64>
}

// A size argument with a user-supplied bound.
// CHECK-LABEL: func @randperm_annotated
// CHECK: sift.random_bits %{{.*}} : tensor<64xi32>
// CHECK: sift.argsort %{{.*}} unsigned : tensor<64xi32> -> tensor<64xi64>
func.func @randperm_annotated(%n: index {sift.bound = 64 : i64}, %seed: i64)
    -> tensor<?xi64> {
  %p = sift.randperm %n, %seed sort : tensor<?xi64>
  return %p : tensor<?xi64>
}

// randperm(n)[:k] with k bounded by 8 is the sorted top-8 of the same keys:
// no full argsort (ties by the lower index, as the stable argsort breaks
// them; the argsort left without uses goes at the next canonicalization). A
// slice that does not start at 0 stays a gather of the argsort. The top-k
// ranks only the first n keys (`valid`, n the count of the nonzero): its
// selection reads no padding, and it takes the words unmasked (the lanes
// past n rank last whatever their words), so no pass masks them. The
// slice's length is its `limit`: only the first k are selected and sorted.
// CHECK-LABEL: func @randperm_prefix
// CHECK: %{{.*}}, %[[COUNT:.*]] = sift.compact
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[BITS:.*]] = sift.random_bits
// CHECK: %[[K:.*]] = arith.minui %{{.*}}, %{{.*}} : index
// CHECK: %{{.*}}, %[[FIRST:.*]] = sift.topk %[[BITS]] k(8) valid(%[[N]] : index) limit(%[[K]] : index) smallest unsigned {dim = 0 : i64} : tensor<50xi32> -> tensor<8xi32>, tensor<8xi64>
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
  %p = sift.randperm %n, %seed sort : tensor<?xi64>
  %first = tensor.extract_slice %p[0] [%k] [1] : tensor<?xi64> to tensor<?xi64>
  %q = sift.randperm %n, %seed sort : tensor<?xi64>
  %rest = tensor.extract_slice %q[%c1] [%k] [1] : tensor<?xi64> to tensor<?xi64>
  return %first, %rest : tensor<?xi64>, tensor<?xi64>
}

// A Feistel randperm is its lanes to the bound (`randperm_prefix`, -1 past
// n). A prefix of it is a shorter `randperm_prefix` of the same n, seed and
// offset whose `limit` is the slice's length: only those lanes are
// evaluated. A slice that does not start at 0 is a gather of the lanes.
// CHECK-LABEL: func @feistel
// CHECK-SAME: %[[M:.*]]: tensor<50xi1>, %[[SEED:.*]]: i64
// CHECK: %{{.*}}, %[[COUNT:.*]] = sift.compact
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[K:.*]] = arith.minui %[[N]], %{{.*}} : index
// CHECK-NOT: sift.argsort
// CHECK-NOT: sift.topk
// CHECK: %[[ALL:.*]] = sift.randperm_prefix %[[N]], %[[SEED]] offset %{{.*}} : (index, i64, i64) -> tensor<50xi64>
// CHECK: %[[FIRST:.*]] = sift.randperm_prefix %[[N]], %[[SEED]] offset %{{.*}} limit %{{.*}} : (index, i64, i64, index) -> tensor<8xi64>
// CHECK-NOT: %[[FIRST]]
// CHECK: sift.gather %[[ALL]]
// CHECK: %[[WHOLE:.*]] = sift.randperm_prefix %[[N]], %[[SEED]] : (index, i64) -> tensor<50xi64>
// CHECK: return %[[FIRST]], %{{.*}}, %{{.*}}, %{{.*}}, %[[WHOLE]]
func.func @feistel(%m: tensor<50xi1>, %seed: i64)
    -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c3 = arith.constant 3 : i64
  %idx = sift.nonzero %m : tensor<50xi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %k = arith.minui %n, %c8 : index
  %p = sift.randperm %n, %seed offset %c3 : tensor<?xi64>
  %first = tensor.extract_slice %p[0] [%k] [1] : tensor<?xi64> to tensor<?xi64>
  %rest = tensor.extract_slice %p[%c1] [%k] [1] : tensor<?xi64> to tensor<?xi64>
  %whole = sift.randperm %n, %seed : tensor<?xi64>
  return %first, %rest, %whole : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}

// Indices drawn from a Feistel permutation of the gathered source's count
// (`x[randperm(len(x))[:k]]`) are below that count or -1 already: the
// gather reads them with no guard, and the prefix's lanes past the
// source's count need no select (they are -1). With `sort`, the top-k's
// lanes are guarded.
// CHECK-LABEL: func @feistel_gather
// CHECK: %[[IDX:.*]], %{{.*}} = sift.compact
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[FIRST:.*]] = sift.randperm_prefix %[[N]], %{{.*}} limit %{{.*}} : (index, i64, index) -> tensor<8xi64>
// CHECK-NOT: arith.select
// CHECK: sift.gather %[[IDX]][%[[FIRST]]] : tensor<50xi64>, tensor<8xi64> -> tensor<8xi64>
// CHECK: sift.topk
// CHECK: arith.select
// CHECK: arith.select
// CHECK: sift.gather
func.func @feistel_gather(%m: tensor<50xi1>, %seed: i64)
    -> (tensor<?xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %idx = sift.nonzero %m : tensor<50xi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %k = arith.minui %n, %c8 : index
  %p = sift.randperm %n, %seed : tensor<?xi64>
  %first = tensor.extract_slice %p[0] [%k] [1] : tensor<?xi64> to tensor<?xi64>
  %picked = sift.gather %idx[%first] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  %q = sift.randperm %n, %seed sort : tensor<?xi64>
  %qfirst = tensor.extract_slice %q[0] [%k] [1] : tensor<?xi64> to tensor<?xi64>
  %qpicked = sift.gather %idx[%qfirst] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  return %picked, %qpicked : tensor<?xi64>, tensor<?xi64>
}
