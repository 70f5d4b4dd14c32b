//===- Utils.cpp - Building blocks of the sift lowering ---------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "sift/Conversion/SiftToLinalg/SiftToLinalg.h"
#include "sift/Runtime/SiftRuntime.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::lowering;

//===----------------------------------------------------------------------===//
// Scalars and tensors
//===----------------------------------------------------------------------===//

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

static constexpr StringLiteral kReportFn = "sift_rt_report";
static constexpr StringLiteral kFailFn = "sift_rt_fail";

LogicalResult lowering::declareRuntimeReport(OpBuilder &b, Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  if (!module)
    return op->emitOpError("must be inside a module to be lowered");
  Type i64 = b.getI64Type();
  FunctionType type = b.getFunctionType({i64, i64, i64, i64}, {});
  for (StringLiteral name : {kReportFn, kFailFn}) {
    if (auto existing = module.lookupSymbol<func::FuncOp>(name)) {
      if (existing.getFunctionType() != type)
        return existing.emitOpError("conflicts with the sift runtime's ")
               << name;
      continue;
    }
    if (module.lookupSymbol(name))
      return op->emitOpError("cannot declare the sift runtime's ")
             << name << ": the module has another symbol of that name";
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
    fn.setPrivate();
  }
  return success();
}

LogicalResult lowering::checkLeadingExtents(OpBuilder &b, Operation *op,
                                            Value x, Value y, int64_t n) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto yType = cast<RankedTensorType>(y.getType());
  for (int64_t d = 0; d < n; ++d) {
    if (!xType.isDynamicDim(d) && !yType.isDynamicDim(d))
      continue; // Checked by the verifier.
    if (failed(declareRuntimeReport(b, op)))
      return failure();
    emitExtentCheck(b, op->getLoc(), x, d, y, d);
  }
  return success();
}

void mlir::sift::emitExtentCheck(OpBuilder &b, Location loc, Value x,
                                 int64_t dx, Value y, int64_t dy) {
  using namespace lowering;
  Value a = indexToI64(b, loc, dimValue(b, loc, x, dx));
  Value c = indexToI64(b, loc, dimValue(b, loc, y, dy));
  Value differ = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, a, c);
  int64_t line = 0;
  if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>())
    line = fileLoc.getLine();
  scf::IfOp::create(b, loc, differ, [&](OpBuilder &b, Location loc) {
    Type i64 = b.getI64Type();
    Value code = constInt(b, loc, i64, SIFT_RT_ERROR_EXTENT_MISMATCH);
    Value where = constInt(b, loc, i64, line);
    func::CallOp::create(b, loc, kFailFn, TypeRange{},
                         ValueRange{code, a, c, where});
    scf::YieldOp::create(b, loc);
  });
}

