//===- Batch.cpp - Lift a per-sample function over a batch ------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// `--sift-batch` builds the batched version of a function, as `vmap` does:
// the body is rebuilt op by op into a new function whose batched values carry
// a leading dimension of the batch size. A value is batched when it depends
// on a batched argument; everything else is cloned unchanged and broadcast
// only where a batched op needs it. The rules, per kind of op:
//
//  - elementwise ops (the `Elementwise` trait) and pure scalar ops become one
//    `linalg.generic` over [B, shape...]: an unbatched tensor operand is read
//    through a map that skips the batch dimension, an unbatched scalar is
//    used in the body as is, so nothing is materialized per row;
//  - `linalg` ops (named ones generalized first) gain a leading parallel
//    dimension; batched scalars captured by their body become inputs;
//  - tensor ops shift their dimensions by one (`concat`, slices, reshapes,
//    `dim`), `extract` of a batched scalar is the batched tensor itself;
//  - the sift ops take their batched forms: axis attributes shift, a gather
//    from an unbatched source keeps its form, random ops and
//    `sample_balanced` take per-row seeds, `cross_entropy` reduces per row
//    through `batch_dims`, a static `randperm` becomes an argsort of per-row
//    Philox words (its definition);
//  - `scf.if` on a batched condition evaluates both branches and selects per
//    row; on an unbatched one it stays a branch. `scf.for` with unbatched
//    bounds keeps its loop, its carried values batched where needed (found
//    by a fixpoint over the body).
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/IR/SiftOps.h"
#include "sift/Dialect/Sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTBATCH
#include "sift/Dialect/Sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

constexpr StringLiteral kUnbatchedAttr = "sift.unbatched";

/// Scalars that become a tensor of the batch size.
static bool isScalar(Type type) { return type.isIntOrIndexOrFloat(); }

/// Rebuilds a per-sample function body over a batch. `map` takes each value
/// of the source function to its value in the batched one; `batched` holds
/// the values of the batched function that carry the batch dimension.
class Batcher {
public:
  Batcher(int64_t size) : size(size) {}

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
  LogicalResult batchOp(OpBuilder &b, Operation *op);
  bool needsBatching(Operation *op) const;

  /// Records `newValue` as the batched value of `source`.
  void setBatched(Value source, Value newValue) {
    map.map(source, newValue);
    batched.insert(newValue);
  }

  Value broadcast(OpBuilder &b, Location loc, Value v);
  Value emptyBatched(OpBuilder &b, Location loc, Type sourceType,
                     Value sizesFrom);

  LogicalResult batchPointwise(OpBuilder &b, Operation *op);
  LogicalResult batchLinalg(OpBuilder &b, linalg::LinalgOp op);
  LogicalResult batchTensorOp(OpBuilder &b, Operation *op);
  LogicalResult batchSiftOp(OpBuilder &b, Operation *op);
  LogicalResult batchIf(OpBuilder &b, scf::IfOp op);
  LogicalResult batchFor(OpBuilder &b, scf::ForOp op);

  /// Clones `op` with its operands replaced by `operands`, its results
  /// batched, and records them.
  Operation *cloneBatched(OpBuilder &b, Operation *op, ValueRange operands);

  int64_t size;
  IRMapping map;
  DenseSet<Value> batched;
};

} // namespace

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

Value Batcher::batchedValue(OpBuilder &b, Location loc, Value v) {
  Value value = lookup(v);
  if (batched.contains(value))
    return value;
  return broadcast(b, loc, value);
}

/// A `tensor.empty` of the batched form of `sourceType`; dynamic sizes come
/// from `sizesFrom`, a value of the batched function whose type is
/// `sourceType` (unbatched) or its batched form.
Value Batcher::emptyBatched(OpBuilder &b, Location loc, Type sourceType,
                            Value sizesFrom) {
  auto type = cast<RankedTensorType>(batchedType(sourceType));
  SmallVector<Value> dynamic;
  if (!type.hasStaticShape()) {
    int64_t skip = batched.contains(sizesFrom) ? 0 : 1;
    for (int64_t d = 1; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dynamic.push_back(tensor::DimOp::create(b, loc, sizesFrom, d - skip));
  }
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dynamic);
}

