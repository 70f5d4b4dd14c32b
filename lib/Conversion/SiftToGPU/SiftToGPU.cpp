//===- SiftToGPU.cpp - --convert-sift-to-gpu ------------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Data-dependent sift ops as block-level kernels (gpu.launch) built from the
// block primitives of BlockPrimitives.h: one block per row (a line along the
// last axis), the threads of the block striding over the row in tiles of
// one element per thread.
//
// The kernels read and write buffers: the op's tensor operand becomes a
// buffer (`bufferization.to_buffer`, read only), its result a new buffer
// (`memref.alloc`, turned into device memory by --sift-gpu-device-buffers)
// returned as a tensor (`bufferization.to_tensor restrict writable`), so the
// rest of the function stays on tensors for one-shot bufferization.
//
//===----------------------------------------------------------------------===//

#include "sift/Conversion/Passes.h"
#include "sift/Conversion/SiftToGPU/BlockPrimitives.h"
#include "sift/Dialect/Sift/IR/SiftOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_CONVERTSIFTTOGPU
#define GEN_PASS_DEF_SIFTGPUEXPANDKERNELS
#include "sift/Conversion/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::gpu_prims;

namespace {

/// A tensor seen as rows: `[B..., N]` as `[R, N]` with R the product of the
/// batch dimensions (1 for a 1-D tensor).
struct Rows {
  Value matrix; ///< the [R, N] tensor
  Value numRows, rowLength;
  std::optional<int64_t> staticRows, staticLength;
};

static Value constIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

static SmallVector<ReassociationIndices> rowsReassociation(int64_t rank) {
  if (rank == 1)
    return {{0, 1}};
  ReassociationIndices batch;
  for (int64_t i = 0; i + 1 < rank; ++i)
    batch.push_back(i);
  return {batch, {rank - 1}};
}

static Rows asRows(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, tensor);
  Rows rows;
  // R = product of the batch sizes.
  AffineExpr product = getAffineConstantExpr(1, b.getContext());
  SmallVector<OpFoldResult> batch(sizes.begin(), sizes.end() - 1);
  for (int64_t i = 0; i + 1 < rank; ++i)
    product = product * getAffineSymbolExpr(i, b.getContext());
  OpFoldResult numRows = affine::makeComposedFoldedAffineApply(
      b, loc, AffineMap::get(0, rank - 1, product), batch);
  rows.staticRows = getConstantIntValue(numRows);
  rows.staticLength = getConstantIntValue(sizes.back());
  rows.numRows = getValueOrCreateConstantIndexOp(b, loc, numRows);
  rows.rowLength = getValueOrCreateConstantIndexOp(b, loc, sizes.back());
  SmallVector<int64_t> shape = {rows.staticRows ? *rows.staticRows
                                                : ShapedType::kDynamic,
                                type.getShape().back()};
  auto matrixType = RankedTensorType::get(shape, type.getElementType());
  if (rank == 1)
    rows.matrix = tensor::ExpandShapeOp::create(
        b, loc, matrixType, tensor, rowsReassociation(1),
        SmallVector<OpFoldResult>{b.getIndexAttr(1), sizes.back()});
  else if (rank == 2)
    rows.matrix = tensor;
  else
    rows.matrix = tensor::CollapseShapeOp::create(b, loc, matrixType, tensor,
                                                  rowsReassociation(rank));
  return rows;
}

/// `x != 0` (NaN is non-zero, -0.0 is zero), as `sift.count` counts.
static Value isNonZero(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType();
  if (type.isInteger(1))
    return x;
  if (isa<FloatType>(type))
    return arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::UNE, x,
        arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0.0)));
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, x,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0)));
}

/// The kernels' common frame.
struct KernelShape {
  int64_t threads;
  int64_t numWarps() const { return threads / kWarpSize; }
};

/// Threads per block: `maxThreads`, or fewer whole warps for a short static
/// row.
static KernelShape kernelShape(const Rows &rows, int64_t maxThreads) {
  int64_t threads = maxThreads;
  if (rows.staticLength) {
    int64_t warps =
        std::max<int64_t>(1, (*rows.staticLength + kWarpSize - 1) / kWarpSize);
    threads = std::min(threads, warps * kWarpSize);
  }
  return {threads};
}

