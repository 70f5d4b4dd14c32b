//===- GpuLaunchToCpu.cpp - --sift-gpu-launch-to-cpu ----------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Executes a gpu.launch on the CPU, so that the logic of sift's kernels (their
// barriers, shuffles and warp reductions) runs and is checked on machines
// without a GPU:
//
// - the blocks are an scf.parallel; workgroup memory is an alloca per block,
//   the stack restored when the block ends;
// - the threads of a block are sequential scf.for loops over the linear
//   thread id, split at every synchronization point: a gpu.barrier ends a
//   loop, and a warp exchange (gpu.shuffle, gpu.subgroup_reduce) is one loop
//   that writes each thread's operand to a per-thread buffer and a second
//   one that reads the lanes it names;
// - a value defined in one loop and used in a later one lives in a
//   per-thread buffer (side-effect free ops are recomputed instead);
// - an scf.for containing a synchronization point runs at the block level
//   (its bounds must be block-uniform), its iteration arguments per thread
//   in buffers; an scf.if containing one becomes a guard of each thread loop
//   inside it (or a block-level scf.if when its condition is uniform).
//
// Shuffles follow PTX `shfl.sync` as --sift-gpu-pipeline emits it (32 lanes,
// the clamp of `gpu.shuffle`'s width, the low 5 bits of the offset, a lane
// out of range reads its own value with `valid` false). Subgroup reductions
// are first expanded into the same shuffle butterflies as on the GPU, so
// float reductions add in the same order.
//
//===----------------------------------------------------------------------===//

#include "sift/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTGPULAUNCHTOCPU
#include "sift/Conversion/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

static constexpr int64_t kWarpSize = 32;

/// A point where the threads of a block exchange data.
static bool isSyncOp(Operation *op) {
  return isa<gpu::BarrierOp, gpu::ShuffleOp, gpu::SubgroupReduceOp>(op);
}

static bool containsSync(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isSyncOp(nested) ? WalkResult::interrupt()
                                : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Types a per-thread buffer can hold.
static bool isStorable(Type type) {
  return type.isIntOrIndexOrFloat() || isa<VectorType>(type);
}

/// The memref type without a `#gpu.address_space` memory space.
static Type stripGpuAddressSpace(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref ||
      !isa_and_nonnull<gpu::AddressSpaceAttr>(memref.getMemorySpace()))
    return type;
  return MemRefType::get(memref.getShape(), memref.getElementType(),
                         memref.getLayout());
}

/// `x op y` for the reductions of `gpu.subgroup_reduce`.
static Value combine(OpBuilder &b, Location loc, gpu::AllReduceOperation kind,
                     Value x, Value y) {
  using K = gpu::AllReduceOperation;
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(x.getType()));
  switch (kind) {
  case K::ADD:
    return isFloat ? Value(arith::AddFOp::create(b, loc, x, y))
                   : Value(arith::AddIOp::create(b, loc, x, y));
  case K::MUL:
    return isFloat ? Value(arith::MulFOp::create(b, loc, x, y))
                   : Value(arith::MulIOp::create(b, loc, x, y));
  case K::MINUI:
    return arith::MinUIOp::create(b, loc, x, y);
  case K::MINSI:
    return arith::MinSIOp::create(b, loc, x, y);
  case K::MAXUI:
    return arith::MaxUIOp::create(b, loc, x, y);
  case K::MAXSI:
    return arith::MaxSIOp::create(b, loc, x, y);
  case K::AND:
    return arith::AndIOp::create(b, loc, x, y);
  case K::OR:
    return arith::OrIOp::create(b, loc, x, y);
  case K::XOR:
    return arith::XOrIOp::create(b, loc, x, y);
  case K::MINNUMF:
    return arith::MinNumFOp::create(b, loc, x, y);
  case K::MAXNUMF:
    return arith::MaxNumFOp::create(b, loc, x, y);
  case K::MINIMUMF:
    return arith::MinimumFOp::create(b, loc, x, y);
  case K::MAXIMUMF:
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  llvm_unreachable("unknown reduction");
}

