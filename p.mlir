func.func @f(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xi64>) {
  %v, %i = sift.sort %x descending : tensor<?x?xf32> -> tensor<?x?xf32>, tensor<?x?xi64>
  return %v, %i : tensor<?x?xf32>, tensor<?x?xi64>
}