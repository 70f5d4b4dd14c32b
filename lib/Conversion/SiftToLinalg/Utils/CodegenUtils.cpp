//===- CodegenUtils.cpp - Small builders of the sift lowering ---*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "CodegenUtils.h"

#include "sift/Transforms/Routines.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::lowering;

SmallVector<Value> lowering::buildOutlinable(
    OpBuilder &b, Location loc, StringRef name,
    function_ref<SmallVector<Value>(OpBuilder &, Location)> fn) {
  // The body is built in a block of its own first: the region's result
  // types are those of the values `fn` returns.
  auto body = std::make_unique<Block>();
  SmallVector<Value> results;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(body.get());
    results = fn(b, loc);
    scf::YieldOp::create(b, loc, results);
  }
  // The name goes into the location: bufferization rebuilds the op with its
  // location but not its attributes.
  Location named =
      NameLoc::get(b.getStringAttr(kRoutineLocPrefix + name.str()), loc);
  auto region = scf::ExecuteRegionOp::create(
      b, named, ValueRange(results).getTypes(), /*no_inline=*/true);
  region.getRegion().push_back(body.release());
  return llvm::to_vector_of<Value>(region.getResults());
}

Value lowering::constIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value lowering::constInt(OpBuilder &b, Location loc, Type type, int64_t value) {
  if (type.isIndex())
    return constIndex(b, loc, value);
  unsigned width = type.getIntOrFloatBitWidth();
  APInt bits(width, static_cast<uint64_t>(value), /*isSigned=*/true,
             /*implicitTrunc=*/true);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, bits));
}

Value lowering::indexToI64(OpBuilder &b, Location loc, Value value) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), value);
}

Value lowering::i64ToIndex(OpBuilder &b, Location loc, Value value) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

Value lowering::emptyTensor(OpBuilder &b, Location loc,
                            ArrayRef<OpFoldResult> sizes, Type elementType,
                            Value fillValue) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, elementType);
  if (!fillValue)
    return empty;
  return linalg::FillOp::create(b, loc, ValueRange{fillValue},
                                ValueRange{empty})
      .getResult(0);
}

Value lowering::fillRange(OpBuilder &b, Location loc, Value tensor,
                          Value offset, Value size, Value value) {
  OpFoldResult one = b.getIndexAttr(1);
  SmallVector<OpFoldResult> offsets{offset}, sizes{size}, strides{one};
  Value range =
      tensor::ExtractSliceOp::create(b, loc, tensor, offsets, sizes, strides);
  Value filled =
      linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{range})
          .getResult(0);
  return tensor::InsertSliceOp::create(b, loc, filled, tensor, offsets, sizes,
                                       strides);
}

Value lowering::dimValue(OpBuilder &b, Location loc, Value tensor,
                         int64_t dim) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(dim))
    return constIndex(b, loc, type.getDimSize(dim));
  return tensor::DimOp::create(b, loc, tensor, dim);
}

Value lowering::isNonZero(OpBuilder &b, Location loc, Value scalar) {
  Type type = scalar.getType();
  if (auto floatType = dyn_cast<FloatType>(type)) {
    Value zero =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, 0.0));
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, scalar,
                                 zero);
  }
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, scalar,
                               constInt(b, loc, type, 0));
}

Value lowering::ifThenElse(OpBuilder &b, Location loc, Value cond,
                           function_ref<Value(OpBuilder &, Location)> thenValue,
                           Value elseValue) {
  auto ifOp = scf::IfOp::create(
      b, loc, cond,
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, thenValue(b, loc));
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, elseValue);
      });
  return ifOp.getResult(0);
}

bool lowering::isSupportedFloat(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

LogicalResult lowering::unsupportedElementType(RewriterBase &rewriter,
                                               Operation *op, Type elementType,
                                               StringRef detail) {
  return rewriter.notifyMatchFailure(op, [&](Diagnostic &diag) {
    diag << "has no CPU lowering for element type " << elementType << detail;
  });
}

Value lowering::firstElements(OpBuilder &b, Location loc, Value line,
                              int64_t k) {
  Type elementType = cast<RankedTensorType>(line.getType()).getElementType();
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({k}, elementType), line,
      ArrayRef<OpFoldResult>{b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(k)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
}

Value lowering::castTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(b, loc, type, value);
}

void lowering::replaceOpWithCasts(RewriterBase &rewriter, Operation *op,
                                  ValueRange values) {
  SmallVector<Value> casts;
  for (auto [value, result] : llvm::zip_equal(values, op->getResults()))
    casts.push_back(castTo(rewriter, op->getLoc(), value, result.getType()));
  rewriter.replaceOp(op, casts);
}

Value lowering::flatten(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getRank() == 1)
    return tensor;
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({1}, type.getElementType()), tensor,
        ArrayRef<ReassociationIndices>{},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  return tensor::CollapseShapeOp::create(b, loc, tensor,
                                         ArrayRef<ReassociationIndices>{all});
}

