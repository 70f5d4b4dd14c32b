//===- PromoteAccumulators.cpp - --sift-promote-accumulators --------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "BufferRoots.h"

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <optional>

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTPROMOTEACCUMULATORS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

/// The memrefs `op` (and what it contains) reads or writes, or failure when
/// an effect has no memref value (a call, an unknown op).
static LogicalResult collectAccessedBuffers(Operation *op,
                                            SmallVectorImpl<Value> &buffers) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto iface = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!iface)
      return WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (isa<MemoryEffects::Allocate, MemoryEffects::Free>(
              effect.getEffect()) &&
          !effect.getValue())
        continue; // A stack scope or allocation of its own result.
      Value value = effect.getValue();
      if (!value || !isa<BaseMemRefType>(value.getType()))
        return WalkResult::interrupt();
      buffers.push_back(value);
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// A load and a later store of the same loop-invariant element of a
/// buffer, directly in a loop's body.
struct Accumulator {
  memref::LoadOp load;
  memref::StoreOp store;
};

static bool sameElement(memref::LoadOp load, memref::StoreOp store) {
  return load.getMemRef() == store.getMemRef() &&
         load.getIndices() == store.getIndices();
}

/// An accumulator of `loop` that may live in a register, if any.
static std::optional<Accumulator> findAccumulator(scf::ForOp loop) {
  SmallVector<Value> buffers;
  if (failed(collectAccessedBuffers(loop, buffers)))
    return std::nullopt;
  Block *body = loop.getBody();
  for (auto load : body->getOps<memref::LoadOp>()) {
    if (llvm::any_of(load.getOperands(), [&](Value v) {
          return loop.getBodyRegion().isAncestor(v.getParentRegion());
        }))
      continue; // Not loop-invariant.
    memref::StoreOp store;
    for (Operation *op = load->getNextNode(); op; op = op->getNextNode())
      if (auto candidate = dyn_cast<memref::StoreOp>(op))
        if (sameElement(load, candidate)) {
          store = candidate;
          break;
        }
    if (!store)
      continue;
    // No other access to the buffer anywhere in the loop, and every other
    // buffer accessed is provably disjoint from it.
    Value root = rootBuffer(load.getMemRef());
    int accesses = 0;
    bool disjoint = true;
    for (Value buffer : buffers) {
      if (buffer == load.getMemRef()) {
        ++accesses;
        continue;
      }
      disjoint &= disjointRoots(root, rootBuffer(buffer));
    }
    if (disjoint && accesses == 2)
      return Accumulator{load, store};
  }
  return std::nullopt;
}

struct PromoteAccumulatorsPass
    : sift::impl::SiftPromoteAccumulatorsBase<PromoteAccumulatorsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    // Innermost loops first: the accumulator then moves out one loop at a
    // time as far as it stays invariant.
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops)
      while (promoteOne(rewriter, loop)) {
      }
  }

  /// Promotes one accumulator of `loop` (updated in place); false when it
  /// has none left.
  bool promoteOne(IRRewriter &rewriter, scf::ForOp &loop) {
    std::optional<Accumulator> found = findAccumulator(loop);
    if (!found)
      return false;
    Accumulator acc = *found;
    rewriter.setInsertionPoint(loop);
    Value initial =
        memref::LoadOp::create(rewriter, acc.load.getLoc(),
                               acc.load.getMemRef(), acc.load.getIndices());
    Value stored = acc.store.getValueToStore();
    FailureOr<LoopLikeOpInterface> grown =
        cast<LoopLikeOpInterface>(loop.getOperation())
            .replaceWithAdditionalYields(
                rewriter, ValueRange{initial},
                /*replaceInitOperandUsesInLoop=*/false,
                [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                  return SmallVector<Value>{stored};
                });
    if (failed(grown))
      return false;
    loop = cast<scf::ForOp>(grown->getOperation());
    Value carried = loop.getRegionIterArgs().back();
    rewriter.replaceAllUsesWith(acc.load.getResult(), carried);
    rewriter.eraseOp(acc.load);
    rewriter.setInsertionPointAfter(loop);
    memref::StoreOp::create(rewriter, acc.store.getLoc(),
                            loop.getResults().back(), acc.store.getMemRef(),
                            acc.store.getIndices());
    rewriter.eraseOp(acc.store);
    return true;
  }
};

} // namespace
