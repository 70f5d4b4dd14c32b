//===- EliminateAllocTensors.cpp - --sift-eliminate-alloc-tensors ---------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The pipelines turn every `tensor.empty` into `bufferization.alloc_tensor`
// early, so that CSE does not merge two destinations into one buffer. By the
// time they are bufferized, some of them only hold a value that is then
// inserted into a slice of another tensor: a kernel's row result computed
// into a buffer of its own and inserted into the kernel's result
// (`tensor.parallel_insert_slice`). Upstream's empty-tensor elimination
// computes such a value in the slice itself, but it only looks at
// `tensor.empty`. This pass gives it the plain allocations back, runs it,
// and turns what it left into allocations again.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"
#include "sift/Transforms/Routines.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTELIMINATEALLOCTENSORS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {
/// See SiftEliminateAllocTensors in Passes.td.
struct EliminateAllocTensorsPass
    : sift::impl::SiftEliminateAllocTensorsBase<EliminateAllocTensorsPass> {
  using Base::Base;

  /// An `alloc_tensor` with nothing to copy, no size hint and the default
  /// memory space, which says no more than a tensor.empty.
  static bool isPlain(bufferization::AllocTensorOp alloc) {
    return !alloc.getCopy() && !alloc.getSizeHint() && !alloc.getMemorySpace();
  }

  /// Whether `op` is in a routine's region (buildOutlinable): its buffers
  /// stay its own, so that routines that differ only in where their result
  /// goes are one function (--sift-outline-lines).
  static bool inRoutine(Operation *op) {
    for (Operation *parent = op->getParentOp(); parent;
         parent = parent->getParentOp())
      if (auto region = dyn_cast<scf::ExecuteRegionOp>(parent);
          region && !routineName(region).empty())
        return true;
    return false;
  }

  /// Whether `v` is computed into a plain allocation: through the
  /// destinations of the destination-passing ops that compute it (a
  /// linalg op's init, an scf.forall's shared output), back to one.
  static bool isComputedIntoAllocation(Value v) {
    while (auto result = dyn_cast<OpResult>(v)) {
      Operation *def = result.getOwner();
      if (auto alloc = dyn_cast<bufferization::AllocTensorOp>(def))
        return isPlain(alloc);
      auto dps = dyn_cast<DestinationStyleOpInterface>(def);
      if (!dps)
        return false;
      v = dps.getTiedOpOperand(result)->get();
    }
    return false;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // A concatenation is an empty tensor and an insert_slice of each input
    // into it: inputs computed into allocations of their own (a batched
    // sampler's two groups of indices) are then computed in the
    // concatenation's slices, and nothing is copied.
    // (Only the concatenations are rewritten: nothing else folds here.)
    SmallVector<Operation *> concats;
    func.walk([&](tensor::ConcatOp op) { concats.push_back(op); });
    if (!concats.empty()) {
      RewritePatternSet patterns(&getContext());
      tensor::populateDecomposeTensorConcatPatterns(patterns);
      GreedyRewriteConfig config;
      config.enableFolding(false);
      config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
      (void)applyOpPatternsGreedily(concats, std::move(patterns), config);
    }
    // Only where a value inserted into a slice comes from an allocation:
    // the analysis below costs about as much as bufferization's.
    bool candidate = false;
    func.walk([&](Operation *op) {
      Value source;
      if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
        source = insert.getSource();
      else if (auto insert = dyn_cast<tensor::ParallelInsertSliceOp>(op))
        source = insert.getSource();
      if (source && isComputedIntoAllocation(source)) {
        candidate = true;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (!candidate)
      return;
    IRRewriter rewriter(&getContext());
    SmallVector<bufferization::AllocTensorOp> allocs;
    func.walk([&](bufferization::AllocTensorOp op) {
      if (isPlain(op) && !(routineBuffers && inRoutine(op)))
        allocs.push_back(op);
    });
    for (bufferization::AllocTensorOp op : allocs) {
      rewriter.setInsertionPoint(op);
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, op.getType(),
                                                   op.getDynamicSizes());
    }
    if (failed(bufferization::eliminateEmptyTensors(rewriter, func)))
      return signalPassFailure();
    // What was replaced goes; what was not allocates again, as before.
    SmallVector<tensor::EmptyOp> empties;
    func.walk([&](tensor::EmptyOp op) { empties.push_back(op); });
    for (tensor::EmptyOp op : empties) {
      if (op->use_empty()) {
        rewriter.eraseOp(op);
        continue;
      }
      rewriter.setInsertionPoint(op);
      rewriter.replaceOpWithNewOp<bufferization::AllocTensorOp>(
          op, op.getType(), op.getDynamicSizes());
    }
  }
};
} // namespace
