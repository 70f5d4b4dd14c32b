// --sift-sequentialize-inner-parallel-dims: only the outer dimensions of
// loop nests run in parallel.
//
// RUN: tensor-opt %s -split-input-file --sift-sequentialize-inner-parallel-dims | FileCheck %s
// RUN: tensor-opt %s -split-input-file --sift-sequentialize-inner-parallel-dims=min-parallel-iterations=4 | FileCheck %s --check-prefix=MIN4
// RUN: tensor-opt %s -split-input-file --sift-sequentialize-inner-parallel-dims=min-parallel-work=100000 | FileCheck %s --check-prefix=WORK

// 64 rows are enough parallel iterations: the columns run sequentially
// inside each; a unit dimension is dropped.
// CHECK-LABEL: func.func @outer_only
// CHECK: scf.parallel (%[[I:.*]]) = (%c0) to (%c64) step (%c1)
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c1000 step %c1
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %c0, %[[J]]]
func.func @outer_only(%a: memref<64x1x1000xf32>, %b: memref<64x1x1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1000 = arith.constant 1000 : index
  scf.parallel (%i, %u, %j) = (%c0, %c0, %c0) to (%c64, %c1, %c1000) step (%c1, %c1, %c1) {
    %x = memref.load %a[%i, %u, %j] : memref<64x1x1000xf32>
    memref.store %x, %b[%i, %u, %j] : memref<64x1x1000xf32>
  }
  return
}

// -----

// 4 rows are too few: the first two dimensions stay parallel. A parallel
// loop nested in another runs sequentially.
// CHECK-LABEL: func.func @two_dims_and_nested
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c4, %c100) step (%c1, %c1)
// CHECK-NOT: scf.parallel
// CHECK: scf.for %{{.*}} = %c0 to %c100 step %c1
// With min-parallel-iterations=4, the 4 rows are enough.
// MIN4-LABEL: func.func @two_dims_and_nested
// MIN4: scf.parallel (%{{.*}}) = (%c0) to (%c4) step (%c1) {
// MIN4-NEXT: scf.for %{{.*}} = %c0 to %c100 step %c1
// MIN4-NEXT: scf.for %{{.*}} = %c0 to %c100 step %c1
// MIN4-NOT: scf.parallel
func.func @two_dims_and_nested(%a: memref<4x100x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c100 = arith.constant 100 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c100) step (%c1, %c1) {
    scf.parallel (%k) = (%c0) to (%c100) step (%c1) {
      memref.store %f, %a[%i, %j, %k] : memref<4x100x100xf32>
    }
  }
  return
}

// -----

// A nest whose constant trip counts give fewer innermost iterations than
// min-parallel-work (16384 by default) runs sequentially; one with a trip
// count that is not a constant stays parallel.
// CHECK-LABEL: func.func @small_and_dynamic
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK-NEXT: memref.store
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%[[N:.*]]) step (%c1)
// WORK-LABEL: func.func @small_and_dynamic
// MIN4-LABEL: func.func @small_and_dynamic
// WORK-NOT: scf.parallel (%{{.*}}) = (%c0) to (%c4)
// WORK: scf.parallel (%{{.*}}) = (%c0) to (%{{.*}}) step (%c1)
func.func @small_and_dynamic(%a: memref<4x8xf32>, %b: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    memref.store %f, %a[%i, %j] : memref<4x8xf32>
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %b[%i] : memref<?xf32>
  }
  return
}

// -----

// With min-parallel-work=100000, the 64x100 nest (6400 iterations) is
// small too.
// WORK-LABEL: func.func @below_the_option
// WORK-NOT: scf.parallel
// WORK: scf.for
func.func @below_the_option(%a: memref<64x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c100) step (%c1, %c1) {
    memref.store %f, %a[%i, %j] : memref<64x100xf32>
  }
  return
}

// -----

// Tiles: the inner loop runs from t * 1024 to min(t * 1024 + 1024, n), at
// most 1024 iterations (ValueBoundsConstraintSet on the minimum's first
// operand), so 3 tiles are at most 3072 iterations: sequential. 40 tiles
// (40960) stay parallel, as does a tile of unbounded length.
// CHECK-LABEL: func.func @tiles
// CHECK: scf.for %[[T:.*]] = %c0 to %c3 step %c1
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c40) step (%c1)
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c3) step (%c1)
func.func @tiles(%a: memref<40960xf32>, %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c40 = arith.constant 40 : index
  %c1024 = arith.constant 1024 : index
  %c2500 = arith.constant 2500 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%t) = (%c0) to (%c3) step (%c1) {
    %lb = arith.muli %t, %c1024 : index
    %next = arith.addi %lb, %c1024 : index
    %ub = arith.minui %next, %c2500 : index
    scf.for %i = %lb to %ub step %c1 {
      memref.store %f, %a[%i] : memref<40960xf32>
    }
  }
  scf.parallel (%t) = (%c0) to (%c40) step (%c1) {
    %lb = arith.muli %t, %c1024 : index
    %next = arith.addi %lb, %c1024 : index
    %ub = arith.minui %next, %n : index
    scf.for %i = %lb to %ub step %c1 {
      memref.store %f, %a[%i] : memref<40960xf32>
    }
  }
  scf.parallel (%t) = (%c0) to (%c3) step (%c1) {
    %lb = arith.muli %t, %c1024 : index
    %ub = arith.addi %lb, %m : index
    scf.for %i = %lb to %ub step %c1 {
      memref.store %f, %a[%i] : memref<40960xf32>
    }
  }
  return
}


