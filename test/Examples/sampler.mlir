// examples/sampler.mlir parses and verifies with its dynamic structure;
// --sift-verify-static reports what is data-dependent in it; after
// --sift-staticize it is fully static (no dynamic dimension anywhere) and
// --sift-verify-static passes.
// RUN: tensor-opt %sift_src_root/examples/sampler.mlir | FileCheck %s
// RUN: not tensor-opt %sift_src_root/examples/sampler.mlir --sift-verify-static 2>&1 | FileCheck %s --check-prefix=DYN
// RUN: tensor-opt %sift_src_root/examples/sampler.mlir --sift-staticize --sift-verify-static | FileCheck %s --check-prefix=STATIC --implicit-check-not='tensor<?' --implicit-check-not=sift.nonzero --implicit-check-not='sift.randperm{{[^_]}}' --implicit-check-not=sift.topk --implicit-check-not=sift.argsort --implicit-check-not=sift.random_bits

// CHECK-LABEL: func.func @sampler
// CHECK-SAME: tensor<10000x16xf32>, %{{.*}}: tensor<10000xi64>, %{{.*}}: i64) -> (tensor<?x16xf32>, tensor<?xi64>)
// CHECK-COUNT-2: sift.nonzero %{{.*}} : tensor<10000xi1> -> tensor<?xi64>
// CHECK: sift.randperm
// CHECK: tensor.extract_slice
// CHECK: sift.randperm
// CHECK: tensor.extract_slice
// CHECK: tensor.concat dim(0)
// CHECK: sift.randperm
// CHECK: sift.gather %{{.*}} : tensor<10000x16xf32>, tensor<?xi64> -> tensor<?x16xf32>

// DYN-DAG: error: function result #0 has a dynamic shape 'tensor<?x16xf32>'
// DYN-DAG: error: data-dependent result shape remains: 'sift.nonzero'
// DYN-DAG: error: data-dependent result shape remains: 'sift.randperm'
// DYN-DAG: error: result #0 has a dynamic shape 'tensor<?xi64>'

// The ABI of the static sampler: each bounded result padded, then its count.
// The two label groups are padded to K = 1000 rows each (min(len, K/2) and
// K - min(len, K/2) are both at most K); their concatenation holds 2000 rows,
// but the sampled total num_pos + num_neg is bounded by K = 1000, by cases
// on the fill-up selects. Each group's randperm prefix is the first lanes of
// its Feistel permutation of the group's count (`randperm_prefix`), as many
// as the group takes (`limit`): no sort, no selection, no random word per
// item.
// STATIC-LABEL: func.func @sampler
// STATIC-SAME: %[[SEED:[^:]*]]: i64) -> (tensor<1000x16xf32>, tensor<i64>, tensor<1000xi64>, tensor<i64>)
// STATIC: %{{.*}}, %[[POS:.*]] = sift.compact %{{.*}} : tensor<10000xi1> -> tensor<10000xi64>, tensor<i64>
// STATIC: %[[POSN:.*]] = tensor.extract %[[POS]][]
// STATIC: %[[NPOS:.*]] = arith.index_cast %[[POSN]] : i64 to index
// STATIC: %{{.*}}, %[[NEG:.*]] = sift.compact %{{.*}} : tensor<10000xi1> -> tensor<10000xi64>, tensor<i64>
// STATIC: %[[NEGN:.*]] = tensor.extract %[[NEG]][]
// STATIC: %[[NNEG:.*]] = arith.index_cast %[[NEGN]] : i64 to index
// STATIC: sift.randperm_prefix %[[NPOS]], %[[SEED]] limit %{{.*}} : (index, i64, index) -> tensor<1000xi64>
// STATIC: sift.gather %{{.*}} : tensor<10000xi64>, tensor<1000xi64> -> tensor<1000xi64>
// STATIC: sift.randperm_prefix %[[NNEG]], %[[SEED]] offset %{{.*}} limit %{{.*}} : (index, i64, i64, index) -> tensor<1000xi64>
// STATIC: tensor.concat dim(0) %{{.*}}, %{{.*}} : (tensor<1000xi64>, tensor<1000xi64>) -> tensor<2000xi64>
// STATIC: sift.randperm_prefix %{{.*}}, %[[SEED]] offset %{{.*}} : (index, i64, i64) -> tensor<1000xi64>
// STATIC: sift.gather %{{.*}} : tensor<10000x16xf32>, tensor<1000xi64> -> tensor<1000x16xf32>
// STATIC: return
