//===- BlockFloatReductions.cpp - --sift-block-float-reductions -----------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/TilingInterface.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTBLOCKFLOATREDUCTIONS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

/// Whether `combiner` gives the same result in any order and grouping:
/// integer add, mul and bitwise ops (wrapping), integer and float max and
/// min (`maximumf`'s NaN and signed zeros included).
static bool isExactCombiner(Operation *combiner) {
  return isa<arith::AddIOp, arith::MulIOp, arith::AndIOp, arith::OrIOp,
             arith::XOrIOp, arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp,
             arith::MinUIOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp>(combiner);
}

/// The combiner (`acc = addf(acc, x)`, or with `exact` also an exact
/// combiner, `isExactCombiner`) of each output of `op`; none unless every
/// output has one.
static SmallVector<Operation *> combinersOf(linalg::LinalgOp op, bool exact) {
  SmallVector<Operation *> found;
  for (unsigned i = 0; i < op.getNumDpsInits(); ++i) {
    SmallVector<Operation *> combiners;
    Value reduced = matchReduction(op.getRegionOutputArgs(), i, combiners);
    if (!reduced || combiners.size() != 1 ||
        !(isa<arith::AddFOp>(combiners[0]) ||
          (exact && isExactCombiner(combiners[0]))))
      return {};
    found.push_back(combiners[0]);
  }
  return found;
}

/// `combiner` of `acc` and `x` (a clone with those operands).
static Value combine(OpBuilder &b, Location loc, Operation *combiner, Value acc,
                     Value x) {
  IRMapping mapping;
  mapping.map(combiner->getOperand(0), acc);
  mapping.map(combiner->getOperand(1), x);
  return b.clone(*combiner, mapping)->getResult(0);
}

/// At the end of an `scf.forall`'s body: `scalar` into element `at` of the
/// shared output `out`.
static void insertElement(OpBuilder &b, Location loc, scf::ForallOp forall,
                          Value scalar, Value out, ValueRange at) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forall.getTerminator());
  auto type = cast<RankedTensorType>(out.getType());
  Value element = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, type.getElementType()), scalar);
  b.setInsertionPointToEnd(&forall.getTerminator().getRegion().front());
  SmallVector<OpFoldResult> offsets(at.begin(), at.end());
  SmallVector<OpFoldResult> ones(type.getRank(), b.getIndexAttr(1));
  tensor::ParallelInsertSliceOp::create(b, loc, element, out, offsets, ones,
                                        ones);
}

