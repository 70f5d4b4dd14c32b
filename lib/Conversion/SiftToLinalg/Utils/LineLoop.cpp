//===- LineLoop.cpp - The loop over the lines of an axis --------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "LineLoop.h"

#include "CodegenUtils.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::lowering;

SmallVector<Value> lowering::buildLineLoop(OpBuilder &b, Location loc,
                                           ValueRange inputs, int64_t axis,
                                           ArrayRef<LineResult> results,
                                           LineBodyFn body) {
  return buildLineLoopInPlace(
      b, loc, inputs, axis, results,
      [&](OpBuilder &b, Location loc, ValueRange lines, ValueRange,
          Value lineNumber) { return body(b, loc, lines, lineNumber); });
}

SmallVector<Value> lowering::buildLineLoopInPlace(OpBuilder &b, Location loc,
                                                  ValueRange inputs,
                                                  int64_t axis,
                                                  ArrayRef<LineResult> results,
                                                  LineBodyInPlaceFn body) {
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
  // Each result's extent along the axis, a constant as an attribute: the
  // line types below are static where it is constant, and so are the
  // slices that write them (a constant Value there would be a dynamic size
  // of a static slice, which does not verify).
  SmallVector<OpFoldResult> axisSizes;
  for (const LineResult &result : results) {
    OpFoldResult axisSize = result.axisSize;
    if (auto value = dyn_cast_if_present<Value>(axisSize))
      axisSize = getAsOpFoldResult(value);
    axisSizes.push_back(axisSize);
    SmallVector<OpFoldResult> sizes = batchSizes;
    if (axisSize) {
      sizes = inSizes;
      sizes[axis] = axisSize;
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
    SmallVector<Value> outLines;
    for (auto [i, result] : llvm::enumerate(results))
      outLines.push_back(result.axisSize ? emptyTensor(b, loc, {axisSizes[i]},
                                                       result.elementType)
                                         : Value());
    SmallVector<Value> outs =
        body(b, loc, lines, outLines, constIndex(b, loc, 0));
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
    SmallVector<Value> outLines;
    for (auto [i, result] : llvm::enumerate(results)) {
      if (!result.axisSize) {
        outLines.push_back(Value());
        continue;
      }
      if (lineTypes[i].hasStaticShape() && lineTypes[i].getNumElements() == 0) {
        outLines.push_back(tensor::EmptyOp::create(
            b, loc, lineTypes[i].getShape(), lineTypes[i].getElementType()));
        continue;
      }
      SmallVector<OpFoldResult> offsets, sizes, strides;
      sliceOf(axisSizes[i], /*withAxis=*/true, offsets, sizes, strides);
      outLines.push_back(tensor::ExtractSliceOp::create(
          b, loc, lineTypes[i], iter[i], offsets, sizes, strides));
    }
    SmallVector<Value> outs = body(b, loc, lines, outLines, lineNumber);
    for (auto [i, result] : llvm::enumerate(results)) {
      Value out = outs[i];
      if (!result.axisSize)
        out = tensor::FromElementsOp::create(b, loc, lineTypes[i],
                                             ValueRange{out});
      out = castTo(b, loc, out, lineTypes[i]);
      SmallVector<OpFoldResult> offsets, sizes, strides;
      sliceOf(axisSizes[i], /*withAxis=*/bool(result.axisSize), offsets, sizes,
              strides);
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
