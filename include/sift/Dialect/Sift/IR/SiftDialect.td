//===- SiftDialect.td - The sift dialect -------------------*- tablegen -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_DIALECT_SIFT_IR_SIFTDIALECT_TD
#define SIFT_DIALECT_SIFT_IR_SIFTDIALECT_TD

include "mlir/IR/OpBase.td"

def Sift_Dialect : Dialect {
  let name = "sift";
  let cppNamespace = "::mlir::sift";
  let summary = "Data-dependent, sampling and loss ops on tensors";
  let description = [{
    The `sift` dialect models the tensor operations of machine-learning code
    whose result shape depends on data (`nonzero`, `unique`, `masked_select`,
    `randperm` of a computed length), the static primitives that a static
    masked rewrite of them is made of (`count`, `compact`, `cumsum`, `sort`,
    `argsort`, `topk`, `gather`, counter-based random numbers) and fused
    sampling and loss operations (`sample_balanced`, `cross_entropy`).

    Data tensors are builtin ranked tensors; indices, labels and counts are
    `i64`; masks are `i1`. Ops that work along one axis take leading batch
    dimensions. Semantics follow PyTorch unless an op says otherwise.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let hasConstantMaterializer = 1;
}

#endif // SIFT_DIALECT_SIFT_IR_SIFTDIALECT_TD
