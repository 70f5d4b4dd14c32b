// examples/sampler.mlir parses and verifies, keeps its dynamic structure, and
// --sift-verify-static reports every data-dependent op in it (until
// --sift-staticize exists to rewrite them).
// RUN: tensor-opt %sift_src_root/examples/sampler.mlir | FileCheck %s
// RUN: not tensor-opt %sift_src_root/examples/sampler.mlir --sift-verify-static 2>&1 | FileCheck %s --check-prefix=DYN

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
