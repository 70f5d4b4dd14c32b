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

} // namespace lowering
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_PHILOX_H
