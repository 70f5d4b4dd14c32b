//===- LossKernels.cpp - The cross-entropy kernel -------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// sift.cross_entropy as block-level kernels (--convert-sift-to-gpu, then
// --sift-gpu-expand-kernels). The semantics are the CPU lowering's
// (lib/Conversion/SiftToLinalg/Loss.cpp): the same online log-sum-exp with
// its NaN and infinity rules, the same loss, weight and smoothing terms, sums
// and means in f64 rounded once.
//
// One call expands into, in order:
//   1. a kernel of one thread that clears the error word (err[0], the
//      lowest row whose target is out of range, none yet);
//   2. the row kernel: a group of lanes per row (below), the lanes striding
//      over the row with an online (max, sum of exp) pair, combined across
//      the group by xor shuffles (and, for a block per row, through
//      workgroup memory), then the target's logit and weight and the
//      smoothing term; the group's first lane writes the row's loss (and
//      weight), and a row whose target is out of range takes the minimum of
//      its row and err[0] (an atomic min: the lowest bad row wins, whatever
//      the order of the blocks);
//   3. for sum and mean, one block per item of the batch dimensions summing
//      its rows' losses (and weights) in f64 in a fixed order (per thread,
//      then the block's tree): deterministic. Its block 0 also reads the bad
//      row's target into err[1]; for none, a kernel of one thread does that.
//      An item of many rows (static, at least kSplitItemRows) is summed in
//      two launches instead: S segments of about kSegmentRows rows per
//      item, a block each, write their f64 partial sums (buffers the call
//      gets, `segments` = S), then a block per item sums its S partials,
//      both in a fixed order: still deterministic, and a million rows are
//      no longer one block's sequential reads;
//   4. on the host, one copy of the two-word error word into host memory
//      and, if a row is recorded, the runtime's `sift_rt_report(target, row,
//      C)`, the report of the CPU lowering (its first error wins; here the
//      lowest row). The loss of that row is NaN, as on the CPU.
//
// The group of lanes per row is chosen by the row length C alone:
//   - static C <= 32: g = the power of two >= C lanes per row, 32/g rows per
//     warp: every lane reads at most one logit, log2(g) shuffle steps, no
//     barrier (a warp per row of 10 classes would leave 22 lanes idle and
//     pay 5 shuffle steps per row);
//   - static 32 < C <= 1024: a warp per row, at most 32 logits per lane,
//     5 shuffle steps, no barrier, no shared memory: enough work per lane to
//     amortize the shuffles, and rows independent per warp;
//   - longer or dynamic C: a block per row, C/T logits per thread, the
//     warps' partial pairs combined through workgroup memory (two barriers),
//     so that a few long rows still use many SMs. A dynamic C may be short:
//     the block then idles most of its threads, but stays correct.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "../SiftToLinalg/Utils/CodegenUtils.h"
#include "../SiftToLinalg/Utils/RuntimeChecks.h"

#include "sift/Conversion/SiftToGPU/BlockPrimitives.h"
#include "sift/Runtime/SiftRuntime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::gpu_kernels;
using namespace mlir::sift::gpu_prims;

namespace {

/// err[0] while no target is out of range.
constexpr int64_t kNoBadRow = std::numeric_limits<int64_t>::max();
/// Rows of at most this many static classes get a warp (or less) each.
constexpr int64_t kMaxWarpRowClasses = 1024;
/// Items of at least this many rows are summed by segments (a block of
/// 256 threads would read 128 rows per thread alone).
constexpr int64_t kSplitItemRows = 32768;
/// The rows of one segment of such an item (32 per thread of 256).
constexpr int64_t kSegmentRows = 8192;
/// At most this many segments per item.
constexpr int64_t kMaxSegments = 1024;

/// The segments whose partial sums an item of `perItem` rows is summed
/// from: 1 (one block per item) below kSplitItemRows.
int64_t itemSegments(int64_t perItem) {
  if (perItem < kSplitItemRows)
    return 1;
  return std::min(kMaxSegments, llvm::divideCeilSigned(perItem, kSegmentRows));
}

Value constI64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

Value floatConst(OpBuilder &b, Location loc, Type type, double v) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v));
}

Value nanOf(OpBuilder &b, Location loc, Type type) {
  return floatConst(b, loc, type, std::numeric_limits<double>::quiet_NaN());
}

Value indexToI64(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
}

/// `cond ? then() : otherwise`, evaluating then() only when `cond` holds.
Value ifThenElse(OpBuilder &b, Location loc, Value cond,
                 function_ref<Value(OpBuilder &)> then, Value otherwise) {
  auto ifOp = scf::IfOp::create(
      b, loc, cond,
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, then(b));
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, otherwise);
      });
  return ifOp.getResult(0);
}

/// The compute type of logits of `type`: f32 for half types.
Type computeType(Type type) {
  return type.getIntOrFloatBitWidth() < 32 ? Float32Type::get(type.getContext())
                                           : type;
}

