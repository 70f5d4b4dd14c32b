//===- GpuHostBoundary.cpp - --sift-gpu-host-boundary ---------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "GpuHostCode.h"

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTGPUHOSTBOUNDARY
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

/// The dynamic sizes of `value` (a ranked memref), read with memref.dim.
static SmallVector<Value> dynamicSizes(OpBuilder &b, Location loc,
                                       Value value) {
  SmallVector<Value> sizes;
  auto type = cast<MemRefType>(value.getType());
  for (int64_t d = 0, e = type.getRank(); d < e; ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(memref::DimOp::create(b, loc, value, d));
  return sizes;
}

static void addBoundary(func::FuncOp fn) {
  Block &entry = fn.getBody().front();
  OpBuilder b(&entry, entry.begin());
  Location loc = fn.getLoc();
  SmallVector<Value> deviceArgs;
  for (BlockArgument arg : entry.getArguments()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type)
      continue;
    // Uses of the argument before this point (the sizes read here, earlier
    // arguments' copies) keep the host buffer.
    Operation *boundaryEnd = b.getInsertionPoint() == entry.end()
                                 ? nullptr
                                 : &*b.getInsertionPoint();
    auto alloc = gpu::AllocOp::create(b, loc, type, Type(), ValueRange(),
                                      dynamicSizes(b, loc, arg), ValueRange(),
                                      /*hostShared=*/false);
    Value device = alloc.getMemref();
    arg.replaceUsesWithIf(device, [&](OpOperand &use) {
      Operation *owner = use.getOwner();
      if (owner->getBlock() != &entry)
        return true;
      // Ops of the boundary, created before the body's first op.
      return boundaryEnd && !owner->isBeforeInBlock(boundaryEnd) &&
             owner != alloc;
    });
    gpu::MemcpyOp::create(b, loc, TypeRange(), ValueRange(), device, arg);
    deviceArgs.push_back(device);
  }
  fn.walk([&](func::ReturnOp ret) {
    OpBuilder rb(ret);
    Location rloc = ret.getLoc();
    SmallVector<Value> operands(ret.getOperands());
    SmallVector<Value> freed;
    llvm::SetVector<Value> freedRoots;
    for (Value &operand : operands) {
      auto type = dyn_cast<MemRefType>(operand.getType());
      if (!type)
        continue;
      auto host = memref::AllocOp::create(rb, rloc, type,
                                          dynamicSizes(rb, rloc, operand));
      host->setAttr("sift.host_result", rb.getUnitAttr());
      gpu::MemcpyOp::create(rb, rloc, TypeRange(), ValueRange(), host, operand);
      // A device buffer the function allocated is freed once, also when
      // the result is a view of it (a compaction's valid prefix, a cast)
      // or one of the buffers a branch yields: the caller owns every
      // result, and the host copy replaces it.
      llvm::SetVector<Value> roots;
      collectRootBuffers(operand, roots);
      bool allocated = llvm::all_of(roots, [&](Value root) {
        return root.getDefiningOp<gpu::AllocOp>() &&
               !llvm::is_contained(deviceArgs, root);
      });
      if (allocated && llvm::none_of(roots, [&](Value root) {
            return freedRoots.contains(root);
          })) {
        freedRoots.insert_range(roots);
        // The allocation the result views, or the branch result it comes
        // through (the buffers a branch yields are defined inside it).
        freed.push_back(rootBuffer(operand));
      }
      operand = host;
    }
    for (Value device : deviceArgs)
      gpu::DeallocOp::create(rb, rloc, Type(), ValueRange(), device);
    for (Value device : freed)
      gpu::DeallocOp::create(rb, rloc, Type(), ValueRange(), device);
    ret->setOperands(operands);
  });
}

namespace {
struct GpuHostBoundaryPass
    : public sift::impl::SiftGpuHostBoundaryBase<GpuHostBoundaryPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (fn.isPublic() && !fn.isExternal())
        addBoundary(fn);
  }
};
} // namespace
