//===- GpuShapeParallelLoops.cpp - --sift-gpu-shape-parallel-loops --------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTGPUSHAPEPARALLELLOOPS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

/// Whether `op` has an scf.parallel anywhere in its body.
static bool hasNestedParallel(scf::ParallelOp op) {
  bool found = false;
  op.getBody()->walk([&](scf::ParallelOp) {
    found = true;
    return WalkResult::interrupt();
  });
  return found;
}

/// Rewrites `loop` (dimensions d0..dn-1) into sequential scf.for loops in
/// the same order, run by one thread.
static void sequentialize(scf::ParallelOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  IRMapping map;
  for (unsigned d = 0, e = loop.getNumLoops(); d < e; ++d) {
    auto forOp = scf::ForOp::create(b, loc, loop.getLowerBound()[d],
                                    loop.getUpperBound()[d], loop.getStep()[d]);
    map.map(loop.getInductionVars()[d], forOp.getInductionVar());
    b.setInsertionPointToStart(forOp.getBody());
  }
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
  loop.erase();
}

/// The static trip count of dimension `d` of `op`, if it has one.
static std::optional<int64_t> tripCount(scf::ParallelOp op, unsigned d) {
  std::optional<int64_t> lb = getConstantIntValue(op.getLowerBound()[d]);
  std::optional<int64_t> ub = getConstantIntValue(op.getUpperBound()[d]);
  std::optional<int64_t> step = getConstantIntValue(op.getStep()[d]);
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step);
}

/// Rewrites `loop` (dimensions d0..dn-1) into a loop over `t` in
/// [0, threads') whose body runs, in sequence, every iteration with
/// d_{n-1} = lb + (t + k * threads') * step (all k) for every d0..dn-2:
/// threads' = min(threads, trip count of the last dimension) where that is
/// a constant.
static void strideOverThreads(scf::ParallelOp loop, int64_t threads) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  unsigned rank = loop.getNumLoops();
  Value lastLb = loop.getLowerBound()[rank - 1];
  Value lastUb = loop.getUpperBound()[rank - 1];
  Value lastStep = loop.getStep()[rank - 1];
  int64_t used = threads;
  if (std::optional<int64_t> count = tripCount(loop, rank - 1))
    used = std::max<int64_t>(1, std::min<int64_t>(threads, *count));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value count = arith::ConstantIndexOp::create(b, loc, used);
  auto outer = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                       ValueRange{count}, ValueRange{one});
  IRMapping map;
  b.setInsertionPointToStart(outer.getBody());
  Value t = outer.getInductionVars()[0];
  // The leading dimensions run in sequence in every thread.
  for (unsigned d = 0; d + 1 < rank; ++d) {
    auto forOp = scf::ForOp::create(b, loc, loop.getLowerBound()[d],
                                    loop.getUpperBound()[d], loop.getStep()[d]);
    map.map(loop.getInductionVars()[d], forOp.getInductionVar());
    b.setInsertionPointToStart(forOp.getBody());
  }
  // The last dimension strides over the threads.
  Value offset = arith::MulIOp::create(b, loc, t, lastStep);
  Value start = arith::AddIOp::create(b, loc, lastLb, offset);
  Value stride = arith::MulIOp::create(b, loc, count, lastStep);
  auto inner = scf::ForOp::create(b, loc, start, lastUb, stride);
  map.map(loop.getInductionVars()[rank - 1], inner.getInductionVar());
  b.setInsertionPointToStart(inner.getBody());
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
  loop.erase();
}

/// Whether the body of the block-level loop `op`, outside its nested
/// parallel loops, only computes values: then every thread of the block can
/// run it redundantly, which is how convert-parallel-loops-to-gpu maps code
/// between thread-level loops. Memory effects, loops and allocations there
/// (the sequential parts of sort, top-k and scans in a --sift-fuse row
/// kernel) would run once per thread; such a row runs on one thread.
static bool blockCodeIsPure(scf::ParallelOp op) {
  for (Operation &inner : op.getBody()->without_terminator()) {
    if (isa<scf::ParallelOp>(inner))
      continue;
    if (!isMemoryEffectFree(&inner) || inner.getNumRegions() != 0)
      return false;
  }
  return true;
}

/// Tiles `op` into blocks of `threads` iterations along its last dimension.
/// The loop of a block's iterations keeps only that dimension (the others
/// have one iteration): loop mapping gives a loop's dimensions to thread
/// x, y, z in order, and a device allows 64 threads along z, 1024 along x.
static void tileIntoBlocks(scf::ParallelOp op, int64_t threads) {
  MLIRContext *context = op.getContext();
  SmallVector<int64_t> sizes(op.getNumLoops(), 1);
  sizes.back() = threads;
  // Erases `op`: only the loops it returns are used after it.
  scf::ParallelOp inner =
      scf::tileParallelLoop(op, sizes, /*noMinMaxBounds=*/true).second;
  // The bounds (step x tile size) fold to constants first.
  SmallVector<Operation *> ops;
  for (Value bound : inner.getUpperBound())
    if (Operation *def = bound.getDefiningOp())
      ops.push_back(def);
  ops.push_back(inner);
  RewritePatternSet patterns(context);
  scf::ParallelOp::getCanonicalizationPatterns(patterns, context);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(ops, std::move(patterns), config);
}

