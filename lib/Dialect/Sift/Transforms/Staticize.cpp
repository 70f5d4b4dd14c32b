//===- Staticize.cpp - Data-dependent shapes to static padded form -*- C++ -*-//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// --sift-staticize rewrites every tensor whose leading dimension depends on
// data into a static padded tensor (the leading dimension replaced by a static
// upper bound) plus a validity count, and every consumer so that the first
// `count` rows of each padded result are exactly what the dynamic program
// computes. The rules are documented in docs/Staticize.md.
//
// The pass works in two steps per function:
//  1. bounds: every dynamic dimension and every index-typed size gets a
//     constant upper bound, from MLIR's ValueBoundsConstraintSet (the sift
//     ops implement ValueBoundsOpInterface) and, where that has no answer
//     (min/max/select of sizes), from an interval evaluation of the scalar
//     size arithmetic (SizeBounds below);
//  2. rewrite: a walk in program order that maps each dynamic value to its
//     padded form (a `Padded` record) and rewrites each op that touches one.
//     The original dynamic ops are erased at the end.
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/IR/SiftOps.h"
#include "sift/Dialect/Sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTSTATICIZE
#include "sift/Dialect/Sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

//===----------------------------------------------------------------------===//
// Bounds
//===----------------------------------------------------------------------===//

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
    FailureOr<int64_t> b = ValueBoundsConstraintSet::computeConstantBound(
        isUpper ? presburger::BoundType::UB : presburger::BoundType::LB, var,
        /*stopCondition=*/nullptr, /*closedUB=*/true);
    if (failed(b))
      return std::nullopt;
    return *b;
  }

  std::optional<int64_t> computeBound(Value v, bool isUpper);
  std::optional<int64_t> computeUpperDim(Value v, int64_t dim);
  std::optional<int64_t> caseSplitUpper(Value v);
  std::optional<int64_t> computeIntervalBound(Value v, Operation *def,
                                              bool isUpper);

  DenseMap<Value, std::optional<int64_t>> upperCache, lowerCache;
  DenseMap<std::pair<Value, int64_t>, std::optional<int64_t>> dimCache;
};

static std::optional<int64_t>
combine(std::optional<int64_t> a, std::optional<int64_t> b,
        function_ref<int64_t(int64_t, int64_t)> fn) {
  if (!a || !b)
    return std::nullopt;
  return fn(*a, *b);
}

static std::optional<int64_t> minOpt(std::optional<int64_t> a,
                                     std::optional<int64_t> b, bool either) {
  if (a && b)
    return std::min(*a, *b);
  return either ? (a ? a : b) : std::nullopt;
}

static std::optional<int64_t> maxOpt(std::optional<int64_t> a,
                                     std::optional<int64_t> b, bool either) {
  if (a && b)
    return std::max(*a, *b);
  return either ? (a ? a : b) : std::nullopt;
}

std::optional<int64_t> SizeBounds::computeBound(Value v, bool isUpper) {
  APInt cst;
  if (matchPattern(v, m_ConstantInt(&cst)))
    return cst.getSExtValue();
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // A size argument may carry a user-supplied bound.
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (func && arg.getOwner()->isEntryBlock()) {
      if (auto attr = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                         "sift.bound"))
        return isUpper ? std::optional<int64_t>(attr.getInt())
                       : std::optional<int64_t>(0);
    }
  }
  if (v.getType().isIndex())
    if (std::optional<int64_t> b = fromValueBounds(v, isUpper))
      return b;
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  // Size arithmetic that picks between branches (fill one group up from the
  // other) is tighter by cases than by intervals.
  if (isUpper && isa<arith::AddIOp, arith::SubIOp>(def))
    if (std::optional<int64_t> b = caseSplitUpper(v)) {
      std::optional<int64_t> interval = computeIntervalBound(v, def, isUpper);
      return interval ? std::min(*b, *interval) : *b;
    }
  return computeIntervalBound(v, def, isUpper);
}

std::optional<int64_t> SizeBounds::computeIntervalBound(Value v, Operation *def,
                                                        bool isUpper) {
  auto up = [&](Value x) { return upper(x); };
  auto lo = [&](Value x) { return lower(x); };
  auto nonNegative = [&](Value x) {
    std::optional<int64_t> l = lower(x);
    return l && *l >= 0;
  };
  return TypeSwitch<Operation *, std::optional<int64_t>>(def)
      .Case([&](tensor::DimOp op) -> std::optional<int64_t> {
        std::optional<int64_t> d = op.getConstantIndex();
        auto type = dyn_cast<RankedTensorType>(op.getSource().getType());
        if (!d || !type || *d < 0 || *d >= type.getRank())
          return std::nullopt;
        return isUpper ? upperDim(op.getSource(), *d)
                       : std::optional<int64_t>(0);
      })
      .Case([&](arith::IndexCastOp op) { return bound(op.getIn(), isUpper); })
      .Case([&](arith::IndexCastUIOp op) { return bound(op.getIn(), isUpper); })
      .Case([&](tensor::ExtractOp op) -> std::optional<int64_t> {
        // The value of a count is at most the length it counts.
        Operation *producer = op.getTensor().getDefiningOp();
        if (auto count = dyn_cast_if_present<CountOp>(producer)) {
          if (!isUpper)
            return 0;
          return upperDim(count.getInput(),
                          count.getInput().getType().getRank() - 1);
        }
        if (auto compact = dyn_cast_if_present<CompactOp>(producer);
            compact && op.getTensor() == compact.getCount()) {
          if (!isUpper)
            return 0;
          return compact.getIndices().getType().getShape().back();
        }
        return std::nullopt;
      })
      .Case<arith::MinSIOp, arith::MinUIOp>([&](auto op) {
        if (isa<arith::MinUIOp>(op) &&
            !(nonNegative(op.getLhs()) && nonNegative(op.getRhs())))
          return std::optional<int64_t>();
        return isUpper ? minOpt(up(op.getLhs()), up(op.getRhs()), true)
                       : minOpt(lo(op.getLhs()), lo(op.getRhs()), false);
      })
      .Case<arith::MaxSIOp, arith::MaxUIOp>([&](auto op) {
        if (isa<arith::MaxUIOp>(op) &&
            !(nonNegative(op.getLhs()) && nonNegative(op.getRhs())))
          return std::optional<int64_t>();
        return isUpper ? maxOpt(up(op.getLhs()), up(op.getRhs()), false)
                       : maxOpt(lo(op.getLhs()), lo(op.getRhs()), true);
      })
      .Case([&](arith::SelectOp op) {
        return isUpper ? maxOpt(up(op.getTrueValue()), up(op.getFalseValue()),
                                false)
                       : minOpt(lo(op.getTrueValue()), lo(op.getFalseValue()),
                                false);
      })
      .Case([&](arith::AddIOp op) {
        return combine(bound(op.getLhs(), isUpper), bound(op.getRhs(), isUpper),
                       [](int64_t a, int64_t b) { return a + b; });
      })
      .Case([&](arith::SubIOp op) {
        return combine(bound(op.getLhs(), isUpper),
                       bound(op.getRhs(), !isUpper),
                       [](int64_t a, int64_t b) { return a - b; });
      })
      .Case([&](arith::MulIOp op) -> std::optional<int64_t> {
        APInt c;
        Value other;
        if (matchPattern(op.getRhs(), m_ConstantInt(&c)))
          other = op.getLhs();
        else if (matchPattern(op.getLhs(), m_ConstantInt(&c)))
          other = op.getRhs();
        else
          return std::nullopt;
        int64_t k = c.getSExtValue();
        std::optional<int64_t> b = bound(other, k >= 0 ? isUpper : !isUpper);
        return b ? std::optional<int64_t>(*b * k) : std::nullopt;
      })
      .Case<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(
          [&](auto op) -> std::optional<int64_t> {
            APInt c;
            if (!matchPattern(op.getRhs(), m_ConstantInt(&c)) ||
                c.getSExtValue() <= 0 || !nonNegative(op.getLhs()))
              return std::nullopt;
            std::optional<int64_t> b = bound(op.getLhs(), isUpper);
            return b ? std::optional<int64_t>(*b / c.getSExtValue())
                     : std::nullopt;
          })
      .Case([&](arith::CeilDivSIOp op) -> std::optional<int64_t> {
        APInt c;
        if (!matchPattern(op.getRhs(), m_ConstantInt(&c)) ||
            c.getSExtValue() <= 0 || !nonNegative(op.getLhs()))
          return std::nullopt;
        std::optional<int64_t> b = bound(op.getLhs(), isUpper);
        int64_t k = c.getSExtValue();
        return b ? std::optional<int64_t>((*b + k - 1) / k) : std::nullopt;
      })
      .Case([&](scf::IfOp op) -> std::optional<int64_t> {
        // A size chosen by a branch is bounded by both branches' bounds.
        unsigned i = cast<OpResult>(v).getResultNumber();
        std::optional<int64_t> thenB =
            bound(op.thenYield().getOperand(i), isUpper);
        std::optional<int64_t> elseB =
            op.getElseRegion().empty()
                ? std::nullopt
                : bound(op.elseYield().getOperand(i), isUpper);
        return isUpper ? maxOpt(thenB, elseB, false)
                       : minOpt(thenB, elseB, false);
      })
      .Default([](Operation *) { return std::nullopt; });
}

