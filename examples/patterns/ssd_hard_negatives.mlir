// Detection (SSD): hard negative mining. Keep the 3 * num_pos negatives
// with the largest loss:
//   pos = nonzero(labels > 0); neg = nonzero(labels == 0)
//   k = min(3 * len(pos), len(neg))
//   hard = sort(loss[neg], descending=True)[:k]
//   return hard.sum()
func.func @hard_negatives(%loss: tensor<1000xf32>, %labels: tensor<1000xi64>)
    -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %zeros = arith.constant dense<0> : tensor<1000xi64>
  %is_pos = arith.cmpi sgt, %labels, %zeros : tensor<1000xi64>
  %is_neg = arith.cmpi eq, %labels, %zeros : tensor<1000xi64>
  %pos = sift.nonzero %is_pos : tensor<1000xi1> -> tensor<?xi64>
  %neg = sift.nonzero %is_neg : tensor<1000xi1> -> tensor<?xi64>
  %np = tensor.dim %pos, %c0 : tensor<?xi64>
  %nn = tensor.dim %neg, %c0 : tensor<?xi64>
  %want = arith.muli %np, %c3 : index
  %k = arith.minsi %want, %nn : index
  %neg_loss = sift.gather %loss[%neg] : tensor<1000xf32>, tensor<?xi64> -> tensor<?xf32>
  %sorted, %order = sift.sort %neg_loss descending
      : tensor<?xf32> -> tensor<?xf32>, tensor<?xi64>
  %hard = tensor.extract_slice %sorted[0] [%k] [1] : tensor<?xf32> to tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%hard : tensor<?xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  return %sum : tensor<f32>
}
