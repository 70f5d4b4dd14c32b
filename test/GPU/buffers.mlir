// The GPU pipeline's buffer passes.
//
// RUN: tensor-opt %s --pass-pipeline='builtin.module(func.func(sift-gpu-hoist-kernel-allocs))' -split-input-file | FileCheck %s --check-prefix=HOIST
// RUN: tensor-opt %s --sift-gpu-device-buffers -split-input-file | FileCheck %s --check-prefix=DEVICE
// RUN: tensor-opt %s --sift-gpu-host-boundary -split-input-file | FileCheck %s --check-prefix=BOUNDARY

// --sift-gpu-hoist-kernel-allocs: the static scratch buffers of the kernel
// become views of one device buffer with a slot per thread (4 blocks x 8
// threads), allocated before the launch and freed after it; their
// deallocations go. Slots: 10 x f32 (64 bytes), 2 x 8 x i64 (128), the one
// allocated in a loop and used only in that iteration (64: every iteration
// of the thread reuses it), the one outside the second loop (64): 320. The
// dynamic one stays, and so does the one carried to the next iteration
// (the loop yields it: two iterations' buffers are alive at once).
// HOIST-LABEL: func.func @scratch
// HOIST: %[[SLOT:.*]] = arith.constant 320 : index
// HOIST: %[[BYTES:.*]] = arith.muli %{{.*}}, %[[SLOT]] : index
// HOIST: %[[BUF:.*]] = gpu.alloc  (%[[BYTES]]) : memref<?xi8>
// HOIST: gpu.launch
// HOIST: %[[PER_THREAD:c320.*]] = arith.constant 320 : index
// HOIST: %[[BASE:[0-9]+]] = arith.muli %{{.*}}, %[[PER_THREAD]] : index
// HOIST: %[[C0:.*]] = arith.constant 0 : index
// HOIST: %[[S0:.*]] = arith.addi %[[BASE]], %[[C0]] : index
// HOIST: memref.view %[[BUF]][%[[S0]]][] : memref<?xi8> to memref<10xf32>
// HOIST: %[[C64:.*]] = arith.constant 64 : index
// HOIST: %[[S1:.*]] = arith.addi %[[BASE]], %[[C64]] : index
// HOIST: memref.view %[[BUF]][%[[S1]]][] : memref<?xi8> to memref<2x8xi64>
// HOIST: memref.alloc(%{{.*}}) : memref<?xf32>
// HOIST: scf.for
// HOIST: %[[C192:.*]] = arith.constant 192 : index
// HOIST: %[[S2:.*]] = arith.addi %[[BASE]], %[[C192]] : index
// HOIST: memref.view %[[BUF]][%[[S2]]][] : memref<?xi8> to memref<4xf32>
// HOIST-NOT: memref.dealloc
// HOIST: memref.view %[[BUF]][%{{.*}}][] : memref<?xi8> to memref<4xf32>
// HOIST: scf.for
// HOIST: memref.alloc() : memref<4xf32>
// HOIST-NOT: memref.dealloc %view
// HOIST: memref.dealloc %{{.*}} : memref<?xf32>
// HOIST-NOT: memref.dealloc
// HOIST: gpu.terminator
// HOIST: gpu.dealloc  %[[BUF]] : memref<?xi8>
func.func @scratch(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %a = memref.alloc() : memref<10xf32>
    %b = memref.alloc() : memref<2x8xi64>
    %d = memref.alloc(%n) : memref<?xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %l = memref.alloc() : memref<4xf32>
      %v = arith.constant 1.0 : f32
      memref.store %v, %l[%i] : memref<4xf32>
      memref.dealloc %l : memref<4xf32>
    }
    %e = memref.alloc() : memref<4xf32>
    %k = scf.for %i = %c0 to %c4 step %c1 iter_args(%it = %e)
        -> (memref<4xf32>) {
      %c = memref.alloc() : memref<4xf32>
      scf.yield %c : memref<4xf32>
    }
    memref.dealloc %a : memref<10xf32>
    %cast = memref.cast %b : memref<2x8xi64> to memref<?x8xi64>
    memref.dealloc %cast : memref<?x8xi64>
    memref.dealloc %d : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// Scratch allocated in a loop and passed out of the iteration through a
