//===- Random.cpp - Lowering of the sift random ops -------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// `random_bits`, `random_uniform` and `randperm`: element i of the row-major
// order takes word i of the Philox4x32-10 stream (words 2i and 2i+1 for
// 64-bit elements), so the streams are bit-identical to the reference in
// python/sift/reference/philox.py on every target. The tensor ops loop over
// the stream's blocks, computing each block once for the elements it covers.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "sift/Dialect/Sift/IR/SiftOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::lowering;

namespace {

/// The `offset` operand, or a zero `i64`.
static Value offsetOrZero(OpBuilder &b, Location loc, Value offset) {
  return offset ? offset : constInt(b, loc, b.getI64Type(), 0);
}

/// A static tensor of `type` filled from the stream (seed, offset): each
/// element takes `wordsPerElement` (1 or 2) consecutive words, element `i`
/// the words from `i * wordsPerElement` on, and is `fn(words)`. Each Philox
/// block is computed once and gives the 4 / `wordsPerElement` elements it
/// covers: one parallel `linalg.generic` over the full blocks writes them
/// through stride-`perBlock` views of one buffer (a tensor-level form would
/// need a plane per lane and an interleaving copy, or copies of aliasing
/// slices), then the last, partial block is stored element by element. The
/// buffer becomes the result tensor with `bufferization.to_tensor restrict
/// writable`: nothing else refers to it.
static Value generateFromBlocks(
    OpBuilder &b, Location loc, RankedTensorType type, Value seed, Value offset,
    unsigned wordsPerElement,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> fn) {
  int64_t total = type.getNumElements();
  int64_t perBlock = 4 / wordsPerElement;
  int64_t fullBlocks = total / perBlock, tail = total % perBlock;
  Type elementType = type.getElementType();
  auto flatType = MemRefType::get({total}, elementType);
  Value buffer = memref::AllocOp::create(b, loc, flatType);
  auto elementsOf = [&](OpBuilder &b, Location loc, Value block,
                        int64_t count) {
    std::array<Value, 4> words =
        philoxBlock(b, loc, seed, offset, indexToI64(b, loc, block));
    SmallVector<Value> values;
    for (int64_t e = 0; e < count; ++e)
      values.push_back(fn(
          b, loc,
          ArrayRef<Value>(words).slice(e * wordsPerElement, wordsPerElement)));
    return values;
  };
  if (fullBlocks > 0) {
    SmallVector<Value> lanes;
    for (int64_t e = 0; e < perBlock; ++e)
      lanes.push_back(memref::SubViewOp::create(
          b, loc, buffer, ArrayRef<OpFoldResult>{b.getIndexAttr(e)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(fullBlocks)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(perBlock)}));
    AffineMap id = b.getMultiDimIdentityMap(1);
    linalg::GenericOp::create(
        b, loc, TypeRange{}, ValueRange{}, lanes,
        SmallVector<AffineMap>(perBlock, id),
        ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
        [&](OpBuilder &nb, Location nloc, ValueRange) {
          Value block = linalg::IndexOp::create(nb, nloc, 0);
          linalg::YieldOp::create(nb, nloc,
                                  elementsOf(nb, nloc, block, perBlock));
        });
  }
  if (tail) {
    SmallVector<Value> values =
        elementsOf(b, loc, constIndex(b, loc, fullBlocks), tail);
    for (int64_t e = 0; e < tail; ++e)
      memref::StoreOp::create(
          b, loc, values[e], buffer,
          ValueRange{constIndex(b, loc, fullBlocks * perBlock + e)});
  }
  Value flat = bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get({total}, elementType), buffer,
      /*restrict=*/true, /*writable=*/true);
  SmallVector<OpFoldResult> sizes;
  for (int64_t size : type.getShape())
    sizes.push_back(b.getIndexAttr(size));
  return unflatten(b, loc, flat, type, sizes);
}

