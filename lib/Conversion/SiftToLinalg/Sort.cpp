//===- Sort.cpp - Lowering of the sift sorting ops --------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// `sort`, `argsort`, `topk` and `unique` share one algorithm: every element
// becomes an unsigned key whose order is the dialect's total order (see
// `toSortKey`), and a stable LSD radix argsort (8 or 11-bit digits) sorts
// each line along the axis with its indices as payload. Descending order
// inverts the key, which keeps equal values in input order. Lines are
// independent.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils/CodegenUtils.h"
#include "Utils/LineLoop.h"
#include "Utils/RadixSort.h"
#include "Utils/RuntimeChecks.h"

#include "sift/Runtime/SiftRuntime.h"

#include "sift/Dialect/Sift/IR/SiftOps.h"

#include <type_traits>

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::lowering;

namespace {

/// The key of element `i` of a line, `x`: its sort key, or, at and past
/// `valid` (an index; null: every element is valid), the largest key, which
/// ranks it after every valid element (the sorts are stable, so after a
/// valid element with the largest key too).
static Value lineKey(OpBuilder &b, Location loc, Value x, Value i,
                     const SortKeyInfo &info, bool descending, Value valid) {
  Value key = toSortKey(b, loc, x, info, descending);
  if (!valid)
    return key;
  Value inPrefix =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, valid);
  Value last = constInt(
      b, loc, key.getType(),
      static_cast<int64_t>(llvm::maskTrailingOnes<uint64_t>(info.sortBits)));
  return arith::SelectOp::create(b, loc, inPrefix, key, last);
}

/// The stable permutation that sorts a 1-D `line`, as i64 indices; the
/// elements at and past `valid` (when given) rank last, in index order.
static Value argsortLine(OpBuilder &b, Location loc, Value line,
                         const SortKeyInfo &info, bool descending,
                         Value valid = {}) {
  Value n = dimValue(b, loc, line, 0);
  Value keys = mapLine(b, loc, line, b.getIntegerType(info.keyBits),
                       [&](OpBuilder &b, Location loc, Value x, Value i) {
                         return lineKey(b, loc, x, i, info, descending, valid);
                       });
  return radixArgsort(b, loc, keys, n, info.sortBits).second;
}

/// How many elements of a line of length `n` a selection of `k` of them
/// reads when only the first `valid` rank by value: all of them without
/// `valid`; else the valid prefix, or the first k when it is shorter (the
/// rest of the line never ranks among the k).
static Value selectionLength(OpBuilder &b, Location loc, Value n, Value k,
                             Value valid) {
  if (!valid)
    return n;
  return arith::MaxUIOp::create(b, loc, valid, k);
}

/// Whether a collection pass over keys in index order takes `key`, given the
/// k-th key `threshold`, how many keys equal to it were `seen` and how many
/// of them are `need`ed: (take, key == threshold).
static std::pair<Value, Value> takeKey(OpBuilder &b, Location loc, Value key,
                                       Value threshold, Value seen,
                                       Value need) {
  Value below =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, key, threshold);
  Value equal =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, key, threshold);
  Value room =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, seen, need);
  Value take = arith::OrIOp::create(b, loc, below,
                                    arith::AndIOp::create(b, loc, equal, room));
  return {take, equal};
}

/// The next output slot and count of keys equal to the threshold after a
/// `takeKey` step.
static std::pair<Value, Value> advance(OpBuilder &b, Location loc, Value take,
                                       Value equal, Value at, Value seen) {
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  Type i64 = b.getI64Type();
  Value next = arith::AddIOp::create(
      b, loc, at, arith::SelectOp::create(b, loc, take, c1, c0));
  Value count = arith::AddIOp::create(
      b, loc, seen,
      arith::SelectOp::create(b, loc, equal, constInt(b, loc, i64, 1),
                              constInt(b, loc, i64, 0)));
  return {next, count};
}

static Value permuteLine(OpBuilder &b, Location loc, Value line, Value perm);

/// Position `pos` (i32 or i64) as an index.
static Value positionIndex(OpBuilder &b, Location loc, Value pos) {
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), pos);
}

