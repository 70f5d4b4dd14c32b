//===- SizeBounds.cpp - Constant bounds of data-dependent sizes -----------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/Analysis/SizeBounds.h"
#include "sift/Dialect/Sift/IR/SiftOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::sift;

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

/// `v` past the index casts that define it.
static Value stripCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// `pred` with its operands swapped (a < b is b > a).
static arith::CmpIPredicate swapped(arith::CmpIPredicate pred) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::slt:
    return P::sgt;
  case P::sle:
    return P::sge;
  case P::sgt:
    return P::slt;
  case P::sge:
    return P::sle;
  case P::ult:
    return P::ugt;
  case P::ule:
    return P::uge;
  case P::ugt:
    return P::ult;
  case P::uge:
    return P::ule;
  case P::eq:
  case P::ne:
    return pred;
  }
  llvm_unreachable("unknown predicate");
}

/// How `caseSplitUpper` bounded a size, for whyUpper.
/// Where the bound of a tensor carried by a loop comes from.
static constexpr const char *kCarriedWhy =
    "scf.for: the bound of its initial value, which no iteration exceeds";

static std::string caseReason(unsigned numConditions) {
  if (numConditions == 0)
    return "the size computation's terms, cancelled linearly";
  return ("the size computation by cases over " + Twine(numConditions) +
          (numConditions == 1 ? " condition" : " conditions"))
      .str();
}

