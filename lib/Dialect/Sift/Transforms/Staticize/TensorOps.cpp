//===- TensorOps.cpp - Staticize rules of tensor and elementwise ops
//--------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The rules of the upstream ops that read or build a padded value:
// tensor.dim, extract_slice, concat, cast, extract, and elementwise ops
// (arith and math on tensors, tensor.empty, tensor.splat).
//
//===----------------------------------------------------------------------===//

#include "Staticizer.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::sift;

namespace mlir {
namespace sift {
namespace staticize {

// tensor.dim of a padded value is its count.
LogicalResult Staticizer::rewriteDim(ImplicitLocOpBuilder &b,
                                     tensor::DimOp dim) {
  Operation *op = dim;
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
  toErase.insert(op);
  return success();
}

// extract_slice along dimension 0 -> gather of the selected rows.
LogicalResult Staticizer::rewriteExtractSlice(ImplicitLocOpBuilder &b,
                                              tensor::ExtractSliceOp slice) {
  Operation *op = slice;
  RankedTensorType srcType = slice.getSourceType();
  RankedTensorType resType = slice.getType();
  // Rank-reducing slices of bounded tensors were split into a slice and a
  // collapse_shape before the rewrite (splitRankReducingSlices).
  assert(srcType.getRank() == resType.getRank() &&
         "rank-reducing slice left by splitRankReducingSlices");
  // The other dimensions (`x[m][:, 1:3]`) are sliced as they are, from the
  // rows the leading dimension selects.
  bool trailing = false;
  for (int64_t d = 1; d < srcType.getRank(); ++d)
    trailing |=
        !isConstantIntValue(slice.getMixedOffsets()[d], 0) ||
        !isConstantIntValue(slice.getMixedSizes()[d], srcType.getDimSize(d)) ||
        !isConstantIntValue(slice.getMixedStrides()[d], 1);
  Padded src = lookup(b, slice.getSource());
  int64_t n = resType.getDimSize(0);
  Value count;
  if (resType.isDynamicDim(0)) {
    FailureOr<int64_t> bound = requireBound(op, slice.getResult());
    if (failed(bound))
      return failure();
    n = *bound;
    // A size past the bound only comes with a slice outside its source
    // (undefined behaviour): the count still never exceeds the padding.
    count = arith::MinUIOp::create(b, slice.getDynamicSize(0),
                                   arith::ConstantIndexOp::create(b, n));
  }
  // The slice's rows: padded with its count when its size is dynamic.
  auto replaceSlice = [&](Value rows) {
    if (trailing) {
      SmallVector<OpFoldResult> offsets(slice.getMixedOffsets());
      SmallVector<OpFoldResult> sizes(slice.getMixedSizes());
      SmallVector<OpFoldResult> strides(slice.getMixedStrides());
      offsets[0] = b.getIndexAttr(0);
      sizes[0] = b.getIndexAttr(n);
      strides[0] = b.getIndexAttr(1);
      rows = tensor::ExtractSliceOp::create(b, rows, offsets, sizes, strides);
    }
    if (count)
      define(op, slice.getResult(), rows, count);
    else
      slice.getResult().replaceAllUsesWith(rows);
    toErase.insert(op);
    return success();
  };
  // A prefix of a stable argsort (as randperm(n)[:k] becomes) is a top-k
  // selection of its keys: sorted, ties by the lower index, so the rows
  // are the same, in O(n) instead of a full sort. Only the source's first
  // `count` keys are real (`valid`): the selection reads no padding, and
  // ranks the lanes past the count last whatever their keys, so a
  // randperm's words go to it unmasked. A prefix of data-dependent length
  // is the selection's `limit`: only the rows below it are selected and
  // sorted, the rows past it are padding (-1). Rows past the source's
  // count are padding as below.
  auto argsort = src.padded.getDefiningOp<ArgsortOp>();
  if (argsort && srcType.getRank() == 1 && !trailing &&
      isConstantIntValue(slice.getMixedOffsets()[0], 0) &&
      isConstantIntValue(slice.getMixedStrides()[0], 1) &&
      n < cast<RankedTensorType>(src.padded.getType()).getDimSize(0)) {
    Value keys = argsort.getInput();
    if (Value words = unmaskedKeys.lookup(argsort.getResult()))
      keys = words;
    auto keysType = cast<RankedTensorType>(keys.getType());
    auto topk =
        TopkOp::create(b, RankedTensorType::get({n}, keysType.getElementType()),
                       RankedTensorType::get({n}, b.getI64Type()), keys, n,
                       /*dim=*/0, /*smallest=*/!argsort.getDescending(),
                       /*unsorted=*/false, /*valid=*/src.count,
                       /*limit=*/count,
                       /*isUnsigned=*/argsort.getIsUnsigned());
    // The lanes at or past the source's count are padding (0), as below.
    Value lane = iota(b, n);
    Value inRange = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, lane,
                                          splat(b, toI64(b, src.count), n));
    return replaceSlice(arith::SelectOp::create(b, inRange, topk.getIndices(),
                                                constantI64(b, 0, n)));
  }
  // A prefix of a Feistel permutation's lanes is its first lanes: `n`
  // lanes, of which those below the slice's length (`limit`) are
  // evaluated. Its lanes past the source's count (the permutation's `n`)
  // are padding already (-1).
  auto feistel = src.padded.getDefiningOp<RandpermPrefixOp>();
  if (feistel && srcType.getRank() == 1 && !trailing &&
      isConstantIntValue(slice.getMixedOffsets()[0], 0) &&
      isConstantIntValue(slice.getMixedStrides()[0], 1) &&
      n < cast<RankedTensorType>(src.padded.getType()).getDimSize(0))
    return replaceSlice(RandpermPrefixOp::create(
        b, RankedTensorType::get({n}, b.getI64Type()), feistel.getN(),
        feistel.getSeed(), feistel.getOffset(), count));
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
  return replaceSlice(gatherValidRows(b, src.padded, idx));
}

// concat along dimension 0: the valid rows of the pieces, back to back.
// Along a later dimension (`torch.stack([col, row], 1)` of a selection's
// columns) the pieces have the same rows in the dynamic program: their
// padded rows, fitted to the fewest, side by side.
LogicalResult Staticizer::rewriteConcat(ImplicitLocOpBuilder &b,
                                        tensor::ConcatOp concat) {
  Operation *op = concat;
  SmallVector<Padded> pieces;
  SmallVector<Value> paddedPieces;
  for (Value in : concat.getInputs()) {
    pieces.push_back(lookup(b, in));
    paddedPieces.push_back(pieces.back().padded);
  }
  if (concat.getDim() != 0) {
    int64_t rows = pieces.front().bound;
    for (const Padded &p : pieces)
      rows = std::min(rows, p.bound);
    for (auto [piece, fitted] : llvm::zip(pieces, paddedPieces))
      fitted = fitRows(b, piece, rows);
    define(op, concat.getResult(),
           tensor::ConcatOp::create(b, concat.getDim(), paddedPieces),
           pieces.front().count);
    toErase.insert(op);
    return success();
  }
  Value all = tensor::ConcatOp::create(b, /*dim=*/0, paddedPieces);
  int64_t total = cast<RankedTensorType>(all.getType()).getDimSize(0);
  // The valid rows may be provably fewer than the pieces' bounds together
  // (groups that fill each other up to K): the result is that long.
  if (std::optional<int64_t> tight = bounds.upperDim(concat.getResult(), 0))
    total = std::clamp<int64_t>(*tight, 0, total);
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
        b, toI64(b, arith::ConstantIndexOp::create(b, base)), toI64(b, start));
    Value from = arith::AddIOp::create(b, lanes, splat(b, shift, total));
    idx = arith::SelectOp::create(b, in, from, idx);
    start = end;
    base += p.bound;
  }
  define(op, concat.getResult(), gatherValidRows(b, all, idx), start);
  toErase.insert(op);
  return success();
}

