//===- GatherOfSelection.cpp - x[i] where i selects x == c ------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The canonicalization `GatherOfSelectedValues` of `sift.gather`: a gather
// of a 1-D tensor `x` at indices that were selected where `x == c` reads
// `c` at every index, whatever route the indices took from the selection
// to the gather (slices, gathers by in-range positions, concatenations with
// other selections). So
//
//   pos = nonzero(labels == 1); neg = nonzero(labels == 0)
//   idx = concat(pos[perm_p[:kp]], neg[perm_n[:kn]])[randperm(kp + kn)]
//   labels[idx]
//
// is `where(mix < kp, 1, 0)` for mix = randperm(kp + kn), and no label is
// read again (at N = 1e6 those were random reads of an 8 MB row).
//
// The values of x at an index tensor I are known as a list of pieces, each
// a constant `c` over a run of I:
//   - I = nonzero(x == c) (or c == x), x of integers, or of floats (oeq) with c
//     neither 0 nor NaN (x == 0.0 also selects -0.0): one piece c;
//   - I = J[T]: the pieces of J, when every position in T is in [0, len J)
//     (no lane of T takes the fill), gathered by T: one piece if they all
//     hold the same c, else a select on T between the pieces' bounds;
//   - I = concat(I1, I2, ...): the pieces of each;
//   - I = a slice or cast of J with one piece: that piece.
// Positions in range: randperm(n), the argsort or nonzero of a tensor of
// length n, and slices, casts and in-range gathers of those, where n is
// the length of J as a sum of terms (sizes, tensor.dim, constants; a
// concatenation's length is the sum of its pieces' lengths).
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/IR/SiftOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::sift;

namespace {

/// Recursion bound of the walks over index expressions.
constexpr int kMaxDepth = 16;

/// Whether `t` is a ranked 1-D tensor.
bool isVector(Value t) {
  auto type = dyn_cast<RankedTensorType>(t.getType());
  return type && type.getRank() == 1;
}

/// The length of a 1-D tensor as a sum of opaque terms (index values, or
/// tensors standing for their own length) and a constant.
struct Length {
  SmallVector<Value> terms;
  int64_t constant = 0;

  bool operator==(const Length &other) const {
    if (constant != other.constant || terms.size() != other.terms.size())
      return false;
    auto sorted = [](SmallVector<Value> v) {
      llvm::sort(v, [](Value a, Value b) {
        return a.getAsOpaquePointer() < b.getAsOpaquePointer();
      });
      return v;
    };
    return sorted(terms) == sorted(other.terms);
  }
};

void addLengthOf(Value tensor, Length &len, int depth);

/// Adds the index value `v` to `len`: constants, sums and `tensor.dim %t, 0`
/// of a 1-D tensor are opened up.
void addTerm(Value v, Length &len, int depth) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c))) {
    len.constant += c.getSExtValue();
    return;
  }
  if (depth < kMaxDepth) {
    if (auto add = v.getDefiningOp<arith::AddIOp>()) {
      addTerm(add.getLhs(), len, depth + 1);
      addTerm(add.getRhs(), len, depth + 1);
      return;
    }
    if (auto dim = v.getDefiningOp<tensor::DimOp>()) {
      std::optional<int64_t> d = dim.getConstantIndex();
      if (d && *d == 0 && isVector(dim.getSource())) {
        addLengthOf(dim.getSource(), len, depth + 1);
        return;
      }
    }
  }
  len.terms.push_back(v);
}

/// Adds the length of the 1-D `tensor` to `len`.
void addLengthOf(Value tensor, Length &len, int depth) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(0)) {
    len.constant += type.getDimSize(0);
    return;
  }
  Operation *def = tensor.getDefiningOp();
  if (def && depth < kMaxDepth) {
    if (auto perm = dyn_cast<RandpermOp>(def))
      return addTerm(perm.getN(), len, depth + 1);
    if (auto gather = dyn_cast<GatherOp>(def);
        gather && isVector(gather.getIndices()))
      return addLengthOf(gather.getIndices(), len, depth + 1);
    if (auto argsort = dyn_cast<ArgsortOp>(def))
      return addLengthOf(argsort.getInput(), len, depth + 1);
    if (auto cast = dyn_cast<tensor::CastOp>(def);
        cast && isVector(cast.getSource()))
      return addLengthOf(cast.getSource(), len, depth + 1);
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def);
        slice && isVector(slice.getSource())) {
      OpFoldResult size = slice.getMixedSizes()[0];
      if (auto v = dyn_cast<Value>(size))
        return addTerm(v, len, depth + 1);
      len.constant += cast<IntegerAttr>(cast<Attribute>(size)).getInt();
      return;
    }
    if (auto concat = dyn_cast<tensor::ConcatOp>(def);
        concat && concat.getDim() == 0) {
      for (Value piece : concat.getInputs())
        addLengthOf(piece, len, depth + 1);
      return;
    }
  }
  len.terms.push_back(tensor);
}

