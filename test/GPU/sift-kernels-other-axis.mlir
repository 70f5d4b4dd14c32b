// sort, argsort, top-k and cumsum along an axis other than the last
// (convert-sift-to-gpu's moveAxisLast): the op along the last axis of its
// input transposed (that axis moved last, the others in their order), so
// that its lines are the rows of sift's kernels, and its results transposed
// back. Ops whose last-axis form would not be a kernel either are left
// alone, with no transpose. ctest conformance-gpu-kernels runs the
// conformance suite's cases along other axes (sort/*dim0*, *dim1*,
// topk/*dim0*, cumsum/*dim0*, *dim1*, *neg2*) on the CPU execution of these
// kernels against NumPy.
//
// RUN: tensor-opt %s --convert-sift-to-gpu -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @sort_dim0
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<6000x3xf32>) outs(%{{.*}} : tensor<3x6000xf32>) permutation = [1, 0]
// CHECK: %[[TB:.*]] = bufferization.to_buffer %[[T]]
// CHECK: call @__sift_gpu_sort{{.*}}(%[[TB]], {{.*}}) {{.*}}sift.gpu_kernel = "sort"{{.*}} : (memref<3x6000xf32>, memref<3x6000xf32>, memref<3x6000xi64>
// CHECK: %[[V:.*]] = linalg.transpose ins(%{{.*}} : tensor<3x6000xf32>) outs(%{{.*}} : tensor<6000x3xf32>) permutation = [1, 0]
// CHECK: %[[I:.*]] = linalg.transpose ins(%{{.*}} : tensor<3x6000xi64>) outs(%{{.*}} : tensor<6000x3xi64>) permutation = [1, 0]
// CHECK: return %[[V]], %[[I]]
func.func @sort_dim0(%x: tensor<6000x3xf32>) -> (tensor<6000x3xf32>, tensor<6000x3xi64>) {
  %v, %i = sift.sort %x {dim = 0 : i64} : tensor<6000x3xf32> -> tensor<6000x3xf32>, tensor<6000x3xi64>
  return %v, %i : tensor<6000x3xf32>, tensor<6000x3xi64>
}

// -----

// The middle axis of three moves last; the other two keep their order.
// A result nobody reads is not transposed back.
// CHECK-LABEL: func.func @topk_dim1
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x50x4xi32>) outs(%{{.*}} : tensor<2x4x50xi32>) permutation = [0, 2, 1]
// CHECK: sift.gpu_kernel = "topk"{{.*}} : (memref<8x50xi32>, memref<8x5xi32>, memref<8x5xi64>
// CHECK: %[[I:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x4x5xi64>) outs(%{{.*}} : tensor<2x5x4xi64>) permutation = [0, 2, 1]
// CHECK-NOT: linalg.transpose
// CHECK: return %[[I]]
func.func @topk_dim1(%x: tensor<2x50x4xi32>) -> tensor<2x5x4xi64> {
  %v, %i = sift.topk %x k(5) smallest {dim = 1 : i64} : tensor<2x50x4xi32> -> tensor<2x5x4xi32>, tensor<2x5x4xi64>
  return %i : tensor<2x5x4xi64>
}

// -----

// Dynamic extents: the transposes take their sizes from the input.
// CHECK-LABEL: func.func @cumsum_dim0_dynamic
// CHECK-DAG: %[[D0:.*]] = tensor.dim %{{.*}}, %c0
// CHECK-DAG: %[[D1:.*]] = tensor.dim %{{.*}}, %c1
// CHECK: tensor.empty(%[[D1]], %[[D0]]) : tensor<?x?xi64>
// CHECK: linalg.transpose
// CHECK: sift.gpu_kernel = "cumsum"
// CHECK: linalg.transpose
// CHECK-NOT: sift.cumsum
func.func @cumsum_dim0_dynamic(%x: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %r = sift.cumsum %x exclusive {dim = 0 : i64} : tensor<?x?xi64> -> tensor<?x?xi64>
  return %r : tensor<?x?xi64>
}

// -----

// argsort along dim -2 of a 3-D tensor, unsigned.
// CHECK-LABEL: func.func @argsort_neg2
// CHECK: permutation = [0, 2, 1]
// CHECK: sift.gpu_kernel = "argsort", unsigned
// CHECK: permutation = [0, 2, 1]
func.func @argsort_neg2(%x: tensor<3x40x2xi16>) -> tensor<3x40x2xi64> {
  %i = sift.argsort %x unsigned {dim = -2 : i64} : tensor<3x40x2xi16> -> tensor<3x40x2xi64>
  return %i : tensor<3x40x2xi64>
}

// -----

// A top-k with `valid` of dynamic extents: the keys masked past each
// line's length (element-wise), then the top-k kernel of them along the
// last axis (rows of a dynamic count), between transposes.
// CHECK-LABEL: func.func @topk_valid_dynamic
// CHECK: linalg.generic
// CHECK: linalg.transpose {{.*}} permutation = [0, 2, 1]
// CHECK: {k = 3 : i64, sift.gpu_kernel = "topk"} : (memref<?x7xf32>, memref<?x3xf32>, memref<?x3xi64>) -> ()
// CHECK: linalg.transpose {{.*}} permutation = [0, 2, 1]
// CHECK-NOT: sift.topk
func.func @topk_valid_dynamic(%x: tensor<?x7x?xf32>, %n: tensor<?x?xindex>) -> tensor<?x3x?xi64> {
  %v, %i = sift.topk %x k(3) valid(%n : tensor<?x?xindex>) {dim = 1 : i64} : tensor<?x7x?xf32> -> tensor<?x3x?xf32>, tensor<?x3x?xi64>
  return %i : tensor<?x3x?xi64>
}

// -----

// Left alone, with no transpose: a cumsum of f16 (no f16 scan kernel), a
// sort along an empty axis.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: linalg.transpose
// CHECK: sift.cumsum %{{.*}} {dim = 0 : i64} : tensor<8x4xf16> -> tensor<8x4xf16>
// CHECK: sift.sort %{{.*}} {dim = 0 : i64} : tensor<0x4xf32>
func.func @left_alone(%h: tensor<8x4xf16>, %e: tensor<0x4xf32>) -> (tensor<8x4xf16>, tensor<0x4xf32>) {
  %c = sift.cumsum %h {dim = 0 : i64} : tensor<8x4xf16> -> tensor<8x4xf16>
  %s, %si = sift.sort %e {dim = 0 : i64} : tensor<0x4xf32> -> tensor<0x4xf32>, tensor<0x4xi64>
  return %c, %s : tensor<8x4xf16>, tensor<0x4xf32>
}
