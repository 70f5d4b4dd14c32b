//===- Fuse.cpp - --sift-fuse: kernel formation ---------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Forms kernels out of a batched program with upstream's tiling: each root
// is tiled over its rows into an `scf.forall` and its producers are fused
// into the tile (tileAndFuseOnce: upstream's tile-and-fuse driver, with
// each tile computed once; the sift ops tile through the models of
// lib/Dialect/Sift/IR/SiftTiling.cpp), then
// independent kernels over the same rows become one loop
// (fuseIndependentSiblingForallLoops) whose shared ops CSE computes once.
// See SiftFuse in Passes.td and docs/Fuse.md.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "sift/Dialect/Sift/IR/SiftDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/StringSet.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <deque>
#include <map>

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTFUSE
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

/// TilingInterface of `tensor.concat` over every dimension but the
/// concatenated one, which a tile takes whole: the concatenation of the
/// same slices of the pieces. A batched program concatenates its rows'
/// pieces along a non-batch dimension; with this model fusion reaches the
/// pieces' producers.
struct ConcatTilingModel
    : public TilingInterface::ExternalModel<ConcatTilingModel,
                                            tensor::ConcatOp> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    return SmallVector<utils::IteratorType>(
        cast<tensor::ConcatOp>(op).getResultType().getRank(),
        utils::IteratorType::parallel);
  }

  SmallVector<Range> getIterationDomain(Operation *op, OpBuilder &b) const {
    auto concat = cast<tensor::ConcatOp>(op);
    SmallVector<Range> domain;
    for (int64_t d = 0, e = concat.getResultType().getRank(); d < e; ++d)
      domain.push_back(
          Range{b.getIndexAttr(0),
                tensor::getMixedSize(b, op->getLoc(), concat.getResult(), d),
                b.getIndexAttr(1)});
    return domain;
  }

  FailureOr<TilingResult>
  getTiledImplementation(Operation *op, OpBuilder &b,
                         ArrayRef<OpFoldResult> offsets,
                         ArrayRef<OpFoldResult> sizes) const {
    auto concat = cast<tensor::ConcatOp>(op);
    int64_t dim = concat.getDim();
    RankedTensorType type = concat.getResultType();
    if (!isZeroInteger(offsets[dim]) || type.isDynamicDim(dim) ||
        getConstantIntValue(sizes[dim]) != type.getDimSize(dim))
      return failure();
    Location loc = op->getLoc();
    SmallVector<Value> pieces;
    SmallVector<Operation *> slices;
    SmallVector<OpFoldResult> pieceSizes(sizes);
    SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
    for (Value input : concat.getInputs()) {
      pieceSizes[dim] = tensor::getMixedSize(b, loc, input, dim);
      auto slice = tensor::ExtractSliceOp::create(b, loc, input, offsets,
                                                  pieceSizes, strides);
      slices.push_back(slice);
      pieces.push_back(slice);
    }
    auto tiled = tensor::ConcatOp::create(b, loc, dim, pieces);
    return TilingResult{{tiled}, {tiled.getResult()}, slices};
  }

  LogicalResult
  getResultTilePosition(Operation *op, OpBuilder &b, unsigned resultNumber,
                        ArrayRef<OpFoldResult> offsets,
                        ArrayRef<OpFoldResult> sizes,
                        SmallVector<OpFoldResult> &resultOffsets,
                        SmallVector<OpFoldResult> &resultSizes) const {
    resultOffsets.assign(offsets.begin(), offsets.end());
    resultSizes.assign(sizes.begin(), sizes.end());
    return success();
  }

  LogicalResult getIterationDomainTileFromResultTile(
      Operation *op, OpBuilder &b, unsigned resultNumber,
      ArrayRef<OpFoldResult> resultOffsets, ArrayRef<OpFoldResult> resultSizes,
      SmallVectorImpl<OpFoldResult> &domainOffsets,
      SmallVectorImpl<OpFoldResult> &domainSizes) const {
    domainOffsets.assign(resultOffsets.begin(), resultOffsets.end());
    domainSizes.assign(resultSizes.begin(), resultSizes.end());
    return success();
  }

  FailureOr<TilingResult>
  generateResultTileValue(Operation *op, OpBuilder &b, unsigned resultNumber,
                          ArrayRef<OpFoldResult> offsets,
                          ArrayRef<OpFoldResult> sizes) const {
    return getTiledImplementation(op, b, offsets, sizes);
  }
};

