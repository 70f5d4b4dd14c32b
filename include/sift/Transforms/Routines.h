//===- Routines.h - The lowering's outlinable routines ----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The marks shared by the lowering, which builds a sort, top-k or
// compaction of a line as a routine (an `scf.execute_region no_inline`,
// see lowering::buildOutlinable), --sift-outline-lines, which makes each
// distinct routine a function, --sift-sequentialize-inner-parallel-dims,
// which runs the loops of a routine in sequence, and
// --sift-eliminate-alloc-tensors, which leaves a routine's buffers to it.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_TRANSFORMS_ROUTINES_H
#define SIFT_TRANSFORMS_ROUTINES_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace sift {

/// The prefix of the `NameLoc` of a routine's region: "sift.routine.<name>"
/// (a location, because bufferization rebuilds the op without its
/// attributes).
inline constexpr llvm::StringLiteral kRoutineLocPrefix = "sift.routine.";

/// The routine name of a region the lowering marked (no_inline, named
/// `kRoutineLocPrefix` + name), or "".
inline llvm::StringRef routineName(scf::ExecuteRegionOp region) {
  auto named = llvm::dyn_cast<NameLoc>(region.getLoc());
  if (!region.getNoInline() || !named)
    return "";
  llvm::StringRef name = named.getName().getValue();
  return name.consume_front(kRoutineLocPrefix) ? name : "";
}

/// The unit attribute of an outlined routine: the work of one line, whose
/// loops run on the calling thread (lines run in parallel, in the loop over
/// them that calls the routine).
inline constexpr llvm::StringLiteral kLineRoutineAttrName = "sift.line_routine";

/// An i64 attribute of a call: at most how many innermost loop iterations
/// one run of the callee takes (a Philox chunk: its blocks), which
/// --sift-sequentialize-inner-parallel-dims weighs as the call's work; a
/// call without it does work that pass cannot see.
inline constexpr llvm::StringLiteral kStaticWorkAttrName = "sift.static_work";

} // namespace sift
} // namespace mlir

#endif // SIFT_TRANSFORMS_ROUTINES_H
