// --sift-gpu-merge-launches: a launch moves up to the earliest earlier
// launch of the same block size when nothing in between (that launch
// included) writes what it reads or touches what it writes; the merged
// launch runs both bodies in every block, a body of a smaller grid under a
// guard on the block id. The GPU pipeline runs it (ctest
// conformance-gpu-pipeline executes the merged kernels on the CPU);
// test/GPU/sampler.mlir and sampler-launches-1e6.mlir count the sampler's.
//
// RUN: tensor-opt %s --sift-gpu-merge-launches -split-input-file | FileCheck %s

// Independent kernels: one launch, the first body then the second.
// CHECK-LABEL: func.func @independent
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[A:.*]][%{{.*}}] : memref<64xf32>
// CHECK: memref.store %{{.*}}, %[[B:.*]][%{{.*}}] : memref<64xf32>
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @independent(%x: memref<64xf32>) -> (memref<64xf32>, memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = gpu.alloc () : memref<64xf32>
  %b = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    memref.store %v, %a[%tx] : memref<64xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %b[%tx] : memref<64xf32>
    gpu.terminator
  }
  return %a, %b : memref<64xf32>, memref<64xf32>
}

// -----

// The second reads what the first writes (through a view made in its
// body): two launches.
// CHECK-LABEL: func.func @dependent
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: memref.subview
// CHECK: return
func.func @dependent(%x: memref<64xf32>) -> memref<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = gpu.alloc () : memref<64xf32>
  %b = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    memref.store %v, %a[%tx] : memref<64xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %view = memref.subview %a[%tx] [1] [1]
        : memref<64xf32> to memref<1xf32, strided<[1], offset: ?>>
    %v = memref.load %view[%c0] : memref<1xf32, strided<[1], offset: ?>>
    memref.store %v, %b[%tx] : memref<64xf32>
    gpu.terminator
  }
  return %b : memref<64xf32>
}

// -----

// Two kernels writing apart halves of one buffer (static views) merge;
// halves that overlap do not.
// CHECK-LABEL: func.func @halves
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
// CHECK-LABEL: func.func @overlapping_halves
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: return
func.func @halves(%x: memref<64xf32>) -> memref<128xf32> {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = gpu.alloc () : memref<128xf32>
  %low = memref.subview %a[0] [64] [1] : memref<128xf32> to memref<64xf32, strided<[1]>>
  %high = memref.subview %a[64] [64] [1] : memref<128xf32> to memref<64xf32, strided<[1], offset: 64>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    memref.store %v, %low[%tx] : memref<64xf32, strided<[1]>>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    memref.store %v, %high[%tx] : memref<64xf32, strided<[1], offset: 64>>
    gpu.terminator
  }
  return %a : memref<128xf32>
}
func.func @overlapping_halves(%x: memref<64xf32>) -> memref<128xf32> {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = gpu.alloc () : memref<128xf32>
  %low = memref.subview %a[0] [64] [1] : memref<128xf32> to memref<64xf32, strided<[1]>>
  %mid = memref.subview %a[63] [64] [1] : memref<128xf32> to memref<64xf32, strided<[1], offset: 63>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    memref.store %v, %low[%tx] : memref<64xf32, strided<[1]>>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    memref.store %v, %mid[%tx] : memref<64xf32, strided<[1], offset: 63>>
    gpu.terminator
  }
  return %a : memref<128xf32>
}

// -----

// Grids of 4 and 2 blocks: the merged launch has 4, the second body runs
// in blocks 0 and 1 only and reads its own grid size (2), as a block
// argument of the launch and through gpu.grid_dim.
// CHECK-LABEL: func.func @grids
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C4]],
// CHECK: gpu.barrier
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[BX]], %[[C2]] : index
// CHECK: scf.if %[[IN]] {
// CHECK: gpu.barrier
// CHECK-NOT: gpu.grid_dim
// CHECK: %[[M:.*]] = arith.muli %[[C2]], %{{.*}} : index
// CHECK: arith.addi %[[M]], %[[C2]] : index
// CHECK: }
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @grids(%x: memref<256xf32>) -> (memref<256xf32>, memref<128xindex>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %a = gpu.alloc () : memref<256xf32>
  %b = gpu.alloc () : memref<128xindex>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %i0 = arith.muli %bx, %sx : index
    %i = arith.addi %i0, %tx : index
    %v = memref.load %x[%i] : memref<256xf32>
    gpu.barrier
    memref.store %v, %a[%i] : memref<256xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    gpu.barrier
    %g = gpu.grid_dim x
    %m = arith.muli %gx, %sx : index
    %n = arith.addi %m, %g : index
    %i0 = arith.muli %bx, %sx : index
    %i = arith.addi %i0, %tx : index
    memref.store %n, %b[%i] : memref<128xindex>
    gpu.terminator
  }
  return %a, %b : memref<256xf32>, memref<128xindex>
}

// -----

