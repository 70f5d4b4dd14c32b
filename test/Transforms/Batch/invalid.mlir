// What --sift-batch cannot batch is an error at the op.
// RUN: tensor-opt %s --split-input-file --sift-batch="func=f size=4" -verify-diagnostics

func.func @f(%m: tensor<10xi1>) -> tensor<?xi64> {
  // expected-error @+1 {{has a data-dependent result shape: run --sift-staticize before --sift-batch}}
  %i = sift.nonzero %m : tensor<10xi1> -> tensor<?xi64>
  return %i : tensor<?xi64>
}

// -----

func.func private @g(tensor<10xf32>) -> tensor<10xf32>
func.func @f(%x: tensor<10xf32>) -> tensor<10xf32> {
  // expected-error @+1 {{cannot be batched by --sift-batch: batch the callee and call it, or inline it first}}
  %y = func.call @g(%x) : (tensor<10xf32>) -> tensor<10xf32>
  return %y : tensor<10xf32>
}

// -----

func.func @f(%x: tensor<10xf32>, %n: index) -> tensor<?xf32> {
  // expected-error @+1 {{has per-row sizes, which --sift-batch cannot batch}}
  %y = tensor.extract_slice %x[0] [%n] [1] : tensor<10xf32> to tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

func.func @f(%x: tensor<10xf32>, %c: i1) -> tensor<10xf32> {
  %r = scf.if %c -> tensor<10xf32> {
    // expected-error @+1 {{has side effects, so --sift-batch cannot run both branches of a per-row scf.if}}
    %buf = memref.alloc() : memref<10xf32>
    memref.dealloc %buf : memref<10xf32>
    scf.yield %x : tensor<10xf32>
  } else {
    scf.yield %x : tensor<10xf32>
  }
  return %r : tensor<10xf32>
}

// -----

// expected-error @+1 {{--sift-batch: argument #0 of type 'memref<4xf32>' cannot have a batch dimension; declare it unbatched}}
func.func @f(%x: memref<4xf32>) {
  return
}

// -----

// expected-error @+1 {{--sift-batch: no function named 'f'}}
module {
  func.func @g() {
    return
  }
}

// -----

func.func @f(%x: tensor<10xf32>, %n: index) -> tensor<10xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{has per-row bounds, which --sift-batch cannot batch (a loop of per-row trip counts)}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<10xf32> {
    scf.yield %acc : tensor<10xf32>
  }
  return %r : tensor<10xf32>
}

// -----

// A per-row value of a type with no batched form is refused at the op.
func.func @f(%x: tensor<5xi64>) -> tensor<5xi64> {
  // expected-error @+1 {{has a per-row result of type 'tensor<*xi64>', which --sift-batch cannot give a batch dimension}}
  %u = tensor.cast %x : tensor<5xi64> to tensor<*xi64>
  return %x : tensor<5xi64>
}

// -----

// A constant dimension index outside [0, rank) is refused (shifted by the
// batch dimension it would read the batch size).
func.func @f(%x: tensor<?xi64>) -> index {
  %c = arith.constant -1 : index
  // expected-error @+1 {{dimension index -1 is out of range for a tensor of rank 1}}
  %n = tensor.dim %x, %c : tensor<?xi64>
  return %n : index
}

// -----

// A per-row branch whose read is only in range where it is taken, of a
// tensor no index can be clamped into.
func.func @f(%x: tensor<0xf32>, %k: index) -> f32 {
  %c0 = arith.constant 0 : index
  %dflt = arith.constant 0.0 : f32
  %has = arith.cmpi sgt, %k, %c0 : index
  %v = scf.if %has -> f32 {
    // expected-error @+1 {{may trap or read out of bounds where its branch is not taken, so --sift-batch cannot run both branches of a per-row scf.if}}
    %e = tensor.extract %x[%k] : tensor<0xf32>
    scf.yield %e : f32
  } else {
    scf.yield %dflt : f32
  }
  return %v : f32
}