/// Bytes of a tensor with a static shape of integers or floats (an element
/// takes whole bytes, an `index` 8); 0 for anything else.
uint64_t tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  Type elem = tensor.getElementType();
  if (!elem.isIntOrIndexOrFloat())
    return 0;
  uint64_t width = elem.isIndex() ? 64 : elem.getIntOrFloatBitWidth();
  return static_cast<uint64_t>(tensor.getNumElements()) * ((width + 7) / 8);
}

/// What an op reads and writes in tensors when it runs as its own loop.
uint64_t opBytes(Operation *op) {
  uint64_t bytes = 0;
  for (Type type : op->getOperandTypes())
    bytes += tensorBytes(type);
  for (Type type : op->getResultTypes())
    bytes += tensorBytes(type);
  return bytes;
}

/// A `linalg` op whose loops are all parallel and whose body is arith and
/// math only: cheap to compute twice.
bool isCheapElementwise(Operation *op) {
  if (isa<tensor::EmptyOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumLoops() != linalgOp.getNumParallelLoops())
    return false;
  return llvm::all_of(linalgOp.getBlock()->without_terminator(),
                      [](Operation &inner) {
                        return isa<arith::ArithDialect, math::MathDialect>(
                                   inner.getDialect()) ||
                               isa<linalg::IndexOp>(inner);
                      });
}

/// Whether `expr` never decreases when a dimension grows: dimensions,
/// symbols and constants, their sums, products by a non-negative constant
/// and divisions by a positive one.
bool isNonDecreasing(AffineExpr expr) {
  switch (expr.getKind()) {
  case AffineExprKind::DimId:
  case AffineExprKind::SymbolId:
  case AffineExprKind::Constant:
    return true;
  case AffineExprKind::Add: {
    auto sum = cast<AffineBinaryOpExpr>(expr);
    return isNonDecreasing(sum.getLHS()) && isNonDecreasing(sum.getRHS());
  }
  case AffineExprKind::Mul:
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv: {
    auto binary = cast<AffineBinaryOpExpr>(expr);
    auto factor = dyn_cast<AffineConstantExpr>(binary.getRHS());
    if (!factor || factor.getValue() < 0 ||
        (expr.getKind() != AffineExprKind::Mul && factor.getValue() == 0))
      return false;
    return isNonDecreasing(binary.getLHS());
  }
  case AffineExprKind::Mod:
    return false;
  }
  return false;
}

/// Whether upstream's tiling computes this op's operand slices right: a
/// linalg op's slice of an operand is the image of the tile's first and
/// last points under its indexing map (linalg::computeSliceParameters),
/// which is the operand's range only when the map does not decrease. A
/// reversed read, `(d0, d1) -> (d0, 9 - d1)` (a flip), would be sliced at
/// one element of the untiled dimension, and the op would read garbage;
/// such ops stay out of kernels. Other ops tile through their own models.
bool tilesCorrectly(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return true;
  return llvm::all_of(linalgOp.getIndexingMapsArray(), [](AffineMap map) {
    return llvm::all_of(map.getResults(), isNonDecreasing);
  });
}

/// Whether an operand or a result of `op` is a tensor with a dimension of
/// size 0. No slice of it is valid IR (every offset is out of bounds), so
/// such an op is neither tiled nor fused: a producer's tile would slice
/// its empty operands too (a compaction of [3, 0] masks whose count a
/// kernel reads).
static bool hasEmptyTensor(Operation *op) {
  auto isEmpty = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && llvm::is_contained(tensor.getShape(), 0);
  };
  return llvm::any_of(op->getOperandTypes(), isEmpty) ||
         llvm::any_of(op->getResultTypes(), isEmpty);
}

/// A kernel being formed: its loop and the ops of the input it computes
/// (by their number in the input, with the bytes each moves on its own).
struct Kernel {
  scf::ForallOp loop;
  std::map<unsigned, uint64_t> ops;

  uint64_t unfusedBytes() const {
    uint64_t bytes = 0;
    for (auto [id, opBytes] : ops)
      bytes += opBytes;
    return bytes;
  }
};

/// The ops a rewriter erased: a new op may take an erased one's address,
/// so a pointer taken before a rewrite says nothing once it ran.
struct ErasedOps : public RewriterBase::Listener {
  void notifyOperationErased(Operation *op) override { erased.insert(op); }
  llvm::DenseSet<Operation *> erased;
};

