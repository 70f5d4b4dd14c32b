// One case per verifier rule of every sift op.
// RUN: tensor-opt %s -split-input-file -verify-diagnostics

func.func @nonzero_rank0(%m: tensor<i1>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expects an input of rank >= 1}}
  %0 = sift.nonzero %m : tensor<i1> -> tensor<?xi64>
  return
}

// -----

func.func @nonzero_wrong_result(%m: tensor<4x4xi1>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<?x2xi64>' are incompatible with return type(s) of operation 'tensor<?xi64>'}}
  %0 = sift.nonzero %m : tensor<4x4xi1> -> tensor<?xi64>
  return
}

// -----

func.func @nonzero_index_input(%m: tensor<4xindex>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of signless integer or floating-point values}}
  %0 = sift.nonzero %m : tensor<4xindex> -> tensor<?xi64>
  return
}

// -----

func.func @unique_result_count(%x: tensor<8xi64>) {
  // expected-error @+1 {{expected 3 result types (values, inverse, counts), got 2}}
  %0:2 = sift.unique %x inverse counts : tensor<8xi64> -> tensor<?xi64>, tensor<8xi64>
  return
}

// -----

func.func @unique_values_rank(%x: tensor<8xi64>) {
  // expected-error @+1 {{expects 1-D unique values, got 'tensor<?x1xi64>'}}
  %0 = sift.unique %x : tensor<8xi64> -> tensor<?x1xi64>
  return
}

// -----

func.func @unique_values_type(%x: tensor<8xi64>) {
  // expected-error @+1 {{expects unique values of the input's element type 'i64', got 'i32'}}
  %0 = sift.unique %x : tensor<8xi64> -> tensor<?xi32>
  return
}

// -----

func.func @unique_inverse_shape(%x: tensor<2x4xi64>) {
  // expected-error @+1 {{expects inverse indices of the input's shape, got 'tensor<8xi64>'}}
  %0:2 = sift.unique %x inverse : tensor<2x4xi64> -> tensor<?xi64>, tensor<8xi64>
  return
}

// -----

func.func @unique_counts_shape(%x: tensor<8xi64>) {
  // expected-error @+1 {{expects 1-D counts with one per unique value, got 'tensor<?x2xi64>'}}
  %0:2 = sift.unique %x counts : tensor<8xi64> -> tensor<?xi64>, tensor<?x2xi64>
  return
}

// -----

func.func @masked_select_rank0_mask(%x: tensor<8xf32>, %m: tensor<i1>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expects a mask of rank >= 1}}
  %0 = sift.masked_select %x, %m : tensor<8xf32>, tensor<i1> -> tensor<?xf32>
  return
}

// -----

func.func @masked_select_mask_rank(%x: tensor<8xf32>, %m: tensor<8x2xi1>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expects a mask of rank <= the input's (1), got 2}}
  %0 = sift.masked_select %x, %m : tensor<8xf32>, tensor<8x2xi1> -> tensor<?xf32>
  return
}

// -----

func.func @masked_select_mask_shape(%x: tensor<8x4xf32>, %m: tensor<7xi1>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{mask dimension 0 (7) does not match input dimension 0 (8)}}
  %0 = sift.masked_select %x, %m : tensor<8x4xf32>, tensor<7xi1> -> tensor<?x4xf32>
  return
}

// -----

func.func @masked_select_mask_type(%x: tensor<8xf32>, %m: tensor<8xi8>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 1-bit signless integer values}}
  %0 = sift.masked_select %x, %m : tensor<8xf32>, tensor<8xi8> -> tensor<?xf32>
  return
}

// -----

func.func @randperm_negative(%seed: i64) {
  %n = arith.constant -3 : index
  // expected-error @+1 {{expects a non-negative n, got -3}}
  %0 = sift.randperm %n, %seed : tensor<?xi64>
  return
}

// -----

