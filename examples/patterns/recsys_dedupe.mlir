// Recommendation: look up each distinct item id of a batch once, and keep
// how often it occurs and where each id went:
//   u, inv, cnt = unique(ids, return_inverse=True, return_counts=True)
//   emb = table[u]
func.func @dedupe(%ids: tensor<256xi64>, %table: tensor<1000x8xf32>)
    -> (tensor<?x8xf32>, tensor<?xi64>, tensor<256xi64>) {
  %u, %inv, %cnt = sift.unique %ids inverse counts
      : tensor<256xi64> -> tensor<?xi64>, tensor<256xi64>, tensor<?xi64>
  %emb = sift.gather %table[%u] : tensor<1000x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  return %emb, %cnt, %inv : tensor<?x8xf32>, tensor<?xi64>, tensor<256xi64>
}
