// Long static rows split across blocks (--convert-sift-to-gpu's
// split-blocks, split-min): count, compact and topk's selection of R rows
// of N elements run S = min(ceil(split-blocks / R), N / split-min) blocks
// per row, a grid of (S, R) blocks. The checks below pin split-blocks=1024
// split-min=16384 (6 segments of 16672 elements a row of 100000), and the
// same for the radix sorts (sort-split-min); the defaults (2048, 8192)
// make 12 of 8352 (DEFAULT), and the radix sorts split by their own
// sort-split-min (2048).
// count: its [R] result cleared, then each block adds its segment's count
// (an i64 atomic add). compact: a launch writes each segment's count into
// an [R * S] i32 buffer; in the next, each block compacts its segment from
// the sum of the counts before it. topk: the per-row histograms of the
// selection's digits (cleared, then one launch per 4-bit digit: each block
// counts its segment in workgroup memory and adds it to its row's with
// global atomics), a launch of each segment's counts below and equal to the
// K-th key, the collection of the taken into the scratch, then one block
// per row sorts the K. ctest conformance-gpu-kernels-split runs them on the
// CPU against NumPy with small segments.
//
// RUN: tensor-opt %s --convert-sift-to-gpu="split-blocks=1024 split-min=16384 sort-split-min=16384 sort-digit-bits=4" | FileCheck %s --check-prefix=CALLS
// RUN: tensor-opt %s --convert-sift-to-gpu | FileCheck %s --check-prefix=DEFAULT
// RUN: tensor-opt %s --convert-sift-to-gpu="split-blocks=0" | FileCheck %s --check-prefix=WHOLE
// RUN: tensor-opt %s --convert-sift-to-gpu="split-min=300000 sort-split-min=0" | FileCheck %s --check-prefix=WHOLE
// RUN: tensor-opt %s --convert-sift-to-gpu="split-blocks=1024 split-min=16384 sort-split-min=16384 sort-digit-bits=4" --sift-gpu-expand-kernels | FileCheck %s --check-prefix=LAUNCH
// sort-digit-bits=8 (the default; the CALLS and LAUNCH checks above pin
// 4): the split radix passes' digits of 8 bits, marked on the call: a split sort's (per row 4 digits x 256 bins + 24 segments x
// 256, a host loop of 4 passes) and a split selection's (per row 4 digits
// x 256 bins + 12 segments x 2 counts, 4 launches of a 256-bin histogram
// instead of 8); a bad width is an error.
// RUN: tensor-opt %s --convert-sift-to-gpu="sort-digit-bits=8" | FileCheck %s --check-prefix=WIDE
// RUN: tensor-opt %s --convert-sift-to-gpu="sort-digit-bits=8" --sift-gpu-expand-kernels | FileCheck %s --check-prefix=WIDE-LAUNCH
// RUN: not tensor-opt %s --convert-sift-to-gpu="sort-digit-bits=5" 2>&1 | FileCheck %s --check-prefix=BITS
// sort-split-min=0: the radix sorts split as the rest (split-min).
// RUN: tensor-opt %s --convert-sift-to-gpu="sort-split-min=0" | FileCheck %s --check-prefix=SORTMIN
// The GPU pipeline's options of the same names reach the pass: split by
// default (count and compact: two launches each), one launch each with
// split-blocks=0.
// RUN: tensor-opt %s --symbol-privatize=exclude=count_long,compact_long --symbol-dce -o %t.two.mlir
// RUN: tensor-opt %t.two.mlir --sift-gpu-pipeline="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PIPE
// RUN: tensor-opt %t.two.mlir --sift-gpu-pipeline="chip=sm_90 format=isa split-blocks=0" | FileCheck %s --check-prefix=PIPE-WHOLE
// RUN: tensor-opt %s --symbol-privatize=exclude=argsort_long --symbol-dce --sift-gpu-pipeline="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PIPE-SORT
// RUN: tensor-opt %s --symbol-privatize=exclude=argsort_long --symbol-dce --sift-gpu-pipeline="chip=sm_90 format=isa sort-split-min=0" | FileCheck %s --check-prefix=PIPE-SORTMIN

