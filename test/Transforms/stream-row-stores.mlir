// --sift-stream-row-stores: row copies into large results, on whole
// aligned lines, become non-temporal vector stores; every other copy stays.
//
// RUN: tensor-opt %s -split-input-file --sift-stream-row-stores=min-bytes=4096 | FileCheck %s
// RUN: tensor-opt %s --sift-stream-row-stores=min-bytes=0 | FileCheck %s --check-prefix=OFF
// RUN: tensor-opt %s "--sift-cpu-pipeline=stream-row-bytes=4096" | FileCheck %s --check-prefix=PIPELINE

// A gather of 64-byte rows into a batched result, as the bufferized
// sift.gather leaves it: each row a view at (b, j) of a 64-byte aligned
// allocation whose strides are whole rows.
// CHECK-LABEL: func.func @gather_rows
// CHECK: scf.for
// CHECK-NOT: memref.copy
// CHECK: %[[ROW:.*]] = vector.load %{{.*}}[%c0{{.*}}] : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK-NEXT: vector.store %[[ROW]], %{{.*}}[%c0{{.*}}] {alignment = 64 : i64, nontemporal = true} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
// OFF-LABEL: func.func @gather_rows
// OFF: memref.copy
// PIPELINE-LABEL: llvm.func @gather_rows
// PIPELINE: llvm.store %{{.*}}, %{{.*}} {alignment = 64 : i64, nontemporal} : vector<16xf32>, !llvm.ptr
func.func @gather_rows(%x: memref<2x100x16xf32>, %idx: memref<2x64xindex>)
    -> memref<2x64x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %out = memref.alloc() {alignment = 64 : i64} : memref<2x64x16xf32>
  scf.for %b = %c0 to %c2 step %c1 {
    %outb = memref.subview %out[%b, 0, 0] [1, 64, 16] [1, 1, 1]
        : memref<2x64x16xf32> to memref<1x64x16xf32, strided<[1024, 16, 1], offset: ?>>
    scf.for %j = %c0 to %c64 step %c1 {
      %i = memref.load %idx[%b, %j] : memref<2x64xindex>
      %src = memref.subview %x[%b, %i, 0] [1, 1, 16] [1, 1, 1]
          : memref<2x100x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      %dst = memref.subview %outb[0, %j, 0] [1, 1, 16] [1, 1, 1]
          : memref<1x64x16xf32, strided<[1024, 16, 1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
      memref.copy %src, %dst : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
    }
  }
  return %out : memref<2x64x16xf32>
}

// -----

// Rows of two lines with a leading unit dimension: one vector of 32.
// CHECK-LABEL: func.func @two_lines
// CHECK: vector.load {{.*}} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<32xf32>
// CHECK: vector.store {{.*}} {alignment = 64 : i64, nontemporal = true}
func.func @two_lines(%x: memref<100x32xf32>, %i: index, %j: index)
    -> memref<64x32xf32> {
  %out = memref.alloc() {alignment = 128 : i64} : memref<64x32xf32>
  %src = memref.subview %x[%i, 0] [1, 32] [1, 1]
      : memref<100x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
  %dst = memref.subview %out[%j, 0] [1, 32] [1, 1]
      : memref<64x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
  memref.copy %src, %dst : memref<1x32xf32, strided<[32, 1], offset: ?>> to memref<1x32xf32, strided<[32, 1], offset: ?>>
  return %out : memref<64x32xf32>
}

// -----

// Copies that stay: a result under min-bytes; rows of 48 bytes (a partial
// line); a row that starts 32 bytes into a line (a static offset of 8
// elements); an allocation of no known alignment; a destination that is a
// function argument (its alignment is the caller's).
// CHECK-LABEL: func.func @stay
// CHECK-NOT: vector.store
// CHECK-COUNT-5: memref.copy
// CHECK-NOT: vector.store
func.func @stay(%x: memref<100x16xf32>, %y: memref<100x12xf32>,
                %arg: memref<4096x16xf32>, %i: index, %j: index)
    -> (memref<16x16xf32>, memref<4096x12xf32>, memref<4096x24xf32>,
        memref<4096x16xf32>) {
  %src = memref.subview %x[%i, 0] [1, 16] [1, 1]
      : memref<100x16xf32> to memref<16xf32, strided<[1], offset: ?>>
  // 1 KiB: under min-bytes.
  %small = memref.alloc() {alignment = 64 : i64} : memref<16x16xf32>
  %d0 = memref.subview %small[%j, 0] [1, 16] [1, 1]
      : memref<16x16xf32> to memref<16xf32, strided<[1], offset: ?>>
  memref.copy %src, %d0 : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
  // 48-byte rows.
  %src12 = memref.subview %y[%i, 0] [1, 12] [1, 1]
      : memref<100x12xf32> to memref<12xf32, strided<[1], offset: ?>>
  %narrow = memref.alloc() {alignment = 64 : i64} : memref<4096x12xf32>
  %d1 = memref.subview %narrow[%j, 0] [1, 12] [1, 1]
      : memref<4096x12xf32> to memref<12xf32, strided<[1], offset: ?>>
  memref.copy %src12, %d1 : memref<12xf32, strided<[1], offset: ?>> to memref<12xf32, strided<[1], offset: ?>>
  // Rows 8 elements into lines of 24.
  %wide = memref.alloc() {alignment = 64 : i64} : memref<4096x24xf32>
  %d2 = memref.subview %wide[%j, 8] [1, 16] [1, 1]
      : memref<4096x24xf32> to memref<16xf32, strided<[1], offset: ?>>
  memref.copy %src, %d2 : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
  // No alignment.
  %plain = memref.alloc() : memref<4096x16xf32>
  %d3 = memref.subview %plain[%j, 0] [1, 16] [1, 1]
      : memref<4096x16xf32> to memref<16xf32, strided<[1], offset: ?>>
  memref.copy %src, %d3 : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
  // A function argument.
  %d4 = memref.subview %arg[%j, 0] [1, 16] [1, 1]
      : memref<4096x16xf32> to memref<16xf32, strided<[1], offset: ?>>
  memref.copy %src, %d4 : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
  return %small, %narrow, %wide, %plain
      : memref<16x16xf32>, memref<4096x12xf32>, memref<4096x24xf32>,
        memref<4096x16xf32>
}
