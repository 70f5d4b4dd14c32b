// --sift-promote-accumulators: a loop's accumulator in memory is carried in
// a register when nothing else in the loop can touch it.
//
// RUN: tensor-opt %s -split-input-file --sift-promote-accumulators | FileCheck %s

// A count of a mask, as convert-linalg-to-parallel-loops leaves it: the
// accumulator (a fresh allocation) is loaded and stored back per element.
// It moves into iter_args: one load before the loop, one store after.
// CHECK-LABEL: func.func @count
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<4xi64>
// CHECK: scf.for %[[R:.*]] = %c0 to %c4
// CHECK: %[[INIT:.*]] = memref.load %[[ACC]][%[[R]]]
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c100 step %c1 iter_args(%[[A:.*]] = %[[INIT]]) -> (i64)
// CHECK-NOT: memref.store
// CHECK: %[[NEW:.*]] = arith.addi %[[A]], %{{.*}} : i64
// CHECK-NEXT: scf.yield %[[NEW]] : i64
// CHECK: memref.store %[[SUM]], %[[ACC]][%[[R]]]
func.func @count(%mask: memref<4x100xi1>) -> memref<4xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c100 = arith.constant 100 : index
  %acc = memref.alloc() : memref<4xi64>
  scf.for %r = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c100 step %c1 {
      %m = memref.load %mask[%r, %j] : memref<4x100xi1>
      %a = memref.load %acc[%r] : memref<4xi64>
      %one = arith.extui %m : i1 to i64
      %s = arith.addi %a, %one : i64
      memref.store %s, %acc[%r] : memref<4xi64>
    }
  }
  return %acc : memref<4xi64>
}

// -----

// Through a subview of the allocation, and out of two loops at once when
// the element is invariant in both; the loop's own iter_args are kept.
// CHECK-LABEL: func.func @nested_subview
// CHECK: %[[VIEW:.*]] = memref.subview
// CHECK: %[[INIT:.*]] = memref.load %[[VIEW]][%c0]
// CHECK: %[[OUTER:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[A:.*]] = %[[INIT]]) -> (f32, f32)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[A]]) -> (f32)
// CHECK-NOT: memref.store
// CHECK: memref.store %[[OUTER]]#1, %[[VIEW]][%c0]
func.func @nested_subview(%x: memref<8x8xf32>) -> (memref<2xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<4xf32>
  %view = memref.subview %buf[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
  %max = scf.for %i = %c0 to %c8 step %c1 iter_args(%m = %zero) -> (f32) {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i, %j] : memref<8x8xf32>
      %a = memref.load %view[%c0] : memref<2xf32, strided<[1], offset: 1>>
      %s = arith.addf %a, %v : f32
      memref.store %s, %view[%c0] : memref<2xf32, strided<[1], offset: 1>>
    }
    %first = memref.load %x[%i, %c0] : memref<8x8xf32>
    %m2 = arith.maximumf %m, %first : f32
    scf.yield %m2 : f32
  }
  %out = memref.alloc() : memref<2xf32>
  memref.copy %view, %out : memref<2xf32, strided<[1], offset: 1>> to memref<2xf32>
  return %out, %max : memref<2xf32>, f32
}

// -----

// The accumulator is a function argument, like the input: the two may be
// the same buffer, so the loop is left alone.
// CHECK-LABEL: func.func @may_alias
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: memref.load %{{.*}}[%c0]
// CHECK: memref.store
func.func @may_alias(%x: memref<100xf32>, %acc: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  scf.for %j = %c0 to %c100 step %c1 {
    %v = memref.load %x[%j] : memref<100xf32>
    %a = memref.load %acc[%c0] : memref<1xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%c0] : memref<1xf32>
  }
  return
}

// -----

// Left alone: the element changes with the loop, the buffer is read
// elsewhere in the loop, or the loop calls a function (unknown effects).
// CHECK-LABEL: func.func @not_promoted
// CHECK-NOT: iter_args
// CHECK: return
func.func private @opaque(memref<100xf32>)
func.func @not_promoted(%x: memref<100xf32>) -> memref<100xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %acc = memref.alloc() : memref<100xf32>
  scf.for %j = %c0 to %c100 step %c1 {
    %a = memref.load %acc[%j] : memref<100xf32>
    %v = memref.load %x[%j] : memref<100xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%j] : memref<100xf32>
  }
  scf.for %j = %c0 to %c100 step %c1 {
    %a = memref.load %acc[%c0] : memref<100xf32>
    %w = memref.load %acc[%j] : memref<100xf32>
    %s = arith.addf %a, %w : f32
    memref.store %s, %acc[%c0] : memref<100xf32>
  }
  scf.for %j = %c0 to %c100 step %c1 {
    %a = memref.load %acc[%c0] : memref<100xf32>
    %v = memref.load %x[%j] : memref<100xf32>
    %s = arith.addf %a, %v : f32
    memref.store %s, %acc[%c0] : memref<100xf32>
    func.call @opaque(%x) : (memref<100xf32>) -> ()
  }
  return %acc : memref<100xf32>
}
