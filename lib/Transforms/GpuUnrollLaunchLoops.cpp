//===- GpuUnrollLaunchLoops.cpp - --sift-gpu-unroll-launch-loops ----------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTGPUUNROLLLAUNCHLOOPS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {
struct GpuUnrollLaunchLoops
    : public sift::impl::SiftGpuUnrollLaunchLoopsBase<GpuUnrollLaunchLoops> {
  using Base::Base;

  void runOnOperation() override {
    // Post-order: an inner loop is unrolled before the loop around it,
    // which then holds its launches.
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (!loop->getParentOfType<gpu::LaunchOp>())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      bool launches =
          loop.getBody()
              ->walk([](gpu::LaunchFuncOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
      std::optional<APInt> trips = loop.getStaticTripCount();
      if (!launches || !trips ||
          trips->getZExtValue() > static_cast<uint64_t>(maxTripCount))
        continue;
      if (failed(loopUnrollFull(loop))) {
        loop.emitError("cannot unroll this loop of kernel launches");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
