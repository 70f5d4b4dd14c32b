//===- VectorizeCompactions.cpp - --sift-vectorize-compactions ------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "BufferRoots.h"

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTVECTORIZECOMPACTIONS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

/// The width of a stored element (index as 64 bits), 0 when not a scalar
/// integer or float.
static int64_t elementBitWidth(Type type) {
  if (type.isIndex())
    return 64;
  if (type.isIntOrFloat())
    return type.getIntOrFloatBitWidth();
  return 0;
}

/// The kept flag (an i1) of a slot increment: `index_cast(kept)`,
/// `index_castui(kept)` or `select(kept, 1, 0)`; null otherwise.
static Value keptFlagOf(Value increment) {
  Operation *def = increment.getDefiningOp();
  if (!def)
    return {};
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def) &&
      def->getOperand(0).getType().isInteger(1))
    return def->getOperand(0);
  if (auto select = dyn_cast<arith::SelectOp>(def))
    if (matchPattern(select.getTrueValue(), m_One()) &&
        matchPattern(select.getFalseValue(), m_Zero()))
      return select.getCondition();
  return {};
}

/// A compaction loop, as matched: an `scf.for`, or an `scf.while` that
/// counts an index up to a bound and may stop when a slot reaches a cap
/// (`compact` with fewer results than its line); what each iteration
/// argument is and how the body's ops vectorize.
struct CompactionLoop {
  Operation *loop;
  /// The body (the for's, or the while's after region) and the index that
  /// counts its iterations (the for's induction variable, or the while's
  /// argument that each iteration increments).
  Block *body;
  Value iv;
  /// The other arguments of the body, in order, and what the body yields
  /// for them.
  SmallVector<BlockArgument> carried;
  SmallVector<Value> carriedNext;
  /// A while's bound on `iv` and, per carried argument, its cap (null when
  /// the loop does not stop on it).
  Value bound;
  SmallVector<Value> caps;
  /// Per carried argument: the kept flag of a slot (null for a
  /// reduction).
  SmallVector<Value> keptFlags;
  /// Per carried argument: the combining op of a reduction (null for a
  /// slot).
  SmallVector<Operation *> combiners;
  /// The ops that update the iteration arguments (slot increments,
  /// combiners): rebuilt, not vectorized.
  llvm::SmallPtrSet<Operation *, 8> bookkeeping;
  /// The body's values that vary across lanes (the rest is loop-invariant).
  llvm::DenseSet<Value> varying;
  /// The stores, in order.
  SmallVector<memref::StoreOp> stores;
};

/// Whether `value` is defined outside `loop` (an scf.for or scf.while).
static bool isInvariant(Operation *loop, Value value) {
  return cast<LoopLikeOpInterface>(loop).isDefinedOutsideOfLoop(value);
}

/// The position of `arg` among `match`'s carried arguments, if it is one.
static std::optional<unsigned> carriedIndex(const CompactionLoop &match,
                                            Value arg) {
  auto *it = llvm::find(match.carried, arg);
  if (it == match.carried.end())
    return std::nullopt;
  return it - match.carried.begin();
}

/// Whether `type` is a memref whose last dimension is contiguous.
static bool hasContiguousLastDim(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.getRank() >= 1 && memref.isLastDimUnitStride();
}

/// Whether the indices but the last are invariant and the last is `last`.
static bool indexesLastBy(Operation *loop, ValueRange indices, Value last) {
  return !indices.empty() && indices.back() == last &&
         llvm::all_of(indices.drop_back(),
                      [&](Value v) { return isInvariant(loop, v); });
}

/// Whether `store` writes a whole-byte element of an accepted width at the
/// last index `slot`, a slot of `match`'s loop whose kept flag is
/// `keptFlag` (any slot's when null), into a buffer defined outside it.
static bool isSlotStore(const CompactionLoop &match, memref::StoreOp store,
                        ArrayRef<int64_t> elementBits, Value keptFlag = {}) {
  int64_t bits = elementBitWidth(store.getValueToStore().getType());
  if (!isInvariant(match.loop, store.getMemRef()) ||
      !hasContiguousLastDim(store.getMemRef().getType()) || bits < 8 ||
      bits % 8 != 0 ||
      (!elementBits.empty() && !llvm::is_contained(elementBits, bits)))
    return false;
  // The last index must be a slot (the induction variable is not).
  std::optional<unsigned> slot = carriedIndex(match, store.getIndices().back());
  if (!slot)
    return false;
  Value kept = match.keptFlags[*slot];
  return kept && (!keptFlag || kept == keptFlag);
}

