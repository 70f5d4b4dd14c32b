//===- CheckExtents.cpp - --sift-check-extents ----------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "sift/Conversion/SiftToLinalg/SiftToLinalg.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTCHECKEXTENTS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {
/// See SiftCheckExtents in Passes.td.
struct CheckExtentsPass : sift::impl::SiftCheckExtentsBase<CheckExtentsPass> {
  using Base::Base;

  static constexpr StringLiteral kFailFn = "sift_rt_fail";

  /// Whether `op` runs on the thread that called the function.
  static bool onCallingThread(Operation *op) {
    for (Operation *parent = op->getParentOp(); parent;
         parent = parent->getParentOp()) {
      if (isa<FunctionOpInterface>(parent))
        return true;
      if (!isa<scf::ForOp, scf::IfOp, scf::WhileOp>(parent))
        return false;
    }
    return false;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> ops;
    module.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && onCallingThread(op))
        ops.push_back(op);
    });
    bool declared = false;
    for (linalg::LinalgOp op : ops) {
      // Per loop dimension, the operand dimensions it is read from.
      SmallVector<SmallVector<std::pair<Value, int64_t>>> sources(
          op.getNumLoops());
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isa<RankedTensorType>(operand.get().getType()))
          continue;
        AffineMap map = op.getMatchingIndexingMap(&operand);
        for (auto [i, expr] : llvm::enumerate(map.getResults()))
          if (auto dim = dyn_cast<AffineDimExpr>(expr))
            sources[dim.getPosition()].push_back({operand.get(), i});
      }
      OpBuilder b(op);
      auto isStatic = [](std::pair<Value, int64_t> source) {
        return !cast<RankedTensorType>(source.first.getType())
                    .isDynamicDim(source.second);
      };
      for (auto &dimSources : sources) {
        for (size_t i = 1; i < dimSources.size(); ++i) {
          if (dimSources[i] == dimSources[0] ||
              (isStatic(dimSources[0]) && isStatic(dimSources[i])))
            continue; // The same extent, or checked by the verifier.
          if (!declared && failed(declareFailFn(module)))
            return signalPassFailure();
          declared = true;
          auto [x, dx] = dimSources[0];
          auto [y, dy] = dimSources[i];
          emitExtentCheck(b, op.getLoc(), x, dx, y, dy);
        }
      }
    }
  }

  /// Declares `func.func private @sift_rt_fail(i64, i64, i64, i64)` at the
  /// end of `module` unless it is there.
  static LogicalResult declareFailFn(ModuleOp module) {
    Builder b(module.getContext());
    Type i64 = b.getI64Type();
    auto type = b.getFunctionType({i64, i64, i64, i64}, {});
    if (auto existing = module.lookupSymbol<func::FuncOp>(kFailFn)) {
      if (existing.getFunctionType() == type)
        return success();
      return existing.emitError()
             << "cannot declare the runtime function " << kFailFn
             << ": a function of that name exists";
    }
    if (Operation *other = module.lookupSymbol(kFailFn))
      return other->emitError()
             << "cannot declare the runtime function " << kFailFn
             << ": the module has another symbol of that name";
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    func::FuncOp::create(builder, module.getLoc(), kFailFn, type).setPrivate();
    return success();
  }
};
} // namespace
