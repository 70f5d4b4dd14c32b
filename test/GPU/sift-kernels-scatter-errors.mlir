// The scatter kernel calls that --sift-gpu-expand-kernels rejects: missing
// attributes, a tail of 0, the wrong buffers for the reduce (reduce(none)
// takes the winners' buffer, a float max or min the keys' buffer, of the
// float's width), buffers of another rank or element type, and a reduce of
// a type with no 32- or 64-bit atomic
// (convert-sift-to-gpu never makes them: such a scatter stays with the
// linalg lowering).
//
// RUN: tensor-opt %s --sift-gpu-expand-kernels -split-input-file -verify-diagnostics

func.func private @scatter(memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, index, index)
func.func @no_reduce(%u: memref<8xf32>, %d: memref<12xf32>, %i: memref<8xi64>, %o: memref<12xf32>, %n: index, %l: index) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the scatter kernel needs its reduce and a tail of at least 1}}
  call @scatter(%u, %d, %i, %o, %n, %l) {sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, index, index) -> ()
  return
}

// -----

func.func private @scatter(memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, index, index)
func.func @tail0(%u: memref<8xf32>, %d: memref<12xf32>, %i: memref<8xi64>, %o: memref<12xf32>, %n: index, %l: index) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the scatter kernel needs its reduce and a tail of at least 1}}
  call @scatter(%u, %d, %i, %o, %n, %l) {reduce = 1 : i32, sift.gpu_kernel = "scatter", tail = 0 : i64} : (memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, index, index) -> ()
  return
}

// -----

func.func private @scatter(memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, index, index)
func.func @none_without_winners(%u: memref<8xf32>, %d: memref<12xf32>, %i: memref<8xi64>, %o: memref<12xf32>, %n: index, %l: index) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the scatter kernel takes 1-D buffers of the updates, dest, i64 indices and the result (then for reduce(none) of lanes not distinct the i64 winners, for a float max or min the keys, an integer of the float's width), then n and the lanes per item as indices; a reduce needs a 32- or 64-bit element type}}
  call @scatter(%u, %d, %i, %o, %n, %l) {reduce = 0 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, index, index) -> ()
  return
}

// -----

func.func private @scatter(memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, memref<12xi64>, index, index)
func.func @add_with_winners(%u: memref<8xf32>, %d: memref<12xf32>, %i: memref<8xi64>, %o: memref<12xf32>, %w: memref<12xi64>, %n: index, %l: index) {
  // expected-error @+1 {{the scatter kernel takes 1-D buffers}}
  call @scatter(%u, %d, %i, %o, %w, %n, %l) {reduce = 1 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, memref<12xi64>, index, index) -> ()
  return
}

// -----

func.func private @scatter(memref<8xf32>, memref<3x4xf32>, memref<8xi64>, memref<12xf32>, index, index)
func.func @dest_not_flat(%u: memref<8xf32>, %d: memref<3x4xf32>, %i: memref<8xi64>, %o: memref<12xf32>, %n: index, %l: index) {
  // expected-error @+1 {{the scatter kernel takes 1-D buffers}}
  call @scatter(%u, %d, %i, %o, %n, %l) {reduce = 2 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<8xf32>, memref<3x4xf32>, memref<8xi64>, memref<12xf32>, index, index) -> ()
  return
}

// -----

func.func private @scatter(memref<8xf32>, memref<12xf32>, memref<8xi32>, memref<12xf32>, index, index)
func.func @i32_indices(%u: memref<8xf32>, %d: memref<12xf32>, %i: memref<8xi32>, %o: memref<12xf32>, %n: index, %l: index) {
  // expected-error @+1 {{the scatter kernel takes 1-D buffers}}
  call @scatter(%u, %d, %i, %o, %n, %l) {reduce = 3 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<8xf32>, memref<12xf32>, memref<8xi32>, memref<12xf32>, index, index) -> ()
  return
}

// -----