void lowering::emitRuntimeCheck(OpBuilder &b, Location loc, Value failed,
                                int64_t code, ValueRange values) {
  assert(values.size() <= 3 && "sift_rt_report takes three values");
  scf::IfOp::create(b, loc, failed, [&](OpBuilder &b, Location loc) {
    Type i64 = b.getI64Type();
    SmallVector<Value> args{constInt(b, loc, i64, code)};
    for (Value v : values)
      args.push_back(v.getType().isIndex() ? indexToI64(b, loc, v) : v);
    while (args.size() < 4)
      args.push_back(constInt(b, loc, i64, 0));
    func::CallOp::create(b, loc, kReportFn, TypeRange{}, args);
    scf::YieldOp::create(b, loc);
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

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

SmallVector<Value> lowering::buildLineLoop(OpBuilder &b, Location loc,
                                           ValueRange inputs, int64_t axis,
                                           ArrayRef<LineResult> results,
                                           LineBodyFn body) {
  Value first = inputs.front();
  auto inType = cast<RankedTensorType>(first.getType());
  int64_t rank = inType.getRank();
  SmallVector<OpFoldResult> inSizes = tensor::getMixedSizes(b, loc, first);
  SmallVector<OpFoldResult> batchSizes;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      batchSizes.push_back(inSizes[d]);

  // The full type of each result and the type of one line of it.
  SmallVector<SmallVector<OpFoldResult>> resultSizes;
  SmallVector<RankedTensorType> resultTypes, lineTypes;
  for (const LineResult &result : results) {
    SmallVector<OpFoldResult> sizes = batchSizes;
    if (result.axisSize) {
      sizes = inSizes;
      sizes[axis] = result.axisSize;
    }
    SmallVector<int64_t> shape;
    for (OpFoldResult size : sizes)
      shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
    resultSizes.push_back(sizes);
    resultTypes.push_back(RankedTensorType::get(shape, result.elementType));
    SmallVector<int64_t> lineShape;
    if (result.axisSize)
      lineShape.push_back(shape[axis]);
    lineTypes.push_back(RankedTensorType::get(lineShape, result.elementType));
  }

  // A 1-D input is a single line: no loop.
  if (batchSizes.empty()) {
    SmallVector<Value> lines(inputs.begin(), inputs.end());
    SmallVector<Value> outs = body(b, loc, lines, constIndex(b, loc, 0));
    for (auto [i, result] : llvm::enumerate(results)) {
      if (!result.axisSize)
        outs[i] = tensor::FromElementsOp::create(b, loc, lineTypes[i],
                                                 ValueRange{outs[i]});
      outs[i] = castTo(b, loc, outs[i], resultTypes[i]);
    }
    return outs;
  }

  SmallVector<Value> inits;
  for (auto [i, result] : llvm::enumerate(results))
    inits.push_back(emptyTensor(b, loc, resultSizes[i], result.elementType));
  // One loop over the row-major line number; each line is read with an
  // extract_slice and written back with a parallel_insert_slice into the
  // results.
  Value numLines = constIndex(b, loc, 1);
  SmallVector<Value> batchValues;
  for (OpFoldResult size : batchSizes) {
    batchValues.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
    numLines = arith::MulIOp::create(b, loc, numLines, batchValues.back());
  }
  // The lines are independent: an scf.forall over them, which the CPU
  // pipeline runs on parallel threads (scf.parallel, then OpenMP).
  auto loop = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{numLines},
                                    inits, /*mapping=*/std::nullopt);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value lineNumber = loop.getInductionVar(0);
    ValueRange iter = loop.getRegionIterArgs();
    // Batch coordinates of the line.
    SmallVector<Value> ivs(batchValues.size());
    Value rest = lineNumber;
    for (int64_t k = batchValues.size() - 1; k >= 0; --k) {
      ivs[k] = arith::RemUIOp::create(b, loc, rest, batchValues[k]);
      rest = arith::DivUIOp::create(b, loc, rest, batchValues[k]);
    }
    auto sliceOf = [&](OpFoldResult axisExtent, bool withAxis,
                       SmallVector<OpFoldResult> &offsets,
                       SmallVector<OpFoldResult> &sizes,
                       SmallVector<OpFoldResult> &strides) {
      size_t k = 0;
      for (int64_t d = 0; d < rank; ++d) {
        if (d == axis) {
          if (!withAxis)
            continue;
          offsets.push_back(b.getIndexAttr(0));
          sizes.push_back(axisExtent);
        } else {
          offsets.push_back(ivs[k++]);
          sizes.push_back(b.getIndexAttr(1));
        }
        strides.push_back(b.getIndexAttr(1));
      }
    };
    SmallVector<Value> lines;
    for (Value input : inputs) {
      auto type = cast<RankedTensorType>(input.getType());
      SmallVector<OpFoldResult> offsets, sizes, strides;
      sliceOf(inSizes[axis], /*withAxis=*/true, offsets, sizes, strides);
      auto lineType =
          RankedTensorType::get({type.getDimSize(axis)}, type.getElementType());
      // An empty line has nothing to read (and a slice at offset 0 of an
      // empty dimension does not verify).
      if (lineType.getDimSize(0) == 0) {
        lines.push_back(tensor::EmptyOp::create(b, loc, lineType.getShape(),
                                                lineType.getElementType()));
        continue;
      }
      lines.push_back(tensor::ExtractSliceOp::create(b, loc, lineType, input,
                                                     offsets, sizes, strides));
    }
    SmallVector<Value> outs = body(b, loc, lines, lineNumber);
    for (auto [i, result] : llvm::enumerate(results)) {
      Value out = outs[i];
      if (!result.axisSize)
        out = tensor::FromElementsOp::create(b, loc, lineTypes[i],
                                             ValueRange{out});
      out = castTo(b, loc, out, lineTypes[i]);
      SmallVector<OpFoldResult> offsets, sizes, strides;
      sliceOf(result.axisSize, /*withAxis=*/bool(result.axisSize), offsets,
              sizes, strides);
      if (lineTypes[i].hasStaticShape() && lineTypes[i].getNumElements() == 0)
        continue; // Nothing to write.
      OpBuilder::InsertionGuard inParallel(b);
      b.setInsertionPoint(loop.getTerminator().getBody(),
                          loop.getTerminator().getBody()->end());
      tensor::ParallelInsertSliceOp::create(b, loc, out, iter[i], offsets,
                                            sizes, strides);
    }
  }
  return llvm::to_vector_of<Value>(loop.getResults());
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
  Value init = emptyTensor(b, loc, {getAsOpFoldResult(size)}, elementType);
  AffineMap id = b.getMultiDimIdentityMap(1);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{id},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location nloc, ValueRange) {
        Value i = linalg::IndexOp::create(nb, nloc, 0);
        linalg::YieldOp::create(nb, nloc, fn(nb, nloc, i));
      });
  return generic.getResult(0);
}

