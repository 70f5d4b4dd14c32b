// The CPU's form of the random ops' Philox blocks (--convert-sift-to-linalg,
// vector-loops on by default): an scf.parallel over the rows of per-row
// streams and chunks of 1024 blocks, whose body calls a routine that loops
// over the chunk's blocks with an LLVM loop annotation that asks for vectors
// of 8 (LLVM's cost model alone leaves the loop scalar); each block's four
// words are stored at 4 * block + e. The routine is a private function made
// once per module for each kind of element, shared by every stream of that
// kind whatever its seed, offset or size (the buffer is passed with dynamic
// sizes). A row's last, partial block is stored after.
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
// CHECK: %[[DEST:.*]] = memref.cast %[[BUF]] : memref<4x8194xi32> to memref<?x?xi32>
// CHECK: func.call @[[ROUTINE:__sift_philox_bits_i32_x4_rows]](%[[SEED]], %c0_i64, %[[DEST]], %[[ROW]], %[[BEGIN]], %[[END]], %[[END]])
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK: memref.store %{{.*}}, %[[BUF]][%{{.*}}, %c8192]
// CHECK: memref.store %{{.*}}, %[[BUF]][%{{.*}}, %c8193]
// CHECK: func.func private @[[ROUTINE]](%[[S:.*]]: i64, %[[O:.*]]: i64, %[[OUT:.*]]: memref<?x?xi32>, %[[R:.*]]: index, %[[B:.*]]: index, %[[E:.*]]: index, %[[CE:.*]]: index) attributes {sift.line_routine}
// CHECK: scf.for %[[BLOCK:.*]] = %[[B]] to %[[E]] step %c1 {
// CHECK: arith.mului_extended
// CHECK: %[[FIRST:.*]] = arith.muli %[[BLOCK]], %c4 : index
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[R]], %[[FIRST]]]
// CHECK-COUNT-3: memref.store %{{.*}}, %[[OUT]][%[[R]], %{{.*}}]
// CHECK: } {loop_annotation = #[[ANN]]}
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
// CHECK: func.call @__sift_philox_bits_i32_x4_rows(%{{.*}}, %{{.*}}, %{{.*}}, %[[ROW]], %{{.*}}, %[[END]], %[[CHUNK_END]])
// The rest of the chunk, past the row's blocks, is zero-filled.
// CHECK: func.func private @__sift_philox_bits_i32_x4_rows(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: memref<?x?xi32>, %{{.*}}: index, %[[B:.*]]: index, %[[E:.*]]: index, %[[CE:.*]]: index)
// CHECK: } {loop_annotation = #[[ANN]]}
// CHECK: %[[FROM:.*]] = arith.maxui %[[B]], %[[E]] : index
// CHECK: scf.for %{{.*}} = %[[FROM]] to %[[CE]] step %c1 {
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
// CHECK: %[[END:.*]] = arith.minui %{{.*}}, %[[MINE]] : index
// CHECK: func.call @__sift_philox_bits_i32_x4(%arg0, %c0_i64, %{{.*}}, %{{.*}}, %[[END]], %{{.*}}) {sift.static_work = 1024 : i64} : (i64, i64, memref<?xi32>, index, index, index) -> ()
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

// -----

// Streams of one kind share one routine whatever their offsets and sizes
// (here a per-row stream of 8194 with a valid, and two of 4 x 4096 at
// offsets 1 and 2); other kinds (64-bit elements, two words each) have
// theirs. A function of the user's with the routine's name and another
// type makes the routine take a number.
// CHECK: func.func private @__sift_philox_bits_i32_x4_rows(i32)
// CHECK-LABEL: func.func @shared
// CHECK-COUNT-3: func.call @__sift_philox_bits_i32_x4_rows_1(
// CHECK: func.call @__sift_philox_bits_i64_x2_rows(
// CHECK-NOT: func.call
// CHECK: return
// CHECK-DAG: func.func private @__sift_philox_bits_i32_x4_rows_1(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: memref<?x?xi32>,
// CHECK-DAG: func.func private @__sift_philox_bits_i64_x2_rows(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: memref<?x?xi64>,
// CHECK-NOT: func.func
func.func private @__sift_philox_bits_i32_x4_rows(%x: i32)

func.func @shared(%seed: tensor<4xi64>, %v: tensor<4xindex>)
    -> (tensor<4x8194xi32>, tensor<4x4096xi32>, tensor<4x4096xi32>,
        tensor<4x4096xi64>) {
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %a = sift.random_bits %seed valid(%v : tensor<4xindex>) : tensor<4xi64> -> tensor<4x8194xi32>
  %b = sift.random_bits %seed offset %c1 : tensor<4xi64> -> tensor<4x4096xi32>
  %c = sift.random_bits %seed offset %c2 : tensor<4xi64> -> tensor<4x4096xi32>
  %d = sift.random_bits %seed : tensor<4xi64> -> tensor<4x4096xi64>
  return %a, %b, %c, %d : tensor<4x8194xi32>, tensor<4x4096xi32>, tensor<4x4096xi32>, tensor<4x4096xi64>
}
