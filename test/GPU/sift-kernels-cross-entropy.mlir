// sift.cross_entropy as sift's kernels: convert-sift-to-gpu makes a call on
// buffers (logits [M, C], targets [R], the weights, the result, per-row
// losses and weights for sum and mean, a 2 x i64 error word);
// sift-gpu-expand-kernels makes four steps of it: a kernel of one thread
// that clears the error word, the row kernel (groups of lanes per row by the
// row length: 16 lanes for C = 10, a warp for C = 100, a block for C = 5000
// or a dynamic C; xor shuffles, and workgroup memory and barriers for a
// block; an atomic min of the bad row), the items' sums (one block per
// item, f64) or a kernel of one thread reading the bad row's target, and on
// the host one copy of the error word and the runtime's report.
//
// RUN: tensor-opt %s --convert-sift-to-gpu | FileCheck %s --check-prefix=CALLS
// RUN: tensor-opt %s --convert-sift-to-gpu --sift-gpu-expand-kernels | FileCheck %s --check-prefix=LAUNCH
// RUN: tensor-opt %s --sift-gpu-pipeline="chip=sm_90 fuse=0 allow-host-code=1" -o %t.mlir 2>/dev/null
// RUN: %extract_ptx %t %t.mlir
// RUN: FileCheck %s --check-prefix=PTX-SHORT --implicit-check-not=__nv_ --implicit-check-not=malloc --implicit-check-not=call < %t/mean_short_kernel_0.ptx
// RUN: FileCheck %s --check-prefix=PTX-MEAN --implicit-check-not=__nv_ --implicit-check-not=malloc < %t/mean_short_kernel_1.ptx
// RUN: FileCheck %s --check-prefix=PTX-LONG --implicit-check-not=__nv_ --implicit-check-not=malloc --implicit-check-not=call < %t/none_long_kernel_8.ptx

// CALLS-LABEL: func.func @mean_short
// CALLS-DAG: %[[X:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<32x10xf32>
// CALLS-DAG: %[[T:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<32xi64>
// CALLS: %[[OUT:.*]] = memref.alloc() : memref<1xf32>
// CALLS: %[[L:.*]] = memref.alloc() : memref<32xf32>
// CALLS: %[[W:.*]] = memref.alloc() : memref<32xf32>
// CALLS: %[[E:.*]] = memref.alloc() : memref<2xi64>
// CALLS: call @__sift_gpu_cross_entropy(%[[X]], %[[T]], %[[OUT]], %[[L]], %[[W]], %[[E]]) {ignore_index = -100 : i64, label_smoothing = 0.000000e+00 : f64, reduction = 1 : i32, sift.gpu_kernel = "cross_entropy"}
// CALLS: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CALLS: tensor.collapse_shape %[[R]] [] : tensor<1xf32> into tensor<f32>
// CALLS-LABEL: func.func @none_weighted_3d
// CALLS: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<4x5x100xf16> into tensor<20x100xf16>
// CALLS: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<4x5xi32> into tensor<20xi32>
// CALLS: call @__sift_gpu_cross_entropy{{.*}} {ignore_index = -1 : i64, label_smoothing = 1.000000e-01 : f64, reduction = 0 : i32, sift.gpu_kernel = "cross_entropy", weighted} : (memref<20x100xf16>, memref<20xi32>, memref<100xf16>, memref<20xf16>, memref<2xi64>) -> ()
// CALLS: tensor.expand_shape
// CALLS-LABEL: func.func @sum_batched
// CALLS: memref.alloc() : memref<4xf64>
// CALLS: call @__sift_gpu_cross_entropy{{.*}}reduction = 2 : i32
// CALLS-LABEL: func.func @none_dynamic
// CALLS: scf.if
// CALLS: func.call @sift_rt_report
// CALLS: call @__sift_gpu_cross_entropy
// CALLS-LABEL: func.func @in_a_loop
// CALLS: scf.for
// CALLS-NOT: sift.cross_entropy
// CALLS: call @__sift_gpu_cross_entropy
// CALLS: scf.yield

// LAUNCH-LABEL: func.func @mean_short
// The error word cleared by one thread.
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c1{{.*}})
// LAUNCH: memref.store %c9223372036854775807_i64{{.*}}, %{{.*}}[%c0{{.*}}] : memref<2xi64>
// 32 rows of 10 classes: 16 lanes per row, 2 rows per warp, blocks of 8
// warps (16 rows); four shuffle steps of the pair, no barrier.
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}) {
// LAUNCH: scf.for
// LAUNCH: math.exp
// LAUNCH-COUNT-8: gpu.shuffle  xor
// LAUNCH-NOT: gpu.shuffle
// LAUNCH-NOT: gpu.barrier
// LAUNCH: math.log
// LAUNCH: memref.atomic_rmw mins
// LAUNCH: gpu.terminator
// The mean: one block per item, f64 sums through workgroup memory.
// LAUNCH: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c32{{.*}}) workgroup(%{{.*}} : memref<32xf64, #gpu.address_space<workgroup>>)
// LAUNCH: gpu.shuffle  xor
// LAUNCH: arith.divf {{.*}} : f64
// LAUNCH: arith.truncf {{.*}} : f64 to f32
// LAUNCH: gpu.terminator
// One copy of the error word to the host, and the report.
// LAUNCH: %[[H:.*]] = memref.alloca() {sift.error_word} : memref<2xi64>
// LAUNCH: gpu.memcpy  %[[H]], %{{.*}} : memref<2xi64>, memref<2xi64>
// LAUNCH: %[[ROW:.*]] = memref.load %[[H]][%c0
// LAUNCH: %[[TGT:.*]] = memref.load %[[H]][%c1
// LAUNCH: scf.if
// LAUNCH: func.call @sift_rt_report(%{{.*}}, %[[TGT]], %[[ROW]], %{{.*}})
// LAUNCH-NOT: call @__sift_gpu

// LAUNCH-LABEL: func.func @none_weighted_3d
// 100 classes: a warp per row (5 shuffle steps of the pair), f16 read as
// f32; the smoothing's second pass and its sum (5 more).
// LAUNCH: gpu.launch
// LAUNCH: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}) {
// LAUNCH: arith.extf {{.*}} : f16 to f32
// LAUNCH-COUNT-10: gpu.shuffle  xor
// LAUNCH: arith.extf {{.*}} : f16 to f32
// LAUNCH-COUNT-5: gpu.shuffle  xor
// LAUNCH-NOT: gpu.barrier
// LAUNCH: arith.truncf {{.*}} : f32 to f16
// LAUNCH: gpu.terminator
// The bad row's target, by one thread.
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c1{{.*}})
// LAUNCH: arith.extsi {{.*}} : i32 to i64
// LAUNCH: gpu.memcpy

