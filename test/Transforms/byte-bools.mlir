// --sift-byte-bools: an i1 buffer the function allocates and only reads and
// writes element by element (loads, stores, linalg.generic, through views)
// holds i8 bytes; anything else keeps it i1.
// RUN: tensor-opt %s --sift-byte-bools -split-input-file | FileCheck %s

// A mask computed by a generic and read through a view by a scan.
// CHECK-LABEL: func.func @mask_then_scan
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<4x100xi8>
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[BUF]] : memref<4x100xi8>)
// CHECK: ^bb0(%[[IN:.*]]: i64, %[[OUT:.*]]: i8):
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[IN]]
// CHECK: %[[B:.*]] = arith.extui %[[EQ]] : i1 to i8
// CHECK: linalg.yield %[[B]] : i8
// CHECK: %[[ROW:.*]] = memref.subview %[[BUF]][1, 0] [1, 100] [1, 1] : memref<4x100xi8> to memref<100xi8, strided<[1], offset: 100>>
// CHECK: %[[L:.*]] = memref.load %[[ROW]][%{{.*}}] : memref<100xi8, strided<[1], offset: 100>>
// CHECK: %[[T:.*]] = arith.trunci %[[L]] : i8 to i1
// CHECK: arith.select %[[T]]
// CHECK: memref.dealloc %[[BUF]] : memref<4x100xi8>
func.func @mask_then_scan(%labels: memref<4x100xi64>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %one = arith.constant 1 : i64
  %mask = memref.alloc() : memref<4x100xi1>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%labels : memref<4x100xi64>) outs(%mask : memref<4x100xi1>) {
  ^bb0(%l: i64, %m: i1):
    %eq = arith.cmpi eq, %l, %one : i64
    linalg.yield %eq : i1
  }
  %row = memref.subview %mask[1, 0] [1, 100] [1, 1] : memref<4x100xi1> to memref<100xi1, strided<[1], offset: 100>>
  %n = scf.for %i = %c0 to %c100 step %c1 iter_args(%acc = %c0) -> (index) {
    %b = memref.load %row[%i] : memref<100xi1, strided<[1], offset: 100>>
    %inc = arith.select %b, %c1, %c0 : index
    %next = arith.addi %acc, %inc : index
    scf.yield %next : index
  }
  memref.dealloc %mask : memref<4x100xi1>
  return %n : index
}

// -----

// Stores extend their value; a generic that reads the buffer truncates its
// block argument.
// CHECK-LABEL: func.func @store_then_generic_input
// CHECK: %[[BUF:.*]] = memref.alloca() : memref<8xi8>
// CHECK: %[[E:.*]] = arith.extui %{{.*}} : i1 to i8
// CHECK: memref.store %[[E]], %[[BUF]][%{{.*}}] : memref<8xi8>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[BUF]] : memref<8xi8>)
// CHECK: ^bb0(%[[IN:.*]]: i8, %{{.*}}: f32):
// CHECK: %[[T:.*]] = arith.trunci %[[IN]] : i8 to i1
// CHECK: arith.select %[[T]]
func.func @store_then_generic_input(%b: i1, %i: index, %out: memref<8xf32>) {
  %buf = memref.alloca() : memref<8xi1>
  memref.store %b, %buf[%i] : memref<8xi1>
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%buf : memref<8xi1>) outs(%out : memref<8xf32>) {
  ^bb0(%m: i1, %o: f32):
    %v = arith.select %m, %one, %zero : f32
    linalg.yield %v : f32
  }
  return
}

// -----

// Read by a call (a routine that takes i1), copied, or returned: i1 stays.
// CHECK-LABEL: func.func @other_uses
// CHECK: memref.alloc() : memref<8xi1>
// CHECK: memref.alloc() : memref<8xi1>
// CHECK: memref.alloc() : memref<8xi1>
// CHECK-NOT: i8
func.func private @reads(memref<8xi1>)
func.func @other_uses(%b: i1, %i: index, %dst: memref<8xi1>) -> memref<8xi1> {
  %a = memref.alloc() : memref<8xi1>
  memref.store %b, %a[%i] : memref<8xi1>
  func.call @reads(%a) : (memref<8xi1>) -> ()
  %c = memref.alloc() : memref<8xi1>
  memref.store %b, %c[%i] : memref<8xi1>
  memref.copy %c, %dst : memref<8xi1> to memref<8xi1>
  %r = memref.alloc() : memref<8xi1>
  memref.store %b, %r[%i] : memref<8xi1>
  return %r : memref<8xi1>
}
