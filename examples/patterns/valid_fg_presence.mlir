// Anchor statistics for a sampler's log: among the anchors a loss will see
// (label -1 is ignored), which of background and foreground occur, and how
// often:
//   fg = labels[labels != -1] > 0
//   values, counts = torch.unique(fg, return_counts=True)
// The selection is a boolean tensor: its padding has no key that sorts
// after both true and false, so staticize sorts the keys as i8.
func.func @valid_fg_presence(%labels: tensor<256xi64>) -> (tensor<?xi1>, tensor<?xi64>) {
  %ignore = arith.constant dense<-1> : tensor<256xi64>
  %zero = arith.constant dense<0> : tensor<256xi64>
  %valid = arith.cmpi ne, %labels, %ignore : tensor<256xi64>
  %fg = arith.cmpi sgt, %labels, %zero : tensor<256xi64>
  %seen = sift.masked_select %fg, %valid : tensor<256xi1>, tensor<256xi1> -> tensor<?xi1>
  %values, %counts = sift.unique %seen counts : tensor<?xi1> -> tensor<?xi1>, tensor<?xi64>
  return %values, %counts : tensor<?xi1>, tensor<?xi64>
}
