//===- GpuMergeLaunches.cpp - --sift-gpu-merge-launches -------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Independent kernels become one launch: a launch moves up to an earlier
// one of the same block shape when nothing between them (kernels or host
// code) touches the buffers it does in a conflicting way, and the two
// bodies run one after the other in each block of the merged launch (a
// body whose grid is smaller than the merged one is guarded by the block
// id, a block-uniform condition). See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "GpuHostCode.h"

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTGPUMERGELAUNCHES
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

/// Whether `a` and `b` are views of one buffer with static offsets, sizes
/// and strides whose index ranges are apart in some dimension (the halves
/// of a concatenation two kernels fill).
bool disjointSubviews(Value a, Value b) {
  auto viewA = a.getDefiningOp<memref::SubViewOp>();
  auto viewB = b.getDefiningOp<memref::SubViewOp>();
  // (Other layouts may map two indices to one element.)
  if (!viewA || !viewB || viewA.getSource() != viewB.getSource() ||
      !viewA.getSourceType().getLayout().isIdentity())
    return false;
  for (auto [offsetA, sizeA, strideA, offsetB, sizeB, strideB] :
       llvm::zip_equal(viewA.getStaticOffsets(), viewA.getStaticSizes(),
                       viewA.getStaticStrides(), viewB.getStaticOffsets(),
                       viewB.getStaticSizes(), viewB.getStaticStrides())) {
    if (ShapedType::isDynamic(offsetA) || ShapedType::isDynamic(sizeA) ||
        ShapedType::isDynamic(strideA) || ShapedType::isDynamic(offsetB) ||
        ShapedType::isDynamic(sizeB) || ShapedType::isDynamic(strideB))
      continue;
    if (sizeA == 0 || sizeB == 0)
      return true;
    int64_t lastA = offsetA + (sizeA - 1) * strideA;
    int64_t lastB = offsetB + (sizeB - 1) * strideB;
    if (lastA < offsetB || lastB < offsetA)
      return true;
  }
  return false;
}

bool anyAlias(const llvm::SetVector<Value> &xs,
              const llvm::SetVector<Value> &ys) {
  for (Value x : xs)
    for (Value y : ys)
      if (!disjointSubviews(x, y) && mayAlias(x, y))
        return true;
  return false;
}

/// Whether running `a` and `b` in either order, or at once, may differ:
/// one writes what the other reads or writes.
bool conflict(const Accesses &a, const Accesses &b) {
  return a.unknown || b.unknown || anyAlias(a.writes, b.reads) ||
         anyAlias(a.writes, b.writes) || anyAlias(a.reads, b.writes);
}

/// The same size: one value, or equal constants.
bool sameSize(Value a, Value b) {
  if (a == b)
    return true;
  std::optional<int64_t> x = getConstantIntValue(a);
  std::optional<int64_t> y = getConstantIntValue(b);
  return x && y && *x == *y;
}

/// Bytes of the kernel's static shared memory.
int64_t sharedBytes(gpu::LaunchOp launch) {
  int64_t bytes = 0;
  for (BlockArgument buffer : launch.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(buffer.getType());
    if (!type.hasStaticShape())
      return std::numeric_limits<int64_t>::max();
    bytes += type.getNumElements() *
             llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  }
  return bytes;
}

/// A launch that can take part: synchronous (the host orders it), one
/// block of code, no dynamic shared memory or clusters.
bool isMergeable(gpu::LaunchOp launch) {
  return !launch.getAsyncToken() && launch.getAsyncDependencies().empty() &&
         !launch.getDynamicSharedMemorySize() && !launch.hasClusterSize() &&
         launch.getBody().hasOneBlock();
}

/// Ops that move up with a launch that uses their results: free of
/// effects but allocation, no regions (a buffer's allocation, its views,
/// constants and scalar arithmetic).
bool isHoistable(Operation *op) {
  if (op->getNumRegions() != 0)
    return false;
  if (isMemoryEffectFree(op))
    return true;
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return false;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  return llvm::all_of(effects, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Allocate>(e.getEffect());
  });
}

class LaunchMerger {
public:
  LaunchMerger(int64_t maxSharedBytes) : maxSharedBytes(maxSharedBytes) {}

  /// Merges the launches of `block` (not those of nested blocks).
  void run(Block &block);

  int64_t numMerged = 0;

private:
  const Accesses &accessesOf(Operation *op) {
    auto it = cache.find(op);
    if (it == cache.end())
      it = cache.try_emplace(op, collectAccesses(op)).first;
    return it->second;
  }

