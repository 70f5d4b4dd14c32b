//===- SiftOps.cpp - Batch rules of the sift ops --------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The sift ops take their batched forms: axis attributes shift, a gather
// from an unbatched source keeps its form, a scatter writes into per-row
// copies of its dest, random ops and `sample_balanced` take per-row seeds,
// `cross_entropy` reduces per row through `batch_dims`, a static `randperm`
// becomes a `randperm_prefix` of the per-row streams, or with `sort` an
// argsort of per-row Philox words (its definitions).
//
//===----------------------------------------------------------------------===//

#include "Batcher.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::batch;

/// A non-negative `dim` attribute of `clone` moves past the batch dimension.
static void shiftDim(Operation *clone) {
  auto dim = clone->getAttrOfType<IntegerAttr>("dim");
  if (dim && dim.getInt() >= 0)
    clone->setAttr("dim", IntegerAttr::get(dim.getType(), dim.getInt() + 1));
}

/// One more leading batch dimension in the `batch_dims` of `clone`.
static void incrementBatchDims(Operation *clone) {
  auto dims = clone->getAttrOfType<IntegerAttr>("batch_dims");
  int64_t value = dims ? dims.getInt() : 0;
  clone->setAttr(
      "batch_dims",
      IntegerAttr::get(IntegerType::get(clone->getContext(), 64), value + 1));
}

/// A per-row seed or offset stays as it is; an unbatched tensor one is
/// broadcast so it keeps covering the same rows.
Value Batcher::perRowSeed(OpBuilder &b, Location loc, Value v) {
  if (!v)
    return v;
  if (isBatched(v) || isScalar(v.getType()))
    return lookup(v);
  return batchedValue(b, loc, v);
}

LogicalResult Batcher::batchCountOrCompact(OpBuilder &b, Operation *op) {
  cloneBatched(b, op, batchedValue(b, op->getLoc(), op->getOperand(0)));
  return success();
}

LogicalResult Batcher::batchAlongDim(OpBuilder &b, Operation *op) {
  // A top-k's `valid` (one per line) is per row like a seed: an index of
  // the row, or a tensor of the lines of every row.
  SmallVector<Value> operands{batchedValue(b, op->getLoc(), op->getOperand(0))};
  for (Value operand : op->getOperands().drop_front())
    operands.push_back(perRowSeed(b, op->getLoc(), operand));
  shiftDim(cloneBatched(b, op, operands));
  return success();
}

LogicalResult Batcher::batchGather(OpBuilder &b, GatherOp op) {
  Value source = lookup(op.getSource());
  Value indices = lookup(op.getIndices());
  if (!batched.contains(source) && op.getBatchDims() == 0) {
    // Per-row indices into a shared source: the same op.
    cloneBatched(b, op, {source, indices});
    return success();
  }
  Location loc = op.getLoc();
  incrementBatchDims(cloneBatched(b, op,
                                  {batchedValue(b, loc, op.getSource()),
                                   batchedValue(b, loc, op.getIndices())}));
  return success();
}

LogicalResult Batcher::batchScatter(OpBuilder &b, ScatterOp op) {
  // Each row writes into its own copy of dest, even a shared one.
  Location loc = op.getLoc();
  incrementBatchDims(cloneBatched(b, op,
                                  {batchedValue(b, loc, op.getUpdates()),
                                   batchedValue(b, loc, op.getDest()),
                                   batchedValue(b, loc, op.getIndices())}));
  return success();
}

LogicalResult Batcher::batchRandom(OpBuilder &b, Operation *op, Value seed,
                                   Value offset, Value valid) {
  Location loc = op->getLoc();
  SmallVector<Value> operands{perRowSeed(b, loc, seed)};
  if (offset)
    operands.push_back(perRowSeed(b, loc, offset));
  // random_bits' `valid` (one per line) is per row like a top-k's. With
  // one stream for every row, the rows are lines of that stream only once
  // batched, and a per-row prefix would cut it at the wrong lines: every
  // word is computed instead, which `valid` allows.
  bool perRowStreams = isBatched(seed) || (offset && isBatched(offset));
  if (valid)
    operands.push_back(perRowSeed(b, loc, valid));
  Operation *clone = cloneBatched(b, op, operands);
  if (valid && !perRowStreams && isBatched(valid))
    cast<RandomBitsOp>(clone).getValidMutable().clear();
  return success();
}

