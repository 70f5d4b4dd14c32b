// --sift-gpu-launch-to-cpu: on the CPU the device's memory is the host's;
// the host code's gpu.alloc, gpu.memcpy and gpu.dealloc become memref.alloc,
// memref.copy and memref.dealloc (what --sift-gpu-pipeline=on-cpu=1 runs).
//
// RUN: tensor-opt %s --sift-gpu-launch-to-cpu | FileCheck %s --implicit-check-not=gpu.

// CHECK-LABEL: func.func @memory
// CHECK-SAME: (%[[ARG:.*]]: memref<?xf32>, %[[N:.*]]: index)
// CHECK: %[[DEV:.*]] = memref.alloc(%[[N]]) : memref<?xf32>
// CHECK: memref.copy %[[ARG]], %[[DEV]] : memref<?xf32> to memref<?xf32>
// CHECK: memref.store
// CHECK: memref.copy %[[DEV]], %[[ARG]] : memref<?xf32> to memref<?xf32>
// CHECK: memref.dealloc %[[DEV]] : memref<?xf32>
func.func @memory(%arg: memref<?xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  %dev = gpu.alloc (%n) : memref<?xf32>
  gpu.memcpy %dev, %arg : memref<?xf32>, memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %dev[%tx] : memref<?xf32>
    gpu.terminator
  }
  gpu.memcpy %arg, %dev : memref<?xf32>, memref<?xf32>
  gpu.dealloc %dev : memref<?xf32>
  return
}

// With restore-stack (the on-cpu pipeline, after bufferization), a block's
// workgroup buffers and per-thread values are allocas between a stack save
// at the block's start and a restore at its end, so that blocks run one
// after another take the stack of one block, not of all of them.
// RUN: tensor-opt %s --sift-gpu-launch-to-cpu=restore-stack | FileCheck %s --check-prefix=STACK
// STACK-LABEL: func.func @block_buffers
// STACK: scf.parallel
// STACK-NEXT: %[[SP:.*]] = llvm.intr.stacksave : !llvm.ptr
// STACK: memref.alloca() : memref<32xf32>
// STACK: llvm.intr.stackrestore %[[SP]] : !llvm.ptr
// STACK-NEXT: scf.reduce
// Without it (before bufferization), no stack intrinsics.
// CHECK-LABEL: func.func @block_buffers
// CHECK-NOT: llvm.intr
// CHECK: return
func.func @block_buffers(%out: memref<?xf32>, %n: index) {
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %n, %gz = %n)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c32, %sz = %c32)
             workgroup(%shared : memref<32xf32, #gpu.address_space<workgroup>>) {
    %v = arith.constant 1.0 : f32
    memref.store %v, %shared[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %shared[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %w, %out[%bx] : memref<?xf32>
    gpu.terminator
  }
  return
}
