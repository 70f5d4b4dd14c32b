//===- Transforms.h - Staticize and batch as library calls ------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The two rewrites at the heart of sift as functions a driver can call
// without a pass manager (the JIT, the Python module, another pass). The
// passes `--sift-staticize` and `--sift-batch` are thin wrappers that turn
// their options into these calls. In the shape of upstream's
// `mlir/Dialect/Tensor/Transforms/Transforms.h`.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_DIALECT_SIFT_TRANSFORMS_TRANSFORMS_H
#define SIFT_DIALECT_SIFT_TRANSFORMS_TRANSFORMS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir {
namespace sift {

//===----------------------------------------------------------------------===//
// Staticize
//===----------------------------------------------------------------------===//

/// What `staticizeFunction` did, for remarks and pass statistics.
struct StaticizeResult {
  /// Data-dependent values rewritten into a static bound plus a count/mask.
  int64_t numRewritten = 0;
  /// Host reads of a data-dependent size that no longer exist.
  int64_t numSyncsRemoved = 0;
  /// One entry per padded value: where, its name in remarks, its bound.
  struct PaddedValue {
    Location loc;
    std::string name;
    int64_t bound;
  };
  SmallVector<PaddedValue> padded;
};

/// Rewrites every data-dependent shape in `func` into a static upper bound
/// plus a validity count or mask (docs/Staticize.md). Values without a
/// provable bound are left dynamic (`--sift-verify-static` reports them).
/// Fails, with a diagnostic on the offending op, only on IR it cannot
/// rewrite soundly; `func` may then be partially rewritten.
FailureOr<StaticizeResult> staticizeFunction(func::FuncOp func);

//===----------------------------------------------------------------------===//
// Batch
//===----------------------------------------------------------------------===//

/// Options of `batchFunction`, as `--sift-batch` spells them.
struct BatchOptions {
  /// Rows of the batch (> 0).
  int64_t batchSize = 0;
  /// Argument positions shared by every row (besides those marked
  /// `sift.unbatched`).
  SmallVector<unsigned> unbatchedArgs;
  /// Name of the new function; empty means `<name>_batched`.
  std::string batchedName;
};

/// Builds, next to `source`, a function that runs `source` on
/// `options.batchSize` independent rows at once (docs/Batch.md) and returns
/// it. `source` is unchanged. Fails with a diagnostic on `source` (and builds
/// nothing) when an argument, result or op has no batched form.
FailureOr<func::FuncOp> batchFunction(func::FuncOp source,
                                      const BatchOptions &options);

/// `axisOp`, a sort, argsort, top-k or cumsum along an axis other than the
/// last, as the same op along the last axis of its input transposed (that
/// axis moved last, the others in their order), the results that are read
/// transposed back (`linalg.transpose`). Fails, changing nothing, when the
/// axis is already the last (or for another op). `--sift-layout` applies it
/// where the lines are not contiguous; `--convert-sift-to-gpu` where the
/// last-axis form becomes a row kernel.
LogicalResult moveAxisLast(RewriterBase &rewriter, Operation *axisOp);

} // namespace sift
} // namespace mlir

#endif // SIFT_DIALECT_SIFT_TRANSFORMS_TRANSFORMS_H
