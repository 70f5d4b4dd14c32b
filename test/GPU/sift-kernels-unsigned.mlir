// An argsort or top-k that orders integers as unsigned on the GPU
// (convert-sift-to-gpu, decomposeUnsignedOrder): the sorting kernels order
// signed integers, so the keys are the elements with their sign bit flipped
// (an elementwise op; the signed order of x ^ 2^31 is the unsigned order of
// x), a top-k's values flipped back; `valid` then masks the flipped keys as
// a signed top-k's. The results are checked against NumPy's order of the
// bits as uint by ctest conformance-gpu-pipeline (argsort_unsigned,
// topk_unsigned).
//
// RUN: tensor-opt %s --convert-sift-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @argsort_words
// CHECK: %[[SIGN:.*]] = arith.constant -2147483648 : i32
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<32x5000xi32>)
// CHECK: arith.xori %{{.*}}, %[[SIGN]] : i32
// CHECK: call @__sift_gpu_argsort({{.*}}) {sift.gpu_kernel = "argsort"}
// CHECK-NOT: unsigned
func.func @argsort_words(%x: tensor<32x5000xi32>) -> tensor<32x5000xi64> {
  %p = sift.argsort %x unsigned : tensor<32x5000xi32> -> tensor<32x5000xi64>
  return %p : tensor<32x5000xi64>
}

// CHECK-LABEL: func.func @topk_words
// CHECK: %[[SIGN:.*]] = arith.constant -2147483648 : i32
// CHECK: arith.xori %{{.*}}, %[[SIGN]] : i32
// CHECK: arith.cmpi slt
// CHECK: call @__sift_gpu_topk({{.*}}) {k = 100 : i64, sift.gpu_kernel = "topk", smallest}
// CHECK: arith.xori %{{.*}}, %{{.*}} : i32
// CHECK-NOT: unsigned
func.func @topk_words(%x: tensor<32x5000xi32>, %n: tensor<32xindex>)
    -> (tensor<32x100xi32>, tensor<32x100xi64>) {
  %v, %i = sift.topk %x k(100) valid(%n : tensor<32xindex>) smallest unsigned
      : tensor<32x5000xi32> -> tensor<32x100xi32>, tensor<32x100xi64>
  return %v, %i : tensor<32x100xi32>, tensor<32x100xi64>
}
