// The batching rules on small functions: elementwise ops become one
// linalg.generic over [B, ...] reading shared operands without the batch
// dimension; axis attributes shift; per-row scalars become tensor<B>;
// random ops and randperm take per-row seeds; values that do not depend on
// a batched argument stay unbatched.
// RUN: tensor-opt %s --split-input-file --sift-batch="func=f size=8" | FileCheck %s

// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[S:.*]]: tensor<8xf32>) -> (tensor<8x16xf32>, tensor<8xf32>, tensor<8x16xf32>)
// CHECK: %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<16xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID:.*]], #[[SKIP:.*]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[C]] : tensor<8x16xf32>, tensor<16xf32>)
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[S]] : tensor<8xf32>)
// CHECK: arith.addf %{{.*}}, %[[ONE:.*]] : f32
// The shared constant result is broadcast at the return only.
// CHECK: %[[SHARED:.*]] = arith.addf %[[C]], %[[C]] : tensor<16xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[SHARED]] : tensor<16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
func.func @f(%x: tensor<16xf32>, %s: f32) -> (tensor<16xf32>, f32, tensor<16xf32>) {
  %c = arith.constant dense<2.0> : tensor<16xf32>
  %y = arith.mulf %x, %c : tensor<16xf32>
  %one = arith.constant 1.0 : f32
  %t = arith.addf %s, %one : f32
  %shared = arith.addf %c, %c : tensor<16xf32>
  return %y, %t, %shared : tensor<16xf32>, f32, tensor<16xf32>
}

// -----

// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[X:.*]]: tensor<8x4x100xf32>, %[[SEED:.*]]: tensor<8xi64>)
// CHECK: sift.sort %[[X]] descending {dim = 2 : i64} : tensor<8x4x100xf32>
// CHECK: sift.topk %[[X]] k(3) : tensor<8x4x100xf32> -> tensor<8x4x3xf32>, tensor<8x4x3xi64>
// CHECK: sift.cumsum %[[X]] {dim = 1 : i64} : tensor<8x4x100xf32>
// CHECK: sift.random_bits %[[SEED]] : tensor<8xi64> -> tensor<8x4x100xi32>
// CHECK: %[[BITS:.*]] = sift.random_bits %[[SEED]] offset %{{.*}} : tensor<8xi64> -> tensor<8x50xi32>
// CHECK: sift.argsort %[[BITS]] unsigned {dim = 1 : i64} : tensor<8x50xi32> -> tensor<8x50xi64>
func.func @f(%x: tensor<4x100xf32>, %seed: i64) -> (tensor<4x100xf32>, tensor<4x3xf32>, tensor<4x100xf32>, tensor<4x100xi32>, tensor<50xi64>) {
  %s, %i = sift.sort %x descending {dim = 1 : i64} : tensor<4x100xf32> -> tensor<4x100xf32>, tensor<4x100xi64>
  %v, %j = sift.topk %x k(3) : tensor<4x100xf32> -> tensor<4x3xf32>, tensor<4x3xi64>
  %c = sift.cumsum %x {dim = 0 : i64} : tensor<4x100xf32> -> tensor<4x100xf32>
  %b = sift.random_bits %seed : tensor<4x100xi32>
  %c50 = arith.constant 50 : index
  %two = arith.constant 2 : i64
  %p = sift.randperm %c50, %seed offset %two sort : tensor<50xi64>
  return %s, %v, %c, %b, %p : tensor<4x100xf32>, tensor<4x3xf32>, tensor<4x100xf32>, tensor<4x100xi32>, tensor<50xi64>
}

// -----

// A static Feistel randperm is the lanes of each row's stream
// (`randperm_prefix` of [B, n]); a `randperm_prefix` keeps its form with
// per-row n, seeds and limits, a shared scalar (the offset) staying shared.
// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[SEED:.*]]: tensor<8xi64>, %[[N:.*]]: tensor<8xindex>, %[[OFF:.*]]: i64)
// CHECK: %[[C50:.*]] = arith.constant 50 : index
// CHECK: sift.randperm_prefix %[[C50]], %[[SEED]] : (index, tensor<8xi64>) -> tensor<8x50xi64>
// CHECK: sift.randperm_prefix %[[N]], %[[SEED]] offset %[[OFF]] limit %[[N]] : (tensor<8xindex>, tensor<8xi64>, i64, tensor<8xindex>) -> tensor<8x20xi64>
func.func @f(%seed: i64, %n: index, %off: i64 {sift.unbatched})
    -> (tensor<50xi64>, tensor<20xi64>) {
  %c50 = arith.constant 50 : index
  %p = sift.randperm %c50, %seed : tensor<50xi64>
  %q = sift.randperm_prefix %n, %seed offset %off limit %n
      : (index, i64, i64, index) -> tensor<20xi64>
  return %p, %q : tensor<50xi64>, tensor<20xi64>
}