// branch (the ping-pong buffers of a sequential radix sort: an scf.if
// yields either the new buffer or the old one), used and freed in the same
// iteration: one slot each.
// HOIST-LABEL: func.func @through_branches
// HOIST: arith.constant 128 : index
// HOIST: gpu.launch
// HOIST: scf.for
// HOIST: memref.view {{.*}} to memref<4xf32>
// HOIST: scf.if
// HOIST: memref.view {{.*}} to memref<4xf32>
// HOIST-NOT: memref.alloc
// HOIST-NOT: memref.dealloc
// HOIST: gpu.terminator
func.func @through_branches(%p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %v = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    scf.for %i = %c0 to %c4 step %c1 {
      %x = memref.alloc() : memref<4xf32>
      %y = scf.if %p -> (memref<4xf32>) {
        %z = memref.alloc() : memref<4xf32>
        scf.yield %z : memref<4xf32>
      } else {
        scf.yield %x : memref<4xf32>
      }
      memref.store %v, %y[%i] : memref<4xf32>
      memref.dealloc %x : memref<4xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// A buffer of dynamic size whose size has a constant upper bound (here an
// affine.min, as ValueBoundsConstraintSet proves it) gets a slot of that
// bound: 100 x f32 = 400 bytes, 448 with the 64-byte alignment, next to the
// 64 bytes of the static one. The view keeps the dynamic size. The one whose
// size has no bound (a function argument) stays.
// HOIST-LABEL: func.func @bounded_dynamic
// HOIST-SAME: (%[[N:.*]]: index, %[[U:.*]]: index)
// HOIST: %[[SLOT:.*]] = arith.constant 512 : index
// HOIST: %[[BYTES:.*]] = arith.muli %{{.*}}, %[[SLOT]] : index
// HOIST: %[[BUF:.*]] = gpu.alloc  (%[[BYTES]]) : memref<?xi8>
// HOIST: gpu.launch
// HOIST: %[[M:.*]] = affine.min #{{.*}}()[%[[N]]]
// HOIST: memref.view %[[BUF]][%{{.*}}][%[[M]]] : memref<?xi8> to memref<?xf32>
// HOIST: memref.view %[[BUF]][%{{.*}}][] : memref<?xi8> to memref<16xf32>
// HOIST: memref.alloc(%[[U]]) : memref<?xf32>
// HOIST-NOT: memref.alloc
// HOIST: gpu.terminator
// HOIST: gpu.dealloc  %[[BUF]] : memref<?xi8>
func.func @bounded_dynamic(%n: index, %u: index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m = affine.min affine_map<()[s0] -> (s0, 100)>()[%n]
    %d = memref.alloc(%m) : memref<?xf32>
    %s = memref.alloc() : memref<16xf32>
    %x = memref.alloc(%u) : memref<?xf32>
    %v = arith.constant 1.0 : f32
    memref.store %v, %d[%tx] : memref<?xf32>
    memref.store %v, %s[%tx] : memref<16xf32>
    memref.store %v, %x[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// What lower-affine makes of an affine.min (arith.minsi), and arith.minui,
// are bounded by their least bounded operand: 100 and 50 x f32 (448 and
// 256 bytes). A select between the argument and a constant is not bounded:
// that buffer stays.
// HOIST-LABEL: func.func @lowered_min
// HOIST-SAME: (%[[N:.*]]: index)
// HOIST: arith.constant 704 : index
// HOIST: gpu.launch
// HOIST: %[[M:.*]] = arith.minsi %[[N]], %{{.*}} : index
// HOIST: memref.view %{{.*}}[%{{.*}}][%[[M]]] : memref<?xi8> to memref<?xf32>
// HOIST: %[[U:.*]] = arith.minui %[[N]], %{{.*}} : index
// HOIST: memref.view %{{.*}}[%{{.*}}][%[[U]]] : memref<?xi8> to memref<?xf32>
// HOIST: %[[S:.*]] = arith.select
// HOIST: memref.alloc(%[[S]]) : memref<?xf32>
// HOIST: gpu.terminator
func.func @lowered_min(%n: index) {
  %c1 = arith.constant 1 : index
  %c50 = arith.constant 50 : index
  %c100 = arith.constant 100 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %m = arith.minsi %n, %c100 : index
    %a = memref.alloc(%m) : memref<?xf32>
    %u = arith.minui %n, %c50 : index
    %b = memref.alloc(%u) : memref<?xf32>
    %lt = arith.cmpi slt, %n, %c100 : index
    %s = arith.select %lt, %n, %c100 : index
    %c = memref.alloc(%s) : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

// Once a kernel allocates nothing, its deallocations of buffers that reach
// them through loop results (ownership-guarded by the deallocation
// pipeline) go too: they free a hoisted slot, never a kernel allocation.
// HOIST-LABEL: func.func @guarded_deallocs
// HOIST: gpu.launch
// HOIST: memref.view
// HOIST: scf.for
// HOIST: scf.if
// HOIST-NOT: memref.dealloc
// HOIST: gpu.terminator
func.func @guarded_deallocs(%own: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.alloc() : memref<8xf32>
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%it = %a) -> memref<8xf32> {
      scf.yield %it : memref<8xf32>
    }
    %base, %offset, %size, %stride = memref.extract_strided_metadata %r : memref<8xf32> -> memref<f32>, index, index, index
    scf.if %own {
      memref.dealloc %base : memref<f32>
    }
    gpu.terminator
  }
  return
}

// -----

// --sift-gpu-device-buffers: host allocations become device allocations;
// the kernel's own stays for the verifier.
// DEVICE-LABEL: func.func @host_buffers
// DEVICE: %[[M:.*]] = gpu.alloc  (%{{.*}}) : memref<?xf32>
// DEVICE: gpu.launch
// DEVICE: memref.alloc() : memref<4xf32>
// DEVICE: gpu.dealloc  %[[M]] : memref<?xf32>
// DEVICE-NOT: memref.dealloc %[[M]]
func.func @host_buffers(%n: index) {
  %c1 = arith.constant 1 : index
  %m = memref.alloc(%n) : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %k = memref.alloc() : memref<4xf32>
    %v = arith.constant 1.0 : f32
    memref.store %v, %m[%tx] : memref<?xf32>
    gpu.terminator
  }
  memref.dealloc %m : memref<?xf32>
  return
}

// -----

// A buffer only host code touches stays in host memory (sift.host_buffer):
// the deallocation helper's bookkeeping (buffer addresses and ownership
// flags the host stores, passes to the helper and loads back), and the
// helper's arguments that every call passes such a buffer. A buffer a
// kernel uses, or passed to a function that gives it to a kernel, or a
// helper argument some call passes device memory, is device memory.
// DEVICE-LABEL: func.func private @helper
// DEVICE-SAME: (%{{.*}}: memref<?xindex> {sift.host_buffer}, %{{.*}}: memref<?xi1> {sift.host_buffer})
// DEVICE-LABEL: func.func private @mixed_helper
// DEVICE-SAME: (%{{.*}}: memref<?xi1>)
// DEVICE-LABEL: func.func private @launches
// DEVICE-LABEL: func.func @bookkeeping
// DEVICE: %[[PTRS:.*]] = memref.alloc() {sift.host_buffer} : memref<2xindex>
// DEVICE: %[[FLAGS:.*]] = memref.alloc() {sift.host_buffer} : memref<2xi1>
// DEVICE: %[[DATA:.*]] = gpu.alloc  () : memref<64xf32>
// DEVICE: %[[GIVEN:.*]] = gpu.alloc  () : memref<4xi1>
// DEVICE: %[[MIXED:.*]] = gpu.alloc  () : memref<2xi1>
// DEVICE: %[[MIXED_HOST:.*]] = memref.alloc() {sift.host_buffer} : memref<2xi1>
// DEVICE: memref.dealloc %[[PTRS]] : memref<2xindex>
// DEVICE: memref.dealloc %[[FLAGS]] : memref<2xi1>
// DEVICE: gpu.dealloc  %[[DATA]] : memref<64xf32>
func.func private @helper(%ptrs: memref<?xindex>, %flags: memref<?xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %ptrs, %c0 : memref<?xindex>
  scf.for %i = %c0 to %n step %c1 {
    %p = memref.load %ptrs[%i] : memref<?xindex>
    %b = arith.cmpi ne, %p, %c0 : index
    memref.store %b, %flags[%i] : memref<?xi1>
  }
  return
}
func.func private @mixed_helper(%flags: memref<?xi1>) {
  %c0 = arith.constant 0 : index
  %t = arith.constant true
  memref.store %t, %flags[%c0] : memref<?xi1>
  return
}
func.func private @launches(%m: memref<4xi1>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %t = arith.constant true
    memref.store %t, %m[%tx] : memref<4xi1>
    gpu.terminator
  }
  return
}
func.func @bookkeeping() -> i1 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ptrs = memref.alloc() : memref<2xindex>
  %flags = memref.alloc() : memref<2xi1>
  %data = memref.alloc() : memref<64xf32>
  %given = memref.alloc() : memref<4xi1>
  %mixed = memref.alloc() : memref<2xi1>
  %mixed_host = memref.alloc() : memref<2xi1>
  %p = memref.extract_aligned_pointer_as_index %data : memref<64xf32> -> index
  memref.store %p, %ptrs[%c0] : memref<2xindex>
  memref.store %c0, %ptrs[%c1] : memref<2xindex>
  %pc = memref.cast %ptrs : memref<2xindex> to memref<?xindex>
  %fc = memref.cast %flags : memref<2xi1> to memref<?xi1>
  func.call @helper(%pc, %fc) : (memref<?xindex>, memref<?xi1>) -> ()
  %f = memref.load %flags[%c0] : memref<2xi1>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = arith.constant 1.0 : f32
    memref.store %v, %data[%tx] : memref<64xf32>
    gpu.terminator
  }
  func.call @launches(%given) : (memref<4xi1>) -> ()
  %mc = memref.cast %mixed : memref<2xi1> to memref<?xi1>
  %mhc = memref.cast %mixed_host : memref<2xi1> to memref<?xi1>
  func.call @mixed_helper(%mc) : (memref<?xi1>) -> ()
  func.call @mixed_helper(%mhc) : (memref<?xi1>) -> ()
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %t = arith.constant true
    memref.store %t, %mixed[%tx] : memref<2xi1>
    gpu.terminator
  }
  memref.dealloc %ptrs : memref<2xindex>
  memref.dealloc %flags : memref<2xi1>
  memref.dealloc %data : memref<64xf32>
  return %f : i1
}

