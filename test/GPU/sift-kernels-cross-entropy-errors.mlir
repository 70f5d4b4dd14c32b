// The cross_entropy kernel calls that --sift-gpu-expand-kernels rejects:
// missing attributes, the wrong number of buffers for the reduction, and
// buffers of the wrong shape or type (convert-sift-to-gpu never makes
// them; logits of a float type the CPU lowering does not compute either
// are left to the linalg lowering, which reports them).
//
// RUN: tensor-opt %s --sift-gpu-expand-kernels -split-input-file -verify-diagnostics

func.func private @ce(memref<4x3xf32>, memref<4xi64>, memref<4xf32>, memref<2xi64>)
func.func @no_reduction(%x: memref<4x3xf32>, %t: memref<4xi64>, %o: memref<4xf32>, %e: memref<2xi64>) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the cross_entropy kernel needs its reduction, ignore_index and label_smoothing (and segments, if any, at least 2)}}
  call @ce(%x, %t, %o, %e) {ignore_index = -100 : i64, label_smoothing = 0.0 : f64, sift.gpu_kernel = "cross_entropy"} : (memref<4x3xf32>, memref<4xi64>, memref<4xf32>, memref<2xi64>) -> ()
  return
}

// -----

func.func private @ce(memref<4x3xf32>, memref<4xi64>, memref<1xf32>, memref<2xi64>)
func.func @mean_without_row_buffers(%x: memref<4x3xf32>, %t: memref<4xi64>, %o: memref<1xf32>, %e: memref<2xi64>) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the cross_entropy kernel takes 6 buffers}}
  call @ce(%x, %t, %o, %e) {ignore_index = -100 : i64, label_smoothing = 0.0 : f64, reduction = 1 : i32, sift.gpu_kernel = "cross_entropy"} : (memref<4x3xf32>, memref<4xi64>, memref<1xf32>, memref<2xi64>) -> ()
  return
}

// -----

func.func private @ce(memref<4x3xf32>, memref<4xf32>, memref<4xf32>, memref<2xi64>)
func.func @float_targets(%x: memref<4x3xf32>, %t: memref<4xf32>, %o: memref<4xf32>, %e: memref<2xi64>) {
  // expected-error @+1 {{the cross_entropy kernel's buffers are logits [M, C], integer targets [R]}}
  call @ce(%x, %t, %o, %e) {ignore_index = -100 : i64, label_smoothing = 0.0 : f64, reduction = 0 : i32, sift.gpu_kernel = "cross_entropy"} : (memref<4x3xf32>, memref<4xf32>, memref<4xf32>, memref<2xi64>) -> ()
  return
}

// -----

func.func private @ce(memref<4x3xf32>, memref<4xi64>, memref<4xf32>, memref<1xi64>)
func.func @short_error_word(%x: memref<4x3xf32>, %t: memref<4xi64>, %o: memref<4xf32>, %e: memref<1xi64>) {
  // expected-error @+1 {{and an error word of 2 x i64}}
  call @ce(%x, %t, %o, %e) {ignore_index = -100 : i64, label_smoothing = 0.0 : f64, reduction = 0 : i32, sift.gpu_kernel = "cross_entropy"} : (memref<4x3xf32>, memref<4xi64>, memref<4xf32>, memref<1xi64>) -> ()
  return
}

// -----

func.func private @ce(memref<4x3xf32>, memref<4xi64>, memref<1xf32>, memref<4xf32>, memref<1xf64>, memref<2xi64>)
func.func @one_segment(%x: memref<4x3xf32>, %t: memref<4xi64>, %o: memref<1xf32>, %l: memref<4xf32>, %p: memref<1xf64>, %e: memref<2xi64>) {
  // expected-error @+1 {{(and segments, if any, at least 2)}}
  call @ce(%x, %t, %o, %l, %p, %e) {ignore_index = -100 : i64, label_smoothing = 0.0 : f64, reduction = 2 : i32, segments = 1 : i64, sift.gpu_kernel = "cross_entropy"} : (memref<4x3xf32>, memref<4xi64>, memref<1xf32>, memref<4xf32>, memref<1xf64>, memref<2xi64>) -> ()
  return
}

// -----

// A mean in segments takes the partial sums of the losses and the weights.
func.func private @ce(memref<4x3xf32>, memref<4xi64>, memref<1xf32>, memref<4xf32>, memref<4xf32>, memref<2xf64>, memref<2xi64>)
func.func @mean_one_partial(%x: memref<4x3xf32>, %t: memref<4xi64>, %o: memref<1xf32>, %l: memref<4xf32>, %w: memref<4xf32>, %p: memref<2xf64>, %e: memref<2xi64>) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the cross_entropy kernel takes 8 buffers}}
  call @ce(%x, %t, %o, %l, %w, %p, %e) {ignore_index = -100 : i64, label_smoothing = 0.0 : f64, reduction = 1 : i32, segments = 2 : i64, sift.gpu_kernel = "cross_entropy"} : (memref<4x3xf32>, memref<4xi64>, memref<1xf32>, memref<4xf32>, memref<4xf32>, memref<2xf64>, memref<2xi64>) -> ()
  return
}

// -----

func.func private @ce(memref<4x3xf32>, memref<4xi64>, memref<1xf32>, memref<4xf32>, memref<2xf32>, memref<2xi64>)
func.func @f32_partials(%x: memref<4x3xf32>, %t: memref<4xi64>, %o: memref<1xf32>, %l: memref<4xf32>, %p: memref<2xf32>, %e: memref<2xi64>) {
  // expected-error @+1 {{with segments their f64 partial sums [items * segments]}}
  call @ce(%x, %t, %o, %l, %p, %e) {ignore_index = -100 : i64, label_smoothing = 0.0 : f64, reduction = 2 : i32, segments = 2 : i64, sift.gpu_kernel = "cross_entropy"} : (memref<4x3xf32>, memref<4xi64>, memref<1xf32>, memref<4xf32>, memref<2xf32>, memref<2xi64>) -> ()
  return
}