func.func @randperm_prefix_rank0(%n: index, %seed: i64) {
  // expected-error @+1 {{expects a result of rank >= 1, got 'tensor<i64>'}}
  %0 = sift.randperm_prefix %n, %seed : (index, i64) -> tensor<i64>
  return
}

// -----

func.func @randperm_prefix_n_shape(%n: tensor<3xindex>, %seed: i64) {
  // expected-error @+1 {{expects `n` to be an index or a tensor of one index per line, of shape [4], got 'tensor<3xindex>'}}
  %0 = sift.randperm_prefix %n, %seed : (tensor<3xindex>, i64) -> tensor<4x8xi64>
  return
}

// -----

func.func @randperm_prefix_limit_shape(%n: index, %l: tensor<8xindex>, %seed: i64) {
  // expected-error @+1 {{expects `limit` to be an index or a tensor of one index per line, of shape [], got 'tensor<8xindex>'}}
  %0 = sift.randperm_prefix %n, %seed limit %l : (index, i64, tensor<8xindex>) -> tensor<8xi64>
  return
}

// -----

func.func @randperm_prefix_seed_shape(%n: index, %seeds: tensor<8xi64>) {
  // expected-error @+1 {{expects a per-row seed whose shape is a prefix of the lines [4], got 'tensor<8xi64>'}}
  %0 = sift.randperm_prefix %n, %seeds : (index, tensor<8xi64>) -> tensor<4x8xi64>
  return
}

// -----

func.func @randperm_prefix_dynamic(%n: index, %seed: i64) {
  // expected-error @+1 {{must be statically shaped tensor of 64-bit signless integer values}}
  %0 = sift.randperm_prefix %n, %seed : (index, i64) -> tensor<?xi64>
  return
}

// -----

func.func @randperm_size_mismatch(%seed: i64) {
  %n = arith.constant 8 : index
  // expected-error @+1 {{result has 4 elements but n is 8}}
  %0 = sift.randperm %n, %seed : tensor<4xi64>
  return
}

// -----

func.func @randperm_static_dynamic_n(%n: index, %seed: i64) {
  // expected-error @+1 {{expects a dynamic result size when n is not a constant, got 'tensor<4xi64>'}}
  %0 = sift.randperm %n, %seed : tensor<4xi64>
  return
}

// -----

func.func @randperm_result_type(%n: index, %seed: i64) {
  // expected-error @+1 {{result #0 must be 1D tensor of 64-bit signless integer values}}
  %0 = sift.randperm %n, %seed : tensor<?xi32>
  return
}

// -----

func.func @count_rank0(%m: tensor<i1>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expects an input of rank >= 1}}
  %0 = sift.count %m : tensor<i1> -> tensor<i64>
  return
}

// -----

func.func @count_result(%m: tensor<4x8xi1>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<4xi64>' are incompatible}}
  %0 = sift.count %m : tensor<4x8xi1> -> tensor<i64>
  return
}

// -----

func.func @compact_i32_dynamic_line(%m: tensor<4x?xi1>) {
  // expected-error @+1 {{has i32 indices, which need mask lines of a static length below 2^31, got 'tensor<4x?xi1>'}}
  %0:2 = sift.compact %m : tensor<4x?xi1> -> tensor<4x8xi32>, tensor<4xi64>
  return
}

// -----

func.func @compact_i32_long_line(%m: tensor<2147483648xi1>) {
  // expected-error @+1 {{has i32 indices, which need mask lines of a static length below 2^31}}
  %0:2 = sift.compact %m : tensor<2147483648xi1> -> tensor<8xi32>, tensor<i64>
  return
}

// -----

func.func @compact_i16_indices(%m: tensor<8xi1>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0:2 = sift.compact %m : tensor<8xi1> -> tensor<8xi16>, tensor<i64>
  return
}

// -----

