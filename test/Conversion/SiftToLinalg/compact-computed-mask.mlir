// A compaction whose mask is computed by element-wise code that only it
// reads runs that code in its own loop, on the elements of the rows the
// code reads (no mask is written and read back); compactions whose masks
// are computed from the same row, with results as wide as their rows, scan
// it once, in one loop.
//
// RUN: tensor-opt %s --convert-sift-to-linalg -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @siblings
// CHECK-NOT: arith.cmpi {{.*}} : tensor
// CHECK: scf.execute_region -> (tensor<8xi64>, i64, tensor<8xi64>, i64) no_inline
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}}, %[[SA:.*]] = %{{.*}}, %[[SB:.*]] = %{{.*}})
// CHECK: tensor.insert %{{.*}} into %[[A]][%[[SA]]]
// CHECK: tensor.insert %{{.*}} into %[[B]][%[[SB]]]
// CHECK: %[[E:.*]] = tensor.extract %arg0[%[[I]]] : tensor<8xi64>
// CHECK-NOT: tensor.extract
// CHECK: arith.cmpi eq, %[[E]], %c1_i64
// CHECK: arith.cmpi eq, %[[E]], %c0_i64
// CHECK-NOT: scf.execute_region
// CHECK: return
func.func @siblings(%x: tensor<8xi64>)
    -> (tensor<8xi64>, tensor<i64>, tensor<8xi64>, tensor<i64>) {
  %one = arith.constant dense<1> : tensor<8xi64>
  %zero = arith.constant dense<0> : tensor<8xi64>
  %p = arith.cmpi eq, %x, %one : tensor<8xi64>
  %n = arith.cmpi eq, %x, %zero : tensor<8xi64>
  %i1, %c1 = sift.compact %p : tensor<8xi1> -> tensor<8xi64>, tensor<i64>
  %i2, %c2 = sift.compact %n : tensor<8xi1> -> tensor<8xi64>, tensor<i64>
  return %i1, %c1, %i2, %c2
      : tensor<8xi64>, tensor<i64>, tensor<8xi64>, tensor<i64>
}

// -----

// A linalg.generic (batched rows) and a chain of producers: the generic's
// body and the ops that compute its inputs, on the rows' elements.
// CHECK-LABEL: func.func @generic_chain
// CHECK-NOT: linalg.generic
// CHECK: scf.forall
// CHECK: scf.for
// CHECK-DAG: tensor.extract %{{.*}} : tensor<6xf32>
// CHECK-DAG: tensor.extract %{{.*}} : tensor<6xi64>
// CHECK-DAG: arith.mulf
// CHECK-DAG: arith.cmpf ogt
// CHECK-DAG: arith.cmpi slt
// CHECK: arith.andi
func.func @generic_chain(%x: tensor<2x6xf32>, %y: tensor<2x6xi64>)
    -> (tensor<2x6xi64>, tensor<2xi64>) {
  %c = arith.constant dense<1.5> : tensor<2x6xf32>
  %t = arith.constant dense<4> : tensor<2x6xi64>
  %s = arith.mulf %x, %c : tensor<2x6xf32>
  %init = tensor.empty() : tensor<2x6xi1>
  %m = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                       affine_map<(d0, d1) -> (d0, d1)>,
                       affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%s, %y : tensor<2x6xf32>, tensor<2x6xi64>) outs(%init : tensor<2x6xi1>) {
  ^bb0(%a: f32, %b: i64, %out: i1):
    %zero = arith.constant 0.0 : f32
    %four = arith.constant 4 : i64
    %gt = arith.cmpf ogt, %a, %zero : f32
    %lt = arith.cmpi slt, %b, %four : i64
    %both = arith.andi %gt, %lt : i1
    linalg.yield %both : i1
  } -> tensor<2x6xi1>
  %i, %n = sift.compact %m : tensor<2x6xi1> -> tensor<2x6xi64>, tensor<2xi64>
  return %i, %n : tensor<2x6xi64>, tensor<2xi64>
}

// -----

