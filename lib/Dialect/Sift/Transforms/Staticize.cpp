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

#include "sift/Dialect/Sift/Analysis/SizeBounds.h"
#include "sift/Dialect/Sift/IR/SiftOps.h"
#include "sift/Dialect/Sift/Transforms/HostReads.h"
#include "sift/Dialect/Sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/ADT/SetVector.h"
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
  LogicalResult rewriteBlock(Block &block);
  /// Replaces a host branch on device data whose branches are speculatable
  /// scalar code by a select.
  void ifConvert(scf::IfOp ifOp);
  /// Runs a loop over range(count) to the count's bound, its iterations past
  /// the count guarded.
  void staticizeLoop(scf::ForOp forOp, int64_t bound);
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

  /// `p.padded` resized to `n` rows (rows past its own are invalid lanes).
  Value fitRows(ImplicitLocOpBuilder &b, const Padded &p, int64_t n);

  LogicalResult rewriteLinalg(ImplicitLocOpBuilder &b, linalg::LinalgOp op);
  LogicalResult rewriteSortLike(ImplicitLocOpBuilder &b, Operation *op);
  LogicalResult rewriteUnique(ImplicitLocOpBuilder &b, UniqueOp op);

  func::FuncOp func;
  SizeBounds &bounds;
  DenseMap<Value, Padded> padded;
  /// Replaced ops, erased at the end (they stay in their blocks until then).
  llvm::SetVector<Operation *> toErase;
  /// Upper bounds of loops' upper bounds, taken before the rewrite replaces
  /// sizes by counts.
  DenseMap<Operation *, int64_t> loopBounds;
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

/// The op that folds output `i`'s running value with a contribution that
/// does not depend on it (`acc = combine(acc, e)`, the running value used
/// there only), when the combiner has a known identity; else null.
static Operation *separableCombiner(linalg::LinalgOp op, unsigned i) {
  Block *body = op.getBlock();
  Value yielded = body->getTerminator()->getOperand(i);
  BlockArgument acc = op.getRegionOutputArgs()[i];
  Operation *combiner = yielded.getDefiningOp();
  if (!combiner || combiner->getBlock() != body ||
      combiner->getNumOperands() != 2 || !acc.hasOneUse() ||
      acc.getUses().begin()->getOwner() != combiner || !yielded.hasOneUse() ||
      combiner->getOperand(0) == combiner->getOperand(1) ||
      !reductionIdentity(combiner, acc.getType()))
    return nullptr;
  return combiner;
}

/// An element value on which no op traps (1: no division by zero, no
/// INT_MIN / -1), or null for other element types.
static TypedAttr harmlessValue(Type elem) {
  Builder b(elem.getContext());
  if (isa<FloatType>(elem))
    return b.getFloatAttr(elem, 1.0);
  if (isa<IntegerType, IndexType>(elem))
    return b.getIntegerAttr(elem, 1);
  return {};
}

/// Whether some op of `op` (or of its regions) may trap or has an effect
/// when run on arbitrary values, as on padding rows (integer division by a
/// padding zero).
static bool mayTrapOnPadding(Operation *op) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (nested == op && isa<linalg::LinalgOp>(op))
      return WalkResult::advance();
    // Integer division and remainder trap on zero (and INT_MIN / -1) even
    // where MLIR models them as pure.
    if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
            arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(
            nested))
      return WalkResult::interrupt();
    if (isa<linalg::YieldOp>(nested) || isPure(nested))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return result.wasInterrupted();
}

Value Staticizer::fitRows(ImplicitLocOpBuilder &b, const Padded &p, int64_t n) {
  if (n == p.bound)
    return p.padded;
  // Rows past the padded value's own rows read as invalid lanes (fill).
  return gatherRows(b, p.padded, iota(b, n));
}

