// An argsort or top-k that orders integers as unsigned on the GPU
// (convert-sift-to-gpu): the sorting kernel call carries `unsigned`, and
// its keys are the elements' bits as they are (a signed order flips the
// sign bit in the kernel's key function, toSortKey); no elementwise pass
// over the input. A top-k's `valid` masks the lanes past it with the last
// key in its order (0xFFFFFFFF for the smallest unsigned). The results are
// checked against NumPy's order of the bits as uint by ctest
// conformance-gpu-kernels and conformance-gpu-pipeline (argsort_unsigned,
// topk_unsigned).
//
// RUN: tensor-opt %s --convert-sift-to-gpu | FileCheck %s
// RUN: tensor-opt %s --convert-sift-to-gpu --sift-gpu-expand-kernels | FileCheck %s --check-prefix=KERNEL

// CHECK-LABEL: func.func @argsort_words
// CHECK-NOT: linalg.generic
// CHECK: call @__sift_gpu_argsort({{.*}}) {sift.gpu_kernel = "argsort", unsigned}
func.func @argsort_words(%x: tensor<32x5000xi32>) -> tensor<32x5000xi64> {
  %p = sift.argsort %x unsigned : tensor<32x5000xi32> -> tensor<32x5000xi64>
  return %p : tensor<32x5000xi64>
}

// CHECK-LABEL: func.func @topk_words
// CHECK: %[[LAST:.*]] = arith.constant -1 : i32
// CHECK: linalg.generic
// CHECK: arith.cmpi slt
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[LAST]] : i32
// CHECK-NOT: arith.xori
// CHECK: call @__sift_gpu_topk({{.*}}) {k = 100 : i64, sift.gpu_kernel = "topk", smallest, unsigned}
// CHECK-NOT: arith.xori
// CHECK: return
func.func @topk_words(%x: tensor<32x5000xi32>, %n: tensor<32xindex>)
    -> (tensor<32x100xi32>, tensor<32x100xi64>) {
  %v, %i = sift.topk %x k(100) valid(%n : tensor<32xindex>) smallest unsigned
      : tensor<32x5000xi32> -> tensor<32x100xi32>, tensor<32x100xi64>
  return %v, %i : tensor<32x100xi32>, tensor<32x100xi64>
}

// A signed argsort's kernel flips the sign bit of each key; an unsigned
// one's does not.
// KERNEL-LABEL: func.func @argsort_words
// KERNEL: gpu.launch
// KERNEL-NOT: arith.constant -2147483648 : i32
// KERNEL: gpu.terminator
// KERNEL-LABEL: func.func @argsort_signed
// KERNEL: gpu.launch
// KERNEL: arith.constant -2147483648 : i32
// KERNEL: gpu.terminator
func.func @argsort_signed(%x: tensor<32x5000xi32>) -> tensor<32x5000xi64> {
  %p = sift.argsort %x : tensor<32x5000xi32> -> tensor<32x5000xi64>
  return %p : tensor<32x5000xi64>
}
