// The structure of the lowering of the ops in Selection.cpp: count, compact,
// cumsum, gather, nonzero, masked_select, sample_balanced.
//
// RUN: tensor-opt %s --convert-sift-to-linalg -split-input-file | FileCheck %s
// RUN: tensor-opt %s --convert-sift-to-linalg="gather-rows=0" -split-input-file | FileCheck %s --check-prefix=ELEMENTS

// count is a reduction over the last axis.
// CHECK-LABEL: func.func @count
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpf une
func.func @count(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  %r = sift.count %x : tensor<4x8xf32> -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----

// A gather of whole rows reads each index once, in a parallel loop over the
// index positions, and copies the row it names into the result's row (the
// fill when it is out of range).
// CHECK-LABEL: func.func @gather_rows
// CHECK: scf.forall (%[[B:.*]], %[[J:.*]]) in (2, 5)
// CHECK: %[[IDX:.*]] = tensor.extract %{{.*}}[%[[B]], %[[J]]]
// CHECK: %[[ROW:.*]] = tensor.extract_slice %{{.*}}[%[[B]], %[[J]], 0] [1, 1, 16] [1, 1, 1]
// CHECK: scf.if
// CHECK: tensor.extract_slice %{{.*}}[%[[B]], %{{.*}}, 0] [1, 1, 16] [1, 1, 1]
// CHECK: bufferization.materialize_in_destination %{{.*}} in %[[ROW]]
// CHECK: } else {
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ROW]] : tensor<16xf32>)
// CHECK: tensor.parallel_insert_slice
// With gather-rows=0 (the GPU pipeline's choice), every element of the
// result is its own iteration: the index read per element, the row's
// element at the clamped index, the fill selected when out of range.
// ELEMENTS-LABEL: func.func @gather_rows
// ELEMENTS-NOT: scf.forall
// ELEMENTS: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<2x5xi64>) outs(%{{.*}} : tensor<2x5x16xf32>)
// ELEMENTS: %[[B:.*]] = linalg.index 0
// ELEMENTS: %[[F:.*]] = linalg.index 2
// ELEMENTS: tensor.extract %{{.*}}[%[[B]], %{{.*}}, %[[F]]] : tensor<2x7x16xf32>
// ELEMENTS: arith.select
// ELEMENTS-LABEL: func.func @gather_elements
func.func @gather_rows(%s: tensor<2x7x16xf32>, %i: tensor<2x5xi64>) -> tensor<2x5x16xf32> {
  %r = sift.gather %s[%i] {batch_dims = 1 : i64} : tensor<2x7x16xf32>, tensor<2x5xi64> -> tensor<2x5x16xf32>
  return %r : tensor<2x5x16xf32>
}

// -----