// tensor.cast: to a static shape, the first rows; to a dynamic one, the
// same padded value.
LogicalResult Staticizer::rewriteCast(ImplicitLocOpBuilder &b,
                                      tensor::CastOp castOp) {
  Operation *op = castOp;
  Padded src = lookup(b, castOp.getSource());
  auto resType = llvm::cast<RankedTensorType>(castOp.getType());
  if (resType.isDynamicDim(0)) {
    Value same =
        tensor::CastOp::create(b, withLeading(resType, src.bound), src.padded);
    define(op, castOp.getResult(), same, src.count);
  } else {
    int64_t n = resType.getDimSize(0);
    Value idx = iota(b, n);
    castOp.getResult().replaceAllUsesWith(gatherRows(b, src.padded, idx));
  }
  toErase.insert(op);
  return success();
}

// expand_shape / collapse_shape that keep the data-dependent dimension
// leading (`idx[:, None]`, `.squeeze(1)`, `.view(-1)` of `[n, 4]`, a split of
// the trailing dimensions): the same reshape of the padded tensor. The first
// `n` rows stay the first rows: a leading group `[?, s...]` of static sizes
// (product `s`) collapses `B` padded rows into `B * s` with the count
// `n * s`, and expands `B` rows into `ceil(B / s)` with the count `n / s`
// (exact in a valid dynamic program).
LogicalResult Staticizer::rewriteReshape(ImplicitLocOpBuilder &b,
                                         Operation *op) {
  auto expand = dyn_cast<tensor::ExpandShapeOp>(op);
  Value source = op->getOperand(0);
  auto resType = cast<RankedTensorType>(op->getResult(0).getType());
  auto srcType = cast<RankedTensorType>(source.getType());
  SmallVector<ReassociationIndices> groups =
      expand ? expand.getReassociationIndices()
             : cast<tensor::CollapseShapeOp>(op).getReassociationIndices();
  if (!isMapped(source) || !resType.isDynamicDim(0))
    return op->emitOpError(
        "of a tensor whose static dimensions become data-dependent is not "
        "supported by --sift-staticize");
  // The static sizes grouped with the leading dimension, on the side that
  // has more dimensions (the expanded one).
  RankedTensorType wide = expand ? resType : srcType;
  int64_t s = 1;
  for (int64_t d : ArrayRef(groups.front()).drop_front())
    s *= wide.getDimSize(d);
  Padded p = lookup(b, source);
  Value scale = arith::ConstantIndexOp::create(b, s);
  if (expand) {
    // A split that does not divide the bound (`.view(-1, 3)` of 100 padded
    // rows) splits the rows padded up to the next multiple.
    int64_t rows = llvm::divideCeil(p.bound, s) * s;
    Value source = fitRows(b, p, rows);
    Value reshaped = tensor::ExpandShapeOp::create(
        b, withLeading(resType, rows / s), source, groups);
    define(op, op->getResult(0), reshaped,
           s == 1 ? p.count : arith::DivUIOp::create(b, p.count, scale));
  } else {
    Value reshaped = tensor::CollapseShapeOp::create(
        b, withLeading(resType, p.bound * s), p.padded, groups);
    define(op, op->getResult(0), reshaped,
           s == 1 ? p.count : arith::MulIOp::create(b, p.count, scale));
  }
  toErase.insert(op);
  return success();
}

