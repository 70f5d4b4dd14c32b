//===- SiftOps.cpp - Operations of the sift dialect -------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Type inference, verifiers, folders and canonicalizations of the sift ops.
// Shape rules that determine a result type live in `inferReturnTypes` (and
// report through `emitOptionalError`); the remaining rules in `verify`.
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/IR/SiftOps.h"

#include "OpUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::oputils;

#include "sift/Dialect/Sift/IR/SiftEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Per-row seeds of the random ops
//===----------------------------------------------------------------------===//

/// `: [seed-type [, offset-type] ->] result-type`: the seed and offset types
/// are written only when one of them is a tensor (per-row streams); an
/// offset whose type is not written is an `i64`.
static ParseResult
parseRandomTypes(OpAsmParser &parser, Type &seedType,
                 const std::optional<OpAsmParser::UnresolvedOperand> &offset,
                 Type &offsetType, Type &resultType) {
  Type i64 = parser.getBuilder().getI64Type();
  Type first;
  if (parser.parseType(first))
    return failure();
  seedType = i64;
  offsetType = offset ? i64 : Type();
  if (succeeded(parser.parseOptionalComma())) {
    seedType = first;
    if (parser.parseType(offsetType) || parser.parseArrow())
      return failure();
    return parser.parseType(resultType);
  }
  if (succeeded(parser.parseOptionalArrow())) {
    seedType = first;
    return parser.parseType(resultType);
  }
  resultType = first;
  return success();
}

static bool isPerRow(Type type) { return type && isa<RankedTensorType>(type); }

static void printRandomTypes(OpAsmPrinter &p, Operation *, Type seedType, Value,
                             Type offsetType, Type resultType) {
  if (isPerRow(seedType) || isPerRow(offsetType)) {
    p << seedType;
    if (isPerRow(offsetType))
      p << ", " << offsetType;
    p << " -> ";
  }
  p << resultType;
}

/// `labels-type [, seed-type [, offset-type]]` of `sift.sample_balanced`,
/// under the same rule.
static ParseResult
parseSeedTypes(OpAsmParser &parser, Type &labelsType, Type &seedType,
               const std::optional<OpAsmParser::UnresolvedOperand> &offset,
               Type &offsetType) {
  if (parser.parseType(labelsType))
    return failure();
  seedType = parser.getBuilder().getI64Type();
  offsetType = offset ? seedType : Type();
  if (failed(parser.parseOptionalComma()))
    return success();
  if (parser.parseType(seedType))
    return failure();
  if (succeeded(parser.parseOptionalComma()))
    return parser.parseType(offsetType);
  return success();
}

static void printSeedTypes(OpAsmPrinter &p, Operation *, Type labelsType,
                           Type seedType, Value, Type offsetType) {
  p << labelsType;
  if (!isPerRow(seedType) && !isPerRow(offsetType))
    return;
  p << ", " << seedType;
  if (isPerRow(offsetType))
    p << ", " << offsetType;
}

/// A per-row seed or offset must cover leading dimensions of `rows`, and the
/// two must agree when both are tensors.
static LogicalResult verifySeeds(Operation *op, Value seed, Value offset,
                                 ArrayRef<int64_t> rows, StringRef what) {
  SmallVector<int64_t> shape;
  bool any = false;
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"seed", seed}, {"offset", offset}}) {
    auto type = value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
    if (!type)
      continue;
    // A dynamic extent of the rows is checked at run time (the lowerings'
    // checkLeadingExtents).
    ArrayRef<int64_t> s = type.getShape();
    if (s.size() > rows.size() ||
        failed(verifyCompatibleShape(s, rows.take_front(s.size()))))
      return op->emitOpError("expects a per-row ")
             << name << " whose shape is a prefix of " << what << " ["
             << llvm::interleaved(llvm::map_range(
                    rows,
                    [](int64_t d) {
                      return ShapedType::isDynamic(d) ? std::string("?")
                                                      : std::to_string(d);
                    }))
             << "], got " << type;
    if (any && ArrayRef<int64_t>(shape) != s)
      return op->emitOpError("expects the per-row seed and offset to have "
                             "the same shape, got [")
             << shape << "] and [" << s << "]";
    shape.assign(s.begin(), s.end());
    any = true;
  }
  return success();
}
//===----------------------------------------------------------------------===//
// NonzeroOp
//===----------------------------------------------------------------------===//

