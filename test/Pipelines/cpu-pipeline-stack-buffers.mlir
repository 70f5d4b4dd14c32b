// The CPU pipeline puts a function's small temporaries on its stack
// (--sift-stack-buffers, options stack-buffer-bytes and stack-frame-bytes):
// the radix sort routine's digit histograms (256 x i64) and its per-pass
// key and position buffers become allocas instead of calls of the
// runtime's allocator and free, at the start of the routine and with the
// stack's alignment (no 64-byte realignment of the frame); the result it
// returns stays on the heap.
// With stack-buffer-bytes=0 every temporary is allocated as before. The
// sorts' results are checked against NumPy in test/Integration/CPU and the
// conformance suite, which run this pipeline.
//
// RUN: tensor-opt %s --sift-cpu-pipeline | FileCheck %s --check-prefix=STACK
// RUN: tensor-opt %s --sift-cpu-pipeline=stack-buffer-bytes=0 \
// RUN:   | FileCheck %s --check-prefix=HEAP

// STACK: llvm.func @__sift_radix_argsort_{{[0-9]+}}(
// STACK-NOT: llvm.call
// STACK-COUNT-4: llvm.alloca %{{.*}} x i64 : (i64) -> !llvm.ptr
// STACK: llvm.call @_mlir_memref_to_llvm_alloc(
// STACK: llvm.return
// STACK-LABEL: llvm.func @sort_rows(

// HEAP: llvm.func @__sift_radix_argsort_{{[0-9]+}}(
// HEAP-NOT: llvm.alloca
// HEAP: llvm.call @_mlir_memref_to_llvm_alloc(
// HEAP-NOT: llvm.alloca
// HEAP-LABEL: llvm.func @sort_rows(
func.func @sort_rows(%c: tensor<4x50xi32>) -> tensor<4x50xi64> {
  %s = sift.argsort %c {dim = 1 : i64} : tensor<4x50xi32> -> tensor<4x50xi64>
  return %s : tensor<4x50xi64>
}