/// The same value for every row: splat constants and scalars directly, other
/// tensors through a `linalg.generic` that later fuses into its consumers.
Value Batcher::broadcast(OpBuilder &b, Location loc, Value v) {
  Type type = batchedType(v.getType());
  if (isScalar(v.getType()))
    return tensor::SplatOp::create(b, loc, type, v);
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat())
    return arith::ConstantOp::create(b, loc,
                                     dense.resizeSplat(cast<ShapedType>(type)));
  auto tensorType = cast<RankedTensorType>(v.getType());
  unsigned rank = tensorType.getRank() + 1;
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  Value init = emptyBatched(b, loc, tensorType, v);
  return linalg::GenericOp::create(
             b, loc, type, v, init,
             ArrayRef<AffineMap>{identity.dropResult(0), identity},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [](OpBuilder &b, Location loc, ValueRange args) {
               linalg::YieldOp::create(b, loc, args[0]);
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

bool Batcher::needsBatching(Operation *op) const {
  for (Value operand : op->getOperands())
    if (batched.contains(lookup(operand)))
      return true;
  if (op->getNumRegions() == 0)
    return false;
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  return llvm::any_of(captured,
                      [&](Value v) { return batched.contains(lookup(v)); });
}

LogicalResult Batcher::batchOps(OpBuilder &b, Block &block) {
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator()))
    if (failed(batchOp(b, &op)))
      return failure();
  return success();
}

LogicalResult Batcher::batchOp(OpBuilder &b, Operation *op) {
  if (!needsBatching(op)) {
    b.clone(*op, map);
    return success();
  }
  // Every rule gives the results a leading batch dimension: refuse types
  // that cannot have one (unranked tensors, memrefs, ...) here, once.
  for (Type t : op->getResultTypes())
    if (!batchedType(t))
      return op->emitOpError("has a per-row result of type ")
             << t
             << ", which --sift-batch cannot give a batch dimension (only "
                "ranked tensors and scalars can have one)";
  if (isa<SiftDialect>(op->getDialect()))
    return batchSiftOp(b, op);
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!linalgOp.hasPureTensorSemantics())
      return op->emitOpError("on buffers cannot be batched by --sift-batch");
    if (isa<linalg::GenericOp>(op))
      return batchLinalg(b, linalgOp);
    // Named ops are generalized in place (the source is a scratch copy).
    IRRewriter rewriter(op->getContext());
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, linalgOp);
    if (failed(generic))
      return op->emitOpError("cannot be generalized for --sift-batch");
    return batchLinalg(b, *generic);
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return batchIf(b, ifOp);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return batchFor(b, forOp);
  if (isa<tensor::TensorDialect>(op->getDialect()))
    return batchTensorOp(b, op);
  // Elementwise ops on tensors or scalars, and pure scalar ops.
  auto isValueType = [](Type t) {
    return isScalar(t) || isa<RankedTensorType>(t);
  };
  bool valueTypes = llvm::all_of(op->getOperandTypes(), isValueType) &&
                    llvm::all_of(op->getResultTypes(), isValueType);
  bool scalarOp = llvm::all_of(op->getOperandTypes(), isScalar) &&
                  llvm::all_of(op->getResultTypes(), isScalar);
  if (op->getNumRegions() == 0 && op->getNumResults() > 0 && valueTypes &&
      isMemoryEffectFree(op) &&
      (op->hasTrait<OpTrait::Elementwise>() || scalarOp))
    return batchPointwise(b, op);
  if (isa<func::CallOp>(op))
    return op->emitOpError(
        "cannot be batched by --sift-batch: batch the callee and call it, "
        "or inline it first");
  return op->emitOpError("cannot be batched by --sift-batch: it uses a "
                         "per-row value and --sift-batch has no rule for it");
}

//===----------------------------------------------------------------------===//
// Elementwise and scalar ops
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// linalg
//===----------------------------------------------------------------------===//