/// `x` of a float type widened (or rounded) to `type`.
Value castFloat(OpBuilder &b, Location loc, Value x, Type type) {
  unsigned from = x.getType().getIntOrFloatBitWidth();
  unsigned to = type.getIntOrFloatBitWidth();
  if (x.getType() == type)
    return x;
  if (from < to)
    return arith::ExtFOp::create(b, loc, type, x);
  return arith::TruncFOp::create(b, loc, type, x);
}

//===----------------------------------------------------------------------===//
// --convert-sift-to-gpu: the kernel call
//===----------------------------------------------------------------------===//

/// `tensor` with its leading `n` dimensions (all but the last for the
/// logits) collapsed into one: [R] or [R, C]; a missing one is 1.
Value collapseLeading(OpBuilder &b, Location loc, Value tensor,
                      int64_t trailing) {
  auto type = cast<RankedTensorType>(tensor.getType());
  int64_t lead = type.getRank() - trailing;
  if (lead == 1)
    return tensor;
  if (lead == 0) {
    SmallVector<int64_t> shape = {1};
    llvm::append_range(shape, type.getShape());
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
    llvm::append_range(sizes, tensor::getMixedSizes(b, loc, tensor));
    SmallVector<ReassociationIndices> reassociation;
    if (trailing == 0)
      reassociation.push_back({0});
    else
      for (int64_t d = 0; d < trailing; ++d)
        reassociation.push_back(d == 0 ? ReassociationIndices{0, 1}
                                       : ReassociationIndices{d + 1});
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()), tensor,
        reassociation, sizes);
  }
  SmallVector<ReassociationIndices> reassociation(1);
  for (int64_t d = 0; d < lead; ++d)
    reassociation[0].push_back(d);
  for (int64_t d = lead; d < type.getRank(); ++d)
    reassociation.push_back({d});
  return tensor::CollapseShapeOp::create(b, loc, tensor, reassociation);
}

} // namespace

LogicalResult gpu_kernels::convertCrossEntropy(CrossEntropyOp op) {
  auto logitsType = cast<RankedTensorType>(op.getLogits().getType());
  Type elt = logitsType.getElementType();
  if (!elt.isF16() && !elt.isBF16() && !elt.isF32() && !elt.isF64())
    return failure(); // the linalg lowering reports it
  IRRewriter rewriter(op->getContext());
  if (failed(lowering::declareRuntimeReport(rewriter, op)))
    return failure();
  OpBuilder &b = rewriter;
  b.setInsertionPoint(op);
  Location loc = op.getLoc();
  Type ct = computeType(elt);

  // Logits [M, C], targets [R].
  Value rows = collapseLeading(b, loc, op.getLogits(), /*trailing=*/1);
  Value targets = collapseLeading(b, loc, op.getTargets(), /*trailing=*/0);
  auto rowsType = cast<RankedTensorType>(rows.getType());
  auto targetsType = cast<RankedTensorType>(targets.getType());
  OpFoldResult numRows = tensor::getMixedSize(b, loc, targets, 0);
  // The extents that must agree, checked at run time where dynamic, with
  // the CPU lowering's reports. The kernel stays memory-safe: rows past the
  // logits' get NaN, weights past the end read as NaN.
  if (rowsType.isDynamicDim(0) || targetsType.isDynamicDim(0)) {
    Value m = tensor::DimOp::create(b, loc, rows, 0);
    Value r = tensor::DimOp::create(b, loc, targets, 0);
    lowering::emitRuntimeCheck(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, m, r),
        SIFT_RT_ERROR_CROSS_ENTROPY_ROWS, {m, r});
  }
  if (Value weight = op.getWeight()) {
    if (cast<RankedTensorType>(weight.getType()).isDynamicDim(0) ||
        rowsType.isDynamicDim(1)) {
      Value w = tensor::DimOp::create(b, loc, weight, 0);
      Value c = tensor::DimOp::create(b, loc, rows, 1);
      lowering::emitRuntimeCheck(
          b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, w, c),
          SIFT_RT_ERROR_CROSS_ENTROPY_WEIGHTS, {w, c});
    }
  }

  SmallVector<Value> operands = {toBuffer(b, loc, rows),
                                 toBuffer(b, loc, targets)};
  if (Value weight = op.getWeight())
    operands.push_back(toBuffer(b, loc, weight));
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  int64_t segments = 1;
  SmallVector<OpFoldResult> targetSizes =
      tensor::getMixedSizes(b, loc, op.getTargets());
  Value out;
  SmallVector<OpFoldResult> outSizes;
  if (op.getReduction() == Reduction::None) {
    out = allocBuffer(b, loc, numRows, elt);
    outSizes = targetSizes;
    operands.push_back(out);
  } else {
    // One result per item of the leading batch_dims dimensions.
    int64_t batchDims = op.getBatchDims();
    outSizes.assign(targetSizes.begin(), targetSizes.begin() + batchDims);
    OpFoldResult numItems = productOf(b, loc, outSizes);
    out = allocBuffer(b, loc, numItems, elt);
    operands.push_back(out);
    operands.push_back(allocBuffer(b, loc, numRows, ct));
    if (op.getReduction() == Reduction::Mean)
      operands.push_back(allocBuffer(b, loc, numRows, ct));
    // Items of many (static) rows: their segments' partial sums.
    std::optional<int64_t> items = getConstantIntValue(numItems);
    std::optional<int64_t> rowCount = getConstantIntValue(numRows);
    if (items && rowCount && *items > 0) {
      segments = itemSegments(*rowCount / *items);
      if (segments > 1)
        for (int i = op.getReduction() == Reduction::Mean ? 2 : 1; i > 0; --i)
          operands.push_back(allocBuffer(
              b, loc, b.getIndexAttr(*items * segments), b.getF64Type()));
    }
  }
  // The error word: [the lowest bad row, its target].
  operands.push_back(
      memref::AllocOp::create(b, loc, MemRefType::get({2}, b.getI64Type())));

  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("reduction", op.getReductionAttr()),
      b.getNamedAttr("ignore_index", op.getIgnoreIndexAttr()),
      b.getNamedAttr("label_smoothing", op.getLabelSmoothingAttr())};
  if (op.getWeight())
    attrs.push_back(b.getNamedAttr("weighted", b.getUnitAttr()));
  if (segments > 1)
    attrs.push_back(b.getNamedAttr("segments", b.getI64IntegerAttr(segments)));
  createKernelCall(b, loc, op, "cross_entropy", operands, attrs);
  replaceWithFlatResult(b, op, out, resultType, outSizes);
  return success();
}

