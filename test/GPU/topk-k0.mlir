// A top-k of k = 0 has empty results: no kernel and no host loop through
// the GPU pipeline (its lowering used to sort every line on the host, which
// --sift-verify-gpu rejected: conformance topk/k0_* skipped on the GPU).
//
// RUN: tensor-opt %s --sift-gpu-pipeline="chip=sm_90 format=isa" | FileCheck %s

// CHECK-LABEL: llvm.func @f
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: llvm.br
// CHECK: llvm.return
func.func @f(%x: tensor<50xf32>) -> (tensor<0xf32>, tensor<0xi64>) {
  %v, %i = sift.topk %x k(0) : tensor<50xf32> -> tensor<0xf32>, tensor<0xi64>
  return %v, %i : tensor<0xf32>, tensor<0xi64>
}
