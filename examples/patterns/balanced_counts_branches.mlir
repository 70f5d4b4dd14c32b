// The seed's sampler, its counts written as the branches people write
// (if/elif on the sizes of the selections), taking the first rows:
//   pos = nonzero(labels == 1); neg = nonzero(labels == 0)
//   if len(neg) < K/2:   np = min(K - len(neg), len(pos)); nn = len(neg)
//   elif len(pos) < K/2: np = len(pos); nn = min(K - len(pos), len(neg))
//   else:                np = nn = K/2
//   return pos[:np], neg[:nn]
func.func @balanced_counts(%labels: tensor<200xi64>)
    -> (tensor<?xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %half = arith.constant 16 : index
  %k = arith.constant 32 : index
  %one = arith.constant dense<1> : tensor<200xi64>
  %zero = arith.constant dense<0> : tensor<200xi64>
  %is_pos = arith.cmpi eq, %labels, %one : tensor<200xi64>
  %is_neg = arith.cmpi eq, %labels, %zero : tensor<200xi64>
  %pos = sift.nonzero %is_pos : tensor<200xi1> -> tensor<?xi64>
  %neg = sift.nonzero %is_neg : tensor<200xi1> -> tensor<?xi64>
  %lp = tensor.dim %pos, %c0 : tensor<?xi64>
  %ln = tensor.dim %neg, %c0 : tensor<?xi64>
  %neg_short = arith.cmpi slt, %ln, %half : index
  %n:2 = scf.if %neg_short -> (index, index) {
    %want = arith.subi %k, %ln : index
    %np = arith.minsi %want, %lp : index
    scf.yield %np, %ln : index, index
  } else {
    %pos_short = arith.cmpi slt, %lp, %half : index
    %m:2 = scf.if %pos_short -> (index, index) {
      %want = arith.subi %k, %lp : index
      %nn = arith.minsi %want, %ln : index
      scf.yield %lp, %nn : index, index
    } else {
      scf.yield %half, %half : index, index
    }
    scf.yield %m#0, %m#1 : index, index
  }
  %pos_idx = tensor.extract_slice %pos[0] [%n#0] [1] : tensor<?xi64> to tensor<?xi64>
  %neg_idx = tensor.extract_slice %neg[0] [%n#1] [1] : tensor<?xi64> to tensor<?xi64>
  return %pos_idx, %neg_idx : tensor<?xi64>, tensor<?xi64>
}
