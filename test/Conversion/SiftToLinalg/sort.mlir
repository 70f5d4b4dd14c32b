// The structure of the lowering of the ops in Sort.cpp: sort, argsort, topk,
// unique. Every element becomes an order-preserving unsigned key; a stable
// LSD radix argsort (the histograms of every 8-bit digit in one pass, then
// one pass per key byte: a prefix sum over 256 buckets, a stable scatter)
// sorts it.
//
// RUN: tensor-opt %s --convert-sift-to-linalg -split-input-file | FileCheck %s

// An f32 sort is one pass over the keys that counts every digit (four
// histograms of 4 x 256 counts, and the OR and AND of the keys), then four
// 8-bit LSD radix passes, each a prefix sum over 256 buckets and a stable
// scatter; the independent lines are an scf.forall (parallel threads on
// the CPU).
// CHECK-LABEL: func.func @sort_f32
// CHECK: scf.forall
// CHECK: tensor.extract_slice
// CHECK: scf.for %{{.*}} = %c0 to %c100 {{.*}} -> (tensor<4096xi64>, i32, i32)
// CHECK-NOT: scf.for %{{.*}} = %c0 to %c100 {{.*}} -> (tensor<{{[0-9]+}}xi64>)
// CHECK-COUNT-4: scf.for %{{.*}} = %{{.*}} to %c256
// CHECK-NOT: to %c256
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice
func.func @sort_f32(%x: tensor<8x100xf32>) -> (tensor<8x100xf32>, tensor<8x100xi64>) {
  %v, %i = sift.sort %x : tensor<8x100xf32> -> tensor<8x100xf32>, tensor<8x100xi64>
  return %v, %i : tensor<8x100xf32>, tensor<8x100xi64>
}

// -----

// An i1 key needs one pass, an i64 key eight (and eight histograms).
// CHECK-LABEL: func.func @argsort_i1
// CHECK: -> (tensor<1024xi64>, i32, i32)
// CHECK-COUNT-1: to %c256
// CHECK-NOT: to %c256
// CHECK-LABEL: func.func @argsort_i64
// CHECK: -> (tensor<8192xi64>, i64, i64)
// CHECK-COUNT-8: to %c256
// CHECK-NOT: to %c256
func.func @argsort_i1(%x: tensor<10xi1>) -> tensor<10xi64> {
  %i = sift.argsort %x : tensor<10xi1> -> tensor<10xi64>
  return %i : tensor<10xi64>
}
func.func @argsort_i64(%x: tensor<10xi64>) -> tensor<10xi64> {
  %i = sift.argsort %x descending : tensor<10xi64> -> tensor<10xi64>
  return %i : tensor<10xi64>
}

// -----

// An f32 key: -0.0 becomes +0.0 and every NaN one quiet NaN, then negatives
// are inverted and the others get the sign bit; descending inverts the key.
// CHECK-LABEL: func.func @argsort_f32_key
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[QNAN:.*]] = arith.constant 2143289344 : i32
// CHECK-DAG: %[[SIGN:.*]] = arith.constant -2147483648 : i32
// CHECK-DAG: %[[ONES:.*]] = arith.constant -1 : i32
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: i32):
// CHECK: %[[BITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK: %[[ISZERO:.*]] = arith.cmpf oeq, %[[X]], %[[ZERO]]
// CHECK: %[[ISNAN:.*]] = arith.cmpf uno, %[[X]], %[[X]]
// CHECK: %[[B1:.*]] = arith.select %[[ISZERO]], %{{.*}}, %[[BITS]]
// CHECK: %[[B2:.*]] = arith.select %[[ISNAN]], %[[QNAN]], %[[B1]]
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[B2]], %{{.*}}
// CHECK: %[[MASK:.*]] = arith.select %[[NEG]], %[[ONES]], %[[SIGN]]
// CHECK: %[[KEY:.*]] = arith.xori %[[B2]], %[[MASK]]
// CHECK: %[[DESC:.*]] = arith.xori %[[KEY]], %[[ONES]]
// CHECK: linalg.yield %[[DESC]] : i32
// CHECK-COUNT-4: to %c256
// CHECK-NOT: to %c256
func.func @argsort_f32_key(%x: tensor<10xf32>) -> tensor<10xi64> {
  %i = sift.argsort %x descending : tensor<10xf32> -> tensor<10xi64>
  return %i : tensor<10xi64>
}

// -----

