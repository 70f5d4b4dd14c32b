// --sift-fuse-siblings: element-wise ops that read the same tensor through
// the same map become one op with the results of both (one pass over the
// shared tensor); ops with another iteration space, a use of the first
// before the second, or an output that is read stay apart.
//
// RUN: tensor-opt %s -split-input-file --sift-fuse-siblings | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Two masks of one labels tensor: one generic, the labels read once (one
// input), two outputs.
// CHECK-LABEL: func.func @masks
// CHECK: %[[M:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%arg0 : tensor<4x100xi64>)
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<4x100xi1>, tensor<4x100xi1>)
// CHECK: ^bb0(%[[L:.*]]: i64, %{{.*}}: i1, %{{.*}}: i1):
// CHECK-NEXT: %[[P:.*]] = arith.cmpi eq, %[[L]], %c1_i64
// CHECK-NEXT: %[[N:.*]] = arith.cmpi eq, %[[L]], %c0_i64
// CHECK-NEXT: linalg.yield %[[P]], %[[N]] : i1, i1
// CHECK-NOT: linalg.generic
// CHECK: return %[[M]]#0, %[[M]]#1
func.func @masks(%labels: tensor<4x100xi64>) -> (tensor<4x100xi1>, tensor<4x100xi1>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %e0 = tensor.empty() : tensor<4x100xi1>
  %pos = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%labels : tensor<4x100xi64>) outs(%e0 : tensor<4x100xi1>) {
  ^bb0(%l: i64, %o: i1):
    %p = arith.cmpi eq, %l, %c1 : i64
    linalg.yield %p : i1
  } -> tensor<4x100xi1>
  %e1 = tensor.empty() : tensor<4x100xi1>
  %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%labels : tensor<4x100xi64>) outs(%e1 : tensor<4x100xi1>) {
  ^bb0(%l: i64, %o: i1):
    %n = arith.cmpi eq, %l, %c0 : i64
    linalg.yield %n : i1
  } -> tensor<4x100xi1>
  return %pos, %neg : tensor<4x100xi1>, tensor<4x100xi1>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Three siblings with other inputs each (a per-row threshold, broadcast):
// one generic, the shared tensor once, each other input once.
// CHECK-LABEL: func.func @three
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0, %arg1, %arg2 : tensor<4x100xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NOT: linalg.generic
func.func @three(%x: tensor<4x100xf32>, %t: tensor<4xf32>, %u: tensor<4xf32>)
    -> (tensor<4x100xi1>, tensor<4x100xi1>, tensor<4x100xf32>) {
  %e0 = tensor.empty() : tensor<4x100xi1>
  %a = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %t : tensor<4x100xf32>, tensor<4xf32>) outs(%e0 : tensor<4x100xi1>) {
  ^bb0(%v: f32, %w: f32, %o: i1):
    %c = arith.cmpf ogt, %v, %w : f32
    linalg.yield %c : i1
  } -> tensor<4x100xi1>
  %e1 = tensor.empty() : tensor<4x100xi1>
  %b = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %u : tensor<4x100xf32>, tensor<4xf32>) outs(%e1 : tensor<4x100xi1>) {
  ^bb0(%v: f32, %w: f32, %o: i1):
    %c = arith.cmpf olt, %v, %w : f32
    linalg.yield %c : i1
  } -> tensor<4x100xi1>
  %e2 = tensor.empty() : tensor<4x100xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x100xf32>) outs(%e2 : tensor<4x100xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x100xf32>
  return %a, %b, %c : tensor<4x100xi1>, tensor<4x100xi1>, tensor<4x100xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Stay apart: another shape; the first used before the second (the second
// depends on it); an output the body reads (an accumulation into %acc).
// CHECK-LABEL: func.func @apart
// CHECK-COUNT-4: linalg.generic
func.func @apart(%x: tensor<100xf32>, %y: tensor<50xf32>, %acc: tensor<100xf32>)
    -> (tensor<100xf32>, tensor<50xf32>, tensor<100xf32>, tensor<100xf32>) {
  %e0 = tensor.empty() : tensor<100xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<100xf32>) outs(%e0 : tensor<100xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<100xf32>
  %e1 = tensor.empty() : tensor<50xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<50xf32>) outs(%e1 : tensor<50xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<50xf32>
  %e2 = tensor.empty() : tensor<100xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %a : tensor<100xf32>, tensor<100xf32>) outs(%e2 : tensor<100xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.mulf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<100xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<100xf32>) outs(%acc : tensor<100xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<100xf32>
  return %a, %b, %c, %d : tensor<100xf32>, tensor<50xf32>, tensor<100xf32>, tensor<100xf32>
}

// -----

// Two parts of one concatenation, siblings otherwise (one shared input):
// they stay two ops, each to be computed in its slice of the
// concatenation (--sift-eliminate-alloc-tensors).
// CHECK-LABEL: func.func @concat_parts
// CHECK: %[[A:.*]] = linalg.generic
// CHECK: %[[B:.*]] = linalg.generic
// CHECK: tensor.concat dim(1) %[[A]], %[[B]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @concat_parts(%x: tensor<4x8xi32>) -> tensor<4x16xi64> {
  %e = tensor.empty() : tensor<4x8xi64>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xi32>) outs(%e : tensor<4x8xi64>) {
  ^bb0(%v: i32, %o: i64):
    %w = arith.extsi %v : i32 to i64
    linalg.yield %w : i64
  } -> tensor<4x8xi64>
  %e2 = tensor.empty() : tensor<4x8xi64>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xi32>) outs(%e2 : tensor<4x8xi64>) {
  ^bb0(%v: i32, %o: i64):
    %w = arith.extui %v : i32 to i64
    linalg.yield %w : i64
  } -> tensor<4x8xi64>
  %c = tensor.concat dim(1) %a, %b : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x16xi64>
  return %c : tensor<4x16xi64>
}
