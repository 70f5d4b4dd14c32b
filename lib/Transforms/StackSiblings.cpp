//===- StackSiblings.cpp - --sift-stack-siblings --------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "sift/Dialect/Sift/IR/SiftOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTSTACKSIBLINGS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

/// The axis of a sort, argsort or top-k (-1 for other ops).
static int64_t axisOf(Operation *op) {
  if (auto sort = dyn_cast<SortOp>(op))
    return sort.getAxis();
  if (auto argsort = dyn_cast<ArgsortOp>(op))
    return argsort.getAxis();
  if (auto topk = dyn_cast<TopkOp>(op))
    return topk.getAxis();
  return -1;
}

/// A sort, argsort or top-k of one line of a static input of at least
/// `minLength` elements along its axis, directly in a function's body
/// (not in a loop, whose iterations may already run in parallel).
static bool isCandidate(Operation *op, int64_t minLength) {
  if (!isa<SortOp, ArgsortOp, TopkOp>(op) ||
      !isa_and_nonnull<func::FuncOp>(op->getParentOp()))
    return false;
  auto type = cast<RankedTensorType>(op->getOperand(0).getType());
  if (!type.hasStaticShape() || type.getRank() == 0)
    return false;
  int64_t axis = axisOf(op);
  return type.getNumElements() == type.getDimSize(axis) &&
         type.getDimSize(axis) >= minLength;
}

/// Whether `b` (after `a` in the same block; earlier stacks move ops) is the
/// same op as `a` on another input (same name, attributes, operand and result
/// types) that does not depend on it. Returns the ops between them that depend
/// on `a` (they move after the stacked op, which stands where `b` is): they
/// must be free of memory effects, and then `b` does not depend on them either.
static std::optional<SmallVector<Operation *>> siblingsApart(Operation *a,
                                                             Operation *b) {
  if (a->getName() != b->getName() ||
      a->getAttrDictionary() != b->getAttrDictionary() ||
      a->getOperandTypes() != b->getOperandTypes() ||
      a->getResultTypes() != b->getResultTypes() || !a->isBeforeInBlock(b))
    return std::nullopt;
  llvm::SmallPtrSet<Value, 16> dependent(a->result_begin(), a->result_end());
  auto dependsOnA = [&](Operation *op) {
    return op
        ->walk([&](Operation *nested) {
          for (Value operand : nested->getOperands())
            if (dependent.contains(operand))
              return WalkResult::interrupt();
          return WalkResult::advance();
        })
        .wasInterrupted();
  };
  SmallVector<Operation *> moved;
  for (Operation *op = a->getNextNode(); op != b; op = op->getNextNode()) {
    if (!dependsOnA(op))
      continue;
    if (!isMemoryEffectFree(op))
      return std::nullopt;
    moved.push_back(op);
    dependent.insert(op->result_begin(), op->result_end());
  }
  if (dependsOnA(b))
    return std::nullopt;
  return moved;
}

/// `x` with a leading dimension of 1.
static Value asRow(RewriterBase &rewriter, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape{1};
  llvm::append_range(shape, type.getShape());
  SmallVector<ReassociationIndices> lead;
  if (type.getRank() > 0) {
    lead.push_back({0, 1});
    for (int64_t d = 2; d <= type.getRank(); ++d)
      lead.push_back({d});
  }
  return tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(shape, type.getElementType()), x,
      lead);
}

/// The scalar or tensor `x` (a seed, offset or length of `shape` or a
/// scalar) as a tensor of `shape`.
static Value asTensor(RewriterBase &rewriter, Location loc, Value x,
                      ArrayRef<int64_t> shape) {
  if (isa<RankedTensorType>(x.getType()))
    return x;
  return tensor::SplatOp::create(rewriter, loc,
                                 RankedTensorType::get(shape, x.getType()), x);
}

