// More of what --sift-batch refuses, each an error at the op (invalid.mlir
// has the first ones).
// RUN: tensor-opt %s --split-input-file --sift-batch="func=f size=4" -verify-diagnostics

func.func @f(%x: f32, %m: memref<4xf32> {sift.unbatched}) {
  // expected-error @+1 {{'linalg.fill' op on buffers cannot be batched by --sift-batch}}
  linalg.fill ins(%x : f32) outs(%m : memref<4xf32>)
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{uses a per-row tensor in its body, which --sift-batch cannot batch}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = tensor.extract %y[%c0] : tensor<4xf32>
    %w = arith.addf %v, %a : f32
    linalg.yield %w : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @f(%s: f32, %n: index) -> tensor<?xf32> {
  // expected-error @+1 {{'tensor.splat' op of a dynamic shape cannot be batched by --sift-batch: run --sift-staticize first}}
  %sp = tensor.splat %s[%n] : tensor<?xf32>
  return %sp : tensor<?xf32>
}

// -----

func.func @f(%x: tensor<?xf32>, %n: index) -> tensor<?x2xf32> {
  // expected-error @+1 {{has per-row output sizes, which --sift-batch cannot batch}}
  %e = tensor.expand_shape %x [[0, 1]] output_shape [%n, 2] : tensor<?xf32> into tensor<?x2xf32>
  return %e : tensor<?x2xf32>
}

// -----

func.func @f(%x: tensor<8xf32>, %i: index) -> index {
  // expected-error @+1 {{has per-row index, which --sift-batch cannot batch}}
  %n = tensor.dim %x, %i : tensor<8xf32>
  return %n : index
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<6xf32> {
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{'tensor.pad' op cannot be batched by --sift-batch: it uses a per-row value and --sift-batch has no rule for it}}
  %p = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %z : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}

// -----

func.func @f(%x: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<3xf32>) -> tensor<f32> {
  // expected-error @+1 {{has per-row class weights, which --sift-batch cannot batch}}
  %l = sift.cross_entropy %x, %t weight(%w : tensor<3xf32>) reduction = sum : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @f(%n: index, %seed: i64) -> tensor<?xi64> {
  // expected-error @+1 {{'sift.randperm' op has a data-dependent result shape: run --sift-staticize before --sift-batch}}
  %p = sift.randperm %n, %seed : tensor<?xi64>
  return %p : tensor<?xi64>
}

// -----

// expected-error @+1 {{'func.func' op --sift-batch: the module already has a symbol 'f_batched'}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @f_batched() {
  return
}

// -----

// expected-error @+1 {{'func.func' op --sift-batch needs a body of one block}}
func.func private @f(tensor<4xf32>) -> tensor<4xf32>

// -----

// expected-error @+1 {{'func.func' op --sift-batch: result #0 of type 'tensor<*xf32>' cannot have a batch dimension}}
func.func @f(%x: tensor<4xf32>) -> tensor<*xf32> {
  %c = tensor.cast %x : tensor<4xf32> to tensor<*xf32>
  return %c : tensor<*xf32>
}

// -----

// A case index that differs per row.
func.func @f(%i: index, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'scf.index_switch' op cannot be batched by --sift-batch: its case index is per row}}
  %r = scf.index_switch %i -> tensor<4xf32>
  case 0 {
    scf.yield %x : tensor<4xf32>
  }
  default {
    %y = arith.addf %x, %x : tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