namespace {
/// `constant + sum(coefficient * leaf)`: a bound on a size in terms of the
/// sizes it is computed from, so that a size that appears with opposite
/// signs cancels (k - n + n = k) instead of adding both intervals.
struct LinearBound {
  int64_t constant = 0;
  SmallVector<std::pair<Value, int64_t>> terms;

  void add(const LinearBound &other, int64_t scale) {
    constant += scale * other.constant;
    for (auto [leaf, coefficient] : other.terms) {
      auto it = llvm::find_if(terms, [&](auto &t) { return t.first == leaf; });
      if (it != terms.end())
        it->second += scale * coefficient;
      else
        terms.push_back({leaf, scale * coefficient});
    }
  }
};
} // namespace

/// An upper bound of `v` by cases: each `arith.select` condition of the size
/// computation is assumed true, then false (every combination); under an
/// assignment, a select is its chosen branch, `min(a, b)` is bounded by `a`
/// and by `b` (either), and sums and differences combine linearly, so equal
/// sizes cancel. The bound is the largest over the assignments of the
/// smallest over the alternatives, each evaluated with the interval bounds
/// of its leaves. Without it, `num_pos + num_neg` of a sampler that fills
/// one group up to K from the other is bounded by 2K instead of K.
std::optional<int64_t> SizeBounds::caseSplitUpper(Value v) {
  constexpr unsigned kMaxConditions = 4, kMaxAlternatives = 64;
  // Shared subexpressions are expanded once per use: a budget of visited
  // ops keeps a large size computation from taking long (past it, values
  // are leaves, which is still a sound bound).
  constexpr unsigned kMaxVisits = 20000;
  unsigned visits = 0;
  SmallVector<Value> conditions;
  // Alternatives for `x` bounded from above (isUpper) or below.
  std::function<SmallVector<LinearBound>(Value, bool, unsigned)> expand =
      [&](Value x, bool isUpper, unsigned assignment) {
        auto leaf = [&]() {
          LinearBound l;
          l.terms.push_back({x, 1});
          return SmallVector<LinearBound>{l};
        };
        APInt cst;
        if (matchPattern(x, m_ConstantInt(&cst))) {
          LinearBound l;
          l.constant = cst.getSExtValue();
          return SmallVector<LinearBound>{l};
        }
        Operation *def = x.getDefiningOp();
        if (!def || ++visits > kMaxVisits)
          return leaf();
        auto nonNegative = [&](Value y) {
          std::optional<int64_t> l = lower(y);
          return l && *l >= 0;
        };
        // min(a, b) <= a, <= b, and <= itself, which lets it cancel against
        // a subtraction of the same min elsewhere.
        auto either = [&](Value a, Value b) {
          SmallVector<LinearBound> alts = leaf();
          for (LinearBound &l : expand(a, isUpper, assignment))
            alts.push_back(std::move(l));
          for (LinearBound &l : expand(b, isUpper, assignment))
            if (alts.size() < kMaxAlternatives)
              alts.push_back(std::move(l));
          return alts;
        };
        auto combine = [&](Value a, Value b, int64_t sign) {
          SmallVector<LinearBound> alts;
          for (const LinearBound &l : expand(a, isUpper, assignment))
            for (const LinearBound &r :
                 expand(b, sign > 0 ? isUpper : !isUpper, assignment)) {
              if (alts.size() >= kMaxAlternatives)
                break;
              LinearBound sum = l;
              sum.add(r, sign);
              alts.push_back(std::move(sum));
            }
          return alts;
        };
        if (auto add = dyn_cast<arith::AddIOp>(def))
          return combine(add.getLhs(), add.getRhs(), 1);
        if (auto sub = dyn_cast<arith::SubIOp>(def))
          return combine(sub.getLhs(), sub.getRhs(), -1);
        if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
          return expand(def->getOperand(0), isUpper, assignment);
        if (isUpper &&
            (isa<arith::MinSIOp>(def) ||
             (isa<arith::MinUIOp>(def) && nonNegative(def->getOperand(0)) &&
              nonNegative(def->getOperand(1)))))
          return either(def->getOperand(0), def->getOperand(1));
        if (!isUpper &&
            (isa<arith::MaxSIOp>(def) ||
             (isa<arith::MaxUIOp>(def) && nonNegative(def->getOperand(0)) &&
              nonNegative(def->getOperand(1)))))
          return either(def->getOperand(0), def->getOperand(1));
        if (auto select = dyn_cast<arith::SelectOp>(def);
            select && select.getCondition().getType().isInteger(1)) {
          Value c = select.getCondition();
          auto *it = llvm::find(conditions, c);
          if (it == conditions.end()) {
            if (conditions.size() >= kMaxConditions)
              return leaf();
            conditions.push_back(c);
            it = conditions.end() - 1;
          }
          bool taken = assignment & (1u << (it - conditions.begin()));
          return expand(taken ? select.getTrueValue() : select.getFalseValue(),
                        isUpper, assignment);
        }
        return leaf();
      };
  auto evaluate = [&](const LinearBound &l) -> std::optional<int64_t> {
    int64_t total = l.constant;
    for (auto [leaf, coefficient] : l.terms) {
      if (coefficient == 0)
        continue;
      std::optional<int64_t> b = coefficient > 0 ? upper(leaf) : lower(leaf);
      if (!b)
        return std::nullopt;
      total += coefficient * *b;
    }
    return total;
  };
  // The all-false assignment also collects the conditions; then every other
  // assignment of them is bounded.
  SmallVector<LinearBound> allFalse = expand(v, /*isUpper=*/true, 0);
  if (conditions.empty())
    return std::nullopt;
  std::optional<int64_t> result;
  for (unsigned assignment = 0; assignment < (1u << conditions.size());
       ++assignment) {
    std::optional<int64_t> best;
    for (const LinearBound &l :
         assignment ? expand(v, /*isUpper=*/true, assignment) : allFalse)
      if (std::optional<int64_t> b = evaluate(l))
        best = best ? std::min(*best, *b) : *b;
    if (!best)
      return std::nullopt;
    result = result ? std::max(*result, *best) : *best;
  }
  return result;
}