/// The fusion candidates of a kernel being formed: the slices that tiling
/// and fusion generate, and those the cleanup patterns insert, less the
/// ones erased or replaced (what upstream's tile-and-fuse driver tracks
/// with a listener it keeps to itself). Notifications go on to the
/// rewriter's own listener.
class SliceWorklist : public RewriterBase::ForwardingListener {
public:
  explicit SliceWorklist(OpBuilder::Listener *next)
      : ForwardingListener(next), next(next) {}
  void add(ArrayRef<Operation *> ops) {
    for (Operation *op : ops)
      if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
        slices.push_back(slice);
        fresh.push_back(slice);
      }
  }
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    ForwardingListener::notifyOperationInserted(op, previous);
    if (cleaning)
      add(op);
  }
  void notifyOperationErased(Operation *op) override {
    remove(op);
    erased.insert(op);
    ForwardingListener::notifyOperationErased(op);
  }
  void notifyOperationReplaced(Operation *op, ValueRange values) override {
    remove(op);
    ForwardingListener::notifyOperationReplaced(op, values);
  }
  /// The candidates, oldest first.
  std::deque<tensor::ExtractSliceOp> slices;
  /// The slices inserted since the last cleanup.
  SmallVector<Operation *> fresh;
  /// Every op erased (pointers to compare, never to read).
  llvm::DenseSet<Operation *> erased;
  /// Whether cleanup patterns run (their new slices are candidates).
  bool cleaning = false;
  OpBuilder::Listener *next;

private:
  void remove(Operation *op) {
    if (!isa<tensor::ExtractSliceOp>(op))
      return;
    auto it = llvm::find_if(slices, [&](tensor::ExtractSliceOp s) {
      return s.getOperation() == op;
    });
    if (it != slices.end())
      slices.erase(it);
    llvm::erase(fresh, op);
  }
};

/// Whether two slices read the same tile of one value.
static bool sameTile(tensor::ExtractSliceOp a, tensor::ExtractSliceOp b) {
  return a.getSource() == b.getSource() && a.getType() == b.getType() &&
         isEqualConstantIntOrValueArray(a.getMixedOffsets(),
                                        b.getMixedOffsets()) &&
         isEqualConstantIntOrValueArray(a.getMixedSizes(), b.getMixedSizes()) &&
         isEqualConstantIntOrValueArray(a.getMixedStrides(),
                                        b.getMixedStrides());
}

/// The loop's init that a slice's source stands for, when the source is
/// one of the loops' region arguments (a destination), and the value it
/// then reads: what upstream's driver fuses.
static std::pair<OpResult, std::optional<OpOperand *>>
producerOfSlice(tensor::ExtractSliceOp slice,
                ArrayRef<LoopLikeOpInterface> loops) {
  Value source = slice.getSource();
  std::optional<OpOperand *> destination;
  for (LoopLikeOpInterface loop : llvm::reverse(loops)) {
    auto arg = dyn_cast<BlockArgument>(source);
    if (!arg || arg.getOwner()->getParentOp() != loop.getOperation())
      break;
    OpOperand *init = loop.getTiedLoopInit(arg);
    if (!init)
      break;
    destination = init;
    source = init->get();
  }
  return {dyn_cast<OpResult>(source), destination};
}

