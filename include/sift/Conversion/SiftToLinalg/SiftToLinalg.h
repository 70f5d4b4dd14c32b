//===- SiftToLinalg.h - Lowering of sift to upstream ops --------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The library entry point of the sift lowering: patterns that rewrite every
// sift op into linalg, scf, arith, math and tensor ops on tensors, ready for
// one-shot bufferization. `--convert-sift-to-linalg` only drives them.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_CONVERSION_SIFTTOLINALG_SIFTTOLINALG_H
#define SIFT_CONVERSION_SIFTTOLINALG_SIFTTOLINALG_H

#include <cstdint>

namespace mlir {
class Location;
class OpBuilder;
class RewritePatternSet;
class Value;

namespace sift {

/// Adds the patterns that lower every sift op to upstream dialects. An op
/// whose operands the lowering does not support (for instance a sort of an
/// `i128`) fails to match, giving the reason with `notifyMatchFailure`;
/// `--convert-sift-to-linalg` reports it as one error at the op.
/// `gatherRows` and `vectorLoops`: the CPU's forms of a gather of rows and
/// of the random ops' Philox loops (see `--convert-sift-to-linalg`).
void populateSiftToLinalgPatterns(RewritePatternSet &patterns,
                                  bool gatherRows = true,
                                  bool vectorLoops = true);

/// `if (dim(x, dx) != dim(y, dy)) sift_rt_fail(EXTENT_MISMATCH, both extents,
/// line of loc)`: two extents an op requires equal, checked at run time. The
/// call ends there, since what follows would read out of bounds (see
/// sift_rt_fail in sift/Runtime/SiftRuntime.h). `@sift_rt_fail` must be
/// declared in the module.
void emitExtentCheck(OpBuilder &b, Location loc, Value x, int64_t dx, Value y,
                     int64_t dy);

} // namespace sift
} // namespace mlir

#endif // SIFT_CONVERSION_SIFTTOLINALG_SIFTTOLINALG_H