//===----------------------------------------------------------------------===//
// --sift-gpu-expand-kernels: the launches
//===----------------------------------------------------------------------===//

namespace {

/// The operands and attributes of a cross_entropy kernel call.
struct LossCall {
  Value logits, targets, weight; ///< [M, C], [R], [C] (or null)
  Value out;                     ///< [R] losses, or [items] sums or means
  Value rowLosses, rowWeights;   ///< [R] (sum, mean), [R] (mean) or null
  /// With `segments` > 1: [items * segments] f64 partial sums of the losses
  /// (and of the weights, for mean), else null.
  Value partialLosses, partialWeights;
  int64_t segments = 1;
  Value err; ///< [2] i64
  Reduction reduction;
  int64_t ignoreIndex;
  double smoothing;
  Type ct; ///< the compute type
};

FailureOr<LossCall> parseLossCall(func::CallOp call) {
  auto reduction = call->getAttrOfType<ReductionAttr>("reduction");
  auto ignore = call->getAttrOfType<IntegerAttr>("ignore_index");
  auto smoothing = call->getAttrOfType<FloatAttr>("label_smoothing");
  bool weighted = call->hasAttr("weighted");
  auto segments = call->getAttrOfType<IntegerAttr>("segments");
  if (!reduction || !ignore || !smoothing ||
      (segments && segments.getInt() < 2))
    return call.emitOpError("sift-gpu-expand-kernels: the cross_entropy "
                            "kernel needs its reduction, ignore_index and "
                            "label_smoothing (and segments, if any, at "
                            "least 2)");
  LossCall c;
  c.reduction = reduction.getValue();
  c.ignoreIndex = ignore.getInt();
  c.smoothing = smoothing.getValueAsDouble();
  if (segments)
    c.segments = segments.getInt();
  size_t perRow = c.reduction == Reduction::None  ? 0
                  : c.reduction == Reduction::Sum ? 1
                                                  : 2;
  size_t numArgs =
      2 + (weighted ? 1 : 0) + 1 + perRow + (c.segments > 1 ? perRow : 0) + 1;
  ValueRange args = call.getOperands();
  auto rank = [](Value v) { return cast<MemRefType>(v.getType()).getRank(); };
  auto elt = [](Value v) {
    return cast<MemRefType>(v.getType()).getElementType();
  };
  if (args.size() != numArgs ||
      !llvm::all_of(args.getTypes(), llvm::IsaPred<MemRefType>))
    return call.emitOpError("sift-gpu-expand-kernels: the cross_entropy "
                            "kernel takes ")
           << numArgs << " buffers";
  size_t i = 0;
  c.logits = args[i++];
  c.targets = args[i++];
  if (weighted)
    c.weight = args[i++];
  c.out = args[i++];
  if (c.reduction != Reduction::None)
    c.rowLosses = args[i++];
  if (c.reduction == Reduction::Mean)
    c.rowWeights = args[i++];
  if (c.segments > 1 && c.reduction != Reduction::None)
    c.partialLosses = args[i++];
  if (c.segments > 1 && c.reduction == Reduction::Mean)
    c.partialWeights = args[i++];
  c.err = args[i++];
  Type floatType = elt(c.logits);
  bool ok = rank(c.logits) == 2 && isa<FloatType>(floatType) &&
            rank(c.targets) == 1 && isa<IntegerType>(elt(c.targets)) &&
            rank(c.out) == 1 && elt(c.out) == floatType &&
            cast<MemRefType>(c.err.getType()) ==
                MemRefType::get({2}, IntegerType::get(call.getContext(), 64));
  if (ok)
    c.ct = computeType(floatType);
  if (c.weight)
    ok = ok && rank(c.weight) == 1 && elt(c.weight) == floatType;
  for (Value v : {c.rowLosses, c.rowWeights})
    if (v)
      ok = ok && rank(v) == 1 && elt(v) == c.ct;
  for (Value v : {c.partialLosses, c.partialWeights})
    if (v)
      ok = ok && rank(v) == 1 && elt(v).isF64();
  if (!ok)
    return call.emitOpError("sift-gpu-expand-kernels: the cross_entropy "
                            "kernel's buffers are logits [M, C], integer "
                            "targets [R], class weights [C], the result [R] "
                            "or [items], per-row losses and weights [R] of "
                            "the compute type, with segments their f64 "
                            "partial sums [items * segments], and an error "
                            "word of 2 x i64");
  return c;
}

/// How the row kernel maps rows to threads (see the file's header).
struct RowLayout {
  int64_t lanesPerRow; ///< g: a power of two up to 32, or `threads`
  int64_t threads;     ///< per block
  bool blockPerRow;
  int64_t rowsPerBlock() const {
    return blockPerRow ? 1 : threads / lanesPerRow;
  }
  int64_t numWarps() const { return threads / kWarpSize; }
};

RowLayout rowLayout(std::optional<int64_t> numClasses,
                    std::optional<int64_t> numRows, int64_t maxThreads) {
  if (numClasses && *numClasses <= kMaxWarpRowClasses) {
    int64_t g = *numClasses <= kWarpSize
                    ? static_cast<int64_t>(
                          llvm::PowerOf2Ceil(std::max<int64_t>(*numClasses, 1)))
                    : kWarpSize;
    int64_t threads = maxThreads;
    // Few static rows: fewer warps.
    if (numRows)
      threads = std::min(
          threads,
          std::max<int64_t>(kWarpSize, llvm::alignTo(*numRows * g, kWarpSize)));
    return {g, threads, false};
  }
  return {maxThreads, maxThreads, true};
}

/// The online log-sum-exp state of the CPU lowering (`OnlineLse` of
/// Loss.cpp), as a pair (M, S): M the running maximum (from the lowest
/// finite value; never NaN), S the sum of exp(x - M). A NaN or +inf logit
/// makes S NaN (the CPU's flag), which every later step and combination
/// keeps: the row's lse is then NaN, as is a row of -inf only (S = 0).
struct OnlineLse {
  OnlineLse(OpBuilder &b, Location loc, Type ct) : ct(ct) {
    const auto &semantics = cast<FloatType>(ct).getFloatSemantics();
    lowest = floatConst(b, loc, ct,
                        llvm::APFloat::getLargest(semantics, /*Negative=*/true)
                            .convertToDouble());
    zero = floatConst(b, loc, ct, 0.0);
    one = floatConst(b, loc, ct, 1.0);
    posInf = floatConst(b, loc, ct, std::numeric_limits<double>::infinity());
    nan = nanOf(b, loc, ct);
  }

