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

namespace mlir {
class RewritePatternSet;

namespace sift {

/// Adds the patterns that lower every sift op to upstream dialects. An op
/// whose operands the lowering does not support (for instance a sort of an
/// `i128`) fails to match with an error at the op.
void populateSiftToLinalgPatterns(RewritePatternSet &patterns);

} // namespace sift
} // namespace mlir

#endif // SIFT_CONVERSION_SIFTTOLINALG_SIFTTOLINALG_H
