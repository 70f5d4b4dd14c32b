// sift's block-level kernels: convert-sift-to-gpu makes calls on buffers,
// sift-gpu-expand-kernels the gpu.launch of one block per row, and
// --sift-gpu-pipeline the PTX: a ballot and popc per tile plus a block
// reduction for count, shuffle scans, shared memory and barriers for cumsum,
// ballots, popc and a scan of the warps' counts for compact. The pipeline
// runs with fuse=0: --sift-fuse would make each of these batched ops a row
// kernel with one thread per row, which the kernels leave alone.
//
// RUN: tensor-opt %s --convert-sift-to-gpu | FileCheck %s --check-prefix=CALLS
// RUN: tensor-opt %s --convert-sift-to-gpu --sift-gpu-expand-kernels | FileCheck %s --check-prefix=LAUNCH
// RUN: tensor-opt %s --sift-gpu-pipeline="chip=sm_90 fuse=0" -o %t.mlir
// RUN: %extract_ptx %t %t.mlir
// RUN: FileCheck %s --check-prefix=COUNT --implicit-check-not=__nv_ --implicit-check-not=malloc < %t/count_rows_kernel.ptx
// RUN: FileCheck %s --check-prefix=SCAN --implicit-check-not=__nv_ --implicit-check-not=malloc < %t/scan_rows_kernel.ptx
// RUN: FileCheck %s --check-prefix=SCAN --implicit-check-not=__nv_ --implicit-check-not=malloc < %t/scan_floats_kernel.ptx
// RUN: FileCheck %s --check-prefix=COMPACT --implicit-check-not=__nv_ --implicit-check-not=malloc < %t/compact_rows_kernel.ptx
// RUN: tensor-opt %s --symbol-privatize=exclude=count_rows --symbol-dce | tensor-opt --sift-gpu-pipeline="chip=sm_90 fuse=0 sift-kernels=0" -o %t.off.mlir
// RUN: %extract_ptx %t.off %t.off.mlir
// RUN: FileCheck %s --check-prefix=OFF < %t.off/count_rows_kernel.ptx

// CALLS-LABEL: func.func @count_rows
// CALLS: %[[IN:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<32x1000xi1> to memref<32x1000xi1>
// CALLS: %[[OUT:.*]] = memref.alloc() : memref<32xi64>
// CALLS: call @__sift_gpu_count(%[[IN]], %[[OUT]]) {sift.gpu_kernel = "count"}
// CALLS: bufferization.to_tensor %[[OUT]] restrict writable
// CALLS-LABEL: func.func @scan_rows
// CALLS: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<4x8x1000xi1> into tensor<32x1000xi1>
// CALLS: call @__sift_gpu_cumsum{{.*}} {exclusive, sift.gpu_kernel = "cumsum"}
// CALLS: tensor.expand_shape
// CALLS-LABEL: func.func @scan_floats
// CALLS: call @__sift_gpu_cumsum
// CALLS-LABEL: func.func @compact_rows
// CALLS: %[[IDX:.*]] = memref.alloc() : memref<32x100xi64>
// CALLS: %[[CNT:.*]] = memref.alloc() : memref<32xi64>
// CALLS: call @__sift_gpu_compact(%{{.*}}, %[[IDX]], %[[CNT]]) {fill = 0 : i64, sift.gpu_kernel = "compact"}
// Along the first axis: the kernel along the last axis of the input
// transposed, the result transposed back.
// CALLS-LABEL: func.func @other_axis
// CALLS: linalg.transpose
// CALLS: call @__sift_gpu_cumsum{{.*}} : (memref<50x16xf32>, memref<50x16xf32>) -> ()
// CALLS: linalg.transpose
// CALLS: func.func private @__sift_gpu_count(memref<32x1000xi1>, memref<32xi64>)

// LAUNCH-LABEL: func.func @count_rows
// LAUNCH: gpu.launch blocks({{.*}}) in ({{.*}} = %dim, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}) workgroup(%{{.*}} : memref<32xi32, #gpu.address_space<workgroup>>)
// LAUNCH: scf.for
// LAUNCH: gpu.shuffle  xor
// LAUNCH: math.ctpop
// LAUNCH: gpu.barrier
// LAUNCH-NOT: call @__sift_gpu
// LAUNCH-LABEL: func.func @scan_rows
// LAUNCH: gpu.launch
// LAUNCH: gpu.shuffle  up
// LAUNCH: gpu.barrier
// LAUNCH: gpu.shuffle  idx
// LAUNCH-NOT: func.func private @__sift_gpu

// COUNT: .entry count_rows_kernel
// COUNT: .maxntid 256, 1, 1
// COUNT: .shared .align 4 .b8
// COUNT: vote.sync.ballot.b32
// COUNT: popc.b32
// COUNT: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// COUNT: bar.sync 0

// SCAN: .entry scan_{{rows|floats}}_kernel
// SCAN: .shared
// The clamps --sift-gpu-launch-to-cpu models: 0 for up (32 - width),
// 31 for the others (width - 1), all lanes.
// SCAN: shfl.sync.up.b32 {{.*}}, 1, 0, -1;
// SCAN: bar.sync 0
// SCAN: shfl.sync.idx.b32 {{.*}}, 31, -1;
// SCAN: bar.sync 0

// COMPACT: .entry compact_rows_kernel
// COMPACT: vote.sync.ballot.b32
// COMPACT: popc.b32
// COMPACT: popc.b32
// COMPACT: bar.sync 0
// COMPACT: shfl.sync.up.b32
// COMPACT: bar.sync 0

// With sift-kernels=0 the count is the linalg lowering's loop.
// OFF: .entry count_rows_kernel
// OFF-NOT: bar.sync
// OFF-NOT: vote.sync

func.func @count_rows(%m: tensor<32x1000xi1>) -> tensor<32xi64> {
  %c = sift.count %m : tensor<32x1000xi1> -> tensor<32xi64>
  return %c : tensor<32xi64>
}

func.func @scan_rows(%m: tensor<4x8x1000xi1>) -> tensor<4x8x1000xi64> {
  %p = sift.cumsum %m exclusive : tensor<4x8x1000xi1> -> tensor<4x8x1000xi64>
  return %p : tensor<4x8x1000xi64>
}

func.func @scan_floats(%x: tensor<16x5000xf32>) -> tensor<16x5000xf32> {
  %p = sift.cumsum %x : tensor<16x5000xf32> -> tensor<16x5000xf32>
  return %p : tensor<16x5000xf32>
}

func.func @compact_rows(%m: tensor<32x5000xi1>) -> (tensor<32x100xi64>, tensor<32xi64>) {
  %i, %n = sift.compact %m {fill = 0 : i64} : tensor<32x5000xi1> -> tensor<32x100xi64>, tensor<32xi64>
  return %i, %n : tensor<32x100xi64>, tensor<32xi64>
}

// Along another axis: left for the linalg lowering.
func.func @other_axis(%x: tensor<16x50xf32>) -> tensor<16x50xf32> {
  %p = sift.cumsum %x {dim = 0 : i64} : tensor<16x50xf32> -> tensor<16x50xf32>
  return %p : tensor<16x50xf32>
}
