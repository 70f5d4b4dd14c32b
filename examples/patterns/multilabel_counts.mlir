// Multi-label detection: how many classes each valid anchor predicts, and
// how many valid anchors predict at least one:
//   probs = sigmoid(logits[labels != -1])          # [n, C]
//   per_anchor = (probs > 0.5).sum(dim=1)           # [n]
//   return per_anchor, (per_anchor > 0).sum()
func.func @multilabel_counts(%logits: tensor<256x5xf32>, %labels: tensor<256xi64>)
    -> (tensor<?xi64>, tensor<i64>) {
  %c0 = arith.constant 0 : index
  %ignore = arith.constant dense<-1> : tensor<256xi64>
  %valid = arith.cmpi ne, %labels, %ignore : tensor<256xi64>
  %x = sift.masked_select %logits, %valid : tensor<256x5xf32>, tensor<256xi1> -> tensor<?x5xf32>
  %n = tensor.dim %x, %c0 : tensor<?x5xf32>
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %ones = tensor.splat %one[%n] : tensor<?x5xf32>
  %halves = tensor.splat %half[%n] : tensor<?x5xf32>
  %neg = arith.negf %x : tensor<?x5xf32>
  %e = math.exp %neg : tensor<?x5xf32>
  %d = arith.addf %ones, %e : tensor<?x5xf32>
  %probs = arith.divf %ones, %d : tensor<?x5xf32>
  %pos = arith.cmpf ogt, %probs, %halves : tensor<?x5xf32>
  %per_anchor = sift.count %pos : tensor<?x5xi1> -> tensor<?xi64>
  %any = sift.count %per_anchor : tensor<?xi64> -> tensor<i64>
  return %per_anchor, %any : tensor<?xi64>, tensor<i64>
}
