//===- GpuPrepareModules.cpp - --sift-gpu-prepare-modules -----------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTGPUPREPAREMODULES
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

/// The data layout of LLVM's NVPTX64 target (`nvptx64-nvidia-cuda`).
static constexpr llvm::StringLiteral kNvptx64DataLayout =
    "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64";

namespace {
/// The `pred` of `select %pred, 1 << lane, 0` (i32, the lane through
/// casts), or null.
static Value matchLaneBit(Value v) {
  auto select = v.getDefiningOp<arith::SelectOp>();
  if (!select || !v.getType().isInteger(32) ||
      !matchPattern(select.getFalseValue(), m_Zero()))
    return {};
  auto shift = select.getTrueValue().getDefiningOp<arith::ShLIOp>();
  if (!shift || !matchPattern(shift.getLhs(), m_One()))
    return {};
  Value lane = shift.getRhs();
  while (Operation *def = lane.getDefiningOp()) {
    if (isa<gpu::LaneIdOp>(def))
      return select.getCondition();
    if (!isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::TruncIOp,
             arith::ExtUIOp>(def))
      return {};
    lane = def->getOperand(0);
  }
  return {};
}

static Value createBallot(PatternRewriter &rewriter, Location loc, Value pred) {
  Value all =
      arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), -1);
  return NVVM::VoteSyncOp::create(
      rewriter, loc, rewriter.getI32Type(), all, pred,
      NVVM::VoteSyncKindAttr::get(rewriter.getContext(),
                                  NVVM::VoteSyncKind::ballot));
}

/// The `or` butterfly of a lane bit over the 32 lanes (five steps
/// `x | shuffle xor x, 2^k, 32`, k = 0..4 in any order) is a ballot.
struct ButterflyBallot : OpRewritePattern<arith::OrIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::OrIOp op,
                                PatternRewriter &rewriter) const override {
    Value current = op.getResult();
    unsigned offsets = 0;
    while (auto orOp = current.getDefiningOp<arith::OrIOp>()) {
      Value next;
      for (auto [mine, theirs] : {std::pair(orOp.getLhs(), orOp.getRhs()),
                                  std::pair(orOp.getRhs(), orOp.getLhs())}) {
        auto shuffle = theirs.getDefiningOp<gpu::ShuffleOp>();
        APInt offset, width;
        if (!shuffle || shuffle.getMode() != gpu::ShuffleMode::XOR ||
            shuffle.getValue() != mine ||
            theirs != shuffle.getShuffleResult() ||
            !matchPattern(shuffle.getOffset(), m_ConstantInt(&offset)) ||
            !matchPattern(shuffle.getWidth(), m_ConstantInt(&width)) ||
            width != 32 || !offset.isPowerOf2() || offset.uge(32) ||
            (offsets & offset.getZExtValue()))
          continue;
        offsets |= offset.getZExtValue();
        next = mine;
        break;
      }
      if (!next)
        return failure();
      current = next;
    }
    Value pred = matchLaneBit(current);
    if (offsets != 31 || !pred)
      return failure();
    rewriter.replaceOp(op, createBallot(rewriter, op.getLoc(), pred));
    return success();
  }
};

/// `gpu.subgroup_reduce or (select %pred, 1 << lane, 0)` over the whole
/// warp (i32) is a ballot: `nvvm.vote.sync ballot` with every lane.
struct BallotIdiom : OpRewritePattern<gpu::SubgroupReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(gpu::SubgroupReduceOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getOp() != gpu::AllReduceOperation::OR ||
        !op.getType().isInteger(32) || !op.getUniform() ||
        (op.getClusterSize() && *op.getClusterSize() != 32))
      return failure();
    Value pred = matchLaneBit(op.getValue());
    if (!pred)
      return failure();
    rewriter.replaceOp(op, createBallot(rewriter, op.getLoc(), pred));
    return success();
  }
};

/// A 32-bit `arith.mului_extended` (`mulsi_extended`) as `arith.muli` for
/// the low half and `llvm.nvvm.mulhi.ui` (`.i`) for the high half. The
/// generic lowering multiplies the operands widened to 64 bits; LLVM's
/// instcombine then widens the xors of Philox's rounds to 64 bits too, so
/// the NVPTX back end no longer sees the zero extensions its `mul.wide.u32`
/// needs and emits emulated 64-bit multiplies (`mul.lo.s64`).
template <typename MulOp, bool isSigned>
struct MulExtendedToNvvm : OpRewritePattern<MulOp> {
  using OpRewritePattern<MulOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getLhs().getType();
    if (!type.isInteger(32))
      return failure();
    Location loc = op.getLoc();
    Value low = arith::MulIOp::create(rewriter, loc, op.getLhs(), op.getRhs());
    StringAttr intrinsic = rewriter.getStringAttr(
        isSigned ? "llvm.nvvm.mulhi.i" : "llvm.nvvm.mulhi.ui");
    Value high =
        LLVM::CallIntrinsicOp::create(rewriter, loc, type, intrinsic,
                                      ValueRange{op.getLhs(), op.getRhs()})
            .getResult(0);
    rewriter.replaceOp(op, {low, high});
    return success();
  }
};

struct GpuPrepareModulesPass
    : public sift::impl::SiftGpuPrepareModulesBase<GpuPrepareModulesPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // Ballots first (a higher benefit than the expansion below).
    patterns.add<BallotIdiom, ButterflyBallot>(context, /*benefit=*/2);
    // 64-bit shuffles as two 32-bit ones.
    populateGpuShufflePatterns(patterns);
    // 32-bit multiplies with a high half (Philox) as two 32-bit multiplies.
    patterns.add<MulExtendedToNvvm<arith::MulUIExtendedOp, false>,
                 MulExtendedToNvvm<arith::MulSIExtendedOp, true>>(context);
    // Warps of 32 lanes; 32-bit shuffles (wider values are broken down).
    populateGpuBreakDownSubgroupReducePatterns(patterns,
                                               /*maxShuffleBitwidth=*/32);
    populateGpuLowerSubgroupReduceToShufflePatterns(patterns,
                                                    /*subgroupSize=*/32);
    populateGpuLowerClusteredSubgroupReduceToShufflePatterns(
        patterns, /*subgroupSize=*/32);
    FrozenRewritePatternSet frozen(std::move(patterns));
    StringAttr layout = StringAttr::get(context, kNvptx64DataLayout);
    for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
      if (failed(applyPatternsGreedily(module, frozen)))
        return signalPassFailure();
      module->setAttr(LLVM::LLVMDialect::getDataLayoutAttrName(), layout);
    }
  }
};
} // namespace
