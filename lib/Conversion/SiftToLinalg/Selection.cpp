//===- Selection.cpp - Lowering of counting and selection ops ---*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// `count` is a `linalg.generic` reduction and `gather` a `linalg.generic`
// over its result, or a parallel loop of row copies when whole rows are
// gathered. The scans (`cumsum`, `compact`, `sample_balanced`) run
// sequentially inside each line; lines are independent. The data-dependent
// ops (`nonzero`, `masked_select`) count first, allocate the exact result,
// then fill it in one sequential pass in row-major order.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils/CodegenUtils.h"
#include "Utils/LineLoop.h"
#include "Utils/Philox.h"
#include "Utils/RadixSort.h"
#include "Utils/RuntimeChecks.h"

#include "sift/Dialect/Sift/IR/SiftOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/Dominance.h"

#include <cmath>

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::lowering;

namespace {

/// Number of non-zero elements of a 1-D tensor, as an index.
static Value countNonZero(OpBuilder &b, Location loc, Value flat) {
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  Value n = dimValue(b, loc, flat, 0);
  auto loop = scf::ForOp::create(
      b, loc, c0, n, c1, ValueRange{c0},
      [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
        Value x = tensor::ExtractOp::create(b, loc, flat, ValueRange{i});
        Value add = arith::SelectOp::create(b, loc, isNonZero(b, loc, x), c1,
                                            constIndex(b, loc, 0));
        scf::YieldOp::create(
            b, loc, ValueRange{arith::AddIOp::create(b, loc, it[0], add)});
      });
  return loop.getResult(0);
}

/// A tensor flattened in row-major order, its number of elements and how
/// many of them are non-zero (indices).
struct FlatCount {
  Value flat, size, count;
};

/// The prologue of the selection patterns: the tensor they scan (the input,
/// the mask or the labels), its type and the axis of its lines (the last
/// one unless the op names one).
struct Scanned {
  Value tensor;
  RankedTensorType type;
  int64_t axis;

  explicit Scanned(Value tensor, std::optional<int64_t> axis = std::nullopt)
      : tensor(tensor), type(cast<RankedTensorType>(tensor.getType())),
        axis(axis ? *axis : type.getRank() - 1) {}

  int64_t rank() const { return type.getRank(); }
  Type elementType() const { return type.getElementType(); }
  /// The length of a line (a `tensor.dim` when dynamic).
  OpFoldResult length(OpBuilder &b, Location loc) const {
    return tensor::getMixedSize(b, loc, tensor, axis);
  }
  /// `buildLineLoop` over the lines.
  SmallVector<Value> forEachLine(OpBuilder &b, Location loc,
                                 ArrayRef<LineResult> results,
                                 LineBodyFn body) const {
    return buildLineLoop(b, loc, tensor, axis, results, body);
  }
  /// The tensor flattened, its size and its number of non-zero elements.
  FlatCount flattenAndCount(OpBuilder &b, Location loc) const {
    Value flat = flatten(b, loc, tensor);
    Value size = dimValue(b, loc, flat, 0);
    return {flat, size, countNonZero(b, loc, flat)};
  }
};

struct CountLowering : OpRewritePattern<CountOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CountOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Scanned input(op.getInput());
    int64_t rank = input.rank();
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(b, loc, input.tensor);
    sizes.pop_back();
    Value init = emptyTensor(b, loc, sizes, b.getI64Type(),
                             constInt(b, loc, b.getI64Type(), 0));
    SmallVector<utils::IteratorType> iterators(rank - 1,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    AffineMap inMap = b.getMultiDimIdentityMap(rank);
    // (d0, ..., dR-1) -> (d0, ..., dR-2); getMajorSubMap(0) would be null.
    AffineMap outMap = AffineMap::get(
        rank, 0, inMap.getResults().take_front(rank - 1), b.getContext());
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{init.getType()}, ValueRange{input.tensor},
        ValueRange{init}, ArrayRef<AffineMap>{inMap, outMap}, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value one = arith::ExtUIOp::create(b, loc, b.getI64Type(),
                                             isNonZero(b, loc, args[0]));
          linalg::YieldOp::create(
              b, loc, ValueRange{arith::AddIOp::create(b, loc, args[1], one)});
        });
    replaceOpWithCasts(rewriter, op, generic.getResult(0));
    return success();
  }
};

/// The element-wise code that computes a compaction's mask, which the
/// compaction can run itself, element by element, instead of reading the
/// mask: producers that only the compaction (or another of them) reads,
/// each an `arith` op on tensors of the mask's shape or a
/// `linalg.generic` of `arith` ops over such tensors (identity maps, not
/// reading its init), their operands splat constants, scalars or other
/// such producers, at most `kMaxFusedMaskOps` ops in all. What they read
/// that no producer computes are the leaves: the lines the compaction then
/// reads (at least one; a mask no producer computes is its own leaf).
constexpr int64_t kMaxFusedMaskOps = 16;

/// The element of `value` when it is a splat tensor constant (an element,
/// not a line); null otherwise.
static TypedAttr splatElement(Value value) {
  DenseElementsAttr constant;
  if (!matchPattern(value, m_Constant(&constant)) || !constant.isSplat())
    return {};
  return cast<TypedAttr>(constant.getSplatValue<Attribute>());
}

