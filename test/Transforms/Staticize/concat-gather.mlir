// tensor.concat of bounded pieces keeps the valid rows contiguous (no holes);
// gathers by bounded indices are bounded; a bounded source makes its padding
// rows invalid lanes (fill).
// RUN: tensor-opt %s --sift-staticize --sift-verify-static | FileCheck %s

// CHECK-LABEL: func @concat_pieces
// CHECK-SAME: -> (tensor<80xi64>, tensor<i64>)
func.func @concat_pieces(%a: tensor<30xi1>, %b: tensor<50xi1>) -> tensor<?xi64> {
  // CHECK: %[[IA:.*]], %[[CA:.*]] = sift.compact %{{.*}} : tensor<30xi1>
  // CHECK: %[[NA:.*]] = arith.index_cast %{{.*}} : i64 to index
  // CHECK: %[[IB:.*]], %[[CB:.*]] = sift.compact %{{.*}} : tensor<50xi1>
  // CHECK: %[[NB:.*]] = arith.index_cast %{{.*}} : i64 to index
  %ia = sift.nonzero %a : tensor<30xi1> -> tensor<?xi64>
  %ib = sift.nonzero %b : tensor<50xi1> -> tensor<?xi64>
  // The static concatenation, then row i taken from piece p at
  // base_p + (i - start_p) when start_p <= i < start_p + count_p.
  // CHECK: %[[ALL:.*]] = tensor.concat dim(0) %[[IA]], %[[IB]] : (tensor<30xi64>, tensor<50xi64>) -> tensor<80xi64>
  // CHECK: %[[END_A:.*]] = arith.addi %{{.*}}, %[[NA]] : index
  // CHECK: %[[END_B:.*]] = arith.addi %[[END_A]], %[[NB]] : index
  // CHECK: %[[ROWS:.*]] = sift.gather %[[ALL]][%{{.*}}] : tensor<80xi64>, tensor<80xi64> -> tensor<80xi64>
  // CHECK: %[[TOTAL:.*]] = arith.index_cast %[[END_B]] : index to i64
  // CHECK: %[[T:.*]] = tensor.from_elements %[[TOTAL]] : tensor<i64>
  // CHECK: return %[[ROWS]], %[[T]]
  %c = tensor.concat dim(0) %ia, %ib : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  return %c : tensor<?xi64>
}

// Two groups that fill each other up to K = 10 (the sampler's pattern):
// the pieces are padded to 5 and 10, but their valid rows together are at
// most 10 by cases, so the result is 10 rows, not 15.
// CHECK-LABEL: func @concat_fill_up
// CHECK-SAME: -> (tensor<10xi64>, tensor<i64>)
// CHECK: %[[ALL:.*]] = tensor.concat dim(0) %{{.*}}, %{{.*}} : (tensor<5xi64>, tensor<10xi64>) -> tensor<15xi64>
// CHECK: sift.gather %[[ALL]][%{{.*}}] : tensor<15xi64>, tensor<10xi64> -> tensor<10xi64>
func.func @concat_fill_up(%a: tensor<30xi1>, %b: tensor<50xi1>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %c10 = arith.constant 10 : index
  %ia = sift.nonzero %a : tensor<30xi1> -> tensor<?xi64>
  %ib = sift.nonzero %b : tensor<50xi1> -> tensor<?xi64>
  %na = tensor.dim %ia, %c0 : tensor<?xi64>
  %nb = tensor.dim %ib, %c0 : tensor<?xi64>
  // ka = min(na, 5); kb = b short ? min(nb, 5) : min(nb, 10 - ka)
  %ka = arith.minui %na, %c5 : index
  %kb0 = arith.minui %nb, %c5 : index
  %short = arith.cmpi ult, %ka, %c5 : index
  %rest = arith.subi %c10, %ka : index
  %kb1 = arith.minui %nb, %rest : index
  %kb = arith.select %short, %kb1, %kb0 : index
  %pa = tensor.extract_slice %ia[0] [%ka] [1] : tensor<?xi64> to tensor<?xi64>
  %pb = tensor.extract_slice %ib[0] [%kb] [1] : tensor<?xi64> to tensor<?xi64>
  %c = tensor.concat dim(0) %pa, %pb : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  return %c : tensor<?xi64>
}

// CHECK-LABEL: func @gather_rows
// CHECK-SAME: -> (tensor<64x16xf32>, tensor<i64>)
func.func @gather_rows(%m: tensor<64xi1>, %x: tensor<64x16xf32>) -> tensor<?x16xf32> {
  // CHECK: %[[I:.*]], %{{.*}} = sift.compact
  // CHECK: sift.gather %{{.*}}[%[[I]]] : tensor<64x16xf32>, tensor<64xi64> -> tensor<64x16xf32>
  %i = sift.nonzero %m : tensor<64xi1> -> tensor<?xi64>
  %r = sift.gather %x[%i] : tensor<64x16xf32>, tensor<?xi64> -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// A static index tensor into a bounded source: indices at or past the
// source's count are invalid (-1), as they are out of range in the dynamic
// program.
// CHECK-LABEL: func @gather_from_bounded
// CHECK-SAME: -> tensor<4xi64>
func.func @gather_from_bounded(%m: tensor<64xi1>, %at: tensor<4xi64>) -> tensor<4xi64> {
  // CHECK: %[[I:.*]], %{{.*}} = sift.compact
  // CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
  // CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
  // CHECK: %[[LIMIT:.*]] = tensor.splat %[[N64]] : tensor<4xi64>
  // CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %[[LIMIT]] : tensor<4xi64>
  // CHECK: %[[AT:.*]] = arith.select %[[IN]], %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xi64>
  // CHECK: %[[R:.*]] = sift.gather %[[I]][%[[AT]]] {fill = 7 : i64} : tensor<64xi64>, tensor<4xi64> -> tensor<4xi64>
  // CHECK: return %[[R]]
  %i = sift.nonzero %m : tensor<64xi1> -> tensor<?xi64>
  %r = sift.gather %i[%at] {fill = 7 : i64} : tensor<?xi64>, tensor<4xi64> -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// Boolean-mask indexing of rows: compaction of the mask, then a gather.
// CHECK-LABEL: func @masked_rows
// CHECK-SAME: -> (tensor<100x4xf32>, tensor<i64>)
func.func @masked_rows(%boxes: tensor<100x4xf32>, %keep: tensor<100xi1>) -> tensor<?x4xf32> {
  // CHECK: %[[I:.*]], %{{.*}} = sift.compact %{{.*}} : tensor<100xi1> -> tensor<100xi64>, tensor<i64>
  // CHECK: sift.gather %{{.*}}[%[[I]]] : tensor<100x4xf32>, tensor<100xi64> -> tensor<100x4xf32>
  %r = sift.masked_select %boxes, %keep : tensor<100x4xf32>, tensor<100xi1> -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// A full-shape mask flattens both operands first.
// CHECK-LABEL: func @masked_elements
// CHECK-SAME: -> (tensor<12xf32>, tensor<i64>)
func.func @masked_elements(%x: tensor<3x4xf32>, %m: tensor<3x4xi1>) -> tensor<?xf32> {
  // CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<3x4xi1> into tensor<12xi1>
  // CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<3x4xf32> into tensor<12xf32>
  %r = sift.masked_select %x, %m : tensor<3x4xf32>, tensor<3x4xi1> -> tensor<?xf32>
  return %r : tensor<?xf32>
}