// topk with 0 < k < n selects before it sorts, per line (an scf.forall): a
// radix split on the most significant digit that varies (one pass counts
// the top digit and ORs and ANDs the keys; only when the top digit is the
// same in every key does a second pass count the digit that varies), one
// partition pass
// that writes positions only (i32: the line's length fits) into k + 1
// result slots and the candidates (n + 1 slots: their count is known only
// at run time, at most n), an MSD radix selection among the candidates (a
// loop of one step per key byte, most significant first, compacting their
// keys into n slots; the step's code is written once), then the k selected
// keys read again at their positions and a stable radix sort of them alone.
// Every buffer has a static size.
// CHECK-LABEL: func.func @topk
// CHECK: scf.forall (%{{.*}}) in (%c4) shared_outs(%[[V:.*]] = %{{.*}}, %[[I:.*]] = %{{.*}})
// CHECK: tensor.extract_slice %arg0[%{{.*}}, 0] [1, 100] [1, 1] : tensor<4x100xf32> to tensor<100xf32>
// CHECK: %[[TOP:.*]]:3 = scf.for %{{.*}} = %c0 to %c100 {{.*}} -> (tensor<1024xi64>, i32, i32)
// CHECK: scf.if %{{.*}} -> (tensor<1024xi64>) {
// CHECK-NEXT: scf.yield %[[TOP]]#0 : tensor<1024xi64>
// CHECK-NEXT: } else {
// CHECK: scf.for %{{.*}} = %c0 to %c100 {{.*}} -> (tensor<1024xi64>)
// CHECK: scf.for %{{.*}} = %c0 to %c256 {{.*}} -> (i64, index, i64)
// CHECK: scf.for %{{.*}} = %c0 to %c100 {{.*}} -> (tensor<6xi32>, tensor<101xi32>, index, index)
// CHECK: scf.for %[[STEP:.*]] = %c0 to %c4 step %c1 iter_args({{.*}}) -> (tensor<100xi32>, index, i64, i32, i32, i32)
// CHECK: %[[DIGIT:.*]] = arith.subi %c3, %[[STEP]] : index
// CHECK: arith.muli %[[DIGIT]], %c8 : index
// CHECK: scf.if %{{.*}} -> (tensor<100xi32>, index, i64, i32, i32, i32)
// CHECK-NOT: scf.if %{{.*}} -> (tensor<100xi32>, index, i64, i32, i32, i32)
// CHECK: %[[POS:.*]] = tensor.extract_slice %{{.*}}[0] [5] [1] : tensor<6xi32> to tensor<5xi32>
// CHECK: linalg.generic {{.*}} ins(%[[POS]] : tensor<5xi32>) outs(%{{.*}} : tensor<5xi32>)
// CHECK: %[[AT:.*]] = arith.index_castui %{{.*}} : i32 to index
// CHECK: tensor.extract %{{.*}}[%[[AT]]] : tensor<100xf32>
// CHECK-COUNT-4: scf.for %{{.*}} = %c0 to %c256 {{.*}} -> (tensor<256xi64>, i64)
// CHECK-NOT: to %c256
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %{{.*}} into %[[V]][%{{.*}}, 0] [1, 5] [1, 1] : tensor<5xf32> into tensor<4x5xf32>
// CHECK-NEXT: tensor.parallel_insert_slice %{{.*}} into %[[I]][%{{.*}}, 0] [1, 5] [1, 1] : tensor<5xi64> into tensor<4x5xi64>
func.func @topk(%x: tensor<4x100xf32>) -> (tensor<4x5xf32>, tensor<4x5xi64>) {
  %v, %i = sift.topk %x k(5) : tensor<4x100xf32> -> tensor<4x5xf32>, tensor<4x5xi64>
  return %v, %i : tensor<4x5xf32>, tensor<4x5xi64>
}

// -----

