//===- SiftTiling.cpp - TilingInterface of the sift ops -------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Every sift op with leading batch (row) dimensions computes each row from
// the same row of its operands, so it tiles over those dimensions: a tile
// is the same op on `tensor.extract_slice`s of the rows. These models let
// upstream's tiling and fusion (scf::tileConsumerAndFuseProducersUsingSCF,
// which --sift-fuse drives) put the whole per-row chain of a batched
// program in one loop. A dimension that a row reads in full (the axis of a
// sort, the items of a compaction) is not in the iteration domain.
//
//===----------------------------------------------------------------------===//

#include "SiftTiling.h"

#include "sift/Dialect/Sift/IR/SiftOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::sift;

namespace {

/// How a tensor operand or result of an op lies over the op's iteration
/// domain: entry `j` is the domain dimension that tensor dimension `j` runs
/// along, or -1 when a tile needs all of dimension `j`.
using DimMap = SmallVector<int64_t>;

/// The iteration domain of a sift op and how its tensors lie over it.
struct RowModel {
  int64_t numDims = 0;
  /// One per operand; std::nullopt: every tile uses the operand whole
  /// (scalar seeds, class weights).
  SmallVector<std::optional<DimMap>> operands;
  /// One per result; every domain dimension appears in the first.
  SmallVector<DimMap> results;
};

/// `[0, 1, ..., n-1]`.
DimMap identityMap(int64_t n) { return llvm::to_vector(llvm::seq<int64_t>(n)); }

/// A tensor of rank `rank` whose dimension `axis` a tile reads whole; the
/// others are the domain dimensions in order.
DimMap allButAxis(int64_t rank, int64_t axis) {
  DimMap map;
  for (int64_t j = 0; j < rank; ++j)
    map.push_back(j < axis ? j : j == axis ? -1 : j - 1);
  return map;
}

int64_t rankOf(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type ? type.getRank() : 0;
}

/// Per-row seeds and offsets (tensors) cover the first domain dimensions;
/// scalars are shared by every tile.
std::optional<DimMap> seedMap(Value seed) {
  if (!isa<RankedTensorType>(seed.getType()))
    return std::nullopt;
  return identityMap(rankOf(seed));
}

/// Ops along an axis: every other dimension is independent. A top-k's
/// `valid` lengths, one per line, lie over the lines (an index: shared).
template <typename AxisOp> RowModel axisModel(AxisOp op) {
  int64_t rank = rankOf(op.getInput());
  RowModel m;
  m.numDims = rank - 1;
  m.operands.push_back(allButAxis(rank, op.getAxis()));
  for (Value operand : op->getOperands().drop_front())
    m.operands.push_back(seedMap(operand));
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    m.results.push_back(allButAxis(rank, op.getAxis()));
  return m;
}

/// Random ops: the rows of their per-row seeds and offsets. Scalar seeds
/// give no domain: the rows of one stream are not independent streams.
RowModel randomModel(Operation *op, Value seed, Value offset) {
  int64_t rows = std::max(rankOf(seed), offset ? rankOf(offset) : 0);
  int64_t rank = rankOf(op->getResult(0));
  RowModel m;
  m.numDims = rows;
  for (Value operand : op->getOperands())
    m.operands.push_back(seedMap(operand));
  DimMap result = identityMap(rows);
  result.append(rank - rows, -1);
  m.results.push_back(result);
  return m;
}

std::optional<RowModel> getRowModel(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<RowModel>>(op)
      .Case<CountOp>([](CountOp op) -> std::optional<RowModel> {
        int64_t rank = rankOf(op.getInput());
        RowModel m;
        m.numDims = rank - 1;
        m.operands.push_back(allButAxis(rank, rank - 1));
        m.results.push_back(identityMap(rank - 1));
        return m;
      })
      .Case<CompactOp>([](CompactOp op) -> std::optional<RowModel> {
        int64_t rank = rankOf(op.getMask());
        RowModel m;
        m.numDims = rank - 1;
        m.operands.push_back(allButAxis(rank, rank - 1));
        m.results.push_back(allButAxis(rank, rank - 1));
        m.results.push_back(identityMap(rank - 1));
        return m;
      })
      .Case<CumsumOp, SortOp, ArgsortOp, TopkOp>(
          [](auto op) -> std::optional<RowModel> { return axisModel(op); })
      .Case<GatherOp>([](GatherOp op) -> std::optional<RowModel> {
        // result[b..., i..., d...] = source[b..., indices[b..., i...], d...]
        int64_t batch = op.getBatchDims();
        int64_t indexRank = rankOf(op.getIndices());
        int64_t resultRank = rankOf(op.getResult());
        RowModel m;
        m.numDims = resultRank;
        DimMap source;
        for (int64_t j = 0, e = rankOf(op.getSource()); j < e; ++j)
          source.push_back(j < batch    ? j
                           : j == batch ? -1
                                        : indexRank + (j - batch - 1));
        m.operands.push_back(source);
        m.operands.push_back(identityMap(indexRank));
        m.results.push_back(identityMap(resultRank));
        return m;
      })
      .Case([](RandomBitsOp op) -> std::optional<RowModel> {
        // A per-line `valid` (the result's shape without its last
        // dimension) lies over the rows of the streams as a seed does, and
        // is whole along the dimensions the streams do not split.
        RowModel m = randomModel(op, op.getSeed(), op.getOffset());
        if (Value valid = op.getValid();
            valid && isa<RankedTensorType>(valid.getType())) {
          DimMap lines = identityMap(m.numDims);
          lines.append(rankOf(valid) - m.numDims, -1);
          m.operands.back() = lines;
        }
        return m;
      })
      .Case([](RandomUniformOp op) -> std::optional<RowModel> {
        return randomModel(op, op.getSeed(), op.getOffset());
      })
      .Case([](RandpermPrefixOp op) -> std::optional<RowModel> {
        // Every line is computed from its own n and limit and its row's
        // stream, whole: the lines are the domain, whatever the streams
        // cover (a scalar seed is the same for every line).
        int64_t rank = rankOf(op.getResult());
        RowModel m;
        m.numDims = rank - 1;
        for (Value operand : op->getOperands())
          m.operands.push_back(seedMap(operand));
        m.results.push_back(allButAxis(rank, rank - 1));
        return m;
      })
      .Case<SampleBalancedOp>(
          [](SampleBalancedOp op) -> std::optional<RowModel> {
            int64_t rank = rankOf(op.getLabels());
            RowModel m;
            m.numDims = rank - 1;
            m.operands.push_back(allButAxis(rank, rank - 1));
            for (Value seed : op->getOperands().drop_front())
              m.operands.push_back(seedMap(seed));
            m.results.push_back(allButAxis(rank, rank - 1));
            m.results.push_back(identityMap(rank - 1));
            return m;
          })
      .Default([](Operation *) { return std::nullopt; });
}

/// Whether `[offset, offset + size)` is all of a dimension of extent `full`.
bool coversAll(OpFoldResult offset, OpFoldResult size, OpFoldResult full) {
  return isZeroInteger(offset) && isEqualConstantIntOrValue(size, full);
}

/// The domain tile that a tile of result `resultNumber` needs, or failure
/// when the result tile splits a dimension that a row computes whole.
LogicalResult domainTileOfResult(Operation *op, const RowModel &m, OpBuilder &b,
                                 unsigned resultNumber,
                                 ArrayRef<OpFoldResult> offsets,
                                 ArrayRef<OpFoldResult> sizes,
                                 SmallVectorImpl<OpFoldResult> &domainOffsets,
                                 SmallVectorImpl<OpFoldResult> &domainSizes) {
  Value result = op->getResult(resultNumber);
  const DimMap &map = m.results[resultNumber];
  domainOffsets.assign(m.numDims, OpFoldResult());
  domainSizes.assign(m.numDims, OpFoldResult());
  for (auto [j, d] : llvm::enumerate(map)) {
    if (d < 0) {
      if (!coversAll(offsets[j], sizes[j],
                     tensor::getMixedSize(b, op->getLoc(), result, j)))
        return failure();
      continue;
    }
    domainOffsets[d] = offsets[j];
    domainSizes[d] = sizes[j];
  }
  // A domain dimension missing from this result (a count beside its
  // indices) cannot be derived from its tile.
  return success(llvm::all_of(
      domainSizes, [](OpFoldResult s) { return static_cast<bool>(s); }));
}

/// sample_balanced numbers the rows after its per-row seeds' dimensions
/// with one stream each (`offset + q`, q row-major): a tile whose first
/// such row is `q0` needs its stream offset raised by `q0`. Only the first
/// of those dimensions may be split (the rows of a tile stay consecutive).
/// Returns the operands of the tiled op, or failure.
FailureOr<SmallVector<Value>> sampleBalancedStreams(
    SampleBalancedOp op, OpBuilder &b, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, ArrayRef<OpFoldResult> extents,
    SmallVector<Value> operands) {
  Value offset = op.getOffset();
  int64_t seedRows =
      std::max(rankOf(op.getSeed()), offset ? rankOf(offset) : 0);
  int64_t numDims = static_cast<int64_t>(offsets.size());
  if (seedRows >= numDims)
    return operands;
  for (int64_t d = seedRows + 1; d < numDims; ++d)
    if (!coversAll(offsets[d], sizes[d], extents[d]))
      return failure();
  if (isZeroInteger(offsets[seedRows]))
    return operands;
  // A per-row offset tensor would need an elementwise add; not supported.
  if (offset && isa<RankedTensorType>(offset.getType()))
    return failure();
  Location loc = op.getLoc();
  Value first = getValueOrCreateConstantIndexOp(b, loc, offsets[seedRows]);
  for (int64_t d = seedRows + 1; d < numDims; ++d)
    first = arith::MulIOp::create(
        b, loc, first, getValueOrCreateConstantIndexOp(b, loc, extents[d]));
  Value stream = arith::IndexCastOp::create(b, loc, b.getI64Type(), first);
  if (offset)
    stream = arith::AddIOp::create(b, loc, operands.back(), stream);
  if (offset)
    operands.back() = stream;
  else
    operands.push_back(stream);
  return operands;
}

/// The op on the rows `[offsets, offsets + sizes)` of its domain.
FailureOr<TilingResult> tileRows(Operation *op, OpBuilder &b,
                                 ArrayRef<OpFoldResult> offsets,
                                 ArrayRef<OpFoldResult> sizes) {
  std::optional<RowModel> m = getRowModel(op);
  if (!m)
    return failure();
  Location loc = op->getLoc();
  SmallVector<OpFoldResult> extents(m->numDims);
  for (auto [j, d] : llvm::enumerate(m->results[0]))
    if (d >= 0)
      extents[d] = tensor::getMixedSize(b, loc, op->getResult(0), j);

  SmallVector<Value> operands;
  SmallVector<Operation *> slices;
  for (auto [operand, map] : llvm::zip_equal(op->getOperands(), m->operands)) {
    if (!map) {
      operands.push_back(operand);
      continue;
    }
    SmallVector<OpFoldResult> sliceOffsets, sliceSizes;
    bool whole = true;
    for (auto [j, d] : llvm::enumerate(*map)) {
      OpFoldResult full = tensor::getMixedSize(b, loc, operand, j);
      if (d < 0) {
        sliceOffsets.push_back(b.getIndexAttr(0));
        sliceSizes.push_back(full);
        continue;
      }
      sliceOffsets.push_back(offsets[d]);
      sliceSizes.push_back(sizes[d]);
      whole &= coversAll(offsets[d], sizes[d], full);
    }
    // An operand the tile reads whole is not sliced: a slice would invite
    // fusion to recompute all of its producer in every tile.
    if (whole) {
      operands.push_back(operand);
      continue;
    }
    SmallVector<OpFoldResult> strides(sliceOffsets.size(), b.getIndexAttr(1));
    auto slice = tensor::ExtractSliceOp::create(b, loc, operand, sliceOffsets,
                                                sliceSizes, strides);
    slices.push_back(slice);
    operands.push_back(slice);
  }
  if (auto sample = dyn_cast<SampleBalancedOp>(op)) {
    FailureOr<SmallVector<Value>> withStreams =
        sampleBalancedStreams(sample, b, offsets, sizes, extents, operands);
    if (failed(withStreams)) {
      for (Operation *slice : slices)
        slice->erase();
      return failure();
    }
    operands = std::move(*withStreams);
  }

  SmallVector<Type> resultTypes;
  for (auto [result, map] : llvm::zip_equal(op->getResults(), m->results)) {
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<int64_t> shape;
    for (auto [j, d] : llvm::enumerate(map))
      shape.push_back(
          d < 0 ? type.getDimSize(j)
                : getConstantIntValue(sizes[d]).value_or(ShapedType::kDynamic));
    resultTypes.push_back(type.clone(shape));
  }
  Operation *tiled = mlir::clone(b, op, resultTypes, operands);
  return TilingResult{{tiled}, SmallVector<Value>(tiled->getResults()), slices};
}

/// TilingInterface over the independent leading dimensions of a sift op.
template <typename OpTy>
struct RowTilingModel
    : public TilingInterface::ExternalModel<RowTilingModel<OpTy>, OpTy> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    return SmallVector<utils::IteratorType>(getRowModel(op)->numDims,
                                            utils::IteratorType::parallel);
  }

  SmallVector<Range> getIterationDomain(Operation *op, OpBuilder &b) const {
    RowModel m = *getRowModel(op);
    SmallVector<Range> domain(m.numDims);
    for (auto [j, d] : llvm::enumerate(m.results[0]))
      if (d >= 0)
        domain[d] =
            Range{b.getIndexAttr(0),
                  tensor::getMixedSize(b, op->getLoc(), op->getResult(0), j),
                  b.getIndexAttr(1)};
    return domain;
  }

  FailureOr<TilingResult>
  getTiledImplementation(Operation *op, OpBuilder &b,
                         ArrayRef<OpFoldResult> offsets,
                         ArrayRef<OpFoldResult> sizes) const {
    return tileRows(op, b, offsets, sizes);
  }

  LogicalResult
  getResultTilePosition(Operation *op, OpBuilder &b, unsigned resultNumber,
                        ArrayRef<OpFoldResult> offsets,
                        ArrayRef<OpFoldResult> sizes,
                        SmallVector<OpFoldResult> &resultOffsets,
                        SmallVector<OpFoldResult> &resultSizes) const {
    RowModel m = *getRowModel(op);
    Value result = op->getResult(resultNumber);
    resultOffsets.clear();
    resultSizes.clear();
    for (auto [j, d] : llvm::enumerate(m.results[resultNumber])) {
      if (d < 0) {
        resultOffsets.push_back(b.getIndexAttr(0));
        resultSizes.push_back(tensor::getMixedSize(b, op->getLoc(), result, j));
        continue;
      }
      resultOffsets.push_back(offsets[d]);
      resultSizes.push_back(sizes[d]);
    }
    return success();
  }

  LogicalResult getIterationDomainTileFromResultTile(
      Operation *op, OpBuilder &b, unsigned resultNumber,
      ArrayRef<OpFoldResult> resultOffsets, ArrayRef<OpFoldResult> resultSizes,
      SmallVectorImpl<OpFoldResult> &domainOffsets,
      SmallVectorImpl<OpFoldResult> &domainSizes) const {
    return domainTileOfResult(op, *getRowModel(op), b, resultNumber,
                              resultOffsets, resultSizes, domainOffsets,
                              domainSizes);
  }

  FailureOr<TilingResult>
  generateResultTileValue(Operation *op, OpBuilder &b, unsigned resultNumber,
                          ArrayRef<OpFoldResult> offsets,
                          ArrayRef<OpFoldResult> sizes) const {
    SmallVector<OpFoldResult> domainOffsets, domainSizes;
    if (failed(domainTileOfResult(op, *getRowModel(op), b, resultNumber,
                                  offsets, sizes, domainOffsets, domainSizes)))
      return failure();
    FailureOr<TilingResult> tiled = tileRows(op, b, domainOffsets, domainSizes);
    if (failed(tiled))
      return failure();
    // Fusion wants the tile of the requested result only.
    tiled->tiledValues = {tiled->tiledValues[resultNumber]};
    return tiled;
  }

  bool isOpFusableWithConsumerSlice(Operation *op, unsigned resultNumber,
                                    ArrayRef<OpFoldResult> offsets,
                                    ArrayRef<OpFoldResult> sizes) const {
    RowModel m = *getRowModel(op);
    // Only static checks here: no IR may be created.
    auto type = cast<RankedTensorType>(op->getResult(resultNumber).getType());
    for (auto [j, d] : llvm::enumerate(m.results[resultNumber]))
      if (d < 0 && (!isZeroInteger(offsets[j]) ||
                    getConstantIntValue(sizes[j]) !=
                        std::optional<int64_t>(type.getDimSize(j))))
        return false;
    return true;
  }
};

template <typename... OpTys> void attach(MLIRContext &context) {
  (OpTys::template attachInterface<RowTilingModel<OpTys>>(context), ...);
}

} // namespace

void mlir::sift::attachTilingInterfaceModels(MLIRContext &context) {
  // Not cross_entropy: its run-time error names the row of a bad target,
  // which a tile would renumber.
  attach<CountOp, CompactOp, CumsumOp, SortOp, ArgsortOp, TopkOp, GatherOp,
         RandomBitsOp, RandomUniformOp, RandpermPrefixOp, SampleBalancedOp>(
      context);
}
