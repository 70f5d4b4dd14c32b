// Count and compact kernel calls whose `mask_predicate` is not a function
// of the module with a body and one result, takes elements of other types
// than the call's buffers, or that pass fewer buffers than the kernel
// takes: --sift-gpu-expand-kernels rejects them at the call.
//
// RUN: tensor-opt %s --sift-gpu-expand-kernels -split-input-file -verify-diagnostics

func.func private @count(memref<4x300xi64>, memref<4xi64>)
func.func @missing(%x: memref<4x300xi64>, %n: memref<4xi64>) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the count kernel's mask predicate is not a function of its buffers' elements}}
  call @count(%x, %n) {mask_predicate = @nowhere, sift.gpu_kernel = "count"} : (memref<4x300xi64>, memref<4xi64>) -> ()
  return
}

// -----

func.func private @pred(i64) -> i1
func.func private @compact(memref<4x300xi64>, memref<4x300xi32>, memref<4xi64>)
func.func @declaration(%x: memref<4x300xi64>, %i: memref<4x300xi32>, %n: memref<4xi64>) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the compact kernel's mask predicate is not a function of its buffers' elements}}
  call @compact(%x, %i, %n) {mask_predicate = @pred, sift.gpu_kernel = "compact"} : (memref<4x300xi64>, memref<4x300xi32>, memref<4xi64>) -> ()
  return
}

// -----

func.func private @pred(%a: i64) -> i1 {
  %c = arith.constant 0 : i64
  %m = arith.cmpi slt, %a, %c : i64
  return %m : i1
}
func.func private @compact(memref<4x300xi64>, memref<4x300xi32>)
func.func @too_few(%x: memref<4x300xi64>, %i: memref<4x300xi32>) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the compact kernel takes 3 buffers}}
  call @compact(%x, %i) {mask_predicate = @pred, sift.gpu_kernel = "compact"} : (memref<4x300xi64>, memref<4x300xi32>) -> ()
  return
}

// -----

func.func private @pred(%a: i32) -> i1 {
  %c = arith.constant 0 : i32
  %m = arith.cmpi slt, %a, %c : i32
  return %m : i1
}
func.func private @count(memref<4x300xi64>, memref<4xi64>)
func.func @other_type(%x: memref<4x300xi64>, %n: memref<4xi64>) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the count kernel's mask predicate is not a function of its buffers' elements}}
  call @count(%x, %n) {mask_predicate = @pred, sift.gpu_kernel = "count"} : (memref<4x300xi64>, memref<4xi64>) -> ()
  return
}
