//===- PopulatePatterns.h - The pattern files of SiftToLinalg ---*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The sift lowering is split by theme as torch-mlir's TorchToLinalg: each
// theme file (Random.cpp, Sort.cpp, Selection.cpp, Loss.cpp) holds the
// patterns of its ops and exports one populate function. Their building
// blocks are in Utils/, one header per subject: CodegenUtils.h (constants,
// casts, flattening, 1-D linalg maps), RuntimeChecks.h (calls into the sift
// runtime), Philox.h (Philox4x32-10), RadixSort.h (sort keys, radix sort
// and selection) and LineLoop.h (the CPU's scf.forall over the lines of an
// axis). Philox.h and RadixSort.h do not depend on LineLoop.h.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_CONVERSION_SIFTTOLINALG_POPULATEPATTERNS_H
#define SIFT_LIB_CONVERSION_SIFTTOLINALG_POPULATEPATTERNS_H

namespace mlir {
class RewritePatternSet;

namespace sift {
namespace lowering {

void populateRandomPatterns(RewritePatternSet &patterns, bool vectorLoops);
void populateSortPatterns(RewritePatternSet &patterns);
void populateSelectionPatterns(RewritePatternSet &patterns, bool gatherRows);
void populateLossPatterns(RewritePatternSet &patterns);
void populateScatterPatterns(RewritePatternSet &patterns);

} // namespace lowering
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_CONVERSION_SIFTTOLINALG_POPULATEPATTERNS_H
