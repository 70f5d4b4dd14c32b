//===- Loss.cpp - Lowering of the sift loss ops -----------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// `cross_entropy`: one line per element (the class axis), each with
// a max-shifted log-sum-exp that propagates NaN and infinities as PyTorch's
// log_softmax does. A target outside [0, C) that is not `ignore_index` calls
// the runtime's `sift_rt_report` (the target, its row and C) and gives NaN
// for its element; the other elements are unaffected. Dynamic extents that
// must agree (rows of logits and targets, weights and C) are checked at run
// time. Reductions sum in f64 (eight interleaved sums) and round once.
//
// Speed: the rows are one parallel linalg.generic that writes each row's
// loss and weight in place (no buffer per row), and the log-sum-exp reads
// its row once, in blocks of vectors with a running maximum and sum per
// lane, rescaled once a block (`logSumExp`). Short rows (at most 16
// static classes) compute their log-sum-exps first, 16 rows at a time with
// a row per lane (`rowLanesLse`), so that no row pays a combination across
// lanes for a few logits. The f32 exps are a polynomial for exponents at most 0
// (`expOfNonPositive`); log carries `afn`, which the CPU pipeline's
// --sift-approximate-math turns into a vectorizable f32 polynomial. The
// per-element loss stays within 1e-5 + 1e-5 |loss| of a float64 reference
// (test/Conformance: cross_entropy/wide_*).
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils/CodegenUtils.h"
#include "Utils/RuntimeChecks.h"

#include "sift/Dialect/Sift/IR/SiftOps.h"
#include "sift/Runtime/SiftRuntime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <limits>
#include <tuple>

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::lowering;

namespace {

static Value floatConst(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

/// The logits as rows [M, C]: one row for rank 1, the leading dimensions
/// collapsed for rank > 2.
static Value logitRows(OpBuilder &b, Location loc, Value logits) {
  auto logitsType = cast<RankedTensorType>(logits.getType());
  Type floatType = logitsType.getElementType();
  int64_t rank = logitsType.getRank();
  if (rank == 1)
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({1, logitsType.getDimSize(0)}, floatType),
        logits, ArrayRef<ReassociationIndices>{{0, 1}},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1),
                               tensor::getMixedSize(b, loc, logits, 0)});
  if (rank == 2)
    return logits;
  ReassociationIndices leading;
  for (int64_t d = 0; d + 1 < rank; ++d)
    leading.push_back(d);
  return tensor::CollapseShapeOp::create(
      b, loc, logits, ArrayRef<ReassociationIndices>{leading, {rank - 1}});
}

/// Row `row` of the logits `rows` [M, C], a 1-D slice.
static Value rowOf(OpBuilder &b, Location loc, Value rows, Value row) {
  auto type = cast<RankedTensorType>(rows.getType());
  auto lineType =
      RankedTensorType::get({type.getDimSize(1)}, type.getElementType());
  // A slice at offset 0 of an empty dimension does not verify.
  if (lineType.getDimSize(0) == 0)
    return tensor::EmptyOp::create(b, loc, lineType.getShape(),
                                   lineType.getElementType());
  return tensor::ExtractSliceOp::create(
      b, loc, lineType, rows, ArrayRef<OpFoldResult>{row, b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1),
                             tensor::getMixedSize(b, loc, rows, 1)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
}

/// The operands of a cross_entropy after the run-time checks of the extents
/// that must agree.
struct LossOperands {
  /// Logits [M, C] and targets [M]; when their dynamic extents may differ,
  /// both sliced to the common M.
  Value rows, targets;
  /// The class weights (or null) and their number.
  Value weight, numWeights;
  /// The number of targets before slicing.
  Value numTargets;
  bool rowsMayDiffer;
};

/// The logits' rows and the targets must agree, and the class weights must
/// have C elements. Where an extent is dynamic this is a run-time check; on
/// a mismatch the rows past the shorter operand are not read (their losses
/// are NaN) and weights past the end read as NaN.
static LossOperands checkExtents(OpBuilder &b, Location loc, Value rows,
                                 Value targets, Value weight) {
  int64_t staticRows = cast<RankedTensorType>(rows.getType()).getDimSize(0);
  int64_t staticTargets =
      cast<RankedTensorType>(targets.getType()).getDimSize(0);
  Value numTargets = dimValue(b, loc, targets, 0);
  bool rowsMayDiffer =
      ShapedType::isDynamic(staticRows) || ShapedType::isDynamic(staticTargets);
  if (rowsMayDiffer) {
    Value numRows = dimValue(b, loc, rows, 0);
    emitRuntimeCheck(b, loc,
                     arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                           numRows, numTargets),
                     SIFT_RT_ERROR_CROSS_ENTROPY_ROWS, {numRows, numTargets});
    Value common = arith::MinUIOp::create(b, loc, numRows, numTargets);
    auto slice = [&](Value t) -> Value {
      auto type = cast<RankedTensorType>(t.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, t);
      sizes[0] = common;
      SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
      return tensor::ExtractSliceOp::create(b, loc, t, offsets, sizes, strides);
    };
    rows = slice(rows);
    targets = slice(targets);
  }
  Value numClassesAll = dimValue(b, loc, rows, 1);
  Value numWeights;
  if (weight) {
    numWeights = dimValue(b, loc, weight, 0);
    if (ShapedType::isDynamic(
            cast<RankedTensorType>(weight.getType()).getDimSize(0)) ||
        ShapedType::isDynamic(
            cast<RankedTensorType>(rows.getType()).getDimSize(1)))
      emitRuntimeCheck(b, loc,
                       arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                             numWeights, numClassesAll),
                       SIFT_RT_ERROR_CROSS_ENTROPY_WEIGHTS,
                       {numWeights, numClassesAll});
  }
  return {rows, targets, weight, numWeights, numTargets, rowsMayDiffer};
}

