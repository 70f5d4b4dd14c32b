//===- LoopCarriedInPlace.cpp - --sift-loop-carried-in-place --------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// An element-wise update of a tensor a loop carries writes into that tensor,
// so that bufferization keeps one buffer for the whole loop. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTLOOPCARRIEDINPLACE
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

/// The iteration argument of `loop` that `op`'s result `index` becomes in
/// the next iteration (the loop yields it there), or null.
static BlockArgument nextIterationOf(scf::ForOp loop, Operation *op,
                                     unsigned index) {
  Value result = op->getResult(index);
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (OpOperand &use : result.getUses())
    if (use.getOwner() == yield)
      return loop.getRegionIterArg(use.getOperandNumber());
  return nullptr;
}

/// Whether every use of `arg` other than by `op` comes before `op` in its
/// block and makes no view of it (a later read of the old value, or of a
/// slice of it, would make bufferization copy the carried buffer anyway).
static bool onlyReadBefore(BlockArgument arg, Operation *op) {
  for (Operation *user : arg.getUsers()) {
    if (user == op)
      continue;
    if (user->getBlock() != op->getBlock() || !user->isBeforeInBlock(op))
      return false;
    // A linalg op's results alias its outputs only.
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user)) {
      if (llvm::any_of(linalgOp.getDpsInits(),
                       [&](Value init) { return init == arg; }))
        return false;
    } else if (llvm::any_of(user->getResultTypes(),
                            llvm::IsaPred<TensorType>)) {
      return false;
    }
  }
  return true;
}

/// `op` with `arg`, one of its inputs, read through its output `out`
/// instead: the output's initial value becomes `arg` and the body reads the
/// output's argument where it read the input's. Returns the new op.
static linalg::GenericOp readThroughOutput(RewriterBase &rewriter,
                                           linalg::GenericOp op, OpOperand &out,
                                           Value arg) {
  AffineMap outMap = op.getMatchingIndexingMap(&out);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  SmallVector<unsigned> dropped;
  for (OpOperand *in : op.getDpsInputOperands()) {
    if (in->get() == arg && op.getMatchingIndexingMap(in) == outMap) {
      dropped.push_back(in->getOperandNumber());
      continue;
    }
    inputs.push_back(in->get());
    maps.push_back(op.getMatchingIndexingMap(in));
  }
  SmallVector<Value> outputs;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    outputs.push_back(&init == &out ? arg : init.get());
    maps.push_back(op.getMatchingIndexingMap(&init));
  }
  rewriter.setInsertionPoint(op);
  auto updated = linalg::GenericOp::create(rewriter, op.getLoc(),
                                           op.getResultTypes(), inputs, outputs,
                                           maps, op.getIteratorTypesArray());
  updated->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  // The old body, its dropped input arguments replaced by the output's.
  Block *body = op.getBody();
  Value outArg = body->getArgument(out.getOperandNumber());
  for (unsigned index : dropped)
    rewriter.replaceAllUsesWith(body->getArgument(index), outArg);
  for (unsigned index : llvm::reverse(dropped))
    body->eraseArgument(index);
  rewriter.inlineRegionBefore(op.getRegion(), updated.getRegion(),
                              updated.getRegion().end());
  rewriter.replaceOp(op, updated->getResults());
  return updated;
}

/// An output of `op` (in `loop`'s body) whose result is the next value of
/// an iteration argument `op` reads through the output's map only, with the
/// argument; or null.
static std::pair<OpOperand *, BlockArgument>
findCarriedOutput(linalg::GenericOp op, scf::ForOp loop) {
  for (OpOperand &out : op.getDpsInitsMutable()) {
    if (op.payloadUsesValueFromOperand(&out))
      continue;
    BlockArgument arg = nextIterationOf(
        loop, op, out.getOperandNumber() - op.getNumDpsInputs());
    if (!arg || arg.getType() != out.get().getType() ||
        !onlyReadBefore(arg, op))
      continue;
    AffineMap outMap = op.getMatchingIndexingMap(&out);
    bool sameMap = false, otherMap = false;
    for (OpOperand *in : op.getDpsInputOperands()) {
      if (in->get() != arg)
        continue;
      (op.getMatchingIndexingMap(in) == outMap ? sameMap : otherMap) = true;
    }
    if (sameMap && !otherMap)
      return {&out, arg};
  }
  return {nullptr, nullptr};
}

namespace {
/// See SiftLoopCarriedInPlace in Passes.td.
struct LoopCarriedInPlacePass
    : sift::impl::SiftLoopCarriedInPlaceBase<LoopCarriedInPlacePass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (isa<scf::ForOp>(op->getParentOp()) && op.hasPureTensorSemantics() &&
          op.getNumParallelLoops() == op.getNumLoops())
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : candidates) {
      auto loop = cast<scf::ForOp>(op->getParentOp());
      // One output at a time: each rewrite makes a new op.
      for (auto [out, arg] = findCarriedOutput(op, loop); out;
           std::tie(out, arg) = findCarriedOutput(op, loop))
        op = readThroughOutput(rewriter, op, *out, arg);
    }
  }
};
} // namespace
