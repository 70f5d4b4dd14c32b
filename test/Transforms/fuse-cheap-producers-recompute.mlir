// --sift-fuse-cheap-producers with the GPU pipeline's options: per-row
// sizes fused into the ops over the rows' elements that broadcast them
// (broadcast-producers), and an element gathered from a cheap element-wise
// op computed where it is read, and an element gathered from a
// concatenation read from the input that holds it (gathered-producers).
// Without the options
// neither happens (DEFAULT). test/GPU/sampler.mlir counts the launches
// this saves; ctest conformance-gpu-pipeline checks the results.
//
// RUN: tensor-opt %s --sift-fuse-cheap-producers="broadcast-producers=1 gathered-producers=1" | FileCheck %s
// RUN: tensor-opt %s --sift-fuse-cheap-producers | FileCheck %s --check-prefix=DEFAULT

#row = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>

// The row sizes (six ops over [4]) are recomputed by the op over [4, 8]
// that reads them; the [4] op goes.
// CHECK-LABEL: func.func @row_sizes
// CHECK-NOT: tensor<4xindex>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}}ins(%{{.*}} : tensor<4xi64>)
// CHECK: arith.minui
// CHECK: arith.cmpi ult
// CHECK-NOT: linalg.generic
// DEFAULT-LABEL: func.func @row_sizes
// DEFAULT: -> tensor<4xindex>
// DEFAULT: ins(%{{.*}} : tensor<4xindex>)
func.func @row_sizes(%count: tensor<4xi64>) -> tensor<4x8xi1> {
  %c5 = arith.constant 5 : index
  %c10 = arith.constant 10 : index
  %e = tensor.empty() : tensor<4xindex>
  %n = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%count : tensor<4xi64>) outs(%e : tensor<4xindex>) {
  ^bb0(%c: i64, %o: index):
    %i = arith.index_cast %c : i64 to index
    %m = arith.minui %i, %c5 : index
    %short = arith.cmpi ult, %m, %c5 : index
    %fill = arith.subi %c10, %m : index
    %s = arith.select %short, %fill, %m : index
    linalg.yield %s : index
  } -> tensor<4xindex>
  %e2 = tensor.empty() : tensor<4x8xi1>
  %mask = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%n : tensor<4xindex>) outs(%e2 : tensor<4x8xi1>) {
  ^bb0(%size: index, %o: i1):
    %j = linalg.index 1 : index
    %in = arith.cmpi ult, %j, %size : index
    linalg.yield %in : i1
  } -> tensor<4x8xi1>
  return %mask : tensor<4x8xi1>
}

// A concatenation of two variable-length prefixes (an element-wise op
// reading its parts at computed positions) read by a gather through a
// permutation: the gather reads the parts; the concatenation goes.
// CHECK-LABEL: func.func @gather_of_concat
// CHECK-NOT: ins(%{{.*}} : tensor<4xindex>)
// CHECK: linalg.generic {{.*}}ins(%{{.*}} : tensor<4x8xi64>)
// CHECK: ^bb0(%[[P:.*]]: i64, %{{.*}}: i64):
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = arith.index_cast %[[P]] : i64 to index
// CHECK: %[[LEN_I:.*]] = tensor.extract %{{.*}}[%[[I]]] : tensor<4xindex>
// CHECK: arith.cmpi ult, %[[J]], %[[LEN_I]] : index
// CHECK: tensor.extract %{{.*}}[%[[I]], %{{.*}}] : tensor<4x16xi64>
// CHECK-NOT: linalg.generic
// DEFAULT-LABEL: func.func @gather_of_concat
// DEFAULT: %[[CONCAT:.*]] = linalg.generic
// DEFAULT: tensor.extract %[[CONCAT]]
func.func @gather_of_concat(%parts: tensor<4x16xi64>, %len: tensor<4xindex>,
                            %perm: tensor<4x8xi64>) -> tensor<4x8xi64> {
  %c8 = arith.constant 8 : index
  %e = tensor.empty() : tensor<4x8xi64>
  %concat = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%len : tensor<4xindex>) outs(%e : tensor<4x8xi64>) {
  ^bb0(%n: index, %o: i64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %first = arith.cmpi ult, %j, %n : index
    %k0 = arith.subi %j, %n : index
    %k1 = arith.addi %k0, %c8 : index
    %k = arith.select %first, %j, %k1 : index
    %v = tensor.extract %parts[%i, %k] : tensor<4x16xi64>
    linalg.yield %v : i64
  } -> tensor<4x8xi64>
  %e2 = tensor.empty() : tensor<4x8xi64>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%perm : tensor<4x8xi64>) outs(%e2 : tensor<4x8xi64>) {
  ^bb0(%p: i64, %o: i64):
    %i = linalg.index 0 : index
    %j = arith.index_cast %p : i64 to index
    %v = tensor.extract %concat[%i, %j] : tensor<4x8xi64>
    linalg.yield %v : i64
  } -> tensor<4x8xi64>
  return %g : tensor<4x8xi64>
}

// Read whole as well (an input of another op), the producer stays and the
// gather reads it.
// CHECK-LABEL: func.func @read_whole_too
// CHECK: %[[SQ:.*]] = linalg.generic
// CHECK: tensor.extract %[[SQ]]
func.func @read_whole_too(%x: tensor<8xi64>, %perm: tensor<8xindex>)
    -> (tensor<8xi64>, tensor<8xi64>) {
  %e = tensor.empty() : tensor<8xi64>
  %sq = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<8xi64>) outs(%e : tensor<8xi64>) {
  ^bb0(%v: i64, %o: i64):
    %s = arith.muli %v, %v : i64
    %t = arith.addi %s, %v : i64
    %u = arith.xori %t, %s : i64
    linalg.yield %u : i64
  } -> tensor<8xi64>
  %e2 = tensor.empty() : tensor<8xi64>
  %g = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%perm : tensor<8xindex>) outs(%e2 : tensor<8xi64>) {
  ^bb0(%p: index, %o: i64):
    %v = tensor.extract %sq[%p] : tensor<8xi64>
    linalg.yield %v : i64
  } -> tensor<8xi64>
  return %g, %sq : tensor<8xi64>, tensor<8xi64>
}