namespace {

/// The values of one thread loop: the source values already available in it
/// and the loop's linear thread id.
struct ThreadLoop {
  IRMapping map;
  Value t;
};

/// Lowers one gpu.launch.
class LaunchLowering {
public:
  LaunchLowering(gpu::LaunchOp launch, bool restoreStack)
      : launch(launch), restoreStack(restoreStack) {}

  LogicalResult run();

private:
  gpu::LaunchOp launch;
  bool restoreStack;
  Location loc = launch.getLoc();
  /// Inserts the per-block buffers (start of the scf.parallel body).
  OpBuilder allocBuilder{launch.getContext()};
  Value numThreads;
  std::optional<int64_t> staticNumThreads;
  Value blockSize[3];
  /// Block-level values: uniform over the threads of a block.
  IRMapping uniform;
  /// Per-thread buffers of source values (memref<T x type>).
  DenseMap<Value, Value> spills;
  /// Where each source value was made in a thread loop: the clone and the
  /// loop's thread id.
  DenseMap<Value, std::pair<Value, Value>> threadDefs;
  /// The conditions (source values, negated) of the enclosing scf.if ops
  /// that hold synchronization points.
  SmallVector<std::pair<Value, bool>> guards;
  LogicalResult status = success();

  bool isInLaunch(Value v) {
    Region *region = v.getParentRegion();
    return region && launch.getBody().isAncestor(region);
  }
  bool isUniform(Value v) { return !isInLaunch(v) || uniform.contains(v); }

  Value perThreadBuffer(Type type);
  Value resolve(Value v, ThreadLoop &loop, OpBuilder &b);
  void resolveAll(Operation *op, ThreadLoop &loop, OpBuilder &b);
  void emitThreadLoop(OpBuilder &b,
                      function_ref<void(OpBuilder &, ThreadLoop &)> body);
  void flush(SmallVectorImpl<Operation *> &segment, OpBuilder &b);
  LogicalResult lowerBlock(Block &block, OpBuilder &b);
  void lowerExchange(Operation *op, OpBuilder &b);
  LogicalResult lowerFor(scf::ForOp forOp, OpBuilder &b);
  LogicalResult lowerIf(scf::IfOp ifOp, OpBuilder &b);
  void storeYield(Operation *yield, ArrayRef<Value> buffers, OpBuilder &b);
};
} // namespace

Value LaunchLowering::perThreadBuffer(Type type) {
  if (staticNumThreads)
    return memref::AllocaOp::create(allocBuilder, loc,
                                    MemRefType::get({*staticNumThreads}, type));
  return memref::AllocaOp::create(allocBuilder, loc,
                                  MemRefType::get({ShapedType::kDynamic}, type),
                                  ValueRange{numThreads});
}

/// The value of source value `v` in thread loop `loop`, made available at
/// `b`'s insertion point: a block-level value, a value of this loop, a
/// recomputation of a side-effect free op, or a load of its per-thread
/// buffer (created on first need, with a store where `v` was made).
Value LaunchLowering::resolve(Value v, ThreadLoop &loop, OpBuilder &b) {
  if (Value mapped = loop.map.lookupOrNull(v))
    return mapped;
  if (!isInLaunch(v))
    return v;
  if (Value mapped = uniform.lookupOrNull(v)) {
    loop.map.map(v, mapped);
    return mapped;
  }
  auto spill = spills.find(v);
  if (spill == spills.end()) {
    auto def = threadDefs.find(v);
    if (def == threadDefs.end()) {
      if (succeeded(status))
        emitError(v.getLoc(), "sift-gpu-launch-to-cpu: a value of the kernel "
                              "is used where it is not available");
      status = failure();
      return v;
    }
    Operation *op = v.getDefiningOp();
    if (op && !isSyncOp(op) && op->getNumRegions() == 0 &&
        isMemoryEffectFree(op)) {
      // Recompute it here.
      resolveAll(op, loop, b);
      Operation *clone = b.clone(*op, loop.map);
      for (auto [from, to] : llvm::zip(op->getResults(), clone->getResults()))
        loop.map.map(from, to);
      return loop.map.lookup(v);
    }
    if (!isStorable(v.getType())) {
      if (succeeded(status))
        emitError(v.getLoc(), "sift-gpu-launch-to-cpu: a value of type ")
            << v.getType()
            << " is used across a barrier or a warp exchange; only scalars "
               "and vectors can be kept per thread";
      status = failure();
      return v;
    }
    auto [made, madeThread] = def->second;
    Value buffer = perThreadBuffer(v.getType());
    OpBuilder store(b.getContext());
    store.setInsertionPointAfterValue(made);
    memref::StoreOp::create(store, loc, made, buffer, ValueRange{madeThread});
    spill = spills.try_emplace(v, buffer).first;
  }
  Value loaded =
      memref::LoadOp::create(b, loc, spill->second, ValueRange{loop.t});
  loop.map.map(v, loaded);
  return loaded;
}

