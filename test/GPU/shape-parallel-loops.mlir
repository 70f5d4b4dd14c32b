// --sift-gpu-shape-parallel-loops: blocks outside, at most `threads`
// threads inside.
//
// RUN: tensor-opt %s --pass-pipeline='builtin.module(func.func(sift-gpu-shape-parallel-loops{threads=128}))' -split-input-file | FileCheck %s

// A flat elementwise loop is tiled: tiles are blocks, a tile's iterations
// threads (guarded where the last tile is partial).
// CHECK-LABEL: func.func @flat
// CHECK-DAG: %[[C1000:.*]] = arith.constant 1000 : index
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%[[C1000]]) step (%[[STEP:.*]])
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%[[STEP]])
// CHECK: scf.if
// CHECK: memref.store
func.func @flat(%buf: memref<1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  %v = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c1000) step (%c1) {
    memref.store %v, %buf[%i] : memref<1000xf32>
  }
  return
}

// -----

// A row kernel whose block-level code only computes values: a block per
// row, and its inner loop strided over 128 threads.
// CHECK-LABEL: func.func @rows
// CHECK: scf.parallel (%[[R:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK: %[[START:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: scf.for %{{.*}} = %[[START]] to %{{.*}} step %{{.*}}
// CHECK: memref.store
func.func @rows(%buf: memref<32x5000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c5000 = arith.constant 5000 : index
  %v = arith.constant 1.0 : f32
  scf.parallel (%r) = (%c0) to (%c32) step (%c1) {
    scf.parallel (%i) = (%c0) to (%c5000) step (%c1) {
      memref.store %v, %buf[%r, %i] : memref<32x5000xf32>
    }
  }
  return
}

// -----

// A row kernel with sequential work between its loops (a scan, a sort)
// runs a row per thread: its inner loops become sequential and the rows
// are tiled into blocks.
// CHECK-LABEL: func.func @rows_with_sequential_work
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: memref.store
// CHECK: memref.load
func.func @rows_with_sequential_work(%buf: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %v = arith.constant 1.0 : f32
  scf.parallel (%r) = (%c0) to (%c32) step (%c1) {
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      memref.store %v, %buf[%r, %i] : memref<32x16xf32>
    }
    %x = memref.load %buf[%r, %c0] : memref<32x16xf32>
    memref.store %x, %buf[%r, %c1] : memref<32x16xf32>
  }
  return
}

// -----

// A flat loop of three dimensions: blocks over all three, and a block's
// threads one dimension (thread x, up to 1024), not three of which the
// last would be thread z (a device allows 64 along z).
// CHECK-LABEL: func.func @flat_3d
// CHECK: scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = {{.*}} to (%{{.*}}, %{{.*}}, %{{.*}}) step (%{{.*}}, %{{.*}}, %[[STEP:.*]])
// CHECK-NEXT: scf.parallel (%[[T:[^)]*]]) = (%{{.*}}) to (%[[STEP]]) step (%{{.*}})
// CHECK: memref.store
func.func @flat_3d(%buf: memref<2x3x200xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c200 = arith.constant 200 : index
  %v = arith.constant 1 : i64
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c2, %c3, %c200) step (%c1, %c1, %c1) {
    memref.store %v, %buf[%i, %j, %k] : memref<2x3x200xi64>
  }
  return
}

// -----

// A last dimension shorter than a block (24 < 128) is merged with the one
// before (3 x 24 = 72 iterations, delinearized in the body), so that the
// threads of a block take adjacent elements of several rows instead of
// idling past the 24th.
// CHECK-LABEL: func.func @flat_short_rows
// CHECK: scf.parallel (%[[I:.*]], %[[JK:.*]]) = {{.*}} step (%{{.*}}, %[[STEP:.*]])
// CHECK-NEXT: scf.parallel (%[[T:[^)]*]]) = (%{{.*}}) to (%[[STEP]]) step (%{{.*}})
// CHECK: %[[L:.*]] = arith.addi %[[T]], %[[JK]]
// CHECK: %[[K:.*]] = arith.remsi %[[L]], %c24
// CHECK: %[[J:.*]] = arith.divsi %[[L]], %c24
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]], %[[K]]]
func.func @flat_short_rows(%buf: memref<2x3x24xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c24 = arith.constant 24 : index
  %v = arith.constant 1 : i64
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c2, %c3, %c24) step (%c1, %c1, %c1) {
    memref.store %v, %buf[%i, %j, %k] : memref<2x3x24xi64>
  }
  return
}

// -----

// A sequential nest over buffers in a function's body (a reduction left
// sequential: a sum too short to block, a scatter's lanes in order) is the
// one iteration of a parallel loop: a kernel of one thread, in the same
// order. Its scalar results (a sum) go through a buffer of one element the
// kernel stores and the host loads after it. A loop that calls, allocates
// or holds a parallel loop stays (a program's own loop over kernels).
// CHECK-LABEL: func.func @serial
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK: scf.if
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<256xf32>
// CHECK: memref.store %{{.*}} : memref<f32>
// CHECK: scf.reduce
// CHECK: scf.reduce
// CHECK: %[[CELL:.*]] = memref.alloc() : memref<1xf32>
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK: scf.if
// CHECK: %[[S:.*]] = scf.for {{.*}} -> (f32)
// CHECK-NEXT: memref.load
// CHECK: memref.store %[[S]], %[[CELL]][%{{.*}}] : memref<1xf32>
// CHECK: scf.reduce
// CHECK: scf.reduce
// CHECK: %[[R:.*]] = memref.load %[[CELL]][%{{.*}}] : memref<1xf32>
// CHECK: memref.dealloc %[[CELL]]
// CHECK: scf.for
// CHECK-NEXT: func.call @g
// CHECK: scf.for
// CHECK-NEXT: memref.alloc
// CHECK: return %[[R]]
func.func private @g()

func.func @serial(%x: memref<256xf32>, %acc: memref<f32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c256 step %c1 {
    %v = memref.load %x[%i] : memref<256xf32>
    %a = memref.load %acc[] : memref<f32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[] : memref<f32>
  }
  %r = scf.for %i = %c0 to %c256 step %c1 iter_args(%a = %zero) -> (f32) {
    %v = memref.load %x[%i] : memref<256xf32>
    %s = arith.addf %a, %v : f32
    scf.yield %s : f32
  }
  scf.for %i = %c0 to %c256 step %c1 {
    func.call @g() : () -> ()
    memref.store %zero, %x[%i] : memref<256xf32>
  }
  scf.for %i = %c0 to %c256 step %c1 {
    %t = memref.alloc() : memref<f32>
    memref.store %zero, %t[] : memref<f32>
    memref.dealloc %t : memref<f32>
  }
  return %r : f32
}

// A private function (the deallocation helper's kind) keeps its loops.
// CHECK-LABEL: func.func private @helper
// CHECK-NOT: scf.parallel
// CHECK: return
func.func private @helper(%x: memref<4xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %c0, %x[%i] : memref<4xindex>
  }
  return
}