func.func @compact_rank0(%m: tensor<i1>) {
  // expected-error @+1 {{expects a mask of rank >= 1}}
  %0:2 = sift.compact %m : tensor<i1> -> tensor<i64>, tensor<i64>
  return
}

// -----

func.func @compact_indices_rank(%m: tensor<4x8xi1>) {
  // expected-error @+1 {{expects indices of the mask's rank (2), got 'tensor<8xi64>'}}
  %0:2 = sift.compact %m : tensor<4x8xi1> -> tensor<8xi64>, tensor<4xi64>
  return
}

// -----

func.func @compact_dynamic_width(%m: tensor<8xi1>) {
  // expected-error @+1 {{expects a static width for the indices, got 'tensor<?xi64>'}}
  %0:2 = sift.compact %m : tensor<8xi1> -> tensor<?xi64>, tensor<i64>
  return
}

// -----

func.func @compact_batch(%m: tensor<4x8xi1>) {
  // expected-error @+1 {{indices batch dimension 0 (3) does not match the mask's (4)}}
  %0:2 = sift.compact %m : tensor<4x8xi1> -> tensor<3x8xi64>, tensor<4xi64>
  return
}

// -----

func.func @compact_count(%m: tensor<4x8xi1>) {
  // expected-error @+1 {{expects a count of the mask's batch shape, got 'tensor<i64>'}}
  %0:2 = sift.compact %m : tensor<4x8xi1> -> tensor<4x8xi64>, tensor<i64>
  return
}

// -----

func.func @cumsum_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{expects an input of rank >= 1}}
  %0 = sift.cumsum %x : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @cumsum_dim(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{dim 2 is out of range for rank 2 (expected -2 <= dim < 2)}}
  %0 = sift.cumsum %x {dim = 2 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @cumsum_shape(%x: tensor<8xf32>) {
  // expected-error @+1 {{expects a result of the input's shape, got 'tensor<4xf32>'}}
  %0 = sift.cumsum %x : tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @cumsum_mask_to_i1(%m: tensor<8xi1>) {
  // expected-error @+1 {{expects an integer result wider than i1 for a mask input, got 'i1'}}
  %0 = sift.cumsum %m : tensor<8xi1> -> tensor<8xi1>
  return
}

// -----

func.func @cumsum_type(%x: tensor<8xf32>) {
  // expected-error @+1 {{expects the result element type 'f32' of the input, got 'f64'}}
  %0 = sift.cumsum %x : tensor<8xf32> -> tensor<8xf64>
  return
}

// -----

func.func @sort_dim(%x: tensor<8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{dim -2 is out of range for rank 1}}
  %0:2 = sift.sort %x {dim = -2 : i64} : tensor<8xf32> -> tensor<8xf32>, tensor<8xi64>
  return
}

// -----

func.func @sort_rank0(%x: tensor<f32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expects an input of rank >= 1}}
  %0:2 = sift.sort %x : tensor<f32> -> tensor<f32>, tensor<i64>
  return
}

// -----

func.func @sort_result(%x: tensor<8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<8xf32>', 'tensor<8xi64>' are incompatible with return type(s) of operation 'tensor<4xf32>', 'tensor<8xi64>'}}
  %0:2 = sift.sort %x : tensor<8xf32> -> tensor<4xf32>, tensor<8xi64>
  return
}

// -----

func.func @argsort_dim(%x: tensor<8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{dim 1 is out of range for rank 1}}
  %0 = sift.argsort %x {dim = 1 : i64} : tensor<8xf32> -> tensor<8xi64>
  return
}

// -----

func.func @argsort_unsigned_float(%x: tensor<8xf32>) {
  // expected-error @+1 {{orders `unsigned` only integers, got 'f32'}}
  %0 = sift.argsort %x unsigned : tensor<8xf32> -> tensor<8xi64>
  return
}

// -----

func.func @topk_unsigned_float(%x: tensor<8xf16>) {
  // expected-error @+1 {{orders `unsigned` only integers, got 'f16'}}
  %0:2 = sift.topk %x k(2) unsigned : tensor<8xf16> -> tensor<2xf16>, tensor<2xi64>
  return
}

