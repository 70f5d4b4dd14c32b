//===- FuseCheapProducers.cpp - --sift-fuse-cheap-producers ---------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// An element read from a `tensor.concat` is read from the input that holds
/// it (an `scf.if` per input boundary along the concatenated dimension, the
/// index shifted into the input): the concatenation is not materialized,
/// and an input computed element by element is then computed where its
/// element is read (`RecomputeExtractedElement`). Only for a concatenation
/// of static sizes along its dimension read by nothing but such extracts.
struct ReadExtractedConcatInput : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractOp extract,
                                PatternRewriter &rewriter) const override {
    auto concat = extract.getTensor().getDefiningOp<tensor::ConcatOp>();
    if (!concat)
      return rewriter.notifyMatchFailure(extract, "not a concatenation");
    int64_t dim = concat.getDim();
    if (llvm::any_of(concat.getInputs(), [&](Value input) {
          return cast<RankedTensorType>(input.getType()).isDynamicDim(dim);
        }))
      return rewriter.notifyMatchFailure(extract, "dynamic sizes");
    if (!llvm::all_of(concat->getUsers(), llvm::IsaPred<tensor::ExtractOp>))
      return rewriter.notifyMatchFailure(extract, "read whole");

    Location loc = extract.getLoc();
    SmallVector<Value> indices(extract.getIndices());
    Value at = indices[dim];
    // The element of input `i` (of those from `i` on), at `at` less the
    // sizes of the inputs before it (`offset`).
    std::function<Value(OpBuilder &, unsigned, int64_t)> readFrom =
        [&](OpBuilder &b, unsigned i, int64_t offset) -> Value {
      Value input = concat.getInputs()[i];
      int64_t size = cast<RankedTensorType>(input.getType()).getDimSize(dim);
      auto read = [&](OpBuilder &b) -> Value {
        SmallVector<Value> shifted = indices;
        if (offset != 0)
          shifted[dim] = arith::SubIOp::create(
              b, loc, at, arith::ConstantIndexOp::create(b, loc, offset));
        return tensor::ExtractOp::create(b, loc, input, shifted);
      };
      if (i + 1 == concat.getInputs().size())
        return read(b);
      Value inside = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult, at,
          arith::ConstantIndexOp::create(b, loc, offset + size));
      auto ifOp = scf::IfOp::create(
          b, loc, inside,
          [&](OpBuilder &b, Location loc) {
            scf::YieldOp::create(b, loc, read(b));
          },
          [&](OpBuilder &b, Location loc) {
            scf::YieldOp::create(b, loc, readFrom(b, i + 1, offset + size));
          });
      return ifOp.getResult(0);
    };
    rewriter.replaceOp(extract, readFrom(rewriter, 0, 0));
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
      patterns.add<RecomputeExtractedElement, ReadExtractedConcatInput>(
          &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