struct MaskTree {
  /// The producers, the mask's first (each before those it reads).
  SmallVector<Operation *> producers;
  /// The tensors read element by element, in a fixed order.
  llvm::SetVector<Value> leaves;

  explicit MaskTree(Value mask) {
    int64_t numOps = 0;
    if (!collect(mask, cast<ShapedType>(mask.getType()), numOps) ||
        leaves.empty()) {
      producers.clear();
      leaves.clear();
      leaves.insert(mask);
    }
  }

  bool computed() const { return !producers.empty(); }
  bool isProducer(Operation *op) const {
    return llvm::is_contained(producers, op);
  }

  /// Element `i` of `value` (the mask, or a value the producers read),
  /// from the lines of the leaves `lines` (in the order of `leafOrder`).
  Value elementOf(OpBuilder &b, Location loc, Value value, Value i,
                  ArrayRef<Value> leafOrder, ValueRange lines,
                  IRMapping &elements) const {
    if (Value known = elements.lookupOrNull(value))
      return known;
    Value element;
    Operation *def = value.getDefiningOp();
    if (!isa<ShapedType>(value.getType())) {
      element = value;
    } else if (TypedAttr splat = splatElement(value)) {
      element = arith::ConstantOp::create(b, loc, splat);
    } else if (!def || !isProducer(def)) {
      Value line = lines[llvm::find(leafOrder, value) - leafOrder.begin()];
      element = tensor::ExtractOp::create(b, loc, line, i);
    } else if (auto generic = dyn_cast<linalg::GenericOp>(def)) {
      Block &body = generic.getRegion().front();
      IRMapping map;
      for (OpOperand *input : generic.getDpsInputOperands())
        map.map(body.getArgument(input->getOperandNumber()),
                elementOf(b, loc, input->get(), i, leafOrder, lines, elements));
      for (Operation &op : body.without_terminator())
        b.clone(op, map);
      element = map.lookupOrDefault(body.getTerminator()->getOperand(0));
    } else {
      OperationState state(def->getLoc(), def->getName());
      for (Value operand : def->getOperands())
        state.addOperands(
            elementOf(b, loc, operand, i, leafOrder, lines, elements));
      state.addTypes(getElementTypeOrSelf(value.getType()));
      state.addAttributes(def->getAttrs());
      element = b.create(state)->getResult(0);
    }
    elements.map(value, element);
    return element;
  }

private:
  /// Adds what computes `value` (a tensor of type `type`); false when the
  /// code is not one the compaction can run.
  bool collect(Value value, ShapedType type, int64_t &numOps) {
    if (!isa<ShapedType>(value.getType()) || splatElement(value))
      return true;
    // Read by one op alone (a generic that reads it may also name it as
    // its init, which it does not read).
    Operation *def = value.getDefiningOp();
    if (!def || value.use_empty() ||
        llvm::any_of(
            value.getUsers(),
            [&](Operation *user) { return user != *value.user_begin(); }) ||
        def->getNumResults() != 1 ||
        value.getType() != type.clone(getElementTypeOrSelf(value)))
      return leaf(value, type);
    if (auto generic = dyn_cast<linalg::GenericOp>(def)) {
      if (generic.getNumParallelLoops() != generic.getNumLoops() ||
          !generic.getIndexingMapsArray().back().isIdentity() ||
          generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)))
        return leaf(value, type);
      for (OpOperand *input : generic.getDpsInputOperands())
        if (isa<ShapedType>(input->get().getType()) &&
            !splatElement(input->get()) &&
            !generic.getMatchingIndexingMap(input).isIdentity())
          return leaf(value, type);
      Block &body = generic.getRegion().front();
      for (Operation &op : body.without_terminator())
        if (++numOps > kMaxFusedMaskOps || op.getNumRegions() != 0 ||
            !isa<arith::ArithDialect>(op.getDialect()) || !isPure(&op))
          return false;
      producers.push_back(def);
      for (Value input : generic.getDpsInputs())
        if (!collect(input, type, numOps))
          return false;
      return true;
    }
    if (!isa<arith::ArithDialect>(def->getDialect()) ||
        !def->hasTrait<OpTrait::Elementwise>() || !isPure(def))
      return leaf(value, type);
    if (++numOps > kMaxFusedMaskOps)
      return false;
    producers.push_back(def);
    for (Value operand : def->getOperands())
      if (!collect(operand, type, numOps))
        return false;
    return true;
  }

  /// Adds a leaf: a line of the mask's shape (a tensor of another shape
  /// cannot be read a line at a time with the mask's lines).
  bool leaf(Value value, ShapedType type) {
    if (cast<ShapedType>(value.getType()).getShape() != type.getShape())
      return false;
    leaves.insert(value);
    return true;
  }
};

/// A compaction to lower, with the code that computes its mask.
struct CompactionMember {
  CompactOp op;
  MaskTree mask;
};

