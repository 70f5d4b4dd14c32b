// --sift-stack-siblings: two independent single-line sorts or top-ks of
// the same type and attributes become one op over their inputs stacked
// along a new leading dimension (two lines: the CPU lowering runs them on
// two threads); each one's results are its row of the stacked results.
// The results are checked against NumPy by conformance (stack_siblings).
//
// RUN: tensor-opt %s -split-input-file --sift-stack-siblings=min-length=4096 | FileCheck %s
// RUN: tensor-opt %s -split-input-file --sift-stack-siblings | FileCheck %s --check-prefix=DEFAULT

// A sampler's two top-ks (one line each, per-line `valid` and `limit`),
// with a use of the first between them: that use moves after the stacked
// op, which stands where the second was.
// CHECK-LABEL: func.func @two_topks
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0 {{\[\[}}0, 1], [2]] output_shape [1, 1, 8192] : tensor<1x8192xi32> into tensor<1x1x8192xi32>
// CHECK: %[[Y:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1], [2]] output_shape [1, 1, 8192] : tensor<1x8192xi32> into tensor<1x1x8192xi32>
// CHECK: %[[BOTH:.*]] = tensor.concat dim(0) %[[X]], %[[Y]] : (tensor<1x1x8192xi32>, tensor<1x1x8192xi32>) -> tensor<2x1x8192xi32>
// CHECK: %[[N0:.*]] = tensor.extract %arg2[%{{.*}}] : tensor<1xindex>
// CHECK: %[[N1:.*]] = tensor.extract %arg3[%{{.*}}] : tensor<1xindex>
// CHECK: %[[N:.*]] = tensor.from_elements %[[N0]], %[[N1]] : tensor<2x1xindex>
// CHECK: %[[C:.*]] = tensor.from_elements %{{.*}}, %{{.*}} : tensor<2x1xindex>
// CHECK: %{{.*}}, %[[I:.*]] = sift.topk %[[BOTH]] k(100) valid(%[[N]] : tensor<2x1xindex>) limit(%[[C]] : tensor<2x1xindex>) smallest {dim = 2 : i64} : tensor<2x1x8192xi32> -> tensor<2x1x100xi32>, tensor<2x1x100xi64>
// CHECK: %[[I0:.*]] = tensor.extract_slice %[[I]][0, 0, 0] [1, 1, 100] [1, 1, 1] : tensor<2x1x100xi64> to tensor<1x100xi64>
// CHECK: %[[I1:.*]] = tensor.extract_slice %[[I]][1, 0, 0] [1, 1, 100] [1, 1, 1] : tensor<2x1x100xi64> to tensor<1x100xi64>
// CHECK: %[[SUM:.*]] = arith.addi %[[I0]], %[[I0]] : tensor<1x100xi64>
// CHECK: return %[[SUM]], %[[I1]]
// The lines are shorter than the default's 65536: nothing is stacked.
// DEFAULT-LABEL: func.func @two_topks
// DEFAULT-COUNT-2: sift.topk
// DEFAULT-NOT: tensor.concat
func.func @two_topks(%x: tensor<1x8192xi32>, %y: tensor<1x8192xi32>,
                     %n: tensor<1xindex>, %m: tensor<1xindex>, %c: index,
                     %d: index) -> (tensor<1x100xi64>, tensor<1x100xi64>) {
  %c0 = arith.constant 0 : index
  %cn = tensor.from_elements %c : tensor<1xindex>
  %dn = tensor.from_elements %d : tensor<1xindex>
  %a, %ai = sift.topk %x k(100) valid(%n : tensor<1xindex>) limit(%cn : tensor<1xindex>) smallest {dim = 1 : i64}
      : tensor<1x8192xi32> -> tensor<1x100xi32>, tensor<1x100xi64>
  %z = arith.addi %ai, %ai : tensor<1x100xi64>
  %b, %bi = sift.topk %y k(100) valid(%m : tensor<1xindex>) limit(%dn : tensor<1xindex>) smallest {dim = 1 : i64}
      : tensor<1x8192xi32> -> tensor<1x100xi32>, tensor<1x100xi64>
  return %z, %bi : tensor<1x100xi64>, tensor<1x100xi64>
}

// -----

