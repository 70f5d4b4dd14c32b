//===- Scatter.cpp - Lowering of sift.scatter --------------------*- C++
//-*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// `scatter` is a sequential `scf.for` nest over the lanes of its indices, in
// row-major order, carrying the result tensor (a copy of `dest` that
// bufferization writes in place): each lane with an index in `[0, n)` reads
// its update and the element it lands on, combines them, and inserts the
// result. The order makes `reduce(none)` deterministic (the last lane wins)
// and the sums of `reduce(add)` the same on every run. Upstream
// `tensor.scatter` is not used: the CPU pipeline does not bufferize it.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils/CodegenUtils.h"
#include "Utils/RuntimeChecks.h"

#include "sift/Dialect/Sift/IR/SiftOps.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::lowering;

namespace {

/// `combine(old, update)` of `reduce` on scalars of an integer or float type.
static Value combine(OpBuilder &b, Location loc, ScatterReduce reduce,
                     Value old, Value update) {
  bool isFloat = isa<FloatType>(update.getType());
  switch (reduce) {
  case ScatterReduce::None:
    return update;
  case ScatterReduce::Add:
    return isFloat ? arith::AddFOp::create(b, loc, old, update).getResult()
                   : arith::AddIOp::create(b, loc, old, update).getResult();
  case ScatterReduce::Max:
    return isFloat ? arith::MaximumFOp::create(b, loc, old, update).getResult()
                   : arith::MaxSIOp::create(b, loc, old, update).getResult();
  case ScatterReduce::Min:
    return isFloat ? arith::MinimumFOp::create(b, loc, old, update).getResult()
                   : arith::MinSIOp::create(b, loc, old, update).getResult();
  }
  llvm_unreachable("unknown scatter reduce");
}

/// A nest of `scf.for` from 0 to each of `sizes` carrying one tensor,
/// `body(ivs, carried)` giving the next; with no sizes, `body` once.
static Value
loopNest(OpBuilder &b, Location loc, ArrayRef<Value> sizes, Value init,
         function_ref<Value(OpBuilder &, Location, ValueRange, Value)> body) {
  if (sizes.empty())
    return body(b, loc, ValueRange{}, init);
  SmallVector<Value> lbs(sizes.size(), constIndex(b, loc, 0));
  SmallVector<Value> steps(sizes.size(), constIndex(b, loc, 1));
  scf::LoopNest nest =
      scf::buildLoopNest(b, loc, lbs, sizes, steps, ValueRange{init},
                         [&](OpBuilder &b, Location loc, ValueRange ivs,
                             ValueRange carried) -> scf::ValueVector {
                           return {body(b, loc, ivs, carried[0])};
                         });
  return nest.results[0];
}

struct ScatterLowering : OpRewritePattern<ScatterOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value dest = op.getDest(), indices = op.getIndices(),
          updates = op.getUpdates();
    RankedTensorType destType = op.getDest().getType();
    Type elementType = destType.getElementType();
    ScatterReduce reduce = op.getReduce();
    if (reduce != ScatterReduce::None && !isa<IntegerType>(elementType) &&
        !isSupportedFloat(elementType))
      return unsupportedElementType(rewriter, op, elementType,
                                    " with a reduce");
    int64_t batch = static_cast<int64_t>(op.getBatchDims());
    int64_t indicesRank = cast<RankedTensorType>(indices.getType()).getRank();
    int64_t destRank = destType.getRank();
    // Memory safety of the loops below: the batch dimensions of dest and
    // indices, and the lane dimensions of indices and updates, agree.
    if (failed(checkLeadingExtents(rewriter, op, dest, indices, batch)) ||
        failed(
            checkLeadingExtents(rewriter, op, indices, updates, indicesRank)))
      return failure();

    SmallVector<Value> laneSizes, tailSizes;
    for (int64_t d = 0; d < indicesRank; ++d)
      laneSizes.push_back(dimValue(b, loc, indices, d));
    for (int64_t d = batch + 1; d < destRank; ++d) {
      // A trailing extent that only one side knows: loop over the smaller.
      Value size = dimValue(b, loc, dest, d);
      int64_t u = indicesRank + d - batch - 1;
      if (destType.isDynamicDim(d) ||
          cast<RankedTensorType>(updates.getType()).isDynamicDim(u))
        size =
            arith::MinSIOp::create(b, loc, size, dimValue(b, loc, updates, u));
      tailSizes.push_back(size);
    }
    Value n = indexToI64(b, loc, dimValue(b, loc, dest, batch));
    Value zero = constInt(b, loc, b.getI64Type(), 0);

    Value result = loopNest(
        b, loc, laneSizes, dest,
        [&](OpBuilder &b, Location loc, ValueRange lane, Value acc) -> Value {
          Value j = tensor::ExtractOp::create(b, loc, indices, lane);
          Value valid = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, j, zero),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j, n));
          auto write = [&](OpBuilder &b, Location loc) -> Value {
            Value row = i64ToIndex(b, loc, j);
            return loopNest(
                b, loc, tailSizes, acc,
                [&](OpBuilder &b, Location loc, ValueRange d,
                    Value inner) -> Value {
                  SmallVector<Value> at(lane.take_front(batch));
                  at.push_back(row);
                  llvm::append_range(at, d);
                  SmallVector<Value> from(lane);
                  llvm::append_range(from, d);
                  Value v = tensor::ExtractOp::create(b, loc, updates, from);
                  if (reduce != ScatterReduce::None)
                    v = combine(b, loc, reduce,
                                tensor::ExtractOp::create(b, loc, inner, at),
                                v);
                  return tensor::InsertOp::create(b, loc, v, inner, at);
                });
          };
          return ifThenElse(b, loc, valid, write, acc);
        });
    replaceOpWithCasts(rewriter, op, result);
    return success();
  }
};

} // namespace

void lowering::populateScatterPatterns(RewritePatternSet &patterns) {
  patterns.add<ScatterLowering>(patterns.getContext());
}
