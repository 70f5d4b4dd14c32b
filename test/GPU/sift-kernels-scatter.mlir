// sift.scatter as kernels of a thread per element (ScatterKernels.cpp):
// the copy of dest, for reduce(none) the last lane of each row by an atomic
// max of lane numbers, then the updates stored by the winning lanes or
// combined by the hardware's atomics; a float max or min through unsigned
// keys. ctest conformance-gpu-kernels runs the `scatter/*` cases on the CPU
// execution of these kernels against NumPy.
//
// RUN: tensor-opt %s --convert-sift-to-gpu --canonicalize -split-input-file | FileCheck %s --check-prefix=CALL
// RUN: tensor-opt %s --convert-sift-to-gpu --sift-gpu-expand-kernels --canonicalize -split-input-file | FileCheck %s --check-prefix=KERNEL

// reduce(none) with a trailing extent: dest [6, 3] as 18 elements, the
// 10 lanes' updates as 30; the winners are one i64 per row of the result.
// CALL-LABEL: func.func @none_rows
// CALL-DAG: %[[OUT:.*]] = memref.alloc() : memref<18xf32>
// CALL-DAG: %[[WIN:.*]] = memref.alloc() : memref<6xi64>
// CALL-DAG: %[[C6:.*]] = arith.constant 6 : index
// CALL-DAG: %[[C10:.*]] = arith.constant 10 : index
// CALL: call @__sift_gpu_scatter(%{{.*}}, %{{.*}}, %{{.*}}, %[[OUT]], %[[WIN]], %[[C6]], %[[C10]]) {reduce = 0 : i32, sift.gpu_kernel = "scatter", tail = 3 : i64} : (memref<30xf32>, memref<18xf32>, memref<10xi64>, memref<18xf32>, memref<6xi64>, index, index) -> ()
// CALL: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [6, 3]
// Three launches: the copy with the winners set to -1, the last lane of
// each row by an atomic max of the lane numbers, the winners' stores.
// KERNEL-LABEL: func.func @none_rows
// KERNEL: gpu.launch
// KERNEL: memref.store %{{.*}}, %{{.*}} : memref<18xf32>
// KERNEL: memref.store %c-1_i64, %{{.*}} : memref<6xi64>
// KERNEL: gpu.launch
// KERNEL-NOT: arith.divui
// KERNEL: memref.atomic_rmw maxs %{{.*}} : (i64, memref<6xi64>) -> i64
// KERNEL: gpu.launch
// KERNEL: %[[LANE:.*]] = arith.divui %{{.*}}, %c3 : index
// KERNEL: arith.remui %{{.*}}, %c3 : index
// KERNEL: %[[W:.*]] = memref.load %{{.*}} : memref<6xi64>
// KERNEL: %[[L64:.*]] = arith.index_cast %[[LANE]] : index to i64
// KERNEL: arith.cmpi eq, %[[W]], %[[L64]] : i64
// KERNEL: memref.store %{{.*}} : memref<18xf32>
// KERNEL-NOT: gpu.launch
// KERNEL: return
func.func @none_rows(%d: tensor<6x3xf32>, %i: tensor<2x5xi64>, %u: tensor<2x5x3xf32>) -> tensor<6x3xf32> {
  %r = sift.scatter %u into %d[%i] : tensor<2x5x3xf32>, tensor<2x5xi64> into tensor<6x3xf32>
  return %r : tensor<6x3xf32>
}

// -----

// reduce(add) of f32: the copy, then an atomic add per element of the
// updates (40 x 16 in 3 blocks of 256).
// KERNEL-LABEL: func.func @add_f32
// KERNEL: gpu.launch
// KERNEL: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %c3,
// KERNEL: memref.atomic_rmw addf %{{.*}} : (f32, memref<160xf32>) -> f32
// KERNEL-NOT: gpu.launch
// KERNEL: return
func.func @add_f32(%d: tensor<10x16xf32>, %i: tensor<40xi64>, %u: tensor<40x16xf32>) -> tensor<10x16xf32> {
  %r = sift.scatter %u into %d[%i] reduce(add) : tensor<40x16xf32>, tensor<40xi64> into tensor<10x16xf32>
  return %r : tensor<10x16xf32>
}