  /// The state after the logit `x`: x above M rescales S (S exp(M - x) + 1),
  /// any other adds exp(x - M): one exp of -|x - M| <= 0.
  SmallVector<Value> step(OpBuilder &b, Location loc, Value m, Value s,
                          Value x) const {
    Value above =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, m);
    Value e = math::ExpOp::create(
        b, loc,
        arith::NegFOp::create(
            b, loc,
            math::AbsFOp::create(b, loc, arith::SubFOp::create(b, loc, x, m))));
    Value rescaled = math::FmaOp::create(b, loc, s, e, one);
    Value added = arith::AddFOp::create(b, loc, s, e);
    Value bad =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGE, x, posInf);
    Value next = arith::SelectOp::create(b, loc, above, rescaled, added);
    return {arith::SelectOp::create(b, loc, above, x, m),
            arith::SelectOp::create(b, loc, bad, nan, next)};
  }

  /// Two states as one: the larger M, the other S scaled by exp(-|dM|) (one
  /// exp). A NaN S stays NaN (both M +inf: dM is NaN, so is the exp).
  SmallVector<Value> combine(OpBuilder &b, Location loc, ValueRange x,
                             ValueRange y) const {
    Value d = arith::SubFOp::create(b, loc, x[0], y[0]);
    Value xBig =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, d, zero);
    Value e = math::ExpOp::create(
        b, loc, arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, d)));
    Value big = arith::SelectOp::create(b, loc, xBig, x[1], y[1]);
    Value small = arith::SelectOp::create(b, loc, xBig, y[1], x[1]);
    return {arith::SelectOp::create(b, loc, xBig, x[0], y[0]),
            math::FmaOp::create(b, loc, small, e, big)};
  }

  /// M + log S, NaN unless S > 0.
  Value finish(OpBuilder &b, Location loc, Value m, Value s) const {
    Value positive =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, s, zero);
    Value lse =
        arith::AddFOp::create(b, loc, m, math::LogOp::create(b, loc, s));
    return arith::SelectOp::create(b, loc, positive, lse, nan);
  }

  Type ct;
  Value lowest, zero, one, posInf, nan;
};

