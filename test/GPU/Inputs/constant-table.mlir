// A tensor constant read by an elementwise kernel (test/GPU/constants.mlir).
func.func @add_table(%a: tensor<32x4xf32>) -> tensor<32x4xf32> {
  %t = arith.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %b = tensor.collapse_shape %t [[0, 1]] : tensor<1x4xf32> into tensor<4xf32>
  %e = tensor.empty() : tensor<32x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<32x4xf32>, tensor<4xf32>) outs(%e : tensor<32x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  -> tensor<32x4xf32>
  return %r : tensor<32x4xf32>
}
