//===- PrefetchStreams.cpp - --sift-prefetch-streams ----------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <limits>

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTPREFETCHSTREAMS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

/// Bytes of a cache line: one prefetch per line a vector covers.
constexpr int64_t kCacheLineBytes = 64;

/// The allocation or argument a memref views (through subviews, casts and
/// reshapes), or null when it is not a buffer of the identity layout and
/// `memref`'s element type (the flat view of it then indexes elements).
static Value rootBuffer(Value memref) {
  Type elementType = cast<MemRefType>(memref.getType()).getElementType();
  while (Operation *def = memref.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    memref = view.getViewSource();
  }
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || !type.getLayout().isIdentity() ||
      type.getElementType() != elementType || type.getRank() == 0)
    return {};
  return memref;
}

/// Bytes of an element of `type` (at least 1).
static int64_t elementBytes(ShapedType type) {
  return std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// Whether `index` is `iv` or `iv` plus a constant (the second and later
/// vectors of a loop step that reads several).
static bool isInductionVarPlusConstant(Value index, Value iv) {
  if (index == iv)
    return true;
  auto add = index.getDefiningOp<arith::AddIOp>();
  return add && ((add.getLhs() == iv && getConstantIntValue(add.getRhs())) ||
                 (add.getRhs() == iv && getConstantIntValue(add.getLhs())));
}

/// Whether `iv` is the induction variable of a unit-step loop (an scf.for,
/// or one dimension of an scf.parallel).
static bool isUnitStepInductionVar(Value iv) {
  auto arg = dyn_cast<BlockArgument>(iv);
  if (!arg)
    return false;
  Operation *owner = arg.getOwner()->getParentOp();
  auto isOne = [](Value v) {
    std::optional<int64_t> c = getConstantIntValue(v);
    return c && *c == 1;
  };
  if (auto loop = dyn_cast<scf::ForOp>(owner))
    return loop.getInductionVar() == iv && isOne(loop.getStep());
  if (auto loop = dyn_cast<scf::ParallelOp>(owner))
    return isOne(loop.getStep()[arg.getArgNumber()]);
  return false;
}

/// Whether `read` streams through memory in its loop: a 1-D vector along
/// the last dimension of a buffer whose last stride is 1, the last index
/// being the induction variable of the closest enclosing scf.for (plus a
/// constant).
static bool streams(vector::TransferReadOp read) {
  auto type = dyn_cast<MemRefType>(read.getBase().getType());
  if (!type || read.getVectorType().getRank() != 1 ||
      !read.getPermutationMap().isMinorIdentity() || read.getIndices().empty())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1)
    return false;
  auto loop = read->getParentOfType<scf::ForOp>();
  if (loop && isInductionVarPlusConstant(read.getIndices().back(),
                                         loop.getInductionVar()))
    return true;
  // Or it reads at a fixed column of a row that a unit-step loop moves on
  // row by row: a view of the buffer at the loop's induction variable (the
  // block of a row's last logits, or the whole of a short row, after
  // cross_entropy's vector loop).
  if (!llvm::all_of(read.getIndices(), [](Value index) {
        return getConstantIntValue(index).has_value();
      }))
    return false;
  for (Value view = read.getBase(); view;) {
    auto subview = view.getDefiningOp<memref::SubViewOp>();
    if (!subview)
      return false;
    if (llvm::any_of(subview.getOffsets(), isUnitStepInductionVar))
      return true;
    view = subview.getSource();
  }
  return false;
}

/// The last index of dimension `dim` of `memref` (its extent minus one),
/// built in a fixed order.
static Value lastIndex(OpBuilder &b, Location loc, Value memref, int64_t dim) {
  Value extent = memref::DimOp::create(b, loc, memref, dim);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  return arith::SubIOp::create(b, loc, extent, one);
}

/// A root buffer seen flat, and its last element's index.
struct FlatBuffer {
  Value flat, last;
};

