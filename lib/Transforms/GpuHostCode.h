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

} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_TRANSFORMS_GPUHOSTCODE_H