/// Completes the match of a compaction loop whose body, counting index and
/// carried arguments `match` names, or fails.
static LogicalResult matchCompactionBody(CompactionLoop &match,
                                         ArrayRef<int64_t> elementBits) {
  Operation *loop = match.loop;
  Block *body = match.body;
  if (!match.iv.getType().isIndex() || match.carried.empty())
    return failure();
  for (auto [arg, next, cap] :
       llvm::zip_equal(match.carried, match.carriedNext, match.caps)) {
    Operation *update = next.getDefiningOp();
    if (!update || update->getBlock() != body || !next.hasOneUse() ||
        update->getNumOperands() != 2)
      return failure();
    Value other = update->getOperand(0) == arg ? update->getOperand(1)
                                               : update->getOperand(0);
    if (other == arg || llvm::count(update->getOperands(), Value(arg)) != 1)
      return failure();
    // A slot: advanced by a kept flag, used otherwise only as the last
    // index of stores.
    if (arg.getType().isIndex() && isa<arith::AddIOp>(update)) {
      if (Value kept = keptFlagOf(other)) {
        if (!other.hasOneUse())
          return failure();
        for (OpOperand &use : arg.getUses()) {
          if (use.getOwner() == update)
            continue;
          auto store = dyn_cast<memref::StoreOp>(use.getOwner());
          Operation *parent = store ? store->getParentOp() : nullptr;
          if (!store || use.getOperandNumber() < 2 ||
              (store->getBlock() != body &&
               !(isa<scf::IfOp>(parent) && parent->getBlock() == body)) ||
              !indexesLastBy(loop, store.getIndices(), arg) ||
              store.getValueToStore() == arg)
            return failure();
        }
        match.keptFlags.push_back(kept);
        match.combiners.push_back(nullptr);
        match.bookkeeping.insert(update);
        match.bookkeeping.insert(other.getDefiningOp());
        continue;
      }
    }
    // A reduction: the combining op (an integer one: upstream's
    // linalg::getCombinerOpKind, which also names float ones) is the
    // argument's only use. (A loop stops on slots only.)
    if (cap || !isa<IntegerType>(arg.getType()) ||
        !linalg::getCombinerOpKind(update) || !arg.hasOneUse())
      return failure();
    match.keptFlags.push_back(nullptr);
    match.combiners.push_back(update);
    match.bookkeeping.insert(update);
  }

  // The body: contiguous or invariant loads, stores at slots, pure ops.
  match.varying.insert(match.iv);
  SmallVector<Value> loaded;
  for (Operation &op : body->without_terminator()) {
    if (match.bookkeeping.contains(&op))
      continue;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (!isInvariant(loop, load.getMemRef()))
        return failure();
      loaded.push_back(load.getMemRef());
      if (llvm::all_of(load.getIndices(),
                       [&](Value v) { return isInvariant(loop, v); }))
        continue;
      // (A vector of i1 is packed bits in LLVM, a buffer of i1 a byte an
      // element: an i1 line loads as bytes, see `loadBoolBytes`.)
      int64_t bits = elementBitWidth(load.getType());
      if (!hasContiguousLastDim(load.getMemRef().getType()) ||
          !indexesLastBy(loop, load.getIndices(), match.iv) ||
          (bits == 1 ? load.getMemRefType().getRank() != 1
                     : bits < 8 || bits % 8 != 0))
        return failure();
      match.varying.insert(load.getResult());
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      if (!isSlotStore(match, store, elementBits))
        return failure();
      match.stores.push_back(store);
      continue;
    }
    // Stores of values computed before it, at slots its condition (their
    // kept flag) advances: a compress store writes exactly those lanes.
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      if (branch.getNumResults() != 0 || !branch.getElseRegion().empty())
        return failure();
      for (Operation &nested : branch.thenBlock()->without_terminator()) {
        auto store = dyn_cast<memref::StoreOp>(nested);
        if (!store ||
            !isSlotStore(match, store, elementBits, branch.getCondition()) ||
            branch->isAncestor(
                store.getValueToStore().getParentBlock()->getParentOp()))
          return failure();
        match.stores.push_back(store);
      }
      continue;
    }
    if (op.getNumRegions() != 0 || !isPure(&op))
      return failure();
    bool varies = llvm::any_of(
        op.getOperands(), [&](Value v) { return match.varying.contains(v); });
    if (!varies)
      continue;
    // Only `arith` ops: every one lowers to LLVM on vectors, where a
    // `math` op without an LLVM intrinsic (erf, tanh) lowers only on
    // scalars (a libm call).
    if (!isa<arith::ArithDialect>(op.getDialect()) ||
        !op.hasTrait<OpTrait::Elementwise>() ||
        !op.hasTrait<OpTrait::Vectorizable>() ||
        !llvm::all_of(op.getOperandTypes(), elementBitWidth) ||
        !llvm::all_of(op.getResultTypes(), elementBitWidth))
      return failure();
    for (Value result : op.getResults())
      match.varying.insert(result);
  }
  // A loop without stores is a count (a slot alone) worth vectorizing,
  // not a reduction alone (LLVM vectorizes those itself).
  if (match.stores.empty() &&
      llvm::all_of(match.keptFlags, [](Value kept) { return !kept; }))
    return failure();
  // A stored buffer is disjoint from every buffer read, and from those
  // stored at another slot.
  for (memref::StoreOp store : match.stores) {
    Value root = rootBuffer(store.getMemRef());
    for (Value buffer : loaded)
      if (!disjointRoots(root, rootBuffer(buffer)))
        return failure();
    for (memref::StoreOp other : match.stores)
      if (other.getIndices().back() != store.getIndices().back() &&
          !disjointRoots(root, rootBuffer(other.getMemRef())))
        return failure();
  }
  return success();
}

