//===- GpuHoistKernelAllocs.cpp - --sift-gpu-hoist-kernel-allocs ----------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Bounds.h"
#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTGPUHOISTKERNELALLOCS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

/// The static shape that bounds `alloc`'s: its dynamic sizes replaced by
/// constant upper bounds (`sift::constantUpperBound`); nothing when one has
/// none.
static std::optional<SmallVector<int64_t>>
boundingShape(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  SmallVector<int64_t> shape = llvm::to_vector(type.getShape());
  ValueRange sizes = alloc.getDynamicSizes();
  unsigned next = 0;
  for (int64_t &size : shape) {
    if (!ShapedType::isDynamic(size))
      continue;
    FailureOr<int64_t> bound = constantUpperBound(sizes[next++]);
    if (failed(bound) || *bound < 0)
      return std::nullopt;
    size = *bound;
  }
  return shape;
}

/// Bytes of one thread's slot for a buffer of `type` whose sizes are at
/// most `shape`, 64-byte aligned; 0 when the allocation cannot be hoisted
/// (layout, memory space, or an element without a fixed byte size).
static int64_t slotBytes(MemRefType type, ArrayRef<int64_t> shape) {
  if (!type.getLayout().isIdentity() || type.getMemorySpace())
    return 0;
  Type element = type.getElementType();
  int64_t elementBytes;
  if (element.isIndex())
    elementBytes = 8;
  else if (element.isIntOrFloat())
    elementBytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  else
    return 0;
  int64_t elements = 1;
  for (int64_t size : shape)
    elements *= size;
  return llvm::alignTo(std::max<int64_t>(1, elements) * elementBytes, 64);
}

/// Whether `value` is one of the `hoisted` views, or a view of one (through
/// casts, views and metadata extraction).
static bool isHoisted(Value value,
                      const llvm::SmallPtrSetImpl<Operation *> &hoisted) {
  while (Operation *def = value.getDefiningOp()) {
    if (hoisted.contains(def))
      return true;
    if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(def)) {
      value = meta.getSource();
      continue;
    }
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      value = view.getViewSource();
      continue;
    }
    return false;
  }
  return false;
}

/// Whether each dynamic instance of `alloc`, inside `loop` (the innermost
/// loop of the kernel around it), is used within the iteration that
/// allocated it: every use of it or of a buffer aliasing it (views, casts,
/// metadata extraction, the results of branches that yield it) is inside the
/// loop's body, and none is carried to the next iteration or out of the loop
/// (a loop's yield or condition). Then the iterations, sequential in a
/// thread, can all use one slot.
static bool usedInOneIteration(memref::AllocOp alloc, Operation *loop) {
  SmallVector<Value> worklist{alloc.getResult()};
  llvm::SmallPtrSet<Value, 8> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (!loop->isProperAncestor(user))
        return false;
      if (user->hasTrait<OpTrait::IsTerminator>()) {
        Operation *parent = user->getParentOp();
        // A branch's yield: the branch's result aliases the buffer.
        if (parent == loop || isa<LoopLikeOpInterface>(parent) ||
            !isa<scf::IfOp, scf::ExecuteRegionOp, scf::IndexSwitchOp>(parent))
          return false;
        worklist.push_back(parent->getResult(use.getOperandNumber()));
        continue;
      }
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()))
          worklist.push_back(result);
    }
  }
  return true;
}

