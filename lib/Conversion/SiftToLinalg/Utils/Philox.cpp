//===- Philox.cpp - Philox4x32-10 in arith ops ------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Philox.h"

#include "CodegenUtils.h"

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