struct CompactLowering : OpRewritePattern<CompactOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CompactOp op,
                                PatternRewriter &rewriter) const override {
    Operation *insertAt;
    SmallVector<CompactionMember> members = siblings(op, insertAt);
    Location loc = insertAt->getLoc();
    rewriter.setInsertionPoint(insertAt);
    Scanned mask(op.getMask());
    auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
    int64_t k = indicesType.getShape().back();
    Type indexElt = indicesType.getElementType();
    int64_t fill = op.getFill();
    bool unpadded = op.getUnpadded();
    Type i64 = rewriter.getI64Type();
    // The lines the loop reads: every member's leaves, once each.
    llvm::SetVector<Value> inputs;
    for (const CompactionMember &member : members)
      inputs.insert(member.mask.leaves.begin(), member.mask.leaves.end());
    SmallVector<LineResult> lineResults;
    for (size_t m = 0; m < members.size(); ++m) {
      lineResults.push_back({indexElt, rewriter.getIndexAttr(k)});
      lineResults.push_back({i64, OpFoldResult()});
    }
    SmallVector<Value> results = buildLineLoopInPlace(
        rewriter, loc, inputs.getArrayRef(), mask.axis, lineResults,
        [&](OpBuilder &b, Location loc, ValueRange lines, ValueRange outLines,
            Value) {
          // One routine per mask (or the code computing it), length, k and
          // padding, shared by every compaction of them.
          return buildOutlinable(
              b, loc, "compact", [&](OpBuilder &b, Location loc) {
                SmallVector<Value> outs;
                for (size_t m = 0; m < members.size(); ++m)
                  outs.push_back(outLines[2 * m]);
                auto kept = [&](OpBuilder &b, Location loc, Value i) {
                  SmallVector<Value> flags;
                  IRMapping elements;
                  for (CompactionMember &member : members)
                    flags.push_back(isNonZero(
                        b, loc,
                        member.mask.elementOf(b, loc, member.op.getMask(), i,
                                              inputs.getArrayRef(), lines,
                                              elements)));
                  return flags;
                };
                auto [written, counts] = compactLines(
                    b, loc, dimValue(b, loc, lines[0], 0),
                    cast<RankedTensorType>(lines[0].getType()).getDimSize(0),
                    outs, k, kept);
                SmallVector<Value> results;
                for (auto [out, count] : llvm::zip_equal(written, counts)) {
                  // Past the count (including the slot the last untaken
                  // element was written to), the fill; nothing if
                  // unpadded.
                  if (!unpadded) {
                    Value tail = arith::SubIOp::create(
                        b, loc, constIndex(b, loc, k), count);
                    out = fillRange(b, loc, out, count, tail,
                                    constInt(b, loc, indexElt, fill));
                  }
                  results.push_back(out);
                  results.push_back(indexToI64(b, loc, count));
                }
                return results;
              });
        });
    for (auto [m, member] : llvm::enumerate(members))
      replaceOpWithCasts(rewriter, member.op,
                         {results[2 * m], results[2 * m + 1]});
    // Each producer after the one that read it.
    for (const CompactionMember &member : members)
      for (Operation *producer : member.mask.producers)
        rewriter.eraseOp(producer);
    return success();
  }

  /// The compactions lowered with `op` as one loop: `op` alone, unless its
  /// mask is computed (the loop then computes it). Then also the other
  /// compactions of its block whose masks are computed from a line that
  /// `op`'s is computed from (the sampler's `labels == 1` and
  /// `labels == 0`): one pass reads the shared lines for all. Siblings
  /// need results as wide as their lines (a loop that stops when one
  /// result is full cannot run on for the others), the same result type,
  /// padding and mask shape; `insertAt` is where the loop goes. In block
  /// order.
  static SmallVector<CompactionMember> siblings(CompactOp op,
                                                Operation *&insertAt) {
    insertAt = op;
    SmallVector<CompactionMember> members;
    members.push_back({op, MaskTree(op.getMask())});
    auto maskType = cast<RankedTensorType>(op.getMask().getType());
    int64_t length = maskType.getShape().back();
    if (!members.front().mask.computed() || ShapedType::isDynamic(length) ||
        op.getIndices().getType().getShape().back() < length)
      return members;
    llvm::SetVector<Value> leaves = members.front().mask.leaves;
    for (Operation &other : *op->getBlock()) {
      auto sibling = dyn_cast<CompactOp>(other);
      if (!sibling || sibling == op ||
          sibling.getMask().getType() != maskType ||
          sibling.getIndices().getType() != op.getIndices().getType() ||
          sibling.getUnpadded() != op.getUnpadded() ||
          sibling.getFill() != op.getFill())
        continue;
      MaskTree siblingTree(sibling.getMask());
      if (siblingTree.computed() &&
          llvm::any_of(siblingTree.leaves,
                       [&](Value leaf) { return leaves.contains(leaf); }))
        members.push_back({sibling, std::move(siblingTree)});
    }
    if (members.size() == 1)
      return members;
    llvm::sort(members,
               [](const CompactionMember &a, const CompactionMember &b) {
                 return a.op->isBeforeInBlock(b.op);
               });
    // The loop goes where the first of them is when every value the
    // producers read is defined before it, else where the last is when no
    // result is used before that.
    DominanceInfo dominance;
    Operation *first = members.front().op;
    auto definedBeforeFirst = [&](const CompactionMember &member) {
      bool before = true;
      for (Operation *producer : member.mask.producers)
        producer->walk([&](Operation *nested) {
          for (Value value : nested->getOperands())
            if (!member.mask.isProducer(value.getDefiningOp()) &&
                !producer->isAncestor(value.getParentRegion()->getParentOp()) &&
                !dominance.properlyDominates(value, first))
              before = false;
        });
      return before;
    };
    if (llvm::all_of(members, definedBeforeFirst)) {
      insertAt = first;
      return members;
    }
    Operation *last = members.back().op;
    Block *block = op->getBlock();
    for (const CompactionMember &member : members)
      for (Operation *user : member.op->getUsers()) {
        Operation *inBlock = block->findAncestorOpInBlock(*user);
        if (!inBlock || inBlock->isBeforeInBlock(last)) {
          SmallVector<CompactionMember> alone;
          alone.push_back({op, MaskTree(op.getMask())});
          return alone;
        }
      }
    insertAt = last;
    return members;
  }

  /// Writes into each of `outs` (k elements) the positions of the first
  /// `k` elements of a line of `n` (`lineLength` when static) that its
  /// `kept` flag sets, and returns them with their numbers. Branch-free:
  /// every element's position is written at each result's next free slot,
  /// which only a kept element then claims, so a random mask costs no
  /// mispredicted branches. Results as wide as the line cannot fill up
  /// before its end: a counted loop over the line, which LLVM unrolls
  /// (about one cycle an element); a narrower one (a single result) stops
  /// when it is full.
  static std::pair<SmallVector<Value>, SmallVector<Value>> compactLines(
      OpBuilder &b, Location loc, Value n, int64_t lineLength, ValueRange outs,
      int64_t k,
      function_ref<SmallVector<Value>(OpBuilder &, Location, Value)> kept) {
    Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
    Type indexType = b.getIndexType();
    size_t numOuts = outs.size();
    // The results and slots after element `i`.
    auto step = [&](OpBuilder &b, Location loc, ValueRange written,
                    ValueRange slots, Value i) {
      SmallVector<Value> next;
      for (auto [out, slot] : llvm::zip_equal(written, slots)) {
        Type elt = cast<RankedTensorType>(out.getType()).getElementType();
        Value position = arith::IndexCastOp::create(b, loc, elt, i);
        next.push_back(
            tensor::InsertOp::create(b, loc, position, out, ValueRange{slot}));
      }
      SmallVector<Value> flags = kept(b, loc, i);
      for (auto [slot, flag] : llvm::zip_equal(slots, flags))
        next.push_back(arith::AddIOp::create(
            b, loc, slot,
            arith::IndexCastUIOp::create(b, loc, indexType, flag)));
      return next;
    };
    SmallVector<Value> init(outs);
    init.append(numOuts, c0);
    if (!ShapedType::isDynamic(lineLength) && lineLength <= k) {
      auto loop = scf::ForOp::create(
          b, loc, c0, n, c1, init,
          [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
            scf::YieldOp::create(b, loc,
                                 step(b, loc, it.take_front(numOuts),
                                      it.drop_front(numOuts), i));
          });
      return {SmallVector<Value>(loop.getResults().take_front(numOuts)),
              SmallVector<Value>(loop.getResults().drop_front(numOuts))};
    }
    assert(numOuts == 1 && "a capped compaction has one result");
    Value kVal = constIndex(b, loc, k);
    auto loop = scf::WhileOp::create(
        b, loc, TypeRange{outs[0].getType(), indexType, indexType},
        ValueRange{outs[0], c0, c0},
        [&](OpBuilder &b, Location loc, ValueRange it) {
          // (i < n) and (slot < k)
          Value more = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, it[1],
                                    n),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, it[2],
                                    kVal));
          scf::ConditionOp::create(b, loc, more, it);
        },
        [&](OpBuilder &b, Location loc, ValueRange it) {
          Value i = it[1];
          SmallVector<Value> next = step(b, loc, it[0], it[2], i);
          scf::YieldOp::create(b, loc,
                               ValueRange{next[0],
                                          arith::AddIOp::create(b, loc, i, c1),
                                          next[1]});
        });
    return {{loop.getResult(0)}, {loop.getResult(2)}};
  }
};

