//===- Philox.h - Philox4x32-10 in arith ops --------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The counter-based random number generator of the random ops and
// sample_balanced: Philox4x32-10 (Salmon et al., SC'11) on i32 words with
// `arith.mului_extended`, bit for bit python/sift/reference/philox.py.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_PHILOX_H
#define SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_PHILOX_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallVector.h"

#include <array>

namespace mlir {
namespace sift {
namespace lowering {

/// The four 32-bit words of block `block` (i64) of the stream (seed, offset).
std::array<Value, 4> philoxBlock(OpBuilder &b, Location loc, Value seed,
                                 Value offset, Value block);
/// Word `word` (i64) of the stream (seed, offset), an i32.
Value philoxWord(OpBuilder &b, Location loc, Value seed, Value offset,
                 Value word);

/// The Feistel permutation of `sift.randperm_prefix` (and `sift.randperm
/// ... feistel`) over [0, n): its round keys and domain, and its six rounds.
constexpr int kFeistelRounds = 6;
/// The fewest bits of the rounds' domain. A domain of a few bits has round
/// functions of one or two bits, whose six rounds are far from a uniform
/// permutation: n = 5 over 3 bits gave a chi-square of 736 for 119 degrees
/// of freedom over 2880 seeds, 123 over 8 bits. Walks from 2^8 cost
/// 2^8 / n rounds a lane on average below n = 256.
constexpr int kFeistelMinBits = 8;
/// The round keys k_0 .. k_5 (i32): words 0 to 5 of the stream (seed,
/// offset).
SmallVector<Value> feistelKeys(OpBuilder &b, Location loc, Value seed,
                               Value offset);
/// The domain of the permutation of [0, n) for `n` (i64 in [1, 2^32]): `last`
/// is n - 1 (i32, an element x is in range when x <= last unsigned), and the
/// rounds' half widths l = b / 2 and r = b - l (i32), b = max(8, ceil(log2
/// n)).
struct FeistelDomain {
  Value last, l, r;
};
FeistelDomain feistelDomain(OpBuilder &b, Location loc, Value n);
/// The six rounds P applied to `x` (i32 in [0, 2^b), or a vector of them;
/// `keys` and `domain` are scalars).
Value feistelRounds(OpBuilder &b, Location loc, ArrayRef<Value> keys,
                    const FeistelDomain &domain, Value x);
/// P applied to each lane of `x` (a vector of i32) until every lane is in
/// [0, n): lanes already in range keep their value (an `scf.while` over the
/// vector).
Value feistelWalkLanes(OpBuilder &b, Location loc, ArrayRef<Value> keys,
                       const FeistelDomain &domain, Value x);
/// P applied to `x` (an i32) until the result is in [0, n): at least once
/// (an `scf.while`).
Value feistelWalk(OpBuilder &b, Location loc, ArrayRef<Value> keys,
                  const FeistelDomain &domain, Value x);

/// The inverse of `feistelRounds` on [0, 2^b) (`x` an i32): the rounds
/// undone from the last.
Value feistelInverseRounds(OpBuilder &b, Location loc, ArrayRef<Value> keys,
                           const FeistelDomain &domain, Value x);
/// The inverse of the permutation `feistelWalk` evaluates: for `x` in
/// [0, n), the lane j whose walk ends at x (P^-1 applied until in range).
Value feistelInverseWalk(OpBuilder &b, Location loc, ArrayRef<Value> keys,
                         const FeistelDomain &domain, Value x);

} // namespace lowering
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_PHILOX_H
