// RUN: tensor-opt %s --sift-gpu-launch-to-cpu -split-input-file -verify-diagnostics

// A barrier in a loop whose bound depends on the thread.
func.func @thread_bound(%n: memref<64xindex>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{holds a gpu.barrier or a warp exchange but its bounds are not block-uniform}}
    scf.for %i = %c0 to %tx step %c1 {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

// A barrier in an scf.while.
func.func @while_barrier() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %false = arith.constant false
    // expected-error @+1 {{holds a gpu.barrier or a warp exchange; the CPU execution of a gpu.launch (sift-gpu-launch-to-cpu) splits threads only at the top level}}
    scf.while : () -> () {
      scf.condition(%false)
    } do {
      gpu.barrier
      scf.yield
    }
    gpu.terminator
  }
  return
}

// -----

// Private memory.
func.func @private_memory() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{private attributions are not supported}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             private(%p : memref<4xf32, #gpu.address_space<private>>) {
    gpu.terminator
  }
  return
}

// -----

// A gpu op the CPU execution does not model.
func.func @all_reduce(%out: memref<f32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %one = arith.constant 1.0 : f32
    // expected-error @+1 {{is not supported by the CPU execution of a gpu.launch}}
    %s = gpu.all_reduce add %one uniform {} : (f32) -> f32
    memref.store %s, %out[] : memref<f32>
    gpu.terminator
  }
  return
}

// -----

// A memref kept across a barrier that is not recomputable.
func.func @memref_across_barrier(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{is used across a barrier or a warp exchange; only scalars and vectors can be kept per thread}}
    %m = memref.alloca() : memref<4xf32>
    gpu.barrier
    memref.copy %m, %out : memref<4xf32> to memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// Device memory is host memory on the CPU, but only in synchronous form.
func.func @async_alloc() {
  %t0 = gpu.wait async
  // expected-error @+1 {{is asynchronous: not supported by the CPU execution (sift-gpu-launch-to-cpu)}}
  %m, %t1 = gpu.alloc async [%t0] () : memref<4xf32>
  return
}
