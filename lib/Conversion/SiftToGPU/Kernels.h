//===- Kernels.h - Shared parts of sift's block-level kernels --*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Private to lib/Conversion/SiftToGPU: the kernel calls that
// --convert-sift-to-gpu creates and --sift-gpu-expand-kernels expands, shared
// by SiftToGPU.cpp (the data-dependent ops) and LossKernels.cpp
// (cross_entropy).
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_CONVERSION_SIFTTOGPU_KERNELS_H
#define SIFT_LIB_CONVERSION_SIFTTOGPU_KERNELS_H

#include "sift/Dialect/Sift/IR/SiftOps.h"

#include "../SiftToLinalg/Utils/CodegenUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>

namespace mlir {
namespace sift {
namespace gpu_kernels {

/// An index constant.
inline Value constIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// `if (cond) then()`, no else.
inline void buildIf(OpBuilder &b, Location loc, Value cond,
                    function_ref<void(OpBuilder &)> then) {
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  then(b);
}

/// A gpu.launch of `grid` blocks of `threads` threads with `workgroup`
/// buffers; `body` builds the kernel from the block id, the thread id and
/// the workgroup buffers.
inline void buildLaunch(
    OpBuilder &b, Location loc, Value grid, int64_t threads,
    ArrayRef<Type> workgroup,
    function_ref<void(OpBuilder &, Value block, Value tid, ValueRange)> body) {
  OpBuilder::InsertionGuard guard(b);
  Value c1 = constIndex(b, loc, 1);
  auto launch = gpu::LaunchOp::create(
      b, loc, grid, c1, c1, constIndex(b, loc, threads), c1, c1,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, /*workgroupAttributions=*/workgroup);
  Block &block = launch.getBody().front();
  b.setInsertionPointToStart(&block);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&block);
  body(b, launch.getBlockIds().x, launch.getThreadIds().x,
       launch.getWorkgroupAttributions());
}

/// `buildLaunch` unless `grid` is 0 (no launch: an error on a GPU).
inline void buildLaunchIfAny(
    OpBuilder &b, Location loc, Value grid, int64_t threads,
    ArrayRef<Type> workgroup,
    function_ref<void(OpBuilder &, Value block, Value tid, ValueRange)> body) {
  std::optional<int64_t> n = getConstantIntValue(grid);
  if (n && *n == 0)
    return;
  if (n) {
    buildLaunch(b, loc, grid, threads, workgroup, body);
    return;
  }
  buildIf(b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, grid,
                                constIndex(b, loc, 0)),
          [&](OpBuilder &b) {
            buildLaunch(b, loc, grid, threads, workgroup, body);
          });
}

/// Extent `d` of the memref `buffer`: a constant where it is static (a
/// constant grid needs no host branch around its launch, and may share a
/// launch: --sift-gpu-merge-launches).
inline Value extentOf(OpBuilder &b, Location loc, Value buffer, int64_t d) {
  return getValueOrCreateConstantIndexOp(
      b, loc, memref::getMixedSize(b, loc, buffer, d));
}

/// A launch of a thread per element of [0, count), `body(i)` for each.
inline void buildElementLaunch(OpBuilder &b, Location loc, Value count,
                               int64_t threads,
                               function_ref<void(OpBuilder &, Value i)> body) {
  // (Folded: a constant grid needs no host branch around the launch.)
  Value grid = b.createOrFold<arith::CeilDivUIOp>(loc, count,
                                                  constIndex(b, loc, threads));
  buildLaunchIfAny(
      b, loc, grid, threads, {},
      [&](OpBuilder &b, Value block, Value tid, ValueRange) {
        Value i = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, block, constIndex(b, loc, threads)),
            tid);
        buildIf(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, count),
            [&](OpBuilder &b) { body(b, i); });
      });
}

/// The product of `sizes` (1 for none), folded where they are constants.
inline OpFoldResult productOf(OpBuilder &b, Location loc,
                              ArrayRef<OpFoldResult> sizes) {
  AffineExpr expr = getAffineConstantExpr(1, b.getContext());
  for (size_t i = 0; i < sizes.size(); ++i)
    expr = expr * getAffineSymbolExpr(i, b.getContext());
  return affine::makeComposedFoldedAffineApply(
      b, loc, AffineMap::get(0, sizes.size(), expr), sizes);
}

/// A new 1-D buffer of `size` elements of `elt`.
inline Value allocBuffer(OpBuilder &b, Location loc, OpFoldResult size,
                         Type elt) {
  std::optional<int64_t> n = getConstantIntValue(size);
  SmallVector<Value> dynamic;
  if (!n)
    dynamic.push_back(cast<Value>(size));
  return memref::AllocOp::create(
      b, loc, MemRefType::get({n ? *n : ShapedType::kDynamic}, elt), dynamic);
}