/// Matches an `scf.for` of step 1 as a compaction loop, or fails.
static FailureOr<CompactionLoop> matchForLoop(scf::ForOp loop,
                                              ArrayRef<int64_t> elementBits) {
  if (!matchPattern(loop.getStep(), m_One()))
    return failure();
  CompactionLoop match;
  match.loop = loop;
  match.body = loop.getBody();
  match.iv = loop.getInductionVar();
  match.carried = llvm::to_vector(loop.getRegionIterArgs());
  match.carriedNext = llvm::to_vector(
      cast<scf::YieldOp>(match.body->getTerminator()).getOperands());
  match.caps.assign(match.carried.size(), Value());
  if (failed(matchCompactionBody(match, elementBits)))
    return failure();
  return match;
}

/// The terms `x < bound` (unsigned) of an `andi` tree `condition`, each a
/// comparison of a block argument of `before` with a value defined outside
/// `loop`; false when it holds anything else.
static bool collectBounds(Operation *loop, Block *before, Value condition,
                          DenseMap<Value, Value> &bounds) {
  Operation *def = condition.getDefiningOp();
  if (!def || def->getBlock() != before)
    return false;
  if (auto both = dyn_cast<arith::AndIOp>(def))
    return collectBounds(loop, before, both.getLhs(), bounds) &&
           collectBounds(loop, before, both.getRhs(), bounds);
  auto cmp = dyn_cast<arith::CmpIOp>(def);
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::ult)
    return false;
  auto arg = dyn_cast<BlockArgument>(cmp.getLhs());
  if (!arg || arg.getOwner() != before || !isInvariant(loop, cmp.getRhs()) ||
      bounds.count(arg))
    return false;
  bounds[arg] = cmp.getRhs();
  return true;
}