LogicalResult NonzeroOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  if (type.getRank() < 1)
    return emitOptionalError(loc, "expects an input of rank >= 1");
  if (type.getRank() == 1)
    inferred.push_back(i64Tensor(ctx, {ShapedType::kDynamic}));
  else
    inferred.push_back(i64Tensor(ctx, {ShapedType::kDynamic, type.getRank()}));
  return success();
}

namespace {
/// nonzero(constant) -> tensor.cast(constant coordinates).
struct FoldConstantNonzero : OpRewritePattern<NonzeroOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(NonzeroOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr attr;
    if (!matchPattern(op.getInput(), m_Constant(&attr)) ||
        !smallEnoughToFold({attr.getType()}))
      return failure();
    auto type = cast<RankedTensorType>(attr.getType());
    SmallVector<ConstElem> elems = getConstElems(attr);
    ArrayRef<int64_t> shape = type.getShape();
    SmallVector<APInt> coords;
    int64_t found = 0;
    for (auto [linear, e] : llvm::enumerate(elems)) {
      if (!e.isNonZero())
        continue;
      ++found;
      SmallVector<int64_t> c(shape.size());
      int64_t rest = linear;
      for (int64_t d = shape.size() - 1; d >= 0; --d) {
        c[d] = rest % shape[d];
        rest /= shape[d];
      }
      for (int64_t v : c)
        coords.push_back(APInt(64, v, /*isSigned=*/true));
    }
    SmallVector<int64_t> staticShape = {found};
    if (type.getRank() > 1)
      staticShape.push_back(type.getRank());
    auto staticType = i64Tensor(getContext(), staticShape);
    Value cst = arith::ConstantOp::create(
        rewriter, op.getLoc(), DenseElementsAttr::get(staticType, coords));
    rewriter.replaceOpWithNewOp<tensor::CastOp>(op, op.getType(), cst);
    return success();
  }
};
} // namespace

void NonzeroOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *ctx) {
  results.add<FoldConstantNonzero>(ctx);
}

//===----------------------------------------------------------------------===//
// UniqueOp
//===----------------------------------------------------------------------===//

void UniqueOp::build(OpBuilder &builder, OperationState &state, Value input,
                     bool withInverse, bool withCounts) {
  auto type = cast<RankedTensorType>(input.getType());
  MLIRContext *ctx = builder.getContext();
  state.addOperands(input);
  state.addTypes(
      RankedTensorType::get({ShapedType::kDynamic}, type.getElementType()));
  if (withInverse)
    state.addTypes(i64Tensor(ctx, type.getShape()));
  if (withCounts)
    state.addTypes(i64Tensor(ctx, {ShapedType::kDynamic}));
  state.getOrAddProperties<Properties>().resultSegmentSizes = {
      1, withInverse ? 1 : 0, withCounts ? 1 : 0};
}

ParseResult UniqueOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand input;
  Type inputType;
  SmallVector<Type> resultTypes;
  if (parser.parseOperand(input))
    return failure();
  bool withInverse = succeeded(parser.parseOptionalKeyword("inverse"));
  bool withCounts = succeeded(parser.parseOptionalKeyword("counts"));
  SMLoc typesLoc;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseType(inputType) || parser.parseArrow() ||
      parser.getCurrentLocation(&typesLoc) || parser.parseTypeList(resultTypes))
    return failure();
  size_t expected = 1 + withInverse + withCounts;
  if (resultTypes.size() != expected)
    return parser.emitError(typesLoc, "expected ")
           << expected << " result types (values"
           << (withInverse ? ", inverse" : "") << (withCounts ? ", counts" : "")
           << "), got " << resultTypes.size();
  result.getOrAddProperties<Properties>().resultSegmentSizes = {
      1, withInverse ? 1 : 0, withCounts ? 1 : 0};
  result.addTypes(resultTypes);
  return parser.resolveOperand(input, inputType, result.operands);
}

