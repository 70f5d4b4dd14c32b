// The tensor rules: dimensions shift by one past the batch dimension; slice
// parameters, reshape sizes and dim indices stay shared; an element read at
// shared indices is a slice, at per-row indices a generic that reads each
// row's element.
// RUN: tensor-opt %s --split-input-file --sift-batch="func=f size=3" | FileCheck %s

// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[X:.*]]: tensor<3x4x6xf32>, %[[I:.*]]: tensor<3xindex>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[ONES:.*]] = tensor.splat %[[C1]] : tensor<3xindex>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[I]], %[[ONES]] : tensor<3xindex>, tensor<3xindex>)
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: tensor.extract %[[X]][%[[ROW]], %{{.*}}, %{{.*}}] : tensor<3x4x6xf32>
// CHECK: tensor.extract_slice %[[X]][0, %[[C0]], %[[C1]]] [3, 1, 1] [1, 1, 1] : tensor<3x4x6xf32> to tensor<3xf32>
func.func @f(%x: tensor<4x6xf32>, %i: index) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %per_row = tensor.extract %x[%i, %c1] : tensor<4x6xf32>
  %shared = tensor.extract %x[%c0, %c1] : tensor<4x6xf32>
  return %per_row, %shared : f32, f32
}

// -----

// from_elements: one column per element, side by side, reshaped; splat: each
// row's scalar over the row's shape.
// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[S:.*]]: tensor<3xf32>, %[[T:.*]]: tensor<3xf32>)
// CHECK: %[[A:.*]] = tensor.expand_shape %[[S]] {{\[}}[0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
// CHECK: %[[B:.*]] = tensor.expand_shape %[[T]] {{\[}}[0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
// CHECK: %[[COLS:.*]] = tensor.concat dim(1) %[[A]], %[[B]], %{{.*}}, %{{.*}} : {{.*}} -> tensor<3x4xf32>
// CHECK: tensor.expand_shape %[[COLS]] {{\[}}[0], [1, 2]] output_shape [3, 2, 2] : tensor<3x4xf32> into tensor<3x2x2xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[S]] : tensor<3xf32>) outs(%{{.*}} : tensor<3x3x5xf32>)
func.func @f(%s: f32, %t: f32) -> (tensor<2x2xf32>, tensor<3x5xf32>) {
  %m = tensor.from_elements %s, %t, %s, %t : tensor<2x2xf32>
  %sp = tensor.splat %s : tensor<3x5xf32>
  return %m, %sp : tensor<2x2xf32>, tensor<3x5xf32>
}

// -----

// Slices take the whole batch dimension; a shared destination or operand is
// broadcast.
// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[X:.*]]: tensor<3x4x6xf32>, %[[Y:.*]]: tensor<3x2x3xf32>, %[[T:.*]]: tensor<4x6xf32>)
// CHECK: tensor.extract_slice %[[X]][0, 1, 2] [3, 2, 3] [1, 1, 1] : tensor<3x4x6xf32> to tensor<3x2x3xf32>
// CHECK: %[[TB:.*]] = linalg.generic
// CHECK-SAME: ins(%[[T]] : tensor<4x6xf32>) outs(%{{.*}} : tensor<3x4x6xf32>)
// CHECK: tensor.insert_slice %[[Y]] into %[[TB]][0, 0, 0] [3, 2, 3] [1, 1, 1] : tensor<3x2x3xf32> into tensor<3x4x6xf32>
// CHECK: tensor.concat dim(2) %[[X]], %[[X]] : (tensor<3x4x6xf32>, tensor<3x4x6xf32>) -> tensor<3x4x12xf32>
func.func @f(%x: tensor<4x6xf32>, %y: tensor<2x3xf32>, %t: tensor<4x6xf32> {sift.unbatched}) -> (tensor<2x3xf32>, tensor<4x6xf32>, tensor<4x12xf32>) {
  %s = tensor.extract_slice %x[1, 2] [2, 3] [1, 1] : tensor<4x6xf32> to tensor<2x3xf32>
  %i = tensor.insert_slice %y into %t[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x6xf32>
  %c = tensor.concat dim(1) %x, %x : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x12xf32>
  return %s, %i, %c : tensor<2x3xf32>, tensor<4x6xf32>, tensor<4x12xf32>
}

// -----

// Reshapes keep the batch dimension as a group of its own; cast keeps it; a
// size read by dim is the same for every row (the index shifts by one).
// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[X:.*]]: tensor<3x4x6xf32>)
// CHECK: tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] : tensor<3x4x6xf32> into tensor<3x24xf32>
// CHECK: tensor.expand_shape %[[X]] {{\[}}[0], [1, 2], [3]] output_shape [3, 2, 2, 6] : tensor<3x4x6xf32> into tensor<3x2x2x6xf32>
// CHECK: %[[CAST:.*]] = tensor.cast %[[X]] : tensor<3x4x6xf32> to tensor<3x?x6xf32>
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[D:.*]] = arith.addi %{{.*}}, %[[ONE]] : index
// CHECK: %[[N:.*]] = tensor.dim %[[CAST]], %[[D]] : tensor<3x?x6xf32>
// CHECK: tensor.splat %[[N]] : tensor<3xindex>
func.func @f(%x: tensor<4x6xf32>) -> (tensor<24xf32>, tensor<2x2x6xf32>, index) {
  %c0 = arith.constant 0 : index
  %col = tensor.collapse_shape %x [[0, 1]] : tensor<4x6xf32> into tensor<24xf32>
  %ex = tensor.expand_shape %x [[0, 1], [2]] output_shape [2, 2, 6] : tensor<4x6xf32> into tensor<2x2x6xf32>
  %ca = tensor.cast %x : tensor<4x6xf32> to tensor<?x6xf32>
  %n = tensor.dim %ca, %c0 : tensor<?x6xf32>
  return %col, %ex, %n : tensor<24xf32>, tensor<2x2x6xf32>, index
}
