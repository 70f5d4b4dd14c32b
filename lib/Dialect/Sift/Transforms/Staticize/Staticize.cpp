//===- Staticize.cpp - Data-dependent shapes to static padded form --------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// --sift-staticize rewrites every tensor whose leading dimension depends on
// data into a static padded tensor (the leading dimension replaced by a static
// upper bound) plus a validity count, and every consumer so that the first
// `count` rows of each padded result are exactly what the dynamic program
// computes. The rules are documented in docs/Staticize.md.
//
// The pass works in two steps per function:
//  1. bounds: every dynamic dimension and every index-typed size gets a
//     constant upper bound, from MLIR's ValueBoundsConstraintSet (the sift
//     ops implement ValueBoundsOpInterface) and, where that has no answer
//     (min/max/select of sizes), from an interval evaluation of the scalar
//     size arithmetic (the SizeBounds analysis, sift/Dialect/Sift/Analysis);
//  2. rewrite: a walk in program order that maps each dynamic value to its
//     padded form (a `Padded` record) and rewrites each op that touches one.
//     The original dynamic ops are erased at the end.
//
//===----------------------------------------------------------------------===//

#include "Staticizer.h"
#include "sift/Dialect/Sift/Transforms/Passes.h"
#include "sift/Dialect/Sift/Transforms/Transforms.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTSTATICIZE
#include "sift/Dialect/Sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

/// The function attribute that lists the positions of the padded tensors
/// among the results; each one's count is the next result.
static constexpr StringLiteral kBoundedResultsAttr = "sift.bounded_results";
/// Where some padded result's data-dependent dimension is not the first:
/// that dimension of each result `sift.bounded_results` lists, in its order.
static constexpr StringLiteral kBoundedDimsAttr = "sift.bounded_dims";

