// What --sift-staticize cannot bound or does not support is an error at the
// op, saying why and how to supply a bound.
// RUN: tensor-opt %s -split-input-file -verify-diagnostics --sift-staticize

func.func @unbounded_argument(%n: index, %seed: i64) -> tensor<?xi64> {
  // expected-error @+1 {{'sift.randperm' op has a data-dependent result size with no upper bound derivable from the program (--sift-staticize needs one to pad to); bound the size, e.g. with arith.minsi against a constant, or annotate the function argument it comes from with {sift.bound = N : i64}}}
  %p = sift.randperm %n, %seed : tensor<?xi64>
  return %p : tensor<?xi64>
}

// -----

// expected-error @+1 {{'func.func' op argument #0 has a dynamic shape 'tensor<?xf32>': --sift-staticize needs static tensor arguments; pass a padded static tensor and a count (an index argument annotated {sift.bound = N : i64}) instead}}
func.func @dynamic_argument(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
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

// -----

func.func @captured_in_body(%m: tensor<8xi1>, %x: tensor<8xf32>) -> tensor<8xi64> {
  %v = sift.masked_select %x, %m : tensor<8xf32>, tensor<8xi1> -> tensor<?xf32>
  %e = tensor.empty() : tensor<8xi64>
  // expected-error @+1 {{uses a data-dependent tensor inside its body other than by tensor.extract or tensor.dim, which --sift-staticize does not support; pass it as an input instead}}
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      outs(%e : tensor<8xi64>) {
    ^bb0(%o: i64):
      %c = sift.count %v : tensor<?xf32> -> tensor<i64>
      %n = tensor.extract %c[] : tensor<i64>
      linalg.yield %n : i64
  } -> tensor<8xi64>
  return %r : tensor<8xi64>
}

// -----

func.func @carried_growing(%m: tensor<8xi1>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %idx = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  // Each iteration appends: no bound holds for every iteration.
  // expected-error @+1 {{'scf.for' op carries a data-dependent tensor whose bound may grow from one iteration to the next (the tensor it yields is not bounded by its initial value's bound), which --sift-staticize does not support}}
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %idx) -> tensor<?xi64> {
    %more = tensor.concat dim(0) %acc, %idx : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
    scf.yield %more : tensor<?xi64>
  }
  return %r : tensor<?xi64>
}

// -----

func.func @bounded_while_result(%m: tensor<8xi1>, %c: i1) -> tensor<?xi64> {
  %idx = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  // expected-error @+1 {{'scf.while' op carries data-dependent tensors: its trip count is not bounded}}
  %r = scf.while (%x = %idx) : (tensor<?xi64>) -> tensor<?xi64> {
    scf.condition(%c) %x : tensor<?xi64>
  } do {
  ^bb0(%y: tensor<?xi64>):
    scf.yield %y : tensor<?xi64>
  }
  return %r : tensor<?xi64>
}

// -----

func.func @topk_past_bound(%m: tensor<8xi1>, %x: tensor<8xf32>) -> tensor<10xf32> {
  %v = sift.masked_select %x, %m : tensor<8xf32>, tensor<8xi1> -> tensor<?xf32>
  // expected-error @+1 {{takes k = 10 rows of a data-dependent tensor of at most 8 rows: the program fails at run time on every input}}
  %t, %i = sift.topk %v k(10) : tensor<?xf32> -> tensor<10xf32>, tensor<10xi64>
  return %t : tensor<10xf32>
}

// -----

func.func @reshape_not_leading(%m: tensor<8xi1>) -> tensor<2x?xi64> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %idx = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %h = arith.divui %n, %c2 : index
  // expected-error @+1 {{'tensor.expand_shape' op result type 'tensor<2x?xi64>' is dynamic beyond dimension 0, which --sift-staticize does not support yet}}
  %p = tensor.expand_shape %idx [[0, 1]] output_shape [2, %h] : tensor<?xi64> into tensor<2x?xi64>
  return %p : tensor<2x?xi64>
}

// -----

// A selection along a later dimension is supported through elementwise
// ops, slices, concatenations, gathers of its static rows and linalg ops; a
// sort along the data-dependent dimension is not.
func.func @sort_of_later_dimension(%x: tensor<2x8xi64>, %m: tensor<8xi1>) -> tensor<2x?xi64> {
  %c0 = arith.constant 0 : index
  %pos = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  %e0 = tensor.empty() : tensor<8x2xi64>
  %t = linalg.transpose ins(%x : tensor<2x8xi64>) outs(%e0 : tensor<8x2xi64>) permutation = [1, 0]
  %rows = sift.gather %t[%pos] : tensor<8x2xi64>, tensor<?xi64> -> tensor<?x2xi64>
  %n = tensor.dim %rows, %c0 : tensor<?x2xi64>
  %e1 = tensor.empty(%n) : tensor<2x?xi64>
  %sel = linalg.transpose ins(%rows : tensor<?x2xi64>) outs(%e1 : tensor<2x?xi64>) permutation = [1, 0]
  // expected-error @+1 {{'sift.sort' op uses a data-dependent tensor whose data-dependent dimension is not the first ('tensor<2x?xi64>'), which --sift-staticize supports only as a result of the function or through elementwise ops, slices, concatenations, linalg ops, gathers of static rows and expansions that insert unit dimensions}}
  %s:2 = sift.sort %sel : tensor<2x?xi64> -> tensor<2x?xi64>, tensor<2x?xi64>
  return %s#0 : tensor<2x?xi64>
}