// Fewer results than the row: the loop stops at k, with the mask computed;
// two such compactions are two loops (one may stop before the other).
// CHECK-LABEL: func.func @capped
// CHECK-NOT: arith.cmpf {{.*}} : tensor
// CHECK: scf.while
// CHECK: } do {
// CHECK: arith.cmpf ogt, %{{.*}} : f32
// CHECK: scf.while
// CHECK: } do {
// CHECK: arith.cmpf olt, %{{.*}} : f32
func.func @capped(%x: tensor<10xf32>)
    -> (tensor<3xi64>, tensor<i64>, tensor<3xi64>, tensor<i64>) {
  %zero = arith.constant dense<0.0> : tensor<10xf32>
  %p = arith.cmpf ogt, %x, %zero : tensor<10xf32>
  %q = arith.cmpf olt, %x, %zero : tensor<10xf32>
  %i1, %c1 = sift.compact %p : tensor<10xi1> -> tensor<3xi64>, tensor<i64>
  %i2, %c2 = sift.compact %q : tensor<10xi1> -> tensor<3xi64>, tensor<i64>
  return %i1, %c1, %i2, %c2
      : tensor<3xi64>, tensor<i64>, tensor<3xi64>, tensor<i64>
}

// -----

// A mask that something else reads too is computed once and read.
// CHECK-LABEL: func.func @mask_read_twice
// CHECK: %[[M:.*]] = arith.cmpi sgt, %arg0, %{{.*}} : tensor<8xi64>
// CHECK: scf.for
// CHECK: tensor.extract %[[M]][%{{.*}}] : tensor<8xi1>
func.func @mask_read_twice(%x: tensor<8xi64>)
    -> (tensor<8xi64>, tensor<i64>, tensor<8xi1>) {
  %zero = arith.constant dense<0> : tensor<8xi64>
  %m = arith.cmpi sgt, %x, %zero : tensor<8xi64>
  %i, %c = sift.compact %m : tensor<8xi1> -> tensor<8xi64>, tensor<i64>
  return %i, %c, %m : tensor<8xi64>, tensor<i64>, tensor<8xi1>
}

// -----

// The second mask depends on the first compaction's count: the two scan
// the row apart (the first's results are read before the second).
// CHECK-LABEL: func.func @dependent
// CHECK: scf.execute_region -> (tensor<8xi64>, i64)
// CHECK: tensor.splat
// CHECK: scf.execute_region -> (tensor<8xi64>, i64)
func.func @dependent(%x: tensor<8xi64>)
    -> (tensor<8xi64>, tensor<i64>, tensor<8xi64>, tensor<i64>) {
  %zero = arith.constant dense<0> : tensor<8xi64>
  %p = arith.cmpi sgt, %x, %zero : tensor<8xi64>
  %i1, %c1 = sift.compact %p : tensor<8xi1> -> tensor<8xi64>, tensor<i64>
  %t = tensor.extract %c1[] : tensor<i64>
  %b = tensor.splat %t : tensor<8xi64>
  %q = arith.cmpi slt, %x, %b : tensor<8xi64>
  %i2, %c2 = sift.compact %q : tensor<8xi1> -> tensor<8xi64>, tensor<i64>
  return %i1, %c1, %i2, %c2
      : tensor<8xi64>, tensor<i64>, tensor<8xi64>, tensor<i64>
}

// -----

// A producer that broadcasts a row (not an identity map) is read as a
// mask; a division by a row (not speculatable, so not moved into the
// compaction's loop) is read as a row.
// CHECK-LABEL: func.func @not_computed
// CHECK: linalg.generic
// CHECK: scf.for
// CHECK: tensor.extract %{{.*}} : tensor<4xi1>
// CHECK-LABEL: func.func @division
// CHECK: %[[R:.*]] = arith.divsi %arg0, %arg1 : tensor<4xi64>
// CHECK: scf.for
// CHECK: tensor.extract %[[R]][%{{.*}}] : tensor<4xi64>
func.func @not_computed(%x: tensor<4xi64>)
    -> (tensor<3x4xi64>, tensor<3xi64>) {
  %init = tensor.empty() : tensor<3x4xi1>
  %m = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d1)>,
                       affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4xi64>) outs(%init : tensor<3x4xi1>) {
  ^bb0(%a: i64, %out: i1):
    %zero = arith.constant 0 : i64
    %gt = arith.cmpi sgt, %a, %zero : i64
    linalg.yield %gt : i1
  } -> tensor<3x4xi1>
  %i, %n = sift.compact %m : tensor<3x4xi1> -> tensor<3x4xi64>, tensor<3xi64>
  return %i, %n : tensor<3x4xi64>, tensor<3xi64>
}
func.func @division(%x: tensor<4xi64>, %y: tensor<4xi64>)
    -> (tensor<4xi64>, tensor<i64>) {
  %zero = arith.constant dense<0> : tensor<4xi64>
  %r = arith.divsi %x, %y : tensor<4xi64>
  %m = arith.cmpi ne, %r, %zero : tensor<4xi64>
  %i, %n = sift.compact %m : tensor<4xi1> -> tensor<4xi64>, tensor<i64>
  return %i, %n : tensor<4xi64>, tensor<i64>
}
