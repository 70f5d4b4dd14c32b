// --sift-fuse's default max-row-bytes is 64 MiB: a chain whose rows move
// 18 MB each (a compaction of 2e6 mask bytes into 2e6 i64 indices; the
// compiler-made sampler at N = 1e5 moves 30 MB) forms a kernel; one whose
// rows move 72 MB (8e6; the sampler at N = 1e6: 300 MB) does not.
//
// RUN: tensor-opt %s --pass-pipeline='builtin.module(func.func(sift-fuse{report=1}))' -split-input-file -o /dev/null 2>&1 | FileCheck %s

// CHECK: remark: kernel 0: scf.forall over 2 rows
func.func @rows_of_18mb(%labels: tensor<2x2000000xi64>)
    -> (tensor<2x2000000xi64>, tensor<2xi64>) {
  %one = arith.constant dense<1> : tensor<2x2000000xi64>
  %m = arith.cmpi eq, %labels, %one : tensor<2x2000000xi64>
  %i, %n = sift.compact %m : tensor<2x2000000xi1> -> tensor<2x2000000xi64>, tensor<2xi64>
  return %i, %n : tensor<2x2000000xi64>, tensor<2xi64>
}

// -----

// CHECK: remark: no kernel: one row of the chain moves {{[0-9]+}} bytes unfused, more than max-row-bytes (67108864)
func.func @rows_of_72mb(%labels: tensor<2x8000000xi64>)
    -> (tensor<2x8000000xi64>, tensor<2xi64>) {
  %one = arith.constant dense<1> : tensor<2x8000000xi64>
  %m = arith.cmpi eq, %labels, %one : tensor<2x8000000xi64>
  %i, %n = sift.compact %m : tensor<2x8000000xi1> -> tensor<2x8000000xi64>, tensor<2xi64>
  return %i, %n : tensor<2x8000000xi64>, tensor<2xi64>
}