// -----

// A gather from a shared table keeps its form; from a per-row source it
// becomes a batch_dims gather. A per-row count read as a scalar is the
// batched count itself.
// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[T:.*]]: tensor<1000x4xf32>, %[[M:.*]]: tensor<8x1000xi1>)
// CHECK: %[[IDX:.*]], %[[N:.*]] = sift.compact %[[M]] : tensor<8x1000xi1> -> tensor<8x1000xi64>, tensor<8xi64>
// CHECK: sift.gather %[[T]][%[[IDX]]] : tensor<1000x4xf32>, tensor<8x1000xi64> -> tensor<8x1000x4xf32>
// CHECK: sift.gather %[[IDX]][%[[IDX]]] {batch_dims = 1 : i64} : tensor<8x1000xi64>, tensor<8x1000xi64> -> tensor<8x1000xi64>
// CHECK: return %{{.*}}, %{{.*}}, %[[N]] : tensor<8x1000x4xf32>, tensor<8x1000xi64>, tensor<8xi64>
func.func @f(%table: tensor<1000x4xf32> {sift.unbatched}, %m: tensor<1000xi1>) -> (tensor<1000x4xf32>, tensor<1000xi64>, i64) {
  %idx, %n = sift.compact %m : tensor<1000xi1> -> tensor<1000xi64>, tensor<i64>
  %rows = sift.gather %table[%idx] : tensor<1000x4xf32>, tensor<1000xi64> -> tensor<1000x4xf32>
  %self = sift.gather %idx[%idx] : tensor<1000xi64>, tensor<1000xi64> -> tensor<1000xi64>
  %count = tensor.extract %n[] : tensor<i64>
  return %rows, %self, %count : tensor<1000x4xf32>, tensor<1000xi64>, i64
}

// -----

// sample_balanced with a scalar seed gets one seed per row, so that row i
// uses stream offset + 0 as the per-sample function does; cross_entropy
// reduces per row.
// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[L:.*]]: tensor<8x500xi64>, %[[X:.*]]: tensor<8x32x10xf32>, %[[T:.*]]: tensor<8x32xi64>)
// CHECK: %[[SEED:.*]] = tensor.splat %{{.*}} : tensor<8xi64>
// CHECK: sift.sample_balanced %[[L]], %[[SEED]] {num_samples = 64 : i64} : tensor<8x500xi64>, tensor<8xi64> -> tensor<8x64xi64>, tensor<8xi64>
// CHECK: sift.cross_entropy %[[X]], %[[T]] reduction = mean {batch_dims = 1 : i64} : tensor<8x32x10xf32>, tensor<8x32xi64> -> tensor<8xf32>
func.func @f(%labels: tensor<500xi64>, %x: tensor<32x10xf32>, %t: tensor<32xi64>) -> (tensor<64xi64>, tensor<i64>, tensor<f32>) {
  %seed = arith.constant 7 : i64
  %i, %n = sift.sample_balanced %labels, %seed {num_samples = 64 : i64} : tensor<500xi64> -> tensor<64xi64>, tensor<i64>
  %l = sift.cross_entropy %x, %t reduction = mean : tensor<32x10xf32>, tensor<32xi64> -> tensor<f32>
  return %i, %n, %l : tensor<64xi64>, tensor<i64>, tensor<f32>
}

// -----

