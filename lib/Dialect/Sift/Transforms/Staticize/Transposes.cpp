//===- Transposes.cpp - Data-dependent dimensions kept leading ------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The rules of --sift-staticize pad dimension 0. A selection along a later
// dimension (`x[:, mask]`, PyTorch Geometric's `edge_index[:, mask]`) is
// written as a transpose that brings the dimension first, the selection,
// and a transpose back: its result, and what is computed from it, is
// data-dependent along a later dimension. Before the rewrite, such
// transposes move down through their consumers, so that everything in
// between is computed with the data-dependent dimension leading:
//
//   transpose(transpose(x, p), q)  -> transpose(x, p o q)  (or x)
//   tensor.dim(transpose(x, p), i) -> tensor.dim(x, p[i])
//   slice(transpose(x, p))         -> transpose(slice'(x), p') (or slice')
//   collapse(transpose(x, p)) dropping unit dimensions: the same
//   f(transpose(a, p), ...)        -> transpose(f(a, ...), p)   (elementwise)
//   f(splat(a), splat(b))          -> splat(f(a, b))
//   concat(transpose(a, p), s, d)  -> transpose(concat(a, s', p[d]), p)
//   linalg op reading transpose(x, p): reads x through a permuted map
//
// What stays is a transpose that a function returns (the staticized
// function returns the padded value transposed, its count along that
// dimension: `sift.bounded_dims`), or one that a later rule refuses with
// the usual error.
//
//===----------------------------------------------------------------------===//

#include "Staticizer.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::staticize;

/// Whether `t` is a tensor with a dynamic dimension past the first.
static bool dynamicPastLeading(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && !rt.hasStaticShape() && !onlyLeadingDynamic(rt);
}

/// `v`'s defining linalg.transpose when its result is dynamic past the
/// first dimension (what the patterns move down), else null.
static linalg::TransposeOp lateTranspose(Value v) {
  auto transpose = v.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || !dynamicPastLeading(v.getType()))
    return nullptr;
  return transpose;
}

/// `type` as it is before the transpose `perm` (result dimension i is
/// source dimension perm[i]).
static RankedTensorType beforeTranspose(RankedTensorType type,
                                        ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape(type.getRank());
  for (auto [i, p] : llvm::enumerate(perm))
    shape[p] = type.getDimSize(i);
  return RankedTensorType::get(shape, type.getElementType());
}

/// The dimensions of a permutation `perm` that remain when the ones
/// `dropped` marks (among the permuted dimensions) go, numbered among
/// themselves: what transposes the source without them.
static SmallVector<int64_t>
keptPermutation(ArrayRef<int64_t> perm, const llvm::SmallBitVector &dropped) {
  int64_t rank = perm.size();
  SmallVector<int64_t> index(rank, -1);
  for (int64_t j = 0, k = 0; j < rank; ++j)
    if (!dropped[llvm::find(perm, j) - perm.begin()])
      index[j] = k++;
  SmallVector<int64_t> kept;
  for (int64_t i = 0; i < rank; ++i)
    if (!dropped[i])
      kept.push_back(index[perm[i]]);
  return kept;
}

/// The dimension of a reshape's reassociation `group` (dimensions of
/// `type`) that is not a static 1, or its first when all are; nullopt when
/// two are not (the reshape does more than add or drop units).
static std::optional<int64_t> nonUnitOf(ArrayRef<int64_t> group,
                                        RankedTensorType type) {
  std::optional<int64_t> kept;
  for (int64_t d : group)
    if (type.getDimSize(d) != 1) {
      if (kept)
        return std::nullopt;
      kept = d;
    }
  return kept ? kept : group.front();
}

/// linalg.transpose of `v` by `perm` (or `v` for the identity).
static Value transpose(OpBuilder &b, Location loc, Value v,
                       ArrayRef<int64_t> perm) {
  if (isIdentityPermutation(perm))
    return v;
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> sizes;
  for (int64_t p : perm)
    sizes.push_back(tensor::getMixedSize(b, loc, v, p));
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  return linalg::TransposeOp::create(b, loc, v, init, perm).getResult()[0];
}