// The argsort's 24 segments a row, 6 with sort-split-min=0.
// PIPE-SORT: %[[S:.*]] = llvm.mlir.constant(24 : index) : i64
// PIPE-SORT: gpu.launch_func {{.*}} blocks in (%[[S]], %{{.*}}, %{{.*}})
// PIPE-SORTMIN: %[[S:.*]] = llvm.mlir.constant(6 : index) : i64
// PIPE-SORTMIN: gpu.launch_func {{.*}} blocks in (%[[S]], %{{.*}}, %{{.*}})

// PIPE-LABEL: llvm.func @count_long
// PIPE-COUNT-2: gpu.launch_func
// PIPE-NOT: gpu.launch_func
// PIPE-LABEL: llvm.func @compact_long
// PIPE-COUNT-2: gpu.launch_func
// PIPE-NOT: gpu.launch_func
// PIPE-WHOLE-LABEL: llvm.func @count_long
// PIPE-WHOLE-COUNT-1: gpu.launch_func
// PIPE-WHOLE-NOT: gpu.launch_func
// PIPE-WHOLE-LABEL: llvm.func @compact_long
// PIPE-WHOLE-COUNT-1: gpu.launch_func
// PIPE-WHOLE-NOT: gpu.launch_func

// DEFAULT-LABEL: func.func @count_long
// DEFAULT: segment_length = 8352 : i64, segments = 12 : i64
// DEFAULT-LABEL: func.func @argsort_long
// DEFAULT: sort_segment_length = 2112 : i64, sort_segments = 24 : i64
// DEFAULT-LABEL: func.func @argsort_mid
// DEFAULT-NOT: segments
// DEFAULT: sift.gpu_kernel = "argsort"
// DEFAULT-NOT: segments
// DEFAULT-LABEL: func.func @topk_big_k
// DEFAULT: segment_length = 8352 : i64, segments = 24 : i64, sift.gpu_kernel = "topk", sort_digit_bits = 8 : i64, sort_segment_length = 2112 : i64, sort_segments = 19 : i64

// WIDE-LABEL: func.func @topk_long
// WIDE: memref.alloc() : memref<2096xi32>
// WIDE: {k = 100 : i64, segment_length = 8352 : i64, segments = 12 : i64, sift.gpu_kernel = "topk", sort_digit_bits = 8 : i64}
// WIDE-LABEL: func.func @argsort_long
// WIDE: memref.alloc() : memref<21504xi32>
// WIDE: {sift.gpu_kernel = "argsort", sort_digit_bits = 8 : i64, sort_segment_length = 2112 : i64, sort_segments = 24 : i64}
// WIDE-LABEL: func.func @argsort_mid
// WIDE-NOT: sort_digit_bits
// WIDE-LABEL: func.func @topk_big_k
// WIDE: sort_digit_bits = 8 : i64
// WIDE-LAUNCH-LABEL: func.func @topk_long
// The clear, then 4 digits.
// WIDE-LAUNCH: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c9
// WIDE-LAUNCH-COUNT-4: memref<32xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<256xi32, #gpu.address_space<workgroup>>)
// WIDE-LAUNCH-LABEL: func.func @argsort_long
// WIDE-LAUNCH: scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1
// WIDE-LAUNCH: gpu.launch
// WIDE-LAUNCH-SAME: memref<256xi32, #gpu.address_space<workgroup>>
// WIDE-LAUNCH: gpu.launch
// WIDE-LAUNCH-SAME: memref<2304xi32, #gpu.address_space<workgroup>>
// BITS: error: convert-sift-to-gpu: sort-digit-bits must be 4 or 8, not 5

// SORTMIN-LABEL: func.func @argsort_long
// SORTMIN: sort_segment_length = 8352 : i64, sort_segments = 6 : i64
// SORTMIN-LABEL: func.func @topk_big_k
// SORTMIN: segment_length = 8352 : i64, segments = 24 : i64, sift.gpu_kernel = "topk", sort_digit_bits = 8 : i64, sort_segment_length = 10016 : i64, sort_segments = 4 : i64

