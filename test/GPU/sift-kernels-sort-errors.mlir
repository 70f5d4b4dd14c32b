// The sorting kernel calls that --sift-gpu-expand-kernels rejects: a row
// past the bitonic limit (4096 32-bit keys) without the radix sort's two
// scratch buffers, and a topk whose k is not in [1, N] (convert-sift-to-gpu
// leaves those to the linalg lowering).
//
// RUN: tensor-opt %s --sift-gpu-expand-kernels -split-input-file -verify-diagnostics

func.func private @argsort(memref<4x5000xf32>, memref<4x5000xi64>)
func.func @missing_scratch(%x: memref<4x5000xf32>, %i: memref<4x5000xi64>) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the argsort kernel takes 4 buffers}}
  call @argsort(%x, %i) {sift.gpu_kernel = "argsort"} : (memref<4x5000xf32>, memref<4x5000xi64>) -> ()
  return
}

// -----

func.func private @topk(memref<4x50xf32>, memref<4x0xf32>, memref<4x0xi64>)
func.func @k_zero(%x: memref<4x50xf32>, %v: memref<4x0xf32>, %i: memref<4x0xi64>) {
  // expected-error @+1 {{a topk whose k is not in [1, N] of a static N}}
  call @topk(%x, %v, %i) {k = 0 : i64, sift.gpu_kernel = "topk"} : (memref<4x50xf32>, memref<4x0xf32>, memref<4x0xi64>) -> ()
  return
}

// -----

func.func private @topk(memref<4x50xf32>, memref<4x60xf32>, memref<4x60xi64>)
func.func @k_past_n(%x: memref<4x50xf32>, %v: memref<4x60xf32>, %i: memref<4x60xi64>) {
  // expected-error @+1 {{a topk whose k is not in [1, N] of a static N}}
  call @topk(%x, %v, %i) {k = 60 : i64, sift.gpu_kernel = "topk"} : (memref<4x50xf32>, memref<4x60xf32>, memref<4x60xi64>) -> ()
  return
}
