//===- GpuDeviceBuffers.cpp - --sift-gpu-device-buffers -------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "GpuHostCode.h"

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
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

/// Whether `value` is a view of a host allocation kept for bookkeeping.
static bool isHostBuffer(Value value) {
  auto alloc = rootBuffer(value).getDefiningOp<memref::AllocOp>();
  return alloc && alloc->hasAttr("sift.host_buffer");
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

/// Replaces the `memref.dim` ops of static sizes by constants: a size the
/// host asks of a constant buffer (a kernel's check of a weights vector's
/// length) must not keep the host's `memref.get_global` alive once its
/// reads have moved into the kernels.
static void foldStaticDims(ModuleOp module) {
  SmallVector<memref::DimOp> dims;
  module.walk([&](memref::DimOp dim) { dims.push_back(dim); });
  for (memref::DimOp dim : dims) {
    std::optional<int64_t> index = dim.getConstantIndex();
    auto type = dyn_cast<MemRefType>(dim.getSource().getType());
    if (!index || !type || *index < 0 || *index >= type.getRank() ||
        type.isDynamicDim(*index))
      continue;
    OpBuilder b(dim);
    Value size = arith::ConstantIndexOp::create(b, dim.getLoc(),
                                                type.getDimSize(*index));
    Operation *source = dim.getSource().getDefiningOp();
    dim.replaceAllUsesWith(size);
    dim.erase();
    if (source && isa<memref::GetGlobalOp>(source) && source->use_empty())
      source->erase();
  }
}

/// Whether `buffer` (or a view of it) is only ever read and written by the
/// host as scalars: every use is a host load, store (as the buffer), dim or
/// dealloc, a view, or an operand of a call of a function defined in the
/// module whose argument is such a buffer in its body (`hostArgs`). Such a
/// buffer holds host bookkeeping, not tensor data: the deallocation
/// helper's lists of buffer addresses and ownership flags.
static bool
isHostOnly(Value buffer,
           const DenseSet<std::pair<Operation *, unsigned>> &hostArgs,
           SymbolTableCollection &symbols) {
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (!isHostCode(user))
      return false;
    if (isa<memref::LoadOp, memref::DimOp, memref::DeallocOp>(user))
      continue;
    if (auto store = dyn_cast<memref::StoreOp>(user)) {
      if (store.getValueToStore() == use.get())
        return false;
      continue;
    }
    if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
      if (view.getViewSource() != use.get() || user->getNumResults() != 1 ||
          !isHostOnly(user->getResult(0), hostArgs, symbols))
        return false;
      continue;
    }
    if (auto call = dyn_cast<func::CallOp>(user)) {
      auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee || !hostArgs.contains({callee, use.getOperandNumber()}))
        return false;
      continue;
    }
    return false;
  }
  return true;
}

/// The arguments of the module's functions that their bodies use as host
/// bookkeeping (isHostOnly, calls excluded).
static DenseSet<std::pair<Operation *, unsigned>>
hostBookkeepingArgs(ModuleOp module, SymbolTableCollection &symbols) {
  DenseSet<std::pair<Operation *, unsigned>> none, args;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isExternal())
      continue;
    for (BlockArgument arg : fn.getArguments())
      if (isa<MemRefType>(arg.getType()) && isHostOnly(arg, none, symbols))
        args.insert({fn, arg.getArgNumber()});
  }
  return args;
}

/// The host allocations of host bookkeeping stay in host memory (marked
/// `sift.host_buffer`); so do the arguments of functions that every call
/// passes such buffers, and only such buffers (marked too, for
/// --sift-verify-gpu).
static void keepHostBookkeeping(ModuleOp module) {
  SymbolTableCollection symbols;
  DenseSet<std::pair<Operation *, unsigned>> hostArgs =
      hostBookkeepingArgs(module, symbols);
  module.walk([&](memref::AllocOp alloc) {
    if (isHostCode(alloc) && isHostOnly(alloc, hostArgs, symbols))
      alloc->setAttr("sift.host_buffer", UnitAttr::get(alloc.getContext()));
  });
  for (auto [fnOp, index] : hostArgs) {
    auto fn = cast<func::FuncOp>(fnOp);
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(fn, module);
    if (!uses || uses->empty())
      continue;
    bool allHost = llvm::all_of(*uses, [&](const SymbolTable::SymbolUse &use) {
      auto call = dyn_cast<func::CallOp>(use.getUser());
      return call && isHostCode(call) && isHostBuffer(call.getOperand(index));
    });
    if (allHost)
      fn.setArgAttr(index, "sift.host_buffer", UnitAttr::get(fn.getContext()));
  }
}

namespace {
struct GpuDeviceBuffersPass
    : public sift::impl::SiftGpuDeviceBuffersBase<GpuDeviceBuffersPass> {
  void runOnOperation() override {
    foldStaticDims(getOperation());
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp launch) {
      if (!launch->getParentOfType<gpu::GPUModuleOp>())
        launches.push_back(launch);
    });
    for (gpu::LaunchOp launch : launches)
      sinkConstants(launch);
    keepHostBookkeeping(getOperation());
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk([&](Operation *op) {
      if (!isHostCode(op))
        return;
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (!alloc->hasAttr("sift.host_buffer"))
          allocs.push_back(alloc);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        if (!isHostBuffer(dealloc.getMemref()))
          deallocs.push_back(dealloc);
      }
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
