//===- GpuHostCode.h - Host code of the GPU pipeline -----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_TRANSFORMS_GPUHOSTCODE_H
#define SIFT_LIB_TRANSFORMS_GPUHOSTCODE_H

#include "BufferRoots.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace sift {

/// Whether `op` is host code: outside kernels and device modules.
inline bool isHostCode(Operation *op) {
  return !op->getParentOfType<gpu::LaunchOp>() &&
         !op->getParentOfType<gpu::GPUModuleOp>();
}

/// Whether `op` is host control flow's: in a function's body, or in the
/// sequential loops and branches there (a program's own loop over kernels),
/// not in a parallel loop (a --sift-fuse row kernel, a lowering's) or
/// another op's region.
inline bool isHostLevel(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (isa<FunctionOpInterface>(parent))
      return true;
    if (!isa<scf::ForOp, scf::IfOp, scf::IndexSwitchOp, scf::WhileOp,
             scf::ExecuteRegionOp>(parent))
      return false;
  }
  return false;
}

/// The buffers `value` may be a view of: through views, and through the
/// branches of an `scf.if` or `scf.execute_region` that yields it. A loop's
/// result (or an argument) is its own root, of unknown origin.
inline void collectRootBuffers(Value value, llvm::SetVector<Value> &roots) {
  value = rootBuffer(value);
  auto result = dyn_cast<OpResult>(value);
  Operation *def = result ? result.getOwner() : nullptr;
  if (!def || !isa<scf::IfOp, scf::ExecuteRegionOp>(def)) {
    roots.insert(value);
    return;
  }
  // (The yielded values are defined inside the op: no cycle.)
  for (Region &region : def->getRegions())
    for (Block &block : region)
      if (auto yield = dyn_cast<scf::YieldOp>(block.getTerminator()))
        collectRootBuffers(yield.getOperand(result.getResultNumber()), roots);
}

/// Whether the buffer `root` is a fresh allocation.
inline bool isAllocation(Value root) {
  return root.getDefiningOp<gpu::AllocOp>() ||
         root.getDefiningOp<memref::AllocOp>() ||
         root.getDefiningOp<memref::AllocaOp>();
}

/// Whether `root` is an argument of the function.
inline bool isFunctionArgument(Value root) {
  auto arg = dyn_cast<BlockArgument>(root);
  return arg && isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
}

/// Whether `root` is shared or private memory of a kernel.
inline bool isKernelLocal(Value root) {
  auto type = dyn_cast<BaseMemRefType>(root.getType());
  auto space =
      type ? dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace())
           : nullptr;
  return space && space.getValue() != gpu::AddressSpace::Global;
}

/// Whether two different roots may be the same buffer: an allocation is
/// distinct from every other allocation and from the function's arguments,
/// a kernel's shared or private memory from everything else. A buffer of
/// unknown origin (a loop's result, a call's) may be any other.
inline bool mayBeSame(Value x, Value y) {
  if (x == y)
    return true;
  if (isKernelLocal(x) || isKernelLocal(y))
    return false;
  if (isAllocation(x))
    return !isAllocation(y) && !isFunctionArgument(y);
  if (isAllocation(y))
    return !isFunctionArgument(x);
  return true;
}

/// Whether the memrefs `a` and `b` may view the same buffer.
inline bool mayAlias(Value a, Value b) {
  llvm::SetVector<Value> rootsA, rootsB;
  collectRootBuffers(a, rootsA);
  collectRootBuffers(b, rootsB);
  for (Value x : rootsA)
    for (Value y : rootsB)
      if (mayBeSame(x, y))
        return true;
  return false;
}

/// The memory an op (a launch, or host code) reads and writes: the memrefs
/// it accesses, not their roots (`mayAlias` finds those). Buffers the op
/// makes itself (a kernel's shared memory, an alloca in its body) are its
/// own and left out. `unknown`: an access that names no buffer, or an op
/// whose effects are not known.
struct Accesses {
  llvm::SetVector<Value> reads, writes;
  bool unknown = false;
};

/// Whether `value` is made inside `op` (a kernel's own memory).
inline bool isDefinedIn(Value value, Operation *op) {
  Region *region = value.getParentRegion();
  return region && op->isAncestor(region->getParentOp());
}

inline Accesses collectAccesses(Operation *op) {
  Accesses accesses;
  auto note = [&](Value value, bool write) {
    if (!isa<BaseMemRefType>(value.getType()))
      return;
    // (A view made inside the op of a buffer from outside is an access of
    // that buffer.)
    Value root = rootBuffer(value);
    if (isDefinedIn(root, op) || isKernelLocal(root))
      return;
    (write ? accesses.writes : accesses.reads).insert(value);
  };
  op->walk([&](Operation *nested) {
    // A call of a function of the module (the deallocation helper) reads
    // and writes at most the buffers passed to it; an external one may do
    // anything.
    if (auto call = dyn_cast<func::CallOp>(nested)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!callee || callee.isExternal())
        accesses.unknown = true;
      for (Value operand : call.getOperands())
        note(operand, /*write=*/true);
      return;
    }
    auto iface = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!iface) {
      // Known not to touch memory itself: its regions are walked.
      if (!nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
          !nested->hasTrait<OpTrait::IsTerminator>() &&
          !isa<gpu::BarrierOp>(nested))
        accesses.unknown = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      // Allocating is no access: a buffer made between two kernels is used
      // by neither before it exists (the SSA use keeps the order).
      if (isa<MemoryEffects::Allocate>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value) {
        accesses.unknown = true;
        continue;
      }
      note(value, !isa<MemoryEffects::Read>(effect.getEffect()));
    }
  });
  return accesses;
}

} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_TRANSFORMS_GPUHOSTCODE_H