struct CumsumLowering : OpRewritePattern<CumsumOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CumsumOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Scanned input(op.getInput(), op.getAxis());
    bool exclusive = op.getExclusive();
    Type resultElt =
        cast<RankedTensorType>(op.getResult().getType()).getElementType();
    bool isFloat = isa<FloatType>(resultElt);
    OpFoldResult n = input.length(rewriter, loc);
    SmallVector<Value> results = input.forEachLine(
        rewriter, loc, {{resultElt, n}},
        [&](OpBuilder &b, Location loc, ValueRange lines, Value) {
          Value line = lines[0];
          Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
          Value len = dimValue(b, loc, line, 0);
          Value zero = isFloat ? Value(arith::ConstantOp::create(
                                     b, loc, b.getFloatAttr(resultElt, 0.0)))
                               : constInt(b, loc, resultElt, 0);
          Value init = emptyTensor(b, loc, {getAsOpFoldResult(len)}, resultElt);
          auto loop = scf::ForOp::create(
              b, loc, c0, len, c1, ValueRange{init, zero},
              [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
                Value x = tensor::ExtractOp::create(b, loc, line, i);
                if (x.getType() != resultElt)
                  x = arith::ExtUIOp::create(b, loc, resultElt, x);
                Value acc =
                    isFloat ? Value(arith::AddFOp::create(b, loc, it[1], x))
                            : Value(arith::AddIOp::create(b, loc, it[1], x));
                Value out = tensor::InsertOp::create(
                    b, loc, exclusive ? it[1] : acc, it[0], ValueRange{i});
                scf::YieldOp::create(b, loc, ValueRange{out, acc});
              });
          return SmallVector<Value>{loop.getResult(0)};
        });
    replaceOpWithCasts(rewriter, op, results);
    return success();
  }
};