// -----

// A float max: launch 1 writes the keys of dest (NaN as the positive
// quiet NaN; a negative float inverted, a positive one with its sign bit
// set), launch 2 their unsigned max, launch 3 the floats of the keys.
// CALL-LABEL: func.func @max_f64
// CALL: call @__sift_gpu_scatter({{.*}}) {reduce = 2 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<12xf64>, memref<5xf64>, memref<12xi64>, memref<5xf64>, memref<5xi64>, index, index) -> ()
// KERNEL-LABEL: func.func @max_f64
// KERNEL-DAG: %[[NAN:.*]] = arith.constant 0x7FF8000000000000 : f64
// KERNEL-DAG: %[[SIGN:.*]] = arith.constant -9223372036854775808 : i64
// KERNEL-DAG: %[[ONES:.*]] = arith.constant -1 : i64
// KERNEL: gpu.launch
// KERNEL: %[[ISNAN:.*]] = arith.cmpf uno
// KERNEL: %[[X:.*]] = arith.select %[[ISNAN]], %[[NAN]]
// KERNEL: %[[BITS:.*]] = arith.bitcast %[[X]] : f64 to i64
// KERNEL: %[[NEG:.*]] = arith.cmpi slt, %[[BITS]]
// KERNEL-DAG: %[[POS:.*]] = arith.xori %[[BITS]], %[[SIGN]]
// KERNEL-DAG: %[[INV:.*]] = arith.xori %[[BITS]], %[[ONES]]
// KERNEL: arith.select %[[NEG]], %[[INV]], %[[POS]] : i64
// KERNEL: gpu.launch
// KERNEL: memref.atomic_rmw maxu %{{.*}} : (i64, memref<5xi64>) -> i64
// KERNEL: gpu.launch
// KERNEL: arith.bitcast %{{.*}} : i64 to f64
// KERNEL: memref.store %{{.*}} : memref<5xf64>
// KERNEL-NOT: gpu.launch
// KERNEL: return
func.func @max_f64(%d: tensor<5xf64>, %i: tensor<12xi64>, %u: tensor<12xf64>) -> tensor<5xf64> {
  %r = sift.scatter %u into %d[%i] reduce(max) : tensor<12xf64>, tensor<12xi64> into tensor<5xf64>
  return %r : tensor<5xf64>
}

// -----

// batch_dims = 1: lane l of item l / 630 lands on row (l / 630) * 40 + j;
// an atomic signed min.
// CALL-LABEL: func.func @min_i32_batched
// CALL: call @__sift_gpu_scatter({{.*}}) {batched, reduce = 3 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<3780xi32>, memref<240xi32>, memref<3780xi64>, memref<240xi32>, index, index) -> ()
// KERNEL-LABEL: func.func @min_i32_batched
// KERNEL: gpu.launch
// KERNEL: gpu.launch
// KERNEL: %[[ITEM:.*]] = arith.divui %{{.*}}, %c630 : index
// KERNEL: arith.muli %[[ITEM]], %c40 : index
// KERNEL: memref.atomic_rmw mins %{{.*}} : (i32, memref<240xi32>) -> i32
// KERNEL-NOT: gpu.launch
// KERNEL: return
func.func @min_i32_batched(%d: tensor<6x40xi32>, %i: tensor<6x7x90xi64>, %u: tensor<6x7x90xi32>) -> tensor<6x40xi32> {
  %r = sift.scatter %u into %d[%i] reduce(min) {batch_dims = 1 : i64} : tensor<6x7x90xi32>, tensor<6x7x90xi64> into tensor<6x40xi32>
  return %r : tensor<6x40xi32>
}

// -----