namespace mlir {
namespace sift {
namespace staticize {

bool hasDynamicTensor(TypeRange types) {
  return llvm::any_of(types, [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && !rt.hasStaticShape();
  });
}

/// Whether only dimension 0 of `t` is dynamic (the form staticize handles).
bool onlyLeadingDynamic(RankedTensorType t) {
  for (int64_t d = 1; d < t.getRank(); ++d)
    if (t.isDynamicDim(d))
      return false;
  return t.getRank() >= 1;
}

LogicalResult checkLeadingDynamic(Operation *op) {
  for (Type t : op->getResultTypes())
    if (auto rt = dyn_cast<RankedTensorType>(t);
        rt && !rt.hasStaticShape() && !onlyLeadingDynamic(rt))
      return op->emitOpError() << "result type " << rt
                               << " is dynamic beyond dimension 0, which "
                                  "--sift-staticize does not support yet";
  return success();
}

RankedTensorType withLeading(RankedTensorType t, int64_t n) {
  SmallVector<int64_t> shape(t.getShape());
  shape[0] = n;
  return RankedTensorType::get(shape, t.getElementType());
}

/// `x != 0` elementwise (NaN counts as non-zero, as in sift.count).
Value isNonZero(ImplicitLocOpBuilder &b, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  Value zero = arith::ConstantOp::create(
      b, DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
  if (isa<FloatType>(type.getElementType()))
    return arith::CmpFOp::create(b, arith::CmpFPredicate::UNE, x, zero);
  return arith::CmpIOp::create(b, arith::CmpIPredicate::ne, x, zero);
}

/// The reassociation that groups the first `rank` dimensions into one.
ReassociationIndices leadingDims(int64_t rank) {
  ReassociationIndices dims(rank);
  std::iota(dims.begin(), dims.end(), 0);
  return dims;
}

Value Staticizer::iota(ImplicitLocOpBuilder &b, int64_t n) {
  auto type = RankedTensorType::get({n}, b.getI64Type());
  Value init = tensor::EmptyOp::create(b, type.getShape(), b.getI64Type());
  AffineMap id = b.getMultiDimIdentityMap(1);
  auto gen = linalg::GenericOp::create(
      b, TypeRange{type}, ValueRange{}, ValueRange{init}, ArrayRef{id},
      ArrayRef{utils::IteratorType::parallel},
      [](OpBuilder &nb, Location loc, ValueRange) {
        Value i = linalg::IndexOp::create(nb, loc, 0);
        Value c = arith::IndexCastOp::create(nb, loc, nb.getI64Type(), i);
        linalg::YieldOp::create(nb, loc, c);
      });
  return gen.getResult(0);
}

Value Staticizer::splat(ImplicitLocOpBuilder &b, Value scalar, int64_t n) {
  return tensor::SplatOp::create(
      b, RankedTensorType::get({n}, scalar.getType()), scalar);
}

Value Staticizer::toI64(ImplicitLocOpBuilder &b, Value index) {
  return arith::IndexCastOp::create(b, b.getI64Type(), index);
}

Value Staticizer::toIndex(ImplicitLocOpBuilder &b, Value i64Tensor0D) {
  Value v = tensor::ExtractOp::create(b, i64Tensor0D, ValueRange{});
  return arith::IndexCastOp::create(b, b.getIndexType(), v);
}

Value Staticizer::constantI64(ImplicitLocOpBuilder &b, int64_t v, int64_t n) {
  auto type = RankedTensorType::get({n}, b.getI64Type());
  return arith::ConstantOp::create(b, DenseElementsAttr::get(type, v));
}

Value Staticizer::laneIsValid(ImplicitLocOpBuilder &b, int64_t n, Value count) {
  return arith::CmpIOp::create(b, arith::CmpIPredicate::slt, iota(b, n),
                               splat(b, toI64(b, count), n));
}

Value Staticizer::gatherRows(ImplicitLocOpBuilder &b, Value source,
                             Value indices) {
  return GatherOp::create(b, source, indices, /*batch_dims=*/0,
                          /*fill=*/TypedAttr());
}

Value Staticizer::gatherValidRows(ImplicitLocOpBuilder &b, Value source,
                                  Value indices) {
  Value result = gatherRows(b, source, indices);
  validRowGathers.insert(result.getDefiningOp());
  return result;
}

Value Staticizer::validRows(ImplicitLocOpBuilder &b, RankedTensorType type,
                            Value count) {
  auto maskType = RankedTensorType::get(type.getShape(), b.getI1Type());
  Value init = tensor::EmptyOp::create(b, maskType.getShape(), b.getI1Type());
  SmallVector<utils::IteratorType> iters(type.getRank(),
                                         utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, TypeRange{maskType}, ValueRange{}, ValueRange{init},
             ArrayRef{b.getMultiDimIdentityMap(type.getRank())}, iters,
             [&](OpBuilder &nb, Location loc, ValueRange) {
               Value row = linalg::IndexOp::create(nb, loc, 0);
               Value ok = arith::CmpIOp::create(
                   nb, loc, arith::CmpIPredicate::slt, row, count);
               linalg::YieldOp::create(nb, loc, ok);
             })
      .getResult(0);
}

Value Staticizer::resetPadding(ImplicitLocOpBuilder &b, const Padded &p,
                               TypedAttr fill) {
  auto type = cast<RankedTensorType>(p.padded.getType());
  Value fillTensor =
      arith::ConstantOp::create(b, DenseElementsAttr::get(type, fill));
  return arith::SelectOp::create(b, validRows(b, type, p.count), p.padded,
                                 fillTensor);
}

/// Whether some op of `op` (or of its regions) may trap or has an effect
/// when run on arbitrary values, as on padding rows (integer division by a
/// padding zero).
bool mayTrapOnPadding(Operation *op) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (nested == op && isa<linalg::LinalgOp>(op))
      return WalkResult::advance();
    if (isIntDivision(*nested))
      return WalkResult::interrupt();
    if (isa<linalg::YieldOp>(nested) || isPure(nested))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return result.wasInterrupted();
}

Value Staticizer::fitRows(ImplicitLocOpBuilder &b, const Padded &p, int64_t n) {
  if (n == p.bound)
    return p.padded;
  // Rows past the padded value's own rows read as invalid lanes (fill).
  return gatherRows(b, p.padded, iota(b, n));
}

Padded Staticizer::lookup(ImplicitLocOpBuilder &b, Value v) {
  if (auto it = padded.find(v); it != padded.end())
    return it->second;
  auto type = cast<RankedTensorType>(v.getType());
  int64_t n = type.getDimSize(0);
  return {v, arith::ConstantIndexOp::create(b, n), n};
}

FailureOr<int64_t> Staticizer::requireBound(Operation *op, Value v) {
  if (std::optional<int64_t> ub = bounds.upperDim(v, 0))
    return std::max<int64_t>(*ub, 0);
  return op->emitOpError()
         << "has a data-dependent result size with no upper bound derivable "
            "from the program (--sift-staticize needs one to pad to); bound "
            "the size, e.g. with arith.minsi against a constant, or annotate "
            "the function argument it comes from with {sift.bound = N : i64}";
}

/// The reassociation that collapses a slice's unreduced result into its
/// rank-reduced one: each kept dimension with the dropped (unit) ones before
/// it, the dropped ones after the last kept dimension with that one.
static SmallVector<ReassociationIndices>
droppedDimsReassociation(const llvm::SmallBitVector &dropped) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices current;
  for (int64_t d = 0, e = dropped.size(); d < e; ++d) {
    current.push_back(d);
    if (!dropped[d]) {
      groups.push_back(current);
      current.clear();
    }
  }
  if (!current.empty() && !groups.empty())
    llvm::append_range(groups.back(), current);
  return groups;
}

void Staticizer::splitRankReducingSlices() {
  // A rank-reducing slice of a tensor whose leading dimension is dynamic
  // (`x[m][0]`, a row of a selection; `x[m][:, 0:1]` squeezed) is the same
  // slice without the reduction, then a collapse_shape of its unit
  // dimensions: the slice and reshape rules then apply as they are.
  SmallVector<tensor::ExtractSliceOp> slices;
  func.walk([&](tensor::ExtractSliceOp slice) {
    RankedTensorType src = slice.getSourceType();
    if (src.getRank() > 0 && src.isDynamicDim(0) &&
        slice.getType().getRank() < src.getRank())
      slices.push_back(slice);
  });
  for (tensor::ExtractSliceOp slice : slices) {
    OpBuilder b(slice);
    RankedTensorType full = tensor::ExtractSliceOp::inferResultType(
        slice.getSourceType(), slice.getMixedSizes());
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    auto unreduced = tensor::ExtractSliceOp::create(
        b, slice.getLoc(), full, slice.getSource(), slice.getMixedOffsets(),
        slice.getMixedSizes(), slice.getMixedStrides());
    Value collapsed = tensor::CollapseShapeOp::create(
        b, slice.getLoc(), slice.getType(), unreduced,
        droppedDimsReassociation(dropped));
    slice.getResult().replaceAllUsesWith(collapsed);
    slice.erase();
  }
}

LogicalResult Staticizer::run() {
  for (BlockArgument arg : func.getArguments())
    if (hasDynamicTensor(arg.getType()))
      return func.emitOpError()
             << "argument #" << arg.getArgNumber() << " has a dynamic shape "
             << arg.getType()
             << ": --sift-staticize needs static tensor arguments; pass a "
                "padded static tensor and a count (an index argument "
                "annotated {sift.bound = N : i64}) instead";
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("--sift-staticize supports single-block functions");

  sinkLateTransposes(func);
  splitRankReducingSlices();
  // The bounds are taken from the program as written, before the rewrite
  // changes it: every data-dependent size a rule pads to, and the upper
  // bounds of loops' upper bounds.
  func.walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (auto t = dyn_cast<RankedTensorType>(v.getType());
          t && t.getRank() > 0 && t.isDynamicDim(0))
        (void)bounds.upperDim(v, 0);
    auto forOp = dyn_cast<scf::ForOp>(op);
    if (!forOp)
      return;
    for (Value arg : forOp.getRegionIterArgs())
      if (auto t = dyn_cast<RankedTensorType>(arg.getType());
          t && t.getRank() > 0 && t.isDynamicDim(0))
        (void)bounds.upperDim(arg, 0);
    if (std::optional<int64_t> ub = bounds.upper(forOp.getUpperBound()))
      loopBounds[forOp] = *ub;
  });
  if (failed(rewriteBlock(func.getBody().front())))
    return failure();
  for (Operation *op : llvm::reverse(toErase)) {
    op->dropAllUses();
    op->erase();
  }
  return success();
}

