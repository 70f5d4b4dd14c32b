//===- SiftToLinalg.cpp - The sift lowering pass ----------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The exported pattern set (one theme file each: Random, Sort, Selection,
// Loss, Scatter) and the thin `--convert-sift-to-linalg` driver around it,
// which reports each sift op the patterns leave once, with the reason they
// gave.
//
//===----------------------------------------------------------------------===//

#include "sift/Conversion/Passes.h"

#include "PopulatePatterns.h"

#include "sift/Dialect/Sift/IR/SiftDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_CONVERTSIFTTOLINALG
#include "sift/Conversion/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

void mlir::sift::populateSiftToLinalgPatterns(RewritePatternSet &patterns,
                                              bool gatherRows,
                                              bool vectorLoops) {
  lowering::populateRandomPatterns(patterns, vectorLoops);
  lowering::populateSortPatterns(patterns);
  lowering::populateSelectionPatterns(patterns, gatherRows);
  lowering::populateLossPatterns(patterns);
  lowering::populateScatterPatterns(patterns);
}

namespace {
/// Why the patterns left each sift op alone: the reason (and notes) that the
/// last pattern tried on it gave with `notifyMatchFailure`, so that the pass
/// reports every op it cannot lower once, with that reason.
class MatchFailureRecorder : public RewriterBase::Listener {
public:
  /// One error at `op`: the reason its pattern gave, or that none lowers it.
  void report(Operation *op) const {
    auto it = reasons.find(op);
    if (it == reasons.end()) {
      op->emitOpError("has no CPU lowering yet");
      return;
    }
    InFlightDiagnostic diag = op->emitOpError(it->second.message);
    for (const auto &[loc, note] : it->second.notes)
      diag.attachNote(loc) << note;
  }

private:
  struct Reason {
    std::string message;
    SmallVector<std::pair<Location, std::string>> notes;
  };

  void notifyPatternBegin(const Pattern &, Operation *op) override {
    current = op;
    reasons.erase(op);
  }
  void notifyPatternEnd(const Pattern &, LogicalResult) override {
    current = nullptr;
  }
  void
  notifyMatchFailure(Location loc,
                     function_ref<void(Diagnostic &)> reasonCallback) override {
    if (!current)
      return;
    Diagnostic diag(loc, DiagnosticSeverity::Error);
    reasonCallback(diag);
    Reason &reason = reasons[current];
    reason.message = diag.str();
    reason.notes.clear();
    for (Diagnostic &note : diag.getNotes())
      reason.notes.emplace_back(note.getLocation(), note.str());
  }
  void notifyOperationErased(Operation *op) override { reasons.erase(op); }

  /// The root of the pattern being tried.
  Operation *current = nullptr;
  DenseMap<Operation *, Reason> reasons;
};

struct ConvertSiftToLinalgPass
    : public sift::impl::ConvertSiftToLinalgBase<ConvertSiftToLinalgPass> {
  using ConvertSiftToLinalgBase::ConvertSiftToLinalgBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertSiftToLinalgBase::getDependentDialects(registry);
    // The random ops write their blocks through memref views, in loops
    // with an LLVM loop annotation (Random.cpp).
    registry.insert<bufferization::BufferizationDialect, LLVM::LLVMDialect,
                    memref::MemRefDialect>();
  }
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    populateSiftToLinalgPatterns(patterns, gatherRows, vectorLoops);
    // The patterns build nested regions (loops, `scf.forall` bodies) with the
    // rewriter; the greedy driver handles that robustly. A pattern that does
    // not apply says why (`notifyMatchFailure`); whatever is left afterwards
    // is reported once, with that reason.
    MatchFailureRecorder failures;
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    config.setListener(&failures);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
    bool failedAny = false;
    getOperation()->walk([&](Operation *op) {
      if (!isa<SiftDialect>(op->getDialect()))
        return;
      failures.report(op);
      failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