/// Matches an `scf.while` that runs `i = i0, i0 + 1, ...` while
/// `i < bound` and each capped slot `s < cap` (its before region computes
/// only that conjunction and passes its arguments on unchanged) as a
/// compaction loop, or fails.
static FailureOr<CompactionLoop> matchWhileLoop(scf::WhileOp loop,
                                                ArrayRef<int64_t> elementBits) {
  Block *before = loop.getBeforeBody(), *after = loop.getAfterBody();
  auto condition = cast<scf::ConditionOp>(before->getTerminator());
  if (before->getArgumentTypes() != after->getArgumentTypes() ||
      condition.getArgs() != ValueRange(before->getArguments()))
    return failure();
  DenseMap<Value, Value> bounds;
  if (!collectBounds(loop, before, condition.getCondition(), bounds))
    return failure();
  // Nothing else before: the comparisons and their conjunction.
  for (Operation &op : before->without_terminator())
    if (!isa<arith::CmpIOp, arith::AndIOp>(op))
      return failure();
  CompactionLoop match;
  match.loop = loop;
  match.body = after;
  auto yield = cast<scf::YieldOp>(after->getTerminator());
  for (auto [beforeArg, arg, next] : llvm::zip_equal(
           before->getArguments(), after->getArguments(), yield.getResults())) {
    Value bound = bounds.lookup(beforeArg);
    auto step = next.getDefiningOp<arith::AddIOp>();
    bool counts = !match.iv && bound && step && step->getBlock() == after &&
                  next.hasOneUse() &&
                  llvm::is_contained(step->getOperands(), Value(arg)) &&
                  (matchPattern(step.getLhs(), m_One()) ||
                   matchPattern(step.getRhs(), m_One()));
    if (counts) {
      match.iv = arg;
      match.bound = bound;
      continue;
    }
    match.carried.push_back(arg);
    match.carriedNext.push_back(next);
    match.caps.push_back(bound);
  }
  if (!match.iv)
    return failure();
  // The index's step is rebuilt (a vector further), not vectorized.
  match.bookkeeping.insert(
      yield.getResults()[cast<BlockArgument>(match.iv).getArgNumber()]
          .getDefiningOp());
  if (failed(matchCompactionBody(match, elementBits)))
    return failure();
  return match;
}

/// Builds the vector loop of `match` (the scalar loop then runs the rest).
class LoopVectorizer {
public:
  LoopVectorizer(const CompactionLoop &match, int64_t lanes)
      : match(match), lanes(lanes) {}

  void run(OpBuilder &b) {
    if (auto loop = dyn_cast<scf::WhileOp>(match.loop))
      return runWhile(b, loop);
    auto loop = cast<scf::ForOp>(match.loop);
    Location loc = loop.getLoc();
    b.setInsertionPoint(loop);
    // Full vectors over the iterations but the last: n - 1 rounded down.
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
    Value width = arith::ConstantIndexOp::create(b, loc, lanes);
    Value n = arith::SubIOp::create(b, loc, ub, lb);
    Value rest = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, n, c1), c0);
    Value vectorIterations = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, rest, width), width);
    Value vectorEnd = arith::AddIOp::create(b, loc, lb, vectorIterations);
    auto vectorLoop = scf::ForOp::create(
        b, loc, lb, vectorEnd, width, loop.getInitArgs(),
        [&](OpBuilder &b, Location loc, Value base, ValueRange args) {
          scf::YieldOp::create(b, loc, buildBody(b, loc, base, args));
        });
    loop.getLowerBoundMutable().assign(vectorEnd);
    loop.getInitArgsMutable().assign(vectorLoop.getResults());
  }

