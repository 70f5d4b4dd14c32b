// Use after free found by the long fuzz run: --sift-staticize looked at an
// scf.if after if-converting (erasing) it. ASan reports it if it comes back.
func.func @size_if(%m: tensor<8xi1>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %idx = sift.nonzero %m : tensor<8xi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %big = arith.cmpi sgt, %n, %c4 : index
  %k = scf.if %big -> (index) {
    scf.yield %c4 : index
  } else {
    scf.yield %n : index
  }
  %one = arith.constant 1.5 : f32
  %e = tensor.empty(%k) : tensor<?xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %f : tensor<?xf32>
}