// An element-wise gather is one parallel linalg.generic over the result:
// branch-free, it reads a clamped (always valid) index and selects the fill
// for the lanes whose index is out of range.
// CHECK-LABEL: func.func @gather_elements
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[FILL:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[N:.*]] = arith.constant 3 : i64
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel"]
// CHECK-SAME: ins(%arg1 : tensor<4xi64>)
// CHECK: ^bb0(%[[IDX:.*]]: i64, %{{.*}}: f32):
// CHECK-DAG: %[[BELOW:.*]] = arith.cmpi slt, %[[IDX]], %[[N]]
// CHECK-DAG: %[[NONNEG:.*]] = arith.cmpi sge, %[[IDX]], %[[ZERO]]
// CHECK: %[[VALID:.*]] = arith.andi %[[NONNEG]], %[[BELOW]]
// CHECK: %[[SAFE:.*]] = arith.select %[[VALID]], %[[IDX]], %[[ZERO]]
// CHECK: %[[AT:.*]] = arith.index_cast %[[SAFE]] : i64 to index
// CHECK: %[[READ:.*]] = tensor.extract %arg0[%[[AT]]]
// CHECK: %[[V:.*]] = arith.select %[[VALID]], %[[READ]], %[[FILL]]
// CHECK: linalg.yield %[[V]]
func.func @gather_elements(%s: tensor<3xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {
  %r = sift.gather %s[%i] : tensor<3xf32>, tensor<4xi64> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// nonzero counts the non-zero elements of the row-major flattened input,
// allocates exactly that many rows, then writes the coordinates of each
// non-zero element in one sequential pass.
// CHECK-LABEL: func.func @nonzero
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<4x5xf32> into tensor<20xf32>
// CHECK: %[[COUNT:.*]] = scf.for {{.*}} -> (index) {
// CHECK: tensor.extract %[[FLAT]]
// CHECK: arith.cmpf une
// CHECK: %[[INIT:.*]] = tensor.empty(%[[COUNT]]) : tensor<?x2xi64>
// CHECK: %[[FILLED:.*]]:2 = scf.for {{.*}} iter_args(%[[OUT:.*]] = %[[INIT]], %[[POS:.*]] = %{{.*}}) -> (tensor<?x2xi64>, index)
// CHECK: arith.cmpf une
// CHECK: scf.if
// CHECK: arith.remui %{{.*}}, %[[C5]]
// CHECK: %[[ROW:.*]] = arith.divui %{{.*}}, %[[C5]]
// CHECK: %[[IN:.*]] = tensor.insert %{{.*}} into %[[OUT]][%[[POS]], %c1]
// CHECK: arith.remui %[[ROW]], %[[C4]]
// CHECK: tensor.insert %{{.*}} into %[[IN]][%[[POS]], %c0]
// CHECK: return %[[FILLED]]#0
func.func @nonzero(%x: tensor<4x5xf32>) -> tensor<?x2xi64> {
  %r = sift.nonzero %x : tensor<4x5xf32> -> tensor<?x2xi64>
  return %r : tensor<?x2xi64>
}

// -----

// masked_select with a mask over the leading dimension copies whole rows:
// count the selected rows, allocate count * 2 elements, copy each selected
// row with a slice, then reshape to count x 2.
// CHECK-LABEL: func.func @masked_select_rows
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NOT: sift_rt_fail
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<4x2xf32> into tensor<8xf32>
// CHECK: %[[COUNT:.*]] = scf.for {{.*}} -> (index) {
// CHECK: %[[TOTAL:.*]] = arith.muli %[[COUNT]], %[[C2]]
// CHECK: %[[INIT:.*]] = tensor.empty(%[[TOTAL]]) : tensor<?xf32>
// CHECK: %[[COPY:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]], %{{.*}} = %{{.*}})
// CHECK: scf.if
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[FLAT]][%{{.*}}] [%[[C2]]] [1]
// CHECK: tensor.insert_slice %[[ROW]]
// CHECK: tensor.expand_shape %[[COPY]]#0 {{\[\[}}0, 1]] output_shape [%[[COUNT]], 2]
func.func @masked_select_rows(%x: tensor<4x2xf32>, %m: tensor<4xi1>) -> tensor<?x2xf32> {
  %r = sift.masked_select %x, %m : tensor<4x2xf32>, tensor<4xi1> -> tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}

// -----

// Dynamic extents of the mask and the input must agree: a mismatch calls
// sift_rt_fail (code 9, SIFT_RT_ERROR_EXTENT_MISMATCH) with both extents
// before anything is read.
// CHECK: func.func private @sift_rt_fail(i64, i64, i64, i64)
// CHECK-LABEL: func.func @masked_select_dynamic
// CHECK-DAG: %[[CODE:.*]] = arith.constant 9 : i64
// CHECK: %[[DX:.*]] = tensor.dim %arg0, %c0 : tensor<?x2xf32>
// CHECK: %[[X:.*]] = arith.index_cast %[[DX]] : index to i64
// CHECK: %[[DM:.*]] = tensor.dim %arg1, %c0 : tensor<?xi1>
// CHECK: %[[M:.*]] = arith.index_cast %[[DM]] : index to i64
// CHECK: %[[DIFFER:.*]] = arith.cmpi ne, %[[X]], %[[M]]
// CHECK: scf.if %[[DIFFER]]
// CHECK-NEXT: func.call @sift_rt_fail(%[[CODE]], %[[X]], %[[M]], %{{.*}})
// CHECK: tensor.collapse_shape %arg0
func.func @masked_select_dynamic(%x: tensor<?x2xf32>, %m: tensor<?xi1>) -> tensor<?x2xf32> {
  %r = sift.masked_select %x, %m : tensor<?x2xf32>, tensor<?xi1> -> tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}

// -----

// compact scans each line of the mask (an scf.forall over the independent
// lines) straight into the result's line: every lane's position is written
// at the next free slot, which only a true lane then claims (no branch), and
// the scan stops when k lanes are taken. The slots past the count, the
// fill. The count is the number of taken lanes.
// CHECK-LABEL: func.func @compact
// CHECK-DAG: %[[FILL:.*]] = arith.constant 9 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[N:.*]] = arith.constant 5 : index
// CHECK: scf.forall (%{{.*}}) in (%c3) shared_outs(%[[IDX:.*]] = %{{.*}}, %[[CNT:.*]] = %{{.*}}) -> (tensor<3x3xi64>, tensor<3xi64>)
// CHECK: %[[LINE:.*]] = tensor.extract_slice %arg0[%[[ROW:.*]], 0] [1, 5] [1, 1] : tensor<3x5xi1> to tensor<5xi1>
// CHECK: %[[OUT:.*]] = tensor.extract_slice %[[IDX]][%[[ROW]], 0] [1, 3] [1, 1] : tensor<3x3xi64> to tensor<3xi64>
// CHECK: %[[R:.*]]:2 = scf.execute_region -> (tensor<3xi64>, i64) no_inline {
// CHECK: %[[SCAN:.*]]:3 = scf.while (%{{.*}} = %[[OUT]], %[[I:.*]] = %c0, %[[SLOT:.*]] = %c0)
// CHECK-DAG: arith.cmpi ult, %[[SLOT]], %[[K]]
// CHECK-DAG: arith.cmpi ult, %[[I]], %[[N]]
// CHECK: } do {
// CHECK-NOT: scf.if
// CHECK: tensor.insert
// CHECK: tensor.extract
// CHECK: %[[TAIL:.*]] = arith.subi %[[K]], %[[SCAN]]#2
// CHECK: %[[REST:.*]] = tensor.extract_slice %[[SCAN]]#0[%[[SCAN]]#2] [%[[TAIL]]] [1]
// CHECK: %[[FILLED:.*]] = linalg.fill ins(%[[FILL]] : i64) outs(%[[REST]] : tensor<?xi64>)
// CHECK: %[[LINEOUT:.*]] = tensor.insert_slice %[[FILLED]] into %[[SCAN]]#0[%[[SCAN]]#2] [%[[TAIL]]] [1]
// CHECK: scf.yield %[[LINEOUT]], %{{.*}} : tensor<3xi64>, i64
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[R]]#0 into %[[IDX]][%[[ROW]], 0] [1, 3] [1, 1]
// CHECK-NEXT: tensor.parallel_insert_slice %{{.*}} into %[[CNT]][%[[ROW]]] [1] [1]
func.func @compact(%m: tensor<3x5xi1>) -> (tensor<3x3xi64>, tensor<3xi64>) {
  %i, %n = sift.compact %m {fill = 9 : i64} : tensor<3x5xi1> -> tensor<3x3xi64>, tensor<3xi64>
  return %i, %n : tensor<3x3xi64>, tensor<3xi64>
}