// A per-row scf.if condition runs both (pure) branches and selects per row.
// CHECK-LABEL: func.func @f_batched
// CHECK-NOT: scf.if
// CHECK: sift.cumsum
// CHECK: linalg.generic
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
func.func @f(%x: tensor<5xi64>, %k: i64) -> tensor<5xi64> {
  %z = arith.constant 0 : i64
  %c = arith.cmpi sgt, %k, %z : i64
  %r = scf.if %c -> tensor<5xi64> {
    %n = sift.cumsum %x : tensor<5xi64> -> tensor<5xi64>
    scf.yield %n : tensor<5xi64>
  } else {
    scf.yield %x : tensor<5xi64>
  }
  return %r : tensor<5xi64>
}

// -----

// scf.for with shared bounds stays a loop; a carried value becomes per row
// when it is updated from a per-row value, even if it starts shared.
// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>)
// CHECK: %[[INIT:.*]] = arith.constant dense<0.000000e+00> : tensor<8x4xf32>
// CHECK: %[[R:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]], %[[N:.*]] = %{{.*}}) -> (tensor<8x4xf32>, i64)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[ACC]], %[[X]] : tensor<8x4xf32>, tensor<8x4xf32>)
// CHECK: arith.addi %[[N]], %{{.*}} : i64
// CHECK: return %[[R]]#0, %{{.*}} : tensor<8x4xf32>, tensor<8xi64>
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %n0 = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero, %n = %n0) -> (tensor<4xf32>, i64) {
    %s = arith.addf %acc, %x : tensor<4xf32>
    %m = arith.addi %n, %one : i64
    scf.yield %s, %m : tensor<4xf32>, i64
  }
  return %r#0, %r#1 : tensor<4xf32>, i64
}

// -----

// A bounded size argument becomes a tensor of per-row sizes that keeps its
// bound (the JIT checks every element against it).
// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%{{.*}}: tensor<8xindex> {sift.bound = 16 : i64}, %{{.*}}: tensor<8xi64>)
func.func @f(%n: index {sift.bound = 16 : i64}, %seed: i64) -> tensor<i64> {
  %k = arith.index_cast %n : index to i64
  %s = arith.addi %k, %seed : i64
  %t = tensor.from_elements %s : tensor<i64>
  return %t : tensor<i64>
}

// -----

// The batched function keeps the argument and result attributes and the
// positions of the bounded results that --sift-staticize marked.
// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%{{.*}}: tensor<8x10xi64> {sift.name = "labels"}) -> (tensor<8x10xi64> {sift.name = "picked"}, tensor<8xi64>)
// CHECK-SAME: attributes {sift.bounded_results = array<i64: 0>}
func.func @f(%l: tensor<10xi64> {sift.name = "labels"})
    -> (tensor<10xi64> {sift.name = "picked"}, tensor<i64>)
    attributes {sift.bounded_results = array<i64: 0>} {
  %c = arith.constant dense<10> : tensor<i64>
  return %l, %c : tensor<10xi64>, tensor<i64>
}

// -----

// A scatter writes into a per-row copy of its dest, even a shared one: the
// dest is broadcast and batch_dims grows by one; shared indices and updates
// are broadcast too.
// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[H:.*]]: tensor<21xi64>, %[[L:.*]]: tensor<8x100xi64>)
// CHECK: %[[OB:.*]] = arith.constant dense<1> : tensor<8x100xi64>
// CHECK: %[[HB:.*]] = linalg.generic {{.*}} ins(%[[H]] : tensor<21xi64>) outs(%{{.*}} : tensor<8x21xi64>)
// CHECK: %[[R:.*]] = sift.scatter %[[OB]] into %[[HB]][%[[L]]] reduce(add) {batch_dims = 1 : i64} : tensor<8x100xi64>, tensor<8x100xi64> into tensor<8x21xi64>
// CHECK: return %[[R]] : tensor<8x21xi64>
func.func @f(%h: tensor<21xi64> {sift.unbatched}, %labels: tensor<100xi64>) -> tensor<21xi64> {
  %ones = arith.constant dense<1> : tensor<100xi64>
  %r = sift.scatter %ones into %h[%labels] reduce(add) : tensor<100xi64>, tensor<100xi64> into tensor<21xi64>
  return %r : tensor<21xi64>
}

// -----

