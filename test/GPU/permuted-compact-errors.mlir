// Compact kernel calls that write a gather through a permutation
// (`permute_k`) take the mask, the result and the counts as buffers, then
// the permutation's seed and offset, each an i64 or a buffer of one per
// row (R the rows of the result): --sift-gpu-expand-kernels rejects other
// operands at the call.
//
// RUN: tensor-opt %s --sift-gpu-expand-kernels -split-input-file -verify-diagnostics

func.func private @compact(memref<4x300xi1>, memref<4x64xi32>, memref<4xi64>, f32, i64)
func.func @float_seed(%m: memref<4x300xi1>, %g: memref<4x64xi32>, %n: memref<4xi64>, %seed: f32, %off: i64) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the compact kernel takes 3 buffers, then its permutation's seed and offset (each an i64 or a buffer [R] of them)}}
  call @compact(%m, %g, %n, %seed, %off) {permute_k = 300 : i64, sift.gpu_kernel = "compact"} : (memref<4x300xi1>, memref<4x64xi32>, memref<4xi64>, f32, i64) -> ()
  return
}

// -----

func.func private @compact(memref<4x300xi1>, memref<4x64xi32>, memref<4xi64>, i64)
func.func @no_offset(%m: memref<4x300xi1>, %g: memref<4x64xi32>, %n: memref<4xi64>, %seed: i64) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the compact kernel takes 3 buffers, then its permutation's seed and offset (each an i64 or a buffer [R] of them)}}
  call @compact(%m, %g, %n, %seed) {permute_k = 300 : i64, sift.gpu_kernel = "compact"} : (memref<4x300xi1>, memref<4x64xi32>, memref<4xi64>, i64) -> ()
  return
}

// -----

func.func private @compact(memref<4x300xi1>, memref<4x64xi32>, memref<4xi64>, memref<4x2xi64>, i64)
func.func @seed_rows_2d(%m: memref<4x300xi1>, %g: memref<4x64xi32>, %n: memref<4xi64>, %seed: memref<4x2xi64>, %off: i64) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the compact kernel takes 3 buffers, then its permutation's seed and offset (each an i64 or a buffer [R] of them)}}
  call @compact(%m, %g, %n, %seed, %off) {permute_k = 300 : i64, sift.gpu_kernel = "compact"} : (memref<4x300xi1>, memref<4x64xi32>, memref<4xi64>, memref<4x2xi64>, i64) -> ()
  return
}

// -----

func.func private @compact(memref<4x300xi1>, memref<4x64xi32>, memref<4xi64>, memref<3xi64>, i64)
func.func @seed_rows_3(%m: memref<4x300xi1>, %g: memref<4x64xi32>, %n: memref<4xi64>, %seed: memref<3xi64>, %off: i64) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the compact kernel takes 3 buffers, then its permutation's seed and offset (each an i64 or a buffer [R] of them)}}
  call @compact(%m, %g, %n, %seed, %off) {permute_k = 300 : i64, sift.gpu_kernel = "compact"} : (memref<4x300xi1>, memref<4x64xi32>, memref<4xi64>, memref<3xi64>, i64) -> ()
  return
}