/// The attribute that marks a kernel call and names its kernel.
constexpr llvm::StringLiteral kKernelAttr = "sift.gpu_kernel";

/// `func.call @__sift_gpu_<kind>(operands)` to a private declaration, marked
/// with the kernel to build and `attrs`.
inline func::CallOp createKernelCall(OpBuilder &b, Location loc,
                                     Operation *anchor, StringRef kind,
                                     ValueRange operands,
                                     ArrayRef<NamedAttribute> attrs) {
  auto module = anchor->getParentOfType<ModuleOp>();
  OpBuilder declBuilder = OpBuilder::atBlockEnd(module.getBody());
  auto decl =
      func::FuncOp::create(declBuilder, loc, ("__sift_gpu_" + kind).str(),
                           b.getFunctionType(TypeRange(operands), {}));
  decl.setPrivate();
  SymbolTable(module).insert(decl); // a unique name
  auto call = func::CallOp::create(b, loc, decl, operands);
  call->setAttr(kKernelAttr, b.getStringAttr(kind));
  for (NamedAttribute attr : attrs)
    call->setAttr(attr.getName(), attr.getValue());
  return call;
}

/// The buffer of a tensor operand, read only.
inline Value toBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), tensor,
      /*read_only=*/true);
}

/// The tensor of a result buffer the kernel wrote.
inline Value toTensor(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  return bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get(type.getShape(), type.getElementType()),
      buffer, /*restrict=*/true, /*writable=*/true);
}

/// Replaces the result of `op` with the kernel's flat result buffer `out`,
/// seen as `type` of sizes `sizes`, and erases `op`.
inline void replaceWithFlatResult(OpBuilder &b, Operation *op, Value out,
                                  RankedTensorType type,
                                  ArrayRef<OpFoldResult> sizes) {
  Location loc = op->getLoc();
  op->getResult(0).replaceAllUsesWith(
      lowering::unflatten(b, loc, toTensor(b, loc, out), type, sizes));
  op->erase();
}

/// sift.cross_entropy (LossKernels.cpp): its buffers and the call of the
/// `cross_entropy` kernel; fails (leaving the op to the linalg lowering) for
/// logits of a float type the CPU lowering does not compute either.
LogicalResult convertCrossEntropy(CrossEntropyOp op);

/// The launches of a `cross_entropy` kernel call, and the host's check of
/// its error word; an error at the call when its operands are not the
/// kernel's.
LogicalResult expandCrossEntropyCall(OpBuilder &b, func::CallOp call,
                                     int64_t threads);

/// sift.scatter (ScatterKernels.cpp): its buffers and the call of the
/// `scatter` kernel; fails (leaving the op to the linalg lowering's
/// sequential loop) where the kernels do not apply: trailing extents not
/// static, or a reduce of an element type with no 32- or 64-bit atomic.
/// `distinct`: no two lanes of an item land on the same row
/// (`hasDistinctIndices`, asked before the ops around it are converted).
LogicalResult convertScatter(ScatterOp op, bool distinct);

/// Whether every item's lanes of `op` are one line of distinct indices
/// (negative padding aside), by how its indices were made: a permutation
/// (argsort, a sort's indices, randperm and its prefixes) or a selection of
/// distinct positions (top-k, a compaction padded with a negative fill).
bool hasDistinctIndices(ScatterOp op);

/// The launches of a `scatter` kernel call; an error at the call when its
/// operands are not the kernel's.
LogicalResult expandScatterCall(OpBuilder &b, func::CallOp call,
                                int64_t threads);

/// Rows [rows, n] of Philox words (RandomKernels.cpp): row r holds words
/// 0 .. n-1 of the stream (seed[p], offset[p] + q), p = r / rowsPerSeed and
/// q = r % rowsPerSeed, with `seed` and `offset` each an i64 or a 1-D
/// tensor of one per p. The call of the `philox_words` kernel, and its
/// result as a tensor.
Value buildPhiloxWords(OpBuilder &b, Location loc, Operation *anchor,
                       OpFoldResult rows, OpFoldResult n, Value seed,
                       Value offset, int64_t rowsPerSeed);

/// The launch of a `philox_words` kernel call (a thread per Philox block of
/// a row); an error at the call when its operands are not the kernel's.
LogicalResult expandPhiloxCall(OpBuilder &b, func::CallOp call,
                               int64_t threads);

} // namespace gpu_kernels
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_CONVERSION_SIFTTOGPU_KERNELS_H
