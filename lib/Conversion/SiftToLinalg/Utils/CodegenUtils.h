//===- CodegenUtils.h - Small builders of the sift lowering -----*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Constants, casts, empty tensors, flattening and one-dimensional
// `linalg.generic` maps: the building blocks every lowering file uses, on
// any target (nothing here assumes the CPU's loop over lines).
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_CODEGENUTILS_H
#define SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_CODEGENUTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sift {
namespace lowering {

/// An `index` constant.
Value constIndex(OpBuilder &b, Location loc, int64_t value);
/// An integer (or index) constant of type `type`.
Value constInt(OpBuilder &b, Location loc, Type type, int64_t value);
/// Casts an `index` to `i64` and back.
Value indexToI64(OpBuilder &b, Location loc, Value value);
Value i64ToIndex(OpBuilder &b, Location loc, Value value);
/// An integer of any width as an i64: i1 zero-extended (a class index of a
/// boolean target), narrower ones sign-extended, wider ones truncated.
Value intToI64(OpBuilder &b, Location loc, Value value);
/// `tensor.empty` of the given sizes, filled with `value` when it is set.
Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType, Value fillValue = nullptr);
/// `tensor` (1-D) with the `size` elements from `offset` on set to
/// `value`, in place.
Value fillRange(OpBuilder &b, Location loc, Value tensor, Value offset,
                Value size, Value value);
/// The size of dimension `dim` of a ranked tensor, as a Value.
Value dimValue(OpBuilder &b, Location loc, Value tensor, int64_t dim);
/// Whether a scalar is "non-zero" in the sense of count/nonzero: `!= 0` for
/// integers, `une 0.0` for floats (so NaN is non-zero, -0.0 is zero).
Value isNonZero(OpBuilder &b, Location loc, Value scalar);
/// `tensor.cast` to `type` when the types differ.
Value castTo(OpBuilder &b, Location loc, Value value, Type type);
/// Replaces `op` with `values`, each cast (`castTo`) to the type of the
/// result it replaces.
void replaceOpWithCasts(RewriterBase &rewriter, Operation *op,
                        ValueRange values);
/// `cond ? thenValue() : elseValue` as an `scf.if`, for values whose
/// computation must not run (out-of-bounds reads) or that are tensors.
Value ifThenElse(OpBuilder &b, Location loc, Value cond,
                 function_ref<Value(OpBuilder &, Location)> thenValue,
                 Value elseValue);
/// The first `k` elements of a 1-D tensor (a static slice).
Value firstElements(OpBuilder &b, Location loc, Value line, int64_t k);

/// Builds `fn`'s ops inside an `scf.execute_region no_inline` located at
/// `NameLoc("sift.routine.<name>", loc)` and returns its results (those
/// `fn` returns). The
/// region is a routine that `--sift-outline-lines` turns into a function
/// after bufferization, one function for every set of identical routines
/// (a radix sort of the same key type and length runs the same code,
/// whichever op sorts). Without that pass the region is inlined when the
/// loops become branches. `fn` may use values from outside.
SmallVector<Value>
buildOutlinable(OpBuilder &b, Location loc, StringRef name,
                function_ref<SmallVector<Value>(OpBuilder &, Location)> fn);

/// Whether the lowering computes in the float type `type`: f16, bf16, f32
/// or f64.
bool isSupportedFloat(Type type);
/// Fails to match `op`, the reason being that the lowering has no code for
/// `elementType` (followed by `detail`, if any).
LogicalResult unsupportedElementType(RewriterBase &rewriter, Operation *op,
                                     Type elementType, StringRef detail = "");

/// Collapses a tensor of rank >= 0 into 1-D (rank 0 gives one element).
Value flatten(OpBuilder &b, Location loc, Value tensor);
/// Reshapes a 1-D tensor into `type` (of the same number of elements) whose
/// sizes are `sizes`.
Value unflatten(OpBuilder &b, Location loc, Value flat, RankedTensorType type,
                ArrayRef<OpFoldResult> sizes);

/// `linalg.generic` that maps each element of the 1-D `input` to an element
/// of a new tensor of `elementType` (the body also gets the element's index).
Value mapLine(OpBuilder &b, Location loc, Value input, Type elementType,
              function_ref<Value(OpBuilder &, Location, Value, Value)> fn);

/// `linalg.generic` that converts each integer element of a ranked tensor
/// to `elementType` (sign-extended or truncated).
Value castIntElements(OpBuilder &b, Location loc, Value input,
                      Type elementType);

/// `linalg.generic` that makes a 1-D tensor of `size` elements of
/// `elementType`, element `i` being `fn(i)` (`i` as an index).
Value generateLine(OpBuilder &b, Location loc, Value size, Type elementType,
                   function_ref<Value(OpBuilder &, Location, Value)> fn);

/// `linalg.generic` that makes one 1-D tensor of `size` elements per entry
/// of `elementTypes`, element `i` of each being the matching value of
/// `fn(i)`. The elements are written in place: a body that computes
/// several scalars per `i` (a loss and its weight) needs no buffer of its
/// own per `i`, as a loop writing tensors of one element would.
SmallVector<Value> generateLines(
    OpBuilder &b, Location loc, Value size, TypeRange elementTypes,
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value)> fn);

} // namespace lowering
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_CODEGENUTILS_H
