//===- SequentializeInnerParallelDims.cpp -
//--sift-sequentialize-inner-parallel-dims ===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Bounds.h"
#include "sift/Transforms/Passes.h"
#include "sift/Transforms/Routines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTSEQUENTIALIZEINNERPARALLELDIMS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

/// The number of iterations of a loop dimension with constant bounds.
static std::optional<int64_t> staticTripCount(Value lbValue, Value ubValue,
                                              Value stepValue) {
  std::optional<int64_t> lb = getConstantIntValue(lbValue);
  std::optional<int64_t> ub = getConstantIntValue(ubValue);
  std::optional<int64_t> step = getConstantIntValue(stepValue);
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  std::optional<int64_t> span = llvm::checkedSub(*ub, *lb);
  if (!span)
    return std::nullopt;
  return *span <= 0 ? 0 : llvm::divideCeil(*span, *step);
}

/// A constant upper bound of the number of iterations of a loop dimension:
/// its trip count when the bounds are constants; otherwise, with a
/// constant step, from the constant upper bound of `ub - lb`
/// (`sift::constantUpperBound`, which also bounds a `min` through its
/// operands: the tiles of a loop, `lb = t * T` to `min(lb + T, n)`, have
/// at most T iterations).
static std::optional<int64_t> tripCountBound(Value lbValue, Value ubValue,
                                             Value stepValue) {
  if (std::optional<int64_t> exact =
          staticTripCount(lbValue, ubValue, stepValue))
    return exact;
  std::optional<int64_t> step = getConstantIntValue(stepValue);
  if (!step || *step <= 0 || !lbValue.getType().isIndex())
    return std::nullopt;
  FailureOr<int64_t> span =
      constantUpperBound(ubValue, lbValue, /*assumeNonNegative=*/true);
  if (failed(span))
    return std::nullopt;
  return *span <= 0 ? 0 : llvm::divideCeil(*span, *step);
}

/// `a * b`, saturated at INT64_MAX.
static int64_t saturatingMul(int64_t a, int64_t b) {
  int64_t product;
  return llvm::MulOverflow(a, b, product) ? std::numeric_limits<int64_t>::max()
                                          : product;
}

static std::optional<int64_t> staticWork(Operation *op);

/// At most how many times the innermost loop bodies of `region` run per
/// run of the region: the largest work of a loop in it (1 without loops),
/// or nullopt when some loop's trip count has no constant bound.
static std::optional<int64_t> staticWork(Region &region) {
  int64_t most = 1;
  for (Block &block : region)
    for (Operation &op : block) {
      // A call (a routine of the lowering) does work this pass cannot see
      // from here: unknown, unless the call states it (kStaticWorkAttrName).
      if (isa<CallOpInterface>(op)) {
        auto work = op.getAttrOfType<IntegerAttr>(kStaticWorkAttrName);
        if (!work)
          return std::nullopt;
        most = std::max(most, work.getInt());
        continue;
      }
      if (op.getNumRegions() == 0)
        continue;
      std::optional<int64_t> work = staticWork(&op);
      if (!work)
        return std::nullopt;
      most = std::max(most, *work);
    }
  return most;
}

/// The static work of a loop (its trip count times its body's) or of
/// another region op (its largest region's), or nullopt when unknown.
static std::optional<int64_t> staticWork(Operation *op) {
  int64_t trips = 1;
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    std::optional<int64_t> n = tripCountBound(
        forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep());
    if (!n)
      return std::nullopt;
    trips = *n;
  } else if (auto parallel = dyn_cast<scf::ParallelOp>(op)) {
    for (auto [lb, ub, step] :
         llvm::zip_equal(parallel.getLowerBound(), parallel.getUpperBound(),
                         parallel.getStep())) {
      std::optional<int64_t> n = tripCountBound(lb, ub, step);
      if (!n)
        return std::nullopt;
      trips = saturatingMul(trips, *n);
    }
  } else if (isa<scf::WhileOp>(op)) {
    return std::nullopt;
  }
  int64_t most = 1;
  for (Region &region : op->getRegions()) {
    std::optional<int64_t> work = staticWork(region);
    if (!work)
      return std::nullopt;
    most = std::max(most, *work);
  }
  return saturatingMul(trips, most);
}

/// Iterations of a tile of the last of several parallel dimensions (see
/// `rewrite`): long enough for a vector loop, short enough that 8 rows of
/// 1e5 elements still give 200 parallel tiles.
static constexpr int64_t kTile = 4096;

