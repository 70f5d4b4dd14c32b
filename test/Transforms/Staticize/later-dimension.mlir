// Selections along a later dimension (`edge_index[:, mask]`): the transposes
// that bring the dimension first and back move down through their
// consumers, so that everything is padded along dimension 0; a returned
// transpose returns the padded value transposed, its count along the
// dimension `sift.bounded_dims` names.
// RUN: tensor-opt %s --sift-staticize --sift-verify-static -split-input-file | FileCheck %s

// CHECK-LABEL: func @edges
// CHECK-SAME: -> (tensor<2x8xi64>, tensor<i64>, tensor<8xi64>, tensor<i64>, tensor<2x13xi64>, tensor<i64>)
// CHECK-SAME: sift.bounded_dims = array<i64: 1, 0, 1>
// CHECK-SAME: sift.bounded_results = array<i64: 0, 2, 4>
// CHECK: %[[I:.*]], %{{.*}} = sift.compact
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x8xi64>) outs(%{{.*}} : tensor<8x2xi64>) permutation = [1, 0]
// CHECK: %[[ROWS:.*]] = sift.gather %[[T]][%[[I]]] : tensor<8x2xi64>, tensor<8xi64> -> tensor<8x2xi64>
// The shift is computed on the rows, a splat of their shape.
// CHECK: %[[TEN:.*]] = tensor.splat %{{.*}} : tensor<8x2xi64>
// CHECK: %[[SHIFT:.*]] = arith.addi %[[ROWS]], %[[TEN]] : tensor<8x2xi64>
// The row `shift[1]` is column 1 of the rows.
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [8, 1] [1, 1] : tensor<8x2xi64> to tensor<8x1xi64>
// The self loops are transposed once and appended as rows.
// CHECK: %[[LOOPS:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x5xi64>) outs(%{{.*}} : tensor<5x2xi64>) permutation = [1, 0]
// Results: the padded rows transposed back.
// CHECK: linalg.transpose ins(%[[SHIFT]] : tensor<8x2xi64>) outs(%{{.*}} : tensor<2x8xi64>) permutation = [1, 0]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<13x2xi64>) outs(%{{.*}} : tensor<2x13xi64>) permutation = [1, 0]
func.func @edges(%ei: tensor<2x8xi64>, %w: tensor<8xf32>, %loops: tensor<2x5xi64>)
    -> (tensor<2x?xi64>, tensor<?xi64>, tensor<2x?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = arith.constant dense<0.5> : tensor<8xf32>
  %m = arith.cmpf oge, %w, %p : tensor<8xf32>
  %pos = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  %e0 = tensor.empty() : tensor<8x2xi64>
  %t = linalg.transpose ins(%ei : tensor<2x8xi64>) outs(%e0 : tensor<8x2xi64>) permutation = [1, 0]
  %rows = sift.gather %t[%pos] : tensor<8x2xi64>, tensor<?xi64> -> tensor<?x2xi64>
  %n = tensor.dim %rows, %c0 : tensor<?x2xi64>
  %e1 = tensor.empty(%n) : tensor<2x?xi64>
  %sel = linalg.transpose ins(%rows : tensor<?x2xi64>) outs(%e1 : tensor<2x?xi64>) permutation = [1, 0]
  %n2 = tensor.dim %sel, %c1 : tensor<2x?xi64>
  %ten = arith.constant 10 : i64
  %s = tensor.splat %ten[%n2] : tensor<2x?xi64>
  %shift = arith.addi %sel, %s : tensor<2x?xi64>
  %col = tensor.extract_slice %shift[1, 0] [1, %n2] [1, 1] : tensor<2x?xi64> to tensor<?xi64>
  %cat = tensor.concat dim(1) %sel, %loops : (tensor<2x?xi64>, tensor<2x5xi64>) -> tensor<2x?xi64>
  return %shift, %col, %cat : tensor<2x?xi64>, tensor<?xi64>, tensor<2x?xi64>
}

// -----