// -----

func.func @topk_negative_k(%x: tensor<8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expects k >= 0, got -1}}
  %0:2 = sift.topk %x k(-1) : tensor<8xf32> -> tensor<8xf32>, tensor<8xi64>
  return
}

// -----

func.func @topk_k_too_large(%x: tensor<8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{k (9) exceeds the size (8) of dimension 0}}
  %0:2 = sift.topk %x k(9) : tensor<8xf32> -> tensor<9xf32>, tensor<9xi64>
  return
}

// -----

func.func @topk_dim(%x: tensor<8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{dim 3 is out of range for rank 1}}
  %0:2 = sift.topk %x k(2) {dim = 3 : i64} : tensor<8xf32> -> tensor<2xf32>, tensor<2xi64>
  return
}

// -----

func.func @topk_valid_shape(%x: tensor<8x64xf32>, %n: tensor<64xindex>) {
  // expected-error @+1 {{expects `valid` to be an index or a tensor of one index per line, 'tensor<8xindex>' (the input's shape without dimension 1), got 'tensor<64xindex>'}}
  %0:2 = sift.topk %x k(2) valid(%n : tensor<64xindex>) : tensor<8x64xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
  return
}

// -----

func.func @topk_limit_shape(%x: tensor<8x64xf32>, %n: tensor<64xindex>) {
  // expected-error @+1 {{expects `limit` to be an index or a tensor of one index per line, 'tensor<8xindex>' (the input's shape without dimension 1), got 'tensor<64xindex>'}}
  %0:2 = sift.topk %x k(2) limit(%n : tensor<64xindex>) {dim = 1 : i64} : tensor<8x64xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
  return
}

// -----

func.func @topk_limit_type(%x: tensor<8xf32>, %n: i32) {
  // expected-error @+1 {{operand #1 must be index or ranked tensor of index values}}
  %0:2 = sift.topk %x k(2) limit(%n : i32) : tensor<8xf32> -> tensor<2xf32>, tensor<2xi64>
  return
}

// -----

func.func @topk_valid_type(%x: tensor<8xf32>, %n: i64) {
  // expected-error @+1 {{operand #1 must be index or ranked tensor of index values}}
  %0:2 = sift.topk %x k(2) valid(%n : i64) : tensor<8xf32> -> tensor<2xf32>, tensor<2xi64>
  return
}

// -----

func.func @topk_result(%x: tensor<8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<2xf32>', 'tensor<2xi64>' are incompatible}}
  %0:2 = sift.topk %x k(2) : tensor<8xf32> -> tensor<8xf32>, tensor<8xi64>
  return
}

// -----

func.func @gather_batch_dims(%x: tensor<8xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{batch_dims (1) must be in [0, source rank 1)}}
  %0 = sift.gather %x[%i] {batch_dims = 1 : i64} : tensor<8xf32>, tensor<4xi64> -> tensor<4xf32>
  return
}

// -----

func.func @gather_indices_rank(%x: tensor<2x3x8xf32>, %i: tensor<2xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expects indices of rank >= batch_dims (2), got rank 1}}
  %0 = sift.gather %x[%i] {batch_dims = 2 : i64} : tensor<2x3x8xf32>, tensor<2xi64> -> tensor<2xf32>
  return
}

// -----

func.func @gather_batch_mismatch(%x: tensor<2x8xf32>, %i: tensor<3x4xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{batch dimension 0 of the indices (3) does not match the source's (2)}}
  %0 = sift.gather %x[%i] {batch_dims = 1 : i64} : tensor<2x8xf32>, tensor<3x4xi64> -> tensor<3x4xf32>
  return
}

// -----

func.func @gather_fill_type(%x: tensor<8xf32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{fill value type 'i64' does not match the source element type 'f32'}}
  %0 = sift.gather %x[%i] {fill = 0 : i64} : tensor<8xf32>, tensor<4xi64> -> tensor<4xf32>
  return
}