/// Element `i` of the 1-D `tensor`, extended to the compute type `ct`.
static Value loadAs(OpBuilder &b, Location loc, Value tensor, Value i,
                    Type ct) {
  Value x = tensor::ExtractOp::create(b, loc, tensor, ValueRange{i});
  if (x.getType() != ct)
    x = arith::ExtFOp::create(b, loc, ct, x);
  return x;
}

/// What the loss of one row needs of the op.
struct RowLossSpec {
  /// The compute type (f32 for half types).
  Type ct;
  double smoothing;
  int64_t ignoreIndex;
  const LossOperands &operands;
  /// The rows' log-sum-exps [M] and target logits [M] (any value where the
  /// target is not a class), when computed before the per-row loop
  /// (`rowLanesLse`); null: each row computes its own and reads its target's
  /// logit.
  Value lses = nullptr, xts = nullptr;
};

/// Whether the target `t` (an i64) of row `row` is `ignore_index`, and
/// whether it is a valid class; a target that is neither calls the runtime.
static std::pair<Value, Value> classifyTarget(OpBuilder &b, Location loc,
                                              Value t, Value row,
                                              Value numClasses,
                                              int64_t ignoreIndex) {
  Type i64 = b.getI64Type();
  Value ignored = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t,
                                        constInt(b, loc, i64, ignoreIndex));
  Value inRange = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, t,
                            constInt(b, loc, i64, 0)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, t,
                            indexToI64(b, loc, numClasses)));
  Value valid = arith::AndIOp::create(
      b, loc, inRange,
      arith::XOrIOp::create(b, loc, ignored,
                            constInt(b, loc, b.getI1Type(), 1)));
  Value bad = arith::AndIOp::create(
      b, loc,
      arith::XOrIOp::create(b, loc, ignored,
                            constInt(b, loc, b.getI1Type(), 1)),
      arith::XOrIOp::create(b, loc, inRange,
                            constInt(b, loc, b.getI1Type(), 1)));
  emitRuntimeCheck(b, loc, bad, SIFT_RT_ERROR_CROSS_ENTROPY_TARGET,
                   {t, row, numClasses});
  return {ignored, valid};
}

/// The lanes of a row's log-sum-exp vectors: one AVX-512 or two AVX2
/// registers of f32. (Rows of at most kMaxRowLanesClasses static classes
/// take `rowLanesLse` instead.)
static constexpr int64_t kLseLanes = 16;
/// Vectors of kLseLanes logits that share one update of the running maximum
/// (`OnlineLse::block`): one exp a vector and one a block.
static constexpr int64_t kLseBlock = 8;

/// A scalar or splat constant of the float (or float vector) type `type`.
static Value floatLike(OpBuilder &b, Location loc, Type type, double value) {
  auto vt = dyn_cast<VectorType>(type);
  if (!vt)
    return floatConst(b, loc, type, value);
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(vt, b.getFloatAttr(vt.getElementType(), value)));
}

/// A scalar or splat i32 constant shaped like the f32 (vector) type `type`.
static Value i32Like(OpBuilder &b, Location loc, Type type, int32_t value) {
  Type i32 = b.getI32Type();
  auto vt = dyn_cast<VectorType>(type);
  if (!vt)
    return constInt(b, loc, i32, value);
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(vt.clone(i32), b.getI32IntegerAttr(value)));
}