/// The sum of `value` over the row's group of lanes (or block), in every
/// lane of it.
Value rowSum(OpBuilder &b, Location loc, Value value, const RowLayout &layout,
             Value scratch) {
  if (layout.blockPerRow)
    return blockReduce(b, loc, value, gpu::AllReduceOperation::ADD, scratch,
                       layout.numWarps());
  return warpReduceTuple(
             b, loc, value,
             [](OpBuilder &b, Location loc, ValueRange x, ValueRange y) {
               return SmallVector<Value>{
                   arith::AddFOp::create(b, loc, x[0], y[0])};
             },
             layout.lanesPerRow)
      .front();
}

/// The row kernel: each row's loss (and weight), and the lowest bad row
/// into err[0].
void buildRowKernel(OpBuilder &b, Location loc, const LossCall &c,
                    Value numRows, int64_t maxThreads) {
  auto logitsType = cast<MemRefType>(c.logits.getType());
  auto targetsType = cast<MemRefType>(c.targets.getType());
  std::optional<int64_t> staticC, staticR;
  if (!logitsType.isDynamicDim(1))
    staticC = logitsType.getDimSize(1);
  if (!targetsType.isDynamicDim(0))
    staticR = targetsType.getDimSize(0);
  RowLayout layout = rowLayout(staticC, staticR, maxThreads);
  Type ct = c.ct, i64 = b.getI64Type();
  Value numClasses = memref::DimOp::create(b, loc, c.logits, 1);
  Value logitRows = memref::DimOp::create(b, loc, c.logits, 0);
  Value numWeights =
      c.weight ? Value(memref::DimOp::create(b, loc, c.weight, 0)) : Value();
  Value grid = arith::CeilDivUIOp::create(
      b, loc, numRows, constIndex(b, loc, layout.rowsPerBlock()));
  SmallVector<Type> workgroup;
  if (layout.blockPerRow)
    workgroup.assign(2, workgroupBufferType({kWarpSize}, ct));
  Type resultElt = cast<MemRefType>(c.out.getType()).getElementType();

  buildLaunchIfAny(
      b, loc, grid, layout.threads, workgroup,
      [&](OpBuilder &b, Value block, Value tid, ValueRange scratch) {
        Value g = constIndex(b, loc, layout.lanesPerRow);
        Value row = block, lane = tid;
        if (!layout.blockPerRow) {
          row = arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(b, loc, block,
                                    constIndex(b, loc, layout.rowsPerBlock())),
              arith::DivUIOp::create(b, loc, tid, g));
          lane = arith::RemUIOp::create(b, loc, tid, g);
        }
        // Every lane of a group takes part in its shuffles, the groups of
        // rows past the end included: those read nothing (their loop is
        // empty) and write nothing.
        Value rowOk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            row, numRows);
        Value hasLogits = arith::AndIOp::create(
            b, loc, rowOk,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                  logitRows));
        Value end = arith::SelectOp::create(b, loc, hasLogits, numClasses,
                                            constIndex(b, loc, 0));
        auto logit = [&](OpBuilder &b, Value col) {
          return castFloat(
              b, loc,
              memref::LoadOp::create(b, loc, c.logits, ValueRange{row, col}),
              ct);
        };
        // A class weight, NaN past the end of a too short weight buffer.
        auto weightOf = [&](OpBuilder &b, Value col) {
          Value in = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           col, numWeights);
          return ifThenElse(
              b, loc, in,
              [&](OpBuilder &b) {
                return castFloat(
                    b, loc,
                    memref::LoadOp::create(b, loc, c.weight, ValueRange{col}),
                    ct);
              },
              nanOf(b, loc, ct));
        };

        // The row's online (M, S), then combined over the group.
        OnlineLse online(b, loc, ct);
        auto pass = scf::ForOp::create(
            b, loc, lane, end, g, ValueRange{online.lowest, online.zero},
            [&](OpBuilder &b, Location loc, Value col, ValueRange it) {
              scf::YieldOp::create(
                  b, loc, online.step(b, loc, it[0], it[1], logit(b, col)));
            });
        auto combiner = [&](OpBuilder &b, Location loc, ValueRange x,
                            ValueRange y) {
          return online.combine(b, loc, x, y);
        };
        SmallVector<Value> state =
            layout.blockPerRow
                ? blockReduceTuple(b, loc, pass.getResults(), combiner,
                                   {online.lowest, online.zero}, scratch,
                                   layout.numWarps())
                : warpReduceTuple(b, loc, pass.getResults(), combiner,
                                  layout.lanesPerRow);
        Value lse = online.finish(b, loc, state[0], state[1]);

        // The target: ignored, valid, or out of range (an error).
        Value t = lowering::intToI64(
            b, loc,
            ifThenElse(
                b, loc, rowOk,
                [&](OpBuilder &b) {
                  return memref::LoadOp::create(b, loc, c.targets,
                                                ValueRange{row});
                },
                arith::ConstantOp::create(
                    b, loc,
                    b.getIntegerAttr(targetsType.getElementType(), 0))));
        Value trueV = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
        Value ignored =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t,
                                  constI64(b, loc, c.ignoreIndex));
        Value inRange = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, t,
                                  constI64(b, loc, 0)),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, t,
                                  indexToI64(b, loc, numClasses)));
        Value notIgnored = arith::XOrIOp::create(b, loc, ignored, trueV);
        Value valid = arith::AndIOp::create(
            b, loc, hasLogits,
            arith::AndIOp::create(b, loc, inRange, notIgnored));
        Value bad = arith::AndIOp::create(
            b, loc, hasLogits,
            arith::AndIOp::create(
                b, loc, notIgnored,
                arith::XOrIOp::create(b, loc, inRange, trueV)));
        Value safeT = arith::IndexCastOp::create(
            b, loc, b.getIndexType(),
            arith::SelectOp::create(b, loc, valid, t, constI64(b, loc, 0)));
        Value nan = nanOf(b, loc, ct);
        Value xt = ifThenElse(
            b, loc, valid, [&](OpBuilder &b) { return logit(b, safeT); }, nan);
        Value wt = c.weight
                       ? ifThenElse(
                             b, loc, valid,
                             [&](OpBuilder &b) { return weightOf(b, safeT); },
                             online.zero)
                       : online.one;
        Value loss = arith::MulFOp::create(
            b, loc, wt, arith::SubFOp::create(b, loc, lse, xt));
        if (c.smoothing > 0.0) {
          // (1-s) * w_t * (lse - x_t) + (s/C) * sum_c w_c * (lse - x_c): a
          // second pass over the row (in cache), then a sum over the group.
          auto smooth = scf::ForOp::create(
              b, loc, lane, end, g, ValueRange{online.zero},
              [&](OpBuilder &b, Location loc, Value col, ValueRange it) {
                Value term = arith::SubFOp::create(b, loc, lse, logit(b, col));
                if (c.weight)
                  term = arith::MulFOp::create(b, loc, weightOf(b, col), term);
                scf::YieldOp::create(
                    b, loc,
                    ValueRange{arith::AddFOp::create(b, loc, it[0], term)});
              });
          Value total = rowSum(b, loc, smooth.getResult(0), layout,
                               layout.blockPerRow ? scratch[1] : Value());
          Value cf = arith::UIToFPOp::create(b, loc, ct,
                                             indexToI64(b, loc, numClasses));
          Value scale = arith::DivFOp::create(
              b, loc, floatConst(b, loc, ct, c.smoothing), cf);
          loss = arith::AddFOp::create(
              b, loc,
              arith::MulFOp::create(
                  b, loc, floatConst(b, loc, ct, 1.0 - c.smoothing), loss),
              arith::MulFOp::create(b, loc, scale, total));
        }
        loss = arith::SelectOp::create(b, loc, valid, loss, nan);
        loss = arith::SelectOp::create(
            b, loc, arith::AndIOp::create(b, loc, hasLogits, ignored),
            online.zero, loss);
        Value w = arith::SelectOp::create(b, loc, valid, wt, online.zero);

        // The group's first lane writes.
        Value leader = arith::AndIOp::create(
            b, loc, rowOk,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                  constIndex(b, loc, 0)));
        buildIf(b, loc, leader, [&](OpBuilder &b) {
          if (c.reduction == Reduction::None) {
            memref::StoreOp::create(b, loc, castFloat(b, loc, loss, resultElt),
                                    c.out, ValueRange{row});
          } else {
            memref::StoreOp::create(b, loc, loss, c.rowLosses, ValueRange{row});
            if (c.rowWeights)
              memref::StoreOp::create(b, loc, w, c.rowWeights, ValueRange{row});
          }
          buildIf(b, loc, bad, [&](OpBuilder &b) {
            memref::AtomicRMWOp::create(
                b, loc, arith::AtomicRMWKind::mins,
                arith::IndexCastOp::create(b, loc, i64, row), c.err,
                ValueRange{constIndex(b, loc, 0)});
          });
        });
      });
}

