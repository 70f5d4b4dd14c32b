// --sift-gpu-prepare-modules: gpu.subgroup_reduce becomes a butterfly of
// shuffles over 32 lanes (convert-gpu-to-nvvm does not lower it), and each
// gpu.module gets the NVPTX64 data layout.
//
// RUN: tensor-opt %s --sift-gpu-prepare-modules | FileCheck %s
// RUN: tensor-opt %s --pass-pipeline='builtin.module(sift-gpu-prepare-modules,nvvm-attach-target{chip=sm_90 features=+ptx80},gpu.module(convert-gpu-to-nvvm),gpu-module-to-binary{format=isa})' -o %t.mlir
// RUN: %extract_ptx %t %t.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t/kernels.ptx

// The PTX has warp shuffles, and whole 64-bit loads and stores (without the
// data layout, i64 is 4-byte aligned and each access splits in two).
// PTX-LABEL: .entry warp_sum(
// PTX-COUNT-5: shfl.sync.bfly.b32
// PTX-LABEL: .entry copy_i64(
// PTX: ld.global.b64
// PTX: st.global.b64

// CHECK: gpu.module @kernels attributes {llvm.data_layout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"}
// CHECK-LABEL: gpu.func @warp_sum
// CHECK-NOT: gpu.subgroup_reduce
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @warp_sum(%out: memref<32xf32>, %in: memref<32xf32>) kernel {
      %t = gpu.thread_id x
      %x = memref.load %in[%t] : memref<32xf32>
      %s = gpu.subgroup_reduce add %x : (f32) -> f32
      memref.store %s, %out[%t] : memref<32xf32>
      gpu.return
    }
    gpu.func @copy_i64(%out: memref<32xi64>, %in: memref<32xi64>) kernel {
      %t = gpu.thread_id x
      %x = memref.load %in[%t] : memref<32xi64>
      memref.store %x, %out[%t] : memref<32xi64>
      gpu.return
    }
  }
}