void UniqueOp::print(OpAsmPrinter &p) {
  p << ' ' << getInput();
  if (getInverse())
    p << " inverse";
  if (getCounts())
    p << " counts";
  p.printOptionalAttrDict((*this)->getAttrs(),
                          /*elidedAttrs=*/{getResultSegmentSizeAttr()});
  p << " : " << getInput().getType() << " -> ";
  llvm::interleaveComma(getResultTypes(), p);
}

LogicalResult UniqueOp::verify() {
  auto inType = cast<RankedTensorType>(getInput().getType());
  auto valuesType = cast<RankedTensorType>(getValues().getType());
  if (valuesType.getRank() != 1)
    return emitOpError("expects 1-D unique values, got ") << valuesType;
  if (valuesType.getElementType() != inType.getElementType())
    return emitOpError("expects unique values of the input's element type ")
           << inType.getElementType() << ", got "
           << valuesType.getElementType();
  if (Value inv = getInverse()) {
    auto invType = cast<RankedTensorType>(inv.getType());
    if (invType.getShape() != inType.getShape())
      return emitOpError("expects inverse indices of the input's shape, got ")
             << invType;
  }
  if (Value counts = getCounts()) {
    auto cType = cast<RankedTensorType>(counts.getType());
    if (cType.getRank() != 1 ||
        !dimsAgree(cType.getDimSize(0), valuesType.getDimSize(0)))
      return emitOpError("expects 1-D counts with one per unique value, got ")
             << cType;
  }
  return success();
}

void UniqueOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getValues(), "unique");
  if (getInverse())
    setNameFn(getInverse(), "inverse");
  if (getCounts())
    setNameFn(getCounts(), "counts");
}

//===----------------------------------------------------------------------===//
// MaskedSelectOp
//===----------------------------------------------------------------------===//

LogicalResult
MaskedSelectOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                 Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
  auto maskType = cast<RankedTensorType>(adaptor.getMask().getType());
  int64_t r = maskType.getRank();
  if (r < 1)
    return emitOptionalError(loc, "expects a mask of rank >= 1");
  if (r > inType.getRank())
    return emitOptionalError(loc, "expects a mask of rank <= the input's (",
                             inType.getRank(), "), got ", r);
  for (int64_t d = 0; d < r; ++d)
    if (!dimsAgree(maskType.getDimSize(d), inType.getDimSize(d)))
      return emitOptionalError(loc, "mask dimension ", d, " (",
                               maskType.getDimSize(d),
                               ") does not match input dimension ", d, " (",
                               inType.getDimSize(d), ")");
  SmallVector<int64_t> shape = {ShapedType::kDynamic};
  llvm::append_range(shape, inType.getShape().drop_front(r));
  inferred.push_back(RankedTensorType::get(shape, inType.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// RandpermOp
//===----------------------------------------------------------------------===//

LogicalResult RandpermOp::verify() {
  int64_t size = getType().getDimSize(0);
  APInt n;
  if (!matchPattern(getN(), m_ConstantInt(&n))) {
    if (!ShapedType::isDynamic(size))
      return emitOpError("expects a dynamic result size when n is not a "
                         "constant, got ")
             << getType();
    return success();
  }
  if (n.isNegative())
    return emitOpError("expects a non-negative n, got ") << n.getSExtValue();
  if (!ShapedType::isDynamic(size) && size != n.getSExtValue())
    return emitOpError("result has ")
           << size << " elements but n is " << n.getSExtValue();
  return success();
}

namespace {
/// randperm(constant n) : tensor<?xi64> -> cast(randperm : tensor<nxi64>).
struct StaticizeConstantRandperm : OpRewritePattern<RandpermOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RandpermOp op,
                                PatternRewriter &rewriter) const override {
    APInt n;
    if (!op.getType().isDynamicDim(0) ||
        !matchPattern(op.getN(), m_ConstantInt(&n)) || n.isNegative())
      return failure();
    auto staticType = i64Tensor(getContext(), {n.getSExtValue()});
    auto perm = RandpermOp::create(rewriter, op.getLoc(), staticType, op.getN(),
                                   op.getSeed(), op.getOffset(), op.getSort());
    rewriter.replaceOpWithNewOp<tensor::CastOp>(op, op.getType(), perm);
    return success();
  }
};
} // namespace

void RandpermOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *ctx) {
  results.add<StaticizeConstantRandperm>(ctx);
}

//===----------------------------------------------------------------------===//
// RandpermPrefixOp
//===----------------------------------------------------------------------===//

LogicalResult RandpermPrefixOp::verify() {
  RankedTensorType type = getType();
  if (type.getRank() == 0)
    return emitOpError("expects a result of rank >= 1, got ") << type;
  ArrayRef<int64_t> lines = type.getShape().drop_back();
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"n", getN()}, {"limit", getLimit()}}) {
    auto valueType =
        value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
    if (valueType && valueType.getShape() != lines)
      return emitOpError("expects `")
             << name
             << "` to be an index or a tensor of one index per line, of "
                "shape ["
             << lines << "], got " << valueType;
  }
  return verifySeeds(*this, getSeed(), getOffset(), lines, "the lines");
}

//===----------------------------------------------------------------------===//
// CountOp
//===----------------------------------------------------------------------===//

LogicalResult CountOp::inferReturnTypes(MLIRContext *ctx,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  if (type.getRank() < 1)
    return emitOptionalError(loc, "expects an input of rank >= 1");
  inferred.push_back(i64Tensor(ctx, type.getShape().drop_back()));
  return success();
}

OpFoldResult CountOp::fold(FoldAdaptor adaptor) {
  auto attr = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput());
  if (!attr || !smallEnoughToFold({attr.getType()}))
    return {};
  auto type = cast<RankedTensorType>(attr.getType());
  SmallVector<ConstElem> elems = getConstElems(attr);
  int64_t n = type.getShape().back();
  auto resultType = cast<ShapedType>(getType());
  SmallVector<APInt> counts;
  for (int64_t row = 0, rows = resultType.getNumElements(); row < rows; ++row) {
    int64_t c = 0;
    for (int64_t j = 0; j < n; ++j)
      c += elems[row * n + j].isNonZero();
    counts.push_back(APInt(64, c));
  }
  return DenseElementsAttr::get(resultType, counts);
}

//===----------------------------------------------------------------------===//
// CompactOp
//===----------------------------------------------------------------------===//

LogicalResult CompactOp::verify() {
  auto maskType = cast<RankedTensorType>(getMask().getType());
  auto idxType = cast<RankedTensorType>(getIndices().getType());
  auto countType = cast<RankedTensorType>(getCount().getType());
  if (maskType.getRank() < 1)
    return emitOpError("expects a mask of rank >= 1");
  if (idxType.getRank() != maskType.getRank())
    return emitOpError("expects indices of the mask's rank (")
           << maskType.getRank() << "), got " << idxType;
  if (idxType.isDynamicDim(idxType.getRank() - 1))
    return emitOpError("expects a static width for the indices, got ")
           << idxType;
  int64_t lineLength = maskType.getShape().back();
  if (idxType.getElementType().isInteger(32) &&
      (ShapedType::isDynamic(lineLength) ||
       lineLength > std::numeric_limits<int32_t>::max()))
    return emitOpError("has i32 indices, which need mask lines of a static "
                       "length below 2^31, got ")
           << maskType;
  for (int64_t d = 0, e = maskType.getRank() - 1; d < e; ++d)
    if (!dimsAgree(maskType.getDimSize(d), idxType.getDimSize(d)))
      return emitOpError("indices batch dimension ")
             << d << " (" << idxType.getDimSize(d)
             << ") does not match the mask's (" << maskType.getDimSize(d)
             << ")";
  if (countType.getRank() != maskType.getRank() - 1 ||
      llvm::any_of(llvm::seq<int64_t>(0, countType.getRank()), [&](int64_t d) {
        return !dimsAgree(countType.getDimSize(d), maskType.getDimSize(d));
      }))
    return emitOpError("expects a count of the mask's batch shape, got ")
           << countType;
  return success();
}

