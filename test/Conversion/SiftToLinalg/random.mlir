// The structure of the lowering of the ops in Random.cpp: random_bits,
// random_uniform, randperm. Philox4x32-10: per round two 32x32->64
// multiplies by 0xD2511F53 and 0xCD9E8D57, the key bumped by 0x9E3779B9 and
// 0xBB67AE85 between rounds.
//
// The element-wise form (the GPU pipeline's, vector-loops=0): the CPU's
// vectorized Philox loops are in random-vector-loops.mlir.
// RUN: tensor-opt %s --convert-sift-to-linalg="vector-loops=0" -split-input-file | FileCheck %s

// Philox4x32-10: two 32x32->64 multiplies per round, ten rounds, in one
// parallel linalg.generic over the result.
// CHECK-LABEL: func.func @random_bits
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel"]
// CHECK-COUNT-20: arith.mului_extended
// CHECK-NOT: arith.mului_extended
// CHECK: linalg.yield
func.func @random_bits(%seed: i64, %off: i64) -> tensor<16xi32> {
  %r = sift.random_bits %seed offset %off : tensor<16xi32>
  return %r : tensor<16xi32>
}

// -----

// random_uniform f32: each Philox block gives four elements, written through
// four stride-4 views of one buffer by one parallel linalg.generic; each
// word becomes (w >> 8) * 2^-24. The key is the seed's two halves, the
// counter the block number and the stream offset; ten rounds bump the key
// nine times.
// CHECK-LABEL: func.func @random_uniform
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 5.96046448E-8 : f32
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i32
// CHECK-DAG: %[[W1:.*]] = arith.constant -1150833019 : i32
// CHECK-DAG: %[[W0:.*]] = arith.constant -1640531527 : i32
// CHECK-DAG: %[[M1:.*]] = arith.constant -845247145 : i32
// CHECK-DAG: %[[M0:.*]] = arith.constant -766435501 : i32
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<12xf32>
// CHECK: %[[L0:.*]] = memref.subview %[[BUF]][0] [3] [4]
// CHECK: %[[L1:.*]] = memref.subview %[[BUF]][1] [3] [4]
// CHECK: %[[L2:.*]] = memref.subview %[[BUF]][2] [3] [4]
// CHECK: %[[L3:.*]] = memref.subview %[[BUF]][3] [3] [4]
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel"]
// CHECK-SAME: outs(%[[L0]], %[[L1]], %[[L2]], %[[L3]] :
// CHECK: %[[BLOCK:.*]] = linalg.index 0
// CHECK: %[[K0:.*]] = arith.trunci %arg0 : i64 to i32
// CHECK: %[[SEEDHI:.*]] = arith.shrui %arg0, %c32_i64
// CHECK: %[[K1:.*]] = arith.trunci %[[SEEDHI]] : i64 to i32
// CHECK: arith.trunci %arg1 : i64 to i32
// CHECK: %{{.*}}, %[[H0:.*]] = arith.mului_extended %{{.*}}, %[[M0]] : i32
// CHECK: %{{.*}}, %[[H1:.*]] = arith.mului_extended %{{.*}}, %[[M1]] : i32
// CHECK: %[[X0:.*]] = arith.xori %[[H1]], %{{.*}} : i32
// CHECK: arith.xori %[[X0]], %[[K0]] : i32
// CHECK: %[[X2:.*]] = arith.xori %[[H0]], %{{.*}} : i32
// CHECK: arith.xori %[[X2]], %[[K1]] : i32
// CHECK: arith.addi %[[K0]], %[[W0]] : i32
// CHECK: arith.addi %[[K1]], %[[W1]] : i32
// CHECK-COUNT-8: arith.addi %{{.*}}, %[[W0]] : i32
// CHECK-NOT: %[[W0]]
// CHECK-COUNT-4: arith.shrui %{{.*}}, %[[C8]] : i32
// CHECK-NOT: arith.shrui
// CHECK: linalg.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[BUF]] restrict writable
// CHECK: tensor.expand_shape %[[T]] {{\[\[}}0, 1]] output_shape [3, 4]
func.func @random_uniform(%seed: i64, %off: i64) -> tensor<3x4xf32> {
  %r = sift.random_uniform %seed offset %off : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// Per-row seeds and offsets: a 2-D parallel generic over (row, block) reads
// each row's seed and offset, and the last, partial block of each row (10
// elements per row: two full blocks and two more) is stored element by
// element in a loop over the rows.
// CHECK-LABEL: func.func @random_uniform_rows
// CHECK: %[[SEEDS:.*]] = bufferization.to_buffer %arg0 read_only
// CHECK: %[[OFFS:.*]] = bufferization.to_buffer %arg1 read_only
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<4x10xf32>
// CHECK-COUNT-4: memref.subview %[[BUF]][0, {{[0-3]}}] [4, 2] [1, 4]
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[SEEDS]], %[[OFFS]] :
// CHECK: ^bb0(%[[SEED:.*]]: i64, %[[OFF:.*]]: i64,
// CHECK: arith.trunci %[[SEED]]
// CHECK: arith.trunci %[[OFF]]
// CHECK-COUNT-20: arith.mului_extended
// CHECK: linalg.yield
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c4
// CHECK: memref.load %[[SEEDS]][%[[ROW]]]
// CHECK: memref.load %[[OFFS]][%[[ROW]]]
// CHECK: arith.mului_extended
// CHECK: memref.store %{{.*}}, %[[BUF]][%[[ROW]], %c8]
// CHECK: memref.store %{{.*}}, %[[BUF]][%[[ROW]], %c9]
// CHECK: bufferization.to_tensor %[[BUF]] restrict writable
func.func @random_uniform_rows(%s: tensor<4xi64>, %o: tensor<4xi64>) -> tensor<4x5x2xf32> {
  %1 = sift.random_uniform %s offset %o : tensor<4xi64>, tensor<4xi64> -> tensor<4x5x2xf32>
  return %1 : tensor<4x5x2xf32>
}