  bool compatible(gpu::LaunchOp a, gpu::LaunchOp b);
  gpu::LaunchOp merge(gpu::LaunchOp into, gpu::LaunchOp from);

  int64_t maxSharedBytes;
  llvm::DenseMap<Operation *, Accesses> cache;
};

} // namespace

bool LaunchMerger::compatible(gpu::LaunchOp a, gpu::LaunchOp b) {
  if (!isMergeable(a) || !isMergeable(b))
    return false;
  gpu::KernelDim3 blockA = a.getBlockSizeOperandValues();
  gpu::KernelDim3 blockB = b.getBlockSizeOperandValues();
  if (!sameSize(blockA.x, blockB.x) || !sameSize(blockA.y, blockB.y) ||
      !sameSize(blockA.z, blockB.z))
    return false;
  // The merged grid covers both: equal sizes, or constants (the larger).
  gpu::KernelDim3 gridA = a.getGridSizeOperandValues();
  gpu::KernelDim3 gridB = b.getGridSizeOperandValues();
  Value sizesA[] = {gridA.x, gridA.y, gridA.z};
  Value sizesB[] = {gridB.x, gridB.y, gridB.z};
  for (auto [x, y] : llvm::zip_equal(sizesA, sizesB))
    if (!sameSize(x, y) && (!getConstantIntValue(x) || !getConstantIntValue(y)))
      return false;
  int64_t sharedA = sharedBytes(a), sharedB = sharedBytes(b);
  return sharedA <= maxSharedBytes && sharedB <= maxSharedBytes - sharedA;
}

/// One launch where `into` is, running the body of `into` and then the
/// body of `from` in each block; a body whose grid is smaller than the
/// merged one runs in its own blocks only.
gpu::LaunchOp LaunchMerger::merge(gpu::LaunchOp into, gpu::LaunchOp from) {
  OpBuilder b(into);
  Location loc = b.getFusedLoc({into.getLoc(), from.getLoc()});
  gpu::KernelDim3 gridA = into.getGridSizeOperandValues();
  gpu::KernelDim3 gridB = from.getGridSizeOperandValues();
  auto mergedSize = [&](Value x, Value y) -> Value {
    if (sameSize(x, y))
      return x;
    return *getConstantIntValue(x) >= *getConstantIntValue(y) ? x : y;
  };
  Value gridX = mergedSize(gridA.x, gridB.x);
  Value gridY = mergedSize(gridA.y, gridB.y);
  Value gridZ = mergedSize(gridA.z, gridB.z);
  gpu::KernelDim3 blockSize = into.getBlockSizeOperandValues();
  SmallVector<Type> workgroup, privates;
  for (gpu::LaunchOp launch : {into, from}) {
    for (BlockArgument arg : launch.getWorkgroupAttributions())
      workgroup.push_back(arg.getType());
    for (BlockArgument arg : launch.getPrivateAttributions())
      privates.push_back(arg.getType());
  }
  auto merged = gpu::LaunchOp::create(
      b, loc, gridX, gridY, gridZ, blockSize.x, blockSize.y, blockSize.z,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, workgroup, privates);
  Block &body = merged.getBody().front();
  b.setInsertionPointToEnd(&body);
  gpu::TerminatorOp terminator = gpu::TerminatorOp::create(b, loc);

  unsigned workgroupAt = 0, privateAt = 0;
  for (gpu::LaunchOp launch : {into, from}) {
    b.setInsertionPoint(terminator);
    IRMapping map;
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    SmallVector<Value> ownSizes = {grid.x, grid.y, grid.z};
    SmallVector<Value> mergedSizes = {gridX, gridY, gridZ};
    auto mapDims = [&](gpu::KernelDim3 from, gpu::KernelDim3 to) {
      map.map(from.x, to.x);
      map.map(from.y, to.y);
      map.map(from.z, to.z);
    };
    gpu::KernelDim3 newIds = merged.getBlockIds();
    mapDims(launch.getBlockIds(), newIds);
    mapDims(launch.getThreadIds(), merged.getThreadIds());
    mapDims(launch.getBlockSize(), merged.getBlockSize());
    // Its own grid: the merged one's where equal, its constants elsewhere;
    // the blocks past its grid skip it (a uniform branch per block, so
    // its barriers stay uniform).
    gpu::KernelDim3 gridArgs = launch.getGridSize();
    gpu::KernelDim3 newGridArgs = merged.getGridSize();
    SmallVector<Value> oldArgs = {gridArgs.x, gridArgs.y, gridArgs.z};
    SmallVector<Value> newArgs = {newGridArgs.x, newGridArgs.y, newGridArgs.z};
    SmallVector<Value> newIdList = {newIds.x, newIds.y, newIds.z};
    // Its own grid size where that is not the merged one's.
    SmallVector<Value> ownGrid(3);
    Value guard;
    for (unsigned d = 0; d < 3; ++d) {
      if (sameSize(ownSizes[d], mergedSizes[d])) {
        map.map(oldArgs[d], newArgs[d]);
        continue;
      }
      Value size = arith::ConstantIndexOp::create(
          b, loc, *getConstantIntValue(ownSizes[d]));
      ownGrid[d] = size;
      map.map(oldArgs[d], size);
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           newIdList[d], size);
      guard = guard ? arith::AndIOp::create(b, loc, guard, inside) : inside;
    }
    for (BlockArgument arg : launch.getWorkgroupAttributions())
      map.map(arg, merged.getWorkgroupAttributions()[workgroupAt++]);
    for (BlockArgument arg : launch.getPrivateAttributions())
      map.map(arg, merged.getPrivateAttributions()[privateAt++]);
    if (guard) {
      auto ifOp = scf::IfOp::create(b, loc, guard, /*withElseRegion=*/false);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    // A grid size the body reads through gpu.grid_dim is its own.
    auto ownGridDim = [&](gpu::GridDimOp dim) {
      return ownGrid[static_cast<unsigned>(dim.getDimension())];
    };
    Block &own = launch.getBody().front();
    for (Operation &op : own.without_terminator()) {
      if (auto dim = dyn_cast<gpu::GridDimOp>(op); dim && ownGridDim(dim)) {
        map.map(dim.getResult(), ownGridDim(dim));
        continue;
      }
      Operation *clone = b.clone(op, map);
      // (Nested ones are used in their region only.)
      clone->walk([&](gpu::GridDimOp dim) {
        if (Value size = ownGridDim(dim)) {
          dim.replaceAllUsesWith(size);
          dim.erase();
        }
      });
    }
  }
  cache.erase(into);
  cache.erase(from);
  into.erase();
  from.erase();
  ++numMerged;
  return merged;
}