/// The permutation of the late transposes among `values`, when they all
/// have the same one and every other value passes `other`; nullopt when
/// none is such a transpose, two differ, or another value fails.
static std::optional<SmallVector<int64_t>>
sharedPermutation(ValueRange values, function_ref<bool(Value)> other) {
  std::optional<SmallVector<int64_t>> perm;
  for (Value v : values) {
    if (linalg::TransposeOp t = lateTranspose(v)) {
      if (perm && ArrayRef<int64_t>(*perm) != t.getPermutation())
        return std::nullopt;
      perm = llvm::to_vector(t.getPermutation());
    } else if (!other(v)) {
      return std::nullopt;
    }
  }
  return perm;
}

namespace {

/// transpose(transpose(x, p), q) -> transpose(x, p o q), or x.
struct ComposeTransposes : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    linalg::TransposeOp inner = lateTranspose(op.getInput());
    if (!inner || !op.hasPureTensorSemantics())
      return failure();
    ArrayRef<int64_t> p = inner.getPermutation(), q = op.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t i : q)
      composed.push_back(p[i]);
    rewriter.replaceOp(
        op, transpose(rewriter, op.getLoc(), inner.getInput(), composed));
    return success();
  }
};

/// tensor.dim(transpose(x, p), i) -> tensor.dim(x, p[i]).
struct DimOfTranspose : OpRewritePattern<tensor::DimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::DimOp op,
                                PatternRewriter &rewriter) const override {
    linalg::TransposeOp t = lateTranspose(op.getSource());
    std::optional<int64_t> d = op.getConstantIndex();
    if (!t || !d || *d < 0 || *d >= (int64_t)t.getPermutation().size())
      return failure();
    rewriter.replaceOpWithNewOp<tensor::DimOp>(op, t.getInput(),
                                               t.getPermutation()[*d]);
    return success();
  }
};

/// A slice of transpose(x, p): the slice of x it reads (dimension p[i] of
/// x sliced as dimension i of the transpose), transposed by what p leaves
/// of the dimensions the slice keeps.
struct SliceOfTranspose : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    linalg::TransposeOp t = lateTranspose(op.getSource());
    if (!t)
      return failure();
    ArrayRef<int64_t> perm = t.getPermutation();
    int64_t rank = perm.size();
    SmallVector<OpFoldResult> offsets(rank), sizes(rank), strides(rank);
    for (int64_t i = 0; i < rank; ++i) {
      offsets[perm[i]] = op.getMixedOffsets()[i];
      sizes[perm[i]] = op.getMixedSizes()[i];
      strides[perm[i]] = op.getMixedStrides()[i];
    }
    llvm::SmallBitVector dropped = op.getDroppedDims();
    // The slice of the input keeps its dimensions in its own order.
    RankedTensorType unreduced = tensor::ExtractSliceOp::inferResultType(
        op.getSourceType(), op.getMixedSizes());
    SmallVector<int64_t> shape;
    for (int64_t j = 0; j < rank; ++j) {
      int64_t i = llvm::find(perm, j) - perm.begin();
      if (!dropped[i])
        shape.push_back(unreduced.getDimSize(i));
    }
    auto type = RankedTensorType::get(shape, unreduced.getElementType());
    Value slice = tensor::ExtractSliceOp::create(
        rewriter, op.getLoc(), type, t.getInput(), offsets, sizes, strides);
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), slice,
                                     keptPermutation(perm, dropped)));
    return success();
  }
};

