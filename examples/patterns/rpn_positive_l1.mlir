// Detection (RPN / Fast R-CNN box head): the regression loss is computed on
// the positive anchors only, written the way it is in PyTorch:
//   pos = nonzero(iou > 0.7)
//   loss = abs(pred[pos] - target[pos]).sum() / (len(pos) * 4)
func.func @positive_l1(%iou: tensor<512xf32>, %pred: tensor<512x4xf32>,
                       %tgt: tensor<512x4xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %thr = arith.constant dense<0.7> : tensor<512xf32>
  %is_pos = arith.cmpf ogt, %iou, %thr : tensor<512xf32>
  %pos = sift.nonzero %is_pos : tensor<512xi1> -> tensor<?xi64>
  %p = sift.gather %pred[%pos] : tensor<512x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  %t = sift.gather %tgt[%pos] : tensor<512x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  %d = arith.subf %p, %t : tensor<?x4xf32>
  %a = math.absf %d : tensor<?x4xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%a : tensor<?x4xf32>) outs(%acc : tensor<f32>) dimensions = [0, 1]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  %n = tensor.dim %pos, %c0 : tensor<?xi64>
  %n_i = arith.index_cast %n : index to i64
  %n_f = arith.sitofp %n_i : i64 to f32
  %four = arith.constant 4.0 : f32
  %den = arith.mulf %n_f, %four : f32
  %s0 = tensor.extract %sum[] : tensor<f32>
  %mean = arith.divf %s0, %den : f32
  %r = tensor.from_elements %mean : tensor<f32>
  return %r : tensor<f32>
}
