//===- GpuCopyEscapingConstants.cpp - --sift-gpu-copy-escaping-constants --===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// A constant tensor a function returns or a region yields becomes a copy of
// the constant, so that bufferization gives it a buffer of its own that a
// kernel fills. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTGPUCOPYESCAPINGCONSTANTS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {
/// See SiftGpuCopyEscapingConstants in Passes.td.
struct GpuCopyEscapingConstantsPass
    : sift::impl::SiftGpuCopyEscapingConstantsBase<
          GpuCopyEscapingConstantsPass> {
  void runOnOperation() override {
    SmallVector<OpOperand *> escapes;
    getOperation().walk([&](arith::ConstantOp constant) {
      auto type = dyn_cast<RankedTensorType>(constant.getType());
      if (!type || !type.hasStaticShape())
        return;
      for (OpOperand &use : constant->getUses())
        if (use.getOwner()->hasTrait<OpTrait::IsTerminator>())
          escapes.push_back(&use);
    });
    OpBuilder b(&getContext());
    for (OpOperand *use : escapes) {
      Operation *terminator = use->getOwner();
      auto type = cast<RankedTensorType>(use->get().getType());
      b.setInsertionPoint(terminator);
      Location loc = use->get().getLoc();
      Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                            type.getElementType());
      auto copy = linalg::CopyOp::create(b, loc, use->get(), empty);
      use->set(copy.getResult(0));
    }
  }
};
} // namespace
