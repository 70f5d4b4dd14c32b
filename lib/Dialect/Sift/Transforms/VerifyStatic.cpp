//===- VerifyStatic.cpp - Check that a module is fully static ---*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/IR/SiftOps.h"
#include "sift/Dialect/Sift/Transforms/HostReads.h"
#include "sift/Dialect/Sift/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTVERIFYSTATIC
#include "sift/Dialect/Sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

/// Whether `type` is a shaped type whose shape is not fully static.
static bool hasDynamicShape(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !isa<TensorType, BaseMemRefType>(type))
    return false;
  return !shaped.hasRank() || !shaped.hasStaticShape();
}

/// Whether an op's result shape depends on the values of its operands.
static bool isDataDependentShapeOp(Operation *op) {
  if (isa<NonzeroOp, UniqueOp, MaskedSelectOp>(op))
    return true;
  if (auto perm = dyn_cast<RandpermOp>(op))
    return perm.getType().isDynamicDim(0);
  return false;
}

/// The operands of a host control-flow op that decide where control goes.
static SmallVector<Value> controlOperands(Operation *op) {
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return {ifOp.getCondition()};
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return {forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep()};
  if (auto whileOp = dyn_cast<scf::WhileOp>(op))
    return {whileOp.getConditionOp().getCondition()};
  if (auto br = dyn_cast<cf::CondBranchOp>(op))
    return {br.getCondition()};
  if (auto sw = dyn_cast<cf::SwitchOp>(op))
    return {sw.getFlag()};
  return {};
}

struct SiftVerifyStaticPass
    : public sift::impl::SiftVerifyStaticBase<SiftVerifyStaticPass> {
  void runOnOperation() override {
    bool failed = false;
    auto report = [&](Operation *op) {
      failed = true;
      return op->emitError();
    };
    getOperation().walk([&](Operation *op) {
      if (isDataDependentShapeOp(op)) {
        report(op) << "data-dependent result shape remains: '" << op->getName()
                   << "' must be staticized "
                   << "(run --sift-staticize)";
        return;
      }
      if (auto func = dyn_cast<FunctionOpInterface>(op))
        for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
          if (hasDynamicShape(type))
            report(op) << "function result #" << i << " has a dynamic shape "
                       << type;
      for (OpResult result : op->getResults())
        if (hasDynamicShape(result.getType()))
          report(op) << "result #" << result.getResultNumber()
                     << " has a dynamic shape " << result.getType();
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (hasDynamicShape(arg.getType()))
              report(op) << "block argument #" << arg.getArgNumber()
                         << " has a dynamic shape " << arg.getType();
      // Control flow in a linalg body is each element's own branch, on the
      // device with the body: no host sync.
      if (op->getParentOfType<linalg::LinalgOp>())
        return;
      for (Value control : controlOperands(op))
        if (Operation *read = findHostRead(control)) {
          InFlightDiagnostic diag =
              report(op) << "host control flow depends on tensor data (a "
                            "device-to-host sync on a GPU)";
          diag.attachNote(read->getLoc()) << "the value is read here";
        }
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace

Operation *mlir::sift::findHostRead(Value value) {
  SmallVector<Value> worklist = {value};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || !seen.insert(def).second)
      continue;
    if (isa<tensor::ExtractOp, memref::LoadOp>(def))
      return def;
    // Shapes are static here, so only scalar data flows into conditions.
    for (Value operand : def->getOperands())
      if (!isa<ShapedType>(operand.getType()))
        worklist.push_back(operand);
  }
  return nullptr;
}