// -----

// The rest of a tile past a dynamic point: from max(lb, end) to the tile's
// end is at most the tile (x - max(a, b) <= x - a), so 3 such tiles are
// sequential too (the Philox chunks' zero fill past a `valid` prefix).
// CHECK-LABEL: func.func @tile_rest
// CHECK-NOT: scf.parallel
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1
func.func @tile_rest(%a: memref<4096xf32>, %end: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c1024 = arith.constant 1024 : index
  %c2500 = arith.constant 2500 : index
  %f = arith.constant 0.0 : f32
  scf.parallel (%t) = (%c0) to (%c3) step (%c1) {
    %lb = arith.muli %t, %c1024 : index
    %next = arith.addi %lb, %c1024 : index
    %ub = arith.minui %next, %c2500 : index
    %from = arith.maxui %lb, %end : index
    scf.for %i = %from to %ub step %c1 {
      memref.store %f, %a[%i] : memref<4096xf32>
    }
  }
  return
}

// -----

// Few rows of a long innermost dimension: OpenMP would collapse the two
// parallel dimensions and divide per element. The innermost one runs in
// tiles of 4096: rows and tiles parallel, each tile a sequential loop from
// lb + t * 4096 to min(that + 4096, n). A short innermost dimension (fewer
// than two tiles) is sequential, the rows parallel.
// CHECK-LABEL: func.func @rows_of_tiles
// CHECK: %[[TRIPS:.*]] = arith.ceildivui %{{.*}}, %c1 : index
// CHECK: %[[TILES:.*]] = arith.ceildivui %[[TRIPS]], %c4096 : index
// CHECK: scf.parallel (%[[R:.*]], %[[T:.*]]) = (%c0, %{{.*}}) to (%c8, %[[TILES]]) step (%c1, %{{.*}})
// CHECK: %[[OFF:.*]] = arith.muli %[[T]], %{{.*}} : index
// CHECK: %[[START:.*]] = arith.addi %c0, %[[OFF]] : index
// CHECK: %[[NEXT:.*]] = arith.addi %[[START]], %{{.*}} : index
// CHECK: %[[END:.*]] = arith.minui %[[NEXT]], %c1000000 : index
// CHECK: scf.for %[[J:.*]] = %[[START]] to %[[END]] step %c1
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[R]], %[[J]]]
// CHECK: scf.parallel (%[[R2:.*]]) = (%c0) to (%c8) step (%c1)
// CHECK-NEXT: scf.for %[[J2:.*]] = %c0 to %c5000 step %c1
func.func @rows_of_tiles(%a: memref<8x1000000xf32>, %b: memref<8x5000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c5000 = arith.constant 5000 : index
  %c1000000 = arith.constant 1000000 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c1000000) step (%c1, %c1) {
    memref.store %f, %a[%i, %j] : memref<8x1000000xf32>
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c5000) step (%c1, %c1) {
    memref.store %f, %b[%i, %j] : memref<8x5000xf32>
  }
  return
}

// -----

// A call does work the pass cannot see, and its loop stays parallel;
// unless the call states it (`sift.static_work`, as the Philox chunk loop
// of the random ops does: at most 1024 blocks a call): 3 chunks of 1024
// are below the default 16384 and run on the calling thread, 30 are not.
// CHECK-LABEL: func.func @calls
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK: call @chunk({{.*}}) {sift.static_work = 1024 : i64}
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c30) step (%c1)
// CHECK: call @chunk({{.*}}) {sift.static_work = 1024 : i64}
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c3) step (%c1)
// CHECK: call @chunk({{.*}}) : (index) -> ()
func.func private @chunk(index)
func.func @calls() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c30 = arith.constant 30 : index
  scf.parallel (%i) = (%c0) to (%c3) step (%c1) {
    func.call @chunk(%i) {sift.static_work = 1024 : i64} : (index) -> ()
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c30) step (%c1) {
    func.call @chunk(%i) {sift.static_work = 1024 : i64} : (index) -> ()
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c3) step (%c1) {
    func.call @chunk(%i) : (index) -> ()
    scf.reduce
  }
  return
}
