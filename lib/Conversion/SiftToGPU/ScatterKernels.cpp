//===- ScatterKernels.cpp - The scatter kernels ---------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// sift.scatter as kernels of a thread per element (--convert-sift-to-gpu,
// then --sift-gpu-expand-kernels), in place of the linalg lowering's
// sequential loop over the lanes (lib/Conversion/SiftToLinalg/Scatter.cpp),
// which on the GPU runs as a kernel of one thread.
//
// The tensors are seen flat: `dest` as [items * n * T] and `updates` as
// [L * T], with `n = dest.shape[batch_dims]`, T the product of the trailing
// (static) extents, L the number of lanes of `indices` and `items` the
// product of the batch extents. Lane `l` belongs to item `l / (L / items)`
// (item 0 without batch dimensions: the call's `batched` is not set) and
// lands on row `item * n + j` of the result, `j = indices[l]`, if
// `0 <= j < n`. One call expands into:
//   1. the copy of `dest` into the result; for reduce(none) the same
//      threads also set each row's winner (an i64 per row of the result)
//      to -1;
//   2. reduce(none) only: a thread per lane takes the maximum of its lane
//      number and its row's winner (an atomic max): the last lane in
//      row-major order wins, as in the sequential loop, whatever the order
//      of the threads;
//   3. a thread per element of `updates`: for reduce(none), the winning
//      lane's elements are stored (one writer per element, no race); for
//      add, max and min, each element is combined into the result by one
//      of the hardware's atomics (add, signed max and min of i32 and i64;
//      add of f32 and f64).
// Where every item's lanes are one line of distinct indices (a
// permutation, a top-k's or a padded compaction's indices: see
// `hasDistinctLines`), no two lanes land on the same row, so reduce(none)
// needs no winner: its step 3 stores every lane. Where `dest` is a
// tensor.empty, step 1 copies nothing. The inverse permutation of
// sift.unique on the GPU (an empty dest scattered through a sort's
// permutation) is then one launch.
// A float max or min (NaN wins, -0 < +0, as arith.maximumf and the CPU
// lowering) has no such atomic. Its step 1 writes each element of `dest`
// as an unsigned key of its width (`floatKey`: the float order is the
// keys' order, every NaN one key above +inf for max and below -inf for
// min) into a scratch buffer of the result's size, step 3 takes the
// unsigned max or min of the keys, and a last launch writes the floats of
// the keys into the result (3 launches). No compare-and-swap loop: a
// memref.generic_atomic_rmw has a region, which buffer deallocation
// rejects when the kernels run on the CPU.
//
// The results are bit-identical to the CPU lowering's except for reduce(add)
// of floats, whose additions happen in the order the atomics do (as in
// PyTorch's CUDA index_add_ and XLA's scatter-add): a float sum then differs
// from the sequential one by rounding; and a NaN that a float max or min
// returns is the quiet NaN of the kernels' choice (positive for max,
// negative for min), not the NaN's own bits.
//
// Left to the sequential loop: trailing extents that are not static, and
// the reductions of element types that have no 32- or 64-bit atomic (i1,
// i8, i16, f16, bf16).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "../SiftToLinalg/Utils/CodegenUtils.h"
#include "../SiftToLinalg/Utils/RuntimeChecks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::gpu_kernels;

