// --sift-report-bounds: the static upper bound of each data-dependent
// dimension, from the analysis --sift-staticize pads with (SizeBounds).
// RUN: tensor-opt %s -split-input-file -verify-diagnostics --sift-report-bounds -o /dev/null

func.func @selections(%m: tensor<1000xi1>, %img: tensor<8x8xf32>,
                      %x: tensor<1000x4xf32>, %l: tensor<64xi64>) {
  // expected-remark @+1 {{result #0 dim 0 <= 1000}}
  %0 = sift.nonzero %m : tensor<1000xi1> -> tensor<?xi64>
  // expected-remark @+1 {{result #0 dim 0 <= 64}}
  %1 = sift.nonzero %img : tensor<8x8xf32> -> tensor<?x2xi64>
  // expected-remark @+1 {{result #0 dim 0 <= 1000}}
  %2 = sift.masked_select %x, %m : tensor<1000x4xf32>, tensor<1000xi1> -> tensor<?x4xf32>
  // expected-remark @+2 {{result #0 dim 0 <= 64}}
  // expected-remark @+1 {{result #2 dim 0 <= 64}}
  %3:3 = sift.unique %l inverse counts : tensor<64xi64> -> tensor<?xi64>, tensor<64xi64>, tensor<?xi64>
  return
}

// -----

// Bounds flow through tensor.dim, randperm, slices, gathers and sorts.
func.func @propagation(%m: tensor<500xi1>, %feats: tensor<500x16xf32>,
                       %seed: i64) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  // expected-remark @+1 {{result #0 dim 0 <= 500}}
  %idx = sift.nonzero %m : tensor<500xi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  // expected-remark @+1 {{result #0 dim 0 <= 500}}
  %perm = sift.randperm %n, %seed : tensor<?xi64>
  %half = arith.floordivsi %n, %c2 : index
  // expected-remark @+1 {{result #0 dim 0 <= 250}}
  %head = tensor.extract_slice %perm[0] [%half] [1] : tensor<?xi64> to tensor<?xi64>
  // expected-remark @+1 {{result #0 dim 0 <= 250}}
  %pick = sift.gather %idx[%head] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  // expected-remark @+1 {{result #0 dim 0 <= 250}}
  %rows = sift.gather %feats[%pick] : tensor<500x16xf32>, tensor<?xi64> -> tensor<?x16xf32>
  // expected-remark @+2 {{result #0 dim 0 <= 250}}
  // expected-remark @+1 {{result #1 dim 0 <= 250}}
  %s:2 = sift.sort %pick : tensor<?xi64> -> tensor<?xi64>, tensor<?xi64>
  return
}

// -----

// A size that comes from outside the program has no bound: a warning.
func.func @unbounded(%n: index, %seed: i64) {
  // expected-warning @+1 {{result #0 dim 0 has no static upper bound derivable from the program}}
  %perm = sift.randperm %n, %seed : tensor<?xi64>
  return
}

// -----

// The bounds --sift-staticize pads to (tensor<10xf32>, tensor<10xf32>,
// tensor<33xf32> there), including what upstream ValueBounds does not
// model: a select of sizes (its larger branch) and a signed division.
func.func @as_staticize_pads(%m: tensor<100xi1>, %q: tensor<100xi1>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c10 = arith.constant 10 : index
  // expected-remark @+1 {{result #0 dim 0 <= 100}}
  %p = sift.nonzero %m : tensor<100xi1> -> tensor<?xi64>
  // expected-remark @+1 {{result #0 dim 0 <= 100}}
  %n = sift.nonzero %q : tensor<100xi1> -> tensor<?xi64>
  %np = tensor.dim %p, %c0 : tensor<?xi64>
  %nn = tensor.dim %n, %c0 : tensor<?xi64>
  %kp = arith.minsi %np, %c10 : index
  %rest = arith.subi %c10, %kp : index
  %kn = arith.minsi %nn, %rest : index
  %total = arith.addi %kp, %kn : index
  // expected-remark @+1 {{result #0 dim 0 <= 10 (tensor.empty: its size, bounded by the size computation's terms, cancelled linearly)}}
  %e = tensor.empty(%total) : tensor<?xf32>
  %s = arith.select %c, %kp, %c5 : index
  // expected-remark @+1 {{result #0 dim 0 <= 10}}
  %f = tensor.empty(%s) : tensor<?xf32>
  %d = arith.divsi %np, %c3 : index
  // expected-remark @+1 {{result #0 dim 0 <= 33}}
  %g = tensor.empty(%d) : tensor<?xf32>
  return
}