/// A gpu.launch of one block per row with `shape.threads` threads and one
/// workgroup buffer of 32 `scratchType` elements. `body` builds the kernel
/// (before its terminator) from the row and the thread id. A launch of no
/// block is skipped: it is an error on a GPU.
static void buildRowLaunch(
    OpBuilder &b, Location loc, const Rows &rows, KernelShape shape,
    Type scratchType,
    function_ref<void(OpBuilder &, Value row, Value tid, Value scratch)> body) {
  OpBuilder::InsertionGuard guard(b);
  if (rows.staticRows && *rows.staticRows == 0)
    return;
  if (!rows.staticRows) {
    Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                      rows.numRows, constIndex(b, loc, 0));
    auto ifOp = scf::IfOp::create(b, loc, any, /*withElse=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
  }
  Value c1 = constIndex(b, loc, 1);
  auto launch = gpu::LaunchOp::create(
      b, loc, rows.numRows, c1, c1, constIndex(b, loc, shape.threads), c1, c1,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{},
      /*workgroupAttributions=*/
      TypeRange{workgroupBufferType({kWarpSize}, scratchType)});
  Block &block = launch.getBody().front();
  b.setInsertionPointToStart(&block);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&block);
  body(b, launch.getBlockIds().x, launch.getThreadIds().x,
       launch.getWorkgroupAttributions()[0]);
}

/// The loop over the tiles of a row: `for tile in [0, ceil(N / T))` with
/// `inits` carried; `body` gets the element index `tile * T + tid`, whether
/// it is in the row, and the carried values.
static ValueRange
buildTileLoop(OpBuilder &b, Location loc, Value rowLength, int64_t threads,
              Value tid, ValueRange inits,
              function_ref<SmallVector<Value>(OpBuilder &, Value i, Value inRow,
                                              ValueRange carried)>
                  body) {
  Value t = constIndex(b, loc, threads);
  // (N + T - 1) / T
  Value numTiles = arith::DivUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, rowLength, constIndex(b, loc, threads - 1)),
      t);
  auto loop = scf::ForOp::create(
      b, loc, constIndex(b, loc, 0), numTiles, constIndex(b, loc, 1), inits,
      [&](OpBuilder &b, Location loc, Value tile, ValueRange carried) {
        Value i = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, tile, t), tid);
        Value inRow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            i, rowLength);
        scf::YieldOp::create(b, loc, body(b, i, inRow, carried));
      });
  return loop.getResults();
}

/// `inRow ? f() : zero` without reading past the row.
static Value loadIfInRow(OpBuilder &b, Location loc, Value inRow,
                         function_ref<Value(OpBuilder &)> load, Value zero) {
  auto ifOp = scf::IfOp::create(
      b, loc, inRow,
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, load(b));
      },
      [&](OpBuilder &b, Location loc) { scf::YieldOp::create(b, loc, zero); });
  return ifOp.getResult(0);
}

static Value toBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), tensor,
      /*read_only=*/true);
}

/// A new buffer of `type` (dynamic sizes from `sizes`) and its tensor.
static Value allocLike(OpBuilder &b, Location loc, RankedTensorType type,
                       ArrayRef<Value> dynamicSizes) {
  return memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()),
      dynamicSizes);
}

static Value toTensor(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  return bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get(type.getShape(), type.getElementType()),
      buffer, /*restrict=*/true, /*writable=*/true);
}

/// The rows of an [R, N] buffer.
static Rows rowsOfBuffer(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  Rows rows;
  rows.matrix = buffer;
  rows.numRows = memref::DimOp::create(b, loc, buffer, 0);
  rows.rowLength = memref::DimOp::create(b, loc, buffer, 1);
  if (!type.isDynamicDim(0))
    rows.staticRows = type.getDimSize(0);
  if (!type.isDynamicDim(1))
    rows.staticLength = type.getDimSize(1);
  return rows;
}