/// collapse_shape(transpose(x, p)) that only drops unit dimensions (each
/// group has at most one dimension that is not a static 1): x without
/// those dimensions, transposed by what p leaves.
struct CollapseOfTranspose : OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::CollapseShapeOp op,
                                PatternRewriter &rewriter) const override {
    linalg::TransposeOp t = lateTranspose(op.getSrc());
    if (!t)
      return failure();
    RankedTensorType type = op.getSrcType();
    int64_t rank = type.getRank();
    llvm::SmallBitVector dropped(rank, true);
    for (const ReassociationIndices &group : op.getReassociationIndices()) {
      std::optional<int64_t> kept = nonUnitOf(group, type);
      if (!kept)
        return failure();
      dropped.reset(*kept);
    }
    ArrayRef<int64_t> perm = t.getPermutation();
    llvm::SmallBitVector droppedInput(rank);
    for (int64_t i = 0; i < rank; ++i)
      if (dropped[i])
        droppedInput.set(perm[i]);
    // The input's groups: each kept dimension with the dropped ones
    // before it, the dropped ones after the last kept one with that one.
    SmallVector<ReassociationIndices> groups;
    ReassociationIndices current;
    SmallVector<int64_t> shape;
    RankedTensorType input = cast<RankedTensorType>(t.getInput().getType());
    for (int64_t d = 0; d < rank; ++d) {
      current.push_back(d);
      if (!droppedInput[d]) {
        groups.push_back(current);
        current.clear();
        shape.push_back(input.getDimSize(d));
      }
    }
    if (groups.empty())
      return failure();
    llvm::append_range(groups.back(), current);
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, op.getLoc(),
        RankedTensorType::get(shape, input.getElementType()), t.getInput(),
        groups);
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), collapsed,
                                     keptPermutation(perm, dropped)));
    return success();
  }
};

/// An expand_shape that only inserts unit dimensions (each group has at
/// most one dimension that is not a static 1) and whose result is dynamic
/// past the first (`x.unsqueeze(0)` of a selection, which `torch.stack`
/// writes): the expansion with the new units last, transposed into place.
/// A transposed source is expanded before its transpose.
struct ExpandInsertingUnits : OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getResultType();
    if (!dynamicPastLeading(type))
      return failure();
    Value base = op.getSrc();
    int64_t rank = op.getSrcType().getRank();
    auto perm = llvm::to_vector(llvm::seq<int64_t>(rank));
    if (linalg::TransposeOp t = lateTranspose(base)) {
      base = t.getInput();
      perm = llvm::to_vector(t.getPermutation());
    } else if (!onlyLeadingDynamic(op.getSrcType())) {
      return failure();
    }
    // Result dimension r is dimension q[r] of base expanded by trailing
    // units.
    SmallVector<int64_t> q(type.getRank());
    int64_t units = 0;
    for (auto [g, group] : llvm::enumerate(op.getReassociationIndices())) {
      std::optional<int64_t> kept = nonUnitOf(group, type);
      if (!kept)
        return failure();
      for (int64_t d : group)
        q[d] = d == *kept ? perm[g] : rank + units++;
    }
    if (rank == 0)
      return failure();
    Location loc = op.getLoc();
    auto baseType = cast<RankedTensorType>(base.getType());
    SmallVector<int64_t> shape(baseType.getShape());
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(tensor::getMixedSize(rewriter, loc, base, d));
    SmallVector<ReassociationIndices> groups;
    for (int64_t d = 0; d < rank; ++d)
      groups.push_back({d});
    for (int64_t u = 0; u < units; ++u) {
      shape.push_back(1);
      sizes.push_back(rewriter.getIndexAttr(1));
      groups.back().push_back(rank + u);
    }
    Value expanded = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(shape, type.getElementType()),
        base, groups, sizes);
    rewriter.replaceOp(op, transpose(rewriter, loc, expanded, q));
    return success();
  }
};

