//===- GpuDeviceBuffers.cpp - --sift-gpu-device-buffers -------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTGPUDEVICEBUFFERS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

/// Whether `op` is host code: outside kernels and device modules.
static bool isHostCode(Operation *op) {
  return !op->getParentOfType<gpu::LaunchOp>() &&
         !op->getParentOfType<gpu::GPUModuleOp>();
}

/// Moves the host constants `launch` reads into it: each value it uses that
/// is a `memref.get_global` or a view of one (casts, reshapes, subviews) is
/// recomputed at the start of the kernel. Outlining then copies the
/// `memref.global` into the kernel's `gpu.module`, where it becomes a device
/// global initialized when the module is loaded: copied to the device once,
/// not per launch. The host ops left without uses go.
static void sinkConstants(gpu::LaunchOp launch) {
  llvm::SetVector<Value> used;
  getUsedValuesDefinedAbove(launch.getBody(), used);
  Block &body = launch.getBody().front();
  for (Value value : used) {
    // value = view(...(view(get_global)))
    SmallVector<Operation *> chain;
    Value source = value;
    while (Operation *def = source.getDefiningOp()) {
      chain.push_back(def);
      if (isa<memref::GetGlobalOp>(def))
        break;
      auto view = dyn_cast<ViewLikeOpInterface>(def);
      if (!view || def->getNumResults() != 1) {
        chain.clear();
        break;
      }
      source = view.getViewSource();
    }
    if (chain.empty() || !isa<memref::GetGlobalOp>(chain.back()))
      continue;
    OpBuilder b(&body, body.begin());
    IRMapping mapping;
    for (Operation *op : llvm::reverse(chain))
      b.clone(*op, mapping);
    value.replaceUsesWithIf(mapping.lookup(value), [&](OpOperand &use) {
      return launch->isProperAncestor(use.getOwner());
    });
    for (Operation *op : chain)
      if (op->use_empty())
        op->erase();
      else
        break;
  }
}

namespace {
struct GpuDeviceBuffersPass
    : public sift::impl::SiftGpuDeviceBuffersBase<GpuDeviceBuffersPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp launch) {
      if (!launch->getParentOfType<gpu::GPUModuleOp>())
        launches.push_back(launch);
    });
    for (gpu::LaunchOp launch : launches)
      sinkConstants(launch);
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk([&](Operation *op) {
      if (!isHostCode(op))
        return;
      if (auto alloc = dyn_cast<memref::AllocOp>(op))
        allocs.push_back(alloc);
      else if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
        deallocs.push_back(dealloc);
    });
    for (memref::AllocOp alloc : allocs) {
      OpBuilder b(alloc);
      auto replacement = gpu::AllocOp::create(
          b, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
          /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), /*hostShared=*/false);
      alloc.replaceAllUsesWith(replacement.getMemref());
      alloc.erase();
    }
    for (memref::DeallocOp dealloc : deallocs) {
      OpBuilder b(dealloc);
      gpu::DeallocOp::create(b, dealloc.getLoc(), /*asyncToken=*/Type(),
                             /*asyncDependencies=*/ValueRange(),
                             dealloc.getMemref());
      dealloc.erase();
    }
  }
};
} // namespace