// -----

// A result as wide as the line (nonzero's) cannot fill up before the line
// ends: the scan is a counted loop over the line, with the slot carried
// and no test of it.
// CHECK-LABEL: func.func @compact_full_width
// CHECK: scf.execute_region
// CHECK-NOT: scf.while
// CHECK: %[[SCAN:.*]]:2 = scf.for %[[I:.*]] = %c0 to %c5 step %c1 iter_args(%{{.*}} = %{{.*}}, %[[SLOT:.*]] = %c0) -> (tensor<5xi64>, index)
// CHECK: tensor.insert %{{.*}} into %{{.*}}[%[[SLOT]]]
// CHECK: %[[TAKEN:.*]] = arith.index_castui
// CHECK: %[[NEXT:.*]] = arith.addi %[[SLOT]], %[[TAKEN]]
// CHECK: scf.yield %{{.*}}, %[[NEXT]]
// CHECK: linalg.fill ins(%c-1_i64
func.func @compact_full_width(%m: tensor<5xi1>) -> (tensor<5xi64>, tensor<i64>) {
  %i, %n = sift.compact %m : tensor<5xi1> -> tensor<5xi64>, tensor<i64>
  return %i, %n : tensor<5xi64>, tensor<i64>
}

// -----

// Unpadded i32 indices: each lane's position is written as an i32, and
// nothing is written past the count.
// CHECK-LABEL: func.func @compact_unpadded_i32
// CHECK: scf.execute_region -> (tensor<5xi32>, i64)
// CHECK: scf.for
// CHECK: %[[POS:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: tensor.insert %[[POS]] into %{{.*}} : tensor<5xi32>
// CHECK-NOT: linalg.fill
// CHECK: scf.forall.in_parallel
func.func @compact_unpadded_i32(%m: tensor<2x5xi1>) -> (tensor<2x5xi32>, tensor<2xi64>) {
  %i, %n = sift.compact %m unpadded : tensor<2x5xi1> -> tensor<2x5xi32>, tensor<2xi64>
  return %i, %n : tensor<2x5xi32>, tensor<2xi64>
}

