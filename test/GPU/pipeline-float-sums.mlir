// Float sums over a whole tensor through --sift-gpu-pipeline: the blocked
// sum of the CPU pipeline (256 interleaved partial sums, then the lanes in
// order) with the lanes outside (--sift-block-float-reductions=lanes-outer):
// one kernel of a thread per lane, then one kernel adding the lanes; no loop
// over the data stays on the host, so the verifier (on by default) passes.
// The sums themselves are checked against NumPy by ctest
// conformance-gpu-pipeline (numerics/, staticize/masked_mean_1e6).
//
// RUN: tensor-opt %s --sift-gpu-pipeline -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: tensor-opt %s --sift-gpu-pipeline="on-cpu=1" | FileCheck %s --check-prefix=CPU

// CHECK-LABEL: llvm.func @sum
// The initial value and the zeroed lanes, the partial sums (256 threads),
// the lanes added to the initial value; then the result is copied out.
// CHECK: %[[C256:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK-COUNT-4: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.call @mgpuMemcpy
// CHECK: llvm.return
// With on-cpu=1 the same kernels run as host loops, no launch left.
// CPU-LABEL: llvm.func @sum
// CPU-NOT: gpu.launch_func
// CPU: llvm.return
func.func @sum(%x: tensor<1000003xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce ins(%x : tensor<1000003xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  return %s : tensor<f32>
}
