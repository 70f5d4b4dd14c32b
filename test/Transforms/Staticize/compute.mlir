// Elementwise ops on bounded tensors run on the padded form; reductions
// over bounded rows keep the running value on padding rows, whatever the
// body computes; sorts
// key the padding rows so that they come last; losses ignore them.
// RUN: tensor-opt %s --sift-staticize --sift-verify-static | FileCheck %s

// CHECK-LABEL: func @elementwise
// CHECK-SAME: -> (tensor<32x4xf32>, tensor<i64>)
func.func @elementwise(%m: tensor<32xi1>, %x: tensor<32x4xf32>) -> tensor<?x4xf32> {
  %rows = sift.masked_select %x, %m : tensor<32x4xf32>, tensor<32xi1> -> tensor<?x4xf32>
  // CHECK: %[[E:.*]] = math.exp %{{.*}} : tensor<32x4xf32>
  // CHECK: %[[A:.*]] = arith.addf %[[E]], %{{.*}} : tensor<32x4xf32>
  %e = math.exp %rows : tensor<?x4xf32>
  %a = arith.addf %e, %rows : tensor<?x4xf32>
  return %a : tensor<?x4xf32>
}

// CHECK-LABEL: func @sum_and_max
func.func @sum_and_max(%m: tensor<32xi1>, %x: tensor<32xf32>) -> (tensor<f32>, tensor<f32>) {
  %v = sift.masked_select %x, %m : tensor<32xf32>, tensor<32xi1> -> tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  // CHECK: %[[VALID:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<32xi64>
  // CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}} ins(%{{.*}}, %[[VALID]] : tensor<32xf32>, tensor<32xi1>)
  // CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OK:.*]]: i1, %[[ACC:.*]]: f32):
  // CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: %[[C:.*]] = arith.select %[[OK]], %[[IN]], %[[ZERO]] : f32
  // CHECK-NEXT: %[[S:.*]] = arith.addf %[[C]], %[[ACC]] : f32
  // CHECK-NEXT: linalg.yield %[[S]] : f32
  %sum = linalg.reduce ins(%v : tensor<?xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  %ninf = arith.constant 0xFF800000 : f32
  %acc2 = linalg.fill ins(%ninf : f32) outs(%init : tensor<f32>) -> tensor<f32>
  // CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}} ins(%{{.*}}, %{{.*}} : tensor<32xf32>, tensor<32xi1>)
  // CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
  // CHECK-NEXT: %[[M:.*]] = arith.select %{{.*}}, %{{.*}}, %[[NINF]] : f32
  // CHECK-NEXT: arith.maximumf %[[M]], %{{.*}} : f32
  %max = linalg.reduce ins(%v : tensor<?xf32>) outs(%acc2 : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.maximumf %a, %b : f32
      linalg.yield %s : f32
    }
  return %sum, %max : tensor<f32>, tensor<f32>
}

// Descending sort: padding rows get -inf (and stay behind a real -inf,
// the sort being stable); ascending argsort of integers: the largest value.
// CHECK-LABEL: func @sorts
// CHECK: %[[COUNT:.*]] = arith.index_cast %{{.*}} : i64 to index
func.func @sorts(%m: tensor<16xi1>, %x: tensor<16xf32>, %l: tensor<16xi64>)
    -> (tensor<?xf32>, tensor<?xi64>, tensor<3xf32>, tensor<?xi64>) {
  %v = sift.masked_select %x, %m : tensor<16xf32>, tensor<16xi1> -> tensor<?xf32>
  %w = sift.masked_select %l, %m : tensor<16xi64>, tensor<16xi1> -> tensor<?xi64>
  // CHECK: %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<16xf32>
  // CHECK: %[[K1:.*]] = arith.select %{{.*}}, %{{.*}}, %[[NINF]]
  // CHECK: sift.sort %[[K1]] descending : tensor<16xf32> -> tensor<16xf32>, tensor<16xi64>
  %s:2 = sift.sort %v descending : tensor<?xf32> -> tensor<?xf32>, tensor<?xi64>
  // CHECK: %[[IMAX:.*]] = arith.constant dense<9223372036854775807> : tensor<16xi64>
  // CHECK: %[[K2:.*]] = arith.select %{{.*}}, %{{.*}}, %[[IMAX]]
  // CHECK: sift.argsort %[[K2]] : tensor<16xi64> -> tensor<16xi64>
  %o = sift.argsort %w : tensor<?xi64> -> tensor<?xi64>
  // topk largest: padding is the smallest value, and only the valid rows
  // are ranked (`valid`, the selection's count).
  // CHECK: %[[K3:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<16xi1>, tensor<16xf32>
  // CHECK: sift.topk %[[K3]] k(3) valid(%[[COUNT]] : index) : tensor<16xf32> -> tensor<3xf32>, tensor<3xi64>
  %t:2 = sift.topk %v k(3) : tensor<?xf32> -> tensor<3xf32>, tensor<3xi64>
  // A scan needs no reset: the valid prefix does not see the padding.
  // CHECK: sift.cumsum %{{.*}} : tensor<16xi64> -> tensor<16xi64>
  %c = sift.cumsum %w : tensor<?xi64> -> tensor<?xi64>
  return %s#0, %o, %t#0, %c : tensor<?xf32>, tensor<?xi64>, tensor<3xf32>, tensor<?xi64>
}

// Cross-entropy over selected rows: padding rows become ignore_index, which
// PyTorch's semantics leave out of the sum and of the mean.
// CHECK-LABEL: func @loss_on_selected
// CHECK-SAME: -> tensor<f32>
func.func @loss_on_selected(%logits: tensor<64x10xf32>, %t: tensor<64xi64>, %m: tensor<64xi1>) -> tensor<f32> {
  %x = sift.masked_select %logits, %m : tensor<64x10xf32>, tensor<64xi1> -> tensor<?x10xf32>
  %y = sift.masked_select %t, %m : tensor<64xi64>, tensor<64xi1> -> tensor<?xi64>
  // CHECK: %[[IGN:.*]] = arith.constant dense<-100> : tensor<64xi64>
  // CHECK: %[[T:.*]] = arith.select %{{.*}}, %{{.*}}, %[[IGN]] : tensor<64xi1>, tensor<64xi64>
  // CHECK: sift.cross_entropy %{{.*}}, %[[T]] reduction = mean : tensor<64x10xf32>, tensor<64xi64> -> tensor<f32>
  %l = sift.cross_entropy %x, %y reduction = mean : tensor<?x10xf32>, tensor<?xi64> -> tensor<f32>
  return %l : tensor<f32>
}

// count along the rows of a selection ((x[m] > 0).sum(1)): one count per
// padded row, bounded with the selection's count; a count of those counts
// (rank 1) leaves the padding rows out.
// CHECK-LABEL: func @count_per_row
// CHECK-SAME: -> (tensor<30xi64>, tensor<i64>, tensor<i64>)
// CHECK: %[[PER_ROW:.*]] = sift.count %{{.*}} : tensor<30x5xi1> -> tensor<30xi64>
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %[[PER_ROW]], %{{.*}} : tensor<30xi64>
// CHECK: %[[MASK:.*]] = arith.andi %[[NZ]], %{{.*}} : tensor<30xi1>
// CHECK: sift.count %[[MASK]] : tensor<30xi1> -> tensor<i64>
func.func @count_per_row(%x: tensor<30x5xf32>, %m: tensor<30xi1>) -> (tensor<?xi64>, tensor<i64>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %rows = sift.masked_select %x, %m : tensor<30x5xf32>, tensor<30xi1> -> tensor<?x5xf32>
  %n = tensor.dim %rows, %c0 : tensor<?x5xf32>
  %zs = tensor.splat %z[%n] : tensor<?x5xf32>
  %pos = arith.cmpf ogt, %rows, %zs : tensor<?x5xf32>
  %cnt = sift.count %pos : tensor<?x5xi1> -> tensor<?xi64>
  %rows_with_pos = sift.count %cnt : tensor<?xi64> -> tensor<i64>
  return %cnt, %rows_with_pos : tensor<?xi64>, tensor<i64>
}
