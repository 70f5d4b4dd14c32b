//===- Bounds.cpp - Constant upper bounds of index values -----------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Bounds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

using namespace mlir;

/// ValueBounds' constant bound of `upper - lower` (or `upper`) of `type`.
static FailureOr<int64_t> bound(presburger::BoundType type, Value upper,
                                Value lower) {
  if (!lower)
    return ValueBoundsConstraintSet::computeConstantBound(
        type, ValueBoundsConstraintSet::Variable(upper),
        /*stopCondition=*/nullptr, /*closedUB=*/true);
  MLIRContext *context = upper.getContext();
  AffineMap difference = AffineMap::get(
      2, 0, getAffineDimExpr(0, context) - getAffineDimExpr(1, context));
  return ValueBoundsConstraintSet::computeConstantBound(
      type,
      ValueBoundsConstraintSet::Variable(difference, ValueRange{upper, lower}),
      /*stopCondition=*/nullptr, /*closedUB=*/true);
}

/// Whether `v` is known to be non-negative.
static bool isNonNegative(Value v) {
  FailureOr<int64_t> low =
      bound(presburger::BoundType::LB, v, /*lower=*/nullptr);
  return succeeded(low) && *low >= 0;
}

FailureOr<int64_t> sift::constantUpperBound(Value upper, Value lower,
                                            bool assumeNonNegative) {
  FailureOr<int64_t> least = bound(presburger::BoundType::UB, upper, lower);
  auto keepLeast = [&](FailureOr<int64_t> b) {
    if (succeeded(b) && (failed(least) || *b < *least))
      least = b;
  };
  // min(a, b) <= a: a minimum above is bounded through each operand (for
  // an unsigned one, a non-negative operand).
  Operation *def = upper.getDefiningOp();
  if (isa_and_nonnull<arith::MinSIOp, arith::MinUIOp>(def)) {
    for (Value operand : def->getOperands()) {
      if (isa<arith::MinUIOp>(def) && !assumeNonNegative &&
          !isNonNegative(operand))
        continue;
      keepLeast(constantUpperBound(operand, lower, assumeNonNegative));
    }
  }
  // x - max(a, b) <= x - a: a maximum below, through each operand (for an
  // unsigned one, when both are non-negative).
  Operation *lowerDef = lower ? lower.getDefiningOp() : nullptr;
  if (isa_and_nonnull<arith::MaxSIOp, arith::MaxUIOp>(lowerDef) &&
      (isa<arith::MaxSIOp>(lowerDef) || assumeNonNegative ||
       llvm::all_of(lowerDef->getOperands(), isNonNegative)))
    for (Value operand : lowerDef->getOperands())
      keepLeast(constantUpperBound(upper, operand, assumeNonNegative));
  return least;
}