/// exp(x) for x <= 0, NaN or -inf (each exponent of the log-sum-exp is x - M
/// with M at least x, or -|x - M|). f32 (scalars or vectors): e^x = 2^k e^r
/// with k = round(x log2(e)), r = x - k ln(2) in [-ln(2)/2, ln(2)/2], e^r
/// by a polynomial of degree 5 (1 + r + r^2 q(r), q fitted for the least
/// largest relative error), 2^k made in the exponent bits: within 4e-7 of
/// e^x (ln(2) rounded to f32 adds up to 127 * 2e-9). x is first raised to
/// -88, where k = -127 and 2^k is exactly 0: -inf and every x whose e^x is
/// not a normal float give 0; NaN gives NaN. The rounding is the add of
/// 1.5 * 2^23 (the float's unit there is 1), whose bits then hold k + 127
/// above a constant. 12 instructions a vector, no branch, no upper clamp:
/// upstream's general approximation (what `afn` gives other types via
/// --sift-approximate-math) clamps both sides, reduces in two steps and
/// costs 1.6 times as much, and exp is most of the log-sum-exp's work.
/// Other types take math.exp with `afn`.
static Value expOfNonPositive(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType();
  if (!getElementTypeOrSelf(type).isF32())
    return math::ExpOp::create(b, loc, x, arith::FastMathFlags::afn);
  auto f = [&](double value) { return floatLike(b, loc, type, value); };
  // max(x, -88) as a compare and select that keeps a NaN x (x86's maxps):
  // NaN goes through every step below (no conversion to an integer) and
  // gives NaN.
  Value floor = f(-88.0);
  x = arith::SelectOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, floor), floor,
      x);
  Value magic = f(12582912.0); // 1.5 * 2^23
  Value shifted = math::FmaOp::create(b, loc, x, f(1.4426950408889634), magic);
  Value k = arith::SubFOp::create(b, loc, shifted, magic);
  Value r = math::FmaOp::create(b, loc, k, f(-0.6931471824645996), x);
  Value p = f(0.008312520571053028);
  for (double c :
       {0.04189015552401543, 0.16667114198207855, 0.499992311000824, 1.0, 1.0})
    p = math::FmaOp::create(b, loc, p, r, f(c));
  // bits(shifted) = 0x4B400000 + k: the exponent field of 2^k is
  // (bits - 0x4B400000 + 127) << 23.
  Type intType = i32Like(b, loc, type, 0).getType();
  Value bits = arith::BitcastOp::create(b, loc, intType, shifted);
  Value biased =
      arith::SubIOp::create(b, loc, bits, i32Like(b, loc, type, 0x4B3FFF81));
  Value scale = arith::BitcastOp::create(
      b, loc, type,
      arith::ShLIOp::create(b, loc, biased, i32Like(b, loc, type, 23)));
  return arith::MulFOp::create(b, loc, p, scale);
}

/// The online log-sum-exp of logits read as vectors of type `vt` (see
/// logSumExp): each lane keeps its running maximum M and sum S of
/// exp(x - M). Whether the lanes are classes of one row or one class of
/// several rows is the caller's choice. A NaN logit makes its lane's S NaN
/// (`expOfNonPositive` keeps NaN); a +inf one its M +inf (see finishLse).
struct OnlineLse {
  OnlineLse(OpBuilder &b, Location loc, VectorType vt) {
    const auto &semantics =
        cast<FloatType>(vt.getElementType()).getFloatSemantics();
    lowest = floatLike(b, loc, vt,
                       llvm::APFloat::getLargest(semantics, /*Negative=*/true)
                           .convertToDouble());
    zero = floatLike(b, loc, vt, 0.0);
    one = floatLike(b, loc, vt, 1.0);
  }

  /// The state after the first logits `x`, from the start state (M =
  /// lowest, S = 0): M = x and S = 1 where x > lowest; S = exp(x - lowest)
  /// elsewhere, which is 1 for x = lowest, 0 for -inf and NaN for NaN. No
  /// exp.
  SmallVector<Value> first(OpBuilder &b, Location loc, Value x) const {
    Value finite =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x, lowest);
    Value above =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, lowest);
    Value isNan =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    Value sum = arith::SelectOp::create(
        b, loc, isNan, x, arith::SelectOp::create(b, loc, finite, one, zero));
    return {arith::SelectOp::create(b, loc, above, x, lowest), sum};
  }

  /// The state after the logits `x`: x above M rescales S (S' = S exp(M - x)
  /// + 1), any other adds exp(x - M): one exp of -|x - M| <= 0.
  SmallVector<Value> step(OpBuilder &b, Location loc, ValueRange state,
                          Value x) const {
    Value m = state[0], sum = state[1];
    Value above =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, m);
    Value e = expOfNonPositive(
        b, loc,
        arith::NegFOp::create(
            b, loc,
            math::AbsFOp::create(b, loc, arith::SubFOp::create(b, loc, x, m))));
    Value rescaled = math::FmaOp::create(b, loc, sum, e, one);
    Value added = arith::AddFOp::create(b, loc, sum, e);
    return {arith::SelectOp::create(b, loc, above, x, m),
            arith::SelectOp::create(b, loc, above, rescaled, added)};
  }

  /// The state after a block of logit vectors `xs` that share one rescale:
  /// M' = max(M, the block's maximum) and S' = S exp(M - M') +
  /// sum exp(x - M'). One exp a vector and one a block, against `step`'s
  /// exp, compare, two selects, abs and fma a vector. The maxima are selects
  /// on `>` (x86's maxps): a NaN logit never becomes M, and makes its lane's
  /// S NaN through its exp. A +inf logit makes M +inf (see finishLse).
  /// `fromStart`: the state is the start (M the lowest finite value, S = 0),
  /// whose rescaled S is 0, so no exp rescales it.
  SmallVector<Value> block(OpBuilder &b, Location loc, ValueRange state,
                           ArrayRef<Value> xs, bool fromStart = false) const {
    auto maxOf = [&](Value x, Value y) -> Value {
      return arith::SelectOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, y), x, y);
    };
    // Pairs, then pairs of pairs: a tree of depth log2(size).
    auto tree = [&](MutableArrayRef<Value> values, auto combine) -> Value {
      for (size_t width = 1; width < values.size(); width *= 2)
        for (size_t k = 0; k + width < values.size(); k += 2 * width)
          values[k] = combine(values[k], values[k + width]);
      return values[0];
    };
    Value m = state[0];
    SmallVector<Value> maxima(xs.begin(), xs.end());
    Value newM = maxOf(tree(maxima, maxOf), m);
    SmallVector<Value> exps;
    for (Value x : xs)
      exps.push_back(
          expOfNonPositive(b, loc, arith::SubFOp::create(b, loc, x, newM)));
    Value added = tree(exps, [&](Value x, Value y) -> Value {
      return arith::AddFOp::create(b, loc, x, y);
    });
    if (fromStart)
      return {newM, added};
    Value kept = arith::MulFOp::create(
        b, loc, state[1],
        expOfNonPositive(b, loc, arith::SubFOp::create(b, loc, m, newM)));
    return {newM, arith::AddFOp::create(b, loc, kept, added)};
  }

  Value lowest, zero, one;
};

