// convert-sift-to-gpu takes every form the conformance suite runs through
// the kernels (ctest conformance-gpu-kernels), so that suite checks the
// kernels and not the linalg lowering: element types, ranks 1 to 3,
// dynamic extents, empty axes. Cumsum along another axis is the kernel's
// along the last axis of its input transposed (sift-kernels-other-axis.mlir);
// one of an integer type narrower than 32 bits (i8, or an
// i1 mask's i16 sums) is the kernel's in i32 (of the elements
// sign-extended), truncated.
//
// RUN: tensor-opt %s --convert-sift-to-gpu | FileCheck %s
// RUN: tensor-opt %s --convert-sift-to-gpu --sift-gpu-expand-kernels | FileCheck %s --check-prefix=LAUNCH
// RUN: not tensor-opt %s --convert-sift-to-gpu --sift-gpu-expand-kernels=threads=48 2>&1 | FileCheck %s --check-prefix=THREADS

// CHECK-LABEL: func.func @counts
// CHECK-COUNT-5: sift.gpu_kernel = "count"
// CHECK-NOT: sift.count
// CHECK-LABEL: func.func @cumsums
// CHECK-COUNT-5: sift.gpu_kernel = "cumsum"
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x9xf32>) outs(%{{.*}} : tensor<9x4xf32>) permutation = [1, 0]
// CHECK: sift.gpu_kernel = "cumsum"} : (memref<9x4xf32>, memref<9x4xf32>)
// CHECK: linalg.transpose
// CHECK-NOT: sift.cumsum
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: sift.gpu_kernel = "cumsum"} : (memref<4x9xi32>, memref<4x9xi32>)
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: sift.gpu_kernel = "cumsum"} : (memref<4x9xi1>, memref<4x9xi32>)
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK-NOT: sift.cumsum
// CHECK-LABEL: func.func @compacts
// CHECK-COUNT-3: sift.gpu_kernel = "compact"
// CHECK-NOT: sift.compact

// LAUNCH-COUNT-16: gpu.launch
// LAUNCH-NOT: call @__sift_gpu
// THREADS: threads must be a multiple of 32 in [32, 1024], not 48

func.func @counts(%a: tensor<7xi1>, %b: tensor<3x5xf32>, %c: tensor<2x3x4xi32>,
                  %d: tensor<?x?xf64>, %e: tensor<4x0xi1>)
    -> (tensor<i64>, tensor<3xi64>, tensor<2x3xi64>, tensor<?xi64>, tensor<4xi64>) {
  %0 = sift.count %a : tensor<7xi1> -> tensor<i64>
  %1 = sift.count %b : tensor<3x5xf32> -> tensor<3xi64>
  %2 = sift.count %c : tensor<2x3x4xi32> -> tensor<2x3xi64>
  %3 = sift.count %d : tensor<?x?xf64> -> tensor<?xi64>
  %4 = sift.count %e : tensor<4x0xi1> -> tensor<4xi64>
  return %0, %1, %2, %3, %4 : tensor<i64>, tensor<3xi64>, tensor<2x3xi64>, tensor<?xi64>, tensor<4xi64>
}

func.func @cumsums(%a: tensor<9xi64>, %b: tensor<4x9xi1>, %c: tensor<2x3x9xf32>,
                   %d: tensor<?xf64>, %e: tensor<4x9xi32>, %f: tensor<4x9xf32>,
                   %g: tensor<4x9xi8>, %h: tensor<4x9xi1>)
    -> (tensor<9xi64>, tensor<4x9xi32>, tensor<2x3x9xf32>, tensor<?xf64>,
        tensor<4x9xi32>, tensor<4x9xf32>, tensor<4x9xi8>, tensor<4x9xi16>) {
  %0 = sift.cumsum %a exclusive : tensor<9xi64> -> tensor<9xi64>
  %1 = sift.cumsum %b exclusive : tensor<4x9xi1> -> tensor<4x9xi32>
  %2 = sift.cumsum %c {dim = 2 : i64} : tensor<2x3x9xf32> -> tensor<2x3x9xf32>
  %3 = sift.cumsum %d : tensor<?xf64> -> tensor<?xf64>
  %4 = sift.cumsum %e {dim = -1 : i64} : tensor<4x9xi32> -> tensor<4x9xi32>
  %5 = sift.cumsum %f {dim = 0 : i64} : tensor<4x9xf32> -> tensor<4x9xf32>
  %6 = sift.cumsum %g : tensor<4x9xi8> -> tensor<4x9xi8>
  %7 = sift.cumsum %h : tensor<4x9xi1> -> tensor<4x9xi16>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<9xi64>, tensor<4x9xi32>, tensor<2x3x9xf32>, tensor<?xf64>, tensor<4x9xi32>, tensor<4x9xf32>, tensor<4x9xi8>, tensor<4x9xi16>
}

func.func @compacts(%a: tensor<100xi1>, %b: tensor<2x3x50xi1>, %c: tensor<?x?xi1>)
    -> (tensor<10xi64>, tensor<i64>, tensor<2x3x0xi64>, tensor<2x3xi64>,
        tensor<?x80xi64>, tensor<?xi64>) {
  %i0, %n0 = sift.compact %a : tensor<100xi1> -> tensor<10xi64>, tensor<i64>
  %i1, %n1 = sift.compact %b {fill = 0 : i64} : tensor<2x3x50xi1> -> tensor<2x3x0xi64>, tensor<2x3xi64>
  %i2, %n2 = sift.compact %c : tensor<?x?xi1> -> tensor<?x80xi64>, tensor<?xi64>
  return %i0, %n0, %i1, %n1, %i2, %n2 : tensor<10xi64>, tensor<i64>, tensor<2x3x0xi64>, tensor<2x3xi64>, tensor<?x80xi64>, tensor<?xi64>
}
