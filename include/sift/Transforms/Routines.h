//===- Routines.h - The lowering's outlinable routines ----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The marks shared by the lowering, which builds a sort, top-k or
// compaction of a line as a routine (an `scf.execute_region no_inline`,
// see lowering::buildOutlinable), --sift-outline-lines, which makes each
// distinct routine a function, and --sift-sequentialize-inner-parallel-dims,
// which runs the loops of a routine in sequence.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_TRANSFORMS_ROUTINES_H
#define SIFT_TRANSFORMS_ROUTINES_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace sift {

/// The prefix of the `NameLoc` of a routine's region: "sift.routine.<name>"
/// (a location, because bufferization rebuilds the op without its
/// attributes).
inline constexpr llvm::StringLiteral kRoutineLocPrefix = "sift.routine.";

/// The unit attribute of an outlined routine: the work of one line, whose
/// loops run on the calling thread (lines run in parallel, in the loop over
/// them that calls the routine).
inline constexpr llvm::StringLiteral kLineRoutineAttrName = "sift.line_routine";

} // namespace sift
} // namespace mlir

#endif // SIFT_TRANSFORMS_ROUTINES_H