LogicalResult Staticizer::rewriteBlock(Block &block) {
  SmallVector<Operation *> ops = llvm::map_to_vector(
      block.getOperations(), [](Operation &op) { return &op; });
  for (Operation *op : ops)
    if (failed(rewrite(op)))
      return failure();
  return success();
}

LogicalResult Staticizer::rewrite(Operation *op) {
  if (auto ret = dyn_cast<func::ReturnOp>(op))
    return rewriteReturn(ret);
  // The region op that yields is rewritten with its yields.
  if (isa<scf::YieldOp>(op))
    return success();
  bool touches =
      llvm::any_of(op->getOperands(), [&](Value v) { return isMapped(v); }) ||
      hasDynamicTensor(op->getResultTypes());
  if (!isa<linalg::LinalgOp>(op) && op->getNumRegions() != 0)
    return rewriteRegionOp(op, touches);
  if (isa<linalg::LinalgOp>(op) && failed(rewriteBodyReads(op)))
    return failure();
  if (!touches)
    return success();
  if (auto transpose = dyn_cast<linalg::TransposeOp>(op);
      transpose && isMapped(transpose.getInput()) &&
      !onlyLeadingDynamic(
          cast<RankedTensorType>(transpose.getInit().getType())))
    return rewriteReturnedTranspose(transpose);
  // The init of such a transpose: rewriteReturn transposes into its own.
  if (auto empty = dyn_cast<tensor::EmptyOp>(op);
      empty && !onlyLeadingDynamic(empty.getType()) && !empty->use_empty() &&
      llvm::all_of(empty->getUses(), [](OpOperand &use) {
        auto transpose = dyn_cast<linalg::TransposeOp>(use.getOwner());
        return transpose && &use == &transpose.getInitMutable();
      })) {
    toErase.insert(op);
    return success();
  }
  if (failed(checkLeadingDynamic(op)))
    return failure();

  // One rule per op, named after it: SiftOps.cpp (sift ops), Sorts.cpp
  // (sort, argsort, topk, cumsum, unique), TensorOps.cpp (tensor and
  // elementwise ops), Linalg.cpp (linalg ops).
  ImplicitLocOpBuilder b(op->getLoc(), op);
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](NonzeroOp nz) { return rewriteNonzero(b, nz); })
      .Case([&](MaskedSelectOp ms) { return rewriteMaskedSelect(b, ms); })
      .Case([&](RandpermOp perm) { return rewriteRandperm(b, perm); })
      .Case([&](GatherOp gather) { return rewriteGather(b, gather); })
      .Case([&](ScatterOp scatter) { return rewriteScatter(b, scatter); })
      .Case([&](CountOp count) { return rewriteCount(b, count); })
      .Case([&](CrossEntropyOp ce) { return rewriteCrossEntropy(b, ce); })
      .Case([&](UniqueOp unique) { return rewriteUnique(b, unique); })
      .Case<SortOp, ArgsortOp, TopkOp, CumsumOp>(
          [&](Operation *sortLike) { return rewriteSortLike(b, sortLike); })
      .Case([&](tensor::DimOp dim) { return rewriteDim(b, dim); })
      .Case([&](tensor::ExtractSliceOp slice) {
        return rewriteExtractSlice(b, slice);
      })
      .Case([&](tensor::ConcatOp concat) { return rewriteConcat(b, concat); })
      .Case([&](tensor::CastOp castOp) { return rewriteCast(b, castOp); })
      .Case<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
          [&](Operation *reshape) { return rewriteReshape(b, reshape); })
      .Case(
          [&](tensor::ExtractOp extract) { return rewriteExtract(b, extract); })
      .Case<tensor::EmptyOp, tensor::SplatOp>(
          [&](Operation *op) { return rewriteEmptyOrSplat(b, op); })
      .Case(
          [&](linalg::LinalgOp linalgOp) { return rewriteLinalg(b, linalgOp); })
      .Default([&](Operation *op) -> LogicalResult {
        if (op->hasTrait<OpTrait::Elementwise>())
          return rewriteElementwise(b, op);
        return op->emitOpError()
               << "is not supported by --sift-staticize yet: it "
               << (hasDynamicTensor(op->getResultTypes())
                       ? "has a data-dependent result shape"
                       : "uses a data-dependent tensor");
      });
}

