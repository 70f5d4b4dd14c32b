// sift's sorting kernels (convert-sift-to-gpu, sift-gpu-expand-kernels):
// sort and argsort of a short static row as a bitonic sort of (key, index)
// pairs in workgroup memory; of a long or dynamic row as an LSD radix sort
// of 4-bit digits in global scratch that the host allocates ([2, R, N] keys
// and i32 indices, passed to the kernel call); topk (0 < K < N) as a radix
// selection of the K-th key, a ballot-scan compaction and the sort of the
// K taken (bitonic, or radix in scratch when K is past the bitonic limit),
// or in index order with `unsorted`. Then the PTX of each kernel through
// --sift-gpu-pipeline: ballots, popc, shuffles, shared memory, barriers, no
// libdevice call and no malloc; the scratch is allocated and freed on the
// host. The results are checked against NumPy by ctest
// conformance-gpu-kernels.
//
// RUN: tensor-opt %s --convert-sift-to-gpu | FileCheck %s --check-prefix=CALLS
// RUN: tensor-opt %s --convert-sift-to-gpu --sift-gpu-expand-kernels | FileCheck %s --check-prefix=LAUNCH
// RUN: tensor-opt %s --symbol-privatize=exclude=sort_rows,argsort_long,argsort_dynamic,topk_rows,topk_unsorted,topk_large_k,topk_dynamic,topk_dynamic_rows --symbol-dce | tensor-opt --sift-gpu-pipeline="chip=sm_90 fuse=0" -o %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: %extract_ptx %t %t.mlir
// RUN: FileCheck %s --check-prefix=BITONIC --implicit-check-not=__nv_ --implicit-check-not=malloc < %t/sort_rows_kernel.ptx
// RUN: FileCheck %s --check-prefix=RADIX --implicit-check-not=__nv_ --implicit-check-not=malloc < %t/argsort_long_kernel.ptx
// RUN: FileCheck %s --check-prefix=RADIX --implicit-check-not=__nv_ --implicit-check-not=malloc < %t/argsort_dynamic_kernel.ptx
// RUN: FileCheck %s --check-prefix=TOPK --implicit-check-not=__nv_ --implicit-check-not=malloc < %t/topk_rows_kernel.ptx
// RUN: FileCheck %s --check-prefix=TOPK --implicit-check-not=__nv_ --implicit-check-not=malloc < %t/topk_unsorted_kernel.ptx
// RUN: FileCheck %s --check-prefix=TOPK --implicit-check-not=__nv_ --implicit-check-not=malloc < %t/topk_large_k_kernel.ptx

