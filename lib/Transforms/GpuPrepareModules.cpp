//===- GpuPrepareModules.cpp - --sift-gpu-prepare-modules -----------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTGPUPREPAREMODULES
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

/// The data layout of LLVM's NVPTX64 target (`nvptx64-nvidia-cuda`).
static constexpr llvm::StringLiteral kNvptx64DataLayout =
    "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64";

namespace {
struct GpuPrepareModulesPass
    : public sift::impl::SiftGpuPrepareModulesBase<GpuPrepareModulesPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // Warps of 32 lanes; 32-bit shuffles (wider values are broken down).
    populateGpuBreakDownSubgroupReducePatterns(patterns,
                                               /*maxShuffleBitwidth=*/32);
    populateGpuLowerSubgroupReduceToShufflePatterns(patterns,
                                                    /*subgroupSize=*/32);
    populateGpuLowerClusteredSubgroupReduceToShufflePatterns(
        patterns, /*subgroupSize=*/32);
    FrozenRewritePatternSet frozen(std::move(patterns));
    StringAttr layout = StringAttr::get(context, kNvptx64DataLayout);
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      if (failed(applyPatternsGreedily(module, frozen)))
        return signalPassFailure();
      module->setAttr(LLVM::LLVMDialect::getDataLayoutAttrName(), layout);
    }
  }
};
} // namespace
