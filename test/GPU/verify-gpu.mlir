// --sift-verify-gpu: every finding is an error at the op that stays on the
// host, allocates in a kernel or launches more than the device allows.
//
// RUN: tensor-opt %s --sift-verify-gpu -split-input-file -verify-diagnostics
// RUN: tensor-opt %s --sift-verify-gpu=warn-only=1 -split-input-file 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: not tensor-opt %s --sift-verify-gpu=max-threads-per-block=128 -split-input-file 2>&1 | FileCheck %s --check-prefix=LIMIT

// A sequential loop over a buffer between two kernels (what the upstream
// mapping leaves of a sort) is one finding, at the loop.
func.func @host_loop(%buf: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  // expected-error @+1 {{'scf.for' is a loop over tensor data that stays on the host between kernels}}
  scf.for %i = %c1 to %c64 step %c1 {
    // expected-note @+1 {{it accesses memory here ('memref.load')}}
    %x = memref.load %buf[%i] : memref<64xf32>
    memref.store %x, %buf[%c0] : memref<64xf32>
  }
  return
}
// WARN: warning: 'scf.for' is a loop over tensor data that stays on the host between kernels

// -----

// A loop of scalar arithmetic only touches no tensor data.
func.func @host_scalar_loop(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> index {
    %b = arith.addi %a, %i : index
    scf.yield %b : index
  }
  return %r : index
}

// -----

func.func @host_access_and_alloc(%buf: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.alloc' allocates host memory between kernels (device buffers are gpu.alloc)}}
  %tmp = memref.alloc() : memref<64xf32>
  // expected-error @+1 {{'memref.copy' reads or writes a buffer on the host between kernels}}
  memref.copy %buf, %tmp : memref<64xf32> to memref<64xf32>
  // expected-error @+1 {{'memref.load' reads or writes a buffer on the host between kernels}}
  %x = memref.load %tmp[%c0] : memref<64xf32>
  return %x : f32
}

// -----

memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

func.func @host_constant() -> memref<4xf32> {
  // expected-error @+1 {{'memref.get_global' is a constant buffer in host memory (not copied to the device)}}
  %t = memref.get_global @table : memref<4xf32>
  return %t : memref<4xf32>
}

// -----

func.func @kernel_allocates() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{'memref.alloc' allocates memory inside a kernel}}
    %m = memref.alloc() : memref<16xf32>
    // expected-error @+1 {{'memref.dealloc' frees memory inside a kernel}}
    memref.dealloc %m : memref<16xf32>
    gpu.terminator
  }
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @outlined(%n: index) kernel {
      // expected-error @+1 {{'memref.alloc' allocates memory inside a kernel}}
      %m = memref.alloc(%n) : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// A kernel that frees a buffer it did not allocate (a host buffer, or a
// slot of a hoisted one): device free of such a pointer is undefined.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @frees(%m: memref<16xf32>, %p: !llvm.ptr) kernel {
      // expected-error @+1 {{'memref.dealloc' frees memory inside a kernel}}
      memref.dealloc %m : memref<16xf32>
      // expected-error @+1 {{'llvm.call' frees memory inside a kernel}}
      llvm.call @free(%p) : (!llvm.ptr) -> ()
      gpu.return
    }
    llvm.func @free(!llvm.ptr)
  }
}

// -----

func.func @too_many_threads() {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  // expected-error @+2 {{'gpu.launch' has 128 threads along z (the device allows 64)}}
  // expected-error @+1 {{'gpu.launch' has 8192 threads per block (the device allows 1024)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c128) {
    gpu.terminator
  }
  return
}

// -----

func.func @block_and_grid_extents() {
  %c1 = arith.constant 1 : index
  %c2048 = arith.constant 2048 : index
  %c70000 = arith.constant 70000 : index
  // expected-error @+3 {{'gpu.launch' has 2048 threads along x (the device allows 1024)}}
  // expected-error @+2 {{'gpu.launch' has 2048 threads per block (the device allows 1024)}}
  // expected-error @+1 {{'gpu.launch' has 70000 blocks along y (the device allows 65535)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c70000, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c2048, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

// 29 rank-8 memref descriptors (152 bytes each) do not fit in the 4352
// bytes of kernel parameters of PTX 8.0.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @wide(%a0: memref<?x?x?x?x?x?x?x?xf32>, %a1: memref<?x?x?x?x?x?x?x?xf32>, %a2: memref<?x?x?x?x?x?x?x?xf32>, %a3: memref<?x?x?x?x?x?x?x?xf32>, %a4: memref<?x?x?x?x?x?x?x?xf32>, %a5: memref<?x?x?x?x?x?x?x?xf32>, %a6: memref<?x?x?x?x?x?x?x?xf32>, %a7: memref<?x?x?x?x?x?x?x?xf32>, %a8: memref<?x?x?x?x?x?x?x?xf32>, %a9: memref<?x?x?x?x?x?x?x?xf32>, %a10: memref<?x?x?x?x?x?x?x?xf32>, %a11: memref<?x?x?x?x?x?x?x?xf32>, %a12: memref<?x?x?x?x?x?x?x?xf32>, %a13: memref<?x?x?x?x?x?x?x?xf32>, %a14: memref<?x?x?x?x?x?x?x?xf32>, %a15: memref<?x?x?x?x?x?x?x?xf32>, %a16: memref<?x?x?x?x?x?x?x?xf32>, %a17: memref<?x?x?x?x?x?x?x?xf32>, %a18: memref<?x?x?x?x?x?x?x?xf32>, %a19: memref<?x?x?x?x?x?x?x?xf32>, %a20: memref<?x?x?x?x?x?x?x?xf32>, %a21: memref<?x?x?x?x?x?x?x?xf32>, %a22: memref<?x?x?x?x?x?x?x?xf32>, %a23: memref<?x?x?x?x?x?x?x?xf32>, %a24: memref<?x?x?x?x?x?x?x?xf32>, %a25: memref<?x?x?x?x?x?x?x?xf32>, %a26: memref<?x?x?x?x?x?x?x?xf32>, %a27: memref<?x?x?x?x?x?x?x?xf32>, %a28: memref<?x?x?x?x?x?x?x?xf32>) kernel {
      gpu.return
    }
  }
  func.func @too_many_parameters(%m: memref<?x?x?x?x?x?x?x?xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'gpu.launch_func' passes 4408 bytes of kernel parameters (the device allows 4352)}}
    gpu.launch_func @kernels::@wide blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>, %m : memref<?x?x?x?x?x?x?x?xf32>)
    return
  }
}

