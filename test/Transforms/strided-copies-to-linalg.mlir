// --sift-strided-copies-to-linalg: a copy between buffers that are not both
// contiguous becomes linalg.copy (loops); contiguous copies stay memcpys.
//
// RUN: tensor-opt %s --sift-strided-copies-to-linalg | FileCheck %s

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
