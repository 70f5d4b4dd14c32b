// --sift-strided-copies-to-linalg: a copy between buffers that are not both
// contiguous becomes linalg.copy (loops); contiguous copies stay memcpys.
//
// RUN: tensor-opt %s --sift-strided-copies-to-linalg | FileCheck %s
// RUN: tensor-opt %s --sift-strided-copies-to-linalg=outside-loops=1 | FileCheck %s --check-prefix=OUTSIDE

// A [4, 8] block into columns 8..15 of a [4, 16] buffer (a concat's second
// operand): strided rows, so loops. A whole contiguous buffer, and a
// contiguous slice at a dynamic offset, stay memref.copy.
// CHECK-LABEL: func.func @copies
// CHECK: linalg.copy ins(%arg0 : memref<4x8xi64>) outs(%{{.*}} : memref<4x8xi64, strided<[16, 1], offset: 8>>)
// CHECK: memref.copy %arg0, %arg2 : memref<4x8xi64> to memref<4x8xi64>
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<8xi64, strided<[1], offset: ?>> to memref<8xi64>
// CHECK-NOT: linalg.copy
func.func @copies(%a: memref<4x8xi64>, %out: memref<4x16xi64>, %b: memref<4x8xi64>,
                  %line: memref<8xi64>, %i: index) {
  %right = memref.subview %out[0, 8] [4, 8] [1, 1] : memref<4x16xi64> to memref<4x8xi64, strided<[16, 1], offset: 8>>
  memref.copy %a, %right : memref<4x8xi64> to memref<4x8xi64, strided<[16, 1], offset: 8>>
  memref.copy %a, %b : memref<4x8xi64> to memref<4x8xi64>
  %row = memref.subview %a[%i, 0] [1, 8] [1, 1] : memref<4x8xi64> to memref<8xi64, strided<[1], offset: ?>>
  memref.copy %row, %line : memref<8xi64, strided<[1], offset: ?>> to memref<8xi64>
  return
}

// With outside-loops (the GPU pipeline: a copy of the host code is between
// device buffers), the contiguous copies in the function body and in its
// sequential loops become linalg.copy too (then a parallel loop, a
// kernel); those inside a row kernel (scf.forall) stay.
// OUTSIDE-LABEL: func.func @copies
// OUTSIDE-COUNT-3: linalg.copy
// OUTSIDE-NOT: memref.copy
// OUTSIDE-LABEL: func.func @in_loops
// OUTSIDE: scf.for
// OUTSIDE-NEXT: linalg.copy
// OUTSIDE: scf.forall
// OUTSIDE-NEXT: memref.copy
// OUTSIDE-NOT: linalg.copy
// CHECK-LABEL: func.func @in_loops
// CHECK-NOT: linalg.copy
func.func @in_loops(%a: memref<8xi64>, %b: memref<8xi64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    memref.copy %a, %b : memref<8xi64> to memref<8xi64>
  }
  scf.forall (%i) in (%n) {
    memref.copy %a, %b : memref<8xi64> to memref<8xi64>
  }
  return
}
