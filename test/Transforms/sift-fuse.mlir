// --sift-fuse: a batched function's per-row chain becomes one scf.forall
// over its rows (a kernel), the sift ops on row slices inside.
//
// RUN: tensor-opt %s --pass-pipeline='builtin.module(func.func(sift-fuse))' -split-input-file | FileCheck %s
// RUN: tensor-opt %s --pass-pipeline='builtin.module(func.func(sift-fuse{report=1}))' -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: tensor-opt %s --pass-pipeline='builtin.module(func.func(sift-fuse{report=1 max-row-bytes=128}))' -split-input-file 2>&1 | FileCheck %s --check-prefix=LIMIT

// The mask, its compaction, the count and the gather of one row run in one
// loop; the elementwise compare on tensors became a linalg.generic first.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: %[[X:.*]]: tensor<4x16xi64>, %[[F:.*]]: tensor<4x16xf32>
// CHECK: %[[R:.*]]:2 = scf.forall (%[[I:.*]]) in (4) shared_outs(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<4x8xf32>, tensor<4xi64>)
// CHECK-DAG: tensor.extract_slice %[[X]][%[[I]], 0] [1, 16] [1, 1] : tensor<4x16xi64> to tensor<1x16xi64>
// CHECK-DAG: tensor.extract_slice %[[F]][%[[I]], 0] [1, 16] [1, 1] : tensor<4x16xf32> to tensor<1x16xf32>
// CHECK: linalg.generic
// CHECK: arith.cmpi sgt
// CHECK: %[[IDX:.*]], %[[N:.*]] = sift.compact %{{.*}} : tensor<1x16xi1> -> tensor<1x8xi64>, tensor<1xi64>
// CHECK: %[[G:.*]] = sift.gather %{{.*}}[%[[IDX]]] {batch_dims = 1 : i64} : tensor<1x16xf32>, tensor<1x8xi64> -> tensor<1x8xf32>
// CHECK: scf.forall.in_parallel
// CHECK-DAG: tensor.parallel_insert_slice %[[G]] into %{{.*}}[%[[I]], 0] [1, 8] [1, 1]
// CHECK-DAG: tensor.parallel_insert_slice %[[N]] into %{{.*}}[%[[I]]] [1] [1]
// CHECK: return %[[R]]#0, %[[R]]#1
// REPORT: remark: kernel 0: scf.forall over 4 rows, 3 ops (1 x linalg.generic, 1 x sift.compact, 1 x sift.gather); reads 768 bytes, writes 160 bytes; its 3 ops move 2144 bytes unfused
// Rows that move more than max-row-bytes each form no kernel.
// LIMIT: remark: no kernel: one row of the chain moves 248 bytes unfused, more than max-row-bytes (128)
// LIMIT-LABEL: func.func @chain
// LIMIT-NOT: scf.forall
// LIMIT: sift.compact %{{.*}} : tensor<4x16xi1>
func.func @chain(%x: tensor<4x16xi64>, %f: tensor<4x16xf32>)
    -> (tensor<4x8xf32>, tensor<4xi64>) {
  %zero = arith.constant dense<0> : tensor<4x16xi64>
  %m = arith.cmpi sgt, %x, %zero : tensor<4x16xi64>
  %idx, %n = sift.compact %m : tensor<4x16xi1> -> tensor<4x8xi64>, tensor<4xi64>
  %g = sift.gather %f[%idx] {batch_dims = 1 : i64}
      : tensor<4x16xf32>, tensor<4x8xi64> -> tensor<4x8xf32>
  return %g, %n : tensor<4x8xf32>, tensor<4xi64>
}

// -----

