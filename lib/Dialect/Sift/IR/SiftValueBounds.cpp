//===- SiftValueBounds.cpp - ValueBoundsOpInterface of sift ops -*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// What each sift op tells ValueBoundsConstraintSet about the dimensions of
// its results (an upper bound for the data-dependent ones: nonzero, unique,
// masked_select select at most every element; an equality for the others),
// and what count-producing ops tell integer range analysis about their
// values. These are the facts --sift-staticize turns into static sizes.
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/IR/SiftOps.h"

using namespace mlir;
using namespace mlir::sift;

/// The number of elements of the leading `rank` dimensions of `value`, as an
/// affine expression, or null when it is not affine (two dynamic factors).
static AffineExpr numElementsExpr(Value value, int64_t rank,
                                  ValueBoundsConstraintSet &cstr) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t constant = 1;
  AffineExpr dynamic;
  for (int64_t d = 0; d < rank; ++d) {
    if (!type.isDynamicDim(d)) {
      constant *= type.getDimSize(d);
      continue;
    }
    if (dynamic)
      return {};
    dynamic = cstr.getExpr(value, d);
  }
  return dynamic ? dynamic * constant : cstr.getExpr(constant);
}

/// Bounds the data-dependent leading dimension of a selection result by the
/// number of candidate elements.
static void boundSelection(Value result, int64_t dim, Value candidates,
                           int64_t candidateRank,
                           ValueBoundsConstraintSet &cstr) {
  assert(dim == 0 && "only the leading dimension is data-dependent");
  cstr.bound(result)[dim] >= 0;
  if (AffineExpr n = numElementsExpr(candidates, candidateRank, cstr))
    cstr.bound(result)[dim] <= n;
}

void NonzeroOp::populateBoundsForShapedValueDim(
    Value value, int64_t dim, ValueBoundsConstraintSet &cstr) {
  auto type = cast<RankedTensorType>(getInput().getType());
  if (dim == 1) {
    cstr.bound(value)[dim] == type.getRank();
    return;
  }
  boundSelection(value, dim, getInput(), type.getRank(), cstr);
}

void UniqueOp::populateBoundsForShapedValueDim(Value value, int64_t dim,
                                               ValueBoundsConstraintSet &cstr) {
  auto type = cast<RankedTensorType>(getInput().getType());
  if (value == getInverse()) {
    cstr.bound(value)[dim] == cstr.getExpr(getInput(), dim);
    return;
  }
  if (value == getCounts())
    cstr.bound(value)[dim] == cstr.getExpr(getValues(), dim);
  boundSelection(value, dim, getInput(), type.getRank(), cstr);
}

void MaskedSelectOp::populateBoundsForShapedValueDim(
    Value value, int64_t dim, ValueBoundsConstraintSet &cstr) {
  int64_t maskRank = cast<RankedTensorType>(getMask().getType()).getRank();
  if (dim > 0) {
    cstr.bound(value)[dim] == cstr.getExpr(getInput(), maskRank + dim - 1);
    return;
  }
  boundSelection(value, dim, getMask(), maskRank, cstr);
}

void RandpermOp::populateBoundsForShapedValueDim(
    Value value, int64_t dim, ValueBoundsConstraintSet &cstr) {
  cstr.bound(value)[dim] == cstr.getExpr(getN());
}

void GatherOp::populateBoundsForShapedValueDim(Value value, int64_t dim,
                                               ValueBoundsConstraintSet &cstr) {
  int64_t idxRank = getIndices().getType().getRank();
  if (dim < idxRank)
    cstr.bound(value)[dim] == cstr.getExpr(getIndices(), dim);
  else
    cstr.bound(value)[dim] ==
        cstr.getExpr(getSource(), dim - idxRank + getBatchDims() + 1);
}

void ScatterOp::populateBoundsForShapedValueDim(
    Value value, int64_t dim, ValueBoundsConstraintSet &cstr) {
  cstr.bound(value)[dim] == cstr.getExpr(getDest(), dim);
}

/// Results of the shape of the input (sort, argsort, cumsum).
static void sameShapeAsInput(Value input, Value value, int64_t dim,
                             ValueBoundsConstraintSet &cstr) {
  cstr.bound(value)[dim] == cstr.getExpr(input, dim);
}

void SortOp::populateBoundsForShapedValueDim(Value value, int64_t dim,
                                             ValueBoundsConstraintSet &cstr) {
  sameShapeAsInput(getInput(), value, dim, cstr);
}

void ArgsortOp::populateBoundsForShapedValueDim(
    Value value, int64_t dim, ValueBoundsConstraintSet &cstr) {
  sameShapeAsInput(getInput(), value, dim, cstr);
}

void CumsumOp::populateBoundsForShapedValueDim(Value value, int64_t dim,
                                               ValueBoundsConstraintSet &cstr) {
  sameShapeAsInput(getInput(), value, dim, cstr);
}

void TopkOp::populateBoundsForShapedValueDim(Value value, int64_t dim,
                                             ValueBoundsConstraintSet &cstr) {
  if (dim == getAxis())
    cstr.bound(value)[dim] == static_cast<int64_t>(getK());
  else
    sameShapeAsInput(getInput(), value, dim, cstr);
}

/// The range [0, n] as signed 64-bit integers (n = -1: unknown, [0, max]).
static ConstantIntRanges countRange(int64_t n) {
  APInt lo(64, 0);
  APInt hi = n < 0 ? APInt::getSignedMaxValue(64) : APInt(64, n);
  return ConstantIntRanges::fromSigned(lo, hi);
}

void CountOp::inferResultRanges(ArrayRef<ConstantIntRanges> argRanges,
                                SetIntRangeFn setResultRange) {
  int64_t n = getInput().getType().getShape().back();
  setResultRange(getResult(), countRange(ShapedType::isDynamic(n) ? -1 : n));
}

void CompactOp::inferResultRanges(ArrayRef<ConstantIntRanges> argRanges,
                                  SetIntRangeFn setResultRange) {
  int64_t k = getIndices().getType().getShape().back();
  int64_t n = getMask().getType().getShape().back();
  setResultRange(getCount(),
                 countRange(ShapedType::isDynamic(n) ? k : std::min(n, k)));
  // Valid lanes hold positions in [0, n); padding lanes hold `fill`, or
  // anything when unpadded.
  unsigned width = getIndices().getType().getElementTypeBitWidth();
  if (getUnpadded()) {
    setResultRange(getIndices(), ConstantIntRanges::maxRange(width));
    return;
  }
  int64_t fill = getFill();
  int64_t hi =
      ShapedType::isDynamic(n) ? INT64_MAX : std::max<int64_t>(n - 1, 0);
  // i32 indices (lines below 2^31) hold the fill truncated to 32 bits.
  APInt lo = APInt(64, std::min<int64_t>(fill, 0), true),
        up = APInt(64, std::max(fill, hi), true);
  if (width < 64 && (!lo.isSignedIntN(width) || !up.isSignedIntN(width))) {
    setResultRange(getIndices(), ConstantIntRanges::maxRange(width));
    return;
  }
  setResultRange(getIndices(), ConstantIntRanges::fromSigned(lo.trunc(width),
                                                             up.trunc(width)));
}
