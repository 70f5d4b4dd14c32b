//===- Linalg.cpp - Batch rule of linalg ops ------------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Batcher.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::batch;

/// A linalg op on tensors: named ops are generalized in place (the source
/// is a scratch copy), then batched as a `linalg.generic`.
LogicalResult Batcher::batchLinalg(OpBuilder &b, linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return op->emitOpError("on buffers cannot be batched by --sift-batch");
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return batchLinalgGeneric(b, generic);
  IRRewriter rewriter(op->getContext());
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> generic =
      linalg::generalizeNamedOp(rewriter, op);
  if (failed(generic))
    return op->emitOpError("cannot be generalized for --sift-batch");
  return batchLinalgGeneric(b, *generic);
}

/// The same generic with a leading parallel loop over the batch.
LogicalResult Batcher::batchLinalgGeneric(OpBuilder &b, linalg::GenericOp op) {
  Location loc = op.getLoc();
  unsigned numLoops = op.getNumLoops() + 1;
  auto withBatch = [&](AffineMap m, bool isBatched) {
    AffineMap shifted = m.shiftDims(1);
    SmallVector<AffineExpr> results;
    if (isBatched)
      results.push_back(b.getAffineDimExpr(0));
    llvm::append_range(results, shifted.getResults());
    return AffineMap::get(numLoops, 0, results, b.getContext());
  };

  SmallVector<Value> inputs, inits;
  SmallVector<AffineMap> inputMaps, initMaps;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    Value value = lookup(operand->get());
    inputs.push_back(value);
    inputMaps.push_back(
        withBatch(op.getMatchingIndexingMap(operand), batched.contains(value)));
  }
  // Batched scalars the body uses become inputs read at the row.
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegion(0), captured);
  SmallVector<Value> capturedBatched;
  for (Value v : captured) {
    if (!batched.contains(lookup(v)))
      continue;
    if (!isScalar(v.getType()))
      return op.emitOpError("uses a per-row tensor in its body, which "
                            "--sift-batch cannot batch");
    capturedBatched.push_back(v);
    inputs.push_back(lookup(v));
    inputMaps.push_back(AffineMap::get(numLoops, 0, b.getAffineDimExpr(0)));
  }
  // Every result is per row: unbatched inits are broadcast (a fresh
  // `tensor.empty` when that is what they are).
  SmallVector<Type> resultTypes;
  for (OpOperand &operand : op.getDpsInitsMutable()) {
    Value value = lookup(operand.get());
    if (!batched.contains(value))
      value = operand.get().getDefiningOp<tensor::EmptyOp>()
                  ? emptyBatched(b, loc, operand.get().getType(), value)
                  : broadcast(b, loc, value);
    inits.push_back(value);
    resultTypes.push_back(value.getType());
    initMaps.push_back(withBatch(op.getMatchingIndexingMap(&operand), true));
  }
  SmallVector<AffineMap> maps = inputMaps;
  llvm::append_range(maps, initMaps);
  SmallVector<utils::IteratorType> iterators{utils::IteratorType::parallel};
  llvm::append_range(iterators, op.getIteratorTypesArray());

  Block &body = op->getRegion(0).front();
  unsigned numInputs = op.getNumDpsInputs();
  auto generic = linalg::GenericOp::create(
      b, loc, resultTypes, inputs, inits, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        IRMapping bodyMap;
        for (unsigned i = 0; i < numInputs; ++i)
          bodyMap.map(body.getArgument(i), args[i]);
        for (auto [i, v] : llvm::enumerate(capturedBatched))
          bodyMap.map(v, args[numInputs + i]);
        for (unsigned i = 0, e = op.getNumDpsInits(); i < e; ++i)
          bodyMap.map(body.getArgument(numInputs + i),
                      args[numInputs + capturedBatched.size() + i]);
        for (Value v : captured)
          if (!bodyMap.contains(v))
            bodyMap.map(v, lookup(v));
        for (Operation &inner : body)
          nb.clone(inner, bodyMap);
      });
  // The batch dimension is loop 0: the body's loop indices shift by one.
  generic.getRegion().walk([&](linalg::IndexOp index) {
    if (index->getParentOfType<linalg::LinalgOp>() == generic)
      index.setDim(index.getDim() + 1);
  });
  for (auto [result, value] :
       llvm::zip_equal(op->getResults(), generic.getResults()))
    setBatched(result, value);
  return success();
}
