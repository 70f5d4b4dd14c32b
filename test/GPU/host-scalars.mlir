// --sift-gpu-host-scalars: host stores into device buffers become one-thread
// kernels, and scalars read from device buffers (with their arithmetic) are
// read by the kernels that use them. What still needs the value on the host
// keeps its load, which --sift-verify-gpu reports.
//
// RUN: tensor-opt %s --sift-gpu-host-scalars -split-input-file | FileCheck %s
// RUN: tensor-opt %s --sift-gpu-host-scalars --sift-verify-gpu -split-input-file -verify-diagnostics -o /dev/null

// A count a kernel wrote, read by the host for the arithmetic of a later
// kernel's bound (a compaction's count and the sampler's min/select): the
// load and the arithmetic move into the kernel; nothing is left on the host.
// CHECK-LABEL: func.func @count_into_kernel
// CHECK-NOT: memref.load
// CHECK-NOT: arith.minui
// CHECK: gpu.launch
// CHECK: %[[N:.*]] = memref.load %{{.*}}[] : memref<i64>
// CHECK: %[[I:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK: %[[M:.*]] = arith.minui %[[I]], %{{.*}} : index
// CHECK: arith.cmpi ult, %{{.*}}, %[[M]] : index
// CHECK: gpu.terminator
func.func @count_into_kernel(%out: memref<256xi1>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c500 = arith.constant 500 : index
  %count = gpu.alloc () : memref<1xi64>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %c7 = arith.constant 7 : i64
    memref.store %c7, %count[%c0] : memref<1xi64>
    gpu.terminator
  }
  %view = memref.collapse_shape %count [] : memref<1xi64> into memref<i64>
  %n = memref.load %view[] : memref<i64>
  %i = arith.index_cast %n : i64 to index
  %m = arith.minui %i, %c500 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %lt = arith.cmpi ult, %tx, %m : index
    memref.store %lt, %out[%tx] : memref<256xi1>
    gpu.terminator
  }
  gpu.dealloc %count : memref<1xi64>
  return
}

// -----

// Two kernels use the value: each reads it. A scalar result written with
// tensor.from_elements (a store into a device buffer) becomes a kernel of
// one thread, which reads the count too; two adjacent stores are one kernel.
// CHECK-LABEL: func.func @two_users_and_store
// CHECK-NOT: memref.load
// CHECK: gpu.launch
// CHECK: memref.load %[[COUNT:.*]][%{{.*}}] : memref<4xi64>
// CHECK: gpu.launch
// CHECK: memref.load %[[COUNT]][%{{.*}}] : memref<4xi64>
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %[[C1]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) threads(%{{.*}}) in (%{{.*}} = %[[C1]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]])
// CHECK-NEXT: %[[N:.*]] = memref.load %[[COUNT]][%{{.*}}] : memref<4xi64>
// CHECK-NEXT: %[[D:.*]] = arith.muli %[[N]], %{{.*}} : i64
// CHECK-NEXT: memref.store %[[D]], %{{.*}}[] : memref<i64>
// CHECK-NEXT: memref.store %[[D]], %{{.*}}[] : memref<i64>
// CHECK-NEXT: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @two_users_and_store(%a: memref<256xi64>, %b: memref<256xi64>)
    -> (memref<i64>, memref<i64>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %two = arith.constant 2 : i64
  %count = gpu.alloc () : memref<4xi64>
  %n = memref.load %count[%c2] : memref<4xi64>
  %d = arith.muli %n, %two : i64
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    memref.store %n, %a[%tx] : memref<256xi64>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    memref.store %d, %b[%tx] : memref<256xi64>
    gpu.terminator
  }
  %r = gpu.alloc () : memref<i64>
  %s = gpu.alloc () : memref<i64>
  memref.store %d, %r[] : memref<i64>
  memref.store %d, %s[] : memref<i64>
  return %r, %s : memref<i64>, memref<i64>
}

// -----

// A kernel between the load and its user writes a view of the loaded
// buffer: moved after it, the load would read the new value. It stays on
// the host, as a read: the element (of a buffer of two) is copied into a
// device buffer of one by a one-thread kernel, that buffer to a host buffer
// marked sift.host_read (a synchronization, which the verifier accepts),
// and the host reads it there.
// CHECK-LABEL: func.func @written_between
// The host buffer at the function's entry (not in a loop: no stack growth).
// CHECK-NEXT: %[[H:.*]] = memref.alloca() {sift.host_read} : memref<1xi64>
// CHECK: %[[ONE:.*]] = gpu.alloc  () : memref<1xi64>
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<2xi64>
// CHECK: memref.store %{{.*}}, %[[ONE]][%{{.*}}] : memref<1xi64>
// CHECK: gpu.memcpy  %[[H]], %[[ONE]] : memref<1xi64>, memref<1xi64>
// CHECK: gpu.dealloc  %[[ONE]] : memref<1xi64>
// CHECK: %[[N:.*]] = memref.load %[[H]][%{{.*}}] : memref<1xi64>
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK-NOT: memref.load
// CHECK: memref.store %[[N]]
func.func @written_between(%out: memref<256xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %count = gpu.alloc () : memref<2xi64>
  %n = memref.load %count[%c0] : memref<2xi64>
  %tail = memref.subview %count[1] [1] [1] : memref<2xi64> to memref<1xi64, strided<[1], offset: 1>>
  %sub = memref.subview %count[0] [1] [1] : memref<2xi64> to memref<1xi64, strided<[1]>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0 : i64
    memref.store %z, %sub[%tx] : memref<1xi64, strided<[1]>>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    memref.store %n, %out[%tx] : memref<256xi64>
    gpu.terminator
  }
  return
}