/// `x` and `y` (of one type) stacked as rows of `[2, shape...]`.
static Value stackRows(RewriterBase &rewriter, Location loc, Value x, Value y) {
  return tensor::ConcatOp::create(
      rewriter, loc, /*dim=*/0,
      ValueRange{asRow(rewriter, loc, x), asRow(rewriter, loc, y)});
}

/// The two streams of `sift.random_bits` ops `a` and `b` (of one result
/// type, each read only by the stacked op) as one op with one row each:
/// their seeds, offsets (0 where absent) and `valid` lengths (the whole
/// line where absent) become per-row tensors. Null when they do not fit.
static Value stackRandomBits(RewriterBase &rewriter, Location loc,
                             RandomBitsOp a, RandomBitsOp b) {
  if (!a || !b || a.getType() != b.getType() || !a->hasOneUse() ||
      !b->hasOneUse() || a.getSeed().getType() != b.getSeed().getType())
    return {};
  // The rows the seeds cover: none (scalar seeds) or the seeds' shape.
  SmallVector<int64_t> rows;
  if (auto seedType = dyn_cast<RankedTensorType>(a.getSeed().getType()))
    rows.assign(seedType.getShape().begin(), seedType.getShape().end());
  for (RandomBitsOp op : {a, b})
    if (Value offset = op.getOffset();
        offset && offset.getType() != a.getSeed().getType() &&
        isa<RankedTensorType>(offset.getType()))
      return {};
  ArrayRef<int64_t> shape = a.getType().getShape();
  SmallVector<int64_t> lines(shape.drop_back());
  auto offsetOf = [&](RandomBitsOp op) -> Value {
    Value offset = op.getOffset();
    if (!offset)
      offset = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getI64IntegerAttr(0));
    return asTensor(rewriter, loc, offset, rows);
  };
  auto validOf = [&](RandomBitsOp op) -> Value {
    Value valid = op.getValid();
    if (!valid)
      valid = arith::ConstantIndexOp::create(rewriter, loc, shape.back());
    return asTensor(rewriter, loc, valid, lines);
  };
  // (One op a statement: the order of a call's arguments is unspecified.)
  Value seedA = asTensor(rewriter, loc, a.getSeed(), rows);
  Value seedB = asTensor(rewriter, loc, b.getSeed(), rows);
  Value seeds = stackRows(rewriter, loc, seedA, seedB);
  Value offsetA = offsetOf(a);
  Value offsetB = offsetOf(b);
  Value offsets = stackRows(rewriter, loc, offsetA, offsetB);
  Value valid;
  if (a.getValid() || b.getValid()) {
    Value validA = validOf(a);
    Value validB = validOf(b);
    valid = stackRows(rewriter, loc, validA, validB);
  }
  SmallVector<int64_t> stackedShape{2};
  llvm::append_range(stackedShape, shape);
  return RandomBitsOp::create(
      rewriter, loc,
      RankedTensorType::get(stackedShape, a.getType().getElementType()), seeds,
      offsets, valid);
}