// -----

// Device code only: kernels, device buffers and copies, nothing on the host.
// LIMIT: error: 'gpu.launch' has 256 threads per block (the device allows 128)
func.func @all_on_the_device(%n: index) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %buf = gpu.alloc(%n) : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %v = arith.constant 1.0 : f32
    memref.store %v, %buf[%bx] : memref<?xf32>
    gpu.terminator
  }
  gpu.dealloc %buf : memref<?xf32>
  return
}

// -----

// A function only kernels call (the deallocation helper before outlining
// copies it into their modules) is device code: its loops are a kernel's,
// but it must not allocate either.
func.func private @device_helper(%buf: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c1 to %c64 step %c1 {
    %x = memref.load %buf[%i] : memref<64xf32>
    memref.store %x, %buf[%c0] : memref<64xf32>
  }
  // expected-error @+1 {{'memref.alloc' allocates memory inside a kernel}}
  %tmp = memref.alloc() : memref<4xf32>
  // expected-error @+1 {{'memref.dealloc' frees memory inside a kernel}}
  memref.dealloc %tmp : memref<4xf32>
  return
}
func.func @calls_helper_in_kernel(%buf: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    func.call @device_helper(%buf) : (memref<64xf32>) -> ()
    gpu.terminator
  }
  return
}

// -----

// The host copy of a kernel's error word (`sift.error_word`) and its loads
// are accepted; another host buffer read the same way is not.
func.func @error_word(%err: memref<2xi64>) -> (i64, i64) {
  %c0 = arith.constant 0 : index
  %word = memref.alloca() {sift.error_word} : memref<2xi64>
  gpu.memcpy %word, %err : memref<2xi64>, memref<2xi64>
  %row = memref.load %word[%c0] : memref<2xi64>
  // expected-error @+1 {{'memref.alloca' allocates host memory between kernels (device buffers are gpu.alloc)}}
  %other = memref.alloca() : memref<2xi64>
  gpu.memcpy %other, %err : memref<2xi64>, memref<2xi64>
  // expected-error @+1 {{'memref.load' reads or writes a buffer on the host between kernels}}
  %x = memref.load %other[%c0] : memref<2xi64>
  return %row, %x : i64, i64
}

// -----

// The deallocation helper's bookkeeping (what --sift-gpu-device-buffers
// marks sift.host_buffer: host lists of buffer addresses and ownership
// flags, filled and scanned by host code around a call of the helper) is
// no tensor data on the host: no finding.
func.func private @dealloc_helper(%bases: memref<?xindex> {sift.host_buffer}, %flags: memref<?xi1> {sift.host_buffer}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %bases, %c0 : memref<?xindex>
  scf.for %i = %c0 to %n step %c1 {
    %b = memref.load %bases[%i] : memref<?xindex>
    %f = arith.cmpi eq, %b, %c0 : index
    memref.store %f, %flags[%i] : memref<?xi1>
  }
  return
}
func.func @bookkeeping(%buf: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %bases = memref.alloc() {sift.host_buffer} : memref<1xindex>
  %flags = memref.alloc() {sift.host_buffer} : memref<1xi1>
  %addr = memref.extract_aligned_pointer_as_index %buf : memref<8xf32> -> index
  memref.store %addr, %bases[%c0] : memref<1xindex>
  %b = memref.cast %bases : memref<1xindex> to memref<?xindex>
  %f = memref.cast %flags : memref<1xi1> to memref<?xi1>
  call @dealloc_helper(%b, %f) : (memref<?xindex>, memref<?xi1>) -> ()
  memref.dealloc %bases : memref<1xindex>
  memref.dealloc %flags : memref<1xi1>
  return
}
