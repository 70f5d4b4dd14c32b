// What --sift-staticize cannot bound or does not support is an error at the
// op, saying why and how to supply a bound.
// RUN: tensor-opt %s -split-input-file -verify-diagnostics --sift-staticize

func.func @unbounded_argument(%n: index, %seed: i64) -> tensor<?xi64> {
  // expected-error @+1 {{'sift.randperm' op has a data-dependent result size with no upper bound derivable from the program (--sift-staticize needs one to pad to); bound the size, e.g. with arith.minsi against a constant, or annotate the function argument it comes from with {sift.bound = N : i64}}}
  %p = sift.randperm %n, %seed : tensor<?xi64>
  return %p : tensor<?xi64>
}

// -----

func.func @unbounded_slice(%x: tensor<100xf32>, %n: index) -> tensor<?xf32> {
  // expected-error @+1 {{'tensor.extract_slice' op has a data-dependent result size with no upper bound derivable from the program}}
  %s = tensor.extract_slice %x[0] [%n] [1] : tensor<100xf32> to tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has a dynamic shape 'tensor<?xf32>': --sift-staticize needs static tensor arguments; pass a padded static tensor and a count (an index argument annotated {sift.bound = N : i64}) instead}}
func.func @dynamic_argument(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

func.func @unknown_combiner(%m: tensor<8xi1>, %x: tensor<8xf32>) -> tensor<f32> {
  %v = sift.masked_select %x, %m : tensor<8xf32>, tensor<8xi1> -> tensor<?xf32>
  %init = tensor.empty() : tensor<f32>
  // expected-error @+1 {{reduces data-dependent rows with a combiner whose identity --sift-staticize does not know; use add, mul, min or max}}
  %r = linalg.reduce ins(%v : tensor<?xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.subf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

// -----

func.func @unsupported_consumer(%m: tensor<8xi1>, %v: i64) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %i = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  // expected-error @+1 {{'tensor.insert' op is not supported by --sift-staticize yet: it has a data-dependent result shape}}
  %p = tensor.insert %v into %i[%c0] : tensor<?xi64>
  return %p : tensor<?xi64>
}

// -----

func.func @dim_out_of_range(%m: tensor<8xi1>) -> index {
  %c = arith.constant -1 : index
  %i = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  // expected-error @+1 {{dimension index -1 is out of range for a tensor of rank 1}}
  %n = tensor.dim %i, %c : tensor<?xi64>
  return %n : index
}

// -----

func.func @dim_past_rank(%m: tensor<8xi1>) -> index {
  %c = arith.constant 1 : index
  %i = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  // expected-error @+1 {{dimension index 1 is out of range for a tensor of rank 1}}
  %n = tensor.dim %i, %c : tensor<?xi64>
  return %n : index
}