/// Thread 0 of the block stores `value` at `memref[row]` (a row's count).
static void storeFromThread0(OpBuilder &b, Location loc, Value tid, Value value,
                             Value memref, Value row) {
  Value isThread0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                          constIndex(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, isThread0, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  memref::StoreOp::create(b, loc, value, memref, ValueRange{row});
}

/// The count kernel: per tile, a ballot of the non-zero lanes and its
/// popcount (each warp's count, the same in all its lanes), summed over the
/// tiles; then the warps' counts are summed by a block reduction and thread
/// 0 writes the row's count (i64) into `output` [R].
static void buildCountKernel(OpBuilder &b, Location loc, Value input,
                             Value output, int64_t maxThreads) {
  Rows rows = rowsOfBuffer(b, loc, input);
  KernelShape shape = kernelShape(rows, maxThreads);
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  buildRowLaunch(
      b, loc, rows, shape, i32,
      [&](OpBuilder &b, Value row, Value tid, Value scratch) {
        Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
        Value warpCount =
            buildTileLoop(
                b, loc, rows.rowLength, shape.threads, tid, ValueRange{zero},
                [&](OpBuilder &b, Value i, Value inRow, ValueRange carried) {
                  Value set = loadIfInRow(
                      b, loc, inRow,
                      [&](OpBuilder &b) {
                        return isNonZero(
                            b, loc,
                            memref::LoadOp::create(b, loc, input,
                                                   ValueRange{row, i}));
                      },
                      arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0));
                  Value mask = warpBallot(b, loc, set);
                  return SmallVector<Value>{arith::AddIOp::create(
                      b, loc, carried[0], popCount(b, loc, mask))};
                })
                .front();
        // One contribution per warp.
        Value first = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq, laneId(b, loc),
            arith::ConstantIntOp::create(b, loc, i32, 0));
        Value mine = arith::SelectOp::create(b, loc, first, warpCount, zero);
        Value total = blockReduce(b, loc, mine, gpu::AllReduceOperation::ADD,
                                  scratch, shape.numWarps());
        storeFromThread0(b, loc, tid,
                         arith::ExtUIOp::create(b, loc, i64, total), output,
                         row);
      });
}

/// The cumsum kernel (along the rows): per tile, a block scan of the tile's
/// elements plus the carry of the tiles before; the tile's total is added
/// to the carry.
static void buildCumsumKernel(OpBuilder &b, Location loc, Value input,
                              Value output, bool exclusive,
                              int64_t maxThreads) {
  Rows rows = rowsOfBuffer(b, loc, input);
  KernelShape shape = kernelShape(rows, maxThreads);
  Type resultElt = cast<MemRefType>(output.getType()).getElementType();
  buildRowLaunch(
      b, loc, rows, shape, resultElt,
      [&](OpBuilder &b, Value row, Value tid, Value scratch) {
        Value zero = identity(b, loc, gpu::AllReduceOperation::ADD, resultElt);
        buildTileLoop(
            b, loc, rows.rowLength, shape.threads, tid, ValueRange{zero},
            [&](OpBuilder &b, Value i, Value inRow, ValueRange carried) {
              Value x = loadIfInRow(
                  b, loc, inRow,
                  [&](OpBuilder &b) -> Value {
                    Value x = memref::LoadOp::create(b, loc, input,
                                                     ValueRange{row, i});
                    if (x.getType() != resultElt)
                      x = arith::ExtUIOp::create(b, loc, resultElt, x);
                    return x;
                  },
                  zero);
              BlockScan scan =
                  blockScan(b, loc, x, gpu::AllReduceOperation::ADD, scratch,
                            shape.numWarps());
              Value prefix =
                  combine(b, loc, gpu::AllReduceOperation::ADD, carried[0],
                          exclusive ? scan.exclusive : scan.inclusive);
              auto ifOp = scf::IfOp::create(b, loc, inRow, /*withElse=*/false);
              {
                OpBuilder::InsertionGuard guard(b);
                b.setInsertionPointToStart(ifOp.thenBlock());
                memref::StoreOp::create(b, loc, prefix, output,
                                        ValueRange{row, i});
              }
              return SmallVector<Value>{combine(b, loc,
                                                gpu::AllReduceOperation::ADD,
                                                carried[0], scan.total)};
            });
      });
}

