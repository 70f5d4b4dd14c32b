// A top-k with `limit` on the GPU (convert-sift-to-gpu): the sorted top-k
// kernel of every line (`unsorted` dropped: the first c of an unsorted
// top-k need not be the top c), then, per result that is read, an
// elementwise op that pads the lanes at and past the line's limit (value
// zero, index -1); each fuses into its readers. `valid` decomposes as
// usual after it. The results are checked against NumPy by ctest
// conformance-gpu-pipeline (topk_limit).
//
// RUN: tensor-opt %s --convert-sift-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @rows
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<32x100xf32>, tensor<32xindex>)
// CHECK: call @__sift_gpu_topk({{.*}}) {k = 5 : i64, sift.gpu_kernel = "topk", smallest}
// CHECK: %[[I:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<32x5xi64>
// CHECK: %[[V:.*]] = linalg.generic
// CHECK: tensor.extract %arg0
// CHECK: %[[PV:.*]] = linalg.generic {{.*}} ins(%[[V]], %arg2 : tensor<32x5xf32>, tensor<32xindex>)
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[KEPT:.*]] = arith.cmpi slt, %[[J]], %{{.*}} : index
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.select %[[KEPT]], %{{.*}}, %[[ZERO]] : f32
// CHECK: %[[PI:.*]] = linalg.generic {{.*}} ins(%[[I]], %arg2 : tensor<32x5xi64>, tensor<32xindex>)
// CHECK: %[[NONE:.*]] = arith.constant -1 : i64
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[NONE]] : i64
// CHECK: return %[[PV]], %[[PI]]
func.func @rows(%x: tensor<32x100xf32>, %n: tensor<32xindex>, %c: tensor<32xindex>)
    -> (tensor<32x5xf32>, tensor<32x5xi64>) {
  %v, %i = sift.topk %x k(5) valid(%n : tensor<32xindex>) limit(%c : tensor<32xindex>) smallest unsorted
      : tensor<32x100xf32> -> tensor<32x5xf32>, tensor<32x5xi64>
  return %v, %i : tensor<32x5xf32>, tensor<32x5xi64>
}

// One limit for the line, the values unread: only the indices are padded.
// CHECK-LABEL: func.func @indices_only
// CHECK: {k = 10 : i64, sift.gpu_kernel = "topk"}
// CHECK: %[[I:.*]] = tensor.collapse_shape %{{.*}} : tensor<1x10xi64> into tensor<10xi64>
// CHECK-NOT: tensor<10xi32>
// CHECK: linalg.generic {{.*}} ins(%[[I]] : tensor<10xi64>)
// CHECK: arith.cmpi slt, %{{.*}}, %arg1 : index
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @indices_only(%x: tensor<1000xi32>, %c: index) -> tensor<10xi64> {
  %v, %i = sift.topk %x k(10) limit(%c : index)
      : tensor<1000xi32> -> tensor<10xi32>, tensor<10xi64>
  return %i : tensor<10xi64>
}