struct RandomBitsLowering : OpRewritePattern<RandomBitsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RandomBitsOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!type.hasStaticShape())
      return op.emitOpError("has no CPU lowering for a dynamic shape");
    Location loc = op.getLoc();
    Value seed = op.getSeed();
    Value offset = offsetOrZero(rewriter, loc, op.getOffset());
    bool wide = type.getElementType().isInteger(64);
    Value result = generateFromBlocks(
        rewriter, loc, type, seed, offset, wide ? 2 : 1,
        [&](OpBuilder &b, Location loc, ArrayRef<Value> w) -> Value {
          if (!wide)
            return w[0];
          // Words 2i (low half) and 2i+1 (high half).
          Type i64 = b.getI64Type();
          Value h = arith::ShLIOp::create(
              b, loc, arith::ExtUIOp::create(b, loc, i64, w[1]),
              constInt(b, loc, i64, 32));
          return arith::OrIOp::create(
              b, loc, h, arith::ExtUIOp::create(b, loc, i64, w[0]));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct RandomUniformLowering : OpRewritePattern<RandomUniformOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RandomUniformOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto floatType = cast<FloatType>(type.getElementType());
    if (!type.hasStaticShape())
      return op.emitOpError("has no CPU lowering for a dynamic shape");
    if (!floatType.isF16() && !floatType.isBF16() && !floatType.isF32() &&
        !floatType.isF64())
      return op.emitOpError("has no CPU lowering for element type ")
             << floatType;
    Location loc = op.getLoc();
    Value seed = op.getSeed();
    Value offset = offsetOrZero(rewriter, loc, op.getOffset());
    Value result = generateFromBlocks(
        rewriter, loc, type, seed, offset, floatType.isF64() ? 2 : 1,
        [&](OpBuilder &b, Location loc, ArrayRef<Value> words) -> Value {
          Type i32 = b.getI32Type(), i64 = b.getI64Type(), f32 = b.getF32Type();
          if (floatType.isF64()) {
            // ((hi >> 11) * 2^32 + lo) * 2^-53: a 53-bit integer, exact.
            Value lo = words[0], hi = words[1];
            Value h =
                arith::ShRUIOp::create(b, loc, hi, constInt(b, loc, i32, 11));
            Value m = arith::OrIOp::create(
                b, loc,
                arith::ShLIOp::create(b, loc,
                                      arith::ExtUIOp::create(b, loc, i64, h),
                                      constInt(b, loc, i64, 32)),
                arith::ExtUIOp::create(b, loc, i64, lo));
            Value v = arith::UIToFPOp::create(b, loc, b.getF64Type(), m);
            Value scale = arith::ConstantOp::create(
                b, loc, b.getF64FloatAttr(std::ldexp(1.0, -53)));
            return Value(arith::MulFOp::create(b, loc, v, scale));
          }
          // (w >> 8) * 2^-24 in f32 (exact), then rounded toward zero.
          Value w = words[0];
          Value m = arith::ShRUIOp::create(b, loc, w, constInt(b, loc, i32, 8));
          Value v = arith::UIToFPOp::create(b, loc, f32, m);
          Value scale = arith::ConstantOp::create(
              b, loc, b.getF32FloatAttr(std::ldexp(1.0f, -24)));
          v = arith::MulFOp::create(b, loc, v, scale);
          if (floatType.isF32())
            return v;
          Value bits = arith::BitcastOp::create(b, loc, i32, v);
          if (floatType.isBF16()) {
            // bf16 is the top half of an f32: dropping the low half
            // truncates toward zero.
            Value top =
                arith::ShRUIOp::create(b, loc, bits, constInt(b, loc, i32, 16));
            Value half =
                arith::TruncIOp::create(b, loc, b.getIntegerType(16), top);
            return Value(arith::BitcastOp::create(b, loc, floatType, half));
          }
          // f16 keeps 10 of the 23 mantissa bits: clear the other 13, then
          // the conversion is exact (values below 2^-14 are multiples of
          // 2^-24, exact f16 subnormals).
          bits = arith::AndIOp::create(b, loc, bits,
                                       constInt(b, loc, i32, 0xFFFFE000));
          v = arith::BitcastOp::create(b, loc, f32, bits);
          return Value(arith::TruncFOp::create(b, loc, floatType, v));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct RandpermLowering : OpRewritePattern<RandpermOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RandpermOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value seed = op.getSeed();
    Value offset = offsetOrZero(rewriter, loc, op.getOffset());
    Value n = op.getN();
    // Stable ascending argsort of the first n unsigned 32-bit words.
    Value keys = generateLine(rewriter, loc, n, rewriter.getI32Type(),
                              [&](OpBuilder &b, Location loc, Value i) {
                                return philoxWord(b, loc, seed, offset,
                                                  indexToI64(b, loc, i));
                              });
    Value perm = radixArgsort(rewriter, loc, keys, n, 32).second;
    rewriter.replaceOp(op, castTo(rewriter, loc, perm, op.getType()));
    return success();
  }
};

} // namespace

void lowering::populateRandomPatterns(RewritePatternSet &patterns) {
  patterns.add<RandomBitsLowering, RandomUniformLowering, RandpermLowering>(
      patterns.getContext());
}