static void hoistFrom(gpu::LaunchOp launch) {
  SmallVector<memref::AllocOp> allocs;
  SmallVector<int64_t> offsets;
  int64_t slot = 0;
  launch.getBody().walk([&](memref::AllocOp alloc) {
    // One slot per thread must be enough: outside the kernel's loops, or
    // freed in the iteration that allocated it.
    for (Operation *p = alloc->getParentOp(); p != launch; p = p->getParentOp())
      if (isa<LoopLikeOpInterface>(p)) {
        if (!usedInOneIteration(alloc, p))
          return;
        break;
      }
    // A buffer of dynamic size gets a slot of its constant upper bound.
    std::optional<SmallVector<int64_t>> shape = boundingShape(alloc);
    if (!shape)
      return;
    int64_t bytes = slotBytes(alloc.getType(), *shape);
    if (bytes == 0)
      return;
    allocs.push_back(alloc);
    offsets.push_back(slot);
    slot += bytes;
  });
  if (allocs.empty())
    return;

  // Host: one buffer for the launch, a slot per thread holding each
  // allocation at a fixed offset (one kernel parameter, however many
  // allocations).
  OpBuilder b(launch);
  Location loc = launch.getLoc();
  Value threads = launch.getGridSizeX();
  for (Value size :
       {launch.getGridSizeY(), launch.getGridSizeZ(), launch.getBlockSizeX(),
        launch.getBlockSizeY(), launch.getBlockSizeZ()})
    threads = arith::MulIOp::create(b, loc, threads, size);
  auto bufferType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type());
  Value slotSize = arith::ConstantIndexOp::create(b, loc, slot);
  Value bytes = arith::MulIOp::create(b, loc, threads, slotSize);
  Value buffer = gpu::AllocOp::create(b, loc, bufferType, Type(), ValueRange(),
                                      ValueRange{bytes}, ValueRange(),
                                      /*hostShared=*/false)
                     .getMemref();
  b.setInsertionPointAfter(launch);
  gpu::DeallocOp::create(b, loc, Type(), ValueRange(), buffer);

  // Kernel: the linear id of this thread.
  Block &body = launch.getBody().front();
  b.setInsertionPointToStart(&body);
  gpu::KernelDim3 block = launch.getBlockIds();
  gpu::KernelDim3 thread = launch.getThreadIds();
  gpu::KernelDim3 grid = launch.getGridSize();
  gpu::KernelDim3 size = launch.getBlockSize();
  auto mul = [&](Value x, Value y) {
    return arith::MulIOp::create(b, loc, x, y).getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y).getResult();
  };
  Value blockId = add(mul(add(mul(block.z, grid.y), block.y), grid.x), block.x);
  Value threadId =
      add(mul(add(mul(thread.z, size.y), thread.y), size.x), thread.x);
  Value perBlock = mul(mul(size.x, size.y), size.z);
  Value id = add(mul(blockId, perBlock), threadId);

  Value base = mul(id, arith::ConstantIndexOp::create(b, loc, slot));
  llvm::SmallPtrSet<Operation *, 8> hoisted;
  for (auto [alloc, offset] : llvm::zip(allocs, offsets)) {
    OpBuilder ab(alloc);
    Value shift = arith::AddIOp::create(
        ab, alloc.getLoc(), base,
        arith::ConstantIndexOp::create(ab, alloc.getLoc(), offset));
    auto view = memref::ViewOp::create(ab, alloc.getLoc(), alloc.getType(),
                                       buffer, shift, alloc.getDynamicSizes());
    alloc.replaceAllUsesWith(view.getResult());
    hoisted.insert(view);
    alloc.erase();
  }
  // Their deallocations go (the host frees the buffers). When the kernel
  // allocates nothing any more, so do the deallocations of buffers that
  // reach them through loops and branches (the deallocation pipeline's
  // ownership-guarded ones): whatever they free is a hoisted slot or a
  // buffer of the host, which a kernel must never free.
  bool allocates = false;
  launch.getBody().walk([&](memref::AllocOp) { allocates = true; });
  SmallVector<memref::DeallocOp> deallocs;
  launch.getBody().walk([&](memref::DeallocOp dealloc) {
    if (!allocates || isHoisted(dealloc.getMemref(), hoisted))
      deallocs.push_back(dealloc);
  });
  for (memref::DeallocOp dealloc : deallocs)
    dealloc.erase();
}

namespace {
struct GpuHoistKernelAllocsPass
    : public sift::impl::SiftGpuHoistKernelAllocsBase<
          GpuHoistKernelAllocsPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp op) { launches.push_back(op); });
    for (gpu::LaunchOp launch : launches)
      hoistFrom(launch);
  }
};
} // namespace