LogicalResult Staticizer::rewriteLinalg(ImplicitLocOpBuilder &b,
                                        linalg::LinalgOp op) {
  // A linalg op over data-dependent rows becomes the same op over the padded
  // rows. Each loop dimension that runs over padded rows gets one static
  // extent: a static operand's extent on it when there is one (the dynamic
  // program requires the sizes to agree), else the smallest padded bound.
  // Padding rows are then harmless by construction:
  //  - a dimension the op reduces over padded rows gets a validity mask as
  //    an extra input, and the body keeps the running value on padding rows
  //    (`select(valid, body(...), acc)`), whatever the body computes;
  //  - a parallel dimension maps padding rows to padding rows of the result;
  //  - a body that may trap sees 1 on padding rows instead of their values.
  if (!op.hasPureTensorSemantics())
    return op->emitOpError("on buffers is not supported by --sift-staticize");
  auto iterators = op.getIteratorTypesArray();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  int64_t numLoops = op.getNumLoops();
  // The loop dimension of each padded operand's rows.
  DenseMap<OpOperand *, int64_t> rowDimOf;
  SmallVector<int64_t> extent(numLoops, -1);
  SmallVector<bool> fromStatic(numLoops, false);
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type)
      continue;
    if (isMapped(operand.get())) {
      auto rowDim = dyn_cast<AffineDimExpr>(map.getResult(0));
      if (!rowDim)
        return op->emitOpError("indexes the rows of a data-dependent tensor "
                               "with a non-trivial expression, which "
                               "--sift-staticize does not support");
      rowDimOf[&operand] = rowDim.getPosition();
      continue;
    }
    for (auto [d, expr] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr);
          dim && !type.isDynamicDim(d)) {
        extent[dim.getPosition()] = type.getDimSize(d);
        fromStatic[dim.getPosition()] = true;
      }
  }
  for (auto [operand, d] : rowDimOf) {
    int64_t bound = padded[operand->get()].bound;
    if (!fromStatic[d])
      extent[d] = extent[d] < 0 ? bound : std::min(extent[d], bound);
  }

  bool guardedBody = mayTrapOnPadding(op);
  SmallVector<Value> inputs, inits;
  // Validity masks of the padded rows reduced over: (loop dim, count).
  SmallVector<std::pair<int64_t, Value>> guards;
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    bool isInput = op.isDpsInput(&operand);
    auto it = rowDimOf.find(&operand);
    if (it == rowDimOf.end()) {
      (isInput ? inputs : inits).push_back(v);
      continue;
    }
    int64_t d = it->second;
    Padded p = padded[v];
    Padded fitted = {fitRows(b, p, extent[d]), p.count, extent[d]};
    Value replacement = fitted.padded;
    if (isInput && guardedBody)
      if (TypedAttr one = harmlessValue(
              cast<RankedTensorType>(replacement.getType()).getElementType()))
        replacement = resetPadding(b, fitted, one);
    if (isInput && iterators[d] == utils::IteratorType::reduction &&
        !llvm::is_contained(guards, std::make_pair(d, p.count)))
      guards.emplace_back(d, p.count);
    (isInput ? inputs : inits).push_back(replacement);
  }

  SmallVector<Type> resultTypes =
      llvm::map_to_vector(inits, [](Value init) { return init.getType(); });
  for (Type t : resultTypes)
    if (!cast<RankedTensorType>(t).hasStaticShape())
      return op->emitOpError("mixes a data-dependent tensor with a dynamic "
                             "tensor that is not bounded");

  Operation *replacement;
  if (guards.empty()) {
    IRMapping mapping;
    mapping.map(op.getDpsInputs(), inputs);
    mapping.map(op.getDpsInits(), inits);
    replacement = b.clone(*op, mapping);
    for (auto [result, type] :
         llvm::zip(replacement->getResults(), resultTypes))
      result.setType(type);
  } else {
    // The same loop nest as a generic with one validity input per reduced
    // padded dimension; padding rows leave the outputs as they were.
    SmallVector<AffineMap> newMaps(maps.begin(),
                                   maps.begin() + op.getNumDpsInputs());
    SmallVector<Value> newInputs = inputs;
    for (auto [d, count] : guards) {
      newInputs.push_back(laneIsValid(b, extent[d], count));
      newMaps.push_back(
          AffineMap::get(numLoops, 0, b.getAffineDimExpr(d), b.getContext()));
    }
    newMaps.append(maps.begin() + op.getNumDpsInputs(), maps.end());
    Block *body = op.getBlock();
    unsigned numInputs = op.getNumDpsInputs(), numGuards = guards.size();
    replacement = linalg::GenericOp::create(
        b, resultTypes, newInputs, inits, newMaps, iterators,
        [&](OpBuilder &nb, Location loc, ValueRange args) {
          IRMapping mapping;
          for (unsigned i = 0; i < numInputs; ++i)
            mapping.map(body->getArgument(i), args[i]);
          for (unsigned i = 0; i < op.getNumDpsInits(); ++i)
            mapping.map(body->getArgument(numInputs + i),
                        args[numInputs + numGuards + i]);
          // `acc = combine(acc, e)` becomes `combine(acc, valid ? e :
          // identity)`, which stays a plain reduction (later passes can
          // reassociate it); any other body keeps `acc` on padding rows.
          SmallVector<Operation *> combiners = llvm::map_to_vector(
              llvm::seq<unsigned>(0, op.getNumDpsInits()),
              [&](unsigned i) { return separableCombiner(op, i); });
          for (Operation &nested : body->without_terminator())
            if (!llvm::is_contained(combiners, &nested))
              nb.clone(nested, mapping);
          Value valid = args[numInputs];
          for (unsigned g = 1; g < numGuards; ++g)
            valid = arith::AndIOp::create(nb, loc, valid, args[numInputs + g]);
          SmallVector<Value> yielded;
          for (auto [i, y] :
               llvm::enumerate(body->getTerminator()->getOperands())) {
            Value acc = args[numInputs + numGuards + i];
            if (Operation *combiner = combiners[i]) {
              BlockArgument oldAcc = op.getRegionOutputArgs()[i];
              unsigned pos = combiner->getOperand(0) == oldAcc ? 1 : 0;
              Value identity = arith::ConstantOp::create(
                  nb, loc, reductionIdentity(combiner, acc.getType()));
              Value contribution = arith::SelectOp::create(
                  nb, loc, valid,
                  mapping.lookupOrDefault(combiner->getOperand(pos)), identity);
              IRMapping combine;
              combine.map(oldAcc, acc);
              combine.map(combiner->getOperand(pos), contribution);
              yielded.push_back(nb.clone(*combiner, combine)->getResult(0));
              continue;
            }
            yielded.push_back(arith::SelectOp::create(
                nb, loc, valid, mapping.lookupOrDefault(y), acc));
          }
          linalg::YieldOp::create(nb, loc, yielded);
        });
  }
  for (auto [i, orig] : llvm::enumerate(op->getResults())) {
    Value repl = replacement->getResult(i);
    Value init = op.getDpsInits()[i];
    if (isMapped(init))
      define(op, orig, repl, padded[init].count);
    else
      orig.replaceAllUsesWith(repl);
  }
  toErase.insert(op);
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
  toErase.insert(op);
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
  toErase.insert(op);
  return success();
}