/// m + log(s), NaN where s is not positive (only -inf logits; NaN, from a
/// NaN logit) or m is +inf (a +inf logit: log_softmax's +inf - +inf);
/// scalars or vectors alike.
static Value finishLse(OpBuilder &b, Location loc, Value m, Value s) {
  Type type = s.getType();
  Value nan = floatLike(b, loc, type, std::numeric_limits<double>::quiet_NaN());
  Value lse = arith::AddFOp::create(
      b, loc, m, math::LogOp::create(b, loc, s, arith::FastMathFlags::afn));
  Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, s,
                                         floatLike(b, loc, type, 0.0));
  Value infinite = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, m,
      floatLike(b, loc, type, std::numeric_limits<double>::infinity()));
  lse = arith::SelectOp::create(b, loc, positive, lse, nan);
  return arith::SelectOp::create(b, loc, infinite, nan, lse);
}

/// lse = m + log(sum exp(x - m)) over the logits of `line`, m their
/// maximum, in one pass over the row: a loop over blocks of kLseBlock
/// vectors of kLseLanes lanes, then one block that masks the rest (reading
/// -inf past the end), each lane updating its running (M, S) once a block
/// as `OnlineLse::block` does, from M = the lowest finite value and S = 0.
/// The lanes then combine: m = max M, s = sum S exp(M - m). exps are
/// `expOfNonPositive`, log allows approximations (`afn`:
/// --sift-approximate-math makes an f32 one a polynomial) and the final sum
/// reassociates. (Two passes, the maximum and then the exponentials from
/// the cache, leave the row's reads waiting for no computation and the
/// computation for no read: 15% slower for rows from memory, measured
/// against `OnlineLse::step` per vector. The block update does the two
/// passes' work in one pass: on an AVX2 machine, where the exps bound the
/// time, C = 1000 takes 16% less time than with `step` for rows in cache,
/// 8% less for rows from memory on one thread.)
///
/// NaN and infinities give what PyTorch's log_softmax gives: NaN for a row
/// with a NaN (its lane's S is NaN) or a +inf (m is +inf) or with -inf
/// only (nothing above the lanes' start, the lowest finite value: s = 0).
/// No M is NaN (a NaN x never compares above M), so the lanes' maximum is
/// a plain `nnan` one.
static Value logSumExp(OpBuilder &b, Location loc, Value line, Value numClasses,
                       Type ct, Value c0) {
  auto lineType = cast<RankedTensorType>(line.getType());
  Type et = lineType.getElementType();
  int64_t lanes = kLseLanes, blockSize = kLseLanes * kLseBlock;
  auto vt = VectorType::get({lanes}, ct);
  OnlineLse online(b, loc, vt);
  Value pad = floatConst(b, loc, et, -std::numeric_limits<double>::infinity());
  auto read = [&](OpBuilder &b, Location loc, Value c, bool inBounds) {
    Value x = vector::TransferReadOp::create(
        b, loc, VectorType::get({lanes}, et), line, ValueRange{c}, pad,
        ArrayRef<bool>{inBounds});
    if (et != ct)
      x = arith::ExtFOp::create(b, loc, vt, x);
    return x;
  };
  // The vectors of the block at `c`: `count` of them, the last `masked`
  // ones reading past C as -inf.
  auto readBlock = [&](OpBuilder &b, Location loc, Value c, int64_t count,
                       int64_t masked) {
    SmallVector<Value> xs;
    for (int64_t v = 0; v < count; ++v)
      xs.push_back(read(b, loc,
                        v == 0 ? c
                               : arith::AddIOp::create(
                                     b, loc, c, constIndex(b, loc, v * lanes)),
                        /*inBounds=*/v < count - masked));
    return xs;
  };
  // The whole blocks end at C - C mod blockSize; the rest is one masked
  // block: for a static C, only the vectors that read a logit, the last
  // one masked if C is not a multiple of the lanes.
  int64_t staticC = lineType.getDimSize(0);
  bool dynamic = ShapedType::isDynamic(staticC);
  Value blockStep = constIndex(b, loc, blockSize);
  Value whole = dynamic
                    ? arith::SubIOp::create(
                          b, loc, numClasses,
                          arith::RemUIOp::create(b, loc, numClasses, blockStep))
                    : constIndex(b, loc, staticC - staticC % blockSize);
  SmallVector<Value> state{online.lowest, online.zero};
  if (dynamic || staticC >= blockSize)
    state = llvm::to_vector_of<Value>(
        scf::ForOp::create(
            b, loc, c0, whole, blockStep, state,
            [&](OpBuilder &b, Location loc, Value c, ValueRange it) {
              scf::YieldOp::create(
                  b, loc,
                  online.block(b, loc, it, readBlock(b, loc, c, kLseBlock, 0)));
            })
            .getResults());
  if (dynamic) {
    state = online.block(b, loc, state,
                         readBlock(b, loc, whole, kLseBlock, kLseBlock));
  } else if (int64_t rest = staticC % blockSize) {
    int64_t count = llvm::divideCeil(rest, lanes);
    state = online.block(b, loc, state,
                         readBlock(b, loc, whole, count, rest % lanes ? 1 : 0),
                         /*fromStart=*/staticC < blockSize);
  }
  Value laneMax = state[0], laneSum = state[1];
  Value m = vector::ReductionOp::create(b, loc, vector::CombiningKind::MAXNUMF,
                                        laneMax, arith::FastMathFlags::nnan);
  Value scale = expOfNonPositive(
      b, loc,
      arith::SubFOp::create(b, loc, laneMax,
                            vector::BroadcastOp::create(b, loc, vt, m)));
  Value sum =
      vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                  arith::MulFOp::create(b, loc, laneSum, scale),
                                  arith::FastMathFlags::reassoc);
  return finishLse(b, loc, m, sum);
}