/// `a` and `b` as one op over their inputs stacked along a new leading
/// dimension (two lines), placed where `b` is; each one's results are its
/// slice of the stacked results, and the ops `moved` (users of `a` that
/// stood before `b`) follow them in their order.
static void stack(RewriterBase &rewriter, Operation *a, Operation *b,
                  ArrayRef<Operation *> moved) {
  rewriter.setInsertionPoint(b);
  Location loc = b->getLoc();
  Value inputs[] = {a->getOperand(0), b->getOperand(0)};
  auto inputType = cast<RankedTensorType>(a->getOperand(0).getType());
  int64_t rank = inputType.getRank();
  // The inputs as two rows: drawn as one stream of two rows where both are
  // random streams read only here (no copy into the stacked input), else
  // stacked.
  Value stackedInput = stackRandomBits(
      rewriter, loc, a->getOperand(0).getDefiningOp<RandomBitsOp>(),
      b->getOperand(0).getDefiningOp<RandomBitsOp>());
  if (!stackedInput)
    stackedInput = stackRows(rewriter, loc, a->getOperand(0), b->getOperand(0));
  SmallVector<Value> operands{stackedInput};
  // A top-k's `valid` and `limit`: one length per line of the stacked
  // input (each op has one line: the length, or the one element of its
  // tensor of lengths).
  SmallVector<int64_t> lineShape{2};
  lineShape.append(rank - 1, 1);
  auto lengthOf = [&](Value length) -> Value {
    auto type = dyn_cast<RankedTensorType>(length.getType());
    if (!type)
      return length;
    SmallVector<Value> zeros(type.getRank(),
                             arith::ConstantIndexOp::create(rewriter, loc, 0));
    return tensor::ExtractOp::create(rewriter, loc, length, zeros);
  };
  for (auto [x, y] : llvm::zip_equal(a->getOperands().drop_front(),
                                     b->getOperands().drop_front()))
    operands.push_back(tensor::FromElementsOp::create(
        rewriter, loc,
        RankedTensorType::get(lineShape, rewriter.getIndexType()),
        ValueRange{lengthOf(x), lengthOf(y)}));
  SmallVector<Type> resultTypes;
  for (Type t : a->getResultTypes()) {
    auto type = cast<RankedTensorType>(t);
    SmallVector<int64_t> shape{2};
    llvm::append_range(shape, type.getShape());
    resultTypes.push_back(RankedTensorType::get(shape, type.getElementType()));
  }
  // The same op, its axis one further.
  OperationState state(loc, a->getName(), operands, resultTypes, a->getAttrs());
  Operation *stacked = rewriter.create(state);
  stacked->setAttr("dim", rewriter.getI64IntegerAttr(axisOf(a) + 1));
  Operation *last = stacked;
  Operation *pair[] = {a, b};
  for (auto [row, op] : llvm::enumerate(pair)) {
    SmallVector<Value> slices;
    for (auto [result, type] :
         llvm::zip_equal(stacked->getResults(), op->getResultTypes())) {
      auto sliceType = cast<RankedTensorType>(type);
      SmallVector<OpFoldResult> offsets(rank + 1, rewriter.getIndexAttr(0));
      offsets[0] = rewriter.getIndexAttr(row);
      SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(1)};
      for (int64_t size : sliceType.getShape())
        sizes.push_back(rewriter.getIndexAttr(size));
      SmallVector<OpFoldResult> strides(rank + 1, rewriter.getIndexAttr(1));
      auto slice = tensor::ExtractSliceOp::create(
          rewriter, loc, sliceType, result, offsets, sizes, strides);
      slices.push_back(slice);
      last = slice;
    }
    rewriter.replaceOp(op, slices);
  }
  // Streams drawn for the stacked op alone are dead now.
  for (Value input : inputs)
    if (Operation *def = input.getDefiningOp();
        def && isa<RandomBitsOp>(def) && def->use_empty())
      rewriter.eraseOp(def);
  for (Operation *op : moved) {
    rewriter.moveOpAfter(op, last);
    last = op;
  }
}

/// See SiftStackSiblings in Passes.td.
struct StackSiblingsPass
    : sift::impl::SiftStackSiblingsBase<StackSiblingsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    for (Block &block : getOperation().getBody()) {
      SmallVector<Operation *> candidates;
      for (Operation &op : block)
        if (isCandidate(&op, minLength))
          candidates.push_back(&op);
      // Pairs in program order: each op joins the first later sibling
      // not taken yet.
      llvm::SmallPtrSet<Operation *, 8> taken;
      for (auto [i, a] : llvm::enumerate(candidates)) {
        if (taken.contains(a))
          continue;
        for (Operation *b : ArrayRef(candidates).drop_front(i + 1)) {
          if (taken.contains(b))
            continue;
          std::optional<SmallVector<Operation *>> moved = siblingsApart(a, b);
          if (!moved)
            continue;
          taken.insert(a);
          taken.insert(b);
          stack(rewriter, a, b, *moved);
          break;
        }
      }
    }
  }
};

} // namespace