LogicalResult Staticizer::rewriteReturnedTranspose(linalg::TransposeOp op) {
  Value result = op.getResult()[0];
  for (Operation *user : result.getUsers())
    if (!isa<func::ReturnOp>(user))
      return user->emitOpError()
             << "uses a data-dependent tensor whose data-dependent dimension "
                "is not the first ("
             << result.getType()
             << "), which --sift-staticize supports only as a result of the "
                "function or through elementwise ops, slices, concatenations, "
                "linalg ops, gathers of static rows and expansions that "
                "insert unit dimensions";
  returnedTransposes[result] = llvm::to_vector(op.getPermutation());
  toErase.insert(op);
  return success();
}

LogicalResult Staticizer::rewriteBodyReads(Operation *op) {
  // The body is cloned as it is, so its reads of bounded values defined
  // outside (`x[idx[k]]` in a body) are rewritten in place first: an
  // element read reads the padded form (a row below the count is the same
  // row; any other was out of bounds in the dynamic program), and the
  // size is the count. Any other use of a bounded value there is refused.
  SmallVector<Operation *> reads;
  WalkResult captured = op->walk([&](Operation *nested) {
    if (nested == op || llvm::none_of(nested->getOperands(),
                                      [&](Value v) { return isMapped(v); }))
      return WalkResult::advance();
    if (isa<tensor::ExtractOp, tensor::DimOp>(nested)) {
      reads.push_back(nested);
      return WalkResult::advance();
    }
    return WalkResult::interrupt();
  });
  if (captured.wasInterrupted())
    return op->emitOpError("uses a data-dependent tensor inside its body "
                           "other than by tensor.extract or tensor.dim, "
                           "which --sift-staticize does not support; pass "
                           "it as an input instead");
  for (Operation *nested : reads) {
    ImplicitLocOpBuilder b(nested->getLoc(), nested);
    LogicalResult rewritten =
        isa<tensor::ExtractOp>(nested)
            ? rewriteExtract(b, cast<tensor::ExtractOp>(nested))
            : rewriteDim(b, cast<tensor::DimOp>(nested));
    if (failed(rewritten))
      return failure();
    // Gone before the body is cloned.
    toErase.remove(nested);
    nested->erase();
  }
  return success();
}