/// Makes every value `op` (and its regions) uses from outside available.
void LaunchLowering::resolveAll(Operation *op, ThreadLoop &loop, OpBuilder &b) {
  for (Value operand : op->getOperands())
    resolve(operand, loop, b);
  SetVector<Value> above;
  for (Region &region : op->getRegions())
    getUsedValuesDefinedAbove(region, above);
  for (Value v : above)
    resolve(v, loop, b);
}

/// `for t in [0, T)`, inside the guards, with the thread ids of `t`.
void LaunchLowering::emitThreadLoop(
    OpBuilder &b, function_ref<void(OpBuilder &, ThreadLoop &)> body) {
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  auto forOp = scf::ForOp::create(b, loc, c0, numThreads, c1);
  OpBuilder inner = OpBuilder::atBlockBegin(forOp.getBody());
  ThreadLoop loop;
  loop.t = forOp.getInductionVar();
  // t = x + bx * (y + by * z)
  Value x = arith::RemUIOp::create(inner, loc, loop.t, blockSize[0]);
  Value yz = arith::DivUIOp::create(inner, loc, loop.t, blockSize[0]);
  Value y = arith::RemUIOp::create(inner, loc, yz, blockSize[1]);
  Value z = arith::DivUIOp::create(inner, loc, yz, blockSize[1]);
  gpu::KernelDim3 ids = launch.getThreadIds();
  loop.map.map(ids.x, x);
  loop.map.map(ids.y, y);
  loop.map.map(ids.z, z);
  for (auto [cond, negated] : guards) {
    Value value = resolve(cond, loop, inner);
    if (negated)
      value = arith::XOrIOp::create(
          inner, loc, value,
          arith::ConstantIntOp::create(inner, loc, inner.getI1Type(), 1));
    auto ifOp = scf::IfOp::create(inner, loc, value, /*withElse=*/false);
    inner.setInsertionPointToStart(ifOp.thenBlock());
  }
  body(inner, loop);
}

/// One thread loop running the ops of `segment` (none synchronizes);
/// block-uniform side-effect free ops are computed once, before it.
void LaunchLowering::flush(SmallVectorImpl<Operation *> &segment,
                           OpBuilder &b) {
  if (segment.empty())
    return;
  SmallVector<Operation *> perThread;
  for (Operation *op : segment) {
    if (op->getNumRegions() == 0 && isPure(op) &&
        llvm::all_of(op->getOperands(),
                     [&](Value v) { return isUniform(v); })) {
      Operation *clone = b.clone(*op, uniform);
      for (auto [from, to] : llvm::zip(op->getResults(), clone->getResults()))
        uniform.map(from, to);
      continue;
    }
    perThread.push_back(op);
  }
  segment.clear();
  if (perThread.empty())
    return;
  emitThreadLoop(b, [&](OpBuilder &inner, ThreadLoop &loop) {
    for (Operation *op : perThread) {
      resolveAll(op, loop, inner);
      Operation *clone = inner.clone(*op, loop.map);
      for (auto [from, to] : llvm::zip(op->getResults(), clone->getResults()))
        threadDefs[from] = {to, loop.t};
    }
  });
}