namespace {

/// The kernel call's attributes.
constexpr llvm::StringLiteral kReduceAttr = "reduce";
constexpr llvm::StringLiteral kTailAttr = "tail";
/// Set when the scatter has batch dimensions: without it every lane is of
/// item 0 (no division by the lanes per item).
constexpr llvm::StringLiteral kBatchedAttr = "batched";
/// Set when no two lanes of an item land on the same row
/// (`hasDistinctIndices`): reduce(none) stores each lane with no winner.
constexpr llvm::StringLiteral kDistinctAttr = "distinct";
/// Set when `dest` is a tensor.empty: its elements are undefined, so the
/// result's are too where no lane lands, and nothing copies them.
constexpr llvm::StringLiteral kFreshAttr = "fresh";

/// Whether the kernels combine elements of `type` with `reduce`: plain
/// stores for none, else a 32- or 64-bit atomic.
bool hasAtomicCombine(ScatterReduce reduce, Type type) {
  if (reduce == ScatterReduce::None)
    return true;
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth() == 32 || integer.getWidth() == 64;
  return type.isF32() || type.isF64();
}

/// Whether a scatter of `type` with `reduce` combines keys (`floatKey`).
bool combinesKeys(ScatterReduce reduce, Type type) {
  return isa<FloatType>(type) &&
         (reduce == ScatterReduce::Max || reduce == ScatterReduce::Min);
}

/// Whether `v`, a tensor of indices, holds distinct values along its last
/// axis, negative padding aside: a line of a permutation (argsort, a sort's
/// indices, randperm and its prefixes) or of a selection of distinct
/// positions (top-k, a compaction padded with a negative fill), seen
/// through casts, sign or zero extensions and slices that keep the rank.
bool hasDistinctLines(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    auto vType = cast<RankedTensorType>(v.getType());
    int64_t last = vType.getRank() - 1;
    if (isa<tensor::CastOp, arith::ExtSIOp, arith::ExtUIOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def)) {
      if (slice.getSourceType().getRank() != vType.getRank())
        return false;
      v = slice.getSource();
      continue;
    }
    if (auto sort = dyn_cast<SortOp>(def))
      return v == sort.getIndices() && sort.getAxis() == last;
    if (auto argsort = dyn_cast<ArgsortOp>(def))
      return argsort.getAxis() == last;
    if (auto topk = dyn_cast<TopkOp>(def))
      return v == topk.getIndices() && topk.getAxis() == last;
    if (auto compact = dyn_cast<CompactOp>(def))
      return v == compact.getIndices() && !compact.getUnpadded() &&
             static_cast<int64_t>(compact.getFill()) < 0;
    return isa<RandpermOp, RandpermPrefixOp>(def);
  }
  return false;
}

} // namespace

//===----------------------------------------------------------------------===//
// --convert-sift-to-gpu: the kernel call
//===----------------------------------------------------------------------===//

bool gpu_kernels::hasDistinctIndices(ScatterOp op) {
  auto type = cast<RankedTensorType>(op.getIndices().getType());
  return type.getRank() == static_cast<int64_t>(op.getBatchDims()) + 1 &&
         hasDistinctLines(op.getIndices());
}

LogicalResult gpu_kernels::convertScatter(ScatterOp op, bool distinct) {
  RankedTensorType destType = op.getDest().getType();
  auto updatesType = cast<RankedTensorType>(op.getUpdates().getType());
  auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
  Type elt = destType.getElementType();
  int64_t batch = static_cast<int64_t>(op.getBatchDims());
  int64_t destRank = destType.getRank();
  int64_t indicesRank = indicesType.getRank();
  if (!hasAtomicCombine(op.getReduce(), elt))
    return failure();
  int64_t tail = 1;
  for (int64_t d = batch + 1; d < destRank; ++d) {
    int64_t u = indicesRank + d - batch - 1;
    if (destType.isDynamicDim(d) || updatesType.isDynamicDim(u))
      return failure();
    tail *= destType.getDimSize(d);
  }

  IRRewriter rewriter(op->getContext());
  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  // The extents that must agree, checked at run time where dynamic, with
  // the CPU lowering's reports. The kernels stay memory-safe without them:
  // they read no update past `updates` and write no row past the result.
  if (failed(lowering::checkLeadingExtents(rewriter, op, op.getDest(),
                                           op.getIndices(), batch)) ||
      failed(lowering::checkLeadingExtents(rewriter, op, op.getIndices(),
                                           op.getUpdates(), indicesRank)))
    return failure();
  if (tail == 0) {
    // Nothing to write: the result is `dest`.
    op.getResult().replaceAllUsesWith(op.getDest());
    op.erase();
    return success();
  }

  SmallVector<OpFoldResult> destSizes =
      tensor::getMixedSizes(b, loc, op.getDest());
  SmallVector<OpFoldResult> indexSizes =
      tensor::getMixedSizes(b, loc, op.getIndices());
  bool fresh = op.getDest().getDefiningOp<tensor::EmptyOp>() &&
               !combinesKeys(op.getReduce(), elt);
  Value dest = lowering::flatten(b, loc, op.getDest());
  Value out = allocBuffer(b, loc, tensor::getMixedSize(b, loc, dest, 0), elt);
  SmallVector<Value> operands = {
      toBuffer(b, loc, lowering::flatten(b, loc, op.getUpdates())),
      toBuffer(b, loc, dest),
      toBuffer(b, loc, lowering::flatten(b, loc, op.getIndices())), out};
  if (op.getReduce() == ScatterReduce::None && !distinct)
    // The winning lane of each row of the result.
    operands.push_back(allocBuffer(
        b, loc, productOf(b, loc, ArrayRef(destSizes).take_front(batch + 1)),
        b.getI64Type()));
  else if (combinesKeys(op.getReduce(), elt))
    // The result's keys.
    operands.push_back(
        allocBuffer(b, loc, tensor::getMixedSize(b, loc, dest, 0),
                    b.getIntegerType(elt.getIntOrFloatBitWidth())));
  // n, and the lanes of one item.
  operands.push_back(getValueOrCreateConstantIndexOp(b, loc, destSizes[batch]));
  operands.push_back(getValueOrCreateConstantIndexOp(
      b, loc, productOf(b, loc, ArrayRef(indexSizes).drop_front(batch))));
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr(kReduceAttr, op.getReduceAttr()),
      b.getNamedAttr(kTailAttr, b.getI64IntegerAttr(tail))};
  if (batch > 0)
    attrs.push_back(b.getNamedAttr(kBatchedAttr, b.getUnitAttr()));
  if (distinct)
    attrs.push_back(b.getNamedAttr(kDistinctAttr, b.getUnitAttr()));
  if (fresh)
    attrs.push_back(b.getNamedAttr(kFreshAttr, b.getUnitAttr()));
  createKernelCall(b, loc, op, "scatter", operands, attrs);
  replaceWithFlatResult(b, op, out, destType, destSizes);
  return success();
}

