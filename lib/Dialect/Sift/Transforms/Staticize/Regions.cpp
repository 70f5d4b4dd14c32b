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

void Staticizer::ifConvert(scf::IfOp ifOp) {
  // `k = 4 if n > 4 else n`, `x[m][n - 1] if n > 0 else 0` with n a count:
  // run both branches, guarded, and select, instead of a host branch on
  // device data (the rule --sift-batch applies to per-row conditions).
  auto ignored = [&](Operation *op) { return toErase.contains(op); };
  if (ifOp.getNumResults() == 0 || ifOp.getElseRegion().empty() ||
      !findHostRead(ifOp.getCondition()) ||
      findUnspeculatable(*ifOp.thenBlock(), ignored) ||
      findUnspeculatable(*ifOp.elseBlock(), ignored))
    return;
  ifConvertToSelects(ifOp, ignored);
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
      findHostRead(forOp.getStep()) || !ub.getType().isIndex() ||
      findUnspeculatable(*forOp.getBody(),
                         [&](Operation *op) { return toErase.contains(op); }))
    return;
  Block *body = forOp.getBody();
  ImplicitLocOpBuilder b(forOp.getLoc(), body, body->begin());
  Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::slt,
                                      forOp.getInductionVar(), ub);
  guardSpeculated(*body, valid,
                  [&](Operation *op) { return toErase.contains(op); });
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
