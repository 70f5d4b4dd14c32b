// --sift-narrow-indices: a compaction whose indices only gathers read, as
// values, writes i32 indices; each gather gathers i32 (its fill too) and
// widens what it gathered. Indices that anything else reads stay i64.
// RUN: tensor-opt %s --sift-narrow-indices -split-input-file | FileCheck %s

// The sampler's `nonzero(mask)[perm]`: per row, unpadded.
// CHECK-LABEL: func.func @gathered_values
// CHECK: %[[IDX:.*]], %[[N:.*]] = sift.compact %{{.*}} unpadded : tensor<4x1000xi1> -> tensor<4x1000xi32>, tensor<4xi64>
// CHECK: %[[G:.*]] = sift.gather %[[IDX]][%{{.*}}] {batch_dims = 1 : i64, fill = -1 : i32} : tensor<4x1000xi32>, tensor<4x10xi64> -> tensor<4x10xi32>
// CHECK: %[[W:.*]] = linalg.generic
// CHECK-SAME: ins(%[[G]] : tensor<4x10xi32>) outs(%{{.*}} : tensor<4x10xi64>)
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[G2:.*]] = sift.gather %[[IDX]][%{{.*}}] {batch_dims = 1 : i64} : tensor<4x1000xi32>, tensor<4x3xi64> -> tensor<4x3xi32>
// CHECK: arith.extsi
// CHECK: return %[[W]], %{{.*}}, %[[N]]
func.func @gathered_values(%m: tensor<4x1000xi1>, %p: tensor<4x10xi64>, %q: tensor<4x3xi64>)
    -> (tensor<4x10xi64>, tensor<4x3xi64>, tensor<4xi64>) {
  %i, %n = sift.compact %m unpadded : tensor<4x1000xi1> -> tensor<4x1000xi64>, tensor<4xi64>
  %g = sift.gather %i[%p] {batch_dims = 1 : i64, fill = -1 : i64}
      : tensor<4x1000xi64>, tensor<4x10xi64> -> tensor<4x10xi64>
  %h = sift.gather %i[%q] {batch_dims = 1 : i64}
      : tensor<4x1000xi64>, tensor<4x3xi64> -> tensor<4x3xi64>
  return %g, %h, %n : tensor<4x10xi64>, tensor<4x3xi64>, tensor<4xi64>
}

// -----

// A padded compaction keeps its fill (-1 fits an i32).
// CHECK-LABEL: func.func @padded
// CHECK: sift.compact %{{[^ ]*}} : tensor<100xi1> -> tensor<8xi32>, tensor<i64>
func.func @padded(%m: tensor<100xi1>, %p: tensor<5xi64>) -> tensor<5xi64> {
  %i, %n = sift.compact %m : tensor<100xi1> -> tensor<8xi64>, tensor<i64>
  %g = sift.gather %i[%p] : tensor<8xi64>, tensor<5xi64> -> tensor<5xi64>
  return %g : tensor<5xi64>
}

// -----

// The indices are returned: they stay i64.
// CHECK-LABEL: func.func @returned
// CHECK: sift.compact %{{[^ ]*}} : tensor<100xi1> -> tensor<100xi64>, tensor<i64>
// CHECK-NOT: i32
func.func @returned(%m: tensor<100xi1>, %p: tensor<5xi64>) -> (tensor<5xi64>, tensor<100xi64>) {
  %i, %n = sift.compact %m : tensor<100xi1> -> tensor<100xi64>, tensor<i64>
  %g = sift.gather %i[%p] : tensor<100xi64>, tensor<5xi64> -> tensor<5xi64>
  return %g, %i : tensor<5xi64>, tensor<100xi64>
}

// -----

// The indices index a gather (x[nonzero(m)]): they stay i64.
// CHECK-LABEL: func.func @as_indices
// CHECK: sift.compact %{{[^ ]*}} : tensor<100xi1> -> tensor<100xi64>, tensor<i64>
// CHECK-NOT: i32
func.func @as_indices(%m: tensor<100xi1>, %x: tensor<100x4xf32>) -> tensor<100x4xf32> {
  %i, %n = sift.compact %m : tensor<100xi1> -> tensor<100xi64>, tensor<i64>
  %g = sift.gather %x[%i] : tensor<100x4xf32>, tensor<100xi64> -> tensor<100x4xf32>
  return %g : tensor<100x4xf32>
}

// -----

// A fill that an i32 cannot hold, the compaction's or a gather's: i64.
// CHECK-LABEL: func.func @wide_fills
// CHECK: sift.compact %{{[^ ]*}} {fill = 4294967296 : i64} : tensor<100xi1> -> tensor<8xi64>, tensor<i64>
// CHECK: sift.compact %{{[^ ]*}} : tensor<100xi1> -> tensor<8xi64>, tensor<i64>
// CHECK-NOT: i32
func.func @wide_fills(%m: tensor<100xi1>, %p: tensor<5xi64>) -> (tensor<5xi64>, tensor<5xi64>) {
  %i, %n = sift.compact %m {fill = 4294967296 : i64} : tensor<100xi1> -> tensor<8xi64>, tensor<i64>
  %g = sift.gather %i[%p] : tensor<8xi64>, tensor<5xi64> -> tensor<5xi64>
  %j, %k = sift.compact %m : tensor<100xi1> -> tensor<8xi64>, tensor<i64>
  %h = sift.gather %j[%p] {fill = -4294967296 : i64} : tensor<8xi64>, tensor<5xi64> -> tensor<5xi64>
  return %g, %h : tensor<5xi64>, tensor<5xi64>
}

// -----

// Lines of a dynamic length (positions may not fit an i32): i64.
// CHECK-LABEL: func.func @dynamic_line
// CHECK: sift.compact %{{[^ ]*}} : tensor<?xi1> -> tensor<8xi64>, tensor<i64>
// CHECK-NOT: i32
func.func @dynamic_line(%m: tensor<?xi1>, %p: tensor<5xi64>) -> tensor<5xi64> {
  %i, %n = sift.compact %m : tensor<?xi1> -> tensor<8xi64>, tensor<i64>
  %g = sift.gather %i[%p] : tensor<8xi64>, tensor<5xi64> -> tensor<5xi64>
  return %g : tensor<5xi64>
}
