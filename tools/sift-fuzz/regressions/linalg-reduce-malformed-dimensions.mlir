// Upstream linalg.reduce parser crash (llvm/llvm-project#132747): the
// fuzzer must skip it (hasMalformedDimensions).
func.func @f(%i: tensor<?xi64>, %ai: tensor<i64>) -> tensor<i64> {
  %a = linalg.reduce ins(%i : tensor<?xi64>) outs(%ai : tensor<i64>) dimensions = [0a]
    (%u: i64, %v: i64) {
      %r = arith.addi %u, %v : i64
      linalg.yield %r : i64
    }
  return %a : tensor<i64>
}