LogicalResult CompactOp::fold(FoldAdaptor adaptor,
                              SmallVectorImpl<OpFoldResult> &results) {
  auto attr = dyn_cast_if_present<DenseElementsAttr>(adaptor.getMask());
  auto idxType = cast<RankedTensorType>(getIndices().getType());
  auto countType = cast<RankedTensorType>(getCount().getType());
  if (!attr || !smallEnoughToFold({attr.getType(), idxType, countType}))
    return failure();
  auto mask = llvm::to_vector(attr.getValues<bool>());
  int64_t n = attr.getType().getShape().back();
  int64_t k = idxType.getShape().back();
  int64_t rows = countType.getNumElements();
  // Unpadded lanes are unspecified: the fill serves them as well as any.
  unsigned width = idxType.getElementTypeBitWidth();
  SmallVector<APInt> idx(rows * k, APInt(width, getFill(), /*isSigned=*/true,
                                         /*implicitTrunc=*/true));
  SmallVector<APInt> counts;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t c = 0;
    for (int64_t j = 0; j < n && c < k; ++j)
      if (mask[r * n + j])
        idx[r * k + c++] = APInt(width, j);
    counts.push_back(APInt(64, c));
  }
  results.push_back(DenseElementsAttr::get(idxType, idx));
  results.push_back(DenseElementsAttr::get(countType, counts));
  return success();
}

void CompactOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getIndices(), "indices");
  setNameFn(getCount(), "count");
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto srcType = cast<RankedTensorType>(adaptor.getSource().getType());
  auto idxType = cast<RankedTensorType>(adaptor.getIndices().getType());
  int64_t bd = static_cast<int64_t>(adaptor.getBatchDims());
  if (bd < 0 || bd >= srcType.getRank())
    return emitOptionalError(loc, "batch_dims (", bd,
                             ") must be in [0, source rank ", srcType.getRank(),
                             ")");
  if (idxType.getRank() < bd)
    return emitOptionalError(loc, "expects indices of rank >= batch_dims (", bd,
                             "), got rank ", idxType.getRank());
  for (int64_t d = 0; d < bd; ++d)
    if (!dimsAgree(srcType.getDimSize(d), idxType.getDimSize(d)))
      return emitOptionalError(loc, "batch dimension ", d, " of the indices (",
                               idxType.getDimSize(d),
                               ") does not match the source's (",
                               srcType.getDimSize(d), ")");
  SmallVector<int64_t> shape(idxType.getShape());
  llvm::append_range(shape, srcType.getShape().drop_front(bd + 1));
  inferred.push_back(RankedTensorType::get(shape, srcType.getElementType()));
  return success();
}

LogicalResult GatherOp::verify() {
  if (std::optional<TypedAttr> fill = getFill()) {
    Type elem = getSource().getType().getElementType();
    if (fill->getType() != elem)
      return emitOpError("fill value type ")
             << fill->getType() << " does not match the source element type "
             << elem;
  }
  return success();
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  // Gathering by the identity permutation along the gathered axis returns
  // the source unchanged (no lane can be invalid).
  auto idx = dyn_cast_if_present<DenseIntElementsAttr>(adaptor.getIndices());
  if (!idx || getResult().getType() != getSource().getType() ||
      !smallEnoughToFold({idx.getType()}))
    return {};
  auto idxType = cast<RankedTensorType>(idx.getType());
  if (idxType.getRank() != static_cast<int64_t>(getBatchDims()) + 1)
    return {};
  int64_t n = idxType.getShape().back();
  for (auto [pos, v] : llvm::enumerate(idx.getValues<APInt>()))
    if (n == 0 || v.getSExtValue() != static_cast<int64_t>(pos) % n)
      return {};
  return getSource();
}