/// err[1] = the target of row err[0], when a row is recorded (thread 0 of
/// the kernel after the row kernel).
void recordBadTarget(OpBuilder &b, Location loc, const LossCall &c) {
  Value badRow =
      memref::LoadOp::create(b, loc, c.err, ValueRange{constIndex(b, loc, 0)});
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, badRow,
                                    constI64(b, loc, kNoBadRow));
  buildIf(b, loc, any, [&](OpBuilder &b) {
    Value row = arith::IndexCastOp::create(b, loc, b.getIndexType(), badRow);
    Value t = lowering::intToI64(
        b, loc, memref::LoadOp::create(b, loc, c.targets, ValueRange{row}));
    memref::StoreOp::create(b, loc, t, c.err,
                            ValueRange{constIndex(b, loc, 1)});
  });
}

/// Threads for a block that sums `perBlock` elements (when static):
/// `maxThreads`, or fewer whole warps.
int64_t sumThreads(int64_t maxThreads, std::optional<int64_t> perBlock) {
  if (!perBlock)
    return maxThreads;
  return std::min(
      maxThreads,
      std::max<int64_t>(kWarpSize, llvm::alignTo(*perBlock, kWarpSize)));
}

/// A launch of `grid` blocks of `threads` threads in which block g sums in
/// f64 the elements [first, last) = `range(g)` of each of `buffers`, in a
/// fixed order (per thread, strided, then the block's tree): deterministic.
/// `finish` gets the block id, the thread id and the sums (in every
/// thread).
void buildBlockSums(
    OpBuilder &b, Location loc, Value grid, int64_t threads,
    ArrayRef<Value> buffers,
    function_ref<std::pair<Value, Value>(OpBuilder &, Value g)> range,
    function_ref<void(OpBuilder &, Value g, Value tid, ValueRange sums)>
        finish) {
  Type f64 = b.getF64Type();
  int64_t numWarps = threads / kWarpSize;
  buildLaunchIfAny(
      b, loc, grid, threads, {workgroupBufferType({kWarpSize}, f64)},
      [&](OpBuilder &b, Value g, Value tid, ValueRange scratch) {
        std::pair<Value, Value> bounds = range(b, g);
        SmallVector<Value> inits(buffers.size(), floatConst(b, loc, f64, 0.0));
        auto loop = scf::ForOp::create(
            b, loc, arith::AddIOp::create(b, loc, bounds.first, tid),
            bounds.second, constIndex(b, loc, threads), inits,
            [&](OpBuilder &b, Location loc, Value r, ValueRange it) {
              SmallVector<Value> next;
              for (auto [acc, buffer] : llvm::zip_equal(it, buffers))
                next.push_back(arith::AddFOp::create(
                    b, loc, acc,
                    castFloat(
                        b, loc,
                        memref::LoadOp::create(b, loc, buffer, ValueRange{r}),
                        f64)));
              scf::YieldOp::create(b, loc, next);
            });
        SmallVector<Value> sums;
        for (Value partial : loop.getResults())
          sums.push_back(blockReduce(b, loc, partial,
                                     gpu::AllReduceOperation::ADD, scratch[0],
                                     numWarps));
        finish(b, g, tid, sums);
      });
}