/// The `line` values and the positions (as i64) of `positions`, a 1-D
/// tensor of positions in `line` (i32 or i64).
static std::pair<Value, Value> atPositions(OpBuilder &b, Location loc,
                                           Value line, Value positions) {
  Type i64 = b.getI64Type();
  Type elementType = cast<RankedTensorType>(line.getType()).getElementType();
  Value values =
      mapLine(b, loc, positions, elementType,
              [&](OpBuilder &b, Location loc, Value pos, Value) -> Value {
                return tensor::ExtractOp::create(
                    b, loc, line, ValueRange{positionIndex(b, loc, pos)});
              });
  Value indices = positions;
  if (cast<RankedTensorType>(positions.getType()).getElementType() != i64)
    indices = mapLine(b, loc, positions, i64,
                      [&](OpBuilder &b, Location loc, Value pos, Value) {
                        return Value(arith::ExtUIOp::create(b, loc, i64, pos));
                      });
  return {values, indices};
}

/// The values and indices (i64) of the `k` smallest keys of a 1-D `line`
/// (0 < k < n): with `sorted`, in stable sorted order (the same as the
/// first k of `argsortLine`); without, those with a digit below the split's
/// in index order, then the rest in index order. With a `limit` (an index
/// in [0, k]), only the first max(limit, 1) of them are selected and
/// sorted: the lanes past those hold the first element (the caller pads
/// them). A radix split on the most
/// significant digit in which the keys differ; one pass that puts the positions
/// of the keys with a smaller digit into the result and those with the k-th
/// key's digit into a candidate list; a radix selection among the candidates
/// and a pass over them that adds the keys below its threshold and the first of
/// those equal to it; a stable radix sort of the k keys. Keys equal to each
/// other have the same digit, so they stay in index order up to the sort, which
/// keeps it.
///
/// The passes move positions only, as i32 where every position fits (a
/// static line length below 2^31): a key is read again from the line where
/// it is needed, and the positions kept are increasing, so those reads go
/// forward through the line. The partition pass over all n elements then
/// stores 8 bytes an element instead of 24 (a key and an i64 position,
/// twice), and keeps few enough values live that its loop does not spill.
static std::pair<Value, Value> selectLine(OpBuilder &b, Location loc,
                                          Value line, int64_t k,
                                          const SortKeyInfo &info,
                                          bool descending, Value valid,
                                          bool sorted, Value limit) {
  Type keyType = b.getIntegerType(info.keyBits), i64 = b.getI64Type();
  // How many are selected: k, or the limit (at least one, so that the
  // selection's steps need no case of their own for none).
  Value kIndex = constIndex(b, loc, k);
  if (limit)
    kIndex = arith::MaxUIOp::create(b, loc, limit, constIndex(b, loc, 1));
  Value kValue = arith::IndexCastUIOp::create(b, loc, i64, kIndex);
  // The buffers are sized by the line (`lineLength`); the passes read the
  // first `n` elements.
  Value lineLength = dimValue(b, loc, line, 0);
  Value n = selectionLength(b, loc, lineLength, kIndex, valid);
  Type posType =
      positionType(b, cast<RankedTensorType>(line.getType()).getDimSize(0));
  auto keyAt = [&](OpBuilder &b, Location loc, Value i) -> Value {
    Value x = tensor::ExtractOp::create(b, loc, line, i);
    return lineKey(b, loc, x, i, info, descending, valid);
  };
  auto toPos = [&](OpBuilder &b, Location loc, Value i) -> Value {
    return arith::IndexCastUIOp::create(b, loc, posType, i);
  };
  RadixSplit split =
      radixSplit(b, loc, keyType, n, kValue, info.sortBits, keyAt);

  // Positions go to k + 1 result slots and to candidate slots: the last
  // slot of each takes the writes of the elements not kept there. The
  // count candidates are at most n, so n + 1 candidate slots (and n for the
  // selection among them) are enough: buffers of a size known when the line
  // length is, which a GPU kernel can take from a host-allocated buffer
  // instead of allocating them (count is known only at run time).
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  Value zero64 = constInt(b, loc, i64, 0);
  Value digitMask = constInt(b, loc, keyType, 255);
  OpFoldResult slots = b.getIndexAttr(k + 1);
  Value m = i64ToIndex(b, loc, split.count);
  OpFoldResult nSize = getAsOpFoldResult(lineLength);
  OpFoldResult candSlots = getAsOpFoldResult(
      arith::AddIOp::create(b, loc, lineLength, c1).getResult());
  if (std::optional<int64_t> staticN = getConstantIntValue(nSize))
    candSlots = b.getIndexAttr(*staticN + 1);
  auto partition = scf::ForOp::create(
      b, loc, c0, n, c1,
      ValueRange{emptyTensor(b, loc, {slots}, posType),
                 emptyTensor(b, loc, {candSlots}, posType), c0, c0},
      [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
        Value key = keyAt(b, loc, i);
        Value d = arith::AndIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, key, split.shift),
            digitMask);
        Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            d, split.digit);
        Value equal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d,
                                            split.digit);
        Value pos = toPos(b, loc, i);
        Value p = it[2], q = it[3];
        Value kept = tensor::InsertOp::create(b, loc, pos, it[0], p);
        Value cand = tensor::InsertOp::create(b, loc, pos, it[1], q);
        p = arith::AddIOp::create(
            b, loc, p, arith::SelectOp::create(b, loc, below, c1, c0));
        q = arith::AddIOp::create(
            b, loc, q, arith::SelectOp::create(b, loc, equal, c1, c0));
        scf::YieldOp::create(b, loc, ValueRange{kept, cand, p, q});
      });
  Value candPos = partition.getResult(1);
  auto candKeyAt = [&](OpBuilder &b, Location loc, Value j) -> Value {
    return keyAt(
        b, loc,
        positionIndex(b, loc, tensor::ExtractOp::create(b, loc, candPos, j)));
  };

  // The remaining k - below keys from the candidates, in index order.
  auto [threshold, need] = radixSelect(
      b, loc, keyType, m, arith::SubIOp::create(b, loc, kValue, split.below),
      info.sortBits, candKeyAt, nSize);
  auto collect = scf::ForOp::create(
      b, loc, c0, m, c1,
      ValueRange{partition.getResult(0), i64ToIndex(b, loc, split.below),
                 zero64},
      [&](OpBuilder &b, Location loc, Value j, ValueRange it) {
        Value pos = tensor::ExtractOp::create(b, loc, candPos, j);
        Value key = keyAt(b, loc, positionIndex(b, loc, pos));
        auto [take, equal] = takeKey(b, loc, key, threshold, it[2], need);
        Value at = it[1];
        Value kept = tensor::InsertOp::create(b, loc, pos, it[0], at);
        auto [next, seen] = advance(b, loc, take, equal, at, it[2]);
        scf::YieldOp::create(b, loc, ValueRange{kept, next, seen});
      });
  Value selSlots = collect.getResult(0);
  // Below a limit, the slots past the selected ones were never written:
  // they take the first element's position, as stores (a masked load of
  // memory never written is a microcode assist a vector).
  if (limit) {
    Value zero = constInt(b, loc, posType, 0);
    selSlots =
        scf::ForOp::create(
            b, loc, kIndex, constIndex(b, loc, k), c1, ValueRange{selSlots},
            [&](OpBuilder &b, Location loc, Value j, ValueRange it) {
              scf::YieldOp::create(
                  b, loc,
                  ValueRange{tensor::InsertOp::create(b, loc, zero, it[0], j)});
            })
            .getResult(0);
  }
  Value selPos = firstElements(b, loc, selSlots, k);
  if (!sorted)
    return atPositions(b, loc, line, selPos);
  // The k keys, read again at their (increasing) positions, in a buffer of
  // their own: a radix sort of k keys in a plain buffer is the routine a
  // sift.argsort of k keys runs (one function for both; see
  // --sift-outline-lines).
  Value selKeys = mapLine(b, loc, selPos, keyType,
                          [&](OpBuilder &b, Location loc, Value pos, Value) {
                            return keyAt(b, loc, positionIndex(b, loc, pos));
                          });
  // Ties are in index order, and the sort is stable. Only the selected
  // keys are sorted: below a limit, the permutation has that many lanes,
  // and the lanes past it take the first key's.
  Value perm = radixArgsort(b, loc, selKeys, kIndex, info.sortBits).second;
  if (limit) {
    Value lanes =
        linalg::FillOp::create(b, loc, constInt(b, loc, i64, 0),
                               emptyTensor(b, loc, {b.getIndexAttr(k)}, i64))
            .getResult(0);
    SmallVector<OpFoldResult> offsets{b.getIndexAttr(0)},
        sizes{getAsOpFoldResult(kIndex)}, strides{b.getIndexAttr(1)};
    perm = tensor::InsertSliceOp::create(
        b, loc,
        tensor::ExtractSliceOp::create(b, loc, perm, offsets, sizes, strides),
        lanes, offsets, sizes, strides);
  }
  return atPositions(b, loc, line, permuteLine(b, loc, selPos, perm));
}