/// Integer division and remainder: pure in MLIR's model, but they trap on a
/// zero divisor (and INT_MIN / -1).
static bool isIntDivision(Operation &op) {
  return isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
             arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op);
}

/// Whether `value`'s type is a static tensor with at least one element, so
/// that any index can be clamped into it.
static bool isClampable(Value tensor) {
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  return type && type.hasStaticShape() && type.getNumElements() > 0;
}

/// Whether the ops of `block` (but its terminator) can run whether or not
/// their branch or iteration is taken, once `speculate` has guarded them:
/// pure ops without regions, and reads and writes of static tensors.
static bool canSpeculate(Block &block,
                         const llvm::SetVector<Operation *> &dead) {
  return llvm::all_of(block.without_terminator(), [&](Operation &op) {
    if (dead.contains(&op))
      return true;
    if (op.getNumRegions() != 0)
      return false;
    if (auto extract = dyn_cast<tensor::ExtractOp>(op))
      return isClampable(extract.getTensor());
    if (auto insert = dyn_cast<tensor::InsertOp>(op))
      return isClampable(insert.getDest());
    if (isIntDivision(op))
      return true; // `speculate` guards the divisor.
    return isPure(&op) && !isa<memref::LoadOp>(op);
  });
}

/// Makes the ops of `block` harmless where the i1 `valid` is false, so that
/// they can run unconditionally: indices are clamped into their tensor (an
/// index such as `n - 1` is only in range in its branch), a write stores back
/// the element it replaces, and a divisor is 1 (no trap on a padding zero).
static void speculate(Block &block, Value valid,
                      const llvm::SetVector<Operation *> &dead) {
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    if (dead.contains(&op))
      continue;
    ImplicitLocOpBuilder b(op.getLoc(), &op);
    auto clampIndices = [&](Value tensor, MutableOperandRange indices) {
      auto shape = cast<RankedTensorType>(tensor.getType()).getShape();
      Value zero = arith::ConstantIndexOp::create(b, 0);
      for (auto [i, operand] : llvm::enumerate(indices)) {
        Value last = arith::ConstantIndexOp::create(b, shape[i] - 1);
        operand.set(arith::MaxSIOp::create(
            b, arith::MinSIOp::create(b, operand.get(), last), zero));
      }
    };
    if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
      clampIndices(extract.getTensor(), extract.getIndicesMutable());
    } else if (auto insert = dyn_cast<tensor::InsertOp>(op)) {
      clampIndices(insert.getDest(), insert.getIndicesMutable());
      Value old =
          tensor::ExtractOp::create(b, insert.getDest(), insert.getIndices());
      insert.getScalarMutable().set(
          arith::SelectOp::create(b, valid, insert.getScalar(), old));
    } else if (isIntDivision(op)) {
      Value divisor = op.getOperand(1);
      Type elem = getElementTypeOrSelf(divisor.getType());
      TypedAttr one = harmlessValue(elem);
      if (auto shaped = dyn_cast<ShapedType>(divisor.getType()))
        one = DenseElementsAttr::get(shaped, one);
      Value safe = arith::ConstantOp::create(b, one);
      op.setOperand(1, arith::SelectOp::create(b, valid, divisor, safe));
    }
  }
}

