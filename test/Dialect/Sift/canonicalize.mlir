// Folds and canonicalizations of the sift ops.
// RUN: tensor-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func @count_constant
func.func @count_constant() -> (tensor<i64>, tensor<2xi64>) {
  %m = arith.constant dense<[true, false, true, true, false]> : tensor<5xi1>
  %x = arith.constant dense<[[0.0, 1.0, 0x7FC00000], [0.0, -0.0, 0.0]]> : tensor<2x3xf32>
  // CHECK-DAG: %[[A:.*]] = arith.constant dense<3> : tensor<i64>
  // CHECK-DAG: %[[B:.*]] = arith.constant dense<[2, 0]> : tensor<2xi64>
  // CHECK-NOT: sift.count
  // CHECK: return %[[A]], %[[B]]
  %0 = sift.count %m : tensor<5xi1> -> tensor<i64>
  %1 = sift.count %x : tensor<2x3xf32> -> tensor<2xi64>
  return %0, %1 : tensor<i64>, tensor<2xi64>
}

// -----

// CHECK-LABEL: func @count_not_constant
func.func @count_not_constant(%m: tensor<5xi1>) -> tensor<i64> {
  // CHECK: sift.count
  %0 = sift.count %m : tensor<5xi1> -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// CHECK-LABEL: func @compact_constant
func.func @compact_constant() -> (tensor<2x3xi64>, tensor<2xi64>) {
  %m = arith.constant dense<[[false, true, false, true, true], [false, false, false, false, true]]> : tensor<2x5xi1>
  // CHECK-DAG: %[[I:.*]] = arith.constant dense<{{\[\[}}1, 3, 4], [4, -1, -1]]> : tensor<2x3xi64>
  // CHECK-DAG: %[[C:.*]] = arith.constant dense<[3, 1]> : tensor<2xi64>
  // CHECK: return %[[I]], %[[C]]
  %i, %c = sift.compact %m : tensor<2x5xi1> -> tensor<2x3xi64>, tensor<2xi64>
  return %i, %c : tensor<2x3xi64>, tensor<2xi64>
}

// -----

// i32 indices fold as i32 (the fill truncated to them).
// CHECK-LABEL: func @compact_constant_i32
func.func @compact_constant_i32() -> (tensor<4xi32>, tensor<i64>) {
  %m = arith.constant dense<[false, true, false, true, false]> : tensor<5xi1>
  // CHECK-DAG: arith.constant dense<[1, 3, -1, -1]> : tensor<4xi32>
  // CHECK-DAG: arith.constant dense<2> : tensor<i64>
  %i, %c = sift.compact %m : tensor<5xi1> -> tensor<4xi32>, tensor<i64>
  return %i, %c : tensor<4xi32>, tensor<i64>
}

// -----

// More true lanes than the width: the first K are kept and the count is K.
// CHECK-LABEL: func @compact_constant_truncates
func.func @compact_constant_truncates() -> (tensor<2xi64>, tensor<i64>) {
  %m = arith.constant dense<true> : tensor<4xi1>
  // CHECK-DAG: arith.constant dense<[0, 1]> : tensor<2xi64>
  // CHECK-DAG: arith.constant dense<2> : tensor<i64>
  %i, %c = sift.compact %m {fill = 7 : i64} : tensor<4xi1> -> tensor<2xi64>, tensor<i64>
  return %i, %c : tensor<2xi64>, tensor<i64>
}

// -----

// CHECK-LABEL: func @cumsum_constant
func.func @cumsum_constant() -> (tensor<5xi64>, tensor<2x2xi32>, tensor<3xf32>) {
  %m = arith.constant dense<[true, false, true, true, false]> : tensor<5xi1>
  %x = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %f = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  // CHECK-DAG: arith.constant dense<[0, 1, 1, 2, 3]> : tensor<5xi64>
  // CHECK-DAG: arith.constant dense<{{\[\[}}1, 2], [4, 6]]> : tensor<2x2xi32>
  %0 = sift.cumsum %m exclusive : tensor<5xi1> -> tensor<5xi64>
  %1 = sift.cumsum %x {dim = 0 : i64} : tensor<2x2xi32> -> tensor<2x2xi32>
  // Float sums are left to run time.
  // CHECK: sift.cumsum %{{.*}} : tensor<3xf32> -> tensor<3xf32>
  %2 = sift.cumsum %f : tensor<3xf32> -> tensor<3xf32>
  return %0, %1, %2 : tensor<5xi64>, tensor<2x2xi32>, tensor<3xf32>
}

// -----

// Stable in both directions: equal keys keep their input order.
// CHECK-LABEL: func @sort_constant
func.func @sort_constant() -> (tensor<5xi32>, tensor<5xi64>, tensor<5xi32>, tensor<5xi64>) {
  %x = arith.constant dense<[3, 1, 3, -2, 1]> : tensor<5xi32>
  // CHECK-DAG: arith.constant dense<[-2, 1, 1, 3, 3]> : tensor<5xi32>
  // CHECK-DAG: arith.constant dense<[3, 1, 4, 0, 2]> : tensor<5xi64>
  // CHECK-DAG: arith.constant dense<[3, 3, 1, 1, -2]> : tensor<5xi32>
  // CHECK-DAG: arith.constant dense<[0, 2, 1, 4, 3]> : tensor<5xi64>
  // CHECK-NOT: sift.sort
  %v, %i = sift.sort %x : tensor<5xi32> -> tensor<5xi32>, tensor<5xi64>
  %dv, %di = sift.sort %x descending : tensor<5xi32> -> tensor<5xi32>, tensor<5xi64>
  return %v, %i, %dv, %di : tensor<5xi32>, tensor<5xi64>, tensor<5xi32>, tensor<5xi64>
}

// -----

// Sorting a sorted constant gives it back with the identity permutation.
// CHECK-LABEL: func @sort_sorted_constant
func.func @sort_sorted_constant() -> (tensor<4xf32>, tensor<4xi64>) {
  // CHECK: %[[X:.*]] = arith.constant dense<[-1.000000e+00, 0.000000e+00, 2.500000e+00, 7.000000e+00]>
  // CHECK: %[[I:.*]] = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  // CHECK: return %[[X]], %[[I]]
  %x = arith.constant dense<[-1.0, 0.0, 2.5, 7.0]> : tensor<4xf32>
  %v, %i = sift.sort %x : tensor<4xf32> -> tensor<4xf32>, tensor<4xi64>
  return %v, %i : tensor<4xf32>, tensor<4xi64>
}

// -----

// NaN sorts above +inf; -0.0 and +0.0 are equal (stable).
// CHECK-LABEL: func @argsort_constant_nan
func.func @argsort_constant_nan() -> (tensor<5xi64>, tensor<2x3xi64>) {
  %x = arith.constant dense<[0x7FC00000, 0x7F800000, 0.0, -0.0, -1.0]> : tensor<5xf32>
  %y = arith.constant dense<[[5, 4, 6], [1, 9, 0]]> : tensor<2x3xi64>
  // CHECK-DAG: arith.constant dense<[4, 2, 3, 1, 0]> : tensor<5xi64>
  // CHECK-DAG: arith.constant dense<{{\[\[}}1, 0, 1], [0, 1, 0]]> : tensor<2x3xi64>
  %0 = sift.argsort %x : tensor<5xf32> -> tensor<5xi64>
  %1 = sift.argsort %y {dim = 0 : i64} : tensor<2x3xi64> -> tensor<2x3xi64>
  return %0, %1 : tensor<5xi64>, tensor<2x3xi64>
}

// -----

// CHECK-LABEL: func @nonzero_constant
func.func @nonzero_constant() -> (tensor<?xi64>, tensor<?x2xi64>) {
  %m = arith.constant dense<[false, true, true, false]> : tensor<4xi1>
  %x = arith.constant dense<[[0, 3], [5, 0]]> : tensor<2x2xi32>
  // CHECK-DAG: %[[A:.*]] = arith.constant dense<[1, 2]> : tensor<2xi64>
  // CHECK-DAG: %[[B:.*]] = arith.constant dense<{{\[\[}}0, 1], [1, 0]]> : tensor<2x2xi64>
  // CHECK-DAG: %[[CA:.*]] = tensor.cast %[[A]] : tensor<2xi64> to tensor<?xi64>
  // CHECK-DAG: %[[CB:.*]] = tensor.cast %[[B]] : tensor<2x2xi64> to tensor<?x2xi64>
  // CHECK: return %[[CA]], %[[CB]]
  %0 = sift.nonzero %m : tensor<4xi1> -> tensor<?xi64>
  %1 = sift.nonzero %x : tensor<2x2xi32> -> tensor<?x2xi64>
  return %0, %1 : tensor<?xi64>, tensor<?x2xi64>
}

// -----

// CHECK-LABEL: func @nonzero_none_selected
func.func @nonzero_none_selected() -> tensor<?xi64> {
  // CHECK: %[[E:.*]] = arith.constant dense<> : tensor<0xi64>
  // CHECK: tensor.cast %[[E]] : tensor<0xi64> to tensor<?xi64>
  %m = arith.constant dense<false> : tensor<4xi1>
  %0 = sift.nonzero %m : tensor<4xi1> -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

// CHECK-LABEL: func @randperm_constant_n
// CHECK-SAME: %[[SEED:.*]]: i64
func.func @randperm_constant_n(%seed: i64) -> tensor<?xi64> {
  // CHECK: %[[P:.*]] = sift.randperm %{{.*}}, %[[SEED]] : tensor<16xi64>
  // CHECK: tensor.cast %[[P]] : tensor<16xi64> to tensor<?xi64>
  %n = arith.constant 16 : index
  %0 = sift.randperm %n, %seed : tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

// CHECK-LABEL: func @gather_iota
// CHECK-SAME: %[[X:.*]]: tensor<4x3xf32>, %[[Y:.*]]: tensor<2x3xi64>
func.func @gather_iota(%x: tensor<4x3xf32>, %y: tensor<2x3xi64>)
    -> (tensor<4x3xf32>, tensor<2x3xi64>) {
  %iota = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  %rows = arith.constant dense<[[0, 1, 2], [0, 1, 2]]> : tensor<2x3xi64>
  // CHECK-NOT: sift.gather
  // CHECK: return %[[X]], %[[Y]]
  %0 = sift.gather %x[%iota] : tensor<4x3xf32>, tensor<4xi64> -> tensor<4x3xf32>
  %1 = sift.gather %y[%rows] {batch_dims = 1 : i64}
      : tensor<2x3xi64>, tensor<2x3xi64> -> tensor<2x3xi64>
  return %0, %1 : tensor<4x3xf32>, tensor<2x3xi64>
}

// -----

// CHECK-LABEL: func @gather_not_iota
func.func @gather_not_iota(%x: tensor<4xf32>) -> tensor<4xf32> {
  %idx = arith.constant dense<[0, 1, 3, 2]> : tensor<4xi64>
  // CHECK: sift.gather
  %0 = sift.gather %x[%idx] : tensor<4xf32>, tensor<4xi64> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Folders expand constants element by element, so they stop at a size limit:
// neither a huge result nor a huge splat mask is expanded.
// CHECK-LABEL: func.func @compact_huge_k
// CHECK: sift.compact
func.func @compact_huge_k() -> (tensor<4294967296xi64>, tensor<i64>) {
  %m = arith.constant dense<[false, true, false, true, true]> : tensor<5xi1>
  %i, %c = sift.compact %m : tensor<5xi1> -> tensor<4294967296xi64>, tensor<i64>
  return %i, %c : tensor<4294967296xi64>, tensor<i64>
}

// -----

// CHECK-LABEL: func.func @compact_huge_splat
// CHECK: sift.compact
func.func @compact_huge_splat() -> (tensor<2xi64>, tensor<i64>) {
  %m = arith.constant dense<true> : tensor<9223372036854775807xi1>
  %i, %c = sift.compact %m : tensor<9223372036854775807xi1> -> tensor<2xi64>, tensor<i64>
  return %i, %c : tensor<2xi64>, tensor<i64>
}

// -----

// CHECK-LABEL: func.func @count_sort_cumsum_huge_splat
// CHECK: sift.count
// CHECK: sift.cumsum
// CHECK: sift.argsort
// CHECK: sift.nonzero
func.func @count_sort_cumsum_huge_splat() -> (tensor<i64>, tensor<1048576xi64>, tensor<1048576xi64>, tensor<?xi64>) {
  %m = arith.constant dense<true> : tensor<1048576xi1>
  %x = arith.constant dense<3> : tensor<1048576xi64>
  %c = sift.count %m : tensor<1048576xi1> -> tensor<i64>
  %s = sift.cumsum %x : tensor<1048576xi64> -> tensor<1048576xi64>
  %a = sift.argsort %x : tensor<1048576xi64> -> tensor<1048576xi64>
  %n = sift.nonzero %m : tensor<1048576xi1> -> tensor<?xi64>
  return %c, %s, %a, %n : tensor<i64>, tensor<1048576xi64>, tensor<1048576xi64>, tensor<?xi64>
}

// -----

// A scatter without lanes writes nothing.
// CHECK-LABEL: func @scatter_no_lanes
// CHECK-SAME: %{{.*}}: tensor<0xf32>, %[[D:[^:]*]]: tensor<8xf32>
// CHECK-NOT: sift.scatter
// CHECK: return %[[D]]
func.func @scatter_no_lanes(%u: tensor<0xf32>, %d: tensor<8xf32>, %i: tensor<0xi64>) -> tensor<8xf32> {
  %0 = sift.scatter %u into %d[%i] reduce(add) : tensor<0xf32>, tensor<0xi64> into tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// x[nonzero(x == c)] reads c at every index (GatherOfSelection.cpp), the
// constant on either side of the compare.
// CHECK-LABEL: func @gather_of_selection
// CHECK-SAME: %[[X:.*]]: tensor<100xi64>
func.func @gather_of_selection(%x: tensor<100xi64>) -> (tensor<?xi64>, tensor<?xi64>) {
  %c3 = arith.constant dense<3> : tensor<100xi64>
  %m = arith.cmpi eq, %x, %c3 : tensor<100xi64>
  %m2 = arith.cmpi eq, %c3, %x : tensor<100xi64>
  // CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i64
  // CHECK-DAG: %[[I:.*]] = sift.nonzero
  // CHECK-DAG: %[[N:.*]] = tensor.dim %[[I]]
  // CHECK: %[[S:.*]] = tensor.splat %[[C3]][%[[N]]] : tensor<?xi64>
  // CHECK-NOT: sift.gather
  // CHECK: return %[[S]], %{{.*}}
  %i = sift.nonzero %m : tensor<100xi1> -> tensor<?xi64>
  %v = sift.gather %x[%i] : tensor<100xi64>, tensor<?xi64> -> tensor<?xi64>
  %i2 = sift.nonzero %m2 : tensor<100xi1> -> tensor<?xi64>
  %v2 = sift.gather %x[%i2] : tensor<100xi64>, tensor<?xi64> -> tensor<?xi64>
  return %v, %v2 : tensor<?xi64>, tensor<?xi64>
}

// -----

// The sampler's labels[idx]: positives and negatives, each a slice of a
// randperm of its own length, concatenated and shuffled by a randperm of
// the two slices' sizes. The labels are 1 where the shuffle's position is
// below the positives' count, else 0; the labels are not read again.
// CHECK-LABEL: func @sampled_labels
func.func @sampled_labels(%labels: tensor<100xi64>, %seed: i64, %k: index) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %one = arith.constant dense<1> : tensor<100xi64>
  %zero = arith.constant dense<0> : tensor<100xi64>
  %mp = arith.cmpi eq, %labels, %one : tensor<100xi64>
  %mn = arith.cmpi eq, %labels, %zero : tensor<100xi64>
  %pos = sift.nonzero %mp : tensor<100xi1> -> tensor<?xi64>
  %neg = sift.nonzero %mn : tensor<100xi1> -> tensor<?xi64>
  %np = tensor.dim %pos, %c0 : tensor<?xi64>
  %nn = tensor.dim %neg, %c0 : tensor<?xi64>
  %kp = arith.minui %np, %k : index
  %kn = arith.minui %nn, %k : index
  %pp = sift.randperm %np, %seed : tensor<?xi64>
  %tp = tensor.extract_slice %pp[0] [%kp] [1] : tensor<?xi64> to tensor<?xi64>
  %sp = sift.gather %pos[%tp] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  %pn = sift.randperm %nn, %seed : tensor<?xi64>
  %tn = tensor.extract_slice %pn[0] [%kn] [1] : tensor<?xi64> to tensor<?xi64>
  %sn = sift.gather %neg[%tn] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  %both = tensor.concat dim(0) %sp, %sn : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  %total = arith.addi %kp, %kn : index
  // CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
  // CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
  // CHECK: %[[MIX:.*]] = sift.randperm
  // CHECK-DAG: %[[END:.*]] = arith.index_cast %[[KP:.*]] : index to i64
  // CHECK-DAG: %[[B:.*]] = tensor.splat %[[END]]
  // CHECK-DAG: %[[IS_POS:.*]] = arith.cmpi slt, %[[MIX]], %[[B]] : tensor<?xi64>
  // CHECK-DAG: %[[ONES:.*]] = tensor.splat %[[ONE]]
  // CHECK-DAG: %[[ZEROS:.*]] = tensor.splat %[[ZERO]]
  // CHECK: %[[L:.*]] = arith.select %[[IS_POS]], %[[ONES]], %[[ZEROS]] : tensor<?xi1>, tensor<?xi64>
  // CHECK-NOT: sift.gather %{{.*}}labels
  // CHECK: return %[[L]]
  %mix = sift.randperm %total, %seed : tensor<?xi64>
  %idx = sift.gather %both[%mix] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  %lab = sift.gather %labels[%idx] : tensor<100xi64>, tensor<?xi64> -> tensor<?xi64>
  return %lab : tensor<?xi64>
}

// -----

// What stays a gather: a float compare with 0.0 (x == 0.0 also selects
// -0.0, whose bits the gather keeps) or an unordered one (ueq also selects
// NaN), a compare that is not an equality, a selection on another tensor,
// and positions that may be out of range (an argument: its out-of-range
// lanes read the fill).
// CHECK-LABEL: func @gather_of_selection_kept
func.func @gather_of_selection_kept(%x: tensor<100xf32>, %y: tensor<100xi64>, %z: tensor<100xi64>, %t: tensor<?xi64>)
    -> (tensor<?xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xf32>) {
  %f0 = arith.constant dense<0.0> : tensor<100xf32>
  %fh = arith.constant dense<0.5> : tensor<100xf32>
  %mu = arith.cmpf ueq, %x, %fh : tensor<100xf32>
  %iu = sift.nonzero %mu : tensor<100xi1> -> tensor<?xi64>
  // CHECK: sift.gather %{{.*}} : tensor<100xf32>, tensor<?xi64>
  %vu = sift.gather %x[%iu] : tensor<100xf32>, tensor<?xi64> -> tensor<?xf32>
  %c3 = arith.constant dense<3> : tensor<100xi64>
  %mf = arith.cmpf oeq, %x, %f0 : tensor<100xf32>
  %if = sift.nonzero %mf : tensor<100xi1> -> tensor<?xi64>
  // CHECK: sift.gather %{{.*}} : tensor<100xf32>, tensor<?xi64>
  %vf = sift.gather %x[%if] : tensor<100xf32>, tensor<?xi64> -> tensor<?xf32>
  %mg = arith.cmpi sge, %y, %c3 : tensor<100xi64>
  %ig = sift.nonzero %mg : tensor<100xi1> -> tensor<?xi64>
  // CHECK: sift.gather %{{.*}} : tensor<100xi64>, tensor<?xi64>
  %vg = sift.gather %y[%ig] : tensor<100xi64>, tensor<?xi64> -> tensor<?xi64>
  %mz = arith.cmpi eq, %z, %c3 : tensor<100xi64>
  %iz = sift.nonzero %mz : tensor<100xi1> -> tensor<?xi64>
  // CHECK: sift.gather %{{.*}} : tensor<100xi64>, tensor<?xi64>
  %vz = sift.gather %y[%iz] : tensor<100xi64>, tensor<?xi64> -> tensor<?xi64>
  %my = arith.cmpi eq, %y, %c3 : tensor<100xi64>
  %iy = sift.nonzero %my : tensor<100xi1> -> tensor<?xi64>
  %jt = sift.gather %iy[%t] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  // CHECK: sift.gather %{{.*}} : tensor<100xi64>, tensor<?xi64>
  %vt = sift.gather %y[%jt] : tensor<100xi64>, tensor<?xi64> -> tensor<?xi64>
  return %vf, %vg, %vz, %vt, %vu : tensor<?xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xf32>
}

// -----

// A float selection of c != 0 gives c (an equality that leaves one value).
// CHECK-LABEL: func @gather_of_float_selection
func.func @gather_of_float_selection(%x: tensor<10xf32>) -> tensor<?xf32> {
  %h = arith.constant dense<0.5> : tensor<10xf32>
  %m = arith.cmpf oeq, %x, %h : tensor<10xf32>
  %i = sift.nonzero %m : tensor<10xi1> -> tensor<?xi64>
  // CHECK: %[[H:.*]] = arith.constant 5.000000e-01 : f32
  // CHECK: tensor.splat %[[H]]
  // CHECK-NOT: sift.gather
  %v = sift.gather %x[%i] : tensor<10xf32>, tensor<?xi64> -> tensor<?xf32>
  return %v : tensor<?xf32>
}