// Two results gathered by the same indices: two roots whose kernels merge;
// the per-row seeds' random keys and their top-k are computed once.
// CHECK-LABEL: func.func @shared_producer
// CHECK-NOT: sift.
// CHECK: scf.forall (%[[I:.*]]) in (8)
// CHECK: %[[S:.*]] = tensor.extract_slice %{{.*}}[%[[I]]] [1] [1] : tensor<8xi64> to tensor<1xi64>
// CHECK: sift.random_bits %[[S]] : tensor<1xi64> -> tensor<1x32xi32>
// CHECK: sift.topk
// CHECK-NOT: sift.topk
// CHECK-NOT: sift.random_bits
// CHECK: sift.gather {{.*}} -> tensor<1x4x2xf32>
// CHECK: sift.gather {{.*}} -> tensor<1x4xi64>
// CHECK: scf.forall.in_parallel
// CHECK-NOT: scf.forall (
// REPORT: remark: kernel 0: scf.forall over 8 rows, 4 ops (2 x sift.gather, 1 x sift.random_bits, 1 x sift.topk)
func.func @shared_producer(%f: tensor<8x32x2xf32>, %l: tensor<8x32xi64>,
                           %seeds: tensor<8xi64>)
    -> (tensor<8x4x2xf32>, tensor<8x4xi64>) {
  %bits = sift.random_bits %seeds : tensor<8xi64> -> tensor<8x32xi32>
  %v, %i = sift.topk %bits k(4) smallest
      : tensor<8x32xi32> -> tensor<8x4xi32>, tensor<8x4xi64>
  %gf = sift.gather %f[%i] {batch_dims = 1 : i64}
      : tensor<8x32x2xf32>, tensor<8x4xi64> -> tensor<8x4x2xf32>
  %gl = sift.gather %l[%i] {batch_dims = 1 : i64}
      : tensor<8x32xi64>, tensor<8x4xi64> -> tensor<8x4xi64>
  return %gf, %gl : tensor<8x4x2xf32>, tensor<8x4xi64>
}

// -----

// A producer that is also returned is computed once, in the kernel, which
// yields it.
// CHECK-LABEL: func.func @yielded
// CHECK: %[[R:.*]]:3 = scf.forall
// CHECK: sift.compact
// CHECK-NOT: sift.compact
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @yielded(%m: tensor<4x16xi1>, %f: tensor<4x16xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xi64>, tensor<4xi64>) {
  %idx, %n = sift.compact %m : tensor<4x16xi1> -> tensor<4x16xi64>, tensor<4xi64>
  %g = sift.gather %f[%idx] {batch_dims = 1 : i64}
      : tensor<4x16xf32>, tensor<4x16xi64> -> tensor<4x16xf32>
  return %g, %idx, %n : tensor<4x16xf32>, tensor<4x16xi64>, tensor<4xi64>
}

// -----

// Rows concatenated along the items: the concat is cut into row slices of
// its pieces, whose producers join the kernel.
// CHECK-LABEL: func.func @concat_rows
// CHECK: scf.forall
// CHECK-DAG: sift.argsort {{.*}} : tensor<1x8xi32> -> tensor<1x8xi64>
// CHECK-DAG: sift.argsort {{.*}} : tensor<1x8xf32> -> tensor<1x8xi64>
// CHECK: tensor.concat dim(1) {{.*}} : (tensor<1x8xi64>, tensor<1x8xi64>) -> tensor<1x16xi64>
// CHECK: sift.cumsum
// CHECK-NOT: scf.forall (
func.func @concat_rows(%a: tensor<4x8xi32>, %b: tensor<4x8xf32>)
    -> tensor<4x16xi64> {
  %sa = sift.argsort %a : tensor<4x8xi32> -> tensor<4x8xi64>
  %sb = sift.argsort %b descending : tensor<4x8xf32> -> tensor<4x8xi64>
  %c = tensor.concat dim(1) %sa, %sb
      : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x16xi64>
  %s = sift.cumsum %c : tensor<4x16xi64> -> tensor<4x16xi64>
  return %s : tensor<4x16xi64>
}

// -----