// tensor.extract of a row below the count reads the padded tensor.
LogicalResult Staticizer::rewriteExtract(ImplicitLocOpBuilder &b,
                                         tensor::ExtractOp extract) {
  Operation *op = extract;
  Value v = tensor::ExtractOp::create(b, lookup(b, extract.getTensor()).padded,
                                      extract.getIndices());
  extract.getResult().replaceAllUsesWith(v);
  toErase.insert(op);
  return success();
}

// tensor.empty and tensor.splat of a bounded size: the same op at the bound.
LogicalResult Staticizer::rewriteEmptyOrSplat(ImplicitLocOpBuilder &b,
                                              Operation *op) {
  auto resType = cast<RankedTensorType>(op->getResult(0).getType());
  FailureOr<int64_t> ub = requireBound(op, op->getResult(0));
  if (failed(ub))
    return failure();
  auto staticType = withLeading(resType, *ub);
  Value size = isa<tensor::EmptyOp>(op) ? op->getOperand(0) : op->getOperand(1);
  Value replacement =
      isa<tensor::EmptyOp>(op)
          ? tensor::EmptyOp::create(b, staticType.getShape(),
                                    staticType.getElementType())
                .getResult()
          : tensor::SplatOp::create(b, staticType, op->getOperand(0))
                .getResult();
  define(op, op->getResult(0), replacement, size);
  toErase.insert(op);
  return success();
}

// Elementwise ops (arith, math on tensors): the same op on the padded
// operands.
LogicalResult Staticizer::rewriteElementwise(ImplicitLocOpBuilder &b,
                                             Operation *op) {
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
  for (Value v : operands)
    if (auto t = dyn_cast<RankedTensorType>(v.getType());
        t && !t.hasStaticShape())
      return op->emitOpError("mixes a data-dependent tensor with a "
                             "dynamic tensor that is not bounded");
  SmallVector<Type> resultTypes;
  for (Type t : op->getResultTypes())
    resultTypes.push_back(withLeading(llvm::cast<RankedTensorType>(t), bound));
  OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                       op->getAttrs());
  Operation *clone = b.create(state);
  for (auto [orig, repl] : llvm::zip(op->getResults(), clone->getResults()))
    define(op, orig, repl, count);
  toErase.insert(op);
  return success();
}

} // namespace staticize
} // namespace sift
} // namespace mlir