/// The `values` and `indices` of a top-k line past its first `limit`
/// (an index in [0, k]): zeros and -1, the padding of `sift.topk limit`.
static SmallVector<Value> padPastLimit(OpBuilder &b, Location loc, Value values,
                                       Value indices, Value limit) {
  auto pad = [&](Value line, TypedAttr padding) {
    return mapLine(
        b, loc, line, padding.getType(),
        [&](OpBuilder &b, Location loc, Value x, Value j) {
          Value kept = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             j, limit);
          return Value(arith::SelectOp::create(
              b, loc, kept, x, arith::ConstantOp::create(b, loc, padding)));
        });
  };
  Type elementType = cast<RankedTensorType>(values.getType()).getElementType();
  return {pad(values, b.getZeroAttr(elementType)),
          pad(indices, b.getI64IntegerAttr(-1))};
}

/// `line[perm[i]]` for every i.
static Value permuteLine(OpBuilder &b, Location loc, Value line, Value perm) {
  Type elementType = cast<RankedTensorType>(line.getType()).getElementType();
  return mapLine(b, loc, perm, elementType,
                 [&](OpBuilder &b, Location loc, Value p, Value) {
                   return Value(tensor::ExtractOp::create(
                       b, loc, line, ValueRange{i64ToIndex(b, loc, p)}));
                 });
}