//===----------------------------------------------------------------------===//
// ScatterOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterOp::verify() {
  RankedTensorType destType = getDest().getType();
  auto idxType = cast<RankedTensorType>(getIndices().getType());
  auto updType = cast<RankedTensorType>(getUpdates().getType());
  int64_t bd = static_cast<int64_t>(getBatchDims());
  if (bd < 0 || bd >= destType.getRank())
    return emitOpError("batch_dims (")
           << bd << ") must be in [0, dest rank " << destType.getRank() << ")";
  if (idxType.getRank() < bd)
    return emitOpError("expects indices of rank >= batch_dims (")
           << bd << "), got rank " << idxType.getRank();
  for (int64_t d = 0; d < bd; ++d)
    if (!dimsAgree(destType.getDimSize(d), idxType.getDimSize(d)))
      return emitOpError("batch dimension ")
             << d << " of the indices (" << idxType.getDimSize(d)
             << ") does not match the dest's (" << destType.getDimSize(d)
             << ")";
  if (updType.getElementType() != destType.getElementType())
    return emitOpError("updates element type ")
           << updType.getElementType()
           << " does not match the dest element type "
           << destType.getElementType();
  // updates: indices.shape ++ dest.shape[batch_dims+1:].
  SmallVector<int64_t> shape(idxType.getShape());
  llvm::append_range(shape, destType.getShape().drop_front(bd + 1));
  bool agree = static_cast<int64_t>(shape.size()) == updType.getRank();
  for (int64_t d = 0; agree && d < updType.getRank(); ++d)
    agree = dimsAgree(shape[d], updType.getDimSize(d));
  if (!agree)
    return emitOpError("expects updates of shape indices.shape ++ "
                       "dest.shape[batch_dims+1:] (")
           << RankedTensorType::get(shape, destType.getElementType())
           << "), got " << updType;
  if (getReduce() != ScatterReduce::None &&
      destType.getElementType().isInteger(1))
    return emitOpError("reduce(") << stringifyScatterReduce(getReduce())
                                  << ") needs a non-i1 element type";
  return success();
}

OpFoldResult ScatterOp::fold(FoldAdaptor) {
  // No lane: nothing is written.
  auto idxType = cast<RankedTensorType>(getIndices().getType());
  if (idxType.hasStaticShape() && idxType.getNumElements() == 0)
    return getDest();
  return {};
}

//===----------------------------------------------------------------------===//
// Random ops
//===----------------------------------------------------------------------===//

LogicalResult RandomUniformOp::verify() {
  if (!getType().hasStaticShape())
    return emitOpError("expects a static result shape, got ") << getType();
  return verifySeeds(*this, getSeed(), getOffset(), getType().getShape(),
                     "the result shape");
}

LogicalResult RandomBitsOp::verify() {
  if (!getType().hasStaticShape())
    return emitOpError("expects a static result shape, got ") << getType();
  if (Value valid = getValid())
    if (auto validType = dyn_cast<RankedTensorType>(valid.getType())) {
      ArrayRef<int64_t> lines = getType().getShape().drop_back();
      if (getType().getRank() == 0 || validType.getShape() != lines)
        return emitOpError("expects `valid` to be an index or a tensor of "
                           "one index per line, of shape [")
               << lines << "], got " << validType;
    }
  return verifySeeds(*this, getSeed(), getOffset(), getType().getShape(),
                     "the result shape");
}

//===----------------------------------------------------------------------===//
// SampleBalancedOp
//===----------------------------------------------------------------------===//

