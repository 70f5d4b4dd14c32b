// Calls of the philox_words kernel (RandomKernels.cpp) whose operands are
// not the kernel's: --sift-gpu-expand-kernels reports them at the call.
//
// RUN: tensor-opt %s --sift-gpu-expand-kernels -split-input-file -verify-diagnostics

func.func private @words(memref<6x300xi32>, memref<2xi64>, i64)
func.func @no_rows_per_seed(%o: memref<6x300xi32>, %s: memref<2xi64>, %off: i64) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the philox_words kernel takes the [R, n] i32 buffer of the words, then the seed and the offset (each an i64 or a 1-D buffer of i64), and rows_per_seed of at least 1}}
  call @words(%o, %s, %off) {sift.gpu_kernel = "philox_words"} : (memref<6x300xi32>, memref<2xi64>, i64) -> ()
  return
}

// -----

func.func private @words(memref<6x300xi32>, i64, i64)
func.func @zero_rows_per_seed(%o: memref<6x300xi32>, %s: i64, %off: i64) {
  // expected-error @+1 {{the philox_words kernel takes}}
  call @words(%o, %s, %off) {rows_per_seed = 0 : i64, sift.gpu_kernel = "philox_words"} : (memref<6x300xi32>, i64, i64) -> ()
  return
}

// -----

// The words of a 1-D buffer: the rows are the kernel's first dimension.
func.func private @words(memref<300xi32>, i64, i64)
func.func @flat_words(%o: memref<300xi32>, %s: i64, %off: i64) {
  // expected-error @+1 {{the philox_words kernel takes}}
  call @words(%o, %s, %off) {rows_per_seed = 1 : i64, sift.gpu_kernel = "philox_words"} : (memref<300xi32>, i64, i64) -> ()
  return
}

// -----

func.func private @words(memref<1x300xi64>, i64, i64)
func.func @i64_words(%o: memref<1x300xi64>, %s: i64, %off: i64) {
  // expected-error @+1 {{the philox_words kernel takes}}
  call @words(%o, %s, %off) {rows_per_seed = 1 : i64, sift.gpu_kernel = "philox_words"} : (memref<1x300xi64>, i64, i64) -> ()
  return
}

// -----

func.func private @words(memref<4x30xi32>, i32, memref<4xi64>)
func.func @i32_seed(%o: memref<4x30xi32>, %s: i32, %off: memref<4xi64>) {
  // expected-error @+1 {{the philox_words kernel takes}}
  call @words(%o, %s, %off) {rows_per_seed = 1 : i64, sift.gpu_kernel = "philox_words"} : (memref<4x30xi32>, i32, memref<4xi64>) -> ()
  return
}

// -----

func.func private @words(memref<4x30xi32>, i64, memref<2x2xi64>)
func.func @offsets_2d(%o: memref<4x30xi32>, %s: i64, %off: memref<2x2xi64>) {
  // expected-error @+1 {{the philox_words kernel takes}}
  call @words(%o, %s, %off) {rows_per_seed = 1 : i64, sift.gpu_kernel = "philox_words"} : (memref<4x30xi32>, i64, memref<2x2xi64>) -> ()
  return
}

// -----

func.func private @words(memref<4x30xi32>, i64)
func.func @no_offset(%o: memref<4x30xi32>, %s: i64) {
  // expected-error @+1 {{the philox_words kernel takes}}
  call @words(%o, %s) {rows_per_seed = 1 : i64, sift.gpu_kernel = "philox_words"} : (memref<4x30xi32>, i64) -> ()
  return
}
