// A cumsum along long static rows split across blocks (reduce, then scan):
// R rows of N elements run S blocks per row (--convert-sift-to-gpu's
// split-blocks and split-min, as count and compact), a grid of (S, R). A
// first launch writes each segment's total into an [R * S] buffer of the
// result's type (each thread sums its elements, then a block reduction);
// in the next, each block scans its segment from the sum of the totals
// before it, in segment order. ctest conformance-gpu-kernels and
// conformance-gpu-kernels-split run such rows (`cumsum/long_*`: i64, f32
// exclusive, a mask into i32, f64, i8 that wraps) on the CPU execution of
// the kernels against NumPy. The pinned options make 6 segments of 16672
// elements of a row of 100000; the default (2048 blocks, 8192 elements at
// least) 12 of 8352; a row below two segments' worth is one block.
//
// RUN: tensor-opt %s --convert-sift-to-gpu="split-blocks=1024 split-min=16384" | FileCheck %s --check-prefix=CALLS
// RUN: tensor-opt %s --convert-sift-to-gpu | FileCheck %s --check-prefix=DEFAULT
// RUN: tensor-opt %s --convert-sift-to-gpu="split-blocks=1024 split-min=16384" --sift-gpu-expand-kernels --canonicalize | FileCheck %s --check-prefix=LAUNCH
// RUN: tensor-opt %s --sift-gpu-pipeline="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PIPE

// CALLS-LABEL: func.func @cumsum_long
// CALLS: %[[TOTALS:.*]] = memref.alloc() : memref<24xf32>
// CALLS: call @__sift_gpu_cumsum(%{{.*}}, %{{.*}}, %[[TOTALS]]) {exclusive, segment_length = 16672 : i64, segments = 6 : i64, sift.gpu_kernel = "cumsum"} : (memref<4x100000xf32>, memref<4x100000xf32>, memref<24xf32>) -> ()
// CALLS-LABEL: func.func @cumsum_short
// CALLS: call @__sift_gpu_cumsum{{(_[0-9]+)?}}(%{{.*}}, %{{.*}}) {sift.gpu_kernel = "cumsum"} : (memref<4x1000xi64>, memref<4x1000xi64>) -> ()
// DEFAULT-LABEL: func.func @cumsum_long
// DEFAULT: segment_length = 8352 : i64, segments = 12 : i64

// LAUNCH-LABEL: func.func @cumsum_long
// LAUNCH: %[[TOTALS:.*]] = memref.alloc() : memref<24xf32>
// LAUNCH: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c6, %{{.*}} = %c4, %{{.*}} = %c1)
// LAUNCH: scf.for
// LAUNCH: arith.addf
// LAUNCH: gpu.shuffle
// LAUNCH: gpu.barrier
// LAUNCH: memref.store %{{.*}}, %[[TOTALS]][%{{.*}}] : memref<24xf32>
// LAUNCH: gpu.terminator
// LAUNCH: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c6, %{{.*}} = %c4, %{{.*}} = %c1)
// LAUNCH: scf.for
// LAUNCH: memref.load %[[TOTALS]][%{{.*}}] : memref<24xf32>
// LAUNCH: gpu.shuffle
// LAUNCH: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x100000xf32>
// LAUNCH: gpu.terminator
// LAUNCH-NOT: gpu.launch
// LAUNCH: return

// Through the pipeline (default options): the two launches of the split
// row, one of the short rows.
// PIPE-LABEL: llvm.func @cumsum_long
// PIPE-COUNT-2: gpu.launch_func
// PIPE-NOT: gpu.launch_func
// PIPE-LABEL: llvm.func @cumsum_short
// PIPE-COUNT-1: gpu.launch_func
// PIPE-NOT: gpu.launch_func
func.func @cumsum_long(%x: tensor<4x100000xf32>) -> tensor<4x100000xf32> {
  %r = sift.cumsum %x exclusive : tensor<4x100000xf32> -> tensor<4x100000xf32>
  return %r : tensor<4x100000xf32>
}

func.func @cumsum_short(%x: tensor<4x1000xi64>) -> tensor<4x1000xi64> {
  %r = sift.cumsum %x : tensor<4x1000xi64> -> tensor<4x1000xi64>
  return %r : tensor<4x1000xi64>
}
