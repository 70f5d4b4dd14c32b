// --sift-gpu-prepare-modules: gpu.subgroup_reduce becomes a butterfly of
// shuffles over 32 lanes (convert-gpu-to-nvvm does not lower it), and each
// gpu.module gets the NVPTX64 data layout. A 32-bit extended multiply
// becomes a 32-bit multiply and NVVM's mulhi (a 64-bit one is left alone).
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
// The xors around the product stay 32 bits wide, so no 64-bit multiply
// (mul.lo.s64, emulated) is left.
// PTX-LABEL: .entry mul_high(
// PTX-NOT: mul.lo.s64
// PTX-DAG: mul.lo.s32
// PTX-DAG: mul.hi.u32
// PTX-DAG: mul.hi.s32
// PTX-NOT: mul.lo.s64
// PTX: ret;

// CHECK: gpu.module @kernels attributes {llvm.data_layout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"}
// CHECK-LABEL: gpu.func @warp_sum
// CHECK-NOT: gpu.subgroup_reduce
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @mul_high
// CHECK: %[[LO:.*]] = arith.muli %[[A:.*]], %[[B:.*]] : i32
// CHECK: %[[HI:.*]] = llvm.call_intrinsic "llvm.nvvm.mulhi.ui"(%[[A]], %[[B]]) : (i32, i32) -> i32
// CHECK: arith.xori %[[HI]], %[[LO]] : i32
// CHECK: arith.muli
// CHECK: llvm.call_intrinsic "llvm.nvvm.mulhi.i"
// CHECK: arith.mului_extended %{{.*}}, %{{.*}} : i64
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
    gpu.func @mul_high(%out: memref<32xi32>, %wide: memref<32xi64>,
                       %in: memref<32xi32>, %key: i32) kernel {
      %t = gpu.thread_id x
      %x = memref.load %in[%t] : memref<32xi32>
      %a = arith.xori %x, %key : i32
      %m = arith.constant -766435501 : i32
      %lo, %hi = arith.mului_extended %a, %m : i32
      %y = arith.xori %hi, %lo : i32
      %slo, %shi = arith.mulsi_extended %y, %a : i32
      %z = arith.xori %shi, %slo : i32
      memref.store %z, %out[%t] : memref<32xi32>
      %w = arith.extui %z : i32 to i64
      %wlo, %whi = arith.mului_extended %w, %w : i64
      %v = arith.xori %wlo, %whi : i64
      memref.store %v, %wide[%t] : memref<32xi64>
      gpu.return
    }
  }
}
