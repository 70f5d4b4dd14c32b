// A loss whose training mode picks the anchors it sees, the mode an integer
// the caller passes (0: foreground, 1: background, otherwise every anchor
// not ignored):
//   if mode == 0:   s = scores[labels > 0]
//   elif mode == 1: s = scores[labels == 0]
//   else:           s = scores[labels != -1]
//   return s, s.sum()
// written as the switch a frontend makes of it.
func.func @mode_selection(%scores: tensor<128xf32>, %labels: tensor<128xi64>, %mode: index)
    -> (tensor<?xf32>, tensor<f32>) {
  %zero = arith.constant dense<0> : tensor<128xi64>
  %ignore = arith.constant dense<-1> : tensor<128xi64>
  %s = scf.index_switch %mode -> tensor<?xf32>
  case 0 {
    %m = arith.cmpi sgt, %labels, %zero : tensor<128xi64>
    %x = sift.masked_select %scores, %m : tensor<128xf32>, tensor<128xi1> -> tensor<?xf32>
    scf.yield %x : tensor<?xf32>
  }
  case 1 {
    %m = arith.cmpi eq, %labels, %zero : tensor<128xi64>
    %x = sift.masked_select %scores, %m : tensor<128xf32>, tensor<128xi1> -> tensor<?xf32>
    scf.yield %x : tensor<?xf32>
  }
  default {
    %m = arith.cmpi ne, %labels, %ignore : tensor<128xi64>
    %x = sift.masked_select %scores, %m : tensor<128xf32>, tensor<128xi1> -> tensor<?xf32>
    scf.yield %x : tensor<?xf32>
  }
  %zf = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zf : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%s : tensor<?xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%v: f32, %a: f32) {
      %t = arith.addf %v, %a : f32
      linalg.yield %t : f32
    }
  return %s, %sum : tensor<?xf32>, tensor<f32>
}
