// Detections with a fallback: keep the confident boxes; if there are none,
// take the first ten of a looser threshold instead. The selection is a
// value of the branch, as people write it:
//   strong = scores > 0.5
//   if strong.any():
//       idx = strong.nonzero().squeeze(1)
//   else:
//       idx = (scores > 0.05).nonzero().squeeze(1)[:10]
//   return boxes[idx], scores[idx], idx
func.func @fallback_selection(%boxes: tensor<200x4xf32>, %scores: tensor<200xf32>)
    -> (tensor<?x4xf32>, tensor<?xf32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %zero = arith.constant 0 : i64
  %hi = arith.constant dense<0.5> : tensor<200xf32>
  %lo = arith.constant dense<0.05> : tensor<200xf32>
  %strong = arith.cmpf ogt, %scores, %hi : tensor<200xf32>
  %num_strong = sift.count %strong : tensor<200xi1> -> tensor<i64>
  %ns = tensor.extract %num_strong[] : tensor<i64>
  %any = arith.cmpi sgt, %ns, %zero : i64
  %idx = scf.if %any -> tensor<?xi64> {
    %i = sift.nonzero %strong : tensor<200xi1> -> tensor<?xi64>
    scf.yield %i : tensor<?xi64>
  } else {
    %weak = arith.cmpf ogt, %scores, %lo : tensor<200xf32>
    %i = sift.nonzero %weak : tensor<200xi1> -> tensor<?xi64>
    %n = tensor.dim %i, %c0 : tensor<?xi64>
    %k = arith.minsi %n, %c10 : index
    %first = tensor.extract_slice %i[0] [%k] [1] : tensor<?xi64> to tensor<?xi64>
    scf.yield %first : tensor<?xi64>
  }
  %b = sift.gather %boxes[%idx] : tensor<200x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  %s = sift.gather %scores[%idx] : tensor<200xf32>, tensor<?xi64> -> tensor<?xf32>
  return %b, %s, %idx : tensor<?x4xf32>, tensor<?xf32>, tensor<?xi64>
}
