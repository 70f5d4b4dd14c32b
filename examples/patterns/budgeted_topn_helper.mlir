// Detections ranked by a helper function, as people factor their code, then
// the best `budget` of them, where the budget is read from the data (a
// per-image setting) and not clamped in the program: a slice lies within
// its source, so at most all 300.
//   def ranked(scores): return argsort(scores, descending=True)
//   top = ranked(scores)[:int(budget)]
//   return boxes[top], scores[top]
func.func private @ranked(%scores: tensor<300xf32>) -> tensor<300xi64> {
  %order = sift.argsort %scores descending : tensor<300xf32> -> tensor<300xi64>
  return %order : tensor<300xi64>
}

func.func @budgeted_topn(%boxes: tensor<300x4xf32>, %scores: tensor<300xf32>,
                         %budget: tensor<i64>)
    -> (tensor<?x4xf32>, tensor<?xf32>) {
  %order = func.call @ranked(%scores) : (tensor<300xf32>) -> tensor<300xi64>
  %b = tensor.extract %budget[] : tensor<i64>
  %k = arith.index_cast %b : i64 to index
  %top = tensor.extract_slice %order[0] [%k] [1]
      : tensor<300xi64> to tensor<?xi64>
  %tb = sift.gather %boxes[%top]
      : tensor<300x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  %ts = sift.gather %scores[%top]
      : tensor<300xf32>, tensor<?xi64> -> tensor<?xf32>
  return %tb, %ts : tensor<?x4xf32>, tensor<?xf32>
}