// A transpose of a transpose is one (here none), and a linalg op reads the
// rows through a permuted map.
// CHECK: #[[IN:map[0-9]*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func @twice
// CHECK-SAME: -> (tensor<8x2xi64>, tensor<i64>, tensor<8xi64>, tensor<i64>)
// CHECK-NOT: sift.bounded_dims
// CHECK: %[[ROWS:.*]] = sift.gather
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.*}}], iterator_types = ["reduction", "parallel"]} ins(%[[ROWS]] : tensor<8x2xi64>)
// CHECK-NOT: linalg.transpose
// CHECK: return %[[ROWS]]
func.func @twice(%x: tensor<8x2xi64>, %m: tensor<8xi1>) -> (tensor<?x2xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %pos = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  %rows = sift.gather %x[%pos] : tensor<8x2xi64>, tensor<?xi64> -> tensor<?x2xi64>
  %n = tensor.dim %rows, %c0 : tensor<?x2xi64>
  %e1 = tensor.empty(%n) : tensor<2x?xi64>
  %t = linalg.transpose ins(%rows : tensor<?x2xi64>) outs(%e1 : tensor<2x?xi64>) permutation = [1, 0]
  %e2 = tensor.empty(%n) : tensor<?x2xi64>
  %back = linalg.transpose ins(%t : tensor<2x?xi64>) outs(%e2 : tensor<?x2xi64>) permutation = [1, 0]
  %z = arith.constant 0 : i64
  %e3 = tensor.empty(%n) : tensor<?xi64>
  %acc = linalg.fill ins(%z : i64) outs(%e3 : tensor<?xi64>) -> tensor<?xi64>
  %sum = linalg.reduce ins(%t : tensor<2x?xi64>) outs(%acc : tensor<?xi64>) dimensions = [0]
    (%a: i64, %b: i64) {
      %y = arith.addi %a, %b : i64
      linalg.yield %y : i64
    }
  return %back, %sum : tensor<?x2xi64>, tensor<?xi64>
}

// -----

// `sel % 3` as PyTorch's floor modulo: the compare of its two splats is a
// splat, so that every op of it is computed on the rows.
// CHECK-LABEL: func @floor_mod
// CHECK-SAME: -> (tensor<2x8xi64>, tensor<i64>)
// CHECK-SAME: sift.bounded_dims = array<i64: 1>
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK: tensor.splat %[[NEG]] : tensor<8x2xi1>
// CHECK: %[[R:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x2xi1>, tensor<8x2xi64>
// CHECK: linalg.transpose ins(%[[R]] : tensor<8x2xi64>) outs(%{{.*}} : tensor<2x8xi64>) permutation = [1, 0]
func.func @floor_mod(%rows8: tensor<8x2xi64>, %m: tensor<8xi1>) -> tensor<2x?xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pos = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  %rows = sift.gather %rows8[%pos] : tensor<8x2xi64>, tensor<?xi64> -> tensor<?x2xi64>
  %n = tensor.dim %rows, %c0 : tensor<?x2xi64>
  %e1 = tensor.empty(%n) : tensor<2x?xi64>
  %sel = linalg.transpose ins(%rows : tensor<?x2xi64>) outs(%e1 : tensor<2x?xi64>) permutation = [1, 0]
  %three = arith.constant 3 : i64
  %zero = arith.constant 0 : i64
  %n1 = tensor.dim %sel, %c1 : tensor<2x?xi64>
  %s3 = tensor.splat %three[%n1] : tensor<2x?xi64>
  %n2 = tensor.dim %sel, %c1 : tensor<2x?xi64>
  %s0 = tensor.splat %zero[%n2] : tensor<2x?xi64>
  %r = arith.remsi %sel, %s3 : tensor<2x?xi64>
  %nz = arith.cmpi ne, %r, %s0 : tensor<2x?xi64>
  %rneg = arith.cmpi slt, %r, %s0 : tensor<2x?xi64>
  %dneg = arith.cmpi slt, %s3, %s0 : tensor<2x?xi64>
  %x = arith.xori %rneg, %dneg : tensor<2x?xi1>
  %fix = arith.andi %nz, %x : tensor<2x?xi1>
  %up = arith.addi %r, %s3 : tensor<2x?xi64>
  %out = arith.select %fix, %up, %r : tensor<2x?xi1>, tensor<2x?xi64>
  return %out : tensor<2x?xi64>
}

// -----