/// Prefetches of the `elements` elements of `bytes` each at `position` of
/// the 1-D `buffer`: one per cache line they cover, `distance` bytes ahead
/// into the L1 and `farDistance` bytes ahead into the L2 (locality 2; none
/// where a distance is 0), each position clamped to `last`.
static void prefetchLines(OpBuilder &b, Location loc, Value buffer,
                          Value position, Value last, int64_t bytes,
                          int64_t elements, int64_t distance,
                          int64_t farDistance) {
  for (auto [start, locality] :
       {std::pair<int64_t, uint32_t>{distance, 3}, {farDistance, 2}}) {
    if (start <= 0)
      continue;
    for (int64_t ahead = start; ahead < start + elements * bytes;
         ahead += kCacheLineBytes) {
      Value at = arith::MinUIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc, position,
              arith::ConstantIndexOp::create(b, loc, ahead / bytes)),
          last);
      memref::PrefetchOp::create(b, loc, buffer, ValueRange{at},
                                 /*isWrite=*/false, locality,
                                 /*isDataCache=*/true);
    }
  }
}

/// `root` seen flat, and its last element's index: made once per root,
/// where the root is defined.
static FlatBuffer flatBuffer(OpBuilder &b, Location loc, Value root,
                             DenseMap<Value, FlatBuffer> &flats) {
  auto rootType = cast<MemRefType>(root.getType());
  auto [it, inserted] = flats.try_emplace(root);
  if (inserted) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfterValue(root);
    it->second.flat = root;
    if (rootType.getRank() > 1) {
      SmallVector<ReassociationIndices> all(1);
      for (int64_t d = 0; d < rootType.getRank(); ++d)
        all[0].push_back(d);
      it->second.flat = memref::CollapseShapeOp::create(b, loc, root, all);
    }
    it->second.last = lastIndex(b, loc, it->second.flat, 0);
  }
  return it->second;
}

/// Inserts the prefetches of `read` `distance` bytes ahead, in `root` seen
/// flat (made once per root, where the root is defined).
static void prefetchAhead(OpBuilder &b, vector::TransferReadOp read, Value root,
                          int64_t distance, int64_t farDistance,
                          DenseMap<Value, FlatBuffer> &flats) {
  Location loc = read.getLoc();
  auto rootType = cast<MemRefType>(root.getType());
  FlatBuffer buffer = flatBuffer(b, loc, root, flats);

  b.setInsertionPoint(read);
  // The read's element offset in its allocation: the view's offset plus
  // each index times its stride.
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, read.getBase());
  Value linear = meta.getOffset();
  for (auto [i, idx] : llvm::enumerate(read.getIndices()))
    linear = arith::AddIOp::create(
        b, loc, linear,
        arith::MulIOp::create(b, loc, idx, meta.getStrides()[i]));
  prefetchLines(b, loc, buffer.flat, linear, buffer.last,
                elementBytes(rootType), read.getVectorType().getNumElements(),
                distance, farDistance);
}

/// An access of another buffer at a position read from an index buffer: a
/// gather's read, `src[..., idx[..., j], ...]`.
struct IndirectAccess {
  /// The buffer read through the index.
  Value source;
  /// Its indices (mixed, as a subview's offsets), one of them `position`.
  SmallVector<OpFoldResult> indices;
  /// Which of `indices` is the index read from the index buffer.
  unsigned position;
  /// Bytes read there (a row of a subview, or one element).
  int64_t bytes;
};

/// Whether `user` passes its operand `operand` on as (a clamp, a choice or a
/// cast of) an index: the ops between a gather's read of idx[j] and its use
/// of it, which guard a padding or out-of-range index (`j < count ? idx[j] :
/// 0`, `min(idx[j], last)`).
static bool forwardsIndex(Operation *user, unsigned operand) {
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp, arith::MinSIOp, arith::MinUIOp,
          arith::MaxSIOp, arith::MaxUIOp>(user))
    return true;
  // A select forwards its chosen values, not its condition.
  return isa<arith::SelectOp>(user) && operand > 0;
}

/// Ops between the read of an index and the access it names, at most.
constexpr int kMaxForwardingOps = 8;

