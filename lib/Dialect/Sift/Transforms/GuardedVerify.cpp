//===- GuardedVerify.cpp - Verification that upstream bugs cannot crash ---===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/Transforms/GuardedVerify.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

/// Checks what an upstream verifier reads before it validates it. Each check
/// names the upstream bug in docs/UpstreamBugs.md.
static LogicalResult checkUpstreamVerifierHazards(Operation *root) {
  WalkResult result = root->walk([](Operation *op) {
    // tensor.concat with a negative dim: ConcatOp::verify indexes the
    // operand shapes with it before rejecting it (SIGSEGV).
    if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
      // The attribute may be missing or of another type in unverified IR.
      std::optional<Attribute> attr = op->getInherentAttr("dim");
      auto dim = attr ? dyn_cast_or_null<IntegerAttr>(*attr) : IntegerAttr();
      if (dim && dim.getValue().isNegative()) {
        op->emitOpError("concatenation dim ")
            << dim.getValue().getSExtValue() << " is negative";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult mlir::sift::guardedVerify(Operation *root) {
  if (failed(checkUpstreamVerifierHazards(root)))
    return failure();
  return verify(root);
}

namespace {
struct GuardedVerifyPass : PassWrapper<GuardedVerifyPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GuardedVerifyPass)
  StringRef getArgument() const override { return "sift-guarded-verify"; }
  StringRef getDescription() const override {
    return "Verify, rejecting first the inputs that crash an upstream "
           "verifier";
  }
  void runOnOperation() override {
    if (failed(sift::guardedVerify(getOperation())))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace

std::unique_ptr<Pass> mlir::sift::createGuardedVerifyPass() {
  return std::make_unique<GuardedVerifyPass>();
}