// LAUNCH-LABEL: func.func @sum_batched
// 5000 classes: a block of 256 threads per row; the pair's warp partials
// through two workgroup buffers and two barriers.
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}) workgroup(%{{.*}} : memref<32xf64, #gpu.address_space<workgroup>>, %{{.*}} : memref<32xf64, #gpu.address_space<workgroup>>)
// LAUNCH-COUNT-10: gpu.shuffle  xor
// LAUNCH: gpu.barrier
// LAUNCH-COUNT-10: gpu.shuffle  xor
// LAUNCH: gpu.barrier
// LAUNCH: memref.atomic_rmw mins
// One block of one warp per item (3 rows each).
// LAUNCH: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c32{{.*}}) workgroup(%{{.*}} : memref<32xf64, #gpu.address_space<workgroup>>)

// LAUNCH-LABEL: func.func @none_dynamic
// A dynamic C: a block per row, launched when there are rows.
// LAUNCH: scf.if
// LAUNCH: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}) workgroup(
// LAUNCH: gpu.barrier

// The kernels of a function are numbered in order: the error word's
// clearing, the rows, the items.
// PTX-SHORT: .entry mean_short_kernel(
// PTX-SHORT: .maxntid 256, 1, 1
// PTX-SHORT-NOT: .shared
// PTX-SHORT: shfl.sync.bfly.b32
// PTX-SHORT-NOT: bar.sync
// PTX-SHORT: atom.global.min.s64

// PTX-MEAN: .entry mean_short_kernel(
// PTX-MEAN: .maxntid 32, 1, 1
// PTX-MEAN: shfl.sync.bfly.b32
// PTX-MEAN: div.rn.f64
// PTX-MEAN: cvt.rn.f32.f64

// PTX-LONG: .entry none_long_kernel(
// PTX-LONG: .maxntid 256, 1, 1
// PTX-LONG: .shared
// PTX-LONG: shfl.sync.bfly.b32
// PTX-LONG: bar.sync 0
// PTX-LONG: atom.global.min.s64

func.func @mean_short(%x: tensor<32x10xf32>, %t: tensor<32xi64>) -> tensor<f32> {
  %r = sift.cross_entropy %x, %t reduction = mean : tensor<32x10xf32>, tensor<32xi64> -> tensor<f32>
  return %r : tensor<f32>
}

func.func @none_weighted_3d(%x: tensor<4x5x100xf16>, %t: tensor<4x5xi32>, %w: tensor<100xf16>) -> tensor<4x5xf16> {
  %r = sift.cross_entropy %x, %t weight(%w : tensor<100xf16>) reduction = none {label_smoothing = 1.000000e-01 : f64, ignore_index = -1 : i64} : tensor<4x5x100xf16>, tensor<4x5xi32> -> tensor<4x5xf16>
  return %r : tensor<4x5xf16>
}

func.func @sum_batched(%x: tensor<4x3x5000xf64>, %t: tensor<4x3xi64>) -> tensor<4xf64> {
  %r = sift.cross_entropy %x, %t reduction = sum {batch_dims = 1 : i64} : tensor<4x3x5000xf64>, tensor<4x3xi64> -> tensor<4xf64>
  return %r : tensor<4xf64>
}

func.func @none_dynamic(%x: tensor<?x?xf32>, %t: tensor<?xi8>) -> tensor<?xf32> {
  %r = sift.cross_entropy %x, %t reduction = none : tensor<?x?xf32>, tensor<?xi8> -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @none_long(%x: tensor<8x2000xf32>, %t: tensor<8xi64>) -> tensor<8xf32> {
  %r = sift.cross_entropy %x, %t reduction = none : tensor<8x2000xf32>, tensor<8xi64> -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// In a sequential loop of the host code (a program's own loop): a kernel
// call there.
func.func @in_a_loop(%x: tensor<4x10xf32>, %t: tensor<4xi64>, %n: index) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant dense<0.0> : tensor<f32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> tensor<f32> {
    %l = sift.cross_entropy %x, %t reduction = sum : tensor<4x10xf32>, tensor<4xi64> -> tensor<f32>
    scf.yield %l : tensor<f32>
  }
  return %r : tensor<f32>
}

