//===- BlockPrimitives.cpp - Warp and block primitives of kernels ---------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Conversion/SiftToGPU/BlockPrimitives.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::gpu_prims;

static Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

MemRefType gpu_prims::workgroupBufferType(ArrayRef<int64_t> shape,
                                          Type elementType) {
  MLIRContext *context = elementType.getContext();
  auto space = gpu::AddressSpaceAttr::get(
      context, gpu::GPUDialect::getWorkgroupAddressSpace());
  return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                         space);
}

Value gpu_prims::identity(OpBuilder &b, Location loc,
                          gpu::AllReduceOperation kind, Type type) {
  assert((kind == gpu::AllReduceOperation::ADD ||
          kind == gpu::AllReduceOperation::OR) &&
         "only add and or have an identity here");
  (void)kind;
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0.0));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
}

Value gpu_prims::combine(OpBuilder &b, Location loc,
                         gpu::AllReduceOperation kind, Value x, Value y) {
  switch (kind) {
  case gpu::AllReduceOperation::ADD:
    if (isa<FloatType>(x.getType()))
      return arith::AddFOp::create(b, loc, x, y);
    return arith::AddIOp::create(b, loc, x, y);
  case gpu::AllReduceOperation::OR:
    return arith::OrIOp::create(b, loc, x, y);
  default:
    llvm_unreachable("only add and or are combined here");
  }
}

Value gpu_prims::laneId(OpBuilder &b, Location loc) {
  Value lane = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
  return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), lane);
}

Value gpu_prims::linearThreadId(OpBuilder &b, Location loc) {
  Value x = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value y = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
  Value z = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::z);
  Value dx = gpu::BlockDimOp::create(b, loc, gpu::Dimension::x);
  Value dy = gpu::BlockDimOp::create(b, loc, gpu::Dimension::y);
  // x + dx * (y + dy * z)
  Value yz =
      arith::AddIOp::create(b, loc, y, arith::MulIOp::create(b, loc, dy, z));
  return arith::AddIOp::create(b, loc, x,
                               arith::MulIOp::create(b, loc, dx, yz));
}

Value gpu_prims::warpId(OpBuilder &b, Location loc) {
  return arith::DivUIOp::create(
      b, loc, linearThreadId(b, loc),
      arith::ConstantIndexOp::create(b, loc, kWarpSize));
}

Value gpu_prims::warpReduce(OpBuilder &b, Location loc, Value value,
                            gpu::AllReduceOperation kind) {
  // The butterfly upstream expands gpu.subgroup_reduce into, written out:
  // gpu.shuffle is side-effect free, which bufferization and deallocation
  // require of every op of a function (gpu.subgroup_reduce declares no
  // effects).
  Value width = constI32(b, loc, kWarpSize);
  Value acc = value;
  for (int64_t step = 1; step < kWarpSize; step *= 2) {
    Value other = gpu::ShuffleOp::create(b, loc, acc, constI32(b, loc, step),
                                         width, gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    acc = combine(b, loc, kind, acc, other);
  }
  return acc;
}

std::pair<Value, Value> gpu_prims::warpScan(OpBuilder &b, Location loc,
                                            Value value,
                                            gpu::AllReduceOperation kind) {
  Value width = constI32(b, loc, kWarpSize);
  Value acc = value;
  for (int64_t step = 1; step < kWarpSize; step *= 2) {
    auto shuffle = gpu::ShuffleOp::create(b, loc, acc, constI32(b, loc, step),
                                          width, gpu::ShuffleMode::UP);
    Value sum = combine(b, loc, kind, shuffle.getShuffleResult(), acc);
    acc = arith::SelectOp::create(b, loc, shuffle.getValid(), sum, acc);
  }
  auto shifted = gpu::ShuffleOp::create(b, loc, acc, constI32(b, loc, 1), width,
                                        gpu::ShuffleMode::UP);
  Value exclusive = arith::SelectOp::create(
      b, loc, shifted.getValid(), shifted.getShuffleResult(),
      identity(b, loc, kind, value.getType()));
  return {acc, exclusive};
}

Value gpu_prims::warpBroadcast(OpBuilder &b, Location loc, Value value,
                               Value lane) {
  return gpu::ShuffleOp::create(b, loc, value, lane,
                                constI32(b, loc, kWarpSize),
                                gpu::ShuffleMode::IDX)
      .getShuffleResult();
}

Value gpu_prims::warpBallot(OpBuilder &b, Location loc, Value pred) {
  Value bit =
      arith::ShLIOp::create(b, loc, constI32(b, loc, 1), laneId(b, loc));
  Value mine = arith::SelectOp::create(b, loc, pred, bit, constI32(b, loc, 0));
  return warpReduce(b, loc, mine, gpu::AllReduceOperation::OR);
}

Value gpu_prims::popCount(OpBuilder &b, Location loc, Value x) {
  return math::CtPopOp::create(b, loc, x);
}

/// `scratch[lane]` for the lanes below `numWarps`, the identity above.
static Value loadWarpPartial(OpBuilder &b, Location loc, Value scratch,
                             Value lane, int64_t numWarps,
                             gpu::AllReduceOperation kind, Type type) {
  Value lastWarp = constI32(b, loc, numWarps - 1);
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, lane, lastWarp);
  Value clamped = arith::MinUIOp::create(b, loc, lane, lastWarp);
  Value index = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), clamped);
  Value partial = memref::LoadOp::create(b, loc, scratch, ValueRange{index});
  return arith::SelectOp::create(b, loc, inRange, partial,
                                 identity(b, loc, kind, type));
}

