// count, compact, cumsum, gather, nonzero and masked_select, lowered with
// --sift-cpu-pipeline and run on the CPU. Expected values are worked out by
// hand from the op contracts (docs/Dialect.md) and noted next to each case.
//
// RUN: tensor-opt %s --sift-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void -shared-libs=%shlibs \
// RUN: | FileCheck %s

func.func private @printMemrefI64(tensor<*xi64>)
func.func private @printMemrefF32(tensor<*xf32>)

// Dynamic results are returned through a call, so nothing folds them away.
func.func @nonzero_1d(%x: tensor<6xf32>) -> tensor<?xi64> {
  %r = sift.nonzero %x : tensor<6xf32> -> tensor<?xi64>
  return %r : tensor<?xi64>
}
func.func @nonzero_2d(%x: tensor<2x3xi32>) -> tensor<?x2xi64> {
  %r = sift.nonzero %x : tensor<2x3xi32> -> tensor<?x2xi64>
  return %r : tensor<?x2xi64>
}
func.func @masked_rows(%x: tensor<4x2xf32>, %m: tensor<4xi1>) -> tensor<?x2xf32> {
  %r = sift.masked_select %x, %m : tensor<4x2xf32>, tensor<4xi1> -> tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}
func.func @masked_full(%x: tensor<2x3xi64>, %m: tensor<2x3xi1>) -> tensor<?xi64> {
  %r = sift.masked_select %x, %m : tensor<2x3xi64>, tensor<2x3xi1> -> tensor<?xi64>
  return %r : tensor<?xi64>
}
func.func @count_dyn(%x: tensor<?x?xf32>) -> tensor<?xi64> {
  %r = sift.count %x : tensor<?x?xf32> -> tensor<?xi64>
  return %r : tensor<?xi64>
}