/// The access through the value `load` read, if one uses it as an index of
/// a memref.load or the offset of a memref.subview whose sizes are static:
/// directly or through casts, clamps and selects of it (`forwardsIndex`).
/// The prefetch ignores what those would choose: any row of the source can
/// be prefetched, and the guarded value is almost always the index itself.
static std::optional<IndirectAccess> indirectAccessOf(memref::LoadOp load) {
  SmallVector<Value> values{load.getResult()};
  for (size_t next = 0; next < values.size(); ++next) {
    Value v = values[next];
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto read = dyn_cast<memref::LoadOp>(user)) {
        if (read.getMemRef() == load.getMemRef() || use.getOperandNumber() == 0)
          continue;
        IndirectAccess access;
        access.source = read.getMemRef();
        access.indices = getAsOpFoldResult(read.getIndices());
        access.position = use.getOperandNumber() - 1;
        access.bytes = elementBytes(read.getMemRefType());
        return access;
      }
      if (auto view = dyn_cast<memref::SubViewOp>(user)) {
        auto offsets = view.getMixedOffsets();
        auto it = llvm::find_if(
            offsets, [&](OpFoldResult o) { return dyn_cast<Value>(o) == v; });
        if (it == offsets.end() || !view.getType().hasStaticShape())
          continue;
        IndirectAccess access;
        access.source = view.getSource();
        access.indices = offsets;
        access.position = it - offsets.begin();
        access.bytes =
            view.getType().getNumElements() * elementBytes(view.getType());
        return access;
      }
      if (forwardsIndex(user, use.getOperandNumber()) &&
          values.size() <= kMaxForwardingOps &&
          !llvm::is_contained(values, user->getResult(0)))
        values.push_back(user->getResult(0));
    }
  }
  return std::nullopt;
}

/// At most this many cache lines of a gathered row are prefetched.
constexpr int64_t kMaxIndirectLines = 4;

/// Inserts, after `load` (which reads idx[..., j] in a unit-step loop over
/// j), the prefetch of what the loop will gather `ahead` iterations later:
/// idx[..., j + ahead] read too (clamped to the index buffer's last
/// element), clamped to the source's extent (a padding index of -1 or one
/// out of range prefetches the last row), and the source row it names.
static void prefetchIndirect(OpBuilder &b, memref::LoadOp load,
                             const IndirectAccess &access, int64_t ahead,
                             DominanceInfo &dominance) {
  Location loc = load.getLoc();
  b.setInsertionPointAfter(load);
  // Every other index of the access must be available here.
  for (auto [i, ofr] : llvm::enumerate(access.indices)) {
    auto v = dyn_cast<Value>(ofr);
    if (i != access.position && v &&
        !dominance.properlyDominates(v, load.getOperation()->getNextNode()))
      return;
  }
  if (!dominance.properlyDominates(access.source,
                                   load.getOperation()->getNextNode()))
    return;
  // The source must be the same in the iteration `ahead`: a view made in
  // the loop's body (cross_entropy's row of logits, indexed by the row's
  // target) would be this iteration's, and the prefetch would miss.
  Operation *loop =
      cast<BlockArgument>(load.getIndices().back()).getOwner()->getParentOp();
  if (loop->isAncestor(Value(access.source).getParentRegion()->getParentOp()))
    return;
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // idx[..., j + ahead] within the index buffer (j itself is: it was just
  // read), whatever guards the loop's reads of it.
  SmallVector<Value> idxIndices = load.getIndices();
  Value j = idxIndices.back();
  Value last = lastIndex(b, loc, load.getMemRef(), idxIndices.size() - 1);
  idxIndices.back() = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, j, index(ahead)), last);
  Value next = memref::LoadOp::create(b, loc, load.getMemRef(), idxIndices);
  if (!next.getType().isIndex())
    next = arith::IndexCastOp::create(b, loc, b.getIndexType(), next);
  Value at = arith::MinUIOp::create(
      b, loc, next, lastIndex(b, loc, access.source, access.position));
  SmallVector<Value> indices;
  for (auto [i, ofr] : llvm::enumerate(access.indices))
    indices.push_back(i == access.position
                          ? at
                          : getValueOrCreateConstantIndexOp(b, loc, ofr));
  int64_t bytes = elementBytes(cast<MemRefType>(access.source.getType()));
  // A row of R bytes starts anywhere (a multiple of its element's size: a
  // NumPy array of 64-byte rows is 16 bytes into a page), so it may touch
  // one more line than R / 64: the offsets 0, 64, ... below R and the row's
  // last element meet every line it touches. Rows longer than
  // kMaxIndirectLines lines get their first lines only (the hardware
  // prefetchers follow a long row).
  SmallVector<int64_t> offsets;
  for (int64_t at = 0; at < access.bytes &&
                       offsets.size() < static_cast<size_t>(kMaxIndirectLines);
       at += kCacheLineBytes)
    offsets.push_back(at / bytes);
  int64_t lastElement = access.bytes / bytes - 1;
  if (access.bytes <= kMaxIndirectLines * kCacheLineBytes &&
      lastElement > offsets.back())
    offsets.push_back(lastElement);
  for (int64_t offset : offsets) {
    SmallVector<Value> lineIndices = indices;
    if (offset > 0)
      lineIndices.back() =
          arith::AddIOp::create(b, loc, lineIndices.back(), index(offset));
    memref::PrefetchOp::create(b, loc, access.source, lineIndices,
                               /*isWrite=*/false, /*localityHint=*/3,
                               /*isDataCache=*/true);
  }
}

