//===- FuseCheapProducers.cpp - --sift-fuse-cheap-producers ---------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTFUSECHEAPPRODUCERS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {
/// The most ops (terminator included) of a producer fused into consumers
/// that broadcast it, or recomputed where an element of it is read.
constexpr size_t kMaxBroadcastOps = 32;

/// An element read from the result of an element-wise `linalg.generic`
/// (a gather's `tensor.extract`) is that op's body evaluated at the
/// element's indices: its inputs read at the indices their maps select,
/// `linalg.index` the indices themselves. Only for a producer of one
/// result read by nothing but such extracts (it goes once they are all
/// rewritten), not reading its init, whose body is scalar code and reads
/// of other tensors (at most kMaxBroadcastOps ops).
struct RecomputeExtractedElement : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp extract,
                                PatternRewriter &rewriter) const override {
    auto producer = extract.getTensor().getDefiningOp<linalg::GenericOp>();
    if (!producer || producer->getNumResults() != 1 ||
        !producer.hasPureTensorSemantics() ||
        producer.getNumLoops() != producer.getNumParallelLoops())
      return rewriter.notifyMatchFailure(extract, "not an element-wise op");
    OpOperand *init = producer.getDpsInitOperand(0);
    Block *body = producer.getBody();
    if (!producer.getMatchingIndexingMap(init).isIdentity() ||
        !producer.getMatchingBlockArgument(init).use_empty() ||
        body->getOperations().size() > kMaxBroadcastOps ||
        !llvm::all_of(body->without_terminator(), [](Operation &op) {
          return isa<arith::ArithDialect>(op.getDialect()) ||
                 isa<linalg::IndexOp, tensor::ExtractOp>(op);
        }))
      return rewriter.notifyMatchFailure(extract, "not cheap scalar code");
    if (!llvm::all_of(producer->getResult(0).getUsers(),
                      llvm::IsaPred<tensor::ExtractOp>))
      return rewriter.notifyMatchFailure(extract, "read whole");
    for (OpOperand *input : producer.getDpsInputOperands())
      if (!producer.getMatchingIndexingMap(input).isProjectedPermutation())
        return rewriter.notifyMatchFailure(extract, "input map");

    Location loc = extract.getLoc();
    ValueRange indices = extract.getIndices();
    IRMapping map;
    for (OpOperand *input : producer.getDpsInputOperands()) {
      Value value = input->get();
      if (isa<RankedTensorType>(value.getType())) {
        AffineMap inputMap = producer.getMatchingIndexingMap(input);
        SmallVector<Value> at = llvm::map_to_vector(
            inputMap.getResults(), [&](AffineExpr dim) -> Value {
              return indices[cast<AffineDimExpr>(dim).getPosition()];
            });
        value = tensor::ExtractOp::create(rewriter, loc, value, at);
      }
      map.map(producer.getMatchingBlockArgument(input), value);
    }
    for (Operation &op : body->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(op)) {
        map.map(index.getResult(), indices[index.getDim()]);
        continue;
      }
      rewriter.clone(op, map);
    }
    // (The body may yield a value from above it.)
    Value element = map.lookupOrDefault(
        cast<linalg::YieldOp>(body->getTerminator()).getOperand(0));
    rewriter.replaceOp(extract, element);
    return success();
  }
};

/// See SiftFuseCheapProducers in Passes.td.
struct FuseCheapProducersPass
    : sift::impl::SiftFuseCheapProducersBase<FuseCheapProducersPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    bool broadcast = broadcastProducers;
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [broadcast](OpOperand *fused) {
          auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
          if (!producer)
            return false;
          Block *body = producer.getBody();
          auto arith = [](Operation &op) {
            return isa<arith::ArithDialect>(op.getDialect());
          };
          if (body->getOperations().size() <= 3 &&
              llvm::all_of(body->without_terminator(), arith))
            return true;
          // Scalar code over fewer loops than its consumer (a row's sizes
          // read by every element of the row), recomputed where it is read.
          auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
          return broadcast && consumer &&
                 producer.getNumLoops() < consumer.getNumLoops() &&
                 body->getOperations().size() <= kMaxBroadcastOps &&
                 llvm::all_of(body->without_terminator(), arith);
        });
    if (gatheredProducers)
      patterns.add<RecomputeExtractedElement>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
