// --sift-approximate-math: f32 exp and log that allow approximate functions
// (fastmath<afn>) become upstream's polynomials (fma, floor, bit casts: no
// libm call), which LLVM vectorizes; the others are left for libm.
//
// RUN: tensor-opt %s --sift-approximate-math | FileCheck %s

// CHECK-LABEL: func.func @approximated
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK: math.fma
// CHECK: math.floor
// CHECK: arith.bitcast
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK: return
func.func @approximated(%x: f32) -> f32 {
  %e = math.exp %x fastmath<afn> : f32
  %l = math.log %e fastmath<fast> : f32
  return %l : f32
}

// Vectors are approximated lane by lane.
// CHECK-LABEL: func.func @vector
// CHECK-NOT: math.exp
// CHECK: math.fma {{.*}} : vector<8xf32>
// CHECK: return
func.func @vector(%x: vector<8xf32>) -> vector<8xf32> {
  %e = math.exp %x fastmath<afn> : vector<8xf32>
  return %e : vector<8xf32>
}

// Without afn, or in f64 (the approximations are f32 only), or another
// function: unchanged.
// CHECK-LABEL: func.func @kept
// CHECK: math.exp %{{.*}} : f32
// CHECK: math.log %{{.*}} fastmath<reassoc> : f32
// CHECK: math.exp %{{.*}} fastmath<afn> : f64
// CHECK: math.tanh %{{.*}} fastmath<afn> : f32
func.func @kept(%x: f32, %y: f64) -> (f32, f32, f64, f32) {
  %e = math.exp %x : f32
  %l = math.log %x fastmath<reassoc> : f32
  %d = math.exp %y fastmath<afn> : f64
  %t = math.tanh %x fastmath<afn> : f32
  return %e, %l, %d, %t : f32, f32, f64, f32
}
