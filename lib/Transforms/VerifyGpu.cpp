//===- VerifyGpu.cpp - --sift-verify-gpu ----------------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Reports the work a GPU module leaves on the host between kernels, the
// kernels that allocate and the launches the device cannot run. See
// Passes.td for the list of findings.
//
//===----------------------------------------------------------------------===//

#include "GpuHostCode.h"

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTVERIFYGPU
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

/// Whether `op` is a loop of host code.
static bool isLoop(Operation *op) {
  return isa<scf::ForOp, scf::WhileOp, scf::ParallelOp, scf::ForallOp,
             affine::AffineForOp, affine::AffineParallelOp>(op);
}

/// Whether `op` itself (not the ops in its regions) reads or writes memory
/// through a buffer. GPU dialect ops (launches, device allocations and
/// copies) are what host code is meant to do.
static bool accessesMemory(Operation *op) {
  if (isa<gpu::GPUDialect>(op->getDialect()))
    return false;
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  return llvm::any_of(effects, [](const MemoryEffects::EffectInstance &e) {
    if (!isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()))
      return false;
    Value value = e.getValue();
    return !value || isa<BaseMemRefType>(value.getType());
  });
}

/// Whether `op` is a host buffer a scalar is copied into from the device,
/// or a load of one: a kernel's error word (`sift.error_word`), or a
/// scalar the host needs (`sift.host_read`, --sift-gpu-host-scalars).
static bool isHostRead(Operation *op) {
  auto marked = [](Operation *op) {
    return op &&
           (op->hasAttr("sift.error_word") || op->hasAttr("sift.host_read"));
  };
  if (marked(op))
    return true;
  auto load = dyn_cast<memref::LoadOp>(op);
  return load && marked(rootBuffer(load.getMemRef()).getDefiningOp());
}

/// Whether `buffer` is host bookkeeping: a host allocation, or an argument,
/// that --sift-gpu-device-buffers marked `sift.host_buffer` (only host code
/// touches it: the deallocation helper's lists of buffer addresses and
/// ownership flags, no tensor data).
static bool isHostBookkeeping(Value buffer) {
  Value root = rootBuffer(buffer);
  if (Operation *def = root.getDefiningOp())
    return def->hasAttr("sift.host_buffer");
  auto arg = dyn_cast<BlockArgument>(root);
  if (!arg)
    return false;
  auto fn = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  return fn && arg.getOwner()->isEntryBlock() &&
         fn.getArgAttr(arg.getArgNumber(), "sift.host_buffer");
}

/// Whether `op` reads or writes host bookkeeping only (isHostBookkeeping).
static bool touchesBookkeepingOnly(Operation *op) {
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return isHostBookkeeping(load.getMemRef());
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return isHostBookkeeping(store.getMemRef());
  return false;
}

/// The name of a called function, for calls of malloc & co.
static StringRef calleeName(Operation *op) {
  if (auto call = dyn_cast<func::CallOp>(op))
    return call.getCallee();
  if (auto call = dyn_cast<LLVM::CallOp>(op))
    if (std::optional<StringRef> callee = call.getCallee())
      return *callee;
  return {};
}

static bool isAllocatingCall(Operation *op) {
  StringRef name = calleeName(op);
  return name == "malloc" || name == "calloc" || name == "realloc" ||
         name == "aligned_alloc" || name == "_mlir_memref_to_llvm_alloc" ||
         name == "_mlir_memref_to_llvm_aligned_alloc";
}

namespace {
struct VerifyGpuPass : public sift::impl::SiftVerifyGpuBase<VerifyGpuPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// Emits one finding (an error, or a warning with warn-only).
  InFlightDiagnostic report(Operation *op) {
    ++findings;
    return warnOnly ? op->emitWarning() : op->emitError();
  }

  void checkHostRegion(Region &region);
  void checkKernelBody(Operation *kernel);
  void checkLaunch(Operation *op, ValueRange grid, ValueRange block);
  void checkParameterSpace(gpu::LaunchFuncOp launch);

  int64_t findings = 0;
};
} // namespace