// CALLS-LABEL: func.func @sort_rows
// CALLS: %[[IN:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<64x1000xf32> to memref<64x1000xf32>
// CALLS: %[[V:.*]] = memref.alloc() : memref<64x1000xf32>
// CALLS: %[[I:.*]] = memref.alloc() : memref<64x1000xi64>
// CALLS: call @__sift_gpu_sort(%[[IN]], %[[V]], %[[I]]) {descending, sift.gpu_kernel = "sort"}
// CALLS: bufferization.to_tensor %[[V]] restrict writable
// CALLS: bufferization.to_tensor %[[I]] restrict writable
// CALLS-LABEL: func.func @argsort_long
// CALLS: %[[I:.*]] = memref.alloc() : memref<8x5000xi64>
// CALLS: %[[KS:.*]] = memref.alloc() : memref<2x8x5000xi64>
// CALLS: %[[IS:.*]] = memref.alloc() : memref<2x8x5000xi32>
// CALLS: call @__sift_gpu_argsort(%{{.*}}, %[[I]], %[[KS]], %[[IS]]) {sift.gpu_kernel = "argsort"}
// CALLS-LABEL: func.func @argsort_dynamic
// CALLS: %[[R:.*]] = tensor.dim %{{.*}}, %c0
// CALLS: %[[N:.*]] = tensor.dim %{{.*}}, %c1
// CALLS: memref.alloc(%[[R]], %[[N]]) : memref<?x?xi64>
// CALLS: memref.alloc(%[[R]], %[[N]]) : memref<2x?x?xi32>
// CALLS: memref.alloc(%[[R]], %[[N]]) : memref<2x?x?xi32>
// CALLS: {descending, sift.gpu_kernel = "argsort"}
// CALLS-LABEL: func.func @topk_rows
// CALLS: memref.alloc() : memref<32x100xf32>
// CALLS: memref.alloc() : memref<32x100xi64>
// CALLS-NOT: memref.alloc
// CALLS: {k = 100 : i64, sift.gpu_kernel = "topk"}
// CALLS-LABEL: func.func @topk_unsorted
// CALLS: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<3x4x500xi32> into tensor<12x500xi32>
// CALLS: {k = 10 : i64, sift.gpu_kernel = "topk", smallest, unsorted} : (memref<12x500xi32>, memref<12x10xi32>, memref<12x10xi64>) -> ()
// CALLS: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [3, 4, 10] : tensor<12x10xi32> into tensor<3x4x10xi32>
// CALLS-LABEL: func.func @topk_large_k
// The radix sort's scratch holds the K taken, not the row.
// CALLS: (memref<2x5000xi64>, memref<2x3000xi64>, memref<2x3000xi64>, memref<2x2x3000xi64>, memref<2x2x3000xi32>) -> ()
// CALLS-LABEL: func.func @left_alone
// Along the first axis: the kernel of the input transposed.
// CALLS: linalg.transpose
// CALLS: sift.gpu_kernel = "argsort"} : (memref<7x9xf32>, memref<7x9xi64>) -> ()
// CALLS: linalg.transpose
// CALLS: sift.topk %{{.*}} k(0)
// CALLS: sift.argsort %{{.*}} : tensor<4x0xf32>
// CALLS-LABEL: func.func @topk_dynamic
// A row of a dynamic length: the CPU lowering's check of k against it, on
// the host (the extent is the buffer's), then the argsort kernel of the row
// (descending: largest first) and its first k lanes.
// CALLS: %[[N:.*]] = tensor.dim %{{.*}}, %c0 : tensor<?xf32>
// CALLS: %[[BAD:.*]] = arith.cmpi ugt, %c3, %[[N]] : index
// CALLS: scf.if %[[BAD]]
// CALLS: func.call @sift_rt_report
// CALLS: {descending, sift.gpu_kernel = "argsort"} : (memref<1x?xf32>, memref<1x?xi64>, memref<2x1x?xi32>, memref<2x1x?xi32>) -> ()
// CALLS: linalg.generic
// CALLS-NOT: sift.topk
// CALLS-LABEL: func.func @topk_dynamic_rows
// The per-line valid lengths mask the keys (the value that ranks last),
// then the argsort of rows of a dynamic count and length, ascending.
// CALLS: arith.constant 0x7FC00000 : f32
// CALLS: linalg.generic
// CALLS: {sift.gpu_kernel = "argsort"} : (memref<?x?xf32>, memref<?x?xi64>,
// CALLS-NOT: sift.topk

// The bitonic sort: 1024 pairs for rows of 1000.
// LAUNCH-LABEL: func.func @sort_rows
// LAUNCH: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}) workgroup(%{{.*}} : memref<32xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1024xi32, #gpu.address_space<workgroup>>)
// LAUNCH: gpu.barrier
// LAUNCH: scf.for
// LAUNCH: scf.for
// LAUNCH: arith.cmpi ugt
// LAUNCH: gpu.barrier
// LAUNCH-NOT: gpu.shuffle
// LAUNCH-LABEL: func.func @argsort_long
// The radix sort's workgroup buffer: the histograms of the 16 digits of
// 64-bit keys, the running bin counts, the 8 warps' bin counts (25 x 16).
// LAUNCH: gpu.launch {{.*}} workgroup(%{{.*}} : memref<32xi32, #gpu.address_space<workgroup>>, %[[SH:.*]] : memref<400xi32, #gpu.address_space<workgroup>>) {
// LAUNCH: gpu.barrier
// LAUNCH: memref.atomic_rmw addi %{{.*}}, %[[SH]]
// LAUNCH: gpu.barrier
// LAUNCH: scf.for %{{.*}} = %c0{{.*}} to %c16
// LAUNCH: scf.if
// LAUNCH: gpu.shuffle  xor
// LAUNCH: math.ctpop
// LAUNCH: gpu.barrier
// LAUNCH: gpu.barrier
// LAUNCH: gpu.barrier
// LAUNCH-LABEL: func.func @topk_rows
// LAUNCH: workgroup(%{{.*}} : memref<32xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<128xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<128xi32, #gpu.address_space<workgroup>>)
// LAUNCH-NOT: call @__sift_gpu
// LAUNCH-LABEL: func.func @left_alone

// The scratch of the radix sorts: device buffers the host allocates and
// frees around the launch.
// HOST-LABEL: llvm.func @argsort_long
// HOST: llvm.call @mgpuMemAlloc
// HOST: gpu.launch_func {{.*}} @argsort_long_kernel::@argsort_long_kernel
// HOST: llvm.call @mgpuMemFree
// HOST: llvm.call @mgpuMemFree

// BITONIC: .entry sort_rows_kernel
// BITONIC: .shared .align 4 .b8 {{.*}}[4096]
// BITONIC: .shared .align 4 .b8 {{.*}}[4096]
// The padding's sentinel key, then the network's compare-exchanges.
// BITONIC: st.shared.b32 {{.*}}, -1;
// BITONIC: bar.sync 0
// BITONIC: bar.sync 0
// BITONIC: ld.shared.b32
// BITONIC: st.shared.b32