// Every op sits in its own function that takes its data as arguments, so the
// lowering (not a constant fold) computes the printed values.
func.func @count2d(%x: tensor<3x4xf32>) -> tensor<3xi64> {
  %r = sift.count %x : tensor<3x4xf32> -> tensor<3xi64>
  return %r : tensor<3xi64>
}
func.func @count1d(%x: tensor<5xi1>) -> tensor<i64> {
  %r = sift.count %x : tensor<5xi1> -> tensor<i64>
  return %r : tensor<i64>
}
func.func @compact2d(%m: tensor<3x5xi1>) -> (tensor<3x3xi64>, tensor<3xi64>) {
  %i, %n = sift.compact %m {fill = 9 : i64} : tensor<3x5xi1> -> tensor<3x3xi64>, tensor<3xi64>
  return %i, %n : tensor<3x3xi64>, tensor<3xi64>
}
func.func @compact1d(%m: tensor<5xi1>) -> (tensor<6xi64>, tensor<i64>) {
  %i, %n = sift.compact %m : tensor<5xi1> -> tensor<6xi64>, tensor<i64>
  return %i, %n : tensor<6xi64>, tensor<i64>
}
func.func @cumsum_mask(%m: tensor<5xi1>) -> (tensor<5xi64>, tensor<5xi64>) {
  %a = sift.cumsum %m : tensor<5xi1> -> tensor<5xi64>
  %b = sift.cumsum %m exclusive : tensor<5xi1> -> tensor<5xi64>
  return %a, %b : tensor<5xi64>, tensor<5xi64>
}
func.func @cumsum_dim0(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %r = sift.cumsum %x {dim = 0 : i64} : tensor<3x2xf32> -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}
func.func @cumsum_wrap(%x: tensor<1x3xi64>) -> tensor<1x3xi64> {
  %r = sift.cumsum %x : tensor<1x3xi64> -> tensor<1x3xi64>
  return %r : tensor<1x3xi64>
}
func.func @gather_rows(%s: tensor<3x2xf32>, %i: tensor<4xi64>) -> tensor<4x2xf32> {
  %r = sift.gather %s[%i] : tensor<3x2xf32>, tensor<4xi64> -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
func.func @gather_batched(%s: tensor<2x3xi64>, %i: tensor<2x4xi64>) -> tensor<2x4xi64> {
  %r = sift.gather %s[%i] {batch_dims = 1 : i64, fill = -7 : i64} : tensor<2x3xi64>, tensor<2x4xi64> -> tensor<2x4xi64>
  return %r : tensor<2x4xi64>
}

func.func @main() {
  // count: NaN counts, -0.0 does not; an empty row counts 0.
  %x = arith.constant dense<[[1.0, 0.0, -0.0, 0x7FC00000], [0.0, 0.0, 0.0, 0.0], [2.0, 3.0, -1.0, 0.5]]> : tensor<3x4xf32>
  %cnt = call @count2d(%x) : (tensor<3x4xf32>) -> tensor<3xi64>
  %cntc = tensor.cast %cnt : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%cntc) : (tensor<*xi64>) -> ()
  // CHECK: [2,  0,  4]
  %m1 = arith.constant dense<[true, false, true, true, false]> : tensor<5xi1>
  %cnt1 = call @count1d(%m1) : (tensor<5xi1>) -> tensor<i64>
  %cnt1c = tensor.cast %cnt1 : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%cnt1c) : (tensor<*xi64>) -> ()
  // CHECK: rank = 0
  // CHECK-NEXT: [3]
  %empty = tensor.empty() : tensor<3x0xf32>
  %emptyd = tensor.cast %empty : tensor<3x0xf32> to tensor<?x?xf32>
  %cnt0 = call @count_dyn(%emptyd) : (tensor<?x?xf32>) -> tensor<?xi64>
  %cnt0c = tensor.cast %cnt0 : tensor<?xi64> to tensor<*xi64>
  call @printMemrefI64(%cnt0c) : (tensor<*xi64>) -> ()
  // CHECK: [0,  0,  0]

  // compact, batched: K = 3 < 4 true lanes keeps the first 3 (count = K);
  // a row with nothing selected is all fill; K = 3 > 1 true lane pads.
  %mask = arith.constant dense<[[true, true, false, true, true], [false, false, false, false, false], [false, false, false, true, false]]> : tensor<3x5xi1>
  %idx, %n = call @compact2d(%mask) : (tensor<3x5xi1>) -> (tensor<3x3xi64>, tensor<3xi64>)
  %idxc = tensor.cast %idx : tensor<3x3xi64> to tensor<*xi64>
  call @printMemrefI64(%idxc) : (tensor<*xi64>) -> ()
  // CHECK:      [0,   1,   3],
  // CHECK-NEXT: [9,   9,   9],
  // CHECK-NEXT: [3,   9,   9]
  %nc = tensor.cast %n : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%nc) : (tensor<*xi64>) -> ()
  // CHECK: [3,  0,  1]
  // 1-D, default fill -1, K = 6 > N = 5.
  %idx1, %n1 = call @compact1d(%m1) : (tensor<5xi1>) -> (tensor<6xi64>, tensor<i64>)
  %idx1c = tensor.cast %idx1 : tensor<6xi64> to tensor<*xi64>
  call @printMemrefI64(%idx1c) : (tensor<*xi64>) -> ()
  // CHECK: [0,  2,  3,  -1,  -1,  -1]
  %n1c = tensor.cast %n1 : tensor<i64> to tensor<*xi64>
  call @printMemrefI64(%n1c) : (tensor<*xi64>) -> ()
  // CHECK: [3]

  // cumsum of a mask: inclusive and exclusive into i64.
  %cs, %cse = call @cumsum_mask(%m1) : (tensor<5xi1>) -> (tensor<5xi64>, tensor<5xi64>)
  %csc = tensor.cast %cs : tensor<5xi64> to tensor<*xi64>
  call @printMemrefI64(%csc) : (tensor<*xi64>) -> ()
  // CHECK: [1,  1,  2,  3,  3]
  %csec = tensor.cast %cse : tensor<5xi64> to tensor<*xi64>
  call @printMemrefI64(%csec) : (tensor<*xi64>) -> ()
  // CHECK: [0,  1,  1,  2,  3]
  // Along dim 0 of a 3x2 f32: column sums.
  %f = arith.constant dense<[[1.0, 10.0], [2.0, 20.0], [3.5, 30.0]]> : tensor<3x2xf32>
  %fs = call @cumsum_dim0(%f) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %fsc = tensor.cast %fs : tensor<3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%fsc) : (tensor<*xf32>) -> ()
  // CHECK:      [1,   10],
  // CHECK-NEXT: [3,   30],
  // CHECK-NEXT: [6.5,   60]
  // Exclusive along the last axis of an i64 that wraps: 2^62 + 2^62 = -2^63.
  %w = arith.constant dense<[[4611686018427387904, 4611686018427387904, 5]]> : tensor<1x3xi64>
  %ws = call @cumsum_wrap(%w) : (tensor<1x3xi64>) -> tensor<1x3xi64>
  %wsc = tensor.cast %ws : tensor<1x3xi64> to tensor<*xi64>
  call @printMemrefI64(%wsc) : (tensor<*xi64>) -> ()
  // CHECK: [4611686018427387904,   -9223372036854775808,   -9223372036854775803]

  // gather rows (batch_dims = 0): -1 and 3 are out of range -> fill 0.
  %src = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %gi = arith.constant dense<[2, -1, 0, 3]> : tensor<4xi64>
  %g = call @gather_rows(%src, %gi) : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
  %gc = tensor.cast %g : tensor<4x2xf32> to tensor<*xf32>
  call @printMemrefF32(%gc) : (tensor<*xf32>) -> ()
  // CHECK:      [5,   6],
  // CHECK-NEXT: [0,   0],
  // CHECK-NEXT: [1,   2],
  // CHECK-NEXT: [0,   0]
  // batch_dims = 1 with a fill: per row take_along_axis.
  %lab = arith.constant dense<[[10, 11, 12], [20, 21, 22]]> : tensor<2x3xi64>
  %li = arith.constant dense<[[2, 2, -1, 0], [1, 5, 0, 1]]> : tensor<2x4xi64>
  %lg = call @gather_batched(%lab, %li) : (tensor<2x3xi64>, tensor<2x4xi64>) -> tensor<2x4xi64>
  %lgc = tensor.cast %lg : tensor<2x4xi64> to tensor<*xi64>
  call @printMemrefI64(%lgc) : (tensor<*xi64>) -> ()
  // CHECK:      [12,   12,   -7,   10],
  // CHECK-NEXT: [21,   -7,   20,   21]

  // nonzero, 1-D: NaN is non-zero, -0.0 is zero.
  %nz = arith.constant dense<[0.0, 1.0, -0.0, 0x7FC00000, 0.0, -2.0]> : tensor<6xf32>
  %nzr = call @nonzero_1d(%nz) : (tensor<6xf32>) -> tensor<?xi64>
  %nzrc = tensor.cast %nzr : tensor<?xi64> to tensor<*xi64>
  call @printMemrefI64(%nzrc) : (tensor<*xi64>) -> ()
  // CHECK: sizes = [3]
  // CHECK-NEXT: [1,  3,  5]
  // N-D: coordinates in row-major order.
  %nz2 = arith.constant dense<[[0, 7, 0], [5, 0, 6]]> : tensor<2x3xi32>
  %nz2r = call @nonzero_2d(%nz2) : (tensor<2x3xi32>) -> tensor<?x2xi64>
  %nz2rc = tensor.cast %nz2r : tensor<?x2xi64> to tensor<*xi64>
  call @printMemrefI64(%nz2rc) : (tensor<*xi64>) -> ()
  // CHECK: sizes = [3, 2]
  // CHECK-NEXT: [0,   1],
  // CHECK-NEXT: [1,   0],
  // CHECK-NEXT: [1,   2]
  %zeros = arith.constant dense<0.0> : tensor<6xf32>
  %nz0 = call @nonzero_1d(%zeros) : (tensor<6xf32>) -> tensor<?xi64>
  %nz0c = tensor.cast %nz0 : tensor<?xi64> to tensor<*xi64>
  call @printMemrefI64(%nz0c) : (tensor<*xi64>) -> ()
  // CHECK: sizes = [0]

  // masked_select of rows, then of every element.
  %rows = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %rm = arith.constant dense<[false, true, false, true]> : tensor<4xi1>
  %ms = call @masked_rows(%rows, %rm) : (tensor<4x2xf32>, tensor<4xi1>) -> tensor<?x2xf32>
  %msc = tensor.cast %ms : tensor<?x2xf32> to tensor<*xf32>
  call @printMemrefF32(%msc) : (tensor<*xf32>) -> ()
  // CHECK: sizes = [2, 2]
  // CHECK-NEXT: [3,   4],
  // CHECK-NEXT: [7,   8]
  %none = arith.constant dense<false> : tensor<4xi1>
  %ms0 = call @masked_rows(%rows, %none) : (tensor<4x2xf32>, tensor<4xi1>) -> tensor<?x2xf32>
  %ms0c = tensor.cast %ms0 : tensor<?x2xf32> to tensor<*xf32>
  call @printMemrefF32(%ms0c) : (tensor<*xf32>) -> ()
  // CHECK: sizes = [0, 2]
  %fm = arith.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>
  %msf = call @masked_full(%lab, %fm) : (tensor<2x3xi64>, tensor<2x3xi1>) -> tensor<?xi64>
  %msfc = tensor.cast %msf : tensor<?xi64> to tensor<*xi64>
  call @printMemrefI64(%msfc) : (tensor<*xi64>) -> ()
  // CHECK: sizes = [3]
  // CHECK-NEXT: [10,  12,  22]
  return
}