/// scf::tileConsumerAndFuseProducersUsingSCF from its parts (tileUsingSCF,
/// tileAndFuseProducerOfSlice, yieldReplacementForFusedProducer), except
/// that a slice reading a tile the loop already computes (the same tile
/// of the same value, computed before its uses) reads that tile. Upstream
/// fuses a producer again for every slice of it, and each copy fuses its
/// own producers again: a DAG whose values are read twice on each level (a
/// binary search's bounds, step after step) was copied exponentially often
/// (2^20 copies of its first step for a search over 10^6 elements).
static FailureOr<scf::SCFTileAndFuseResult>
tileAndFuseOnce(RewriterBase &rewriter, TilingInterface consumer,
                const scf::SCFTileAndFuseOptions &options) {
  SliceWorklist worklist(rewriter.getListener());
  rewriter.setListener(&worklist);
  llvm::scope_exit restore([&] { rewriter.setListener(worklist.next); });
  // Upstream's cleanup patterns, on the slices inserted since the last
  // cleanup (and what they insert).
  auto cleanUp = [&]() -> LogicalResult {
    SmallVector<Operation *> fresh = std::move(worklist.fresh);
    worklist.fresh.clear();
    if (!options.cleanupPatterns || fresh.empty())
      return success();
    GreedyRewriteConfig config;
    config.setListener(&worklist).setStrictness(
        GreedyRewriteStrictness::ExistingAndNewOps);
    worklist.cleaning = true;
    LogicalResult cleaned =
        applyOpPatternsGreedily(fresh, *options.cleanupPatterns, config);
    worklist.cleaning = false;
    worklist.fresh.clear();
    return cleaned;
  };

  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, consumer, options.tilingOptions);
  if (failed(tiled))
    return failure();
  scf::SCFTileAndFuseResult result;
  result.tiledAndFusedOps.insert_range(tiled->tiledOps);
  result.loops = tiled->loops;
  if (result.loops.empty()) {
    for (auto [original, replacement] :
         llvm::zip_equal(consumer->getResults(), tiled->replacements))
      result.replacements[original] = replacement;
    return result;
  }
  // The loop may be replaced as producers are yielded: results by number.
  DenseMap<Value, unsigned> resultNumbers;
  for (auto [i, r] : llvm::enumerate(consumer->getResults()))
    resultNumbers[r] = i;
  worklist.add(tiled->generatedSlices);
  if (failed(cleanUp()))
    return failure();
  // The slices fused so far and the tiles that replaced them.
  struct Computed {
    Operation *slice, *tileOp;
    Value tile;
  };
  SmallVector<Computed> computed;
  while (!worklist.slices.empty()) {
    tensor::ExtractSliceOp slice = worklist.slices.front();
    worklist.slices.pop_front();
    auto [producer, destination] = producerOfSlice(slice, result.loops);
    if (!producer)
      continue;
    if (!destination) {
      auto it = llvm::find_if(computed, [&](const Computed &entry) {
        Operation *tile = entry.tileOp;
        if (worklist.erased.contains(tile) ||
            worklist.erased.contains(entry.slice))
          return false;
        return sameTile(cast<tensor::ExtractSliceOp>(entry.slice), slice) &&
               llvm::all_of(slice->getUsers(), [&](Operation *user) {
                 Operation *ancestor =
                     tile->getBlock()->findAncestorOpInBlock(*user);
                 return ancestor && tile->isBeforeInBlock(ancestor);
               });
      });
      if (it != computed.end()) {
        rewriter.replaceAllUsesWith(slice.getResult(), it->tile);
        continue;
      }
    }
    std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> control =
        options.fusionControlFn(slice, producer, destination.has_value());
    if (!control)
      continue;
    std::optional<scf::SCFFuseProducerOfSliceResult> fused =
        scf::tileAndFuseProducerOfSlice(rewriter, slice, result.loops);
    if (!fused)
      continue;
    if (Operation *tileOp = fused->tiledAndFusedProducer.getDefiningOp();
        tileOp && !destination)
      computed.push_back({slice, tileOp, fused->tiledAndFusedProducer});
    worklist.add(fused->generatedSlices);
    if (control->yieldProducerReplacement) {
      Operation *owner = producer.getOwner();
      FailureOr<SmallVector<Operation *>> newSlices =
          scf::yieldReplacementForFusedProducer(rewriter, slice, *fused,
                                                result.loops);
      if (failed(newSlices))
        return rewriter.notifyMatchFailure(
            owner, "cannot yield the fused producer from the loop");
      worklist.add(*newSlices);
      unsigned numResults = result.loops.front()->getNumResults();
      for (auto [i, r] : llvm::enumerate(owner->getResults()))
        resultNumbers[r] = numResults - owner->getNumResults() + i;
    }
    if (Operation *tiledOp = fused->tiledAndFusedProducer.getDefiningOp()) {
      result.fusedProducers.insert(producer.getOwner());
      result.tiledAndFusedOps.insert(tiledOp);
    }
    if (failed(cleanUp()))
      return failure();
  }
  for (auto [original, number] : resultNumbers)
    result.replacements[original] = result.loops.front()->getResult(number);
  return result;
}

/// Forms the kernels of one function.
class KernelFormer {
public:
  KernelFormer(func::FuncOp func, int64_t minRows, int64_t maxRowBytes,
               ArrayRef<std::string> keepOut)
      : func(func), rewriter(func.getContext(), &erasedOps),
        maxRowBytes(maxRowBytes) {
    for (const std::string &name : keepOut)
      this->keepOut.insert(name);
    // The rows: the leading dimension that every result of the function
    // has (as --sift-batch makes them), if it has at least minRows.
    std::optional<int64_t> rows;
    for (Type type : func.getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || tensor.getRank() == 0 || tensor.isDynamicDim(0) ||
          (rows && *rows != tensor.getDimSize(0)))
        return;
      rows = tensor.getDimSize(0);
    }
    if (rows && *rows >= minRows)
      rowCount = *rows;
  }

  LogicalResult run();

  SmallVector<Kernel> kernels;
  /// When the rows were too large to form kernels: the bytes one row of
  /// the chain moves unfused.
  std::optional<uint64_t> rowTooLarge;

