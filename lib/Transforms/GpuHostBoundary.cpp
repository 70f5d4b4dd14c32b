//===- GpuHostBoundary.cpp - --sift-gpu-host-boundary ---------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "GpuHostCode.h"

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

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

/// The buffer `value` is a cast of (through memref.cast, which later
/// canonicalizations fold into their users).
static Value stripCasts(Value value) {
  while (auto cast = value.getDefiningOp<memref::CastOp>())
    value = cast.getSource();
  return value;
}

/// A device copy of `view` (a buffer whose layout is not the identity: a
/// view of the rows of a padded result, say) into a new device buffer of
/// the identity layout, by a kernel of a thread per element: the copy to
/// the host (gpu.memcpy) needs the identity layout.
static Value contiguousCopy(OpBuilder &b, Location loc, Value view,
                            MemRefType type) {
  SmallVector<Value> sizes;
  for (int64_t d = 0, e = type.getRank(); d < e; ++d)
    sizes.push_back(memref::DimOp::create(b, loc, view, d));
  SmallVector<Value> dynamic;
  for (int64_t d = 0, e = type.getRank(); d < e; ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(sizes[d]);
  Value copy = gpu::AllocOp::create(b, loc, type, Type(), ValueRange(), dynamic,
                                    ValueRange(), /*hostShared=*/false)
                   .getMemref();
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  Value threads = arith::ConstantIndexOp::create(b, loc, 256);
  Value total = c1;
  for (Value size : sizes)
    total = arith::MulIOp::create(b, loc, total, size);
  Value blocks = arith::CeilDivUIOp::create(b, loc, total, threads);
  auto launch = gpu::LaunchOp::create(b, loc, blocks, c1, c1, threads, c1, c1);
  OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
  Value id = arith::AddIOp::create(
      kb, loc, arith::MulIOp::create(kb, loc, launch.getBlockIds().x, threads),
      launch.getThreadIds().x);
  Value inside =
      arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, id, total);
  auto ifOp = scf::IfOp::create(kb, loc, inside, /*withElseRegion=*/false);
  gpu::TerminatorOp::create(kb, loc);
  OpBuilder ib = ifOp.getThenBodyBuilder();
  // The element's indices, innermost dimension first.
  SmallVector<Value> indices(type.getRank());
  Value rest = id;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    indices[d] = arith::RemUIOp::create(ib, loc, rest, sizes[d]);
    rest = arith::DivUIOp::create(ib, loc, rest, sizes[d]);
  }
  Value element = memref::LoadOp::create(ib, loc, view, indices);
  memref::StoreOp::create(ib, loc, element, copy, indices);
  return copy;
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
    SmallVector<Value> contiguous;
    llvm::SetVector<Value> freedRoots;
    for (Value &operand : operands) {
      auto type = dyn_cast<MemRefType>(operand.getType());
      if (!type)
        continue;
      auto host = memref::AllocOp::create(rb, rloc, type,
                                          dynamicSizes(rb, rloc, operand));
      host->setAttr("sift.host_result", rb.getUnitAttr());
      // The copy to the host reads a buffer of the identity layout (what
      // the copy's lowering accepts): a result of that type that is a cast
      // of a view (which canonicalization would fold into the copy) is
      // first copied into one on the device.
      Value source = operand;
      Value view = stripCasts(operand);
      auto viewType = dyn_cast<MemRefType>(view.getType());
      if (type.getLayout().isIdentity() && viewType &&
          !viewType.getLayout().isIdentity()) {
        source = contiguousCopy(rb, rloc, view, type);
        contiguous.push_back(source);
      }
      gpu::MemcpyOp::create(rb, rloc, TypeRange(), ValueRange(), host, source);
      // A device buffer the function allocated is freed once, also when
      // the result is a view of it (a compaction's valid prefix, a cast),
      // one of the buffers a branch yields, or a buffer a loop carries out
      // (its last iteration's: the deallocation pipeline made every result
      // caller-owned): the caller owns every result, and the host copy
      // replaces it. Never the device copy of an argument or a constant.
      llvm::SetVector<Value> roots;
      collectRootBuffers(operand, roots);
      bool allocated = llvm::all_of(roots, [&](Value root) {
        if (llvm::is_contained(deviceArgs, root))
          return false;
        Operation *def = root.getDefiningOp();
        return def && (isa<gpu::AllocOp>(def) || isa<LoopLikeOpInterface>(def));
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
    for (Value device : contiguous)
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
