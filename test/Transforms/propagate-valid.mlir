// --sift-propagate-valid: a random stream that only a top-k's valid prefix
// reads (through element-wise ops used by nothing else) is computed for
// that prefix (a stream drawn before the count moves down to its reader);
// a stream read elsewhere, a top-k whose values are used, a chain through
// an op that may trap, a top-k along another axis or a count computed
// after the stream's reader keep the whole stream.
//
// RUN: tensor-opt %s -split-input-file --sift-propagate-valid | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// The keys of randperm(count)[:k] as --sift-staticize makes them: the
// stream's words flipped to signed order, masked past the count.
// CHECK-LABEL: func.func @randperm_prefix
// CHECK-SAME: (%[[SEED:.*]]: i64, %[[N:.*]]: index)
// CHECK: sift.random_bits %[[SEED]] valid(%[[N]] : index) : tensor<1000xi32>
// CHECK: sift.topk %{{.*}} k(100) valid(%[[N]] : index) smallest
func.func @randperm_prefix(%seed: i64, %n: index) -> tensor<100xi64> {
  %min = arith.constant dense<-2147483648> : tensor<1000xi32>
  %max = arith.constant dense<2147483647> : tensor<1000xi32>
  %bits = sift.random_bits %seed : tensor<1000xi32>
  %flip = arith.xori %bits, %min : tensor<1000xi32>
  %e = tensor.empty() : tensor<1000xindex>
  %iota = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%e : tensor<1000xindex>) {
  ^bb0(%o: index):
    %i = linalg.index 0 : index
    linalg.yield %i : index
  } -> tensor<1000xindex>
  %nn = tensor.splat %n : tensor<1000xindex>
  %in = arith.cmpi ult, %iota, %nn : tensor<1000xindex>
  %keys = arith.select %in, %flip, %max : tensor<1000xi1>, tensor<1000xi32>
  %v, %i = sift.topk %keys k(100) valid(%n : index) smallest
      : tensor<1000xi32> -> tensor<100xi32>, tensor<100xi64>
  return %i : tensor<100xi64>
}

// -----