/// The key layout of the element type of `op`'s `input` (ordered as
/// unsigned with `isUnsigned`), or a match failure with the reason.
static FailureOr<SortKeyInfo> matchSortKey(PatternRewriter &rewriter,
                                           Operation *op, Value input,
                                           bool isUnsigned = false) {
  Type elementType = cast<RankedTensorType>(input.getType()).getElementType();
  FailureOr<SortKeyInfo> info = getSortKeyInfo(elementType, isUnsigned);
  if (failed(info))
    return unsupportedElementType(rewriter, op, elementType);
  return info;
}

/// The prologue of the sort, argsort and topk patterns, validated once: the
/// input, the axis of its lines and the key layout of its element type.
struct SortedLines {
  Value input;
  RankedTensorType type;
  int64_t axis;
  SortKeyInfo info;

  /// The lines of `op`, or a match failure (with the reason) when its
  /// element type has no sort key.
  template <typename OpTy>
  static FailureOr<SortedLines> match(PatternRewriter &rewriter, OpTy op) {
    bool isUnsigned = false;
    if constexpr (!std::is_same_v<OpTy, SortOp>)
      isUnsigned = op.getIsUnsigned();
    FailureOr<SortKeyInfo> info =
        matchSortKey(rewriter, op, op.getInput(), isUnsigned);
    if (failed(info))
      return failure();
    return SortedLines{op.getInput(),
                       cast<RankedTensorType>(op.getInput().getType()),
                       op.getAxis(), *info};
  }

  Type elementType() const { return type.getElementType(); }
  /// The static length of a line (ShapedType::kDynamic when dynamic).
  int64_t staticLength() const { return type.getDimSize(axis); }
  /// The length of a line (a `tensor.dim` when dynamic).
  OpFoldResult length(OpBuilder &b, Location loc) const {
    return tensor::getMixedSize(b, loc, input, axis);
  }
  /// `buildLineLoop` over the lines.
  SmallVector<Value> forEachLine(OpBuilder &b, Location loc,
                                 ArrayRef<LineResult> results,
                                 LineBodyFn body) const {
    return buildLineLoop(b, loc, input, axis, results, body);
  }
};

