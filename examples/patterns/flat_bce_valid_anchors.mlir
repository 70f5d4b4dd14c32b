// Detection (RetinaNet-style classification loss): binary cross-entropy
// with logits over the flattened class logits of the valid anchors, written
// with the reshapes PyTorch code uses around nonzero:
//   idx = torch.nonzero(labels != -2)        # [n, 1]
//   idx = idx.squeeze(1)                     # [n]
//   x = logits[idx].flatten()                # [n * C]
//   t = targets[idx].view(-1)                # [n * C]
//   return sum(max(x, 0) - x * t + log1p(exp(-|x|)))
func.func @flat_bce(%labels: tensor<256xi64>, %logits: tensor<256x5xf32>,
                    %targets: tensor<256x5xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %ignored = arith.constant dense<-2> : tensor<256xi64>
  %valid = arith.cmpi ne, %labels, %ignored : tensor<256xi64>
  %nz = sift.nonzero %valid : tensor<256xi1> -> tensor<?xi64>
  %n = tensor.dim %nz, %c0 : tensor<?xi64>
  %col = tensor.expand_shape %nz [[0, 1]] output_shape [%n, 1]
      : tensor<?xi64> into tensor<?x1xi64>
  %idx = tensor.collapse_shape %col [[0, 1]] : tensor<?x1xi64> into tensor<?xi64>
  %x2 = sift.gather %logits[%idx] : tensor<256x5xf32>, tensor<?xi64> -> tensor<?x5xf32>
  %t2 = sift.gather %targets[%idx] : tensor<256x5xf32>, tensor<?xi64> -> tensor<?x5xf32>
  %x = tensor.collapse_shape %x2 [[0, 1]] : tensor<?x5xf32> into tensor<?xf32>
  %t = tensor.collapse_shape %t2 [[0, 1]] : tensor<?x5xf32> into tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                         iterator_types = ["reduction"]}
      ins(%x, %t : tensor<?xf32>, tensor<?xf32>) outs(%acc : tensor<f32>) {
    ^bb0(%xi: f32, %ti: f32, %a: f32):
      %pos = arith.maximumf %xi, %zero : f32
      %xt = arith.mulf %xi, %ti : f32
      %abs = math.absf %xi : f32
      %neg = arith.negf %abs : f32
      %e = math.exp %neg : f32
      %sp = math.log1p %e : f32
      %l0 = arith.subf %pos, %xt : f32
      %l = arith.addf %l0, %sp : f32
      %r = arith.addf %a, %l : f32
      linalg.yield %r : f32
  } -> tensor<f32>
  return %sum : tensor<f32>
}
