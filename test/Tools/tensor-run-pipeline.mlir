// tensor-run --pipeline accepts every pass name tensor-opt does (one
// registration, sift::registerAllSiftPasses): sift's conversions included.
//
// RUN: tensor-run %s -e nonzeros --pipeline=convert-sift-to-linalg,sift-cpu-pipeline | FileCheck %s
// RUN: tensor-opt %s --pass-pipeline='builtin.module(convert-sift-to-linalg,sift-cpu-pipeline)' -o /dev/null

// Three of the five are non-zero.
// CHECK: result 0: i64 [] = 3
func.func @nonzeros() -> tensor<i64> {
  %x = arith.constant dense<[0.0, 1.5, 0.0, -2.0, 7.0]> : tensor<5xf32>
  %n = sift.count %x : tensor<5xf32> -> tensor<i64>
  return %n : tensor<i64>
}