/// Whether `load` streams through a line in its loop: a 1-D vector of a
/// 1-D buffer of unit stride, at the induction variable of the closest
/// enclosing scf.for (a compaction's vector loop, --sift-vectorize-
/// compactions; its buffer a routine's argument, often a row's view).
static bool streamsLine(vector::LoadOp load) {
  MemRefType type = load.getMemRefType();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (type.getRank() != 1 || load.getVectorType().getRank() != 1 ||
      failed(type.getStridesAndOffset(strides, offset)) || strides[0] != 1)
    return false;
  auto loop = load->getParentOfType<scf::ForOp>();
  return loop && load.getIndices()[0] == loop.getInductionVar();
}

/// The prefetches of a streaming `load` (streamsLine) `distance` and
/// `farDistance` bytes ahead in its own buffer, clamped to its last
/// element: one per cache line of the vector.
static void prefetchLineAhead(OpBuilder &b, vector::LoadOp load,
                              int64_t distance, int64_t farDistance) {
  Location loc = load.getLoc();
  Value buffer = load.getBase();
  // The last index once, before the loop, where the buffer is defined
  // outside it.
  auto loop = load->getParentOfType<scf::ForOp>();
  b.setInsertionPoint(loop.isDefinedOutsideOfLoop(buffer)
                          ? loop.getOperation()
                          : load.getOperation());
  Value last = lastIndex(b, loc, buffer, 0);
  b.setInsertionPoint(load);
  prefetchLines(b, loc, buffer, load.getIndices()[0], last,
                elementBytes(load.getMemRefType()),
                load.getVectorType().getNumElements(), distance, farDistance);
}

/// The constant element offsets of a gather's index vector: its smallest
/// and largest.
static std::optional<std::pair<int64_t, int64_t>>
constantOffsets(vector::GatherOp gather) {
  DenseIntElementsAttr offsets;
  if (!matchPattern(gather.getIndices(), m_Constant(&offsets)) ||
      offsets.empty())
    return std::nullopt;
  int64_t lo = std::numeric_limits<int64_t>::max();
  int64_t hi = std::numeric_limits<int64_t>::min();
  for (const APInt &offset : offsets) {
    lo = std::min(lo, offset.getSExtValue());
    hi = std::max(hi, offset.getSExtValue());
  }
  return std::make_pair(lo, hi);
}

