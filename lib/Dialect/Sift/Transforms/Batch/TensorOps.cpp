//===- TensorOps.cpp - Batch rules of tensor ops --------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Tensor ops shift their dimensions by one: the batch is dimension 0 of every
// batched tensor. Slice offsets, sizes and strides, reshape sizes and `dim`
// indices must be the same for every row.
//
//===----------------------------------------------------------------------===//

#include "Batcher.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::batch;

/// The operands of `op` that must be unbatched for its batched form.
static LogicalResult expectUnbatched(const Batcher &batcher, Operation *op,
                                     ValueRange values, StringRef what) {
  for (Value v : values)
    if (batcher.isBatched(v))
      return op->emitOpError("has per-row ")
             << what << ", which --sift-batch cannot batch";
  return success();
}

/// `values` with their SSA values replaced by those of the batched function.
static SmallVector<OpFoldResult> lookupAll(const Batcher &batcher,
                                           ArrayRef<OpFoldResult> values) {
  SmallVector<OpFoldResult> result;
  for (OpFoldResult v : values)
    result.push_back(
        isa<Value>(v) ? OpFoldResult(batcher.lookup(cast<Value>(v))) : v);
  return result;
}

/// The parameters of `slice` with a leading full batch dimension; they must
/// be the same for every row.
static LogicalResult batchedSliceParameters(
    const Batcher &batcher, OpBuilder &b, OffsetSizeAndStrideOpInterface slice,
    SmallVector<OpFoldResult> &offsets, SmallVector<OpFoldResult> &sizes,
    SmallVector<OpFoldResult> &strides) {
  Operation *op = slice.getOperation();
  if (failed(expectUnbatched(batcher, op, slice.getOffsets(), "offsets")) ||
      failed(expectUnbatched(batcher, op, slice.getSizes(), "sizes")) ||
      failed(expectUnbatched(batcher, op, slice.getStrides(), "strides")))
    return failure();
  offsets = lookupAll(batcher, slice.getMixedOffsets());
  sizes = lookupAll(batcher, slice.getMixedSizes());
  strides = lookupAll(batcher, slice.getMixedStrides());
  offsets.insert(offsets.begin(), b.getIndexAttr(0));
  sizes.insert(sizes.begin(), b.getIndexAttr(batcher.batchSize()));
  strides.insert(strides.begin(), b.getIndexAttr(1));
  return success();
}

/// The reassociation of a reshape with the batch dimension its own group.
template <typename ReshapeOp>
static SmallVector<ReassociationIndices> batchedReassociation(ReshapeOp op) {
  SmallVector<ReassociationIndices> groups{{0}};
  for (ReassociationIndices group : op.getReassociationIndices()) {
    for (int64_t &d : group)
      ++d;
    groups.push_back(group);
  }
  // A reshape between a 0-d tensor and unit dimensions (`[1, 1]` <-> `[]`)
  // has no groups: batched, the unit dimensions join the batch one.
  if (groups.size() == 1) {
    int64_t rank =
        std::max(op.getSrcType().getRank(), op.getResultType().getRank());
    for (int64_t d = 1; d <= rank; ++d)
      groups.front().push_back(d);
  }
  return groups;
}

LogicalResult Batcher::batchExtract(OpBuilder &b, tensor::ExtractOp op) {
  Location loc = op.getLoc();
  Value source = lookup(op.getTensor());
  bool sourceBatched = batched.contains(source);
  bool indicesBatched =
      llvm::any_of(op.getIndices(), [&](Value i) { return isBatched(i); });
  auto sourceType = op.getTensor().getType();
  if (sourceBatched && !indicesBatched) {
    // Element [i...] of every row: a rank-reducing slice.
    if (sourceType.getRank() == 0) {
      setBatched(op.getResult(), source);
      return success();
    }
    SmallVector<OpFoldResult> offsets{b.getIndexAttr(0)}, sizes, strides;
    sizes.push_back(b.getIndexAttr(size));
    strides.push_back(b.getIndexAttr(1));
    for (Value i : op.getIndices()) {
      offsets.push_back(lookup(i));
      sizes.push_back(b.getIndexAttr(1));
      strides.push_back(b.getIndexAttr(1));
    }
    auto type = cast<RankedTensorType>(batchedType(op.getResult().getType()));
    setBatched(op.getResult(),
               tensor::ExtractSliceOp::create(b, loc, type, source, offsets,
                                              sizes, strides));
    return success();
  }
  // Per-row indices: read each row's element in a generic.
  SmallVector<Value> rowIndices;
  for (Value i : op.getIndices())
    rowIndices.push_back(batchedValue(b, loc, i));
  AffineMap row = AffineMap::get(1, 0, b.getAffineDimExpr(0));
  Type elementType = op.getType();
  Value init = emptyBatched(b, loc, elementType, Value());
  SmallVector<AffineMap> maps(rowIndices.size() + 1, row);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), rowIndices, init, maps,
      utils::IteratorType::parallel,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> at;
        if (sourceBatched)
          at.push_back(linalg::IndexOp::create(nb, nloc, 0));
        llvm::append_range(at, args.drop_back());
        linalg::YieldOp::create(
            nb, nloc,
            ValueRange{tensor::ExtractOp::create(nb, nloc, source, at)});
      });
  setBatched(op.getResult(), generic.getResult(0));
  return success();
}