// -----

// cumsum along dim 0 of a 4x8 tensor: 8 independent lines of 4 elements,
// each a sequential scan that writes the running sum.
// CHECK-LABEL: func.func @cumsum_dim0
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.forall (%{{.*}}) in (%c8) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<4x8xf32>)
// CHECK: %[[LINE:.*]] = tensor.extract_slice %arg0[0, %[[J:.*]]] [4, 1] [1, 1] : tensor<4x8xf32> to tensor<4xf32>
// CHECK: %[[SCAN:.*]]:2 = scf.for %[[I:.*]] = %c0 to %c4 {{.*}} iter_args(%[[ACC_OUT:.*]] = %{{.*}}, %[[ACC:.*]] = %[[ZERO]]) -> (tensor<4xf32>, f32)
// CHECK: %[[X:.*]] = tensor.extract %[[LINE]][%[[I]]]
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[X]]
// CHECK: tensor.insert %[[SUM]] into %[[ACC_OUT]][%[[I]]]
// CHECK: tensor.parallel_insert_slice %[[SCAN]]#0 into %[[OUT]][0, %[[J]]] [4, 1] [1, 1]
func.func @cumsum_dim0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = sift.cumsum %x {dim = 0 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A line length that is dynamic in the type but a constant once the cast
// folds (a tensor.dim of a tensor.cast of a static tensor): the lines are
// static, and so are the slices that write them back (a constant Value as
// the slice's size made a dynamic size of a static slice, which did not
// verify: tensor-opt verifies after the pass).
// CHECK-LABEL: func.func @cumsum_cast_to_dynamic
// CHECK: scf.forall (%{{.*}}) in (%c3) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<3x40xi64>)
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%{{.*}}, 0] [1, 40] [1, 1] : tensor<40xi64> into tensor<3x40xi64>
func.func @cumsum_cast_to_dynamic(%x: tensor<3x40xi64>) -> tensor<3x?xi64> {
  %d = tensor.cast %x : tensor<3x40xi64> to tensor<3x?xi64>
  %r = sift.cumsum %d exclusive : tensor<3x?xi64> -> tensor<3x?xi64>
  return %r : tensor<3x?xi64>
}

// -----

