// Region ops that yield or carry bounded tensors: an scf.if whose branches
// yield selections pads both to the larger bound and yields each with its
// count (then if-converts a branch on device data); an scf.for that carries
// a selection of a selection keeps the initial value's bound and carries
// the padded tensor with its count.
// RUN: tensor-opt %s --sift-staticize --sift-verify-static -split-input-file | FileCheck %s --implicit-check-not='tensor<?'

// A branch on a count: both selections run, padded to 16 rows (the else
// branch's 4 rows are fitted up), and selects pick the rows and the count.
// CHECK-LABEL: func @if_on_count
// CHECK-SAME: -> (tensor<16xi64>, tensor<i64>)
// CHECK-NOT: scf.if
// CHECK: %[[ANY:.*]] = arith.cmpi sgt
// CHECK: %[[A:.*]], %[[NA:.*]] = sift.compact %{{.*}} : tensor<16xi1> -> tensor<16xi64>, tensor<i64>
// CHECK: %[[B:.*]], %[[NB:.*]] = sift.compact %{{.*}} : tensor<8xi1> -> tensor<8xi64>, tensor<i64>
// CHECK: %[[B4:.*]] = sift.gather %[[B]][%{{.*}}] : tensor<8xi64>, tensor<4xi64> -> tensor<4xi64>
// CHECK: %[[B16:.*]] = sift.gather %[[B4]][%{{.*}}] : tensor<4xi64>, tensor<16xi64> -> tensor<16xi64>
// CHECK: %[[R:.*]] = arith.select %[[ANY]], %[[A]], %[[B16]] : tensor<16xi64>
// CHECK: %[[N:.*]] = arith.select %[[ANY]], %{{.*}}, %{{.*}} : index
// CHECK: return %[[R]], %{{.*}} : tensor<16xi64>, tensor<i64>
func.func @if_on_count(%a: tensor<16xi1>, %b: tensor<8xi1>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i64
  %n = sift.count %a : tensor<16xi1> -> tensor<i64>
  %ne = tensor.extract %n[] : tensor<i64>
  %any = arith.cmpi sgt, %ne, %zero : i64
  %idx = scf.if %any -> tensor<?xi64> {
    %i = sift.nonzero %a : tensor<16xi1> -> tensor<?xi64>
    scf.yield %i : tensor<?xi64>
  } else {
    %i = sift.nonzero %b : tensor<8xi1> -> tensor<?xi64>
    %m = tensor.dim %i, %c0 : tensor<?xi64>
    %k = arith.minsi %m, %c4 : index
    %first = tensor.extract_slice %i[0] [%k] [1] : tensor<?xi64> to tensor<?xi64>
    scf.yield %first : tensor<?xi64>
  }
  return %idx : tensor<?xi64>
}

// -----

// A branch on a host flag stays a branch, with static results: the padded
// rows and the count. A static result keeps its place.
// CHECK-LABEL: func @if_on_flag
// CHECK-SAME: -> (tensor<10x2xf32>, tensor<i64>, tensor<f32>)
// CHECK: %[[R:.*]]:3 = scf.if %{{.*}} -> (tensor<10x2xf32>, index, tensor<f32>) {
// CHECK: sift.compact %{{.*}} : tensor<10xi1> -> tensor<10xi64>, tensor<i64>
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<10x2xf32>, index, tensor<f32>
// CHECK: } else {
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<10x2xf32>, index, tensor<f32>
// CHECK: return %[[R]]#0, %{{.*}}, %[[R]]#2 : tensor<10x2xf32>, tensor<i64>, tensor<f32>
func.func @if_on_flag(%flag: i1, %x: tensor<10x2xf32>, %m: tensor<10xi1>, %m2: tensor<10xi1>, %t: tensor<f32>)
    -> (tensor<?x2xf32>, tensor<f32>) {
  %sel, %tt = scf.if %flag -> (tensor<?x2xf32>, tensor<f32>) {
    %s = sift.masked_select %x, %m : tensor<10x2xf32>, tensor<10xi1> -> tensor<?x2xf32>
    scf.yield %s, %t : tensor<?x2xf32>, tensor<f32>
  } else {
    %s = sift.masked_select %x, %m2 : tensor<10x2xf32>, tensor<10xi1> -> tensor<?x2xf32>
    scf.yield %s, %t : tensor<?x2xf32>, tensor<f32>
  }
  return %sel, %tt : tensor<?x2xf32>, tensor<f32>
}

// -----

