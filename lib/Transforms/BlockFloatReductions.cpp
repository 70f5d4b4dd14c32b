//===- BlockFloatReductions.cpp - --sift-block-float-reductions -----------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/TilingInterface.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTBLOCKFLOATREDUCTIONS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {
/// See SiftBlockFloatReductions in Passes.td: each lane adds about
/// n / lanes elements, then the lanes are added; the rounding error grows
/// with n / lanes + lanes instead of n.
struct BlockFloatReductionsPass
    : sift::impl::SiftBlockFloatReductionsBase<BlockFloatReductionsPass> {
  using Base::Base;

  /// The reduction dimension of `op` if it is a blocked-sum candidate.
  std::optional<unsigned> blockedSumDim(linalg::LinalgOp op) {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInits() == 0)
      return std::nullopt;
    // One reduction dimension, besides dimensions of extent 1 (a row of
    // rows, as the GPU pipeline's gathers see a 1-D tensor), which add
    // nothing to the order of the sum.
    SmallVector<unsigned> dims;
    op.getReductionDims(dims);
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    llvm::erase_if(dims, [&](unsigned d) { return ranges[d] == 1; });
    if (dims.size() != 1)
      return std::nullopt;
    int64_t extent = ranges[dims[0]];
    if (!ShapedType::isDynamic(extent) && extent <= lanes)
      return std::nullopt;
    for (unsigned i = 0; i < op.getNumDpsInits(); ++i) {
      SmallVector<Operation *> combiners;
      if (!matchReduction(op.getRegionOutputArgs(), i, combiners) ||
          combiners.size() != 1 || !isa<arith::AddFOp>(combiners[0]))
        return std::nullopt;
    }
    return dims[0];
  }

  void runOnOperation() override {
    if (lanes <= 0)
      return;
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (blockedSumDim(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates) {
      unsigned dim = *blockedSumDim(op);
      SmallVector<OpFoldResult> tiles(op.getNumLoops(),
                                      rewriter.getIndexAttr(0));
      tiles[dim] = rewriter.getIndexAttr(lanes);
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileReductionUsingScf(
          rewriter, cast<PartialReductionOpInterface>(op.getOperation()),
          tiles);
      if (failed(tiled))
        continue; // Left as a sequential sum.
      // MLIR 22 leaves `linalg.index` in the partial op relative to the tile
      // (llvm/llvm-project#188261, fixed after 22): offset it by the tile's
      // start, as tiling does for other ops. A staticized masked sum reads
      // its row index there once its validity mask is fused in.
      for (Operation *tiledOp : tiled->tiledOps) {
        auto partial = dyn_cast<linalg::LinalgOp>(tiledOp);
        if (!partial || partial.getNumLoops() != op.getNumLoops() ||
            tiled->loops.size() != 1)
          continue;
        SmallVector<OpFoldResult> offsets(partial.getNumLoops(),
                                          rewriter.getIndexAttr(0));
        offsets[dim] = *tiled->loops.front().getSingleInductionVar();
        linalg::offsetIndices(rewriter, partial, offsets);
      }
      rewriter.replaceOp(op, tiled->replacements);
    }
  }
};
} // namespace
