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

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

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

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    // Allocations with nothing to copy, no size hint and the default memory
    // space say no more than a tensor.empty.
    SmallVector<bufferization::AllocTensorOp> allocs;
    func.walk([&](bufferization::AllocTensorOp op) {
      if (!op.getCopy() && !op.getSizeHint() && !op.getMemorySpace())
        allocs.push_back(op);
    });
    if (allocs.empty())
      return;
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
