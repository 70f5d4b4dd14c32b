//===- SortOps.cpp - The sort, scan and top-k ops of sift -----------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Type inference, verifiers and folders of sift.cumsum, sift.sort,
// sift.argsort and sift.topk; the other ops are in SiftOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "OpUtils.h"

#include "sift/Dialect/Sift/IR/SiftOps.h"
#include "sift/Dialect/Sift/IR/SortOrder.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::oputils;

//===----------------------------------------------------------------------===//
// CumsumOp
//===----------------------------------------------------------------------===//

LogicalResult CumsumOp::verify() {
  auto inType = cast<RankedTensorType>(getInput().getType());
  auto outType = cast<RankedTensorType>(getResult().getType());
  if (failed(checkAxis(getLoc(), static_cast<int64_t>(getDim()),
                       inType.getRank())))
    return failure();
  if (inType.getShape() != outType.getShape())
    return emitOpError("expects a result of the input's shape, got ")
           << outType;
  Type inElem = inType.getElementType(), outElem = outType.getElementType();
  if (inElem.isInteger(1)) {
    if (!outElem.isSignlessInteger() || outElem.isInteger(1))
      return emitOpError("expects an integer result wider than i1 for a mask "
                         "input, got ")
             << outElem;
    return success();
  }
  if (inElem != outElem)
    return emitOpError("expects the result element type ")
           << inElem << " of the input, got " << outElem;
  return success();
}

OpFoldResult CumsumOp::fold(FoldAdaptor adaptor) {
  // Integer sums fold exactly; float sums are left to run time, whose
  // summation order the folder could not reproduce bit for bit.
  auto attr = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput());
  auto outType = cast<RankedTensorType>(getResult().getType());
  if (!attr || !outType.getElementType().isSignlessInteger() ||
      !smallEnoughToFold({attr.getType()}))
    return {};
  unsigned width = outType.getElementTypeBitWidth();
  bool isMask = attr.getElementType().isInteger(1);
  SmallVector<APInt> in;
  for (APInt v : attr.getValues<APInt>())
    in.push_back(isMask ? v.zext(width) : v);
  SmallVector<APInt> out(in.size(), APInt(width, 0));
  forEachLine(outType.getShape(), getAxis(), [&](ArrayRef<int64_t> pos) {
    APInt acc(width, 0);
    for (int64_t p : pos) {
      if (getExclusive()) {
        out[p] = acc;
        acc += in[p];
      } else {
        acc += in[p];
        out[p] = acc;
      }
    }
  });
  return DenseElementsAttr::get(outType, out);
}

//===----------------------------------------------------------------------===//
// SortOp and ArgsortOp
//===----------------------------------------------------------------------===//

LogicalResult SortOp::inferReturnTypes(MLIRContext *ctx,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  if (failed(checkAxis(loc, static_cast<int64_t>(adaptor.getDim()),
                       type.getRank())))
    return failure();
  inferred.push_back(type);
  inferred.push_back(i64Tensor(ctx, type.getShape()));
  return success();
}

/// Folds a sort of a constant: the values and/or the indices.
static LogicalResult foldSort(Attribute input, ShapedType valuesType,
                              ShapedType indicesType, int64_t axis,
                              bool descending, DenseElementsAttr *values,
                              DenseElementsAttr *indices) {
  auto attr = dyn_cast_if_present<DenseElementsAttr>(input);
  if (!attr || !smallEnoughToFold({attr.getType()}))
    return failure();
  SmallVector<ConstElem> elems = getConstElems(attr);
  ArrayRef<int64_t> shape = attr.getType().getShape();
  SmallVector<int64_t> srcPos;
  SmallVector<int64_t> order =
      stableOrder(elems, shape, axis, descending, srcPos);
  if (values) {
    SmallVector<ConstElem> sorted;
    for (int64_t p : srcPos)
      sorted.push_back(elems[p]);
    *values = elemsToAttr(valuesType, sorted);
  }
  if (indices) {
    SmallVector<APInt> idx;
    for (int64_t o : order)
      idx.push_back(APInt(64, o));
    *indices = DenseElementsAttr::get(indicesType, idx);
  }
  return success();
}

LogicalResult SortOp::fold(FoldAdaptor adaptor,
                           SmallVectorImpl<OpFoldResult> &results) {
  DenseElementsAttr values, indices;
  if (failed(foldSort(adaptor.getInput(), getValues().getType(),
                      getIndices().getType(), getAxis(), getDescending(),
                      &values, &indices)))
    return failure();
  results.push_back(values);
  results.push_back(indices);
  return success();
}

void SortOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getValues(), "sorted");
  setNameFn(getIndices(), "indices");
}

LogicalResult ArgsortOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  if (failed(checkAxis(loc, static_cast<int64_t>(adaptor.getDim()),
                       type.getRank())))
    return failure();
  inferred.push_back(i64Tensor(ctx, type.getShape()));
  return success();
}

/// `unsigned` orders integers: other element types have no unsigned order.
static LogicalResult verifyUnsignedOrder(Operation *op, bool isUnsigned,
                                         Value input) {
  Type elementType = getElementTypeOrSelf(input.getType());
  if (isUnsigned && !isa<IntegerType>(elementType))
    return op->emitOpError("orders `unsigned` only integers, got ")
           << elementType;
  return success();
}

LogicalResult ArgsortOp::verify() {
  return verifyUnsignedOrder(*this, getIsUnsigned(), getInput());
}

OpFoldResult ArgsortOp::fold(FoldAdaptor adaptor) {
  // The constant folder orders integers as signed.
  if (getIsUnsigned())
    return {};
  DenseElementsAttr indices;
  if (failed(foldSort(adaptor.getInput(), {}, getType(), getAxis(),
                      getDescending(), nullptr, &indices)))
    return {};
  return indices;
}

//===----------------------------------------------------------------------===//
// TopkOp
//===----------------------------------------------------------------------===//

LogicalResult TopkOp::inferReturnTypes(MLIRContext *ctx,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  FailureOr<int64_t> axis =
      checkAxis(loc, static_cast<int64_t>(adaptor.getDim()), type.getRank());
  if (failed(axis))
    return failure();
  int64_t k = static_cast<int64_t>(adaptor.getK());
  if (k < 0)
    return emitOptionalError(loc, "expects k >= 0, got ", k);
  int64_t n = type.getDimSize(*axis);
  if (!ShapedType::isDynamic(n) && k > n)
    return emitOptionalError(loc, "k (", k, ") exceeds the size (", n,
                             ") of dimension ", *axis);
  SmallVector<int64_t> shape(type.getShape());
  shape[*axis] = k;
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  inferred.push_back(i64Tensor(ctx, shape));
  return success();
}

LogicalResult TopkOp::verify() {
  if (failed(verifyUnsignedOrder(*this, getIsUnsigned(), getInput())))
    return failure();
  // `valid` and `limit`: one length per line, the input's shape without
  // the axis, when they are tensors.
  for (auto [name, length] :
       {std::pair{"valid", getValid()}, std::pair{"limit", getLimit()}}) {
    auto lengthType = dyn_cast_if_present<RankedTensorType>(
        length ? length.getType() : Type());
    if (!lengthType)
      continue;
    auto type = cast<RankedTensorType>(getInput().getType());
    FailureOr<int64_t> axis =
        checkAxis(getLoc(), static_cast<int64_t>(getDim()), type.getRank());
    if (failed(axis))
      return failure();
    SmallVector<int64_t> lines(type.getShape());
    lines.erase(lines.begin() + *axis);
    if (succeeded(verifyCompatibleShape(lengthType.getShape(), lines)))
      continue;
    return emitOpError("expects `")
           << name << "` to be an index or a tensor of one index per line, "
           << RankedTensorType::get(lines, lengthType.getElementType())
           << " (the input's shape without dimension " << getAxis() << "), got "
           << lengthType;
  }
  return success();
}

void TopkOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getValues(), "topk");
  setNameFn(getIndices(), "indices");
}

TypedAttr mlir::sift::getLastInSortOrder(Type type, bool ascending,
                                         bool isUnsigned) {
  Builder b(type.getContext());
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    return b.getFloatAttr(type, ascending ? APFloat::getNaN(semantics)
                                          : APFloat::getInf(semantics, true));
  }
  unsigned width = type.getIntOrFloatBitWidth();
  // i1 is unsigned in sift's order (false < true); its signed maximum
  // would be false.
  if (width == 1 || isUnsigned)
    return b.getIntegerAttr(type, ascending ? APInt::getMaxValue(width)
                                            : APInt::getZero(width));
  return b.getIntegerAttr(type, ascending ? APInt::getSignedMaxValue(width)
                                          : APInt::getSignedMinValue(width));
}
