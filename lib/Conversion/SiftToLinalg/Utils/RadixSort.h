//===- RadixSort.h - Radix sort and selection on sort keys ------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Order-preserving unsigned keys of the sift total order, the stable LSD
// radix argsort that sorts them and the MSD radix selection of the k-th
// key: sequential loops on one 1-D line, for any target.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_RADIXSORT_H
#define SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_RADIXSORT_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace sift {
namespace lowering {

/// How the elements of a type map to unsigned radix keys.
struct SortKeyInfo {
  /// The width of the key integer (32 or 64).
  unsigned keyBits;
  /// How many low bits of the key vary (the radix passes cover only those).
  unsigned sortBits;
  /// Integers ordered as unsigned (the `unsigned` of argsort and topk).
  bool isUnsigned = false;
};

/// The key layout of an element type, or failure when unsupported; with
/// `isUnsigned`, of an integer type ordered as unsigned (failure for other
/// types).
FailureOr<SortKeyInfo> getSortKeyInfo(Type elementType,
                                      bool isUnsigned = false);

/// The unsigned key of a scalar: ascending unsigned order of keys is the
/// sift total order of values (signed integers, or unsigned ones with
/// `info.isUnsigned`, `i1` false < true, floats with -0.0 == +0.0 and every
/// NaN equal and largest). `descending` inverts the key's `sortBits`.
Value toSortKey(OpBuilder &b, Location loc, Value scalar,
                const SortKeyInfo &info, bool descending);

/// The element type of positions in a line of `length` elements (static or
/// ShapedType::kDynamic): i32 where every position fits (a static length
/// below 2^31), else i64. Sorts and selections carry positions this narrow.
Type positionType(OpBuilder &b, int64_t length);

/// Stable LSD radix argsort of the first `n` of the 1-D unsigned `keys`
/// (i32 or i64, only the low `sortBits` bits used): 11-bit digits for keys
/// of at most 32 bits on a static length of at least 16384 (more than 16
/// sort bits), else 8-bit ones.
/// Returns the sorted keys (with `withKeys`; null otherwise) and the
/// permutation (i64 indices into `keys`), as long as `keys`: with `n`
/// below a static length, their lanes past `n` are not written.
std::pair<Value, Value> radixArgsort(OpBuilder &b, Location loc, Value keys,
                                     Value n, unsigned sortBits,
                                     bool withKeys = false);

/// MSD radix selection of the `k`-th smallest (an i64, 1 <= k <= n) of `n`
/// unsigned keys of `keyType` (as `radixArgsort`), the key of element `i`
/// (an index) being `keyAt(i)`. Returns the threshold key T (that k-th
/// smallest key) and how many keys equal to T are among the k smallest (an
/// i64 in [1, k]); the others are the keys below T. The candidates are
/// compacted into a buffer of `capacity` keys (at least n; `n` when null):
/// a constant capacity keeps that buffer of static size when n is not.
std::pair<Value, Value>
radixSelect(OpBuilder &b, Location loc, Type keyType, Value n, Value k,
            unsigned sortBits,
            function_ref<Value(OpBuilder &, Location, Value)> keyAt,
            OpFoldResult capacity = {});

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

} // namespace lowering
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_CONVERSION_SIFTTOLINALG_UTILS_RADIXSORT_H