namespace {
/// See SiftSequentializeInnerParallelDims in Passes.td.
struct SequentializeInnerParallelDimsPass
    : sift::impl::SiftSequentializeInnerParallelDimsBase<
          SequentializeInnerParallelDimsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    // Post-order: inner loops first, while their parents still exist.
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop.getInitVals().empty())
        loops.push_back(loop);
    });
    for (scf::ParallelOp loop : loops)
      rewrite(loop);
  }

  void rewrite(scf::ParallelOp loop) {
    // Nested in another parallel loop, or in a routine of the lowering
    // (one line's work, --sift-outline-lines).
    auto func = loop->getParentOfType<FunctionOpInterface>();
    bool nested = loop->getParentOfType<scf::ParallelOp>() != nullptr ||
                  (func && func->hasAttr(kLineRoutineAttrName));
    // A loop nest whose whole work is known and small runs on the calling
    // thread: forking a team would cost more than the loop.
    // (A nested loop runs sequentially anyway: no need to weigh it.)
    std::optional<int64_t> work =
        nested ? std::nullopt : staticWork(loop.getOperation());
    bool small = work && *work < minParallelWork;
    SmallVector<int64_t> parallelDims, sequentialDims;
    // getInductionVars() returns a vector by value: copy it once.
    SmallVector<Value> ivValues = llvm::to_vector(loop.getInductionVars());
    int64_t iterations = 1;
    for (int64_t d = 0, e = loop.getNumLoops(); d < e; ++d) {
      std::optional<int64_t> tripCount = staticTripCount(
          loop.getLowerBound()[d], loop.getUpperBound()[d], loop.getStep()[d]);
      if (tripCount == 1) {
        ivValues[d] = loop.getLowerBound()[d];
        continue;
      }
      if (nested || small || iterations >= minParallelIterations) {
        sequentialDims.push_back(d);
        continue;
      }
      parallelDims.push_back(d);
      int64_t product;
      iterations =
          tripCount && !llvm::MulOverflow(iterations, *tripCount, product)
              ? product
              : std::numeric_limits<int64_t>::max();
    }
    // OpenMP collapses several parallel dimensions into one loop and
    // recovers each index with a division per iteration, which keeps LLVM
    // from vectorizing the innermost one (8 rows of 1e6 elements). Where
    // the last of several parallel dimensions is the innermost loop of the
    // nest, it therefore runs in tiles of kTile iterations: the tiles are
    // parallel (one division per tile), each tile's iterations a
    // sequential loop. A dimension of fewer than two tiles is sequential
    // instead.
    std::optional<int64_t> tiledDim;
    bool innermost =
        sequentialDims.empty() &&
        !loop.getBody()
             ->walk([](LoopLikeOpInterface) { return WalkResult::interrupt(); })
             .wasInterrupted();
    if (parallelDims.size() >= 2 && innermost) {
      int64_t d = parallelDims.back();
      std::optional<int64_t> trips = staticTripCount(
          loop.getLowerBound()[d], loop.getUpperBound()[d], loop.getStep()[d]);
      if (trips && *trips < 2 * kTile) {
        parallelDims.pop_back();
        sequentialDims.insert(sequentialDims.begin(), d);
      } else {
        tiledDim = d;
      }
    }
    if (parallelDims.size() == loop.getNumLoops() && !tiledDim)
      return;

    IRRewriter rewriter(loop);
    Location loc = loop.getLoc();
    auto select = [&](ValueRange values, ArrayRef<int64_t> dims) {
      return llvm::map_to_vector(dims, [&](int64_t d) { return values[d]; });
    };
    SmallVector<Value> lbs = select(loop.getLowerBound(), parallelDims);
    SmallVector<Value> ubs = select(loop.getUpperBound(), parallelDims);
    SmallVector<Value> steps = select(loop.getStep(), parallelDims);
    SmallVector<Value> seqLbs = select(loop.getLowerBound(), sequentialDims);
    SmallVector<Value> seqUbs = select(loop.getUpperBound(), sequentialDims);
    SmallVector<Value> seqSteps = select(loop.getStep(), sequentialDims);
    Value tileSpan;
    if (tiledDim) {
      // Parallel over tiles t in [0, ceil(trips / kTile)); tile t runs
      // lb + t * span to min(lb + (t + 1) * span, ub), span = kTile * step.
      int64_t d = *tiledDim;
      Value lb = loop.getLowerBound()[d], ub = loop.getUpperBound()[d];
      Value step = loop.getStep()[d];
      Value trips = arith::CeilDivUIOp::create(
          rewriter, loc, arith::SubIOp::create(rewriter, loc, ub, lb), step);
      Value tile = arith::ConstantIndexOp::create(rewriter, loc, kTile);
      lbs.back() = arith::ConstantIndexOp::create(rewriter, loc, 0);
      ubs.back() = arith::CeilDivUIOp::create(rewriter, loc, trips, tile);
      steps.back() = arith::ConstantIndexOp::create(rewriter, loc, 1);
      tileSpan = arith::MulIOp::create(rewriter, loc, tile, step);
    }
    Block *body = loop.getBody();
    rewriter.eraseOp(body->getTerminator());
    auto buildSequential = [&](OpBuilder &b, Location loc, ValueRange ivs) {
      for (auto [d, iv] : llvm::zip_equal(parallelDims, ivs))
        ivValues[d] = iv;
      SmallVector<int64_t> dims = sequentialDims;
      SmallVector<Value> los = seqLbs, his = seqUbs, bys = seqSteps;
      if (tiledDim) {
        int64_t d = *tiledDim;
        Value start = arith::AddIOp::create(
            b, loc, loop.getLowerBound()[d],
            arith::MulIOp::create(b, loc, ivs.back(), tileSpan));
        Value end = arith::MinUIOp::create(
            b, loc, arith::AddIOp::create(b, loc, start, tileSpan),
            loop.getUpperBound()[d]);
        dims.insert(dims.begin(), d);
        los.insert(los.begin(), start);
        his.insert(his.begin(), end);
        bys.insert(bys.begin(), loop.getStep()[d]);
      }
      scf::buildLoopNest(b, loc, los, his, bys,
                         [&](OpBuilder &b, Location loc, ValueRange ivs) {
                           for (auto [d, iv] : llvm::zip_equal(dims, ivs))
                             ivValues[d] = iv;
                           rewriter.inlineBlockBefore(
                               body, b.getInsertionBlock(),
                               b.getInsertionPoint(), ivValues);
                         });
    };
    if (parallelDims.empty()) {
      buildSequential(rewriter, loc, {});
    } else {
      scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps, buildSequential);
    }
    rewriter.eraseOp(loop);
  }
};
} // namespace
