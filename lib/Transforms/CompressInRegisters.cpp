//===- CompressInRegisters.cpp - --sift-compress-in-registers -------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Compress stores as a compress in registers and a masked store (see the
// pass's description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTCOMPRESSINREGISTERS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

/// LLVM's target-independent compress of a vector's lanes in registers.
constexpr llvm::StringLiteral kCompressIntrinsic =
    "llvm.experimental.vector.compress";

/// The bits of a vector register the compress fills (AVX-512's zmm).
constexpr int64_t kRegisterBits = 512;

/// vector.compressstore %base[%i], %mask, %value
///   -> per register-sized part p of %value (in lane order), at %i + the
///      kept lanes of the parts before it:
///      %packed = the kept lanes of p, first (LLVM's vector.compress)
///      vector.maskedstore %base[...], create_mask(popcount(mask of p)),
///                         %packed
/// The same lanes reach the same addresses; nothing else is written. LLVM
/// legalizes a compress wider than a register through a stack slot (with a
/// misaligned aligned store at a dynamic offset, in LLVM 22): the parts
/// are split here instead.
struct CompressInRegisters : OpRewritePattern<vector::CompressStoreOp> {
  CompressInRegisters(MLIRContext *context, ArrayRef<int64_t> elementBits)
      : OpRewritePattern(context), elementBits(elementBits) {}

  LogicalResult matchAndRewrite(vector::CompressStoreOp store,
                                PatternRewriter &rewriter) const override {
    VectorType type = store.getVectorType();
    Type element = type.getElementType();
    // Index lanes have no LLVM type until the conversion; scalable and
    // multi-dimensional vectors are not what the lowering makes.
    if (type.getRank() != 1 || type.isScalable() || !element.isIntOrFloat())
      return rewriter.notifyMatchFailure(store, "not a 1-D int/float vector");
    int64_t bits = element.getIntOrFloatBitWidth();
    if (!llvm::is_contained(elementBits, bits))
      return rewriter.notifyMatchFailure(store, "no compress of such lanes");
    int64_t lanes = type.getNumElements(), partLanes = kRegisterBits / bits;
    if (lanes % partLanes != 0)
      return rewriter.notifyMatchFailure(store, "not whole registers");
    Location loc = store.getLoc();
    auto partType = VectorType::get({partLanes}, element);
    auto maskType = VectorType::get({partLanes}, rewriter.getI1Type());
    Value passthru = arith::ConstantOp::create(rewriter, loc, partType,
                                               rewriter.getZeroAttr(partType));
    SmallVector<Value> indices(store.getIndices());
    for (int64_t first = 0; first < lanes; first += partLanes) {
      Value part = store.getValueToStore(), mask = store.getMask();
      if (partLanes != lanes) {
        part = vector::ExtractStridedSliceOp::create(rewriter, loc, part, first,
                                                     partLanes, 1);
        mask = vector::ExtractStridedSliceOp::create(rewriter, loc, mask, first,
                                                     partLanes, 1);
      }
      auto packed = LLVM::CallIntrinsicOp::create(
          rewriter, loc, partType, rewriter.getStringAttr(kCompressIntrinsic),
          ValueRange{part, mask, passthru});
      // The kept lanes' count: the population of the mask's bits.
      Value word = vector::ExtractOp::create(
          rewriter, loc,
          vector::BitCastOp::create(
              rewriter, loc,
              VectorType::get({1}, rewriter.getIntegerType(partLanes)), mask),
          ArrayRef<int64_t>{0});
      Value count = arith::IndexCastUIOp::create(
          rewriter, loc, rewriter.getIndexType(),
          math::CtPopOp::create(rewriter, loc, word));
      Value kept = vector::CreateMaskOp::create(rewriter, loc, maskType, count);
      // (The builder taking an IntegerAttr alignment: docs/UpstreamBugs.md.)
      vector::MaskedStoreOp::create(rewriter, loc, store.getBase(), indices,
                                    kept, packed.getResult(0), IntegerAttr());
      indices.back() =
          arith::AddIOp::create(rewriter, loc, indices.back(), count);
    }
    rewriter.eraseOp(store);
    return success();
  }

  ArrayRef<int64_t> elementBits;
};

/// See SiftCompressInRegisters in Passes.td.
struct CompressInRegistersPass
    : sift::impl::SiftCompressInRegistersBase<CompressInRegistersPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<CompressInRegisters>(&getContext(), elementBits);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
