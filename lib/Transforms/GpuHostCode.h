//===- GpuHostCode.h - Host code of the GPU pipeline -----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_TRANSFORMS_GPUHOSTCODE_H
#define SIFT_LIB_TRANSFORMS_GPUHOSTCODE_H

#include "BufferRoots.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
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

} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_TRANSFORMS_GPUHOSTCODE_H
