// The function the host example calls: y = k * x, elementwise, any length.
func.func @scale(%x: tensor<?xf32>, %k: f32) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%init : tensor<?xf32>) {
    ^bb0(%v: f32, %out: f32):
      %m = arith.mulf %v, %k : f32
      linalg.yield %m : f32
  } -> tensor<?xf32>
  return %y : tensor<?xf32>
}
