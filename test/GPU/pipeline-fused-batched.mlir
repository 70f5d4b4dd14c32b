// --sift-gpu-pipeline on --sift-fuse row kernels: a batched chain
// (compare, compact, gather) and a per-row reduction (count) each become
// one kernel with a thread per row; their per-row scratch buffers are slots
// of one device buffer the host allocates around the launch, so the kernels
// never allocate (no malloc in the PTX) and --sift-verify-gpu passes.
//
// RUN: tensor-opt %s --sift-gpu-pipeline -split-input-file -o %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: %extract_ptx %t %t.mlir
// RUN: cat %t/chain_kernel.ptx | FileCheck %s --check-prefix=CHAIN --implicit-check-not=__nv_ --implicit-check-not=malloc
// RUN: cat %t/count_rows_kernel.ptx | FileCheck %s --check-prefix=COUNT --implicit-check-not=__nv_ --implicit-check-not=malloc

// HOST-LABEL: llvm.func @chain
// The scratch buffer of the launch (its slots), then the one launch.
// HOST: llvm.call @mgpuMemAlloc
// HOST-NOT: gpu.launch_func
// HOST: gpu.launch_func {{.*}} @chain_kernel::@chain_kernel
// HOST-NOT: gpu.launch_func
// HOST: llvm.return
// HOST-LABEL: llvm.func @count_rows
// HOST-NOT: gpu.launch_func
// HOST: gpu.launch_func {{.*}} @count_rows_kernel::@count_rows_kernel
// HOST-NOT: gpu.launch_func
// HOST: llvm.return

// CHAIN: .target sm_90
// CHAIN: .visible .entry chain_kernel(
// CHAIN: .maxntid 256, 1, 1
// CHAIN: ret;
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
// COUNT: ret;
func.func @count_rows(%x: tensor<32x4096xf32>) -> tensor<32xi64> {
  %c = sift.count %x : tensor<32x4096xf32> -> tensor<32xi64>
  return %c : tensor<32xi64>
}