std::optional<int64_t> SizeBounds::computeUpperDim(Value v, int64_t dim) {
  if (std::optional<int64_t> b = fromValueBounds({v, dim}, /*isUpper=*/true))
    return b;
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  auto numel = [&](Value t, int64_t rank) -> std::optional<int64_t> {
    int64_t n = 1;
    for (int64_t d = 0; d < rank; ++d) {
      std::optional<int64_t> b = upperDim(t, d);
      if (!b)
        return std::nullopt;
      n *= *b;
    }
    return n;
  };
  return TypeSwitch<Operation *, std::optional<int64_t>>(def)
      .Case([&](NonzeroOp op) {
        return numel(op.getInput(), op.getInput().getType().getRank());
      })
      .Case([&](MaskedSelectOp op) -> std::optional<int64_t> {
        if (dim > 0)
          return upperDim(op.getInput(),
                          op.getMask().getType().getRank() + dim - 1);
        return numel(op.getMask(), op.getMask().getType().getRank());
      })
      .Case([&](UniqueOp op) -> std::optional<int64_t> {
        if (v == op.getInverse())
          return upperDim(op.getInput(), dim);
        return numel(op.getInput(), op.getInput().getType().getRank());
      })
      .Case([&](RandpermOp op) { return upper(op.getN()); })
      .Case([&](tensor::ExtractSliceOp op) -> std::optional<int64_t> {
        unsigned resultDim = dim;
        // Rank-reducing slices are not bounded here.
        if (op.getType().getRank() != op.getSourceType().getRank())
          return std::nullopt;
        OpFoldResult size = op.getMixedSizes()[resultDim];
        if (auto attr = dyn_cast<Attribute>(size))
          return cast<IntegerAttr>(attr).getInt();
        return upper(cast<Value>(size));
      })
      .Case([&](tensor::EmptyOp op) -> std::optional<int64_t> {
        OpFoldResult size = op.getMixedSizes()[dim];
        if (auto attr = dyn_cast<Attribute>(size))
          return cast<IntegerAttr>(attr).getInt();
        return upper(cast<Value>(size));
      })
      .Case([&](tensor::SplatOp op) -> std::optional<int64_t> {
        auto sizes = op.getDynamicSizes();
        int64_t dynIndex = 0;
        for (int64_t d = 0; d < dim; ++d)
          dynIndex += op.getType().isDynamicDim(d);
        return upper(sizes[dynIndex]);
      })
      .Case([&](tensor::ConcatOp op) -> std::optional<int64_t> {
        if (static_cast<int64_t>(op.getDim()) != dim)
          return upperDim(op.getInputs().front(), dim);
        int64_t total = 0;
        for (Value in : op.getInputs()) {
          std::optional<int64_t> b = upperDim(in, dim);
          if (!b)
            return std::nullopt;
          total += *b;
        }
        return total;
      })
      .Case([&](tensor::CastOp op) { return upperDim(op.getSource(), dim); })
      .Case([&](GatherOp op) -> std::optional<int64_t> {
        int64_t idxRank = op.getIndices().getType().getRank();
        if (dim < idxRank)
          return upperDim(op.getIndices(), dim);
        return upperDim(op.getSource(), dim - idxRank + op.getBatchDims() + 1);
      })
      .Case<SortOp, ArgsortOp, CumsumOp>(
          [&](auto op) { return upperDim(op.getInput(), dim); })
      .Case([&](TopkOp op) -> std::optional<int64_t> {
        if (dim == op.getAxis())
          return static_cast<int64_t>(op.getK());
        return upperDim(op.getInput(), dim);
      })
      .Case([&](DestinationStyleOpInterface op) -> std::optional<int64_t> {
        auto result = cast<OpResult>(v);
        return upperDim(op.getDpsInitOperand(result.getResultNumber())->get(),
                        dim);
      })
      .Default([&](Operation *op) -> std::optional<int64_t> {
        // Elementwise ops: any operand of the result's shape.
        if (op->hasTrait<OpTrait::Elementwise>() ||
            op->hasTrait<OpTrait::SameOperandsAndResultShape>())
          for (Value operand : op->getOperands())
            if (auto t = dyn_cast<RankedTensorType>(operand.getType()))
              if (t.getRank() == cast<RankedTensorType>(v.getType()).getRank())
                if (std::optional<int64_t> b = upperDim(operand, dim))
                  return b;
        return std::nullopt;
      });
}

//===----------------------------------------------------------------------===//
// Rewrite
//===----------------------------------------------------------------------===//

/// The static form of a tensor whose leading dimension is data-dependent:
/// `padded` has `bound` rows, the first `count` of which are the value.
struct Padded {
  Value padded;
  Value count; // index
  int64_t bound;
};

class Staticizer {
public:
  Staticizer(func::FuncOp func, SizeBounds &bounds)
      : func(func), bounds(bounds) {}

  LogicalResult run();

  int64_t numRewritten = 0;
  int64_t numSyncsRemoved = 0;
  /// (location, op name, bound) of every rewritten value, for `report`.
  SmallVector<std::tuple<Location, std::string, int64_t>> reportedBounds;

private:
  LogicalResult rewrite(Operation *op);
  LogicalResult rewriteReturn(func::ReturnOp op);

  /// The padded form of `v` (a mapped dynamic value or a static tensor).
  Padded lookup(ImplicitLocOpBuilder &b, Value v);
  bool isMapped(Value v) const { return padded.count(v); }

  /// Maps the dynamic result `v` to its padded form.
  void define(Operation *op, Value v, Value paddedValue, Value count) {
    int64_t bound = cast<RankedTensorType>(paddedValue.getType()).getDimSize(0);
    padded[v] = {paddedValue, count, bound};
    reportedBounds.emplace_back(op->getLoc(),
                                op->getName().getStringRef().str(), bound);
    ++numRewritten;
  }

  /// The bound of dimension 0 of `v`, or an error at `op` that says how to
  /// supply one.
  FailureOr<int64_t> requireBound(Operation *op, Value v);

  // Small IR builders.
  Value iota(ImplicitLocOpBuilder &b, int64_t n);
  Value splat(ImplicitLocOpBuilder &b, Value scalar, int64_t n);
  Value toI64(ImplicitLocOpBuilder &b, Value index);
  Value toIndex(ImplicitLocOpBuilder &b, Value i64Tensor0D);
  Value laneIsValid(ImplicitLocOpBuilder &b, int64_t n, Value count);
  Value gatherRows(ImplicitLocOpBuilder &b, Value source, Value indices);
  Value constantI64(ImplicitLocOpBuilder &b, int64_t v, int64_t n);
  /// An i1 tensor of `type`'s shape: true on the first `count` rows.
  Value validRows(ImplicitLocOpBuilder &b, RankedTensorType type, Value count);
  /// `p.padded` with its padding rows replaced by `fill`.
  Value resetPadding(ImplicitLocOpBuilder &b, const Padded &p, TypedAttr fill);

  LogicalResult rewriteLinalg(ImplicitLocOpBuilder &b, linalg::LinalgOp op);
  LogicalResult rewriteSortLike(ImplicitLocOpBuilder &b, Operation *op);
  LogicalResult rewriteUnique(ImplicitLocOpBuilder &b, UniqueOp op);

  func::FuncOp func;
  SizeBounds &bounds;
  DenseMap<Value, Padded> padded;
  SmallVector<Operation *> toErase;
};

static bool hasDynamicTensor(TypeRange types) {
  return llvm::any_of(types, [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && !rt.hasStaticShape();
  });
}