LogicalResult Batcher::batchLinalg(OpBuilder &b, linalg::LinalgOp op) {
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

//===----------------------------------------------------------------------===//
// tensor
//===----------------------------------------------------------------------===//

Operation *Batcher::cloneBatched(OpBuilder &b, Operation *op,
                                 ValueRange operands) {
  Operation *clone = b.clone(*op, map);
  clone->setOperands(operands);
  for (auto [source, result] :
       llvm::zip_equal(op->getResults(), clone->getResults())) {
    result.setType(batchedType(source.getType()));
    setBatched(source, result);
  }
  return clone;
}

/// The operands of `op` that must be unbatched for its batched form.
static LogicalResult expectUnbatched(const Batcher &batcher, Operation *op,
                                     ValueRange values, StringRef what) {
  for (Value v : values)
    if (batcher.isBatched(v))
      return op->emitOpError("has per-row ")
             << what << ", which --sift-batch cannot batch";
  return success();
}

/// Slice parameters with a leading full batch dimension.
static void prependBatch(OpBuilder &b, int64_t size,
                         SmallVector<OpFoldResult> &offsets,
                         SmallVector<OpFoldResult> &sizes,
                         SmallVector<OpFoldResult> &strides) {
  offsets.insert(offsets.begin(), b.getIndexAttr(0));
  sizes.insert(sizes.begin(), b.getIndexAttr(size));
  strides.insert(strides.begin(), b.getIndexAttr(1));
}

LogicalResult Batcher::batchTensorOp(OpBuilder &b, Operation *op) {
  Location loc = op->getLoc();
  auto mapped = [&](ArrayRef<OpFoldResult> values) {
    SmallVector<OpFoldResult> result;
    for (OpFoldResult v : values)
      result.push_back(isa<Value>(v) ? OpFoldResult(lookup(cast<Value>(v)))
                                     : v);
    return result;
  };
  // The parameters of a slice with a leading full batch dimension; they must
  // be the same for every row.
  auto sliceParameters = [&](OffsetSizeAndStrideOpInterface slice,
                             SmallVector<OpFoldResult> &offsets,
                             SmallVector<OpFoldResult> &sizes,
                             SmallVector<OpFoldResult> &strides) {
    if (failed(expectUnbatched(*this, op, slice.getOffsets(), "offsets")) ||
        failed(expectUnbatched(*this, op, slice.getSizes(), "sizes")) ||
        failed(expectUnbatched(*this, op, slice.getStrides(), "strides")))
      return failure();
    offsets = mapped(slice.getMixedOffsets());
    sizes = mapped(slice.getMixedSizes());
    strides = mapped(slice.getMixedStrides());
    prependBatch(b, size, offsets, sizes, strides);
    return success();
  };
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](tensor::ExtractOp extract) -> LogicalResult {
        Value source = lookup(extract.getTensor());
        bool sourceBatched = batched.contains(source);
        bool indicesBatched = llvm::any_of(
            extract.getIndices(), [&](Value i) { return isBatched(i); });
        auto sourceType = extract.getTensor().getType();
        if (sourceBatched && !indicesBatched) {
          // Element [i...] of every row: a rank-reducing slice.
          if (sourceType.getRank() == 0) {
            setBatched(extract.getResult(), source);
            return success();
          }
          SmallVector<OpFoldResult> offsets{b.getIndexAttr(0)}, sizes, strides;
          sizes.push_back(b.getIndexAttr(size));
          strides.push_back(b.getIndexAttr(1));
          for (Value i : extract.getIndices()) {
            offsets.push_back(lookup(i));
            sizes.push_back(b.getIndexAttr(1));
            strides.push_back(b.getIndexAttr(1));
          }
          auto type = cast<RankedTensorType>(
              batchedType(extract.getResult().getType()));
          setBatched(extract.getResult(),
                     tensor::ExtractSliceOp::create(b, loc, type, source,
                                                    offsets, sizes, strides));
          return success();
        }
        // Per-row indices: read each row's element in a generic.
        SmallVector<Value> rowIndices;
        for (Value i : extract.getIndices())
          rowIndices.push_back(batchedValue(b, loc, i));
        AffineMap row = AffineMap::get(1, 0, b.getAffineDimExpr(0));
        Type elementType = extract.getType();
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
        setBatched(extract.getResult(), generic.getResult(0));
        return success();
      })
      .Case([&](tensor::FromElementsOp from) -> LogicalResult {
        // Columns of the batched elements, side by side, reshaped.
        auto type = from.getType();
        SmallVector<Value> columns;
        Type elementType = type.getElementType();
        auto columnType = RankedTensorType::get({size, 1}, elementType);
        for (Value element : from.getElements()) {
          Value rows = batchedValue(b, loc, element);
          if (type.getRank() == 0) {
            setBatched(from.getResult(), rows);
            return success();
          }
          columns.push_back(tensor::ExpandShapeOp::create(
              b, loc, columnType, rows,
              ArrayRef<ReassociationIndices>{{0, 1}}));
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
        setBatched(from.getResult(), flat);
        return success();
      })
      .Case([&](tensor::SplatOp splat) -> LogicalResult {
        auto type = splat.getType();
        if (!type.hasStaticShape())
          return op->emitOpError("of a dynamic shape cannot be batched by "
                                 "--sift-batch: run --sift-staticize first");
        // Each row's scalar over the row's shape.
        unsigned rank = type.getRank() + 1;
        Value init = emptyBatched(b, loc, type, Value());
        auto generic = linalg::GenericOp::create(
            b, loc, init.getType(), lookup(splat.getInput()), init,
            ArrayRef<AffineMap>{AffineMap::get(rank, 0, b.getAffineDimExpr(0)),
                                b.getMultiDimIdentityMap(rank)},
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [](OpBuilder &b, Location loc, ValueRange args) {
              linalg::YieldOp::create(b, loc, args[0]);
            });
        setBatched(splat.getResult(), generic.getResult(0));
        return success();
      })
      .Case([&](tensor::ConcatOp concat) -> LogicalResult {
        SmallVector<Value> operands;
        for (Value v : concat.getInputs())
          operands.push_back(batchedValue(b, loc, v));
        setBatched(
            concat.getResult(),
            tensor::ConcatOp::create(b, loc, concat.getDim() + 1, operands));
        return success();
      })
      .Case([&](tensor::ExtractSliceOp slice) -> LogicalResult {
        SmallVector<OpFoldResult> offsets, sizes, strides;
        if (failed(sliceParameters(slice, offsets, sizes, strides)))
          return failure();
        auto type = cast<RankedTensorType>(batchedType(slice.getType()));
        setBatched(slice.getResult(),
                   tensor::ExtractSliceOp::create(b, loc, type,
                                                  lookup(slice.getSource()),
                                                  offsets, sizes, strides));
        return success();
      })
      .Case([&](tensor::InsertSliceOp slice) -> LogicalResult {
        SmallVector<OpFoldResult> offsets, sizes, strides;
        if (failed(sliceParameters(slice, offsets, sizes, strides)))
          return failure();
        // A rank-reducing insert stays one: the batch dimension is kept.
        Value source = batchedValue(b, loc, slice.getSource());
        setBatched(slice.getResult(),
                   tensor::InsertSliceOp::create(
                       b, loc, source, batchedValue(b, loc, slice.getDest()),
                       offsets, sizes, strides));
        return success();
      })
      .Case<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
          [&](auto reshape) -> LogicalResult {
            SmallVector<ReassociationIndices> groups{{0}};
            for (ReassociationIndices group :
                 reshape.getReassociationIndices()) {
              for (int64_t &d : group)
                ++d;
              groups.push_back(group);
            }
            Value source = lookup(reshape.getSrc());
            auto type = cast<RankedTensorType>(
                batchedType(reshape.getResult().getType()));
            Value result;
            if constexpr (std::is_same_v<decltype(reshape),
                                         tensor::ExpandShapeOp>) {
              if (failed(expectUnbatched(*this, op, reshape.getOutputShape(),
                                         "output sizes")))
                return failure();
              SmallVector<OpFoldResult> shape{b.getIndexAttr(size)};
              llvm::append_range(shape, mapped(reshape.getMixedOutputShape()));
              result = tensor::ExpandShapeOp::create(b, loc, type, source,
                                                     groups, shape);
            } else {
              result =
                  tensor::CollapseShapeOp::create(b, loc, type, source, groups);
            }
            setBatched(reshape.getResult(), result);
            return success();
          })
      .Case([&](tensor::CastOp cast) -> LogicalResult {
        cloneBatched(b, op, lookup(cast.getSource()));
        return success();
      })
      .Case([&](tensor::DimOp dim) -> LogicalResult {
        // Sizes are the same for every row: the result stays unbatched.
        if (failed(expectUnbatched(*this, op, dim.getIndex(), "index")))
          return failure();
        // An index outside [0, rank) is undefined; shifted by one it would
        // silently read the batch dimension.
        auto srcType = dyn_cast<RankedTensorType>(dim.getSource().getType());
        std::optional<int64_t> d = dim.getConstantIndex();
        if (srcType && d && (*d < 0 || *d >= srcType.getRank()))
          return dim.emitOpError("dimension index ")
                 << *d << " is out of range for a tensor of rank "
                 << srcType.getRank();
        Value index =
            arith::AddIOp::create(b, loc, lookup(dim.getIndex()),
                                  arith::ConstantIndexOp::create(b, loc, 1));
        map.map(dim.getResult(),
                tensor::DimOp::create(b, loc, lookup(dim.getSource()), index));
        return success();
      })
      .Default([&](Operation *op) {
        return op->emitOpError(
            "cannot be batched by --sift-batch: it uses a per-row value and "
            "--sift-batch has no rule for it");
      });
}