// A producer yielding a value from above it (a broadcast constant): the
// element read is that value.
// CHECK-LABEL: func.func @yields_from_above
// CHECK: %[[C:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: linalg.generic
// CHECK: linalg.yield %[[C]] : f32
// CHECK-NOT: linalg.generic
func.func @yields_from_above(%perm: tensor<8xindex>) -> tensor<8xf32> {
  %c = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]}
      outs(%e : tensor<8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %c : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%perm : tensor<8xindex>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%p: index, %o: f32):
    %v = tensor.extract %b[%p] : tensor<8xf32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %g : tensor<8xf32>
}

// A gather through a concatenation of three inputs along dimension 1
// (static sizes 3, 5, 2): the element is read from the input that holds
// it, under an scf.if per boundary, its index shifted into the input;
// the first input, element-wise, is then computed where it is read. The
// concatenation goes.
// CHECK-LABEL: func.func @gather_of_concat_op
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xi32>, %[[B:.*]]: tensor<4x5xi64>, %[[C:.*]]: tensor<4x2xi64>, %[[PERM:.*]]: tensor<4x6xindex>)
// CHECK-NOT: tensor.concat
// CHECK: linalg.generic {{.*}} ins(%[[PERM]] : tensor<4x6xindex>)
// CHECK: ^bb0(%[[P:.*]]: index, %{{.*}}: i64):
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[IN_A:.*]] = arith.cmpi ult, %[[P]], %c3 : index
// CHECK: %[[V:.*]] = scf.if %[[IN_A]] -> (i64) {
// CHECK: %[[X:.*]] = tensor.extract %[[A]][%[[I]], %[[P]]] : tensor<4x3xi32>
// CHECK: %[[W:.*]] = arith.extsi %[[X]] : i32 to i64
// CHECK: scf.yield %[[W]] : i64
// CHECK: } else {
// CHECK: %[[IN_B:.*]] = arith.cmpi ult, %[[P]], %c8 : index
// CHECK: %[[V2:.*]] = scf.if %[[IN_B]] -> (i64) {
// CHECK: %[[PB:.*]] = arith.subi %[[P]], %c3 : index
// CHECK: %[[XB:.*]] = tensor.extract %[[B]][%[[I]], %[[PB]]] : tensor<4x5xi64>
// CHECK: scf.yield %[[XB]] : i64
// CHECK: } else {
// CHECK: %[[PC:.*]] = arith.subi %[[P]], %c8 : index
// CHECK: %[[XC:.*]] = tensor.extract %[[C]][%[[I]], %[[PC]]] : tensor<4x2xi64>
// CHECK: scf.yield %[[XC]] : i64
// CHECK: }
// CHECK: scf.yield %[[V2]] : i64
// CHECK: }
// CHECK: linalg.yield %[[V]] : i64
// DEFAULT-LABEL: func.func @gather_of_concat_op
// DEFAULT: %[[CAT:.*]] = tensor.concat
// DEFAULT: tensor.extract %[[CAT]]
func.func @gather_of_concat_op(%a: tensor<4x3xi32>, %b: tensor<4x5xi64>, %c: tensor<4x2xi64>,
                               %perm: tensor<4x6xindex>) -> tensor<4x6xi64> {
  %e = tensor.empty() : tensor<4x3xi64>
  %wide = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x3xi32>) outs(%e : tensor<4x3xi64>) {
  ^bb0(%v: i32, %o: i64):
    %w = arith.extsi %v : i32 to i64
    linalg.yield %w : i64
  } -> tensor<4x3xi64>
  %cat = tensor.concat dim(1) %wide, %b, %c : (tensor<4x3xi64>, tensor<4x5xi64>, tensor<4x2xi64>) -> tensor<4x10xi64>
  %e2 = tensor.empty() : tensor<4x6xi64>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%perm : tensor<4x6xindex>) outs(%e2 : tensor<4x6xi64>) {
  ^bb0(%p: index, %o: i64):
    %i = linalg.index 0 : index
    %v = tensor.extract %cat[%i, %p] : tensor<4x10xi64>
    linalg.yield %v : i64
  } -> tensor<4x6xi64>
  return %g : tensor<4x6xi64>
}

// A concatenation also returned whole stays, and so does its gather.
// CHECK-LABEL: func.func @concat_read_whole
// CHECK: %[[CAT:.*]] = tensor.concat
// CHECK: tensor.extract %[[CAT]]
// CHECK-NOT: scf.if
func.func @concat_read_whole(%a: tensor<3xi64>, %b: tensor<5xi64>, %perm: tensor<6xindex>)
    -> (tensor<6xi64>, tensor<8xi64>) {
  %cat = tensor.concat dim(0) %a, %b : (tensor<3xi64>, tensor<5xi64>) -> tensor<8xi64>
  %e = tensor.empty() : tensor<6xi64>
  %g = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%perm : tensor<6xindex>) outs(%e : tensor<6xi64>) {
  ^bb0(%p: index, %o: i64):
    %v = tensor.extract %cat[%p] : tensor<8xi64>
    linalg.yield %v : i64
  } -> tensor<6xi64>
  return %g, %cat : tensor<6xi64>, tensor<8xi64>
}
