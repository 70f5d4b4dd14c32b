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

FailureOr<int64_t> sift::constantUpperBound(Value upper, Value lower,
                                            bool assumeNonNegative) {
  FailureOr<int64_t> least = bound(presburger::BoundType::UB, upper, lower);
  Operation *def = upper.getDefiningOp();
  if (!isa_and_nonnull<arith::MinSIOp, arith::MinUIOp>(def))
    return least;
  for (Value operand : def->getOperands()) {
    if (isa<arith::MinUIOp>(def) && !assumeNonNegative) {
      FailureOr<int64_t> low =
          bound(presburger::BoundType::LB, operand, /*lower=*/nullptr);
      if (failed(low) || *low < 0)
        continue;
    }
    FailureOr<int64_t> b =
        constantUpperBound(operand, lower, assumeNonNegative);
    if (succeeded(b) && (failed(least) || *b < *least))
      least = b;
  }
  return least;
}
