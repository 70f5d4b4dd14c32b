// The Feistel permutation's lowerings (sift.randperm_prefix, sift.randperm
// without `sort`). The CPU form (vector-loops=1): a parallel loop over the
// lines and chunks of 4096 lanes calling one routine per module, which
// walks vectors of 128 lanes (six rounds; the last vector's lanes past the
// end start at 0 and are not stored): a chunk of one vector again while
// any lane is at or past n, a longer one once and then only its lanes out
// of range, compacted; it writes -1 past the lanes' end, min(n, limit).
// The GPU form
// (vector-loops=0): one linalg.generic, a thread per lane walking alone.
// RUN: tensor-opt %s --convert-sift-to-linalg="vector-loops=1" | FileCheck %s --check-prefix=CPU
// RUN: tensor-opt %s --convert-sift-to-linalg="vector-loops=0" | FileCheck %s --check-prefix=GPU

// CPU-LABEL: func.func @prefix
// CPU-SAME: %[[N:.*]]: tensor<4xindex>, %[[SEEDS:.*]]: tensor<4xi64>, %[[LIM:.*]]: index
// CPU: %[[BUF:.*]] = memref.alloc() : memref<4x1000xi64>
// CPU: scf.parallel (%[[LINE:.*]], %[[CHUNK:.*]]) =
// CPU: %[[SEED:.*]] = memref.load %{{.*}}[%[[LINE]]] : memref<4xi64>
// CPU: %[[NL:.*]] = memref.load %{{.*}}[%[[LINE]]] : memref<4xindex>
// CPU: %[[NC:.*]] = arith.minsi %{{.*}}, %c4294967296_i64 : i64
// CPU: %[[END:.*]] = arith.minsi %[[NC]], %{{.*}} : i64
// CPU: func.call @__sift_feistel(%[[SEED]], %{{.*}}, %[[NC]], %[[END]], %{{.*}}, %[[LINE]], %{{.*}}, %{{.*}}) {sift.static_work = 4096 : i64}
// CPU: bufferization.to_tensor %[[BUF]] restrict writable

// GPU-LABEL: func.func @prefix
// GPU: linalg.generic
// GPU-SAME: ins(%{{.*}}, %{{.*}} : tensor<4xindex>, tensor<4xi64>)
// GPU: linalg.index 1
// GPU: scf.if
// GPU: scf.while
// GPU: arith.cmpi ugt
// GPU: arith.extui
// GPU: } else {
// GPU: scf.yield %c-1_i64
// GPU-NOT: func.func private @__sift_feistel
func.func @prefix(%n: tensor<4xindex>, %seeds: tensor<4xi64>, %lim: index)
    -> tensor<4x1000xi64> {
  %p = sift.randperm_prefix %n, %seeds limit %lim
      : (tensor<4xindex>, tensor<4xi64>, index) -> tensor<4x1000xi64>
  return %p : tensor<4x1000xi64>
}

// A Feistel randperm of a dynamic n checks n against 2^32 (the run-time
// error of a larger n), then shares the routine.
// CPU-LABEL: func.func @randperm
// CPU: arith.cmpi sgt, %{{.*}}, %c4294967296
// CPU: memref.alloc(%{{.*}}) : memref<1x?xi64>
// CPU: func.call @__sift_feistel(
// CPU: tensor.collapse_shape
// The routine, once for both.
// CPU-NOT: func.func private @__sift_feistel_
// CPU-LABEL: func.func private @__sift_feistel({{.*}}) attributes {sift.line_routine}
// CPU-COUNT-2: memref.alloca() : memref<4096xi32>
// CPU: math.ctlz
// CPU: arith.maxui %{{.*}}, %c8_i32 : i32
// A chunk of one vector: walked until all of its lanes are in range.
// CPU: scf.while (%{{.*}}) : (vector<128xi32>) -> (vector<128xi32>, vector<128xi1>)
// CPU: arith.cmpi ugt, %{{.*}} : vector<128xi32>
// CPU: vector.reduction <or>
// CPU: arith.select %{{.*}} : vector<128xi1>, vector<128xi32>
// CPU: vector.maskedstore %{{.*}} : memref<?x?xi64>, vector<128xi1>, vector<128xi64>
// CPU: } else {
// A longer one: every lane once, those in range stored, the others
// compacted into the pending lists and counted.
// CPU: scf.for %{{.*}} step %c128
// CPU: vector.maskedstore %{{.*}} : memref<?x?xi64>, vector<128xi1>, vector<128xi64>
// CPU-COUNT-2: vector.compressstore %{{.*}} : memref<4096xi32>, vector<128xi1>, vector<128xi32>
// CPU: math.ctpop %{{.*}} : i128
// Then the pending lanes, while there are any: one vector walked to the end,
// or passes that scatter the lanes in range and compact the others again.
// CPU: scf.while (%{{.*}}) : (index) -> index
// CPU-COUNT-2: vector.maskedload %{{.*}} : memref<4096xi32>, vector<128xi1>, vector<128xi32> into vector<128xi32>
// CPU: vector.reduction <or>
// CPU: vector.scatter %{{.*}} : memref<?x?xi64>, vector<128xi32>, vector<128xi1>, vector<128xi64>
// CPU: } else {
// CPU-COUNT-2: vector.maskedload
// CPU: vector.scatter
// CPU-COUNT-2: vector.compressstore
// CPU: math.ctpop
// CPU-NOT: scf.while
// CPU: memref.store %c-1_i64
// GPU-LABEL: func.func @randperm
// GPU: tensor.empty(%{{.*}}) : tensor<?xi64>
// GPU: linalg.generic
func.func @randperm(%n: index, %seed: i64) -> tensor<?xi64> {
  %p = sift.randperm %n, %seed : tensor<?xi64>
  return %p : tensor<?xi64>
}
// CPU-NOT: func.func private @__sift_feistel