/// Whether `gather` reads a block that a unit-step loop moves on block by
/// block: a gather of a 1-D buffer of unit stride with constant offsets, at
/// a unit-step loop's induction variable times a constant (plus a
/// constant). cross_entropy's short rows read 16 rows a step, one class
/// after another, each class a strided gather: the one of the first class
/// is at the step's start.
static bool streamsBlock(vector::GatherOp gather) {
  auto type = dyn_cast<MemRefType>(gather.getBase().getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || type.getRank() != 1 ||
      failed(type.getStridesAndOffset(strides, offset)) || strides[0] != 1 ||
      !constantOffsets(gather))
    return false;
  Value index = gather.getOffsets()[0];
  if (auto add = index.getDefiningOp<arith::AddIOp>()) {
    if (getConstantIntValue(add.getRhs()))
      index = add.getLhs();
    else if (getConstantIntValue(add.getLhs()))
      index = add.getRhs();
  }
  if (auto mul = index.getDefiningOp<arith::MulIOp>()) {
    if (getConstantIntValue(mul.getRhs()))
      index = mul.getLhs();
    else if (getConstantIntValue(mul.getLhs()))
      index = mul.getRhs();
  }
  return isUnitStepInductionVar(index);
}

/// The prefetches of the block a streaming `gather` (streamsBlock) reads,
/// `distance` and `farDistance` bytes ahead in its allocation seen flat:
/// one per cache line from its smallest offset to its largest.
static void prefetchBlockAhead(OpBuilder &b, vector::GatherOp gather,
                               Value root, int64_t distance,
                               int64_t farDistance,
                               DenseMap<Value, FlatBuffer> &flats) {
  Location loc = gather.getLoc();
  FlatBuffer buffer = flatBuffer(b, loc, root, flats);
  b.setInsertionPoint(gather);
  auto meta =
      memref::ExtractStridedMetadataOp::create(b, loc, gather.getBase());
  auto [lo, hi] = *constantOffsets(gather);
  Value linear = arith::AddIOp::create(
      b, loc, meta.getOffset(),
      arith::AddIOp::create(b, loc, gather.getOffsets()[0],
                            arith::ConstantIndexOp::create(b, loc, lo)));
  prefetchLines(b, loc, buffer.flat, linear, buffer.last,
                elementBytes(cast<MemRefType>(root.getType())), hi - lo + 1,
                distance, farDistance);
}

/// See SiftPrefetchStreams in Passes.td.
struct PrefetchStreamsPass
    : sift::impl::SiftPrefetchStreamsBase<PrefetchStreamsPass> {
  using Base::Base;

  /// The reads `streaming` accepts, each with the root buffer it views
  /// (none with a distance of 0); collected first, as prefetching inserts
  /// ops.
  template <typename OpTy>
  SmallVector<std::pair<OpTy, Value>>
  streamingReads(function_ref<bool(OpTy)> streaming) {
    SmallVector<std::pair<OpTy, Value>> found;
    getOperation().walk([&](OpTy read) {
      if (distance <= 0 || !streaming(read))
        return;
      if (Value root = rootBuffer(read.getBase()))
        found.push_back({read, root});
    });
    return found;
  }

  void runOnOperation() override {
    OpBuilder b(&getContext());
    DenseMap<Value, FlatBuffer> flats;
    for (auto [read, root] : streamingReads<vector::TransferReadOp>(streams))
      prefetchAhead(b, read, root, distance, farDistance, flats);
    for (auto [gather, root] : streamingReads<vector::GatherOp>(streamsBlock))
      prefetchBlockAhead(b, gather, root, distance, farDistance, flats);
    if (lineLoads) {
      SmallVector<vector::LoadOp> loads;
      getOperation().walk([&](vector::LoadOp load) {
        if (distance > 0 && streamsLine(load))
          loads.push_back(load);
      });
      for (vector::LoadOp load : loads)
        prefetchLineAhead(b, load, distance, farDistance);
    }

    if (indirectDistance <= 0)
      return;
    SmallVector<std::pair<memref::LoadOp, IndirectAccess>> gathers;
    getOperation().walk([&](memref::LoadOp load) {
      if (load.getIndices().empty() ||
          !isa<IntegerType, IndexType>(load.getMemRefType().getElementType()) ||
          !isUnitStepInductionVar(load.getIndices().back()))
        return;
      if (std::optional<IndirectAccess> access = indirectAccessOf(load))
        gathers.push_back({load, *access});
    });
    DominanceInfo dominance(getOperation());
    for (auto &[load, access] : gathers)
      prefetchIndirect(b, load, access, indirectDistance, dominance);
  }
};

} // namespace
