// Cascade filtering of detections: after a pre-filter, each stage keeps the
// boxes whose score passes its threshold, a selection of the previous
// stage's selection, carried by the loop:
//   keep = scores > 0.05
//   s, b = scores[keep], boxes[keep]
//   for t in thresholds:
//       keep = s > t
//       s, b = s[keep], b[keep]
//   return b, s, s.sum()
func.func @cascade_filter(%boxes: tensor<200x4xf32>, %scores: tensor<200xf32>,
                          %thresholds: tensor<3xf32>)
    -> (tensor<?x4xf32>, tensor<?xf32>, tensor<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %lo = arith.constant dense<0.05> : tensor<200xf32>
  %keep0 = arith.cmpf ogt, %scores, %lo : tensor<200xf32>
  %s0 = sift.masked_select %scores, %keep0 : tensor<200xf32>, tensor<200xi1> -> tensor<?xf32>
  %b0 = sift.masked_select %boxes, %keep0 : tensor<200x4xf32>, tensor<200xi1> -> tensor<?x4xf32>
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %s0, %b = %b0)
      -> (tensor<?xf32>, tensor<?x4xf32>) {
    %t = tensor.extract %thresholds[%i] : tensor<3xf32>
    %n = tensor.dim %s, %c0 : tensor<?xf32>
    %ts = tensor.splat %t[%n] : tensor<?xf32>
    %keep = arith.cmpf ogt, %s, %ts : tensor<?xf32>
    %s2 = sift.masked_select %s, %keep : tensor<?xf32>, tensor<?xi1> -> tensor<?xf32>
    %b2 = sift.masked_select %b, %keep : tensor<?x4xf32>, tensor<?xi1> -> tensor<?x4xf32>
    scf.yield %s2, %b2 : tensor<?xf32>, tensor<?x4xf32>
  }
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%r#0 : tensor<?xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%x: f32, %a: f32) {
      %y = arith.addf %x, %a : f32
      linalg.yield %y : f32
    }
  return %r#1, %r#0, %sum : tensor<?x4xf32>, tensor<?xf32>, tensor<f32>
}