// Different block sizes: two launches.
// CHECK-LABEL: func.func @block_sizes
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: return
func.func @block_sizes(%x: memref<64xf32>) -> (memref<64xf32>, memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %a = gpu.alloc () : memref<64xf32>
  %b = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    memref.store %v, %a[%tx] : memref<64xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    memref.store %v, %b[%tx] : memref<64xf32>
    gpu.terminator
  }
  return %a, %b : memref<64xf32>, memref<64xf32>
}

// -----

// A kernel independent of the one before it but not of the first joins the
// earliest it can: the first. Its output buffer, allocated after the second
// kernel, moves up with it.
// CHECK-LABEL: func.func @earliest
// CHECK: %[[A:.*]] = gpu.alloc () : memref<64xf32>
// CHECK: %[[C:.*]] = gpu.alloc () : memref<64xf32>
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[A]]
// CHECK: memref.store %{{.*}}, %[[C]]
// CHECK: gpu.terminator
// CHECK: %[[B:.*]] = gpu.alloc () : memref<64xf32>
// CHECK: gpu.launch
// CHECK: memref.load %[[A]]
// CHECK: memref.store %{{.*}}, %[[B]]
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @earliest(%x: memref<64xf32>) -> (memref<64xf32>, memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    memref.store %v, %a[%tx] : memref<64xf32>
    gpu.terminator
  }
  %b = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %a[%tx] : memref<64xf32>
    memref.store %v, %b[%tx] : memref<64xf32>
    gpu.terminator
  }
  %c = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    memref.store %v, %c[%tx] : memref<64xf32>
    gpu.terminator
  }
  return %b, %c : memref<64xf32>, memref<64xf32>
}

// -----

// What may alias stops it: two function arguments may be one buffer, and
// a call of an external function may touch anything.
// CHECK-LABEL: func.func @arguments
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: return
// CHECK-LABEL: func.func @external_call
// CHECK: gpu.launch
// CHECK: call @opaque
// CHECK: gpu.launch
// CHECK: return
func.func @arguments(%x: memref<64xf32>, %y: memref<64xf32>, %z: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %z[%tx] : memref<64xf32>
    memref.store %v, %x[%tx] : memref<64xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %y[%tx] : memref<64xf32>
    memref.store %v, %z[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
func.func private @opaque()
func.func @external_call(%x: memref<64xf32>) -> (memref<64xf32>, memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = gpu.alloc () : memref<64xf32>
  %b = gpu.alloc () : memref<64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    memref.store %v, %a[%tx] : memref<64xf32>
    gpu.terminator
  }
  call @opaque() : () -> ()
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    memref.store %v, %b[%tx] : memref<64xf32>
    gpu.terminator
  }
  return %a, %b : memref<64xf32>, memref<64xf32>
}

// -----

// Shared memory: 2 x 16 KiB fits a kernel's 48 KiB (the merged launch has
// both buffers), 2 x 32 KiB does not.
// CHECK-LABEL: func.func @shared_fits
// CHECK: gpu.launch {{.*}} workgroup(%{{.*}} : memref<4096xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<4096xi32, #gpu.address_space<workgroup>>)
// CHECK-NOT: gpu.launch
// CHECK: return
// CHECK-LABEL: func.func @shared_too_large
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: return
func.func @shared_fits(%x: memref<64xi32>) -> (memref<64xi32>, memref<64xi32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = gpu.alloc () : memref<64xi32>
  %b = gpu.alloc () : memref<64xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%s : memref<4096xi32, #gpu.address_space<workgroup>>) {
    %v = memref.load %x[%tx] : memref<64xi32>
    memref.store %v, %s[%tx] : memref<4096xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %s[%tx] : memref<4096xi32, #gpu.address_space<workgroup>>
    memref.store %w, %a[%tx] : memref<64xi32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%s : memref<4096xi32, #gpu.address_space<workgroup>>) {
    %v = memref.load %x[%tx] : memref<64xi32>
    memref.store %v, %s[%tx] : memref<4096xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %s[%tx] : memref<4096xi32, #gpu.address_space<workgroup>>
    memref.store %w, %b[%tx] : memref<64xi32>
    gpu.terminator
  }
  return %a, %b : memref<64xi32>, memref<64xi32>
}
func.func @shared_too_large(%x: memref<64xi32>) -> (memref<64xi32>, memref<64xi32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = gpu.alloc () : memref<64xi32>
  %b = gpu.alloc () : memref<64xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%s : memref<8192xi32, #gpu.address_space<workgroup>>) {
    %v = memref.load %x[%tx] : memref<64xi32>
    memref.store %v, %s[%tx] : memref<8192xi32, #gpu.address_space<workgroup>>
    %w = memref.load %s[%tx] : memref<8192xi32, #gpu.address_space<workgroup>>
    memref.store %w, %a[%tx] : memref<64xi32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%s : memref<8192xi32, #gpu.address_space<workgroup>>) {
    %v = memref.load %x[%tx] : memref<64xi32>
    memref.store %v, %s[%tx] : memref<8192xi32, #gpu.address_space<workgroup>>
    %w = memref.load %s[%tx] : memref<8192xi32, #gpu.address_space<workgroup>>
    memref.store %w, %b[%tx] : memref<64xi32>
    gpu.terminator
  }
  return %a, %b : memref<64xi32>, memref<64xi32>
}