LogicalResult Staticizer::rewriteRegionOp(Operation *op, bool touches) {
  // A region op whose own operands and results are static (a loop over
  // range(count), a branch on a count) stays; the ops in its regions are
  // rewritten in place, so that reading a bounded value defined above
  // reads its padded form (a row below the count is a valid read).
  if (touches) {
    if (auto ifOp = dyn_cast<scf::IfOp>(op))
      return rewriteBoundedIf(ifOp);
    if (auto forOp = dyn_cast<scf::ForOp>(op))
      return rewriteBoundedFor(forOp);
    if (auto switchOp = dyn_cast<scf::IndexSwitchOp>(op))
      return rewriteBoundedSwitch(switchOp);
    if (isa<scf::WhileOp>(op))
      return op->emitOpError(
          "carries data-dependent tensors: its trip count is not bounded, "
          "which --sift-staticize needs (write it as an scf.for over a "
          "maximum number of iterations, each guarded by the condition)");
    return op->emitOpError(
        "with data-dependent shapes in a region is not supported by "
        "--sift-staticize yet");
  }
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (failed(rewriteBlock(block)))
        return failure();
  // (ifConvert may erase `op`.)
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    ifConvert(ifOp);
  else if (auto forOp = dyn_cast<scf::ForOp>(op))
    if (auto it = loopBounds.find(forOp); it != loopBounds.end())
      staticizeLoop(forOp, it->second);
  return success();
}

