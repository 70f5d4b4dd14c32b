//===- SiftDialect.cpp - The sift dialect -----------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/IR/SiftDialect.h"
#include "SiftTiling.h"

#include "mlir/Transforms/InliningUtils.h"

#include "sift/Dialect/Sift/IR/SiftOps.h"

using namespace mlir;
using namespace mlir::sift;

#include "sift/Dialect/Sift/IR/SiftOpsDialect.cpp.inc"

namespace {
/// Every sift op may be inlined: each is a function of its operands (the
/// random ops take their seed and stream offset as operands), with no
/// region. --sift-staticize inlines calls before rewriting.
struct SiftInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void SiftDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sift/Dialect/Sift/IR/SiftOps.cpp.inc"
      >();
  addInterfaces<SiftInlinerInterface>();
  // Tiling over the independent rows (--sift-fuse).
  attachTilingInterfaceModels(*getContext());
}

Operation *SiftDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}