/// A gather of whole rows (the source has dimensions after the gathered
/// one): one parallel loop over the index positions reads each index once
/// and copies the source row it names (a contiguous copy) or the fill into
/// the result's row.
static Value gatherRows(OpBuilder &b, Location loc, Value source, Value indices,
                        Value init, int64_t batch, Value n, Value fillValue) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  int64_t indicesRank = cast<RankedTensorType>(indices.getType()).getRank();
  int64_t rowRank = sourceType.getRank() - batch - 1;
  SmallVector<OpFoldResult> outSizes = tensor::getMixedSizes(b, loc, init);
  SmallVector<OpFoldResult> sourceSizes = tensor::getMixedSizes(b, loc, source);
  auto loop = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>(outSizes).take_front(indicesRank),
      ValueRange{init}, /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  SmallVector<Value> ivs = loop.getInductionVars();
  Value idx = tensor::ExtractOp::create(b, loc, indices, ivs);
  Value valid = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, idx,
                            constInt(b, loc, b.getI64Type(), 0)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, n));
  auto rowType = RankedTensorType::get(sourceType.getShape().take_back(rowRank),
                                       sourceType.getElementType());
  SmallVector<OpFoldResult> ones(indicesRank, b.getIndexAttr(1));
  SmallVector<OpFoldResult> zeros(rowRank, b.getIndexAttr(0));
  // The row of the result at these index coordinates.
  SmallVector<OpFoldResult> offsets(ivs.begin(), ivs.end());
  llvm::append_range(offsets, zeros);
  SmallVector<OpFoldResult> sizes = ones;
  sizes.append(outSizes.begin() + indicesRank, outSizes.end());
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  Value outRow = tensor::ExtractSliceOp::create(
      b, loc, rowType, loop.getRegionIterArgs()[0], offsets, sizes, strides);
  auto row = scf::IfOp::create(
      b, loc, valid,
      [&](OpBuilder &b, Location loc) {
        SmallVector<OpFoldResult> srcOffsets(ivs.begin(), ivs.begin() + batch);
        srcOffsets.push_back(getAsOpFoldResult(i64ToIndex(b, loc, idx)));
        llvm::append_range(srcOffsets, zeros);
        SmallVector<OpFoldResult> srcSizes(batch + 1, b.getIndexAttr(1));
        srcSizes.append(sourceSizes.begin() + batch + 1, sourceSizes.end());
        SmallVector<OpFoldResult> srcStrides(srcOffsets.size(),
                                             b.getIndexAttr(1));
        Value srcRow = tensor::ExtractSliceOp::create(
            b, loc, rowType, source, srcOffsets, srcSizes, srcStrides);
        // A copy into the result's row, in place (a memref.copy).
        Value copied = bufferization::MaterializeInDestinationOp::create(
                           b, loc, srcRow, outRow)
                           .getResult();
        scf::YieldOp::create(b, loc, copied);
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(
            b, loc,
            linalg::FillOp::create(b, loc, fillValue, outRow).getResult(0));
      });
  b.setInsertionPointToStart(loop.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, row.getResult(0),
                                        loop.getRegionIterArgs()[0], offsets,
                                        sizes, strides);
  return loop.getResult(0);
}

struct GatherLowering : OpRewritePattern<GatherOp> {
  GatherLowering(MLIRContext *context, bool gatherRows)
      : OpRewritePattern(context), copyRows(gatherRows) {}
  /// Rows copied one by one (else every element by itself).
  bool copyRows;

  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value source = op.getSource(), indices = op.getIndices();
    auto sourceType = cast<RankedTensorType>(source.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    Type elementType = sourceType.getElementType();
    TypedAttr fillAttr;
    if (std::optional<TypedAttr> fill = op.getFill())
      fillAttr = *fill;
    else if (isa<IntegerType, FloatType, IndexType>(elementType))
      fillAttr = cast<TypedAttr>(b.getZeroAttr(elementType));
    if (!fillAttr)
      return unsupportedElementType(rewriter, op, elementType,
                                    " without a fill");
    int64_t batch = static_cast<int64_t>(op.getBatchDims());
    int64_t indicesRank = indicesType.getRank();
    int64_t sourceRank = sourceType.getRank();
    // The batch dimensions of the source and the indices must agree.
    if (failed(checkLeadingExtents(rewriter, op, source, indices, batch)))
      return failure();

    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, indices);
    SmallVector<OpFoldResult> sourceSizes =
        tensor::getMixedSizes(b, loc, source);
    sizes.append(sourceSizes.begin() + batch + 1, sourceSizes.end());
    int64_t rank = sizes.size();
    Value init = emptyTensor(b, loc, sizes, elementType);
    Value n = indexToI64(b, loc, dimValue(b, loc, source, batch));
    Value fillValue = arith::ConstantOp::create(b, loc, fillAttr);
    if (copyRows && sourceRank > batch + 1 && indicesRank > 0) {
      replaceOpWithCasts(
          rewriter, op,
          gatherRows(b, loc, source, indices, init, batch, n, fillValue));
      return success();
    }

