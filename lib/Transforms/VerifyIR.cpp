//===- VerifyIR.cpp - --sift-verify-ir ------------------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Runs the IR verifier once, where the pipelines put it: between the
// tensor-level passes and bufferization. The JIT verifies the lowered
// module at the end only (per pass with SIFT_VERIFY_EACH=1), and by then
// bufferization may have turned an invalid tensor op into valid loops that
// compute garbage. See SiftVerifyIR in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/IR/Verifier.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTVERIFYIR
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;

namespace {
/// See SiftVerifyIR in Passes.td.
struct VerifyIRPass : sift::impl::SiftVerifyIRBase<VerifyIRPass> {
  using Base::Base;

  void runOnOperation() override {
    // The verifier emits its own diagnostics, at the invalid op.
    if (failed(verify(getOperation())))
      signalPassFailure();
  }
};
} // namespace
