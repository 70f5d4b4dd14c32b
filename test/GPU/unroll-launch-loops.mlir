// --sift-gpu-unroll-launch-loops: a host loop of kernel launches with a
// constant trip count (up to max-trip-count) is unrolled, innermost first,
// so that gpu-async-region puts its launches on the stream of the code
// around them with no host wait per iteration. The launches keep their
// kernels; the induction variable becomes constants. Loops with a dynamic
// or longer trip count, and loops without launches, stay.
//
// RUN: tensor-opt %s --split-input-file --sift-gpu-unroll-launch-loops="max-trip-count=4" --canonicalize | FileCheck %s
// The pipeline: the digit passes of a radix sort split across blocks
// (two launches a digit, 8 digits of an i32 key) are one run of launches
// on one stream, synchronized once before the copy of the result.
// RUN: tensor-opt %s --split-input-file --symbol-privatize=exclude=argsort_long --symbol-dce | tensor-opt --split-input-file --sift-gpu-pipeline="chip=sm_90 format=isa sort-digit-bits=4" | FileCheck %s --check-prefix=PIPE
// RUN: tensor-opt %s --split-input-file --symbol-privatize=exclude=argsort_long --symbol-dce | tensor-opt --split-input-file --sift-gpu-pipeline="chip=sm_90 format=isa unroll-launch-loops=0 sort-digit-bits=4" | FileCheck %s --check-prefix=LOOP

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @pass(%d: index, %buf: memref<16xi32>) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @loops
  func.func @loops(%buf: memref<16xi32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    // Three digits: three launches with the digits as constants.
    // CHECK-DAG: %[[D0:.*]] = arith.constant 0 : index
    // CHECK-DAG: %[[D1:.*]] = arith.constant 1 : index
    // CHECK-DAG: %[[D2:.*]] = arith.constant 2 : index
    // CHECK-NOT: scf.for
    // CHECK: gpu.launch_func @k::@pass {{.*}} args(%[[D0]] : index
    // CHECK-NEXT: gpu.launch_func @k::@pass {{.*}} args(%[[D1]] : index
    // CHECK-NEXT: gpu.launch_func @k::@pass {{.*}} args(%[[D2]] : index
    scf.for %d = %c0 to %c3 step %c1 {
      gpu.launch_func @k::@pass blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : index, %buf : memref<16xi32>)
    }
    // Nested: 2 x 2 launches (0, 1, 1, 2), the inner loop first.
    // CHECK-NEXT: gpu.launch_func @k::@pass {{.*}} args(%[[D0]] : index
    // CHECK-NEXT: gpu.launch_func @k::@pass {{.*}} args(%[[D1]] : index
    // CHECK-NEXT: gpu.launch_func @k::@pass {{.*}} args(%[[D1]] : index
    // CHECK-NEXT: gpu.launch_func @k::@pass {{.*}} args(%[[D2]] : index
    // CHECK-NEXT: scf.for
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c2 step %c1 {
        %ij = arith.addi %i, %j : index
        gpu.launch_func @k::@pass blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%ij : index, %buf : memref<16xi32>)
      }
    }
    // A dynamic trip count stays.
    // CHECK-SAME: to %arg1 step
    // CHECK-NEXT: gpu.launch_func
    scf.for %d = %c0 to %n step %c1 {
      gpu.launch_func @k::@pass blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : index, %buf : memref<16xi32>)
    }
    // Five iterations, over max-trip-count: stays.
    // CHECK: scf.for
    // CHECK-NEXT: gpu.launch_func
    scf.for %d = %c0 to %c5 step %c1 {
      gpu.launch_func @k::@pass blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : index, %buf : memref<16xi32>)
    }
    // No launch: host code, stays.
    // CHECK: scf.for
    // CHECK-NEXT: arith.index_cast
    // CHECK-NEXT: memref.store
    scf.for %d = %c0 to %c3 step %c1 {
      %v = arith.index_cast %d : index to i32
      memref.store %v, %buf[%d] : memref<16xi32>
    }
    return
  }
}

// -----

// PIPE-LABEL: llvm.func @argsort_long
// PIPE: llvm.call @mgpuStreamCreate
// PIPE-NOT: llvm.call @mgpuStream
// PIPE-COUNT-19: gpu.launch_func
// PIPE-NOT: gpu.launch_func
// PIPE-NOT: llvm.cond_br
// PIPE: llvm.call @mgpuStreamSynchronize
// LOOP-LABEL: llvm.func @argsort_long
// LOOP-COUNT-2: gpu.launch_func
// LOOP: llvm.call @mgpuStreamSynchronize
// LOOP: llvm.cond_br
// LOOP: llvm.call @mgpuStreamCreate
// LOOP-COUNT-2: gpu.launch_func
// LOOP-NEXT: llvm.call @mgpuStreamSynchronize
func.func @argsort_long(%x: tensor<2x40000xi32>) -> tensor<2x40000xi64> {
  %i = sift.argsort %x : tensor<2x40000xi32> -> tensor<2x40000xi64>
  return %i : tensor<2x40000xi64>
}