LogicalResult LaunchLowering::lowerBlock(Block &block, OpBuilder &b) {
  SmallVector<Operation *> segment;
  for (Operation &op : block.without_terminator()) {
    if (!isSyncOp(&op) && !containsSync(&op)) {
      segment.push_back(&op);
      continue;
    }
    flush(segment, b);
    if (isa<gpu::BarrierOp>(op))
      continue; // the thread loops before it have ended
    if (isa<gpu::ShuffleOp, gpu::SubgroupReduceOp>(op)) {
      lowerExchange(&op, b);
      continue;
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      if (failed(lowerFor(forOp, b)))
        return failure();
      continue;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      if (failed(lowerIf(ifOp, b)))
        return failure();
      continue;
    }
    return op.emitOpError(
        "holds a gpu.barrier or a warp exchange; the CPU execution of a "
        "gpu.launch (sift-gpu-launch-to-cpu) splits threads only at the top "
        "level of the launch body, in scf.for loops with block-uniform "
        "bounds and in scf.if");
  }
  flush(segment, b);
  return status;
}

/// A warp exchange: every thread writes its operand, then every thread
/// reads the lanes the op names.
void LaunchLowering::lowerExchange(Operation *op, OpBuilder &b) {
  Value operand = op->getOperand(0);
  Type type = operand.getType();
  Value exchange = perThreadBuffer(type);
  emitThreadLoop(b, [&](OpBuilder &inner, ThreadLoop &loop) {
    memref::StoreOp::create(inner, loc, resolve(operand, loop, inner), exchange,
                            ValueRange{loop.t});
  });
  emitThreadLoop(b, [&](OpBuilder &ib, ThreadLoop &loop) {
    Type i32 = ib.getI32Type();
    auto cI32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(ib, loc, i32, v);
    };
    Value warpSize = arith::ConstantIndexOp::create(ib, loc, kWarpSize);
    Value laneIndex = arith::RemUIOp::create(ib, loc, loop.t, warpSize);
    Value warpBase = arith::SubIOp::create(ib, loc, loop.t, laneIndex);
    Value lane = arith::IndexCastUIOp::create(ib, loc, i32, laneIndex);
    // The value of lane `j` (i32) of this warp; a thread past the block
    // (a partial last warp) reads its own value.
    auto readLane = [&](Value j) -> Value {
      Value src = arith::AddIOp::create(
          ib, loc, warpBase,
          arith::IndexCastUIOp::create(ib, loc, ib.getIndexType(), j));
      Value inBlock = arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::ult,
                                            src, numThreads);
      src = arith::SelectOp::create(ib, loc, inBlock, src, loop.t);
      return memref::LoadOp::create(ib, loc, exchange, ValueRange{src});
    };
    if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
      // shfl.sync with c = width - 1 (up: 32 - width), segmask 0.
      Value offset = arith::AndIOp::create(
          ib, loc, resolve(shuffle.getOffset(), loop, ib), cI32(31));
      Value width = resolve(shuffle.getWidth(), loop, ib);
      Value j, valid;
      switch (shuffle.getMode()) {
      case gpu::ShuffleMode::UP:
        j = arith::SubIOp::create(ib, loc, lane, offset);
        valid = arith::CmpIOp::create(
            ib, loc, arith::CmpIPredicate::sge, j,
            arith::SubIOp::create(ib, loc, cI32(kWarpSize), width));
        break;
      case gpu::ShuffleMode::DOWN:
        j = arith::AddIOp::create(ib, loc, lane, offset);
        break;
      case gpu::ShuffleMode::XOR:
        j = arith::XOrIOp::create(ib, loc, lane, offset);
        break;
      case gpu::ShuffleMode::IDX:
        j = offset;
        break;
      }
      if (!valid)
        valid = arith::CmpIOp::create(
            ib, loc, arith::CmpIPredicate::sle, j,
            arith::SubIOp::create(ib, loc, width, cI32(1)));
      j = arith::SelectOp::create(ib, loc, valid, j, lane);
      threadDefs[shuffle.getShuffleResult()] = {readLane(j), loop.t};
      threadDefs[shuffle.getValid()] = {valid, loop.t};
      return;
    }
    // A subgroup reduction left after the expansion into shuffles (types
    // the expansion does not take): the lanes of the cluster in order.
    auto reduce = cast<gpu::SubgroupReduceOp>(op);
    int64_t size = reduce.getClusterSize().value_or(kWarpSize);
    int64_t stride = reduce.getClusterStride();
    // base = lane % stride + lane / (size * stride) * (size * stride)
    Value span = cI32(size * stride);
    Value base = arith::AddIOp::create(
        ib, loc, arith::RemUIOp::create(ib, loc, lane, cI32(stride)),
        arith::MulIOp::create(
            ib, loc, arith::DivUIOp::create(ib, loc, lane, span), span));
    Value acc = readLane(base);
    for (int64_t k = 1; k < size; ++k) {
      Value j = arith::AddIOp::create(ib, loc, base, cI32(k * stride));
      acc = combine(ib, loc, reduce.getOp(), acc, readLane(j));
    }
    threadDefs[reduce.getResult()] = {acc, loop.t};
  });
}