/// Whether only dimension 0 of `t` is dynamic (the form staticize handles).
static bool onlyLeadingDynamic(RankedTensorType t) {
  for (int64_t d = 1; d < t.getRank(); ++d)
    if (t.isDynamicDim(d))
      return false;
  return t.getRank() >= 1;
}

static RankedTensorType withLeading(RankedTensorType t, int64_t n) {
  SmallVector<int64_t> shape(t.getShape());
  shape[0] = n;
  return RankedTensorType::get(shape, t.getElementType());
}

/// `x != 0` elementwise (NaN counts as non-zero, as in sift.count).
static Value isNonZero(ImplicitLocOpBuilder &b, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  Value zero = arith::ConstantOp::create(
      b, DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
  if (isa<FloatType>(type.getElementType()))
    return arith::CmpFOp::create(b, arith::CmpFPredicate::UNE, x, zero);
  return arith::CmpIOp::create(b, arith::CmpIPredicate::ne, x, zero);
}

/// The reassociation that groups the first `rank` dimensions into one.
static ReassociationIndices leadingDims(int64_t rank) {
  ReassociationIndices dims(rank);
  std::iota(dims.begin(), dims.end(), 0);
  return dims;
}

Value Staticizer::iota(ImplicitLocOpBuilder &b, int64_t n) {
  auto type = RankedTensorType::get({n}, b.getI64Type());
  Value init = tensor::EmptyOp::create(b, type.getShape(), b.getI64Type());
  AffineMap id = b.getMultiDimIdentityMap(1);
  auto gen = linalg::GenericOp::create(
      b, TypeRange{type}, ValueRange{}, ValueRange{init}, ArrayRef{id},
      ArrayRef{utils::IteratorType::parallel},
      [](OpBuilder &nb, Location loc, ValueRange) {
        Value i = linalg::IndexOp::create(nb, loc, 0);
        Value c = arith::IndexCastOp::create(nb, loc, nb.getI64Type(), i);
        linalg::YieldOp::create(nb, loc, c);
      });
  return gen.getResult(0);
}

Value Staticizer::splat(ImplicitLocOpBuilder &b, Value scalar, int64_t n) {
  return tensor::SplatOp::create(
      b, RankedTensorType::get({n}, scalar.getType()), scalar);
}

Value Staticizer::toI64(ImplicitLocOpBuilder &b, Value index) {
  return arith::IndexCastOp::create(b, b.getI64Type(), index);
}

Value Staticizer::toIndex(ImplicitLocOpBuilder &b, Value i64Tensor0D) {
  Value v = tensor::ExtractOp::create(b, i64Tensor0D, ValueRange{});
  return arith::IndexCastOp::create(b, b.getIndexType(), v);
}

Value Staticizer::constantI64(ImplicitLocOpBuilder &b, int64_t v, int64_t n) {
  auto type = RankedTensorType::get({n}, b.getI64Type());
  return arith::ConstantOp::create(b, DenseElementsAttr::get(type, v));
}

Value Staticizer::laneIsValid(ImplicitLocOpBuilder &b, int64_t n, Value count) {
  return arith::CmpIOp::create(b, arith::CmpIPredicate::slt, iota(b, n),
                               splat(b, toI64(b, count), n));
}

Value Staticizer::gatherRows(ImplicitLocOpBuilder &b, Value source,
                             Value indices) {
  return GatherOp::create(b, source, indices, /*batch_dims=*/0,
                          /*fill=*/TypedAttr());
}

Value Staticizer::validRows(ImplicitLocOpBuilder &b, RankedTensorType type,
                            Value count) {
  auto maskType = RankedTensorType::get(type.getShape(), b.getI1Type());
  Value init = tensor::EmptyOp::create(b, maskType.getShape(), b.getI1Type());
  SmallVector<utils::IteratorType> iters(type.getRank(),
                                         utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, TypeRange{maskType}, ValueRange{}, ValueRange{init},
             ArrayRef{b.getMultiDimIdentityMap(type.getRank())}, iters,
             [&](OpBuilder &nb, Location loc, ValueRange) {
               Value row = linalg::IndexOp::create(nb, loc, 0);
               Value ok = arith::CmpIOp::create(
                   nb, loc, arith::CmpIPredicate::slt, row, count);
               linalg::YieldOp::create(nb, loc, ok);
             })
      .getResult(0);
}

Value Staticizer::resetPadding(ImplicitLocOpBuilder &b, const Padded &p,
                               TypedAttr fill) {
  auto type = cast<RankedTensorType>(p.padded.getType());
  Value fillTensor =
      arith::ConstantOp::create(b, DenseElementsAttr::get(type, fill));
  return arith::SelectOp::create(b, validRows(b, type, p.count), p.padded,
                                 fillTensor);
}

/// The identity of the reduction `combiner` for `type`, or null.
static TypedAttr reductionIdentity(Operation *combiner, Type type) {
  Builder b(type.getContext());
  auto floatType = dyn_cast<FloatType>(type);
  auto fpInf = [&](bool negative) -> TypedAttr {
    return b.getFloatAttr(
        type, APFloat::getInf(floatType.getFloatSemantics(), negative));
  };
  unsigned width = type.isIntOrFloat() ? type.getIntOrFloatBitWidth() : 0;
  return TypeSwitch<Operation *, TypedAttr>(combiner)
      .Case<arith::AddFOp, arith::AddIOp, arith::OrIOp, arith::XOrIOp,
            arith::MaxUIOp>([&](Operation *) { return b.getZeroAttr(type); })
      .Case<arith::MulFOp>(
          [&](Operation *) { return b.getFloatAttr(type, 1.0); })
      .Case<arith::MulIOp>(
          [&](Operation *) { return b.getIntegerAttr(type, 1); })
      .Case<arith::MaximumFOp, arith::MaxNumFOp>(
          [&](Operation *) { return fpInf(true); })
      .Case<arith::MinimumFOp, arith::MinNumFOp>(
          [&](Operation *) { return fpInf(false); })
      .Case<arith::MaxSIOp>([&](Operation *) {
        return b.getIntegerAttr(type, APInt::getSignedMinValue(width));
      })
      .Case<arith::MinSIOp>([&](Operation *) {
        return b.getIntegerAttr(type, APInt::getSignedMaxValue(width));
      })
      .Case<arith::MinUIOp, arith::AndIOp>([&](Operation *) {
        return b.getIntegerAttr(type, APInt::getAllOnes(width));
      })
      .Default([](Operation *) { return TypedAttr(); });
}

/// The op that combines the running value of output `i` in a reduction
/// body, or null when the body is not a plain combination.
static Operation *reductionCombiner(linalg::LinalgOp op, unsigned i) {
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  Operation *combiner = yield.getOperand(i).getDefiningOp();
  BlockArgument acc = op.getRegionOutputArgs()[i];
  if (!combiner || combiner->getNumOperands() != 2 ||
      !llvm::is_contained(combiner->getOperands(), acc))
    return nullptr;
  return combiner;
}

LogicalResult Staticizer::rewriteLinalg(ImplicitLocOpBuilder &b,
                                        linalg::LinalgOp op) {
  // Reductions over the padded rows see the combiner's identity there.
  SmallVector<Value> operands;
  Value count;
  int64_t bound = -1;
  auto iterators = op.getIteratorTypesArray();
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    if (!isMapped(v)) {
      operands.push_back(v);
      continue;
    }
    Padded p = padded[v];
    if (!count) {
      count = p.count;
      bound = p.bound;
    }
    Value replacement = p.padded;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto rowDim = dyn_cast<AffineDimExpr>(map.getResult(0));
    if (!rowDim)
      return op->emitOpError("indexes the rows of a data-dependent tensor "
                             "with a non-trivial expression, which "
                             "--sift-staticize does not support");
    bool reducedRows =
        iterators[rowDim.getPosition()] == utils::IteratorType::reduction;
    if (reducedRows && op.isDpsInput(&operand)) {
      if (op.getNumDpsInits() != 1)
        return op->emitOpError("reduces data-dependent rows into several "
                               "outputs, which --sift-staticize does not "
                               "support yet");
      Operation *combiner = reductionCombiner(op, 0);
      Type elem = cast<RankedTensorType>(p.padded.getType()).getElementType();
      TypedAttr identity =
          combiner ? reductionIdentity(combiner, elem) : TypedAttr();
      if (!identity)
        return op->emitOpError("reduces data-dependent rows with a combiner "
                               "whose identity --sift-staticize does not "
                               "know; use add, mul, min or max");
      replacement = resetPadding(b, p, identity);
    }
    operands.push_back(replacement);
  }
  SmallVector<Type> resultTypes;
  for (Type t : op->getResultTypes()) {
    auto rt = cast<RankedTensorType>(t);
    resultTypes.push_back(rt.hasStaticShape() ? rt : withLeading(rt, bound));
  }
  IRMapping mapping;
  mapping.map(op->getOperands(), operands);
  Operation *clone = b.clone(*op, mapping);
  for (auto [result, type] : llvm::zip(clone->getResults(), resultTypes))
    result.setType(type);
  for (auto [orig, repl] : llvm::zip(op->getResults(), clone->getResults())) {
    if (cast<RankedTensorType>(orig.getType()).hasStaticShape())
      orig.replaceAllUsesWith(repl);
    else
      define(op, orig, repl, count);
  }
  toErase.push_back(op);
  return success();
}

