// Per-class statistics of the confident detections, a segment sum written
// with index_add_ / scatter_reduce / index_put_ on a selection:
//   idx = nonzero(scores > 0.5)
//   cls = labels[idx]; l = loss[idx]      (label -1: ignored, skipped)
//   counts = zeros(C).index_add_(0, cls, ones_like(cls))   (bincount)
//   sums = zeros(C).index_add_(0, cls, l)
//   worst = full(C, -inf).scatter_reduce(0, cls, l, "amax")
//   assigned = full(N, -1); assigned[idx] = cls
//   return counts, sums, worst, assigned
func.func @class_stats(%scores: tensor<512xf32>, %labels: tensor<512xi64>,
                       %loss: tensor<512xf32>)
    -> (tensor<21xi64>, tensor<21xf32>, tensor<21xf32>, tensor<512xi64>) {
  %c0 = arith.constant 0 : index
  %thr = arith.constant dense<0.5> : tensor<512xf32>
  %keep = arith.cmpf ogt, %scores, %thr : tensor<512xf32>
  %idx = sift.nonzero %keep : tensor<512xi1> -> tensor<?xi64>
  %cls = sift.gather %labels[%idx] : tensor<512xi64>, tensor<?xi64> -> tensor<?xi64>
  %l = sift.gather %loss[%idx] : tensor<512xf32>, tensor<?xi64> -> tensor<?xf32>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %one = arith.constant 1 : i64
  %ones = tensor.splat %one[%n] : tensor<?xi64>
  %zi = arith.constant dense<0> : tensor<21xi64>
  %counts = sift.scatter %ones into %zi[%cls] reduce(add)
      : tensor<?xi64>, tensor<?xi64> into tensor<21xi64>
  %zf = arith.constant dense<0.0> : tensor<21xf32>
  %sums = sift.scatter %l into %zf[%cls] reduce(add)
      : tensor<?xf32>, tensor<?xi64> into tensor<21xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<21xf32>
  %worst = sift.scatter %l into %ninf[%cls] reduce(max)
      : tensor<?xf32>, tensor<?xi64> into tensor<21xf32>
  %none = arith.constant dense<-1> : tensor<512xi64>
  %assigned = sift.scatter %cls into %none[%idx]
      : tensor<?xi64>, tensor<?xi64> into tensor<512xi64>
  return %counts, %sums, %worst, %assigned
      : tensor<21xi64>, tensor<21xf32>, tensor<21xf32>, tensor<512xi64>
}
