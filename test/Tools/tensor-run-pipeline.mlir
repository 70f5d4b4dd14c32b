// tensor-run --pipeline accepts every pass name tensor-opt does (one
// registration, sift::registerAllSiftPasses): sift's conversions included.
//
// RUN: tensor-run %s -e nonzeros --pipeline=convert-sift-to-linalg,sift-cpu-pipeline | FileCheck %s
// RUN: tensor-opt %s --pass-pipeline='builtin.module(convert-sift-to-linalg,sift-cpu-pipeline)' -o /dev/null
// --num-threads sets the default pipeline's thread count: beside a pipeline
// of one's own it would be dropped, so it is an error that says where the
// count goes.
// RUN: not tensor-run %s -e nonzeros --pipeline=sift-cpu-pipeline --num-threads=2 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: tensor-run: error: a thread count (2) is an option of the default pipeline; with a pipeline of one's own, set it there, e.g. builtin.module(sift-cpu-pipeline{num-threads=2})
// RUN: tensor-run %s -e nonzeros '--pipeline=builtin.module(sift-cpu-pipeline{num-threads=2})' | FileCheck %s

// Three of the five are non-zero.
// CHECK: result 0: i64 [] = 3
func.func @nonzeros() -> tensor<i64> {
  %x = arith.constant dense<[0.0, 1.5, 0.0, -2.0, 7.0]> : tensor<5xf32>
  %n = sift.count %x : tensor<5xf32> -> tensor<i64>
  return %n : tensor<i64>
}