LogicalResult Batcher::batchRandpermPrefix(OpBuilder &b, RandpermPrefixOp op) {
  // Every line is computed from its own n and its row's stream: per-row
  // values stay per row; unbatched scalars are shared, as the per-sample
  // function shares them, and unbatched tensors are broadcast.
  Location loc = op.getLoc();
  SmallVector<Value> operands{perRowSeed(b, loc, op.getN()),
                              perRowSeed(b, loc, op.getSeed())};
  for (Value v : {op.getOffset(), op.getLimit()})
    if (v)
      operands.push_back(perRowSeed(b, loc, v));
  cloneBatched(b, op, operands);
  return success();
}

LogicalResult Batcher::batchSampleBalanced(OpBuilder &b, SampleBalancedOp op) {
  // Row (p, q) of a per-row seed uses stream offset + q: with scalar seeds
  // every row of the batch would take the next stream instead of the
  // per-sample function's.
  Location loc = op.getLoc();
  Value seed = perRowSeed(b, loc, op.getSeed());
  Value offset = perRowSeed(b, loc, op.getOffset());
  if (!isa<RankedTensorType>(seed.getType()) &&
      !(offset && isa<RankedTensorType>(offset.getType())))
    seed = batchedValue(b, loc, op.getSeed());
  SmallVector<Value> operands{batchedValue(b, loc, op.getLabels()), seed};
  if (offset)
    operands.push_back(offset);
  cloneBatched(b, op, operands);
  return success();
}

LogicalResult Batcher::batchCrossEntropy(OpBuilder &b, CrossEntropyOp op) {
  if (Value weight = op.getWeight(); weight && isBatched(weight))
    return op->emitOpError("has per-row class weights, which "
                           "--sift-batch cannot batch");
  Location loc = op.getLoc();
  SmallVector<Value> operands{batchedValue(b, loc, op.getLogits()),
                              batchedValue(b, loc, op.getTargets())};
  if (Value weight = op.getWeight())
    operands.push_back(lookup(weight));
  incrementBatchDims(cloneBatched(b, op, operands));
  return success();
}

LogicalResult Batcher::batchRandperm(OpBuilder &b, RandpermOp op) {
  // randperm(n) is the Feistel bijection keyed by its stream, or with `sort`
  // the stable argsort of the stream's first n words, compared as unsigned:
  // with per-row streams, per row.
  if (!op.getType().hasStaticShape() || isBatched(op.getN()))
    return op->emitOpError("has a data-dependent result shape: run "
                           "--sift-staticize before --sift-batch");
  Location loc = op.getLoc();
  int64_t n = op.getType().getDimSize(0);
  Value seed = perRowSeed(b, loc, op.getSeed());
  Value offset = perRowSeed(b, loc, op.getOffset());
  if (op.isFeistel()) {
    // Each row's permutation of its own stream.
    setBatched(op.getResult(),
               RandpermPrefixOp::create(
                   b, loc, RankedTensorType::get({size, n}, b.getI64Type()),
                   lookup(op.getN()), seed, offset));
    return success();
  }
  auto bitsType = RankedTensorType::get({size, n}, b.getI32Type());
  Value bits = RandomBitsOp::create(b, loc, bitsType, seed, offset);
  auto indexType = RankedTensorType::get({size, n}, b.getI64Type());
  setBatched(op.getResult(), ArgsortOp::create(b, loc, indexType, bits,
                                               /*dim=*/b.getI64IntegerAttr(1),
                                               /*descending=*/nullptr,
                                               /*isUnsigned=*/b.getUnitAttr()));
  return success();
}

LogicalResult Batcher::batchDataDependent(Operation *op) {
  return op->emitOpError("has a data-dependent result shape: run "
                         "--sift-staticize before --sift-batch");
}
