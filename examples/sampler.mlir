// The balanced sampler of the seed article, written the way people write it:
// nonzero, arithmetic on the sizes, slices of computed length, randperm,
// concat and gathers. Every tensor in the middle has a data-dependent size.
//
//   pos = nonzero(labels == 1); neg = nonzero(labels == 0)
//   num_pos = min(len(pos), K/2); num_neg = min(len(neg), K/2)
//   if num_neg < K/2: num_pos = K - num_neg   (fill up with positives)
//   elif num_pos < K/2: num_neg = K - num_pos (fill up with negatives)
//   pos_idx = pos[randperm(len(pos))[:num_pos]]
//   neg_idx = neg[randperm(len(neg))[:num_neg]]
//   idx = concat(pos_idx, neg_idx)[randperm(len)]
//   return input[idx], labels[idx]
//
// N = 10000 items with 16 features each, K = 1000 samples. Python's slice
// `[:num_pos]` stops at the end of the tensor; MLIR's slice does not, so the
// program clamps explicitly (min with the length). When fewer than K items
// are eligible the result is shorter than K.
//
// Try: tensor-opt examples/sampler.mlir
//      tensor-opt examples/sampler.mlir --sift-verify-static  (lists what is
//      still data-dependent)

func.func @sampler(%input: tensor<10000x16xf32>, %labels: tensor<10000xi64>,
                   %seed: i64) -> (tensor<?x16xf32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %half = arith.constant 500 : index
  %k = arith.constant 1000 : index
  %stream_neg = arith.constant 1 : i64
  %stream_mix = arith.constant 2 : i64

  // pos = nonzero(labels == 1); neg = nonzero(labels == 0)
  %ones = arith.constant dense<1> : tensor<10000xi64>
  %zeros = arith.constant dense<0> : tensor<10000xi64>
  %is_pos = arith.cmpi eq, %labels, %ones : tensor<10000xi64>
  %is_neg = arith.cmpi eq, %labels, %zeros : tensor<10000xi64>
  %pos = sift.nonzero %is_pos : tensor<10000xi1> -> tensor<?xi64>
  %neg = sift.nonzero %is_neg : tensor<10000xi1> -> tensor<?xi64>
  %len_pos = tensor.dim %pos, %c0 : tensor<?xi64>
  %len_neg = tensor.dim %neg, %c0 : tensor<?xi64>

  // num_pos = min(len(pos), K/2); num_neg = min(len(neg), K/2)
  %num_pos0 = arith.minui %len_pos, %half : index
  %num_neg0 = arith.minui %len_neg, %half : index

  // if num_neg < K/2: num_pos = K - num_neg
  // elif num_pos < K/2: num_neg = K - num_pos
  %neg_short = arith.cmpi ult, %num_neg0, %half : index
  %pos_short = arith.cmpi ult, %num_pos0, %half : index
  %fill_pos = arith.subi %k, %num_neg0 : index
  %fill_neg = arith.subi %k, %num_pos0 : index
  %num_pos1 = arith.select %neg_short, %fill_pos, %num_pos0 : index
  %num_neg1 = arith.select %pos_short, %fill_neg, %num_neg0 : index
  %num_neg2 = arith.select %neg_short, %num_neg0, %num_neg1 : index
  // The slices below stop at the end, as Python's do.
  %num_pos = arith.minui %num_pos1, %len_pos : index
  %num_neg = arith.minui %num_neg2, %len_neg : index

  // pos_idx = pos[randperm(len(pos))[:num_pos]]
  %perm_pos = sift.randperm %len_pos, %seed : tensor<?xi64>
  %take_pos = tensor.extract_slice %perm_pos[0] [%num_pos] [1]
      : tensor<?xi64> to tensor<?xi64>
  %pos_idx = sift.gather %pos[%take_pos]
      : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>

  // neg_idx = neg[randperm(len(neg))[:num_neg]]
  %perm_neg = sift.randperm %len_neg, %seed offset %stream_neg : tensor<?xi64>
  %take_neg = tensor.extract_slice %perm_neg[0] [%num_neg] [1]
      : tensor<?xi64> to tensor<?xi64>
  %neg_idx = sift.gather %neg[%take_neg]
      : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>

  // idx = concat(pos_idx, neg_idx)[randperm(len)]
  %both = tensor.concat dim(0) %pos_idx, %neg_idx
      : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  %total = arith.addi %num_pos, %num_neg : index
  %mix = sift.randperm %total, %seed offset %stream_mix : tensor<?xi64>
  %idx = sift.gather %both[%mix] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>

  // return input[idx], labels[idx]
  %feats = sift.gather %input[%idx]
      : tensor<10000x16xf32>, tensor<?xi64> -> tensor<?x16xf32>
  %labs = sift.gather %labels[%idx]
      : tensor<10000xi64>, tensor<?xi64> -> tensor<?xi64>
  return %feats, %labs : tensor<?x16xf32>, tensor<?xi64>
}