/// Sum and mean: the items' sums of their rows' losses (and weights) in
/// f64, one block per item, or (`segments` > 1) one block per segment of
/// an item, then one per item summing its segments' partial sums. Thread 0
/// of an item's block writes its result; block 0 also completes the error
/// word.
void buildItemKernel(OpBuilder &b, Location loc, const LossCall &c,
                     Value numRows, int64_t maxThreads) {
  Type resultElt = cast<MemRefType>(c.out.getType()).getElementType();
  Value numItems = memref::DimOp::create(b, loc, c.out, 0);
  Value perItem = arith::DivUIOp::create(
      b, loc, numRows,
      arith::MaxUIOp::create(b, loc, numItems, constIndex(b, loc, 1)));
  std::optional<int64_t> staticPerItem;
  auto outType = cast<MemRefType>(c.out.getType());
  auto rowsType = cast<MemRefType>(c.targets.getType());
  if (!outType.isDynamicDim(0) && !rowsType.isDynamicDim(0) &&
      outType.getDimSize(0) > 0)
    staticPerItem = rowsType.getDimSize(0) / outType.getDimSize(0);
  SmallVector<Value> rowBuffers = {c.rowLosses};
  if (c.rowWeights)
    rowBuffers.push_back(c.rowWeights);
  Value c0 = constIndex(b, loc, 0);

  auto finishItem = [&](OpBuilder &b, Value item, Value tid, ValueRange sums) {
    Value total = sums[0];
    if (c.rowWeights)
      total = arith::DivFOp::create(b, loc, total, sums[1]);
    // Rounded once to the compute type, then to the result's, as the
    // CPU lowering does.
    Value result = castFloat(b, loc, castFloat(b, loc, total, c.ct), resultElt);
    Value thread0 =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, c0);
    buildIf(b, loc, thread0, [&](OpBuilder &b) {
      memref::StoreOp::create(b, loc, result, c.out, ValueRange{item});
      buildIf(b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, item, c0),
              [&](OpBuilder &b) { recordBadTarget(b, loc, c); });
    });
  };
  // Block g sums the `width` elements from g * width.
  auto consecutive = [&](Value width) {
    return [loc, width](OpBuilder &b, Value g) -> std::pair<Value, Value> {
      Value first = arith::MulIOp::create(b, loc, g, width);
      return {first, arith::AddIOp::create(b, loc, first, width)};
    };
  };
  if (c.segments == 1) {
    buildBlockSums(b, loc, numItems, sumThreads(maxThreads, staticPerItem),
                   rowBuffers, consecutive(perItem), finishItem);
    return;
  }

  // Segments of `chunk` rows, the last one shorter.
  int64_t segments = c.segments;
  Value s = constIndex(b, loc, segments);
  Value chunk = arith::CeilDivUIOp::create(b, loc, perItem, s);
  SmallVector<Value> partials = {c.partialLosses};
  if (c.partialWeights)
    partials.push_back(c.partialWeights);
  std::optional<int64_t> perSegment;
  if (staticPerItem)
    perSegment = llvm::divideCeilSigned(*staticPerItem, segments);
  buildBlockSums(
      b, loc, arith::MulIOp::create(b, loc, numItems, s),
      sumThreads(maxThreads, perSegment), rowBuffers,
      [&](OpBuilder &b, Value g) -> std::pair<Value, Value> {
        Value item = arith::DivUIOp::create(b, loc, g, s);
        Value itemFirst = arith::MulIOp::create(b, loc, item, perItem);
        Value first = arith::AddIOp::create(
            b, loc, itemFirst,
            arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, g, s),
                                  chunk));
        Value last = arith::MinUIOp::create(
            b, loc, arith::AddIOp::create(b, loc, first, chunk),
            arith::AddIOp::create(b, loc, itemFirst, perItem));
        return {first, last};
      },
      [&](OpBuilder &b, Value g, Value tid, ValueRange sums) {
        buildIf(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, c0),
            [&](OpBuilder &b) {
              for (auto [sum, buffer] : llvm::zip_equal(sums, partials))
                memref::StoreOp::create(b, loc, sum, buffer, ValueRange{g});
            });
      });
  buildBlockSums(b, loc, numItems, sumThreads(maxThreads, segments), partials,
                 consecutive(s), finishItem);
}

} // namespace