/// When the last dimension of `op` has a static trip count below
/// `threads` (the 16 features of a gathered row, say), merges it with the
/// one before, so that a block's threads cover adjacent elements of several
/// rows instead of idling past a short last dimension. Returns the loop.
static scf::ParallelOp mergeShortLastDim(scf::ParallelOp op, int64_t threads) {
  unsigned rank = op.getNumLoops();
  if (rank < 2)
    return op;
  std::optional<int64_t> count = tripCount(op, rank - 1);
  if (!count || *count >= threads)
    return op;
  std::vector<std::vector<unsigned>> dims;
  for (unsigned d = 0; d + 2 < rank; ++d)
    dims.push_back({d});
  dims.push_back({rank - 2, rank - 1});
  Block *block = op->getBlock();
  Operation *before = op->getPrevNode();
  IRRewriter rewriter(op.getContext());
  rewriter.setInsertionPoint(op);
  collapseParallelLoops(rewriter, op, dims);
  // The new loop follows the bound computations it inserted.
  Operation *next = before ? before->getNextNode() : &block->front();
  while (!isa<scf::ParallelOp>(next))
    next = next->getNextNode();
  return cast<scf::ParallelOp>(next);
}

/// Whether `loop`, a sequential loop of a function's body, is a serial
/// kernel: a nest of scalar code that reads or writes buffers (a reduction
/// left sequential: a float sum too short to block, an integer sum) and
/// nothing else: no parallel loop, call, allocation or launch inside, and
/// scalar results only (a sum to a scalar).
static bool isSerialKernel(scf::ForOp loop) {
  if (!isa<func::FuncOp>(loop->getParentOp()) ||
      !llvm::all_of(loop.getResultTypes(),
                    [](Type type) { return type.isIntOrIndexOrFloat(); }))
    return false;
  bool accesses = false;
  WalkResult walk = loop->walk([&](Operation *op) {
    if (isa<memref::LoadOp, memref::StoreOp>(op)) {
      accesses = true;
      return WalkResult::advance();
    }
    if (isa<scf::ForOp, scf::IfOp, scf::YieldOp, memref::DimOp,
            affine::AffineApplyOp, affine::AffineMinOp, affine::AffineMaxOp>(
            op) ||
        isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        (isa<ViewLikeOpInterface>(op) && op->getNumRegions() == 0 &&
         isPure(op)))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !walk.wasInterrupted() && accesses;
}

/// `loop` as the one iteration of an scf.parallel: a kernel of one thread.
/// Each result goes through a buffer of one element (device memory once
/// --sift-gpu-device-buffers has run): the kernel stores it, the host loads
/// it after the kernel (--sift-gpu-host-scalars moves that load into the
/// kernels that use it) and frees the buffer.
static void wrapInParallel(scf::ForOp loop) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> cells;
  for (Type type : loop.getResultTypes())
    cells.push_back(
        memref::AllocOp::create(b, loc, MemRefType::get({1}, type)));
  auto parallel = scf::ParallelOp::create(b, loc, ValueRange{c0},
                                          ValueRange{c1}, ValueRange{c1});
  loop->moveBefore(parallel.getBody()->getTerminator());
  b.setInsertionPointAfter(loop);
  for (auto [result, cell] : llvm::zip(loop.getResults(), cells))
    memref::StoreOp::create(b, loc, result, cell, ValueRange{c0});
  b.setInsertionPointAfter(parallel);
  for (auto [result, cell] : llvm::zip(loop.getResults(), cells)) {
    Value value = memref::LoadOp::create(b, loc, cell, ValueRange{c0});
    result.replaceUsesWithIf(value, [&](OpOperand &use) {
      return !parallel->isAncestor(use.getOwner());
    });
  }
  for (Value cell : cells)
    memref::DeallocOp::create(b, loc, cell);
}

namespace {
struct GpuShapeParallelLoopsPass
    : public sift::impl::SiftGpuShapeParallelLoopsBase<
          GpuShapeParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (threads < 1) {
      getOperation().emitError("threads must be positive, got ") << threads;
      return signalPassFailure();
    }
    // A sequential nest over buffers in the function's body runs on the
    // device as a kernel of one thread (the host cannot read device
    // buffers): a reduction left sequential, with its order. Not in private
    // functions: the deallocation helper's loops over its lists of buffers
    // are host bookkeeping.
    SmallVector<scf::ForOp> serial;
    if (!getOperation().isPrivate())
      for (auto loop : getOperation().getBody().getOps<scf::ForOp>())
        if (isSerialKernel(loop))
          serial.push_back(loop);
    for (scf::ForOp loop : serial)
      wrapInParallel(loop);
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp op) {
      if (!op->getParentOfType<scf::ParallelOp>() && op.getNumResults() == 0)
        outermost.push_back(op);
    });
    for (scf::ParallelOp op : outermost) {
      if (!hasNestedParallel(op)) {
        // Blocks of `threads` iterations along the last dimension (merged
        // with the one before when it is short).
        tileIntoBlocks(mergeShortLastDim(op, threads), threads);
        continue;
      }
      // The parallel loops directly inside (not inside a further parallel
      // loop) become the block's threads.
      SmallVector<scf::ParallelOp> nested;
      if (!blockCodeIsPure(op)) {
        // One thread per row: the nested loops run in sequence, and the
        // rows are tiled into blocks of `threads` threads.
        SmallVector<scf::ParallelOp> all;
        op.getBody()->walk([&](scf::ParallelOp inner) {
          if (inner.getNumResults() == 0)
            all.push_back(inner);
        });
        // Innermost first (the walk is post-order).
        for (scf::ParallelOp inner : all)
          sequentialize(inner);
        tileIntoBlocks(op, threads);
        continue;
      }
      op.getBody()->walk([&](scf::ParallelOp inner) {
        if (inner->getParentOfType<scf::ParallelOp>() == op &&
            inner.getNumResults() == 0)
          nested.push_back(inner);
      });
      for (scf::ParallelOp inner : nested)
        strideOverThreads(inner, threads);
    }
  }
};
} // namespace