/// sift.gather along dimension 0 of transpose(x, p) (`e[[1, 0]]` of a
/// selection's columns): a gather along x's dimension a = p[0] with x's
/// dimensions before a as batch dimensions (the indices broadcast over
/// them), transposed into place.
struct GatherOfTranspose : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    linalg::TransposeOp t = lateTranspose(op.getSource());
    if (!t || op.getBatchDims() != 0)
      return failure();
    ArrayRef<int64_t> perm = t.getPermutation();
    int64_t a = perm[0];
    Value source = t.getInput();
    auto sourceType = cast<RankedTensorType>(source.getType());
    if (a == 0 || !onlyLeadingDynamic(sourceType))
      return failure();
    Location loc = op.getLoc();
    Value indices = op.getIndices();
    auto idxType = cast<RankedTensorType>(indices.getType());
    int64_t k = idxType.getRank();
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < a; ++d)
      sizes.push_back(tensor::getMixedSize(rewriter, loc, source, d));
    for (int64_t d = 0; d < k; ++d)
      sizes.push_back(tensor::getMixedSize(rewriter, loc, indices, d));
    Value init =
        tensor::EmptyOp::create(rewriter, loc, sizes, idxType.getElementType());
    Value broadcast =
        linalg::BroadcastOp::create(rewriter, loc, indices, init,
                                    llvm::to_vector(llvm::seq<int64_t>(a)))
            .getResult()[0];
    // Of shape source.shape[:a] ++ indices.shape ++ source.shape[a + 1:].
    Value gathered =
        GatherOp::create(rewriter, loc, source, broadcast, a, op.getFillAttr());
    // Result dimension r < k is the gathered one's r; the others are the
    // transpose's dimensions past 0, source dimensions perm[j].
    int64_t rank = cast<RankedTensorType>(op.getType()).getRank();
    SmallVector<int64_t> q(rank);
    for (int64_t r = 0; r < rank; ++r) {
      if (r < k) {
        q[r] = a + r;
        continue;
      }
      int64_t s = perm[r - k + 1];
      q[r] = s < a ? s : s - 1 + k;
    }
    rewriter.replaceOp(op, transpose(rewriter, loc, gathered, q));
    return success();
  }
};

/// An elementwise op on splats only (`x % 3` of a selection compares its
/// splats of 3 and 0) is a splat of the op on their scalars: it then has
/// no layout to keep.
struct ElementwiseOfSplats : RewritePattern {
  ElementwiseOfSplats(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumRegions() != 0 ||
        op->getNumResults() != 1 ||
        !dynamicPastLeading(op->getResult(0).getType()))
      return failure();
    tensor::SplatOp first;
    SmallVector<Value> scalars;
    for (Value v : op->getOperands()) {
      if (!isa<RankedTensorType>(v.getType())) {
        scalars.push_back(v);
        continue;
      }
      auto splat = v.getDefiningOp<tensor::SplatOp>();
      if (!splat)
        return failure();
      first = first ? first : splat;
      scalars.push_back(splat.getInput());
    }
    if (!first)
      return failure();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    OperationState state(op->getLoc(), op->getName(), scalars,
                         TypeRange{type.getElementType()}, op->getAttrs());
    Operation *scalar = rewriter.create(state);
    rewriter.replaceOpWithNewOp<tensor::SplatOp>(op, type, scalar->getResult(0),
                                                 first.getDynamicSizes());
    return success();
  }
};