// -----

// The kernel that uses the value writes the buffer itself: another block
// could write it before this one reads. A kernel that writes an unrelated
// buffer, or a call passed unrelated buffers, between the load and the
// user does not stop the move.
// CHECK-LABEL: func.func @written_by_user
// CHECK: %[[H:.*]] = memref.alloca() {sift.host_read} : memref<1xi64>
// CHECK: gpu.memcpy  %[[H]], %{{.*}} : memref<1xi64>, memref<1xi64>
// CHECK: %[[N:.*]] = memref.load %[[H]]
// CHECK: gpu.launch
// CHECK: memref.store %[[N]]
// CHECK-LABEL: func.func @unrelated_writes
// CHECK-NOT: memref.load
// CHECK: gpu.launch
// CHECK: call @helper
// CHECK: gpu.launch
// CHECK-NEXT: memref.load
func.func @written_by_user(%out: memref<256xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %count = gpu.alloc () : memref<1xi64>
  %n = memref.load %count[%c0] : memref<1xi64>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c256, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0 : i64
    memref.store %z, %count[%c0] : memref<1xi64>
    memref.store %n, %out[%bx] : memref<256xi64>
    gpu.terminator
  }
  return
}
func.func private @helper(%m: memref<4xi64>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i64
  // expected-error @+1 {{'memref.store' reads or writes a buffer on the host between kernels}}
  memref.store %z, %m[%c0] : memref<4xi64>
  return
}
func.func @unrelated_writes(%out: memref<256xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %count = gpu.alloc () : memref<1xi64>
  %other = gpu.alloc () : memref<4xi64>
  %n = memref.load %count[%c0] : memref<1xi64>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0 : i64
    memref.store %z, %other[%c0] : memref<4xi64>
    gpu.terminator
  }
  call @helper(%other) : (memref<4xi64>) -> ()
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    memref.store %n, %out[%tx] : memref<256xi64>
    gpu.terminator
  }
  return
}

// -----

// A call passed the buffer may write it; so may a kernel writing a buffer a
// branch chose (either of two allocations, one of them the loaded one), and
// an external function, whatever it is passed.
// CHECK-LABEL: func.func @external_call
// CHECK: memref.load
// CHECK: call @external
// CHECK-LABEL: func.func @call_and_branch
// CHECK: memref.load
// CHECK: memref.load
func.func private @writer(%m: memref<1xi64>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i64
  // expected-error @+1 {{'memref.store' reads or writes a buffer on the host between kernels}}
  memref.store %z, %m[%c0] : memref<1xi64>
  return
}
func.func private @external()
func.func @external_call(%out: memref<256xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %count = gpu.alloc () : memref<1xi64>
  %n = memref.load %count[%c0] : memref<1xi64>
  call @external() : () -> ()
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    memref.store %n, %out[%tx] : memref<256xi64>
    gpu.terminator
  }
  return
}
func.func @call_and_branch(%out: memref<256xi64>, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %count = gpu.alloc () : memref<1xi64>
  %other = gpu.alloc () : memref<1xi64>
  %n = memref.load %count[%c0] : memref<1xi64>
  call @writer(%count) : (memref<1xi64>) -> ()
  %m = memref.load %count[%c0] : memref<1xi64>
  %chosen = scf.if %p -> memref<1xi64> {
    scf.yield %count : memref<1xi64>
  } else {
    scf.yield %other : memref<1xi64>
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0 : i64
    memref.store %z, %chosen[%c0] : memref<1xi64>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %s = arith.addi %n, %m : i64
    memref.store %s, %out[%tx] : memref<256xi64>
    gpu.terminator
  }
  return
}

// -----