struct SortLowering : OpRewritePattern<SortOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SortOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<SortedLines> lines = SortedLines::match(rewriter, op);
    if (failed(lines))
      return failure();
    Location loc = op.getLoc();
    const SortKeyInfo &info = lines->info;
    bool descending = op.getDescending();
    OpFoldResult n = lines->length(rewriter, loc);
    SmallVector<Value> results = lines->forEachLine(
        rewriter, loc, {{lines->elementType(), n}, {rewriter.getI64Type(), n}},
        [&](OpBuilder &b, Location loc, ValueRange line, Value) {
          Value perm = argsortLine(b, loc, line[0], info, descending);
          return SmallVector<Value>{permuteLine(b, loc, line[0], perm), perm};
        });
    replaceOpWithCasts(rewriter, op, results);
    return success();
  }
};

struct ArgsortLowering : OpRewritePattern<ArgsortOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ArgsortOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<SortedLines> lines = SortedLines::match(rewriter, op);
    if (failed(lines))
      return failure();
    Location loc = op.getLoc();
    const SortKeyInfo &info = lines->info;
    bool descending = op.getDescending();
    OpFoldResult n = lines->length(rewriter, loc);
    SmallVector<Value> results = lines->forEachLine(
        rewriter, loc, {{rewriter.getI64Type(), n}},
        [&](OpBuilder &b, Location loc, ValueRange line, Value) {
          return SmallVector<Value>{
              argsortLine(b, loc, line[0], info, descending)};
        });
    replaceOpWithCasts(rewriter, op, results);
    return success();
  }
};

/// The first `k` of the sorting permutation `perm` of a `line` whose dynamic
/// length may be below `k`, and the values they index: the lanes past the
/// line's end are zeros (never read out of bounds).
static SmallVector<Value> firstOfShortLine(OpBuilder &b, Location loc,
                                           Value line, Value perm, int64_t k) {
  Value size = dimValue(b, loc, line, 0);
  Type elementType = cast<RankedTensorType>(line.getType()).getElementType();
  Value kValue = constIndex(b, loc, k);
  auto inLine = [&](OpBuilder &b, Location loc, Value i) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, size);
  };
  Value best = generateLine(
      b, loc, kValue, b.getI64Type(), [&](OpBuilder &b, Location loc, Value i) {
        return ifThenElse(
            b, loc, inLine(b, loc, i),
            [&](OpBuilder &b, Location loc) {
              return Value(tensor::ExtractOp::create(b, loc, perm, i));
            },
            constInt(b, loc, b.getI64Type(), 0));
      });
  Value values = generateLine(
      b, loc, kValue, elementType, [&](OpBuilder &b, Location loc, Value i) {
        return ifThenElse(
            b, loc, inLine(b, loc, i),
            [&](OpBuilder &b, Location loc) {
              Value p = tensor::ExtractOp::create(b, loc, best, i);
              return Value(tensor::ExtractOp::create(
                  b, loc, line, ValueRange{i64ToIndex(b, loc, p)}));
            },
            arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType)));
      });
  return {castTo(b, loc, values, RankedTensorType::get({k}, elementType)),
          castTo(b, loc, best, RankedTensorType::get({k}, b.getI64Type()))};
}