/// `if (lane == writer) scratch[warp] = value`
static void storeWarpPartial(OpBuilder &b, Location loc, Value scratch,
                             Value value, Value lane, int64_t writer) {
  Value isWriter = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                         constI32(b, loc, writer));
  auto ifOp = scf::IfOp::create(b, loc, isWriter, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  memref::StoreOp::create(b, loc, value, scratch, ValueRange{warpId(b, loc)});
}

/// The exclusive scan across the warps of each warp's `partial` (written
/// by lane `writer` of its warp), through `scratch`: what the warps before
/// this thread's warp hold together, and the block's total. Ends with a
/// barrier, so the scratch can be used again.
static std::pair<Value, Value> scanAcrossWarps(OpBuilder &b, Location loc,
                                               Value scratch, Value partial,
                                               Value lane, int64_t writer,
                                               int64_t numWarps,
                                               gpu::AllReduceOperation kind) {
  storeWarpPartial(b, loc, scratch, partial, lane, writer);
  gpu::BarrierOp::create(b, loc);
  Value loaded =
      loadWarpPartial(b, loc, scratch, lane, numWarps, kind, partial.getType());
  auto [warpsInclusive, warpsExclusive] = warpScan(b, loc, loaded, kind);
  Value warp =
      arith::IndexCastUIOp::create(b, loc, b.getI32Type(), warpId(b, loc));
  Value before = warpBroadcast(b, loc, warpsExclusive, warp);
  Value total =
      warpBroadcast(b, loc, warpsInclusive, constI32(b, loc, numWarps - 1));
  gpu::BarrierOp::create(b, loc);
  return {before, total};
}

Value gpu_prims::blockReduce(OpBuilder &b, Location loc, Value value,
                             gpu::AllReduceOperation kind, Value scratch,
                             int64_t numWarps) {
  Value warpTotal = warpReduce(b, loc, value, kind);
  if (numWarps == 1)
    return warpTotal;
  Value lane = laneId(b, loc);
  storeWarpPartial(b, loc, scratch, warpTotal, lane, /*writer=*/0);
  gpu::BarrierOp::create(b, loc);
  Value partial =
      loadWarpPartial(b, loc, scratch, lane, numWarps, kind, value.getType());
  Value total = warpReduce(b, loc, partial, kind);
  gpu::BarrierOp::create(b, loc);
  return total;
}