/// Collects the unpadded compactions whose unwritten lanes the padding
/// rows of `value` may hold: their indices past the count, or values
/// computed from them. The rows of a gather of valid rows
/// (gatherValidRows) past the count come from its indices only; another
/// gather's padding rows may be its source's (a fitted source, a per-row
/// pick). An op with regions may yield anything computed inside.
void Staticizer::collectUnpaddedSources(Value value,
                                        llvm::SmallPtrSetImpl<Value> &seen,
                                        llvm::SetVector<CompactOp> &sources) {
  if (!isa<TensorType>(value.getType()) || !seen.insert(value).second)
    return;
  Operation *def = value.getDefiningOp();
  if (!def)
    return;
  if (auto compact = dyn_cast<CompactOp>(def)) {
    if (compact.getUnpadded() && value == compact.getIndices())
      sources.insert(compact);
    return;
  }
  if (auto gather = dyn_cast<GatherOp>(def);
      gather && validRowGathers.contains(gather))
    return collectUnpaddedSources(gather.getIndices(), seen, sources);
  for (Value operand : def->getOperands())
    collectUnpaddedSources(operand, seen, sources);
  def->walk([&](CompactOp nested) {
    if (nested != def && nested.getUnpadded())
      sources.insert(nested);
  });
}

Value Staticizer::definedPadding(const Padded &p) {
  // The compactions it may come from write their -1 padding again (as the
  // compaction's own padding, `nonzero`'s, or a gather's fill,
  // `masked_select`'s, or what the program computes from them), so that
  // the function's results are the same from call to call.
  llvm::SmallPtrSet<Value, 16> seen;
  llvm::SetVector<CompactOp> sources;
  collectUnpaddedSources(p.padded, seen, sources);
  for (CompactOp compact : sources)
    compact.setUnpadded(false);
  return p.padded;
}