/// Stores the operands of `yield` into the per-thread `buffers`.
void LaunchLowering::storeYield(Operation *yield, ArrayRef<Value> buffers,
                                OpBuilder &b) {
  if (buffers.empty())
    return;
  emitThreadLoop(b, [&](OpBuilder &inner, ThreadLoop &loop) {
    // Every operand first: one may be a value of a buffer stored below.
    SmallVector<Value> values;
    for (Value v : yield->getOperands())
      values.push_back(resolve(v, loop, inner));
    for (auto [value, buffer] : llvm::zip(values, buffers))
      memref::StoreOp::create(inner, loc, value, buffer, ValueRange{loop.t});
  });
}

LogicalResult LaunchLowering::lowerFor(scf::ForOp forOp, OpBuilder &b) {
  for (Value bound :
       {forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep()})
    if (!isUniform(bound))
      return forOp.emitOpError(
          "holds a gpu.barrier or a warp exchange but its bounds are not "
          "block-uniform (they depend on the thread); the CPU execution of "
          "a gpu.launch cannot split it");
  SmallVector<Value> buffers;
  for (Value init : forOp.getInitArgs()) {
    if (!isStorable(init.getType()))
      return forOp.emitOpError("holds a gpu.barrier or a warp exchange and "
                               "carries a value of type ")
             << init.getType() << "; only scalars and vectors are supported";
    buffers.push_back(perThreadBuffer(init.getType()));
  }
  if (!buffers.empty())
    emitThreadLoop(b, [&](OpBuilder &inner, ThreadLoop &loop) {
      for (auto [init, buffer] : llvm::zip(forOp.getInitArgs(), buffers))
        memref::StoreOp::create(inner, loc, resolve(init, loop, inner), buffer,
                                ValueRange{loop.t});
    });
  for (auto [arg, buffer] : llvm::zip(forOp.getRegionIterArgs(), buffers))
    spills[arg] = buffer;
  auto newFor = scf::ForOp::create(
      b, forOp.getLoc(), uniform.lookupOrDefault(forOp.getLowerBound()),
      uniform.lookupOrDefault(forOp.getUpperBound()),
      uniform.lookupOrDefault(forOp.getStep()));
  uniform.map(forOp.getInductionVar(), newFor.getInductionVar());
  OpBuilder body = OpBuilder::atBlockBegin(newFor.getBody());
  if (failed(lowerBlock(*forOp.getBody(), body)))
    return failure();
  storeYield(forOp.getBody()->getTerminator(), buffers, body);
  for (auto [result, buffer] : llvm::zip(forOp.getResults(), buffers))
    spills[result] = buffer;
  return status;
}

