// sift.unique and sift.randperm through sift's kernels (convert-sift-to-gpu,
// sift-gpu-expand-kernels), composed from the existing ones rather than
// kernels of their own. unique: the sort kernel, an elementwise "first of
// its run" flag, the compact kernel's stable compaction of the flags (the
// groups' starts and their count), elementwise gathers of the values and
// the counts; the inverse as the cumsum kernel of the flags scattered
// through the sort's permutation (one launch of plain stores: the lanes
// are distinct and the dest a tensor.empty). The results' size is the compaction's count, read on the
// host to slice them. randperm: the Philox words of the CPU lowering (the
// philox_words kernel: a block of 4 words per thread), then the argsort
// kernel. No sequential loop is left. Each result equals the CPU lowering's; ctest
// conformance-gpu-kernels checks them against NumPy.
//
// RUN: tensor-opt %s --convert-sift-to-gpu | FileCheck %s --check-prefix=CALLS
// RUN: tensor-opt %s --convert-sift-to-gpu --sift-gpu-expand-kernels | FileCheck %s --check-prefix=LAUNCH

// CALLS-LABEL: func.func @unique_all
// CALLS: call @__sift_gpu_sort({{.*}}) {sift.gpu_kernel = "sort"} : (memref<1x300xi64>, memref<1x300xi64>, memref<1x300xi64>) -> ()
// CALLS: linalg.generic {{.*}} outs(%{{.*}} : tensor<300xi1>)
// CALLS: call @__sift_gpu_compact{{(_[0-9]+)?}}({{.*}}) {fill = -1 : i64, sift.gpu_kernel = "compact"} : (memref<1x300xi1>, memref<1x300xi64>, memref<1xi64>) -> ()
// CALLS: %[[C:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CALLS: %[[COUNT:.*]] = arith.index_cast %[[C]] : i64 to index
// CALLS: %[[VALUES:.*]] = linalg.generic
// CALLS: tensor.extract_slice %[[VALUES]][0] [%[[COUNT]]] [1] : tensor<300xi64> to tensor<?xi64>
// CALLS: call @__sift_gpu_cumsum({{.*}}) {sift.gpu_kernel = "cumsum"} : (memref<1x300xi1>, memref<1x300xi64>) -> ()
// The groups sent through the sort's permutation: no second sort.
// CALLS-NOT: argsort
// CALLS: call @__sift_gpu_scatter({{.*}}, %[[INVBUF:.*]], %c300{{.*}}, %c300{{.*}}) {distinct, fresh, reduce = 0 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<300xi64>, memref<300xi64>, memref<300xi64>, memref<300xi64>, index, index) -> ()
// CALLS: %[[INV:.*]] = bufferization.to_tensor %[[INVBUF]]
// CALLS: %[[COUNTS:.*]] = linalg.generic
// CALLS: %[[CNT:.*]] = tensor.extract_slice %[[COUNTS]][0] [%[[COUNT]]] [1]
// CALLS: return %{{.*}}, %[[INV]], %[[CNT]]
// CALLS-NOT: sift.
// CALLS-LABEL: func.func @unique_2d_f32
// CALLS: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<6x11xf32> into tensor<66xf32>
// CALLS: sift.gpu_kernel = "sort"
// -0.0 == +0.0, and all NaNs are one value.
// CALLS: arith.cmpf une
// CALLS: arith.cmpf uno
// CALLS: sift.gpu_kernel = "compact"
// CALLS-NOT: sift.gpu_kernel
// CALLS: return
// CALLS-LABEL: func.func @unique_long_inverse
// The radix sort (5000 keys are past the bitonic limit), with its scratch.
// CALLS: call @__sift_gpu_sort_{{[0-9]+}}({{.*}}) {sift.gpu_kernel = "sort"} : (memref<1x5000xi32>, memref<1x5000xi32>, memref<1x5000xi64>, memref<2x1x5000xi32>, memref<2x1x5000xi32>) -> ()
// CALLS: sift.gpu_kernel = "compact"
// CALLS: sift.gpu_kernel = "cumsum"
// CALLS: sift.gpu_kernel = "scatter"
// CALLS: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [50, 100] : tensor<5000xi64> into tensor<50x100xi64>
// CALLS-LABEL: func.func @randperm_dynamic
// A negative or too large n is the CPU lowering's run-time error, then an
// empty permutation.
// CALLS: scf.if
// CALLS: func.call @sift_rt_report
// CALLS: scf.if
// CALLS: func.call @sift_rt_report
// CALLS: %[[N:.*]] = arith.select
// CALLS: %[[KEYS:.*]] = memref.alloc(%[[N]]) : memref<1x?xi32>
// CALLS: call @__sift_gpu_philox_words(%[[KEYS]], %{{.*}}, %{{.*}}) {rows_per_seed = 1 : i64, sift.gpu_kernel = "philox_words"} : (memref<1x?xi32>, i64, i64) -> ()
// The words sorted as unsigned: no sign bit flipped.
// CALLS-NOT: arith.xori %{{.*}}, %c-2147483648_i32 : i32
// CALLS: call @__sift_gpu_argsort{{(_[0-9]+)?}}({{.*}}) {sift.gpu_kernel = "argsort", unsigned} : (memref<1x?xi32>, memref<1x?xi64>, memref<2x1x?xi32>, memref<2x1x?xi32>) -> ()
// CALLS-LABEL: func.func @randperm_static
// A constant n needs no check: the bitonic sort of 16 keys.
// CALLS-NOT: sift_rt_report
// CALLS: sift.gpu_kernel = "philox_words"} : (memref<1x16xi32>, i64, i64) -> ()
// CALLS: {sift.gpu_kernel = "argsort", unsigned} : (memref<1x16xi32>, memref<1x16xi64>) -> ()
// CALLS-LABEL: func.func @unique_dynamic
// A dynamic input of n elements: the sort of a dynamic row, the flags,
// the compaction of the n flags into n slots (the call made directly:
// sift.compact's K is static; split across blocks in segments of a
// run-time length), the cumsum and the scatter of the inverse into a
// tensor.empty of n.
// CALLS: {sift.gpu_kernel = "sort"} : (memref<1x?xi64>, memref<1x?xi64>, memref<1x?xi64>, memref<2x1x?xi64>, memref<2x1x?xi32>) -> ()
// CALLS: sift.gpu_kernel = "compact"} : (memref<1x?xi1>, memref<1x?xi64>, memref<1xi64>, memref<2048xi32>) -> ()
// CALLS: sift.gpu_kernel = "cumsum"
// CALLS: {distinct, fresh, reduce = 0 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64}
// CALLS-NOT: sift.unique
// CALLS-LABEL: func.func @left_alone
// CALLS: sift.unique %{{.*}} : tensor<0xi64> -> tensor<?xi64>
// The randperm in the program's own (sequential, host) loop is kernels
// there: its Philox words, then the unsigned argsort.
// CALLS: scf.for
// CALLS-NOT: sift.randperm
// CALLS: {sift.gpu_kernel = "argsort", unsigned} : (memref<1x8xi32>, memref<1x8xi64>) -> ()
// CALLS: scf.yield