private:
  /// The number of rows an op would be tiled over as a root, if it is one:
  /// a sift or linalg op with static tensor results whose first loop is
  /// parallel over as many rows as a function result has.
  std::optional<int64_t> rowsOf(Operation *op);
  bool isLive(Operation *op, llvm::DenseMap<Operation *, bool> &memo);
  bool isLiveUse(OpOperand &use, llvm::DenseMap<Operation *, bool> &memo);
  std::optional<scf::SCFTileAndFuseOptions::ControlFnResult>
  shouldFuse(tensor::ExtractSliceOp slice, OpResult producer);
  LogicalResult formKernel(TilingInterface root);
  void mergeKernels();
  void dropUnusedResults();
  void eraseDeadOps(Block &block);

  func::FuncOp func;
  ErasedOps erasedOps;
  IRRewriter rewriter;
  std::optional<int64_t> rowCount;
  int64_t maxRowBytes;
  /// The names of the ops that never join a kernel (keep-out).
  llvm::StringSet<> keepOut;
  /// The ops of the input, numbered before any is erased.
  llvm::DenseMap<Operation *, unsigned> opIds;
  /// The ops that are, or depend on, a sift op: only their chains form
  /// kernels. A chain of elementwise linalg ops alone is fused by
  /// linalg-fuse-elementwise-ops and keeps all its loops parallel.
  llvm::DenseSet<Operation *> rowsWithSift;
  /// The loop being formed and its root (for the fusion control function;
  /// the root is replaced by the loop afterwards).
  Operation *currentLoop = nullptr;
  Operation *currentRoot = nullptr;
};

std::optional<int64_t> KernelFormer::rowsOf(Operation *op) {
  auto tileable = dyn_cast<TilingInterface>(op);
  if (!tileable || op->getNumResults() == 0 ||
      !isa<SiftDialect, linalg::LinalgDialect>(op->getDialect()) ||
      keepOut.contains(op->getName().getStringRef()) || !tilesCorrectly(op))
    return std::nullopt;
  for (Type type : op->getResultTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return std::nullopt;
  }
  if (hasEmptyTensor(op))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = tileable.getLoopIteratorTypes();
  if (iterators.empty() || iterators[0] != utils::IteratorType::parallel)
    return std::nullopt;
  std::optional<int64_t> rows;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!linalgOp.hasPureTensorSemantics())
      return std::nullopt;
    rows = linalgOp.getStaticLoopRanges()[0];
  } else {
    // Static shapes: the sift models' domain is made of attributes, no IR.
    OpBuilder b(op);
    rows = getConstantIntValue(tileable.getIterationDomain(b)[0].size);
  }
  if (!rows || rows != rowCount || !rowsWithSift.contains(op))
    return std::nullopt;
  return rows;
}

bool KernelFormer::isLive(Operation *op,
                          llvm::DenseMap<Operation *, bool> &memo) {
  auto [it, inserted] = memo.try_emplace(op, false);
  if (!inserted)
    return it->second;
  // Live when a use is, or by its own effects. The uses are asked first:
  // most ops here have a live use, and asking for the effects walks nested
  // regions. A kernel is live only through its results (asking its body
  // is slow).
  bool live = llvm::any_of(
      op->getUses(), [&](OpOperand &use) { return isLiveUse(use, memo); });
  live = live || (!isa<scf::ForallOp>(op) && !wouldOpBeTriviallyDead(op));
  memo[op] = live;
  return live;
}

bool KernelFormer::isLiveUse(OpOperand &use,
                             llvm::DenseMap<Operation *, bool> &memo) {
  Operation *user = use.getOwner();
  // A use inside a loop counts as the loop's (its results may be unused).
  return isLive(func.getBody().front().findAncestorOpInBlock(*user), memo);
}

