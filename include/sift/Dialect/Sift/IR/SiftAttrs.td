//===- SiftAttrs.td - Attributes of the sift dialect -------*- tablegen -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_DIALECT_SIFT_IR_SIFTATTRS_TD
#define SIFT_DIALECT_SIFT_IR_SIFTATTRS_TD

include "mlir/IR/EnumAttr.td"

// How a loss reduces its per-element values, as PyTorch's `reduction=`.
def Sift_Reduction : I32EnumAttr<"Reduction", "loss reduction", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Mean", 1, "mean">,
    I32EnumAttrCase<"Sum", 2, "sum">
  ]> {
  let cppNamespace = "::mlir::sift";
}

// How `sift.scatter` combines an update with the element it lands on.
def Sift_ScatterReduce : I32EnumAttr<"ScatterReduce", "scatter combine", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Add", 1, "add">,
    I32EnumAttrCase<"Max", 2, "max">,
    I32EnumAttrCase<"Min", 3, "min">
  ]> {
  let cppNamespace = "::mlir::sift";
}

#endif // SIFT_DIALECT_SIFT_IR_SIFTATTRS_TD
