// Two-stage filtering of detections: selections of selections, each inner
// selection bounding the outer one:
//   keep1 = scores > 0.05
//   s1 = scores[keep1]; b1 = boxes[keep1]
//   keep2 = s1 > 0.5
//   s2 = s1[keep2]; b2 = b1[keep2]; where = nonzero(keep2)
//   best = sort(s2, descending=True)[:min(3, len(s2))]
//   return b2, where, best
func.func @nested_selection(%boxes: tensor<300x4xf32>, %scores: tensor<300xf32>)
    -> (tensor<?x4xf32>, tensor<?xi64>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %t1 = arith.constant dense<0.05> : tensor<300xf32>
  %keep1 = arith.cmpf ogt, %scores, %t1 : tensor<300xf32>
  %s1 = sift.masked_select %scores, %keep1 : tensor<300xf32>, tensor<300xi1> -> tensor<?xf32>
  %b1 = sift.masked_select %boxes, %keep1 : tensor<300x4xf32>, tensor<300xi1> -> tensor<?x4xf32>
  %n1 = tensor.dim %s1, %c0 : tensor<?xf32>
  %half = arith.constant 0.5 : f32
  %t2 = tensor.splat %half[%n1] : tensor<?xf32>
  %keep2 = arith.cmpf ogt, %s1, %t2 : tensor<?xf32>
  %s2 = sift.masked_select %s1, %keep2 : tensor<?xf32>, tensor<?xi1> -> tensor<?xf32>
  %b2 = sift.masked_select %b1, %keep2 : tensor<?x4xf32>, tensor<?xi1> -> tensor<?x4xf32>
  %where = sift.nonzero %keep2 : tensor<?xi1> -> tensor<?xi64>
  %sorted, %order = sift.sort %s2 descending : tensor<?xf32> -> tensor<?xf32>, tensor<?xi64>
  %n2 = tensor.dim %s2, %c0 : tensor<?xf32>
  %k = arith.minsi %c3, %n2 : index
  %best = tensor.extract_slice %sorted[0] [%k] [1] : tensor<?xf32> to tensor<?xf32>
  return %b2, %where, %best : tensor<?x4xf32>, tensor<?xi64>, tensor<?xf32>
}