// `valid`, one per line: the line's length, clamped to [0, n], and the
// selection's passes read max(valid, k) elements, not the whole line; an
// element at or past the valid length has the largest key (0xFFFFFFFF:
// sorted after every valid one, in index order), so a line shorter than k
// ends with the positions past it.
// CHECK-LABEL: func.func @topk_valid
// CHECK: scf.forall (%[[LINE:.*]]) in (%c4)
// CHECK: %[[N:.*]] = tensor.extract %arg1[%[[LINE]]] : tensor<4xindex>
// CHECK: %[[LOW:.*]] = arith.maxsi %[[N]], %c0 : index
// CHECK: %[[VALID:.*]] = arith.minsi %[[LOW]], %c100 : index
// CHECK: scf.execute_region -> (tensor<5xi32>, tensor<5xi64>) no_inline {
// CHECK: %[[READ:.*]] = arith.maxui %[[VALID]], %c5 : index
// CHECK: scf.for %[[J:.*]] = %c0 to %[[READ]] step %c1
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[J]], %[[VALID]] : index
// CHECK: arith.select %[[IN]], %{{.*}}, %c-1_i32 : i32
// CHECK: scf.for %{{.*}} = %c0 to %c256
// CHECK: scf.for %{{.*}} = %c0 to %[[READ]] step %c1 iter_args({{.*}}) -> (tensor<6xi32>, tensor<101xi32>, index, index)
func.func @topk_valid(%x: tensor<4x100xi32>, %n: tensor<4xindex>) -> (tensor<4x5xi32>, tensor<4x5xi64>) {
  %v, %i = sift.topk %x k(5) valid(%n : tensor<4xindex>) smallest : tensor<4x100xi32> -> tensor<4x5xi32>, tensor<4x5xi64>
  return %v, %i : tensor<4x5xi32>, tensor<4x5xi64>
}

// -----

// `limit`, one per line, clamped to [0, k]: the selection takes
// max(limit, 1) keys, the slots past them take position 0 (stores, not
// masked loads of memory never written), the radix argsort sorts only the
// selected keys (its loops run to that count) and its permutation lands in
// a k-lane buffer of zeros; then the lanes at and past the limit are
// padding: zero values and -1 indices.
// CHECK-LABEL: func.func @topk_limit
// CHECK: scf.forall (%[[LINE:.*]]) in (%c4)
// CHECK: %[[C:.*]] = tensor.extract %arg1[%[[LINE]]] : tensor<4xindex>
// CHECK: %[[LOW:.*]] = arith.maxsi %[[C]], %c0 : index
// CHECK: %[[LIMIT:.*]] = arith.minsi %[[LOW]], %c5 : index
// CHECK: scf.execute_region -> (tensor<5xi32>, tensor<5xi64>) no_inline {
// CHECK: %[[SEL:.*]] = arith.maxui %[[LIMIT]], %c1 : index
// CHECK: scf.for %{{.*}} = %[[SEL]] to %c5 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (tensor<6xi32>)
// CHECK: scf.execute_region -> tensor<5xi64> no_inline {
// CHECK: scf.for %{{.*}} = %c0 to %[[SEL]] step %c1
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%c0_i64 : i64) outs(%{{.*}} : tensor<5xi64>)
// CHECK: %[[SORTED:.*]] = tensor.extract_slice %{{.*}}[0] [%[[SEL]]] [1] : tensor<5xi64> to tensor<?xi64>
// CHECK: tensor.insert_slice %[[SORTED]] into %[[ZEROS]][0] [%[[SEL]]] [1] : tensor<?xi64> into tensor<5xi64>
// CHECK: linalg.generic
// CHECK: %[[J:.*]] = linalg.index 0 : index
// CHECK: %[[KEPT:.*]] = arith.cmpi ult, %[[J]], %[[LIMIT]] : index
// CHECK: arith.select %[[KEPT]], %{{.*}}, %c0_i32 : i32
// CHECK: linalg.generic
// CHECK: %[[J2:.*]] = linalg.index 0 : index
// CHECK: %[[KEPT2:.*]] = arith.cmpi ult, %[[J2]], %[[LIMIT]] : index
// CHECK: arith.select %[[KEPT2]], %{{.*}}, %c-1_i64 : i64
func.func @topk_limit(%x: tensor<4x100xi32>, %c: tensor<4xindex>) -> (tensor<4x5xi32>, tensor<4x5xi64>) {
  %v, %i = sift.topk %x k(5) limit(%c : tensor<4xindex>) smallest : tensor<4x100xi32> -> tensor<4x5xi32>, tensor<4x5xi64>
  return %v, %i : tensor<4x5xi32>, tensor<4x5xi64>
}

// -----

