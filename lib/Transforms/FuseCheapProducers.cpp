//===- FuseCheapProducers.cpp - --sift-fuse-cheap-producers ---------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTFUSECHEAPPRODUCERS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {
/// See SiftFuseCheapProducers in Passes.td.
struct FuseCheapProducersPass
    : sift::impl::SiftFuseCheapProducersBase<FuseCheapProducersPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
          if (!producer)
            return false;
          Block *body = producer.getBody();
          return body->getOperations().size() <= 3 &&
                 llvm::all_of(body->without_terminator(), [](Operation &op) {
                   return isa<arith::ArithDialect>(op.getDialect());
                 });
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
