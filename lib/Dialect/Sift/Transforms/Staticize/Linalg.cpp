//===- Linalg.cpp - Staticize rule of linalg ops --------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Staticizer.h"

using namespace mlir;
using namespace mlir::sift;

namespace mlir {
namespace sift {
namespace staticize {

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

namespace {
/// The loops of a linalg op over padded rows: the loop dimension of each
/// padded operand's rows, and one static extent per loop dimension (-1 where
/// no operand says).
struct PaddedLoops {
  DenseMap<OpOperand *, int64_t> rowDimOf;
  SmallVector<int64_t> extent;
};
} // namespace

/// Each loop dimension that runs over padded rows gets one static extent: a
/// static operand's extent on it when there is one (the dynamic program
/// requires the sizes to agree), else the smallest padded bound.
static FailureOr<PaddedLoops> padLoops(linalg::LinalgOp op,
                                       const DenseMap<Value, Padded> &padded) {
  PaddedLoops loops;
  loops.extent.assign(op.getNumLoops(), -1);
  SmallVector<bool> fromStatic(op.getNumLoops(), false);
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type)
      continue;
    if (padded.count(operand.get())) {
      auto rowDim = dyn_cast<AffineDimExpr>(map.getResult(0));
      if (!rowDim)
        return op->emitOpError("indexes the rows of a data-dependent tensor "
                               "with a non-trivial expression, which "
                               "--sift-staticize does not support");
      loops.rowDimOf[&operand] = rowDim.getPosition();
      continue;
    }
    for (auto [d, expr] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr);
          dim && !type.isDynamicDim(d)) {
        loops.extent[dim.getPosition()] = type.getDimSize(d);
        fromStatic[dim.getPosition()] = true;
      }
  }
  for (auto [operand, d] : loops.rowDimOf) {
    int64_t bound = padded.lookup(operand->get()).bound;
    int64_t &extent = loops.extent[d];
    if (!fromStatic[d])
      extent = extent < 0 ? bound : std::min(extent, bound);
  }
  return loops;
}

/// `op`'s loop nest as a generic on `inputs` and `inits` plus one validity
/// input per mask of `guards` (`{loop dim, mask}`); padding rows leave the
/// outputs as they were.
static Operation *
buildGuardedGeneric(ImplicitLocOpBuilder &b, linalg::LinalgOp op,
                    ValueRange inputs, ValueRange inits, TypeRange resultTypes,
                    ArrayRef<std::pair<int64_t, Value>> guards) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<AffineMap> newMaps(maps.begin(),
                                 maps.begin() + op.getNumDpsInputs());
  SmallVector<Value> newInputs(inputs);
  for (auto [d, mask] : guards) {
    newInputs.push_back(mask);
    newMaps.push_back(AffineMap::get(op.getNumLoops(), 0, b.getAffineDimExpr(d),
                                     b.getContext()));
  }
  newMaps.append(maps.begin() + op.getNumDpsInputs(), maps.end());
  Block *body = op.getBlock();
  unsigned numInputs = op.getNumDpsInputs(), numGuards = guards.size();
  return linalg::GenericOp::create(
      b, resultTypes, newInputs, inits, newMaps, op.getIteratorTypesArray(),
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

LogicalResult Staticizer::rewriteLinalg(ImplicitLocOpBuilder &b,
                                        linalg::LinalgOp op) {
  // A linalg op over data-dependent rows becomes the same op over the padded
  // rows, each loop dimension over padded rows at one static extent
  // (padLoops). Padding rows are then harmless by construction:
  //  - a dimension the op reduces over padded rows gets a validity mask as
  //    an extra input, and the body keeps the running value on padding rows
  //    (`select(valid, body(...), acc)`), whatever the body computes;
  //  - a parallel dimension maps padding rows to padding rows of the result;
  //  - a body that may trap sees 1 on padding rows instead of their values.
  if (!op.hasPureTensorSemantics())
    return op->emitOpError("on buffers is not supported by --sift-staticize");
  FailureOr<PaddedLoops> loops = padLoops(op, padded);
  if (failed(loops))
    return failure();
  auto iterators = op.getIteratorTypesArray();
  bool guardedBody = mayTrapOnPadding(op);
  SmallVector<Value> inputs, inits;
  // Validity masks of the padded rows reduced over: (loop dim, count).
  SmallVector<std::pair<int64_t, Value>> guards;
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    bool isInput = op.isDpsInput(&operand);
    auto it = loops->rowDimOf.find(&operand);
    if (it == loops->rowDimOf.end()) {
      (isInput ? inputs : inits).push_back(v);
      continue;
    }
    int64_t d = it->second;
    Padded p = padded[v];
    int64_t extent = loops->extent[d];
    Padded fitted = {fitRows(b, p, extent), p.count, extent};
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
    SmallVector<std::pair<int64_t, Value>> masks;
    for (auto [d, count] : guards)
      masks.emplace_back(d, laneIsValid(b, loops->extent[d], count));
    replacement = buildGuardedGeneric(b, op, inputs, inits, resultTypes, masks);
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

} // namespace staticize
} // namespace sift
} // namespace mlir
