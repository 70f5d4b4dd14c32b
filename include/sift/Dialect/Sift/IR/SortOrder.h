//===- SortOrder.h - sift's order of keys ----------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// sift's sorts, argsorts, top-k and unique order keys the same way: false
// before true, signed integers (unsigned for an argsort or top-k marked
// `unsigned`), floats with -0.0 == +0.0 and NaN the largest. Passes that pad a
// line with keys that must rank after every valid one (staticize, the GPU top-k
// with `valid`) take them from here.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_DIALECT_SIFT_IR_SORTORDER_H
#define SIFT_DIALECT_SIFT_IR_SORTORDER_H

#include "mlir/IR/BuiltinAttributes.h"

namespace mlir {
namespace sift {

/// The key of `type` (an integer, i1 included, or a float) that ranks
/// after or with every other in sift's order, ascending (`ascending`: NaN,
/// the signed maximum, true) or descending (-inf, the signed minimum,
/// false); of an integer type ordered as unsigned (`isUnsigned`, the
/// `unsigned` of argsort and topk), all ones or zero. Stable sorts keep a
/// valid key equal to it ahead of padding that follows it.
TypedAttr getLastInSortOrder(Type type, bool ascending,
                             bool isUnsigned = false);

} // namespace sift
} // namespace mlir

#endif // SIFT_DIALECT_SIFT_IR_SORTORDER_H
