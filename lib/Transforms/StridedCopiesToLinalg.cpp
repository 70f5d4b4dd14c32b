//===- StridedCopiesToLinalg.cpp - --sift-strided-copies-to-linalg --------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "GpuHostCode.h"

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTSTRIDEDCOPIESTOLINALG
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {
/// Whether the memref lowering copies `type` with a plain memcpy: an
/// identity layout, or strides that describe a contiguous row-major block.
/// (The test of the memref lowering's copy.)
static bool isContiguous(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && (memref.getLayout().isIdentity() ||
                    (memref.hasStaticShape() && memref.getNumElements() > 0 &&
                     memref::isStaticShapeAndContiguousRowMajor(memref)));
}

struct StridedCopiesToLinalgPass
    : sift::impl::SiftStridedCopiesToLinalgBase<StridedCopiesToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](memref::CopyOp copy) {
      Type source = copy.getSource().getType();
      Type target = copy.getTarget().getType();
      // A contiguous copy stays a memcpy, except in host code when that
      // becomes loops too (the GPU pipeline's kernels).
      bool keep = isContiguous(source) && isContiguous(target) &&
                  (!outsideLoops || !isHostLevel(copy));
      if (keep)
        return;
      // Unranked memrefs have no loops to make.
      if (!isa<MemRefType>(source) || !isa<MemRefType>(target))
        return;
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    });
  }
};
} // namespace