    AffineMap outMap = b.getMultiDimIdentityMap(rank);
    AffineMap idxMap = AffineMap::get(
        rank, 0, outMap.getResults().take_front(indicesRank), b.getContext());
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{init.getType()}, ValueRange{indices},
        ValueRange{init}, ArrayRef<AffineMap>{idxMap, outMap}, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value idx = args[0];
          Value zero = constInt(b, loc, b.getI64Type(), 0);
          Value valid = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, idx,
                                    zero),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, n));
          // linalg.index must sit directly in the generic: read them here.
          SmallVector<Value> coords;
          for (int64_t d = 0; d < batch; ++d)
            coords.push_back(linalg::IndexOp::create(b, loc, d));
          coords.push_back(Value());
          for (int64_t d = batch + 1; d < sourceRank; ++d)
            coords.push_back(
                linalg::IndexOp::create(b, loc, indicesRank + d - batch - 1));
          Value v;
          if (sourceType.getDimSize(batch) > 0) {
            // Branch-free: read a clamped (always valid) row and select the
            // fill for invalid lanes, so that the copy of a row's trailing
            // elements vectorizes.
            Value safe = arith::SelectOp::create(b, loc, valid, idx, zero);
            coords[batch] = i64ToIndex(b, loc, safe);
            Value read = tensor::ExtractOp::create(b, loc, source, coords);
            v = arith::SelectOp::create(b, loc, valid, read, fillValue);
          } else {
            v = ifThenElse(
                b, loc, valid,
                [&](OpBuilder &b, Location loc) -> Value {
                  coords[batch] = i64ToIndex(b, loc, idx);
                  return tensor::ExtractOp::create(b, loc, source, coords);
                },
                fillValue);
          }
          linalg::YieldOp::create(b, loc, v);
        });
    replaceOpWithCasts(rewriter, op, generic.getResult(0));
    return success();
  }
};

struct NonzeroLowering : OpRewritePattern<NonzeroOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(NonzeroOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i64 = b.getI64Type();
    Scanned input(op.getInput());
    int64_t rank = input.rank();
    SmallVector<Value> dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(dimValue(b, loc, input.tensor, d));
    FlatCount scan = input.flattenAndCount(b, loc);
    Value flat = scan.flat, total = scan.size, count = scan.count;
    SmallVector<OpFoldResult> sizes = {getAsOpFoldResult(count)};
    if (rank > 1)
      sizes.push_back(b.getIndexAttr(rank));
    Value init = emptyTensor(b, loc, sizes, i64);
    Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
    auto loop = scf::ForOp::create(
        b, loc, c0, total, c1, ValueRange{init, c0},
        [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
          Value x = tensor::ExtractOp::create(b, loc, flat, ValueRange{i});
          Value nz = isNonZero(b, loc, x);
          // A 1-D input's coordinate is i itself, computed outside the
          // branch: the loop is then a compaction that
          // --sift-vectorize-compactions stores a vector at a time.
          Value position = rank == 1 ? indexToI64(b, loc, i) : Value();
          Value out = ifThenElse(
              b, loc, nz,
              [&](OpBuilder &b, Location loc) -> Value {
                if (position)
                  return tensor::InsertOp::create(b, loc, position, it[0],
                                                  ValueRange{it[1]});
                // Row-major coordinates of element i.
                Value rest = i, result = it[0];
                for (int64_t d = rank - 1; d >= 0; --d) {
                  Value c = arith::RemUIOp::create(b, loc, rest, dims[d]);
                  rest = arith::DivUIOp::create(b, loc, rest, dims[d]);
                  SmallVector<Value> at = {it[1]};
                  if (rank > 1)
                    at.push_back(constIndex(b, loc, d));
                  result = tensor::InsertOp::create(
                      b, loc, indexToI64(b, loc, c), result, at);
                }
                return result;
              },
              it[0]);
          Value pos = arith::AddIOp::create(
              b, loc, it[1], arith::SelectOp::create(b, loc, nz, c1, c0));
          scf::YieldOp::create(b, loc, ValueRange{out, pos});
        });
    replaceOpWithCasts(rewriter, op, loop.getResult(0));
    return success();
  }
};