// LAUNCH-LABEL: func.func @unique_all
// sort, flags, compact, values, cumsum, groups, the inverse's scatter,
// counts: the sift kernels are launches, the elementwise steps linalg
// (mapped to kernels by the pipeline's loop mapping).
// LAUNCH: gpu.launch
// LAUNCH: linalg.generic
// LAUNCH: gpu.launch
// LAUNCH: linalg.generic
// LAUNCH: gpu.launch
// LAUNCH: linalg.generic
// LAUNCH: gpu.launch
// LAUNCH-NOT: gpu.launch
// LAUNCH: linalg.generic
// LAUNCH-NOT: call @__sift_gpu
// LAUNCH-LABEL: func.func @randperm_dynamic
// The keys: a thread per block of 4 words (a grid of ceil(ceil(n/4)/256)
// blocks, none for n = 0), each word past the first stored if below n.
// LAUNCH: %[[BLOCKS:.*]] = arith.ceildivui %{{.*}}, %c4{{.*}} : index
// LAUNCH: %[[GRID:.*]] = arith.ceildivui %{{.*}}, %c256{{.*}} : index
// LAUNCH: scf.if
// LAUNCH: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %[[GRID]],
// LAUNCH-COUNT-20: arith.mului_extended
// LAUNCH-NOT: arith.mului_extended
// LAUNCH: memref.store %{{.*}} : memref<1x?xi32>
// LAUNCH-COUNT-3: scf.if
// LAUNCH: gpu.launch
// LAUNCH: memref.atomic_rmw addi
// LAUNCH-NOT: call @__sift_gpu
// LAUNCH-LABEL: func.func @randperm_static
// LAUNCH: gpu.launch {{.*}} workgroup(%{{.*}} : memref<32xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16xi32, #gpu.address_space<workgroup>>)
// LAUNCH-NOT: call @__sift_gpu
// LAUNCH-LABEL: func.func @left_alone