//===----------------------------------------------------------------------===//
// sift
//===----------------------------------------------------------------------===//

/// A per-row seed or offset stays as it is; an unbatched tensor one is
/// broadcast so it keeps covering the same rows.
static Value perRowSeed(Batcher &batcher, OpBuilder &b, Location loc, Value v) {
  if (!v)
    return v;
  if (batcher.isBatched(v) || isScalar(v.getType()))
    return batcher.lookup(v);
  return batcher.batchedValue(b, loc, v);
}

LogicalResult Batcher::batchSiftOp(OpBuilder &b, Operation *op) {
  Location loc = op->getLoc();
  auto shiftDim = [](Operation *clone) {
    auto dim = clone->getAttrOfType<IntegerAttr>("dim");
    if (dim && dim.getInt() >= 0)
      clone->setAttr("dim", IntegerAttr::get(dim.getType(), dim.getInt() + 1));
  };
  auto incrementBatchDims = [](Operation *clone) {
    auto dims = clone->getAttrOfType<IntegerAttr>("batch_dims");
    int64_t value = dims ? dims.getInt() : 0;
    clone->setAttr(
        "batch_dims",
        IntegerAttr::get(IntegerType::get(clone->getContext(), 64), value + 1));
  };
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case<CountOp, CompactOp>([&](auto) {
        cloneBatched(b, op, batchedValue(b, loc, op->getOperand(0)));
        return success();
      })
      .Case<CumsumOp, SortOp, ArgsortOp, TopkOp>([&](auto) {
        shiftDim(cloneBatched(b, op, batchedValue(b, loc, op->getOperand(0))));
        return success();
      })
      .Case([&](GatherOp gather) {
        Value source = lookup(gather.getSource());
        Value indices = lookup(gather.getIndices());
        if (!batched.contains(source) && gather.getBatchDims() == 0) {
          // Per-row indices into a shared source: the same op.
          cloneBatched(b, op, {source, indices});
          return success();
        }
        incrementBatchDims(
            cloneBatched(b, op,
                         {batchedValue(b, loc, gather.getSource()),
                          batchedValue(b, loc, gather.getIndices())}));
        return success();
      })
      .Case<RandomBitsOp, RandomUniformOp>([&](auto random) {
        SmallVector<Value> operands{
            perRowSeed(*this, b, loc, random.getSeed())};
        if (Value offset = random.getOffset())
          operands.push_back(perRowSeed(*this, b, loc, offset));
        cloneBatched(b, op, operands);
        return success();
      })
      .Case([&](SampleBalancedOp sample) {
        // Row (p, q) of a per-row seed uses stream offset + q: with scalar
        // seeds every row of the batch would take the next stream instead of
        // the per-sample function's.
        Value seed = perRowSeed(*this, b, loc, sample.getSeed());
        Value offset = perRowSeed(*this, b, loc, sample.getOffset());
        if (!isa<RankedTensorType>(seed.getType()) &&
            !(offset && isa<RankedTensorType>(offset.getType())))
          seed = batchedValue(b, loc, sample.getSeed());
        SmallVector<Value> operands{batchedValue(b, loc, sample.getLabels()),
                                    seed};
        if (offset)
          operands.push_back(offset);
        cloneBatched(b, op, operands);
        return success();
      })
      .Case([&](CrossEntropyOp loss) -> LogicalResult {
        if (Value weight = loss.getWeight(); weight && isBatched(weight))
          return op->emitOpError("has per-row class weights, which "
                                 "--sift-batch cannot batch");
        SmallVector<Value> operands{batchedValue(b, loc, loss.getLogits()),
                                    batchedValue(b, loc, loss.getTargets())};
        if (Value weight = loss.getWeight())
          operands.push_back(lookup(weight));
        incrementBatchDims(cloneBatched(b, op, operands));
        return success();
      })
      .Case([&](RandpermOp perm) -> LogicalResult {
        // randperm(n) is the stable argsort of the first n words of its
        // stream, compared as unsigned: with per-row streams, per row.
        if (!perm.getType().hasStaticShape() || isBatched(perm.getN()))
          return op->emitOpError(
              "has a data-dependent result shape: run --sift-staticize "
              "before --sift-batch");
        int64_t n = perm.getType().getDimSize(0);
        Value seed = perRowSeed(*this, b, loc, perm.getSeed());
        Value offset = perRowSeed(*this, b, loc, perm.getOffset());
        auto bitsType = RankedTensorType::get({size, n}, b.getI32Type());
        Value bits = RandomBitsOp::create(b, loc, bitsType, seed, offset);
        auto wideType = RankedTensorType::get({size, n}, b.getI64Type());
        Value keys = arith::ExtUIOp::create(b, loc, wideType, bits);
        setBatched(perm.getResult(),
                   ArgsortOp::create(b, loc, wideType, keys,
                                     /*dim=*/b.getI64IntegerAttr(1),
                                     /*descending=*/nullptr));
        return success();
      })
      .Case<NonzeroOp, UniqueOp, MaskedSelectOp>([&](auto) {
        return op->emitOpError("has a data-dependent result shape: run "
                               "--sift-staticize before --sift-batch");
      })
      .Default([&](Operation *op) {
        return op->emitOpError("has no batched form in --sift-batch");
      });
}