// Lanes of a dynamic extent: the host checks that indices and updates
// agree (the CPU lowering's report), the lanes per item are the indices'
// extent.
// CALL-LABEL: func.func @dynamic_lanes
// CALL: scf.if
// CALL: func.call @sift_rt_fail
// CALL: %[[L:.*]] = tensor.dim %{{.*}} : tensor<?xi64>
// CALL: call @__sift_gpu_scatter(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[L]]) {reduce = 0 : i32, sift.gpu_kernel = "scatter", tail = 3 : i64} : (memref<?xf32>, memref<150xf32>, memref<?xi64>, memref<150xf32>, memref<50xi64>, index, index) -> ()
func.func @dynamic_lanes(%d: tensor<50x3xf32>, %i: tensor<?xi64>, %u: tensor<?x3xf32>) -> tensor<50x3xf32> {
  %r = sift.scatter %u into %d[%i] : tensor<?x3xf32>, tensor<?xi64> into tensor<50x3xf32>
  return %r : tensor<50x3xf32>
}

// -----

// A reduce of i16 has no atomic of its width: the linalg lowering's loop.
// CALL-LABEL: func.func @i16_add
// CALL: sift.scatter
func.func @i16_add(%d: tensor<5xi16>, %i: tensor<12xi64>, %u: tensor<12xi16>) -> tensor<5xi16> {
  %r = sift.scatter %u into %d[%i] reduce(add) : tensor<12xi16>, tensor<12xi64> into tensor<5xi16>
  return %r : tensor<5xi16>
}

// -----

// A dynamic trailing extent: the linalg lowering's loop.
// CALL-LABEL: func.func @dynamic_tail
// CALL: sift.scatter
func.func @dynamic_tail(%d: tensor<5x?xf32>, %i: tensor<12xi64>, %u: tensor<12x?xf32>) -> tensor<5x?xf32> {
  %r = sift.scatter %u into %d[%i] reduce(add) : tensor<12x?xf32>, tensor<12xi64> into tensor<5x?xf32>
  return %r : tensor<5x?xf32>
}

// -----

// No trailing element: the result is dest.
// CALL-LABEL: func.func @empty_tail
// CALL-SAME: (%[[D:.*]]: tensor<5x0xf32>,
// CALL-NEXT: return %[[D]]
func.func @empty_tail(%d: tensor<5x0xf32>, %i: tensor<12xi64>, %u: tensor<12x0xf32>) -> tensor<5x0xf32> {
  %r = sift.scatter %u into %d[%i] : tensor<12x0xf32>, tensor<12xi64> into tensor<5x0xf32>
  return %r : tensor<5x0xf32>
}

// -----

// reduce(none) of i1: plain stores.
// CALL-LABEL: func.func @bool_none
// CALL: call @__sift_gpu_scatter({{.*}}) {reduce = 0 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<4xi1>, memref<6xi1>, memref<4xi64>, memref<6xi1>, memref<6xi64>, index, index) -> ()
func.func @bool_none(%d: tensor<6xi1>, %i: tensor<4xi64>, %u: tensor<4xi1>) -> tensor<6xi1> {
  %r = sift.scatter %u into %d[%i] : tensor<4xi1>, tensor<4xi64> into tensor<6xi1>
  return %r : tensor<6xi1>
}

// -----

// Lanes that are a permutation (an argsort's) into a tensor.empty, as
// `inv[perm] = arange(n)`: no winners, no copy of the undefined dest; one
// launch of plain stores.
// CALL-LABEL: func.func @inverse_permutation
// CALL: call @__sift_gpu_scatter(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {distinct, fresh, reduce = 0 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<300xi64>, memref<300xi64>, memref<300xi64>, memref<300xi64>, index, index) -> ()
// KERNEL-LABEL: func.func @inverse_permutation
// KERNEL: gpu.launch
// KERNEL: gpu.launch
// KERNEL-NOT: memref.atomic_rmw
// KERNEL: memref.store %{{.*}} : memref<300xi64>
// KERNEL-NOT: gpu.launch
// KERNEL: return
func.func @inverse_permutation(%k: tensor<300xi32>, %u: tensor<300xi64>) -> tensor<300xi64> {
  %p = sift.argsort %k : tensor<300xi32> -> tensor<300xi64>
  %e = tensor.empty() : tensor<300xi64>
  %r = sift.scatter %u into %e[%p] : tensor<300xi64>, tensor<300xi64> into tensor<300xi64>
  return %r : tensor<300xi64>
}

