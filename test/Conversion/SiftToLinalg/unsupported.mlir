// Ops the CPU lowering cannot handle are reported, not crashed on: one error
// at the op, with the reason its pattern gave.
//
// RUN: tensor-opt %s --convert-sift-to-linalg -split-input-file -verify-diagnostics

func.func @sort_i128(%x: tensor<4xi128>) -> tensor<4xi64> {
  // expected-error @+1 {{has no CPU lowering for element type 'i128'}}
  %i = sift.argsort %x : tensor<4xi128> -> tensor<4xi64>
  return %i : tensor<4xi64>
}

// -----

func.func @unique_i128(%x: tensor<4xi128>) -> tensor<?xi128> {
  // expected-error @+1 {{'sift.unique' op has no CPU lowering for element type 'i128'}}
  %u = sift.unique %x : tensor<4xi128> -> tensor<?xi128>
  return %u : tensor<?xi128>
}

// -----

func.func @topk_f80(%x: tensor<4xf80>) -> (tensor<2xf80>, tensor<2xi64>) {
  // expected-error @+1 {{'sift.topk' op has no CPU lowering for element type 'f80'}}
  %v, %i = sift.topk %x k(2) : tensor<4xf80> -> tensor<2xf80>, tensor<2xi64>
  return %v, %i : tensor<2xf80>, tensor<2xi64>
}

// -----

func.func @gather_complex(%s: tensor<3xcomplex<f32>>, %i: tensor<4xi64>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'sift.gather' op has no CPU lowering for element type 'complex<f32>' without a fill}}
  %r = sift.gather %s[%i] : tensor<3xcomplex<f32>>, tensor<4xi64> -> tensor<4xcomplex<f32>>
  return %r : tensor<4xcomplex<f32>>
}

// -----

func.func @random_uniform_f8(%seed: i64) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{'sift.random_uniform' op has no CPU lowering for element type 'f8E4M3FN'}}
  %r = sift.random_uniform %seed : tensor<4xf8E4M3FN>
  return %r : tensor<4xf8E4M3FN>
}

// -----

func.func @cross_entropy_f128(%x: tensor<4x3xf128>, %t: tensor<4xi64>) -> tensor<f128> {
  // expected-error @+1 {{'sift.cross_entropy' op has no CPU lowering for element type 'f128'}}
  %r = sift.cross_entropy %x, %t reduction = mean : tensor<4x3xf128>, tensor<4xi64> -> tensor<f128>
  return %r : tensor<f128>
}

// -----

// The runtime functions cannot be declared next to another symbol of their
// name: reported once at the op that needs them, with a note at the symbol.

// expected-note @+1 {{'sift_rt_report' is here}}
func.func private @sift_rt_report(i32)
func.func @randperm_report_clash(%n: index, %seed: i64) -> tensor<?xi64> {
  // expected-error @+1 {{'sift.randperm' op cannot declare the sift runtime's sift_rt_report: a function of that name has another type}}
  %p = sift.randperm %n, %seed : tensor<?xi64>
  return %p : tensor<?xi64>
}

// -----

// expected-note @+1 {{'sift_rt_fail' is here}}
memref.global "private" @sift_rt_fail : memref<2xf32>
func.func @masked_select_fail_clash(%x: tensor<?xf32>, %m: tensor<?xi1>) -> tensor<?xf32> {
  // expected-error @+1 {{'sift.masked_select' op cannot declare the sift runtime's sift_rt_fail: the module has another symbol of that name}}
  %r = sift.masked_select %x, %m : tensor<?xf32>, tensor<?xi1> -> tensor<?xf32>
  return %r : tensor<?xf32>
}
