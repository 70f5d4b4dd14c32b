// A cross_entropy inside a program's own parallel loop (a row kernel) is
// left to the loop: --convert-sift-to-gpu converts only the host code's
// ops. Its CPU lowering reports an out-of-range target by calling the
// runtime's sift_rt_report, a host function a kernel cannot call:
// --sift-verify-gpu says so at the op (it used to reach ptxas as an
// unresolved extern function). Its vector code (the CPU's log-sum-exp)
// lowers to NVVM.
//
// RUN: tensor-opt %s --convert-sift-to-gpu | FileCheck %s --check-prefix=CALLS
// RUN: not tensor-opt %s --sift-gpu-pipeline="chip=sm_90" -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: tensor-opt %s --sift-gpu-pipeline="chip=sm_90 allow-host-code=1" 2>&1 | FileCheck %s --check-prefix=WARN

// CALLS-LABEL: func.func @in_a_row_kernel
// CALLS: scf.forall
// CALLS: sift.cross_entropy
// CALLS-NOT: __sift_gpu

// VERIFY: row-kernel-host-call.mlir:[[@LINE+9]]:10: error: 'func.call' calls 'sift_rt_report' inside a kernel: a host function the device cannot call

// WARN: warning: 'func.call' calls 'sift_rt_report' inside a kernel
// WARN: gpu.binary @in_a_row_kernel_kernel
func.func @in_a_row_kernel(%x: tensor<3x4x10xf32>, %t: tensor<3x4xi64>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = scf.forall (%i) in (3) shared_outs(%o = %e) -> (tensor<3xf32>) {
    %xs = tensor.extract_slice %x[%i, 0, 0] [1, 4, 10] [1, 1, 1] : tensor<3x4x10xf32> to tensor<4x10xf32>
    %ts = tensor.extract_slice %t[%i, 0] [1, 4] [1, 1] : tensor<3x4xi64> to tensor<4xi64>
    %l = sift.cross_entropy %xs, %ts reduction = sum : tensor<4x10xf32>, tensor<4xi64> -> tensor<f32>
    %l1 = tensor.expand_shape %l [] output_shape [1] : tensor<f32> into tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %l1 into %o[%i] [1] [1] : tensor<1xf32> into tensor<3xf32>
    }
  }
  return %r : tensor<3xf32>
}
