//===- Layout.cpp - --sift-layout -------------------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Moves the axis of the line-by-line ops (sort, argsort, topk, cumsum) last,
// so that their lines are contiguous. See SiftLayout in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/IR/SiftOps.h"
#include "sift/Dialect/Sift/Transforms/Passes.h"
#include "sift/Dialect/Sift/Transforms/Transforms.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTLAYOUT
#include "sift/Dialect/Sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {
/// `linalg.transpose` of `value` by `perm` (result dimension i is input
/// dimension perm[i]).
static Value transpose(OpBuilder &b, Location loc, Value value,
                       ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  applyPermutationToVector(sizes, perm);
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  return linalg::TransposeOp::create(b, loc, value, init, perm).getResult()[0];
}

/// `type` with its dimensions permuted by `perm`.
static RankedTensorType permuted(RankedTensorType type,
                                 ArrayRef<int64_t> perm) {
  return RankedTensorType::get(applyPermutation(type.getShape(), perm),
                               type.getElementType());
}

/// An axis op whose lines are not contiguous becomes the same op along the
/// last axis of its transposed input (`moveAxisLast`).
template <typename OpTy> struct MoveAxisLast : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    int64_t axis = op.getAxis();
    // Lines are contiguous when every dimension after the axis is a unit
    // one.
    if (axis < type.getRank() - 1 &&
        llvm::all_of(type.getShape().drop_front(axis + 1),
                     [](int64_t size) { return size == 1; }))
      return rewriter.notifyMatchFailure(op, "the lines are contiguous");
    return sift::moveAxisLast(rewriter, op);
  }
};
} // namespace

LogicalResult sift::moveAxisLast(RewriterBase &rewriter, Operation *axisOp) {
  auto type = cast<RankedTensorType>(axisOp->getOperand(0).getType());
  int64_t rank = type.getRank();
  int64_t axis = llvm::TypeSwitch<Operation *, int64_t>(axisOp)
                     .Case<SortOp, ArgsortOp, TopkOp, CumsumOp>(
                         [](auto op) { return op.getAxis(); })
                     .Default([](Operation *) { return -1; });
  if (rank < 2 || axis < 0 || axis == rank - 1)
    return rewriter.notifyMatchFailure(axisOp, "the axis is already last");
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  SmallVector<int64_t> inverse = invertPermutationVector(perm);

  Location loc = axisOp->getLoc();
  Value input = transpose(rewriter, loc, axisOp->getOperand(0), perm);
  Operation *moved = rewriter.clone(*axisOp);
  rewriter.modifyOpInPlace(moved, [&] {
    moved->setOperand(0, input);
    for (OpResult result : moved->getResults())
      result.setType(permuted(cast<RankedTensorType>(result.getType()), perm));
    moved->setAttr("dim", rewriter.getI64IntegerAttr(rank - 1));
  });
  // The results that are read, transposed back.
  for (auto [old, result] :
       llvm::zip(axisOp->getResults(), moved->getResults()))
    if (!old.use_empty())
      rewriter.replaceAllUsesWith(old,
                                  transpose(rewriter, loc, result, inverse));
  rewriter.eraseOp(axisOp);
  return success();
}

namespace {
struct LayoutPass : sift::impl::SiftLayoutBase<LayoutPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MoveAxisLast<SortOp>, MoveAxisLast<ArgsortOp>,
                 MoveAxisLast<TopkOp>, MoveAxisLast<CumsumOp>>(&getContext());
    // One rewrite per op, no folding: the transposes stay for the cleanup
    // that follows (canonicalization folds those that cancel).
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