LogicalResult LaunchLowering::lowerIf(scf::IfOp ifOp, OpBuilder &b) {
  SmallVector<Value> buffers;
  for (Type type : ifOp.getResultTypes()) {
    if (!isStorable(type))
      return ifOp.emitOpError("holds a gpu.barrier or a warp exchange and "
                              "yields a value of type ")
             << type << "; only scalars and vectors are supported";
    buffers.push_back(perThreadBuffer(type));
  }
  Value cond = ifOp.getCondition();
  auto lowerBranch = [&](Region &region, OpBuilder &builder) {
    if (region.empty())
      return success();
    if (failed(lowerBlock(region.front(), builder)))
      return failure();
    storeYield(region.front().getTerminator(), buffers, builder);
    return status;
  };
  if (isUniform(cond)) {
    // The whole block takes the same branch.
    auto newIf =
        scf::IfOp::create(b, ifOp.getLoc(), uniform.lookupOrDefault(cond),
                          /*withElse=*/!ifOp.getElseRegion().empty());
    OpBuilder thenBuilder = OpBuilder::atBlockBegin(newIf.thenBlock());
    if (failed(lowerBranch(ifOp.getThenRegion(), thenBuilder)))
      return failure();
    if (!ifOp.getElseRegion().empty()) {
      OpBuilder elseBuilder = OpBuilder::atBlockBegin(newIf.elseBlock());
      if (failed(lowerBranch(ifOp.getElseRegion(), elseBuilder)))
        return failure();
    }
  } else {
    // Each thread loop inside runs the threads whose condition holds.
    guards.push_back({cond, false});
    if (failed(lowerBranch(ifOp.getThenRegion(), b)))
      return failure();
    guards.back().second = true;
    if (failed(lowerBranch(ifOp.getElseRegion(), b)))
      return failure();
    guards.pop_back();
  }
  for (auto [result, buffer] : llvm::zip(ifOp.getResults(), buffers))
    spills[result] = buffer;
  return status;
}

