//===- SizeBounds.h - Constant bounds of data-dependent sizes ---*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The bounds --sift-staticize pads to and --sift-report-bounds reports: an
// upper bound for every size (index scalar or dynamic tensor dimension) that
// the program implies, from upstream ValueBounds first, then interval rules
// for what it does not model (min, max, select, division, sift ops) and a
// bound by cases over the selects a size is computed from.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_DIALECT_SIFT_ANALYSIS_SIZEBOUNDS_H
#define SIFT_DIALECT_SIFT_ANALYSIS_SIZEBOUNDS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Value.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <string>

namespace mlir {
namespace sift {

/// Constant bounds of sizes: index-typed scalars and dynamic tensor
/// dimensions. Upper bounds come first from ValueBoundsConstraintSet; the
/// scalar arithmetic it does not model (min, max, select, division) is
/// evaluated as intervals here. Sizes are non-negative, so the unsigned
/// min/max of two sizes equals the signed one.
class SizeBounds {
public:
  std::optional<int64_t> upper(Value v) { return bound(v, /*isUpper=*/true); }
  std::optional<int64_t> lower(Value v) { return bound(v, /*isUpper=*/false); }

  /// Upper bound of dimension `dim` of the tensor `v`.
  std::optional<int64_t> upperDim(Value v, int64_t dim) {
    auto type = cast<RankedTensorType>(v.getType());
    if (!type.isDynamicDim(dim))
      return type.getDimSize(dim);
    auto key = std::make_pair(v, dim);
    if (auto it = dimCache.find(key); it != dimCache.end())
      return it->second;
    dimCache[key] = std::nullopt; // Breaks cycles.
    std::optional<int64_t> result = computeUpperDim(v, dim);
    dimCache[key] = result;
    return result;
  }

  /// Where the upper bound of `v` (of dimension `dim` of the tensor `v`)
  /// came from, in a few words, once `upper` (`upperDim`) has computed it:
  /// the rule that gave it (upstream ValueBounds, a user bound, the
  /// interval rule of an op, cases over the selects and branches of a size
  /// computation, an op's own rule). Empty if there is no bound.
  std::string whyUpper(Value v) const { return upperWhy.lookup(v); }
  std::string whyUpperDim(Value v, int64_t dim) const {
    return dimWhy.lookup(std::make_pair(v, dim));
  }

private:
  std::optional<int64_t> bound(Value v, bool isUpper) {
    auto &cache = isUpper ? upperCache : lowerCache;
    if (auto it = cache.find(v); it != cache.end())
      return it->second;
    cache[v] = std::nullopt; // Breaks cycles.
    std::optional<int64_t> result = computeBound(v, isUpper);
    cache[v] = result;
    return result;
  }

  std::optional<int64_t> fromValueBounds(ValueBoundsConstraintSet::Variable var,
                                         bool isUpper) {
    // Upstream's models of arith ops bound index scalars only: the dimension
    // of an elementwise op on tensors (`arith.subi` of two selections) is
    // not traversed, it crashes there; the elementwise rule below bounds it.
    auto stop = [](Value v, std::optional<int64_t>,
                   ValueBoundsConstraintSet &) {
      Operation *def = v.getDefiningOp();
      return def && isa<ShapedType>(v.getType()) &&
             def->hasTrait<OpTrait::Elementwise>();
    };
    FailureOr<int64_t> b = ValueBoundsConstraintSet::computeConstantBound(
        isUpper ? presburger::BoundType::UB : presburger::BoundType::LB, var,
        stop, /*closedUB=*/true);
    if (failed(b))
      return std::nullopt;
    return *b;
  }

  std::optional<int64_t> computeBound(Value v, bool isUpper);
  std::optional<int64_t> computeUpperDim(Value v, int64_t dim);
  /// An upper bound of the sum of `terms` by cases over the selects and
  /// branches they are computed from (see SizeBounds.cpp), with the number
  /// of conditions it split on.
  std::optional<int64_t> caseSplitUpper(ArrayRef<Value> terms,
                                        unsigned *numConditions = nullptr);
  std::optional<int64_t> computeIntervalBound(Value v, Operation *def,
                                              bool isUpper);
  /// The bound of dimension `dim` of the `i`th tensor carried by `forOp`:
  /// its initial value's, when no iteration yields a larger one.
  std::optional<int64_t> carriedUpperDim(scf::ForOp forOp, unsigned i,
                                         int64_t dim);

  DenseMap<Value, std::optional<int64_t>> upperCache, lowerCache;
  DenseMap<std::pair<Value, int64_t>, std::optional<int64_t>> dimCache;
  DenseMap<Value, std::string> upperWhy;
  DenseMap<std::pair<Value, int64_t>, std::string> dimWhy;
};

} // namespace sift
} // namespace mlir

#endif // SIFT_DIALECT_SIFT_ANALYSIS_SIZEBOUNDS_H