//===----------------------------------------------------------------------===//
// Philox4x32-10
//===----------------------------------------------------------------------===//

// Multipliers and Weyl key increments of Philox4x32 (Salmon et al., SC'11).
static constexpr int64_t kPhiloxM0 = 0xD2511F53;
static constexpr int64_t kPhiloxM1 = 0xCD9E8D57;
static constexpr int64_t kPhiloxW0 = 0x9E3779B9;
static constexpr int64_t kPhiloxW1 = 0xBB67AE85;

std::array<Value, 4> lowering::philoxBlock(OpBuilder &b, Location loc,
                                           Value seed, Value offset,
                                           Value block) {
  Type i32 = b.getI32Type();
  Value c32 = constInt(b, loc, b.getI64Type(), 32);
  auto lo = [&](Value v) -> Value {
    return arith::TruncIOp::create(b, loc, i32, v);
  };
  auto hi = [&](Value v) -> Value {
    return lo(arith::ShRUIOp::create(b, loc, v, c32));
  };
  Value k0 = lo(seed), k1 = hi(seed);
  Value c0 = lo(block), c1 = hi(block), c2 = lo(offset), c3 = hi(offset);
  Value m0 = constInt(b, loc, i32, kPhiloxM0);
  Value m1 = constInt(b, loc, i32, kPhiloxM1);
  Value w0 = constInt(b, loc, i32, kPhiloxW0);
  Value w1 = constInt(b, loc, i32, kPhiloxW1);
  for (int round = 0; round < 10; ++round) {
    if (round) {
      k0 = arith::AddIOp::create(b, loc, k0, w0);
      k1 = arith::AddIOp::create(b, loc, k1, w1);
    }
    auto p0 = arith::MulUIExtendedOp::create(b, loc, m0, c0);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, m1, c2);
    Value n0 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p1.getHigh(), c1), k0);
    Value n2 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p0.getHigh(), c3), k1);
    c0 = n0;
    c1 = p1.getLow();
    c2 = n2;
    c3 = p0.getLow();
  }
  return {c0, c1, c2, c3};
}

Value lowering::philoxWord(OpBuilder &b, Location loc, Value seed, Value offset,
                           Value word) {
  Type i64 = b.getI64Type();
  Value block = arith::ShRUIOp::create(b, loc, word, constInt(b, loc, i64, 2));
  Value lane = arith::AndIOp::create(b, loc, word, constInt(b, loc, i64, 3));
  std::array<Value, 4> words = philoxBlock(b, loc, seed, offset, block);
  Value result = words[3];
  for (int k = 2; k >= 0; --k) {
    Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                     constInt(b, loc, i64, k));
    result = arith::SelectOp::create(b, loc, is, words[k], result);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Sorting
//===----------------------------------------------------------------------===//

FailureOr<SortKeyInfo> lowering::getSortKeyInfo(Type elementType) {
  unsigned width = 0;
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    if (!floatType.isF16() && !floatType.isBF16() && !floatType.isF32() &&
        !floatType.isF64())
      return failure();
    width = floatType.getWidth();
  } else if (auto intType = dyn_cast<IntegerType>(elementType)) {
    width = intType.getWidth();
    if (width > 64)
      return failure();
  } else {
    return failure();
  }
  return SortKeyInfo{width <= 32 ? 32u : 64u, width};
}

static Value constAPInt(OpBuilder &b, Location loc, Type type,
                        const APInt &value) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