LogicalResult LaunchLowering::run() {
  if (!launch.getBody().hasOneBlock())
    return launch.emitOpError("sift-gpu-launch-to-cpu: the launch body must "
                              "be a single block");
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitOpError(
        "sift-gpu-launch-to-cpu: asynchronous launches are not supported");
  if (launch.hasClusterSize())
    return launch.emitOpError(
        "sift-gpu-launch-to-cpu: clusters are not supported");
  if (launch.getDynamicSharedMemorySize())
    return launch.emitOpError("sift-gpu-launch-to-cpu: dynamic shared memory "
                              "is not supported");
  if (launch.getNumPrivateAttributions() != 0)
    return launch.emitOpError("sift-gpu-launch-to-cpu: private attributions "
                              "are not supported");
  for (BlockArgument arg : launch.getWorkgroupAttributions())
    if (!cast<MemRefType>(arg.getType()).hasStaticShape())
      return launch.emitOpError("sift-gpu-launch-to-cpu: a workgroup buffer "
                                "must have a static shape");
  WalkResult unsupported = launch.getBody().walk([&](Operation *op) {
    if (isa<gpu::GPUDialect>(op->getDialect()) &&
        !isa<gpu::BarrierOp, gpu::ShuffleOp, gpu::SubgroupReduceOp,
             gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp,
             gpu::LaneIdOp, gpu::SubgroupIdOp, gpu::SubgroupSizeOp,
             gpu::NumSubgroupsOp, gpu::TerminatorOp>(op)) {
      op->emitOpError("is not supported by the CPU execution of a gpu.launch "
                      "(sift-gpu-launch-to-cpu)");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (unsupported.wasInterrupted())
    return failure();

  // The ids and sizes in terms of the launch's block arguments.
  gpu::KernelDim3 tids = launch.getThreadIds(), bids = launch.getBlockIds(),
                  bdims = launch.getBlockSize(), gdims = launch.getGridSize();
  auto dim = [](gpu::KernelDim3 d, gpu::Dimension which) -> Value {
    return which == gpu::Dimension::x   ? d.x
           : which == gpu::Dimension::y ? d.y
                                        : d.z;
  };
  SmallVector<Operation *> idOps;
  launch.getBody().walk([&](Operation *op) {
    if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp,
            gpu::LaneIdOp, gpu::SubgroupIdOp, gpu::SubgroupSizeOp,
            gpu::NumSubgroupsOp>(op))
      idOps.push_back(op);
  });
  for (Operation *op : idOps) {
    OpBuilder b(op);
    Value replacement;
    auto linear = [&]() -> Value {
      Value yz = arith::AddIOp::create(
          b, loc, tids.y, arith::MulIOp::create(b, loc, bdims.y, tids.z));
      return arith::AddIOp::create(b, loc, tids.x,
                                   arith::MulIOp::create(b, loc, bdims.x, yz));
    };
    Value warp = arith::ConstantIndexOp::create(b, loc, kWarpSize);
    if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      replacement = dim(tids, id.getDimension());
    else if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      replacement = dim(bids, id.getDimension());
    else if (auto id = dyn_cast<gpu::BlockDimOp>(op))
      replacement = dim(bdims, id.getDimension());
    else if (auto id = dyn_cast<gpu::GridDimOp>(op))
      replacement = dim(gdims, id.getDimension());
    else if (isa<gpu::LaneIdOp>(op))
      replacement = arith::RemUIOp::create(b, loc, linear(), warp);
    else if (isa<gpu::SubgroupIdOp>(op))
      replacement = arith::DivUIOp::create(b, loc, linear(), warp);
    else if (isa<gpu::SubgroupSizeOp>(op))
      replacement = warp;
    else
      replacement = arith::DivUIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(
                  b, loc, bdims.x,
                  arith::MulIOp::create(b, loc, bdims.y, bdims.z)),
              arith::ConstantIndexOp::create(b, loc, kWarpSize - 1)),
          warp);
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }

  OpBuilder b(launch);
  blockSize[0] = launch.getBlockSizeX();
  blockSize[1] = launch.getBlockSizeY();
  blockSize[2] = launch.getBlockSizeZ();
  numThreads = arith::MulIOp::create(
      b, loc, blockSize[0],
      arith::MulIOp::create(b, loc, blockSize[1], blockSize[2]));
  std::optional<int64_t> x = getConstantIntValue(blockSize[0]),
                         y = getConstantIntValue(blockSize[1]),
                         z = getConstantIntValue(blockSize[2]);
  if (x && y && z)
    staticNumThreads = *x * *y * *z;
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  auto blocks = scf::ParallelOp::create(b, loc, ValueRange{c0, c0, c0},
                                        ValueRange{launch.getGridSizeX(),
                                                   launch.getGridSizeY(),
                                                   launch.getGridSizeZ()},
                                        ValueRange{c1, c1, c1});
  OpBuilder body = OpBuilder::atBlockBegin(blocks.getBody());
  // With restore-stack, a block's allocas live as long as the block: the
  // stack is saved when it starts and restored when it ends (what
  // memref.alloca_scope lowers to, which cannot stay inside a loop that
  // becomes branches). Blocks run in a plain loop would otherwise grow the
  // stack by their buffers each.
  Value stack;
  if (restoreStack)
    stack = LLVM::StackSaveOp::create(
        body, loc, LLVM::LLVMPointerType::get(body.getContext()));
  // The per-block buffers go before this first op, the code after it.
  Operation *anchor = arith::ConstantIndexOp::create(body, loc, 0);
  allocBuilder.setInsertionPoint(anchor);
  uniform.map(bids.x, blocks.getInductionVars()[0]);
  uniform.map(bids.y, blocks.getInductionVars()[1]);
  uniform.map(bids.z, blocks.getInductionVars()[2]);
  uniform.map(bdims.x, blockSize[0]);
  uniform.map(bdims.y, blockSize[1]);
  uniform.map(bdims.z, blockSize[2]);
  uniform.map(gdims.x, launch.getGridSizeX());
  uniform.map(gdims.y, launch.getGridSizeY());
  uniform.map(gdims.z, launch.getGridSizeZ());
  // Workgroup memory: one buffer per block.
  for (BlockArgument arg : launch.getWorkgroupAttributions())
    uniform.map(arg,
                memref::AllocaOp::create(
                    allocBuilder, loc,
                    cast<MemRefType>(stripGpuAddressSpace(arg.getType()))));
  // The body after the buffers.
  body.setInsertionPoint(blocks.getBody()->getTerminator());
  if (failed(lowerBlock(launch.getBody().front(), body)))
    return failure();
  if (restoreStack)
    LLVM::StackRestoreOp::create(body, loc, stack);

  // Workgroup memory is ordinary memory on the CPU.
  blocks.walk([](Operation *op) {
    for (Value result : op->getResults())
      result.setType(stripGpuAddressSpace(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(stripGpuAddressSpace(arg.getType()));
  });
  blocks.walk([](memref::MemorySpaceCastOp cast) {
    if (cast.getSource().getType() == cast.getType()) {
      cast.replaceAllUsesWith(cast.getSource());
      cast.erase();
    }
  });
  launch.erase();
  return success();
}

namespace {
struct GpuLaunchToCpuPass
    : public sift::impl::SiftGpuLaunchToCpuBase<GpuLaunchToCpuPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // Subgroup reductions become the shuffle butterflies the GPU runs.
    RewritePatternSet patterns(context);
    populateGpuBreakDownSubgroupReducePatterns(patterns,
                                               /*maxShuffleBitwidth=*/32);
    populateGpuLowerSubgroupReduceToShufflePatterns(patterns, kWarpSize);
    populateGpuLowerClusteredSubgroupReduceToShufflePatterns(patterns,
                                                             kWarpSize);
    SmallVector<Operation *> reductions;
    getOperation()->walk([&](gpu::SubgroupReduceOp op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        reductions.push_back(op);
    });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    (void)applyOpPatternsGreedily(reductions, std::move(patterns), config);

    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk([&](gpu::LaunchOp op) { launches.push_back(op); });
    for (gpu::LaunchOp launch : launches) {
      if (launch->getParentOfType<gpu::LaunchOp>())
        continue;
      if (failed(LaunchLowering(launch, restoreStack).run()))
        return signalPassFailure();
    }
    if (failed(deviceMemoryToHost()))
      return signalPassFailure();
  }

  /// The device's memory is the host's: gpu.alloc, gpu.dealloc and
  /// gpu.memcpy of host code become memref.alloc, memref.dealloc and
  /// memref.copy.
  LogicalResult deviceMemoryToHost() {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp>(op) &&
          !op->getParentOfType<gpu::GPUModuleOp>())
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      auto async = cast<gpu::AsyncOpInterface>(op);
      if (!async.getAsyncDependencies().empty() || async.getAsyncToken())
        return op->emitOpError("is asynchronous: not supported by the CPU "
                               "execution (sift-gpu-launch-to-cpu)");
      OpBuilder b(op);
      if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
        if (alloc.getHostShared() || !alloc.getSymbolOperands().empty())
          return op->emitOpError("is host-shared or aligned by symbols: not "
                                 "supported by the CPU execution "
                                 "(sift-gpu-launch-to-cpu)");
        Value host = memref::AllocOp::create(b, op->getLoc(), alloc.getType(),
                                             alloc.getDynamicSizes());
        alloc.getMemref().replaceAllUsesWith(host);
      } else if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
        memref::DeallocOp::create(b, op->getLoc(), dealloc.getMemref());
      } else {
        auto copy = cast<gpu::MemcpyOp>(op);
        memref::CopyOp::create(b, op->getLoc(), copy.getSrc(), copy.getDst());
      }
      op->erase();
    }
    return success();
  }
};
} // namespace
