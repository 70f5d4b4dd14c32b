// sort, argsort, topk, unique and sample_balanced (LSD radix sorts), lowered
// with --sift-cpu-pipeline and run on the CPU. Sorted orders are worked out
// by hand from the contract (stable, NaN largest, -0.0 == +0.0); the
// sample_balanced rows come from the Python Philox reference:
//   keys = philox.words(11, 2 + r, 8); each group sorted by (key, index),
//   num_pos = min(P, floor(4 * 0.5)), num_neg = min(Q, 4 - num_pos).
//
// RUN: tensor-opt %s --sift-cpu-pipeline \
// RUN: | %mlir_runner -e main -entry-point-result=void -shared-libs=%shlibs \
// RUN: | FileCheck %s

func.func private @printMemrefI64(tensor<*xi64>)
func.func private @printMemrefF32(tensor<*xf32>)

func.func @sort_desc(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>) {
  %v, %i = sift.sort %x descending : tensor<2x4xf32> -> tensor<2x4xf32>, tensor<2x4xi64>
  return %v, %i : tensor<2x4xf32>, tensor<2x4xi64>
}
func.func @sort_asc(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>) {
  %v, %i = sift.sort %x : tensor<2x4xf32> -> tensor<2x4xf32>, tensor<2x4xi64>
  return %v, %i : tensor<2x4xf32>, tensor<2x4xi64>
}
func.func @argsort_dim0(%x: tensor<3x2xi32>) -> tensor<3x2xi64> {
  %i = sift.argsort %x {dim = 0 : i64} : tensor<3x2xi32> -> tensor<3x2xi64>
  return %i : tensor<3x2xi64>
}
func.func @topk_largest(%x: tensor<5xf32>) -> (tensor<2xf32>, tensor<2xi64>) {
  %v, %i = sift.topk %x k(2) : tensor<5xf32> -> tensor<2xf32>, tensor<2xi64>
  return %v, %i : tensor<2xf32>, tensor<2xi64>
}
func.func @topk_smallest(%x: tensor<5xf32>) -> (tensor<3xf32>, tensor<3xi64>) {
  %v, %i = sift.topk %x k(3) smallest unsorted : tensor<5xf32> -> tensor<3xf32>, tensor<3xi64>
  return %v, %i : tensor<3xf32>, tensor<3xi64>
}
func.func @topk_all(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xi64>) {
  %v, %i = sift.topk %x k(5) : tensor<5xf32> -> tensor<5xf32>, tensor<5xi64>
  return %v, %i : tensor<5xf32>, tensor<5xi64>
}
func.func @topk_none(%x: tensor<5xf32>) -> (tensor<0xf32>, tensor<0xi64>) {
  %v, %i = sift.topk %x k(0) : tensor<5xf32> -> tensor<0xf32>, tensor<0xi64>
  return %v, %i : tensor<0xf32>, tensor<0xi64>
}
func.func @unique(%x: tensor<7xf32>) -> (tensor<?xf32>, tensor<7xi64>, tensor<?xi64>) {
  %u, %inv, %cnt = sift.unique %x inverse counts : tensor<7xf32> -> tensor<?xf32>, tensor<7xi64>, tensor<?xi64>
  return %u, %inv, %cnt : tensor<?xf32>, tensor<7xi64>, tensor<?xi64>
}
// Two dynamic sizes in the inverse's shape (the lowering must not hand
// MLIR 22's expand-strided-metadata an expand_shape it crashes on).
func.func @unique_2d(%x: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %u, %inv = sift.unique %x inverse : tensor<?x?xi64> -> tensor<?xi64>, tensor<?x?xi64>
  return %inv : tensor<?x?xi64>
}
func.func @unique_empty(%x: tensor<0xi64>) -> tensor<?xi64> {
  %u = sift.unique %x : tensor<0xi64> -> tensor<?xi64>
  return %u : tensor<?xi64>
}
func.func @sample(%l: tensor<3x8xi64>, %seed: i64, %off: i64) -> (tensor<3x4xi64>, tensor<3xi64>) {
  %i, %n = sift.sample_balanced %l, %seed offset %off {num_samples = 4 : i64, positive_fraction = 5.000000e-01 : f64} : tensor<3x8xi64> -> tensor<3x4xi64>, tensor<3xi64>
  return %i, %n : tensor<3x4xi64>, tensor<3xi64>
}