Value lowering::toSortKey(OpBuilder &b, Location loc, Value scalar,
                          const SortKeyInfo &info, bool descending) {
  unsigned width = info.sortBits;
  Type bitsType = b.getIntegerType(width);
  Type keyType = b.getIntegerType(info.keyBits);
  Value bits = scalar;
  if (auto floatType = dyn_cast<FloatType>(scalar.getType())) {
    // -0.0 becomes +0.0 and every NaN one quiet NaN, then the sign-magnitude
    // pattern becomes an unsigned order: negatives are inverted, the sign bit
    // of the others is set.
    bits = arith::BitcastOp::create(b, loc, bitsType, scalar);
    Value zero =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, 0.0));
    Value isZero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, scalar, zero);
    Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                        scalar, scalar);
    APInt nan =
        APFloat::getQNaN(floatType.getFloatSemantics()).bitcastToAPInt();
    bits = arith::SelectOp::create(b, loc, isZero,
                                   constInt(b, loc, bitsType, 0), bits);
    bits = arith::SelectOp::create(b, loc, isNan,
                                   constAPInt(b, loc, bitsType, nan), bits);
    Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                           bits, constInt(b, loc, bitsType, 0));
    Value mask = arith::SelectOp::create(
        b, loc, negative, constInt(b, loc, bitsType, -1),
        constAPInt(b, loc, bitsType, APInt::getSignMask(width)));
    bits = arith::XOrIOp::create(b, loc, bits, mask);
  } else if (width > 1) {
    // Signed order: flip the sign bit. (`i1` is false < true as it is.)
    bits = arith::XOrIOp::create(
        b, loc, bits, constAPInt(b, loc, bitsType, APInt::getSignMask(width)));
  }
  Value key = width < info.keyBits
                  ? Value(arith::ExtUIOp::create(b, loc, keyType, bits))
                  : bits;
  if (descending)
    key = arith::XOrIOp::create(
        b, loc, key,
        constAPInt(b, loc, keyType,
                   APInt::getLowBitsSet(info.keyBits, info.sortBits)));
  return key;
}

/// Reads the key of element `i` (an index).
using KeyFn = function_ref<Value(OpBuilder &, Location, Value)>;

/// A `KeyFn` reading a 1-D tensor of keys.
static auto readKeys(Value keys) {
  return [keys](OpBuilder &b, Location loc, Value i) -> Value {
    return tensor::ExtractOp::create(b, loc, keys, i);
  };
}

/// The bitwise OR and AND of the keys of elements [0, n): the bits where they
/// differ are the only ones that vary among the keys.
static std::pair<Value, Value> orAndOf(OpBuilder &b, Location loc, Type keyType,
                                       Value n, KeyFn keyAt) {
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, c0, n, c1,
      ValueRange{constInt(b, loc, keyType, 0), constInt(b, loc, keyType, -1)},
      [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
        Value key = keyAt(b, loc, i);
        scf::YieldOp::create(
            b, loc,
            ValueRange{arith::OrIOp::create(b, loc, it[0], key),
                       arith::AndIOp::create(b, loc, it[1], key)});
      });
  return {loop.getResult(0), loop.getResult(1)};
}

/// Whether the 8-bit digit at `shift` of `bits` (a key-typed value) is not
/// zero.
static Value digitNonZero(OpBuilder &b, Location loc, Value bits,
                          unsigned shift) {
  Type keyType = bits.getType();
  Value d = arith::AndIOp::create(
      b, loc,
      arith::ShRUIOp::create(b, loc, bits, constInt(b, loc, keyType, shift)),
      constInt(b, loc, keyType, 255));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, d,
                               constInt(b, loc, keyType, 0));
}

/// Sub-histograms that a histogram loop spreads its counts over (element i
/// counts in copy i % kHistCopies): repeated digits then increment different
/// counters, not one counter through a store-to-load chain.
static constexpr int64_t kHistCopies = 4;