func.func private @scatter(memref<8xf16>, memref<12xf16>, memref<8xi64>, memref<12xf16>, index, index)
func.func @f16_add(%u: memref<8xf16>, %d: memref<12xf16>, %i: memref<8xi64>, %o: memref<12xf16>, %n: index, %l: index) {
  // expected-error @+1 {{a reduce needs a 32- or 64-bit element type}}
  call @scatter(%u, %d, %i, %o, %n, %l) {reduce = 1 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<8xf16>, memref<12xf16>, memref<8xi64>, memref<12xf16>, index, index) -> ()
  return
}

// -----

func.func private @scatter(memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, i64, index)
func.func @n_not_index(%u: memref<8xf32>, %d: memref<12xf32>, %i: memref<8xi64>, %o: memref<12xf32>, %n: i64, %l: index) {
  // expected-error @+1 {{the scatter kernel takes 1-D buffers}}
  call @scatter(%u, %d, %i, %o, %n, %l) {reduce = 1 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, i64, index) -> ()
  return
}

// -----

func.func private @scatter(memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, index, index)
func.func @float_max_without_keys(%u: memref<8xf32>, %d: memref<12xf32>, %i: memref<8xi64>, %o: memref<12xf32>, %n: index, %l: index) {
  // expected-error @+1 {{the scatter kernel takes 1-D buffers}}
  call @scatter(%u, %d, %i, %o, %n, %l) {reduce = 2 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, index, index) -> ()
  return
}

// -----

func.func private @scatter(memref<8xf64>, memref<12xf64>, memref<8xi64>, memref<12xf64>, memref<12xi32>, index, index)
func.func @keys_too_narrow(%u: memref<8xf64>, %d: memref<12xf64>, %i: memref<8xi64>, %o: memref<12xf64>, %k: memref<12xi32>, %n: index, %l: index) {
  // expected-error @+1 {{the scatter kernel takes 1-D buffers}}
  call @scatter(%u, %d, %i, %o, %k, %n, %l) {reduce = 3 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<8xf64>, memref<12xf64>, memref<8xi64>, memref<12xf64>, memref<12xi32>, index, index) -> ()
  return
}

// -----

func.func private @scatter(index, memref<12xf32>)
func.func @no_buffers(%n: index, %d: memref<12xf32>) {
  // expected-error @+1 {{sift-gpu-expand-kernels: the scatter kernel takes the updates and dest buffers first}}
  call @scatter(%n, %d) {reduce = 1 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (index, memref<12xf32>) -> ()
  return
}

// -----

// Distinct lanes need no winners: a winner buffer is one operand too many.
func.func private @scatter(memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, memref<12xi64>, index, index)
func.func @distinct_with_winners(%u: memref<8xf32>, %d: memref<12xf32>, %i: memref<8xi64>, %o: memref<12xf32>, %w: memref<12xi64>, %n: index, %l: index) {
  // expected-error @+1 {{the scatter kernel takes 1-D buffers}}
  call @scatter(%u, %d, %i, %o, %w, %n, %l) {distinct, reduce = 0 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, memref<12xi64>, index, index) -> ()
  return
}

// -----

// A float max reads its dest's keys: its dest cannot be fresh.
func.func private @scatter(memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, memref<12xi32>, index, index)
func.func @fresh_float_max(%u: memref<8xf32>, %d: memref<12xf32>, %i: memref<8xi64>, %o: memref<12xf32>, %k: memref<12xi32>, %n: index, %l: index) {
  // expected-error @+1 {{sift-gpu-expand-kernels: a float max or min scatter reads its dest's keys: it cannot be fresh}}
  call @scatter(%u, %d, %i, %o, %k, %n, %l) {fresh, reduce = 2 : i32, sift.gpu_kernel = "scatter", tail = 1 : i64} : (memref<8xf32>, memref<12xf32>, memref<8xi64>, memref<12xf32>, memref<12xi32>, index, index) -> ()
  return
}