/// Rows of at most this many (static) classes compute their log-sum-exps
/// with the rows as the vector lanes (`rowLanesLse`): a row of ten logits
/// fills a third of a 32-lane step and pays the lanes' combination per row.
static constexpr int64_t kMaxRowLanesClasses = 16;
/// Rows per vector in `rowLanesLse`: one AVX-512 register of f32.
static constexpr int64_t kRowLanes = 16;

/// The log-sum-exp of each row of `rows` [M, C] (static C), and the logit
/// of its class `targets` [M] names, as tensors [M] of the compute type
/// `ct`: one parallel loop over groups of kRowLanes rows, each lane a row,
/// reading class c of its rows with a strided vector.gather and updating
/// the lanes as `OnlineLse` does, and keeping the lanes whose target is c;
/// then lse = M + log S per lane, with the NaN rules of logSumExp and no
/// combination across lanes. The last group masks its missing rows. A lane
/// whose target is no class keeps 0 (the loss does not read it). The target
/// logits come from the registers the log-sum-exp reads: read in the
/// per-row loop, long after, they would be a second pass over the logits
/// from memory (rows of 40 bytes at C = 10: a line every 1.6 rows).
static std::pair<Value, Value> rowLanesLse(OpBuilder &b, Location loc,
                                           Value rows, Value targets, Type ct) {
  auto rowsType = cast<RankedTensorType>(rows.getType());
  Type et = rowsType.getElementType();
  int64_t numClasses = rowsType.getDimSize(1);
  Value numRows = dimValue(b, loc, rows, 0);
  Value flat = tensor::CollapseShapeOp::create(
      b, loc, rows, ArrayRef<ReassociationIndices>{{0, 1}});
  Value lanes = constIndex(b, loc, kRowLanes);
  Value groups = arith::CeilDivUIOp::create(b, loc, numRows, lanes);
  // (One tensor each: a destination written twice would be copied.)
  SmallVector<Value> inits;
  for (int i = 0; i < 2; ++i)
    inits.push_back(tensor::EmptyOp::create(
        b, loc, ArrayRef<OpFoldResult>{getAsOpFoldResult(numRows)}, ct));
  auto loop = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{groups},
                                    inits, /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value group = loop.getInductionVars()[0];
  Value first = arith::MulIOp::create(b, loc, group, lanes);
  Value count = arith::MinUIOp::create(
      b, loc, lanes, arith::SubIOp::create(b, loc, numRows, first));
  auto vt = VectorType::get({kRowLanes}, ct);
  auto maskType = VectorType::get({kRowLanes}, b.getI1Type());
  Value mask =
      vector::CreateMaskOp::create(b, loc, maskType, ValueRange{count});
  // Lane l reads flat[(first + l) * C + c]: offsets l * C from a base, as
  // i32 (one 16-lane gather instruction with AVX-512, not two of i64).
  SmallVector<int32_t> strides;
  for (int64_t l = 0; l < kRowLanes; ++l)
    strides.push_back(static_cast<int32_t>(l * numClasses));
  Value offsets = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(VectorType::get({kRowLanes}, b.getI32Type()),
                             ArrayRef(strides)));
  Value rowBase =
      arith::MulIOp::create(b, loc, first, constIndex(b, loc, numClasses));
  Value pass = floatLike(b, loc, VectorType::get({kRowLanes}, et), 0.0);
  auto read = [&](OpBuilder &b, Location loc, Value c) {
    Value x = vector::GatherOp::create(
        b, loc, VectorType::get({kRowLanes}, et), flat,
        ValueRange{arith::AddIOp::create(b, loc, rowBase, c)}, offsets, mask,
        pass);
    if (et != ct)
      x = arith::ExtFOp::create(b, loc, vt, x);
    return x;
  };
  // The lanes' targets (-1, no class, past the last row), and x where the
  // target is class c. Read one by one: the targets may be a strided view
  // (a column of a label matrix), which a vector read cannot lower.
  Type targetType = cast<RankedTensorType>(targets.getType()).getElementType();
  auto targetVectorType = VectorType::get({kRowLanes}, targetType);
  Value noClass = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(targetVectorType,
                             b.getIntegerAttr(targetType, -1)));
  Value lanesTargets = noClass;
  Value lastRow = arith::SubIOp::create(b, loc, numRows, constIndex(b, loc, 1));
  for (int64_t l = 0; l < kRowLanes; ++l) {
    Value row = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, first, constIndex(b, loc, l)),
        lastRow);
    lanesTargets = vector::InsertOp::create(
        b, loc, tensor::ExtractOp::create(b, loc, targets, ValueRange{row}),
        lanesTargets, ArrayRef<int64_t>{l});
  }
  lanesTargets = arith::SelectOp::create(b, loc, mask, lanesTargets, noClass);
  auto keepTarget = [&](OpBuilder &b, Location loc, Value c, Value x,
                        Value kept) -> Value {
    Value cs = vector::BroadcastOp::create(
        b, loc, targetVectorType,
        arith::IndexCastOp::create(b, loc, targetType, c));
    return arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lanesTargets,
                              cs),
        x, kept);
  };
  OnlineLse online(b, loc, vt);
  Value c0 = constIndex(b, loc, 0);
  Value x0 = read(b, loc, c0);
  SmallVector<Value> state = online.first(b, loc, x0);
  state.push_back(keepTarget(b, loc, c0, x0, online.zero));
  if (numClasses > 1)
    state = llvm::to_vector_of<Value>(
        scf::ForOp::create(
            b, loc, constIndex(b, loc, 1), constIndex(b, loc, numClasses),
            constIndex(b, loc, 1), state,
            [&](OpBuilder &b, Location loc, Value c, ValueRange it) {
              Value x = read(b, loc, c);
              SmallVector<Value> next =
                  online.step(b, loc, it.take_front(2), x);
              next.push_back(keepTarget(b, loc, c, x, it[2]));
              scf::YieldOp::create(b, loc, next);
            })
            .getResults());
  Value lse = finishLse(b, loc, state[0], state[1]);
  SmallVector<OpFoldResult> offsetsOut{getAsOpFoldResult(first)},
      sizesOut{getAsOpFoldResult(count)}, stridesOut{b.getIndexAttr(1)};
  SmallVector<Value> written;
  SmallVector<Value> results{lse, state[2]};
  for (auto [lanes, out] : llvm::zip(results, loop.getRegionIterArgs())) {
    Value slice = tensor::ExtractSliceOp::create(b, loc, out, offsetsOut,
                                                 sizesOut, stridesOut);
    written.push_back(vector::TransferWriteOp::create(b, loc, lanes, slice,
                                                      ValueRange{c0},
                                                      ArrayRef<bool>{false})
                          .getResult());
  }
  b.setInsertionPointToStart(loop.getTerminator().getBody());
  for (auto [lanes, out] : llvm::zip(written, loop.getRegionIterArgs()))
    tensor::ParallelInsertSliceOp::create(b, loc, lanes, out, offsetsOut,
                                          sizesOut, stridesOut);
  return {loop.getResult(0), loop.getResult(1)};
}