// A selection refined by each iteration keeps the bound of the first one
// (50 rows); the loop carries the padded rows and the count.
// CHECK-LABEL: func @carried_selection
// CHECK-SAME: -> (tensor<50xf32>, tensor<i64>)
// CHECK: %[[S0:.*]] = sift.gather %{{.*}}[%{{.*}}] : tensor<50xf32>, tensor<50xi64> -> tensor<50xf32>
// CHECK: %[[R:.*]]:2 = scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args(%[[S:.*]] = %[[S0]], %[[N:.*]] = %{{.*}}) -> (tensor<50xf32>, index) {
// CHECK: arith.cmpi slt, %{{.*}}, %[[N]] : index
// CHECK: %[[NEXT:.*]], %[[COUNT:.*]] = sift.compact %{{.*}} : tensor<50xi1> -> tensor<50xi64>, tensor<i64>
// CHECK: %[[ROWS:.*]] = sift.gather %[[S]][%[[NEXT]]]
// CHECK: scf.yield %[[ROWS]], %{{.*}} : tensor<50xf32>, index
// CHECK: return %[[R]]#0, %{{.*}} : tensor<50xf32>, tensor<i64>
func.func @carried_selection(%x: tensor<50xf32>, %ts: tensor<3xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant dense<0.0> : tensor<50xf32>
  %pos = arith.cmpf ogt, %x, %z : tensor<50xf32>
  %s0 = sift.masked_select %x, %pos : tensor<50xf32>, tensor<50xi1> -> tensor<?xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %s0) -> tensor<?xf32> {
    %t = tensor.extract %ts[%i] : tensor<3xf32>
    %n = tensor.dim %s, %c0 : tensor<?xf32>
    %tt = tensor.splat %t[%n] : tensor<?xf32>
    %keep = arith.cmpf ogt, %s, %tt : tensor<?xf32>
    %s2 = sift.masked_select %s, %keep : tensor<?xf32>, tensor<?xi1> -> tensor<?xf32>
    scf.yield %s2 : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// A loop over range(count) that carries a selection: it runs to the
// count's bound, and an iteration past the count keeps the carried rows
// and count (selects on the yielded values).
// CHECK-LABEL: func @carried_over_count
// CHECK-SAME: -> (tensor<8xi64>, tensor<i64>)
// CHECK: scf.for %[[K:.*]] = %c0 to %c8{{.*}} step %c1 iter_args(%[[S:.*]] = %{{.*}}, %[[N:.*]] = %{{.*}}) -> (tensor<8xi64>, index) {
// CHECK: %[[VALID:.*]] = arith.cmpi slt, %[[K]], %{{.*}} : index
// CHECK: %[[KEEP_ROWS:.*]] = arith.select %[[VALID]], %{{.*}}, %[[S]] : tensor<8xi64>
// CHECK: %[[KEEP_N:.*]] = arith.select %[[VALID]], %{{.*}}, %[[N]] : index
// CHECK: scf.yield %[[KEEP_ROWS]], %[[KEEP_N]] : tensor<8xi64>, index
func.func @carried_over_count(%m: tensor<8xi1>, %x: tensor<8xi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %idx = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  %v = sift.gather %x[%idx] : tensor<8xi64>, tensor<?xi64> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  // for k in range(len(idx)): v = v[v != x[k]]
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%s = %v) -> tensor<?xi64> {
    %e = tensor.extract %x[%k] : tensor<8xi64>
    %ns = tensor.dim %s, %c0 : tensor<?xi64>
    %es = tensor.splat %e[%ns] : tensor<?xi64>
    %keep = arith.cmpi ne, %s, %es : tensor<?xi64>
    %s2 = sift.masked_select %s, %keep : tensor<?xi64>, tensor<?xi1> -> tensor<?xi64>
    scf.yield %s2 : tensor<?xi64>
  }
  return %r : tensor<?xi64>
}

// -----

// An scf.index_switch whose cases yield selections: each padded to the
// largest case bound (16), yielded with its count.
// CHECK-LABEL: func.func @switch_selections
// CHECK-SAME: -> (tensor<16xf32>, tensor<i64>)
// CHECK: scf.index_switch %{{.*}} -> tensor<16xf32>, index
// CHECK: case 0 {
// CHECK: sift.compact %{{.*}} : tensor<16xi1> -> tensor<16xi64>, tensor<i64>
// CHECK: scf.yield %{{.*}}, %{{.*}} : tensor<16xf32>, index
// CHECK: default {
// CHECK: sift.compact %{{.*}} : tensor<8xi1> -> tensor<8xi64>, tensor<i64>
// CHECK: scf.yield %{{.*}}, %{{.*}} : tensor<16xf32>, index
func.func @switch_selections(%x: tensor<16xf32>, %y: tensor<8xf32>, %i: index) -> tensor<?xf32> {
  %r = scf.index_switch %i -> tensor<?xf32>
  case 0 {
    %z = arith.constant dense<0.0> : tensor<16xf32>
    %m = arith.cmpf ogt, %x, %z : tensor<16xf32>
    %s = sift.masked_select %x, %m : tensor<16xf32>, tensor<16xi1> -> tensor<?xf32>
    scf.yield %s : tensor<?xf32>
  }
  default {
    %z = arith.constant dense<0.0> : tensor<8xf32>
    %m = arith.cmpf olt, %y, %z : tensor<8xf32>
    %s = sift.masked_select %y, %m : tensor<8xf32>, tensor<8xi1> -> tensor<?xf32>
    scf.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
