// --sift-stack-buffers: a function's small statically shaped temporaries
// become stack allocations, up to a size each and a budget a function; a
// buffer in a loop, one the function returns, one of dynamic shape and one
// over either limit stay on the heap. The allocations it makes sit at the
// start of the function, in their order, at most 16-byte aligned (the
// stack's own alignment: no realignment of the frame).
// RUN: tensor-opt %s -split-input-file \
// RUN:   --sift-stack-buffers="max-buffer-bytes=1024 max-frame-bytes=2048" \
// RUN:   | FileCheck %s
// RUN: tensor-opt %s -split-input-file \
// RUN:   --sift-stack-buffers="max-buffer-bytes=1024 max-frame-bytes=2048" \
// RUN:   --buffer-deallocation-pipeline | FileCheck %s --check-prefix=DEALLOC

// A histogram of 256 i32 (1024 bytes, the limit) goes on the stack, its
// 64-byte alignment dropped; 257 would not.
// CHECK-LABEL: func.func @histogram
// CHECK: %[[H:.*]] = memref.alloca() : memref<256xi32>
// CHECK: %[[BIG:.*]] = memref.alloc() : memref<257xi32>
// CHECK-NOT: memref.alloc(
// CHECK: return
// DEALLOC-LABEL: func.func @histogram
// DEALLOC-NOT: memref.dealloc %{{.*}} : memref<256xi32>
// DEALLOC: memref.dealloc %{{.*}} : memref<257xi32>
func.func @histogram(%keys: memref<100xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %h = memref.alloc() {alignment = 64 : i64} : memref<256xi32>
  %big = memref.alloc() : memref<257xi32>
  linalg.fill ins(%zero : i32) outs(%h : memref<256xi32>)
  linalg.fill ins(%zero : i32) outs(%big : memref<257xi32>)
  scf.for %i = %c0 to %c100 step %c1 {
    %k = memref.load %keys[%i] : memref<100xi32>
    %d = arith.index_cast %k : i32 to index
    %old = memref.load %h[%d] : memref<256xi32>
    %new = arith.addi %old, %one : i32
    memref.store %new, %h[%d] : memref<256xi32>
    memref.store %new, %big[%d] : memref<257xi32>
  }
  %a = memref.load %h[%c0] : memref<256xi32>
  %b = memref.load %big[%c0] : memref<257xi32>
  %s = arith.addi %a, %b : i32
  return %s : i32
}

// -----

// The budget: the returned buffer stays on the heap and costs nothing of
// it; two buffers of 1024 bytes fill it; the next, though small, stays on
// the heap, as does the one of dynamic shape.
// CHECK-LABEL: func.func @budget
// CHECK: memref.alloca() : memref<128xi64>
// CHECK: memref.alloca() : memref<256xf32>
// CHECK: memref.alloc() : memref<4xi64>
// CHECK: memref.alloc() : memref<16xi8>
// CHECK: memref.alloc(%{{.*}}) : memref<?xi8>
func.func @budget(%n: index) -> memref<4xi64> {
  %c0 = arith.constant 0 : index
  %r = memref.alloc() : memref<4xi64>
  %a = memref.alloc() : memref<128xi64>
  %b = memref.alloc() : memref<256xf32>
  %c = memref.alloc() : memref<16xi8>
  %d = memref.alloc(%n) : memref<?xi8>
  %x = memref.load %a[%c0] : memref<128xi64>
  %f = memref.load %b[%c0] : memref<256xf32>
  %i = arith.fptosi %f : f32 to i64
  %y = arith.addi %x, %i : i64
  %z = memref.load %c[%c0] : memref<16xi8>
  %w = memref.load %d[%c0] : memref<?xi8>
  %zw = arith.addi %z, %w : i8
  %e = arith.extsi %zw : i8 to i64
  %v = arith.addi %y, %e : i64
  memref.store %v, %r[%c0] : memref<4xi64>
  return %r : memref<4xi64>
}

// -----

// A buffer allocated in a loop body stays on the heap (an alloca would grow
// the stack on every iteration), and costs nothing of the budget: the one
// after the loop still fits. One allocated in an scf.if and yielded out of
// it lives in the function: on the stack, allocated at the function's start.
// CHECK-LABEL: func.func @loop_and_branch
// CHECK: %[[THEN:.*]] = memref.alloca() : memref<64xi32>
// CHECK: %[[ELSE:.*]] = memref.alloca() : memref<64xi32>
// CHECK: %[[AFTER:.*]] = memref.alloca() : memref<256xi32>
// CHECK: scf.for
// CHECK: memref.alloc() : memref<512xi32>
// CHECK: scf.if
// CHECK: scf.yield %[[THEN]]
// CHECK: scf.yield %[[ELSE]]
// CHECK: memref.store %{{.*}}, %[[AFTER]]
func.func @loop_and_branch(%cond: i1, %v: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %v) -> (i32) {
    %t = memref.alloc() : memref<512xi32>
    memref.store %acc, %t[%i] : memref<512xi32>
    %x = memref.load %t[%c0] : memref<512xi32>
    scf.yield %x : i32
  }
  %m = scf.if %cond -> (memref<64xi32>) {
    %p = memref.alloc() : memref<64xi32>
    memref.store %sum, %p[%c0] : memref<64xi32>
    scf.yield %p : memref<64xi32>
  } else {
    %q = memref.alloc() : memref<64xi32>
    memref.store %v, %q[%c0] : memref<64xi32>
    scf.yield %q : memref<64xi32>
  }
  %after = memref.alloc() : memref<256xi32>
  %y = memref.load %m[%c0] : memref<64xi32>
  memref.store %y, %after[%c0] : memref<256xi32>
  %z = memref.load %after[%c0] : memref<256xi32>
  return %z : i32
}

// -----

// A buffer inside an op that starts an allocation scope of its own
// (memref.alloca_scope) stays on the heap: an alloca there would belong
// to that scope, not the function's entry block.
// CHECK-LABEL: func.func @own_scope
// CHECK: memref.alloca_scope
// CHECK: memref.alloc() : memref<4xi32>
// CHECK-NOT: memref.alloca()
func.func @own_scope(%v: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %r = memref.alloca_scope -> i32 {
    %buf = memref.alloc() : memref<4xi32>
    memref.store %v, %buf[%c0] : memref<4xi32>
    %x = memref.load %buf[%c0] : memref<4xi32>
    memref.alloca_scope.return %x : i32
  }
  return %r : i32
}
