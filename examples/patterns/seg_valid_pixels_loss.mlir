// Segmentation: cross-entropy over the labelled pixels only, filtering the
// "void" label (255) by hand before the loss:
//   valid = labels != 255
//   loss = cross_entropy(logits[valid], labels[valid])
// Logits are [pixels, classes] (class dimension last).
func.func @valid_pixels_loss(%logits: tensor<4096x21xf32>,
                             %labels: tensor<4096xi64>) -> tensor<f32> {
  %void = arith.constant dense<255> : tensor<4096xi64>
  %valid = arith.cmpi ne, %labels, %void : tensor<4096xi64>
  %x = sift.masked_select %logits, %valid
      : tensor<4096x21xf32>, tensor<4096xi1> -> tensor<?x21xf32>
  %y = sift.masked_select %labels, %valid
      : tensor<4096xi64>, tensor<4096xi1> -> tensor<?xi64>
  %loss = sift.cross_entropy %x, %y reduction = mean
      : tensor<?x21xf32>, tensor<?xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
