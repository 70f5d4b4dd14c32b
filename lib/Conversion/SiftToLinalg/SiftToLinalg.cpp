//===- SiftToLinalg.cpp - The sift lowering pass ----------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The exported pattern set (one theme file each: Random, Sort, Selection,
// Loss) and the thin `--convert-sift-to-linalg` driver around it.
//
//===----------------------------------------------------------------------===//

#include "sift/Conversion/Passes.h"

#include "PopulatePatterns.h"

#include "sift/Dialect/Sift/IR/SiftDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_CONVERTSIFTTOLINALG
#include "sift/Conversion/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

void mlir::sift::populateSiftToLinalgPatterns(RewritePatternSet &patterns) {
  lowering::populateRandomPatterns(patterns);
  lowering::populateSortPatterns(patterns);
  lowering::populateSelectionPatterns(patterns);
  lowering::populateLossPatterns(patterns);
}

namespace {
struct ConvertSiftToLinalgPass
    : public sift::impl::ConvertSiftToLinalgBase<ConvertSiftToLinalgPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertSiftToLinalgBase::getDependentDialects(registry);
    // The random ops write their blocks through memref views (Random.cpp).
    registry
        .insert<bufferization::BufferizationDialect, memref::MemRefDialect>();
  }
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    populateSiftToLinalgPatterns(patterns);
    // The patterns build nested regions (loops, `scf.forall` bodies) with the
    // rewriter; the greedy driver handles that robustly. Whatever is left
    // afterwards had no lowering: report it by name.
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
    bool failedAny = false;
    getOperation()->walk([&](Operation *op) {
      if (!isa<SiftDialect>(op->getDialect()))
        return;
      op->emitError() << op->getName() << " has no CPU lowering yet";
      failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