LogicalResult gpu_kernels::expandCrossEntropyCall(OpBuilder &b,
                                                  func::CallOp call,
                                                  int64_t threads) {
  FailureOr<LossCall> parsed = parseLossCall(call);
  if (failed(parsed))
    return failure();
  const LossCall &c = *parsed;
  IRRewriter rewriter(call->getContext());
  if (failed(lowering::declareRuntimeReport(rewriter, call)))
    return call.emitOpError("sift-gpu-expand-kernels: cannot declare the "
                            "runtime's sift_rt_report");
  Location loc = call.getLoc();
  Value one = constIndex(b, loc, 1);
  Value numRows = memref::DimOp::create(b, loc, c.targets, 0);

  // 1. No bad row yet.
  buildLaunch(b, loc, one, 1, {}, [&](OpBuilder &b, Value, Value, ValueRange) {
    memref::StoreOp::create(b, loc, constI64(b, loc, kNoBadRow), c.err,
                            ValueRange{constIndex(b, loc, 0)});
    memref::StoreOp::create(b, loc, constI64(b, loc, 0), c.err,
                            ValueRange{constIndex(b, loc, 1)});
  });
  // 2. The rows.
  buildRowKernel(b, loc, c, numRows, threads);
  // 3. The items, or the bad row's target alone.
  if (c.reduction == Reduction::None)
    buildLaunch(b, loc, one, 1, {},
                [&](OpBuilder &b, Value, Value, ValueRange) {
                  recordBadTarget(b, loc, c);
                });
  else
    buildItemKernel(b, loc, c, numRows, threads);
  // 4. One copy of the error word to the host, and the report.
  auto wordType = cast<MemRefType>(c.err.getType());
  // Marked: --sift-verify-gpu accepts this copy and its reads.
  Value host = memref::AllocaOp::create(b, loc, wordType);
  host.getDefiningOp()->setAttr("sift.error_word", b.getUnitAttr());
  gpu::MemcpyOp::create(b, loc, TypeRange(), ValueRange(), host, c.err);
  Value badRow =
      memref::LoadOp::create(b, loc, host, ValueRange{constIndex(b, loc, 0)});
  Value target = memref::LoadOp::create(b, loc, host, ValueRange{one});
  lowering::emitRuntimeCheck(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, badRow,
                            constI64(b, loc, kNoBadRow)),
      SIFT_RT_ERROR_CROSS_ENTROPY_TARGET,
      {target, badRow, memref::DimOp::create(b, loc, c.logits, 1)});
  return success();
}
