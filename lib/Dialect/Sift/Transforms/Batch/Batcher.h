//===- Batcher.h - The state of one --sift-batch rewrite --------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Private to lib/Dialect/Sift/Transforms/Batch/: the Batcher (one function's
// batched body) and the helpers its files share. Every op with a batch rule
// is reached from the one `llvm::TypeSwitch` of `Batcher::batchOp` in
// Batch.cpp, which calls the rule by name (`batchExtractSlice`,
// `batchScfFor`, ...). The rules live in:
//
//  - Batch.cpp: the driver (`batchFunction`, the walk, the dispatch, the
//    pass) and broadcasting;
//  - Pointwise.cpp: elementwise ops and pure scalar ops;
//  - Linalg.cpp: linalg ops;
//  - TensorOps.cpp: the tensor dialect;
//  - SiftOps.cpp: the sift dialect;
//  - ControlFlow.cpp: `scf.if` and `scf.for`.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_DIALECT_SIFT_TRANSFORMS_BATCH_BATCHER_H
#define SIFT_LIB_DIALECT_SIFT_TRANSFORMS_BATCH_BATCHER_H

#include "sift/Dialect/Sift/IR/SiftOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace sift {
namespace batch {

/// Scalars that become a tensor of the batch size.
inline bool isScalar(Type type) { return type.isIntOrIndexOrFloat(); }

/// Rebuilds a per-sample function body over a batch. `map` takes each value
/// of the source function to its value in the batched one; `batched` holds
/// the values of the batched function that carry the batch dimension.
class Batcher {
public:
  explicit Batcher(int64_t size) : size(size) {}

  /// The number of rows.
  int64_t batchSize() const { return size; }

  /// `type` with the leading batch dimension, or null if it cannot have one.
  Type batchedType(Type type) const {
    if (auto tensor = dyn_cast<RankedTensorType>(type)) {
      SmallVector<int64_t> shape{size};
      llvm::append_range(shape, tensor.getShape());
      return RankedTensorType::get(shape, tensor.getElementType(),
                                   tensor.getEncoding());
    }
    if (isScalar(type))
      return RankedTensorType::get({size}, type);
    return nullptr;
  }

  void mapArgument(Value source, Value value, bool isBatched) {
    map.map(source, value);
    if (isBatched)
      batched.insert(value);
  }

  /// Batches the ops of `block` (its terminator excepted) at `b`.
  LogicalResult batchOps(OpBuilder &b, Block &block);

  /// The value of source value `v` in the batched function.
  Value lookup(Value v) const { return map.lookupOrDefault(v); }
  bool isBatched(Value source) const {
    return batched.contains(lookup(source));
  }

  /// The value of source value `v`, broadcast over the batch if it is not
  /// batched.
  Value batchedValue(OpBuilder &b, Location loc, Value v);

private:
  //===--------------------------------------------------------------------===//
  // Driver and broadcasting (Batch.cpp)
  //===--------------------------------------------------------------------===//

  /// Clones `op` if nothing in it is per row, else calls its rule.
  LogicalResult batchOp(OpBuilder &b, Operation *op);
  /// The rule of an op no case of the dispatch names: the pointwise rule if
  /// it is elementwise or pure scalar, else an error.
  LogicalResult batchOtherOp(OpBuilder &b, Operation *op);
  bool needsBatching(Operation *op) const;

  /// Records `newValue` as the batched value of `source`.
  void setBatched(Value source, Value newValue) {
    map.map(source, newValue);
    batched.insert(newValue);
  }

  Value broadcast(OpBuilder &b, Location loc, Value v);
  Value emptyBatched(OpBuilder &b, Location loc, Type sourceType,
                     Value sizesFrom);

  /// Clones `op` with its operands replaced by `operands`, its results
  /// batched, and records them.
  Operation *cloneBatched(OpBuilder &b, Operation *op, ValueRange operands);

  //===--------------------------------------------------------------------===//
  // Elementwise and scalar ops (Pointwise.cpp)
  //===--------------------------------------------------------------------===//

  LogicalResult batchPointwise(OpBuilder &b, Operation *op);

  //===--------------------------------------------------------------------===//
  // linalg (Linalg.cpp)
  //===--------------------------------------------------------------------===//

