//===- SiftDialect.cpp - The sift dialect -----------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/IR/SiftDialect.h"

#include "SiftTiling.h"

#include "sift/Dialect/Sift/IR/SiftOps.h"

using namespace mlir;
using namespace mlir::sift;

#include "sift/Dialect/Sift/IR/SiftOpsDialect.cpp.inc"

void SiftDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sift/Dialect/Sift/IR/SiftOps.cpp.inc"
      >();
  // Tiling over the independent rows (--sift-fuse).
  attachTilingInterfaceModels(*getContext());
}

Operation *SiftDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}
