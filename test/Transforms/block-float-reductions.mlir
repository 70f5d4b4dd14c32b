// Float sums are reassociated into 256 interleaved partial sums and a sum of
// the lanes; exact reductions (integers, max) and short sums are left alone
// (the exact ones are blocked too with lanes-outer, the GPU pipeline's form).
// The accuracy this buys is measured in the conformance suite
// (numerics/sum_*: N = 1e6 against a float64 reference).
//
// RUN: tensor-opt %s -split-input-file --sift-block-float-reductions | FileCheck %s
// RUN: tensor-opt %s -split-input-file --sift-block-float-reductions=lanes=64 | FileCheck %s --check-prefix=LANES64
// RUN: tensor-opt %s -split-input-file --sift-block-float-reductions=lanes-outer | FileCheck %s --check-prefix=OUTER

// With lanes-outer: a loop over the lanes outside, lane l adding the
// elements l + 256 k in order (k below (n + 255 - l) / 256), then the lanes
// added in order to the initial value in a loop of one (mapped: it stays a
// loop, a kernel of one thread on the GPU).
// OUTER-LABEL: func.func @dynamic_sum
// OUTER-SAME: (%[[X:.*]]: tensor<?xf32>, %[[ACC:.*]]: tensor<f32>)
// OUTER: %[[N:.*]] = tensor.dim %[[X]]
// OUTER: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<256xf32>)
// OUTER: %[[P:.*]] = scf.forall (%[[L:.*]]) in (256) shared_outs(%[[PS:.*]] = %[[ZERO]])
// OUTER: %[[END:.*]] = arith.addi %[[N]], %c255
// OUTER: %[[REST:.*]] = arith.subi %[[END]], %[[L]]
// OUTER: %[[K:.*]] = arith.divui %[[REST]], %c256
// OUTER: %[[S:.*]] = scf.for %[[I:[^ ]*]] = %{{.*}} to %[[K]] step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (f32)
// OUTER: %[[M:.*]] = arith.muli %[[I]], %c256
// OUTER: %[[E:.*]] = arith.addi %[[M]], %[[L]]
// OUTER: tensor.extract %[[X]][%{{.*}}]
// OUTER: arith.addf
// OUTER: tensor.parallel_insert_slice %{{.*}} into %[[PS]][%[[L]]] [1] [1]
// OUTER: scf.forall (%{{.*}}) in (1) shared_outs(%[[OS:.*]] = %[[ACC]])
// OUTER: %[[INIT:.*]] = tensor.extract %[[OS]][]
// OUTER: scf.for %[[J:[^ ]*]] = %{{.*}} to %c256 {{.*}} iter_args(%[[B:.*]] = %[[INIT]])
// OUTER: %[[LANE:.*]] = tensor.extract %[[P]][%[[J]]]
// OUTER: arith.addf %[[B]], %[[LANE]]
// OUTER: tensor.parallel_insert_slice %{{.*}} into %[[OS]][] [] []
// OUTER: mapping = [#gpu.block<x>]
// CHECK-LABEL: func.func @dynamic_sum
// LANES64-LABEL: func.func @dynamic_sum
// LANES64: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<64xf32>)
// LANES64: scf.for %{{.*}} step %c64
// CHECK: %[[LANES:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<256xf32>)
// CHECK: %[[P:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c256 iter_args(%[[ACC:.*]] = %[[LANES]]) -> (tensor<256xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]
// CHECK: arith.addf
// CHECK: linalg.reduce ins(%[[P]] : tensor<256xf32>)
func.func @dynamic_sum(%x: tensor<?xf32>, %acc: tensor<f32>) -> tensor<f32> {
  %s = linalg.reduce ins(%x : tensor<?xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  return %s : tensor<f32>
}

// -----

// A staticized masked sum (combine(acc, valid ? e : 0)) is blocked too, per
// row of a batch.
// OUTER-LABEL: func.func @masked_row_sums
// OUTER: scf.forall (%[[R:.*]], %[[L:.*]]) in (8, 256) {{.*}} -> (tensor<8x256xf32>)
// OUTER: scf.for
// OUTER: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<8x1000xf32>
// OUTER: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<8x1000xi1>
// OUTER: math.exp
// OUTER: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[R]], %[[L]]] [1, 1] [1, 1]
// OUTER: scf.forall (%{{.*}}) in (8) {{.*}} -> (tensor<8xf32>)
// OUTER-NOT: mapping
// OUTER: return
// CHECK-LABEL: func.func @masked_row_sums
// CHECK: scf.for {{.*}} -> (tensor<8x256xf32>)
// CHECK: linalg.reduce ins(%{{.*}} : tensor<8x256xf32>)
func.func @masked_row_sums(%x: tensor<8x1000xf32>, %m: tensor<8x1000xi1>, %acc: tensor<8xf32>) -> tensor<8xf32> {
  %s = linalg.generic {indexing_maps = [affine_map<(b, i) -> (b, i)>, affine_map<(b, i) -> (b, i)>, affine_map<(b, i) -> (b)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<8x1000xf32>, tensor<8x1000xi1>) outs(%acc : tensor<8xf32>) {
    ^bb0(%v: f32, %ok: i1, %a: f32):
      %e = math.exp %v : f32
      %zero = arith.constant 0.0 : f32
      %c = arith.select %ok, %e, %zero : f32
      %r = arith.addf %a, %c : f32
      linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// A body that reads its row index (a fused validity mask `i < n`) reads the
// row of the whole input, not of the 256-row block: MLIR 22's partial
// reduction tiling leaves it relative to the block (llvm/llvm-project#188261).
// OUTER-LABEL: func.func @index_in_body
// OUTER: scf.forall (%[[L:.*]]) in (256)
// OUTER: scf.for %[[K:[^ ]*]] =
// OUTER: %[[M:.*]] = arith.muli %[[K]], %c256
// OUTER: %[[I:.*]] = arith.addi %[[M]], %[[L]]
// OUTER: arith.cmpi slt, %[[I]], %{{.*}} : index
// CHECK-LABEL: func.func @index_in_body
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %c256
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[ROW:.*]] = affine.apply #{{.*}}(%[[IV]])[%[[I]]]
// CHECK: arith.cmpi slt, %[[ROW]], %{{.*}} : index
func.func @index_in_body(%x: tensor<1000xf32>, %n: index, %acc: tensor<f32>) -> tensor<f32> {
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<1000xf32>) outs(%acc : tensor<f32>) {
    ^bb0(%v: f32, %a: f32):
      %i = linalg.index 0 : index
      %ok = arith.cmpi slt, %i, %n : index
      %zero = arith.constant 0.0 : f32
      %c = arith.select %ok, %v, %zero : f32
      %r = arith.addf %a, %c : f32
      linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// An integer sum, a float max (exact in any order) and a float sum of at
// most 256 elements are left alone; with lanes-outer (the GPU pipeline) the
// exact ones take the blocked form too, for its parallelism (a thread per
// lane instead of one thread), from their neutral elements (0, -inf).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.for
// CHECK-COUNT-3: linalg.reduce ins
// OUTER-LABEL: func.func @left_alone
// OUTER: %[[Z:.*]] = linalg.fill ins(%c0_i64 : i64) outs(%{{.*}} : tensor<256xi64>)
// OUTER: %[[PI:.*]] = scf.forall (%{{.*}}) in (256) shared_outs(%{{.*}} = %[[Z]])
// OUTER: arith.addi %{{.*}}, %{{.*}} : i64
// OUTER: scf.forall (%{{.*}}) in (1) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<i64>)
// OUTER: tensor.extract %[[PI]]
// OUTER: arith.addi %{{.*}}, %{{.*}} : i64
// OUTER: } {mapping = [#gpu.block<x>]}
// OUTER: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// OUTER: linalg.fill ins(%[[NEG]] : f32) outs(%{{.*}} : tensor<256xf32>)
// OUTER: scf.forall (%{{.*}}) in (256)
// OUTER: arith.maximumf
// OUTER: scf.forall (%{{.*}}) in (1)
// OUTER: arith.maximumf
// OUTER: linalg.reduce ins(%{{.*}} : tensor<200xf32>)
func.func @left_alone(%i: tensor<?xi64>, %x: tensor<?xf32>, %s: tensor<200xf32>,
                      %ai: tensor<i64>, %af: tensor<f32>) -> (tensor<i64>, tensor<f32>, tensor<f32>) {
  %a = linalg.reduce ins(%i : tensor<?xi64>) outs(%ai : tensor<i64>) dimensions = [0]
    (%u: i64, %v: i64) {
      %r = arith.addi %u, %v : i64
      linalg.yield %r : i64
    }
  %b = linalg.reduce ins(%x : tensor<?xf32>) outs(%af : tensor<f32>) dimensions = [0]
    (%u: f32, %v: f32) {
      %r = arith.maximumf %u, %v : f32
      linalg.yield %r : f32
    }
  %c = linalg.reduce ins(%s : tensor<200xf32>) outs(%af : tensor<f32>) dimensions = [0]
    (%u: f32, %v: f32) {
      %r = arith.addf %u, %v : f32
      linalg.yield %r : f32
    }
  return %a, %b, %c : tensor<i64>, tensor<f32>, tensor<f32>
}

// -----

// A reduction over a row of rows (a unit dimension besides the long one, as
// the GPU pipeline's gathers see a 1-D tensor) is blocked along the long
// one; its row index is offset by the block's start.
// CHECK-LABEL: func.func @unit_and_long_reduction
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %c256 iter_args(%{{.*}}) -> (tensor<256xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: affine.apply #{{.*}}(%[[IV]])[%[[I]]]
// CHECK: linalg.reduce ins(%{{.*}} : tensor<256xf32>)
func.func @unit_and_long_reduction(%x: tensor<1x1000xf32>, %n: index, %acc: tensor<f32>) -> tensor<f32> {
  %s = linalg.generic {indexing_maps = [affine_map<(r, i) -> (r, i)>, affine_map<(r, i) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<1x1000xf32>) outs(%acc : tensor<f32>) {
    ^bb0(%v: f32, %a: f32):
      %i = linalg.index 1 : index
      %ok = arith.cmpi slt, %i, %n : index
      %zero = arith.constant 0.0 : f32
      %c = arith.select %ok, %v, %zero : f32
      %r = arith.addf %a, %c : f32
      linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Two reductions of more than one element each are left alone.
// CHECK-LABEL: func.func @two_long_reductions
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "reduction"]
func.func @two_long_reductions(%x: tensor<4x1000xf32>, %acc: tensor<f32>) -> tensor<f32> {
  %s = linalg.generic {indexing_maps = [affine_map<(r, i) -> (r, i)>, affine_map<(r, i) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<4x1000xf32>) outs(%acc : tensor<f32>) {
    ^bb0(%v: f32, %a: f32):
      %r = arith.addf %a, %v : f32
      linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
