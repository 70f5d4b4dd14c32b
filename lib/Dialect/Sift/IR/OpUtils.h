//===- OpUtils.h - Helpers of the sift ops' folders ------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Private to lib/Dialect/Sift/IR/: the axis checks of the verifiers and
// the compile-time element model of the folders, shared by SiftOps.cpp and
// SortOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_DIALECT_SIFT_IR_OPUTILS_H
#define SIFT_LIB_DIALECT_SIFT_IR_OPUTILS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

namespace mlir {
namespace sift {
namespace oputils {

/// Checks `dim` against `rank` (negative counts from the end) and returns the
/// normalized axis.
FailureOr<int64_t> checkAxis(std::optional<Location> loc, int64_t dim,
                             int64_t rank);

/// Two dimension sizes agree when either is dynamic or both are equal.
inline bool dimsAgree(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

inline RankedTensorType i64Tensor(MLIRContext *ctx, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, IntegerType::get(ctx, 64));
}

/// Folders expand constants element by element; they only run below this
/// many elements (inputs and results alike), so that a large or splat
/// constant never turns into gigabytes of attribute storage at compile time.
constexpr int64_t kMaxFoldElements = 1 << 16;

/// Whether every type in `types` is static with at most kMaxFoldElements
/// elements (the product is computed without overflow).
bool smallEnoughToFold(ArrayRef<ShapedType> types);

/// A compile-time element of an int or float constant.
struct ConstElem {
  APInt i;
  APFloat f = APFloat(0.0);
  bool isFloat = false;

  bool isNonZero() const { return isFloat ? !f.isZero() : !i.isZero(); }
};

SmallVector<ConstElem> getConstElems(DenseElementsAttr attr);

/// The total order of sift.sort: signed integers (i1 as 0 < 1); floats with
/// -0.0 == +0.0 and NaN above every number (NaNs equal to each other).
bool constLess(const ConstElem &a, const ConstElem &b);

/// Calls `fn(positions)` for every line of `shape` along `axis`, with the
/// row-major linear positions of that line's elements.
void forEachLine(ArrayRef<int64_t> shape, int64_t axis,
                 function_ref<void(ArrayRef<int64_t>)> fn);

/// Stable sort order of `elems` along `axis`: for each line, the positions
/// within the line in sorted order; `srcPos` gets, per output position, the
/// input position it comes from.
SmallVector<int64_t> stableOrder(ArrayRef<ConstElem> elems,
                                 ArrayRef<int64_t> shape, int64_t axis,
                                 bool descending,
                                 SmallVectorImpl<int64_t> &srcPos);

DenseElementsAttr elemsToAttr(ShapedType type, ArrayRef<ConstElem> elems);

} // namespace oputils
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_DIALECT_SIFT_IR_OPUTILS_H
