//===- NarrowIndices.cpp - --sift-narrow-indices --------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// A compaction writes one index per selected lane (and, padded, one per
// lane past the count), and the gathers through it read them back at
// random. Where the lines are shorter than 2^31 and only gathers read the
// indices, as values, they are written as i32: the gathers gather i32 and
// widen what they gathered (K lanes, not N).
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "sift/Dialect/Sift/IR/SiftOps.h"

#include "../Conversion/SiftToLinalg/Utils/CodegenUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTNARROWINDICES
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

/// Whether `value` fits a signed i32.
static bool fitsI32(int64_t value) {
  return value >= std::numeric_limits<int32_t>::min() &&
         value <= std::numeric_limits<int32_t>::max();
}

/// A gather that reads `indices` as its source only, with a fill (if any)
/// that an i32 holds.
static bool gathersValuesOnly(OpOperand &use) {
  auto gather = dyn_cast<GatherOp>(use.getOwner());
  if (!gather || use.getOperandNumber() != 0 ||
      gather.getIndices() == use.get())
    return false;
  std::optional<Attribute> fill = gather.getFill();
  if (!fill)
    return true;
  auto intFill = dyn_cast<IntegerAttr>(*fill);
  return intFill && fitsI32(intFill.getInt());
}

/// Whether `compact` can write i32 indices.
static bool isNarrowable(CompactOp compact) {
  auto indicesType = cast<RankedTensorType>(compact.getIndices().getType());
  int64_t lineLength = compact.getMask().getType().getShape().back();
  return indicesType.getElementType().isInteger(64) &&
         !ShapedType::isDynamic(lineLength) &&
         lineLength <= std::numeric_limits<int32_t>::max() &&
         (compact.getUnpadded() || fitsI32(compact.getFill())) &&
         !compact.getIndices().use_empty() &&
         llvm::all_of(compact.getIndices().getUses(), gathersValuesOnly);
}

static void narrow(CompactOp compact) {
  OpBuilder b(compact);
  auto indicesType = cast<RankedTensorType>(compact.getIndices().getType());
  auto narrowType = indicesType.clone(b.getI32Type());
  auto narrowed = cast<CompactOp>(b.clone(*compact));
  narrowed.getIndices().setType(narrowType);
  compact.getCount().replaceAllUsesWith(narrowed.getCount());
  for (OpOperand &use :
       llvm::make_early_inc_range(compact.getIndices().getUses())) {
    auto gather = cast<GatherOp>(use.getOwner());
    b.setInsertionPoint(gather);
    auto resultType = cast<RankedTensorType>(gather.getResult().getType());
    auto narrowGather = cast<GatherOp>(b.clone(*gather));
    narrowGather.getSourceMutable().assign(narrowed.getIndices());
    narrowGather.getResult().setType(resultType.clone(b.getI32Type()));
    if (std::optional<Attribute> fill = gather.getFill())
      narrowGather.setFillAttr(
          b.getI32IntegerAttr(cast<IntegerAttr>(*fill).getInt()));
    gather.getResult().replaceAllUsesWith(lowering::castIntElements(
        b, gather.getLoc(), narrowGather.getResult(), b.getI64Type()));
    gather.erase();
  }
  compact.erase();
}

/// See SiftNarrowIndices in Passes.td.
struct NarrowIndicesPass
    : sift::impl::SiftNarrowIndicesBase<NarrowIndicesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<CompactOp> candidates;
    getOperation().walk([&](CompactOp compact) {
      if (isNarrowable(compact))
        candidates.push_back(compact);
    });
    for (CompactOp compact : candidates)
      narrow(compact);
    numNarrowed += candidates.size();
  }
};
} // namespace