void Staticizer::ifConvert(scf::IfOp ifOp) {
  // `k = 4 if n > 4 else n`, `x[m][n - 1] if n > 0 else 0` with n a count:
  // run both branches, guarded, and select, instead of a host branch on
  // device data.
  if (ifOp.getNumResults() == 0 || ifOp.getElseRegion().empty() ||
      !findHostRead(ifOp.getCondition()) ||
      !canSpeculate(*ifOp.thenBlock(), toErase) ||
      !canSpeculate(*ifOp.elseBlock(), toErase))
    return;
  Value cond = ifOp.getCondition();
  ImplicitLocOpBuilder b(ifOp.getLoc(), ifOp);
  Value notCond = arith::XOrIOp::create(
      b, cond, arith::ConstantIntOp::create(b, b.getI1Type(), 1));
  speculate(*ifOp.thenBlock(), cond, toErase);
  speculate(*ifOp.elseBlock(), notCond, toErase);
  Block *parent = ifOp->getBlock();
  auto hoist = [&](Block *block) {
    parent->getOperations().splice(ifOp->getIterator(), block->getOperations(),
                                   block->begin(),
                                   block->getTerminator()->getIterator());
    return block->getTerminator()->getOperands();
  };
  ValueRange thenValues = hoist(ifOp.thenBlock());
  ValueRange elseValues = hoist(ifOp.elseBlock());
  b.setInsertionPoint(ifOp);
  for (auto [result, t, e] :
       llvm::zip_equal(ifOp.getResults(), thenValues, elseValues))
    result.replaceAllUsesWith(
        arith::SelectOp::create(b, cond, t, e).getResult());
  ifOp->erase();
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
      findHostRead(forOp.getStep()) ||
      !canSpeculate(*forOp.getBody(), toErase) || !ub.getType().isIndex())
    return;
  Block *body = forOp.getBody();
  ImplicitLocOpBuilder b(forOp.getLoc(), body, body->begin());
  Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::slt,
                                      forOp.getInductionVar(), ub);
  speculate(*body, valid, toErase);
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

  func.walk([&](scf::ForOp forOp) {
    if (std::optional<int64_t> ub = bounds.upper(forOp.getUpperBound()))
      loopBounds[forOp] = *ub;
  });
  if (failed(rewriteBlock(func.getBody().front())))
    return failure();
  for (Operation *op : llvm::reverse(toErase)) {
    op->dropAllUses();
    op->erase();
  }
  return success();
}

LogicalResult Staticizer::rewriteBlock(Block &block) {
  SmallVector<Operation *> ops = llvm::map_to_vector(
      block.getOperations(), [](Operation &op) { return &op; });
  for (Operation *op : ops)
    if (failed(rewrite(op)))
      return failure();
  return success();
}

