//===- Regions.cpp - Staticize rules of branches and loops ----------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Staticizer.h"

using namespace mlir;
using namespace mlir::sift;

namespace mlir {
namespace sift {
namespace staticize {

/// Whether `value`'s type is a static tensor with at least one element, so
/// that any index can be clamped into it.
static bool isClampable(Value tensor) {
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  return type && type.hasStaticShape() && type.getNumElements() > 0;
}

/// Whether the ops of `block` (but its terminator) can run whether or not
/// their branch or iteration is taken, once `speculate` has guarded them:
/// pure ops without regions, and reads and writes of static tensors.
static bool canSpeculate(Block &block,
                         const llvm::SetVector<Operation *> &dead) {
  return llvm::all_of(block.without_terminator(), [&](Operation &op) {
    if (dead.contains(&op))
      return true;
    if (op.getNumRegions() != 0)
      return false;
    if (auto extract = dyn_cast<tensor::ExtractOp>(op))
      return isClampable(extract.getTensor());
    if (auto insert = dyn_cast<tensor::InsertOp>(op))
      return isClampable(insert.getDest());
    if (isIntDivision(op))
      return true; // `speculate` guards the divisor.
    return isPure(&op) && !isa<memref::LoadOp>(op);
  });
}

/// Makes the ops of `block` harmless where the i1 `valid` is false, so that
/// they can run unconditionally: indices are clamped into their tensor (an
/// index such as `n - 1` is only in range in its branch), a write stores back
/// the element it replaces, and a divisor is 1 (no trap on a padding zero).
static void speculate(Block &block, Value valid,
                      const llvm::SetVector<Operation *> &dead) {
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    if (dead.contains(&op))
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

void Staticizer::ifConvert(scf::IfOp ifOp) {
  // `k = 4 if n > 4 else n`, `x[m][n - 1] if n > 0 else 0` with n a count:
  // run both branches, guarded, and select, instead of a host branch on
  // device data.
  if (ifOp.getNumResults() == 0 || ifOp.getElseRegion().empty() ||
      !findHostRead(ifOp.getCondition()) ||
      !canSpeculate(*ifOp.thenBlock(), toErase) ||
      !canSpeculate(*ifOp.elseBlock(), toErase))
    return;
  Value cond = ifOp.getCondition();
  ImplicitLocOpBuilder b(ifOp.getLoc(), ifOp);
  Value notCond = arith::XOrIOp::create(
      b, cond, arith::ConstantIntOp::create(b, b.getI1Type(), 1));
  speculate(*ifOp.thenBlock(), cond, toErase);
  speculate(*ifOp.elseBlock(), notCond, toErase);
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
  for (auto [result, t, e] :
       llvm::zip_equal(ifOp.getResults(), thenValues, elseValues))
    result.replaceAllUsesWith(
        arith::SelectOp::create(b, cond, t, e).getResult());
  ifOp->erase();
  ++numSyncsRemoved;
}

/// Whether `value` is `base` with elements replaced by `tensor.insert`s only
/// (which store back what they replace on an invalid iteration).
static bool isInsertChainOf(Value value, Value base) {
  while (auto insert = value.getDefiningOp<tensor::InsertOp>())
    value = insert.getDest();
  return value == base;
}

void Staticizer::staticizeLoop(scf::ForOp forOp, int64_t bound) {
  // `for k in range(count)` runs to the count's bound; an iteration at or
  // past the count is guarded and leaves the loop-carried values as they
  // are.
  Value ub = forOp.getUpperBound();
  if (!findHostRead(ub) || findHostRead(forOp.getLowerBound()) ||
      findHostRead(forOp.getStep()) ||
      !canSpeculate(*forOp.getBody(), toErase) || !ub.getType().isIndex())
    return;
  Block *body = forOp.getBody();
  ImplicitLocOpBuilder b(forOp.getLoc(), body, body->begin());
  Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::slt,
                                      forOp.getInductionVar(), ub);
  speculate(*body, valid, toErase);
  Operation *yield = body->getTerminator();
  b.setInsertionPoint(yield);
  for (auto [operand, iterArg] :
       llvm::zip_equal(yield->getOpOperands(), forOp.getRegionIterArgs()))
    if (!isInsertChainOf(operand.get(), iterArg))
      operand.set(arith::SelectOp::create(b, valid, operand.get(), iterArg));
  b.setInsertionPoint(forOp);
  forOp.getUpperBoundMutable().set(arith::ConstantIndexOp::create(b, bound));
  ++numSyncsRemoved;
}

} // namespace staticize
} // namespace sift
} // namespace mlir
