// RUN: tensor-opt %s --sift-outline-lines -split-input-file | FileCheck %s

// Two routines with the same code (the same ops on the same types and index
// constants) share one function; the index constants they use move inside
// it, the other values they use (buffers, an i32 seed) are its arguments,
// and a result that is a buffer from outside (written in place) is not
// returned.
// CHECK-LABEL: func.func private @__sift_sum_0(
// CHECK-SAME: %[[IN:.*]]: memref<8xi32>, %[[SEED:.*]]: i32, %[[OUT:.*]]: memref<1xi32>)
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C8]] {{.*}} iter_args(%{{.*}} = %[[SEED]])
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK-NEXT: return
// CHECK-NOT: func.func private @__sift_sum
// CHECK-LABEL: func.func @two_same
// CHECK: %[[S:.*]] = arith.constant 7 : i32
// CHECK: call @__sift_sum_0(%arg0, %[[S]], %arg2) : (memref<8xi32>, i32, memref<1xi32>) -> ()
// CHECK: call @__sift_sum_0(%arg1, %[[S]], %arg3) : (memref<8xi32>, i32, memref<1xi32>) -> ()
// CHECK-NOT: execute_region
// CHECK: return %arg2, %arg3
func.func @two_same(%a: memref<8xi32>, %b: memref<8xi32>, %ra: memref<1xi32>,
                    %rb: memref<1xi32>) -> (memref<1xi32>, memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %seed = arith.constant 7 : i32
  %x = scf.execute_region -> memref<1xi32> no_inline {
    %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %seed) -> i32 {
      %v = memref.load %a[%i] : memref<8xi32>
      %n = arith.addi %acc, %v : i32
      scf.yield %n : i32
    }
    memref.store %s, %ra[%c0] : memref<1xi32>
    scf.yield %ra : memref<1xi32>
  } loc(#sum)
  %y = scf.execute_region -> memref<1xi32> no_inline {
    %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %seed) -> i32 {
      %v = memref.load %b[%i] : memref<8xi32>
      %n = arith.addi %acc, %v : i32
      scf.yield %n : i32
    }
    memref.store %s, %rb[%c0] : memref<1xi32>
    scf.yield %rb : memref<1xi32>
  } loc(#sum)
  return %x, %y : memref<1xi32>, memref<1xi32>
}
#sum = loc("sift.routine.sum"(unknown))

// -----

// Different index constants are different code: two functions. A result
// computed inside is returned. A no_inline region that the lowering did not
// name is left alone.
// CHECK-LABEL: func.func private @__sift_first_0(%{{.*}}: memref<8xi32>) -> i32
// CHECK: arith.constant 3 : index
// CHECK-LABEL: func.func private @__sift_first_1(%{{.*}}: memref<8xi32>) -> i32
// CHECK: arith.constant 5 : index
// CHECK-LABEL: func.func @two_different
// CHECK: %[[X:.*]] = call @__sift_first_0(%arg0)
// CHECK: %[[Y:.*]] = call @__sift_first_1(%arg0)
// CHECK: %[[Z:.*]] = scf.execute_region -> i32 no_inline
// CHECK: return %[[X]], %[[Y]], %[[Z]]
func.func @two_different(%v: memref<8xi32>) -> (i32, i32, i32) {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %x = scf.execute_region -> i32 no_inline {
    %m = memref.load %v[%c3] : memref<8xi32>
    scf.yield %m : i32
  } loc(#first)
  %y = scf.execute_region -> i32 no_inline {
    %m = memref.load %v[%c5] : memref<8xi32>
    scf.yield %m : i32
  } loc(#first)
  %z = scf.execute_region -> i32 no_inline {
    %m = memref.load %v[%c5] : memref<8xi32>
    scf.yield %m : i32
  }
  return %x, %y, %z : i32, i32, i32
}
#first = loc("sift.routine.first"(unknown))