BlockScan gpu_prims::blockScan(OpBuilder &b, Location loc, Value value,
                               gpu::AllReduceOperation kind, Value scratch,
                               int64_t numWarps) {
  auto [inclusive, exclusive] = warpScan(b, loc, value, kind);
  if (numWarps == 1) {
    Value total =
        warpBroadcast(b, loc, inclusive, constI32(b, loc, kWarpSize - 1));
    return {inclusive, exclusive, total};
  }
  // The last lane's inclusive value is its warp's total.
  auto [before, total] =
      scanAcrossWarps(b, loc, scratch, inclusive, laneId(b, loc),
                      /*writer=*/kWarpSize - 1, numWarps, kind);
  return {combine(b, loc, kind, before, inclusive),
          combine(b, loc, kind, before, exclusive), total};
}

BallotScan gpu_prims::blockBallotScan(OpBuilder &b, Location loc, Value pred,
                                      Value scratch, int64_t numWarps) {
  Value ballot = warpBallot(b, loc, pred);
  Value lane = laneId(b, loc);
  // (1 << lane) - 1: the lanes below this one.
  Value below = arith::SubIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, constI32(b, loc, 1), lane),
      constI32(b, loc, 1));
  Value rank = popCount(b, loc, arith::AndIOp::create(b, loc, ballot, below));
  Value warpCount = popCount(b, loc, ballot);
  if (numWarps == 1)
    return {rank, warpCount};
  auto [before, total] =
      scanAcrossWarps(b, loc, scratch, warpCount, lane, /*writer=*/0, numWarps,
                      gpu::AllReduceOperation::ADD);
  return {arith::AddIOp::create(b, loc, before, rank), total};
}

SmallVector<Value> gpu_prims::warpReduceTuple(OpBuilder &b, Location loc,
                                              ValueRange values,
                                              TupleCombiner combiner,
                                              int64_t groupSize) {
  assert(groupSize >= 1 && groupSize <= kWarpSize &&
         llvm::isPowerOf2_64(groupSize) && "a group is a power of two lanes");
  // xor with an offset below the group's size stays inside the group.
  Value width = constI32(b, loc, kWarpSize);
  SmallVector<Value> acc(values);
  for (int64_t step = 1; step < groupSize; step *= 2) {
    SmallVector<Value> other;
    for (Value v : acc)
      other.push_back(gpu::ShuffleOp::create(b, loc, v, constI32(b, loc, step),
                                             width, gpu::ShuffleMode::XOR)
                          .getShuffleResult());
    acc = combiner(b, loc, acc, other);
  }
  return acc;
}

SmallVector<Value>
gpu_prims::blockReduceTuple(OpBuilder &b, Location loc, ValueRange values,
                            TupleCombiner combiner, ValueRange identities,
                            ValueRange scratch, int64_t numWarps) {
  assert(values.size() == identities.size() &&
         values.size() == scratch.size() && "one identity and scratch each");
  SmallVector<Value> warpTotal = warpReduceTuple(b, loc, values, combiner);
  if (numWarps == 1)
    return warpTotal;
  Value lane = laneId(b, loc);
  for (auto [buffer, value] : llvm::zip_equal(scratch, warpTotal))
    storeWarpPartial(b, loc, buffer, value, lane, /*writer=*/0);
  gpu::BarrierOp::create(b, loc);
  // scratch[lane] for the lanes below numWarps, the identity above.
  Value lastWarp = constI32(b, loc, numWarps - 1);
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, lane, lastWarp);
  Value index = arith::IndexCastUIOp::create(
      b, loc, b.getIndexType(), arith::MinUIOp::create(b, loc, lane, lastWarp));
  SmallVector<Value> partial;
  for (auto [buffer, init] : llvm::zip_equal(scratch, identities))
    partial.push_back(arith::SelectOp::create(
        b, loc, inRange,
        memref::LoadOp::create(b, loc, buffer, ValueRange{index}), init));
  SmallVector<Value> total = warpReduceTuple(b, loc, partial, combiner);
  gpu::BarrierOp::create(b, loc);
  return total;
}