// -----

// --sift-gpu-host-boundary: arguments copied to the device on entry, the
// result copied to a host buffer before return; the device copies freed.
// BOUNDARY-LABEL: func.func @boundary
// BOUNDARY-SAME: (%[[A:.*]]: memref<?xf32>, %[[N:.*]]: index)
// BOUNDARY: %[[DIM:.*]] = memref.dim %[[A]], %{{.*}} : memref<?xf32>
// BOUNDARY: %[[DA:.*]] = gpu.alloc  (%[[DIM]]) : memref<?xf32>
// BOUNDARY: gpu.memcpy  %[[DA]], %[[A]] : memref<?xf32>, memref<?xf32>
// BOUNDARY: %[[R:.*]] = gpu.alloc  (%[[N]]) : memref<?xf32>
// BOUNDARY: gpu.launch
// BOUNDARY: memref.load %[[DA]]
// BOUNDARY: %[[H:.*]] = memref.alloc(%{{.*}}) {sift.host_result} : memref<?xf32>
// BOUNDARY: gpu.memcpy  %[[H]], %[[R]] : memref<?xf32>, memref<?xf32>
// BOUNDARY: gpu.dealloc  %[[DA]] : memref<?xf32>
// BOUNDARY: gpu.dealloc  %[[R]] : memref<?xf32>
// BOUNDARY: return %[[H]] : memref<?xf32>
func.func @boundary(%a: memref<?xf32>, %n: index) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = gpu.alloc (%n) : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %a[%c0] : memref<?xf32>
    memref.store %v, %r[%c0] : memref<?xf32>
    gpu.terminator
  }
  return %r : memref<?xf32>
}