LogicalResult Staticizer::rewrite(Operation *op) {
  bool touches =
      llvm::any_of(op->getOperands(), [&](Value v) { return isMapped(v); }) ||
      hasDynamicTensor(op->getResultTypes());
  if (auto ret = dyn_cast<func::ReturnOp>(op))
    return rewriteReturn(ret);
  if (isa<linalg::LinalgOp>(op)) {
    // The body is cloned as it is: it must not read bounded values.
    WalkResult captured = op->walk([&](Operation *nested) {
      if (nested != op && llvm::any_of(nested->getOperands(),
                                       [&](Value v) { return isMapped(v); }))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (captured.wasInterrupted())
      return op->emitOpError("reads a data-dependent tensor inside its body, "
                             "which --sift-staticize does not support; pass "
                             "it as an input instead");
  } else if (op->getNumRegions() != 0) {
    // A region op whose own operands and results are static (a loop over
    // range(count), a branch on a count) stays; the ops in its regions are
    // rewritten in place, so that reading a bounded value defined above
    // reads its padded form (a row below the count is a valid read).
    if (touches)
      return op->emitOpError(
          "with data-dependent shapes in a region is not supported by "
          "--sift-staticize yet");
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (failed(rewriteBlock(block)))
          return failure();
    // (ifConvert may erase `op`.)
    if (auto ifOp = dyn_cast<scf::IfOp>(op))
      ifConvert(ifOp);
    else if (auto forOp = dyn_cast<scf::ForOp>(op))
      if (auto it = loopBounds.find(forOp); it != loopBounds.end())
        staticizeLoop(forOp, it->second);
    return success();
  }
  if (!touches)
    return success();
  for (Type t : op->getResultTypes())
    if (auto rt = dyn_cast<RankedTensorType>(t);
        rt && !rt.hasStaticShape() && !onlyLeadingDynamic(rt))
      return op->emitOpError() << "result type " << rt
                               << " is dynamic beyond dimension 0, which "
                                  "--sift-staticize does not support yet";

  ImplicitLocOpBuilder b(op->getLoc(), op);
  auto erase = [&] { toErase.insert(op); };

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
    if (auto topk = dyn_cast<TopkOp>(op);
        topk && topk.getAxis() == 0 &&
        static_cast<int64_t>(topk.getK()) > padded[topk.getInput()].bound)
      return op->emitOpError("takes k = ")
             << topk.getK() << " rows of a data-dependent tensor of at most "
             << padded[topk.getInput()].bound
             << " rows: the program fails at run time on every input";
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
    // Logits rows and targets have one size at run time: a static one when
    // either is static, else at most the smaller bound.
    Padded logits = lookup(b, ce.getLogits());
    Padded targets = lookup(b, ce.getTargets());
    bool logitsMapped = isMapped(ce.getLogits());
    bool targetsMapped = isMapped(ce.getTargets());
    int64_t rows = !logitsMapped    ? logits.bound
                   : !targetsMapped ? targets.bound
                                    : std::min(logits.bound, targets.bound);
    Value count = targetsMapped ? targets.count : logits.count;
    Value logitRows = fitRows(b, logits, rows);
    Padded fitted = {fitRows(b, targets, rows), count, rows};
    auto tType = cast<RankedTensorType>(fitted.padded.getType());
    Value ignore = arith::ConstantOp::create(
        b,
        DenseElementsAttr::get(tType, b.getIntegerAttr(tType.getElementType(),
                                                       ce.getIgnoreIndex())));
    Value t = arith::SelectOp::create(b, validRows(b, tType, count),
                                      fitted.padded, ignore);
    auto clone = CrossEntropyOp::create(
        b, logitRows, t, ce.getWeight(), ce.getReduction(), ce.getIgnoreIndex(),
        ce.getLabelSmoothing(), ce.getBatchDims());
    if (ce.getType().hasStaticShape())
      ce.getResult().replaceAllUsesWith(clone.getResult());
    else
      define(op, ce.getResult(), clone.getResult(), count);
    erase();
    return success();
  }

  // Elementwise ops (arith, math on tensors; tensor.splat; tensor.empty):
  // the same op on the padded operands.
  if (op->hasTrait<OpTrait::Elementwise>() ||
      isa<tensor::EmptyOp, tensor::SplatOp>(op)) {
    // Operands padded to different bounds have equal sizes at run time, so
    // the smallest bound holds them all. An op that may trap (integer
    // division) sees 1 on padding rows.
    Value count;
    int64_t bound = -1;
    for (Value v : op->getOperands())
      if (isMapped(v) && (bound < 0 || padded[v].bound < bound)) {
        count = padded[v].count;
        bound = padded[v].bound;
      }
    bool guarded = mayTrapOnPadding(op);
    SmallVector<Value> operands;
    for (Value v : op->getOperands()) {
      if (!isMapped(v)) {
        operands.push_back(v);
        continue;
      }
      Padded fitted = {fitRows(b, padded[v], bound), padded[v].count, bound};
      Value operand = fitted.padded;
      if (guarded)
        if (TypedAttr one = harmlessValue(
                cast<RankedTensorType>(operand.getType()).getElementType()))
          operand = resetPadding(b, fitted, one);
      operands.push_back(operand);
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