// The histograms of all digits (shared atomics), then per digit 16 ballots
// per tile.
// RADIX: .entry argsort_{{long|dynamic}}_kernel
// RADIX: .shared .align 4 .b8 {{.*}}[{{1600|1088}}]
// RADIX: bar.sync 0
// RADIX: atom.shared.add.u32
// RADIX: bar.sync 0
// RADIX: vote.sync.ballot.b32
// RADIX: popc.b32
// RADIX: bar.sync 0

// The radix selection's histograms (shared-memory atomics between
// barriers), then the compaction's two ballot scans (ties, then taken).
// TOPK: .entry topk_{{rows|unsorted|large_k}}_kernel
// TOPK: bar.sync 0
// TOPK: atom.shared.add.u32
// TOPK: vote.sync.ballot.b32
// TOPK: popc.b32
// TOPK: bar.sync 0
// TOPK: shfl.sync.up.b32
// TOPK: shfl.sync.idx.b32
// TOPK: bar.sync 0
// TOPK: vote.sync.ballot.b32
// TOPK: bar.sync 0

func.func @sort_rows(%x: tensor<64x1000xf32>) -> (tensor<64x1000xf32>, tensor<64x1000xi64>) {
  %v, %i = sift.sort %x descending : tensor<64x1000xf32> -> tensor<64x1000xf32>, tensor<64x1000xi64>
  return %v, %i : tensor<64x1000xf32>, tensor<64x1000xi64>
}

func.func @argsort_long(%x: tensor<8x5000xi64>) -> tensor<8x5000xi64> {
  %i = sift.argsort %x : tensor<8x5000xi64> -> tensor<8x5000xi64>
  return %i : tensor<8x5000xi64>
}

func.func @argsort_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xi64> {
  %i = sift.argsort %x descending : tensor<?x?xf32> -> tensor<?x?xi64>
  return %i : tensor<?x?xi64>
}

func.func @topk_rows(%x: tensor<32x6000xf32>) -> (tensor<32x100xf32>, tensor<32x100xi64>) {
  %v, %i = sift.topk %x k(100) : tensor<32x6000xf32> -> tensor<32x100xf32>, tensor<32x100xi64>
  return %v, %i : tensor<32x100xf32>, tensor<32x100xi64>
}

func.func @topk_unsorted(%x: tensor<3x4x500xi32>) -> (tensor<3x4x10xi32>, tensor<3x4x10xi64>) {
  %v, %i = sift.topk %x k(10) smallest unsorted : tensor<3x4x500xi32> -> tensor<3x4x10xi32>, tensor<3x4x10xi64>
  return %v, %i : tensor<3x4x10xi32>, tensor<3x4x10xi64>
}

func.func @topk_large_k(%x: tensor<2x5000xi64>) -> (tensor<2x3000xi64>, tensor<2x3000xi64>) {
  %v, %i = sift.topk %x k(3000) : tensor<2x5000xi64> -> tensor<2x3000xi64>, tensor<2x3000xi64>
  return %v, %i : tensor<2x3000xi64>, tensor<2x3000xi64>
}

func.func @left_alone(%a: tensor<9x7xf32>, %b: tensor<50xf32>, %d: tensor<4x0xf32>)
    -> (tensor<9x7xi64>, tensor<0xf32>, tensor<4x0xi64>) {
  %0 = sift.argsort %a {dim = 0 : i64} : tensor<9x7xf32> -> tensor<9x7xi64>
  %v1, %i1 = sift.topk %b k(0) : tensor<50xf32> -> tensor<0xf32>, tensor<0xi64>
  %3 = sift.argsort %d : tensor<4x0xf32> -> tensor<4x0xi64>
  return %0, %v1, %3 : tensor<9x7xi64>, tensor<0xf32>, tensor<4x0xi64>
}

func.func @topk_dynamic(%c: tensor<?xf32>) -> (tensor<3xf32>, tensor<3xi64>) {
  %v, %i = sift.topk %c k(3) : tensor<?xf32> -> tensor<3xf32>, tensor<3xi64>
  return %v, %i : tensor<3xf32>, tensor<3xi64>
}

func.func @topk_dynamic_rows(%x: tensor<?x?xf32>, %n: tensor<?xindex>) -> (tensor<?x4xf32>, tensor<?x4xi64>) {
  %v, %i = sift.topk %x k(4) valid(%n : tensor<?xindex>) smallest : tensor<?x?xf32> -> tensor<?x4xf32>, tensor<?x4xi64>
  return %v, %i : tensor<?x4xf32>, tensor<?x4xi64>
}
