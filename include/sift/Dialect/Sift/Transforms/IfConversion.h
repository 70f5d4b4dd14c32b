//===- IfConversion.h - Branches run both ways, then selected ---*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The rule --sift-staticize and --sift-batch share for an `scf.if` whose
// condition is data (a count, a per-row value): run both branches and
// select. A branch's ops then also run where the branch is not taken, on
// values that may be garbage there (an index `n - 1` with `n = 0`, a
// divisor 0), so they are first made harmless there: indices clamped into
// their static tensor, a write storing back the element it replaces, a
// divisor of 1. The same guards let --sift-staticize run a loop over
// range(count) to the count's bound.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_DIALECT_SIFT_TRANSFORMS_IFCONVERSION_H
#define SIFT_DIALECT_SIFT_TRANSFORMS_IFCONVERSION_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir {
namespace sift {

/// Ops a caller has already replaced and will erase (ignored).
using IgnoredOps = function_ref<bool(Operation *)>;

/// Integer division and remainder: pure in MLIR's model, but they trap on a
/// zero divisor (and INT_MIN / -1).
bool isIntDivision(Operation &op);

/// An element value on which no op traps (1), or null for other types.
TypedAttr harmlessValue(Type elem);

/// The first op of `block` (its terminator and `ignored` ops excepted) that
/// cannot run where its branch or iteration is not taken, even guarded by
/// `guardSpeculated`; null when all can. Those that can: pure ops without
/// regions, `tensor.extract` and `tensor.insert` of static non-empty
/// tensors, integer division, and pure region ops (`linalg` bodies, nested
/// `scf.if`) with no division, element access or loop inside.
Operation *findUnspeculatable(Block &block, IgnoredOps ignored = nullptr);

/// Makes the ops of `block` harmless where the i1 `valid` is false, so that
/// they can run unconditionally: indices are clamped into their tensor, a
/// `tensor.insert` stores back the element it replaces, a divisor is 1.
void guardSpeculated(Block &block, Value valid, IgnoredOps ignored = nullptr);

/// If-converts `ifOp`, which has results and an else branch whose blocks
/// `findUnspeculatable` accepts: both branches move before it, guarded by
/// the condition and its negation, and each result becomes an
/// `arith.select` of the two yielded values. `ifOp` is erased; the selects
/// that replace its results are returned.
SmallVector<Value> ifConvertToSelects(scf::IfOp ifOp,
                                      IgnoredOps ignored = nullptr);

} // namespace sift
} // namespace mlir

#endif // SIFT_DIALECT_SIFT_TRANSFORMS_IFCONVERSION_H