/// The lanes-outer form of the blocked sum of `op` along `dim` (see
/// Passes.td): lane `l` of output element `p` adds the elements
/// `l, l + lanes, ...` of the reduction in order, starting from the
/// neutral element, then each output element adds its lanes in order to its
/// initial value: the additions of the tiled form, in its order. An exact
/// combiner (integer sums, max, min) is blocked the same way. Fails
/// (nothing created) when an input is not a ranked tensor or the output is
/// not indexed by the parallel dimensions in order.
static FailureOr<SmallVector<Value>> buildLanesOuterSum(RewriterBase &rewriter,
                                                        linalg::LinalgOp op,
                                                        unsigned dim,
                                                        int64_t lanes) {
  SmallVector<Operation *> adds = combinersOf(op, /*exact=*/true);
  if (adds.empty())
    return failure();
  SmallVector<unsigned> parallelDims;
  op.getParallelDims(parallelDims);
  SmallVector<AffineExpr> parallelExprs;
  for (unsigned d : parallelDims)
    parallelExprs.push_back(rewriter.getAffineDimExpr(d));
  for (OpOperand &init : op.getDpsInitsMutable()) {
    auto type = dyn_cast<RankedTensorType>(init.get().getType());
    if (!type || op.getMatchingIndexingMap(&init).getResults() !=
                     ArrayRef<AffineExpr>(parallelExprs))
      return failure();
  }
  for (OpOperand *input : op.getDpsInputOperands())
    if (!isa<RankedTensorType>(input->get().getType()) &&
        !input->get().getType().isIntOrIndexOrFloat())
      return failure();

  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  SmallVector<OpFoldResult> ranges;
  for (Range range : op.createLoopRanges(rewriter, loc))
    ranges.push_back(range.size);
  Value extent = getValueOrCreateConstantIndexOp(rewriter, loc, ranges[dim]);
  Value lanesValue = arith::ConstantIndexOp::create(rewriter, loc, lanes);

  // The partial sums: the output's shape and the lanes, neutral elements.
  SmallVector<Value> partialInits;
  for (auto [init, add] : llvm::zip(op.getDpsInits(), adds)) {
    auto type = cast<RankedTensorType>(init.getType());
    SmallVector<OpFoldResult> shape =
        tensor::getMixedSizes(rewriter, loc, init);
    shape.push_back(rewriter.getIndexAttr(lanes));
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
    std::optional<TypedAttr> neutral = arith::getNeutralElement(add);
    if (!neutral)
      return failure();
    Value zero = arith::ConstantOp::create(rewriter, loc, *neutral);
    partialInits.push_back(
        linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0));
  }
  SmallVector<OpFoldResult> laneSpace;
  for (unsigned d : parallelDims)
    laneSpace.push_back(ranges[d]);
  laneSpace.push_back(rewriter.getIndexAttr(lanes));
  auto partial = scf::ForallOp::create(rewriter, loc, laneSpace, partialInits,
                                       std::nullopt);
  {
    OpBuilder::InsertionGuard inner(rewriter);
    rewriter.setInsertionPoint(partial.getTerminator());
    SmallVector<Value> ivs = partial.getInductionVars();
    Value lane = ivs.back();
    // Lane l adds the elements l + k * lanes below the extent:
    // k < (extent + lanes - 1 - l) / lanes.
    Value count = arith::DivUIOp::create(
        rewriter, loc,
        arith::SubIOp::create(
            rewriter, loc,
            arith::AddIOp::create(
                rewriter, loc, extent,
                arith::ConstantIndexOp::create(rewriter, loc, lanes - 1)),
            lane),
        lanesValue);
    SmallVector<Value> neutrals;
    for (Value init : partialInits)
      neutrals.push_back(
          init.getDefiningOp<linalg::FillOp>().getDpsInputs().front());
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, c0, count, c1, neutrals,
        [&](OpBuilder &b, Location l, Value k, ValueRange accs) {
          // The loop indices of the original op at this element.
          SmallVector<Value> indices(op.getNumLoops());
          for (auto [d, iv] :
               llvm::zip(parallelDims, ArrayRef<Value>(ivs).drop_back()))
            indices[d] = iv;
          for (unsigned d = 0; d < op.getNumLoops(); ++d)
            if (!indices[d])
              indices[d] = c0; // Unit reduction dimensions.
          indices[dim] = arith::AddIOp::create(
              b, l, arith::MulIOp::create(b, l, k, lanesValue), lane);
          IRMapping mapping;
          Block *body = op.getBlock();
          for (OpOperand *input : op.getDpsInputOperands()) {
            Value value = input->get();
            if (isa<RankedTensorType>(value.getType())) {
              SmallVector<Value> at;
              for (AffineExpr expr :
                   op.getMatchingIndexingMap(input).getResults())
                at.push_back(affine::AffineApplyOp::create(
                    b, l, AffineMap::get(op.getNumLoops(), 0, expr), indices));
              value = tensor::ExtractOp::create(b, l, value, at);
            }
            mapping.map(body->getArgument(input->getOperandNumber()), value);
          }
          for (auto [arg, acc] : llvm::zip(op.getRegionOutputArgs(), accs))
            mapping.map(arg, acc);
          for (Operation &nested : body->without_terminator()) {
            if (auto index = dyn_cast<linalg::IndexOp>(nested)) {
              mapping.map(index.getResult(), indices[index.getDim()]);
              continue;
            }
            b.clone(nested, mapping);
          }
          SmallVector<Value> next;
          for (Value yielded : body->getTerminator()->getOperands())
            next.push_back(mapping.lookupOrDefault(yielded));
          scf::YieldOp::create(b, l, next);
        });
    rewriter.setInsertionPointToStart(
        &partial.getTerminator().getRegion().front());
    for (auto [sum, out] :
         llvm::zip(loop.getResults(), partial.getRegionIterArgs()))
      insertElement(rewriter, loc, partial, sum, out, ivs);
  }

  // Each output element adds its lanes to its initial value, in order. A
  // scalar output is one element of a loop of one (a kernel of one thread
  // on the GPU, not host code).
  SmallVector<OpFoldResult> outSpace(laneSpace.begin(), laneSpace.end() - 1);
  bool scalar = outSpace.empty();
  std::optional<ArrayAttr> mapping;
  if (scalar) {
    // Mapped, so that canonicalization keeps the loop of one.
    outSpace.push_back(rewriter.getIndexAttr(1));
    mapping = rewriter.getArrayAttr({gpu::GPUBlockMappingAttr::get(
        rewriter.getContext(), gpu::MappingId::DimX)});
  }
  auto final = scf::ForallOp::create(
      rewriter, loc, outSpace, SmallVector<Value>(op.getDpsInits()), mapping);
  {
    OpBuilder::InsertionGuard inner(rewriter);
    rewriter.setInsertionPoint(final.getTerminator());
    SmallVector<Value> ivs = final.getInductionVars();
    SmallVector<Value> at;
    if (!scalar)
      at = ivs;
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> starts;
    for (Value out : final.getRegionIterArgs())
      starts.push_back(tensor::ExtractOp::create(rewriter, loc, out, at));
    auto loop = scf::ForOp::create(
        rewriter, loc, c0, lanesValue, c1, starts,
        [&](OpBuilder &b, Location l, Value lane, ValueRange accs) {
          SmallVector<Value> next;
          for (auto [acc, sums, add] :
               llvm::zip(accs, partial.getResults(), adds)) {
            SmallVector<Value> laneAt(at);
            laneAt.push_back(lane);
            Value x = tensor::ExtractOp::create(b, l, sums, laneAt);
            next.push_back(combine(b, l, add, acc, x));
          }
          scf::YieldOp::create(b, l, next);
        });
    rewriter.setInsertionPointToStart(
        &final.getTerminator().getRegion().front());
    for (auto [sum, out] :
         llvm::zip(loop.getResults(), final.getRegionIterArgs()))
      insertElement(rewriter, loc, final, sum, out, at);
  }
  return SmallVector<Value>(final.getResults());
}

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
    if (combinersOf(op, /*exact=*/lanesOuter).empty())
      return std::nullopt;
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
      if (lanesOuter) {
        FailureOr<SmallVector<Value>> sums =
            buildLanesOuterSum(rewriter, op, dim, lanes);
        if (succeeded(sums)) {
          rewriter.replaceOp(op, *sums);
          continue;
        }
        // An exact reduction gains nothing from the tiled form's order.
        if (!llvm::all_of(combinersOf(op, /*exact=*/true),
                          llvm::IsaPred<arith::AddFOp>))
          continue;
      }
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
