// --sift-verify-static: every data-dependent shape and host sync is reported
// with its location; a fully static module passes untouched.
// RUN: tensor-opt %s -split-input-file -verify-diagnostics --sift-verify-static

// A static program made of sift primitives passes.
func.func @static_ok(%labels: tensor<32x100xi64>, %seed: i64)
    -> (tensor<32x10xi64>, tensor<32xi64>) {
  %c16 = arith.constant 16 : index
  %p = sift.randperm %c16, %seed : tensor<16xi64>
  %idx, %n = sift.sample_balanced %labels, %seed {num_samples = 10 : i64}
      : tensor<32x100xi64> -> tensor<32x10xi64>, tensor<32xi64>
  return %idx, %n : tensor<32x10xi64>, tensor<32xi64>
}

// -----

func.func @nonzero_left(%m: tensor<8xi1>) -> tensor<8xi64> {
  // expected-error @+1 {{data-dependent result shape remains: 'sift.nonzero' must be staticized (run --sift-staticize)}}
  %0 = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  %c = tensor.cast %0 : tensor<?xi64> to tensor<8xi64>
  return %c : tensor<8xi64>
}

// -----

func.func @randperm_dynamic(%n: index, %seed: i64) -> tensor<4xi64> {
  // expected-error @+1 {{data-dependent result shape remains: 'sift.randperm'}}
  %0 = sift.randperm %n, %seed : tensor<?xi64>
  %1 = tensor.extract_slice %0[0] [4] [1] : tensor<?xi64> to tensor<4xi64>
  return %1 : tensor<4xi64>
}

// -----

// expected-error @+1 {{block argument #0 has a dynamic shape 'tensor<?xf32>'}}
func.func @dynamic_argument(%x: tensor<?xf32>) {
  return
}

// -----

// expected-error @+1 {{function result #1 has a dynamic shape 'tensor<?xi64>'}}
func.func private @dynamic_result() -> (tensor<4xf32>, tensor<?xi64>)

// -----

func.func @dynamic_slice(%x: tensor<8xf32>, %n: index) {
  // expected-error @+1 {{result #0 has a dynamic shape 'tensor<?xf32>'}}
  %0 = tensor.extract_slice %x[0] [%n] [1] : tensor<8xf32> to tensor<?xf32>
  return
}

// -----

func.func @host_branch_on_data(%m: tensor<8xi1>) -> i32 {
  %n = sift.count %m : tensor<8xi1> -> tensor<i64>
  // expected-note @+1 {{the value is read here}}
  %v = tensor.extract %n[] : tensor<i64>
  %zero = arith.constant 0 : i64
  %any = arith.cmpi sgt, %v, %zero : i64
  // expected-error @+1 {{host control flow depends on tensor data (a device-to-host sync on a GPU)}}
  %r = scf.if %any -> i32 {
    %a = arith.constant 1 : i32
    scf.yield %a : i32
  } else {
    %b = arith.constant 2 : i32
    scf.yield %b : i32
  }
  return %r : i32
}

// -----

// Control flow on a function argument (a host scalar) is not a sync.
func.func @host_branch_on_argument(%flag: i1) -> i32 {
  %r = scf.if %flag -> i32 {
    %a = arith.constant 1 : i32
    scf.yield %a : i32
  } else {
    %b = arith.constant 2 : i32
    scf.yield %b : i32
  }
  return %r : i32
}

// -----

// A branch on data inside a linalg body is each element's own branch, on
// the device with the body: no host sync, no error.
func.func @branch_in_body(%m: tensor<8xi1>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%m, %x : tensor<8xi1>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%b: i1, %v: f32, %o: f32):
      %s = scf.if %b -> (f32) {
        %d = arith.mulf %v, %v : f32
        scf.yield %d : f32
      } else {
        scf.yield %zero : f32
      }
      linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
