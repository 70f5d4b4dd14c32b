// The CPU pipeline compiles each distinct routine of the lowering once
// (--sift-outline-lines): two top-k selections of the same k from lines of
// the same length and type call one function, and so do the sort of k
// keys inside them and an argsort of k keys. The routines run once per
// row of a parallel loop, and each is one row's work: their own loops are
// sequential (no parallel region inside them), also in a routine called
// for a single row (the second file: a 1-D top-k, whose routine's fills,
// keys and permutation would otherwise each fork the threads). The results
// are checked against NumPy in test/Integration/CPU/sort.mlir and the
// conformance suite.
//
// RUN: tensor-opt %s --sift-cpu-pipeline -split-input-file | FileCheck %s

// CHECK: llvm.func @[[SORT:__sift_radix_argsort_[0-9]+]]({{.*}} attributes {sift.line_routine
// CHECK-NOT: omp.parallel
// CHECK: llvm.func @[[TOPK:__sift_topk_[0-9]+]]({{.*}} attributes {sift.line_routine
// CHECK-NOT: omp.parallel
// CHECK: llvm.call @[[SORT]](
// CHECK-NOT: llvm.func @__sift_topk
// CHECK-NOT: llvm.func @__sift_radix_argsort
// CHECK-LABEL: llvm.func @two_topks
// CHECK: omp.parallel
// CHECK: llvm.call @[[TOPK]](
// CHECK: llvm.call @[[TOPK]](
// The argsort of 50 keys is the sort inside the top-k routines: the same
// function, though its result is a row of @two_topks' result and theirs a
// buffer of their own (--sift-eliminate-alloc-tensors leaves a routine's
// buffers to it).
// CHECK: llvm.call @[[SORT]](
// CHECK-LABEL: llvm.func @dealloc_helper
func.func @two_topks(%a: tensor<4x1000xi32>, %b: tensor<4x1000xi32>,
                     %c: tensor<4x50xi32>)
    -> (tensor<4x50xi64>, tensor<4x50xi64>, tensor<4x50xi64>) {
  %va, %ia = sift.topk %a k(50) smallest {dim = 1 : i64}
      : tensor<4x1000xi32> -> tensor<4x50xi32>, tensor<4x50xi64>
  %vb, %ib = sift.topk %b k(50) smallest {dim = 1 : i64}
      : tensor<4x1000xi32> -> tensor<4x50xi32>, tensor<4x50xi64>
  %s = sift.argsort %c {dim = 1 : i64} : tensor<4x50xi32> -> tensor<4x50xi64>
  return %ia, %ib, %s : tensor<4x50xi64>, tensor<4x50xi64>, tensor<4x50xi64>
}

// -----

// CHECK: llvm.func @[[ONE:__sift_topk_[0-9]+]]({{.*}} attributes {sift.line_routine
// CHECK-NOT: omp.parallel
// CHECK-LABEL: llvm.func @one_row
// CHECK-NOT: omp.parallel
// CHECK: llvm.call @[[ONE]](
// CHECK-NOT: omp.parallel
// CHECK-LABEL: llvm.func @dealloc_helper
func.func @one_row(%a: tensor<100000xi32>) -> tensor<50xi64> {
  %v, %i = sift.topk %a k(50) smallest : tensor<100000xi32> -> tensor<50xi32>, tensor<50xi64>
  return %i : tensor<50xi64>
}
