//===- PrefetchStreams.cpp - --sift-prefetch-streams ----------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

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

/// Whether `read` streams through memory in its loop: a 1-D vector along
/// the last dimension of a buffer whose last stride is 1, the last index
/// being the induction variable of the closest enclosing scf.for.
static scf::ForOp streamingLoop(vector::TransferReadOp read) {
  auto type = dyn_cast<MemRefType>(read.getBase().getType());
  if (!type || read.getVectorType().getRank() != 1 ||
      !read.getPermutationMap().isMinorIdentity() || read.getIndices().empty())
    return {};
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1)
    return {};
  auto loop = read->getParentOfType<scf::ForOp>();
  if (!loop || read.getIndices().back() != loop.getInductionVar())
    return {};
  return loop;
}

/// A root buffer seen flat, and its last element's index.
struct FlatBuffer {
  Value flat, last;
};

/// Inserts the prefetches of `read` `distance` bytes ahead, in `root` seen
/// flat (made once per root, where the root is defined).
static void prefetchAhead(OpBuilder &b, vector::TransferReadOp read, Value root,
                          int64_t distance,
                          DenseMap<Value, FlatBuffer> &flats) {
  Location loc = read.getLoc();
  auto rootType = cast<MemRefType>(root.getType());
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto [it, inserted] = flats.try_emplace(root);
  if (inserted) {
    b.setInsertionPointAfterValue(root);
    it->second.flat = root;
    if (rootType.getRank() > 1) {
      SmallVector<ReassociationIndices> all(1);
      for (int64_t d = 0; d < rootType.getRank(); ++d)
        all[0].push_back(d);
      it->second.flat = memref::CollapseShapeOp::create(b, loc, root, all);
    }
    it->second.last = arith::SubIOp::create(
        b, loc, memref::DimOp::create(b, loc, it->second.flat, 0), index(1));
  }
  FlatBuffer buffer = it->second;

  b.setInsertionPoint(read);
  // The read's element offset in its allocation: the view's offset plus
  // each index times its stride.
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, read.getBase());
  Value linear = meta.getOffset();
  for (auto [i, idx] : llvm::enumerate(read.getIndices()))
    linear = arith::AddIOp::create(
        b, loc, linear,
        arith::MulIOp::create(b, loc, idx, meta.getStrides()[i]));
  int64_t elementBytes =
      std::max<int64_t>(1, rootType.getElementTypeBitWidth() / 8);
  int64_t vectorBytes = read.getVectorType().getNumElements() * elementBytes;
  for (int64_t ahead = distance; ahead < distance + vectorBytes;
       ahead += kCacheLineBytes) {
    Value at = arith::MinUIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, linear, index(ahead / elementBytes)),
        buffer.last);
    memref::PrefetchOp::create(b, loc, buffer.flat, ValueRange{at},
                               /*isWrite=*/false, /*localityHint=*/3,
                               /*isDataCache=*/true);
  }
}

/// See SiftPrefetchStreams in Passes.td.
struct PrefetchStreamsPass
    : sift::impl::SiftPrefetchStreamsBase<PrefetchStreamsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (distance <= 0)
      return;
    SmallVector<std::pair<vector::TransferReadOp, Value>> reads;
    getOperation().walk([&](vector::TransferReadOp read) {
      if (!streamingLoop(read))
        return;
      if (Value root = rootBuffer(read.getBase()))
        reads.push_back({read, root});
    });
    OpBuilder b(&getContext());
    DenseMap<Value, FlatBuffer> flats;
    for (auto [read, root] : reads)
      prefetchAhead(b, read, root, distance, flats);
  }
};

} // namespace