/// The loss of row `row` (its logits `line`) and the weight it counts with
/// in a mean, two scalars of the compute type.
static SmallVector<Value> rowLoss(OpBuilder &b, Location loc, Value line,
                                  Value row, const RowLossSpec &spec) {
  Type ct = spec.ct, i64 = b.getI64Type();
  Value weight = spec.operands.weight;
  Value numWeights = spec.operands.numWeights;
  double smoothing = spec.smoothing;
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  Value numClasses = dimValue(b, loc, line, 0);
  Value zero = floatConst(b, loc, ct, 0.0);
  Value nan = floatConst(b, loc, ct, std::numeric_limits<double>::quiet_NaN());

  Value t = intToI64(b, loc,
                     tensor::ExtractOp::create(b, loc, spec.operands.targets,
                                               ValueRange{row}));
  Value ignored, valid;
  std::tie(ignored, valid) =
      classifyTarget(b, loc, t, row, numClasses, spec.ignoreIndex);
  Value lse =
      spec.lses
          ? Value(tensor::ExtractOp::create(b, loc, spec.lses, ValueRange{row}))
          : logSumExp(b, loc, line, numClasses, ct, c0);

  // The target's terms, read only when the target is valid.
  Value safeT = i64ToIndex(
      b, loc,
      arith::SelectOp::create(b, loc, valid, t, constInt(b, loc, i64, 0)));
  auto ifValid = [&](function_ref<Value(OpBuilder &, Location)> fn,
                     Value otherwise) {
    return ifThenElse(b, loc, valid, fn, otherwise);
  };
  Value xt =
      spec.xts
          ? Value(arith::SelectOp::create(
                b, loc, valid,
                tensor::ExtractOp::create(b, loc, spec.xts, ValueRange{row}),
                nan))
          : ifValid(
                [&](OpBuilder &b, Location loc) {
                  return loadAs(b, loc, line, safeT, ct);
                },
                nan);
  // A class weight, NaN past the end of a too short weight tensor.
  auto loadWeight = [&](OpBuilder &b, Location loc, Value c) {
    Value inWeights =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c, numWeights);
    return ifThenElse(
        b, loc, inWeights,
        [&](OpBuilder &b, Location loc) {
          return loadAs(b, loc, weight, c, ct);
        },
        nan);
  };
  Value wt =
      weight ? ifValid([&](OpBuilder &b,
                           Location loc) { return loadWeight(b, loc, safeT); },
                       zero)
             : floatConst(b, loc, ct, 1.0);
  Value loss =
      arith::MulFOp::create(b, loc, wt, arith::SubFOp::create(b, loc, lse, xt));
  if (smoothing > 0.0) {
    // (1-s) * w_t * (lse - x_t) + (s/C) * sum_c w_c * (lse - x_c).
    auto smooth = scf::ForOp::create(
        b, loc, c0, numClasses, c1, ValueRange{zero},
        [&](OpBuilder &b, Location loc, Value c, ValueRange it) {
          Value term =
              arith::SubFOp::create(b, loc, lse, loadAs(b, loc, line, c, ct));
          if (weight)
            term = arith::MulFOp::create(b, loc, loadWeight(b, loc, c), term);
          scf::YieldOp::create(
              b, loc, ValueRange{arith::AddFOp::create(b, loc, it[0], term)});
        });
    Value cf =
        arith::UIToFPOp::create(b, loc, ct, indexToI64(b, loc, numClasses));
    Value scale =
        arith::DivFOp::create(b, loc, floatConst(b, loc, ct, smoothing), cf);
    loss = arith::AddFOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, floatConst(b, loc, ct, 1.0 - smoothing),
                              loss),
        arith::MulFOp::create(b, loc, scale, smooth.getResult(0)));
  }
  loss = arith::SelectOp::create(b, loc, valid, loss, nan);
  loss = arith::SelectOp::create(b, loc, ignored, zero, loss);
  Value w = arith::SelectOp::create(b, loc, valid, wt, zero);
  return {loss, w};
}