// What needs the value on the host reads it there, with one copy (the load
// of a host buffer): a launch size, a branch, a scalar result. A buffer of
// unknown memory (an argument) is not read by a kernel, and a load or store
// of it, or a store in a host loop, stays on the host: the verifier's
// findings.
// CHECK-LABEL: func.func @host_uses
// CHECK: %[[N:.*]] = memref.load
// CHECK: %[[I:.*]] = arith.index_cast %[[N]]
// CHECK: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %[[I]],
// CHECK: scf.if
// CHECK: scf.for
// CHECK-NEXT: memref.store
// CHECK-NOT: gpu.launch
// CHECK: memref.store
// CHECK: return
func.func @host_uses(%arg: memref<4xi64>, %out: memref<256xi64>) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %count = gpu.alloc () : memref<1xi64>
  %n = memref.load %count[%c0] : memref<1xi64>
  %i = arith.index_cast %n : i64 to index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %i, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %n, %out[%bx] : memref<256xi64>
    gpu.terminator
  }
  %big = arith.cmpi ugt, %n, %n : i64
  scf.if %big {
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      gpu.terminator
    }
  }
  // expected-error @+1 {{'scf.for' is a loop over tensor data that stays on the host between kernels}}
  scf.for %j = %c0 to %c4 step %c1 {
    // expected-note @+1 {{it accesses memory here ('memref.store')}}
    memref.store %n, %count[%c0] : memref<1xi64>
  }
  // expected-error @+1 {{'memref.load' reads or writes a buffer on the host between kernels}}
  %a = memref.load %arg[%c0] : memref<4xi64>
  // expected-error @+1 {{'memref.store' reads or writes a buffer on the host between kernels}}
  memref.store %a, %arg[%c1] : memref<4xi64>
  return %n : i64
}

// -----

// A host load of a constant global at constant indices (a reduction's
// initial value, bufferized from a constant tensor) is the constant: the
// store into the device buffer becomes a one-thread kernel of it, and the
// host keeps no copy of the global.
memref.global "private" constant @__constant_xf32 : memref<f32> = dense<2.5>
memref.global "private" constant @__constant_2xi32 : memref<2xi32> = dense<[7, 9]>
// CHECK-LABEL: func.func @constant_loads
// CHECK-NOT: memref.get_global
// CHECK: %[[F:.*]] = arith.constant 2.500000e+00 : f32
// CHECK: gpu.launch
// CHECK: memref.store %[[F]]
// CHECK: %[[I:.*]] = arith.constant 9 : i32
// CHECK: gpu.launch
// CHECK: memref.store %[[I]]
// CHECK-NOT: memref.get_global
// CHECK: return
func.func @constant_loads() {
  %c1 = arith.constant 1 : index
  %out = gpu.alloc () : memref<f32>
  %outi = gpu.alloc () : memref<i32>
  %g = memref.get_global @__constant_xf32 : memref<f32>
  %v = memref.load %g[] : memref<f32>
  memref.store %v, %out[] : memref<f32>
  %gi = memref.get_global @__constant_2xi32 : memref<2xi32>
  %vi = memref.load %gi[%c1] : memref<2xi32>
  memref.store %vi, %outi[] : memref<i32>
  return
}

// -----

// A program's own loop over kernels that carries a size computed from
// device memory (what an iterative filter keeps: each step's compaction
// count) carries it in a one-element device buffer: stored before the loop
// (a one-thread kernel), read by the kernels of each iteration, the next
// value stored at the iteration's end by a one-thread kernel that reads the
// cell and the step's count itself, the result read by the kernel after the
// loop. The host never reads the size; the verifier accepts the loop.
// CHECK-LABEL: func.func @carried_size
// CHECK-NOT: sift.host_read
// CHECK: %[[CELL:.*]] = gpu.alloc  () : memref<1xindex>
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[CELL]][
// CHECK: scf.for
// CHECK-NOT: memref.load
// CHECK: gpu.launch
// CHECK: %[[K:.*]] = memref.load %[[CELL]][
// CHECK: arith.cmpi ult, %{{.*}}, %[[K]]
// CHECK: gpu.terminator
// CHECK: gpu.launch
// CHECK-DAG: memref.load %[[CELL]][
// CHECK-DAG: memref.load %{{.*}}[] : memref<i64>
// CHECK: memref.store %{{.*}}, %[[CELL]][
// CHECK: gpu.terminator
// CHECK: scf.yield
// CHECK-NOT: memref.load
// CHECK: gpu.launch
// CHECK: memref.load %[[CELL]][
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: gpu.dealloc  %[[CELL]]
// CHECK-NEXT: return
func.func @carried_size(%x: memref<64xi64>, %n0: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %count = gpu.alloc () : memref<i64>
  %r = scf.for %step = %c0 to %c4 step %c1 iter_args(%k = %n0) -> (index) {
    // The kept prefix is zeroed past its size; its new size is a count.
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %past = arith.cmpi ult, %tx, %k : index
      scf.if %past {
        %z = arith.constant 0 : i64
        memref.store %z, %x[%tx] : memref<64xi64>
      }
      gpu.terminator
    }
    %c = memref.load %count[] : memref<i64>
    %ci = arith.index_cast %c : i64 to index
    %next = arith.minui %ci, %k : index
    scf.yield %next : index
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %ri = arith.index_cast %r : index to i64
    memref.store %ri, %x[%c0] : memref<64xi64>
    gpu.terminator
  }
  return
}