// -----

// An f64 takes two words: ((hi >> 11) * 2^32 + lo) * 2^-53, two elements
// per block.
// CHECK-LABEL: func.func @random_uniform_f64
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 1.1102230246251565E-16 : f64
// CHECK-DAG: %[[C11:.*]] = arith.constant 11 : i32
// CHECK: memref.alloc() : memref<6xf64>
// CHECK-COUNT-2: memref.subview %{{.*}}[{{[01]}}] [3] [2]
// CHECK: linalg.generic
// CHECK-COUNT-20: arith.mului_extended
// CHECK: %[[HI:.*]] = arith.shrui %{{.*}}, %[[C11]] : i32
// CHECK: %[[LO64:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK: %[[HI64:.*]] = arith.extui %[[HI]] : i32 to i64
// CHECK: %[[TOP:.*]] = arith.shli %[[HI64]], %c32_i64
// CHECK: %[[M:.*]] = arith.ori %[[TOP]], %[[LO64]]
// CHECK: %[[F:.*]] = arith.uitofp %[[M]] : i64 to f64
// CHECK: arith.mulf %[[F]], %[[SCALE]] : f64
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f64, f64
func.func @random_uniform_f64(%seed: i64, %off: i64) -> tensor<6xf64> {
  %1 = sift.random_uniform %seed offset %off : tensor<6xf64>
  return %1 : tensor<6xf64>
}

// -----

// randperm: n outside [0, 2^56] is reported (codes 4 and 5,
// SIFT_RT_ERROR_RANDPERM_NEGATIVE and _TOO_LARGE) and becomes 0; then a
// stable radix argsort (four passes) of the first n Philox words.
// CHECK: func.func private @sift_rt_report(i64, i64, i64, i64)
// CHECK-LABEL: func.func @randperm
// CHECK-DAG: %[[NEGATIVE:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[TOO_LARGE:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[MAX:.*]] = arith.constant 72057594037927936 : index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %arg0, %c0
// CHECK: %[[BIG:.*]] = arith.cmpi sgt, %arg0, %[[MAX]]
// CHECK: scf.if %[[NEG]]
// CHECK: func.call @sift_rt_report(%[[NEGATIVE]],
// CHECK: scf.if %[[BIG]]
// CHECK: func.call @sift_rt_report(%[[TOO_LARGE]],
// CHECK: %[[BAD:.*]] = arith.ori %[[NEG]], %[[BIG]]
// CHECK: %[[N:.*]] = arith.select %[[BAD]], %c0, %arg0
// CHECK: %[[WORDS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?xi32>)
// CHECK: arith.mului_extended
// CHECK: linalg.yield
// CHECK-COUNT-4: scf.for %{{.*}} = %c0 to %c256
// CHECK-NOT: to %c256
// CHECK: return %{{.*}} : tensor<?xi64>
func.func @randperm(%n: index, %seed: i64) -> tensor<?xi64> {
  %p = sift.randperm %n, %seed sort : tensor<?xi64>
  return %p : tensor<?xi64>
}
