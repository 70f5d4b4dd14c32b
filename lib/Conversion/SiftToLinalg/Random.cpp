//===- Random.cpp - Lowering of the sift random ops -------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// `random_bits`, `random_uniform` and `randperm`: every element computes its
// own Philox4x32-10 block from its row-major number (a `linalg.generic` with
// no inputs, fully parallel), so the streams are bit-identical to the
// reference in python/sift/reference/philox.py on every target.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "sift/Dialect/Sift/IR/SiftOps.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::lowering;

namespace {

/// The `offset` operand, or a zero `i64`.
static Value offsetOrZero(OpBuilder &b, Location loc, Value offset) {
  return offset ? offset : constInt(b, loc, b.getI64Type(), 0);
}

/// A `linalg.generic` producing a static tensor of `type` whose element of
/// row-major number `i` (an `i64`) is `fn(i)`.
static Value
generateTensor(OpBuilder &b, Location loc, RankedTensorType type,
               function_ref<Value(OpBuilder &, Location, Value)> fn) {
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  int64_t rank = type.getRank();
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)}, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange) {
        Value linear = constIndex(nb, nloc, 0);
        for (int64_t d = 0; d < rank; ++d) {
          Value i = linalg::IndexOp::create(nb, nloc, d);
          linear = arith::AddIOp::create(
              nb, nloc,
              arith::MulIOp::create(nb, nloc, linear,
                                    constIndex(nb, nloc, type.getDimSize(d))),
              i);
        }
        linalg::YieldOp::create(nb, nloc,
                                fn(nb, nloc, indexToI64(nb, nloc, linear)));
      });
  return generic.getResult(0);
}

/// Words 2i and 2i+1 of the stream (both in block i/2), as (low, high).
static std::pair<Value, Value> philoxPair(OpBuilder &b, Location loc,
                                          Value seed, Value offset, Value i) {
  Type i64 = b.getI64Type();
  Value block = arith::ShRUIOp::create(b, loc, i, constInt(b, loc, i64, 1));
  Value odd = arith::TruncIOp::create(b, loc, b.getI1Type(), i);
  std::array<Value, 4> w = philoxBlock(b, loc, seed, offset, block);
  Value lo = arith::SelectOp::create(b, loc, odd, w[2], w[0]);
  Value hi = arith::SelectOp::create(b, loc, odd, w[3], w[1]);
  return {lo, hi};
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
    Value result = generateTensor(
        rewriter, loc, type, [&](OpBuilder &b, Location loc, Value i) {
          if (!wide)
            return philoxWord(b, loc, seed, offset, i);
          Type i64 = b.getI64Type();
          auto [lo, hi] = philoxPair(b, loc, seed, offset, i);
          Value h = arith::ShLIOp::create(
              b, loc, arith::ExtUIOp::create(b, loc, i64, hi),
              constInt(b, loc, i64, 32));
          return Value(arith::OrIOp::create(
              b, loc, h, arith::ExtUIOp::create(b, loc, i64, lo)));
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
    Value result = generateTensor(
        rewriter, loc, type, [&](OpBuilder &b, Location loc, Value i) {
          Type i32 = b.getI32Type(), i64 = b.getI64Type(), f32 = b.getF32Type();
          if (floatType.isF64()) {
            // ((hi >> 11) * 2^32 + lo) * 2^-53: a 53-bit integer, exact.
            auto [lo, hi] = philoxPair(b, loc, seed, offset, i);
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
          Value w = philoxWord(b, loc, seed, offset, i);
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