// unsorted: the sorted form's selection without its sort: the radix split,
// the partition into the positions of the keys below the split's digit
// (i32, in k + 1 slots) and the candidates, the MSD radix selection among
// the candidates and the pass that appends those taken; the values and the
// i64 indices are then read at the k positions. The selection is a routine
// (an scf.execute_region that --sift-outline-lines makes a function).
// CHECK-LABEL: func.func @topk_unsorted
// CHECK-NOT: scf.forall
// CHECK: %[[R:.*]]:2 = scf.execute_region -> (tensor<5xi32>, tensor<5xi64>) no_inline {
// CHECK: scf.for %{{.*}} = %c0 to %c100 {{.*}} -> (tensor<6xi32>, tensor<101xi32>, index, index)
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args({{.*}}) -> (tensor<100xi32>, index, i64, i32, i32, i32)
// CHECK: %[[PICK:.*]]:3 = scf.for {{.*}} -> (tensor<6xi32>, index, i64)
// CHECK: %[[POS:.*]] = tensor.extract_slice %[[PICK]]#0[0] [5] [1] : tensor<6xi32> to tensor<5xi32>
// CHECK: %[[V:.*]] = linalg.generic {{.*}} ins(%[[POS]] : tensor<5xi32>) outs(%{{.*}} : tensor<5xi32>)
// CHECK: %[[I:.*]] = linalg.generic {{.*}} ins(%[[POS]] : tensor<5xi32>) outs(%{{.*}} : tensor<5xi64>)
// CHECK: arith.extui %{{.*}} : i32 to i64
// CHECK-NOT: scf.for
// CHECK: scf.yield %[[V]], %[[I]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1
func.func @topk_unsorted(%x: tensor<100xi32>) -> (tensor<5xi32>, tensor<5xi64>) {
  %v, %i = sift.topk %x k(5) smallest unsorted : tensor<100xi32> -> tensor<5xi32>, tensor<5xi64>
  return %v, %i : tensor<5xi32>, tensor<5xi64>
}

// -----

// A dynamic extent may be smaller than k: sift_rt_report with code 6
// (SIFT_RT_ERROR_TOPK_K_EXCEEDS_SIZE), k and the extent; the whole line is
// sorted and the lanes past the extent are zeros (never read).
// CHECK: func.func private @sift_rt_report(i64, i64, i64, i64)
// CHECK-LABEL: func.func @topk_dynamic
// CHECK-DAG: %[[K64:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[CODE:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 3 : index
// CHECK: %[[DIM:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[SHORT:.*]] = arith.cmpi ult, %[[DIM]], %[[K]]
// CHECK: scf.if %[[SHORT]]
// CHECK: %[[N:.*]] = arith.index_cast %[[DIM]]
// CHECK: func.call @sift_rt_report(%[[CODE]], %[[K64]], %[[N]], %{{.*}})
// CHECK-COUNT-4: to %c256
// CHECK-NOT: to %c256
// CHECK: %[[BEST:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3xi64>)
// CHECK: %[[LANE:.*]] = linalg.index 0
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[LANE]], %{{.*}}
// CHECK: scf.if %[[IN]] -> (i64)
// CHECK: } else {
// CHECK-NEXT: scf.yield %c0_i64
// CHECK: %[[VALUES:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3xf32>)
// CHECK: return %[[VALUES]], %[[BEST]]
func.func @topk_dynamic(%x: tensor<?xf32>) -> (tensor<3xf32>, tensor<3xi64>) {
  %v, %i = sift.topk %x k(3) : tensor<?xf32> -> tensor<3xf32>, tensor<3xi64>
  return %v, %i : tensor<3xf32>, tensor<3xi64>
}

// -----

// unique sorts the flattened input's keys (one radix argsort), then one
// sequential scan over the sorted keys opens a group where a key differs
// from the previous one, writing each group's value and count and each
// element's group; the results are the first #groups entries.
// CHECK-LABEL: func.func @unique
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<4x4xf32> into tensor<16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[FLAT]] : tensor<16xf32>) outs(%{{.*}} : tensor<16xi32>)
// CHECK-COUNT-4: scf.for %{{.*}} = %c0 to %c256
// CHECK: %[[SCAN:.*]]:4 = scf.for %{{.*}} = %c0 to %c16 {{.*}} -> (tensor<16xf32>, tensor<16xi64>, tensor<16xi64>, i64)
// CHECK: %[[DIFFERS:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : i32
// CHECK: arith.ori %{{.*}}, %[[DIFFERS]]
// CHECK: %[[LAST:.*]] = arith.addi %[[SCAN]]#3, %c1_i64
// CHECK: %[[NUM:.*]] = arith.index_cast %[[LAST]] : i64 to index
// CHECK: %[[VALUES:.*]] = tensor.extract_slice %[[SCAN]]#0[0] [%[[NUM]]] [1]
// CHECK: %[[INVERSE:.*]] = tensor.expand_shape %[[SCAN]]#2 {{\[\[}}0, 1]] output_shape [4, 4]
// CHECK: %[[COUNTS:.*]] = tensor.extract_slice %[[SCAN]]#1[0] [%[[NUM]]] [1]
// CHECK: return %[[VALUES]], %[[INVERSE]], %[[COUNTS]]
func.func @unique(%x: tensor<4x4xf32>) -> (tensor<?xf32>, tensor<4x4xi64>, tensor<?xi64>) {
  %u, %inv, %c = sift.unique %x inverse counts : tensor<4x4xf32> -> tensor<?xf32>, tensor<4x4xi64>, tensor<?xi64>
  return %u, %inv, %c : tensor<?xf32>, tensor<4x4xi64>, tensor<?xi64>
}