// -----

func.func @gather_result(%x: tensor<8x2xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<4x2xf32>' are incompatible}}
  %0 = sift.gather %x[%i] : tensor<8x2xf32>, tensor<4xi64> -> tensor<4xf32>
  return
}

// -----

func.func @gather_index_type(%x: tensor<8xf32>, %i: tensor<4xi32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 64-bit signless integer values}}
  %0 = sift.gather %x[%i] : tensor<8xf32>, tensor<4xi32> -> tensor<4xf32>
  return
}

// -----

func.func @random_uniform_dynamic(%seed: i64) {
  // expected-error @+1 {{expects a static result shape, got 'tensor<?xf32>'}}
  %0 = sift.random_uniform %seed : tensor<?xf32>
  return
}

// -----

func.func @random_uniform_int(%seed: i64) {
  // expected-error @+1 {{result #0 must be ranked tensor of floating-point values}}
  %0 = sift.random_uniform %seed : tensor<4xi32>
  return
}

// -----

func.func @random_bits_dynamic(%seed: i64) {
  // expected-error @+1 {{expects a static result shape, got 'tensor<?xi32>'}}
  %0 = sift.random_bits %seed : tensor<?xi32>
  return
}

// -----

func.func @random_bits_width(%seed: i64) {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = sift.random_bits %seed : tensor<4xi16>
  return
}

// -----

func.func @sample_balanced_rank0(%l: tensor<i64>, %seed: i64) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expects labels of rank >= 1}}
  %0:2 = sift.sample_balanced %l, %seed {num_samples = 4 : i64} : tensor<i64> -> tensor<4xi64>, tensor<i64>
  return
}

// -----

func.func @sample_balanced_num_samples(%l: tensor<8xi64>, %seed: i64) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expects num_samples >= 0, got -4}}
  %0:2 = sift.sample_balanced %l, %seed {num_samples = -4 : i64} : tensor<8xi64> -> tensor<4xi64>, tensor<i64>
  return
}

// -----

func.func @sample_balanced_fraction(%l: tensor<8xi64>, %seed: i64) {
  // expected-error @+1 {{expects positive_fraction in [0, 1], got 1.5}}
  %0:2 = sift.sample_balanced %l, %seed {num_samples = 4 : i64, positive_fraction = 1.5 : f64} : tensor<8xi64> -> tensor<4xi64>, tensor<i64>
  return
}

// -----

func.func @sample_balanced_labels(%l: tensor<8xi64>, %seed: i64) {
  // expected-error @+1 {{ignore_label and negative_label must differ (both 0)}}
  %0:2 = sift.sample_balanced %l, %seed {num_samples = 4 : i64, ignore_label = 0 : i64} : tensor<8xi64> -> tensor<4xi64>, tensor<i64>
  return
}

// -----

func.func @sample_balanced_result(%l: tensor<2x8xi64>, %seed: i64) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<2x4xi64>', 'tensor<2xi64>' are incompatible}}
  %0:2 = sift.sample_balanced %l, %seed {num_samples = 4 : i64} : tensor<2x8xi64> -> tensor<4xi64>, tensor<i64>
  return
}

// -----