// An exclusive cumsum of a mask widens each lane to i64 and writes the sum
// before adding it; a 1-D input is a single line (no loop over lines).
// CHECK-LABEL: func.func @cumsum_exclusive
// CHECK-NOT: scf.forall
// CHECK: scf.for %[[I:.*]] = {{.*}} iter_args(%[[OUT:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}) -> (tensor<5xi64>, i64)
// CHECK: %[[LANE:.*]] = tensor.extract %arg0[%[[I]]] : tensor<5xi1>
// CHECK: %[[WIDE:.*]] = arith.extui %[[LANE]] : i1 to i64
// CHECK: %[[SUM:.*]] = arith.addi %[[ACC]], %[[WIDE]]
// CHECK: %[[NEW:.*]] = tensor.insert %[[ACC]] into %[[OUT]][%[[I]]]
// CHECK: scf.yield %[[NEW]], %[[SUM]]
func.func @cumsum_exclusive(%m: tensor<5xi1>) -> tensor<5xi64> {
  %b = sift.cumsum %m exclusive : tensor<5xi1> -> tensor<5xi64>
  return %b : tensor<5xi64>
}

// -----

// sample_balanced, per row (an scf.forall over the rows): count positives
// and negatives, cap them (2 = floor(4 * 0.5) positives), order the items
// by a Philox word each (stream offset + row) with a 32-bit radix argsort
// (four 8-bit passes), then take each group's first items in that order.
// CHECK-LABEL: func.func @sample_balanced
// CHECK-DAG: %[[POSCAP:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[NUM:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[EMPTY:.*]] = arith.constant -1 : i64
// CHECK-DAG: %[[M0:.*]] = arith.constant -766435501 : i32
// CHECK: scf.forall (%[[ROW:.*]]) in (%c3)
// CHECK: %[[LABELS:.*]] = tensor.extract_slice %arg0[%{{.*}}, 0] [1, 8] [1, 1] : tensor<3x8xi64> to tensor<8xi64>
// CHECK: %[[COUNTS:.*]]:2 = scf.for {{.*}} -> (i64, i64)
// CHECK: %[[P:.*]] = arith.minsi %[[COUNTS]]#0, %[[POSCAP]]
// CHECK: %[[ROOM:.*]] = arith.subi %[[NUM]], %[[P]]
// CHECK: %[[Q:.*]] = arith.minsi %[[COUNTS]]#1, %[[ROOM]]
// CHECK: %[[STREAM:.*]] = arith.addi %arg2, %{{.*}} : i64
// CHECK: %[[KEYS:.*]] = linalg.generic
// CHECK: arith.trunci %[[STREAM]]
// CHECK-COUNT-20: arith.mului_extended
// CHECK: } -> tensor<8xi32>
// CHECK-COUNT-4: scf.for %{{.*}} = %c0 to %c256
// CHECK-NOT: to %c256
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[EMPTY]] : i64) outs(%{{.*}} : tensor<4xi64>)
// CHECK: %[[PICK:.*]]:3 = scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]], {{.*}}) -> (tensor<4xi64>, i64, i64)
// CHECK: tensor.extract %[[LABELS]]
// CHECK: arith.cmpi slt, %{{.*}}, %[[P]]
// CHECK: arith.cmpi slt, %{{.*}}, %[[Q]]
// CHECK: %[[COUNT:.*]] = arith.addi %[[P]], %[[Q]]
// CHECK: tensor.from_elements %[[COUNT]]
// CHECK: tensor.parallel_insert_slice %[[PICK]]#0
func.func @sample_balanced(%l: tensor<3x8xi64>, %seed: i64, %off: i64) -> (tensor<3x4xi64>, tensor<3xi64>) {
  %i, %n = sift.sample_balanced %l, %seed offset %off {num_samples = 4 : i64, positive_fraction = 5.000000e-01 : f64} : tensor<3x8xi64> -> tensor<3x4xi64>, tensor<3xi64>
  return %i, %n : tensor<3x4xi64>, tensor<3xi64>
}
