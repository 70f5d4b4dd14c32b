// cross_entropy through the default --sift-gpu-pipeline (the verifier on):
// its kernels, and one host copy of the 16-byte error word (the only
// device-to-host copy besides the result) followed by the run-time report
// of an out-of-range target, which the verifier accepts (sift.error_word).
// The losses themselves are checked against NumPy by ctest
// conformance-gpu-kernels and conformance-gpu-pipeline.
//
// RUN: tensor-opt %s --sift-gpu-pipeline="format=isa" | FileCheck %s

// CHECK-LABEL: llvm.func @loss
// CHECK: gpu.launch_func
// CHECK: llvm.call @mgpuMemcpy
// CHECK: llvm.call @sift_rt_report
// CHECK: llvm.return
func.func @loss(%x: tensor<64x1000xf32>, %t: tensor<64xi64>) -> tensor<f32> {
  %l = sift.cross_entropy %x, %t reduction = mean
      : tensor<64x1000xf32>, tensor<64xi64> -> tensor<f32>
  return %l : tensor<f32>
}
