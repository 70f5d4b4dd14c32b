//===- PropagateValid.cpp - --sift-propagate-valid ------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// A `sift.topk ... valid(%v)` ranks only the first %v keys of each line; the
// keys past them rank last whatever they are. When its values result is
// unused, nothing else reads those keys either, and the element-wise ops
// that computed them only for it need not have computed them from real
// data: a random stream at the start of the chain need only compute the
// words of the prefix (`sift.random_bits ... valid(%v)`). This is the
// compiler-made sampler's case: `randperm(len(idx))[:k]` of a selection
// becomes a top-k of Philox keys that reads each group's count, and the
// stream drawn over the whole bound is computed for the count only.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "sift/Dialect/Sift/IR/SiftOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTPROPAGATEVALID
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

/// Whether `op` computes each element of its one result from the elements
/// at the same position of its operands of that shape, with no effect and
/// nothing that may trap on arbitrary values (so its elements past a prefix
/// may come from inputs that hold anything there). Returns the operands
/// read element by element, or none when it does not.
static std::optional<SmallVector<Value>> elementwiseOperands(Operation *op) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return std::nullopt;
  SmallVector<Value> sameShape;
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    if (!generic.hasPureTensorSemantics() ||
        generic.getNumParallelLoops() != generic.getNumLoops())
      return std::nullopt;
    for (OpOperand &operand : generic->getOpOperands()) {
      if (generic.getMatchingIndexingMap(&operand).isIdentity()) {
        if (generic.isDpsInput(&operand))
          sameShape.push_back(operand.get());
        else if (generic.payloadUsesValueFromOperand(&operand))
          return std::nullopt;
      }
    }
    bool speculatable = llvm::all_of(
        generic.getBody()->without_terminator(), [](Operation &inner) {
          return inner.getNumRegions() == 0 && isPure(&inner);
        });
    if (!speculatable)
      return std::nullopt;
    return sameShape;
  }
  if (!op->hasTrait<OpTrait::Elementwise>() || !isPure(op) ||
      op->getNumRegions() != 0)
    return std::nullopt;
  for (Value operand : op->getOperands())
    if (operand.getType() == type ||
        (isa<RankedTensorType>(operand.getType()) &&
         cast<RankedTensorType>(operand.getType()).getShape() ==
             type.getShape()))
      sameShape.push_back(operand);
  return sameShape;
}

/// See SiftPropagateValid in Passes.td.
struct PropagateValidPass
    : sift::impl::SiftPropagateValidBase<PropagateValidPass> {
  using Base::Base;

  void runOnOperation() override {
    DominanceInfo dominance(getOperation());
    getOperation().walk([&](TopkOp topk) {
      Value valid = topk.getValid();
      auto keysType = cast<RankedTensorType>(topk.getInput().getType());
      // The prefix lies along the last dimension, where random_bits' lines
      // are, and the values past it are not read as results.
      if (!valid || topk.getAxis() != keysType.getRank() - 1 ||
          !topk.getValues().use_empty())
        return;
      SmallVector<Value> worklist{topk.getInput()};
      while (!worklist.empty()) {
        Value v = worklist.pop_back_val();
        // Read by the chain only, at the same shape.
        if (!v.hasOneUse() || cast<RankedTensorType>(v.getType()).getShape() !=
                                  keysType.getShape())
          continue;
        Operation *producer = v.getDefiningOp();
        if (!producer)
          continue;
        if (auto random = dyn_cast<RandomBitsOp>(producer)) {
          if (random.getValid())
            continue;
          // A stream drawn before its count is computed moves down to its
          // one reader, where the count is known (it is pure, and its
          // seeds are known there too).
          Operation *reader = *random->getUsers().begin();
          if (!dominance.properlyDominates(valid, random)) {
            if (!dominance.properlyDominates(valid, reader) ||
                reader->getBlock() != random->getBlock())
              continue;
            random->moveBefore(reader);
          }
          random.getValidMutable().assign(valid);
          ++numPrefixStreams;
          continue;
        }
        if (std::optional<SmallVector<Value>> inputs =
                elementwiseOperands(producer))
          worklist.append(*inputs);
      }
    });
  }
};

} // namespace