// -----

// The positions travel through the passes as i32 when a static length
// below 2^31 lets them. With keys of at most 32 bits, each key and its
// position travel as one i64 (the position in the high half): each scatter
// moves one 8-byte element, and the positions are its high halves after
// the last pass. The first pass (which always runs) reads the keys and
// packs each with its position as it moves it: no pass only packs, and
// none unpacks the sorted keys, which only `unique` reads. With 64-bit
// keys, the scatters write i64 keys and i32 positions, widened to i64
// once at the end; a dynamic length keeps i64 positions throughout.
// CHECK-LABEL: func.func @argsort_positions
// CHECK: scf.for %{{.*}} -> (tensor<100xi64>, tensor<256xi64>)
// CHECK: %[[AT:.*]] = arith.index_castui %{{.*}} : index to i64
// CHECK: %[[HIGH:.*]] = arith.shli %[[AT]], %c32_i64 : i64
// CHECK: arith.ori %[[HIGH]], %{{.*}} : i64
// CHECK-COUNT-3: scf.for %{{.*}} -> (tensor<100xi64>, tensor<256xi64>)
// CHECK-NOT: scf.for
// CHECK: %[[POS:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<100xi64>) outs(%{{.*}} : tensor<100xi64>)
// CHECK: arith.shrui %{{.*}}, %c32_i64 : i64
// CHECK-NOT: linalg.generic
// CHECK: scf.yield %[[POS]] : tensor<100xi64>
// CHECK-LABEL: func.func @argsort_wide_keys
// CHECK: arith.index_castui %{{.*}} : index to i32
// CHECK-COUNT-8: scf.for %{{.*}} -> (tensor<100xi64>, tensor<100xi32>, tensor<256xi64>)
// CHECK: %[[WIDE:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<100xi32>) outs(%{{.*}} : tensor<100xi64>)
// CHECK: arith.extui %{{.*}} : i32 to i64
// CHECK: scf.yield %[[WIDE]] : tensor<100xi64>
// CHECK-LABEL: func.func @argsort_dynamic_positions
// CHECK-NOT: arith.extui
// CHECK: scf.for %{{.*}} -> (tensor<?xi32>, tensor<?xi64>, tensor<256xi64>)
// CHECK-NOT: arith.extui
// CHECK: return
func.func @argsort_positions(%x: tensor<100xi32>) -> tensor<100xi64> {
  %i = sift.argsort %x : tensor<100xi32> -> tensor<100xi64>
  return %i : tensor<100xi64>
}
func.func @argsort_wide_keys(%x: tensor<100xi64>) -> tensor<100xi64> {
  %i = sift.argsort %x : tensor<100xi64> -> tensor<100xi64>
  return %i : tensor<100xi64>
}
func.func @argsort_dynamic_positions(%x: tensor<?xi32>) -> tensor<?xi64> {
  %i = sift.argsort %x : tensor<?xi32> -> tensor<?xi64>
  return %i : tensor<?xi64>
}

// -----

// k = 0: empty results of the lines' other sizes; no line is read, sorted
// or checked (k never exceeds a dynamic extent).
// CHECK-LABEL: func.func @topk_k0
// CHECK-NOT: scf.
// CHECK-DAG: tensor.empty(%{{.*}}) : tensor<?x0xf32>
// CHECK-DAG: tensor.empty(%{{.*}}) : tensor<?x0xi64>
// CHECK-NOT: scf.
// CHECK: return
func.func @topk_k0(%x: tensor<?x?xf32>) -> (tensor<?x0xf32>, tensor<?x0xi64>) {
  %v, %i = sift.topk %x k(0) : tensor<?x?xf32> -> tensor<?x0xf32>, tensor<?x0xi64>
  return %v, %i : tensor<?x0xf32>, tensor<?x0xi64>
}
