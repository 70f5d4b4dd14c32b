//===- ApproximateMath.cpp - --sift-approximate-math ----------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTAPPROXIMATEMATH
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {
/// Whether `op` is an f32 exp or log that allows approximate functions.
static bool allowsApproximation(Operation *op) {
  if (!isa<math::ExpOp, math::LogOp>(op) ||
      !getElementTypeOrSelf(op->getResult(0).getType()).isF32())
    return false;
  auto fmf = cast<arith::ArithFastMathInterface>(op).getFastMathFlagsAttr();
  return fmf && bitEnumContainsAll(fmf.getValue(), arith::FastMathFlags::afn);
}

/// See SiftApproximateMath in Passes.td.
struct ApproximateMathPass
    : sift::impl::SiftApproximateMathBase<ApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (allowsApproximation(op))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return name == math::ExpOp::getOperationName() ||
             name == math::LogOp::getOperationName();
    });
    // Only the ops found above: the approximations build no exp or log of
    // their own, and another exp or log keeps its libm call.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