std::optional<scf::SCFTileAndFuseOptions::ControlFnResult>
KernelFormer::shouldFuse(tensor::ExtractSliceOp slice, OpResult producer) {
  Operation *op = producer.getOwner();
  scf::SCFTileAndFuseOptions::ControlFnResult fuse;
  // A slice that is the whole tensor would recompute all of the producer
  // in every row.
  if (slice.getSourceType() == slice.getResultType() &&
      llvm::all_of(slice.getMixedOffsets(), isZeroInteger))
    return std::nullopt;
  Block &body = func.getBody().front();
  if (op->getBlock() != &body || hasEmptyTensor(op) ||
      keepOut.contains(op->getName().getStringRef()) || !tilesCorrectly(op))
    return std::nullopt;
  llvm::DenseMap<Operation *, bool> memo;
  for (OpOperand &use : op->getUses()) {
    Operation *user = body.findAncestorOpInBlock(*use.getOwner());
    if (!user || user == currentLoop || user == currentRoot ||
        !isLiveUse(use, memo))
      continue;
    // An op over the same rows not formed yet (before this kernel) reads
    // its own slices of the producer: as a root or fused into one it fuses
    // the producer too, and the kernels merge.
    if (user == use.getOwner() && user->isBeforeInBlock(currentLoop) &&
        (isa<tensor::ConcatOp>(user) || rowsOf(user)))
      continue;
    // Anything else needs the whole value: the kernel yields it if that
    // op comes after the kernel; if it comes before, the producer is
    // recomputed when cheap, and otherwise stays out (its own kernel).
    if (currentLoop->isBeforeInBlock(user)) {
      fuse.yieldProducerReplacement = true;
      continue;
    }
    if (!isCheapElementwise(op))
      return std::nullopt;
  }
  return fuse;
}

LogicalResult KernelFormer::formKernel(TilingInterface root) {
  MLIRContext *ctx = func.getContext();
  scf::SCFTilingOptions tiling;
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  SmallVector<OpFoldResult> tileSizes(root.getLoopIteratorTypes().size(),
                                      rewriter.getIndexAttr(0));
  tileSizes[0] = rewriter.getIndexAttr(1);
  tiling.setTileSizes(tileSizes);

  RewritePatternSet cleanup(ctx);
  tensor::populateMergeConsecutiveInsertExtractSlicePatterns(cleanup);
  tensor::populateBubbleUpExtractSliceOpPatterns(cleanup);
  tensor::populateFoldTensorEmptyPatterns(cleanup);
  tensor::ExtractSliceOp::getCanonicalizationPatterns(cleanup, ctx);

  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.cleanupPatterns = FrozenRewritePatternSet(std::move(cleanup));
  // The control function needs the loop, which tiling creates right
  // before the root: track it from the first slice it sees.
  currentLoop = nullptr;
  currentRoot = root;
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp slice, OpResult producer, bool isDestination)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        currentLoop = func.getBody().front().findAncestorOpInBlock(*slice);
        if (isDestination)
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return shouldFuse(slice, producer);
      });

  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTileAndFuseResult> result =
      tileAndFuseOnce(rewriter, root, options);
  if (failed(result))
    return failure();
  if (result->loops.empty())
    return success();
  auto loop = cast<scf::ForallOp>(result->loops.front().getOperation());

  Kernel kernel{loop, {}};
  auto record = [&](Operation *op) {
    auto it = opIds.find(op);
    if (it != opIds.end())
      kernel.ops[it->second] = opBytes(op);
  };
  record(root);
  for (Operation *op : result->fusedProducers)
    record(op);

  // The uses after the loop of the root and of the producers it yields
  // read the loop's results (the roots still to be formed, before the
  // loop, fuse the producers themselves).
  Block &body = func.getBody().front();
  for (auto [original, replacement] : result->replacements)
    rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
      Operation *user = body.findAncestorOpInBlock(*use.getOwner());
      return user && user != loop && loop->isBeforeInBlock(user);
    });
  eraseDeadOps(*loop.getBody());
  kernels.push_back(std::move(kernel));
  return success();
}

