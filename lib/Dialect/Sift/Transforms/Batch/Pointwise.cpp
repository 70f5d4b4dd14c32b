//===- Pointwise.cpp - Batch rule of elementwise and scalar ops -----------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Batcher.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::batch;

/// One `linalg.generic` over [B, shape...] whose body is the op on elements.
LogicalResult Batcher::batchPointwise(OpBuilder &b, Operation *op) {
  Location loc = op->getLoc();
  // The iteration shape is the results' (the same for every result of an
  // elementwise op); dynamic sizes come from a tensor operand.
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  int64_t rank = resultType ? resultType.getRank() : 0;
  Value sizesFrom;
  for (Value operand : op->getOperands())
    if (auto t = dyn_cast<RankedTensorType>(operand.getType());
        t && resultType && t.getShape() == resultType.getShape())
      sizesFrom = lookup(operand);
  if (resultType && !resultType.hasStaticShape() && !sizesFrom)
    return op->emitOpError("has a dynamic shape that --sift-batch cannot "
                           "take from its operands");

  AffineMap identity = b.getMultiDimIdentityMap(rank + 1);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  // For each operand: its input position, or -1 for a scalar used as is.
  SmallVector<int> inputOf;
  for (Value operand : op->getOperands()) {
    Value value = lookup(operand);
    bool isBatched = batched.contains(value);
    if (isScalar(operand.getType()) && !isBatched) {
      inputOf.push_back(-1);
      continue;
    }
    inputOf.push_back(inputs.size());
    inputs.push_back(value);
    if (isScalar(operand.getType()))
      maps.push_back(AffineMap::get(rank + 1, 0, b.getAffineDimExpr(0)));
    else
      maps.push_back(isBatched ? identity : identity.dropResult(0));
  }
  SmallVector<Value> inits;
  SmallVector<Type> resultTypes;
  for (Value result : op->getResults()) {
    inits.push_back(emptyBatched(b, loc, result.getType(), sizesFrom));
    resultTypes.push_back(inits.back().getType());
    maps.push_back(identity);
  }
  auto generic = linalg::GenericOp::create(
      b, loc, resultTypes, inputs, inits, maps,
      SmallVector<utils::IteratorType>(rank + 1, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        OperationState state(nloc, op->getName());
        for (auto [operand, input] :
             llvm::zip_equal(op->getOperands(), inputOf))
          state.addOperands(input < 0 ? lookup(operand) : args[input]);
        state.addAttributes(op->getAttrs());
        for (Type type : op->getResultTypes())
          state.addTypes(getElementTypeOrSelf(type));
        Operation *scalar = nb.create(state);
        linalg::YieldOp::create(nb, nloc, scalar->getResults());
      });
  for (auto [result, value] :
       llvm::zip_equal(op->getResults(), generic.getResults()))
    setBatched(result, value);
  return success();
}
