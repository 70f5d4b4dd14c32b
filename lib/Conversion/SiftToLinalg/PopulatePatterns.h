//===- PopulatePatterns.h - Private helpers of SiftToLinalg -----*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Shared building blocks of the sift lowering (split by theme as torch-mlir's
// TorchToLinalg): constants, the loop over the lines of an axis, flattening,
// Philox4x32-10, order-preserving sort keys and the LSD radix argsort. Each
// theme file exports one populate function.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_CONVERSION_SIFTTOLINALG_POPULATEPATTERNS_H
#define SIFT_LIB_CONVERSION_SIFTTOLINALG_POPULATEPATTERNS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sift {
namespace lowering {

//===----------------------------------------------------------------------===//
// Scalars and tensors
//===----------------------------------------------------------------------===//

/// An `index` constant.
Value constIndex(OpBuilder &b, Location loc, int64_t value);
/// An integer (or index) constant of type `type`.
Value constInt(OpBuilder &b, Location loc, Type type, int64_t value);
/// Casts an `index` to `i64` and back.
Value indexToI64(OpBuilder &b, Location loc, Value value);
Value i64ToIndex(OpBuilder &b, Location loc, Value value);
/// `tensor.empty` of the given sizes, filled with `value` when it is set.
Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType, Value fillValue = nullptr);
/// The size of dimension `dim` of a ranked tensor, as a Value.
Value dimValue(OpBuilder &b, Location loc, Value tensor, int64_t dim);
/// Whether a scalar is "non-zero" in the sense of count/nonzero: `!= 0` for
/// integers, `une 0.0` for floats (so NaN is non-zero, -0.0 is zero).
Value isNonZero(OpBuilder &b, Location loc, Value scalar);
/// `tensor.cast` to `type` when the types differ.
Value castTo(OpBuilder &b, Location loc, Value value, Type type);
/// `cond ? thenValue() : elseValue` as an `scf.if`, for values whose
/// computation must not run (out-of-bounds reads) or that are tensors.
Value ifThenElse(OpBuilder &b, Location loc, Value cond,
                 function_ref<Value(OpBuilder &, Location)> thenValue,
                 Value elseValue);
/// The first `k` elements of a 1-D tensor (a static slice).
Value firstElements(OpBuilder &b, Location loc, Value line, int64_t k);

/// Collapses a tensor of rank >= 0 into 1-D (rank 0 gives one element).
Value flatten(OpBuilder &b, Location loc, Value tensor);
/// Reshapes a 1-D tensor into `type` (of the same number of elements) whose
/// sizes are `sizes`.
Value unflatten(OpBuilder &b, Location loc, Value flat, RankedTensorType type,
                ArrayRef<OpFoldResult> sizes);

//===----------------------------------------------------------------------===//
// Run-time checks
//===----------------------------------------------------------------------===//

/// Declares the runtime's `func.func private @sift_rt_report(i64, i64, i64,
/// i64)` and `@sift_rt_fail` (the same type) in the module of `op` (an error
/// when a different symbol has one of their names).
LogicalResult declareRuntimeReport(OpBuilder &b, Operation *op);
/// `if (failed) sift_rt_report(code, values...)`: records a run-time error
/// (SiftRtErrorCode `code`) with up to three values (i64 or index) for the
/// host to report (see sift/Runtime/SiftRuntime.h). Compiled code goes on
/// after it: the caller makes what follows memory-safe (clamps sizes).
void emitRuntimeCheck(OpBuilder &b, Location loc, Value failed, int64_t code,
                      ValueRange values);
/// sift::emitExtentCheck for each of the first `n` dimensions of the tensors
/// `x` and `y` that is dynamic in either (declaring the runtime functions).
LogicalResult checkLeadingExtents(OpBuilder &b, Operation *op, Value x, Value y,
                                  int64_t n);

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

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

/// Builds a loop over every line of `inputs` (which share their shape) along
/// `axis`, reading each line with `tensor.extract_slice` and writing its
/// results with `tensor.insert_slice`. The lines are independent. (An
/// `scf.forall` form crashed when built inside a pattern; see the report.)
/// Returns one tensor per `results` entry.
SmallVector<Value> buildLineLoop(OpBuilder &b, Location loc, ValueRange inputs,
                                 int64_t axis, ArrayRef<LineResult> results,
                                 LineBodyFn body);