// A per-row scf.if is if-converted as --sift-staticize converts branches on
// counts: where a row does not take the branch, its index is clamped into
// the tensor and its divisor is 1, then each row selects.
// CHECK-LABEL: func.func @f_batched
// CHECK-NOT: scf.if
// CHECK: arith.subi %{{.*}}, %{{.*}} : index
// CHECK: arith.minsi %{{.*}}, %[[C5:.*]] : index
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<8x6xf32>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[ONE:.*]] : i64
// CHECK: arith.divsi %{{.*}}, %{{.*}} : i64
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i64
func.func @f(%x: tensor<6xf32>, %k: index, %d: i64) -> (f32, i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %dflt = arith.constant -1.0 : f32
  %has = arith.cmpi sgt, %k, %c0 : index
  %v = scf.if %has -> f32 {
    %last = arith.subi %k, %c1 : index
    %e = tensor.extract %x[%last] : tensor<6xf32>
    scf.yield %e : f32
  } else {
    scf.yield %dflt : f32
  }
  %nz = arith.cmpi ne, %d, %z : i64
  %hundred = arith.constant 100 : i64
  %q = scf.if %nz -> i64 {
    %r = arith.divsi %hundred, %d : i64
    scf.yield %r : i64
  } else {
    scf.yield %z : i64
  }
  return %v, %q : f32, i64
}

// -----

// A top-k's `valid`: a per-row index becomes one per line of the batched
// input; a shared index stays one index; a per-line tensor of a shared
// argument is broadcast over the rows.
// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[X:.*]]: tensor<8x100xi32>, %[[N:.*]]: tensor<8xindex>, %[[M:.*]]: index, %[[Y:.*]]: tensor<8x4x100xi32>, %[[L:.*]]: tensor<4xindex>)
// CHECK: sift.topk %[[X]] k(5) valid(%[[N]] : tensor<8xindex>) smallest : tensor<8x100xi32> -> tensor<8x5xi32>, tensor<8x5xi64>
// CHECK: sift.topk %[[X]] k(5) valid(%[[M]] : index) smallest :
// CHECK: %[[LB:.*]] = linalg.generic {{.*}} ins(%[[L]] : tensor<4xindex>) outs(%{{.*}} : tensor<8x4xindex>)
// CHECK: sift.topk %[[Y]] k(3) valid(%[[LB]] : tensor<8x4xindex>) {dim = 2 : i64} : tensor<8x4x100xi32> -> tensor<8x4x3xi32>, tensor<8x4x3xi64>
func.func @f(%x: tensor<100xi32>, %n: index, %m: index {sift.unbatched},
             %y: tensor<4x100xi32>, %l: tensor<4xindex> {sift.unbatched})
    -> (tensor<5xi64>, tensor<5xi64>, tensor<4x3xi64>) {
  %v, %i = sift.topk %x k(5) valid(%n : index) smallest
      : tensor<100xi32> -> tensor<5xi32>, tensor<5xi64>
  %w, %j = sift.topk %x k(5) valid(%m : index) smallest
      : tensor<100xi32> -> tensor<5xi32>, tensor<5xi64>
  %u, %h = sift.topk %y k(3) valid(%l : tensor<4xindex>) {dim = 1 : i64}
      : tensor<4x100xi32> -> tensor<4x3xi32>, tensor<4x3xi64>
  return %i, %j, %h : tensor<5xi64>, tensor<5xi64>, tensor<4x3xi64>
}

// -----

// random_bits' valid is per row like a seed: with per-row seeds it becomes
// one count per row; a per-row count over one shared stream is dropped
// (the rows are lines of that stream only once batched: every word is
// computed, which valid allows).
// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[SEED:.*]]: tensor<8xi64>, %[[N:.*]]: tensor<8xindex>, %[[SHARED:.*]]: i64)
// CHECK: sift.random_bits %[[SEED]] valid(%[[N]] : tensor<8xindex>) : tensor<8xi64> -> tensor<8x100xi32>
// CHECK: sift.random_bits %[[SHARED]] : tensor<8x100xi32>
func.func @f(%seed: i64, %n: index, %shared: i64 {sift.unbatched})
    -> (tensor<100xi32>, tensor<100xi32>) {
  %a = sift.random_bits %seed valid(%n : index) : tensor<100xi32>
  %b = sift.random_bits %shared valid(%n : index) : tensor<100xi32>
  return %a, %b : tensor<100xi32>, tensor<100xi32>
}
