//===- OpUtils.cpp - Helpers of the sift ops' folders ---------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "OpUtils.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::oputils;

/// Checks `dim` against `rank` (negative counts from the end) and returns the
/// normalized axis.
FailureOr<int64_t> oputils::checkAxis(std::optional<Location> loc, int64_t dim,
                                      int64_t rank) {
  if (rank < 1)
    return emitOptionalError(loc, "expects an input of rank >= 1");
  if (dim < -rank || dim >= rank)
    return emitOptionalError(loc, "dim ", dim, " is out of range for rank ",
                             rank, " (expected -", rank, " <= dim < ", rank,
                             ")");
  return dim < 0 ? dim + rank : dim;
}

/// Whether every type in `types` is with at most kMaxFoldElements
/// elements (the product is computed without overflow).
bool oputils::smallEnoughToFold(ArrayRef<ShapedType> types) {
  for (ShapedType type : types) {
    if (!type || !type.hasStaticShape())
      return false;
    int64_t n = 1;
    for (int64_t d : type.getShape())
      if (d < 0 || llvm::MulOverflow(n, d, n) || n > kMaxFoldElements)
        return false;
  }
  return true;
}

SmallVector<ConstElem> oputils::getConstElems(DenseElementsAttr attr) {
  SmallVector<ConstElem> elems;
  elems.reserve(attr.getNumElements());
  if (isa<FloatType>(attr.getElementType())) {
    for (APFloat v : attr.getValues<APFloat>()) {
      ConstElem e;
      e.f = v;
      e.isFloat = true;
      elems.push_back(e);
    }
  } else {
    for (APInt v : attr.getValues<APInt>()) {
      ConstElem e;
      e.i = v;
      elems.push_back(e);
    }
  }
  return elems;
}

/// The total order of sift.sort: signed integers (i1 as 0 < 1); floats with
/// -0.0 == +0.0 and NaN above every number (NaNs equal to each other).
bool oputils::constLess(const ConstElem &a, const ConstElem &b) {
  if (!a.isFloat) {
    if (a.i.getBitWidth() == 1)
      return a.i.ult(b.i);
    return a.i.slt(b.i);
  }
  if (a.f.isNaN())
    return false;
  if (b.f.isNaN())
    return true;
  return a.f.compare(b.f) == APFloat::cmpLessThan;
}

/// Calls `fn(positions)` for every line of `shape` along `axis`, with the
/// row-major linear positions of that line's elements.
void oputils::forEachLine(ArrayRef<int64_t> shape, int64_t axis,
                          function_ref<void(ArrayRef<int64_t>)> fn) {
  int64_t n = shape[axis];
  int64_t inner = 1;
  for (int64_t d = axis + 1, e = shape.size(); d < e; ++d)
    inner *= shape[d];
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  SmallVector<int64_t> pos(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      for (int64_t j = 0; j < n; ++j)
        pos[j] = (o * n + j) * inner + in;
      fn(pos);
    }
  }
}

/// Stable sort order of `elems` along `axis`: for each line, the positions
/// within the line in sorted order.
SmallVector<int64_t> oputils::stableOrder(ArrayRef<ConstElem> elems,
                                          ArrayRef<int64_t> shape, int64_t axis,
                                          bool descending,
                                          SmallVectorImpl<int64_t> &srcPos) {
  SmallVector<int64_t> order(elems.size());
  srcPos.assign(elems.size(), 0);
  forEachLine(shape, axis, [&](ArrayRef<int64_t> pos) {
    SmallVector<int64_t> perm(pos.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      const ConstElem &x = elems[pos[a]], &y = elems[pos[b]];
      return descending ? constLess(y, x) : constLess(x, y);
    });
    for (size_t j = 0; j < pos.size(); ++j) {
      order[pos[j]] = perm[j];
      srcPos[pos[j]] = pos[perm[j]];
    }
  });
  return order;
}

DenseElementsAttr oputils::elemsToAttr(ShapedType type,
                                       ArrayRef<ConstElem> elems) {
  if (isa<FloatType>(type.getElementType())) {
    SmallVector<APFloat> vals;
    for (const ConstElem &e : elems)
      vals.push_back(e.f);
    return DenseElementsAttr::get(type, vals);
  }
  SmallVector<APInt> vals;
  for (const ConstElem &e : elems)
    vals.push_back(e.i);
  return DenseElementsAttr::get(type, vals);
}