LogicalResult Batcher::batchFromElements(OpBuilder &b,
                                         tensor::FromElementsOp op) {
  // Columns of the batched elements, side by side, reshaped.
  Location loc = op.getLoc();
  auto type = op.getType();
  SmallVector<Value> columns;
  Type elementType = type.getElementType();
  auto columnType = RankedTensorType::get({size, 1}, elementType);
  for (Value element : op.getElements()) {
    Value rows = batchedValue(b, loc, element);
    if (type.getRank() == 0) {
      setBatched(op.getResult(), rows);
      return success();
    }
    columns.push_back(tensor::ExpandShapeOp::create(
        b, loc, columnType, rows, ArrayRef<ReassociationIndices>{{0, 1}}));
  }
  Value flat = columns.size() == 1
                   ? columns.front()
                   : tensor::ConcatOp::create(b, loc, 1, columns);
  auto result = cast<RankedTensorType>(batchedType(type));
  if (type.getRank() != 1) {
    ReassociationIndices all;
    for (int64_t d = 1; d < result.getRank(); ++d)
      all.push_back(d);
    flat = tensor::ExpandShapeOp::create(
        b, loc, result, flat, ArrayRef<ReassociationIndices>{{0}, all});
  }
  setBatched(op.getResult(), flat);
  return success();
}

LogicalResult Batcher::batchSplat(OpBuilder &b, tensor::SplatOp op) {
  auto type = op.getType();
  if (!type.hasStaticShape())
    return op->emitOpError("of a dynamic shape cannot be batched by "
                           "--sift-batch: run --sift-staticize first");
  // Each row's scalar over the row's shape.
  Location loc = op.getLoc();
  unsigned rank = type.getRank() + 1;
  Value init = emptyBatched(b, loc, type, Value());
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), lookup(op.getInput()), init,
      ArrayRef<AffineMap>{AffineMap::get(rank, 0, b.getAffineDimExpr(0)),
                          b.getMultiDimIdentityMap(rank)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, args[0]);
      });
  setBatched(op.getResult(), generic.getResult(0));
  return success();
}

LogicalResult Batcher::batchConcat(OpBuilder &b, tensor::ConcatOp op) {
  SmallVector<Value> operands;
  for (Value v : op.getInputs())
    operands.push_back(batchedValue(b, op.getLoc(), v));
  setBatched(op.getResult(), tensor::ConcatOp::create(
                                 b, op.getLoc(), op.getDim() + 1, operands));
  return success();
}

LogicalResult Batcher::batchExtractSlice(OpBuilder &b,
                                         tensor::ExtractSliceOp op) {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  if (failed(batchedSliceParameters(*this, b, op, offsets, sizes, strides)))
    return failure();
  auto type = cast<RankedTensorType>(batchedType(op.getType()));
  setBatched(op.getResult(), tensor::ExtractSliceOp::create(
                                 b, op.getLoc(), type, lookup(op.getSource()),
                                 offsets, sizes, strides));
  return success();
}

LogicalResult Batcher::batchInsertSlice(OpBuilder &b,
                                        tensor::InsertSliceOp op) {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  if (failed(batchedSliceParameters(*this, b, op, offsets, sizes, strides)))
    return failure();
  // A rank-reducing insert stays one: the batch dimension is kept.
  Location loc = op.getLoc();
  Value source = batchedValue(b, loc, op.getSource());
  setBatched(op.getResult(),
             tensor::InsertSliceOp::create(b, loc, source,
                                           batchedValue(b, loc, op.getDest()),
                                           offsets, sizes, strides));
  return success();
}

LogicalResult Batcher::batchExpandShape(OpBuilder &b,
                                        tensor::ExpandShapeOp op) {
  SmallVector<ReassociationIndices> groups = batchedReassociation(op);
  auto type = cast<RankedTensorType>(batchedType(op.getResult().getType()));
  if (failed(expectUnbatched(*this, op, op.getOutputShape(), "output sizes")))
    return failure();
  SmallVector<OpFoldResult> shape{b.getIndexAttr(size)};
  llvm::append_range(shape, lookupAll(*this, op.getMixedOutputShape()));
  setBatched(op.getResult(),
             tensor::ExpandShapeOp::create(b, op.getLoc(), type,
                                           lookup(op.getSrc()), groups, shape));
  return success();
}

LogicalResult Batcher::batchCollapseShape(OpBuilder &b,
                                          tensor::CollapseShapeOp op) {
  SmallVector<ReassociationIndices> groups = batchedReassociation(op);
  auto type = cast<RankedTensorType>(batchedType(op.getResult().getType()));
  setBatched(op.getResult(),
             tensor::CollapseShapeOp::create(b, op.getLoc(), type,
                                             lookup(op.getSrc()), groups));
  return success();
}

LogicalResult Batcher::batchCast(OpBuilder &b, tensor::CastOp op) {
  cloneBatched(b, op, lookup(op.getSource()));
  return success();
}

LogicalResult Batcher::batchDim(OpBuilder &b, tensor::DimOp op) {
  // Sizes are the same for every row: the result stays unbatched.
  if (failed(expectUnbatched(*this, op, op.getIndex(), "index")))
    return failure();
  // An index outside [0, rank) is undefined; shifted by one it would
  // silently read the batch dimension.
  auto srcType = dyn_cast<RankedTensorType>(op.getSource().getType());
  std::optional<int64_t> d = op.getConstantIndex();
  if (srcType && d && (*d < 0 || *d >= srcType.getRank()))
    return op.emitOpError("dimension index ")
           << *d << " is out of range for a tensor of rank "
           << srcType.getRank();
  Location loc = op.getLoc();
  Value index = arith::AddIOp::create(
      b, loc, lookup(op.getIndex()), arith::ConstantIndexOp::create(b, loc, 1));
  map.map(op.getResult(),
          tensor::DimOp::create(b, loc, lookup(op.getSource()), index));
  return success();
}