/// `v` rounded to the result's element type `floatType` when it differs.
static Value toResultElt(OpBuilder &b, Location loc, Value v,
                         FloatType floatType) {
  if (v.getType() == floatType)
    return v;
  return arith::TruncFOp::create(b, loc, floatType, v);
}

/// reduction = none: one loss per target (NaN for the targets without a
/// row of logits), in the targets' shape.
static Value unreducedLosses(OpBuilder &b, Location loc, CrossEntropyOp op,
                             Value losses, const LossOperands &operands,
                             Type ct) {
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  auto floatType = cast<FloatType>(resultType.getElementType());
  if (operands.rowsMayDiffer) {
    Value computed = losses;
    Value numComputed = dimValue(b, loc, computed, 0);
    Value nan =
        floatConst(b, loc, ct, std::numeric_limits<double>::quiet_NaN());
    losses = generateLine(
        b, loc, operands.numTargets, ct,
        [&](OpBuilder &b, Location loc, Value i) {
          return ifThenElse(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i,
                                    numComputed),
              [&](OpBuilder &b, Location loc) {
                return Value(tensor::ExtractOp::create(b, loc, computed, i));
              },
              nan);
        });
  }
  if (ct != floatType)
    losses = mapLine(b, loc, losses, floatType,
                     [&](OpBuilder &b, Location loc, Value v, Value) {
                       return toResultElt(b, loc, v, floatType);
                     });
  return unflatten(b, loc, losses, resultType,
                   tensor::getMixedSizes(b, loc, op.getTargets()));
}

/// Lanes of the sums of losses and weights in `sumRows`: one AVX-512
/// register of f64, the chain of additions split eight ways.
static constexpr int64_t kSumLanes = 8;

/// The sums, in f64 (at least: the compute type when wider), of the losses
/// and the weights of rows [first, last): kSumLanes running sums per
/// operand, each lane adding every kSumLanes-th row, then the remainder row
/// by row and the lanes added up. f64 keeps the result within a rounding
/// of the f32 mean whatever the order.
static SmallVector<Value> sumRows(OpBuilder &b, Location loc, Value losses,
                                  Value weights, Value first, Value last) {
  Type ct = cast<RankedTensorType>(losses.getType()).getElementType();
  Type acc = b.getF64Type();
  auto accVec = VectorType::get({kSumLanes}, acc);
  auto ctVec = VectorType::get({kSumLanes}, ct);
  Value lanes = constIndex(b, loc, kSumLanes);
  Value whole = arith::SubIOp::create(
      b, loc, last,
      arith::RemUIOp::create(b, loc, arith::SubIOp::create(b, loc, last, first),
                             lanes));
  auto readWide = [&](OpBuilder &b, Location loc, Value t, Value r) -> Value {
    Value v = vector::TransferReadOp::create(b, loc, ctVec, t, ValueRange{r},
                                             floatConst(b, loc, ct, 0.0),
                                             ArrayRef<bool>{true});
    return ct == acc ? v : Value(arith::ExtFOp::create(b, loc, accVec, v));
  };
  Value zeros = floatLike(b, loc, accVec, 0.0);
  auto vectorSums = scf::ForOp::create(
      b, loc, first, whole, lanes, ValueRange{zeros, zeros},
      [&](OpBuilder &b, Location loc, Value r, ValueRange it) {
        scf::YieldOp::create(
            b, loc,
            ValueRange{arith::AddFOp::create(b, loc, it[0],
                                             readWide(b, loc, losses, r)),
                       arith::AddFOp::create(b, loc, it[1],
                                             readWide(b, loc, weights, r))});
      });
  SmallVector<Value> init;
  for (Value v : vectorSums.getResults())
    init.push_back(vector::ReductionOp::create(
        b, loc, vector::CombiningKind::ADD, v, arith::FastMathFlags::reassoc));
  auto widen = [&](OpBuilder &b, Location loc, Value v) -> Value {
    return v.getType() == acc ? v : arith::ExtFOp::create(b, loc, acc, v);
  };
  auto rest = scf::ForOp::create(
      b, loc, whole, last, constIndex(b, loc, 1), init,
      [&](OpBuilder &b, Location loc, Value r, ValueRange it) {
        Value l = widen(b, loc, tensor::ExtractOp::create(b, loc, losses, r));
        Value w = widen(b, loc, tensor::ExtractOp::create(b, loc, weights, r));
        scf::YieldOp::create(
            b, loc,
            ValueRange{arith::AddFOp::create(b, loc, it[0], l),
                       arith::AddFOp::create(b, loc, it[1], w)});
      });
  return llvm::to_vector_of<Value>(rest.getResults());
}