std::optional<int64_t> SizeBounds::computeBound(Value v, bool isUpper) {
  // Records where an upper bound came from (whyUpper).
  auto because = [&](std::optional<int64_t> b, const Twine &reason) {
    if (isUpper && b)
      upperWhy[v] = reason.str();
    return b;
  };
  APInt cst;
  if (matchPattern(v, m_ConstantInt(&cst)))
    return because(cst.getSExtValue(), "a constant");
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // A size argument may carry a user-supplied bound.
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (func && arg.getOwner()->isEntryBlock()) {
      if (auto attr = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                         "sift.bound"))
        return isUpper ? because(attr.getInt(), "the sift.bound of argument #" +
                                                    Twine(arg.getArgNumber()))
                       : std::optional<int64_t>(0);
    }
  }
  if (v.getType().isIndex())
    if (std::optional<int64_t> b = fromValueBounds(v, isUpper))
      return because(b, "upstream ValueBounds");
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  // Size arithmetic that picks between branches (fill one group up from the
  // other) is tighter by cases than by intervals.
  std::optional<int64_t> interval = computeIntervalBound(v, def, isUpper);
  if (isUpper &&
      isa<arith::AddIOp, arith::SubIOp, arith::SelectOp, scf::IfOp>(def)) {
    unsigned numConditions = 0;
    std::optional<int64_t> cases =
        caseSplitUpper(ArrayRef<Value>{v}, &numConditions);
    if (cases && (!interval || *cases < *interval))
      return because(cases, caseReason(numConditions));
  }
  return because(interval,
                 "the interval rule of " + def->getName().getStringRef());
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
    for (const auto &[leaf, coefficient] : other.terms) {
      Value key = leaf;
      auto it = llvm::find_if(terms, [&](auto &t) { return t.first == key; });
      if (it != terms.end())
        it->second += scale * coefficient;
      else
        terms.push_back({key, scale * coefficient});
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
/// one group up to K from the other is bounded by 2K instead of K. An
/// `scf.if` that yields sizes is a select on its condition (the same
/// sampler written with if/elif).
std::optional<int64_t> SizeBounds::caseSplitUpper(ArrayRef<Value> sum,
                                                  unsigned *numConditions) {
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
        // Whether the condition `c` is taken under the assignment; none
        // past kMaxConditions.
        auto taken = [&](Value c) -> std::optional<bool> {
          auto *it = llvm::find(conditions, c);
          if (it == conditions.end()) {
            if (conditions.size() >= kMaxConditions)
              return std::nullopt;
            conditions.push_back(c);
            it = conditions.end() - 1;
          }
          return static_cast<bool>(assignment &
                                   (1u << (it - conditions.begin())));
        };
        if (auto select = dyn_cast<arith::SelectOp>(def);
            select && select.getCondition().getType().isInteger(1)) {
          std::optional<bool> t = taken(select.getCondition());
          if (!t)
            return leaf();
          return expand(*t ? select.getTrueValue() : select.getFalseValue(),
                        isUpper, assignment);
        }
        // A branch on the sizes (Python's if/elif on counts) chooses what
        // it yields as a select does.
        if (auto ifOp = dyn_cast<scf::IfOp>(def);
            ifOp && !ifOp.getElseRegion().empty()) {
          std::optional<bool> t = taken(ifOp.getCondition());
          if (!t)
            return leaf();
          unsigned i = cast<OpResult>(x).getResultNumber();
          return expand(*t ? ifOp.thenYield().getOperand(i)
                           : ifOp.elseYield().getOperand(i),
                        isUpper, assignment);
        }
        return leaf();
      };
  // The bound of `leaf` from above (isUpper) or below under an assignment:
  // its interval, narrowed by each condition that compares it with a
  // bounded size (`ln < 16` taken: ln <= 15; not taken: ln >= 16).
  auto leafBound = [&](Value leaf, bool isUpper,
                       unsigned assignment) -> std::optional<int64_t> {
    std::optional<int64_t> b = bound(leaf, isUpper);
    for (auto [i, c] : llvm::enumerate(conditions)) {
      auto cmp = c.getDefiningOp<arith::CmpIOp>();
      // Leaves are past index casts (as `expand` leaves them); so are the
      // compared values here.
      if (!cmp ||
          (stripCasts(cmp.getLhs()) != leaf &&
           stripCasts(cmp.getRhs()) != leaf) ||
          stripCasts(cmp.getLhs()) == stripCasts(cmp.getRhs()))
        continue;
      arith::CmpIPredicate pred = cmp.getPredicate();
      if (!(assignment & (1u << i)))
        pred = arith::invertPredicate(pred);
      Value other = cmp.getLhs();
      if (stripCasts(cmp.getLhs()) == leaf) {
        other = cmp.getRhs();
      } else {
        pred = swapped(pred);
      }
      // Now `leaf pred other`. Unsigned comparisons of sizes are signed
      // ones when both are non-negative.
      std::optional<int64_t> leafLo = lower(leaf), otherLo = lower(other);
      bool sizes = leafLo && *leafLo >= 0 && otherLo && *otherLo >= 0;
      using P = arith::CmpIPredicate;
      std::optional<int64_t> narrowed;
      if (isUpper) {
        std::optional<int64_t> hi = upper(other);
        if (hi && (pred == P::slt || (sizes && pred == P::ult)))
          narrowed = *hi - 1;
        else if (hi &&
                 (pred == P::sle || pred == P::eq || (sizes && pred == P::ule)))
          narrowed = *hi;
      } else {
        if (otherLo && (pred == P::sgt || (sizes && pred == P::ugt)))
          narrowed = *otherLo + 1;
        else if (otherLo &&
                 (pred == P::sge || pred == P::eq || (sizes && pred == P::uge)))
          narrowed = *otherLo;
      }
      if (narrowed)
        b = isUpper ? minOpt(b, narrowed, true) : maxOpt(b, narrowed, true);
    }
    return b;
  };
  auto evaluate = [&](const LinearBound &l,
                      unsigned assignment) -> std::optional<int64_t> {
    int64_t total = l.constant;
    for (auto [leaf, coefficient] : l.terms) {
      if (coefficient == 0)
        continue;
      std::optional<int64_t> b = leafBound(leaf, coefficient > 0, assignment);
      if (!b)
        return std::nullopt;
      total += coefficient * *b;
    }
    return total;
  };
  // The alternatives for the sum of the terms under an assignment.
  auto expandSum = [&](unsigned assignment) {
    SmallVector<LinearBound> alts(1);
    for (Value term : sum) {
      SmallVector<LinearBound> next;
      for (const LinearBound &l : alts)
        for (const LinearBound &r :
             expand(term, /*isUpper=*/true, assignment)) {
          if (next.size() >= kMaxAlternatives)
            break;
          LinearBound total = l;
          total.add(r, 1);
          next.push_back(std::move(total));
        }
      alts = std::move(next);
    }
    return alts;
  };
  // The all-false assignment also collects the conditions; then every other
  // assignment of them is bounded.
  // Without a condition there is one assignment: min/max alternatives and
  // sizes that cancel (n + min(K - n, m) <= K) still bound the sum.
  SmallVector<LinearBound> allFalse = expandSum(0);
  if (numConditions)
    *numConditions = conditions.size();
  std::optional<int64_t> result;
  for (unsigned assignment = 0; assignment < (1u << conditions.size());
       ++assignment) {
    std::optional<int64_t> best;
    for (const LinearBound &l : assignment ? expandSum(assignment) : allFalse)
      if (std::optional<int64_t> b = evaluate(l, assignment))
        best = best ? std::min(*best, *b) : *b;
    if (!best)
      return std::nullopt;
    result = result ? std::max(*result, *best) : *best;
  }
  return result;
}