private:
  /// A vector while loop first, over full vectors while every lane's
  /// iteration is one the scalar loop would run: the index a vector and one
  /// more below its bound (the last iteration stays scalar, as in a for),
  /// each capped slot a vector below its cap (so that no lane's store
  /// passes it). The scalar loop starts where it stops.
  void runWhile(OpBuilder &b, scf::WhileOp loop) {
    Location loc = loop.getLoc();
    b.setInsertionPoint(loop);
    Block *after = loop.getAfterBody();
    unsigned ivNumber = cast<BlockArgument>(match.iv).getArgNumber();
    Value width = arith::ConstantIndexOp::create(b, loc, lanes);
    Value widthPlusOne = arith::ConstantIndexOp::create(b, loc, lanes + 1);
    auto vectorLoop = scf::WhileOp::create(
        b, loc, after->getArgumentTypes(), loop.getInits(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          auto fits = [&](Value at, Value plus, Value bound) -> Value {
            return arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ule,
                arith::AddIOp::create(b, loc, at, plus), bound);
          };
          Value more = fits(args[ivNumber], widthPlusOne, match.bound);
          for (auto [arg, cap] : llvm::zip(match.carried, match.caps))
            if (cap)
              more = arith::AndIOp::create(
                  b, loc, more, fits(args[arg.getArgNumber()], width, cap));
          scf::ConditionOp::create(b, loc, more, args);
        },
        [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<Value> carriedNow;
          for (BlockArgument arg : match.carried)
            carriedNow.push_back(args[arg.getArgNumber()]);
          SmallVector<Value> next =
              buildBody(b, loc, args[ivNumber], carriedNow);
          SmallVector<Value> yielded(args.size());
          yielded[ivNumber] =
              arith::AddIOp::create(b, loc, args[ivNumber], width);
          for (auto [arg, value] : llvm::zip(match.carried, next))
            yielded[arg.getArgNumber()] = value;
          scf::YieldOp::create(b, loc, yielded);
        });
    loop.getInitsMutable().assign(vectorLoop.getResults());
  }

  VectorType vectorOf(Type scalar) const {
    return VectorType::get({lanes}, scalar);
  }

  /// The vector of a body value (a broadcast of an invariant one).
  Value vectorValue(OpBuilder &b, Location loc, Value scalar) {
    if (Value v = vectors.lookup(scalar))
      return v;
    Value invariant = scalars.lookupOrDefault(scalar);
    Value splat = vector::BroadcastOp::create(
        b, loc, vectorOf(invariant.getType()), invariant);
    vectors[scalar] = splat;
    return splat;
  }

  /// The `lanes` elements of a 1-D buffer of i1 from `base` on, read as
  /// the bytes they are in memory (`vector.load` of i1 would read packed
  /// bits) through a pointer to the first one, then truncated to i1 as a
  /// scalar load of i1 does.
  Value loadBoolBytes(OpBuilder &b, Location loc, memref::LoadOp load,
                      Value base) {
    Value buffer = load.getMemRef();
    Value aligned =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
    Value at = arith::AddIOp::create(
        b, loc, aligned, arith::AddIOp::create(b, loc, meta.getOffset(), base));
    Value address = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), at);
    Value pointer = LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
    Value bytes = LLVM::LoadOp::create(b, loc, vectorOf(b.getI8Type()), pointer,
                                       /*alignment=*/1);
    return arith::TruncIOp::create(b, loc, vectorOf(b.getI1Type()), bytes);
  }

  /// The vector body: the lanes of iterations base, base + 1, ... with the
  /// carried arguments `args`; returns their next values.
  SmallVector<Value> buildBody(OpBuilder &b, Location loc, Value base,
                               ValueRange args) {
    Block *body = match.body;
    Type indexType = b.getIndexType();
    vectors.clear();
    scalars.clear();
    // Lane i handles iteration base + i. (Ops are made one statement at a
    // time: the order of a call's arguments is the compiler's.)
    Value bases =
        vector::BroadcastOp::create(b, loc, vectorOf(indexType), base);
    Value steps = vector::StepOp::create(b, loc, vectorOf(indexType));
    vectors[match.iv] = arith::AddIOp::create(b, loc, bases, steps);
    for (auto [arg, value] : llvm::zip(match.carried, args))
      scalars.map(arg, value);
    for (Operation &op : body->without_terminator()) {
      if (match.bookkeeping.contains(&op) ||
          isa<memref::StoreOp, scf::IfOp>(op))
        continue;
      bool varies = llvm::any_of(
          op.getResults(), [&](Value v) { return match.varying.contains(v); });
      if (!varies) {
        b.clone(op, scalars);
        continue;
      }
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        if (load.getType().isInteger(1)) {
          vectors[load.getResult()] = loadBoolBytes(b, loc, load, base);
          continue;
        }
        SmallVector<Value> indices;
        for (Value index : load.getIndices().drop_back())
          indices.push_back(scalars.lookupOrDefault(index));
        indices.push_back(base);
        vectors[load.getResult()] = vector::LoadOp::create(
            b, loc, vectorOf(load.getType()), load.getMemRef(), indices);
        continue;
      }
      OperationState state(op.getLoc(), op.getName());
      for (Value operand : op.getOperands())
        state.addOperands(vectorValue(b, loc, operand));
      for (Type type : op.getResultTypes())
        state.addTypes(vectorOf(type));
      state.addAttributes(op.getAttrs());
      Operation *widened = b.create(state);
      for (auto [scalar, vector] :
           llvm::zip(op.getResults(), widened->getResults()))
        vectors[scalar] = vector;
    }
    // The kept lanes of each store, in order, from its slot.
    for (memref::StoreOp store : match.stores) {
      unsigned arg = *carriedIndex(match, store.getIndices().back());
      SmallVector<Value> indices;
      for (Value index : store.getIndices().drop_back())
        indices.push_back(scalars.lookupOrDefault(index));
      indices.push_back(args[arg]);
      // (The builder taking an llvm::MaybeAlign swaps the mask and the
      // value in LLVM 22: the one taking an IntegerAttr does not.)
      Value mask = vectorValue(b, loc, match.keptFlags[arg]);
      Value values = vectorValue(b, loc, store.getValueToStore());
      vector::CompressStoreOp::create(b, store.getLoc(), store.getMemRef(),
                                      indices, mask, values, IntegerAttr());
    }
    // Slots advance by the kept lanes; reductions combine the lanes.
    SmallVector<Value> next;
    for (auto [i, arg] : llvm::enumerate(args)) {
      if (Value kept = match.keptFlags[i]) {
        Value mask = vectorValue(b, loc, kept);
        Value bits = vector::BitCastOp::create(
            b, loc, VectorType::get({1}, b.getIntegerType(lanes)), mask);
        Value word =
            vector::ExtractOp::create(b, loc, bits, ArrayRef<int64_t>{0});
        Value count = math::CtPopOp::create(b, loc, word);
        next.push_back(arith::AddIOp::create(
            b, loc, arg,
            arith::IndexCastUIOp::create(b, loc, indexType, count)));
        continue;
      }
      Operation *combiner = match.combiners[i];
      Value acc = match.carried[i];
      Value operand = combiner->getOperand(0) == acc ? combiner->getOperand(1)
                                                     : combiner->getOperand(0);
      Value lanesCombined = vector::ReductionOp::create(
          b, loc, *linalg::getCombinerOpKind(combiner),
          vectorValue(b, loc, operand));
      IRMapping mapping;
      mapping.map(acc, arg);
      mapping.map(operand, lanesCombined);
      next.push_back(b.clone(*combiner, mapping)->getResult(0));
    }
    return next;
  }

  const CompactionLoop &match;
  int64_t lanes;
  /// Body values to their vectors.
  llvm::DenseMap<Value, Value> vectors;
  /// Invariant body values (and iteration arguments) to their clones.
  IRMapping scalars;
};

struct VectorizeCompactionsPass
    : sift::impl::SiftVectorizeCompactionsBase<VectorizeCompactionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (lanes < 2 || !llvm::isPowerOf2_64(lanes) || lanes > 64) {
      getOperation().emitError("sift-vectorize-compactions: lanes must be a "
                               "power of two in [2, 64], not ")
          << static_cast<int64_t>(lanes);
      return signalPassFailure();
    }
    std::vector<CompactionLoop> matches;
    getOperation().walk([&](Operation *op) {
      FailureOr<CompactionLoop> match = failure();
      if (auto loop = dyn_cast<scf::ForOp>(op))
        match = matchForLoop(loop, elementBits);
      else if (auto loop = dyn_cast<scf::WhileOp>(op))
        match = matchWhileLoop(loop, elementBits);
      if (succeeded(match))
        matches.push_back(std::move(*match));
    });
    OpBuilder b(&getContext());
    for (const CompactionLoop &match : matches) {
      LoopVectorizer(match, lanes).run(b);
      ++numVectorized;
    }
  }
};

} // namespace