void LaunchMerger::run(Block &block) {
  SmallVector<gpu::LaunchOp> launches;
  for (Operation &op : block)
    if (auto launch = dyn_cast<gpu::LaunchOp>(op))
      launches.push_back(launch);
  for (gpu::LaunchOp launch : launches) {
    if (!isMergeable(launch))
      continue;
    // (A copy: the cache grows below.)
    Accesses own = accessesOf(launch);
    if (own.unknown)
      continue;
    // Walk up: past code that touches none of its buffers in a conflicting
    // way, taking along the allocations, views and scalars it uses; the
    // earliest compatible launch on the way is where it goes.
    llvm::SetVector<Value> needed;
    getUsedValuesDefinedAbove(launch.getBody(), needed);
    needed.insert_range(launch->getOperands());
    SmallVector<Operation *> carried;
    gpu::LaunchOp target;
    size_t carriedToTarget = 0;
    for (Operation *op = launch->getPrevNode(); op; op = op->getPrevNode()) {
      if (llvm::any_of(op->getResults(),
                       [&](Value v) { return needed.contains(v); })) {
        if (!isHoistable(op))
          break;
        carried.push_back(op);
        needed.insert_range(op->getOperands());
        continue;
      }
      if (auto other = dyn_cast<gpu::LaunchOp>(op);
          other && compatible(other, launch) &&
          !conflict(accessesOf(other), own)) {
        target = other;
        carriedToTarget = carried.size();
        continue;
      }
      if (conflict(accessesOf(op), own))
        break;
    }
    if (!target)
      continue;
    // In their order, before the target.
    for (Operation *op :
         llvm::reverse(ArrayRef(carried).take_front(carriedToTarget)))
      op->moveBefore(target);
    // (The merged launch's accesses are collected again when asked for:
    // the two launches' own name views made inside them, which go with
    // them.)
    merge(target, launch);
  }
}

namespace {
struct GpuMergeLaunches
    : public sift::impl::SiftGpuMergeLaunchesBase<GpuMergeLaunches> {
  using Base::Base;

  void runOnOperation() override {
    // Host blocks: the function's, and those of its loops and branches.
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) {
      Operation *parent = block->getParentOp();
      if (!isa<gpu::LaunchOp>(parent) &&
          !parent->getParentOfType<gpu::LaunchOp>())
        blocks.push_back(block);
    });
    LaunchMerger merger(maxSharedBytes);
    for (Block *block : blocks)
      merger.run(*block);
    numMerged = merger.numMerged;
  }
};
} // namespace