void KernelFormer::mergeKernels() {
  auto sameRows = [](scf::ForallOp a, scf::ForallOp b) {
    return isEqualConstantIntOrValueArray(a.getMixedLowerBound(),
                                          b.getMixedLowerBound()) &&
           isEqualConstantIntOrValueArray(a.getMixedUpperBound(),
                                          b.getMixedUpperBound()) &&
           isEqualConstantIntOrValueArray(a.getMixedStep(), b.getMixedStep()) &&
           a.getMapping() == b.getMapping();
  };
  Block &body = func.getBody().front();
  bool merged = true;
  while (merged) {
    merged = false;
    llvm::sort(kernels, [](const Kernel &a, const Kernel &b) {
      return a.loop->isBeforeInBlock(b.loop);
    });
    for (size_t i = 0; i < kernels.size() && !merged; ++i) {
      for (size_t j = i + 1; j < kernels.size() && !merged; ++j) {
        scf::ForallOp first = kernels[i].loop, second = kernels[j].loop;
        if (!sameRows(first, second))
          continue;
        // The merged loop sits where the second one is: nothing up to it
        // may read the first one's results.
        bool independent = llvm::all_of(first->getUsers(), [&](Operation *u) {
          Operation *user = body.findAncestorOpInBlock(*u);
          return user && second->isBeforeInBlock(user);
        });
        if (!independent)
          continue;
        scf::ForallOp loop =
            fuseIndependentSiblingForallLoops(first, second, rewriter);
        kernels[i].loop = loop;
        kernels[i].ops.insert(kernels[j].ops.begin(), kernels[j].ops.end());
        kernels.erase(kernels.begin() + j);
        merged = true;
      }
    }
  }
}

namespace {
/// Follows the kernels' loops through the rewrites that replace them.
struct LoopTracker : public RewriterBase::Listener {
  explicit LoopTracker(SmallVector<Kernel> &kernels) : kernels(kernels) {}
  void notifyOperationReplaced(Operation *op, ValueRange values) override {
    for (Kernel &kernel : kernels) {
      if (kernel.loop != op)
        continue;
      for (Value value : values)
        if (auto loop = value.getDefiningOp<scf::ForallOp>())
          kernel.loop = loop;
    }
  }
  SmallVector<Kernel> &kernels;
};
} // namespace

void KernelFormer::dropUnusedResults() {
  // A fused producer yields all its results; drop those nobody reads
  // (upstream's canonicalization of scf.forall).
  MLIRContext *ctx = func.getContext();
  RewritePatternSet patterns(ctx);
  scf::ForallOp::getCanonicalizationPatterns(patterns, ctx);
  LoopTracker tracker(kernels);
  SmallVector<Operation *> loops = llvm::map_to_vector(
      kernels, [](Kernel &kernel) -> Operation * { return kernel.loop; });
  (void)applyOpPatternsGreedily(
      loops, std::move(patterns),
      GreedyRewriteConfig()
          .setStrictness(GreedyRewriteStrictness::ExistingOps)
          .setListener(&tracker));
}

void KernelFormer::eraseDeadOps(Block &block) {
  // Users before their operands: one sweep erases dead chains (in a kernel,
  // the slices fusion went through).
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      rewriter.eraseOp(op);
}

LogicalResult KernelFormer::run() {
  if (!rowCount || !func.walk([](Operation *op) {
                          return isa<SiftDialect>(op->getDialect())
                                     ? WalkResult::interrupt()
                                     : WalkResult::advance();
                        })
                        .wasInterrupted())
    return success();
  // Elementwise ops on tensors become linalg.generic, which tiles.
  {
    RewritePatternSet patterns(func.getContext());
    linalg::populateElementwiseToLinalgConversionPatterns(patterns);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return failure();
  }
  Block &body = func.getBody().front();
  for (Operation &op : body) {
    opIds.try_emplace(&op, opIds.size());
    bool sift = isa<SiftDialect>(op.getDialect());
    op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp())
          sift = sift || rowsWithSift.contains(def);
    });
    if (sift)
      rowsWithSift.insert(&op);
  }
  // A row that does not stay in cache gains nothing from the kernel and
  // loses the ops' own parallel loops over its items.
  uint64_t chainBytes = 0;
  for (Operation *op : rowsWithSift)
    if (isa<TilingInterface>(op))
      chainBytes += opBytes(op);
  uint64_t rowBytes = chainBytes / static_cast<uint64_t>(*rowCount);
  if (maxRowBytes > 0 && rowBytes > static_cast<uint64_t>(maxRowBytes)) {
    rowTooLarge = rowBytes;
    return success();
  }
  // Consumers before producers: a root is an op that still has a use once
  // every later op was formed into a kernel (which fused it if it could).
  SmallVector<Operation *> candidates;
  for (Operation &op : llvm::reverse(body.without_terminator()))
    if (rowsOf(&op))
      candidates.push_back(&op);
  llvm::DenseSet<Operation *> formed;
  for (Operation *op : candidates) {
    eraseDeadOps(func.getBody().front());
    // Candidates that died (unused, or fused into a kernel) were erased,
    // and their addresses may hold ops made since.
    if (erasedOps.erased.contains(op) || op->use_empty())
      continue;
    if (failed(formKernel(cast<TilingInterface>(op))))
      continue;
    // The root itself is replaced by the loop.
    if (op->use_empty())
      rewriter.eraseOp(op);
  }
  mergeKernels();
  dropUnusedResults();
  // Rows that the merged roots both computed are computed once.
  for (Kernel &kernel : kernels) {
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, kernel.loop);
    eraseDeadOps(*kernel.loop.getBody());
  }
  eraseDeadOps(func.getBody().front());
  return success();
}

