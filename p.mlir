func.func @f(%x: tensor<2x9000xi8>) -> (tensor<2x4097xi8>, tensor<2x4097xi64>) {
  %v, %i = sift.topk %x k(4097) smallest : tensor<2x9000xi8> -> tensor<2x4097xi8>, tensor<2x4097xi64>
  return %v, %i : tensor<2x4097xi8>, tensor<2x4097xi64>
}