// Detection post-processing, boxes arriving sorted by score: the centres
// of the kept boxes, the top kept box and its width:
//   kept = boxes[scores > 0.5]   # [n, 4]: x, y, w, h
//   centres = kept[:, :2]        # a slice of the trailing dimension
//   top = kept[0]                # a row (a rank-reducing slice)
//   top_w = kept[0, 2]           # one field, a 0-d tensor
// As in PyTorch, `kept[0]` needs a box above the threshold.
func.func @kept_box_fields(%boxes: tensor<64x4xf32>, %scores: tensor<64xf32>)
    -> (tensor<?x2xf32>, tensor<4xf32>, tensor<f32>) {
  %c0 = arith.constant 0 : index
  %thr = arith.constant dense<0.5> : tensor<64xf32>
  %keep = arith.cmpf ogt, %scores, %thr : tensor<64xf32>
  %kept = sift.masked_select %boxes, %keep : tensor<64x4xf32>, tensor<64xi1> -> tensor<?x4xf32>
  %n = tensor.dim %kept, %c0 : tensor<?x4xf32>
  %centres = tensor.extract_slice %kept[0, 0] [%n, 2] [1, 1] : tensor<?x4xf32> to tensor<?x2xf32>
  %top = tensor.extract_slice %kept[0, 0] [1, 4] [1, 1] : tensor<?x4xf32> to tensor<4xf32>
  %top_w = tensor.extract_slice %kept[0, 2] [1, 1] [1, 1] : tensor<?x4xf32> to tensor<f32>
  return %centres, %top, %top_w : tensor<?x2xf32>, tensor<4xf32>, tensor<f32>
}