// Inputs that are random streams read only by the two top-ks are drawn as
// one stream of two rows (no copy into a stacked input): the seeds, the
// offsets (0 where absent) and the `valid` lengths (the whole line where
// absent) become per-row tensors.
// CHECK-LABEL: func.func @streams
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: %[[SA:.*]] = tensor.splat %arg0 : tensor<i64>
// CHECK: %[[SB:.*]] = tensor.splat %arg0 : tensor<i64>
// CHECK: %[[SA1:.*]] = tensor.expand_shape %[[SA]] [] output_shape [1] : tensor<i64> into tensor<1xi64>
// CHECK: %[[SB1:.*]] = tensor.expand_shape %[[SB]] [] output_shape [1] : tensor<i64> into tensor<1xi64>
// CHECK: %[[SEEDS:.*]] = tensor.concat dim(0) %[[SA1]], %[[SB1]] : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[OA:.*]] = tensor.splat %[[ZERO]] : tensor<i64>
// CHECK: %[[OB:.*]] = tensor.splat %[[ONE]] : tensor<i64>
// CHECK: %[[OFFSETS:.*]] = tensor.concat dim(0)
// CHECK: %[[VA:.*]] = tensor.splat %arg1 : tensor<index>
// CHECK: %[[WHOLE:.*]] = arith.constant 8192 : index
// CHECK: %[[VB:.*]] = tensor.splat %[[WHOLE]] : tensor<index>
// CHECK: %[[VALID:.*]] = tensor.concat dim(0)
// CHECK: %[[WORDS:.*]] = sift.random_bits %[[SEEDS]] offset %[[OFFSETS]] valid(%[[VALID]] : tensor<2xindex>) : tensor<2xi64>, tensor<2xi64> -> tensor<2x8192xi32>
// CHECK-NOT: sift.random_bits
// CHECK: sift.topk %[[WORDS]] k(100) valid(%{{.*}} : tensor<2xindex>) smallest unsigned {dim = 1 : i64} : tensor<2x8192xi32> -> tensor<2x100xi32>, tensor<2x100xi64>
func.func @streams(%seed: i64, %n: index, %m: index) -> (tensor<100xi64>, tensor<100xi64>) {
  %one = arith.constant 1 : i64
  %x = sift.random_bits %seed valid(%n : index) : tensor<8192xi32>
  %y = sift.random_bits %seed offset %one : tensor<8192xi32>
  %a, %ai = sift.topk %x k(100) valid(%n : index) smallest unsigned
      : tensor<8192xi32> -> tensor<100xi32>, tensor<100xi64>
  %b, %bi = sift.topk %y k(100) valid(%m : index) smallest unsigned
      : tensor<8192xi32> -> tensor<100xi32>, tensor<100xi64>
  return %ai, %bi : tensor<100xi64>, tensor<100xi64>
}

// -----

// Argsorts of 1-D inputs; the third has no partner. A pair whose attributes
// differ (descending) is not stacked.
// CHECK-LABEL: func.func @argsorts
// CHECK: tensor.concat dim(0) %{{.*}}, %{{.*}} : (tensor<1x5000xf32>, tensor<1x5000xf32>) -> tensor<2x5000xf32>
// CHECK: sift.argsort %{{.*}} {dim = 1 : i64} : tensor<2x5000xf32> -> tensor<2x5000xi64>
// CHECK: sift.argsort %{{.*}} descending : tensor<5000xf32> -> tensor<5000xi64>
// CHECK-NOT: tensor.concat
func.func @argsorts(%x: tensor<5000xf32>, %y: tensor<5000xf32>, %w: tensor<5000xf32>)
    -> (tensor<5000xi64>, tensor<5000xi64>, tensor<5000xi64>) {
  %a = sift.argsort %x : tensor<5000xf32> -> tensor<5000xi64>
  %b = sift.argsort %y : tensor<5000xf32> -> tensor<5000xi64>
  %c = sift.argsort %w descending : tensor<5000xf32> -> tensor<5000xi64>
  return %a, %b, %c : tensor<5000xi64>, tensor<5000xi64>, tensor<5000xi64>
}

// -----

// Not stacked: the second sorts what the first gave (it depends on it),
// and ops of several lines or inside a loop (whose iterations may run in
// parallel already) stay as they are.
// CHECK-LABEL: func.func @apart
// CHECK-NOT: tensor.concat
// CHECK: return
func.func @apart(%x: tensor<5000xi32>, %r: tensor<2x5000xi32>, %s: tensor<2x5000xi32>)
    -> (tensor<5000xi32>, tensor<2x5000xi32>, tensor<2x5000xi32>, tensor<5000xi32>) {
  %a:2 = sift.sort %x : tensor<5000xi32> -> tensor<5000xi32>, tensor<5000xi64>
  %b:2 = sift.sort %a#0 descending : tensor<5000xi32> -> tensor<5000xi32>, tensor<5000xi64>
  %c:2 = sift.sort %b#0 : tensor<5000xi32> -> tensor<5000xi32>, tensor<5000xi64>
  %p:2 = sift.sort %r : tensor<2x5000xi32> -> tensor<2x5000xi32>, tensor<2x5000xi64>
  %q:2 = sift.sort %s : tensor<2x5000xi32> -> tensor<2x5000xi32>, tensor<2x5000xi64>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %l = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> (tensor<5000xi32>) {
    %u:2 = sift.sort %acc : tensor<5000xi32> -> tensor<5000xi32>, tensor<5000xi64>
    %v:2 = sift.sort %x : tensor<5000xi32> -> tensor<5000xi32>, tensor<5000xi64>
    %w = arith.addi %u#0, %v#0 : tensor<5000xi32>
    scf.yield %w : tensor<5000xi32>
  }
  return %c#0, %p#0, %q#0, %l : tensor<5000xi32>, tensor<2x5000xi32>, tensor<2x5000xi32>, tensor<5000xi32>
}