/// The compact kernel: per tile (while fewer than K are found), each set
/// lane's stable position from a ballot scan; a lane whose position is
/// below K writes its index; the tile's total joins the carry. Then the
/// threads fill the slots past the count and thread 0 writes the count,
/// min(count_nonzero, K).
static void buildCompactKernel(OpBuilder &b, Location loc, Value input,
                               Value indices, Value counts, int64_t fill,
                               int64_t maxThreads) {
  Rows rows = rowsOfBuffer(b, loc, input);
  KernelShape shape = kernelShape(rows, maxThreads);
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  int64_t k = cast<MemRefType>(indices.getType()).getDimSize(1);
  buildRowLaunch(
      b, loc, rows, shape, i32,
      [&](OpBuilder &b, Value row, Value tid, Value scratch) {
        Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
        Value kI32 = arith::ConstantIntOp::create(b, loc, i32, k);
        Value found =
            buildTileLoop(
                b, loc, rows.rowLength, shape.threads, tid, ValueRange{zero},
                [&](OpBuilder &b, Value i, Value inRow, ValueRange carried) {
                  // Stop once K are found (the carry is the same in every
                  // thread, so the whole block takes the same branch).
                  Value more = arith::CmpIOp::create(
                      b, loc, arith::CmpIPredicate::slt, carried[0], kI32);
                  auto tile = scf::IfOp::create(
                      b, loc, more,
                      [&](OpBuilder &b, Location loc) {
                        Value set = loadIfInRow(
                            b, loc, inRow,
                            [&](OpBuilder &b) {
                              return isNonZero(
                                  b, loc,
                                  memref::LoadOp::create(b, loc, input,
                                                         ValueRange{row, i}));
                            },
                            arith::ConstantIntOp::create(b, loc, b.getI1Type(),
                                                         0));
                        BallotScan scan = blockBallotScan(b, loc, set, scratch,
                                                          shape.numWarps());
                        Value pos = arith::AddIOp::create(b, loc, carried[0],
                                                          scan.position);
                        Value write = arith::AndIOp::create(
                            b, loc, set,
                            arith::CmpIOp::create(
                                b, loc, arith::CmpIPredicate::slt, pos, kI32));
                        auto ifOp = scf::IfOp::create(b, loc, write,
                                                      /*withElse=*/false);
                        {
                          OpBuilder::InsertionGuard guard(b);
                          b.setInsertionPointToStart(ifOp.thenBlock());
                          Value slot = arith::IndexCastUIOp::create(
                              b, loc, b.getIndexType(), pos);
                          memref::StoreOp::create(
                              b, loc,
                              arith::IndexCastUIOp::create(b, loc, i64, i),
                              indices, ValueRange{row, slot});
                        }
                        scf::YieldOp::create(
                            b, loc,
                            ValueRange{arith::AddIOp::create(b, loc, carried[0],
                                                             scan.total)});
                      },
                      [&](OpBuilder &b, Location loc) {
                        scf::YieldOp::create(b, loc, carried[0]);
                      });
                  return SmallVector<Value>{tile.getResult(0)};
                })
                .front();
        Value count = arith::MinSIOp::create(b, loc, found, kI32);
        // Slots count..K-1 get the fill, strided over the threads.
        Value first = arith::AddIOp::create(
            b, loc,
            arith::IndexCastUIOp::create(b, loc, b.getIndexType(), count), tid);
        Value fillValue = arith::ConstantIntOp::create(b, loc, i64, fill);
        scf::ForOp::create(
            b, loc, first, constIndex(b, loc, k),
            constIndex(b, loc, shape.threads), ValueRange{},
            [&](OpBuilder &b, Location loc, Value slot, ValueRange) {
              memref::StoreOp::create(b, loc, fillValue, indices,
                                      ValueRange{row, slot});
              scf::YieldOp::create(b, loc);
            });
        storeFromThread0(b, loc, tid,
                         arith::ExtUIOp::create(b, loc, i64, count), counts,
                         row);
      });
}

/// The attribute that marks a kernel call and names its kernel.
static constexpr llvm::StringLiteral kKernelAttr = "sift.gpu_kernel";

/// `func.call @__sift_gpu_<kind>(operands)` to a private declaration, marked
/// with the kernel to build and `attrs`.
static void createKernelCall(OpBuilder &b, Location loc, Operation *anchor,
                             StringRef kind, ValueRange operands,
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
}

/// The [R] count of rows as the op's `[B...]` result type.
static Value reshapeCounts(OpBuilder &b, Location loc, Value counts,
                           Value input, RankedTensorType resultType) {
  Value result = counts;
  if (resultType.getRank() == 0) {
    result = tensor::CollapseShapeOp::create(b, loc, resultType, result,
                                             ArrayRef<ReassociationIndices>{});
  } else if (resultType.getRank() > 1) {
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
    sizes.pop_back();
    ReassociationIndices all;
    for (int64_t i = 0; i < resultType.getRank(); ++i)
      all.push_back(i);
    result = tensor::ExpandShapeOp::create(
        b, loc, resultType, result, ArrayRef<ReassociationIndices>{all}, sizes);
  }
  if (result.getType() != resultType)
    result = tensor::CastOp::create(b, loc, resultType, result);
  return result;
}