//===----------------------------------------------------------------------===//
// --sift-gpu-expand-kernels: the launches
//===----------------------------------------------------------------------===//

namespace {

/// The operands and attributes of a scatter kernel call.
struct ScatterCall {
  Value updates, dest, indices, out; ///< [L * T], [items * n * T], [L], dest's
  Value winner;          ///< reduce(none): [items * n] i64, else null
  Value keys;            ///< a float max or min: the result's keys, else null
  Value n, lanesPerItem; ///< index
  ScatterReduce reduce;
  int64_t tail; ///< T
  bool batched, distinct, fresh;
};

FailureOr<ScatterCall> parseScatterCall(func::CallOp call) {
  auto reduce = call->getAttrOfType<ScatterReduceAttr>(kReduceAttr);
  auto tail = call->getAttrOfType<IntegerAttr>(kTailAttr);
  if (!reduce || !tail || tail.getInt() < 1)
    return call.emitOpError("sift-gpu-expand-kernels: the scatter kernel "
                            "needs its reduce and a tail of at least 1");
  ScatterCall c;
  c.reduce = reduce.getValue();
  c.tail = tail.getInt();
  c.batched = call->hasAttr(kBatchedAttr);
  c.distinct = call->hasAttr(kDistinctAttr);
  c.fresh = call->hasAttr(kFreshAttr);
  // reduce(none) needs the winners unless the lanes are distinct.
  bool none = c.reduce == ScatterReduce::None && !c.distinct;
  ValueRange args = call.getOperands();
  if (args.size() < 2 || !isa<MemRefType>(args[0].getType()) ||
      !isa<MemRefType>(args[1].getType()))
    return call.emitOpError("sift-gpu-expand-kernels: the scatter kernel "
                            "takes the updates and dest buffers first");
  Type destElt = cast<MemRefType>(args[1].getType()).getElementType();
  bool keyed = combinesKeys(c.reduce, destElt);
  if (keyed && c.fresh)
    return call.emitOpError("sift-gpu-expand-kernels: a float max or min "
                            "scatter reads its dest's keys: it cannot be "
                            "fresh");
  size_t numBuffers = none || keyed ? 5 : 4;
  auto line = [](Value v) -> MemRefType {
    auto type = dyn_cast<MemRefType>(v.getType());
    return type && type.getRank() == 1 ? type : MemRefType();
  };
  bool ok = args.size() == numBuffers + 2 &&
            llvm::all_of(args.take_front(numBuffers), line) &&
            llvm::all_of(args.drop_front(numBuffers).getTypes(),
                         [](Type t) { return t.isIndex(); });
  if (ok) {
    size_t i = 0;
    c.updates = args[i++];
    c.dest = args[i++];
    c.indices = args[i++];
    c.out = args[i++];
    if (none)
      c.winner = args[i++];
    if (keyed)
      c.keys = args[i++];
    c.n = args[i++];
    c.lanesPerItem = args[i++];
    Type elt = line(c.dest).getElementType();
    Type i64 = IntegerType::get(call.getContext(), 64);
    ok = line(c.updates).getElementType() == elt &&
         line(c.out).getElementType() == elt &&
         line(c.indices).getElementType() == i64 &&
         (!c.winner || line(c.winner).getElementType() == i64) &&
         (!c.keys || line(c.keys).getElementType() ==
                         IntegerType::get(call.getContext(),
                                          elt.getIntOrFloatBitWidth())) &&
         hasAtomicCombine(c.reduce, elt);
  }
  if (!ok)
    return call.emitOpError("sift-gpu-expand-kernels: the scatter kernel "
                            "takes 1-D buffers of the updates, dest, i64 "
                            "indices and the result (then for reduce(none) "
                            "of lanes not distinct the i64 winners, for a "
                            "float max or min the "
                            "keys, an integer of the float's width), then "
                            "n and the lanes per item as indices; a reduce "
                            "needs a 32- or 64-bit element type");
  return c;
}

/// `combine(result[at], update)` as one of the hardware's atomics (not for
/// a float max or min: see `floatKey`).
void atomicCombine(OpBuilder &b, Location loc, ScatterReduce reduce,
                   Value update, Value result, Value at) {
  bool isFloat = isa<FloatType>(update.getType());
  arith::AtomicRMWKind kind = arith::AtomicRMWKind::addi;
  switch (reduce) {
  case ScatterReduce::Add:
    kind = isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
    break;
  case ScatterReduce::Max:
    kind = arith::AtomicRMWKind::maxs;
    break;
  case ScatterReduce::Min:
    kind = arith::AtomicRMWKind::mins;
    break;
  case ScatterReduce::None:
    llvm_unreachable("a store, not an atomic");
  }
  memref::AtomicRMWOp::create(b, loc, kind, update, result, ValueRange{at});
}

/// Integer constants of `type`: its sign bit alone, and all its bits.
std::pair<Value, Value> signAndOnes(OpBuilder &b, Location loc, Type type) {
  unsigned width = type.getIntOrFloatBitWidth();
  return {arith::ConstantOp::create(
              b, loc, b.getIntegerAttr(type, APInt::getSignMask(width))),
          arith::ConstantOp::create(
              b, loc, b.getIntegerAttr(type, APInt::getAllOnes(width)))};
}

/// The unsigned key of the float `x` for a max (or a min): the keys' order
/// is the floats' (-0 below +0), and every NaN is the key of one quiet NaN,
/// positive for max, negative for min, which is above (below) every other
/// key. A positive float sets its sign bit; a negative one inverts all its
/// bits.
Value floatKey(OpBuilder &b, Location loc, Value x, ScatterReduce reduce) {
  auto type = cast<FloatType>(x.getType());
  Type intType = b.getIntegerType(type.getWidth());
  APFloat nan = APFloat::getQNaN(type.getFloatSemantics(),
                                 /*Negative=*/reduce == ScatterReduce::Min);
  Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value canonical = arith::SelectOp::create(
      b, loc, isNan,
      arith::ConstantOp::create(b, loc, b.getFloatAttr(type, nan)), x);
  Value bits = arith::BitcastOp::create(b, loc, intType, canonical);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, bits,
                            arith::ConstantIntOp::create(b, loc, intType, 0));
  std::pair<Value, Value> masks = signAndOnes(b, loc, intType);
  return arith::SelectOp::create(
      b, loc, negative, arith::XOrIOp::create(b, loc, bits, masks.second),
      arith::XOrIOp::create(b, loc, bits, masks.first));
}

