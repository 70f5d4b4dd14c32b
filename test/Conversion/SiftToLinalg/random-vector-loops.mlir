// The CPU's form of the random ops' Philox blocks (--convert-sift-to-linalg,
// vector-loops on by default): an scf.parallel over the rows of per-row
// streams and chunks of 1024 blocks, whose body loops over the chunk's
// blocks with an LLVM loop annotation that asks for vectors of 8 (LLVM's
// cost model alone leaves the loop scalar); each block's four words are
// stored at 4 * block + e. A row's last, partial block is stored after.
// The words are checked bit for bit against NumPy by the conformance suite.
//
// RUN: tensor-opt %s --convert-sift-to-linalg -split-input-file | FileCheck %s
// The annotation reaches the loop's back edge in the LLVM dialect (the
// branch's own `loop_annotation`, which becomes !llvm.loop metadata):
// RUN: tensor-opt %s --sift-cpu-pipeline | FileCheck %s --check-prefix=LLVM
// LLVM: #[[VEC:.*]] = #llvm.loop_vectorize<disable = false, width = 8 : i32>
// LLVM: #[[ANN:.*]] = #llvm.loop_annotation<vectorize = #[[VEC]]>
// LLVM: llvm.br ^{{.*}} {loop_annotation = #[[ANN]]}

// CHECK-DAG: #[[VEC:.*]] = #llvm.loop_vectorize<disable = false, width = 8 : i32>
// CHECK-DAG: #[[ANN:.*]] = #llvm.loop_annotation<vectorize = #[[VEC]]>
// CHECK-LABEL: func.func @rows
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<4x8194xi32>
// CHECK: scf.parallel (%[[ROW:.*]], %[[CHUNK:.*]]) = (%c0, %c0) to (%c4, %c2) step (%c1, %c1)
// CHECK: %[[SEED:.*]] = memref.load %{{.*}}[%[[ROW]]] : memref<4xi64>
// CHECK: %[[BEGIN:.*]] = arith.muli %[[CHUNK]], %c1024 : index
// CHECK: %[[NEXT:.*]] = arith.addi %[[BEGIN]], %c1024 : index
// CHECK: %[[END:.*]] = arith.minui %[[NEXT]], %c2048 : index
// CHECK: scf.for %[[BLOCK:.*]] = %[[BEGIN]] to %[[END]] step %c1 {
// CHECK: arith.mului_extended
// CHECK: %[[FIRST:.*]] = arith.muli %[[BLOCK]], %c4 : index
// CHECK: memref.store %{{.*}}, %[[BUF]][%[[ROW]], %[[FIRST]]]
// CHECK-COUNT-3: memref.store %{{.*}}, %[[BUF]][%[[ROW]], %{{.*}}]
// CHECK: } {loop_annotation = #[[ANN]]}
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK: memref.store %{{.*}}, %[[BUF]][%{{.*}}, %c8192]
// CHECK: memref.store %{{.*}}, %[[BUF]][%{{.*}}, %c8193]
func.func @rows(%seed: tensor<4xi64>) -> tensor<4x8194xi32> {
  %r = sift.random_bits %seed : tensor<4xi64> -> tensor<4x8194xi32>
  return %r : tensor<4x8194xi32>
}

// -----

// valid(%v), one per row: a row's chunks stop at the blocks that cover its
// first v[row] words, ceil(v / 4) and at most the full blocks.
// CHECK-LABEL: func.func @rows_valid
// CHECK: %[[V:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<4xindex> to memref<4xindex>
// CHECK: scf.parallel (%[[ROW:.*]], %[[CHUNK:.*]]) = (%c0, %c0) to (%c4, %c2) step (%c1, %c1)
// CHECK: %[[NEXT:.*]] = arith.addi %{{.*}}, %c1024 : index
// CHECK: %[[CHUNK_END:.*]] = arith.minui %[[NEXT]], %c2048 : index
// CHECK: %[[N:.*]] = memref.load %[[V]][%[[ROW]]] : memref<4xindex>
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %[[N]], %c4 : index
// CHECK: %[[MINE:.*]] = arith.minui %[[BLOCKS]], %c2048 : index
// CHECK: %[[END:.*]] = arith.minui %[[CHUNK_END]], %[[MINE]] : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[END]] step %c1 {
// The rest of the chunk, past the row's blocks, is zero-filled.
// CHECK: } {loop_annotation = #[[ANN]]}
// CHECK: %[[FROM:.*]] = arith.maxui %{{.*}}, %[[END]] : index
// CHECK: scf.for %{{.*}} = %[[FROM]] to %[[CHUNK_END]] step %c1 {
// CHECK: memref.store %c0_i32
func.func @rows_valid(%seed: tensor<4xi64>, %v: tensor<4xindex>) -> tensor<4x8194xi32> {
  %r = sift.random_bits %seed valid(%v : tensor<4xindex>) : tensor<4xi64> -> tensor<4x8194xi32>
  return %r : tensor<4x8194xi32>
}

// -----

// One stream and one valid: the same bound for its one line.
// CHECK-LABEL: func.func @line_valid
// CHECK: scf.parallel (%[[CHUNK:.*]]) = (%c0) to (%c3) step (%c1)
// CHECK: %[[BLOCKS:.*]] = arith.ceildivui %arg1, %c4 : index
// CHECK: %[[MINE:.*]] = arith.minui %[[BLOCKS]], %c2500 : index
// CHECK: arith.minui %{{.*}}, %[[MINE]] : index
func.func @line_valid(%seed: i64, %v: index) -> tensor<10000xi32> {
  %r = sift.random_bits %seed valid(%v : index) : tensor<10000xi32>
  return %r : tensor<10000xi32>
}

// -----

// A valid over lines that are not the streams' rows (one stream over a
// matrix) is left to the full stream, which it allows.
// CHECK-LABEL: func.func @lines_not_rows
// CHECK-NOT: arith.ceildivui
// CHECK: return
func.func @lines_not_rows(%seed: i64, %v: tensor<4xindex>) -> tensor<4x8194xi32> {
  %r = sift.random_bits %seed valid(%v : tensor<4xindex>) : tensor<4x8194xi32>
  return %r : tensor<4x8194xi32>
}
