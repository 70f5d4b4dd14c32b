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
