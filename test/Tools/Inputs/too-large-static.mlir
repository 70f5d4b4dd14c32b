// A static type beyond any address space (tensor-run-hostile.mlir).
func.func @too_large_static() -> tensor<9223372036854775807xi1> {
  %m = arith.constant dense<true> : tensor<9223372036854775807xi1>
  return %m : tensor<9223372036854775807xi1>
}