/// The histogram of `digitOf(keyAt(i))` (an index in [0, 256)) over i in
/// [0, n): a flat tensor of kHistCopies sub-histograms of 256 i64 counts.
static Value
histogramOf(OpBuilder &b, Location loc, Value n, KeyFn keyAt,
            function_ref<Value(OpBuilder &, Location, Value)> digitOf) {
  Type i64 = b.getI64Type();
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  Value hist0 = emptyTensor(b, loc, {b.getIndexAttr(256 * kHistCopies)}, i64,
                            constInt(b, loc, i64, 0));
  auto hist = scf::ForOp::create(
      b, loc, c0, n, c1, ValueRange{hist0},
      [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
        Value key = keyAt(b, loc, i);
        Value copy = arith::AndIOp::create(b, loc, i,
                                           constIndex(b, loc, kHistCopies - 1));
        Value at = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, copy, constIndex(b, loc, 256)),
            digitOf(b, loc, key));
        Value c = tensor::ExtractOp::create(b, loc, it[0], at);
        c = arith::AddIOp::create(b, loc, c, constInt(b, loc, i64, 1));
        scf::YieldOp::create(
            b, loc, Value(tensor::InsertOp::create(b, loc, c, it[0], at)));
      });
  return hist.getResult(0);
}

/// The count of digit `d` (an index) in a `histogramOf` result.
static Value countOf(OpBuilder &b, Location loc, Value hist, Value d) {
  Value sum;
  for (int64_t copy = 0; copy < kHistCopies; ++copy) {
    Value at = arith::AddIOp::create(b, loc, d, constIndex(b, loc, 256 * copy));
    Value c = tensor::ExtractOp::create(b, loc, hist, ValueRange{at});
    sum = sum ? arith::AddIOp::create(b, loc, sum, c).getResult() : c;
  }
  return sum;
}

/// The digit (an index) whose run in `hist` (a `histogramOf` result) holds
/// the `need`-th key (an i64, 1-based), and how many keys come before that
/// run (an i64).
static std::pair<Value, Value> findDigit(OpBuilder &b, Location loc, Value hist,
                                         Value need) {
  Type i64 = b.getI64Type();
  Value c0 = constIndex(b, loc, 0), zero64 = constInt(b, loc, i64, 0);
  auto scan = scf::ForOp::create(
      b, loc, c0, constIndex(b, loc, 256), constIndex(b, loc, 1),
      ValueRange{zero64, c0, zero64},
      [&](OpBuilder &b, Location loc, Value d, ValueRange it) {
        Value end =
            arith::AddIOp::create(b, loc, it[0], countOf(b, loc, hist, d));
        Value hit = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, it[0],
                                  need),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, need,
                                  end));
        scf::YieldOp::create(
            b, loc,
            ValueRange{end, arith::SelectOp::create(b, loc, hit, d, it[1]),
                       arith::SelectOp::create(b, loc, hit, it[0], it[2])});
      });
  return {scan.getResult(1), scan.getResult(2)};
}

