//===- LineLoop.h - The loop over the lines of an axis ----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The CPU lowering's loop over the independent lines of an axis: an
// `scf.forall` (parallel threads on the CPU) that reads each line with
// `tensor.extract_slice` and writes its results back. Philox.h and
// RadixSort.h do not depend on it.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_LINELOOP_H
#define SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_LINELOOP_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace sift {
namespace lowering {

/// A result of `buildLineLoop`: either a tensor with the input's rank whose
/// `axis` dimension is `axisSize` (the body returns a 1-D line of it), or,
/// when `axisSize` is null, a tensor of the batch dimensions alone (the body
/// returns a scalar).
struct LineResult {
  Type elementType;
  OpFoldResult axisSize;
};

/// Body of a line loop: the 1-D lines of each input along the axis, and the
/// row-major linear number of the line among all lines.
using LineBodyFn = function_ref<SmallVector<Value>(
    OpBuilder &b, Location loc, ValueRange lines, Value lineNumber)>;

/// Builds an `scf.forall` over every line of `inputs` (which share their
/// shape) along `axis`, reading each line with `tensor.extract_slice` and
/// writing its results with `tensor.parallel_insert_slice`; the lines are
/// independent. A 1-D input is a single line: the body is built once, with
/// no loop. Returns one tensor per `results` entry.
SmallVector<Value> buildLineLoop(OpBuilder &b, Location loc, ValueRange inputs,
                                 int64_t axis, ArrayRef<LineResult> results,
                                 LineBodyFn body);

/// Body of a line loop that writes its line results in place: as
/// `LineBodyFn`, plus `outLines`, the slices of the results this line
/// writes (null for scalar results). A line result the body returns that is
/// `outLines[i]` updated in place (inserts, fills) bufferizes into the
/// result itself, with no copy.
using LineBodyInPlaceFn = function_ref<SmallVector<Value>(
    OpBuilder &b, Location loc, ValueRange lines, ValueRange outLines,
    Value lineNumber)>;

/// `buildLineLoop` whose body gets the result lines to write into.
SmallVector<Value> buildLineLoopInPlace(OpBuilder &b, Location loc,
                                        ValueRange inputs, int64_t axis,
                                        ArrayRef<LineResult> results,
                                        LineBodyInPlaceFn body);

} // namespace lowering
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_LINELOOP_H