struct TopkLowering : OpRewritePattern<TopkOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TopkOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<SortedLines> lines = SortedLines::match(rewriter, op);
    if (failed(lines))
      return failure();
    Location loc = op.getLoc();
    const SortKeyInfo &info = lines->info;
    int64_t k = static_cast<int64_t>(op.getK());
    // Largest first is a stable descending sort: ties keep the lower index
    // first, NaN (the largest key) comes first. With `unsorted`, a selection
    // returns the chosen elements in index order (no final sort); a full
    // sort (k = n, dynamic n) returns them sorted.
    bool descending = !op.getSmallest();
    OpFoldResult kSize = rewriter.getIndexAttr(k);
    // k = 0: empty results, no line read (nor sorted).
    if (k == 0) {
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, op.getInput());
      sizes[lines->axis] = kSize;
      replaceOpWithCasts(
          rewriter, op,
          {tensor::EmptyOp::create(rewriter, loc, sizes, lines->elementType()),
           tensor::EmptyOp::create(rewriter, loc, sizes,
                                   rewriter.getI64Type())});
      return success();
    }
    // With 0 < k < n, select the k best and sort only those; otherwise sort
    // the whole line.
    int64_t n = lines->staticLength();
    bool select = !ShapedType::isDynamic(n) && k > 0 && k < n;
    // A dynamic extent may be smaller than k: a run-time error, and the
    // lanes past the extent are zeros (never read out of bounds).
    bool guard = ShapedType::isDynamic(n);
    if (guard) {
      if (failed(declareRuntimeReport(rewriter, op)))
        return failure();
      Value size = dimValue(rewriter, loc, lines->input, lines->axis);
      Value kValue = constIndex(rewriter, loc, k);
      emitRuntimeCheck(rewriter, loc,
                       arith::CmpIOp::create(rewriter, loc,
                                             arith::CmpIPredicate::ugt, kValue,
                                             size),
                       SIFT_RT_ERROR_TOPK_K_EXCEEDS_SIZE, {kValue, size});
    }
    // `valid`: one length for every line, or the lines' lengths flattened
    // in the line loop's order.
    Value valid = op.getValid(), limit = op.getLimit();
    if (valid && isa<RankedTensorType>(valid.getType()))
      valid = flatten(rewriter, loc, valid);
    if (limit && isa<RankedTensorType>(limit.getType()))
      limit = flatten(rewriter, loc, limit);
    // A line's `length` (valid or limit): the one of every line, or its own,
    // clamped to [0, upper].
    auto lineLength = [](OpBuilder &b, Location loc, Value length,
                         Value lineNumber, Value upper) -> Value {
      if (!length)
        return length;
      if (isa<RankedTensorType>(length.getType()))
        length = tensor::ExtractOp::create(b, loc, length, lineNumber);
      length = arith::MaxSIOp::create(b, loc, length, constIndex(b, loc, 0));
      return arith::MinSIOp::create(b, loc, length, upper);
    };
    SmallVector<Value> results = lines->forEachLine(
        rewriter, loc,
        {{lines->elementType(), kSize}, {rewriter.getI64Type(), kSize}},
        [&](OpBuilder &b, Location loc, ValueRange line, Value lineNumber) {
          Value lineValid = lineLength(b, loc, valid, lineNumber,
                                       dimValue(b, loc, line[0], 0));
          Value lineLimit =
              lineLength(b, loc, limit, lineNumber, constIndex(b, loc, k));
          SmallVector<Value> best;
          if (select) {
            // One routine per input type, k and order, shared by every
            // top-k of them.
            best = buildOutlinable(
                b, loc, "topk", [&](OpBuilder &b, Location loc) {
                  auto [values, indices] = selectLine(
                      b, loc, line[0], k, info, descending, lineValid,
                      /*sorted=*/!op.getUnsorted(), lineLimit);
                  return SmallVector<Value>{values, indices};
                });
          } else {
            Value perm =
                argsortLine(b, loc, line[0], info, descending, lineValid);
            if (guard) {
              best = firstOfShortLine(b, loc, line[0], perm, k);
            } else {
              Value first = firstElements(b, loc, perm, k);
              best = {permuteLine(b, loc, line[0], first), first};
            }
          }
          if (!lineLimit)
            return best;
          return padPastLimit(b, loc, best[0], best[1], lineLimit);
        });
    replaceOpWithCasts(rewriter, op, results);
    return success();
  }
};