std::pair<Value, Value> lowering::radixArgsort(OpBuilder &b, Location loc,
                                               Value keys, Value n,
                                               unsigned sortBits) {
  Type keyType = cast<RankedTensorType>(keys.getType()).getElementType();
  Type i64 = b.getI64Type();
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  Value c256 = constIndex(b, loc, 256);
  Value zero64 = constInt(b, loc, i64, 0), one64 = constInt(b, loc, i64, 1);
  Value iota =
      generateLine(b, loc, n, i64, [](OpBuilder &b, Location loc, Value i) {
        return indexToI64(b, loc, i);
      });
  // The bits that vary among the keys: a digit in which every key agrees
  // would be an identity pass, so it is skipped.
  auto [orAll, andAll] = orAndOf(b, loc, keyType, n, readKeys(keys));
  Value varying = arith::XOrIOp::create(b, loc, orAll, andAll);
  // One stable counting-sort pass per 8-bit digit, least significant first.
  // The passes are unrolled: each reads the previous pass's tensors and
  // writes fresh ones, so bufferization needs no loop-carried buffer swap.
  Value inKeys = keys, inIdx = iota;
  for (unsigned shiftBits = 0; shiftBits < sortBits; shiftBits += 8) {
    Value shift = constInt(b, loc, keyType, shiftBits);
    Value digitMask = constInt(b, loc, keyType, 255);
    auto digitOf = [&](OpBuilder &b, Location loc, Value key) -> Value {
      Value d = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, key, shift), digitMask);
      return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), d);
    };
    Value curKeys = inKeys, curIdx = inIdx;
    auto pass = scf::IfOp::create(
        b, loc, digitNonZero(b, loc, varying, shiftBits),
        [&](OpBuilder &b, Location loc) {
          // Histogram of the digit.
          Value hist = histogramOf(b, loc, n, readKeys(curKeys), digitOf);

          // Exclusive prefix sum: where each digit's run starts.
          Value starts0 = emptyTensor(b, loc, {b.getIndexAttr(256)}, i64);
          auto starts = scf::ForOp::create(
              b, loc, c0, c256, c1, ValueRange{starts0, zero64},
              [&](OpBuilder &b, Location loc, Value d, ValueRange it) {
                Value c = countOf(b, loc, hist, d);
                Value s = tensor::InsertOp::create(b, loc, it[1], it[0], d);
                Value acc = arith::AddIOp::create(b, loc, it[1], c);
                scf::YieldOp::create(b, loc, ValueRange{s, acc});
              });

          // Stable scatter in input order.
          Value outKeys0 = emptyTensor(b, loc, {getAsOpFoldResult(n)}, keyType);
          Value outIdx0 = emptyTensor(b, loc, {getAsOpFoldResult(n)}, i64);
          auto scatter = scf::ForOp::create(
              b, loc, c0, n, c1,
              ValueRange{outKeys0, outIdx0, starts.getResult(0)},
              [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
                Value key = tensor::ExtractOp::create(b, loc, curKeys, i);
                Value idx = tensor::ExtractOp::create(b, loc, curIdx, i);
                Value d = digitOf(b, loc, key);
                Value pos = tensor::ExtractOp::create(b, loc, it[2], d);
                Value at = i64ToIndex(b, loc, pos);
                Value ok = tensor::InsertOp::create(b, loc, key, it[0], at);
                Value oi = tensor::InsertOp::create(b, loc, idx, it[1], at);
                Value next = arith::AddIOp::create(b, loc, pos, one64);
                Value s = tensor::InsertOp::create(b, loc, next, it[2], d);
                scf::YieldOp::create(b, loc, ValueRange{ok, oi, s});
              });
          scf::YieldOp::create(
              b, loc,
              ValueRange{
                  castTo(b, loc, scatter.getResult(0), curKeys.getType()),
                  castTo(b, loc, scatter.getResult(1), curIdx.getType())});
        },
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, ValueRange{curKeys, curIdx});
        });
    inKeys = pass.getResult(0);
    inIdx = pass.getResult(1);
  }
  return {inKeys, inIdx};
}