// Batched: per-row streams, one count per row, a linalg.generic chain.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @per_row
// CHECK-SAME: (%[[SEEDS:.*]]: tensor<8xi64>, %[[N:.*]]: tensor<8xindex>)
// CHECK: sift.random_bits %[[SEEDS]] valid(%[[N]] : tensor<8xindex>) : tensor<8xi64> -> tensor<8x500xi32>
func.func @per_row(%seeds: tensor<8xi64>, %n: tensor<8xindex>) -> tensor<8x50xi64> {
  %c = arith.constant -2147483648 : i32
  %bits = sift.random_bits %seeds : tensor<8xi64> -> tensor<8x500xi32>
  %e = tensor.empty() : tensor<8x500xi32>
  %keys = linalg.generic {indexing_maps = [#id2, #id2],
                          iterator_types = ["parallel", "parallel"]}
      ins(%bits : tensor<8x500xi32>) outs(%e : tensor<8x500xi32>) {
  ^bb0(%b: i32, %o: i32):
    %x = arith.xori %b, %c : i32
    linalg.yield %x : i32
  } -> tensor<8x500xi32>
  %v, %i = sift.topk %keys k(50) valid(%n : tensor<8xindex>) smallest
      : tensor<8x500xi32> -> tensor<8x50xi32>, tensor<8x50xi64>
  return %i : tensor<8x50xi64>
}

// -----

// The stream is also returned: every word is read.
// CHECK-LABEL: func.func @stream_used_elsewhere
// CHECK: sift.random_bits %arg0 : tensor<1000xi32>
func.func @stream_used_elsewhere(%seed: i64, %n: index)
    -> (tensor<100xi64>, tensor<1000xi32>) {
  %bits = sift.random_bits %seed : tensor<1000xi32>
  %v, %i = sift.topk %bits k(100) valid(%n : index) smallest
      : tensor<1000xi32> -> tensor<100xi32>, tensor<100xi64>
  return %i, %bits : tensor<100xi64>, tensor<1000xi32>
}

// -----

// The top-k's values are returned: those past the count are the keys'.
// CHECK-LABEL: func.func @values_used
// CHECK: sift.random_bits %arg0 : tensor<1000xi32>
func.func @values_used(%seed: i64, %n: index) -> tensor<100xi32> {
  %bits = sift.random_bits %seed : tensor<1000xi32>
  %v, %i = sift.topk %bits k(100) valid(%n : index) smallest
      : tensor<1000xi32> -> tensor<100xi32>, tensor<100xi64>
  return %v : tensor<100xi32>
}

// -----

// A division on unspecified words may trap: the chain stops there.
// CHECK-LABEL: func.func @division
// CHECK: sift.random_bits %arg0 : tensor<1000xi32>
func.func @division(%seed: i64, %n: index, %d: tensor<1000xi32>) -> tensor<100xi64> {
  %bits = sift.random_bits %seed : tensor<1000xi32>
  %q = arith.divsi %d, %bits : tensor<1000xi32>
  %v, %i = sift.topk %q k(100) valid(%n : index) smallest
      : tensor<1000xi32> -> tensor<100xi32>, tensor<100xi64>
  return %i : tensor<100xi64>
}

// -----

// A top-k along the rows ranks a prefix of each column, not of the
// stream's lines.
// CHECK-LABEL: func.func @other_axis
// CHECK: sift.random_bits %arg0 : tensor<64x8xi32>
func.func @other_axis(%seed: i64, %n: tensor<8xindex>) -> tensor<4x8xi64> {
  %bits = sift.random_bits %seed : tensor<64x8xi32>
  %v, %i = sift.topk %bits k(4) valid(%n : tensor<8xindex>) smallest {dim = 0 : i64}
      : tensor<64x8xi32> -> tensor<4x8xi32>, tensor<4x8xi64>
  return %i : tensor<4x8xi64>
}

// -----

// The stream is drawn before the count is computed: it moves down to its
// reader, the top-k, where the count is known.
// CHECK-LABEL: func.func @count_after_stream
// CHECK: %[[N:.*]] = arith.index_cast
// CHECK-NEXT: sift.random_bits %arg0 valid(%[[N]] : index) : tensor<1000xi32>
// CHECK-NEXT: sift.topk
func.func @count_after_stream(%seed: i64, %m: tensor<1000xi1>) -> tensor<100xi64> {
  %bits = sift.random_bits %seed : tensor<1000xi32>
  %c = sift.count %m : tensor<1000xi1> -> tensor<i64>
  %c64 = tensor.extract %c[] : tensor<i64>
  %n = arith.index_cast %c64 : i64 to index
  %v, %i = sift.topk %bits k(100) valid(%n : index) smallest
      : tensor<1000xi32> -> tensor<100xi32>, tensor<100xi64>
  return %i : tensor<100xi64>
}

// -----

// The stream's reader runs before the count is known: nothing moves.
// CHECK-LABEL: func.func @count_after_reader
// CHECK: sift.random_bits %arg0 : tensor<1000xi32>
func.func @count_after_reader(%seed: i64, %m: tensor<1000xi1>) -> tensor<100xi64> {
  %min = arith.constant dense<-2147483648> : tensor<1000xi32>
  %bits = sift.random_bits %seed : tensor<1000xi32>
  %keys = arith.xori %bits, %min : tensor<1000xi32>
  %c = sift.count %m : tensor<1000xi1> -> tensor<i64>
  %c64 = tensor.extract %c[] : tensor<i64>
  %n = arith.index_cast %c64 : i64 to index
  %v, %i = sift.topk %keys k(100) valid(%n : index) smallest
      : tensor<1000xi32> -> tensor<100xi32>, tensor<100xi64>
  return %i : tensor<100xi64>
}