/// sift.count: the [R, N] input buffer, an [R] i64 result buffer, the
/// count kernel's call.
static LogicalResult convertCount(CountOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Rows rows = asRows(b, loc, op.getInput());
  Value input = toBuffer(b, loc, rows.matrix);
  SmallVector<Value> dynamicRows;
  if (!rows.staticRows)
    dynamicRows.push_back(rows.numRows);
  Value output =
      allocLike(b, loc,
                RankedTensorType::get(
                    {rows.staticRows ? *rows.staticRows : ShapedType::kDynamic},
                    b.getI64Type()),
                dynamicRows);
  createKernelCall(b, loc, op, "count", {input, output}, {});
  Value result =
      reshapeCounts(b, loc, toTensor(b, loc, output), op.getInput(),
                    cast<RankedTensorType>(op.getResult().getType()));
  op.getResult().replaceAllUsesWith(result);
  op.erase();
  return success();
}

/// sift.cumsum along the last axis: [R, N] in and out, the cumsum kernel's
/// call.
static LogicalResult convertCumsum(CumsumOp op) {
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  int64_t rank = inputType.getRank();
  auto dim = static_cast<int64_t>(op.getDim());
  if (dim < 0)
    dim += rank;
  if (dim != rank - 1)
    return failure(); // other axes stay with the CPU lowering
  Type resultElt = resultType.getElementType();
  // Shuffles of 32 and 64 bits.
  if (!resultElt.isInteger(32) && !resultElt.isInteger(64) &&
      !resultElt.isF32() && !resultElt.isF64())
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  Rows rows = asRows(b, loc, op.getInput());
  Value input = toBuffer(b, loc, rows.matrix);
  auto matrixType = cast<RankedTensorType>(rows.matrix.getType());
  SmallVector<Value> dynamicSizes;
  if (matrixType.isDynamicDim(0))
    dynamicSizes.push_back(rows.numRows);
  if (matrixType.isDynamicDim(1))
    dynamicSizes.push_back(rows.rowLength);
  Value output =
      allocLike(b, loc, RankedTensorType::get(matrixType.getShape(), resultElt),
                dynamicSizes);
  SmallVector<NamedAttribute> attrs;
  if (op.getExclusive())
    attrs.push_back(b.getNamedAttr("exclusive", b.getUnitAttr()));
  createKernelCall(b, loc, op, "cumsum", {input, output}, attrs);
  Value result = toTensor(b, loc, output);
  if (rank == 1) {
    result = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get(inputType.getShape(), resultElt), result,
        rowsReassociation(1));
  } else if (rank > 2) {
    result = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(inputType.getShape(), resultElt), result,
        rowsReassociation(rank), tensor::getMixedSizes(b, loc, op.getInput()));
  }
  if (result.getType() != resultType)
    result = tensor::CastOp::create(b, loc, resultType, result);
  op.getResult().replaceAllUsesWith(result);
  op.erase();
  return success();
}