/// The index value the program gives dimension `dim` of `tensor` as its
/// size, where one op states it: a slice's or an empty tensor's size, the
/// index count of a gather, through casts and elementwise ops. Null if none.
static Value sizeValue(Value tensor, int64_t dim) {
  Operation *def = tensor.getDefiningOp();
  if (!def)
    return Value();
  auto stated = [&](ArrayRef<OpFoldResult> sizes, int64_t d) -> Value {
    return dyn_cast<Value>(sizes[d]);
  };
  return TypeSwitch<Operation *, Value>(def)
      .Case([&](tensor::ExtractSliceOp op) -> Value {
        if (op.getType().getRank() != op.getSourceType().getRank())
          return Value();
        return stated(op.getMixedSizes(), dim);
      })
      .Case([&](tensor::EmptyOp op) { return stated(op.getMixedSizes(), dim); })
      .Case([&](tensor::CastOp op) { return sizeValue(op.getSource(), dim); })
      .Case([&](GatherOp op) -> Value {
        int64_t idxRank = op.getIndices().getType().getRank();
        if (dim < idxRank)
          return sizeValue(op.getIndices(), dim);
        return Value();
      })
      .Case([&](ScatterOp op) { return sizeValue(op.getDest(), dim); })
      .Default([&](Operation *op) -> Value {
        if (op->hasTrait<OpTrait::Elementwise>())
          for (Value operand : op->getOperands())
            if (operand.getType() == tensor.getType())
              return sizeValue(operand, dim);
        return Value();
      });
}

