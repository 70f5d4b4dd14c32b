// examples/sampler_batched.mlir, the hand-written static sampler over a
// batch of 32 rows, is already static.
// RUN: tensor-opt %sift_src_root/examples/sampler_batched.mlir --sift-verify-static | FileCheck %s --implicit-check-not='tensor<?'

// CHECK-LABEL: func.func @sampler
// CHECK-SAME: (%{{.*}}: tensor<32x10000x16xf32>, %{{.*}}: tensor<32x10000xi64>, %{{.*}}: i64) -> (tensor<32x1000x16xf32>, tensor<32x1000xi64>, tensor<32xi64>)
// CHECK-COUNT-2: sift.count
// CHECK-COUNT-2: sift.topk %{{.*}} k(1000) smallest : tensor<32x10000xi32>
// CHECK: sift.argsort %{{.*}} : tensor<32x1000xi32> -> tensor<32x1000xi64>
