//===- SequentializeInnerParallelDims.cpp -
//--sift-sequentialize-inner-parallel-dims ===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
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
    bool nested = loop->getParentOfType<scf::ParallelOp>() != nullptr;
    SmallVector<int64_t> parallelDims, sequentialDims;
    // getInductionVars() returns a vector by value: copy it once.
    SmallVector<Value> ivValues = llvm::to_vector(loop.getInductionVars());
    int64_t iterations = 1;
    for (int64_t d = 0, e = loop.getNumLoops(); d < e; ++d) {
      std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[d]);
      std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[d]);
      std::optional<int64_t> step = getConstantIntValue(loop.getStep()[d]);
      std::optional<int64_t> tripCount;
      if (lb && ub && step && *step > 0)
        if (std::optional<int64_t> span = llvm::checkedSub(*ub, *lb))
          tripCount = *span <= 0 ? 0 : llvm::divideCeil(*span, *step);
      if (tripCount == 1) {
        ivValues[d] = loop.getLowerBound()[d];
        continue;
      }
      if (nested || iterations >= minParallelIterations) {
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
    if (parallelDims.size() == loop.getNumLoops())
      return;

    IRRewriter rewriter(loop);
    Location loc = loop.getLoc();
    auto select = [&](ValueRange values, ArrayRef<int64_t> dims) {
      return llvm::map_to_vector(dims, [&](int64_t d) { return values[d]; });
    };
    Block *body = loop.getBody();
    rewriter.eraseOp(body->getTerminator());
    auto buildSequential = [&](OpBuilder &b, Location loc, ValueRange ivs) {
      for (auto [d, iv] : llvm::zip_equal(parallelDims, ivs))
        ivValues[d] = iv;
      scf::buildLoopNest(
          b, loc, select(loop.getLowerBound(), sequentialDims),
          select(loop.getUpperBound(), sequentialDims),
          select(loop.getStep(), sequentialDims),
          [&](OpBuilder &b, Location loc, ValueRange ivs) {
            for (auto [d, iv] : llvm::zip_equal(sequentialDims, ivs))
              ivValues[d] = iv;
            rewriter.inlineBlockBefore(body, b.getInsertionBlock(),
                                       b.getInsertionPoint(), ivValues);
          });
    };
    if (parallelDims.empty()) {
      buildSequential(rewriter, loc, {});
    } else {
      scf::ParallelOp::create(
          rewriter, loc, select(loop.getLowerBound(), parallelDims),
          select(loop.getUpperBound(), parallelDims),
          select(loop.getStep(), parallelDims), buildSequential);
    }
    rewriter.eraseOp(loop);
  }
};
} // namespace