// A Feistel permutation's lines are independent whatever its streams: a
// per-row one (n and limit per row, per-row seeds) and one of a scalar seed
// both tile into the row kernel, each line with its own n.
// CHECK-LABEL: func.func @feistel
// CHECK-SAME: %[[N:[a-z0-9]+]]: tensor<4xindex>, %[[SEEDS:[a-z0-9]+]]: tensor<4xi64>, %[[SEED:[a-z0-9]+]]: i64
// CHECK-NOT: sift.randperm_prefix
// CHECK: scf.forall (%[[I:.*]]) in (4)
// CHECK-DAG: %[[NI:.*]] = tensor.extract_slice %[[N]][%[[I]]] [1] [1] : tensor<4xindex> to tensor<1xindex>
// CHECK-DAG: %[[SI:.*]] = tensor.extract_slice %[[SEEDS]][%[[I]]] [1] [1] : tensor<4xi64> to tensor<1xi64>
// CHECK-DAG: sift.randperm_prefix %[[NI]], %[[SI]] limit %[[NI]] : (tensor<1xindex>, tensor<1xi64>, tensor<1xindex>) -> tensor<1x8xi64>
// CHECK-DAG: sift.randperm_prefix %[[NI]], %[[SEED]] : (tensor<1xindex>, i64) -> tensor<1x8xi64>
// CHECK: scf.forall.in_parallel
// REPORT: remark: kernel 0: scf.forall over 4 rows, 4 ops (2 x sift.gather, 2 x sift.randperm_prefix)
func.func @feistel(%n: tensor<4xindex>, %seeds: tensor<4xi64>, %seed: i64,
                   %x: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %p = sift.randperm_prefix %n, %seeds limit %n
      : (tensor<4xindex>, tensor<4xi64>, tensor<4xindex>) -> tensor<4x8xi64>
  %q = sift.randperm_prefix %n, %seed
      : (tensor<4xindex>, i64) -> tensor<4x8xi64>
  %a = sift.gather %x[%p] {batch_dims = 1 : i64}
      : tensor<4x16xf32>, tensor<4x8xi64> -> tensor<4x8xf32>
  %b = sift.gather %x[%q] {batch_dims = 1 : i64}
      : tensor<4x16xf32>, tensor<4x8xi64> -> tensor<4x8xf32>
  return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// One stream for the whole tensor (a scalar seed): its rows are not
// independent streams, so random_bits stays whole, before the kernel; a
// sample_balanced with a scalar seed draws row r from stream offset + r:
// its tile for row i gets offset 5 + i.
// CHECK-LABEL: func.func @scalar_seed
// CHECK-SAME: %[[SEED:[a-z0-9]+]]: i64
// CHECK: %[[BITS:.*]] = sift.random_bits %[[SEED]] : tensor<4x16xi32>
// CHECK: scf.forall (%[[I:.*]]) in (4)
// CHECK: tensor.extract_slice %[[BITS]][%[[I]], 0] [1, 16]
// CHECK: sift.sort
// CHECK: %[[ROW:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[OFF:.*]] = arith.addi %{{.*}}, %[[ROW]] : i64
// CHECK: sift.sample_balanced %{{.*}}, %[[SEED]] offset %[[OFF]] {num_samples = 4 : i64}
// CHECK-SAME: : tensor<1x16xi64> -> tensor<1x4xi64>, tensor<1xi64>
func.func @scalar_seed(%l: tensor<4x16xi64>, %seed: i64)
    -> (tensor<4x16xi32>, tensor<4x4xi64>, tensor<4xi64>) {
  %five = arith.constant 5 : i64
  %bits = sift.random_bits %seed : tensor<4x16xi32>
  %v, %i = sift.sort %bits : tensor<4x16xi32> -> tensor<4x16xi32>, tensor<4x16xi64>
  %idx, %n = sift.sample_balanced %l, %seed offset %five {num_samples = 4 : i64}
      : tensor<4x16xi64> -> tensor<4x4xi64>, tensor<4xi64>
  return %v, %idx, %n : tensor<4x16xi32>, tensor<4x4xi64>, tensor<4xi64>
}

// -----

// A scan down the rows (dim 0) mixes the rows: it stays whole, before the
// kernel that reads it.
// CHECK-LABEL: func.func @across_rows
// CHECK: %[[C:.*]] = sift.cumsum %{{.*}} {dim = 0 : i64} : tensor<4x8xi64> -> tensor<4x8xi64>
// CHECK: scf.forall
// CHECK: tensor.extract_slice %[[C]]
// CHECK: sift.sort
func.func @across_rows(%x: tensor<4x8xi64>) -> tensor<4x8xi64> {
  %c = sift.cumsum %x {dim = 0 : i64} : tensor<4x8xi64> -> tensor<4x8xi64>
  %v, %i = sift.sort %c : tensor<4x8xi64> -> tensor<4x8xi64>, tensor<4x8xi64>
  return %v : tensor<4x8xi64>
}

// -----

// Rows, then a scan down the rows, then rows again: two kernels, the scan
// between them.
// CHECK-LABEL: func.func @two_kernels
// CHECK: %[[K0:.*]] = scf.forall
// CHECK: sift.argsort
// CHECK: %[[C:.*]] = sift.cumsum %[[K0]] {dim = 0 : i64}
// CHECK: scf.forall
// CHECK: tensor.extract_slice %[[C]]
// CHECK: sift.sort
// REPORT: remark: kernel 0: scf.forall over 4 rows, 1 ops (1 x sift.argsort)
// REPORT: remark: kernel 1: scf.forall over 4 rows, 1 ops (1 x sift.sort)
func.func @two_kernels(%x: tensor<4x8xi64>) -> tensor<4x8xi64> {
  %a = sift.argsort %x : tensor<4x8xi64> -> tensor<4x8xi64>
  %c = sift.cumsum %a {dim = 0 : i64} : tensor<4x8xi64> -> tensor<4x8xi64>
  %v, %i = sift.sort %c : tensor<4x8xi64> -> tensor<4x8xi64>, tensor<4x8xi64>
  return %v : tensor<4x8xi64>
}

// -----

// A row op that a scan down the rows also reads whole, before the kernel
// that reads its rows: it is not recomputed there (not cheap) but is a
// kernel of its own; the two sorts share one kernel.
// CHECK-LABEL: func.func @shared_across
// CHECK: %[[K0:.*]] = scf.forall
// CHECK: sift.argsort
// CHECK: sift.cumsum %[[K0]]
// CHECK: scf.forall
// CHECK-NOT: sift.argsort
// CHECK: sift.sort
// CHECK: sift.sort
// REPORT: remark: kernel 0: scf.forall over 4 rows, 1 ops (1 x sift.argsort)
// REPORT: remark: kernel 1: scf.forall over 4 rows, 2 ops (2 x sift.sort)
func.func @shared_across(%x: tensor<4x8xi64>)
    -> (tensor<4x8xi64>, tensor<4x8xi64>) {
  %a = sift.argsort %x : tensor<4x8xi64> -> tensor<4x8xi64>
  %c = sift.cumsum %a {dim = 0 : i64} : tensor<4x8xi64> -> tensor<4x8xi64>
  %v, %i = sift.sort %c : tensor<4x8xi64> -> tensor<4x8xi64>, tensor<4x8xi64>
  %w, %j = sift.sort %a : tensor<4x8xi64> -> tensor<4x8xi64>, tensor<4x8xi64>
  return %v, %w : tensor<4x8xi64>, tensor<4x8xi64>
}

// -----

// A per-row count beside a sort; cross_entropy does not tile (its run-time
// error names the row of a bad target), it stays whole before the kernel.
// CHECK-LABEL: func.func @count_rows
// CHECK: sift.cross_entropy {{.*}} : tensor<4x6x3xf32>, tensor<4x6xi64> -> tensor<4xf32>
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK: sift.count {{.*}} : tensor<1x6xi1> -> tensor<1xi64>
// CHECK: sift.sort {{.*}} : tensor<1x6xi64>
// REPORT: remark: kernel 0: scf.forall over 4 rows, 3 ops (1 x linalg.generic, 1 x sift.count, 1 x sift.sort)
func.func @count_rows(%logits: tensor<4x6x3xf32>, %t: tensor<4x6xi64>)
    -> (tensor<4xf32>, tensor<4xi64>, tensor<4x6xi64>) {
  %loss = sift.cross_entropy %logits, %t reduction = mean {batch_dims = 1 : i64}
      : tensor<4x6x3xf32>, tensor<4x6xi64> -> tensor<4xf32>
  %zero = arith.constant dense<0> : tensor<4x6xi64>
  %m = arith.cmpi ne, %t, %zero : tensor<4x6xi64>
  %n = sift.count %m : tensor<4x6xi1> -> tensor<4xi64>
  %v, %i = sift.sort %t : tensor<4x6xi64> -> tensor<4x6xi64>, tensor<4x6xi64>
  return %loss, %n, %v : tensor<4xf32>, tensor<4xi64>, tensor<4x6xi64>
}

// -----

// Not a batched function (a rank-0 result): nothing is tiled; nor is a
// batch of one row, rows of no items, or elementwise ops alone (linalg's
// elementwise fusion keeps all their loops parallel).
// CHECK-LABEL: func.func @unbatched
// CHECK-NOT: scf.forall
// CHECK-LABEL: func.func @one_row
// CHECK-NOT: scf.forall
func.func @unbatched(%m: tensor<4x16xi1>) -> (tensor<4x16xi64>, tensor<i64>) {
  %idx, %n = sift.compact %m : tensor<4x16xi1> -> tensor<4x16xi64>, tensor<4xi64>
  %c = sift.count %m : tensor<4x16xi1> -> tensor<4xi64>
  %e = tensor.extract_slice %c[0] [1] [1] : tensor<4xi64> to tensor<1xi64>
  %s = tensor.collapse_shape %e [] : tensor<1xi64> into tensor<i64>
  return %idx, %s : tensor<4x16xi64>, tensor<i64>
}

func.func @one_row(%m: tensor<1x16xi1>) -> tensor<1x16xi64> {
  %idx, %n = sift.compact %m : tensor<1x16xi1> -> tensor<1x16xi64>, tensor<1xi64>
  return %idx : tensor<1x16xi64>
}

// CHECK-LABEL: func.func @empty_rows
// CHECK-NOT: scf.forall
func.func @empty_rows(%x: tensor<3x0xf32>) -> tensor<3xi64> {
  %n = sift.count %x : tensor<3x0xf32> -> tensor<3xi64>
  return %n : tensor<3xi64>
}

// CHECK-LABEL: func.func @elementwise_only
// CHECK-NOT: scf.forall
func.func @elementwise_only(%a: tensor<4x64xf32>, %b: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %c = arith.addf %a, %b : tensor<4x64xf32>
  return %c : tensor<4x64xf32>
}

// -----

// A compaction of empty masks ([3, 0]) whose count a kernel reads (the
// permutations' sizes): no slice of its masks would be valid IR, so it
// stays out of the kernel, which reads its count whole.
// CHECK-LABEL: func.func @empty_rows_producer
// CHECK: %[[IDX:.*]], %[[N:.*]] = sift.compact %{{.*}} unpadded : tensor<3x0xi1> -> tensor<3x0xi64>, tensor<3xi64>
// CHECK: scf.forall
// CHECK-NOT: sift.compact
// CHECK: sift.randperm_prefix
// CHECK: scf.forall.in_parallel
func.func @empty_rows_producer(%m: tensor<3x0xi1>, %s: tensor<3xi64>) -> (tensor<3x5xi64>, tensor<3xi64>) {
  %i, %n = sift.compact %m unpadded : tensor<3x0xi1> -> tensor<3x0xi64>, tensor<3xi64>
  %ni = arith.index_cast %n : tensor<3xi64> to tensor<3xindex>
  %p = sift.randperm_prefix %ni, %s : (tensor<3xindex>, tensor<3xi64>) -> tensor<3x5xi64>
  %g = sift.gather %i[%p] {batch_dims = 1 : i64, fill = 7 : i64} : tensor<3x0xi64>, tensor<3x5xi64> -> tensor<3x5xi64>
  return %g, %n : tensor<3x5xi64>, tensor<3xi64>
}