/// The first op in `loop` (outside kernels) that accesses memory.
static Operation *firstAccessIn(Operation *loop) {
  Operation *found = nullptr;
  loop->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == loop)
      return WalkResult::advance();
    if (isa<gpu::LaunchOp>(op))
      return WalkResult::skip();
    // A host read (a synchronization the verifier accepts) and the host
    // buffer of a result are no tensor data on the host.
    if (accessesMemory(op) && !isHostRead(op) &&
        !op->hasAttr("sift.host_result") && !touchesBookkeepingOnly(op)) {
      found = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

void VerifyGpuPass::checkHostRegion(Region &region) {
  region.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
      checkKernelBody(launch);
      checkLaunch(
          launch,
          {launch.getGridSizeX(), launch.getGridSizeY(), launch.getGridSizeZ()},
          {launch.getBlockSizeX(), launch.getBlockSizeY(),
           launch.getBlockSizeZ()});
      return WalkResult::skip();
    }
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      checkLaunch(launch, {grid.x, grid.y, grid.z},
                  {block.x, block.y, block.z});
      checkParameterSpace(launch);
      return WalkResult::advance();
    }
    if (isLoop(op)) {
      if (Operation *access = firstAccessIn(op)) {
        InFlightDiagnostic diag = report(op);
        diag << "'" << op->getName()
             << "' is a loop over tensor data that stays on the host "
                "between kernels";
        diag.attachNote(access->getLoc())
            << "it accesses memory here ('" << access->getName() << "')";
        // The loop is the finding; its body is not reported again, but
        // launches inside it are still checked.
        op->walk([&](gpu::LaunchOp launch) {
          checkKernelBody(launch);
          checkLaunch(launch,
                      {launch.getGridSizeX(), launch.getGridSizeY(),
                       launch.getGridSizeZ()},
                      {launch.getBlockSizeX(), launch.getBlockSizeY(),
                       launch.getBlockSizeZ()});
        });
        return WalkResult::skip();
      }
      return WalkResult::advance();
    }
    // The host buffers --sift-gpu-host-boundary returns results in, the
    // host copy of a kernel's error word (cross_entropy's out-of-range
    // target: one small copy per call, the run-time error the CPU reports
    // too), and of the scalars the host needs (a dynamic result's size: one
    // copy each, a synchronization), and their reads; the deallocation
    // helper's host bookkeeping (addresses and ownership flags).
    if (op->hasAttr("sift.host_result") || isHostRead(op) ||
        op->hasAttr("sift.host_buffer") || touchesBookkeepingOnly(op))
      return WalkResult::advance();
    if (isa<memref::AllocOp, memref::AllocaOp, memref::ReallocOp>(op) ||
        isAllocatingCall(op)) {
      report(op) << "'" << op->getName()
                 << "' allocates host memory between kernels (device "
                    "buffers are gpu.alloc)";
      return WalkResult::advance();
    }
    if (isa<memref::GetGlobalOp>(op)) {
      report(op) << "'" << op->getName()
                 << "' is a constant buffer in host memory (not copied to "
                    "the device)";
      return WalkResult::advance();
    }
    if (accessesMemory(op))
      report(op) << "'" << op->getName()
                 << "' reads or writes a buffer on the host between kernels";
    return WalkResult::advance();
  });
}

/// The name of the function `op` calls when the module only declares it
/// (a host runtime function; libdevice's `__nv_*` and LLVM's intrinsics
/// aside), else nothing.
static std::optional<StringRef> declaredCallee(Operation *op) {
  auto call = dyn_cast<CallOpInterface>(op);
  if (!call)
    return std::nullopt;
  auto symbol = dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
  if (!symbol)
    return std::nullopt;
  StringRef name = symbol.getLeafReference().getValue();
  if (name.starts_with("__nv_") || name.starts_with("llvm."))
    return std::nullopt;
  auto fn = dyn_cast_if_present<FunctionOpInterface>(
      SymbolTable::lookupNearestSymbolFrom(op, symbol));
  if (!fn || !fn.isExternal())
    return std::nullopt;
  return name;
}