/// The float of `floatKey`'s `key`.
Value floatOfKey(OpBuilder &b, Location loc, Value key, FloatType type) {
  Type intType = key.getType();
  // A set top bit is a positive float's key.
  Value positive =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, key,
                            arith::ConstantIntOp::create(b, loc, intType, 0));
  std::pair<Value, Value> masks = signAndOnes(b, loc, intType);
  Value bits = arith::SelectOp::create(
      b, loc, positive, arith::XOrIOp::create(b, loc, key, masks.first),
      arith::XOrIOp::create(b, loc, key, masks.second));
  return arith::BitcastOp::create(b, loc, type, bits);
}

} // namespace

LogicalResult gpu_kernels::expandScatterCall(OpBuilder &b, func::CallOp call,
                                             int64_t threads) {
  FailureOr<ScatterCall> parsed = parseScatterCall(call);
  if (failed(parsed))
    return failure();
  const ScatterCall &c = *parsed;
  Location loc = call.getLoc();
  Value tail = constIndex(b, loc, c.tail);
  Value total = extentOf(b, loc, c.out, 0);
  Value lanes = extentOf(b, loc, c.indices, 0);
  // The elements of `updates` that have a lane (all of them when the
  // extents agree, as the host checks).
  Value elements = b.createOrFold<arith::MinUIOp>(
      loc, b.createOrFold<arith::MulIOp>(loc, lanes, tail),
      extentOf(b, loc, c.updates, 0));
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);

  // The row of the result lane `l` lands on, and whether it does.
  auto target = [&](OpBuilder &b, Value l) -> std::pair<Value, Value> {
    Value j = memref::LoadOp::create(b, loc, c.indices, ValueRange{l});
    Value n64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), c.n);
    Value inRange = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, j, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j, n64));
    Value row = arith::IndexCastOp::create(b, loc, b.getIndexType(), j);
    if (c.batched)
      row = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(
              b, loc, arith::DivUIOp::create(b, loc, l, c.lanesPerItem), c.n),
          row);
    // (A lane of an item the result does not have, when the batch extents
    // disagree: the host reports it.)
    Value inResult =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                              arith::MulIOp::create(b, loc, row, tail), total);
    return {row, arith::AndIOp::create(b, loc, inRange, inResult)};
  };

  // 1. The copy of dest (or its keys; none of a fresh dest), and no
  // winner yet (none where the lanes are distinct).
  if (!c.fresh || c.winner) {
    Value rows = c.winner ? extentOf(b, loc, c.winner, 0) : Value();
    buildElementLaunch(
        b, loc, c.fresh ? rows : total, threads, [&](OpBuilder &b, Value i) {
          if (!c.fresh) {
            Value x = memref::LoadOp::create(b, loc, c.dest, ValueRange{i});
            if (c.keys)
              memref::StoreOp::create(b, loc, floatKey(b, loc, x, c.reduce),
                                      c.keys, ValueRange{i});
            else
              memref::StoreOp::create(b, loc, x, c.out, ValueRange{i});
          }
          if (!c.winner)
            return;
          buildIf(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, rows),
              [&](OpBuilder &b) {
                memref::StoreOp::create(
                    b, loc,
                    arith::ConstantIntOp::create(b, loc, b.getI64Type(), -1),
                    c.winner, ValueRange{i});
              });
        });
  }
  // 2. The last lane of each row wins.
  if (c.winner)
    buildElementLaunch(b, loc, lanes, threads, [&](OpBuilder &b, Value l) {
      std::pair<Value, Value> landing = target(b, l);
      Value row = landing.first;
      buildIf(b, loc, landing.second, [&](OpBuilder &b) {
        memref::AtomicRMWOp::create(
            b, loc, arith::AtomicRMWKind::maxs,
            arith::IndexCastOp::create(b, loc, b.getI64Type(), l), c.winner,
            ValueRange{row});
      });
    });
  // 3. The updates.
  buildElementLaunch(b, loc, elements, threads, [&](OpBuilder &b, Value e) {
    Value l = arith::DivUIOp::create(b, loc, e, tail);
    Value t = arith::RemUIOp::create(b, loc, e, tail);
    std::pair<Value, Value> landing = target(b, l);
    Value row = landing.first;
    buildIf(b, loc, landing.second, [&](OpBuilder &b) {
      Value at = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, row, tail), t);
      auto update = [&](OpBuilder &b) {
        return memref::LoadOp::create(b, loc, c.updates, ValueRange{e})
            .getResult();
      };
      if (c.keys) {
        memref::AtomicRMWOp::create(
            b, loc,
            c.reduce == ScatterReduce::Max ? arith::AtomicRMWKind::maxu
                                           : arith::AtomicRMWKind::minu,
            floatKey(b, loc, update(b), c.reduce), c.keys, ValueRange{at});
        return;
      }
      if (c.reduce == ScatterReduce::None && !c.winner) {
        // Distinct lanes: this element has no other writer.
        memref::StoreOp::create(b, loc, update(b), c.out, ValueRange{at});
        return;
      }
      if (!c.winner) {
        atomicCombine(b, loc, c.reduce, update(b), c.out, at);
        return;
      }
      Value winner = memref::LoadOp::create(b, loc, c.winner, ValueRange{row});
      Value won = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq, winner,
          arith::IndexCastOp::create(b, loc, b.getI64Type(), l));
      buildIf(b, loc, won, [&](OpBuilder &b) {
        memref::StoreOp::create(b, loc, update(b), c.out, ValueRange{at});
      });
    });
  });
  // 4. The floats of the keys.
  if (c.keys)
    buildElementLaunch(b, loc, total, threads, [&](OpBuilder &b, Value i) {
      Value key = memref::LoadOp::create(b, loc, c.keys, ValueRange{i});
      memref::StoreOp::create(
          b, loc,
          floatOfKey(b, loc, key,
                     cast<FloatType>(
                         cast<MemRefType>(c.out.getType()).getElementType())),
          c.out, ValueRange{i});
    });
  return success();
}