/// The value that sorts after every other one of `type` (`last`), or
/// before (`!last`), in sift's order (NaN largest).
static TypedAttr extremeValue(Type type, bool last) {
  Builder b(type.getContext());
  if (auto ft = dyn_cast<FloatType>(type))
    return b.getFloatAttr(type,
                          last ? APFloat::getNaN(ft.getFloatSemantics())
                               : APFloat::getInf(ft.getFloatSemantics(), true));
  unsigned width = type.getIntOrFloatBitWidth();
  return b.getIntegerAttr(type, last ? APInt::getSignedMaxValue(width)
                                     : APInt::getSignedMinValue(width));
}

LogicalResult Staticizer::rewriteSortLike(ImplicitLocOpBuilder &b,
                                          Operation *op) {
  // Padding rows get a key that orders them after every valid row (stable
  // sorts keep a valid row with the same key first), so the valid rows come
  // out first.
  Value input = op->getOperand(0);
  Padded p = padded[input];
  auto type = cast<RankedTensorType>(p.padded.getType());
  int64_t axis = 0;
  bool last = true;
  if (auto sort = dyn_cast<SortOp>(op)) {
    axis = sort.getAxis();
    last = !sort.getDescending();
  } else if (auto argsort = dyn_cast<ArgsortOp>(op)) {
    axis = argsort.getAxis();
    last = !argsort.getDescending();
  } else if (auto topk = dyn_cast<TopkOp>(op)) {
    axis = topk.getAxis();
    last = topk.getSmallest();
  } else {
    axis = cast<CumsumOp>(op).getAxis();
  }
  if (type.getElementType().isInteger(1))
    return op->emitOpError("of a data-dependent i1 tensor is not supported "
                           "by --sift-staticize yet");
  Value key = p.padded;
  if (axis == 0 && !isa<CumsumOp>(op))
    key = resetPadding(b, p, extremeValue(type.getElementType(), last));
  IRMapping mapping;
  mapping.map(input, key);
  Operation *clone = b.clone(*op, mapping);
  for (auto [orig, repl] : llvm::zip(op->getResults(), clone->getResults())) {
    auto rt = cast<RankedTensorType>(orig.getType());
    repl.setType(rt.hasStaticShape() ? rt : withLeading(rt, p.bound));
    if (rt.hasStaticShape())
      orig.replaceAllUsesWith(repl);
    else
      define(op, orig, repl, p.count);
  }
  toErase.push_back(op);
  return success();
}

LogicalResult Staticizer::rewriteUnique(ImplicitLocOpBuilder &b, UniqueOp op) {
  // unique = stable sort + "differs from its predecessor" flags +
  // compaction; counts are differences of group starts; the inverse is the
  // group id (inclusive scan of the flags, minus one) sent back through the
  // inverse of the sort permutation.
  auto inType = op.getInput().getType();
  if (!inType.hasStaticShape())
    return op->emitOpError("of a data-dependent input is not supported by "
                           "--sift-staticize yet");
  int64_t n = inType.getNumElements();
  Type elem = inType.getElementType();
  auto i64 = b.getI64Type();
  auto vec = [&](Type t) { return RankedTensorType::get({n}, t); };
  Value flat = op.getInput();
  if (inType.getRank() != 1)
    flat = tensor::CollapseShapeOp::create(
        b, vec(elem), flat,
        ArrayRef<ReassociationIndices>{leadingDims(inType.getRank())});
  auto sort = SortOp::create(b, flat);
  Value sorted = sort.getValues();
  Value lanes = iota(b, n);
  Value one = constantI64(b, 1, n);
  Value prevIdx = arith::SubIOp::create(b, lanes, one);
  Value prev = gatherRows(b, sorted, prevIdx);
  Value differs;
  if (isa<FloatType>(elem)) {
    // NaNs are one value: a NaN equals the NaN before it.
    Value une =
        arith::CmpFOp::create(b, arith::CmpFPredicate::UNE, sorted, prev);
    Value ord =
        arith::CmpFOp::create(b, arith::CmpFPredicate::ORD, sorted, prev);
    Value bothNaN = arith::AndIOp::create(
        b, arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, sorted, sorted),
        arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, prev, prev));
    Value notBoth = arith::XOrIOp::create(
        b, bothNaN,
        arith::ConstantOp::create(
            b, DenseElementsAttr::get(vec(b.getI1Type()), true)));
    differs =
        arith::AndIOp::create(b, arith::OrIOp::create(b, une, ord), notBoth);
  } else {
    differs = arith::CmpIOp::create(b, arith::CmpIPredicate::ne, sorted, prev);
  }
  Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lanes,
                                      constantI64(b, 0, n));
  Value flags = arith::OrIOp::create(b, differs, first);
  auto compact = CompactOp::create(b, vec(i64), RankedTensorType::get({}, i64),
                                   flags, /*fill=*/-1);
  Value count = toIndex(b, compact.getCount());
  define(op, op.getValues(), gatherRows(b, sorted, compact.getIndices()),
         count);
  if (Value counts = op.getCounts()) {
    Value next = gatherRows(b, compact.getIndices(),
                            arith::AddIOp::create(b, lanes, one));
    Value hasNext = arith::CmpIOp::create(b, arith::CmpIPredicate::slt,
                                          arith::AddIOp::create(b, lanes, one),
                                          splat(b, toI64(b, count), n));
    next = arith::SelectOp::create(b, hasNext, next, constantI64(b, n, n));
    define(op, counts, arith::SubIOp::create(b, next, compact.getIndices()),
           count);
  }
  if (Value inverse = op.getInverse()) {
    Value group = CumsumOp::create(b, vec(i64), flags, /*dim=*/-1,
                                   /*exclusive=*/false);
    group = arith::SubIOp::create(b, group, one);
    Value back = ArgsortOp::create(b, sort.getIndices());
    Value inv = gatherRows(b, group, back);
    if (inType.getRank() != 1)
      inv = tensor::ExpandShapeOp::create(
          b, RankedTensorType::get(inType.getShape(), i64), inv,
          ArrayRef<ReassociationIndices>{leadingDims(inType.getRank())});
    inverse.replaceAllUsesWith(inv);
  }
  ++numSyncsRemoved;
  toErase.push_back(op);
  return success();
}