// -----

// Each row's lanes are that row's top-k (batch_dims 1), through a cast and
// a slice: distinct, but the dest is copied.
// CALL-LABEL: func.func @rows_topk
// CALL: call @__sift_gpu_scatter(%{{.*}}) {batched, distinct, reduce = 0 : i32, sift.gpu_kernel = "scatter", tail = 2 : i64} : (memref<64xf32>, memref<8000xf32>, memref<32xi64>, memref<8000xf32>, index, index) -> ()
func.func @rows_topk(%k: tensor<4x1000xf32>, %d: tensor<4x1000x2xf32>, %u: tensor<4x8x2xf32>) -> tensor<4x1000x2xf32> {
  %v, %i = sift.topk %k k(10) : tensor<4x1000xf32> -> tensor<4x10xf32>, tensor<4x10xi64>
  %c = tensor.cast %i : tensor<4x10xi64> to tensor<?x10xi64>
  %s = tensor.extract_slice %c[0, 0] [4, 8] [1, 1] : tensor<?x10xi64> to tensor<4x8xi64>
  %r = sift.scatter %u into %d[%s] {batch_dims = 1 : i64} : tensor<4x8x2xf32>, tensor<4x8xi64> into tensor<4x1000x2xf32>
  return %r : tensor<4x1000x2xf32>
}

// -----

// Not distinct: the lanes of a compaction padded with 0 (the padding lands
// on row 0 again), the rows of a [2, 50] argsort into one row of 50, the
// lanes of an unpadded compaction (unspecified past the count): winners.
// CALL-LABEL: func.func @not_distinct
// CALL: call @__sift_gpu_scatter(%{{.*}}) {reduce = 0 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<50xi64>, memref<50xi64>, memref<50xi64>, memref<50xi64>, memref<50xi64>, index, index) -> ()
// CALL: call @__sift_gpu_scatter_0(%{{.*}}) {reduce = 0 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<100xi64>, memref<50xi64>, memref<100xi64>, memref<50xi64>, memref<50xi64>, index, index) -> ()
// CALL: call @__sift_gpu_scatter_1(%{{.*}}) {reduce = 0 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<50xi64>, memref<50xi64>, memref<50xi64>, memref<50xi64>, memref<50xi64>, index, index) -> ()
func.func @not_distinct(%m: tensor<50xi1>, %k: tensor<2x50xf32>, %d: tensor<50xi64>, %u: tensor<50xi64>, %u2: tensor<2x50xi64>) -> (tensor<50xi64>, tensor<50xi64>, tensor<50xi64>) {
  %i, %n = sift.compact %m {fill = 0 : i64} : tensor<50xi1> -> tensor<50xi64>, tensor<i64>
  %r = sift.scatter %u into %d[%i] : tensor<50xi64>, tensor<50xi64> into tensor<50xi64>
  %p = sift.argsort %k : tensor<2x50xf32> -> tensor<2x50xi64>
  %r2 = sift.scatter %u2 into %d[%p] : tensor<2x50xi64>, tensor<2x50xi64> into tensor<50xi64>
  %j, %n2 = sift.compact %m unpadded : tensor<50xi1> -> tensor<50xi64>, tensor<i64>
  %r3 = sift.scatter %u into %d[%j] : tensor<50xi64>, tensor<50xi64> into tensor<50xi64>
  return %r, %r2, %r3 : tensor<50xi64>, tensor<50xi64>, tensor<50xi64>
}
