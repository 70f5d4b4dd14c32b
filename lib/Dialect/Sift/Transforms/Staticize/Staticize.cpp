//===- Staticize.cpp - Data-dependent shapes to static padded form --------===//
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
//     size arithmetic (the SizeBounds analysis, sift/Dialect/Sift/Analysis);
//  2. rewrite: a walk in program order that maps each dynamic value to its
//     padded form (a `Padded` record) and rewrites each op that touches one.
//     The original dynamic ops are erased at the end.
//
//===----------------------------------------------------------------------===//

#include "Staticizer.h"
#include "sift/Dialect/Sift/Transforms/Passes.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTSTATICIZE
#include "sift/Dialect/Sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace mlir {
namespace sift {
namespace staticize {

bool hasDynamicTensor(TypeRange types) {
  return llvm::any_of(types, [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && !rt.hasStaticShape();
  });
}

/// Whether only dimension 0 of `t` is dynamic (the form staticize handles).
bool onlyLeadingDynamic(RankedTensorType t) {
  for (int64_t d = 1; d < t.getRank(); ++d)
    if (t.isDynamicDim(d))
      return false;
  return t.getRank() >= 1;
}

RankedTensorType withLeading(RankedTensorType t, int64_t n) {
  SmallVector<int64_t> shape(t.getShape());
  shape[0] = n;
  return RankedTensorType::get(shape, t.getElementType());
}

/// `x != 0` elementwise (NaN counts as non-zero, as in sift.count).
Value isNonZero(ImplicitLocOpBuilder &b, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  Value zero = arith::ConstantOp::create(
      b, DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
  if (isa<FloatType>(type.getElementType()))
    return arith::CmpFOp::create(b, arith::CmpFPredicate::UNE, x, zero);
  return arith::CmpIOp::create(b, arith::CmpIPredicate::ne, x, zero);
}

/// The reassociation that groups the first `rank` dimensions into one.
ReassociationIndices leadingDims(int64_t rank) {
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

/// An element value on which no op traps (1: no division by zero, no
/// INT_MIN / -1), or null for other element types.
TypedAttr harmlessValue(Type elem) {
  Builder b(elem.getContext());
  if (isa<FloatType>(elem))
    return b.getFloatAttr(elem, 1.0);
  if (isa<IntegerType, IndexType>(elem))
    return b.getIntegerAttr(elem, 1);
  return {};
}

bool isIntDivision(Operation &op) {
  return isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
             arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op);
}

/// Whether some op of `op` (or of its regions) may trap or has an effect
/// when run on arbitrary values, as on padding rows (integer division by a
/// padding zero).
bool mayTrapOnPadding(Operation *op) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (nested == op && isa<linalg::LinalgOp>(op))
      return WalkResult::advance();
    if (isIntDivision(*nested))
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

} // namespace staticize
} // namespace sift
} // namespace mlir

namespace {
using staticize::Staticizer;

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