Padded Staticizer::lookup(ImplicitLocOpBuilder &b, Value v) {
  if (auto it = padded.find(v); it != padded.end())
    return it->second;
  auto type = cast<RankedTensorType>(v.getType());
  int64_t n = type.getDimSize(0);
  return {v, arith::ConstantIndexOp::create(b, n), n};
}

FailureOr<int64_t> Staticizer::requireBound(Operation *op, Value v) {
  if (std::optional<int64_t> ub = bounds.upperDim(v, 0))
    return std::max<int64_t>(*ub, 0);
  return op->emitOpError()
         << "has a data-dependent result size with no upper bound derivable "
            "from the program (--sift-staticize needs one to pad to); bound "
            "the size, e.g. with arith.minsi against a constant, or annotate "
            "the function argument it comes from with {sift.bound = N : i64}";
}

LogicalResult Staticizer::run() {
  for (BlockArgument arg : func.getArguments())
    if (hasDynamicTensor(arg.getType()))
      return func.emitOpError()
             << "argument #" << arg.getArgNumber() << " has a dynamic shape "
             << arg.getType()
             << ": --sift-staticize needs static tensor arguments; pass a "
                "padded static tensor and a count (an index argument "
                "annotated {sift.bound = N : i64}) instead";
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("--sift-staticize supports single-block functions");

  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().front())
    ops.push_back(&op);
  for (Operation *op : ops)
    if (failed(rewrite(op)))
      return failure();
  for (Operation *op : llvm::reverse(toErase)) {
    op->dropAllUses();
    op->erase();
  }
  return success();
}

