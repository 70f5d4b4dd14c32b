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
