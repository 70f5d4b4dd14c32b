//===- Philox.cpp - Philox4x32-10 in arith ops ------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Philox.h"

#include "CodegenUtils.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::lowering;

// Multipliers and Weyl key increments of Philox4x32 (Salmon et al., SC'11).
static constexpr int64_t kPhiloxM0 = 0xD2511F53;
static constexpr int64_t kPhiloxM1 = 0xCD9E8D57;
static constexpr int64_t kPhiloxW0 = 0x9E3779B9;
static constexpr int64_t kPhiloxW1 = 0xBB67AE85;

std::array<Value, 4> lowering::philoxBlock(OpBuilder &b, Location loc,
                                           Value seed, Value offset,
                                           Value block) {
  Type i32 = b.getI32Type();
  Value c32 = constInt(b, loc, b.getI64Type(), 32);
  auto lo = [&](Value v) -> Value {
    return arith::TruncIOp::create(b, loc, i32, v);
  };
  auto hi = [&](Value v) -> Value {
    return lo(arith::ShRUIOp::create(b, loc, v, c32));
  };
  Value k0 = lo(seed), k1 = hi(seed);
  Value c0 = lo(block), c1 = hi(block), c2 = lo(offset), c3 = hi(offset);
  Value m0 = constInt(b, loc, i32, kPhiloxM0);
  Value m1 = constInt(b, loc, i32, kPhiloxM1);
  Value w0 = constInt(b, loc, i32, kPhiloxW0);
  Value w1 = constInt(b, loc, i32, kPhiloxW1);
  for (int round = 0; round < 10; ++round) {
    if (round) {
      k0 = arith::AddIOp::create(b, loc, k0, w0);
      k1 = arith::AddIOp::create(b, loc, k1, w1);
    }
    auto p0 = arith::MulUIExtendedOp::create(b, loc, m0, c0);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, m1, c2);
    Value n0 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p1.getHigh(), c1), k0);
    Value n2 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p0.getHigh(), c3), k1);
    c0 = n0;
    c1 = p1.getLow();
    c2 = n2;
    c3 = p0.getLow();
  }
  return {c0, c1, c2, c3};
}

Value lowering::philoxWord(OpBuilder &b, Location loc, Value seed, Value offset,
                           Value word) {
  Type i64 = b.getI64Type();
  Value block = arith::ShRUIOp::create(b, loc, word, constInt(b, loc, i64, 2));
  Value lane = arith::AndIOp::create(b, loc, word, constInt(b, loc, i64, 3));
  std::array<Value, 4> words = philoxBlock(b, loc, seed, offset, block);
  Value result = words[3];
  for (int k = 2; k >= 0; --k) {
    Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                     constInt(b, loc, i64, k));
    result = arith::SelectOp::create(b, loc, is, words[k], result);
  }
  return result;
}

SmallVector<Value> lowering::feistelKeys(OpBuilder &b, Location loc, Value seed,
                                         Value offset) {
  Type i64 = b.getI64Type();
  SmallVector<Value> keys;
  for (int64_t block = 0; keys.size() < kFeistelRounds; ++block)
    for (Value word :
         philoxBlock(b, loc, seed, offset, constInt(b, loc, i64, block)))
      if (keys.size() < kFeistelRounds)
        keys.push_back(word);
  return keys;
}

FeistelDomain lowering::feistelDomain(OpBuilder &b, Location loc, Value n) {
  Type i32 = b.getI32Type();
  Value last = arith::TruncIOp::create(
      b, loc, i32,
      arith::SubIOp::create(b, loc, n, constInt(b, loc, b.getI64Type(), 1)));
  // ceil(log2 n) is the bit width of n - 1 (n >= 2); at least
  // kFeistelMinBits.
  Value zeros = math::CountLeadingZerosOp::create(b, loc, last);
  Value width = arith::SubIOp::create(b, loc, constInt(b, loc, i32, 32), zeros);
  width = arith::MaxUIOp::create(b, loc, width,
                                 constInt(b, loc, i32, kFeistelMinBits));
  Value l = arith::ShRUIOp::create(b, loc, width, constInt(b, loc, i32, 1));
  Value r = arith::SubIOp::create(b, loc, width, l);
  return {last, l, r};
}

