// Detection post-processing: drop low scores, then keep the best N=100 in
// descending score order:
//   keep = scores > 0.05
//   boxes, scores = boxes[keep], scores[keep]
//   order = argsort(scores, descending=True)[:min(len(scores), 100)]
//   return boxes[order], scores[order]
func.func @postprocess(%boxes: tensor<2000x4xf32>, %scores: tensor<2000xf32>)
    -> (tensor<?x4xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c100 = arith.constant 100 : index
  %thr = arith.constant dense<0.05> : tensor<2000xf32>
  %keep = arith.cmpf ogt, %scores, %thr : tensor<2000xf32>
  %b = sift.masked_select %boxes, %keep
      : tensor<2000x4xf32>, tensor<2000xi1> -> tensor<?x4xf32>
  %s = sift.masked_select %scores, %keep
      : tensor<2000xf32>, tensor<2000xi1> -> tensor<?xf32>
  %order = sift.argsort %s descending : tensor<?xf32> -> tensor<?xi64>
  %n = tensor.dim %s, %c0 : tensor<?xf32>
  %k = arith.minsi %n, %c100 : index
  %top = tensor.extract_slice %order[0] [%k] [1] : tensor<?xi64> to tensor<?xi64>
  %tb = sift.gather %b[%top] : tensor<?x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  %ts = sift.gather %s[%top] : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>
  return %tb, %ts : tensor<?x4xf32>, tensor<?xf32>
}