// CALLS-LABEL: func.func @count_long
// CALLS: call @__sift_gpu_count(%{{.*}}, %{{.*}}) {segment_length = 16672 : i64, segments = 6 : i64, sift.gpu_kernel = "count"}
// CALLS-LABEL: func.func @compact_long
// The segments' counts: 2 rows x 6.
// CALLS: %[[COUNTS:.*]] = memref.alloc() : memref<12xi32>
// CALLS: call @__sift_gpu_compact(%{{.*}}, %{{.*}}, %{{.*}}, %[[COUNTS]]) {fill = -1 : i64, segment_length = 16672 : i64, segments = 6 : i64, sift.gpu_kernel = "compact"}
// CALLS-LABEL: func.func @topk_long
// The K taken in the scratch, then per row 8 digits x 16 bins and 6 x 2
// segment counts: 2 x 140.
// CALLS: memref.alloc() : memref<2x2x100xi32>
// CALLS: memref.alloc() : memref<2x2x100xi32>
// CALLS: memref.alloc() : memref<280xi32>
// CALLS: {k = 100 : i64, segment_length = 16672 : i64, segments = 6 : i64, sift.gpu_kernel = "topk"}
// CALLS-LABEL: func.func @argsort_long
// A radix sort past the bitonic limit: its scratch, and per row every
// digit's histogram and each segment's histogram of a digit: (8 + 3) x 16.
// CALLS: memref.alloc() : memref<2x3x50000xi32>
// CALLS: memref.alloc() : memref<2x3x50000xi32>
// CALLS: memref.alloc() : memref<528xi32>
// CALLS: {sift.gpu_kernel = "argsort", sort_segment_length = 16672 : i64, sort_segments = 3 : i64}
// CALLS-LABEL: func.func @topk_big_k
// Both the selection (of 200000) and the sort of the K = 40000 taken
// split: per row 16 digits x 16 bins + 12 x 2 counts, then (16 + 2) x 16.
// CALLS: memref.alloc() : memref<2x2x40000xi64>
// CALLS: memref.alloc() : memref<2x2x40000xi32>
// CALLS: memref.alloc() : memref<1136xi32>
// CALLS: {k = 40000 : i64, segment_length = 16672 : i64, segments = 12 : i64, sift.gpu_kernel = "topk", sort_segment_length = 20000 : i64, sort_segments = 2 : i64}
// CALLS-LABEL: func.func @topk_dynamic_rows
// CALLS-NOT: segments
// CALLS: sift.gpu_kernel = "topk"
// An op whose results are unused becomes no kernel (as sift-staticize
// leaves a randperm's argsort when a top-k takes its place).
// CALLS-LABEL: func.func @dead_argsort
// CALLS-NOT: argsort
// CALLS: sift.gpu_kernel = "topk"
// CALLS-NOT: argsort
// CALLS: return

// WHOLE-NOT: segments
// WHOLE-NOT: memref<12xi32>
// WHOLE-NOT: memref<280xi32>

// LAUNCH-LABEL: func.func @count_long
// LAUNCH: %[[OUT:.*]] = memref.alloc() : memref<4xi64>
// LAUNCH: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}) in (%{{.*}} = %c256
// LAUNCH: memref.store %c0_i64, %[[OUT]]
// LAUNCH: gpu.launch blocks(%{{.*}}, %[[ROW:.*]], %{{.*}}) in (%{{.*}} = %c6, %{{.*}} = %{{.*}}, %{{.*}} = %c1{{.*}}) threads
// LAUNCH: gpu.shuffle
// LAUNCH: memref.atomic_rmw addi %{{.*}}, %[[OUT]][%[[ROW]]] : (i64, memref<4xi64>) -> i64
// LAUNCH-LABEL: func.func @compact_long
// LAUNCH: gpu.launch blocks(%[[SEG:.*]], %[[ROW:.*]], %{{.*}}) in (%{{.*}} = %c6
// LAUNCH: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<12xi32>
// LAUNCH: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c6
// The counts of the segments before, and of all.
// LAUNCH: scf.for
// LAUNCH: memref.load %{{.*}} : memref<12xi32>
// LAUNCH: scf.for
// LAUNCH: memref.load %{{.*}} : memref<12xi32>
// LAUNCH-NOT: gpu.launch
// LAUNCH-LABEL: func.func @topk_long
// LAUNCH: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c2
// LAUNCH: memref.store %c0_i32, %{{.*}} : memref<280xi32>
// LAUNCH-COUNT-8: memref.atomic_rmw addi %{{.*}} : (i32, memref<280xi32>) -> i32
// LAUNCH: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c6
// LAUNCH: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c6
// LAUNCH: memref.store %{{.*}} : memref<2x2x100xi32>
// The sort of the K, a block per row.
// LAUNCH: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %c1
// LAUNCH: memref.load %{{.*}} : memref<2x2x100xi32>
// LAUNCH-NOT: gpu.launch
// LAUNCH-LABEL: func.func @argsort_long
// Cleared, every digit's histogram (slot 0 filled from the input), then a
// host loop over the digits of two launches: each segment's histogram of
// the digit, and the scatter; then the outputs.
// LAUNCH: gpu.launch
// LAUNCH: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c3
// LAUNCH: memref.store %{{.*}} : memref<2x3x50000xi32>
// LAUNCH: scf.for %[[D:.*]] = %c0{{.*}} to %c8{{.*}} step %c1
// LAUNCH: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c3
// LAUNCH: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c3
// LAUNCH: gpu.shuffle
// LAUNCH: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c3
// LAUNCH: memref.store %{{.*}} : memref<3x50000xi64>
// LAUNCH-NOT: gpu.launch
// A row too short to split: one launch, a block a row.
// LAUNCH-LABEL: func.func @argsort_mid
// LAUNCH: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %dim, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads
// LAUNCH-NOT: gpu.launch
// LAUNCH-LABEL: func.func @topk_big_k