/// An elementwise op on tensors that are transposes by one p (or splats):
/// the op on what they transpose, transposed.
struct ElementwiseOfTranspose : RewritePattern {
  ElementwiseOfTranspose(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumRegions() != 0 ||
        op->getNumResults() == 0 ||
        !llvm::all_of(op->getResultTypes(), dynamicPastLeading))
      return failure();
    std::optional<SmallVector<int64_t>> perm =
        sharedPermutation(op->getOperands(), [](Value v) {
          return !isa<RankedTensorType>(v.getType()) ||
                 v.getDefiningOp<tensor::SplatOp>();
        });
    if (!perm)
      return failure();
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (Value v : op->getOperands()) {
      if (linalg::TransposeOp t = lateTranspose(v)) {
        operands.push_back(t.getInput());
      } else if (auto splat = v.getDefiningOp<tensor::SplatOp>()) {
        // The splat's dynamic sizes, in the order of its type's dimensions,
        // permuted with them.
        auto type = cast<RankedTensorType>(v.getType());
        SmallVector<Value> sizes(type.getRank());
        for (int64_t d = 0, k = 0; d < type.getRank(); ++d)
          if (type.isDynamicDim(d))
            sizes[(*perm)[d]] = splat.getDynamicSizes()[k++];
        SmallVector<Value> dynamic;
        for (Value s : sizes)
          if (s)
            dynamic.push_back(s);
        operands.push_back(tensor::SplatOp::create(rewriter, loc,
                                                   beforeTranspose(type, *perm),
                                                   splat.getInput(), dynamic));
      } else {
        operands.push_back(v);
      }
    }
    SmallVector<Type> types;
    for (Type t : op->getResultTypes())
      types.push_back(beforeTranspose(cast<RankedTensorType>(t), *perm));
    OperationState state(loc, op->getName(), operands, types, op->getAttrs());
    Operation *moved = rewriter.create(state);
    SmallVector<Value> results;
    for (Value r : moved->getResults())
      results.push_back(transpose(rewriter, loc, r, *perm));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// A concatenation of transposes by one p (and static tensors): the
/// concatenation of what they transpose along dimension p[d], transposed.
struct ConcatOfTranspose : OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> perm =
        sharedPermutation(op.getInputs(), [](Value v) {
          return cast<RankedTensorType>(v.getType()).hasStaticShape();
        });
    if (!perm)
      return failure();
    Location loc = op.getLoc();
    SmallVector<int64_t> inverse = invertPermutationVector(*perm);
    SmallVector<Value> inputs;
    for (Value v : op.getInputs()) {
      if (linalg::TransposeOp t = lateTranspose(v))
        inputs.push_back(t.getInput());
      else
        inputs.push_back(transpose(rewriter, loc, v, inverse));
    }
    Value concat =
        tensor::ConcatOp::create(rewriter, loc, (*perm)[op.getDim()], inputs);
    rewriter.replaceOp(op, transpose(rewriter, loc, concat, *perm));
    return success();
  }
};