func.func @main() {
  %x = arith.constant dense<[[3.0, 1.0, 2.0, 1.0], [0.0, -1.0, 0x7FC00000, -0.0]]> : tensor<2x4xf32>
  %dv, %di = call @sort_desc(%x) : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  %dvc = tensor.cast %dv : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%dvc) : (tensor<*xf32>) -> ()
  // CHECK:      [3,   2,   1,   1],
  // CHECK-NEXT: [nan,   0,   -0,   -1]
  %dic = tensor.cast %di : tensor<2x4xi64> to tensor<*xi64>
  call @printMemrefI64(%dic) : (tensor<*xi64>) -> ()
  // Ties keep input order in both directions (1.0 at 1 before 3; 0.0 at 0
  // before -0.0 at 3).
  // CHECK:      [0,   2,   1,   3],
  // CHECK-NEXT: [2,   0,   3,   1]
  %av, %ai = call @sort_asc(%x) : (tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  %aic = tensor.cast %ai : tensor<2x4xi64> to tensor<*xi64>
  call @printMemrefI64(%aic) : (tensor<*xi64>) -> ()
  // CHECK:      [1,   3,   2,   0],
  // CHECK-NEXT: [1,   0,   3,   2]

  %xi = arith.constant dense<[[3, 1], [1, 1], [-2, 0]]> : tensor<3x2xi32>
  %ad = call @argsort_dim0(%xi) : (tensor<3x2xi32>) -> tensor<3x2xi64>
  %adc = tensor.cast %ad : tensor<3x2xi64> to tensor<*xi64>
  call @printMemrefI64(%adc) : (tensor<*xi64>) -> ()
  // CHECK:      [2,   2],
  // CHECK-NEXT: [1,   0],
  // CHECK-NEXT: [0,   1]

  %t = arith.constant dense<[1.0, 5.0, 5.0, 0x7FC00000, 2.0]> : tensor<5xf32>
  %lv, %li = call @topk_largest(%t) : (tensor<5xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  %lic = tensor.cast %li : tensor<2xi64> to tensor<*xi64>
  call @printMemrefI64(%lic) : (tensor<*xi64>) -> ()
  // CHECK: [3,  1]
  %sv, %si = call @topk_smallest(%t) : (tensor<5xf32>) -> (tensor<3xf32>, tensor<3xi64>)
  %svc = tensor.cast %sv : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%svc) : (tensor<*xf32>) -> ()
  // `unsorted`: the same three elements, in this lowering's selection
  // order: the keys whose top varying digit is below the third's, in
  // index order, then the others taken (here that is index order).
  // CHECK: [1,  5,  2]
  %sic = tensor.cast %si : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%sic) : (tensor<*xi64>) -> ()
  // CHECK: [0,  1,  4]
  %kv, %ki = call @topk_all(%t) : (tensor<5xf32>) -> (tensor<5xf32>, tensor<5xi64>)
  %kvc = tensor.cast %kv : tensor<5xf32> to tensor<*xf32>
  call @printMemrefF32(%kvc) : (tensor<*xf32>) -> ()
  // CHECK: [nan,  5,  5,  2,  1]
  %kic = tensor.cast %ki : tensor<5xi64> to tensor<*xi64>
  call @printMemrefI64(%kic) : (tensor<*xi64>) -> ()
  // CHECK: [3,  1,  2,  4,  0]
  %zv, %zi = call @topk_none(%t) : (tensor<5xf32>) -> (tensor<0xf32>, tensor<0xi64>)
  %zic = tensor.cast %zi : tensor<0xi64> to tensor<*xi64>
  call @printMemrefI64(%zic) : (tensor<*xi64>) -> ()
  // CHECK: sizes = [0]

  // unique: -0.0 and 0.0 are one value, the NaNs one value sorted last.
  %ux = arith.constant dense<[3.0, 0x7FC00000, 1.0, 3.0, 0x7FC00000, -0.0, 0.0]> : tensor<7xf32>
  %u, %inv, %cnt = call @unique(%ux) : (tensor<7xf32>) -> (tensor<?xf32>, tensor<7xi64>, tensor<?xi64>)
  %uc = tensor.cast %u : tensor<?xf32> to tensor<*xf32>
  call @printMemrefF32(%uc) : (tensor<*xf32>) -> ()
  // CHECK: sizes = [4]
  // CHECK-NEXT: [-0,  1,  3,  nan]
  %invc = tensor.cast %inv : tensor<7xi64> to tensor<*xi64>
  call @printMemrefI64(%invc) : (tensor<*xi64>) -> ()
  // CHECK: [2,  3,  1,  2,  3,  0,  0]
  %cntc = tensor.cast %cnt : tensor<?xi64> to tensor<*xi64>
  call @printMemrefI64(%cntc) : (tensor<*xi64>) -> ()
  // CHECK: [2,  1,  2,  2]
  %u2x = arith.constant dense<[[5, 1, 5], [2, 1, 9]]> : tensor<2x3xi64>
  %u2d = tensor.cast %u2x : tensor<2x3xi64> to tensor<?x?xi64>
  %inv2 = call @unique_2d(%u2d) : (tensor<?x?xi64>) -> tensor<?x?xi64>
  %inv2c = tensor.cast %inv2 : tensor<?x?xi64> to tensor<*xi64>
  call @printMemrefI64(%inv2c) : (tensor<*xi64>) -> ()
  // CHECK: sizes = [2, 3]
  // CHECK-NEXT: [2,   0,   2],
  // CHECK-NEXT: [1,   0,   3]
  %e = tensor.empty() : tensor<0xi64>
  %ue = call @unique_empty(%e) : (tensor<0xi64>) -> tensor<?xi64>
  %uec = tensor.cast %ue : tensor<?xi64> to tensor<*xi64>
  call @printMemrefI64(%uec) : (tensor<*xi64>) -> ()
  // CHECK: sizes = [0]

  // Row 0: 3 positives, 4 negatives -> 2 + 2; row 1: no positive, the
  // negatives fill all 4 lanes; row 2: everything ignored.
  %labels = arith.constant dense<[[1, 0, 0, -1, 2, 0, 0, 3], [0, 0, -1, 0, 0, 0, 0, 0], [-1, -1, -1, -1, -1, -1, -1, -1]]> : tensor<3x8xi64>
  %seed = arith.constant 11 : i64
  %off = arith.constant 2 : i64
  %si2, %sn = call @sample(%labels, %seed, %off) : (tensor<3x8xi64>, i64, i64) -> (tensor<3x4xi64>, tensor<3xi64>)
  %si2c = tensor.cast %si2 : tensor<3x4xi64> to tensor<*xi64>
  call @printMemrefI64(%si2c) : (tensor<*xi64>) -> ()
  // CHECK:      [7,   4,   5,   2],
  // CHECK-NEXT: [1,   5,   7,   0],
  // CHECK-NEXT: [-1,   -1,   -1,   -1]
  %snc = tensor.cast %sn : tensor<3xi64> to tensor<*xi64>
  call @printMemrefI64(%snc) : (tensor<*xi64>) -> ()
  // CHECK: [4,  4,  0]
  return
}