/// `value` (an i32 constant) as a scalar or a splat of `like`'s type.
static Value constLike(OpBuilder &b, Location loc, Value like, int64_t value) {
  Type type = like.getType();
  auto attr = b.getIntegerAttr(getElementTypeOrSelf(type), value);
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(vector, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

/// The scalar `v` broadcast to `like`'s type (itself when `like` is scalar).
static Value broadcastLike(OpBuilder &b, Location loc, Value like, Value v) {
  if (auto vector = dyn_cast<VectorType>(like.getType()))
    return vector::BroadcastOp::create(b, loc, vector, v);
  return v;
}

/// MurmurHash3's 32-bit finalizer.
static Value fmix32(OpBuilder &b, Location loc, Value h) {
  auto xorShift = [&](Value v, int64_t shift) -> Value {
    Value s = arith::ShRUIOp::create(b, loc, v, constLike(b, loc, v, shift));
    return arith::XOrIOp::create(b, loc, v, s);
  };
  h = xorShift(h, 16);
  h = arith::MulIOp::create(b, loc, h, constLike(b, loc, h, 0x85ebca6b));
  h = xorShift(h, 13);
  h = arith::MulIOp::create(b, loc, h, constLike(b, loc, h, 0xc2b2ae35));
  return xorShift(h, 16);
}

Value lowering::feistelRounds(OpBuilder &b, Location loc, ArrayRef<Value> keys,
                              const FeistelDomain &domain, Value x) {
  Type i32 = b.getI32Type();
  Value one = constInt(b, loc, i32, 1);
  // 2^w - 1 for each half width.
  auto maskOf = [&](Value w) -> Value {
    Value bit = arith::ShLIOp::create(b, loc, one, w);
    return broadcastLike(b, loc, x, arith::SubIOp::create(b, loc, bit, one));
  };
  Value maskL = maskOf(domain.l), maskR = maskOf(domain.r);
  Value l = broadcastLike(b, loc, x, domain.l);
  Value r = broadcastLike(b, loc, x, domain.r);
  for (int i = 0; i < kFeistelRounds; ++i) {
    bool even = i % 2 == 0;
    Value hl = even ? l : r, hr = even ? r : l;
    Value maskHl = even ? maskL : maskR, maskHr = even ? maskR : maskL;
    Value c = arith::AndIOp::create(b, loc, x, maskHr);
    Value a = arith::ShRUIOp::create(b, loc, x, hr);
    Value key = broadcastLike(b, loc, x, keys[i]);
    Value f = fmix32(b, loc, arith::XOrIOp::create(b, loc, c, key));
    Value low = arith::AndIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, a, f), maskHl);
    Value high = arith::ShLIOp::create(b, loc, c, hl);
    x = arith::OrIOp::create(b, loc, high, low);
  }
  return x;
}

/// P (or, `inverse`, P^-1) applied to `x` (an i32) until the result is in
/// [0, n): at least once (an `scf.while`).
static Value walk(OpBuilder &b, Location loc, ArrayRef<Value> keys,
                  const FeistelDomain &domain, Value x, bool inverse) {
  Type i32 = b.getI32Type();
  auto loop = scf::WhileOp::create(
      b, loc, TypeRange{i32}, ValueRange{x},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value y =
            inverse
                ? lowering::feistelInverseRounds(b, loc, keys, domain, args[0])
                : lowering::feistelRounds(b, loc, keys, domain, args[0]);
        Value out = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, y,
                                          domain.last);
        scf::ConditionOp::create(b, loc, out, ValueRange{y});
      },
      [&](OpBuilder &b, Location loc, ValueRange args) {
        scf::YieldOp::create(b, loc, args);
      });
  return loop.getResult(0);
}

Value lowering::feistelWalk(OpBuilder &b, Location loc, ArrayRef<Value> keys,
                            const FeistelDomain &domain, Value x) {
  return walk(b, loc, keys, domain, x, /*inverse=*/false);
}

Value lowering::feistelInverseRounds(OpBuilder &b, Location loc,
                                     ArrayRef<Value> keys,
                                     const FeistelDomain &domain, Value x) {
  Type i32 = b.getI32Type();
  Value one = constInt(b, loc, i32, 1);
  auto maskOf = [&](Value w) -> Value {
    return arith::SubIOp::create(b, loc, arith::ShLIOp::create(b, loc, one, w),
                                 one);
  };
  Value maskL = maskOf(domain.l), maskR = maskOf(domain.r);
  // Round i took x = (a << hr) | c to y = (c << hl) | ((a ^ F(c ^ k_i)) mod
  // 2^hl): c is y's high hr bits, and a is y's low bits xor the same F.
  for (int i = kFeistelRounds - 1; i >= 0; --i) {
    bool even = i % 2 == 0;
    Value hl = even ? domain.l : domain.r, hr = even ? domain.r : domain.l;
    Value maskHl = even ? maskL : maskR;
    Value c = arith::ShRUIOp::create(b, loc, x, hl);
    Value f = fmix32(b, loc, arith::XOrIOp::create(b, loc, c, keys[i]));
    Value a = arith::AndIOp::create(b, loc, arith::XOrIOp::create(b, loc, x, f),
                                    maskHl);
    x = arith::OrIOp::create(b, loc, arith::ShLIOp::create(b, loc, a, hr), c);
  }
  return x;
}

Value lowering::feistelInverseWalk(OpBuilder &b, Location loc,
                                   ArrayRef<Value> keys,
                                   const FeistelDomain &domain, Value x) {
  return walk(b, loc, keys, domain, x, /*inverse=*/true);
}

Value lowering::feistelWalkLanes(OpBuilder &b, Location loc,
                                 ArrayRef<Value> keys,
                                 const FeistelDomain &domain, Value x) {
  auto vectorType = cast<VectorType>(x.getType());
  auto maskType = VectorType::get(vectorType.getShape(), b.getI1Type());
  Value last = broadcastLike(b, loc, x, domain.last);
  x = feistelRounds(b, loc, keys, domain, x);
  auto walk = scf::WhileOp::create(
      b, loc, TypeRange{vectorType, maskType}, ValueRange{x},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value out = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                          args[0], last);
        Value any =
            vector::ReductionOp::create(b, loc, vector::CombiningKind::OR, out);
        scf::ConditionOp::create(b, loc, any, ValueRange{args[0], out});
      },
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value y = feistelRounds(b, loc, keys, domain, args[0]);
        Value next = arith::SelectOp::create(b, loc, args[1], y, args[0]);
        scf::YieldOp::create(b, loc, next);
      });
  return walk.getResult(0);
}