// -----

// A result that is a view of a device buffer (a compaction's valid prefix)
// frees the buffer it views, once, also when two results view it; a result
// that views an argument frees nothing more than the argument's copy.
// BOUNDARY-LABEL: func.func @boundary_views
// BOUNDARY-SAME: (%[[A:.*]]: memref<8xf32>, %[[N:.*]]: index)
// BOUNDARY: %[[DA:.*]] = gpu.alloc  () : memref<8xf32>
// BOUNDARY: %[[R:.*]] = gpu.alloc  () : memref<16xi64>
// BOUNDARY: %[[V:.*]] = memref.subview %[[R]][0] [%[[N]]] [1]
// BOUNDARY: %[[W:.*]] = memref.subview %[[R]][8] [4] [1]
// BOUNDARY: %[[X:.*]] = memref.subview %[[DA]][0] [4] [1]
// BOUNDARY: gpu.memcpy  %{{.*}}, %[[V]]
// BOUNDARY: gpu.memcpy  %{{.*}}, %[[W]]
// BOUNDARY: gpu.memcpy  %{{.*}}, %[[X]]
// BOUNDARY-NEXT: gpu.dealloc  %[[DA]] : memref<8xf32>
// BOUNDARY-NEXT: gpu.dealloc  %[[R]] : memref<16xi64>
// BOUNDARY-NEXT: return
func.func @boundary_views(%a: memref<8xf32>, %n: index)
    -> (memref<?xi64, strided<[1]>>, memref<4xi64, strided<[1], offset: 8>>,
        memref<4xf32, strided<[1]>>) {
  %r = gpu.alloc () : memref<16xi64>
  %v = memref.subview %r[0] [%n] [1] : memref<16xi64> to memref<?xi64, strided<[1]>>
  %w = memref.subview %r[8] [4] [1] : memref<16xi64> to memref<4xi64, strided<[1], offset: 8>>
  %x = memref.subview %a[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  return %v, %w, %x : memref<?xi64, strided<[1]>>,
      memref<4xi64, strided<[1], offset: 8>>, memref<4xf32, strided<[1]>>
}

// -----

// A result of the identity layout that is a cast of a view of another (the
// valid rows of a padded buffer: a dynamic result) is first copied on the
// device into a buffer of the identity layout, by a kernel of a thread per
// element: canonicalization would fold the cast into the copy to the host,
// whose lowering needs the identity layout. That buffer is freed too.
// BOUNDARY-LABEL: func.func @boundary_rows_view
// BOUNDARY: %[[R:.*]] = gpu.alloc  () : memref<16x2xi64>
// BOUNDARY: %[[V:.*]] = memref.subview %[[R]][0, 0] [%{{.*}}, 2] [1, 1]
// BOUNDARY: %[[H:.*]] = memref.alloc(%{{.*}}) {sift.host_result} : memref<?x2xi64>
// BOUNDARY: %[[C:.*]] = gpu.alloc  (%{{.*}}) : memref<?x2xi64>
// BOUNDARY: gpu.launch
// BOUNDARY: scf.if
// BOUNDARY: arith.remui
// BOUNDARY: %[[E:.*]] = memref.load %[[V]]
// BOUNDARY: memref.store %[[E]], %[[C]]
// BOUNDARY: gpu.memcpy  %[[H]], %[[C]] : memref<?x2xi64>, memref<?x2xi64>
// BOUNDARY: gpu.dealloc  %[[R]] : memref<16x2xi64>
// BOUNDARY: gpu.dealloc  %[[C]] : memref<?x2xi64>
// BOUNDARY: return %[[H]] : memref<?x2xi64>
func.func @boundary_rows_view(%n: index) -> memref<?x2xi64> {
  %r = gpu.alloc () : memref<16x2xi64>
  %v = memref.subview %r[0, 0] [%n, 2] [1, 1] : memref<16x2xi64> to memref<?x2xi64, strided<[2, 1]>>
  %c = memref.cast %v : memref<?x2xi64, strided<[2, 1]>> to memref<?x2xi64>
  return %c : memref<?x2xi64>
}

// -----

// A result one of two device buffers chosen by a branch, or yielded by an
// scf.execute_region: the branch's result is freed once the host copy is
// made (whichever buffer it is).
// BOUNDARY-LABEL: func.func @boundary_branches
// BOUNDARY: %[[SEL:.*]] = scf.if
// BOUNDARY: %[[REG:.*]] = scf.execute_region
// BOUNDARY: gpu.memcpy  %{{.*}}, %[[SEL]]
// BOUNDARY: gpu.memcpy  %{{.*}}, %[[REG]]
// BOUNDARY-NEXT: gpu.dealloc  %[[SEL]] : memref<4xf32>
// BOUNDARY-NEXT: gpu.dealloc  %[[REG]] : memref<0xi64>
// BOUNDARY-NEXT: return
func.func @boundary_branches(%c: i1) -> (memref<4xf32>, memref<0xi64>) {
  %sel = scf.if %c -> memref<4xf32> {
    %a = gpu.alloc () : memref<4xf32>
    scf.yield %a : memref<4xf32>
  } else {
    %b = gpu.alloc () : memref<4xf32>
    scf.yield %b : memref<4xf32>
  }
  %reg = scf.execute_region -> memref<0xi64> no_inline {
    %e = gpu.alloc () : memref<0xi64>
    scf.yield %e : memref<0xi64>
  }
  return %sel, %reg : memref<4xf32>, memref<0xi64>
}

// -----

// A result a loop carries out (each iteration's fresh buffer; the
// deallocation pipeline made it caller-owned), or a branch's choice between
// that and a fresh buffer (the iterative filter of differential.py, whose
// device buffer leaked at every call): freed once the host copy is made.
// BOUNDARY-LABEL: func.func @boundary_loop_result
// BOUNDARY: %[[LOOP:.*]] = scf.for
// BOUNDARY: %[[SEL:.*]] = scf.if
// BOUNDARY: gpu.memcpy  %{{.*}}, %[[SEL]]
// BOUNDARY-NEXT: gpu.dealloc  %[[SEL]] : memref<3xi64>
// BOUNDARY-NEXT: return
func.func @boundary_loop_result(%c: i1, %n: index) -> memref<3xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = gpu.alloc () : memref<3xi64>
  %loop = scf.for %i = %c0 to %n step %c1 iter_args(%b = %init) -> memref<3xi64> {
    gpu.dealloc %b : memref<3xi64>
    %next = gpu.alloc () : memref<3xi64>
    scf.yield %next : memref<3xi64>
  }
  %sel = scf.if %c -> memref<3xi64> {
    scf.yield %loop : memref<3xi64>
  } else {
    gpu.dealloc %loop : memref<3xi64>
    %fresh = gpu.alloc () : memref<3xi64>
    scf.yield %fresh : memref<3xi64>
  }
  return %sel : memref<3xi64>
}
