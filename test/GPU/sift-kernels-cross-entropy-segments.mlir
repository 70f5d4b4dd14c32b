// sift.cross_entropy's sums and means over items of many rows: an item of
// at least 32768 (static) rows is summed in segments of about 8192 rows, a
// block each writing its f64 partial sums (`segments` = S, and buffers
// [items * S] the call gets), then a block per item sums its S partials.
// Both in a fixed order: deterministic. An item of fewer rows keeps one
// block. conformance-gpu-kernels runs `cross_entropy/million_rows_*`,
// `many_rows_mean` and `segmented_items_*` on the CPU execution of these
// kernels against float64 NumPy.
//
// RUN: tensor-opt %s --convert-sift-to-gpu | FileCheck %s --check-prefix=CALLS
// RUN: tensor-opt %s --convert-sift-to-gpu --sift-gpu-expand-kernels --canonicalize | FileCheck %s --check-prefix=LAUNCH

// 10^6 rows, one item: 123 segments; for mean, partial sums of the losses
// and of the weights.
// CALLS-LABEL: func.func @mean_million
// CALLS: call @__sift_gpu_cross_entropy({{.*}}) {{{.*}}reduction = 1 : i32, segments = 123 : i64{{.*}}} : (memref<1000000x4xf32>, memref<1000000xi64>, memref<1xf32>, memref<1000000xf32>, memref<1000000xf32>, memref<123xf64>, memref<123xf64>, memref<2xi64>) -> ()
// LAUNCH-LABEL: func.func @mean_million
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %c1,
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %c15625,
// The segments: block g sums rows [s * 8131, min(s * 8131 + 8131, 10^6))
// of item g / 123, s = g mod 123.
// LAUNCH: gpu.launch blocks(%[[G:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c123,
// LAUNCH: %[[S:.*]] = arith.remui %[[G]], %c123 : index
// LAUNCH: arith.muli %[[S]], %c8131 : index
// LAUNCH: %[[LAST:.*]] = arith.minui
// LAUNCH: scf.for %{{.*}} = %{{.*}} to %[[LAST]] step %c256 iter_args
// LAUNCH: gpu.shuffle
// LAUNCH: memref.store %{{.*}}, %{{.*}}[%[[G]]] : memref<123xf64>
// LAUNCH: memref.store %{{.*}}, %{{.*}}[%[[G]]] : memref<123xf64>
// The items: the 123 partials, in blocks of 128 threads.
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} threads({{.*}}) in ({{.*}} = %c128,
// LAUNCH: scf.for %{{.*}} = %{{.*}} to %c123 step %c128 iter_args
// LAUNCH: memref.load %{{.*}} : memref<123xf64>
// LAUNCH: memref.load %{{.*}} : memref<123xf64>
// LAUNCH: arith.divf
// LAUNCH: memref.store %{{.*}} : memref<1xf32>
// LAUNCH-NOT: gpu.launch
// LAUNCH: return
func.func @mean_million(%x: tensor<1000000x4xf32>, %t: tensor<1000000xi64>) -> tensor<f32> {
  %r = sift.cross_entropy %x, %t reduction = mean : tensor<1000000x4xf32>, tensor<1000000xi64> -> tensor<f32>
  return %r : tensor<f32>
}

// Three items of 33333 rows: 5 segments each (15 blocks), the item of
// block g is g / 5.
// CALLS-LABEL: func.func @sum_items
// CALLS: call @__sift_gpu_cross_entropy_0({{.*}}) {{{.*}}reduction = 2 : i32, segments = 5 : i64{{.*}}} : (memref<99999x5xf32>, memref<99999xi64>, memref<3xf32>, memref<99999xf32>, memref<15xf64>, memref<2xi64>) -> ()
// LAUNCH-LABEL: func.func @sum_items
// LAUNCH: gpu.launch
// LAUNCH: gpu.launch
// LAUNCH: gpu.launch blocks(%[[G:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c15,
// LAUNCH-DAG: arith.divui %[[G]], %c5 : index
// LAUNCH-DAG: arith.remui %[[G]], %c5 : index
// LAUNCH: memref.store %{{.*}}, %{{.*}}[%[[G]]] : memref<15xf64>
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %c3, {{.*}} threads({{.*}}) in ({{.*}} = %c32,
// LAUNCH: memref.load %{{.*}} : memref<15xf64>
// LAUNCH: memref.store %{{.*}} : memref<3xf32>
// LAUNCH-NOT: gpu.launch
// LAUNCH: return
func.func @sum_items(%x: tensor<3x33333x5xf32>, %t: tensor<3x33333xi64>) -> tensor<3xf32> {
  %r = sift.cross_entropy %x, %t reduction = sum {batch_dims = 1 : i64} : tensor<3x33333x5xf32>, tensor<3x33333xi64> -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// 32767 rows: one block sums the item.
// CALLS-LABEL: func.func @mean_short
// CALLS-NOT: segments
// CALLS: return
// LAUNCH-LABEL: func.func @mean_short
// LAUNCH: gpu.launch
// LAUNCH: gpu.launch
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %c1,
// LAUNCH: scf.for %{{.*}} = %{{.*}} to %c32767 step %c256 iter_args
// LAUNCH-NOT: gpu.launch
// LAUNCH: return
func.func @mean_short(%x: tensor<32767x4xf32>, %t: tensor<32767xi64>) -> tensor<f32> {
  %r = sift.cross_entropy %x, %t reduction = mean : tensor<32767x4xf32>, tensor<32767xi64> -> tensor<f32>
  return %r : tensor<f32>
}
