//===- Bounds.h - Constant upper bounds of index values ---------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// What the passes that size or count something ask of ValueBounds: a
// constant upper bound of an index value (a buffer's dynamic size) or of a
// difference of two (a loop's `ub - lb`).
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_TRANSFORMS_BOUNDS_H
#define SIFT_TRANSFORMS_BOUNDS_H

#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
namespace sift {

/// The least constant upper bound of `upper - lower` (of `upper` when
/// `lower` is null) that ValueBoundsConstraintSet proves, where `upper` is
/// also bounded through the operands of the `arith.minsi` / `arith.minui`
/// that defines it, recursively: `lower-affine` makes those of an
/// `affine.min` (a tile `min(lb + T, n)`), which ValueBoundsOpInterface
/// does not model; and a `lower` defined by an `arith.maxsi` / `arith.maxui`
/// through each of its operands (a loop from `max(begin, end)`). An
/// operand of a `minui` bounds it only where it is known to be
/// non-negative (a negative one is a large unsigned value), those of a
/// `maxui` where both are, or
/// with `assumeNonNegative`, for a heuristic that only needs a likely bound
/// (a loop's trip count: index loop bounds are non-negative in practice,
/// and ValueBounds knows nothing of an `scf.parallel`'s induction
/// variables).
FailureOr<int64_t> constantUpperBound(Value upper, Value lower = nullptr,
                                      bool assumeNonNegative = false);

} // namespace sift
} // namespace mlir

#endif // SIFT_TRANSFORMS_BOUNDS_H