/// `linalg.generic` that maps each element of the 1-D `input` to an element
/// of a new tensor of `elementType` (the body also gets the element's index).
Value mapLine(OpBuilder &b, Location loc, Value input, Type elementType,
              function_ref<Value(OpBuilder &, Location, Value, Value)> fn);

/// `linalg.generic` that makes a 1-D tensor of `size` elements of
/// `elementType`, element `i` being `fn(i)` (`i` as an index).
Value generateLine(OpBuilder &b, Location loc, Value size, Type elementType,
                   function_ref<Value(OpBuilder &, Location, Value)> fn);

//===----------------------------------------------------------------------===//
// Philox4x32-10
//===----------------------------------------------------------------------===//

/// The four 32-bit words of block `block` (i64) of the stream (seed, offset).
std::array<Value, 4> philoxBlock(OpBuilder &b, Location loc, Value seed,
                                 Value offset, Value block);
/// Word `word` (i64) of the stream (seed, offset), an i32.
Value philoxWord(OpBuilder &b, Location loc, Value seed, Value offset,
                 Value word);

//===----------------------------------------------------------------------===//
// Sorting
//===----------------------------------------------------------------------===//

/// How the elements of a type map to unsigned radix keys.
struct SortKeyInfo {
  /// The width of the key integer (32 or 64).
  unsigned keyBits;
  /// How many low bits of the key vary (the radix passes cover only those).
  unsigned sortBits;
};

/// The key layout of an element type, or failure when unsupported.
FailureOr<SortKeyInfo> getSortKeyInfo(Type elementType);

/// The unsigned key of a scalar: ascending unsigned order of keys is the
/// sift total order of values (signed integers, `i1` false < true, floats
/// with -0.0 == +0.0 and every NaN equal and largest). `descending` inverts
/// the key's `sortBits`.
Value toSortKey(OpBuilder &b, Location loc, Value scalar,
                const SortKeyInfo &info, bool descending);

/// Stable LSD radix argsort (8-bit digits) of the 1-D unsigned `keys`
/// (i32 or i64, `n` elements, only the low `sortBits` bits used). Returns the
/// sorted keys and the permutation (i64 indices into `keys`).
std::pair<Value, Value> radixArgsort(OpBuilder &b, Location loc, Value keys,
                                     Value n, unsigned sortBits);

/// MSD radix selection of the `k`-th smallest (an i64, 1 <= k <= n) of `n`
/// unsigned keys of `keyType` (as `radixArgsort`), the key of element `i`
/// (an index) being `keyAt(i)`. Returns the threshold key T (that k-th
/// smallest key) and how many keys equal to T are among the k smallest (an
/// i64 in [1, k]); the others are the keys below T.
std::pair<Value, Value>
radixSelect(OpBuilder &b, Location loc, Type keyType, Value n, Value k,
            unsigned sortBits,
            function_ref<Value(OpBuilder &, Location, Value)> keyAt);

/// The first step of an MSD radix selection of the `k`-th smallest (an i64,
/// 1 <= k <= n) of `n` keys (as `radixSelect`): the most significant 8-bit
/// digit in which the keys differ, and the k-th smallest key's value of it.
/// Every key agrees on the digits above it, so a key with a smaller digit is
/// among the k smallest and one with a larger digit is not.
struct RadixSplit {
  /// The digit's shift (of the key type).
  Value shift;
  /// The k-th smallest key's digit (of the key type).
  Value digit;
  /// How many keys have a smaller digit (an i64 below k).
  Value below;
  /// How many keys have that digit (an i64).
  Value count;
};
RadixSplit radixSplit(OpBuilder &b, Location loc, Type keyType, Value n,
                      Value k, unsigned sortBits,
                      function_ref<Value(OpBuilder &, Location, Value)> keyAt);

//===----------------------------------------------------------------------===//
// Populate functions of the themes
//===----------------------------------------------------------------------===//

void populateRandomPatterns(RewritePatternSet &patterns);
void populateSortPatterns(RewritePatternSet &patterns);
void populateSelectionPatterns(RewritePatternSet &patterns);
void populateLossPatterns(RewritePatternSet &patterns);

} // namespace lowering
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_CONVERSION_SIFTTOLINALG_POPULATEPATTERNS_H
