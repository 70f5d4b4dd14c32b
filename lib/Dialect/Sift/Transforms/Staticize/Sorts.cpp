//===- Sorts.cpp - Staticize rules of sorts, top-k, unique ----------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Staticizer.h"

#include "sift/Dialect/Sift/IR/SortOrder.h"

using namespace mlir;
using namespace mlir::sift;

namespace mlir {
namespace sift {
namespace staticize {

LogicalResult Staticizer::rewriteSortLike(ImplicitLocOpBuilder &b,
                                          Operation *op) {
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
  // Padding rows get a key that orders them after every valid row (stable
  // sorts keep a valid row with the same key first), so the valid rows come
  // out first.
  Value input = op->getOperand(0);
  Padded p = padded[input];
  auto type = cast<RankedTensorType>(p.padded.getType());
  int64_t axis = 0;
  bool last = true, isUnsigned = false;
  if (auto sort = dyn_cast<SortOp>(op)) {
    axis = sort.getAxis();
    last = !sort.getDescending();
  } else if (auto argsort = dyn_cast<ArgsortOp>(op)) {
    axis = argsort.getAxis();
    last = !argsort.getDescending();
    isUnsigned = argsort.getIsUnsigned();
  } else if (auto topk = dyn_cast<TopkOp>(op)) {
    axis = topk.getAxis();
    last = topk.getSmallest();
    isUnsigned = topk.getIsUnsigned();
  } else {
    axis = cast<CumsumOp>(op).getAxis();
  }
  if (isa<CumsumOp>(op) && type.getElementType().isInteger(1))
    return op->emitOpError("of a data-dependent i1 tensor is not supported "
                           "by --sift-staticize yet");
  Value key = p.padded;
  if (axis == 0 && !isa<CumsumOp>(op))
    key = resetPadding(
        b, p, getLastInSortOrder(type.getElementType(), last, isUnsigned));
  IRMapping mapping;
  mapping.map(input, key);
  Operation *clone = b.clone(*op, mapping);
  // A top-k along the rows ranks only the valid ones (the padding already
  // ranks last): its selection reads no padding row.
  if (auto topk = dyn_cast<TopkOp>(clone);
      topk && axis == 0 && !topk.getValid())
    topk.getValidMutable().assign(p.count);
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
  // Of a bounded input (a selection of a selection): its padded form with
  // padding keys that sort after every valid one. The valid elements lead
  // the flattened input, so the stable sort keeps them first even where a
  // valid key equals the padding key; only the first `valid` sorted lanes
  // may start groups, and the last group ends there.
  Value input = op.getInput();
  Value valid; // number of valid elements (index), null when all are
  Value rowCount;
  bool narrow = false; // an i1 input, sorted as i8
  if (isMapped(input)) {
    Padded p = lookup(b, input);
    auto pt = cast<RankedTensorType>(p.padded.getType());
    if (pt.getElementType().isInteger(1)) {
      // An i1 key has no value above both valid ones (`unique(m[sel])`):
      // sorted as i8 (0, 1), the padding 127; the values go back to i1.
      pt = RankedTensorType::get(pt.getShape(), b.getI8Type());
      p.padded = arith::ExtUIOp::create(b, pt, p.padded);
      narrow = true;
    }
    input = resetPadding(b, p, getLastInSortOrder(pt.getElementType(), true));
    rowCount = p.count;
    valid =
        arith::MulIOp::create(b, p.count,
                              arith::ConstantIndexOp::create(
                                  b, pt.getNumElements() / pt.getDimSize(0)));
  }
  auto inType = cast<RankedTensorType>(input.getType());
  int64_t n = inType.getNumElements();
  Type elem = inType.getElementType();
  auto i64 = b.getI64Type();
  auto vec = [&](Type t) { return RankedTensorType::get({n}, t); };
  Value flat = input;
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
    // NaNs are one value: a NaN equals the NaN before it. (`une` alone is
    // true for two NaNs; -0.0 and +0.0 compare equal.)
    Value une =
        arith::CmpFOp::create(b, arith::CmpFPredicate::UNE, sorted, prev);
    Value bothNaN = arith::AndIOp::create(
        b, arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, sorted, sorted),
        arith::CmpFOp::create(b, arith::CmpFPredicate::UNO, prev, prev));
    Value notBoth = arith::XOrIOp::create(
        b, bothNaN,
        arith::ConstantOp::create(
            b, DenseElementsAttr::get(vec(b.getI1Type()), true)));
    differs = arith::AndIOp::create(b, une, notBoth);
  } else {
    differs = arith::CmpIOp::create(b, arith::CmpIPredicate::ne, sorted, prev);
  }
  Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lanes,
                                      constantI64(b, 0, n));
  Value flags = arith::OrIOp::create(b, differs, first);
  Value end = constantI64(b, n, n);
  if (valid) {
    flags = arith::AndIOp::create(b, flags, laneIsValid(b, n, valid));
    end = splat(b, toI64(b, valid), n);
  }
  auto compact = CompactOp::create(b, vec(i64), RankedTensorType::get({}, i64),
                                   flags, /*fill=*/-1);
  Value count = toIndex(b, compact.getCount());
  Value values = gatherRows(b, sorted, compact.getIndices());
  if (narrow)
    values = arith::TruncIOp::create(b, vec(b.getI1Type()), values);
  define(op, op.getValues(), values, count);
  if (Value counts = op.getCounts()) {
    Value next = gatherRows(b, compact.getIndices(),
                            arith::AddIOp::create(b, lanes, one));
    Value hasNext = arith::CmpIOp::create(b, arith::CmpIPredicate::slt,
                                          arith::AddIOp::create(b, lanes, one),
                                          splat(b, toI64(b, count), n));
    next = arith::SelectOp::create(b, hasNext, next, end);
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
    if (valid)
      define(op, inverse, inv, rowCount);
    else
      inverse.replaceAllUsesWith(inv);
  }
  ++numSyncsRemoved;
  toErase.insert(op);
  return success();
}

} // namespace staticize
} // namespace sift
} // namespace mlir