func.func @cross_entropy_rank0(%x: tensor<f32>, %t: tensor<i64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expects logits of rank >= 1 ([N..., C])}}
  %0 = sift.cross_entropy %x, %t reduction = mean : tensor<f32>, tensor<i64> -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_targets_rank(%x: tensor<4x10xf32>, %t: tensor<4x10xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expects targets of rank 1 (the logits' without the class dimension), got 2}}
  %0 = sift.cross_entropy %x, %t reduction = mean : tensor<4x10xf32>, tensor<4x10xi64> -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_targets_shape(%x: tensor<4x10xf32>, %t: tensor<5xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{targets dimension 0 (5) does not match the logits' (4)}}
  %0 = sift.cross_entropy %x, %t reduction = mean : tensor<4x10xf32>, tensor<5xi64> -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_weight_shape(%x: tensor<4x10xf32>, %t: tensor<4xi64>, %w: tensor<9xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expects a weight of shape [10] (one per class), got 'tensor<9xf32>'}}
  %0 = sift.cross_entropy %x, %t weight(%w : tensor<9xf32>) reduction = mean : tensor<4x10xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_weight_type(%x: tensor<4x10xf32>, %t: tensor<4xi64>, %w: tensor<10xf16>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expects a weight of the logits' element type 'f32', got 'f16'}}
  %0 = sift.cross_entropy %x, %t weight(%w : tensor<10xf16>) reduction = mean : tensor<4x10xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_smoothing(%x: tensor<4x10xf32>, %t: tensor<4xi64>) {
  // expected-error @+1 {{expects label_smoothing in [0, 1], got -1.000000e-01}}
  %0 = sift.cross_entropy %x, %t reduction = mean {label_smoothing = -0.1 : f64} : tensor<4x10xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_reduction_result(%x: tensor<4x10xf32>, %t: tensor<4xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<4xf32>' are incompatible}}
  %0 = sift.cross_entropy %x, %t reduction = none : tensor<4x10xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

func.func @cross_entropy_int_logits(%x: tensor<4x10xi32>, %t: tensor<4xi64>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = sift.cross_entropy %x, %t reduction = mean : tensor<4x10xi32>, tensor<4xi64> -> tensor<i32>
  return
}

// -----

func.func @cross_entropy_bad_reduction(%x: tensor<4x10xf32>, %t: tensor<4xi64>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'reduction' [none, mean, sum]}}
  %0 = sift.cross_entropy %x, %t reduction = average : tensor<4x10xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

func.func @random_bits_valid_shape(%s: tensor<4xi64>, %v: tensor<8xindex>) {
  // expected-error @+1 {{expects `valid` to be an index or a tensor of one index per line, of shape [4], got 'tensor<8xindex>'}}
  %0 = sift.random_bits %s valid(%v : tensor<8xindex>) : tensor<4xi64> -> tensor<4x16xi32>
  return
}

// -----

func.func @random_bits_seed_not_prefix(%s: tensor<4xi64>) {
  // expected-error @+1 {{expects a per-row seed whose shape is a prefix of the result shape [8, 4], got 'tensor<4xi64>'}}
  %0 = sift.random_bits %s : tensor<4xi64> -> tensor<8x4xi32>
  return
}

// -----

func.func @random_uniform_seed_offset_shapes(%s: tensor<8xi64>, %o: tensor<8x4xi64>) {
  // expected-error @+1 {{expects the per-row seed and offset to have the same shape, got [8] and [8, 4]}}
  %0 = sift.random_uniform %s offset %o : tensor<8xi64>, tensor<8x4xi64> -> tensor<8x4x2xf32>
  return
}

// -----

func.func @random_bits_dynamic_seed(%s: tensor<?xi64>) {
  // expected-error @+1 {{operand #0 must be i64 or a static tensor of i64 (one per row)}}
  %0 = sift.random_bits %s : tensor<?xi64> -> tensor<8x4xi32>
  return
}

// -----

func.func @sample_balanced_seed_not_prefix(%l: tensor<4x100xi64>, %s: tensor<100xi64>) {
  // expected-error @+1 {{expects a per-row seed whose shape is a prefix of the batch shape [4], got 'tensor<100xi64>'}}
  %0:2 = sift.sample_balanced %l, %s {num_samples = 4 : i64} : tensor<4x100xi64>, tensor<100xi64> -> tensor<4x4xi64>, tensor<4xi64>
  return
}

// -----

// A dynamic batch extent is compatible with the seeds' (checked at run
// time); a static one that differs is not.
func.func @sample_balanced_seed_not_prefix_dynamic(%l: tensor<3x?x?xi64>, %s: tensor<2x4xi64>) {
  // expected-error @+1 {{expects a per-row seed whose shape is a prefix of the batch shape [3, ?], got 'tensor<2x4xi64>'}}
  %0:2 = sift.sample_balanced %l, %s {num_samples = 4 : i64} : tensor<3x?x?xi64>, tensor<2x4xi64> -> tensor<3x?x4xi64>, tensor<3x?xi64>
  return
}

// -----

func.func @cross_entropy_batch_dims(%x: tensor<4x10xf32>, %t: tensor<4xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{expects 0 <= batch_dims <= 1 (the targets' rank), got 2}}
  %0 = sift.cross_entropy %x, %t reduction = mean {batch_dims = 2 : i64} : tensor<4x10xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

func.func @scatter_batch_dims(%u: tensor<4xf32>, %d: tensor<8xf32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{batch_dims (1) must be in [0, dest rank 1)}}
  %0 = sift.scatter %u into %d[%i] {batch_dims = 1 : i64} : tensor<4xf32>, tensor<4xi64> into tensor<8xf32>
  return
}

// -----

func.func @scatter_indices_rank(%u: tensor<2xf32>, %d: tensor<2x3x8xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{expects indices of rank >= batch_dims (2), got rank 1}}
  %0 = sift.scatter %u into %d[%i] {batch_dims = 2 : i64} : tensor<2xf32>, tensor<2xi64> into tensor<2x3x8xf32>
  return
}

// -----

func.func @scatter_batch_mismatch(%u: tensor<3x4xf32>, %d: tensor<2x8xf32>, %i: tensor<3x4xi64>) {
  // expected-error @+1 {{batch dimension 0 of the indices (3) does not match the dest's (2)}}
  %0 = sift.scatter %u into %d[%i] {batch_dims = 1 : i64} : tensor<3x4xf32>, tensor<3x4xi64> into tensor<2x8xf32>
  return
}

// -----

func.func @scatter_element_type(%u: tensor<4xi64>, %d: tensor<8xf32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{updates element type 'i64' does not match the dest element type 'f32'}}
  %0 = sift.scatter %u into %d[%i] : tensor<4xi64>, tensor<4xi64> into tensor<8xf32>
  return
}

// -----

func.func @scatter_updates_shape(%u: tensor<4xf32>, %d: tensor<8x2xf32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{expects updates of shape indices.shape ++ dest.shape[batch_dims+1:] ('tensor<4x2xf32>'), got 'tensor<4xf32>'}}
  %0 = sift.scatter %u into %d[%i] : tensor<4xf32>, tensor<4xi64> into tensor<8x2xf32>
  return
}

// -----

func.func @scatter_i1_add(%u: tensor<4xi1>, %d: tensor<8xi1>, %i: tensor<4xi64>) {
  // expected-error @+1 {{reduce(add) needs a non-i1 element type}}
  %0 = sift.scatter %u into %d[%i] reduce(add) : tensor<4xi1>, tensor<4xi64> into tensor<8xi1>
  return
}

// -----

func.func @scatter_index_type(%u: tensor<4xf32>, %d: tensor<8xf32>, %i: tensor<4xi32>) {
  // expected-error @+1 {{operand #2 must be ranked tensor of 64-bit signless integer values}}
  %0 = sift.scatter %u into %d[%i] : tensor<4xf32>, tensor<4xi32> into tensor<8xf32>
  return
}

// -----

func.func @scatter_reduce_keyword(%u: tensor<4xf32>, %d: tensor<8xf32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{enum values for attribute 'reduce' [none, add, max, min]}}
  %0 = sift.scatter %u into %d[%i] reduce(mul) : tensor<4xf32>, tensor<4xi64> into tensor<8xf32>
  return
}
