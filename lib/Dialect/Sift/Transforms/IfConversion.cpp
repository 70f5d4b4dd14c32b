//===- IfConversion.cpp - Branches run both ways, then selected -----------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/Transforms/IfConversion.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::sift;

bool sift::isIntDivision(Operation &op) {
  return isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
             arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op);
}

TypedAttr sift::harmlessValue(Type elem) {
  Builder b(elem.getContext());
  if (isa<FloatType>(elem))
    return b.getFloatAttr(elem, 1.0);
  if (isa<IntegerType, IndexType>(elem))
    return b.getIntegerAttr(elem, 1);
  return {};
}

/// Whether `tensor` is a static tensor with at least one element, so that
/// any index can be clamped into it.
static bool isClampable(Value tensor) {
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  return type && type.hasStaticShape() && type.getNumElements() > 0;
}

/// Whether the region op `op` can run on arbitrary values unguarded: pure,
/// and nothing inside divides, indexes a tensor or loops (a trip count of
/// garbage).
static bool isSafeRegionOp(Operation *op) {
  if (!isPure(op))
    return false;
  WalkResult unsafe = op->walk([&](Operation *nested) {
    if (nested == op)
      return WalkResult::advance();
    if (isIntDivision(*nested) ||
        isa<tensor::ExtractOp, tensor::InsertOp, LoopLikeOpInterface>(nested) ||
        !isPure(nested))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !unsafe.wasInterrupted();
}

Operation *sift::findUnspeculatable(Block &block, IgnoredOps ignored) {
  for (Operation &op : block.without_terminator()) {
    if (ignored && ignored(&op))
      continue;
    bool ok;
    if (auto extract = dyn_cast<tensor::ExtractOp>(op))
      ok = isClampable(extract.getTensor());
    else if (auto insert = dyn_cast<tensor::InsertOp>(op))
      ok = isClampable(insert.getDest());
    else if (isIntDivision(op))
      ok = true; // guardSpeculated guards the divisor.
    else if (op.getNumRegions() != 0)
      ok = isSafeRegionOp(&op);
    else
      ok = isPure(&op) && !isa<memref::LoadOp>(op);
    if (!ok)
      return &op;
  }
  return nullptr;
}

void sift::guardSpeculated(Block &block, Value valid, IgnoredOps ignored) {
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    if (ignored && ignored(&op))
      continue;
    ImplicitLocOpBuilder b(op.getLoc(), &op);
    auto clampIndices = [&](Value tensor, MutableOperandRange indices) {
      auto shape = cast<RankedTensorType>(tensor.getType()).getShape();
      Value zero = arith::ConstantIndexOp::create(b, 0);
      for (auto [i, operand] : llvm::enumerate(indices)) {
        Value last = arith::ConstantIndexOp::create(b, shape[i] - 1);
        operand.set(arith::MaxSIOp::create(
            b, arith::MinSIOp::create(b, operand.get(), last), zero));
      }
    };
    if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
      clampIndices(extract.getTensor(), extract.getIndicesMutable());
    } else if (auto insert = dyn_cast<tensor::InsertOp>(op)) {
      clampIndices(insert.getDest(), insert.getIndicesMutable());
      Value old =
          tensor::ExtractOp::create(b, insert.getDest(), insert.getIndices());
      insert.getScalarMutable().set(
          arith::SelectOp::create(b, valid, insert.getScalar(), old));
    } else if (isIntDivision(op)) {
      Value divisor = op.getOperand(1);
      Type elem = getElementTypeOrSelf(divisor.getType());
      TypedAttr one = harmlessValue(elem);
      if (auto shaped = dyn_cast<ShapedType>(divisor.getType()))
        one = DenseElementsAttr::get(shaped, one);
      Value safe = arith::ConstantOp::create(b, one);
      op.setOperand(1, arith::SelectOp::create(b, valid, divisor, safe));
    }
  }
}

SmallVector<Value> sift::ifConvertToSelects(scf::IfOp ifOp,
                                            IgnoredOps ignored) {
  Value cond = ifOp.getCondition();
  ImplicitLocOpBuilder b(ifOp.getLoc(), ifOp);
  Value notCond = arith::XOrIOp::create(
      b, cond, arith::ConstantIntOp::create(b, b.getI1Type(), 1));
  guardSpeculated(*ifOp.thenBlock(), cond, ignored);
  guardSpeculated(*ifOp.elseBlock(), notCond, ignored);
  Block *parent = ifOp->getBlock();
  auto hoist = [&](Block *block) {
    parent->getOperations().splice(ifOp->getIterator(), block->getOperations(),
                                   block->begin(),
                                   block->getTerminator()->getIterator());
    return block->getTerminator()->getOperands();
  };
  ValueRange thenValues = hoist(ifOp.thenBlock());
  ValueRange elseValues = hoist(ifOp.elseBlock());
  b.setInsertionPoint(ifOp);
  SmallVector<Value> selects;
  for (auto [result, t, e] :
       llvm::zip_equal(ifOp.getResults(), thenValues, elseValues)) {
    selects.push_back(arith::SelectOp::create(b, cond, t, e));
    result.replaceAllUsesWith(selects.back());
  }
  ifOp->erase();
  return selects;
}
