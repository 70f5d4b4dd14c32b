// Upstream linalg.transpose parser crash (the `permutation` list, as
// llvm/llvm-project#132747 for `dimensions`): the fuzzer must skip it
// (hasMalformedDimensions).
func.func @f(%ei: tensor<2x8xi64>) -> tensor<8x2xi64> {
  %e0 = tensor.empty() : tensor<8x2xi64>
  %t = linalg.transpose ins(%ei : tensor<2x8xi64>) outs(%e0 : tensor<8x2xi64>) permutation =  : tensor<2x8xi64>
  return %t : tensor<8x2xi64>
}
