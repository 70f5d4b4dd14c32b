// --sift-gpu-pipeline=fuse=1 on a batched chain (compare, compact, gather) and a
// per-row count. The ops sift has block-level kernels for stay out of
// --sift-fuse's row kernels (in one, each row would be one thread: on an
// H100 the batched sampler at B = 32, N = 1e4 took 51 ms in one such
// kernel and 1.4 ms as block kernels): the compaction is sift's compact
// kernel (a block per row: ballots, popc, barriers), which computes the
// compare where it reads the mask (no kernel and no buffer for the mask,
// test/GPU/mask-predicate.mlir), the gather a row kernel; the count is
// sift's count kernel. No kernel allocates (no malloc in the PTX) and --sift-verify-gpu
// passes.
//
// RUN: tensor-opt %s --sift-gpu-pipeline=fuse=1 -split-input-file -o %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: %extract_ptx %t %t.mlir
// RUN: cat %t/chain_kernel.ptx | FileCheck %s --check-prefix=COMPACT --implicit-check-not=__nv_ --implicit-check-not=malloc
// RUN: cat %t/chain_kernel_0.ptx | FileCheck %s --check-prefix=GATHER --implicit-check-not=__nv_ --implicit-check-not=malloc --implicit-check-not=vote.sync
// RUN: cat %t/count_rows_kernel.ptx | FileCheck %s --check-prefix=COUNT --implicit-check-not=__nv_ --implicit-check-not=malloc

// HOST-LABEL: llvm.func @chain
// HOST-NOT: gpu.launch_func
// HOST: gpu.launch_func {{.*}} @chain_kernel::@chain_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in
// HOST-NOT: gpu.launch_func
// HOST: gpu.launch_func {{.*}} @chain_kernel_0::@chain_kernel
// HOST-NOT: gpu.launch_func
// HOST: llvm.return
// HOST-LABEL: llvm.func @count_rows
// HOST-NOT: gpu.launch_func
// HOST: gpu.launch_func {{.*}} @count_rows_kernel::@count_rows_kernel
// HOST-NOT: gpu.launch_func
// HOST: llvm.return

// COMPACT: .target sm_90
// COMPACT: .visible .entry chain_kernel(
// COMPACT: ld.global.b64 [[X:%rd[0-9]+]]
// COMPACT-NEXT: setp.gt.s64 %p{{[0-9]+}}, [[X]], 0;
// COMPACT: vote.sync.ballot.b32
// COMPACT: popc
// COMPACT: bar.sync
// COMPACT: ret;
// GATHER: .visible .entry chain_kernel(
// GATHER: .maxntid 256, 1, 1
// GATHER: ld.global
// GATHER: ret;
func.func @chain(%x: tensor<32x1024xi64>, %f: tensor<32x1024xf32>)
    -> (tensor<32x256xf32>, tensor<32xi64>) {
  %zero = arith.constant dense<0> : tensor<32x1024xi64>
  %m = arith.cmpi sgt, %x, %zero : tensor<32x1024xi64>
  %idx, %n = sift.compact %m : tensor<32x1024xi1> -> tensor<32x256xi64>, tensor<32xi64>
  %g = sift.gather %f[%idx] {batch_dims = 1 : i64}
      : tensor<32x1024xf32>, tensor<32x256xi64> -> tensor<32x256xf32>
  return %g, %n : tensor<32x256xf32>, tensor<32xi64>
}

// -----

// COUNT: .target sm_90
// COUNT: .visible .entry count_rows_kernel(
// COUNT: vote.sync.ballot.b32
// COUNT: popc
// COUNT: ret;
func.func @count_rows(%x: tensor<32x4096xf32>) -> tensor<32xi64> {
  %c = sift.count %x : tensor<32x4096xf32> -> tensor<32xi64>
  return %c : tensor<32xi64>
}
