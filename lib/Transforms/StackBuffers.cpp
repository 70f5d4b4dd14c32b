//===- StackBuffers.cpp - --sift-stack-buffers ----------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Small temporaries on the stack instead of the runtime's allocator: upstream
// promote-buffers-to-stack does the rewrite and checks that a buffer neither
// lives in a loop nor leaves its function; the predicate given to it bounds
// each buffer and the bytes a function puts on its stack in all.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTSTACKBUFFERS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

/// The bytes of `value` when it is a `memref.alloc` of static shape of at
/// most `limit` bytes.
static std::optional<int64_t> smallAllocBytes(Value value, int64_t limit) {
  auto alloc = value.getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getType().hasStaticShape())
    return std::nullopt;
  MemRefType type = alloc.getType();
  uint64_t elementBytes =
      DataLayout::closest(alloc).getTypeSize(type.getElementType());
  int64_t elements = type.getNumElements();
  if (elementBytes == 0 || limit < 0 ||
      elements > limit / static_cast<int64_t>(elementBytes))
    return std::nullopt;
  return elements * static_cast<int64_t>(elementBytes);
}

/// Whether `alloc` of `func` is promoted, to an alloca in the function's
/// own scope: only region ops that branch between their regions, are not
/// loops (upstream's own test) and start no allocation scope of their own
/// lie between them, so that the alloca may move to the entry block; and
/// the function does not return it (a yield out of an `scf.if` keeps it in
/// the function). Asked before the budget is charged, so that buffers
/// upstream would refuse cost nothing (one it still refuses, returned
/// through a view, is charged: the budget errs on the safe side).
static bool promotable(Value alloc, Operation *func) {
  for (Operation *parent = alloc.getDefiningOp()->getParentOp();
       parent && parent != func; parent = parent->getParentOp())
    if (isa<LoopLikeOpInterface>(parent) ||
        !isa<RegionBranchOpInterface>(parent) ||
        parent->hasTrait<OpTrait::AutomaticAllocationScope>())
      return false;
  return llvm::none_of(alloc.getUsers(), [&](Operation *user) {
    return user->hasTrait<OpTrait::ReturnLike>() && user->getParentOp() == func;
  });
}

/// The alignment of the stack on entry to a function on the hosts sift
/// compiles for (x86-64 and AArch64).
constexpr uint64_t kStackAlignment = 16;

struct StackBuffersPass
    : public sift::impl::SiftStackBuffersBase<StackBuffersPass> {
  using SiftStackBuffersBase::SiftStackBuffersBase;

  void runOnOperation() override {
    Operation *func = getOperation();
    int64_t left = maxFrameBytes;
    // Upstream asks the predicate once per allocation, in the function's
    // order, and promotes what it accepts unless its own checks refuse.
    std::function<bool(Value)> isSmall = [&](Value alloc) {
      std::optional<int64_t> bytes =
          smallAllocBytes(alloc, std::min<int64_t>(maxBufferBytes, left));
      if (!bytes || !promotable(alloc, func))
        return false;
      left -= *bytes;
      return true;
    };
    llvm::SmallPtrSet<Operation *, 8> before;
    func->walk([&](memref::AllocaOp alloca) { before.insert(alloca); });
    OpPassManager pipeline(func->getName());
    pipeline.addPass(bufferization::createPromoteBuffersToStackPass(isSmall));
    if (failed(runPipeline(pipeline, func)))
      return signalPassFailure();

    // The new allocas, fixed in the frame: at the start of the entry block
    // (LLVM's static allocas: elsewhere each would move the stack pointer
    // at run time) and at most the stack's own alignment. A buffer aligned
    // past it makes the function realign its stack, which takes a frame
    // pointer and, with allocas outside the entry block, a base pointer
    // too: two registers fewer for the loops. The top-k routine's
    // partition loop then reloaded its pointers from the stack on every
    // element (the sampler at N = 1e4, B = 1 took 0.098-0.101 ms with
    // 64-byte aligned allocas in place, 0.091-0.094 with the buffers on the
    // heap, 0.085-0.088 as now).
    Block &entry = func->getRegion(0).front();
    SmallVector<memref::AllocaOp> added;
    func->walk([&](memref::AllocaOp alloca) {
      if (before.contains(alloca))
        return;
      ++numPromoted;
      // In the function's scope (promotable); sizes, were there any,
      // would not dominate the entry block.
      if (alloca->getNumOperands() == 0)
        added.push_back(alloca);
    });
    Operation *last = nullptr; // in their order
    for (memref::AllocaOp alloca : added) {
      if (alloca.getAlignment() && *alloca.getAlignment() > kStackAlignment)
        alloca.removeAlignmentAttr();
      if (last)
        alloca->moveAfter(last);
      else
        alloca->moveBefore(&entry, entry.begin());
      last = alloca;
    }
  }
};

} // namespace
