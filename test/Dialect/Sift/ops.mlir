// Round-trip of every sift op, in the custom form and in the generic form.
// RUN: tensor-opt %s | tensor-opt | FileCheck %s
// RUN: tensor-opt %s --mlir-print-op-generic | tensor-opt | FileCheck %s

// CHECK-LABEL: func @nonzero
// CHECK-SAME: %[[M:.*]]: tensor<8xi1>, %[[X:.*]]: tensor<4x5xf32>
func.func @nonzero(%m: tensor<8xi1>, %x: tensor<4x5xf32>)
    -> (tensor<?xi64>, tensor<?x2xi64>) {
  // CHECK: sift.nonzero %[[M]] : tensor<8xi1> -> tensor<?xi64>
  %0 = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  // CHECK: sift.nonzero %[[X]] : tensor<4x5xf32> -> tensor<?x2xi64>
  %1 = sift.nonzero %x : tensor<4x5xf32> -> tensor<?x2xi64>
  return %0, %1 : tensor<?xi64>, tensor<?x2xi64>
}

// CHECK-LABEL: func @nonzero_dynamic_input
func.func @nonzero_dynamic_input(%m: tensor<?xi64>) -> tensor<?xi64> {
  // CHECK: sift.nonzero %{{.*}} : tensor<?xi64> -> tensor<?xi64>
  %0 = sift.nonzero %m : tensor<?xi64> -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// CHECK-LABEL: func @unique
// CHECK-SAME: %[[L:.*]]: tensor<100xi64>
func.func @unique(%l: tensor<100xi64>, %x: tensor<4x4xf32>) {
  // CHECK: sift.unique %[[L]] : tensor<100xi64> -> tensor<?xi64>
  %0 = sift.unique %l : tensor<100xi64> -> tensor<?xi64>
  // CHECK: sift.unique %[[L]] inverse counts : tensor<100xi64> -> tensor<?xi64>, tensor<100xi64>, tensor<?xi64>
  %1:3 = sift.unique %l inverse counts
      : tensor<100xi64> -> tensor<?xi64>, tensor<100xi64>, tensor<?xi64>
  // CHECK: sift.unique %{{.*}} inverse : tensor<4x4xf32> -> tensor<?xf32>, tensor<4x4xi64>
  %2:2 = sift.unique %x inverse : tensor<4x4xf32> -> tensor<?xf32>, tensor<4x4xi64>
  // CHECK: sift.unique %[[L]] counts : tensor<100xi64> -> tensor<?xi64>, tensor<?xi64>
  %3:2 = sift.unique %l counts : tensor<100xi64> -> tensor<?xi64>, tensor<?xi64>
  return
}

// CHECK-LABEL: func @masked_select
func.func @masked_select(%x: tensor<1000x4xf32>, %rows: tensor<1000xi1>,
                         %all: tensor<1000x4xi1>)
    -> (tensor<?x4xf32>, tensor<?xf32>) {
  // CHECK: sift.masked_select %{{.*}}, %{{.*}} : tensor<1000x4xf32>, tensor<1000xi1> -> tensor<?x4xf32>
  %0 = sift.masked_select %x, %rows
      : tensor<1000x4xf32>, tensor<1000xi1> -> tensor<?x4xf32>
  // CHECK: sift.masked_select %{{.*}}, %{{.*}} : tensor<1000x4xf32>, tensor<1000x4xi1> -> tensor<?xf32>
  %1 = sift.masked_select %x, %all
      : tensor<1000x4xf32>, tensor<1000x4xi1> -> tensor<?xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<?xf32>
}

// CHECK-LABEL: func @randperm
// CHECK-SAME: %[[N:.*]]: index, %[[SEED:.*]]: i64, %[[OFF:.*]]: i64
func.func @randperm(%n: index, %seed: i64, %off: i64)
    -> (tensor<?xi64>, tensor<?xi64>, tensor<16xi64>) {
  // CHECK: sift.randperm %[[N]], %[[SEED]] : tensor<?xi64>
  %0 = sift.randperm %n, %seed : tensor<?xi64>
  // CHECK: sift.randperm %[[N]], %[[SEED]] offset %[[OFF]] : tensor<?xi64>
  %1 = sift.randperm %n, %seed offset %off : tensor<?xi64>
  %c16 = arith.constant 16 : index
  // CHECK: sift.randperm %{{.*}}, %[[SEED]] : tensor<16xi64>
  %2 = sift.randperm %c16, %seed : tensor<16xi64>
  return %0, %1, %2 : tensor<?xi64>, tensor<?xi64>, tensor<16xi64>
}

// CHECK-LABEL: func @randperm_sort_and_prefix
// CHECK-SAME: %[[N:.*]]: index, %[[SEED:.*]]: i64, %[[OFF:.*]]: i64, %[[NS:.*]]: tensor<4xindex>, %[[SEEDS:.*]]: tensor<4xi64>
func.func @randperm_sort_and_prefix(%n: index, %seed: i64, %off: i64,
                            %ns: tensor<4xindex>, %seeds: tensor<4xi64>)
    -> (tensor<?xi64>, tensor<10xi64>, tensor<4x10xi64>, tensor<4x10xi64>) {
  // CHECK: sift.randperm %[[N]], %[[SEED]] offset %[[OFF]] sort : tensor<?xi64>
  %0 = sift.randperm %n, %seed offset %off sort : tensor<?xi64>
  // CHECK: sift.randperm_prefix %[[N]], %[[SEED]] : (index, i64) -> tensor<10xi64>
  %1 = sift.randperm_prefix %n, %seed : (index, i64) -> tensor<10xi64>
  // CHECK: sift.randperm_prefix %[[NS]], %[[SEEDS]] offset %[[OFF]] limit %[[N]] : (tensor<4xindex>, tensor<4xi64>, i64, index) -> tensor<4x10xi64>
  %2 = sift.randperm_prefix %ns, %seeds offset %off limit %n
      : (tensor<4xindex>, tensor<4xi64>, i64, index) -> tensor<4x10xi64>
  // CHECK: sift.randperm_prefix %[[N]], %[[SEED]] limit %[[NS]] : (index, i64, tensor<4xindex>) -> tensor<4x10xi64>
  %3 = sift.randperm_prefix %n, %seed limit %ns
      : (index, i64, tensor<4xindex>) -> tensor<4x10xi64>
  return %0, %1, %2, %3
      : tensor<?xi64>, tensor<10xi64>, tensor<4x10xi64>, tensor<4x10xi64>
}

// CHECK-LABEL: func @count
func.func @count(%m: tensor<1000xi1>, %b: tensor<32x1000xf32>)
    -> (tensor<i64>, tensor<32xi64>) {
  // CHECK: sift.count %{{.*}} : tensor<1000xi1> -> tensor<i64>
  %0 = sift.count %m : tensor<1000xi1> -> tensor<i64>
  // CHECK: sift.count %{{.*}} : tensor<32x1000xf32> -> tensor<32xi64>
  %1 = sift.count %b : tensor<32x1000xf32> -> tensor<32xi64>
  return %0, %1 : tensor<i64>, tensor<32xi64>
}

// CHECK-LABEL: func @compact
func.func @compact(%m: tensor<1000xi1>, %b: tensor<8x100xi1>) {
  // CHECK: sift.compact %{{.*}} : tensor<1000xi1> -> tensor<1000xi64>, tensor<i64>
  %0:2 = sift.compact %m : tensor<1000xi1> -> tensor<1000xi64>, tensor<i64>
  // CHECK: sift.compact %{{.*}} {fill = 0 : i64} : tensor<8x100xi1> -> tensor<8x16xi64>, tensor<8xi64>
  %1:2 = sift.compact %b {fill = 0 : i64}
      : tensor<8x100xi1> -> tensor<8x16xi64>, tensor<8xi64>
  // CHECK: sift.compact %{{.*}} unpadded : tensor<8x100xi1> -> tensor<8x100xi32>, tensor<8xi64>
  %2:2 = sift.compact %b unpadded
      : tensor<8x100xi1> -> tensor<8x100xi32>, tensor<8xi64>
  return
}

// CHECK-LABEL: func @cumsum
func.func @cumsum(%m: tensor<1000xi1>, %x: tensor<4x8xf32>) {
  // CHECK: sift.cumsum %{{.*}} exclusive : tensor<1000xi1> -> tensor<1000xi64>
  %0 = sift.cumsum %m exclusive : tensor<1000xi1> -> tensor<1000xi64>
  // CHECK: sift.cumsum %{{.*}} {dim = 0 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = sift.cumsum %x {dim = 0 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: sift.cumsum %{{.*}} : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = sift.cumsum %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// CHECK-LABEL: func @sort
func.func @sort(%x: tensor<1000xf32>, %y: tensor<4x8xi32>) {
  // CHECK: sift.sort %{{.*}} descending : tensor<1000xf32> -> tensor<1000xf32>, tensor<1000xi64>
  %0:2 = sift.sort %x descending
      : tensor<1000xf32> -> tensor<1000xf32>, tensor<1000xi64>
  // CHECK: sift.sort %{{.*}} {dim = 0 : i64} : tensor<4x8xi32> -> tensor<4x8xi32>, tensor<4x8xi64>
  %1:2 = sift.sort %y {dim = 0 : i64}
      : tensor<4x8xi32> -> tensor<4x8xi32>, tensor<4x8xi64>
  // CHECK: sift.argsort %{{.*}} : tensor<4x8xi32> -> tensor<4x8xi64>
  %2 = sift.argsort %y : tensor<4x8xi32> -> tensor<4x8xi64>
  // CHECK: sift.argsort %{{.*}} descending {dim = -2 : i64} : tensor<4x8xi32> -> tensor<4x8xi64>
  %3 = sift.argsort %y descending {dim = -2 : i64}
      : tensor<4x8xi32> -> tensor<4x8xi64>
  // CHECK: sift.argsort %{{.*}} descending unsigned : tensor<4x8xi32> -> tensor<4x8xi64>
  %4 = sift.argsort %y descending unsigned : tensor<4x8xi32> -> tensor<4x8xi64>
  return
}

// CHECK-LABEL: func @topk
func.func @topk(%x: tensor<1000xf32>, %y: tensor<8x64xf32>, %d: tensor<?xf32>) {
  // CHECK: sift.topk %{{.*}} k(100) : tensor<1000xf32> -> tensor<100xf32>, tensor<100xi64>
  %0:2 = sift.topk %x k(100)
      : tensor<1000xf32> -> tensor<100xf32>, tensor<100xi64>
  // CHECK: sift.topk %{{.*}} k(5) smallest unsorted {dim = 1 : i64} : tensor<8x64xf32> -> tensor<8x5xf32>, tensor<8x5xi64>
  %1:2 = sift.topk %y k(5) smallest unsorted {dim = 1 : i64}
      : tensor<8x64xf32> -> tensor<8x5xf32>, tensor<8x5xi64>
  // CHECK: sift.topk %{{.*}} k(0) : tensor<?xf32> -> tensor<0xf32>, tensor<0xi64>
  %2:2 = sift.topk %d k(0) : tensor<?xf32> -> tensor<0xf32>, tensor<0xi64>
  return
}

// CHECK-LABEL: func @topk_unsigned
func.func @topk_unsigned(%x: tensor<1000xi32>, %n: index) {
  // CHECK: sift.topk %{{.*}} k(10) valid(%{{.*}} : index) smallest unsigned : tensor<1000xi32> -> tensor<10xi32>, tensor<10xi64>
  %0:2 = sift.topk %x k(10) valid(%n : index) smallest unsigned
      : tensor<1000xi32> -> tensor<10xi32>, tensor<10xi64>
  return
}

// `valid`: one index for every line, or one per line.
// CHECK-LABEL: func @topk_valid
func.func @topk_valid(%x: tensor<1000xf32>, %y: tensor<8x64xf32>, %n: index,
                      %rows: tensor<8xindex>, %cols: tensor<64xindex>) {
  // CHECK: sift.topk %{{.*}} k(100) valid(%{{.*}} : index) smallest : tensor<1000xf32> -> tensor<100xf32>, tensor<100xi64>
  %0:2 = sift.topk %x k(100) valid(%n : index) smallest
      : tensor<1000xf32> -> tensor<100xf32>, tensor<100xi64>
  // CHECK: sift.topk %{{.*}} k(5) valid(%{{.*}} : tensor<8xindex>) unsorted {dim = 1 : i64} : tensor<8x64xf32> -> tensor<8x5xf32>, tensor<8x5xi64>
  %1:2 = sift.topk %y k(5) valid(%rows : tensor<8xindex>) unsorted {dim = 1 : i64}
      : tensor<8x64xf32> -> tensor<8x5xf32>, tensor<8x5xi64>
  // CHECK: sift.topk %{{.*}} k(2) valid(%{{.*}} : tensor<64xindex>) {dim = 0 : i64} : tensor<8x64xf32> -> tensor<2x64xf32>, tensor<2x64xi64>
  %2:2 = sift.topk %y k(2) valid(%cols : tensor<64xindex>) {dim = 0 : i64}
      : tensor<8x64xf32> -> tensor<2x64xf32>, tensor<2x64xi64>
  return
}

// `limit`: k is a bound; one limit for every line, or one per line.
// CHECK-LABEL: func @topk_limit
func.func @topk_limit(%x: tensor<1000xi32>, %y: tensor<8x64xf32>, %n: index,
                      %m: index, %rows: tensor<8xindex>) {
  // CHECK: sift.topk %{{.*}} k(100) valid(%{{.*}} : index) limit(%{{.*}} : index) smallest unsigned : tensor<1000xi32> -> tensor<100xi32>, tensor<100xi64>
  %0:2 = sift.topk %x k(100) valid(%n : index) limit(%m : index) smallest unsigned
      : tensor<1000xi32> -> tensor<100xi32>, tensor<100xi64>
  // CHECK: sift.topk %{{.*}} k(5) limit(%{{.*}} : tensor<8xindex>) {dim = 1 : i64} : tensor<8x64xf32> -> tensor<8x5xf32>, tensor<8x5xi64>
  %1:2 = sift.topk %y k(5) limit(%rows : tensor<8xindex>) {dim = 1 : i64}
      : tensor<8x64xf32> -> tensor<8x5xf32>, tensor<8x5xi64>
  return
}

// CHECK-LABEL: func @gather
func.func @gather(%feats: tensor<10000x16xf32>, %idx: tensor<1000xi64>,
                  %labels: tensor<32x10000xi64>, %bidx: tensor<32x1000xi64>) {
  // CHECK: sift.gather %{{.*}}[%{{.*}}] : tensor<10000x16xf32>, tensor<1000xi64> -> tensor<1000x16xf32>
  %0 = sift.gather %feats[%idx]
      : tensor<10000x16xf32>, tensor<1000xi64> -> tensor<1000x16xf32>
  // CHECK: sift.gather %{{.*}}[%{{.*}}] {batch_dims = 1 : i64, fill = -1 : i64} : tensor<32x10000xi64>, tensor<32x1000xi64> -> tensor<32x1000xi64>
  %1 = sift.gather %labels[%bidx] {batch_dims = 1 : i64, fill = -1 : i64}
      : tensor<32x10000xi64>, tensor<32x1000xi64> -> tensor<32x1000xi64>
  return
}

// CHECK-LABEL: func @scatter
func.func @scatter(%u: tensor<1000x16xf32>, %d: tensor<10x16xf32>,
                   %idx: tensor<1000xi64>, %ones: tensor<?xi64>,
                   %labels: tensor<?xi64>, %h: tensor<21xi64>,
                   %bu: tensor<32x8xf32>, %bd: tensor<32x100xf32>,
                   %bidx: tensor<32x8xi64>) {
  // CHECK: sift.scatter %{{.*}} into %{{.*}}[%{{.*}}] : tensor<1000x16xf32>, tensor<1000xi64> into tensor<10x16xf32>
  %0 = sift.scatter %u into %d[%idx]
      : tensor<1000x16xf32>, tensor<1000xi64> into tensor<10x16xf32>
  // CHECK: sift.scatter %{{.*}} into %{{.*}}[%{{.*}}] reduce(add) : tensor<?xi64>, tensor<?xi64> into tensor<21xi64>
  %1 = sift.scatter %ones into %h[%labels] reduce(add)
      : tensor<?xi64>, tensor<?xi64> into tensor<21xi64>
  // CHECK: sift.scatter %{{.*}} into %{{.*}}[%{{.*}}] reduce(max) {batch_dims = 1 : i64} : tensor<32x8xf32>, tensor<32x8xi64> into tensor<32x100xf32>
  %2 = sift.scatter %bu into %bd[%bidx] reduce(max) {batch_dims = 1 : i64}
      : tensor<32x8xf32>, tensor<32x8xi64> into tensor<32x100xf32>
  // CHECK: sift.scatter %{{.*}} into %{{.*}}[%{{.*}}] reduce(min) : tensor<1000x16xf32>, tensor<1000xi64> into tensor<10x16xf32>
  %3 = sift.scatter %u into %d[%idx] reduce(min)
      : tensor<1000x16xf32>, tensor<1000xi64> into tensor<10x16xf32>
  return
}

// CHECK-LABEL: func @random
// CHECK-SAME: %[[SEED:.*]]: i64, %[[OFF:.*]]: i64
func.func @random(%seed: i64, %off: i64) {
  // CHECK: sift.random_uniform %[[SEED]] : tensor<32x10000xf32>
  %0 = sift.random_uniform %seed : tensor<32x10000xf32>
  // CHECK: sift.random_uniform %[[SEED]] offset %[[OFF]] : tensor<16xf64>
  %1 = sift.random_uniform %seed offset %off : tensor<16xf64>
  // CHECK: sift.random_bits %[[SEED]] : tensor<1024xi32>
  %2 = sift.random_bits %seed : tensor<1024xi32>
  // CHECK: sift.random_bits %[[SEED]] offset %[[OFF]] : tensor<8xi64>
  %3 = sift.random_bits %seed offset %off : tensor<8xi64>
  return
}

// Per-row streams: the seed and offset types are written when one of them is
// a tensor.
// CHECK-LABEL: func.func @random_per_row
// CHECK-SAME: (%[[S:.*]]: tensor<4xi64>, %[[O:.*]]: tensor<4xi64>, %[[L:.*]]: tensor<4x2x50xi64>, %[[K:.*]]: i64)
func.func @random_per_row(%s: tensor<4xi64>, %o: tensor<4xi64>,
                          %l: tensor<4x2x50xi64>, %k: i64) {
  // CHECK: sift.random_bits %[[S]] : tensor<4xi64> -> tensor<4x16xi32>
  %0 = sift.random_bits %s : tensor<4xi64> -> tensor<4x16xi32>
  // CHECK: sift.random_uniform %[[S]] offset %[[O]] : tensor<4xi64>, tensor<4xi64> -> tensor<4x3x2xf32>
  %1 = sift.random_uniform %s offset %o : tensor<4xi64>, tensor<4xi64> -> tensor<4x3x2xf32>
  // CHECK: sift.random_bits %[[K]] offset %[[O]] : i64, tensor<4xi64> -> tensor<4x16xi64>
  %2 = sift.random_bits %k offset %o : i64, tensor<4xi64> -> tensor<4x16xi64>
  // CHECK: sift.random_bits %[[S]] offset %[[K]] : tensor<4xi64> -> tensor<4x16xi32>
  %3 = sift.random_bits %s offset %k : tensor<4xi64> -> tensor<4x16xi32>
  // CHECK: sift.random_bits %[[S]] valid(%{{.*}} : tensor<4xindex>) : tensor<4xi64> -> tensor<4x16xi32>
  %v = arith.constant dense<[1, 2, 3, 16]> : tensor<4xindex>
  %6 = sift.random_bits %s valid(%v : tensor<4xindex>) : tensor<4xi64> -> tensor<4x16xi32>
  // CHECK: sift.random_bits %[[K]] offset %[[O]] valid(%{{.*}} : index) : i64, tensor<4xi64> -> tensor<4x16xi64>
  %n = arith.constant 5 : index
  %7 = sift.random_bits %k offset %o valid(%n : index) : i64, tensor<4xi64> -> tensor<4x16xi64>
  // CHECK: sift.sample_balanced %[[L]], %[[S]] {num_samples = 8 : i64} : tensor<4x2x50xi64>, tensor<4xi64> -> tensor<4x2x8xi64>, tensor<4x2xi64>
  %4:2 = sift.sample_balanced %l, %s {num_samples = 8 : i64} : tensor<4x2x50xi64>, tensor<4xi64> -> tensor<4x2x8xi64>, tensor<4x2xi64>
  // CHECK: sift.sample_balanced %[[L]], %[[K]] offset %[[O]] {num_samples = 8 : i64} : tensor<4x2x50xi64>, i64, tensor<4xi64> -> tensor<4x2x8xi64>, tensor<4x2xi64>
  %5:2 = sift.sample_balanced %l, %k offset %o {num_samples = 8 : i64} : tensor<4x2x50xi64>, i64, tensor<4xi64> -> tensor<4x2x8xi64>, tensor<4x2xi64>
  return
}

// CHECK-LABEL: func @sample_balanced
func.func @sample_balanced(%labels: tensor<8x20000xi64>, %l1: tensor<100xi64>,
                           %seed: i64, %off: i64) {
  // CHECK: sift.sample_balanced %{{.*}}, %{{.*}} {num_samples = 512 : i64, positive_fraction = 2.500000e-01 : f64} : tensor<8x20000xi64> -> tensor<8x512xi64>, tensor<8xi64>
  %0:2 = sift.sample_balanced %labels, %seed
      {num_samples = 512 : i64, positive_fraction = 2.500000e-01 : f64}
      : tensor<8x20000xi64> -> tensor<8x512xi64>, tensor<8xi64>
  // CHECK: sift.sample_balanced %{{.*}}, %{{.*}} offset %{{.*}} {ignore_label = -2 : i64, negative_label = 3 : i64, num_samples = 10 : i64} : tensor<100xi64> -> tensor<10xi64>, tensor<i64>
  %1:2 = sift.sample_balanced %l1, %seed offset %off
      {num_samples = 10 : i64, ignore_label = -2 : i64, negative_label = 3 : i64}
      : tensor<100xi64> -> tensor<10xi64>, tensor<i64>
  return
}

// CHECK-LABEL: func @cross_entropy
func.func @cross_entropy(%logits: tensor<32x10xf32>, %t: tensor<32xi64>,
                         %w: tensor<10xf32>, %seg: tensor<2x8x8x5xf16>,
                         %segt: tensor<2x8x8xi64>) {
  // CHECK: sift.cross_entropy %{{.*}}, %{{.*}} reduction = mean : tensor<32x10xf32>, tensor<32xi64> -> tensor<f32>
  %0 = sift.cross_entropy %logits, %t reduction = mean
      : tensor<32x10xf32>, tensor<32xi64> -> tensor<f32>
  // CHECK: sift.cross_entropy %{{.*}}, %{{.*}} weight(%{{.*}} : tensor<10xf32>) reduction = none {label_smoothing = 1.000000e-01 : f64} : tensor<32x10xf32>, tensor<32xi64> -> tensor<32xf32>
  %1 = sift.cross_entropy %logits, %t weight(%w : tensor<10xf32>)
      reduction = none {label_smoothing = 1.000000e-01 : f64}
      : tensor<32x10xf32>, tensor<32xi64> -> tensor<32xf32>
  // CHECK: sift.cross_entropy %{{.*}}, %{{.*}} reduction = sum {ignore_index = 255 : i64} : tensor<2x8x8x5xf16>, tensor<2x8x8xi64> -> tensor<f16>
  %2 = sift.cross_entropy %seg, %segt reduction = sum {ignore_index = 255 : i64}
      : tensor<2x8x8x5xf16>, tensor<2x8x8xi64> -> tensor<f16>
  // CHECK: sift.cross_entropy %{{.*}}, %{{.*}} reduction = mean {batch_dims = 1 : i64} : tensor<2x8x8x5xf16>, tensor<2x8x8xi64> -> tensor<2xf16>
  %3 = sift.cross_entropy %seg, %segt reduction = mean {batch_dims = 1 : i64}
      : tensor<2x8x8x5xf16>, tensor<2x8x8xi64> -> tensor<2xf16>
  return
}
