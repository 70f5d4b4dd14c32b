// --sift-report-bounds: the static upper bounds that the sift ops' value
// bounds let MLIR derive for data-dependent dimensions.
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