/// unique = sort + adjacent difference + compaction, in one sequential scan
/// over the sorted keys (equal keys are equal values, NaNs included).
struct UniqueLowering : OpRewritePattern<UniqueOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(UniqueOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<SortKeyInfo> info = matchSortKey(rewriter, op, op.getInput());
    if (failed(info))
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i64 = b.getI64Type();
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    Type elementType = inType.getElementType();
    Value flat = flatten(b, loc, op.getInput());
    if (inType.hasStaticShape() && inType.getNumElements() == 0) {
      // Statically empty: empty results (a slice of a 0-sized tensor does
      // not verify).
      SmallVector<Value> results;
      for (Value result : op->getResults()) {
        auto type = cast<RankedTensorType>(result.getType());
        SmallVector<int64_t> shape = llvm::to_vector(type.getShape());
        for (int64_t &size : shape)
          if (ShapedType::isDynamic(size))
            size = 0;
        results.push_back(castTo(
            b, loc,
            tensor::EmptyOp::create(b, loc, shape, type.getElementType()),
            type));
      }
      rewriter.replaceOp(op, results);
      return success();
    }
    Value n = dimValue(b, loc, flat, 0);
    OpFoldResult nSize = getAsOpFoldResult(n);
    Value keys = mapLine(b, loc, flat, b.getIntegerType(info->keyBits),
                         [&](OpBuilder &b, Location loc, Value x, Value) {
                           return toSortKey(b, loc, x, *info, false);
                         });
    auto [sortedKeys, perm] =
        radixArgsort(b, loc, keys, n, info->sortBits, /*withKeys=*/true);

    Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
    Value zero64 = constInt(b, loc, i64, 0), one64 = constInt(b, loc, i64, 1);
    Value values0 = emptyTensor(b, loc, {nSize}, elementType);
    Value counts0 = emptyTensor(b, loc, {nSize}, i64);
    Value inverse0 = emptyTensor(b, loc, {nSize}, i64);
    auto scan = scf::ForOp::create(
        b, loc, c0, n, c1,
        ValueRange{values0, counts0, inverse0, constInt(b, loc, i64, -1)},
        [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
          Value isFirst =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, i, c0);
          Value prevI = arith::SelectOp::create(
              b, loc, isFirst, c0, arith::SubIOp::create(b, loc, i, c1));
          Value key = tensor::ExtractOp::create(b, loc, sortedKeys, i);
          Value prev = tensor::ExtractOp::create(b, loc, sortedKeys, prevI);
          Value differs = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ne, key, prev);
          Value newGroup = arith::OrIOp::create(b, loc, isFirst, differs);
          Value group = arith::AddIOp::create(
              b, loc, it[3], arith::ExtUIOp::create(b, loc, i64, newGroup));
          Value g = i64ToIndex(b, loc, group);
          Value p = i64ToIndex(
              b, loc, tensor::ExtractOp::create(b, loc, perm, ValueRange{i}));
          // The value of a group is its first element in sorted order.
          Value v = tensor::ExtractOp::create(b, loc, flat, ValueRange{p});
          Value oldV = tensor::ExtractOp::create(b, loc, it[0], ValueRange{g});
          Value values = tensor::InsertOp::create(
              b, loc, arith::SelectOp::create(b, loc, newGroup, v, oldV), it[0],
              ValueRange{g});
          Value oldC = tensor::ExtractOp::create(b, loc, it[1], ValueRange{g});
          Value c = arith::AddIOp::create(
              b, loc, arith::SelectOp::create(b, loc, newGroup, zero64, oldC),
              one64);
          Value counts = tensor::InsertOp::create(b, loc, c, it[1], g);
          Value inverse = tensor::InsertOp::create(b, loc, group, it[2], p);
          scf::YieldOp::create(b, loc,
                               ValueRange{values, counts, inverse, group});
        });
    Value numUnique = i64ToIndex(
        b, loc, arith::AddIOp::create(b, loc, scan.getResult(3), one64));
    auto prefix = [&](Value full) -> Value {
      Type elt = cast<RankedTensorType>(full.getType()).getElementType();
      return tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get({ShapedType::kDynamic}, elt), full,
          ArrayRef<OpFoldResult>{b.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{getAsOpFoldResult(numUnique)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    };
    SmallVector<Value> results = {
        castTo(b, loc, prefix(scan.getResult(0)), op.getValues().getType())};
    if (Value inverse = op.getInverse())
      results.push_back(unflatten(
          b, loc, scan.getResult(2), cast<RankedTensorType>(inverse.getType()),
          tensor::getMixedSizes(b, loc, op.getInput())));
    if (Value counts = op.getCounts())
      results.push_back(
          castTo(b, loc, prefix(scan.getResult(1)), counts.getType()));
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void lowering::populateSortPatterns(RewritePatternSet &patterns) {
  patterns.add<SortLowering, ArgsortLowering, TopkLowering, UniqueLowering>(
      patterns.getContext());
}
