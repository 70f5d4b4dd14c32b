//===- SiftOps.cpp - Staticize rules of sift ops
//----------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The rules of the data-dependent sift ops (nonzero, masked_select,
// randperm become a compaction or a sort to a static bound) and of the sift
// ops that consume a padded value (gather, count, cross_entropy).
//
//===----------------------------------------------------------------------===//

#include "Staticizer.h"

#include "sift/Dialect/Sift/IR/SortOrder.h"

using namespace mlir;
using namespace mlir::sift;

namespace mlir {
namespace sift {
namespace staticize {

// nonzero -> compact (+ unravel for N-D inputs).
LogicalResult Staticizer::rewriteNonzero(ImplicitLocOpBuilder &b,
                                         NonzeroOp nz) {
  Operation *op = nz;
  // Of a bounded input: its padded form with zero padding rows, which
  // select nothing (the bound composes, the count is that of valid rows).
  Value mask = nz.getInput();
  if (isMapped(mask)) {
    Padded p = lookup(b, mask);
    Type elem = nz.getInput().getType().getElementType();
    mask = resetPadding(b, p, cast<TypedAttr>(b.getZeroAttr(elem)));
  }
  auto inType = cast<RankedTensorType>(mask.getType());
  if (!inType.getElementType().isInteger(1))
    mask = isNonZero(b, mask);
  int64_t numel = inType.getNumElements();
  int64_t rank = inType.getRank();
  if (rank > 1)
    mask = tensor::CollapseShapeOp::create(
        b, RankedTensorType::get({numel}, b.getI1Type()), mask,
        ArrayRef<ReassociationIndices>{leadingDims(rank)});
  auto idxType = RankedTensorType::get({numel}, b.getI64Type());
  // The padding rows of a staticized value are unspecified: nothing needs
  // to write them (rewriteReturn restores them where a function returns
  // them).
  auto compact =
      CompactOp::create(b, idxType, RankedTensorType::get({}, b.getI64Type()),
                        mask, /*fill=*/-1, /*unpadded=*/true);
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
    Value init = tensor::EmptyOp::create(b, outType.getShape(), b.getI64Type());
    MLIRContext *ctx = b.getContext();
    AffineMap rows = AffineMap::get(2, 0, getAffineDimExpr(0, ctx));
    AffineMap cols = AffineMap::get(2, 0, getAffineDimExpr(1, ctx));
    result = linalg::GenericOp::create(
                 b, TypeRange{outType}, ValueRange{result, strideCst, sizeCst},
                 ValueRange{init},
                 ArrayRef{rows, cols, cols, b.getMultiDimIdentityMap(2)},
                 ArrayRef{utils::IteratorType::parallel,
                          utils::IteratorType::parallel},
                 [](OpBuilder &nb, Location loc, ValueRange args) {
                   Value q = arith::DivSIOp::create(nb, loc, args[0], args[1]);
                   Value r = arith::RemSIOp::create(nb, loc, q, args[2]);
                   linalg::YieldOp::create(nb, loc, r);
                 })
                 .getResult(0);
  }
  define(op, nz.getResult(), result, toIndex(b, compact.getCount()));
  ++numSyncsRemoved;
  toErase.insert(op);
  return success();
}

// masked_select -> compact + gather.
LogicalResult Staticizer::rewriteMaskedSelect(ImplicitLocOpBuilder &b,
                                              MaskedSelectOp ms) {
  Operation *op = ms;
  // Of bounded operands: the padded mask with false padding rows, which
  // select nothing, and the input fitted to the mask's rows.
  Value mask = ms.getMask(), input = ms.getInput();
  if (isMapped(mask))
    mask = resetPadding(b, lookup(b, mask), b.getBoolAttr(false));
  int64_t rows = cast<RankedTensorType>(mask.getType()).getDimSize(0);
  if (isMapped(input) ||
      cast<RankedTensorType>(input.getType()).getDimSize(0) != rows)
    input = fitRows(b, lookup(b, input), rows);
  auto inType = cast<RankedTensorType>(input.getType());
  auto maskType = cast<RankedTensorType>(mask.getType());
  int64_t r = maskType.getRank();
  int64_t m = maskType.getNumElements();
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
      RankedTensorType::get({}, b.getI64Type()), mask, /*fill=*/-1,
      /*unpadded=*/true);
  define(op, ms.getResult(), gatherRows(b, input, compact.getIndices()),
         toIndex(b, compact.getCount()));
  ++numSyncsRemoved;
  toErase.insert(op);
  return success();
}

// randperm(n) -> randperm_prefix to the bound; with `sort`, the stable
// unsigned argsort of the stream's words, invalid lanes last. randperm orders
// lanes by their unsigned 32-bit Philox word, ties by lane; an invalid lane
// gets the largest word, 0xFFFFFFFF. A valid lane whose word is 0xFFFFFFFF ties
// with the invalid lanes, but comes before them (its index is lower): the first
// n lanes are exactly randperm(n).
LogicalResult Staticizer::rewriteRandperm(ImplicitLocOpBuilder &b,
                                          RandpermOp perm) {
  Operation *op = perm;
  FailureOr<int64_t> bound = requireBound(op, perm.getResult());
  if (failed(bound))
    return failure();
  int64_t n = *bound;
  if (perm.isFeistel()) {
    // Lanes past n are -1; a prefix of it is a shorter one
    // (rewriteExtractSlice).
    Value lanes =
        RandpermPrefixOp::create(b, RankedTensorType::get({n}, b.getI64Type()),
                                 perm.getN(), perm.getSeed(), perm.getOffset());
    define(op, perm.getResult(), lanes, perm.getN());
    ++numSyncsRemoved;
    toErase.insert(op);
    return success();
  }
  auto keyType = RankedTensorType::get({n}, b.getI32Type());
  Value bits =
      RandomBitsOp::create(b, keyType, perm.getSeed(), perm.getOffset());
  Value past = arith::ConstantOp::create(
      b, DenseElementsAttr::get(
             keyType, getLastInSortOrder(b.getI32Type(), /*ascending=*/true,
                                         /*isUnsigned=*/true)));
  Value valid = laneIsValid(b, n, perm.getN());
  Value keys = arith::SelectOp::create(b, valid, bits, past);
  auto argsort = ArgsortOp::create(b, keys, /*dim=*/-1, /*descending=*/false,
                                   /*isUnsigned=*/true);
  // A selection of its first lanes ranks only the valid ones
  // (rewriteExtractSlice): it takes the words unmasked.
  unmaskedKeys[argsort.getResult()] = bits;
  define(op, perm.getResult(), argsort, perm.getN());
  ++numSyncsRemoved;
  toErase.insert(op);
  return success();
}

/// Replaces the result of `op` by `replacement`: padded with the count of
/// `shapeFrom` when that value is bounded (the result's rows are its rows),
/// a plain value otherwise. `op` is erased at the end.
void Staticizer::replaceResult(Operation *op, Value replacement,
                               const Padded &shapeFrom, bool bounded) {
  if (bounded)
    define(op, op->getResult(0), replacement, shapeFrom.count);
  else
    op->getResult(0).replaceAllUsesWith(replacement);
  toErase.insert(op);
}

/// `indices` with every index at or past `count` replaced by -1 (an invalid
/// index, which skips its lane): they were out of range in the dynamic
/// program too.
static Value invalidPast(ImplicitLocOpBuilder &b, Value indices,
                         Value countI64) {
  auto idxType = cast<RankedTensorType>(indices.getType());
  Value limit = tensor::SplatOp::create(b, idxType, countI64);
  Value inRange =
      arith::CmpIOp::create(b, arith::CmpIPredicate::slt, indices, limit);
  Value invalid = arith::ConstantOp::create(
      b, DenseElementsAttr::get(idxType, int64_t(-1)));
  return arith::SelectOp::create(b, inRange, indices, invalid);
}

// gather: bounded indices give a bounded result; a bounded source makes its
// padding rows invalid lanes. With batch_dims, the leading dimension is
// shared: the source is fitted to the indices' rows.
LogicalResult Staticizer::rewriteGather(ImplicitLocOpBuilder &b,
                                        GatherOp gather) {
  Padded idx = lookup(b, gather.getIndices());
  Value indices = idx.padded;
  Value source = gather.getSource();
  if (gather.getBatchDims() != 0) {
    // The data-dependent dimension (the leading one) is a batch dimension
    // of both operands, which have the same rows in the dynamic program (a
    // per-row pick x[arange(n), y] of selected rows): the source is fitted
    // to the indices' padded rows, rows past them read the fill. The
    // gathered axis is static.
    source = fitRows(b, lookup(b, source), idx.bound);
  } else if (isMapped(source)) {
    Padded src = lookup(b, source);
    source = src.padded;
    // The lanes of a Feistel permutation of the source's count are below
    // it or -1 already (`x[randperm(len(x))[:k]]`).
    auto perm = indices.getDefiningOp<RandpermPrefixOp>();
    if (!perm || perm.getN() != src.count)
      indices = invalidPast(b, indices, toI64(b, src.count));
  }
  Value result = GatherOp::create(b, source, indices, gather.getBatchDims(),
                                  gather.getFillAttr());
  // Indices past a bounded source's count are -1: only its valid rows are
  // read.
  if (gather.getBatchDims() == 0)
    validRowGathers.insert(result.getDefiningOp());
  replaceResult(gather, result, idx, isMapped(gather.getIndices()));
  return success();
}

// scatter: padding lanes of bounded indices become invalid indices (-1),
// which skip their lane; a bounded dest keeps its count, and an index at or
// past that count (out of range in the dynamic program) skips too. With
// batch_dims, the leading dimension is shared: the indices and updates are
// fitted to the dest's rows.
LogicalResult Staticizer::rewriteScatter(ImplicitLocOpBuilder &b,
                                         ScatterOp scatter) {
  Padded dst = lookup(b, scatter.getDest());
  Value indices, updates;
  if (scatter.getBatchDims() != 0) {
    // Rows past the count write only into the dest's padding rows (a row
    // scatters into its own row).
    indices = fitRows(b, lookup(b, scatter.getIndices()), dst.bound);
    updates = fitRows(b, lookup(b, scatter.getUpdates()), dst.bound);
  } else {
    Padded idx = lookup(b, scatter.getIndices());
    indices = idx.padded;
    if (isMapped(scatter.getIndices())) {
      auto idxType = cast<RankedTensorType>(indices.getType());
      Value invalid = arith::ConstantOp::create(
          b, DenseElementsAttr::get(idxType, int64_t(-1)));
      indices = arith::SelectOp::create(b, validRows(b, idxType, idx.count),
                                        indices, invalid);
    }
    // The updates have a row per index row: rows past their own are
    // padding, whose indices are invalid.
    updates = fitRows(b, lookup(b, scatter.getUpdates()), idx.bound);
    if (isMapped(scatter.getDest()))
      indices = invalidPast(b, indices, toI64(b, dst.count));
  }
  Value result =
      ScatterOp::create(b, updates, dst.padded, indices,
                        scatter.getReduceAttr(), scatter.getBatchDimsAttr());
  replaceResult(scatter, result, dst, isMapped(scatter.getDest()));
  return success();
}

// count of a bounded tensor: padding lanes do not count.
LogicalResult Staticizer::rewriteCount(ImplicitLocOpBuilder &b, CountOp count) {
  Operation *op = count;
  Padded p = lookup(b, count.getInput());
  auto type = cast<RankedTensorType>(p.padded.getType());
  if (type.getRank() != 1) {
    // Counts along the last axis of selected rows (`(x[m] > 0).sum(1)`):
    // the leading dimension is a batch dimension, one count per padded row,
    // the first `n` of them valid.
    Value perRow = CountOp::create(b, p.padded);
    define(op, count.getResult(), perRow, p.count);
    toErase.insert(op);
    return success();
  }
  Value mask = arith::AndIOp::create(b, isNonZero(b, p.padded),
                                     laneIsValid(b, p.bound, p.count));
  count.getResult().replaceAllUsesWith(CountOp::create(b, mask));
  toErase.insert(op);
  return success();
}

// cross_entropy: padding rows become ignored targets, which contribute
// nothing and are left out of the mean.
LogicalResult Staticizer::rewriteCrossEntropy(ImplicitLocOpBuilder &b,
                                              CrossEntropyOp ce) {
  Operation *op = ce;
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
      b, DenseElementsAttr::get(tType, b.getIntegerAttr(tType.getElementType(),
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
  toErase.insert(op);
  return success();
}

} // namespace staticize
} // namespace sift
} // namespace mlir