std::optional<int64_t> SizeBounds::computeUpperDim(Value v, int64_t dim) {
  auto key = std::make_pair(v, dim);
  if (std::optional<int64_t> b = fromValueBounds({v, dim}, /*isUpper=*/true)) {
    dimWhy[key] = "upstream ValueBounds";
    return b;
  }
  // A tensor carried by a loop (`for t in ts: x = x[x > t]`).
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!forOp || arg.getArgNumber() == 0)
      return std::nullopt;
    std::optional<int64_t> b =
        carriedUpperDim(forOp, arg.getArgNumber() - 1, dim);
    if (b)
      dimWhy[key] = kCarriedWhy;
    return b;
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  // Where the bound comes from, as each rule below says it (whyUpperDim);
  // by default the op's own rule.
  std::string why = (def->getName().getStringRef() + ": its own rule").str();
  // The bound of the size `size` of the op, with where it came from.
  auto ofSize = [&](Value size) {
    std::optional<int64_t> b = upper(size);
    if (b)
      why = (def->getName().getStringRef() + ": its size, bounded by " +
             whyUpper(size))
                .str();
    return b;
  };
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
  // The bound of dimension `d` of the operand tensor `t` the result's
  // dimension equals, and where that one came from.
  auto like = [&](Value t, int64_t d) {
    std::optional<int64_t> b = upperDim(t, d);
    if (b)
      why = whyUpperDim(t, d);
    return b;
  };
  std::optional<int64_t> result =
      TypeSwitch<Operation *, std::optional<int64_t>>(def)
          .Case([&](NonzeroOp op) {
            why = "sift.nonzero: the number of mask elements";
            return numel(op.getInput(), op.getInput().getType().getRank());
          })
          .Case([&](MaskedSelectOp op) -> std::optional<int64_t> {
            if (dim > 0)
              return like(op.getInput(),
                          op.getMask().getType().getRank() + dim - 1);
            why = "sift.masked_select: the number of mask elements";
            return numel(op.getMask(), op.getMask().getType().getRank());
          })
          .Case([&](UniqueOp op) -> std::optional<int64_t> {
            if (v == op.getInverse())
              return like(op.getInput(), dim);
            why = "sift.unique: the number of input elements";
            return numel(op.getInput(), op.getInput().getType().getRank());
          })
          .Case([&](RandpermOp op) { return ofSize(op.getN()); })
          .Case([&](tensor::ExtractSliceOp op) -> std::optional<int64_t> {
            unsigned resultDim = dim;
            // Rank-reducing slices are not bounded here.
            if (op.getType().getRank() != op.getSourceType().getRank())
              return std::nullopt;
            OpFoldResult size = op.getMixedSizes()[resultDim];
            if (auto attr = dyn_cast<Attribute>(size))
              return cast<IntegerAttr>(attr).getInt();
            std::optional<int64_t> stated = ofSize(cast<Value>(size));
            // A slice lies within its source (anything else is undefined
            // behaviour): offset + (size - 1) * stride < the source's extent,
            // so x[:k] of a static x is at most x's length whatever k is.
            std::optional<int64_t> extent = upperDim(op.getSource(), resultDim);
            if (!extent)
              return stated;
            std::optional<int64_t> offset = 0;
            if (auto value = dyn_cast<Value>(op.getMixedOffsets()[resultDim]))
              offset = lower(value);
            else
              offset = getConstantIntValue(op.getMixedOffsets()[resultDim]);
            std::optional<int64_t> stride =
                getConstantIntValue(op.getMixedStrides()[resultDim]);
            int64_t first = std::max<int64_t>(offset.value_or(0), 0);
            int64_t step = stride && *stride > 0 ? *stride : 1;
            int64_t fits =
                *extent <= first ? 0 : (*extent - first - 1) / step + 1;
            if (stated && *stated <= fits)
              return stated;
            why = "tensor.extract_slice: within its source's extent";
            return std::optional<int64_t>(fits);
          })
          .Case([&](tensor::EmptyOp op) -> std::optional<int64_t> {
            OpFoldResult size = op.getMixedSizes()[dim];
            if (auto attr = dyn_cast<Attribute>(size))
              return cast<IntegerAttr>(attr).getInt();
            return ofSize(cast<Value>(size));
          })
          .Case([&](tensor::SplatOp op) -> std::optional<int64_t> {
            auto sizes = op.getDynamicSizes();
            int64_t dynIndex = 0;
            for (int64_t d = 0; d < dim; ++d)
              dynIndex += op.getType().isDynamicDim(d);
            return ofSize(sizes[dynIndex]);
          })
          .Case([&](tensor::ConcatOp op) -> std::optional<int64_t> {
            if (static_cast<int64_t>(op.getDim()) != dim)
              return like(op.getInputs().front(), dim);
            why = "tensor.concat: the sum of its pieces' bounds";
            int64_t total = 0;
            for (Value in : op.getInputs()) {
              std::optional<int64_t> b = upperDim(in, dim);
              if (!b)
                return std::nullopt;
              total += *b;
            }
            // The sizes of the pieces as the program computes them, bounded
            // together by cases: two groups that fill each other up to K
            // concatenate to at most K, not 2K.
            int64_t fixed = 0;
            SmallVector<Value> sizes;
            for (Value in : op.getInputs()) {
              auto type = cast<RankedTensorType>(in.getType());
              if (!type.isDynamicDim(dim)) {
                fixed += type.getDimSize(dim);
                continue;
              }
              Value size = sizeValue(in, dim);
              if (!size)
                return total;
              sizes.push_back(size);
            }
            unsigned numConditions = 0;
            std::optional<int64_t> b = caseSplitUpper(sizes, &numConditions);
            if (!b || fixed + *b >= total)
              return total;
            why = "tensor.concat: its pieces' sizes together, " +
                  caseReason(numConditions);
            return fixed + *b;
          })
          .Case([&](tensor::CastOp op) { return like(op.getSource(), dim); })
          .Case([&](tensor::ExpandShapeOp op) -> std::optional<int64_t> {
            // A dynamic extent of an expansion is its stated size, or
            // its source's extent over the group's static sizes.
            OpFoldResult size = op.getMixedOutputShape()[dim];
            if (auto attr = dyn_cast<Attribute>(size))
              return cast<IntegerAttr>(attr).getInt();
            if (std::optional<int64_t> b = ofSize(cast<Value>(size)))
              return b;
            // (A local: the reassociation is built on each call.)
            SmallVector<ReassociationIndices> groups =
                op.getReassociationIndices();
            for (auto [src, group] : llvm::enumerate(groups)) {
              if (!llvm::is_contained(group, dim))
                continue;
              int64_t others = 1;
              for (int64_t d : group)
                if (d != dim) {
                  int64_t extent = op.getResultType().getDimSize(d);
                  if (ShapedType::isDynamic(extent) || extent == 0)
                    return std::nullopt;
                  others *= extent;
                }
              std::optional<int64_t> b = like(op.getSrc(), src);
              if (!b)
                return std::nullopt;
              return *b / others;
            }
            return std::nullopt;
          })
          .Case([&](tensor::CollapseShapeOp op) -> std::optional<int64_t> {
            // The product of the collapsed group's extents.
            int64_t n = 1;
            SmallVector<ReassociationIndices> groups =
                op.getReassociationIndices();
            for (int64_t d : groups[dim]) {
              std::optional<int64_t> b = like(op.getSrc(), d);
              if (!b)
                return std::nullopt;
              n *= *b;
            }
            why = "tensor.collapse_shape: the product of its group's bounds";
            return n;
          })
          .Case<scf::IfOp, scf::IndexSwitchOp>(
              [&](Operation *op) -> std::optional<int64_t> {
                // A tensor chosen by a branch (or a case): the largest of
                // the branches' bounds.
                unsigned i = cast<OpResult>(v).getResultNumber();
                std::optional<int64_t> largest;
                for (Region &region : op->getRegions()) {
                  if (region.empty())
                    return std::nullopt;
                  std::optional<int64_t> b = upperDim(
                      region.front().getTerminator()->getOperand(i), dim);
                  if (!b)
                    return std::nullopt;
                  largest = std::max(largest.value_or(*b), *b);
                }
                why = isa<scf::IfOp>(op)
                          ? "scf.if: the larger of its branches' bounds"
                          : "scf.index_switch: the largest of its cases' "
                            "bounds";
                return largest;
              })
          .Case([&](scf::ForOp op) {
            return like(
                op.getRegionIterArgs()[cast<OpResult>(v).getResultNumber()],
                dim);
          })
          .Case([&](GatherOp op) -> std::optional<int64_t> {
            int64_t idxRank = op.getIndices().getType().getRank();
            if (dim < idxRank)
              return like(op.getIndices(), dim);
            return like(op.getSource(), dim - idxRank + op.getBatchDims() + 1);
          })
          .Case<SortOp, ArgsortOp, CumsumOp>(
              [&](auto op) { return like(op.getInput(), dim); })
          .Case([&](ScatterOp op) { return like(op.getDest(), dim); })
          .Case([&](CountOp op) { return like(op.getInput(), dim); })
          .Case([&](TopkOp op) -> std::optional<int64_t> {
            if (dim == op.getAxis()) {
              why = "sift.topk: k";
              return static_cast<int64_t>(op.getK());
            }
            return like(op.getInput(), dim);
          })
          .Case([&](DestinationStyleOpInterface op) -> std::optional<int64_t> {
            auto result = cast<OpResult>(v);
            return like(op.getDpsInitOperand(result.getResultNumber())->get(),
                        dim);
          })
          .Default([&](Operation *op) -> std::optional<int64_t> {
            // Elementwise ops: any operand of the result's shape.
            if (op->hasTrait<OpTrait::Elementwise>() ||
                op->hasTrait<OpTrait::SameOperandsAndResultShape>())
              for (Value operand : op->getOperands())
                if (auto t = dyn_cast<RankedTensorType>(operand.getType()))
                  if (t.getRank() ==
                      cast<RankedTensorType>(v.getType()).getRank())
                    if (std::optional<int64_t> b = like(operand, dim))
                      return b;
            return std::nullopt;
          });
  if (result)
    dimWhy[key] = why;
  return result;
}

