// The fuse option of --sift-cpu-pipeline (on by default): the per-row chain
// of a batched function (mask, compaction, gather) is one parallel loop
// over its 8 rows (--sift-fuse); without it, or when a row moves more than
// fuse-max-row-bytes, each op is its own loop, but for the mask, which the
// compaction computes as it scans (two loops).
//
// RUN: tensor-opt %s --sift-cpu-pipeline | FileCheck %s --check-prefix=FUSED
// RUN: tensor-opt %s '--sift-cpu-pipeline=fuse=false' | FileCheck %s --check-prefix=SPLIT
// RUN: tensor-opt %s '--sift-cpu-pipeline=fuse-max-row-bytes=1' | FileCheck %s --check-prefix=SPLIT

// FUSED-LABEL: llvm.func @rows
// FUSED: omp.parallel
// FUSED-NOT: omp.parallel
// FUSED: llvm.return
// SPLIT-LABEL: llvm.func @rows
// SPLIT-COUNT-2: omp.parallel
// SPLIT-NOT: omp.parallel
func.func @rows(%x: tensor<8x4096xi64>, %f: tensor<8x4096xf32>)
    -> (tensor<8x4096xf32>, tensor<8xi64>) {
  %zero = arith.constant dense<0> : tensor<8x4096xi64>
  %m = arith.cmpi sgt, %x, %zero : tensor<8x4096xi64>
  %idx, %n = sift.compact %m : tensor<8x4096xi1> -> tensor<8x4096xi64>, tensor<8xi64>
  %g = sift.gather %f[%idx] {batch_dims = 1 : i64}
      : tensor<8x4096xf32>, tensor<8x4096xi64> -> tensor<8x4096xf32>
  return %g, %n : tensor<8x4096xf32>, tensor<8xi64>
}