void VerifyGpuPass::checkKernelBody(Operation *kernel) {
  kernel->walk([&](Operation *op) {
    if (op == kernel)
      return;
    if (isa<memref::AllocOp, memref::ReallocOp, gpu::AllocOp>(op) ||
        isAllocatingCall(op))
      report(op) << "'" << op->getName()
                 << "' allocates memory inside a kernel";
    else if (isa<memref::DeallocOp, gpu::DeallocOp>(op) ||
             calleeName(op) == "free" ||
             calleeName(op) == "_mlir_memref_to_llvm_free")
      report(op) << "'" << op->getName() << "' frees memory inside a kernel";
    else if (auto callee = declaredCallee(op))
      report(op) << "'" << op->getName() << "' calls '" << *callee
                 << "' inside a kernel: a host function the device cannot "
                    "call";
  });
}

void VerifyGpuPass::checkLaunch(Operation *op, ValueRange grid,
                                ValueRange block) {
  static const int64_t kBlockLimits[3] = {1024, 1024, 64};
  static const int64_t kGridLimits[3] = {2147483647, 65535, 65535};
  static const char *kDims[3] = {"x", "y", "z"};
  int64_t threads = 1;
  bool allConstant = true;
  for (unsigned d = 0; d < 3; ++d) {
    std::optional<int64_t> size = getConstantIntValue(block[d]);
    if (!size) {
      allConstant = false;
      continue;
    }
    threads *= *size;
    if (*size > kBlockLimits[d])
      report(op) << "'" << op->getName() << "' has " << *size
                 << " threads along " << kDims[d] << " (the device allows "
                 << kBlockLimits[d] << ")";
  }
  if (allConstant && threads > maxThreadsPerBlock)
    report(op) << "'" << op->getName() << "' has " << threads
               << " threads per block (the device allows "
               << static_cast<int64_t>(maxThreadsPerBlock) << ")";
  for (unsigned d = 0; d < 3; ++d) {
    std::optional<int64_t> size = getConstantIntValue(grid[d]);
    if (size && *size > kGridLimits[d])
      report(op) << "'" << op->getName() << "' has " << *size
                 << " blocks along " << kDims[d] << " (the device allows "
                 << kGridLimits[d] << ")";
  }
}

/// Bytes a kernel operand takes in the parameter space: a memref is its
/// descriptor (two pointers, an offset, sizes and strides), a scalar its
/// width rounded up to 4 bytes.
static int64_t parameterBytes(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type))
    return 8 * (3 + 2 * memref.getRank());
  if (type.isIntOrFloat())
    return std::max<int64_t>(4,
                             llvm::divideCeil(type.getIntOrFloatBitWidth(), 8));
  return 8;
}

void VerifyGpuPass::checkParameterSpace(gpu::LaunchFuncOp launch) {
  // PTX before ISA 8.1 (sift targets +ptx80) allows 4352 bytes of kernel
  // parameters.
  static const int64_t kParameterSpace = 4352;
  int64_t bytes = 0;
  for (Value operand : launch.getKernelOperands())
    bytes += parameterBytes(operand.getType());
  if (bytes > kParameterSpace)
    report(launch) << "'" << launch->getName() << "' passes " << bytes
                   << " bytes of kernel parameters (the device allows "
                   << kParameterSpace << ")";
}

/// Whether `fn` has uses and all of them are inside kernels.
static bool onlyCalledByKernels(FunctionOpInterface fn, ModuleOp module) {
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(fn, module);
  if (!uses || uses->empty())
    return false;
  return llvm::none_of(*uses, [](const SymbolTable::SymbolUse &use) {
    return isHostCode(use.getUser());
  });
}

void VerifyGpuPass::runOnOperation() {
  ModuleOp module = getOperation();
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto gpuModule = dyn_cast<gpu::GPUModuleOp>(op)) {
      for (auto fn : gpuModule.getOps<gpu::GPUFuncOp>())
        if (fn.isKernel())
          checkKernelBody(fn);
      continue;
    }
    if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
      if (fn.isExternal())
        continue;
      // A function only kernels call (the deallocation helper, before
      // outlining copies it into their gpu.modules) is device code.
      if (onlyCalledByKernels(fn, module))
        checkKernelBody(fn);
      else
        checkHostRegion(fn.getFunctionBody());
    }
  }
  if (findings && !warnOnly)
    signalPassFailure();
}