func.func @count_long(%x: tensor<4x100000xf32>) -> tensor<4xi64> {
  %c = sift.count %x : tensor<4x100000xf32> -> tensor<4xi64>
  return %c : tensor<4xi64>
}

func.func @compact_long(%m: tensor<2x100000xi1>)
    -> (tensor<2x1000xi64>, tensor<2xi64>) {
  %i, %n = sift.compact %m : tensor<2x100000xi1> -> tensor<2x1000xi64>, tensor<2xi64>
  return %i, %n : tensor<2x1000xi64>, tensor<2xi64>
}

func.func @topk_long(%x: tensor<2x100000xf32>)
    -> (tensor<2x100xf32>, tensor<2x100xi64>) {
  %v, %i = sift.topk %x k(100) : tensor<2x100000xf32> -> tensor<2x100xf32>, tensor<2x100xi64>
  return %v, %i : tensor<2x100xf32>, tensor<2x100xi64>
}

// Dynamic rows are not split (the launch is sized at compile time).
func.func @argsort_long(%x: tensor<3x50000xf32>) -> tensor<3x50000xi64> {
  %i = sift.argsort %x : tensor<3x50000xf32> -> tensor<3x50000xi64>
  return %i : tensor<3x50000xi64>
}

// Long enough for sort-split-min's two blocks, not for split-min's: one
// block per row.
func.func @argsort_mid(%x: tensor<3x10000xf32>) -> tensor<3x10000xi64> {
  %i = sift.argsort %x : tensor<3x10000xf32> -> tensor<3x10000xi64>
  return %i : tensor<3x10000xi64>
}

func.func @topk_big_k(%x: tensor<2x200000xi64>)
    -> (tensor<2x40000xi64>, tensor<2x40000xi64>) {
  %v, %i = sift.topk %x k(40000) : tensor<2x200000xi64> -> tensor<2x40000xi64>, tensor<2x40000xi64>
  return %v, %i : tensor<2x40000xi64>, tensor<2x40000xi64>
}

func.func @topk_dynamic_rows(%x: tensor<?x100000xf32>)
    -> (tensor<?x100xf32>, tensor<?x100xi64>) {
  %v, %i = sift.topk %x k(100) : tensor<?x100000xf32> -> tensor<?x100xf32>, tensor<?x100xi64>
  return %v, %i : tensor<?x100xf32>, tensor<?x100xi64>
}

func.func @dead_argsort(%x: tensor<2x100000xi32>) -> tensor<2x100xi64> {
  %unused = sift.argsort %x : tensor<2x100000xi32> -> tensor<2x100000xi64>
  %v, %i = sift.topk %x k(100) smallest : tensor<2x100000xi32> -> tensor<2x100xi32>, tensor<2x100xi64>
  return %i : tensor<2x100xi64>
}