Value lowering::intToI64(OpBuilder &b, Location loc, Value value) {
  Type i64 = b.getI64Type();
  unsigned width = value.getType().getIntOrFloatBitWidth();
  if (width == 64)
    return value;
  if (width == 1)
    return arith::ExtUIOp::create(b, loc, i64, value);
  if (width < 64)
    return arith::ExtSIOp::create(b, loc, i64, value);
  return arith::TruncIOp::create(b, loc, i64, value);
}

Value lowering::unflatten(OpBuilder &b, Location loc, Value flat,
                          RankedTensorType type, ArrayRef<OpFoldResult> sizes) {
  Type elementType = type.getElementType();
  if (type.getRank() == 1)
    return castTo(b, loc, flat, type);
  if (type.getRank() == 0) {
    flat = castTo(b, loc, flat, RankedTensorType::get({1}, elementType));
    return tensor::CollapseShapeOp::create(b, loc, type, flat,
                                           ArrayRef<ReassociationIndices>{});
  }
  int64_t total =
      type.hasStaticShape() ? type.getNumElements() : ShapedType::kDynamic;
  flat = castTo(b, loc, flat, RankedTensorType::get({total}, elementType));
  if (llvm::count_if(type.getShape(), ShapedType::isDynamic) > 1) {
    // An expand_shape with two dynamic sizes in one group crashes MLIR 22's
    // expand-strided-metadata (llvm/llvm-project#186830, fixed after 22):
    // read the element at the row-major position instead (one copy).
    SmallVector<Value> extents =
        llvm::map_to_vector(sizes, [&](OpFoldResult size) -> Value {
          return getValueOrCreateConstantIndexOp(b, loc, size);
        });
    Value init = emptyTensor(b, loc, sizes, elementType);
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
               ArrayRef{b.getMultiDimIdentityMap(type.getRank())}, iterators,
               [&](OpBuilder &nb, Location nloc, ValueRange) {
                 Value linear = constIndex(nb, nloc, 0);
                 for (int64_t d = 0; d < type.getRank(); ++d) {
                   linear = arith::MulIOp::create(nb, nloc, linear, extents[d]);
                   linear = arith::AddIOp::create(
                       nb, nloc, linear, linalg::IndexOp::create(nb, nloc, d));
                 }
                 Value v = tensor::ExtractOp::create(nb, nloc, flat, linear);
                 linalg::YieldOp::create(nb, nloc, v);
               })
        .getResult(0);
  }
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  return tensor::ExpandShapeOp::create(
      b, loc, type, flat, ArrayRef<ReassociationIndices>{all}, sizes);
}

Value lowering::mapLine(
    OpBuilder &b, Location loc, Value input, Type elementType,
    function_ref<Value(OpBuilder &, Location, Value, Value)> fn) {
  Value init =
      emptyTensor(b, loc, tensor::getMixedSizes(b, loc, input), elementType);
  AffineMap id = b.getMultiDimIdentityMap(1);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{input}, ValueRange{init},
      ArrayRef<AffineMap>{id, id},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value i = linalg::IndexOp::create(nb, nloc, 0);
        linalg::YieldOp::create(nb, nloc, fn(nb, nloc, args[0], i));
      });
  return generic.getResult(0);
}

Value lowering::generateLine(
    OpBuilder &b, Location loc, Value size, Type elementType,
    function_ref<Value(OpBuilder &, Location, Value)> fn) {
  return generateLines(b, loc, size, TypeRange{elementType},
                       [&](OpBuilder &b, Location loc, Value i) {
                         return SmallVector<Value>{fn(b, loc, i)};
                       })
      .front();
}

SmallVector<Value> lowering::generateLines(
    OpBuilder &b, Location loc, Value size, TypeRange elementTypes,
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value)> fn) {
  SmallVector<Value> inits;
  for (Type elementType : elementTypes)
    inits.push_back(
        emptyTensor(b, loc, {getAsOpFoldResult(size)}, elementType));
  AffineMap id = b.getMultiDimIdentityMap(1);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange(ValueRange(inits)), ValueRange{}, inits,
      SmallVector<AffineMap>(inits.size(), id),
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location nloc, ValueRange) {
        Value i = linalg::IndexOp::create(nb, nloc, 0);
        linalg::YieldOp::create(nb, nloc, fn(nb, nloc, i));
      });
  return llvm::to_vector_of<Value>(generic.getResults());
}

Value lowering::castIntElements(OpBuilder &b, Location loc, Value input,
                                Type elementType) {
  auto type = cast<RankedTensorType>(input.getType());
  auto resultType = type.clone(elementType);
  Value init = tensor::EmptyOp::create(
      b, loc, resultType, tensor::createDynamicDimValues(b, loc, input));
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, ValueRange{input}, ValueRange{init},
             ArrayRef<AffineMap>{id, id},
             SmallVector<utils::IteratorType>(type.getRank(),
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nloc,
                   convertScalarToDtype(nb, nloc, args[0], elementType,
                                        /*isUnsignedCast=*/false));
             })
      .getResult(0);
}