struct MaskedSelectLowering : OpRewritePattern<MaskedSelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaskedSelectOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value input = op.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    Scanned mask(op.getMask());
    int64_t maskRank = mask.rank();
    // The mask's extents must be the input's leading ones.
    if (failed(checkLeadingExtents(rewriter, op, input, mask.tensor, maskRank)))
      return failure();
    // Each selected mask position copies a sub-tensor of `inner` elements.
    Value inner = constIndex(b, loc, 1);
    SmallVector<OpFoldResult> resultSizes;
    resultSizes.push_back(OpFoldResult());
    for (int64_t d = maskRank; d < rank; ++d) {
      Value size = dimValue(b, loc, input, d);
      inner = arith::MulIOp::create(b, loc, inner, size);
      resultSizes.push_back(tensor::getMixedSize(b, loc, input, d));
    }
    Value flatIn = flatten(b, loc, input);
    FlatCount scan = mask.flattenAndCount(b, loc);
    Value flatMask = scan.flat, numRows = scan.size, count = scan.count;
    resultSizes[0] = getAsOpFoldResult(count);
    Value total = arith::MulIOp::create(b, loc, count, inner);
    Value init = emptyTensor(b, loc, {getAsOpFoldResult(total)},
                             inType.getElementType());
    Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
    auto sliceType =
        RankedTensorType::get({ShapedType::kDynamic}, inType.getElementType());
    auto loop = scf::ForOp::create(
        b, loc, c0, numRows, c1, ValueRange{init, c0},
        [&](OpBuilder &b, Location loc, Value m, ValueRange it) {
          Value take = tensor::ExtractOp::create(b, loc, flatMask, m);
          // A mask as large as the input selects elements: each is read
          // outside the branch (every m indexes the input) and inserted
          // in it, a compaction (see nonzero's).
          Value element;
          if (isConstantIntValue(inner, 1))
            element = tensor::ExtractOp::create(b, loc, flatIn, ValueRange{m});
          Value out = ifThenElse(
              b, loc, take,
              [&](OpBuilder &b, Location loc) -> Value {
                if (element)
                  return tensor::InsertOp::create(b, loc, element, it[0],
                                                  ValueRange{it[1]});
                Value from = arith::MulIOp::create(b, loc, m, inner);
                Value to = arith::MulIOp::create(b, loc, it[1], inner);
                Value piece = tensor::ExtractSliceOp::create(
                    b, loc, sliceType, flatIn, ArrayRef<OpFoldResult>{from},
                    ArrayRef<OpFoldResult>{inner},
                    ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
                return tensor::InsertSliceOp::create(
                    b, loc, piece, it[0], ArrayRef<OpFoldResult>{to},
                    ArrayRef<OpFoldResult>{inner},
                    ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
              },
              it[0]);
          Value pos = arith::AddIOp::create(
              b, loc, it[1], arith::SelectOp::create(b, loc, take, c1, c0));
          scf::YieldOp::create(b, loc, ValueRange{out, pos});
        });
    SmallVector<int64_t> shape = {ShapedType::kDynamic};
    for (int64_t d = maskRank; d < rank; ++d)
      shape.push_back(inType.getDimSize(d));
    Value result = unflatten(
        b, loc, loop.getResult(0),
        RankedTensorType::get(shape, inType.getElementType()), resultSizes);
    replaceOpWithCasts(rewriter, op, result);
    return success();
  }
};

