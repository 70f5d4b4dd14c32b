// Ops the CPU lowering cannot handle are reported, not crashed on.
//
// RUN: tensor-opt %s --convert-sift-to-linalg -split-input-file -verify-diagnostics

func.func @sort_i128(%x: tensor<4xi128>) -> tensor<4xi64> {
  // expected-error @+2 {{has no CPU lowering for element type 'i128'}}
  // expected-error @+1 {{sift.argsort has no CPU lowering yet}}
  %i = sift.argsort %x : tensor<4xi128> -> tensor<4xi64>
  return %i : tensor<4xi64>
}