/// One line of the report: `2 x sift.topk, 40 x linalg.generic, ...`.
std::string describeOps(scf::ForallOp loop, int64_t &numOps) {
  llvm::MapVector<StringRef, int64_t> counts;
  loop.getBody()->walk([&](Operation *op) {
    // The ops that compute tensors (not slices, scalars or constants).
    if (op->getParentOp() != loop ||
        isa<tensor::ExtractSliceOp, tensor::EmptyOp, arith::ConstantOp>(op) ||
        llvm::none_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>))
      return;
    ++counts[op->getName().getStringRef()];
  });
  SmallVector<std::pair<StringRef, int64_t>> sorted(counts.begin(),
                                                    counts.end());
  llvm::sort(sorted);
  std::string text;
  numOps = 0;
  for (auto [name, count] : sorted) {
    if (!text.empty())
      text += ", ";
    text += llvm::formatv("{0} x {1}", count, name).str();
    numOps += count;
  }
  return text;
}

/// See SiftFuse in Passes.td.
struct FusePass : sift::impl::SiftFuseBase<FusePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
      std::optional<RegisteredOperationName> concat =
          RegisteredOperationName::lookup(tensor::ConcatOp::getOperationName(),
                                          ctx);
      if (concat && !concat->hasInterface<TilingInterface>())
        tensor::ConcatOp::attachInterface<ConcatTilingModel>(*ctx);
    });
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    KernelFormer former(func, minRows, maxRowBytes, keepOut);
    if (failed(former.run()))
      return signalPassFailure();
    if (report && former.rowTooLarge)
      func.emitRemark() << "no kernel: one row of the chain moves "
                        << *former.rowTooLarge
                        << " bytes unfused, more than max-row-bytes ("
                        << static_cast<int64_t>(maxRowBytes) << ")";
    llvm::DenseMap<unsigned, unsigned> kernelsOf;
    for (const Kernel &kernel : former.kernels)
      for (const auto &entry : kernel.ops)
        ++kernelsOf[entry.first];
    for (auto [index, kernel] : llvm::enumerate(former.kernels)) {
      scf::ForallOp loop = kernel.loop;
      // Bytes read: every tensor from outside the kernel that it uses.
      llvm::SetVector<Value> inputs;
      loop.getBody()->walk([&](Operation *op) {
        for (Value operand : op->getOperands())
          if (!loop->isAncestor(operand.getParentRegion()->getParentOp()))
            inputs.insert(operand);
      });
      uint64_t read = 0, written = 0, unfused = kernel.unfusedBytes();
      for (Value input : inputs)
        read += tensorBytes(input.getType());
      for (Type type : loop->getResultTypes())
        written += tensorBytes(type);
      ++numKernels;
      numFusedOps += kernel.ops.size();
      numBytesRead += read;
      numBytesWritten += written;
      numBytesUnfused += unfused;
      if (!report)
        continue;
      int64_t numOps = 0;
      std::string ops = describeOps(loop, numOps);
      SmallVector<std::string> rows =
          llvm::map_to_vector(loop.getMixedUpperBound(), [](OpFoldResult ub) {
            std::optional<int64_t> n = getConstantIntValue(ub);
            return n ? std::to_string(*n) : std::string("?");
          });
      InFlightDiagnostic remark = emitRemark(loop.getLoc());
      remark << "kernel " << index << ": scf.forall over "
             << llvm::join(rows, "x") << " rows, " << numOps << " ops (" << ops
             << "); reads " << read << " bytes, writes " << written
             << " bytes; its " << kernel.ops.size() << " ops move " << unfused
             << " bytes unfused";
      // An op of the input in two kernels that could not merge is computed
      // twice.
      int64_t recomputed = llvm::count_if(kernel.ops, [&](const auto &entry) {
        return kernelsOf[entry.first] > 1;
      });
      if (recomputed > 0)
        remark << "; " << recomputed
               << " of them also computed in another kernel";
    }
  }
};

} // namespace
