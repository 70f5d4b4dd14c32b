// Padding rows contribute nothing, whatever the program computes on them:
// a reduction over bounded rows keeps the running value on padding rows
// (a validity input guards the update, for any body and any combiner), an
// op that may trap sees 1 on padding rows, operands padded to different
// bounds meet at the smallest, and ops inside regions (a loop over
// range(len(idx))) read the padded form of bounded values defined above.
// RUN: tensor-opt %s --split-input-file --sift-staticize | FileCheck %s

// CHECK-LABEL: func @sum_exp
// CHECK: %[[VALID:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<64xi64>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[VALID]] : tensor<64xf32>, tensor<64xi1>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %[[OK:.*]]: i1, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[V]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[E]] : f32
// CHECK-NEXT: %[[G:.*]] = arith.select %[[OK]], %[[S]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[G]] : f32
func.func @sum_exp(%x: tensor<64xf32>, %m: tensor<64xi1>) -> tensor<f32> {
  %sel = sift.masked_select %x, %m : tensor<64xf32>, tensor<64xi1> -> tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%sel : tensor<?xf32>) outs(%acc : tensor<f32>) {
    ^bb0(%v: f32, %a: f32):
      %e = math.exp %v : f32
      %r = arith.addf %a, %e : f32
      linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A combiner with no identity (subtraction) is guarded the same way.
// CHECK-LABEL: func @sub_combiner
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xi1>)
// CHECK: arith.subf
// CHECK-NEXT: arith.select
func.func @sub_combiner(%m: tensor<8xi1>, %x: tensor<8xf32>) -> tensor<f32> {
  %v = sift.masked_select %x, %m : tensor<8xf32>, tensor<8xi1> -> tensor<?xf32>
  %init = tensor.empty() : tensor<f32>
  %r = linalg.reduce ins(%v : tensor<?xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.subf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

// -----

// Two bounded dimensions reduced in one op: one validity input each.
// CHECK-LABEL: func @outer_sum
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<16xf32>, tensor<8xi1>, tensor<16xi1>)
// CHECK: %[[BOTH:.*]] = arith.andi
// CHECK-NEXT: arith.select %[[BOTH]]
func.func @outer_sum(%m: tensor<8xi1>, %x: tensor<8xf32>, %n: tensor<16xi1>, %y: tensor<16xf32>) -> tensor<f32> {
  %a = sift.masked_select %x, %m : tensor<8xf32>, tensor<8xi1> -> tensor<?xf32>
  %b = sift.masked_select %y, %n : tensor<16xf32>, tensor<16xi1> -> tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%acc : tensor<f32>) {
    ^bb0(%u: f32, %v: f32, %o: f32):
      %p = arith.mulf %u, %v : f32
      %r = arith.addf %o, %p : f32
      linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Integer division on padded rows: the padding rows of both operands read 1.
// CHECK-LABEL: func @quotient
// CHECK: %[[ONES:.*]] = arith.constant dense<1> : tensor<16xi32>
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %{{.*}}, %[[ONES]] : tensor<16xi1>, tensor<16xi32>
// CHECK: %[[ONES2:.*]] = arith.constant dense<1> : tensor<16xi32>
// CHECK: %[[D:.*]] = arith.select %{{.*}}, %{{.*}}, %[[ONES2]] : tensor<16xi1>, tensor<16xi32>
// CHECK: arith.divsi %[[N]], %[[D]] : tensor<16xi32>
func.func @quotient(%x: tensor<16xi32>, %m: tensor<16xi1>) -> tensor<?xi32> {
  %sel = sift.masked_select %x, %m : tensor<16xi32>, tensor<16xi1> -> tensor<?xi32>
  %q = arith.divsi %sel, %sel : tensor<?xi32>
  return %q : tensor<?xi32>
}

// -----

// Operands padded to different bounds (equal sizes at run time) meet at
// the smallest bound.
// CHECK-LABEL: func @mixed_bounds
// CHECK-SAME: -> (tensor<8xf32>, tensor<i64>)
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<8xf32>
func.func @mixed_bounds(%m: tensor<8xi1>, %x: tensor<8xf32>, %n: tensor<16xi1>, %y: tensor<16xf32>) -> tensor<?xf32> {
  %a = sift.masked_select %x, %m : tensor<8xf32>, tensor<8xi1> -> tensor<?xf32>
  %b = sift.masked_select %y, %n : tensor<16xf32>, tensor<16xi1> -> tensor<?xf32>
  %s = arith.addf %a, %b : tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// A loop over range(len(idx)) that reads idx[k]: the loop stays (its trip
// count is the count), the read is of the padded indices.
// CHECK-LABEL: func @loop_over_selection
// CHECK: %[[IDX:.*]], %[[COUNT:.*]] = sift.compact
// CHECK: %[[N:.*]] = arith.index_cast
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[N]]
// CHECK: tensor.extract %[[IDX]][%[[K]]] : tensor<8xi64>
func.func @loop_over_selection(%m: tensor<8xi1>) -> tensor<8xi8> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %idx = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %one = arith.constant 1 : i8
  %zeros = arith.constant dense<0> : tensor<8xi8>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zeros) -> (tensor<8xi8>) {
    %j = tensor.extract %idx[%k] : tensor<?xi64>
    %jj = arith.index_cast %j : i64 to index
    %next = tensor.insert %one into %acc[%jj] : tensor<8xi8>
    scf.yield %next : tensor<8xi8>
  }
  return %r : tensor<8xi8>
}

// -----

// Bounded logits with static targets: the logits are fitted to the targets'
// rows, and rows past the count are ignored targets.
// CHECK-LABEL: func @ce_static_targets
// CHECK: %[[L:.*]] = sift.gather %{{.*}}[%{{.*}}] : tensor<16x3xf32>, tensor<4xi64> -> tensor<4x3xf32>
// CHECK: %[[T:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xi64>
// CHECK: sift.cross_entropy %[[L]], %[[T]] reduction = mean : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
func.func @ce_static_targets(%m: tensor<16xi1>, %x: tensor<16x3xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  %l = sift.masked_select %x, %m : tensor<16x3xf32>, tensor<16xi1> -> tensor<?x3xf32>
  %c = tensor.cast %t : tensor<4xi64> to tensor<?xi64>
  %r = sift.cross_entropy %l, %c reduction = mean : tensor<?x3xf32>, tensor<?xi64> -> tensor<f32>
  return %r : tensor<f32>
}