/// A linalg op that reads transpose(x, p) reads x through the map that
/// permutes its results back; its inits of that kind (a tensor.empty or a
/// transpose by one p) are computed before the transpose too.
struct LinalgOfTranspose : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (isa<linalg::TransposeOp>(op) || !op.hasPureTensorSemantics() ||
        llvm::none_of(op.getDpsInputs(),
                      [](Value v) { return lateTranspose(v); }))
      return failure();
    // The inits: each static, or a tensor.empty or transpose whose
    // results are permuted back by one p.
    std::optional<SmallVector<int64_t>> outPerm;
    for (Value init : op.getDpsInits()) {
      if (!dynamicPastLeading(init.getType()))
        continue;
      linalg::TransposeOp t = lateTranspose(init);
      auto empty = init.getDefiningOp<tensor::EmptyOp>();
      if (!t && !empty)
        return failure();
      if (t) {
        if (outPerm && ArrayRef<int64_t>(*outPerm) != t.getPermutation())
          return failure();
        outPerm = llvm::to_vector(t.getPermutation());
      }
    }
    // An init from tensor.empty with no transpose to follow takes the
    // permutation of the first transposed input of its rank.
    if (!outPerm && llvm::any_of(op.getDpsInits(), [](Value v) {
          return dynamicPastLeading(v.getType());
        })) {
      for (Value v : op.getDpsInputs())
        if (linalg::TransposeOp t = lateTranspose(v);
            t && t.getPermutation().size() == (size_t)cast<RankedTensorType>(
                                                  op.getDpsInits()[0].getType())
                                                  .getRank()) {
          outPerm = llvm::to_vector(t.getPermutation());
          break;
        }
      if (!outPerm)
        return failure();
    }
    if (!isa<linalg::GenericOp>(op)) {
      FailureOr<linalg::GenericOp> generic =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generic))
        return failure();
      op = *generic;
    }
    auto generic = cast<linalg::GenericOp>(op.getOperation());
    Location loc = generic.getLoc();
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    // Value v = transpose(x, p) read through map m: x is read through the
    // map whose result j is m's result inverse(p)[j].
    auto permuted = [&](AffineMap m, ArrayRef<int64_t> p) {
      SmallVector<AffineExpr> exprs;
      for (int64_t j : invertPermutationVector(p))
        exprs.push_back(m.getResult(j));
      return AffineMap::get(m.getNumDims(), m.getNumSymbols(), exprs,
                            m.getContext());
    };
    SmallVector<Value> inputs, inits;
    for (OpOperand *operand : generic.getDpsInputOperands()) {
      Value v = operand->get();
      if (linalg::TransposeOp t = lateTranspose(v)) {
        maps[operand->getOperandNumber()] =
            permuted(maps[operand->getOperandNumber()], t.getPermutation());
        v = t.getInput();
      }
      inputs.push_back(v);
    }
    SmallVector<bool> movedInit;
    for (OpOperand &operand : generic.getDpsInitsMutable()) {
      Value v = operand.get();
      bool moved = dynamicPastLeading(v.getType());
      movedInit.push_back(moved);
      if (moved) {
        maps[operand.getOperandNumber()] =
            permuted(maps[operand.getOperandNumber()], *outPerm);
        if (linalg::TransposeOp t = lateTranspose(v)) {
          v = t.getInput();
        } else {
          auto empty = v.getDefiningOp<tensor::EmptyOp>();
          auto type = cast<RankedTensorType>(v.getType());
          SmallVector<OpFoldResult> sizes(type.getRank());
          for (int64_t d = 0; d < type.getRank(); ++d)
            sizes[(*outPerm)[d]] = empty.getMixedSizes()[d];
          v = tensor::EmptyOp::create(rewriter, loc, sizes,
                                      type.getElementType());
        }
      }
      inits.push_back(v);
    }
    SmallVector<Type> types =
        llvm::map_to_vector(inits, [](Value v) { return v.getType(); });
    auto moved =
        linalg::GenericOp::create(rewriter, loc, types, inputs, inits, maps,
                                  generic.getIteratorTypesArray());
    rewriter.inlineRegionBefore(generic.getRegion(), moved.getRegion(),
                                moved.getRegion().begin());
    SmallVector<Value> results;
    for (auto [r, isMoved] : llvm::zip(moved.getResults(), movedInit))
      results.push_back(isMoved ? transpose(rewriter, loc, r, *outPerm) : r);
    rewriter.replaceOp(generic, results);
    return success();
  }
};

} // namespace

void mlir::sift::staticize::sinkLateTransposes(func::FuncOp func) {
  // Values dynamic past their first dimension come from late transposes
  // and unit expansions; other programs have nothing to move.
  WalkResult any = func.walk([&](Operation *op) {
    if (isa<linalg::TransposeOp, tensor::ExpandShapeOp>(op) &&
        dynamicPastLeading(op->getResult(0).getType()))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (!any.wasInterrupted())
    return;
  RewritePatternSet patterns(func.getContext());
  patterns.add<ComposeTransposes, DimOfTranspose, SliceOfTranspose,
               CollapseOfTranspose, ExpandInsertingUnits, GatherOfTranspose,
               ElementwiseOfSplats, ElementwiseOfTranspose, ConcatOfTranspose,
               LinalgOfTranspose>(func.getContext());
  // In program order: a consumer sees its producers' transposes already
  // moved down to it.
  walkAndApplyPatterns(func, FrozenRewritePatternSet(std::move(patterns)));
  // The transposes (and their inits) nothing reads any more.
  SmallVector<Operation *> dead;
  func.walk([&](Operation *op) {
    if (isa<linalg::TransposeOp, tensor::EmptyOp, tensor::DimOp,
            tensor::SplatOp>(op))
      dead.push_back(op);
  });
  for (Operation *op : llvm::reverse(dead))
    if (op->use_empty() &&
        (!isa<linalg::TransposeOp>(op) ||
         cast<linalg::TransposeOp>(op).hasPureTensorSemantics()))
      op->erase();
}