std::pair<Value, Value> lowering::radixSelect(OpBuilder &b, Location loc,
                                              Type keyType, Value n, Value k,
                                              unsigned sortBits, KeyFn keyAt) {
  Type indexType = b.getIndexType();
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  Value zeroKey = constInt(b, loc, keyType, 0);
  Value onesKey = constInt(b, loc, keyType, -1);
  // The candidates are the keys that agree with the k-th key on the digits
  // found so far: all n keys (read with `keyAt`) until a digit that varies
  // among them is found; from then on, the `m` keys compacted at the front
  // of `cand`. `orC` and `andC` tell which bits still vary among them.
  auto [orAll, andAll] = orAndOf(b, loc, keyType, n, keyAt);
  Value cand =
      emptyTensor(b, loc, {getAsOpFoldResult(n)}, keyType, /*fillValue=*/{});
  Value m = n, need = k;
  Value orC = orAll, andC = andAll;
  Value threshold = zeroKey;
  unsigned numDigits = (sortBits + 7) / 8;
  for (int digit = numDigits - 1; digit >= 0; --digit) {
    unsigned shiftBits = 8 * digit;
    Value shift = constInt(b, loc, keyType, shiftBits);
    Value digitMask = constInt(b, loc, keyType, 255);
    auto digitOf = [&](OpBuilder &b, Location loc, Value key) -> Value {
      return arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, key, shift), digitMask);
    };
    Value varies = digitNonZero(
        b, loc, arith::XOrIOp::create(b, loc, orC, andC), shiftBits);
    Value curCand = cand, curM = m, curNeed = need, curOr = orC, curAnd = andC;
    // `build(fromKeys)` in two versions: reading the candidates with `keyAt`
    // (none compacted yet: m == n) or from `cand`.
    auto bothWays =
        [&](OpBuilder &b, Location loc,
            function_ref<SmallVector<Value>(OpBuilder &, Location, bool)> build)
        -> SmallVector<Value> {
      Value fromKeys =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, curM, n);
      auto twoWays = scf::IfOp::create(
          b, loc, fromKeys,
          [&](OpBuilder &b, Location loc) {
            scf::YieldOp::create(b, loc, build(b, loc, true));
          },
          [&](OpBuilder &b, Location loc) {
            scf::YieldOp::create(b, loc, build(b, loc, false));
          });
      return llvm::to_vector_of<Value>(twoWays.getResults());
    };
    auto step = scf::IfOp::create(
        b, loc, varies,
        [&](OpBuilder &b, Location loc) {
          // Histogram of the digit among the candidates.
          Value hist =
              bothWays(b, loc, [&](OpBuilder &b, Location loc, bool fromKeys) {
                auto read = readKeys(curCand);
                return SmallVector<Value>{
                    histogramOf(b, loc, curM, fromKeys ? keyAt : KeyFn(read),
                                [&](OpBuilder &b, Location loc, Value key) {
                                  return Value(arith::IndexCastUIOp::create(
                                      b, loc, indexType, digitOf(b, loc, key)));
                                })};
              })[0];
          auto [found, before] = findDigit(b, loc, hist, curNeed);
          Value selDigit = arith::IndexCastUIOp::create(b, loc, keyType, found);
          Value newNeed = arith::SubIOp::create(b, loc, curNeed, before);
          // Keep the candidates with that digit, compacted in place (the
          // write index never passes the read index).
          SmallVector<Value> kept =
              bothWays(b, loc, [&](OpBuilder &b, Location loc, bool fromKeys) {
                auto filter = scf::ForOp::create(
                    b, loc, c0, curM, c1,
                    ValueRange{curCand, c0, zeroKey, onesKey},
                    [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
                      Value key = fromKeys ? keyAt(b, loc, i)
                                           : Value(tensor::ExtractOp::create(
                                                 b, loc, it[0], i));
                      Value match = arith::CmpIOp::create(
                          b, loc, arith::CmpIPredicate::eq,
                          digitOf(b, loc, key), selDigit);
                      Value out =
                          tensor::InsertOp::create(b, loc, key, it[0], it[1]);
                      Value j = arith::AddIOp::create(
                          b, loc, it[1],
                          arith::SelectOp::create(b, loc, match, c1, c0));
                      Value o = arith::OrIOp::create(
                          b, loc, it[2],
                          arith::SelectOp::create(b, loc, match, key, zeroKey));
                      Value a = arith::AndIOp::create(
                          b, loc, it[3],
                          arith::SelectOp::create(b, loc, match, key, onesKey));
                      scf::YieldOp::create(b, loc, ValueRange{out, j, o, a});
                    });
                return llvm::to_vector_of<Value>(filter.getResults());
              });
          scf::YieldOp::create(b, loc,
                               ValueRange{kept[0], kept[1], newNeed, selDigit,
                                          kept[2], kept[3]});
        },
        [&](OpBuilder &b, Location loc) {
          // Every candidate has this digit.
          scf::YieldOp::create(b, loc,
                               ValueRange{curCand, curM, curNeed,
                                          digitOf(b, loc, curAnd), curOr,
                                          curAnd});
        });
    cand = step.getResult(0);
    m = step.getResult(1);
    need = step.getResult(2);
    threshold = arith::OrIOp::create(
        b, loc, threshold,
        arith::ShLIOp::create(b, loc, step.getResult(3), shift));
    orC = step.getResult(4);
    andC = step.getResult(5);
  }
  return {threshold, need};
}

RadixSplit lowering::radixSplit(OpBuilder &b, Location loc, Type keyType,
                                Value n, Value k, unsigned sortBits,
                                KeyFn keyAt) {
  // The most significant digit in which the keys differ (digit 0 when they
  // are all equal).
  auto [orAll, andAll] = orAndOf(b, loc, keyType, n, keyAt);
  Value varying = arith::XOrIOp::create(b, loc, orAll, andAll);
  Value shift = constInt(b, loc, keyType, 0);
  for (unsigned shiftBits = 8; shiftBits < sortBits; shiftBits += 8)
    shift = arith::SelectOp::create(
        b, loc, digitNonZero(b, loc, varying, shiftBits),
        constInt(b, loc, keyType, shiftBits), shift);
  Value digitMask = constInt(b, loc, keyType, 255);
  Value hist = histogramOf(
      b, loc, n, keyAt, [&](OpBuilder &b, Location loc, Value key) -> Value {
        Value d = arith::AndIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, key, shift), digitMask);
        return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), d);
      });
  auto [digit, below] = findDigit(b, loc, hist, k);
  return {shift, arith::IndexCastUIOp::create(b, loc, keyType, digit), below,
          countOf(b, loc, hist, digit)};
}