/// reduction = sum or mean: each item of the leading `batch_dims` dimensions
/// sums its own consecutive rows (`sumRows`), exactly as the op on that item
/// alone. The sums accumulate in f64 (at least), then round once: a long
/// sequential f32 sum would lose digits as it grows.
static Value reducedLosses(OpBuilder &b, Location loc, CrossEntropyOp op,
                           Value losses, Value weights, Type ct) {
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  auto floatType = cast<FloatType>(resultType.getElementType());
  Value c1 = constIndex(b, loc, 1);
  Value numRows = dimValue(b, loc, losses, 0);
  Value numItems = c1;
  for (int64_t d = 0, e = op.getBatchDims(); d < e; ++d)
    numItems = arith::MulIOp::create(b, loc, numItems,
                                     dimValue(b, loc, op.getTargets(), d));
  Value perItem = arith::DivUIOp::create(
      b, loc, numRows, arith::MaxUIOp::create(b, loc, numItems, c1));
  Value reduced =
      generateLine(b, loc, numItems, floatType,
                   [&](OpBuilder &b, Location loc, Value item) -> Value {
                     Value first = arith::MulIOp::create(b, loc, item, perItem);
                     Value last = arith::AddIOp::create(b, loc, first, perItem);
                     SmallVector<Value> sums =
                         sumRows(b, loc, losses, weights, first, last);
                     Value total = sums[0];
                     if (op.getReduction() == Reduction::Mean)
                       total = arith::DivFOp::create(b, loc, total, sums[1]);
                     if (total.getType() != ct)
                       total = arith::TruncFOp::create(b, loc, ct, total);
                     return toResultElt(b, loc, total, floatType);
                   });
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(b, loc, op.getTargets());
  return unflatten(b, loc, reduced, resultType,
                   ArrayRef(sizes).take_front(op.getBatchDims()));
}

struct CrossEntropyLowering : OpRewritePattern<CrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto logitsType = cast<RankedTensorType>(op.getLogits().getType());
    auto floatType = cast<FloatType>(logitsType.getElementType());
    if (!isSupportedFloat(floatType))
      return unsupportedElementType(rewriter, op, floatType);
    if (failed(declareRuntimeReport(rewriter, op)))
      return failure();
    // Half types compute in f32.
    Type ct = floatType.getWidth() < 32 ? b.getF32Type() : Type(floatType);

    // Rows: logits [M, C], targets [M].
    Value rows = logitRows(b, loc, op.getLogits());
    Value targets = flatten(b, loc, op.getTargets());
    LossOperands operands = checkExtents(b, loc, rows, targets, op.getWeight());
    RowLossSpec spec{ct, op.getLabelSmoothing().convertToDouble(),
                     static_cast<int64_t>(op.getIgnoreIndex()), operands};
    int64_t numClasses =
        cast<RankedTensorType>(operands.rows.getType()).getDimSize(1);
    if (!ShapedType::isDynamic(numClasses) && numClasses >= 1 &&
        numClasses <= kMaxRowLanesClasses)
      std::tie(spec.lses, spec.xts) =
          rowLanesLse(b, loc, operands.rows, operands.targets, ct);
    // One parallel loop over the rows (a linalg.generic: the CPU pipeline
    // runs it on OpenMP threads) writing each row's loss and weight in
    // place.
    SmallVector<Value> perRow = generateLines(
        b, loc, dimValue(b, loc, operands.rows, 0), {ct, ct},
        [&](OpBuilder &b, Location loc, Value row) {
          return rowLoss(b, loc, rowOf(b, loc, operands.rows, row), row, spec);
        });
    Value result = op.getReduction() == Reduction::None
                       ? unreducedLosses(b, loc, op, perRow[0], operands, ct)
                       : reducedLosses(b, loc, op, perRow[0], perRow[1], ct);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void lowering::populateLossPatterns(RewritePatternSet &patterns) {
  patterns.add<CrossEntropyLowering>(patterns.getContext());
}