  LogicalResult batchLinalg(OpBuilder &b, linalg::LinalgOp op);
  LogicalResult batchLinalgGeneric(OpBuilder &b, linalg::GenericOp op);

  //===--------------------------------------------------------------------===//
  // tensor (TensorOps.cpp)
  //===--------------------------------------------------------------------===//

  LogicalResult batchExtract(OpBuilder &b, tensor::ExtractOp op);
  LogicalResult batchFromElements(OpBuilder &b, tensor::FromElementsOp op);
  LogicalResult batchSplat(OpBuilder &b, tensor::SplatOp op);
  LogicalResult batchConcat(OpBuilder &b, tensor::ConcatOp op);
  LogicalResult batchExtractSlice(OpBuilder &b, tensor::ExtractSliceOp op);
  LogicalResult batchInsertSlice(OpBuilder &b, tensor::InsertSliceOp op);
  LogicalResult batchExpandShape(OpBuilder &b, tensor::ExpandShapeOp op);
  LogicalResult batchCollapseShape(OpBuilder &b, tensor::CollapseShapeOp op);
  LogicalResult batchCast(OpBuilder &b, tensor::CastOp op);
  LogicalResult batchDim(OpBuilder &b, tensor::DimOp op);

  //===--------------------------------------------------------------------===//
  // sift (SiftOps.cpp)
  //===--------------------------------------------------------------------===//

  /// `sift.count`, `sift.compact`.
  LogicalResult batchCountOrCompact(OpBuilder &b, Operation *op);
  /// `sift.cumsum`, `sort`, `argsort`, `topk`: their `dim` shifts.
  LogicalResult batchAlongDim(OpBuilder &b, Operation *op);
  LogicalResult batchGather(OpBuilder &b, GatherOp op);
  LogicalResult batchScatter(OpBuilder &b, ScatterOp op);
  /// `sift.random_bits` (with its `valid`), `random_uniform`.
  LogicalResult batchRandom(OpBuilder &b, Operation *op, Value seed,
                            Value offset, Value valid = nullptr);
  LogicalResult batchSampleBalanced(OpBuilder &b, SampleBalancedOp op);
  LogicalResult batchCrossEntropy(OpBuilder &b, CrossEntropyOp op);
  LogicalResult batchRandperm(OpBuilder &b, RandpermOp op);
  LogicalResult batchRandpermPrefix(OpBuilder &b, RandpermPrefixOp op);
  /// `sift.nonzero`, `unique`, `masked_select`: an error.
  LogicalResult batchDataDependent(Operation *op);
  /// A per-row seed or offset of a random op.
  Value perRowSeed(OpBuilder &b, Location loc, Value v);

  //===--------------------------------------------------------------------===//
  // scf (ControlFlow.cpp)
  //===--------------------------------------------------------------------===//

  LogicalResult batchScfIf(OpBuilder &b, scf::IfOp op);
  LogicalResult batchScfIfShared(OpBuilder &b, scf::IfOp op);
  LogicalResult batchScfIndexSwitch(OpBuilder &b, scf::IndexSwitchOp op);
  LogicalResult
  batchSharedBranches(OpBuilder &b, Operation *op, Operation *shell,
                      function_ref<Operation *(TypeRange)> makeTyped);
  LogicalResult batchScfIfPerRow(OpBuilder &b, scf::IfOp op);
  LogicalResult batchScfFor(OpBuilder &b, scf::ForOp op);
  /// One attempt at the loop of `batchScfFor` with the carried values
  /// `perRow` batched; null when its body failed or a carried value turned
  /// out to be per row (`perRow` then says so and nothing is left of it).
  scf::ForOp tryBatchScfFor(OpBuilder &b, scf::ForOp op,
                            SmallVector<bool> &perRow, bool &failedBody);
  /// Batches the ops of `source` at `b`, then returns the batched values its
  /// terminator yields.
  FailureOr<SmallVector<Value>> batchRegion(OpBuilder &b, Block &source);
  /// Forgets the values defined in `op` before it is erased.
  void forgetValuesIn(Operation *op);

  int64_t size;
  IRMapping map;
  DenseSet<Value> batched;
};

} // namespace batch
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_DIALECT_SIFT_TRANSFORMS_BATCH_BATCHER_H