Length lengthOf(Value tensor) {
  Length len;
  addLengthOf(tensor, len, 0);
  return len;
}

/// Whether every element of the 1-D index tensor `t` is in [0, n).
bool inRange(Value t, const Length &n, int depth = 0) {
  if (depth >= kMaxDepth || !isVector(t))
    return false;
  Operation *def = t.getDefiningOp();
  if (!def)
    return false;
  if (auto perm = dyn_cast<RandpermOp>(def)) {
    Length m;
    addTerm(perm.getN(), m, 0);
    return m == n;
  }
  if (auto argsort = dyn_cast<ArgsortOp>(def))
    return isVector(argsort.getInput()) && lengthOf(argsort.getInput()) == n;
  if (auto nonzero = dyn_cast<NonzeroOp>(def))
    return isVector(nonzero.getInput()) && lengthOf(nonzero.getInput()) == n;
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def))
    return inRange(slice.getSource(), n, depth + 1);
  if (auto cast = dyn_cast<tensor::CastOp>(def))
    return inRange(cast.getSource(), n, depth + 1);
  if (auto gather = dyn_cast<GatherOp>(def))
    return gather.getBatchDims() == 0 && isVector(gather.getSource()) &&
           inRange(gather.getSource(), n, depth + 1) &&
           inRange(gather.getIndices(), lengthOf(gather.getSource()),
                   depth + 1);
  return false;
}

/// A run of an index tensor at which x is known: the constant `value` (a
/// TypedAttr of x's element type), over the elements of `extent` (a 1-D
/// tensor of the run's length).
struct Piece {
  TypedAttr value;
  Value extent;
};

/// The constant c of `x == c` (or `c == x`) as the mask `mask`, where the
/// equality leaves one possible value: integers, or floats with c neither
/// zero (-0.0 == 0.0) nor NaN.
TypedAttr selectedValue(Value x, Value mask) {
  Value lhs, rhs;
  if (auto cmp = mask.getDefiningOp<arith::CmpIOp>()) {
    if (cmp.getPredicate() != arith::CmpIPredicate::eq)
      return {};
    lhs = cmp.getLhs();
    rhs = cmp.getRhs();
  } else if (auto cmp = mask.getDefiningOp<arith::CmpFOp>()) {
    // Ordered only: `ueq` also selects NaN.
    if (cmp.getPredicate() != arith::CmpFPredicate::OEQ)
      return {};
    lhs = cmp.getLhs();
    rhs = cmp.getRhs();
  } else {
    return {};
  }
  if (rhs == x)
    std::swap(lhs, rhs);
  DenseElementsAttr splat;
  if (lhs != x || !matchPattern(rhs, m_Constant(&splat)) || !splat.isSplat())
    return {};
  Attribute c = splat.getSplatValue<Attribute>();
  if (auto f = dyn_cast<FloatAttr>(c))
    if (f.getValue().isZero() || f.getValue().isNaN())
      return {};
  return dyn_cast<TypedAttr>(c);
}

FailureOr<SmallVector<Piece>> piecesAt(Value x, Value idx, int depth);

/// For a gather J[T] (1-D, every position of T in [0, len J)): the pieces
/// of x at J, which T then reads.
FailureOr<SmallVector<Piece>> piecesGathered(Value x, GatherOp gather,
                                             int depth) {
  Value j = gather.getSource(), t = gather.getIndices();
  if (gather.getBatchDims() != 0 || !isVector(j) || !isVector(t) ||
      !inRange(t, lengthOf(j)))
    return failure();
  FailureOr<SmallVector<Piece>> inner = piecesAt(x, j, depth + 1);
  if (failed(inner) || inner->empty())
    return failure();
  return inner;
}

/// The value every piece holds, or null when they differ.
TypedAttr commonValue(ArrayRef<Piece> pieces) {
  for (const Piece &p : pieces)
    if (p.value != pieces.front().value)
      return {};
  return pieces.front().value;
}