LogicalResult Staticizer::rewrite(Operation *op) {
  bool touches =
      llvm::any_of(op->getOperands(), [&](Value v) { return isMapped(v); }) ||
      hasDynamicTensor(op->getResultTypes());
  if (auto ret = dyn_cast<func::ReturnOp>(op))
    return rewriteReturn(ret);
  if (!touches)
    return success();
  for (Region &region : op->getRegions())
    if (!isa<linalg::LinalgOp>(op) && !region.empty())
      return op->emitOpError(
          "with data-dependent shapes in a region is not supported by "
          "--sift-staticize yet");
  for (Type t : op->getResultTypes())
    if (auto rt = dyn_cast<RankedTensorType>(t);
        rt && !rt.hasStaticShape() && !onlyLeadingDynamic(rt))
      return op->emitOpError() << "result type " << rt
                               << " is dynamic beyond dimension 0, which "
                                  "--sift-staticize does not support yet";

  ImplicitLocOpBuilder b(op->getLoc(), op);
  auto erase = [&] { toErase.push_back(op); };

  // nonzero -> compact (+ unravel for N-D inputs).
  if (auto nz = dyn_cast<NonzeroOp>(op)) {
    auto inType = nz.getInput().getType();
    if (!inType.hasStaticShape())
      return op->emitOpError(
          "of a data-dependent input is not supported by --sift-staticize "
          "yet");
    Value mask = nz.getInput();
    if (!inType.getElementType().isInteger(1))
      mask = isNonZero(b, mask);
    int64_t numel = inType.getNumElements();
    int64_t rank = inType.getRank();
    if (rank > 1)
      mask = tensor::CollapseShapeOp::create(
          b, RankedTensorType::get({numel}, b.getI1Type()), mask,
          ArrayRef<ReassociationIndices>{leadingDims(rank)});
    auto idxType = RankedTensorType::get({numel}, b.getI64Type());
    auto compact =
        CompactOp::create(b, idxType, RankedTensorType::get({}, b.getI64Type()),
                          mask, /*fill=*/-1);
    Value result = compact.getIndices();
    if (rank > 1) {
      // Unravel the flat indices into coordinates [numel, rank].
      SmallVector<int64_t> strides(rank), sizes(inType.getShape());
      int64_t s = 1;
      for (int64_t d = rank - 1; d >= 0; --d) {
        strides[d] = s;
        s *= sizes[d];
      }
      auto vecType = RankedTensorType::get({rank}, b.getI64Type());
      Value strideCst = arith::ConstantOp::create(
          b, DenseElementsAttr::get(vecType, ArrayRef<int64_t>(strides)));
      Value sizeCst = arith::ConstantOp::create(
          b, DenseElementsAttr::get(vecType, ArrayRef<int64_t>(sizes)));
      auto outType = RankedTensorType::get({numel, rank}, b.getI64Type());
      Value init =
          tensor::EmptyOp::create(b, outType.getShape(), b.getI64Type());
      MLIRContext *ctx = b.getContext();
      AffineMap rows = AffineMap::get(2, 0, getAffineDimExpr(0, ctx));
      AffineMap cols = AffineMap::get(2, 0, getAffineDimExpr(1, ctx));
      result = linalg::GenericOp::create(
                   b, TypeRange{outType},
                   ValueRange{result, strideCst, sizeCst}, ValueRange{init},
                   ArrayRef{rows, cols, cols, b.getMultiDimIdentityMap(2)},
                   ArrayRef{utils::IteratorType::parallel,
                            utils::IteratorType::parallel},
                   [](OpBuilder &nb, Location loc, ValueRange args) {
                     Value q =
                         arith::DivSIOp::create(nb, loc, args[0], args[1]);
                     Value r = arith::RemSIOp::create(nb, loc, q, args[2]);
                     linalg::YieldOp::create(nb, loc, r);
                   })
                   .getResult(0);
    }
    define(op, nz.getResult(), result, toIndex(b, compact.getCount()));
    ++numSyncsRemoved;
    erase();
    return success();
  }

  // masked_select -> compact + gather.
  if (auto ms = dyn_cast<MaskedSelectOp>(op)) {
    auto inType = ms.getInput().getType();
    auto maskType = ms.getMask().getType();
    if (!inType.hasStaticShape())
      return op->emitOpError(
          "of a data-dependent input is not supported by --sift-staticize "
          "yet");
    int64_t r = maskType.getRank();
    int64_t m = maskType.getNumElements();
    Value mask = ms.getMask(), input = ms.getInput();
    if (r > 1) {
      ReassociationIndices lead = leadingDims(r);
      mask = tensor::CollapseShapeOp::create(
          b, RankedTensorType::get({m}, b.getI1Type()), mask,
          ArrayRef<ReassociationIndices>{lead});
      SmallVector<ReassociationIndices> reassoc = {lead};
      SmallVector<int64_t> shape = {m};
      for (int64_t d = r; d < inType.getRank(); ++d) {
        reassoc.push_back({d});
        shape.push_back(inType.getDimSize(d));
      }
      input = tensor::CollapseShapeOp::create(
          b, RankedTensorType::get(shape, inType.getElementType()), input,
          reassoc);
    }
    auto compact = CompactOp::create(
        b, RankedTensorType::get({m}, b.getI64Type()),
        RankedTensorType::get({}, b.getI64Type()), mask, /*fill=*/-1);
    define(op, ms.getResult(), gatherRows(b, input, compact.getIndices()),
           toIndex(b, compact.getCount()));
    ++numSyncsRemoved;
    erase();
    return success();
  }

  // randperm(n) -> stable argsort of the stream's keys, invalid lanes last.
  if (auto perm = dyn_cast<RandpermOp>(op)) {
    FailureOr<int64_t> bound = requireBound(op, perm.getResult());
    if (failed(bound))
      return failure();
    int64_t n = *bound;
    auto bitsType = RankedTensorType::get({n}, b.getI32Type());
    Value bits =
        RandomBitsOp::create(b, bitsType, perm.getSeed(), perm.getOffset());
    Value keys = arith::ExtUIOp::create(
        b, RankedTensorType::get({n}, b.getI64Type()), bits);
    Value past = constantI64(b, int64_t(1) << 32, n);
    Value valid = laneIsValid(b, n, perm.getN());
    keys = arith::SelectOp::create(b, valid, keys, past);
    define(op, perm.getResult(), ArgsortOp::create(b, keys), perm.getN());
    ++numSyncsRemoved;
    erase();
    return success();
  }

  // tensor.dim of a padded value is its count.
  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    std::optional<int64_t> d = dim.getConstantIndex();
    if (!d)
      return op->emitOpError("with a non-constant dimension is not supported "
                             "by --sift-staticize");
    int64_t rank = cast<RankedTensorType>(dim.getSource().getType()).getRank();
    if (*d < 0 || *d >= rank)
      return op->emitOpError("dimension index ")
             << *d << " is out of range for a tensor of rank " << rank;
    Padded p = lookup(b, dim.getSource());
    Value replacement =
        *d == 0
            ? p.count
            : arith::ConstantIndexOp::create(
                  b, cast<RankedTensorType>(p.padded.getType()).getDimSize(*d))
                  .getResult();
    dim.getResult().replaceAllUsesWith(replacement);
    erase();
    return success();
  }

  // extract_slice along dimension 0 -> gather of the selected rows.
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    RankedTensorType srcType = slice.getSourceType();
    RankedTensorType resType = slice.getType();
    if (srcType.getRank() != resType.getRank())
      return op->emitOpError("rank-reducing slices of data-dependent tensors "
                             "are not supported by --sift-staticize yet");
    for (int64_t d = 1; d < srcType.getRank(); ++d)
      if (!slice.isDynamicOffset(d) && slice.getStaticOffset(d) == 0 &&
          !slice.isDynamicSize(d) &&
          slice.getStaticSize(d) == srcType.getDimSize(d) &&
          !slice.isDynamicStride(d) && slice.getStaticStride(d) == 1)
        continue;
      else
        return op->emitOpError("--sift-staticize supports slices of "
                               "data-dependent tensors along dimension 0 "
                               "only");
    Padded src = lookup(b, slice.getSource());
    int64_t n = resType.getDimSize(0);
    Value count;
    if (resType.isDynamicDim(0)) {
      FailureOr<int64_t> bound = requireBound(op, slice.getResult());
      if (failed(bound))
        return failure();
      n = *bound;
      count = slice.getDynamicSize(0);
    }
    // The slice's rows: padded with its count when its size is dynamic.
    auto replaceSlice = [&](Value rows) {
      if (count)
        define(op, slice.getResult(), rows, count);
      else
        slice.getResult().replaceAllUsesWith(rows);
      erase();
      return success();
    };
    // A prefix of a stable argsort (as randperm(n)[:k] becomes) is a top-k
    // selection of its keys: sorted, ties by the lower index, so the rows
    // are the same, in O(n) instead of a full sort. Rows past the source's
    // count are padding as below.
    auto argsort = src.padded.getDefiningOp<ArgsortOp>();
    if (argsort && srcType.getRank() == 1 &&
        isConstantIntValue(slice.getMixedOffsets()[0], 0) &&
        isConstantIntValue(slice.getMixedStrides()[0], 1) &&
        n < cast<RankedTensorType>(src.padded.getType()).getDimSize(0)) {
      Value keys = argsort.getInput();
      auto keysType = cast<RankedTensorType>(keys.getType());
      auto topk = TopkOp::create(
          b, RankedTensorType::get({n}, keysType.getElementType()),
          RankedTensorType::get({n}, b.getI64Type()), keys, n,
          /*dim=*/0, /*smallest=*/!argsort.getDescending(),
          /*unsorted=*/false);
      Value inRange =
          arith::CmpIOp::create(b, arith::CmpIPredicate::slt, iota(b, n),
                                splat(b, toI64(b, src.count), n));
      Value rows = arith::SelectOp::create(b, inRange, topk.getIndices(),
                                           constantI64(b, 0, n));
      return replaceSlice(rows);
    }
    Value offset = getValueOrCreateConstantIndexOp(b, b.getLoc(),
                                                   slice.getMixedOffsets()[0]);
    Value stride = getValueOrCreateConstantIndexOp(b, b.getLoc(),
                                                   slice.getMixedStrides()[0]);
    // Row i of the result is row offset + i * stride of the source; rows at
    // or past the source's count are padding (fill).
    Value idx =
        arith::MulIOp::create(b, iota(b, n), splat(b, toI64(b, stride), n));
    idx = arith::AddIOp::create(b, idx, splat(b, toI64(b, offset), n));
    Value inRange = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, idx,
                                          splat(b, toI64(b, src.count), n));
    idx = arith::SelectOp::create(b, inRange, idx, constantI64(b, -1, n));
    return replaceSlice(gatherRows(b, src.padded, idx));
  }

  // gather: bounded indices give a bounded result; a bounded source makes its
  // padding rows invalid lanes.
  if (auto gather = dyn_cast<GatherOp>(op)) {
    if (gather.getBatchDims() != 0)
      return op->emitOpError("with batch_dims and data-dependent shapes is "
                             "not supported by --sift-staticize yet");
    Padded idx = lookup(b, gather.getIndices());
    Value indices = idx.padded;
    Value source = gather.getSource();
    if (isMapped(source)) {
      Padded src = lookup(b, source);
      source = src.padded;
      auto idxType = cast<RankedTensorType>(indices.getType());
      Value limit = tensor::SplatOp::create(b, idxType, toI64(b, src.count));
      Value inRange =
          arith::CmpIOp::create(b, arith::CmpIPredicate::slt, indices, limit);
      Value invalid = arith::ConstantOp::create(
          b, DenseElementsAttr::get(idxType, int64_t(-1)));
      indices = arith::SelectOp::create(b, inRange, indices, invalid);
    }
    Value result = GatherOp::create(b, source, indices, /*batch_dims=*/0,
                                    gather.getFillAttr());
    if (isMapped(gather.getIndices()))
      define(op, gather.getResult(), result, idx.count);
    else
      gather.getResult().replaceAllUsesWith(result);
    erase();
    return success();
  }

  // concat along dimension 0: the valid rows of the pieces, back to back.
  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    if (concat.getDim() != 0)
      return op->emitOpError("--sift-staticize supports concatenation of "
                             "data-dependent tensors along dimension 0 only");
    SmallVector<Padded> pieces;
    SmallVector<Value> paddedPieces;
    for (Value in : concat.getInputs()) {
      pieces.push_back(lookup(b, in));
      paddedPieces.push_back(pieces.back().padded);
    }
    Value all = tensor::ConcatOp::create(b, /*dim=*/0, paddedPieces);
    int64_t total = cast<RankedTensorType>(all.getType()).getDimSize(0);
    // Output row i comes from piece p when start_p <= i < start_p + count_p,
    // at row base_p + (i - start_p) of the static concatenation.
    Value lanes = iota(b, total);
    Value idx = constantI64(b, -1, total);
    Value start = arith::ConstantIndexOp::create(b, 0);
    int64_t base = 0;
    for (const Padded &p : pieces) {
      Value end = arith::AddIOp::create(b, start, p.count);
      Value ge = arith::CmpIOp::create(b, arith::CmpIPredicate::sge, lanes,
                                       splat(b, toI64(b, start), total));
      Value lt = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, lanes,
                                       splat(b, toI64(b, end), total));
      Value in = arith::AndIOp::create(b, ge, lt);
      Value shift = arith::SubIOp::create(
          b, toI64(b, arith::ConstantIndexOp::create(b, base)),
          toI64(b, start));
      Value from = arith::AddIOp::create(b, lanes, splat(b, shift, total));
      idx = arith::SelectOp::create(b, in, from, idx);
      start = end;
      base += p.bound;
    }
    define(op, concat.getResult(), gatherRows(b, all, idx), start);
    erase();
    return success();
  }

  // tensor.cast: to a static shape, the first rows; to a dynamic one, the
  // same padded value.
  if (auto castOp = dyn_cast<tensor::CastOp>(op)) {
    Padded src = lookup(b, castOp.getSource());
    auto resType = llvm::cast<RankedTensorType>(castOp.getType());
    if (resType.isDynamicDim(0)) {
      Value same = tensor::CastOp::create(b, withLeading(resType, src.bound),
                                          src.padded);
      define(op, castOp.getResult(), same, src.count);
    } else {
      int64_t n = resType.getDimSize(0);
      Value idx = iota(b, n);
      castOp.getResult().replaceAllUsesWith(gatherRows(b, src.padded, idx));
    }
    erase();
    return success();
  }

  // count of a bounded tensor: padding lanes do not count.
  if (auto count = dyn_cast<CountOp>(op)) {
    Padded p = lookup(b, count.getInput());
    auto type = cast<RankedTensorType>(p.padded.getType());
    if (type.getRank() != 1)
      return op->emitOpError("of a batched data-dependent tensor is not "
                             "supported by --sift-staticize yet");
    Value mask = arith::AndIOp::create(b, isNonZero(b, p.padded),
                                       laneIsValid(b, p.bound, p.count));
    count.getResult().replaceAllUsesWith(CountOp::create(b, mask));
    erase();
    return success();
  }

  if (auto unique = dyn_cast<UniqueOp>(op))
    return rewriteUnique(b, unique);

  if (isa<SortOp, ArgsortOp, TopkOp, CumsumOp>(op)) {
    if (!isMapped(op->getOperand(0)))
      return op->emitOpError("of a dynamic tensor that is not "
                             "data-dependent is not supported");
    return rewriteSortLike(b, op);
  }

  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return rewriteLinalg(b, linalgOp);

  // tensor.extract of a row below the count reads the padded tensor.
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    Value v = tensor::ExtractOp::create(
        b, lookup(b, extract.getTensor()).padded, extract.getIndices());
    extract.getResult().replaceAllUsesWith(v);
    erase();
    return success();
  }

  // cross_entropy: padding rows become ignored targets, which contribute
  // nothing and are left out of the mean.
  if (auto ce = dyn_cast<CrossEntropyOp>(op)) {
    Padded logits = lookup(b, ce.getLogits());
    Padded targets = lookup(b, ce.getTargets());
    auto tType = cast<RankedTensorType>(targets.padded.getType());
    Value ignore = arith::ConstantOp::create(
        b,
        DenseElementsAttr::get(tType, b.getIntegerAttr(tType.getElementType(),
                                                       ce.getIgnoreIndex())));
    Value t = arith::SelectOp::create(b, validRows(b, tType, targets.count),
                                      targets.padded, ignore);
    auto clone = CrossEntropyOp::create(b, logits.padded, t, ce.getWeight(),
                                        ce.getReduction(), ce.getIgnoreIndex(),
                                        ce.getLabelSmoothing());
    if (ce.getReduction() == Reduction::None)
      define(op, ce.getResult(), clone.getResult(), targets.count);
    else
      ce.getResult().replaceAllUsesWith(clone.getResult());
    erase();
    return success();
  }

  // Elementwise ops (arith, math on tensors; tensor.splat; tensor.empty):
  // the same op on the padded operands.
  if (op->hasTrait<OpTrait::Elementwise>() ||
      isa<tensor::EmptyOp, tensor::SplatOp>(op)) {
    Value count;
    int64_t bound = -1;
    SmallVector<Value> operands;
    for (Value v : op->getOperands()) {
      if (isMapped(v)) {
        Padded p = padded[v];
        if (!count) {
          count = p.count;
          bound = p.bound;
        }
        operands.push_back(p.padded);
        continue;
      }
      operands.push_back(v);
    }
    if (isa<tensor::EmptyOp, tensor::SplatOp>(op)) {
      auto resType = cast<RankedTensorType>(op->getResult(0).getType());
      FailureOr<int64_t> ub = requireBound(op, op->getResult(0));
      if (failed(ub))
        return failure();
      auto staticType = withLeading(resType, *ub);
      Value size =
          isa<tensor::EmptyOp>(op) ? op->getOperand(0) : op->getOperand(1);
      Value replacement =
          isa<tensor::EmptyOp>(op)
              ? tensor::EmptyOp::create(b, staticType.getShape(),
                                        staticType.getElementType())
                    .getResult()
              : tensor::SplatOp::create(b, staticType, op->getOperand(0))
                    .getResult();
      define(op, op->getResult(0), replacement, size);
      erase();
      return success();
    }
    for (Value v : operands)
      if (auto t = dyn_cast<RankedTensorType>(v.getType());
          t && !t.hasStaticShape())
        return op->emitOpError("mixes a data-dependent tensor with a "
                               "dynamic tensor that is not bounded");
    SmallVector<Type> resultTypes;
    for (Type t : op->getResultTypes())
      resultTypes.push_back(
          withLeading(llvm::cast<RankedTensorType>(t), bound));
    OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                         op->getAttrs());
    Operation *clone = b.create(state);
    for (auto [orig, repl] : llvm::zip(op->getResults(), clone->getResults()))
      define(op, orig, repl, count);
    erase();
    return success();
  }

  return op->emitOpError() << "is not supported by --sift-staticize yet: it "
                           << (hasDynamicTensor(op->getResultTypes())
                                   ? "has a data-dependent result shape"
                                   : "uses a data-dependent tensor");
}

