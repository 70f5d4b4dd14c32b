// Rows of a dynamic length split across blocks: count, cumsum and compact
// of R (static) rows of N elements, N known at run time only, take
// ceil(split-blocks / R) segments per row (a grid of (S, R) blocks), each
// max(split-min, ceil(N / S) in whole warps) elements long, computed on
// the host side of the kernel from N: a short row leaves its last segments
// empty (their begin clamped to N). The calls carry `segment_length = 0`
// and the minimum length. Sorts of dynamic rows are not split. ctest
// conformance-gpu-kernels(-split) runs `*/dynamic_rows*` on the CPU
// execution of these kernels against NumPy.
//
// RUN: tensor-opt %s --convert-sift-to-gpu="split-blocks=1024 split-min=16384" | FileCheck %s --check-prefix=CALLS
// RUN: tensor-opt %s --convert-sift-to-gpu="split-blocks=1024 split-min=16384" --sift-gpu-expand-kernels --canonicalize | FileCheck %s --check-prefix=LAUNCH
// RUN: tensor-opt %s --convert-sift-to-gpu="split-blocks=0" | FileCheck %s --check-prefix=WHOLE

// CALLS-LABEL: func.func @count_dynamic
// CALLS: call @__sift_gpu_count({{.*}}) {segment_length = 0 : i64, segment_min_length = 16384 : i64, segments = 256 : i64, sift.gpu_kernel = "count"} : (memref<4x?xf32>, memref<4xi64>) -> ()
// LAUNCH-LABEL: func.func @count_dynamic
// LAUNCH: %[[N:.*]] = tensor.dim %{{.*}}, %c1 : tensor<4x?xf32>
// LAUNCH: gpu.launch blocks(%[[S:.*]], %[[R:.*]], %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c4,
// LAUNCH: %[[PER:.*]] = arith.ceildivui %[[N]], %c256 : index
// LAUNCH: %[[WARPS:.*]] = arith.ceildivui %[[PER]], %c32 : index
// LAUNCH: %[[ROUND:.*]] = arith.muli %[[WARPS]], %c32 : index
// LAUNCH: %[[LEN:.*]] = arith.maxui %[[ROUND]], %c16384 : index
// LAUNCH: %[[AT:.*]] = arith.muli %[[S]], %[[LEN]] : index
// LAUNCH: %[[BEGIN:.*]] = arith.minui %[[AT]], %[[N]] : index
// LAUNCH: %[[REST:.*]] = arith.subi %[[N]], %[[BEGIN]] : index
// LAUNCH: arith.minui %[[LEN]], %[[REST]] : index
// LAUNCH: memref.atomic_rmw addi
// WHOLE-LABEL: func.func @count_dynamic
// WHOLE-NOT: segments
// WHOLE: return
func.func @count_dynamic(%x: tensor<4x?xf32>) -> tensor<4xi64> {
  %r = sift.count %x : tensor<4x?xf32> -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// The segments' totals: 2 x 512 of them.
// CALLS-LABEL: func.func @cumsum_dynamic
// CALLS: call @__sift_gpu_cumsum({{.*}}) {segment_length = 0 : i64, segment_min_length = 16384 : i64, segments = 512 : i64, sift.gpu_kernel = "cumsum"} : (memref<2x?xi64>, memref<2x?xi64>, memref<1024xi64>) -> ()
func.func @cumsum_dynamic(%x: tensor<2x?xi64>) -> tensor<2x?xi64> {
  %r = sift.cumsum %x : tensor<2x?xi64> -> tensor<2x?xi64>
  return %r : tensor<2x?xi64>
}

// One row: 1024 segments, each segment's count in an i32 buffer.
// CALLS-LABEL: func.func @compact_dynamic
// CALLS: call @__sift_gpu_compact({{.*}}) {fill = -1 : i64, segment_length = 0 : i64, segment_min_length = 16384 : i64, segments = 1024 : i64, sift.gpu_kernel = "compact"} : (memref<1x?xi1>, memref<1x100xi64>, memref<1xi64>, memref<1024xi32>) -> ()
// The last segment's fill runs from max(count, its begin) to the width,
// beyond N when N < 100.
// LAUNCH-LABEL: func.func @compact_dynamic
// LAUNCH: gpu.launch
// LAUNCH: gpu.launch
// LAUNCH: arith.maxui %{{.*}}, %c100 : index
func.func @compact_dynamic(%m: tensor<?xi1>) -> (tensor<100xi64>, tensor<i64>) {
  %i, %n = sift.compact %m : tensor<?xi1> -> tensor<100xi64>, tensor<i64>
  return %i, %n : tensor<100xi64>, tensor<i64>
}

// CALLS-LABEL: func.func @argsort_dynamic
// CALLS-NOT: segments
// CALLS: return
func.func @argsort_dynamic(%x: tensor<2x?xf32>) -> tensor<2x?xi64> {
  %r = sift.argsort %x : tensor<2x?xf32> -> tensor<2x?xi64>
  return %r : tensor<2x?xi64>
}
