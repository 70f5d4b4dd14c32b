//===- ExpandShapeToReshape.cpp - --sift-expand-shape-to-reshape ----------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTEXPANDSHAPETORESHAPE
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {
/// See SiftExpandShapeToReshape in Passes.td.
struct ExpandShapeToReshapePass
    : sift::impl::SiftExpandShapeToReshapeBase<ExpandShapeToReshapePass> {
  using Base::Base;

  static bool hasGroupWithDynamicSizes(tensor::ExpandShapeOp op) {
    RankedTensorType type = op.getResultType();
    return llvm::any_of(op.getReassociationIndices(),
                        [&](const ReassociationIndices &group) {
                          return llvm::count_if(group, [&](int64_t d) {
                                   return type.isDynamicDim(d);
                                 }) > 1;
                        });
  }

  void runOnOperation() override {
    SmallVector<tensor::ExpandShapeOp> ops;
    getOperation().walk([&](tensor::ExpandShapeOp op) {
      if (hasGroupWithDynamicSizes(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (tensor::ExpandShapeOp op : ops) {
      rewriter.setInsertionPoint(op);
      SmallVector<Value> sizes = getValueOrCreateConstantIndexOp(
          rewriter, op.getLoc(), op.getMixedOutputShape());
      Value shape =
          tensor::FromElementsOp::create(rewriter, op.getLoc(), sizes);
      rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, op.getResultType(),
                                                     op.getSrc(), shape);
    }
  }
};
} // namespace
