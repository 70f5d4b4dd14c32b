//===- StreamRowStores.cpp - --sift-stream-row-stores ---------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Row copies into large results as non-temporal vector stores (see the
// pass's description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <numeric>
#include <optional>

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTSTREAMROWSTORES
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

/// A cache line, and the alignment of the whole-line stores.
constexpr int64_t kLineBytes = 64;
/// The longest row copied as one vector.
constexpr int64_t kMaxRowBytes = 1024;

/// The bytes of an element of a vector-able type, or nullopt.
static std::optional<int64_t> elementBytes(Type type) {
  if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  return type.getIntOrFloatBitWidth() / 8;
}

/// The allocation `view` is a view of, through subviews and casts, with a
/// divisor (in elements) of the view's offset in it: 0 when the offset is 0.
/// Null when a view in between is anything else or has dynamic strides.
static memref::AllocOp viewedAllocation(Value view, int64_t &offsetDivisor) {
  offsetDivisor = 0;
  while (true) {
    if (auto alloc = view.getDefiningOp<memref::AllocOp>())
      return alloc;
    if (auto cast = view.getDefiningOp<memref::CastOp>()) {
      view = cast.getSource();
      continue;
    }
    auto subview = view.getDefiningOp<memref::SubViewOp>();
    if (!subview)
      return nullptr;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(subview.getSourceType().getStridesAndOffset(strides, offset)) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return nullptr;
    // The subview moves the offset by sum(offset[d] * stride[d]): a dynamic
    // offset[d] by some multiple of stride[d].
    for (auto [off, stride] : llvm::zip(subview.getMixedOffsets(), strides)) {
      std::optional<int64_t> known = getConstantIntValue(off);
      offsetDivisor =
          std::gcd(offsetDivisor, known ? *known * stride : int64_t(stride));
    }
    view = subview.getSource();
  }
}

/// Whether `type` is a contiguous row: static, row-major, every dimension
/// but the last of extent 1.
static bool isContiguousRow(MemRefType type) {
  if (!type.hasStaticShape() || type.getRank() == 0 ||
      !memref::isStaticShapeAndContiguousRowMajor(type))
    return false;
  return type.getNumElements() == type.getShape().back();
}

struct SiftStreamRowStoresPass
    : sift::impl::SiftStreamRowStoresBase<SiftStreamRowStoresPass> {
  using Base::Base;

  void runOnOperation() override {
    if (minBytes <= 0)
      return;
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (streams(copy))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies)
      rewrite(copy);
  }

  /// Whether `copy` writes a row of whole, aligned lines into a large
  /// allocation.
  bool streams(memref::CopyOp copy) const {
    auto source = dyn_cast<MemRefType>(copy.getSource().getType());
    auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
    if (!source || !target || !isContiguousRow(source) ||
        !isContiguousRow(target) || source.getShape() != target.getShape() ||
        source.getElementType() != target.getElementType())
      return false;
    std::optional<int64_t> bytes = elementBytes(target.getElementType());
    if (!bytes)
      return false;
    int64_t rowBytes = target.getNumElements() * *bytes;
    if (rowBytes % kLineBytes != 0 || rowBytes > kMaxRowBytes)
      return false;
    int64_t offsetDivisor;
    memref::AllocOp alloc = viewedAllocation(copy.getTarget(), offsetDivisor);
    if (!alloc || !alloc.getType().hasStaticShape() ||
        !alloc.getType().getLayout().isIdentity() ||
        alloc.getType().getNumElements() * *bytes < minBytes)
      return false;
    std::optional<uint64_t> alignment = alloc.getAlignment();
    return alignment && *alignment % kLineBytes == 0 &&
           (offsetDivisor * *bytes) % kLineBytes == 0;
  }

  static void rewrite(memref::CopyOp copy) {
    OpBuilder b(copy);
    Location loc = copy.getLoc();
    auto target = cast<MemRefType>(copy.getTarget().getType());
    auto vectorType =
        VectorType::get({target.getShape().back()}, target.getElementType());
    SmallVector<Value> zeros(target.getRank(),
                             arith::ConstantIndexOp::create(b, loc, 0));
    Value row =
        vector::LoadOp::create(b, loc, vectorType, copy.getSource(), zeros);
    vector::StoreOp::create(b, loc, row, copy.getTarget(), zeros,
                            /*nontemporal=*/true, llvm::Align(kLineBytes));
    copy.erase();
  }
};

} // namespace