std::optional<int64_t> SizeBounds::carriedUpperDim(scf::ForOp forOp, unsigned i,
                                                   int64_t dim) {
  // The bound of the initial value holds for every iteration if, assuming
  // it for the carried value, the yielded value has it too (a selection of
  // a selection). What was computed under the assumption is forgotten when
  // it does not hold.
  std::optional<int64_t> init = upperDim(forOp.getInitArgs()[i], dim);
  if (!init)
    return std::nullopt;
  auto savedUpper = upperCache, savedLower = lowerCache;
  auto savedDim = dimCache;
  auto savedUpperWhy = upperWhy;
  auto savedDimWhy = dimWhy;
  auto key = std::make_pair(Value(forOp.getRegionIterArgs()[i]), dim);
  dimCache[key] = init;
  dimWhy[key] = kCarriedWhy;
  Value yielded = forOp.getBody()->getTerminator()->getOperand(i);
  std::optional<int64_t> next = upperDim(yielded, dim);
  if (next && *next <= *init)
    return init;
  upperCache = std::move(savedUpper);
  lowerCache = std::move(savedLower);
  dimCache = std::move(savedDim);
  upperWhy = std::move(savedUpperWhy);
  dimWhy = std::move(savedDimWhy);
  dimCache[key] = std::nullopt;
  return std::nullopt;
}
