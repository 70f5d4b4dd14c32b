// The target-class logit of each valid anchor, as loss code picks it:
//   valid = labels >= 0
//   logits, labels = logits[valid], labels[valid]
//   picked = logits[arange(len(labels)), labels]    # a per-row pick
//   return picked, picked.mean()
// The pick is a gather with batch_dims = 1 whose leading (batch) dimension
// is data-dependent in both operands.
func.func @target_logits(%logits: tensor<256x5xf32>, %labels: tensor<256xi64>)
    -> (tensor<?xf32>, tensor<f32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0> : tensor<256xi64>
  %valid = arith.cmpi sge, %labels, %zero : tensor<256xi64>
  %l = sift.masked_select %logits, %valid
      : tensor<256x5xf32>, tensor<256xi1> -> tensor<?x5xf32>
  %y = sift.masked_select %labels, %valid
      : tensor<256xi64>, tensor<256xi1> -> tensor<?xi64>
  %n = tensor.dim %y, %c0 : tensor<?xi64>
  %y2 = tensor.expand_shape %y [[0, 1]] output_shape [%n, 1]
      : tensor<?xi64> into tensor<?x1xi64>
  %p2 = sift.gather %l[%y2] {batch_dims = 1 : i64}
      : tensor<?x5xf32>, tensor<?x1xi64> -> tensor<?x1xf32>
  %picked = tensor.collapse_shape %p2 [[0, 1]]
      : tensor<?x1xf32> into tensor<?xf32>
  %init = arith.constant dense<0.0> : tensor<f32>
  %sum = linalg.reduce ins(%picked : tensor<?xf32>) outs(%init : tensor<f32>)
      dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %ni = arith.index_cast %n : index to i64
  %nf = arith.sitofp %ni : i64 to f32
  %sv = tensor.extract %sum[] : tensor<f32>
  %mean = arith.divf %sv, %nf : f32
  %m = tensor.from_elements %mean : tensor<f32>
  return %picked, %m : tensor<?xf32>, tensor<f32>
}