// `torch.stack([col, row])` of a selection's columns: each 1-D piece gains
// a leading unit (an expansion that makes it dynamic past dimension 0),
// then the pieces are concatenated along dimension 0. The expansion adds
// the unit last instead and is transposed, so the concatenation is along
// dimension 1 of padded rows, as for `torch.stack([col, row], 1)`. The
// gather of rows [1, 0, 1] of the transposed selection (`e[[1, 0, 1]]`) is
// a gather of columns of each padded row.
// CHECK-LABEL: func @stack_and_swap
// CHECK-SAME: -> (tensor<2x8xi64>, tensor<i64>, tensor<8x2xi64>, tensor<i64>, tensor<3x8xi64>, tensor<i64>)
// CHECK-SAME: sift.bounded_dims = array<i64: 1, 0, 1>
// CHECK: %[[ROWS:.*]] = sift.gather %{{.*}}[%{{.*}}] : tensor<8x2xi64>, tensor<8xi64> -> tensor<8x2xi64>
// CHECK: %[[R1:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
// CHECK: %[[R0:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
// CHECK: %[[ST:.*]] = tensor.concat dim(1) %[[R0]], %[[R1]] : (tensor<8x1xi64>, tensor<8x1xi64>) -> tensor<8x2xi64>
// CHECK: %[[ST1:.*]] = tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<8x1xi64>, tensor<8x1xi64>) -> tensor<8x2xi64>
// CHECK: %[[SWAP:.*]] = arith.constant dense<[1, 0, 1]> : tensor<3xi64>
// CHECK: %[[IDX:.*]] = linalg.broadcast ins(%[[SWAP]] : tensor<3xi64>) outs(%{{.*}} : tensor<8x3xi64>) dimensions = [0]
// CHECK: %[[SW:.*]] = sift.gather %[[ROWS]][%[[IDX]]] {batch_dims = 1 : i64} : tensor<8x2xi64>, tensor<8x3xi64> -> tensor<8x3xi64>
// CHECK: %[[T0:.*]] = linalg.transpose ins(%[[ST]] : tensor<8x2xi64>) outs(%{{.*}} : tensor<2x8xi64>) permutation = [1, 0]
// CHECK: %[[T2:.*]] = linalg.transpose ins(%[[SW]] : tensor<8x3xi64>) outs(%{{.*}} : tensor<3x8xi64>) permutation = [1, 0]
// CHECK: return %[[T0]], %{{.*}}, %[[ST1]], %{{.*}}, %[[T2]], %{{.*}} :
func.func @stack_and_swap(%x: tensor<8x2xi64>, %m: tensor<8xi1>) -> (tensor<2x?xi64>, tensor<?x2xi64>, tensor<3x?xi64>) {
  %c0 = arith.constant 0 : index
  %pos = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  %rows = sift.gather %x[%pos] : tensor<8x2xi64>, tensor<?xi64> -> tensor<?x2xi64>
  %n = tensor.dim %rows, %c0 : tensor<?x2xi64>
  %row = tensor.extract_slice %rows[0, 0] [%n, 1] [1, 1] : tensor<?x2xi64> to tensor<?xi64>
  %col = tensor.extract_slice %rows[0, 1] [%n, 1] [1, 1] : tensor<?x2xi64> to tensor<?xi64>
  %r0 = tensor.expand_shape %row [[0, 1]] output_shape [1, %n] : tensor<?xi64> into tensor<1x?xi64>
  %r1 = tensor.expand_shape %col [[0, 1]] output_shape [1, %n] : tensor<?xi64> into tensor<1x?xi64>
  %st = tensor.concat dim(0) %r1, %r0 : (tensor<1x?xi64>, tensor<1x?xi64>) -> tensor<2x?xi64>
  %s0 = tensor.expand_shape %row [[0, 1]] output_shape [%n, 1] : tensor<?xi64> into tensor<?x1xi64>
  %s1 = tensor.expand_shape %col [[0, 1]] output_shape [%n, 1] : tensor<?xi64> into tensor<?x1xi64>
  %st1 = tensor.concat dim(1) %s1, %s0 : (tensor<?x1xi64>, tensor<?x1xi64>) -> tensor<?x2xi64>
  %e1 = tensor.empty(%n) : tensor<2x?xi64>
  %t = linalg.transpose ins(%rows : tensor<?x2xi64>) outs(%e1 : tensor<2x?xi64>) permutation = [1, 0]
  %swap = arith.constant dense<[1, 0, 1]> : tensor<3xi64>
  %sw = sift.gather %t[%swap] : tensor<2x?xi64>, tensor<3xi64> -> tensor<3x?xi64>
  return %st, %st1, %sw : tensor<2x?xi64>, tensor<?x2xi64>, tensor<3x?xi64>
}