LogicalResult Staticizer::rewriteReturn(func::ReturnOp op) {
  if (!llvm::any_of(op.getOperands(), [&](Value v) {
        return isMapped(v) || returnedTransposes.count(v);
      }))
    return success();
  // ABI: a bounded result becomes its padded static tensor followed by its
  // count as a tensor<i64>; static results stay as they are. The function's
  // `sift.bounded_results` attribute lists the positions of the padded
  // tensors, the mark hosts pair them with their counts by (the JIT's
  // signatures, the Python package's Bounded results).
  ImplicitLocOpBuilder b(op.getLoc(), op);
  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  SmallVector<int64_t> boundedPositions, boundedDims;
  for (auto [i, v] : llvm::enumerate(op.getOperands())) {
    DictionaryAttr attrs = func.getResultAttrDict(i);
    if (!attrs)
      attrs = b.getDictionaryAttr({});
    // A transpose of a padded value: the padded value transposed, its
    // count along the dimension its rows move to.
    SmallVector<int64_t> perm;
    if (auto it = returnedTransposes.find(v); it != returnedTransposes.end()) {
      perm = it->second;
      v = v.getDefiningOp<linalg::TransposeOp>().getInput();
    }
    if (!isMapped(v)) {
      results.push_back(v);
      resultAttrs.push_back(attrs);
      continue;
    }
    Padded p = padded[v];
    boundedPositions.push_back(results.size());
    Value data = definedPadding(p);
    int64_t dim = 0;
    if (!perm.empty()) {
      auto type = cast<RankedTensorType>(data.getType());
      SmallVector<int64_t> shape;
      for (int64_t d : perm)
        shape.push_back(type.getDimSize(d));
      Value init = tensor::EmptyOp::create(b, shape, type.getElementType());
      data = linalg::TransposeOp::create(b, data, init, perm).getResult()[0];
      dim = llvm::find(perm, 0) - perm.begin();
    }
    boundedDims.push_back(dim);
    results.push_back(data);
    resultAttrs.push_back(attrs);
    results.push_back(tensor::FromElementsOp::create(
        b, RankedTensorType::get({}, b.getI64Type()), toI64(b, p.count)));
    resultAttrs.push_back(b.getDictionaryAttr({}));
  }
  func::ReturnOp::create(b, results);
  op.erase();
  func.setFunctionType(
      FunctionType::get(func.getContext(), func.getArgumentTypes(),
                        llvm::to_vector(llvm::map_range(
                            results, [](Value v) { return v.getType(); }))));
  func.setAllResultAttrs(resultAttrs);
  func->setAttr(kBoundedResultsAttr, b.getDenseI64ArrayAttr(boundedPositions));
  if (llvm::any_of(boundedDims, [](int64_t d) { return d != 0; }))
    func->setAttr(kBoundedDimsAttr, b.getDenseI64ArrayAttr(boundedDims));
  return success();
}

} // namespace staticize
} // namespace sift
} // namespace mlir

FailureOr<StaticizeResult> mlir::sift::staticizeFunction(func::FuncOp func) {
  // A gather whose values the selections its indices come from already
  // tell (a sampler's `labels[idx]`, idx drawn from nonzero(labels == 1)
  // and nonzero(labels == 0)) becomes those values before the rewrite, which
  // then never reads its source again (GatherOfSelection.cpp).
  RewritePatternSet patterns(func.getContext());
  GatherOp::getCanonicalizationPatterns(patterns, func.getContext());
  walkAndApplyPatterns(func, FrozenRewritePatternSet(std::move(patterns)));
  SizeBounds bounds;
  staticize::Staticizer staticizer(func, bounds);
  if (failed(staticizer.run()))
    return failure();
  StaticizeResult result;
  result.numRewritten = staticizer.numRewritten;
  result.numSyncsRemoved = staticizer.numSyncsRemoved;
  for (auto &[loc, name, bound] : staticizer.reportedBounds)
    result.padded.push_back({loc, name, bound});
  return result;
}

namespace {
struct SiftStaticizePass
    : public sift::impl::SiftStaticizeBase<SiftStaticizePass> {
  using Base::Base;

  void runOnOperation() override {
    // Calls are inlined first (no simplification after): a helper that
    // returns a selection becomes part of its caller, whose sizes the
    // rewrite then bounds together. Private helpers left without a call
    // are erased.
    bool hasCalls = false;
    getOperation().walk([&](func::CallOp) {
      hasCalls = true;
      return WalkResult::interrupt();
    });
    if (hasCalls) {
      OpPassManager inliner(ModuleOp::getOperationName());
      inliner.addPass(createInlinerPass(llvm::StringMap<OpPassManager>(),
                                        [](OpPassManager &) {}));
      if (failed(runPipeline(inliner, getOperation())))
        return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      FailureOr<StaticizeResult> result = staticizeFunction(func);
      if (failed(result))
        return signalPassFailure();
      numRewritten += result->numRewritten;
      numSyncsRemoved += result->numSyncsRemoved;
      if (!report)
        continue;
      for (const StaticizeResult::PaddedValue &value : result->padded)
        emitRemark(value.loc)
            << "'" << value.name << "' padded to " << value.bound << " rows";
      func.emitRemark() << "sift-staticize: " << result->numRewritten
                        << " data-dependent values rewritten, "
                        << result->numSyncsRemoved << " host syncs removed";
    }
  }
};
} // namespace