LogicalResult
SampleBalancedOp::inferReturnTypes(MLIRContext *ctx,
                                   std::optional<Location> loc, Adaptor adaptor,
                                   SmallVectorImpl<Type> &inferred) {
  auto type = cast<RankedTensorType>(adaptor.getLabels().getType());
  if (type.getRank() < 1)
    return emitOptionalError(loc, "expects labels of rank >= 1");
  int64_t k = static_cast<int64_t>(adaptor.getNumSamples());
  if (k < 0)
    return emitOptionalError(loc, "expects num_samples >= 0, got ", k);
  SmallVector<int64_t> batch(type.getShape().drop_back());
  SmallVector<int64_t> sampled = batch;
  sampled.push_back(k);
  inferred.push_back(i64Tensor(ctx, sampled));
  inferred.push_back(i64Tensor(ctx, batch));
  return success();
}

LogicalResult SampleBalancedOp::verify() {
  double fraction = getPositiveFraction().convertToDouble();
  if (!(fraction >= 0.0 && fraction <= 1.0))
    return emitOpError("expects positive_fraction in [0, 1], got ") << fraction;
  if (getIgnoreLabel() == getNegativeLabel())
    return emitOpError("ignore_label and negative_label must differ (both ")
           << static_cast<int64_t>(getIgnoreLabel()) << ")";
  return verifySeeds(*this, getSeed(), getOffset(),
                     getLabels().getType().getShape().drop_back(),
                     "the batch shape");
}

void SampleBalancedOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getIndices(), "sampled");
  setNameFn(getCount(), "count");
}

//===----------------------------------------------------------------------===//
// CrossEntropyOp
//===----------------------------------------------------------------------===//

LogicalResult
CrossEntropyOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                 Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  auto logits = cast<RankedTensorType>(adaptor.getLogits().getType());
  auto targets = cast<RankedTensorType>(adaptor.getTargets().getType());
  if (logits.getRank() < 1)
    return emitOptionalError(loc, "expects logits of rank >= 1 ([N..., C])");
  if (targets.getRank() != logits.getRank() - 1)
    return emitOptionalError(loc, "expects targets of rank ",
                             logits.getRank() - 1,
                             " (the logits' without "
                             "the class dimension), got ",
                             targets.getRank());
  for (int64_t d = 0, e = targets.getRank(); d < e; ++d)
    if (!dimsAgree(targets.getDimSize(d), logits.getDimSize(d)))
      return emitOptionalError(
          loc, "targets dimension ", d, " (", targets.getDimSize(d),
          ") does not match the logits' (", logits.getDimSize(d), ")");
  if (Value weight = adaptor.getWeight()) {
    auto wType = cast<RankedTensorType>(weight.getType());
    int64_t c = logits.getShape().back();
    if (wType.getRank() != 1 || !dimsAgree(wType.getDimSize(0), c))
      return emitOptionalError(loc, "expects a weight of shape [", c,
                               "] (one per class), got ", wType);
    if (wType.getElementType() != logits.getElementType())
      return emitOptionalError(loc,
                               "expects a weight of the logits' element "
                               "type ",
                               logits.getElementType(), ", got ",
                               wType.getElementType());
  }
  int64_t batchDims = adaptor.getBatchDims();
  if (batchDims < 0 || batchDims > targets.getRank())
    return emitOptionalError(loc,
                             "expects 0 <= batch_dims <= ", targets.getRank(),
                             " (the targets' rank), got ", batchDims);
  Type elem = logits.getElementType();
  if (adaptor.getReduction() == Reduction::None)
    inferred.push_back(RankedTensorType::get(targets.getShape(), elem));
  else
    inferred.push_back(
        RankedTensorType::get(targets.getShape().take_front(batchDims), elem));
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  double s = getLabelSmoothing().convertToDouble();
  if (!(s >= 0.0 && s <= 1.0))
    return emitOpError("expects label_smoothing in [0, 1], got ") << s;
  return success();
}

#define GET_OP_CLASSES
#include "sift/Dialect/Sift/IR/SiftOps.cpp.inc"
