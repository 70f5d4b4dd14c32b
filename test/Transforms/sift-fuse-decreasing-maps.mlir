// --sift-fuse keeps linalg ops whose indexing maps decrease (a reversed
// read, `(d0, d1, d2) -> (d0, d1, 2 - d2)`: torch.flip) out of kernels.
// Upstream's tiling slices an operand at the images of the tile's first
// and last points, which for a decreasing map is one element of the
// untiled dimension (a 1x4x1 slice of the 1x4x3 rows here), and the op
// would read garbage. The gather still forms its row kernel; the flip,
// as a consumer (@flip_after) or as a producer (@flip_before), runs whole.
//
// RUN: tensor-opt %s --sift-fuse | FileCheck %s

#rev = affine_map<(d0, d1, d2) -> (d0, d1, -d2 + 2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// CHECK-LABEL: func.func @flip_after
// CHECK: %[[K:.*]] = scf.forall (%{{.*}}) in (2)
// CHECK: sift.gather {{.*}} : tensor<1x4x3xf32>, tensor<1x4xi64> -> tensor<1x4x3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[K]] : tensor<2x4x3xf32>) outs(%{{.*}} : tensor<2x4x3xf32>)
// CHECK-NOT: tensor<1x4x1xf32>
func.func @flip_after(%x: tensor<2x4x3xf32>, %i: tensor<2x4xi64>)
    -> tensor<2x4x3xf32> {
  %g = sift.gather %x[%i] {batch_dims = 1 : i64}
      : tensor<2x4x3xf32>, tensor<2x4xi64> -> tensor<2x4x3xf32>
  %e = tensor.empty() : tensor<2x4x3xf32>
  %r = linalg.generic {indexing_maps = [#rev, #id],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g : tensor<2x4x3xf32>) outs(%e : tensor<2x4x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x4x3xf32>
  return %r : tensor<2x4x3xf32>
}

// CHECK-LABEL: func.func @flip_before
// CHECK: %[[F:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4x3xf32>)
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: tensor.extract_slice %[[F]]{{.*}} to tensor<1x4x3xf32>
// CHECK: sift.gather {{.*}} : tensor<1x4x3xf32>, tensor<1x4xi64> -> tensor<1x4x3xf32>
// CHECK-NOT: tensor<1x4x1xf32>
func.func @flip_before(%x: tensor<2x4x3xf32>, %i: tensor<2x4xi64>)
    -> tensor<2x4x3xf32> {
  %e = tensor.empty() : tensor<2x4x3xf32>
  %r = linalg.generic {indexing_maps = [#rev, #id],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x4x3xf32>) outs(%e : tensor<2x4x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x4x3xf32>
  %g = sift.gather %r[%i] {batch_dims = 1 : i64}
      : tensor<2x4x3xf32>, tensor<2x4xi64> -> tensor<2x4x3xf32>
  return %g : tensor<2x4x3xf32>
}