LogicalResult Staticizer::rewriteReturn(func::ReturnOp op) {
  if (!llvm::any_of(op.getOperands(), [&](Value v) { return isMapped(v); }))
    return success();
  // ABI: a bounded result becomes its padded static tensor followed by its
  // count as a tensor<i64>; static results stay as they are.
  ImplicitLocOpBuilder b(op.getLoc(), op);
  SmallVector<Value> results;
  for (Value v : op.getOperands()) {
    if (!isMapped(v)) {
      results.push_back(v);
      continue;
    }
    Padded p = padded[v];
    results.push_back(p.padded);
    results.push_back(tensor::FromElementsOp::create(
        b, RankedTensorType::get({}, b.getI64Type()), toI64(b, p.count)));
  }
  func::ReturnOp::create(b, results);
  op.erase();
  func.setFunctionType(
      FunctionType::get(func.getContext(), func.getArgumentTypes(),
                        llvm::to_vector(llvm::map_range(
                            results, [](Value v) { return v.getType(); }))));
  return success();
}

struct SiftStaticizePass
    : public sift::impl::SiftStaticizeBase<SiftStaticizePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      SizeBounds bounds;
      Staticizer staticizer(func, bounds);
      if (failed(staticizer.run()))
        return signalPassFailure();
      numRewritten += staticizer.numRewritten;
      numSyncsRemoved += staticizer.numSyncsRemoved;
      if (!report)
        continue;
      for (auto &[loc, name, bound] : staticizer.reportedBounds)
        emitRemark(loc) << "'" << name << "' padded to " << bound << " rows";
      func.emitRemark() << "sift-staticize: " << staticizer.numRewritten
                        << " data-dependent values rewritten, "
                        << staticizer.numSyncsRemoved << " host syncs removed";
    }
  }
};

} // namespace
