// --sift-gpu-pipeline on elementwise work: one kernel, PTX for the chip
// asked for, libdevice linked (no __nv_* call left), buffers in device
// memory with the arguments copied in and the result copied out.
//
// RUN: tensor-opt %s --sift-gpu-pipeline -o %t.sm90.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.sm90.mlir
// RUN: %extract_ptx %t.sm90 %t.sm90.mlir
// RUN: cat %t.sm90/*.ptx | FileCheck %s --check-prefix=SM90 --implicit-check-not=__nv_ --implicit-check-not=malloc
// RUN: tensor-opt %s --sift-gpu-pipeline="chip=sm_80 features=+ptx70" -o %t.sm80.mlir
// RUN: %extract_ptx %t.sm80 %t.sm80.mlir
// RUN: cat %t.sm80/*.ptx | FileCheck %s --check-prefix=SM80 --implicit-check-not=__nv_ --implicit-check-not=malloc

// HOST-LABEL: llvm.func @exp_add
// Both arguments go to device buffers, the kernel runs, the result comes back.
// HOST-COUNT-3: llvm.call @mgpuMemAlloc
// HOST: gpu.launch_func <%{{.*}} : !llvm.ptr> @exp_add_kernel::@exp_add_kernel blocks in
// HOST: llvm.call @mgpuMemcpy
// HOST: llvm.call @mgpuStreamSynchronize
// The kernels as PTX for sm_90, behind the NVPTX64 data layout.
// HOST: gpu.binary @exp_add_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80", link = ["{{.*}}libdevice.10.bc"]>
// HOST-SAME: assembly = "

// SM90: .version 8.0
// SM90: .target sm_90
// SM90: .address_size 64
// SM90: .visible .entry exp_add_kernel(
// A block's 256 threads along x (the tile loop keeps one dimension).
// SM90: .maxntid 256, 1, 1
// exp comes from libdevice, inlined: its ex2 approximation.
// SM90: ex2.approx
// SM90: ret;

// SM80: .version 7.0
// SM80: .target sm_80
// SM80: .visible .entry exp_add_kernel(
func.func @exp_add(%a: tensor<32x1000xf32>, %b: tensor<32x1000xf32>)
    -> tensor<32x1000xf32> {
  %e = math.exp %a : tensor<32x1000xf32>
  %s = arith.addf %e, %b : tensor<32x1000xf32>
  return %s : tensor<32x1000xf32>
}