func.func @unique_all(%x: tensor<300xi64>) -> (tensor<?xi64>, tensor<300xi64>, tensor<?xi64>) {
  %u, %inv, %cnt = sift.unique %x inverse counts : tensor<300xi64> -> tensor<?xi64>, tensor<300xi64>, tensor<?xi64>
  return %u, %inv, %cnt : tensor<?xi64>, tensor<300xi64>, tensor<?xi64>
}

func.func @unique_2d_f32(%x: tensor<6x11xf32>) -> tensor<?xf32> {
  %u = sift.unique %x : tensor<6x11xf32> -> tensor<?xf32>
  return %u : tensor<?xf32>
}

func.func @unique_long_inverse(%x: tensor<50x100xi32>) -> (tensor<?xi32>, tensor<50x100xi64>) {
  %u, %inv = sift.unique %x inverse : tensor<50x100xi32> -> tensor<?xi32>, tensor<50x100xi64>
  return %u, %inv : tensor<?xi32>, tensor<50x100xi64>
}

func.func @randperm_dynamic(%n: index, %seed: i64, %off: i64) -> tensor<?xi64> {
  %r = sift.randperm %n, %seed offset %off sort : tensor<?xi64>
  return %r : tensor<?xi64>
}

func.func @randperm_static(%seed: i64) -> tensor<16xi64> {
  %c16 = arith.constant 16 : index
  %r = sift.randperm %c16, %seed sort : tensor<16xi64>
  return %r : tensor<16xi64>
}

// A dynamic input (the compaction's width must be static), a statically
// empty one, and a randperm inside a loop stay with the linalg lowering.
func.func @unique_dynamic(%x: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %u, %inv, %cnt = sift.unique %x inverse counts : tensor<?xi64> -> tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
  return %u, %inv, %cnt : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}

func.func @left_alone(%e: tensor<0xi64>, %seed: i64) -> (tensor<?xi64>, tensor<4x8xi64>) {
  %ue = sift.unique %e : tensor<0xi64> -> tensor<?xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %init = tensor.empty() : tensor<4x8xi64>
  %all = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (tensor<4x8xi64>) {
    %off = arith.index_cast %i : index to i64
    %p = sift.randperm %c8, %seed offset %off sort : tensor<8xi64>
    %ins = tensor.insert_slice %p into %acc[%i, 0] [1, 8] [1, 1] : tensor<8xi64> into tensor<4x8xi64>
    scf.yield %ins : tensor<4x8xi64>
  }
  return %ue, %all : tensor<?xi64>, tensor<4x8xi64>
}