//===----------------------------------------------------------------------===//
// scf
//===----------------------------------------------------------------------===//

/// Batches the ops of `source` into `dest` (before its end), then returns
/// the batched values its terminator yields.
static FailureOr<SmallVector<Value>>
batchRegionInto(Batcher &batcher, OpBuilder &b, Block &source) {
  if (failed(batcher.batchOps(b, source)))
    return failure();
  SmallVector<Value> yielded;
  for (Value v : source.getTerminator()->getOperands())
    yielded.push_back(batcher.lookup(v));
  return yielded;
}

LogicalResult Batcher::batchIf(OpBuilder &b, scf::IfOp op) {
  Location loc = op.getLoc();
  if (!isBatched(op.getCondition())) {
    // The same branch for every row; a result is per row when either
    // branch yields a per-row value.
    auto newIf =
        scf::IfOp::create(b, loc, TypeRange{}, lookup(op.getCondition()),
                          /*withElseRegion=*/op.elseBlock() != nullptr);
    SmallVector<SmallVector<Value>> yields;
    for (Region *region : {&op.getThenRegion(), &op.getElseRegion()}) {
      if (region->empty())
        continue;
      Block &target = region == &op.getThenRegion()
                          ? newIf.getThenRegion().front()
                          : newIf.getElseRegion().front();
      if (!target.empty() && target.back().hasTrait<OpTrait::IsTerminator>())
        target.back().erase();
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(&target);
      FailureOr<SmallVector<Value>> values =
          batchRegionInto(*this, b, region->front());
      if (failed(values))
        return failure();
      yields.push_back(*values);
    }
    SmallVector<Type> types;
    SmallVector<bool> perRow;
    for (auto [i, result] : llvm::enumerate(op.getResults())) {
      bool any = llvm::any_of(
          yields, [&](auto &values) { return batched.contains(values[i]); });
      perRow.push_back(any);
      types.push_back(any ? batchedType(result.getType()) : result.getType());
    }
    Region *newRegions[] = {&newIf.getThenRegion(), &newIf.getElseRegion()};
    for (auto [k, region] : llvm::enumerate(newRegions)) {
      if (region->empty())
        continue;
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(&region->front());
      SmallVector<Value> values;
      for (auto [i, v] : llvm::enumerate(yields[k]))
        values.push_back(
            perRow[i] && !batched.contains(v) ? broadcast(b, loc, v) : v);
      scf::YieldOp::create(b, loc, values);
    }
    // Re-create the op with its result types, moving the regions over.
    auto typed = scf::IfOp::create(b, loc, types, newIf.getCondition(),
                                   /*withElseRegion=*/false);
    typed.getThenRegion().takeBody(newIf.getThenRegion());
    typed.getElseRegion().takeBody(newIf.getElseRegion());
    newIf.erase();
    for (auto [i, result] : llvm::enumerate(op.getResults())) {
      map.map(result, typed.getResult(i));
      if (perRow[i])
        batched.insert(typed.getResult(i));
    }
    return success();
  }
  // A per-row condition: both branches run for every row, then each row
  // takes its branch's values. Only side-effect free branches can do so.
  WalkResult effects = op->walk([&](Operation *inner) {
    if (inner != op && !isa<scf::YieldOp>(inner) &&
        !isMemoryEffectFree(inner)) {
      inner->emitOpError("has side effects, so --sift-batch cannot run both "
                         "branches of a per-row scf.if");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (effects.wasInterrupted())
    return failure();
  if (op.getNumResults() == 0)
    return success();
  FailureOr<SmallVector<Value>> thenValues =
      batchRegionInto(*this, b, op.getThenRegion().front());
  if (failed(thenValues))
    return failure();
  FailureOr<SmallVector<Value>> elseValues =
      batchRegionInto(*this, b, op.getElseRegion().front());
  if (failed(elseValues))
    return failure();
  // select(cond, then, else) per element, through the pointwise rule on a
  // scratch select of the source types.
  OpBuilder scratch(op);
  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    auto select = arith::SelectOp::create(scratch, loc, op.getCondition(),
                                          op.thenYield().getOperand(i),
                                          op.elseYield().getOperand(i));
    LogicalResult selected = batchPointwise(b, select);
    if (succeeded(selected))
      map.map(result, lookup(select.getResult()));
    select.erase();
    if (failed(selected))
      return failure();
  }
  return success();
}

/// The same loop for every row; a carried value is per row when its initial
/// value or the value yielded for it is. That is a fixpoint: the body is
/// batched again whenever a carried value turns out to be per row.
LogicalResult Batcher::batchFor(OpBuilder &b, scf::ForOp op) {
  Location loc = op.getLoc();
  if (isBatched(op.getLowerBound()) || isBatched(op.getUpperBound()) ||
      isBatched(op.getStep()))
    return op.emitOpError("has per-row bounds, which --sift-batch cannot "
                          "batch (a loop of per-row trip counts)");
  SmallVector<bool> perRow;
  for (Value init : op.getInitArgs())
    perRow.push_back(isBatched(init));
  while (true) {
    SmallVector<Value> inits;
    for (auto [init, isPerRow] : llvm::zip_equal(op.getInitArgs(), perRow))
      inits.push_back(isPerRow ? batchedValue(b, loc, init) : lookup(init));
    bool failedBody = false, grew = false;
    auto loop = scf::ForOp::create(
        b, loc, lookup(op.getLowerBound()), lookup(op.getUpperBound()),
        lookup(op.getStep()), inits,
        [&](OpBuilder &nb, Location nloc, Value iv, ValueRange args) {
          map.map(op.getInductionVar(), iv);
          for (auto [arg, newArg, isPerRow] :
               llvm::zip_equal(op.getRegionIterArgs(), args, perRow))
            mapArgument(arg, newArg, isPerRow);
          FailureOr<SmallVector<Value>> yielded =
              batchRegionInto(*this, nb, *op.getBody());
          if (failed(yielded)) {
            failedBody = true;
            scf::YieldOp::create(nb, nloc, args);
            return;
          }
          SmallVector<Value> values;
          for (auto [i, v] : llvm::enumerate(*yielded)) {
            if (batched.contains(v) && !perRow[i]) {
              perRow[i] = true;
              grew = true;
            }
            values.push_back(
                perRow[i] && !batched.contains(v) ? broadcast(nb, nloc, v) : v);
          }
          if (grew)
            values.assign(args.begin(), args.end());
          scf::YieldOp::create(nb, nloc, values);
        });
    if (failedBody || grew) {
      // Forget the values of this attempt before they are erased.
      loop->walk([&](Operation *inner) {
        for (Value v : inner->getResults())
          batched.erase(v);
        for (Region &region : inner->getRegions())
          for (Block &block : region)
            for (Value v : block.getArguments())
              batched.erase(v);
      });
      loop.erase();
      if (failedBody)
        return failure();
      continue;
    }
    for (auto [result, value, isPerRow] :
         llvm::zip_equal(op.getResults(), loop.getResults(), perRow)) {
      map.map(result, value);
      if (isPerRow)
        batched.insert(value);
    }
    return success();
  }
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {

struct SiftBatchPass : sift::impl::SiftBatchBase<SiftBatchPass> {
  using SiftBatchBase::SiftBatchBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (batchSize <= 0) {
      module.emitError("--sift-batch needs a batch size: size=N with N > 0");
      return signalPassFailure();
    }
    func::FuncOp source;
    if (funcName.empty()) {
      auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
      if (funcs.size() != 1) {
        module.emitError("--sift-batch: the module has ")
            << funcs.size() << " functions; say which with func=NAME";
        return signalPassFailure();
      }
      source = funcs.front();
    } else {
      source = module.lookupSymbol<func::FuncOp>(funcName);
      if (!source) {
        module.emitError("--sift-batch: no function named '")
            << funcName << "'";
        return signalPassFailure();
      }
    }
    if (source.isExternal() || !source.getBody().hasOneBlock()) {
      source.emitOpError("--sift-batch needs a body of one block");
      return signalPassFailure();
    }
    std::string name = batchedName.empty()
                           ? (source.getSymName() + "_batched").str()
                           : std::string(batchedName);
    if (module.lookupSymbol(name)) {
      source.emitOpError("--sift-batch: the module already has a symbol '")
          << name << "'";
      return signalPassFailure();
    }

    Batcher batcher(batchSize);
    FunctionType type = source.getFunctionType();
    llvm::SmallDenseSet<unsigned> shared(unbatchedArgs.begin(),
                                         unbatchedArgs.end());
    for (unsigned i : shared)
      if (i >= type.getNumInputs()) {
        source.emitOpError("--sift-batch: unbatched=")
            << i << " is not an argument position (the function has "
            << type.getNumInputs() << ")";
        return signalPassFailure();
      }
    SmallVector<Type> inputs, results;
    SmallVector<bool> argBatched;
    for (auto [i, input] : llvm::enumerate(type.getInputs())) {
      bool isShared =
          shared.contains(i) || source.getArgAttr(i, kUnbatchedAttr);
      Type batched = isShared ? input : batcher.batchedType(input);
      if (!batched) {
        source.emitOpError("--sift-batch: argument #")
            << i << " of type " << input
            << " cannot have a batch dimension; declare it unbatched";
        return signalPassFailure();
      }
      inputs.push_back(batched);
      argBatched.push_back(!isShared);
    }
    for (auto [i, result] : llvm::enumerate(type.getResults())) {
      Type batched = batcher.batchedType(result);
      if (!batched) {
        source.emitOpError("--sift-batch: result #")
            << i << " of type " << result << " cannot have a batch dimension";
        return signalPassFailure();
      }
      results.push_back(batched);
    }

    OpBuilder b(module.getContext());
    b.setInsertionPointAfter(source);
    auto batchedFn = func::FuncOp::create(b, source.getLoc(), name,
                                          b.getFunctionType(inputs, results));
    batchedFn.setVisibility(source.getVisibility());
    for (unsigned i = 0; i < inputs.size(); ++i)
      for (NamedAttribute attr :
           cast<FunctionOpInterface>(source.getOperation()).getArgAttrs(i))
        // A batched size keeps its `sift.bound`: each row's size is bounded.
        if (attr.getName() != kUnbatchedAttr)
          batchedFn.setArgAttr(i, attr.getName(), attr.getValue());

    // The source is batched from a scratch copy: named linalg ops are
    // generalized in it on the way.
    func::FuncOp scratch = source.clone();
    Block &sourceBlock = scratch.getBody().front();
    Block *block = batchedFn.addEntryBlock();
    for (auto [arg, newArg, isBatched] : llvm::zip_equal(
             sourceBlock.getArguments(), block->getArguments(), argBatched))
      batcher.mapArgument(arg, newArg, isBatched);
    b.setInsertionPointToStart(block);
    if (failed(batcher.batchOps(b, sourceBlock))) {
      scratch.erase();
      batchedFn.erase();
      return signalPassFailure();
    }
    auto ret = cast<func::ReturnOp>(sourceBlock.getTerminator());
    SmallVector<Value> returned;
    for (Value v : ret.getOperands())
      returned.push_back(batcher.batchedValue(b, ret.getLoc(), v));
    func::ReturnOp::create(b, ret.getLoc(), returned);
    scratch.erase();
  }
};

} // namespace