/// sift.compact: the [R, N] mask, [R, K] indices and [R] counts, the
/// compact kernel's call.
static LogicalResult convertCompact(CompactOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
  auto countType = cast<RankedTensorType>(op.getCount().getType());
  int64_t k = indicesType.getShape().back();
  Rows rows = asRows(b, loc, op.getMask());
  Value input = toBuffer(b, loc, rows.matrix);
  SmallVector<Value> dynamicRows;
  if (!rows.staticRows)
    dynamicRows.push_back(rows.numRows);
  int64_t r = rows.staticRows ? *rows.staticRows : ShapedType::kDynamic;
  Type i64 = b.getI64Type();
  Value indices =
      allocLike(b, loc, RankedTensorType::get({r, k}, i64), dynamicRows);
  Value counts =
      allocLike(b, loc, RankedTensorType::get({r}, i64), dynamicRows);
  createKernelCall(b, loc, op, "compact", {input, indices, counts},
                   {b.getNamedAttr("fill", b.getI64IntegerAttr(op.getFill()))});
  Value indicesResult = toTensor(b, loc, indices);
  int64_t rank = indicesType.getRank();
  if (rank == 1) {
    indicesResult =
        tensor::CollapseShapeOp::create(b, loc, RankedTensorType::get({k}, i64),
                                        indicesResult, rowsReassociation(1));
  } else if (rank > 2) {
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(b, loc, op.getMask());
    sizes.back() = b.getIndexAttr(k);
    SmallVector<int64_t> shape(
        cast<RankedTensorType>(op.getMask().getType()).getShape());
    shape.back() = k;
    indicesResult = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(shape, i64), indicesResult,
        rowsReassociation(rank), sizes);
  }
  if (indicesResult.getType() != indicesType)
    indicesResult = tensor::CastOp::create(b, loc, indicesType, indicesResult);
  Value countResult =
      reshapeCounts(b, loc, toTensor(b, loc, counts), op.getMask(), countType);
  op.getIndices().replaceAllUsesWith(indicesResult);
  op.getCount().replaceAllUsesWith(countResult);
  op.erase();
  return success();
}

struct ConvertSiftToGpuPass
    : public sift::impl::ConvertSiftToGPUBase<ConvertSiftToGpuPass> {
  using ConvertSiftToGPUBase::ConvertSiftToGPUBase;

  void runOnOperation() override {
    // Ops directly in a function body: one nested in a loop (a --sift-fuse
    // row kernel) is already part of a kernel.
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<CountOp, CumsumOp, CompactOp>(op) &&
          isa<func::FuncOp>(op->getParentOp()))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      if (auto count = dyn_cast<CountOp>(op))
        (void)convertCount(count);
      else if (auto cumsum = dyn_cast<CumsumOp>(op))
        (void)convertCumsum(cumsum);
      else if (auto compact = dyn_cast<CompactOp>(op))
        (void)convertCompact(compact);
    }
  }
};

struct ExpandKernelsPass
    : public sift::impl::SiftGpuExpandKernelsBase<ExpandKernelsPass> {
  using SiftGpuExpandKernelsBase::SiftGpuExpandKernelsBase;

  void runOnOperation() override {
    if (threads < kWarpSize || threads > 1024 || threads % kWarpSize != 0) {
      emitError(getOperation().getLoc(),
                "sift-gpu-expand-kernels: threads must be a multiple of 32 in "
                "[32, 1024], not ")
          << static_cast<int64_t>(threads);
      return signalPassFailure();
    }
    SmallVector<func::CallOp> calls;
    getOperation()->walk([&](func::CallOp call) {
      if (call->hasAttr(kKernelAttr))
        calls.push_back(call);
    });
    SetVector<StringRef> callees;
    for (func::CallOp call : calls) {
      OpBuilder b(call);
      Location loc = call.getLoc();
      StringRef kind = call->getAttrOfType<StringAttr>(kKernelAttr).getValue();
      ValueRange args = call.getOperands();
      size_t numArgs = kind == "compact" ? 3 : 2;
      if (args.size() != numArgs ||
          !llvm::all_of(args.getTypes(), llvm::IsaPred<MemRefType>)) {
        call.emitOpError("sift-gpu-expand-kernels: the ")
            << kind << " kernel takes " << numArgs << " buffers";
        return signalPassFailure();
      }
      if (kind == "count") {
        buildCountKernel(b, loc, args[0], args[1], threads);
      } else if (kind == "compact") {
        auto fill = call->getAttrOfType<IntegerAttr>("fill");
        buildCompactKernel(b, loc, args[0], args[1], args[2],
                           fill ? fill.getInt() : -1, threads);
      } else if (kind == "cumsum") {
        buildCumsumKernel(b, loc, args[0], args[1], call->hasAttr("exclusive"),
                          threads);
      } else {
        call.emitOpError("sift-gpu-expand-kernels: unknown kernel ") << kind;
        return signalPassFailure();
      }
      callees.insert(call.getCallee());
      call.erase();
    }
    // The declarations no call uses any more.
    ModuleOp module = getOperation();
    for (StringRef name : callees) {
      auto decl = module.lookupSymbol<func::FuncOp>(name);
      if (decl && decl.isDeclaration() &&
          SymbolTable::symbolKnownUseEmpty(decl, module))
        decl.erase();
    }
  }
};
} // namespace
