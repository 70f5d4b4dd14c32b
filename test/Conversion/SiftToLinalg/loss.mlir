// The structure of the lowering of the ops in Loss.cpp: cross_entropy, one
// line of logits per target, each a max-shifted log-sum-exp.
//
// RUN: tensor-opt %s --convert-sift-to-linalg -split-input-file | FileCheck %s

// Out-of-range targets call the runtime, declared once per module, with the
// code (2: SIFT_RT_ERROR_CROSS_ENTROPY_TARGET), the target, its row and C.
// CHECK: func.func private @sift_rt_report(i64, i64, i64, i64)
// CHECK-LABEL: func.func @cross_entropy
// CHECK-DAG: %[[CODE:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C:.*]] = arith.constant 3 : i64
// CHECK: %[[T:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<4xi64>
// CHECK: scf.if
// CHECK: %[[ROW:.*]] = arith.index_cast
// CHECK-NEXT: func.call @sift_rt_report(%[[CODE]], %[[T]], %[[ROW]], %[[C]]) : (i64, i64, i64, i64) -> ()
func.func @cross_entropy(%x: tensor<4x3xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  %r = sift.cross_entropy %x, %t reduction = mean : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Per row (a parallel linalg.generic over the rows, writing each row's loss
// and weight in place: no buffer per row), lse = m + log(sum exp(x - m)) in
// one pass over blocks of 16-lane vectors (19 logits: one block of two
// vectors, the second masked, reading -inf past the end). Each lane keeps a
// running maximum M (from the lowest finite value) and sum S (from 0),
// updated once a block: M' = max(M, the block's maximum) by selects on `>`
// (a NaN never becomes M), S' = S exp(M - M') + sum exp(x - M'); from the
// start state S exp(M - M') is 0, so this row's only block has no rescale.
// Then m = max M and s = sum S exp(M - m) (reassociable). Each exp of a
// value at most 0 is a polynomial in f32: the value raised to -88 by a
// select that keeps NaN, k = round(x log2 e) by adding 1.5 * 2^23,
// r = x - k ln 2, a degree 5 polynomial, 2^k made in the exponent bits. A
// NaN logit (S is NaN), a +inf one (m = +inf) or a row of -inf (s = 0)
// gives NaN. The loss is lse - x[t], NaN for an invalid target and 0 for
// ignore_index (-100). Half types compute in f32 and round the result once.
// CHECK-LABEL: func.func @cross_entropy_lse
// CHECK-DAG: %[[LOWEST:.*]] = arith.constant dense<-3.40282347E+38> : vector<16xf32>
// CHECK-DAG: %[[VONE:.*]] = arith.constant dense<1.000000e+00> : vector<16xf32>
// CHECK-DAG: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-DAG: %[[FLOOR:.*]] = arith.constant dense<-8.800000e+01> : vector<16xf32>
// CHECK-DAG: %[[LOG2E:.*]] = arith.constant dense<1.44269502> : vector<16xf32>
// CHECK-DAG: %[[MAGIC:.*]] = arith.constant dense<0x4B400000> : vector<16xf32>
// CHECK-DAG: %[[LN2:.*]] = arith.constant dense<-0.693147182> : vector<16xf32>
// CHECK-DAG: %[[C5:.*]] = arith.constant dense<0.00831252057> : vector<16xf32>
// CHECK-DAG: %[[BIAS:.*]] = arith.constant dense<1262485377> : vector<16xi32>
// CHECK-DAG: %[[C23:.*]] = arith.constant dense<23> : vector<16xi32>
// CHECK-DAG: %[[PAD:.*]] = arith.constant 0xFC00 : f16
// CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[IGNORE:.*]] = arith.constant -100 : i64
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-NOT: scf.forall
// CHECK: %[[PER_ROW:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[ROW:.*]] = linalg.index 0
// CHECK: %[[LINE:.*]] = tensor.extract_slice %arg0[%[[ROW]], 0] [1, 19] [1, 1] : tensor<4x19xf16> to tensor<19xf16>
// CHECK: %[[T:.*]] = tensor.extract %arg1[%[[ROW]]]
// CHECK: %[[IGNORED:.*]] = arith.cmpi eq, %[[T]], %[[IGNORE]]
// CHECK-NOT: scf.for
// CHECK: %[[XH0:.*]] = vector.transfer_read %[[LINE]][%{{.*}}], %[[PAD]] {in_bounds = [true]} : tensor<19xf16>, vector<16xf16>
// CHECK: %[[X0:.*]] = arith.extf %[[XH0]] : vector<16xf16> to vector<16xf32>
// CHECK: %[[XH1:.*]] = vector.transfer_read %[[LINE]][%[[C16]]], %[[PAD]] : tensor<19xf16>, vector<16xf16>
// CHECK: %[[X1:.*]] = arith.extf %[[XH1]] : vector<16xf16> to vector<16xf32>
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[X0]], %[[X1]]
// CHECK: %[[BM:.*]] = arith.select %[[GT]], %[[X0]], %[[X1]]
// CHECK: %[[ABOVE:.*]] = arith.cmpf ogt, %[[BM]], %[[LOWEST]]
// CHECK: %[[M:.*]] = arith.select %[[ABOVE]], %[[BM]], %[[LOWEST]]
// CHECK: %[[D0:.*]] = arith.subf %[[X0]], %[[M]]
// CHECK: %[[LOW:.*]] = arith.cmpf olt, %[[D0]], %[[FLOOR]]
// CHECK: %[[E:.*]] = arith.select %[[LOW]], %[[FLOOR]], %[[D0]]
// CHECK: %[[ROUNDED:.*]] = math.fma %[[E]], %[[LOG2E]], %[[MAGIC]]
// CHECK: %[[K:.*]] = arith.subf %[[ROUNDED]], %[[MAGIC]]
// CHECK: %[[R:.*]] = math.fma %[[K]], %[[LN2]], %[[E]]
// CHECK: math.fma %[[C5]], %[[R]],
// CHECK-COUNT-3: math.fma %{{.*}}, %[[R]],
// CHECK: %[[P:.*]] = math.fma %{{.*}}, %[[R]], %[[VONE]]
// CHECK: %[[BITS:.*]] = arith.bitcast %[[ROUNDED]] : vector<16xf32> to vector<16xi32>
// CHECK: %[[BIASED:.*]] = arith.subi %[[BITS]], %[[BIAS]]
// CHECK: %[[EXPONENT:.*]] = arith.shli %[[BIASED]], %[[C23]]
// CHECK: %[[POW2:.*]] = arith.bitcast %[[EXPONENT]] : vector<16xi32> to vector<16xf32>
// CHECK: %[[E0:.*]] = arith.mulf %[[P]], %[[POW2]]
// CHECK: %[[D1:.*]] = arith.subf %[[X1]], %[[M]]
// CHECK: %[[E1:.*]] = arith.mulf
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[E0]], %[[E1]]
// CHECK-NOT: math.exp
// CHECK: %[[MAX:.*]] = vector.reduction <maxnumf>, %[[M]] fastmath<nnan> : vector<16xf32> into f32
// CHECK: %[[MAXV:.*]] = vector.broadcast %[[MAX]]
// CHECK: %[[SHIFT:.*]] = arith.subf %[[M]], %[[MAXV]]
// CHECK: %[[SCALE:.*]] = arith.mulf
// CHECK: %[[SCALED:.*]] = arith.mulf %[[S]], %[[SCALE]]
// CHECK: %[[SUM:.*]] = vector.reduction <add>, %[[SCALED]] fastmath<reassoc>
// CHECK: %[[LOG:.*]] = math.log %[[SUM]] fastmath<afn>
// CHECK: %[[SHIFTED_LSE:.*]] = arith.addf %[[MAX]], %[[LOG]]
// CHECK: %[[POSITIVE:.*]] = arith.cmpf ogt, %[[SUM]], %[[ZERO]]
// CHECK: %[[INFINITE:.*]] = arith.cmpf oeq, %[[MAX]], %[[INF]]
// CHECK: %[[LSE0:.*]] = arith.select %[[POSITIVE]], %[[SHIFTED_LSE]], %[[NAN]]
// CHECK: %[[LSE:.*]] = arith.select %[[INFINITE]], %[[NAN]], %[[LSE0]]
// CHECK: %[[XT:.*]] = scf.if %[[VALID:.*]] -> (f32)
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[NAN]]
// CHECK: %[[LOSS:.*]] = arith.subf %[[LSE]], %[[XT]]
// CHECK: %[[CHECKED:.*]] = arith.select %[[VALID]], %[[LOSS]], %[[NAN]]
// CHECK: %[[RESULT:.*]] = arith.select %[[IGNORED]], %[[ZERO]], %[[CHECKED]]
// CHECK: linalg.yield %[[RESULT]], %{{.*}} : f32, f32
// CHECK-NOT: tensor.from_elements
// CHECK: linalg.generic {{.*}} ins(%[[PER_ROW]]#0
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @cross_entropy_lse(%x: tensor<4x19xf16>, %t: tensor<4xi64>) -> tensor<4xf16> {
  %r = sift.cross_entropy %x, %t reduction = none : tensor<4x19xf16>, tensor<4xi64> -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

// With batch_dims = 1 each item sums its own rows (5 consecutive rows of the
// collapsed logits) in f64, then rounds once: eight interleaved sums over
// the whole steps of 8 rows (none here: the loop ends where it starts), the
// lanes added up, then the rest row by row.
// CHECK-LABEL: func.func @cross_entropy_sum_per_item
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[VZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8xf64>
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x5x3xf32> into tensor<10x3xf32>
// CHECK: %[[TARGETS:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<2x5xi64> into tensor<10xi64>
// CHECK: %[[PER_ROW:.*]]:2 = linalg.generic
// CHECK: tensor.extract %[[TARGETS]]
// CHECK: linalg.generic
// CHECK: %[[ITEM:.*]] = linalg.index 0
// CHECK: %[[FIRST:.*]] = arith.muli %[[ITEM]], %[[C5]]
// CHECK: %[[LAST:.*]] = arith.addi %[[FIRST]], %[[C5]]
// CHECK: %[[LANES:.*]]:2 = scf.for %{{.*}} = %[[FIRST]] to %[[FIRST]] step %[[C8]] iter_args(%{{.*}} = %[[VZERO]], %{{.*}} = %[[VZERO]]) -> (vector<8xf64>, vector<8xf64>)
// CHECK: vector.transfer_read %[[PER_ROW]]#0
// CHECK: arith.extf %{{.*}} : vector<8xf32> to vector<8xf64>
// CHECK: %[[L0:.*]] = vector.reduction <add>, %[[LANES]]#0 fastmath<reassoc>
// CHECK: %[[W0:.*]] = vector.reduction <add>, %[[LANES]]#1 fastmath<reassoc>
// CHECK: %[[SUMS:.*]]:2 = scf.for %{{.*}} = %[[FIRST]] to %[[LAST]] {{.*}} iter_args(%{{.*}} = %[[L0]], %{{.*}} = %[[W0]]) -> (f64, f64)
// CHECK: tensor.extract %[[PER_ROW]]#0
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %[[SUMS]]#0 : f64 to f32
func.func @cross_entropy_sum_per_item(%x: tensor<2x5x3xf32>, %t: tensor<2x5xi64>) -> tensor<2xf32> {
  %r = sift.cross_entropy %x, %t reduction = sum {batch_dims = 1 : i64} : tensor<2x5x3xf32>, tensor<2x5xi64> -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// A long row: a loop over whole blocks (in bounds) of eight 16-lane vectors
// from 0 up to C - C mod 128, the running maximum and sum updated once a
// block (one exp of M - M' to rescale S), then one block for the rest: for
// a static C only the vectors that read a logit (104 logits here: 7, the
// last masked). A static C that is a multiple of 128 has no rest; a
// dynamic C always has a rest of eight masked vectors.
// CHECK-LABEL: func.func @cross_entropy_long_rows
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[WHOLE:.*]] = arith.constant 896 : index
// CHECK-DAG: %[[LAST:.*]] = arith.constant 992 : index
// CHECK: linalg.generic
// CHECK: %[[BLOCKS:.*]]:2 = scf.for %[[C:.*]] = %[[C0]] to %[[WHOLE]] step %[[C128]] iter_args(%[[M:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}}) -> (vector<16xf32>, vector<16xf32>)
// CHECK: vector.transfer_read %{{.*}}[%[[C]]], %{{.*}} {in_bounds = [true]} : tensor<1000xf32>, vector<16xf32>
// CHECK: %[[C1:.*]] = arith.addi %[[C]], %[[C16]]
// CHECK: vector.transfer_read %{{.*}}[%[[C1]]], %{{.*}} {in_bounds = [true]}
// CHECK-COUNT-6: vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<1000xf32>, vector<16xf32>
// CHECK-NOT: vector.transfer_read
// CHECK: %[[NEWM:.*]] = arith.select %{{.*}}, %{{.*}}, %[[M]] : vector<16xi1>, vector<16xf32>
// CHECK: arith.subf %{{.*}}, %[[NEWM]] : vector<16xf32>
// CHECK: arith.subf %[[M]], %[[NEWM]] : vector<16xf32>
// CHECK: %[[KEPT:.*]] = arith.mulf %[[S]], %{{.*}} : vector<16xf32>
// CHECK: %[[NEWS:.*]] = arith.addf %[[KEPT]], %{{.*}} : vector<16xf32>
// CHECK: scf.yield %[[NEWM]], %[[NEWS]]
// CHECK: vector.transfer_read %{{.*}}[%[[WHOLE]]], %{{.*}} {in_bounds = [true]} : tensor<1000xf32>, vector<16xf32>
// CHECK-COUNT-5: vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<1000xf32>, vector<16xf32>
// CHECK: vector.transfer_read %{{.*}}[%[[LAST]]], %{{.*}} : tensor<1000xf32>, vector<16xf32>
// CHECK-NOT: vector.transfer_read
// CHECK: arith.subf %[[BLOCKS]]#0,
// CHECK: arith.mulf %[[BLOCKS]]#1,
// CHECK: vector.reduction <maxnumf>, %{{.*}} fastmath<nnan>
func.func @cross_entropy_long_rows(%x: tensor<8x1000xf32>, %t: tensor<8xi64>) -> tensor<f32> {
  %r = sift.cross_entropy %x, %t reduction = sum : tensor<8x1000xf32>, tensor<8xi64> -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @cross_entropy_multiple_of_blocks
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>)
// CHECK: scf.yield
// CHECK-NOT: vector.transfer_read
// CHECK: vector.reduction <maxnumf>, %{{.*}} fastmath<nnan>
func.func @cross_entropy_multiple_of_blocks(%x: tensor<8x256xf32>, %t: tensor<8xi64>) -> tensor<f32> {
  %r = sift.cross_entropy %x, %t reduction = sum : tensor<8x256xf32>, tensor<8xi64> -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @cross_entropy_dynamic_classes
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK: %[[C:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?xf32>
// CHECK: %[[REST:.*]] = arith.remui %[[C]], %[[C128]]
// CHECK: %[[WHOLE:.*]] = arith.subi %[[C]], %[[REST]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[WHOLE]] step %[[C128]] {{.*}} -> (vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-8: vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<?xf32>, vector<16xf32>
// CHECK: scf.yield
// CHECK: vector.transfer_read %{{.*}}[%[[WHOLE]]], %{{.*}} : tensor<?xf32>, vector<16xf32>
// CHECK-COUNT-7: vector.transfer_read %{{.*}}, %{{.*}} : tensor<?xf32>, vector<16xf32>
// CHECK-NOT: vector.transfer_read
// CHECK: vector.reduction <maxnumf>, %{{.*}} fastmath<nnan>
func.func @cross_entropy_dynamic_classes(%x: tensor<4x?xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  %r = sift.cross_entropy %x, %t reduction = sum : tensor<4x?xf32>, tensor<4xi64> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Short rows (at most 16 static classes) compute their log-sum-exps first:
// a parallel loop over groups of 16 rows, a row per lane, class c of the
// group's rows read with one gather (offsets l * C from the group's first
// logit, the missing rows of the last group masked). The first class only
// loads; the others update the lanes' running maximum and sum; each lane
// then finishes its own lse (no reduction across lanes) and the group
// writes its lses with one masked store. Each class also keeps the lanes
// whose target it is (the targets read once a group, one by one since they
// may be a strided view, -1 past the last row):
// the group writes its rows' target logits too. The per-row loop reads its
// row's lse and target logit, and no logit.
// CHECK-LABEL: func.func @cross_entropy_short_rows
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C10:.*]] = arith.constant 10 : index
// CHECK-DAG: %[[OFFSETS:.*]] = arith.constant dense<[0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150]> : vector<16xi32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<?x10xf32> into tensor<?xf32>
// CHECK: %[[GROUPS:.*]] = arith.ceildivui %{{.*}}, %[[C16]]
// CHECK: %[[LSES:.*]]:2 = scf.forall (%[[G:.*]]) in (%[[GROUPS]]) shared_outs(%[[OUT:.*]] = %{{.*}}, %[[XTS:.*]] = %{{.*}}) -> (tensor<?xf32>, tensor<?xf32>)
// CHECK: %[[FIRST:.*]] = arith.muli %[[G]], %[[C16]]
// CHECK: %[[MASK:.*]] = vector.create_mask %{{.*}} : vector<16xi1>
// CHECK: %[[BASE:.*]] = arith.muli %[[FIRST]], %[[C10]]
// CHECK: %[[LAST:.*]] = arith.subi %{{.*}}, %c1 : index
// CHECK: %[[R0:.*]] = arith.minui %[[FIRST]], %[[LAST]] : index
// CHECK: %[[T0:.*]] = tensor.extract %{{.*}}[%[[R0]]] : tensor<?xi64>
// CHECK: vector.insert %[[T0]], %{{.*}} [0] : i64 into vector<16xi64>
// CHECK-COUNT-15: vector.insert
// CHECK: %[[T:.*]] = arith.select %[[MASK]], %{{.*}}, %{{.*}} : vector<16xi1>, vector<16xi64>
// CHECK: %[[X0:.*]] = vector.gather %[[FLAT]][%{{.*}}] [%[[OFFSETS]]], %[[MASK]], %{{.*}} : tensor<?xf32>, vector<16xi32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: %[[IS0:.*]] = arith.cmpi eq, %[[T]], %{{.*}} : vector<16xi64>
// CHECK: %[[XT0:.*]] = arith.select %[[IS0]], %[[X0]], %{{.*}} : vector<16xi1>, vector<16xf32>
// CHECK-NOT: math.fma
// CHECK: %[[LANES:.*]]:3 = scf.for %[[C:.*]] = %{{.*}} to %[[C10]] {{.*}} iter_args({{.*}}, %[[KEPT:.*]] = %[[XT0]]) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: %[[X:.*]] = vector.gather %[[FLAT]]
// CHECK: math.fma %{{.*}} : vector<16xf32>
// CHECK: %[[CI:.*]] = arith.index_cast %[[C]] : index to i64
// CHECK: %[[CS:.*]] = vector.broadcast %[[CI]] : i64 to vector<16xi64>
// CHECK: %[[IS:.*]] = arith.cmpi eq, %[[T]], %[[CS]] : vector<16xi64>
// CHECK: %[[XT:.*]] = arith.select %[[IS]], %[[X]], %[[KEPT]] : vector<16xi1>, vector<16xf32>
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[XT]]
// CHECK-NOT: vector.reduction
// CHECK: math.log %{{.*}} fastmath<afn> : vector<16xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<16xf32>, tensor<?xf32>
// CHECK: vector.transfer_write %[[LANES]]#2, %{{.*}} : vector<16xf32>, tensor<?xf32>
// CHECK: scf.forall.in_parallel
// CHECK-COUNT-2: tensor.parallel_insert_slice
// CHECK: linalg.generic
// CHECK-NOT: %[[FLAT]]
// CHECK: tensor.extract %[[LSES]]#0
// CHECK-NOT: %[[FLAT]]
// CHECK: tensor.extract %[[LSES]]#1
// CHECK-NOT: vector.reduction
// CHECK-NOT: %[[FLAT]]
// CHECK: linalg.yield
func.func @cross_entropy_short_rows(%x: tensor<?x10xf32>, %t: tensor<?xi64>) -> tensor<?xf32> {
  %r = sift.cross_entropy %x, %t reduction = none : tensor<?x10xf32>, tensor<?xi64> -> tensor<?xf32>
  return %r : tensor<?xf32>
}
