// tensor-opt parses without verification and verifies in its first pass,
// rejecting first what an upstream verifier would crash on
// (docs/UpstreamBugs.md): a negative tensor.concat dim is a SIGSEGV in
// MLIR 22's ConcatOp::verify.
//
// RUN: tensor-opt %s -split-input-file -verify-diagnostics
// RUN: not tensor-opt %s -split-input-file 2>&1 | FileCheck %s
// The JIT parses the same way (tensor-run, the C API):
// RUN: not tensor-run %s -e negative_dim 2>&1 | FileCheck %s --check-prefix=JIT
// JIT: error: 'tensor.concat' op concatenation dim -1 is negative

// CHECK: error: 'tensor.concat' op concatenation dim -1 is negative
func.func @negative_dim(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  // expected-error @+1 {{concatenation dim -1 is negative}}
  %c = tensor.concat dim(-1) %a, %b : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  return %c : tensor<?xi64>
}

// -----

// The verifier still runs: other invalid IR gets upstream's diagnostics.
// CHECK: error: 'tensor.concat' op concatenation dim must be less than the tensor rank
func.func @too_large(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  // expected-error @+1 {{concatenation dim must be less than the tensor rank}}
  %c = tensor.concat dim(1) %a, %b : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  return %c : tensor<?xi64>
}
