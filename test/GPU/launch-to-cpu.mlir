// --sift-gpu-launch-to-cpu runs hand-written kernels on the CPU: every
// shuffle mode (with widths below 32, offsets past 31, lanes out of range),
// subgroup reductions (whole warp, clusters, strides, a float sum in the
// GPU's butterfly order), barriers in a block-uniform scf.for carrying a
// per-thread value, and a shuffle inside a divergent scf.if. The results are
// compared with an independent NumPy model of PTX (Inputs/check_launch_to_cpu.py).
//
// RUN: python3 %S/Inputs/check_launch_to_cpu.py --tensor-run tensor-run --kernels %s --workdir %t | FileCheck %s
// CHECK: shuffles: ok
// CHECK: subgroup_reduce: ok
// CHECK: float_reduce: ok
// CHECK: barrier_loop: ok
// CHECK: divergent_shuffle: ok
// CHECK: all ok

// One block of 64 threads (two warps); v = 10 * t.
// Rows: up 3 (width 32), down 5 (width 16), xor 7, idx 33; -1 where the
// shuffle is not valid.
func.func @shuffles() -> tensor<4x64xi32> {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %out = memref.alloc() : memref<4x64xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %t = arith.index_cast %tx : index to i32
    %c10 = arith.constant 10 : i32
    %v = arith.muli %t, %c10 : i32
    %none = arith.constant -1 : i32
    %w32 = arith.constant 32 : i32
    %w16 = arith.constant 16 : i32
    %o3 = arith.constant 3 : i32
    %o5 = arith.constant 5 : i32
    %o7 = arith.constant 7 : i32
    %o33 = arith.constant 33 : i32
    %u, %uv = gpu.shuffle up %v, %o3, %w32 : i32
    %d, %dv = gpu.shuffle down %v, %o5, %w16 : i32
    %x, %xv = gpu.shuffle xor %v, %o7, %w32 : i32
    %i, %iv = gpu.shuffle idx %v, %o33, %w32 : i32
    %u2 = arith.select %uv, %u, %none : i32
    %d2 = arith.select %dv, %d, %none : i32
    %x2 = arith.select %xv, %x, %none : i32
    %i2 = arith.select %iv, %i, %none : i32
    %r0 = arith.constant 0 : index
    %r1 = arith.constant 1 : index
    %r2 = arith.constant 2 : index
    %r3 = arith.constant 3 : index
    memref.store %u2, %out[%r0, %tx] : memref<4x64xi32>
    memref.store %d2, %out[%r1, %tx] : memref<4x64xi32>
    memref.store %x2, %out[%r2, %tx] : memref<4x64xi32>
    memref.store %i2, %out[%r3, %tx] : memref<4x64xi32>
    gpu.terminator
  }
  %r = bufferization.to_tensor %out restrict writable : memref<4x64xi32> to tensor<4x64xi32>
  return %r : tensor<4x64xi32>
}

// One block of 64 threads; v = (t * t) % 7 + t. Rows: add over the warp,
// add over clusters of 4, maxsi over clusters of 8 lanes with stride 2.
func.func @subgroup_reduce() -> tensor<3x64xi32> {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %out = memref.alloc() : memref<3x64xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %t = arith.index_cast %tx : index to i32
    %c7 = arith.constant 7 : i32
    %sq = arith.muli %t, %t : i32
    %m = arith.remui %sq, %c7 : i32
    %v = arith.addi %m, %t : i32
    %a = gpu.subgroup_reduce add %v uniform : (i32) -> i32
    %b = gpu.subgroup_reduce add %v cluster(size = 4) : (i32) -> i32
    %c = gpu.subgroup_reduce maxsi %v cluster(size = 8, stride = 2) : (i32) -> i32
    %r0 = arith.constant 0 : index
    %r1 = arith.constant 1 : index
    %r2 = arith.constant 2 : index
    memref.store %a, %out[%r0, %tx] : memref<3x64xi32>
    memref.store %b, %out[%r1, %tx] : memref<3x64xi32>
    memref.store %c, %out[%r2, %tx] : memref<3x64xi32>
    gpu.terminator
  }
  %r = bufferization.to_tensor %out restrict writable : memref<3x64xi32> to tensor<3x64xi32>
  return %r : tensor<3x64xi32>
}

// A float warp sum adds in the butterfly order of the GPU: v = 1 / (t + 1)
// for 32 threads, bit for bit against NumPy's float32 butterfly.
func.func @float_reduce() -> tensor<32xf32> {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %out = memref.alloc() : memref<32xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %t = arith.index_cast %tx : index to i32
    %one = arith.constant 1 : i32
    %t1 = arith.addi %t, %one : i32
    %f = arith.sitofp %t1 : i32 to f32
    %fone = arith.constant 1.0 : f32
    %v = arith.divf %fone, %f : f32
    %s = gpu.subgroup_reduce add %v uniform : (f32) -> f32
    memref.store %s, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  %r = bufferization.to_tensor %out restrict writable : memref<32xf32> to tensor<32xf32>
  return %r : tensor<32xf32>
}

// Two blocks of 96 threads, shared memory and barriers in a block-uniform
// loop carrying a per-thread value: acc = b * 1000 + t; three times:
// smem[t] = acc; barrier; acc += smem[(t + 1) % 96]; barrier.
func.func @barrier_loop() -> tensor<2x96xi32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c96 = arith.constant 96 : index
  %out = memref.alloc() : memref<2x96xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c96, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<96xi32, #gpu.address_space<workgroup>>) {
    %b = arith.index_cast %bx : index to i32
    %t = arith.index_cast %tx : index to i32
    %k1000 = arith.constant 1000 : i32
    %b1000 = arith.muli %b, %k1000 : i32
    %init = arith.addi %b1000, %t : i32
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %one = arith.constant 1 : index
    %acc = scf.for %k = %c0 to %c3 step %one iter_args(%a = %init) -> (i32) {
      memref.store %a, %smem[%tx] : memref<96xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %n = arith.addi %tx, %one : index
      %n2 = arith.remui %n, %sx : index
      %o = memref.load %smem[%n2] : memref<96xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %s = arith.addi %a, %o : i32
      scf.yield %s : i32
    }
    memref.store %acc, %out[%bx, %tx] : memref<2x96xi32>
    gpu.terminator
  }
  %r = bufferization.to_tensor %out restrict writable : memref<2x96xi32> to tensor<2x96xi32>
  return %r : tensor<2x96xi32>
}

// A shuffle in a divergent scf.if with a result: the even threads of 64
// exchange 10 * t with lane ^ 2 (also even); odd threads yield -1.
func.func @divergent_shuffle() -> tensor<64xi32> {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %out = memref.alloc() : memref<64xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %t = arith.index_cast %tx : index to i32
    %c10 = arith.constant 10 : i32
    %v = arith.muli %t, %c10 : i32
    %two = arith.constant 2 : i32
    %zero = arith.constant 0 : i32
    %par = arith.remui %t, %two : i32
    %even = arith.cmpi eq, %par, %zero : i32
    %r = scf.if %even -> (i32) {
      %w = arith.constant 32 : i32
      %s, %valid = gpu.shuffle xor %v, %two, %w : i32
      scf.yield %s : i32
    } else {
      %none = arith.constant -1 : i32
      scf.yield %none : i32
    }
    memref.store %r, %out[%tx] : memref<64xi32>
    gpu.terminator
  }
  %res = bufferization.to_tensor %out restrict writable : memref<64xi32> to tensor<64xi32>
  return %res : tensor<64xi32>
}