/// Detectron2's subsample_labels per row: count positives and negatives, then
/// walk the items in order of their (unsigned key, index) and take each
/// group's first items.
struct SampleBalancedLowering : OpRewritePattern<SampleBalancedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SampleBalancedOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    Scanned labels(op.getLabels());
    Type labelType = labels.elementType();
    int64_t numSamples = static_cast<int64_t>(op.getNumSamples());
    int64_t posCap = static_cast<int64_t>(
        std::floor(static_cast<double>(numSamples) *
                   op.getPositiveFraction().convertToDouble()));
    int64_t ignoreLabel = op.getIgnoreLabel();
    int64_t negativeLabel = op.getNegativeLabel();
    // Per-row seeds and offsets against the labels' leading extents (a
    // dynamic one is read at each row's p).
    for (Value v : {op.getSeed(), op.getOffset()})
      if (auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr)
        if (failed(checkLeadingExtents(rewriter, op, op.getLabels(), v,
                                       type.getRank())))
          return failure();
    // Per-row seeds and offsets cover the leading `seedRank` batch
    // dimensions: row `(p, q)` uses seed[p] and stream offset[p] + q.
    Value seed = op.getSeed();
    Value offset =
        op.getOffset() ? op.getOffset() : constInt(rewriter, loc, i64, 0);
    int64_t seedRank = 0;
    for (Value v : {seed, offset})
      if (auto type = dyn_cast<RankedTensorType>(v.getType())) {
        seedRank = type.getRank();
        v == seed ? seed = flatten(rewriter, loc, v)
                  : offset = flatten(rewriter, loc, v);
      }
    // The rows of one seed: the batch extents after the seeds' (run-time
    // ones too; with scalar seeds, all rows: q is the row).
    Value perSeed;
    if (seedRank > 0) {
      perSeed = constIndex(rewriter, loc, 1);
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, op.getLabels());
      for (OpFoldResult size : ArrayRef(sizes).drop_back().drop_front(seedRank))
        perSeed = rewriter.createOrFold<arith::MulIOp>(
            loc, perSeed, getValueOrCreateConstantIndexOp(rewriter, loc, size));
    }
    SmallVector<Value> results = labels.forEachLine(
        rewriter, loc,
        {{i64, rewriter.getIndexAttr(numSamples)}, {i64, OpFoldResult()}},
        [&](OpBuilder &b, Location loc, ValueRange lines, Value row) {
          Value line = lines[0];
          Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
          Value zero = constInt(b, loc, i64, 0);
          Value n = dimValue(b, loc, line, 0);
          Value ignore = constInt(b, loc, labelType, ignoreLabel);
          Value negative = constInt(b, loc, labelType, negativeLabel);
          auto classify = [&](OpBuilder &b, Location loc,
                              Value label) -> std::pair<Value, Value> {
            Value isNeg = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::eq, label, negative);
            Value notIgnored = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ne, label, ignore);
            Value notNeg = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ne, label, negative);
            Value isPos = arith::AndIOp::create(b, loc, notIgnored, notNeg);
            return {isPos, isNeg};
          };
          // P and Q.
          auto counts = scf::ForOp::create(
              b, loc, c0, n, c1, ValueRange{zero, zero},
              [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
                Value label = tensor::ExtractOp::create(b, loc, line, i);
                auto [isPos, isNeg] = classify(b, loc, label);
                Value p = arith::AddIOp::create(
                    b, loc, it[0], arith::ExtUIOp::create(b, loc, i64, isPos));
                Value q = arith::AddIOp::create(
                    b, loc, it[1], arith::ExtUIOp::create(b, loc, i64, isNeg));
                scf::YieldOp::create(b, loc, ValueRange{p, q});
              });
          Value numPos = arith::MinSIOp::create(b, loc, counts.getResult(0),
                                                constInt(b, loc, i64, posCap));
          Value numNeg = arith::MinSIOp::create(
              b, loc, counts.getResult(1),
              arith::SubIOp::create(b, loc, constInt(b, loc, i64, numSamples),
                                    numPos));
          // Keys: words of stream offset + row, as unsigned 32-bit integers.
          Value p = c0, q = row;
          if (perSeed) {
            p = arith::DivUIOp::create(b, loc, row, perSeed);
            q = arith::RemUIOp::create(b, loc, row, perSeed);
          }
          auto rowValue = [&](Value v) -> Value {
            if (isa<RankedTensorType>(v.getType()))
              return tensor::ExtractOp::create(b, loc, v, ValueRange{p});
            return v;
          };
          Value key = rowValue(seed);
          Value stream = arith::AddIOp::create(b, loc, rowValue(offset),
                                               indexToI64(b, loc, q));
          Value keys = generateLine(b, loc, n, b.getI32Type(),
                                    [&](OpBuilder &b, Location loc, Value i) {
                                      return philoxWord(b, loc, key, stream,
                                                        indexToI64(b, loc, i));
                                    });
          Value perm = radixArgsort(b, loc, keys, n, 32).second;
          Value init = emptyTensor(b, loc, {b.getIndexAttr(numSamples)}, i64,
                                   constInt(b, loc, i64, -1));
          auto pick = scf::ForOp::create(
              b, loc, c0, n, c1, ValueRange{init, zero, zero},
              [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
                Value j = tensor::ExtractOp::create(b, loc, perm, i);
                Value label = tensor::ExtractOp::create(
                    b, loc, line, ValueRange{i64ToIndex(b, loc, j)});
                auto [isPos, isNeg] = classify(b, loc, label);
                Value takePos = arith::AndIOp::create(
                    b, loc, isPos,
                    arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          it[1], numPos));
                Value takeNeg = arith::AndIOp::create(
                    b, loc, isNeg,
                    arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          it[2], numNeg));
                Value take = arith::OrIOp::create(b, loc, takePos, takeNeg);
                Value at = arith::SelectOp::create(
                    b, loc, takePos, it[1],
                    arith::AddIOp::create(b, loc, numPos, it[2]));
                Value out = ifThenElse(
                    b, loc, take,
                    [&](OpBuilder &b, Location loc) -> Value {
                      return tensor::InsertOp::create(
                          b, loc, j, it[0], ValueRange{i64ToIndex(b, loc, at)});
                    },
                    it[0]);
                Value pc = arith::AddIOp::create(
                    b, loc, it[1],
                    arith::ExtUIOp::create(b, loc, i64, takePos));
                Value nc = arith::AddIOp::create(
                    b, loc, it[2],
                    arith::ExtUIOp::create(b, loc, i64, takeNeg));
                scf::YieldOp::create(b, loc, ValueRange{out, pc, nc});
              });
          Value count = arith::AddIOp::create(b, loc, numPos, numNeg);
          return SmallVector<Value>{pick.getResult(0), count};
        });
    replaceOpWithCasts(rewriter, op, results);
    return success();
  }
};

} // namespace

void lowering::populateSelectionPatterns(RewritePatternSet &patterns,
                                         bool gatherRows) {
  patterns.add<CountLowering, CompactLowering, CumsumLowering, NonzeroLowering,
               MaskedSelectLowering, SampleBalancedLowering>(
      patterns.getContext());
  patterns.add<GatherLowering>(patterns.getContext(), gatherRows);
}
