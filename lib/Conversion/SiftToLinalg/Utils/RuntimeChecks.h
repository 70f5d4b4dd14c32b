//===- RuntimeChecks.h - Run-time checks of the sift lowering ---*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The calls into the sift runtime that report run-time errors
// (sift/Runtime/SiftRuntime.h): their declarations and the checks that
// call them. `sift::emitExtentCheck` is public (SiftToLinalg.h).
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_RUNTIMECHECKS_H
#define SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_RUNTIMECHECKS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sift {
namespace lowering {

/// Declares the runtime's `func.func private @sift_rt_report(i64, i64, i64,
/// i64)` and `@sift_rt_fail` (the same type) in the module of `op`. When a
/// different symbol has one of their names (or `op` is outside a module) it
/// declares nothing and fails to match, with the reason
/// (`notifyMatchFailure`): call it before the pattern changes anything.
LogicalResult declareRuntimeReport(RewriterBase &rewriter, Operation *op);
/// `if (failed) sift_rt_report(code, values...)`: records a run-time error
/// (SiftRtErrorCode `code`) with up to three values (i64 or index) for the
/// host to report (see sift/Runtime/SiftRuntime.h). Compiled code goes on
/// after it: the caller makes what follows memory-safe (clamps sizes).
void emitRuntimeCheck(OpBuilder &b, Location loc, Value failed, int64_t code,
                      ValueRange values);
/// `if (failed) sift_rt_fail(code, values...)`: as emitRuntimeCheck, for an
/// error after which the code cannot go on (the call ends).
void emitRuntimeFail(OpBuilder &b, Location loc, Value failed, int64_t code,
                     ValueRange values);
/// sift::emitExtentCheck for each of the first `n` dimensions of the tensors
/// `x` and `y` that is dynamic in either (declaring the runtime functions,
/// which can fail to match as `declareRuntimeReport`).
LogicalResult checkLeadingExtents(RewriterBase &rewriter, Operation *op,
                                  Value x, Value y, int64_t n);

} // namespace lowering
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_RUNTIMECHECKS_H
