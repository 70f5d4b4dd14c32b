// REQUIRES: ptxas
// The Feistel permutation on the GPU: sift.randperm ... feistel (a dynamic
// n) and sift.randperm_prefix (per-line n and limits, per-row seeds) are
// element-wise, one kernel each of a thread per lane: each thread draws the
// round keys (two Philox blocks), then walks its lane through the six rounds
// until it lands below n. No host loop is left. The toolkit's ptxas
// assembles the kernels for sm_90 and sm_80. The results are checked
// against NumPy by ctest conformance-gpu-pipeline (randperm_feistel,
// randperm_prefix).
//
// RUN: tensor-opt %s --sift-gpu-pipeline="chip=sm_90" -o %t.sm90.mlir
// RUN: FileCheck %s --input-file=%t.sm90.mlir
// RUN: %extract_ptx %t.sm90 %t.sm90.mlir
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.sm90/lines_kernel.ptx
// RUN: %ptxas -v -arch=sm_90 %t.sm90/lines_kernel.ptx -o %t.l90.cubin 2>&1 | FileCheck %s --check-prefix=SPILLS
// RUN: %ptxas -v -arch=sm_90 %t.sm90/randperm_kernel.ptx -o %t.r90.cubin 2>&1 | FileCheck %s --check-prefix=SPILLS
// RUN: tensor-opt %s --sift-gpu-pipeline="chip=sm_80" -o %t.sm80.mlir
// RUN: %extract_ptx %t.sm80 %t.sm80.mlir
// RUN: %ptxas -v -arch=sm_80 %t.sm80/lines_kernel.ptx -o %t.l80.cubin 2>&1 | FileCheck %s --check-prefix=SPILLS
// RUN: %ptxas -v -arch=sm_80 %t.sm80/randperm_kernel.ptx -o %t.r80.cubin 2>&1 | FileCheck %s --check-prefix=SPILLS

// CHECK-LABEL: llvm.func @lines
// CHECK-NOT: llvm.br
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK-LABEL: llvm.func @randperm
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func

// The walk: six rounds of two multiplies, then the compare with n - 1.
// PTX: .visible .entry lines_kernel(
// PTX: clz.b32
// PTX-COUNT-12: mul.lo.s32
// PTX: setp.gt.u32
// PTX: st.global.b64
// SPILLS: 0 bytes spill stores, 0 bytes spill loads
func.func @lines(%n: tensor<32xindex>, %seeds: tensor<32xi64>,
                 %lim: tensor<32xindex>) -> tensor<32x1000xi64> {
  %p = sift.randperm_prefix %n, %seeds limit %lim
      : (tensor<32xindex>, tensor<32xi64>, tensor<32xindex>) -> tensor<32x1000xi64>
  return %p : tensor<32x1000xi64>
}

func.func @randperm(%n: index, %seed: i64) -> tensor<?xi64> {
  %p = sift.randperm %n, %seed : tensor<?xi64>
  return %p : tensor<?xi64>
}