FailureOr<SmallVector<Piece>> piecesAt(Value x, Value idx, int depth) {
  if (depth >= kMaxDepth || !isVector(idx))
    return failure();
  Operation *def = idx.getDefiningOp();
  if (!def)
    return failure();
  if (auto nonzero = dyn_cast<NonzeroOp>(def)) {
    if (!isVector(nonzero.getInput()))
      return failure();
    if (TypedAttr c = selectedValue(x, nonzero.getInput()))
      return SmallVector<Piece>{{c, idx}};
    return failure();
  }
  if (auto gather = dyn_cast<GatherOp>(def)) {
    // Pieces with different values become one select (at the top only).
    FailureOr<SmallVector<Piece>> inner = piecesGathered(x, gather, depth);
    TypedAttr c = succeeded(inner) ? commonValue(*inner) : TypedAttr();
    if (!c)
      return failure();
    // J[T] is as long as T, which does not keep the gather alive.
    return SmallVector<Piece>{{c, gather.getIndices()}};
  }
  if (auto concat = dyn_cast<tensor::ConcatOp>(def)) {
    if (concat.getDim() != 0)
      return failure();
    SmallVector<Piece> all;
    for (Value piece : concat.getInputs()) {
      FailureOr<SmallVector<Piece>> p = piecesAt(x, piece, depth + 1);
      if (failed(p))
        return failure();
      llvm::append_range(all, *p);
    }
    return all;
  }
  Value source;
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def))
    source = slice.getSource();
  else if (auto cast = dyn_cast<tensor::CastOp>(def))
    source = cast.getSource();
  if (!source)
    return failure();
  FailureOr<SmallVector<Piece>> inner = piecesAt(x, source, depth + 1);
  if (failed(inner) || inner->size() != 1)
    return failure();
  return SmallVector<Piece>{{inner->front().value, idx}};
}

/// 1-D tensors shaped like `like` filled with scalars (one tensor.dim for
/// all of them).
struct Splats {
  Splats(OpBuilder &b, Location loc, Value like)
      : type(cast<RankedTensorType>(like.getType())) {
    if (type.isDynamicDim(0))
      dynamic.push_back(tensor::DimOp::create(b, loc, like, 0));
  }
  Value of(OpBuilder &b, Location loc, Value v) const {
    return tensor::SplatOp::create(
        b, loc, RankedTensorType(type).clone(v.getType()), v, dynamic);
  }
  Value of(OpBuilder &b, Location loc, TypedAttr c) const {
    return of(b, loc, arith::ConstantOp::create(b, loc, c));
  }

  RankedTensorType type;
  SmallVector<Value, 1> dynamic;
};

/// x[idx] where `idx` is a gather J[T] of pieces with different values:
/// select(T < end_1, c_1, select(T < end_2, c_2, ... c_last)), end_i the
/// sum of the first i pieces' lengths.
Value selectPieces(OpBuilder &b, Location loc, ArrayRef<Piece> pieces,
                   Value t) {
  SmallVector<Value> ends;
  Value end;
  for (const Piece &p : pieces.drop_back()) {
    Value len = tensor::DimOp::create(b, loc, p.extent, 0);
    end = end ? arith::AddIOp::create(b, loc, end, len).getResult() : len;
    ends.push_back(end);
  }
  Splats splats(b, loc, t);
  Value result = splats.of(b, loc, pieces.back().value);
  for (int64_t i = static_cast<int64_t>(ends.size()) - 1; i >= 0; --i) {
    Value bound = splats.of(
        b, loc, arith::IndexCastOp::create(b, loc, b.getI64Type(), ends[i]));
    Value below =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, t, bound);
    result = arith::SelectOp::create(
        b, loc, below, splats.of(b, loc, pieces[i].value), result);
  }
  return result;
}

/// sift.gather %x[%idx] (1-D x) whose indices select where x == c: the
/// values are known without reading x (see the file comment).
struct GatherOfSelectedValues : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getSource(), idx = op.getIndices();
    if (op.getBatchDims() != 0 || !isVector(x) || !isVector(idx))
      return failure();
    Location loc = op.getLoc();
    Value known;
    if (auto gather = idx.getDefiningOp<GatherOp>()) {
      // J[T]: c where every piece of J holds c, else (positives and
      // negatives concatenated, then shuffled) a select on T.
      FailureOr<SmallVector<Piece>> inner = piecesGathered(x, gather, 0);
      if (failed(inner))
        return failure();
      if (TypedAttr c = commonValue(*inner))
        known = Splats(rewriter, loc, idx).of(rewriter, loc, c);
      else
        known = selectPieces(rewriter, loc, *inner, gather.getIndices());
    } else {
      FailureOr<SmallVector<Piece>> pieces = piecesAt(x, idx, 0);
      if (failed(pieces) || pieces->size() != 1)
        return failure();
      known =
          Splats(rewriter, loc, idx).of(rewriter, loc, pieces->front().value);
    }
    if (known.getType() != op.getType())
      known = tensor::CastOp::create(rewriter, loc, op.getType(), known);
    rewriter.replaceOp(op, known);
    return success();
  }
};

} // namespace

void GatherOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *ctx) {
  results.add<GatherOfSelectedValues>(ctx);
}
