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

#include "Kernels.h"

#include "sift/Conversion/Passes.h"
#include "sift/Conversion/SiftToGPU/BlockPrimitives.h"
#include "sift/Dialect/Sift/IR/SiftOps.h"
#include "sift/Dialect/Sift/IR/SortOrder.h"
#include "sift/Dialect/Sift/Transforms/Transforms.h"

#include "../../Transforms/GpuHostCode.h"
#include "../SiftToLinalg/Utils/CodegenUtils.h"
#include "../SiftToLinalg/Utils/Philox.h"
#include "../SiftToLinalg/Utils/RadixSort.h"
#include "../SiftToLinalg/Utils/RuntimeChecks.h"
#include "sift/Runtime/SiftRuntime.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_CONVERTSIFTTOGPU
#define GEN_PASS_DEF_SIFTGPUEXPANDKERNELS
#include "sift/Conversion/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::gpu_kernels;
using namespace mlir::sift::gpu_prims;

namespace {

/// A tensor seen as rows: `[B..., N]` as `[R, N]` with R the product of the
/// batch dimensions (1 for a 1-D tensor).
struct Rows {
  Value matrix; ///< the [R, N] tensor
  Value numRows, rowLength;
  std::optional<int64_t> staticRows, staticLength;
};

static SmallVector<ReassociationIndices> rowsReassociation(int64_t rank) {
  if (rank == 1)
    return {{0, 1}};
  ReassociationIndices batch;
  for (int64_t i = 0; i + 1 < rank; ++i)
    batch.push_back(i);
  return {batch, {rank - 1}};
}

/// `tensor` with a static type where extents its type leaves dynamic fold
/// to constants (a tensor.cast of a static tensor). The kernels' calls then
/// take buffers of the extents that what is chosen from them (bitonic or
/// radix sort, scratch, splits, a compaction's width) was chosen from.
/// `sizes` are the tensor's (`tensor::getMixedSizes`).
static Value withFoldedExtents(OpBuilder &b, Location loc, Value tensor,
                               ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<int64_t> known(type.getShape());
  for (auto [d, size] : llvm::enumerate(sizes))
    if (std::optional<int64_t> c = getConstantIntValue(size))
      known[d] = *c;
  if (ArrayRef(known) == type.getShape())
    return tensor;
  return tensor::CastOp::create(b, loc, type.clone(known), tensor);
}

static Value withFoldedExtents(OpBuilder &b, Location loc, Value tensor) {
  return withFoldedExtents(b, loc, tensor,
                           tensor::getMixedSizes(b, loc, tensor));
}

static Rows asRows(OpBuilder &b, Location loc, Value tensor) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, tensor);
  tensor = withFoldedExtents(b, loc, tensor, sizes);
  auto type = cast<RankedTensorType>(tensor.getType());
  int64_t rank = type.getRank();
  Rows rows;
  // R = product of the batch sizes.
  OpFoldResult numRows = productOf(b, loc, ArrayRef(sizes).drop_back());
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

/// A gpu.launch of one block per row with `shape.threads` threads, one
/// workgroup buffer of 32 `scratchType` elements and the workgroup buffers
/// of `extraWorkgroup`. `body` builds the kernel (before its terminator) from
/// the row, the thread id and the workgroup buffers. A launch of no block is
/// skipped: it is an error on a GPU.
static void buildRowLaunch(OpBuilder &b, Location loc, const Rows &rows,
                           KernelShape shape, Type scratchType,
                           ArrayRef<Type> extraWorkgroup,
                           function_ref<void(OpBuilder &, Value row, Value tid,
                                             Value scratch, ValueRange extra)>
                               body) {
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
  SmallVector<Type> workgroup = {workgroupBufferType({kWarpSize}, scratchType)};
  llvm::append_range(workgroup, extraWorkgroup);
  auto launch = gpu::LaunchOp::create(
      b, loc, rows.numRows, c1, c1, constIndex(b, loc, shape.threads), c1, c1,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{},
      /*workgroupAttributions=*/workgroup);
  Block &block = launch.getBody().front();
  b.setInsertionPointToStart(&block);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&block);
  ValueRange buffers = launch.getWorkgroupAttributions();
  body(b, launch.getBlockIds().x, launch.getThreadIds().x, buffers.front(),
       buffers.drop_front());
}

/// `buildRowLaunch` with the 32-element scratch buffer only.
static void buildRowLaunch(
    OpBuilder &b, Location loc, const Rows &rows, KernelShape shape,
    Type scratchType,
    function_ref<void(OpBuilder &, Value row, Value tid, Value scratch)> body) {
  buildRowLaunch(b, loc, rows, shape, scratchType, {},
                 [&](OpBuilder &b, Value row, Value tid, Value scratch,
                     ValueRange) { body(b, row, tid, scratch); });
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

/// Whether element `i` of the row of `input` is non-zero (`isNonZero`),
/// false past the range (`inRange` false: nothing is read).
static Value nonZeroInRange(OpBuilder &b, Location loc, Value input, Value row,
                            Value i, Value inRange) {
  return loadIfInRow(
      b, loc, inRange,
      [&](OpBuilder &b) {
        return isNonZero(
            b, loc, memref::LoadOp::create(b, loc, input, ValueRange{row, i}));
      },
      arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0));
}

/// The elements a count or compact kernel tests. Either a mask buffer
/// [R, N], whose non-zero elements are set, or the element-wise code that
/// computed the mask (`fuseMaskPredicate`): a function of the elements of
/// its inputs (each an [R, N] buffer) evaluated where the kernel reads the
/// element, so that the mask is never written, or written only (as bits,
/// `bits`) by the pass that computes it, for a later pass to read.
struct MaskSource {
  Value mask;
  func::FuncOp predicate;
  SmallVector<Value> inputs;
  /// Or the mask as bits [R, ceil(N / 32)] (i32 words, element i at bit
  /// i % 32 of word i / 32), as the counting launch of a split compaction
  /// writes it.
  Value bits;

  /// A buffer of the rows' shape.
  Value shapeBuffer() const { return mask ? mask : inputs.front(); }

  /// Whether element `i` of the row is set, false past the range (`inRange`
  /// false: nothing is read).
  Value isSet(OpBuilder &b, Location loc, Value row, Value i,
              Value inRange) const {
    if (mask)
      return nonZeroInRange(b, loc, mask, row, i, inRange);
    if (bits) {
      return loadIfInRow(
          b, loc, inRange,
          [&](OpBuilder &b) {
            Value c32 = constIndex(b, loc, kWarpSize);
            Value word = memref::LoadOp::create(
                b, loc, bits,
                ValueRange{row, arith::DivUIOp::create(b, loc, i, c32)});
            Value bit = arith::IndexCastUIOp::create(
                b, loc, b.getI32Type(), arith::RemUIOp::create(b, loc, i, c32));
            Value one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
            return arith::TruncIOp::create(
                b, loc, b.getI1Type(),
                arith::AndIOp::create(
                    b, loc, arith::ShRUIOp::create(b, loc, word, bit), one));
          },
          arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0));
    }
    return loadIfInRow(
        b, loc, inRange,
        [&](OpBuilder &b) {
          Block &body = func::FuncOp(predicate).getBody().front();
          IRMapping map;
          for (auto [arg, input] : llvm::zip_equal(body.getArguments(), inputs))
            map.map(arg,
                    memref::LoadOp::create(b, loc, input, ValueRange{row, i}));
          for (Operation &op : body.without_terminator())
            b.clone(op, map);
          return isNonZero(
              b, loc, map.lookupOrDefault(body.getTerminator()->getOperand(0)));
        },
        arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0));
  }
};

/// The attribute of a count or compact call that names the function its
/// mask's elements are computed by (`MaskSource`).
constexpr StringLiteral kMaskPredicateAttr = "mask_predicate";

/// The attribute of a compact call that writes a gather of its indices
/// through a permutation of its count (`PermutedStore`): the compaction's
/// K.
constexpr StringLiteral kPermuteAttr = "permute_k";

/// The mask source of a count or compact call: its first operand, or, with
/// a `mask_predicate`, one operand per argument of that function. Fails
/// when the function is not in the module or not one of one result of the
/// elements of those operands (each a buffer [R, N]).
static FailureOr<MaskSource> maskSourceOfCall(func::CallOp call) {
  MaskSource source;
  auto name = call->getAttrOfType<FlatSymbolRefAttr>(kMaskPredicateAttr);
  if (!name) {
    if (call.getNumOperands() == 0)
      return failure();
    source.mask = call.getOperand(0);
    return source;
  }
  source.predicate =
      SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, name.getAttr());
  if (!source.predicate || source.predicate.isDeclaration())
    return failure();
  unsigned n = source.predicate.getNumArguments();
  if (n == 0 || call.getNumOperands() < n ||
      source.predicate.getNumResults() != 1)
    return failure();
  for (auto [input, type] : llvm::zip(call.getOperands().take_front(n),
                                      source.predicate.getArgumentTypes())) {
    auto buffer = dyn_cast<MemRefType>(input.getType());
    if (!buffer || buffer.getRank() != 2 || buffer.getElementType() != type)
      return failure();
  }
  llvm::append_range(source.inputs, call.getOperands().take_front(n));
  return source;
}

/// The number of operands of a count or compact call its mask source takes.
static unsigned numMaskOperands(const MaskSource &source) {
  return source.mask ? 1 : source.inputs.size();
}

/// A new buffer of `type` (dynamic sizes from `sizes`) and its tensor.
static Value allocLike(OpBuilder &b, Location loc, RankedTensorType type,
                       ArrayRef<Value> dynamicSizes) {
  return memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()),
      dynamicSizes);
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

//===----------------------------------------------------------------------===//
// Rows split across blocks
//===----------------------------------------------------------------------===//

/// The largest grid y extent (the rows of a split launch).
static constexpr int64_t kMaxGridY = 65535;

/// How the kernels split long rows: aim at `targetBlocks` blocks in all,
/// none with fewer than `minSegment` elements of its row (0: never split).
struct SplitOptions {
  int64_t targetBlocks = 0;
  int64_t minSegment = 0;
  /// The fewest elements per block of a radix sort's split, once its row
  /// holds two of `minSegment` (0: minSegment).
  int64_t minSortSegment = 0;
  /// The bits of the digits of the radix passes split across blocks (a
  /// sort's, a selection's): kWideSortDigitBits, or 4.
  int64_t sortDigitBits = 8;
};

/// A row split across `segments` blocks, each over `length` consecutive
/// elements (whole warps; the last segment has the rest). A row of a
/// dynamic length N has `length` 0: its segments are
/// max(minLength, ceil(N / segments) rounded up to whole warps) long at run
/// time, so that a short row leaves the last segments empty.
struct RowSplit {
  int64_t segments;
  int64_t length;
  int64_t minLength = 0;
};

/// The split of rows: ceil(targetBlocks / R) blocks per row, as long as each
/// gets `minSegment` elements (`minSortSegment` for a radix sort, `sort`, of
/// a row long enough for two of `minSegment`); none (std::nullopt) when
/// that is fewer than 2, or for a dynamic number of rows. Rows of a dynamic
/// length split (`dynamicLength`) into ceil(targetBlocks / R) segments of a
/// length chosen at run time (`RowSplit`).
static std::optional<RowSplit> rowSplit(const Rows &rows, SplitOptions options,
                                        bool sort = false,
                                        bool dynamicLength = false) {
  if (options.targetBlocks <= 0 || !rows.staticRows || *rows.staticRows == 0 ||
      *rows.staticRows > kMaxGridY)
    return std::nullopt;
  int64_t r = *rows.staticRows;
  int64_t minSegment = std::max<int64_t>(options.minSegment, kWarpSize);
  if (!rows.staticLength) {
    int64_t segments = llvm::divideCeilSigned(options.targetBlocks, r);
    if (!dynamicLength || segments < 2)
      return std::nullopt;
    return RowSplit{segments, 0,
                    static_cast<int64_t>(llvm::alignTo(minSegment, kWarpSize))};
  }
  int64_t n = *rows.staticLength;
  if (n / minSegment < 2)
    return std::nullopt;
  if (sort && options.minSortSegment > 0)
    minSegment = std::max<int64_t>(options.minSortSegment, kWarpSize);
  int64_t segments = std::min<int64_t>(
      llvm::divideCeil(options.targetBlocks, r), n / minSegment);
  if (segments < 2)
    return std::nullopt;
  auto length = static_cast<int64_t>(
      llvm::alignTo(llvm::divideCeil(n, segments), kWarpSize));
  segments = static_cast<int64_t>(llvm::divideCeil(n, length));
  if (segments < 2)
    return std::nullopt;
  return RowSplit{segments, length};
}

/// The attributes that carry a split on a kernel call.
static SmallVector<NamedAttribute>
splitAttrs(OpBuilder &b, std::optional<RowSplit> split, StringRef prefix = "") {
  if (!split)
    return {};
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr((prefix + "segments").str(),
                     b.getI64IntegerAttr(split->segments)),
      b.getNamedAttr((prefix + "segment_length").str(),
                     b.getI64IntegerAttr(split->length))};
  if (split->length == 0)
    attrs.push_back(b.getNamedAttr((prefix + "segment_min_length").str(),
                                   b.getI64IntegerAttr(split->minLength)));
  return attrs;
}

/// The split of a kernel call's rows, if it has one.
static std::optional<RowSplit> splitOfCall(func::CallOp call,
                                           StringRef prefix = "") {
  auto segments = call->getAttrOfType<IntegerAttr>((prefix + "segments").str());
  auto length =
      call->getAttrOfType<IntegerAttr>((prefix + "segment_length").str());
  if (!segments || !length)
    return std::nullopt;
  auto minLength =
      call->getAttrOfType<IntegerAttr>((prefix + "segment_min_length").str());
  return RowSplit{segments.getInt(), length.getInt(),
                  minLength ? minLength.getInt() : 0};
}

/// A new static 1-D i32 buffer of `size` elements.
static Value allocI32(OpBuilder &b, Location loc, int64_t size) {
  return memref::AllocOp::create(b, loc,
                                 MemRefType::get({size}, b.getI32Type()));
}

/// One block's part of a split row: elements [begin, begin + length).
struct Segment {
  Value row, index, begin, length;
};

/// The length of the segments of `split` in a row of `rowLength` elements:
/// `split.length`, or for a dynamic row max(minLength, ceil(N / segments)
/// in whole warps).
static Value segmentLength(OpBuilder &b, Location loc, Value rowLength,
                           RowSplit split) {
  if (split.length > 0)
    return constIndex(b, loc, split.length);
  Value perSegment = arith::CeilDivUIOp::create(
      b, loc, rowLength, constIndex(b, loc, split.segments));
  Value warps = arith::CeilDivUIOp::create(b, loc, perSegment,
                                           constIndex(b, loc, kWarpSize));
  return arith::MaxUIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, warps, constIndex(b, loc, kWarpSize)),
      constIndex(b, loc, std::max<int64_t>(split.minLength, kWarpSize)));
}

/// A gpu.launch of a grid of (segments, R) blocks of `shape.threads`
/// threads, with the workgroup buffers of `buildRowLaunch`; `body` builds
/// the kernel from the block's segment.
static void
buildSegmentLaunch(OpBuilder &b, Location loc, const Rows &rows, RowSplit split,
                   KernelShape shape, Type scratchType,
                   ArrayRef<Type> extraWorkgroup,
                   function_ref<void(OpBuilder &, const Segment &, Value tid,
                                     Value scratch, ValueRange extra)>
                       body) {
  OpBuilder::InsertionGuard guard(b);
  Value c1 = constIndex(b, loc, 1);
  SmallVector<Type> workgroup = {workgroupBufferType({kWarpSize}, scratchType)};
  llvm::append_range(workgroup, extraWorkgroup);
  auto launch = gpu::LaunchOp::create(
      b, loc, constIndex(b, loc, split.segments), rows.numRows, c1,
      constIndex(b, loc, shape.threads), c1, c1,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{},
      /*workgroupAttributions=*/workgroup);
  Block &block = launch.getBody().front();
  b.setInsertionPointToStart(&block);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&block);
  Segment segment;
  segment.row = launch.getBlockIds().y;
  segment.index = launch.getBlockIds().x;
  Value length = segmentLength(b, loc, rows.rowLength, split);
  // (Past the row, for the empty segments of a short dynamic row.)
  segment.begin = arith::MinUIOp::create(
      b, loc, arith::MulIOp::create(b, loc, segment.index, length),
      rows.rowLength);
  segment.length = arith::MinUIOp::create(
      b, loc, length,
      arith::SubIOp::create(b, loc, rows.rowLength, segment.begin));
  ValueRange buffers = launch.getWorkgroupAttributions();
  body(b, segment, launch.getThreadIds().x, buffers.front(),
       buffers.drop_front());
}

/// A launch that sets every element of the static 1-D `buffer` to zero
/// (the totals that split blocks add to with atomics).
static void buildClearLaunch(OpBuilder &b, Location loc, Value buffer,
                             int64_t threads) {
  OpBuilder::InsertionGuard guard(b);
  auto type = cast<MemRefType>(buffer.getType());
  int64_t n = type.getDimSize(0);
  Value c1 = constIndex(b, loc, 1);
  auto launch = gpu::LaunchOp::create(
      b, loc, constIndex(b, loc, llvm::divideCeil(n, threads)), c1, c1,
      constIndex(b, loc, threads), c1, c1);
  Block &block = launch.getBody().front();
  b.setInsertionPointToStart(&block);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&block);
  Value i = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                            constIndex(b, loc, threads)),
      launch.getThreadIds().x);
  buildIf(b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i,
                                constIndex(b, loc, n)),
          [&](OpBuilder &b) {
            memref::StoreOp::create(
                b, loc,
                arith::ConstantOp::create(b, loc,
                                          b.getZeroAttr(type.getElementType())),
                buffer, ValueRange{i});
          });
}

/// For each of the predicates `preds` gives an element (an i1 each; false
/// past the range), how many elements of [begin, begin + length) of the
/// row it holds for: per tile, `popc(ballot)` (the warp's count, in every
/// lane) summed over the tiles, then a block reduction of the warps'
/// counts. An i32 per predicate, in every thread. `onBallots`, if given,
/// gets each tile's ballots (i32: bit l is lane l's element) in every
/// thread, with the thread's element and whether it is in the range.
static SmallVector<Value> blockCountRange(
    OpBuilder &b, Location loc, Value begin, Value length, Value tid,
    Value scratch, KernelShape shape, unsigned numPreds,
    function_ref<SmallVector<Value>(OpBuilder &, Value i, Value inRange)> preds,
    function_ref<void(OpBuilder &, Value i, Value inRange, ValueRange ballots)>
        onBallots = nullptr) {
  Type i32 = b.getI32Type();
  Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
  SmallVector<Value> inits(numPreds, zero);
  ValueRange warpCounts = buildTileLoop(
      b, loc, length, shape.threads, tid, inits,
      [&](OpBuilder &b, Value i, Value inRange, ValueRange carried) {
        Value at = arith::AddIOp::create(b, loc, begin, i);
        SmallVector<Value> sets = preds(b, at, inRange);
        SmallVector<Value> ballots, next;
        for (Value set : sets)
          ballots.push_back(warpBallot(b, loc, set));
        if (onBallots)
          onBallots(b, at, inRange, ballots);
        for (auto [ballot, count] : llvm::zip_equal(ballots, carried))
          next.push_back(
              arith::AddIOp::create(b, loc, count, popCount(b, loc, ballot)));
        return next;
      });
  // One contribution per warp.
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, laneId(b, loc),
                            arith::ConstantIntOp::create(b, loc, i32, 0));
  SmallVector<Value> totals;
  for (Value count : warpCounts)
    totals.push_back(
        blockReduce(b, loc, arith::SelectOp::create(b, loc, first, count, zero),
                    gpu::AllReduceOperation::ADD, scratch, shape.numWarps()));
  return totals;
}

/// The sum of `buffer[base + s * stride]` over s in [0, end), in every
/// thread (the totals of the segments before a block's own).
static Value sumOfSlots(OpBuilder &b, Location loc, Value buffer, Value base,
                        Value end, int64_t stride = 1) {
  Type elt = cast<MemRefType>(buffer.getType()).getElementType();
  auto loop = scf::ForOp::create(
      b, loc, constIndex(b, loc, 0), end, constIndex(b, loc, 1),
      ValueRange{arith::ConstantOp::create(b, loc, b.getZeroAttr(elt))},
      [&](OpBuilder &b, Location loc, Value s, ValueRange carried) {
        Value at = arith::AddIOp::create(
            b, loc, base,
            arith::MulIOp::create(b, loc, s, constIndex(b, loc, stride)));
        Value x = memref::LoadOp::create(b, loc, buffer, ValueRange{at});
        scf::YieldOp::create(
            b, loc,
            ValueRange{
                combine(b, loc, gpu::AllReduceOperation::ADD, carried[0], x)});
      });
  return loop.getResult(0);
}

/// The count kernel: per tile, a ballot of the non-zero lanes and its
/// popcount, summed over the tiles, then a block reduction of the warps'
/// counts (`blockCountRange`); thread 0 writes the row's count (i64) into
/// `output` [R]. A long row split across blocks: the output is cleared
/// first, and each block adds its segment's count (an atomic add, exact in
/// any order).
static void buildCountKernel(OpBuilder &b, Location loc,
                             const MaskSource &input, Value output,
                             int64_t maxThreads,
                             std::optional<RowSplit> split) {
  Rows rows = rowsOfBuffer(b, loc, input.shapeBuffer());
  KernelShape shape = kernelShape(rows, maxThreads);
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  auto nonZeroAt = [&](Value row) {
    return [&, row](OpBuilder &b, Value i, Value inRange) {
      return SmallVector<Value>{input.isSet(b, loc, row, i, inRange)};
    };
  };
  if (split) {
    buildClearLaunch(b, loc, output, shape.threads);
    buildSegmentLaunch(
        b, loc, rows, *split, shape, i32, {},
        [&](OpBuilder &b, const Segment &seg, Value tid, Value scratch,
            ValueRange) {
          Value total = blockCountRange(b, loc, seg.begin, seg.length, tid,
                                        scratch, shape, 1, nonZeroAt(seg.row))
                            .front();
          Value isThread0 = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::eq, tid, constIndex(b, loc, 0));
          buildIf(b, loc, isThread0, [&](OpBuilder &b) {
            memref::AtomicRMWOp::create(
                b, loc, arith::AtomicRMWKind::addi,
                arith::ExtUIOp::create(b, loc, i64, total), output,
                ValueRange{seg.row});
          });
        });
    return;
  }
  buildRowLaunch(b, loc, rows, shape, i32,
                 [&](OpBuilder &b, Value row, Value tid, Value scratch) {
                   Value total = blockCountRange(b, loc, constIndex(b, loc, 0),
                                                 rows.rowLength, tid, scratch,
                                                 shape, 1, nonZeroAt(row))
                                     .front();
                   storeFromThread0(b, loc, tid,
                                    arith::ExtUIOp::create(b, loc, i64, total),
                                    output, row);
                 });
}

/// The cumsum kernel (along the rows): per tile, a block scan of the tile's
/// elements plus the carry of the tiles before; the tile's total is added
/// to the carry. A long row split across blocks (reduce, then scan): a
/// first launch writes each segment's total into `totals` [R * segments]
/// (each thread's sum over its elements, then a block reduction); in a
/// second, each block scans its segment from the sum of the totals before
/// it, in segment order.
static void buildCumsumKernel(OpBuilder &b, Location loc, Value input,
                              Value output, bool exclusive, int64_t maxThreads,
                              std::optional<RowSplit> split, Value totals) {
  Rows rows = rowsOfBuffer(b, loc, input);
  KernelShape shape = kernelShape(rows, maxThreads);
  Type resultElt = cast<MemRefType>(output.getType()).getElementType();
  auto add = gpu::AllReduceOperation::ADD;
  // Element `i` of the row (of the result's type), zero past the range.
  auto elementAt = [&](OpBuilder &b, Value row, Value i, Value inRange) {
    return loadIfInRow(
        b, loc, inRange,
        [&](OpBuilder &b) -> Value {
          Value x = memref::LoadOp::create(b, loc, input, ValueRange{row, i});
          if (x.getType() != resultElt)
            x = arith::ExtUIOp::create(b, loc, resultElt, x);
          return x;
        },
        identity(b, loc, add, resultElt));
  };
  // The scan of [begin, begin + length) of the row from `carry`.
  auto scanRange = [&](OpBuilder &b, Value row, Value tid, Value scratch,
                       Value begin, Value length, Value carry) {
    buildTileLoop(
        b, loc, length, shape.threads, tid, ValueRange{carry},
        [&](OpBuilder &b, Value i, Value inRange, ValueRange carried) {
          Value at = arith::AddIOp::create(b, loc, begin, i);
          Value x = elementAt(b, row, at, inRange);
          BlockScan scan = blockScan(b, loc, x, add, scratch, shape.numWarps());
          Value prefix = combine(b, loc, add, carried[0],
                                 exclusive ? scan.exclusive : scan.inclusive);
          buildIf(b, loc, inRange, [&](OpBuilder &b) {
            memref::StoreOp::create(b, loc, prefix, output,
                                    ValueRange{row, at});
          });
          return SmallVector<Value>{
              combine(b, loc, add, carried[0], scan.total)};
        });
  };
  if (split) {
    Value numSegments = constIndex(b, loc, split->segments);
    buildSegmentLaunch(
        b, loc, rows, *split, shape, resultElt, {},
        [&](OpBuilder &b, const Segment &seg, Value tid, Value scratch,
            ValueRange) {
          Value sum =
              buildTileLoop(b, loc, seg.length, shape.threads, tid,
                            ValueRange{identity(b, loc, add, resultElt)},
                            [&](OpBuilder &b, Value i, Value inRange,
                                ValueRange carried) {
                              Value at =
                                  arith::AddIOp::create(b, loc, seg.begin, i);
                              return SmallVector<Value>{
                                  combine(b, loc, add, carried[0],
                                          elementAt(b, seg.row, at, inRange))};
                            })
                  .front();
          Value total =
              blockReduce(b, loc, sum, add, scratch, shape.numWarps());
          Value slot = arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, seg.row, numSegments),
              seg.index);
          storeFromThread0(b, loc, tid, total, totals, slot);
        });
    buildSegmentLaunch(
        b, loc, rows, *split, shape, resultElt, {},
        [&](OpBuilder &b, const Segment &seg, Value tid, Value scratch,
            ValueRange) {
          Value base = arith::MulIOp::create(b, loc, seg.row, numSegments);
          Value carry = sumOfSlots(b, loc, totals, base, seg.index);
          scanRange(b, seg.row, tid, scratch, seg.begin, seg.length, carry);
        });
    return;
  }
  buildRowLaunch(b, loc, rows, shape, resultElt,
                 [&](OpBuilder &b, Value row, Value tid, Value scratch) {
                   scanRange(b, row, tid, scratch, constIndex(b, loc, 0),
                             rows.rowLength, identity(b, loc, add, resultElt));
                 });
}

/// The compaction of elements [begin, begin + length) of the row, the
/// first of them at position `start` (an i32, the set elements before the
/// range): per tile, while fewer than K are found (the carry is the same in
/// every thread, so the whole block takes the same branch), each set
/// lane's stable position from a ballot scan; a lane whose position is
/// below K stores its index (`store` of the position, an i32, and the
/// element's index). Returns `start` plus the set elements found (at least
/// K once K are found).
static Value
buildCompactRange(OpBuilder &b, Location loc, const MaskSource &input,
                  Value row, Value tid, Value scratch, Value begin,
                  Value length, Value start, Value kI32, KernelShape shape,
                  function_ref<void(OpBuilder &, Value pos, Value at)> store) {
  return buildTileLoop(
             b, loc, length, shape.threads, tid, ValueRange{start},
             [&](OpBuilder &b, Value i, Value inRange, ValueRange carried) {
               Value more = arith::CmpIOp::create(
                   b, loc, arith::CmpIPredicate::slt, carried[0], kI32);
               auto tile = scf::IfOp::create(
                   b, loc, more,
                   [&](OpBuilder &b, Location loc) {
                     Value at = arith::AddIOp::create(b, loc, begin, i);
                     Value set = input.isSet(b, loc, row, at, inRange);
                     BallotScan scan = blockBallotScan(b, loc, set, scratch,
                                                       shape.numWarps());
                     Value pos = arith::AddIOp::create(b, loc, carried[0],
                                                       scan.position);
                     Value write = arith::AndIOp::create(
                         b, loc, set,
                         arith::CmpIOp::create(
                             b, loc, arith::CmpIPredicate::slt, pos, kI32));
                     buildIf(b, loc, write,
                             [&](OpBuilder &b) { store(b, pos, at); });
                     scf::YieldOp::create(b, loc,
                                          ValueRange{arith::AddIOp::create(
                                              b, loc, carried[0], scan.total)});
                   },
                   [&](OpBuilder &b, Location loc) {
                     scf::YieldOp::create(b, loc, carried[0]);
                   });
               return SmallVector<Value>{tile.getResult(0)};
             })
      .front();
}

/// Slots [from, to) of the row of `indices` get `fill`, strided over the
/// threads (none when to <= from).
static void buildFillSlots(OpBuilder &b, Location loc, Value indices, Value row,
                           Value tid, Value from, Value to, int64_t fill,
                           KernelShape shape) {
  Value fillValue = arith::ConstantIntOp::create(
      b, loc, cast<MemRefType>(indices.getType()).getElementType(), fill);
  scf::ForOp::create(b, loc, arith::AddIOp::create(b, loc, from, tid), to,
                     constIndex(b, loc, shape.threads), ValueRange{},
                     [&](OpBuilder &b, Location loc, Value slot, ValueRange) {
                       memref::StoreOp::create(b, loc, fillValue, indices,
                                               ValueRange{row, slot});
                       scf::YieldOp::create(b, loc);
                     });
}

/// A compaction whose indices only a gather through a permutation of its
/// count reads, `gather(compact(m).indices, randperm_prefix(count, seed,
/// offset))` [R, M], written by the compact kernel as that gather's result
/// (`convertCompact`): the set element at position p goes to lane P^-1(p)
/// of its row (P the row's Feistel permutation of [0, count)) if that lane
/// is below M, and the lanes from min(count, M) on get the gather's fill.
/// No positions are written or gathered. `seed` and `offset` are each an
/// i64 for every row or a buffer [R] of them.
struct PermutedStore {
  /// The compaction's K: the set elements it ranks.
  int64_t k;
  Value seed, offset;
};

/// Row `row`'s value of a `PermutedStore` operand, as an i64.
static Value rowValue(OpBuilder &b, Location loc, Value v, Value row) {
  if (isa<MemRefType>(v.getType()))
    v = memref::LoadOp::create(b, loc, v, ValueRange{row});
  if (v.getType().isIndex())
    v = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  return v;
}

/// Where a row's compaction stores the set elements: position p at slot
/// p, or, `PermutedStore`, at the lane of its inverse permutation.
struct RowOutput {
  Value indices, row;
  /// With a permutation: its round keys and domain, and the row's width
  /// (an i32: the lanes below it are written).
  SmallVector<Value> keys;
  lowering::FeistelDomain domain;
  Value bound;

  /// The output of a row into `indices` [R, width]; with `permuted`, of
  /// the row whose compaction counts `count` (an i32, min(count_nonzero,
  /// K): the permutation's domain).
  RowOutput(OpBuilder &b, Location loc, Value indices, Value row,
            const std::optional<PermutedStore> &permuted, Value count = {})
      : indices(indices), row(row) {
    if (!permuted)
      return;
    Type i64 = b.getI64Type(), i32 = b.getI32Type();
    int64_t width = cast<MemRefType>(indices.getType()).getDimSize(1);
    keys = lowering::feistelKeys(b, loc, rowValue(b, loc, permuted->seed, row),
                                 rowValue(b, loc, permuted->offset, row));
    domain = lowering::feistelDomain(
        b, loc, arith::ExtUIOp::create(b, loc, i64, count));
    bound = arith::ConstantIntOp::create(b, loc, i32, width);
  }

  /// The first slot the fill starts from (an index), for the row's count
  /// (an i32): past the positions, or past the lanes the permutation
  /// wrote.
  Value fillFrom(OpBuilder &b, Location loc, Value count) const {
    if (bound)
      count = arith::MinUIOp::create(b, loc, count, bound);
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), count);
  }

  /// Stores element `at` (an index) found at position `pos` (an i32).
  void store(OpBuilder &b, Location loc, Value pos, Value at) const {
    Type indexType = b.getIndexType();
    Value value = arith::IndexCastUIOp::create(
        b, loc, cast<MemRefType>(indices.getType()).getElementType(), at);
    if (!bound) {
      memref::StoreOp::create(b, loc, value, indices,
                              ValueRange{row, arith::IndexCastUIOp::create(
                                                  b, loc, indexType, pos)});
      return;
    }
    Value lane = lowering::feistelInverseWalk(b, loc, keys, domain, pos);
    buildIf(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane, bound),
        [&](OpBuilder &b) {
          memref::StoreOp::create(
              b, loc, value, indices,
              ValueRange{
                  row, arith::IndexCastUIOp::create(b, loc, indexType, lane)});
        });
  }
};

/// The compact kernel: the stable compaction of the row
/// (`buildCompactRange`), stopping at K; then the threads fill the slots
/// past the count and thread 0 writes the count, min(count_nonzero, K).
/// A long row split across blocks: a first launch writes each segment's
/// count of set elements; in a second, each block compacts its segment
/// from the sum of the counts before it (none once that reaches K) and
/// fills the slots of its own range of [count, K). A mask computed where
/// it is read (`MaskSource::predicate`) is computed by the first launch,
/// which writes it as bits into `maskBits` [R, ceil(N / 32)] for the
/// second: lane 0 of each warp stores the tile's ballot (a segment starts
/// at a multiple of 32 and the threads of a tile are whole warps, so the
/// ballot is the word of its 32 elements). With `permuted`
/// (`PermutedStore`), `indices` is the gather's result [R, M]: a row in
/// one block counts its set elements before it compacts them (the
/// permutation is of their count).
static void buildCompactKernel(OpBuilder &b, Location loc,
                               const MaskSource &input, Value indices,
                               Value counts, int64_t fill, int64_t maxThreads,
                               std::optional<RowSplit> split,
                               Value segmentCounts, Value maskBits,
                               const std::optional<PermutedStore> &permuted) {
  Rows rows = rowsOfBuffer(b, loc, input.shapeBuffer());
  KernelShape shape = kernelShape(rows, maxThreads);
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  // The slots of a row, and the set elements ranked (a dynamic width: the
  // row's n slots of a compaction that keeps every set element).
  Value widthIndex = extentOf(b, loc, indices, 1);
  Value kI32 =
      permuted ? Value(arith::ConstantIntOp::create(b, loc, i32, permuted->k))
               : Value(arith::IndexCastUIOp::create(b, loc, i32, widthIndex));
  if (split) {
    // `segmentCounts`: each segment's count of set elements, [R * segments].
    Value numSegments = constIndex(b, loc, split->segments);
    auto slotBase = [&](OpBuilder &b, Value row) -> Value {
      return arith::MulIOp::create(b, loc, row, numSegments);
    };
    buildSegmentLaunch(
        b, loc, rows, *split, shape, i32, {},
        [&](OpBuilder &b, const Segment &seg, Value tid, Value scratch,
            ValueRange) {
          auto storeBits = [&](OpBuilder &b, Value i, Value inRange,
                               ValueRange ballots) {
            Value lane0 = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::eq, laneId(b, loc),
                arith::ConstantIntOp::create(b, loc, i32, 0));
            buildIf(b, loc, arith::AndIOp::create(b, loc, lane0, inRange),
                    [&](OpBuilder &b) {
                      Value word = arith::DivUIOp::create(
                          b, loc, i, constIndex(b, loc, kWarpSize));
                      memref::StoreOp::create(b, loc, ballots.front(), maskBits,
                                              ValueRange{seg.row, word});
                    });
          };
          Value total =
              blockCountRange(
                  b, loc, seg.begin, seg.length, tid, scratch, shape, 1,
                  [&](OpBuilder &b, Value i, Value inRange) {
                    return SmallVector<Value>{
                        input.isSet(b, loc, seg.row, i, inRange)};
                  },
                  input.mask ? nullptr
                             : function_ref<void(OpBuilder &, Value, Value,
                                                 ValueRange)>(storeBits))
                  .front();
          storeFromThread0(
              b, loc, tid, total, segmentCounts,
              arith::AddIOp::create(b, loc, slotBase(b, seg.row), seg.index));
        });
    MaskSource written;
    written.bits = maskBits;
    const MaskSource &mask = input.mask ? input : written;
    buildSegmentLaunch(
        b, loc, rows, *split, shape, i32, {},
        [&](OpBuilder &b, const Segment &seg, Value tid, Value scratch,
            ValueRange) {
          Value base = slotBase(b, seg.row);
          Value before = sumOfSlots(b, loc, segmentCounts, base, seg.index);
          Value total = sumOfSlots(b, loc, segmentCounts, base, numSegments);
          Value count = arith::MinSIOp::create(b, loc, total, kI32);
          RowOutput out(b, loc, indices, seg.row, permuted, count);
          buildIf(b, loc,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        before, kI32),
                  [&](OpBuilder &b) {
                    buildCompactRange(b, loc, mask, seg.row, tid, scratch,
                                      seg.begin, seg.length, before, kI32,
                                      shape,
                                      [&](OpBuilder &b, Value pos, Value at) {
                                        out.store(b, loc, pos, at);
                                      });
                  });
          // The last segment's slots run on to the width when it is
          // beyond N.
          Value end = arith::SelectOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, seg.index,
                                    constIndex(b, loc, split->segments - 1)),
              arith::MaxUIOp::create(b, loc, rows.rowLength, widthIndex),
              arith::AddIOp::create(b, loc, seg.begin, seg.length));
          Value from = arith::MaxUIOp::create(
              b, loc, out.fillFrom(b, loc, count), seg.begin);
          Value to = arith::MinUIOp::create(b, loc, end, widthIndex);
          buildFillSlots(b, loc, indices, seg.row, tid, from, to, fill, shape);
          Value first = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, seg.index,
                                    constIndex(b, loc, 0)),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                    constIndex(b, loc, 0)));
          buildIf(b, loc, first, [&](OpBuilder &b) {
            memref::StoreOp::create(b, loc,
                                    arith::ExtUIOp::create(b, loc, i64, count),
                                    counts, ValueRange{seg.row});
          });
        });
    return;
  }
  buildRowLaunch(
      b, loc, rows, shape, i32,
      [&](OpBuilder &b, Value row, Value tid, Value scratch) {
        Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
        Value c0 = constIndex(b, loc, 0);
        // With a permutation, the count is its domain: counted first.
        // Without, the slots are the positions and the count comes with
        // them.
        Value count;
        if (permuted) {
          Value total = blockCountRange(
                            b, loc, c0, rows.rowLength, tid, scratch, shape, 1,
                            [&](OpBuilder &b, Value i, Value inRange) {
                              return SmallVector<Value>{
                                  input.isSet(b, loc, row, i, inRange)};
                            })
                            .front();
          count = arith::MinSIOp::create(b, loc, total, kI32);
        }
        RowOutput out(b, loc, indices, row, permuted, count);
        Value found = buildCompactRange(b, loc, input, row, tid, scratch, c0,
                                        rows.rowLength, zero, kI32, shape,
                                        [&](OpBuilder &b, Value pos, Value at) {
                                          out.store(b, loc, pos, at);
                                        });
        if (!permuted)
          count = arith::MinSIOp::create(b, loc, found, kI32);
        buildFillSlots(b, loc, indices, row, tid, out.fillFrom(b, loc, count),
                       widthIndex, fill, shape);
        storeFromThread0(b, loc, tid,
                         arith::ExtUIOp::create(b, loc, i64, count), counts,
                         row);
      });
}

//===----------------------------------------------------------------------===//
// The sorting kernels: sort, argsort, topk
//===----------------------------------------------------------------------===//

/// The largest padded row the bitonic sort keeps in workgroup memory: keys
/// and i32 indices of 32 KiB (32-bit keys) or 24 KiB (64-bit keys), below
/// the 48 KiB of static shared memory a block may have.
static int64_t bitonicLimit(unsigned keyBits) {
  return keyBits <= 32 ? 4096 : 2048;
}

/// The padded (power of two) size of a bitonic sort of `n` elements, when
/// `n` is static and that fits in workgroup memory.
static std::optional<int64_t> bitonicSize(std::optional<int64_t> n,
                                          unsigned keyBits) {
  if (!n)
    return std::nullopt;
  auto p = static_cast<int64_t>(
      llvm::PowerOf2Ceil(static_cast<uint64_t>(std::max<int64_t>(*n, 1))));
  if (p > bitonicLimit(keyBits))
    return std::nullopt;
  return p;
}

static int64_t selectAuxPerRow(unsigned sortBits, int64_t segments,
                               int64_t digitBits);
static int64_t sortAuxPerRow(unsigned sortBits, int64_t segments,
                             int64_t digitBits);

/// The digits of the radix sort in global scratch: 4 bits, 16 bins.
static constexpr int64_t kSortDigitBits = 4;
static constexpr int64_t kSortBins = 1 << kSortDigitBits;
/// The digits of a split radix sort with `sort-digit-bits=8`: 8 bits, 256
/// bins, half the passes of 4-bit digits. The bins of a pass are then one
/// per thread (blocks of at least 256 threads), and a tile ranks its pairs
/// with a ballot per digit bit instead of one per bin.
static constexpr int64_t kWideSortDigitBits = 8;

/// What a sorting kernel computes for each row of N elements.
struct SortingKernel {
  lowering::SortKeyInfo info;
  /// Keys inverted (descending order; topk's largest first).
  bool descending = false;
  /// topk with 0 < K < N: a radix selection of the K first keys and their
  /// compaction (in index order), then their sort unless `unsorted`. Else
  /// the whole row is sorted and the first K (all of it for sort and
  /// argsort) are written.
  bool select = false;
  bool unsorted = false;
  /// The outputs per row (K), or std::nullopt for the whole row.
  std::optional<int64_t> k;
  /// A selection split across blocks (long static rows): the K taken go
  /// through the global scratch, and the blocks of a row share an i32
  /// buffer of `auxPerRow` elements per row.
  std::optional<RowSplit> split;
  /// A radix sort in global scratch split across blocks (of the row, or of
  /// the K taken): see `buildSplitRadixSort`.
  std::optional<RowSplit> sortSplit;
  /// The bits of its digits (kSortDigitBits, or kWideSortDigitBits).
  int64_t sortDigitBits = kSortDigitBits;
  /// The bits of the digits of a selection split across blocks (4, or
  /// kWideSortDigitBits).
  int64_t selectDigitBits = 4;

  /// Whether the kernel sorts in global scratch (a radix sort) rather than
  /// in workgroup memory (a bitonic sort), for a row length `n`, or keeps
  /// the K taken there (a split selection).
  bool needsScratch(std::optional<int64_t> n) const {
    if (select)
      return !unsorted && (split || !bitonicSize(k, info.keyBits));
    return !bitonicSize(n, info.keyBits);
  }
  /// The i32 elements per row of the buffer that the blocks of split rows
  /// share: the selection's part, then the sort's.
  int64_t selectAux() const {
    return split ? selectAuxPerRow(info.sortBits, split->segments,
                                   selectDigitBits)
                 : 0;
  }
  int64_t sortAux() const {
    return sortSplit ? sortAuxPerRow(info.sortBits, sortSplit->segments,
                                     sortDigitBits)
                     : 0;
  }
};

/// `for (s = begin + tid; s < end; s += threads) body(s)`, no
/// synchronization inside: written as the tiles of `buildTileLoop` with the
/// body guarded (a strided loop from the thread id made ptxas spill in the
/// radix sort kernels).
static void forEachStrided(OpBuilder &b, Location loc, Value tid, Value begin,
                           Value end, int64_t threads,
                           function_ref<void(OpBuilder &, Value s)> body) {
  Value count = arith::SubIOp::create(b, loc, end, begin);
  buildTileLoop(b, loc, count, threads, tid, ValueRange{},
                [&](OpBuilder &b, Value i, Value inRange, ValueRange) {
                  auto ifOp =
                      scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
                  OpBuilder::InsertionGuard guard(b);
                  b.setInsertionPointToStart(ifOp.thenBlock());
                  body(b, arith::AddIOp::create(b, loc, begin, i));
                  return SmallVector<Value>{};
                });
}

/// `if (cond) body()`.
static Value allOnes(OpBuilder &b, Location loc, Type type) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, -1));
}

static Value constOf(OpBuilder &b, Location loc, Type type, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
}

/// (ka, ia) > (kb, ib): unsigned keys, ties by index. All pairs of a row
/// differ, so this is the stable order.
static Value pairGreater(OpBuilder &b, Location loc, Value ka, Value ia,
                         Value kb, Value ib) {
  Value gt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, ka, kb);
  Value eq = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ka, kb);
  Value later =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, ia, ib);
  return arith::OrIOp::create(b, loc, gt,
                              arith::AndIOp::create(b, loc, eq, later));
}

/// The bitonic sorting network over the `p` (a power of two) (key, index)
/// pairs of the workgroup buffers `keys` and `idx`: for each merge size
/// 2^kk and distance 2^jj (jj = kk-1 .. 0), the p/2 compare-exchanges
/// strided over the threads, then a barrier.
static void buildBitonicNetwork(OpBuilder &b, Location loc, Value keys,
                                Value idx, int64_t p, Value tid,
                                int64_t threads) {
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  int64_t logP = llvm::Log2_64(static_cast<uint64_t>(p));
  Value pairs = constIndex(b, loc, p / 2);
  scf::ForOp::create(
      b, loc, c1, constIndex(b, loc, logP + 1), c1, ValueRange{},
      [&](OpBuilder &b, Location loc, Value kk, ValueRange) {
        scf::ForOp::create(
            b, loc, c0, kk, c1, ValueRange{},
            [&](OpBuilder &b, Location loc, Value r, ValueRange) {
              Value jj = arith::SubIOp::create(
                  b, loc, arith::SubIOp::create(b, loc, kk, c1), r);
              Value half = arith::ShLIOp::create(b, loc, c1, jj);
              Value block = arith::ShLIOp::create(b, loc, c1, kk);
              forEachStrided(
                  b, loc, tid, c0, pairs, threads, [&](OpBuilder &b, Value c) {
                    // i: c with a 0 inserted at bit jj; l: its partner.
                    Value high = arith::ShLIOp::create(
                        b, loc, arith::ShRUIOp::create(b, loc, c, jj),
                        arith::AddIOp::create(b, loc, jj, c1));
                    Value low = arith::AndIOp::create(
                        b, loc, c, arith::SubIOp::create(b, loc, half, c1));
                    Value i = arith::OrIOp::create(b, loc, high, low);
                    Value l = arith::AddIOp::create(b, loc, i, half);
                    Value ascending = arith::CmpIOp::create(
                        b, loc, arith::CmpIPredicate::eq,
                        arith::AndIOp::create(b, loc, i, block), c0);
                    Value ka =
                        memref::LoadOp::create(b, loc, keys, ValueRange{i});
                    Value ia =
                        memref::LoadOp::create(b, loc, idx, ValueRange{i});
                    Value kb =
                        memref::LoadOp::create(b, loc, keys, ValueRange{l});
                    Value ib =
                        memref::LoadOp::create(b, loc, idx, ValueRange{l});
                    Value greater = pairGreater(b, loc, ka, ia, kb, ib);
                    Value swap = arith::CmpIOp::create(
                        b, loc, arith::CmpIPredicate::eq, greater, ascending);
                    buildIf(b, loc, swap, [&](OpBuilder &b) {
                      memref::StoreOp::create(b, loc, kb, keys, ValueRange{i});
                      memref::StoreOp::create(b, loc, ib, idx, ValueRange{i});
                      memref::StoreOp::create(b, loc, ka, keys, ValueRange{l});
                      memref::StoreOp::create(b, loc, ia, idx, ValueRange{l});
                    });
                  });
              gpu::BarrierOp::create(b, loc);
              scf::YieldOp::create(b, loc);
            });
        scf::YieldOp::create(b, loc);
      });
}

/// The i32 workgroup buffer of the radix sort: the histograms of every digit
/// of the row ([digits][16]), the running count of each bin over the tiles
/// of a pass ([16]) and each warp's count of each bin in a tile
/// ([warps][16]).
static int64_t radixSortSharedSize(unsigned sortBits, KernelShape shape) {
  int64_t digits = (sortBits + kSortDigitBits - 1) / kSortDigitBits;
  return (digits + 1 + shape.numWarps()) * kSortBins;
}

/// The radix sorts' index arithmetic: `base + offset`, an i32 as an index,
/// and `tid < bound`.
static Value addIndex(OpBuilder &b, Location loc, Value base, Value offset) {
  return arith::AddIOp::create(b, loc, base, offset);
}
static Value asIndex(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
}
static Value threadBelow(OpBuilder &b, Location loc, Value tid, Value bound) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid, bound);
}

/// Where one pass of the radix scatter finds its counts in the i32
/// workgroup buffer `shared`: the 16 bins of the row's histogram of the
/// pass's digit (from `histAt`), the running count of each bin over the
/// pairs before the tile (from `runAt`, set by the caller before the first
/// tile), and each warp's count of each bin in a tile (from `warpsAt`).
struct RadixScatterLayout {
  Value histAt;
  int64_t runAt, warpsAt;
};

/// The pair at position `i` of slot `cur` of the row in the radix sort's
/// global scratch (a zero key and index past the row: `inRow` false), and
/// its digit at `shift` (`digitMask` of the key type), as an i32.
static std::tuple<Value, Value, Value>
loadRadixPair(OpBuilder &b, Location loc, Value keysS, Value idxS, Value row,
              Value cur, Value i, Value inRow, Value shift, Value digitMask) {
  Type keyType = cast<MemRefType>(keysS.getType()).getElementType();
  Type i32 = b.getI32Type();
  auto pair = scf::IfOp::create(
      b, loc, inRow,
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(
            b, loc,
            ValueRange{
                memref::LoadOp::create(b, loc, keysS, ValueRange{cur, row, i}),
                memref::LoadOp::create(b, loc, idxS, ValueRange{cur, row, i})});
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(
            b, loc,
            ValueRange{constOf(b, loc, keyType, 0), constOf(b, loc, i32, 0)});
      });
  Value key = pair.getResult(0), index = pair.getResult(1);
  Value digitKey = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, key, shift), digitMask);
  Value digit = keyType == i32
                    ? digitKey
                    : Value(arith::TruncIOp::create(b, loc, i32, digitKey));
  return {key, index, digit};
}

/// One stable pass of the radix sort over pairs [begin, begin + length) of
/// the row, from slot `cur` of the global scratch `keysS` / `idxS` to slot
/// `dst`, by the digit at `shift`: per tile, a ballot per bin gives each
/// pair its rank among the lanes of its warp with its digit and each warp's
/// count of the bin; after a barrier a pair goes to its bin's start (the
/// histogram's exclusive scan) plus the bin's running count and the counts
/// of the warps before, plus its rank.
static void buildRadixScatterTiles(OpBuilder &b, Location loc, Value keysS,
                                   Value idxS, Value row, Value cur, Value dst,
                                   Value begin, Value length, Value shift,
                                   RadixScatterLayout layout, Value shared,
                                   Value tid, KernelShape shape) {
  Type keyType = cast<MemRefType>(keysS.getType()).getElementType();
  Type i32 = b.getI32Type();
  Value zero32 = constOf(b, loc, i32, 0), one32 = constOf(b, loc, i32, 1);
  Value bins = constIndex(b, loc, kSortBins);
  Value digitMask = constOf(b, loc, keyType, kSortBins - 1);
  Value histAt = layout.histAt;
  int64_t runAt = layout.runAt, warpsAt = layout.warpsAt;
  Value lane = laneId(b, loc);
  Value warp = warpId(b, loc);
  // (1 << lane) - 1: the lanes below this one.
  Value below = arith::SubIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, one32, lane), one32);
  buildTileLoop(
      b, loc, length, shape.threads, tid, ValueRange{},
      [&](OpBuilder &b, Value j, Value inRow, ValueRange) {
        Value i = addIndex(b, loc, begin, j);
        Value key, index, digit;
        std::tie(key, index, digit) = loadRadixPair(
            b, loc, keysS, idxS, row, cur, i, inRow, shift, digitMask);
        // Per bin, the ballot of the warp's lanes with that digit:
        // this lane keeps the ballot of its own digit, lane v the
        // warp's count of bin v.
        Value mine = zero32, warpCount = zero32;
        for (int64_t v = 0; v < kSortBins; ++v) {
          Value vv = constOf(b, loc, i32, v);
          Value isV = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            digit, vv);
          Value ballot =
              warpBallot(b, loc, arith::AndIOp::create(b, loc, inRow, isV));
          mine = arith::SelectOp::create(b, loc, isV, ballot, mine);
          warpCount = arith::SelectOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, vv),
              popCount(b, loc, ballot), warpCount);
        }
        Value warpBase =
            arith::AddIOp::create(b, loc, constIndex(b, loc, warpsAt),
                                  arith::MulIOp::create(b, loc, warp, bins));
        buildIf(b, loc,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane,
                                      constOf(b, loc, i32, kSortBins)),
                [&](OpBuilder &b) {
                  memref::StoreOp::create(
                      b, loc, warpCount, shared,
                      ValueRange{
                          addIndex(b, loc, warpBase, asIndex(b, loc, lane))});
                });
        gpu::BarrierOp::create(b, loc);
        // The bin's start, its count in the tiles before and in the
        // warps before; threads below 16 also sum bin `tid` of the
        // tile for the next tile's counts.
        Value bin = asIndex(b, loc, digit);
        Value start = zero32;
        for (int64_t v = 0; v < kSortBins; ++v) {
          Value count = memref::LoadOp::create(
              b, loc, shared,
              ValueRange{addIndex(b, loc, histAt, constIndex(b, loc, v))});
          Value before =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                    constOf(b, loc, i32, v), digit);
          start = arith::AddIOp::create(
              b, loc, start,
              arith::SelectOp::create(b, loc, before, count, zero32));
        }
        Value ownBin = arith::MinUIOp::create(
            b, loc, tid, constIndex(b, loc, kSortBins - 1));
        Value runAtIndex = constIndex(b, loc, runAt);
        Value pos = arith::AddIOp::create(
            b, loc, start,
            memref::LoadOp::create(
                b, loc, shared, ValueRange{addIndex(b, loc, runAtIndex, bin)}));
        Value tileOfOwn = memref::LoadOp::create(
            b, loc, shared, ValueRange{addIndex(b, loc, runAtIndex, ownBin)});
        for (int64_t w = 0; w < shape.numWarps(); ++w) {
          Value base = constIndex(b, loc, warpsAt + w * kSortBins);
          Value count = memref::LoadOp::create(
              b, loc, shared, ValueRange{addIndex(b, loc, base, bin)});
          Value earlier = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult, constIndex(b, loc, w), warp);
          pos = arith::AddIOp::create(
              b, loc, pos,
              arith::SelectOp::create(b, loc, earlier, count, zero32));
          tileOfOwn = arith::AddIOp::create(
              b, loc, tileOfOwn,
              memref::LoadOp::create(
                  b, loc, shared, ValueRange{addIndex(b, loc, base, ownBin)}));
        }
        pos = arith::AddIOp::create(
            b, loc, pos,
            popCount(b, loc, arith::AndIOp::create(b, loc, mine, below)));
        buildIf(b, loc, inRow, [&](OpBuilder &b) {
          Value to = asIndex(b, loc, pos);
          memref::StoreOp::create(b, loc, key, keysS, ValueRange{dst, row, to});
          memref::StoreOp::create(b, loc, index, idxS,
                                  ValueRange{dst, row, to});
        });
        // The counts are read before they change.
        gpu::BarrierOp::create(b, loc);
        buildIf(b, loc, threadBelow(b, loc, tid, bins), [&](OpBuilder &b) {
          memref::StoreOp::create(
              b, loc, tileOfOwn, shared,
              ValueRange{addIndex(b, loc, runAtIndex, tid)});
        });
        return SmallVector<Value>{};
      });
}

/// Whether a digit's 16 bins (`countAt(v)`, i32) do not hold all `m32`
/// pairs in one: a pass whose digit is the same in every key would only
/// copy them.
static Value digitVaries(OpBuilder &b, Location loc, Value m32,
                         function_ref<Value(OpBuilder &, int64_t v)> countAt) {
  Value constant = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
  for (int64_t v = 0; v < kSortBins; ++v)
    constant = arith::OrIOp::create(
        b, loc, constant,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, countAt(b, v),
                              m32));
  return arith::XOrIOp::create(
      b, loc, constant, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
}

/// Stable LSD radix sort, 4-bit digits, of the first `m` (key, index) pairs
/// of the row in slot 0 of the global scratch `keysS` / `idxS` ([2, R, N]),
/// with the i32 workgroup buffer `shared` of `radixSortSharedSize`. One
/// pass over the pairs counts every digit's histogram (shared atomics).
/// Then, per digit whose bins are not all in one, a pass scatters each pair
/// to the other slot: per tile, a ballot per bin gives each lane its rank
/// among the lanes of its warp with its digit and each warp's count of the
/// bin; after a barrier a pair goes to its bin's start (the histogram's
/// exclusive scan) plus the bin's count in the tiles before, in the warps
/// before and its rank. Returns the slot holding the sorted pairs (the
/// same in every thread).
static Value buildRadixSortScratch(OpBuilder &b, Location loc, Value keysS,
                                   Value idxS, Value row, Value m,
                                   unsigned sortBits, Value tid, Value shared,
                                   KernelShape shape) {
  Type keyType = cast<MemRefType>(keysS.getType()).getElementType();
  Type i32 = b.getI32Type();
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  Value zero32 = constOf(b, loc, i32, 0), one32 = constOf(b, loc, i32, 1);
  int64_t digits = (sortBits + kSortDigitBits - 1) / kSortDigitBits;
  int64_t runAt = digits * kSortBins, warpsAt = runAt + kSortBins;
  Value bins = constIndex(b, loc, kSortBins);
  Value digitMask = constOf(b, loc, keyType, kSortBins - 1);
  auto digitOf = [&](OpBuilder &b, Value key, int64_t d) {
    return arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, key,
                               constOf(b, loc, keyType, d * kSortDigitBits)),
        digitMask);
  };

  // Every digit's histogram.
  forEachStrided(b, loc, tid, c0, constIndex(b, loc, runAt), shape.threads,
                 [&](OpBuilder &b, Value s) {
                   memref::StoreOp::create(b, loc, zero32, shared,
                                           ValueRange{s});
                 });
  gpu::BarrierOp::create(b, loc);
  forEachStrided(b, loc, tid, c0, m, shape.threads, [&](OpBuilder &b, Value s) {
    Value key = memref::LoadOp::create(b, loc, keysS, ValueRange{c0, row, s});
    for (int64_t d = 0; d < digits; ++d) {
      Value bin = addIndex(b, loc, constIndex(b, loc, d * kSortBins),
                           asIndex(b, loc, digitOf(b, key, d)));
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, one32,
                                  shared, ValueRange{bin});
    }
  });
  gpu::BarrierOp::create(b, loc);

  Value m32 = arith::IndexCastUIOp::create(b, loc, i32, m);
  auto passes = scf::ForOp::create(
      b, loc, c0, constIndex(b, loc, digits), c1, ValueRange{c0},
      [&](OpBuilder &b, Location loc, Value d, ValueRange carried) {
        Value cur = carried[0];
        Value histAt = arith::MulIOp::create(b, loc, d, bins);
        Value shift = arith::IndexCastUIOp::create(
            b, loc, keyType,
            arith::MulIOp::create(b, loc, d,
                                  constIndex(b, loc, kSortDigitBits)));
        // A pass whose digit is the same in all keys would copy them.
        Value split = digitVaries(b, loc, m32, [&](OpBuilder &b, int64_t v) {
          return memref::LoadOp::create(
              b, loc, shared,
              ValueRange{addIndex(b, loc, histAt, constIndex(b, loc, v))});
        });
        Value dst = arith::SubIOp::create(b, loc, c1, cur);
        scf::IfOp::create(b, loc, split, [&](OpBuilder &b, Location loc) {
          // No pair of the tiles before.
          buildIf(b, loc, threadBelow(b, loc, tid, bins), [&](OpBuilder &b) {
            memref::StoreOp::create(
                b, loc, zero32, shared,
                ValueRange{addIndex(b, loc, constIndex(b, loc, runAt), tid)});
          });
          buildRadixScatterTiles(b, loc, keysS, idxS, row, cur, dst, c0, m,
                                 shift, {histAt, runAt, warpsAt}, shared, tid,
                                 shape);
          // The next pass reads what other threads wrote.
          gpu::BarrierOp::create(b, loc);
          scf::YieldOp::create(b, loc);
        });
        scf::YieldOp::create(
            b, loc,
            ValueRange{arith::SelectOp::create(b, loc, split, dst, cur)});
      });
  return passes.getResult(0);
}

/// The i32 elements per row of a radix sort split across blocks, with
/// digits of `digitBits`: the histograms of every digit over the row
/// ([digits][bins], summed by the blocks with atomics) and each segment's
/// histogram of the digit being sorted ([segments][bins]).
static int64_t sortAuxPerRow(unsigned sortBits, int64_t segments,
                             int64_t digitBits) {
  int64_t digits = (sortBits + digitBits - 1) / digitBits;
  return (digits + segments) * (int64_t(1) << digitBits);
}

/// One stable pass of the split radix sort with 8-bit digits over pairs
/// [begin, begin + length) of the row, from slot `cur` of `keysS` / `idxS`
/// to slot `dst`, by the digit at `shift`. `shared` ([(1 + warps) x 256]
/// i32) holds at [0, 256) each bin's first position for this segment (set
/// by the caller); per tile, each lane finds the lanes of its warp with
/// its digit (the `and` of a ballot per digit bit, or of its complement),
/// its rank among them and their count; the first of them writes the
/// count into its warp's row of bins; one thread per bin turns its column
/// into each warp's first position (and adds the tile to the bin's next
/// position); each pair goes to its warp's position plus its rank.
static void buildWideRadixScatterTiles(OpBuilder &b, Location loc, Value keysS,
                                       Value idxS, Value row, Value cur,
                                       Value dst, Value begin, Value length,
                                       Value shift, Value shared, Value tid,
                                       KernelShape shape) {
  Type keyType = cast<MemRefType>(keysS.getType()).getElementType();
  Type i32 = b.getI32Type();
  int64_t bins = int64_t(1) << kWideSortDigitBits;
  int64_t warpsAt = bins;
  Value zero32 = constOf(b, loc, i32, 0), one32 = constOf(b, loc, i32, 1);
  Value digitMask = constOf(b, loc, keyType, bins - 1);
  Value lane = laneId(b, loc);
  Value warp = warpId(b, loc);
  Value below = arith::SubIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, one32, lane), one32);
  Value binsIndex = constIndex(b, loc, bins);
  Value warpRow =
      arith::AddIOp::create(b, loc, constIndex(b, loc, warpsAt),
                            arith::MulIOp::create(b, loc, warp, binsIndex));
  buildTileLoop(
      b, loc, length, shape.threads, tid, ValueRange{},
      [&](OpBuilder &b, Value j, Value inRow, ValueRange) {
        Value i = addIndex(b, loc, begin, j);
        Value key, index, digit;
        std::tie(key, index, digit) = loadRadixPair(
            b, loc, keysS, idxS, row, cur, i, inRow, shift, digitMask);
        // The lanes of the warp with this lane's digit.
        Value peers = warpBallot(b, loc, inRow);
        for (int64_t bit = 0; bit < kWideSortDigitBits; ++bit) {
          Value set = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ne,
              arith::AndIOp::create(b, loc, digit,
                                    constOf(b, loc, i32, int64_t(1) << bit)),
              zero32);
          Value ballot =
              warpBallot(b, loc, arith::AndIOp::create(b, loc, inRow, set));
          Value match = arith::SelectOp::create(
              b, loc, set, ballot,
              arith::XOrIOp::create(b, loc, ballot, allOnes(b, loc, i32)));
          peers = arith::AndIOp::create(b, loc, peers, match);
        }
        Value rank =
            popCount(b, loc, arith::AndIOp::create(b, loc, peers, below));
        Value bin = asIndex(b, loc, digit);
        // This tile's counts: cleared, then the first lane of each digit's
        // lanes writes their count.
        forEachStrided(b, loc, tid, constIndex(b, loc, warpsAt),
                       constIndex(b, loc, warpsAt + shape.numWarps() * bins),
                       shape.threads, [&](OpBuilder &b, Value s) {
                         memref::StoreOp::create(b, loc, zero32, shared,
                                                 ValueRange{s});
                       });
        gpu::BarrierOp::create(b, loc);
        Value first = arith::AndIOp::create(
            b, loc, inRow,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rank,
                                  zero32));
        buildIf(b, loc, first, [&](OpBuilder &b) {
          memref::StoreOp::create(b, loc, popCount(b, loc, peers), shared,
                                  ValueRange{addIndex(b, loc, warpRow, bin)});
        });
        gpu::BarrierOp::create(b, loc);
        // Thread v: bin v's position for each warp, from the bin's next.
        buildIf(b, loc, threadBelow(b, loc, tid, binsIndex), [&](OpBuilder &b) {
          Value next = memref::LoadOp::create(b, loc, shared, ValueRange{tid});
          for (int64_t w = 0; w < shape.numWarps(); ++w) {
            Value at =
                addIndex(b, loc, constIndex(b, loc, warpsAt + w * bins), tid);
            Value count =
                memref::LoadOp::create(b, loc, shared, ValueRange{at});
            memref::StoreOp::create(b, loc, next, shared, ValueRange{at});
            next = arith::AddIOp::create(b, loc, next, count);
          }
          memref::StoreOp::create(b, loc, next, shared, ValueRange{tid});
        });
        gpu::BarrierOp::create(b, loc);
        buildIf(b, loc, inRow, [&](OpBuilder &b) {
          Value pos = arith::AddIOp::create(
              b, loc,
              memref::LoadOp::create(
                  b, loc, shared, ValueRange{addIndex(b, loc, warpRow, bin)}),
              rank);
          Value to = asIndex(b, loc, pos);
          memref::StoreOp::create(b, loc, key, keysS, ValueRange{dst, row, to});
          memref::StoreOp::create(b, loc, index, idxS,
                                  ValueRange{dst, row, to});
        });
        // The positions are read before the next tile clears them.
        gpu::BarrierOp::create(b, loc);
        return SmallVector<Value>{};
      });
}

/// Stable LSD radix sort, with digits of `digitBits` (4, or 8 when the
/// blocks have at least 256 threads), of the first `m` pairs of each of
/// the R static rows in the global scratch `keysS` / `idxS` ([2, R, >= m]),
/// split across a grid of (segments, R) blocks: each row's part of `aux`,
/// [R][sortAuxPerRow] i32 from `auxAt` on, must be zero. A first launch
/// counts the histograms of every digit (each block its segment's, in
/// workgroup memory, then added to its row's with atomics); when `fill` is
/// set it also writes slot 0 (the pair of element s of the row), else the
/// pairs are there already. Then per digit, two launches: each block
/// counts its segment's histogram of the digit, then scatters its segment
/// (`buildRadixScatterTiles`, or `buildWideRadixScatterTiles`) from each
/// bin's start in the row plus the bin's counts in the segments before. A
/// digit the same in every key is skipped (its blocks return at once), so
/// the slot of a pass is the parity of the digits before it that vary,
/// which every block computes from the row's histograms (4-bit digits:
/// each thread walks them; 8-bit: a thread per bin, then a block
/// reduction of which digits are constant). A last launch gives `writeOut`
/// each sorted position s of the row and the i32 index there.
static void buildSplitRadixSort(
    OpBuilder &b, Location loc, Value numRows, int64_t m, RowSplit split,
    Value keysS, Value idxS, Value aux, int64_t auxAt, unsigned sortBits,
    int64_t digitBits, KernelShape shape,
    function_ref<std::pair<Value, Value>(OpBuilder &, Value row, Value s)> fill,
    function_ref<void(OpBuilder &, Value row, Value s, Value index)> writeOut) {
  Type keyType = cast<MemRefType>(keysS.getType()).getElementType();
  Type i32 = b.getI32Type(), indexType = b.getIndexType();
  bool wide = digitBits == kWideSortDigitBits;
  assert((digitBits == kSortDigitBits ||
          (wide && shape.threads >= (int64_t(1) << kWideSortDigitBits))) &&
         "4-bit digits, or 8-bit digits with a thread per bin");
  int64_t nb = int64_t(1) << digitBits;
  int64_t digits = (sortBits + digitBits - 1) / digitBits;
  int64_t perRow = sortAuxPerRow(sortBits, split.segments, digitBits);
  int64_t segHistAt = digits * nb;
  Rows rows;
  rows.numRows = numRows;
  rows.rowLength = constIndex(b, loc, m);
  rows.staticLength = m;
  Value m32 = constOf(b, loc, i32, m);
  // i32 constants where they are used (a constant made outside a kernel
  // would become one of its parameters).
  auto c32 = [&](OpBuilder &b, int64_t v) { return constOf(b, loc, i32, v); };
  Value bins = constIndex(b, loc, nb);
  Value digitMask = constOf(b, loc, keyType, nb - 1);
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  auto at = [&](OpBuilder &b, Value base, int64_t offset) -> Value {
    return arith::AddIOp::create(b, loc, base, constIndex(b, loc, offset));
  };
  auto rowBase = [&](OpBuilder &b, Value row) -> Value {
    return at(b, arith::MulIOp::create(b, loc, row, constIndex(b, loc, perRow)),
              auxAt);
  };
  // The shift of digit d (an index).
  auto shiftOf = [&](OpBuilder &b, Value d) -> Value {
    return arith::IndexCastUIOp::create(
        b, loc, keyType,
        arith::MulIOp::create(b, loc, d, constIndex(b, loc, digitBits)));
  };
  auto digitOf = [&](OpBuilder &b, Value key, Value d) -> Value {
    return arith::IndexCastUIOp::create(
        b, loc, indexType,
        arith::AndIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, key, shiftOf(b, d)),
            digitMask));
  };
  auto histOf = [&](OpBuilder &b, Value base, Value d) -> Value {
    return arith::AddIOp::create(b, loc, base,
                                 arith::MulIOp::create(b, loc, d, bins));
  };
  auto binThread = [&](OpBuilder &b, Value tid) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid, bins);
  };
  // 4-bit digits: whether digit d varies in the row, and the slot holding
  // the pairs before pass d (the parity of the digits before it that
  // vary), from the row's histograms in every thread.
  auto varies = [&](OpBuilder &b, Value base, Value d) {
    Value hist = histOf(b, base, d);
    return digitVaries(b, loc, m32, [&](OpBuilder &b, int64_t v) -> Value {
      return memref::LoadOp::create(b, loc, aux, ValueRange{at(b, hist, v)});
    });
  };
  auto slotBefore = [&](OpBuilder &b, Value base, Value d) -> Value {
    auto loop = scf::ForOp::create(
        b, loc, c0, d, c1,
        ValueRange{arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0)},
        [&](OpBuilder &b, Location loc, Value v, ValueRange carried) {
          scf::YieldOp::create(b, loc,
                               ValueRange{arith::XOrIOp::create(
                                   b, loc, carried[0], varies(b, base, v))});
        });
    return arith::SelectOp::create(b, loc, loop.getResult(0), c1, c0);
  };
  // 8-bit digits: bit j set when digit j is the same in every key of the
  // row (one of its bins holds all m), from thread v's bin v of every
  // digit and a block reduction (every thread, at the kernel's start).
  auto constantDigits = [&](OpBuilder &b, Value base, Value tid,
                            Value scratch) -> Value {
    auto flags = scf::IfOp::create(
        b, loc, binThread(b, tid),
        [&](OpBuilder &b, Location loc) {
          Value flags = c32(b, 0);
          for (int64_t j = 0; j < digits; ++j) {
            Value count =
                memref::LoadOp::create(b, loc, aux,
                                       ValueRange{arith::AddIOp::create(
                                           b, loc, at(b, base, j * nb), tid)});
            flags = arith::OrIOp::create(
                b, loc, flags,
                arith::SelectOp::create(
                    b, loc,
                    arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          count, m32),
                    constOf(b, loc, i32, int64_t(1) << j), c32(b, 0)));
          }
          scf::YieldOp::create(b, loc, flags);
        },
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, c32(b, 0));
        });
    return blockReduce(b, loc, flags.getResult(0), gpu::AllReduceOperation::OR,
                       scratch, shape.numWarps());
  };
  auto variesIn = [&](OpBuilder &b, Value constant, Value d) -> Value {
    Value bit = arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, constant,
                               arith::IndexCastUIOp::create(b, loc, i32, d)),
        c32(b, 1));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bit,
                                 c32(b, 0));
  };
  auto slotIn = [&](OpBuilder &b, Value constant, Value d) -> Value {
    Value before = arith::SubIOp::create(
        b, loc,
        arith::ShLIOp::create(b, loc, c32(b, 1),
                              arith::IndexCastUIOp::create(b, loc, i32, d)),
        c32(b, 1));
    Value varying = arith::AndIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, constant, allOnes(b, loc, i32)),
        before);
    return asIndex(
        b, loc,
        arith::AndIOp::create(b, loc, popCount(b, loc, varying), c32(b, 1)));
  };
  // A kernel's view of the passes: the constant digits (8-bit digits,
  // computed once at the kernel's start; none for 4-bit), then whether pass
  // d runs and the slot it reads (its blocks decide alike).
  auto constantsOf = [&](OpBuilder &b, Value base, Value tid,
                         Value scratch) -> Value {
    return wide ? constantDigits(b, base, tid, scratch) : Value();
  };
  auto passRuns = [&](OpBuilder &b, Value base, Value constant, Value d) {
    return constant ? variesIn(b, constant, d) : varies(b, base, d);
  };
  auto passSlot = [&](OpBuilder &b, Value base, Value constant, Value d) {
    return constant ? slotIn(b, constant, d) : slotBefore(b, base, d);
  };

  // Every digit's histogram.
  buildSegmentLaunch(
      b, loc, rows, split, shape, i32,
      {workgroupBufferType({digits * nb}, i32)},
      [&](OpBuilder &b, const Segment &seg, Value tid, Value,
          ValueRange extra) {
        Value hist = extra.front();
        forEachStrided(b, loc, tid, c0, constIndex(b, loc, digits * nb),
                       shape.threads, [&](OpBuilder &b, Value v) {
                         memref::StoreOp::create(b, loc, c32(b, 0), hist,
                                                 ValueRange{v});
                       });
        gpu::BarrierOp::create(b, loc);
        forEachStrided(b, loc, tid, seg.begin,
                       arith::AddIOp::create(b, loc, seg.begin, seg.length),
                       shape.threads, [&](OpBuilder &b, Value s) {
                         Value key;
                         if (fill) {
                           auto [k, index] = fill(b, seg.row, s);
                           memref::StoreOp::create(b, loc, k, keysS,
                                                   ValueRange{c0, seg.row, s});
                           memref::StoreOp::create(b, loc, index, idxS,
                                                   ValueRange{c0, seg.row, s});
                           key = k;
                         } else {
                           key = memref::LoadOp::create(
                               b, loc, keysS, ValueRange{c0, seg.row, s});
                         }
                         for (int64_t d = 0; d < digits; ++d)
                           memref::AtomicRMWOp::create(
                               b, loc, arith::AtomicRMWKind::addi, c32(b, 1),
                               hist,
                               ValueRange{arith::AddIOp::create(
                                   b, loc, constIndex(b, loc, d * nb),
                                   digitOf(b, key, constIndex(b, loc, d)))});
                       });
        gpu::BarrierOp::create(b, loc);
        Value base = rowBase(b, seg.row);
        forEachStrided(
            b, loc, tid, c0, constIndex(b, loc, digits * nb), shape.threads,
            [&](OpBuilder &b, Value v) {
              Value count = memref::LoadOp::create(b, loc, hist, ValueRange{v});
              buildIf(b, loc,
                      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                            count, c32(b, 0)),
                      [&](OpBuilder &b) {
                        memref::AtomicRMWOp::create(
                            b, loc, arith::AtomicRMWKind::addi, count, aux,
                            ValueRange{arith::AddIOp::create(b, loc, base, v)});
                      });
            });
      });

  // The digits' passes: a host loop of two launches (one kernel each,
  // launched once per digit with the digit as a parameter).
  scf::ForOp::create(
      b, loc, c0, constIndex(b, loc, digits), c1, ValueRange{},
      [&](OpBuilder &b, Location loc, Value d, ValueRange) {
        // Each segment's histogram of digit d (4-bit digits: in the 32-slot
        // scratch; 8-bit: in a workgroup buffer of its own).
        SmallVector<Type> histWorkgroup;
        if (wide)
          histWorkgroup.push_back(workgroupBufferType({nb}, i32));
        buildSegmentLaunch(
            b, loc, rows, split, shape, i32, histWorkgroup,
            [&](OpBuilder &b, const Segment &seg, Value tid, Value scratch,
                ValueRange extra) {
              Value base = rowBase(b, seg.row);
              Value hist = wide ? extra.front() : scratch;
              Value constant = constantsOf(b, base, tid, scratch);
              scf::IfOp::create(
                  b, loc, passRuns(b, base, constant, d),
                  [&](OpBuilder &b, Location loc) {
                    Value cur = passSlot(b, base, constant, d);
                    buildIf(b, loc, binThread(b, tid), [&](OpBuilder &b) {
                      memref::StoreOp::create(b, loc, c32(b, 0), hist,
                                              ValueRange{tid});
                    });
                    gpu::BarrierOp::create(b, loc);
                    forEachStrided(
                        b, loc, tid, seg.begin,
                        arith::AddIOp::create(b, loc, seg.begin, seg.length),
                        shape.threads, [&](OpBuilder &b, Value s) {
                          Value key = memref::LoadOp::create(
                              b, loc, keysS, ValueRange{cur, seg.row, s});
                          memref::AtomicRMWOp::create(
                              b, loc, arith::AtomicRMWKind::addi, c32(b, 1),
                              hist, ValueRange{digitOf(b, key, d)});
                        });
                    gpu::BarrierOp::create(b, loc);
                    Value segHist = arith::AddIOp::create(
                        b, loc, at(b, base, segHistAt),
                        arith::MulIOp::create(b, loc, seg.index, bins));
                    buildIf(b, loc, binThread(b, tid), [&](OpBuilder &b) {
                      memref::StoreOp::create(
                          b, loc,
                          memref::LoadOp::create(b, loc, hist, ValueRange{tid}),
                          aux,
                          ValueRange{
                              arith::AddIOp::create(b, loc, segHist, tid)});
                    });
                    scf::YieldOp::create(b, loc);
                  });
            });
        // The scatter of each segment: the row's histogram of the digit and
        // the bins' counts in the segments before, then the tiles.
        int64_t runAt = nb, warpsAt = 2 * nb;
        int64_t sharedSize =
            wide ? (1 + shape.numWarps()) * nb : (2 + shape.numWarps()) * nb;
        buildSegmentLaunch(
            b, loc, rows, split, shape, i32,
            {workgroupBufferType({sharedSize}, i32)},
            [&](OpBuilder &b, const Segment &seg, Value tid, Value scratch,
                ValueRange extra) {
              Value shared = extra.front();
              Value base = rowBase(b, seg.row);
              Value constant = constantsOf(b, base, tid, scratch);
              scf::IfOp::create(
                  b, loc, passRuns(b, base, constant, d),
                  [&](OpBuilder &b, Location loc) {
                    Value cur = passSlot(b, base, constant, d);
                    Value dst = arith::SubIOp::create(b, loc, c1, cur);
                    // The counts of bin `tid` in the segments before.
                    auto before = [&](OpBuilder &b) {
                      Value column = arith::AddIOp::create(
                          b, loc, at(b, base, segHistAt), tid);
                      return sumOfSlots(b, loc, aux, column, seg.index, nb);
                    };
                    if (wide) {
                      // Each bin's first position for this segment: the
                      // row's exclusive scan of the bins (a thread a bin),
                      // plus the bin's counts in the segments before.
                      Value count =
                          scf::IfOp::create(
                              b, loc, binThread(b, tid),
                              [&](OpBuilder &b, Location loc) {
                                scf::YieldOp::create(
                                    b, loc,
                                    ValueRange{memref::LoadOp::create(
                                        b, loc, aux,
                                        ValueRange{arith::AddIOp::create(
                                            b, loc, histOf(b, base, d),
                                            tid)})});
                              },
                              [&](OpBuilder &b, Location loc) {
                                scf::YieldOp::create(b, loc, c32(b, 0));
                              })
                              .getResult(0);
                      Value start =
                          blockScan(b, loc, count, gpu::AllReduceOperation::ADD,
                                    scratch, shape.numWarps())
                              .exclusive;
                      buildIf(b, loc, binThread(b, tid), [&](OpBuilder &b) {
                        memref::StoreOp::create(
                            b, loc,
                            arith::AddIOp::create(b, loc, start, before(b)),
                            shared, ValueRange{tid});
                      });
                      gpu::BarrierOp::create(b, loc);
                      buildWideRadixScatterTiles(
                          b, loc, keysS, idxS, seg.row, cur, dst, seg.begin,
                          seg.length, shiftOf(b, d), shared, tid, shape);
                      scf::YieldOp::create(b, loc);
                      return;
                    }
                    buildIf(b, loc, binThread(b, tid), [&](OpBuilder &b) {
                      memref::StoreOp::create(
                          b, loc,
                          memref::LoadOp::create(
                              b, loc, aux,
                              ValueRange{arith::AddIOp::create(
                                  b, loc, histOf(b, base, d), tid)}),
                          shared, ValueRange{tid});
                      memref::StoreOp::create(
                          b, loc, before(b), shared,
                          ValueRange{arith::AddIOp::create(
                              b, loc, constIndex(b, loc, runAt), tid)});
                    });
                    buildRadixScatterTiles(b, loc, keysS, idxS, seg.row, cur,
                                           dst, seg.begin, seg.length,
                                           shiftOf(b, d), {c0, runAt, warpsAt},
                                           shared, tid, shape);
                    scf::YieldOp::create(b, loc);
                  });
            });
        scf::YieldOp::create(b, loc);
      });

  // The sorted indices, from the slot of the last pass.
  buildSegmentLaunch(
      b, loc, rows, split, shape, i32, {},
      [&](OpBuilder &b, const Segment &seg, Value tid, Value scratch,
          ValueRange) {
        Value base = rowBase(b, seg.row);
        Value last = constIndex(b, loc, digits);
        Value slot =
            passSlot(b, base, constantsOf(b, base, tid, scratch), last);
        forEachStrided(
            b, loc, tid, seg.begin,
            arith::AddIOp::create(b, loc, seg.begin, seg.length), shape.threads,
            [&](OpBuilder &b, Value s) {
              writeOut(b, seg.row, s,
                       memref::LoadOp::create(b, loc, idxS,
                                              ValueRange{slot, seg.row, s}));
            });
      });
}

/// The digits of the radix selection: 4 bits, 16 bins.
static constexpr int64_t kSelectDigitBits = 4;
static constexpr int64_t kSelectBins = 1 << kSelectDigitBits;

/// The shift of the selection's digit `pass` (an index, 0 for the top
/// digit of `digits`, digits of `digitBits`) in a key of `keyType`, and the
/// mask of the bits above that digit.
static std::pair<Value, Value>
selectDigitShift(OpBuilder &b, Location loc, Type keyType, int64_t digits,
                 Value pass, int64_t digitBits = kSelectDigitBits) {
  // (digits - 1 - pass) * digitBits.
  Value shiftIndex = arith::MulIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, constIndex(b, loc, digits - 1), pass),
      constIndex(b, loc, digitBits));
  Value shift = arith::IndexCastUIOp::create(b, loc, keyType, shiftIndex);
  // Two shifts: a shift by the width is poison.
  Value above = arith::ShLIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, allOnes(b, loc, keyType), shift),
      constOf(b, loc, keyType, digitBits));
  return {shift, above};
}

/// The first bin of a 16-bin histogram (`countAt(bin)`, i32 counts) whose
/// running count reaches `need`, and what is left of `need` within it (both
/// i32).
static std::pair<Value, Value>
pickSelectBin(OpBuilder &b, Location loc, Value need,
              function_ref<Value(OpBuilder &, int64_t bin)> countAt) {
  Type i32 = b.getI32Type();
  Value found = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
  Value before = constOf(b, loc, i32, 0), digit = before, left = need;
  for (int64_t d = 0; d < kSelectBins; ++d) {
    Value through = arith::AddIOp::create(b, loc, before, countAt(b, d));
    Value here = arith::AndIOp::create(
        b, loc,
        arith::XOrIOp::create(
            b, loc, found,
            arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, need,
                              through));
    digit =
        arith::SelectOp::create(b, loc, here, constOf(b, loc, i32, d), digit);
    left = arith::SelectOp::create(
        b, loc, here, arith::SubIOp::create(b, loc, need, before), left);
    found = arith::OrIOp::create(b, loc, found, here);
    before = through;
  }
  return {digit, left};
}

/// `prefix | digit << shift` (digit an i32).
static Value appendDigit(OpBuilder &b, Location loc, Value prefix, Value digit,
                         Value shift) {
  Type keyType = prefix.getType();
  Value wide = keyType == digit.getType()
                   ? digit
                   : Value(arith::ExtUIOp::create(b, loc, keyType, digit));
  return arith::OrIOp::create(b, loc, prefix,
                              arith::ShLIOp::create(b, loc, wide, shift));
}

/// The k-th smallest key of the row (1-based `k`, an i32 in [1, N]) and how
/// many of the keys equal to it are among the k smallest, in every thread:
/// an MSD radix selection of 4-bit digits from the top of the `sortBits`.
/// Per digit, the keys with the prefix found so far count their digit in a
/// 16-bin histogram in workgroup memory (the first 16 elements of the i32
/// `scratch`, by shared-memory atomics); after a barrier every thread walks
/// the bins to the one holding the k-th key, which extends the prefix.
static std::pair<Value, Value>
buildRadixSelect(OpBuilder &b, Location loc, Value n, Value k, Type keyType,
                 unsigned sortBits, Value tid, Value scratch, KernelShape shape,
                 function_ref<Value(OpBuilder &, Value i)> keyAt) {
  Type i32 = b.getI32Type();
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  Value zero32 = constOf(b, loc, i32, 0), one32 = constOf(b, loc, i32, 1);
  int64_t digits = (sortBits + kSelectDigitBits - 1) / kSelectDigitBits;
  auto passes = scf::ForOp::create(
      b, loc, c0, constIndex(b, loc, digits), c1,
      ValueRange{constOf(b, loc, keyType, 0), k},
      [&](OpBuilder &b, Location loc, Value r, ValueRange carried) {
        Value prefix = carried[0], need = carried[1];
        Value shift, above;
        std::tie(shift, above) = selectDigitShift(b, loc, keyType, digits, r);
        Value digitMask = constOf(b, loc, keyType, kSelectBins - 1);
        // An empty histogram.
        Value bins = constIndex(b, loc, kSelectBins);
        buildIf(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid, bins),
            [&](OpBuilder &b) {
              memref::StoreOp::create(b, loc, zero32, scratch, ValueRange{tid});
            });
        gpu::BarrierOp::create(b, loc);
        buildTileLoop(
            b, loc, n, shape.threads, tid, ValueRange{},
            [&](OpBuilder &b, Value i, Value inRow, ValueRange) {
              buildIf(b, loc, inRow, [&](OpBuilder &b) {
                Value key = keyAt(b, i);
                Value samePrefix = arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::eq,
                    arith::AndIOp::create(b, loc, key, above), prefix);
                buildIf(b, loc, samePrefix, [&](OpBuilder &b) {
                  Value digit = arith::AndIOp::create(
                      b, loc, arith::ShRUIOp::create(b, loc, key, shift),
                      digitMask);
                  Value bin = arith::IndexCastUIOp::create(
                      b, loc, b.getIndexType(), digit);
                  memref::AtomicRMWOp::create(b, loc,
                                              arith::AtomicRMWKind::addi, one32,
                                              scratch, ValueRange{bin});
                });
              });
              return SmallVector<Value>{};
            });
        gpu::BarrierOp::create(b, loc);
        auto [digit, left] =
            pickSelectBin(b, loc, need, [&](OpBuilder &b, int64_t d) -> Value {
              return memref::LoadOp::create(b, loc, scratch,
                                            ValueRange{constIndex(b, loc, d)});
            });
        // The histogram is read before the next digit clears it.
        gpu::BarrierOp::create(b, loc);
        scf::YieldOp::create(
            b, loc,
            ValueRange{appendDigit(b, loc, prefix, digit, shift), left});
      });
  return {passes.getResult(0), passes.getResult(1)};
}

/// The i32 elements per row that the blocks of a split selection share,
/// with digits of `digitBits`: the histograms of the digits
/// ([digits][bins]), then each segment's counts of keys below and equal to
/// the K-th ([segments][2]).
static int64_t selectAuxPerRow(unsigned sortBits, int64_t segments,
                               int64_t digitBits) {
  int64_t digits = (sortBits + digitBits - 1) / digitBits;
  return digits * (int64_t(1) << digitBits) + 2 * segments;
}

/// The prefix of the k-th smallest key over the first `passes` digits of a
/// selection split across blocks, and what is left of `k` within it, from
/// the row's histograms in global memory (`hist[base + pass * bins + bin]`,
/// complete for those digits), in every thread of every block of the row
/// (the same result in each). 4-bit digits: the walk of `buildRadixSelect`
/// in each thread. 8-bit digits (`digitBits`): per pass, a thread per bin
/// and a block scan of the bins (`scratch`, the block's 32-slot i32
/// buffer); the one thread whose bin holds the k-th key writes its digit
/// and what is left of k for all (every thread must call it).
static std::pair<Value, Value>
walkSplitHistograms(OpBuilder &b, Location loc, Value hist, Value base,
                    int64_t passes, Value k, Type keyType, int64_t digits,
                    int64_t digitBits = kSelectDigitBits, Value tid = {},
                    Value scratch = {}, int64_t numWarps = 0) {
  int64_t bins = int64_t(1) << digitBits;
  auto loop = scf::ForOp::create(
      b, loc, constIndex(b, loc, 0), constIndex(b, loc, passes),
      constIndex(b, loc, 1), ValueRange{constOf(b, loc, keyType, 0), k},
      [&](OpBuilder &b, Location loc, Value pass, ValueRange carried) {
        auto [shift, above] =
            selectDigitShift(b, loc, keyType, digits, pass, digitBits);
        (void)above;
        Value passBase = arith::AddIOp::create(
            b, loc, base,
            arith::MulIOp::create(b, loc, pass, constIndex(b, loc, bins)));
        if (digitBits != kSelectDigitBits) {
          Type i32 = b.getI32Type();
          Value need = carried[1];
          Value binThread = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult, tid, constIndex(b, loc, bins));
          Value count =
              scf::IfOp::create(
                  b, loc, binThread,
                  [&](OpBuilder &b, Location loc) {
                    scf::YieldOp::create(b, loc,
                                         ValueRange{memref::LoadOp::create(
                                             b, loc, hist,
                                             ValueRange{arith::AddIOp::create(
                                                 b, loc, passBase, tid)})});
                  },
                  [&](OpBuilder &b, Location loc) {
                    scf::YieldOp::create(b, loc, constOf(b, loc, i32, 0));
                  })
                  .getResult(0);
          BlockScan scan = blockScan(
              b, loc, count, gpu::AllReduceOperation::ADD, scratch, numWarps);
          Value here = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                    scan.exclusive, need),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, need,
                                    scan.inclusive));
          buildIf(b, loc, here, [&](OpBuilder &b) {
            memref::StoreOp::create(
                b, loc, arith::IndexCastUIOp::create(b, loc, i32, tid), scratch,
                ValueRange{constIndex(b, loc, 0)});
            memref::StoreOp::create(
                b, loc, arith::SubIOp::create(b, loc, need, scan.exclusive),
                scratch, ValueRange{constIndex(b, loc, 1)});
          });
          gpu::BarrierOp::create(b, loc);
          Value digit = memref::LoadOp::create(
              b, loc, scratch, ValueRange{constIndex(b, loc, 0)});
          Value left = memref::LoadOp::create(
              b, loc, scratch, ValueRange{constIndex(b, loc, 1)});
          // Read before the scratch is reused.
          gpu::BarrierOp::create(b, loc);
          scf::YieldOp::create(
              b, loc,
              ValueRange{appendDigit(b, loc, carried[0], digit, shift), left});
          return;
        }
        auto [digit, left] = pickSelectBin(
            b, loc, carried[1], [&](OpBuilder &b, int64_t d) -> Value {
              return memref::LoadOp::create(
                  b, loc, hist,
                  ValueRange{arith::AddIOp::create(b, loc, passBase,
                                                   constIndex(b, loc, d))});
            });
        scf::YieldOp::create(
            b, loc,
            ValueRange{appendDigit(b, loc, carried[0], digit, shift), left});
      });
  return {loop.getResult(0), loop.getResult(1)};
}

/// The sorting kernel of `kernel` over the rows of `input` [R, N]: writes
/// `indices` [R, M] (i64) and, when set, `values` [R, M] (the input's
/// elements at those indices), M = K or N. `keysS` / `idxS` are the global
/// scratch [2, R, N] of the radix sort when `kernel.needsScratch`.
static void buildSortingKernel(OpBuilder &b, Location loc, Value input,
                               Value values, Value indices, Value keysS,
                               Value idxS, Value aux,
                               const SortingKernel &kernel,
                               int64_t maxThreads) {
  Rows rows = rowsOfBuffer(b, loc, input);
  KernelShape shape = kernelShape(rows, maxThreads);
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Type keyType = b.getIntegerType(kernel.info.keyBits);
  Value outputs = memref::DimOp::create(b, loc, indices, 1);
  auto keyOf = [&](OpBuilder &b, Value x) {
    return lowering::toSortKey(b, loc, x, kernel.info, kernel.descending);
  };
  // The bitonic sort's buffers in workgroup memory.
  std::optional<int64_t> padded;
  if (!kernel.needsScratch(rows.staticLength))
    padded = kernel.select
                 ? bitonicSize(kernel.k, kernel.info.keyBits)
                 : bitonicSize(rows.staticLength, kernel.info.keyBits);
  SmallVector<Type> workgroup;
  if (kernel.select && kernel.unsorted)
    ; // no sort
  else if (padded)
    workgroup = {workgroupBufferType({*padded}, keyType),
                 workgroupBufferType({*padded}, i32)};
  else
    workgroup = {workgroupBufferType(
        {radixSortSharedSize(kernel.info.sortBits, shape)}, i32)};
  // The outputs of element `index(s)` (an i32) at slot s < M.
  auto writeOutputs = [&](OpBuilder &b, Value row, Value tid,
                          function_ref<Value(OpBuilder &, Value s)> indexAt) {
    forEachStrided(
        b, loc, tid, constIndex(b, loc, 0), outputs, shape.threads,
        [&](OpBuilder &b, Value s) {
          Value index = indexAt(b, s);
          memref::StoreOp::create(b, loc,
                                  arith::ExtUIOp::create(b, loc, i64, index),
                                  indices, ValueRange{row, s});
          if (values) {
            Value at =
                arith::IndexCastUIOp::create(b, loc, b.getIndexType(), index);
            memref::StoreOp::create(
                b, loc,
                memref::LoadOp::create(b, loc, input, ValueRange{row, at}),
                values, ValueRange{row, s});
          }
        });
  };
  // Slots [from, P) of the bitonic buffers get pairs that sort after every
  // element: the largest key and an index from N on.
  auto padShared = [&](OpBuilder &b, Value tid, Value from, ValueRange shared) {
    forEachStrided(
        b, loc, tid, from, constIndex(b, loc, *padded), shape.threads,
        [&](OpBuilder &b, Value s) {
          memref::StoreOp::create(b, loc, allOnes(b, loc, keyType), shared[0],
                                  ValueRange{s});
          Value index = arith::IndexCastUIOp::create(
              b, loc, i32, arith::AddIOp::create(b, loc, rows.rowLength, s));
          memref::StoreOp::create(b, loc, index, shared[1], ValueRange{s});
        });
  };
  auto sortedFromShared = [&](OpBuilder &b, Value row, Value tid,
                              ValueRange shared) {
    gpu::BarrierOp::create(b, loc);
    buildBitonicNetwork(b, loc, shared[0], shared[1], *padded, tid,
                        shape.threads);
    writeOutputs(b, row, tid, [&](OpBuilder &b, Value s) {
      return memref::LoadOp::create(b, loc, shared[1], ValueRange{s});
    });
  };
  auto sortedFromScratch = [&](OpBuilder &b, Value row, Value tid, Value m,
                               ValueRange shared) {
    gpu::BarrierOp::create(b, loc);
    Value slot =
        buildRadixSortScratch(b, loc, keysS, idxS, row, m, kernel.info.sortBits,
                              tid, shared[0], shape);
    writeOutputs(b, row, tid, [&](OpBuilder &b, Value s) {
      return memref::LoadOp::create(b, loc, idxS, ValueRange{slot, row, s});
    });
  };

  auto loadX = [&](OpBuilder &b, Value row, Value i) -> Value {
    return memref::LoadOp::create(b, loc, input, ValueRange{row, i});
  };
  // topk, 0 < K < N, once the K-th key (`threshold`) and how many keys equal
  // to it to take (`need`) are known: in index order over [begin, begin +
  // length) of the row, the keys below the threshold and the first `need`
  // of those equal to it (`tiesBefore` of these before the range); their
  // stable positions from `takenBefore` on by ballot scans. `take` gets each
  // taken element's position, key, value and index.
  auto collectRange =
      [&](OpBuilder &b, Value row, Value tid, Value scratch, Value begin,
          Value length, Value takenBefore, Value tiesBefore, Value threshold,
          Value need,
          function_ref<void(OpBuilder &, Value at, Value key, Value x, Value i)>
              take) {
        buildTileLoop(
            b, loc, length, shape.threads, tid,
            ValueRange{takenBefore, tiesBefore},
            [&](OpBuilder &b, Value j, Value inRange, ValueRange carried) {
              Value i = arith::AddIOp::create(b, loc, begin, j);
              Value x = loadIfInRow(
                  b, loc, inRange,
                  [&](OpBuilder &b) { return loadX(b, row, i); },
                  arith::ConstantOp::create(
                      b, loc, b.getZeroAttr(getElementTypeOrSelf(input))));
              Value key = keyOf(b, x);
              Value below = arith::AndIOp::create(
                  b, loc, inRange,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, key,
                                        threshold));
              Value equal = arith::AndIOp::create(
                  b, loc, inRange,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, key,
                                        threshold));
              BallotScan ties =
                  blockBallotScan(b, loc, equal, scratch, shape.numWarps());
              Value tieRank =
                  arith::AddIOp::create(b, loc, carried[1], ties.position);
              Value takeIt = arith::OrIOp::create(
                  b, loc, below,
                  arith::AndIOp::create(
                      b, loc, equal,
                      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            tieRank, need)));
              BallotScan taken =
                  blockBallotScan(b, loc, takeIt, scratch, shape.numWarps());
              Value pos =
                  arith::AddIOp::create(b, loc, carried[0], taken.position);
              buildIf(b, loc, takeIt, [&](OpBuilder &b) {
                take(
                    b,
                    arith::IndexCastUIOp::create(b, loc, b.getIndexType(), pos),
                    key, x, i);
              });
              return SmallVector<Value>{
                  arith::AddIOp::create(b, loc, carried[0], taken.total),
                  arith::AddIOp::create(b, loc, carried[1], ties.total)};
            });
      };
  // The unsorted results of topk: the values and indices in index order.
  auto takeUnsorted = [&](Value row) {
    return [&, row](OpBuilder &b, Value at, Value, Value x, Value i) {
      memref::StoreOp::create(b, loc, x, values, ValueRange{row, at});
      memref::StoreOp::create(b, loc,
                              arith::IndexCastUIOp::create(b, loc, i64, i),
                              indices, ValueRange{row, at});
    };
  };
  // The (key, i32 index) pairs of the taken, in slot 0 of [slots, R, K]
  // global buffers.
  auto takeInto = [&](Value keysBuf, Value idxBuf, Value row) {
    return [&, keysBuf, idxBuf, row](OpBuilder &b, Value at, Value key, Value,
                                     Value i) {
      Value c0 = constIndex(b, loc, 0);
      memref::StoreOp::create(b, loc, key, keysBuf, ValueRange{c0, row, at});
      memref::StoreOp::create(b, loc,
                              arith::IndexCastUIOp::create(b, loc, i32, i),
                              idxBuf, ValueRange{c0, row, at});
    };
  };

  // The radix sort of the first m pairs of each row split across blocks
  // (`fill` gives slot 0's pairs, or they are there), then the outputs.
  auto splitSort =
      [&](OpBuilder &b, int64_t m,
          function_ref<std::pair<Value, Value>(OpBuilder &, Value, Value)>
              fill) {
        buildSplitRadixSort(
            b, loc, rows.numRows, m, *kernel.sortSplit, keysS, idxS, aux,
            *rows.staticRows * kernel.selectAux(), kernel.info.sortBits,
            shape.threads >= (int64_t(1) << kernel.sortDigitBits)
                ? kernel.sortDigitBits
                : kSortDigitBits,
            shape, fill, [&](OpBuilder &b, Value row, Value s, Value index) {
              memref::StoreOp::create(
                  b, loc, arith::ExtUIOp::create(b, loc, i64, index), indices,
                  ValueRange{row, s});
              if (values)
                memref::StoreOp::create(
                    b, loc,
                    loadX(b, row,
                          arith::IndexCastUIOp::create(b, loc, b.getIndexType(),
                                                       index)),
                    values, ValueRange{row, s});
            });
      };
  if (!kernel.select && kernel.sortSplit) {
    buildClearLaunch(b, loc, aux, shape.threads);
    splitSort(b, *rows.staticLength,
              [&](OpBuilder &b, Value row, Value s) -> std::pair<Value, Value> {
                return {keyOf(b, loadX(b, row, s)),
                        arith::IndexCastUIOp::create(b, loc, i32, s)};
              });
    return;
  }

  if (std::optional<RowSplit> split = kernel.split) {
    // topk of long rows, split across blocks. Per row, in one i32 buffer:
    // the histograms of the selection's digits ([digits][16], added to by
    // every block of the row) and each segment's counts of keys below and
    // equal to the K-th ([segments][2]).
    int64_t k = *kernel.k;
    // 8-bit digits (sort-digit-bits=8) when a block has a thread per bin.
    int64_t digitBits = shape.threads >= (int64_t(1) << kernel.selectDigitBits)
                            ? kernel.selectDigitBits
                            : kSelectDigitBits;
    bool wide = digitBits != kSelectDigitBits;
    int64_t selectBins = int64_t(1) << digitBits;
    int64_t digits = (kernel.info.sortBits + digitBits - 1) / digitBits;
    int64_t countsAt = digits * selectBins;
    int64_t perRow =
        selectAuxPerRow(kernel.info.sortBits, split->segments, digitBits);
    buildClearLaunch(b, loc, aux, shape.threads);
    Value k32 = constOf(b, loc, i32, k);
    // The prefix of the K-th key over the first `passes` digits, and what
    // is left of K within it (every thread of the block calls it).
    auto walk = [&](OpBuilder &b, Value base, int64_t passes, Value tid,
                    Value scratch) {
      return walkSplitHistograms(b, loc, aux, base, passes, k32, keyType,
                                 digits, digitBits, tid, scratch,
                                 shape.numWarps());
    };
    auto rowBase = [&](OpBuilder &b, Value row) -> Value {
      return arith::MulIOp::create(b, loc, row, constIndex(b, loc, perRow));
    };
    auto isThread0 = [&](OpBuilder &b, Value tid) -> Value {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                   constIndex(b, loc, 0));
    };
    // One launch per digit: each block counts its segment's keys with the
    // prefix so far into a histogram in workgroup memory (shared atomics),
    // then adds it to the row's (global atomics).
    for (int64_t d = 0; d < digits; ++d) {
      // The block's histogram: the 32-slot scratch, or a buffer of 256
      // bins (the scratch then serves the walk's block scans).
      SmallVector<Type> histWorkgroup;
      if (wide)
        histWorkgroup.push_back(workgroupBufferType({selectBins}, i32));
      buildSegmentLaunch(
          b, loc, rows, *split, shape, i32, histWorkgroup,
          [&](OpBuilder &b, const Segment &seg, Value tid, Value scratch,
              ValueRange extra) {
            Value hist = wide ? extra.front() : scratch;
            Value base = rowBase(b, seg.row);
            Value prefix, need;
            std::tie(prefix, need) = walk(b, base, d, tid, scratch);
            (void)need;
            Value shift, above;
            std::tie(shift, above) = selectDigitShift(
                b, loc, keyType, digits, constIndex(b, loc, d), digitBits);
            Value bins = constIndex(b, loc, selectBins);
            Value binThread = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ult, tid, bins);
            buildIf(b, loc, binThread, [&](OpBuilder &b) {
              memref::StoreOp::create(b, loc, constOf(b, loc, i32, 0), hist,
                                      ValueRange{tid});
            });
            gpu::BarrierOp::create(b, loc);
            Value digitMask = constOf(b, loc, keyType, selectBins - 1);
            buildTileLoop(
                b, loc, seg.length, shape.threads, tid, ValueRange{},
                [&](OpBuilder &b, Value j, Value inRange, ValueRange) {
                  buildIf(b, loc, inRange, [&](OpBuilder &b) {
                    Value key = keyOf(
                        b, loadX(b, seg.row,
                                 arith::AddIOp::create(b, loc, seg.begin, j)));
                    Value samePrefix = arith::CmpIOp::create(
                        b, loc, arith::CmpIPredicate::eq,
                        arith::AndIOp::create(b, loc, key, above), prefix);
                    buildIf(b, loc, samePrefix, [&](OpBuilder &b) {
                      Value bin = arith::IndexCastUIOp::create(
                          b, loc, b.getIndexType(),
                          arith::AndIOp::create(
                              b, loc,
                              arith::ShRUIOp::create(b, loc, key, shift),
                              digitMask));
                      memref::AtomicRMWOp::create(
                          b, loc, arith::AtomicRMWKind::addi,
                          constOf(b, loc, i32, 1), hist, ValueRange{bin});
                    });
                  });
                  return SmallVector<Value>{};
                });
            gpu::BarrierOp::create(b, loc);
            buildIf(b, loc, binThread, [&](OpBuilder &b) {
              Value count =
                  memref::LoadOp::create(b, loc, hist, ValueRange{tid});
              Value any =
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, count,
                                        constOf(b, loc, i32, 0));
              buildIf(b, loc, any, [&](OpBuilder &b) {
                Value at = arith::AddIOp::create(
                    b, loc, base,
                    arith::AddIOp::create(
                        b, loc, constIndex(b, loc, d * selectBins), tid));
                memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi,
                                            count, aux, ValueRange{at});
              });
            });
          });
    }
    // Each segment's keys below and equal to the K-th.
    auto segmentSlot = [&](OpBuilder &b, Value base, Value segIndex,
                           int64_t which) -> Value {
      return arith::AddIOp::create(
          b, loc, base,
          arith::AddIOp::create(
              b, loc, constIndex(b, loc, countsAt + which),
              arith::MulIOp::create(b, loc, segIndex, constIndex(b, loc, 2))));
    };
    buildSegmentLaunch(
        b, loc, rows, *split, shape, i32, {},
        [&](OpBuilder &b, const Segment &seg, Value tid, Value scratch,
            ValueRange) {
          Value base = rowBase(b, seg.row);
          Value threshold, need;
          std::tie(threshold, need) = walk(b, base, digits, tid, scratch);
          (void)need;
          SmallVector<Value> counts = blockCountRange(
              b, loc, seg.begin, seg.length, tid, scratch, shape, 2,
              [&](OpBuilder &b, Value i, Value inRange) {
                Value x = loadIfInRow(
                    b, loc, inRange,
                    [&](OpBuilder &b) { return loadX(b, seg.row, i); },
                    arith::ConstantOp::create(
                        b, loc, b.getZeroAttr(getElementTypeOrSelf(input))));
                Value key = keyOf(b, x);
                return SmallVector<Value>{
                    arith::AndIOp::create(
                        b, loc, inRange,
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                              key, threshold)),
                    arith::AndIOp::create(
                        b, loc, inRange,
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              key, threshold))};
              });
          buildIf(b, loc, isThread0(b, tid), [&](OpBuilder &b) {
            for (int64_t which = 0; which < 2; ++which)
              memref::StoreOp::create(
                  b, loc, counts[which], aux,
                  ValueRange{segmentSlot(b, base, seg.index, which)});
          });
        });
    // The taken of each segment, from the counts of the segments before,
    // into slot 0 of the scratch (then the sort).
    buildSegmentLaunch(
        b, loc, rows, *split, shape, i32, {},
        [&](OpBuilder &b, const Segment &seg, Value tid, Value scratch,
            ValueRange) {
          Value base = rowBase(b, seg.row);
          auto [threshold, need] = walk(b, base, digits, tid, scratch);
          Value belowBefore = sumOfSlots(
              b, loc, aux, segmentSlot(b, base, constIndex(b, loc, 0), 0),
              seg.index, 2);
          Value tiesBefore = sumOfSlots(
              b, loc, aux, segmentSlot(b, base, constIndex(b, loc, 0), 1),
              seg.index, 2);
          Value takenBefore = arith::AddIOp::create(
              b, loc, belowBefore,
              arith::MinUIOp::create(b, loc, tiesBefore, need));
          if (kernel.unsorted)
            collectRange(b, seg.row, tid, scratch, seg.begin, seg.length,
                         takenBefore, tiesBefore, threshold, need,
                         takeUnsorted(seg.row));
          else
            collectRange(b, seg.row, tid, scratch, seg.begin, seg.length,
                         takenBefore, tiesBefore, threshold, need,
                         takeInto(keysS, idxS, seg.row));
        });
    // The K taken, in index order, sorted stably: a block per row, or
    // split across blocks.
    if (!kernel.unsorted && kernel.sortSplit) {
      splitSort(b, k, nullptr);
    } else if (!kernel.unsorted) {
      buildRowLaunch(
          b, loc, rows, shape, i32, workgroup,
          [&](OpBuilder &b, Value row, Value tid, Value, ValueRange shared) {
            Value kIndex = constIndex(b, loc, k);
            if (padded) {
              Value c0 = constIndex(b, loc, 0);
              forEachStrided(b, loc, tid, c0, kIndex, shape.threads,
                             [&](OpBuilder &b, Value s) {
                               memref::StoreOp::create(
                                   b, loc,
                                   memref::LoadOp::create(
                                       b, loc, keysS, ValueRange{c0, row, s}),
                                   shared[0], ValueRange{s});
                               memref::StoreOp::create(
                                   b, loc,
                                   memref::LoadOp::create(
                                       b, loc, idxS, ValueRange{c0, row, s}),
                                   shared[1], ValueRange{s});
                             });
              padShared(b, tid, kIndex, shared);
              sortedFromShared(b, row, tid, shared);
            } else {
              sortedFromScratch(b, row, tid, kIndex, shared);
            }
          });
    }
    return;
  }

  buildRowLaunch(
      b, loc, rows, shape, i32, workgroup,
      [&](OpBuilder &b, Value row, Value tid, Value scratch,
          ValueRange shared) {
        auto loadRow = [&](OpBuilder &b, Value i) -> Value {
          return loadX(b, row, i);
        };
        if (!kernel.select) {
          // The whole row: its pairs into the sort's buffers, then the sort.
          if (padded) {
            forEachStrided(
                b, loc, tid, constIndex(b, loc, 0), rows.rowLength,
                shape.threads, [&](OpBuilder &b, Value s) {
                  memref::StoreOp::create(b, loc, keyOf(b, loadRow(b, s)),
                                          shared[0], ValueRange{s});
                  memref::StoreOp::create(
                      b, loc, arith::IndexCastUIOp::create(b, loc, i32, s),
                      shared[1], ValueRange{s});
                });
            padShared(b, tid, rows.rowLength, shared);
            sortedFromShared(b, row, tid, shared);
          } else {
            Value c0 = constIndex(b, loc, 0);
            forEachStrided(
                b, loc, tid, c0, rows.rowLength, shape.threads,
                [&](OpBuilder &b, Value s) {
                  memref::StoreOp::create(b, loc, keyOf(b, loadRow(b, s)),
                                          keysS, ValueRange{c0, row, s});
                  memref::StoreOp::create(
                      b, loc, arith::IndexCastUIOp::create(b, loc, i32, s),
                      idxS, ValueRange{c0, row, s});
                });
            sortedFromScratch(b, row, tid, rows.rowLength, shared);
          }
          return;
        }
        // topk, 0 < K < N: the K-th key and how many keys equal to it to
        // take, then the taken in index order.
        int64_t k = *kernel.k;
        Value k32 = constOf(b, loc, i32, k);
        auto [threshold, need] = buildRadixSelect(
            b, loc, rows.rowLength, k32, keyType, kernel.info.sortBits, tid,
            scratch, shape,
            [&](OpBuilder &b, Value i) { return keyOf(b, loadRow(b, i)); });
        Value zero32 = constOf(b, loc, i32, 0);
        Value c0 = constIndex(b, loc, 0);
        if (kernel.unsorted) {
          collectRange(b, row, tid, scratch, c0, rows.rowLength, zero32, zero32,
                       threshold, need, takeUnsorted(row));
          return;
        }
        Value kIndex = constIndex(b, loc, k);
        if (padded) {
          collectRange(
              b, row, tid, scratch, c0, rows.rowLength, zero32, zero32,
              threshold, need,
              [&](OpBuilder &b, Value at, Value key, Value, Value i) {
                memref::StoreOp::create(b, loc, key, shared[0], ValueRange{at});
                memref::StoreOp::create(
                    b, loc, arith::IndexCastUIOp::create(b, loc, i32, i),
                    shared[1], ValueRange{at});
              });
          padShared(b, tid, kIndex, shared);
          sortedFromShared(b, row, tid, shared);
        } else {
          collectRange(b, row, tid, scratch, c0, rows.rowLength, zero32, zero32,
                       threshold, need, takeInto(keysS, idxS, row));
          if (!kernel.sortSplit)
            sortedFromScratch(b, row, tid, kIndex, shared);
        }
      });
  // The sort of the K taken, split across blocks.
  if (kernel.select && !kernel.unsorted && kernel.sortSplit) {
    buildClearLaunch(b, loc, aux, shape.threads);
    splitSort(b, *kernel.k, nullptr);
  }
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

/// The element-wise code a mask is computed by, when only `user` reads the
/// mask: a `linalg.generic` over the mask's shape whose body is arith or
/// math code, or one arith or math op on tensors, whose tensor operands
/// are of the mask's shape (read at the element's indices) or splat
/// constants. Returns those tensors and a new private function of their
/// elements that computes the mask's element (`MaskSource`), so that the
/// count and compact kernels compute the mask where they read it: no
/// launch and no buffer for it (the sampler's `labels == 1`). Nothing for
/// any other mask.
struct FusedMask {
  SmallVector<Value> inputs;
  func::FuncOp predicate;
};
static std::optional<FusedMask> fuseMaskPredicate(Value mask) {
  auto maskType = cast<RankedTensorType>(mask.getType());
  Operation *producer = mask.getDefiningOp();
  if (!producer || !mask.hasOneUse() || producer->getNumResults() != 1)
    return std::nullopt;
  auto scalarCode = [](Operation &op) {
    return isa<arith::ArithDialect>(op.getDialect()) ||
           op.getDialect()->getNamespace() == "math";
  };
  // An operand of the mask's shape, or the element of a splat constant.
  auto sameShape = [&](Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    return type && type.getShape() == maskType.getShape();
  };
  auto splat = [](Value v) -> TypedAttr {
    SplatElementsAttr attr;
    if (matchPattern(v, m_Constant(&attr)))
      return attr.getSplatValue<TypedAttr>();
    return {};
  };
  // The operands of the code: each the element of a row input or a
  // constant.
  SmallVector<Value> inputs;
  SmallVector<TypedAttr> constants; // null for a row input
  Block *body = nullptr;
  Value yielded;
  if (auto generic = dyn_cast<linalg::GenericOp>(producer)) {
    if (!generic.hasPureTensorSemantics() ||
        generic.getNumLoops() != generic.getNumParallelLoops() ||
        generic.getNumLoops() != maskType.getRank())
      return std::nullopt;
    OpOperand *init = generic.getDpsInitOperand(0);
    if (!generic.getMatchingIndexingMap(init).isIdentity() ||
        !generic.getMatchingBlockArgument(init).use_empty())
      return std::nullopt;
    for (OpOperand *operand : generic.getDpsInputOperands()) {
      Value v = operand->get();
      if (TypedAttr c = splat(v)) {
        inputs.push_back(nullptr);
        constants.push_back(c);
      } else if (sameShape(v) &&
                 generic.getMatchingIndexingMap(operand).isIdentity()) {
        inputs.push_back(v);
        constants.push_back(nullptr);
      } else {
        return std::nullopt;
      }
    }
    body = generic.getBody();
    if (!llvm::all_of(body->without_terminator(), scalarCode))
      return std::nullopt;
    // Values from above the body: constants only.
    WalkResult above = generic.getRegion().walk([&](Operation *op) {
      for (Value v : op->getOperands())
        if (!generic.getRegion().isAncestor(v.getParentRegion()) &&
            !matchPattern(v, m_Constant()))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (above.wasInterrupted())
      return std::nullopt;
    yielded = body->getTerminator()->getOperand(0);
  } else {
    if (!scalarCode(*producer) || !producer->hasTrait<OpTrait::Elementwise>() ||
        producer->getNumRegions() != 0)
      return std::nullopt;
    for (Value v : producer->getOperands()) {
      if (TypedAttr c = splat(v)) {
        inputs.push_back(nullptr);
        constants.push_back(c);
      } else if (sameShape(v)) {
        inputs.push_back(v);
        constants.push_back(nullptr);
      } else {
        return std::nullopt;
      }
    }
  }
  if (llvm::all_of(inputs, [](Value v) { return !v; }))
    return std::nullopt;

  // The function of the row inputs' elements.
  auto module = producer->getParentOfType<ModuleOp>();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location loc = producer->getLoc();
  SmallVector<Type> argTypes;
  for (Value v : inputs)
    if (v)
      argTypes.push_back(cast<RankedTensorType>(v.getType()).getElementType());
  auto func = func::FuncOp::create(
      b, loc, "__sift_gpu_mask",
      b.getFunctionType(argTypes, {maskType.getElementType()}));
  func.setPrivate();
  SymbolTable(module).insert(func); // a unique name
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  SmallVector<Value> elements;
  unsigned arg = 0;
  for (auto [v, c] : llvm::zip_equal(inputs, constants))
    elements.push_back(v ? entry->getArgument(arg++)
                         : arith::ConstantOp::create(b, loc, c).getResult());
  IRMapping map;
  Value result;
  if (body) {
    for (auto [blockArg, element] : llvm::zip(body->getArguments(), elements))
      map.map(blockArg, element);
    for (Operation &op : body->without_terminator()) {
      for (Value v : op.getOperands())
        if (!map.contains(v) && v.getDefiningOp() && v.getParentBlock() != body)
          map.map(v, b.clone(*v.getDefiningOp())->getResult(0));
      b.clone(op, map);
    }
    result = map.lookupOrDefault(yielded);
    // A constant from above the body, yielded as it is.
    if (!func.getBody().isAncestor(result.getParentRegion()))
      result = b.clone(*yielded.getDefiningOp())->getResult(0);
  } else {
    OperationState state(loc, producer->getName());
    state.addOperands(elements);
    state.addAttributes(producer->getAttrs());
    state.addTypes(maskType.getElementType());
    result = b.create(state)->getResult(0);
  }
  func::ReturnOp::create(b, loc, result);
  FusedMask fused;
  fused.predicate = func;
  for (Value v : inputs)
    if (v)
      fused.inputs.push_back(v);
  return fused;
}

/// The buffers of a count or compact kernel's mask: the [R, N] buffer of
/// the mask (`rows`), or of each input its predicate reads (`fused`;
/// `shaped` is the first, whose rows `rows` are).
static SmallVector<Value> maskSources(OpBuilder &b, Location loc,
                                      const std::optional<FusedMask> &fused,
                                      const Rows &rows, Value shaped) {
  if (!fused)
    return {toBuffer(b, loc, rows.matrix)};
  SmallVector<Value> sources;
  for (Value input : fused->inputs)
    sources.push_back(toBuffer(
        b, loc, input == shaped ? rows.matrix : asRows(b, loc, input).matrix));
  return sources;
}

/// Rows of a dynamic length that a compaction ranks: one longer than the
/// compact kernel's i32 positions take is the run-time error
/// SIFT_RT_ERROR_ROW_TOO_LONG (the call ends), checked on the host before
/// the kernel (a static length is checked when the op is converted).
static LogicalResult checkCompactableRows(OpBuilder &b, Location loc,
                                          Operation *anchor, const Rows &rows) {
  if (rows.staticLength)
    return success();
  IRRewriter rewriter(b);
  if (failed(lowering::declareRuntimeReport(rewriter, anchor)))
    return failure();
  Value most = constIndex(b, loc, std::numeric_limits<int32_t>::max());
  lowering::emitRuntimeFail(b, loc,
                            arith::CmpIOp::create(b, loc,
                                                  arith::CmpIPredicate::ugt,
                                                  rows.rowLength, most),
                            SIFT_RT_ERROR_ROW_TOO_LONG, {rows.rowLength, most});
  return success();
}

/// sift.count: the [R, N] input buffer, an [R] i64 result buffer, the
/// count kernel's call.
static LogicalResult convertCount(CountOp op, SplitOptions splitOptions) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Operation *producer = op.getInput().getDefiningOp();
  std::optional<FusedMask> fused = fuseMaskPredicate(op.getInput());
  // (A tensor of the input's shape.)
  Value shaped = fused ? fused->inputs.front() : op.getInput();
  Rows rows = asRows(b, loc, shaped);
  SmallVector<Value> sources = maskSources(b, loc, fused, rows, shaped);
  SmallVector<Value> dynamicRows;
  if (!rows.staticRows)
    dynamicRows.push_back(rows.numRows);
  Value output =
      allocLike(b, loc,
                RankedTensorType::get(
                    {rows.staticRows ? *rows.staticRows : ShapedType::kDynamic},
                    b.getI64Type()),
                dynamicRows);
  SmallVector<NamedAttribute> attrs =
      splitAttrs(b, rowSplit(rows, splitOptions, /*sort=*/false,
                             /*dynamicLength=*/true));
  if (fused)
    attrs.push_back(b.getNamedAttr(kMaskPredicateAttr,
                                   FlatSymbolRefAttr::get(fused->predicate)));
  SmallVector<Value> operands = sources;
  operands.push_back(output);
  createKernelCall(b, loc, op, "count", operands, attrs);
  Value result =
      reshapeCounts(b, loc, toTensor(b, loc, output), shaped,
                    cast<RankedTensorType>(op.getResult().getType()));
  op.getResult().replaceAllUsesWith(result);
  op.erase();
  if (fused && producer->use_empty())
    producer->erase();
  return success();
}

/// `fn` of each element of `x`, as a tensor of `elementType` (an
/// elementwise linalg.generic of x's shape).
static Value mapElements(OpBuilder &b, Location loc, Value x, Type elementType,
                         function_ref<Value(OpBuilder &, Location, Value)> fn) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, x),
                                       elementType);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{x}, ValueRange{init},
             SmallVector<AffineMap>(2, b.getMultiDimIdentityMap(rank)),
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &b, Location loc, ValueRange args) {
               linalg::YieldOp::create(b, loc, fn(b, loc, args[0]));
             })
      .getResult(0);
}

/// sift.cumsum along the last axis: [R, N] in and out, the cumsum kernel's
/// call.
static LogicalResult convertCumsum(CumsumOp op, SplitOptions splitOptions) {
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  int64_t rank = inputType.getRank();
  auto dim = static_cast<int64_t>(op.getDim());
  if (dim < 0)
    dim += rank;
  if (dim != rank - 1)
    return failure(); // other axes: moveAxisLast, or the CPU lowering
  Type resultElt = resultType.getElementType();
  // Integers narrower than the shuffles' 32 bits: the sums in i32 (of the
  // elements sign-extended; a mask's as it is), truncated. A sum that
  // wraps at 2^w has the low w bits of the 32-bit one.
  if (auto narrow = dyn_cast<IntegerType>(resultElt);
      narrow && narrow.getWidth() < 32) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type i32 = b.getI32Type();
    Value input = op.getInput();
    if (!inputType.getElementType().isInteger(1))
      input = mapElements(b, loc, input, i32,
                          [&](OpBuilder &b, Location loc, Value x) -> Value {
                            return arith::ExtSIOp::create(b, loc, i32, x);
                          });
    auto wide = CumsumOp::create(b, loc, resultType.clone(i32), input,
                                 op.getDim(), op.getExclusive());
    Value sums =
        mapElements(b, loc, wide.getResult(), resultElt,
                    [&](OpBuilder &b, Location loc, Value x) -> Value {
                      return arith::TruncIOp::create(b, loc, resultElt, x);
                    });
    op.getResult().replaceAllUsesWith(sums);
    op.erase();
    return convertCumsum(wide, splitOptions);
  }
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
  std::optional<RowSplit> split =
      rowSplit(rows, splitOptions, /*sort=*/false, /*dynamicLength=*/true);
  SmallVector<NamedAttribute> attrs = splitAttrs(b, split);
  if (op.getExclusive())
    attrs.push_back(b.getNamedAttr("exclusive", b.getUnitAttr()));
  SmallVector<Value> operands = {input, output};
  // Each segment's total.
  if (split)
    operands.push_back(allocLike(
        b, loc,
        RankedTensorType::get({*rows.staticRows * split->segments}, resultElt),
        {}));
  createKernelCall(b, loc, op, "cumsum", operands, attrs);
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

/// Whether `n` is `count` (a compaction's, of i64) as an index: its
/// `index_cast` (of the tensor, of the element of a rank-0 count, or in a
/// linalg.generic of the count's elements).
static bool isCountAsIndex(Value n, Value count) {
  auto castOf = [](Operation *op) -> Value {
    if (auto cast = dyn_cast_or_null<arith::IndexCastOp>(op))
      return cast.getIn();
    if (auto cast = dyn_cast_or_null<arith::IndexCastUIOp>(op))
      return cast.getIn();
    return {};
  };
  if (Value in = castOf(n.getDefiningOp())) {
    if (in == count)
      return true;
    auto extract = in.getDefiningOp<tensor::ExtractOp>();
    return extract && extract.getTensor() == count &&
           extract.getIndices().empty();
  }
  auto generic = n.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic->getNumResults() != 1 ||
      generic.getNumDpsInputs() != 1 ||
      generic.getDpsInputOperand(0)->get() != count ||
      generic.getNumLoops() != generic.getNumParallelLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  Block *body = generic.getBody();
  if (body->getOperations().size() != 2)
    return false;
  Operation &cast = body->front();
  return castOf(&cast) == body->getArgument(0) &&
         body->getTerminator()->getOperand(0) == cast.getResult(0);
}

/// The only reader of a compaction's indices when it is a gather of them
/// through a permutation of the compaction's count (`PermutedStore`;
/// `randperm_prefix`'s limit is applied after it, `maskPastLimit`), whose
/// seed and offset are known where the compaction is (or constants), each
/// for every line or of the lines' shape.
static std::optional<std::pair<GatherOp, RandpermPrefixOp>>
permutedGatherOf(CompactOp op) {
  Value indices = op.getIndices();
  auto countType = cast<RankedTensorType>(op.getCount().getType());
  Type element = cast<RankedTensorType>(indices.getType()).getElementType();
  if (!indices.hasOneUse() || !(element.isInteger(32) || element.isInteger(64)))
    return std::nullopt;
  auto gather = dyn_cast<GatherOp>(*indices.getUsers().begin());
  if (!gather || gather.getSource() != indices ||
      gather.getBatchDims() != static_cast<uint64_t>(countType.getRank()) ||
      !isHostLevel(gather))
    return std::nullopt;
  auto perm = gather.getIndices().getDefiningOp<RandpermPrefixOp>();
  if (!perm || !isCountAsIndex(perm.getN(), op.getCount()))
    return std::nullopt;
  DominanceInfo dominance(op->getParentOfType<func::FuncOp>());
  auto known = [&](Value v) {
    if (!v)
      return true;
    auto type = dyn_cast<RankedTensorType>(v.getType());
    return (!type || type.getShape() == countType.getShape()) &&
           (dominance.properlyDominates(v, op) ||
            matchPattern(v, m_Constant()));
  };
  if (!known(perm.getSeed()) || !known(perm.getOffset()))
    return std::nullopt;
  return std::make_pair(gather, perm);
}

/// `v` (an i64 for every line, or a tensor of i64 of the lines' shape) as
/// a kernel operand: an i64, or a buffer [R]. A constant is cloned at the
/// builder's point (it may be defined after it).
static Value perRowOperand(OpBuilder &b, Location loc, Value v) {
  if (matchPattern(v, m_Constant()))
    v = b.clone(*v.getDefiningOp())->getResult(0);
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return v;
  if (type.getRank() == 0)
    return tensor::ExtractOp::create(b, loc, v, ValueRange{});
  if (type.getRank() > 1) {
    ReassociationIndices all;
    for (int64_t i = 0; i < type.getRank(); ++i)
      all.push_back(i);
    v = tensor::CollapseShapeOp::create(b, loc, v,
                                        SmallVector<ReassociationIndices>{all});
  }
  return toBuffer(b, loc, v);
}

/// `lane < limit ? y : fill` for each element of `y` [lines..., M], the
/// lane its index along M; `limit` an index for every line or a tensor of
/// the lines' shape (a `randperm_prefix`'s limit applied to its gather).
static Value maskPastLimit(OpBuilder &b, Location loc, Value y, Value limit,
                           TypedAttr fill) {
  auto type = cast<RankedTensorType>(y.getType());
  int64_t rank = type.getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<Value> inputs = {y};
  SmallVector<AffineMap> maps = {identity};
  if (isa<RankedTensorType>(limit.getType())) {
    inputs.push_back(limit);
    maps.push_back(identity.getMajorSubMap(rank - 1));
  }
  maps.push_back(identity);
  Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, y),
                                       type.getElementType());
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, inputs, ValueRange{init}, maps,
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &b, Location loc, ValueRange args) {
               Value lane = linalg::IndexOp::create(b, loc, rank - 1);
               Value below = arith::CmpIOp::create(
                   b, loc, arith::CmpIPredicate::slt, lane,
                   inputs.size() > 1 ? args[1] : limit);
               Value fillValue = arith::ConstantOp::create(b, loc, fill);
               linalg::YieldOp::create(
                   b, loc,
                   arith::SelectOp::create(b, loc, below, args[0], fillValue)
                       .getResult());
             })
      .getResult(0);
}

/// sift.compact: the mask's buffers (or those of the inputs its elements
/// are computed from, `fuseMaskPredicate`), the indices and counts
/// buffers, the compact kernel's call. Indices that only a gather through
/// a permutation of the count reads (`permutedGatherOf`) are not written:
/// the kernel writes the gather's result (`PermutedStore`).
static LogicalResult convertCompact(CompactOp op, SplitOptions splitOptions) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
  auto countType = cast<RankedTensorType>(op.getCount().getType());
  int64_t k = indicesType.getShape().back();
  Operation *producer = op.getMask().getDefiningOp();
  std::optional<FusedMask> fused = fuseMaskPredicate(op.getMask());
  auto permuted = permutedGatherOf(op);
  // (A tensor of the mask's shape.)
  Value shaped = fused ? fused->inputs.front() : op.getMask();
  Rows rows = asRows(b, loc, shaped);
  if (failed(checkCompactableRows(b, loc, op, rows)))
    return failure();
  SmallVector<Value> dynamicRows;
  if (!rows.staticRows)
    dynamicRows.push_back(rows.numRows);
  int64_t r = rows.staticRows ? *rows.staticRows : ShapedType::kDynamic;
  // The kernel writes positions of the op's type: i64, or i32 where
  // --sift-narrow-indices made them so (half the bytes to write and to
  // gather through).
  Type i64 = b.getI64Type();
  Type indexElement = indicesType.getElementType();
  if (!indexElement.isInteger(32))
    indexElement = i64;
  // The slots of a row: the indices', or the permuted gather's.
  RankedTensorType resultType =
      permuted ? cast<RankedTensorType>(permuted->first.getResult().getType())
               : indicesType;
  int64_t width = resultType.getShape().back();
  Value indices;
  // The permuted gather's result (of a static shape) in its own shape, the
  // kernel's [R, M] a view of it: no reshape of the tensor that element-wise
  // consumers would move past them (and that would keep a concatenation
  // of it from being computed in place).
  Value permutedResult;
  if (permuted) {
    Value whole = allocLike(b, loc, resultType, {});
    permutedResult = toTensor(b, loc, whole);
    auto rowsType = MemRefType::get({r, width}, indexElement);
    int64_t rank = resultType.getRank();
    if (rank == 1)
      indices = memref::ExpandShapeOp::create(
          b, loc, rowsType, whole, rowsReassociation(1),
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(width)});
    else if (rank == 2)
      indices = whole;
    else
      indices = memref::CollapseShapeOp::create(b, loc, rowsType, whole,
                                                rowsReassociation(rank));
  } else {
    indices = allocLike(b, loc, RankedTensorType::get({r, k}, indexElement),
                        dynamicRows);
  }
  Value counts =
      allocLike(b, loc, RankedTensorType::get({r}, i64), dynamicRows);
  SmallVector<Value> operands = maskSources(b, loc, fused, rows, shaped);
  operands.append({indices, counts});
  std::optional<RowSplit> split =
      rowSplit(rows, splitOptions, /*sort=*/false, /*dynamicLength=*/true);
  SmallVector<NamedAttribute> attrs = splitAttrs(b, split);
  int64_t fill = op.getFill();
  if (permuted) {
    fill = 0;
    if (auto gatherFill =
            dyn_cast_or_null<IntegerAttr>(permuted->first.getFillAttr()))
      fill = gatherFill.getInt();
    attrs.push_back(b.getNamedAttr(kPermuteAttr, b.getI64IntegerAttr(k)));
  }
  attrs.push_back(b.getNamedAttr("fill", b.getI64IntegerAttr(fill)));
  if (fused)
    attrs.push_back(b.getNamedAttr(kMaskPredicateAttr,
                                   FlatSymbolRefAttr::get(fused->predicate)));
  if (split) {
    // Each segment's count of set elements.
    operands.push_back(allocI32(b, loc, *rows.staticRows * split->segments));
    // The mask, computed by the counting launch for the compacting one, as
    // bits (32 an i32 word).
    if (fused) {
      SmallVector<Value> words;
      if (!rows.staticLength)
        words.push_back(arith::CeilDivUIOp::create(
            b, loc, rows.rowLength, constIndex(b, loc, kWarpSize)));
      operands.push_back(allocLike(
          b, loc,
          RankedTensorType::get(
              {*rows.staticRows,
               rows.staticLength ? llvm::divideCeilSigned(*rows.staticLength,
                                                          int64_t(kWarpSize))
                                 : ShapedType::kDynamic},
              b.getI32Type()),
          words));
    }
  }
  if (permuted) {
    RandpermPrefixOp perm = permuted->second;
    operands.push_back(perRowOperand(b, loc, perm.getSeed()));
    operands.push_back(
        perm.getOffset()
            ? perRowOperand(b, loc, perm.getOffset())
            : arith::ConstantIntOp::create(b, loc, i64, 0).getResult());
  }
  createKernelCall(b, loc, op, "compact", operands, attrs);
  Value countResult =
      reshapeCounts(b, loc, toTensor(b, loc, counts), shaped, countType);
  op.getCount().replaceAllUsesWith(countResult);
  if (permuted) {
    auto [gather, perm] = *permuted;
    Value gathered = permutedResult;
    if (Value limit = perm.getLimit()) {
      OpBuilder after(gather);
      gathered = maskPastLimit(after, loc, gathered, limit,
                               gather.getFillAttr()
                                   ? cast<TypedAttr>(gather.getFillAttr())
                                   : cast<TypedAttr>(after.getZeroAttr(
                                         resultType.getElementType())));
    }
    gather.getResult().replaceAllUsesWith(gathered);
    gather.erase();
    if (perm->use_empty())
      perm.erase();
  } else {
    Value indicesResult = toTensor(b, loc, indices);
    int64_t rank = indicesType.getRank();
    if (rank == 1) {
      indicesResult = tensor::CollapseShapeOp::create(
          b, loc, RankedTensorType::get({k}, indexElement), indicesResult,
          rowsReassociation(1));
    } else if (rank > 2) {
      SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, shaped);
      sizes.back() = b.getIndexAttr(k);
      SmallVector<int64_t> shape(
          cast<RankedTensorType>(op.getMask().getType()).getShape());
      shape.back() = k;
      indicesResult = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get(shape, indexElement), indicesResult,
          rowsReassociation(rank), sizes);
    }
    // Other index types (the verifier allows any integer) are a truncation
    // of i64 positions.
    if (indicesType.getElementType() != indexElement)
      indicesResult = lowering::castIntElements(b, loc, indicesResult,
                                                indicesType.getElementType());
    if (indicesResult.getType() != indicesType)
      indicesResult =
          tensor::CastOp::create(b, loc, indicesType, indicesResult);
    op.getIndices().replaceAllUsesWith(indicesResult);
  }
  op.erase();
  if (fused && producer->use_empty())
    producer->erase();
  return success();
}

/// The kernels sort, argsort and topk: whether `kind` is one of them.
static bool isSortingKernel(StringRef kind) {
  return kind == "sort" || kind == "argsort" || kind == "topk";
}

/// The sorting kernel of a call (from its input buffer [R, N] and its
/// attributes), or failure for an element type with no sort key.
static FailureOr<SortingKernel> sortingKernelOf(func::CallOp call) {
  if (call.getNumOperands() == 0)
    return failure();
  auto inputType = dyn_cast<MemRefType>(call.getOperand(0).getType());
  if (!inputType || inputType.getRank() != 2)
    return failure();
  FailureOr<lowering::SortKeyInfo> info = lowering::getSortKeyInfo(
      inputType.getElementType(), call->hasAttr("unsigned"));
  if (failed(info))
    return failure();
  SortingKernel kernel;
  kernel.info = *info;
  StringRef kind = call->getAttrOfType<StringAttr>(kKernelAttr).getValue();
  if (!inputType.isDynamicDim(0))
    kernel.sortSplit = splitOfCall(call, "sort_");
  auto bits = call->getAttrOfType<IntegerAttr>("sort_digit_bits");
  bool wide = bits && bits.getInt() == kWideSortDigitBits;
  if (wide && kernel.sortSplit)
    kernel.sortDigitBits = kWideSortDigitBits;
  if (kind != "topk") {
    kernel.descending = call->hasAttr("descending");
    return kernel;
  }
  auto k = call->getAttrOfType<IntegerAttr>("k");
  if (!k || inputType.isDynamicDim(1) || k.getInt() <= 0 ||
      k.getInt() > inputType.getDimSize(1))
    return failure();
  kernel.descending = !call->hasAttr("smallest");
  kernel.k = k.getInt();
  kernel.select = k.getInt() < inputType.getDimSize(1);
  kernel.unsorted = kernel.select && call->hasAttr("unsorted");
  if (kernel.select && !inputType.isDynamicDim(0))
    kernel.split = splitOfCall(call);
  if (wide && kernel.split)
    kernel.selectDigitBits = kWideSortDigitBits;
  return kernel;
}

/// The buffers a sorting kernel call takes: the input, the values (not for
/// argsort), the indices, and the two scratch buffers of the radix sort.
static size_t sortingKernelArgs(func::CallOp call, StringRef kind) {
  size_t base = kind == "argsort" ? 2 : 3;
  FailureOr<SortingKernel> kernel = sortingKernelOf(call);
  if (failed(kernel))
    return base;
  auto inputType = cast<MemRefType>(call.getOperand(0).getType());
  std::optional<int64_t> n;
  if (!inputType.isDynamicDim(1))
    n = inputType.getDimSize(1);
  return base + (kernel->needsScratch(n) ? 2 : 0) +
         (kernel->split || kernel->sortSplit ? 1 : 0);
}

/// The [R, M] tensor of a sorting kernel's output as the op's `resultType`:
/// `input`'s shape with M along the last axis.
static Value sortedRowsAsResult(OpBuilder &b, Location loc, Value rowsTensor,
                                Value input, RankedTensorType resultType) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  int64_t m = cast<RankedTensorType>(rowsTensor.getType()).getShape().back();
  Type elt = resultType.getElementType();
  SmallVector<int64_t> shape(inputType.getShape());
  shape.back() = m;
  Value result = rowsTensor;
  if (rank == 1) {
    result = tensor::CollapseShapeOp::create(b, loc,
                                             RankedTensorType::get(shape, elt),
                                             result, rowsReassociation(1));
  } else if (rank > 2) {
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
    if (!ShapedType::isDynamic(m))
      sizes.back() = b.getIndexAttr(m);
    result =
        tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, elt),
                                      result, rowsReassociation(rank), sizes);
  }
  if (result.getType() != resultType)
    result = tensor::CastOp::create(b, loc, resultType, result);
  return result;
}

/// sort, argsort, topk along the last axis: the [R, N] input buffer, the
/// [R, M] values (not for argsort) and i64 indices (M = K for topk, else N),
/// the [2, R, N] key and i32 index scratch when the kernel sorts in global
/// memory, and the kernel's call. Other axes, element types without a sort
/// key, topk of K = 0 or of a dynamic N (whose K > N is a run-time error
/// of the CPU lowering) and statically empty rows stay with the linalg
/// lowering.
static LogicalResult convertSorting(Operation *op, StringRef kind, Value input,
                                    int64_t axis, Value valuesResult,
                                    Value indicesResult,
                                    ArrayRef<NamedAttribute> attrs,
                                    SplitOptions splitOptions) {
  auto inputType = cast<RankedTensorType>(input.getType());
  if (axis != inputType.getRank() - 1 || inputType.getShape().back() == 0)
    return failure();
  bool isUnsigned = llvm::any_of(
      attrs, [](NamedAttribute a) { return a.getName() == "unsigned"; });
  FailureOr<lowering::SortKeyInfo> info =
      lowering::getSortKeyInfo(inputType.getElementType(), isUnsigned);
  if (failed(info))
    return failure();
  auto indicesType = cast<RankedTensorType>(indicesResult.getType());
  int64_t m = indicesType.getShape().back();
  if (kind == "topk" && (inputType.isDynamicDim(inputType.getRank() - 1) ||
                         m == 0 || m > inputType.getShape().back()))
    return failure();
  OpBuilder b(op);
  Location loc = op->getLoc();
  Rows rows = asRows(b, loc, input);
  Value inputBuffer = toBuffer(b, loc, rows.matrix);
  int64_t r = rows.staticRows ? *rows.staticRows : ShapedType::kDynamic;
  SmallVector<Value> dynamicOut;
  if (!rows.staticRows)
    dynamicOut.push_back(rows.numRows);
  if (ShapedType::isDynamic(m))
    dynamicOut.push_back(rows.rowLength);
  Type i64 = b.getI64Type();
  SmallVector<Value> operands = {inputBuffer};
  Value values;
  if (valuesResult) {
    values = allocLike(
        b, loc, RankedTensorType::get({r, m}, inputType.getElementType()),
        dynamicOut);
    operands.push_back(values);
  }
  Value indices =
      allocLike(b, loc, RankedTensorType::get({r, m}, i64), dynamicOut);
  operands.push_back(indices);
  SmallVector<NamedAttribute> callAttrs(attrs);
  bool select = kind == "topk" && m < *rows.staticLength;
  std::optional<RowSplit> selectSplit;
  if (select)
    selectSplit = rowSplit(rows, splitOptions);
  llvm::append_range(callAttrs, splitAttrs(b, selectSplit));
  // A radix sort (of the row, or of topk's K) of a static length past the
  // bitonic limit, split across blocks.
  bool unsortedSelect = select && llvm::any_of(attrs, [](NamedAttribute a) {
                          return a.getName() == "unsorted";
                        });
  std::optional<int64_t> sorted =
      select ? std::optional<int64_t>(m) : rows.staticLength;
  bool splitSort = false;
  if (sorted && !unsortedSelect && !bitonicSize(sorted, info->keyBits)) {
    Rows sortedRows = rows;
    sortedRows.staticLength = sorted;
    std::optional<RowSplit> sortSplit =
        rowSplit(sortedRows, splitOptions, /*sort=*/true);
    llvm::append_range(callAttrs, splitAttrs(b, sortSplit, "sort_"));
    splitSort = sortSplit.has_value();
  }
  // The digits of the radix passes split across blocks (the selection's,
  // the sort's).
  if ((selectSplit || splitSort) &&
      splitOptions.sortDigitBits != kSortDigitBits)
    callAttrs.push_back(b.getNamedAttr(
        "sort_digit_bits", b.getI64IntegerAttr(splitOptions.sortDigitBits)));
  func::CallOp call = createKernelCall(b, loc, op, kind, operands, callAttrs);
  // The scratch, from the call's own view of the kernel.
  FailureOr<SortingKernel> kernel = sortingKernelOf(call);
  if (succeeded(kernel) && kernel->needsScratch(rows.staticLength)) {
    b.setInsertionPoint(call);
    SmallVector<Value> dynamicScratch;
    if (!rows.staticRows)
      dynamicScratch.push_back(rows.numRows);
    // A selection sorts the K it takes; a sort, the whole row.
    int64_t n = kernel->select      ? *kernel->k
                : rows.staticLength ? *rows.staticLength
                                    : ShapedType::kDynamic;
    if (ShapedType::isDynamic(n))
      dynamicScratch.push_back(rows.rowLength);
    Value keys = allocLike(
        b, loc,
        RankedTensorType::get({2, r, n}, b.getIntegerType(info->keyBits)),
        dynamicScratch);
    Value idx =
        allocLike(b, loc, RankedTensorType::get({2, r, n}, b.getI32Type()),
                  dynamicScratch);
    call->insertOperands(call->getNumOperands(), ValueRange{keys, idx});
    auto decl = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    decl.setType(b.getFunctionType(call->getOperandTypes(), {}));
    // Freed by buffer deallocation (which rejects deallocations written
    // before it), as the outputs are.
  }
  if (succeeded(kernel) && (kernel->split || kernel->sortSplit)) {
    b.setInsertionPoint(call);
    call->insertOperands(
        call->getNumOperands(),
        allocI32(b, loc,
                 *rows.staticRows * (kernel->selectAux() + kernel->sortAux())));
    auto decl = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    decl.setType(b.getFunctionType(call->getOperandTypes(), {}));
  }
  b.setInsertionPointAfter(call);
  if (valuesResult)
    valuesResult.replaceAllUsesWith(
        sortedRowsAsResult(b, loc, toTensor(b, loc, values), input,
                           cast<RankedTensorType>(valuesResult.getType())));
  indicesResult.replaceAllUsesWith(sortedRowsAsResult(
      b, loc, toTensor(b, loc, indices), input, indicesType));
  op->erase();
  return success();
}

static LogicalResult convertSort(SortOp op, SplitOptions splitOptions) {
  OpBuilder b(op);
  SmallVector<NamedAttribute> attrs;
  if (op.getDescending())
    attrs.push_back(b.getNamedAttr("descending", b.getUnitAttr()));
  return convertSorting(op, "sort", op.getInput(), op.getAxis(), op.getValues(),
                        op.getIndices(), attrs, splitOptions);
}

static LogicalResult convertArgsort(ArgsortOp op, SplitOptions splitOptions) {
  OpBuilder b(op);
  SmallVector<NamedAttribute> attrs;
  if (op.getDescending())
    attrs.push_back(b.getNamedAttr("descending", b.getUnitAttr()));
  if (op.getIsUnsigned())
    attrs.push_back(b.getNamedAttr("unsigned", b.getUnitAttr()));
  return convertSorting(op, "argsort", op.getInput(), op.getAxis(), Value(),
                        op.getResult(), attrs, splitOptions);
}

static LogicalResult convertTopk(TopkOp op, SplitOptions splitOptions) {
  // `valid` and `limit` were decomposed where they could be
  // (decomposeTopkValid, decomposeTopkLimit).
  if (op.getValid() || op.getLimit())
    return failure();
  OpBuilder b(op);
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("k", b.getI64IntegerAttr(op.getK()))};
  if (op.getSmallest())
    attrs.push_back(b.getNamedAttr("smallest", b.getUnitAttr()));
  if (op.getUnsorted())
    attrs.push_back(b.getNamedAttr("unsorted", b.getUnitAttr()));
  if (op.getIsUnsigned())
    attrs.push_back(b.getNamedAttr("unsigned", b.getUnitAttr()));
  return convertSorting(op, "topk", op.getInput(), op.getAxis(), op.getValues(),
                        op.getIndices(), attrs, splitOptions);
}

/// Expands a sort, argsort or topk call into its kernel.
static LogicalResult expandSortingCall(OpBuilder &b, func::CallOp call,
                                       int64_t threads) {
  FailureOr<SortingKernel> kernel = sortingKernelOf(call);
  if (failed(kernel))
    return call.emitOpError("sift-gpu-expand-kernels: a sorting kernel of an "
                            "element type with no sort key, or a topk whose "
                            "k is not in [1, N] of a static N");
  StringRef kind = call->getAttrOfType<StringAttr>(kKernelAttr).getValue();
  ValueRange args = call.getOperands();
  size_t i = 1;
  Value values = kind == "argsort" ? Value() : args[i++];
  Value indices = args[i++];
  auto inputType = cast<MemRefType>(args[0].getType());
  std::optional<int64_t> n;
  if (!inputType.isDynamicDim(1))
    n = inputType.getDimSize(1);
  Value keysS, idxS, aux;
  if (kernel->needsScratch(n)) {
    keysS = args[i++];
    idxS = args[i++];
  }
  if (kernel->split || kernel->sortSplit)
    aux = args[i++];
  buildSortingKernel(b, call.getLoc(), args[0], values, indices, keysS, idxS,
                     aux, *kernel, threads);
  return success();
}

/// The compaction of the static 1-D `mask` (fill -1): the indices of its
/// true lanes in increasing order and their count, as an index read on the
/// host (it sizes a dynamic result).
static std::pair<Value, Value> compactLine(OpBuilder &b, Location loc,
                                           Value mask) {
  int64_t n = cast<RankedTensorType>(mask.getType()).getDimSize(0);
  Type i64 = b.getI64Type();
  auto compact =
      CompactOp::create(b, loc, RankedTensorType::get({n}, i64),
                        RankedTensorType::get({}, i64), mask, /*fill=*/-1);
  Value count = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tensor::ExtractOp::create(b, loc, compact.getCount(), ValueRange{}));
  return {compact.getIndices(), count};
}

/// Declares the runtime's report functions for the run-time checks of an
/// op on `type` when `type` is dynamic (`compactDynamicLine`'s), before the
/// op's decomposition changes anything (a failure leaves the op as it is).
static LogicalResult declareRuntimeIfDynamic(Operation *op,
                                             RankedTensorType type) {
  if (type.hasStaticShape())
    return success();
  IRRewriter rewriter(op);
  return lowering::declareRuntimeReport(rewriter, op);
}

/// The compaction of a 1-D mask of a dynamic length n into n slots, as the
/// compact kernel's call made here: the positions of the true lanes in
/// increasing order, then -1, and their count (an index read on the host).
/// A `sift.compact` cannot say it (its K is static); the kernel takes the
/// width of its indices' buffer, n. n = 0 launches nothing.
static std::pair<Value, Value> compactDynamicLine(OpBuilder &b, Location loc,
                                                  Operation *anchor, Value mask,
                                                  SplitOptions splitOptions) {
  Type i64 = b.getI64Type();
  Rows rows = asRows(b, loc, mask);
  // (The runtime's functions can be declared: the op's decomposition
  // declared them before it changed anything.)
  (void)checkCompactableRows(b, loc, anchor, rows);
  Value indices =
      allocLike(b, loc, RankedTensorType::get({1, ShapedType::kDynamic}, i64),
                {rows.rowLength});
  Value counts = allocLike(b, loc, RankedTensorType::get({1}, i64), {});
  SmallVector<Value> operands = {toBuffer(b, loc, rows.matrix), indices,
                                 counts};
  std::optional<RowSplit> split =
      rowSplit(rows, splitOptions, /*sort=*/false, /*dynamicLength=*/true);
  SmallVector<NamedAttribute> attrs = splitAttrs(b, split);
  attrs.push_back(b.getNamedAttr("fill", b.getI64IntegerAttr(-1)));
  if (split)
    operands.push_back(allocI32(b, loc, split->segments));
  createKernelCall(b, loc, anchor, "compact", operands, attrs);
  Value line = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({ShapedType::kDynamic}, i64),
      toTensor(b, loc, indices), rowsReassociation(1));
  Value count = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tensor::ExtractOp::create(b, loc, toTensor(b, loc, counts),
                                ValueRange{constIndex(b, loc, 0)}));
  return {line, count};
}

//===----------------------------------------------------------------------===//
// unique and randperm: compositions of the kernels above
//===----------------------------------------------------------------------===//
//
// Both ops are rewritten into sift ops that have kernels (sort, compact,
// cumsum, argsort) and elementwise linalg.generic ops (parallel loops, which
// the GPU pipeline maps to kernels), before the kernels' ops are converted.
// No sequential loop over the elements is left. Each result equals the CPU
// lowering's bit for bit (lib/Conversion/SiftToLinalg: Sort.cpp's
// UniqueLowering, Random.cpp's RandpermLowering).

/// `x` and `y` are different values in sift's order: for floats, -0.0 and
/// +0.0 are one value and every NaN is one value (they have one sort key).
static Value differentValues(OpBuilder &b, Location loc, Value x, Value y) {
  if (!isa<FloatType>(x.getType()))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, y);
  Value une = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, y);
  Value bothNaN = arith::AndIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, y, y));
  Value notBoth = arith::XOrIOp::create(
      b, loc, bothNaN, arith::ConstantIntOp::create(b, loc, 1, 1));
  return arith::AndIOp::create(b, loc, une, notBoth);
}

/// The first `count` (index) elements of the 1-D `full`, as `type`.
static Value prefix(OpBuilder &b, Location loc, Value full, Value count,
                    Type type) {
  Type elt = cast<RankedTensorType>(full.getType()).getElementType();
  Value slice = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({ShapedType::kDynamic}, elt), full,
      ArrayRef<OpFoldResult>{b.getIndexAttr(0)}, ArrayRef<OpFoldResult>{count},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  return lowering::castTo(b, loc, slice, type);
}

/// sift.unique of an input with a sort key, as kernels:
///   sorted, perm = sort(flatten(x))                      sorting kernel
///   first[i] = i == 0 || sorted[i] != sorted[i - 1]      elementwise
///   starts, count = compact(first, fill -1)              compact kernel
///   values[g] = sorted[starts[g]]                        elementwise
///   counts[g] = (starts[g + 1] or N) - starts[g]         elementwise
///   group = cumsum(first) - 1                            cumsum
///   inverse[perm[i]] = group[i]                          scatter
/// (the scatter's lanes are a permutation: one store each, in one launch;
/// see ScatterKernels.cpp). The value of a group is its first element in sorted
/// order, the first occurrence in the input (the sort is stable), as on the
/// CPU. The results' size is the compaction's count, read on the host to slice
/// them. A dynamic input has n elements at run time: its compaction is the
/// kernel's with n slots (`compactDynamicLine`); n = 0 launches nothing and
/// gives empty results. A statically empty input is left to the linalg
/// lowering (no loop).
static LogicalResult decomposeUnique(UniqueOp op, SplitOptions splitOptions) {
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  if (llvm::is_contained(inType.getShape(), 0) ||
      failed(lowering::getSortKeyInfo(inType.getElementType())) ||
      failed(declareRuntimeIfDynamic(op, inType)))
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type i64 = b.getI64Type();
  Value flat =
      withFoldedExtents(b, loc, lowering::flatten(b, loc, op.getInput()));
  // The number of elements: static, or the flattened extent.
  int64_t staticN = cast<RankedTensorType>(flat.getType()).getDimSize(0);
  OpFoldResult nSize = tensor::getMixedSize(b, loc, flat, 0);
  Value n = getValueOrCreateConstantIndexOp(b, loc, nSize);
  Value nI64 = arith::IndexCastOp::create(b, loc, i64, n);
  auto line = [&](Type t) { return RankedTensorType::get({staticN}, t); };
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, n, c1);
  auto sort = SortOp::create(b, loc, flat);
  Value sorted = sort.getValues();
  Value first = lowering::mapLine(
      b, loc, sorted, b.getI1Type(),
      [&](OpBuilder &b, Location loc, Value x, Value i) {
        Value isFirst =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, i, c0);
        Value prevI = arith::SelectOp::create(
            b, loc, isFirst, c0, arith::SubIOp::create(b, loc, i, c1));
        Value prev = tensor::ExtractOp::create(b, loc, sorted, prevI);
        return arith::OrIOp::create(b, loc, isFirst,
                                    differentValues(b, loc, x, prev));
      });
  Value starts, count;
  std::tie(starts, count) =
      ShapedType::isDynamic(staticN)
          ? compactDynamicLine(b, loc, op, first, splitOptions)
          : compactLine(b, loc, first);
  // Lanes past the count hold the fill -1: they read lane 0 and are sliced
  // away.
  auto startOf = [&](OpBuilder &b, Location loc, Value start) {
    return lowering::i64ToIndex(
        b, loc,
        arith::MaxSIOp::create(b, loc, start,
                               lowering::constInt(b, loc, i64, 0)));
  };
  Value values = lowering::mapLine(
      b, loc, starts, inType.getElementType(),
      [&](OpBuilder &b, Location loc, Value start, Value) {
        return tensor::ExtractOp::create(b, loc, sorted, startOf(b, loc, start))
            .getResult();
      });
  SmallVector<Value> results = {
      prefix(b, loc, values, count, op.getValues().getType())};
  if (Value inverse = op.getInverse()) {
    Value group = CumsumOp::create(b, loc, line(i64), first, /*dim=*/-1,
                                   /*exclusive=*/false);
    Value groupOfSorted = lowering::mapLine(
        b, loc, group, i64, [&](OpBuilder &b, Location loc, Value g, Value) {
          return arith::SubIOp::create(b, loc, g,
                                       lowering::constInt(b, loc, i64, 1))
              .getResult();
        });
    // Element perm[i] of the input is in group groupOfSorted[i]: a scatter
    // through the sort's permutation, whose lanes are distinct (one store
    // each, into an undefined dest that they cover).
    Value inv = ScatterOp::create(
        b, loc, groupOfSorted,
        tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{nSize}, i64),
        sort.getIndices(), ScatterReduce::None,
        /*batch_dims=*/0);
    results.push_back(lowering::unflatten(
        b, loc, inv, cast<RankedTensorType>(inverse.getType()),
        tensor::getMixedSizes(b, loc, op.getInput())));
  }
  if (Value counts = op.getCounts()) {
    // A group ends where the next starts, the last one at n.
    Value sizes = lowering::mapLine(
        b, loc, starts, i64,
        [&](OpBuilder &b, Location loc, Value start, Value g) {
          Value nextG = arith::AddIOp::create(b, loc, g, c1);
          Value inLine = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ult, nextG, n);
          Value next = tensor::ExtractOp::create(
              b, loc, starts,
              arith::MinUIOp::create(b, loc, nextG, last).getResult());
          Value valid = arith::AndIOp::create(
              b, loc, inLine,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, next,
                                    lowering::constInt(b, loc, i64, 0)));
          Value end = arith::SelectOp::create(b, loc, valid, next, nI64);
          return arith::SubIOp::create(b, loc, end, start).getResult();
        });
    results.push_back(prefix(b, loc, sizes, count, counts.getType()));
  }
  op->replaceAllUsesWith(results);
  op.erase();
  return success();
}

/// The largest n of randperm, as the CPU lowering's (its buffers' byte
/// sizes stay far from overflowing).
static constexpr int64_t kMaxRandpermSize = int64_t(1) << 56;

/// sift.randperm ... sort as the CPU lowering draws it, with no sequential
/// loop: the first n words of the Philox stream (seed, offset), one per
/// element (elementwise), and their stable ascending argsort as unsigned
/// integers (the argsort kernel). A dynamic n outside [0, 2^56] is the CPU
/// lowering's run-time error (then an empty permutation).
static LogicalResult decomposeRandperm(RandpermOp op) {
  IRRewriter rewriter(op);
  Location loc = op.getLoc();
  Value n = op.getN();
  APInt constN;
  bool checked = matchPattern(n, m_ConstantInt(&constN)) &&
                 !constN.isNegative() && constN.sle(kMaxRandpermSize);
  if (!checked) {
    if (failed(lowering::declareRuntimeReport(rewriter, op)))
      return failure();
    OpBuilder &b = rewriter;
    Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, n,
                                           constIndex(b, loc, 0));
    Value tooLarge =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, n,
                              constIndex(b, loc, kMaxRandpermSize));
    lowering::emitRuntimeCheck(b, loc, negative,
                               SIFT_RT_ERROR_RANDPERM_NEGATIVE, {n});
    lowering::emitRuntimeCheck(
        b, loc, tooLarge, SIFT_RT_ERROR_RANDPERM_TOO_LARGE,
        {n, lowering::constInt(b, loc, b.getI64Type(), kMaxRandpermSize)});
    n = arith::SelectOp::create(
        b, loc, arith::OrIOp::create(b, loc, negative, tooLarge),
        constIndex(b, loc, 0), n);
  }
  Value seed = op.getSeed();
  Value offset = op.getOffset() ? op.getOffset()
                                : lowering::constInt(rewriter, loc,
                                                     rewriter.getI64Type(), 0);
  // The keys as one row [1, n] (the sort kernel's view), a Philox block
  // per thread.
  OpBuilder &b = rewriter;
  Value keys =
      buildPhiloxWords(b, loc, op, b.getIndexAttr(1), getAsOpFoldResult(n),
                       seed, offset, /*rowsPerSeed=*/1);
  Value perm = ArgsortOp::create(b, loc, keys, /*dim=*/-1,
                                 /*descending=*/false, /*isUnsigned=*/true);
  perm = tensor::CollapseShapeOp::create(b, loc, perm, rowsReassociation(1));
  rewriter.replaceOp(op, lowering::castTo(rewriter, loc, perm, op.getType()));
  return success();
}

//===----------------------------------------------------------------------===//
// nonzero, masked_select and sample_balanced: compositions of the kernels
//===----------------------------------------------------------------------===//
//
// As unique and randperm above: each op becomes sift ops that have kernels
// (compact, argsort) and elementwise linalg.generic ops, with no sequential
// loop over the elements, each result equal to the CPU lowering's bit for
// bit (lib/Conversion/SiftToLinalg/Selection.cpp: NonzeroLowering,
// MaskedSelectLowering, SampleBalancedLowering). Statically empty ops, a
// sample whose rows per per-row seed are dynamic, and static rows past the
// compact kernel's 32-bit positions are left to the linalg lowering (a dynamic
// row that long is a run-time error, checkCompactableRows).

/// Whether a compaction of rows of `n` lanes fits the compact kernel (its
/// positions are i32).
static bool compactable(int64_t n) {
  return n > 0 && n <= std::numeric_limits<int32_t>::max();
}

/// `linalg.generic` that makes one tensor of `sizes` per entry of
/// `elementTypes`, the elements at coordinates `ivs` being `fn(ivs)`
/// (indices).
static SmallVector<Value> generateTensors(
    OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
    TypeRange elementTypes,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> fn) {
  int64_t rank = sizes.size();
  SmallVector<Value> inits;
  for (Type type : elementTypes)
    inits.push_back(tensor::EmptyOp::create(b, loc, sizes, type));
  auto generic = linalg::GenericOp::create(
      b, loc, ValueRange(inits).getTypes(), ValueRange{}, inits,
      SmallVector<AffineMap>(inits.size(), b.getMultiDimIdentityMap(rank)),
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location loc, ValueRange) {
        SmallVector<Value> ivs;
        for (int64_t d = 0; d < rank; ++d)
          ivs.push_back(linalg::IndexOp::create(b, loc, d));
        linalg::YieldOp::create(b, loc, fn(b, loc, ivs));
      });
  return generic.getResults();
}

/// One tensor of `generateTensors`.
static Value
generateTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
               Type elementType,
               function_ref<Value(OpBuilder &, Location, ValueRange)> fn) {
  return generateTensors(b, loc, sizes, elementType,
                         [&](OpBuilder &b, Location loc, ValueRange ivs) {
                           return SmallVector<Value>{fn(b, loc, ivs)};
                         })
      .front();
}

/// The first `count` (index) rows of `full` (rank >= 1), as `type`.
static Value leadingRows(OpBuilder &b, Location loc, Value full, Value count,
                         Type type) {
  auto fullType = cast<RankedTensorType>(full.getType());
  SmallVector<int64_t> shape(fullType.getShape());
  shape[0] = ShapedType::kDynamic;
  SmallVector<OpFoldResult> offsets(shape.size(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, full);
  sizes[0] = count;
  SmallVector<OpFoldResult> strides(shape.size(), b.getIndexAttr(1));
  Value slice = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(shape, fullType.getElementType()), full,
      offsets, sizes, strides);
  return lowering::castTo(b, loc, slice, type);
}

/// A lane of a compaction as an index: the fill -1 (lanes past the count,
/// sliced away or not selected) reads element 0.
static Value laneIndex(OpBuilder &b, Location loc, Value lane) {
  return lowering::i64ToIndex(
      b, loc,
      arith::MaxSIOp::create(b, loc, lane,
                             lowering::constInt(b, loc, b.getI64Type(), 0)));
}

/// sift.nonzero as kernels:
///   mask[i] = flatten(x)[i] != 0                        elementwise
///   idx, count = compact(mask, fill -1)                 compact kernel
///   coords[g, d] = (idx[g] / stride[d]) % size[d]       elementwise
/// sliced to the count (read on the host). The compaction is stable: the
/// row-major order of the CPU lowering. An i1 input is its own mask. A
/// dynamic input has n elements at run time: its compaction is the
/// kernel's with n slots (`compactDynamicLine`), and its strides are
/// computed from its extents. A statically empty input is left to the
/// linalg lowering (no loop).
static LogicalResult decomposeNonzero(NonzeroOp op, SplitOptions splitOptions) {
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  if (llvm::is_contained(inType.getShape(), 0) ||
      (inType.hasStaticShape() && !compactable(inType.getNumElements())) ||
      failed(declareRuntimeIfDynamic(op, inType)))
    return failure();
  int64_t rank = inType.getRank();
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type i64 = b.getI64Type();
  Value flat =
      withFoldedExtents(b, loc, lowering::flatten(b, loc, op.getInput()));
  Value mask = flat;
  if (!inType.getElementType().isInteger(1))
    mask = lowering::mapLine(b, loc, flat, b.getI1Type(),
                             [&](OpBuilder &b, Location loc, Value x, Value) {
                               return lowering::isNonZero(b, loc, x);
                             });
  Value indices, count;
  std::tie(indices, count) =
      cast<RankedTensorType>(flat.getType()).isDynamicDim(0)
          ? compactDynamicLine(b, loc, op, mask, splitOptions)
          : compactLine(b, loc, mask);
  Value result;
  if (rank == 1) {
    result = prefix(b, loc, indices, count, op.getType());
  } else {
    // The extents and strides as i64: constants where static (divisions
    // by constants in the kernel).
    SmallVector<Value> sizes(rank), strides(rank);
    std::optional<int64_t> staticStride = 1;
    Value stride = lowering::constInt(b, loc, i64, 1);
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t size = inType.getDimSize(d);
      sizes[d] = ShapedType::isDynamic(size)
                     ? arith::IndexCastOp::create(
                           b, loc, i64,
                           tensor::DimOp::create(b, loc, op.getInput(), d))
                           .getResult()
                     : lowering::constInt(b, loc, i64, size);
      strides[d] = stride;
      if (staticStride && !ShapedType::isDynamic(size)) {
        staticStride = *staticStride * size;
        stride = lowering::constInt(b, loc, i64, *staticStride);
      } else {
        staticStride.reset();
        stride = arith::MulIOp::create(b, loc, stride, sizes[d]);
      }
    }
    Value coords = generateTensor(
        b, loc,
        {tensor::getMixedSize(b, loc, indices, 0), b.getIndexAttr(rank)}, i64,
        [&](OpBuilder &b, Location loc, ValueRange ivs) {
          Value flatIndex = lowering::indexToI64(
              b, loc,
              laneIndex(b, loc,
                        tensor::ExtractOp::create(b, loc, indices, ivs[0])));
          // The coordinate along each axis, the one of axis ivs[1] chosen.
          Value coord = lowering::constInt(b, loc, i64, 0);
          for (int64_t d = rank - 1; d >= 0; --d) {
            Value c = arith::RemUIOp::create(
                b, loc, arith::DivUIOp::create(b, loc, flatIndex, strides[d]),
                sizes[d]);
            Value here = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                               ivs[1], constIndex(b, loc, d));
            coord = arith::SelectOp::create(b, loc, here, c, coord);
          }
          return coord;
        });
    result = leadingRows(b, loc, coords, count, op.getType());
  }
  op.getResult().replaceAllUsesWith(result);
  op.erase();
  return success();
}

/// sift.masked_select as kernels:
///   rows, count = compact(flatten(mask), fill -1)       compact kernel
///   out[g, s...] = x'[rows[g], s...]                    elementwise
/// (x' the input with the mask's dimensions collapsed into one) sliced to
/// the count (read on the host): the selected sub-tensors in the mask's
/// row-major order, as on the CPU. Dynamic extents: the mask's must be the
/// input's leading ones (the CPU lowering's run-time check, on the host),
/// and a mask of m elements at run time is compacted into m slots
/// (`compactDynamicLine`). Statically empty operands are left to the
/// linalg lowering (no loop).
static LogicalResult decomposeMaskedSelect(MaskedSelectOp op,
                                           SplitOptions splitOptions) {
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  auto maskType = cast<RankedTensorType>(op.getMask().getType());
  int64_t rank = inType.getRank(), maskRank = maskType.getRank();
  if (llvm::is_contained(inType.getShape(), 0) ||
      llvm::is_contained(maskType.getShape(), 0) ||
      (maskType.hasStaticShape() && !compactable(maskType.getNumElements())) ||
      failed(declareRuntimeIfDynamic(op, maskType)))
    return failure();
  IRRewriter rewriter(op);
  if (failed(lowering::checkLeadingExtents(rewriter, op, op.getInput(),
                                           op.getMask(), maskRank)))
    return failure();
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  Value flatMask =
      withFoldedExtents(b, loc, lowering::flatten(b, loc, op.getMask()));
  Value rows, count;
  std::tie(rows, count) =
      cast<RankedTensorType>(flatMask.getType()).isDynamicDim(0)
          ? compactDynamicLine(b, loc, op, flatMask, splitOptions)
          : compactLine(b, loc, flatMask);
  // The input as [m, S...].
  Value input = op.getInput();
  if (maskRank > 1) {
    SmallVector<ReassociationIndices> groups(1);
    for (int64_t d = 0; d < maskRank; ++d)
      groups[0].push_back(d);
    for (int64_t d = maskRank; d < rank; ++d)
      groups.push_back({d});
    input = tensor::CollapseShapeOp::create(b, loc, input, groups);
  }
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
  sizes[0] = tensor::getMixedSize(b, loc, rows, 0);
  Value gathered = generateTensor(
      b, loc, sizes, inType.getElementType(),
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        SmallVector<Value> at = {
            laneIndex(b, loc, tensor::ExtractOp::create(b, loc, rows, ivs[0]))};
        llvm::append_range(at, ivs.drop_front());
        return tensor::ExtractOp::create(b, loc, input, at).getResult();
      });
  op.getResult().replaceAllUsesWith(
      leadingRows(b, loc, gathered, count, op.getType()));
  op.erase();
  return success();
}

/// An element-wise op over `x` (a tensor) and `length` (an index,
/// or a tensor of one index per line along `axis`): element j of a line is
/// `pick(kept, x)`, where `kept` is whether j is below the line's length.
static Value
mapAlongLines(OpBuilder &b, Location loc, Value x, Value length, int64_t axis,
              function_ref<Value(OpBuilder &, Location, Value, Value)> pick) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<Value> operands = {x};
  SmallVector<AffineMap> maps = {identity};
  bool perLine = isa<RankedTensorType>(length.getType());
  if (perLine) {
    operands.push_back(length);
    maps.push_back(identity.dropResult(axis));
  }
  maps.push_back(identity);
  Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, x),
                                       type.getElementType());
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, operands, ValueRange{init}, maps,
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &b, Location loc, ValueRange args) {
               Value kept =
                   arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         linalg::IndexOp::create(b, loc, axis),
                                         perLine ? args[1] : length);
               linalg::YieldOp::create(b, loc,
                                       ValueRange{pick(b, loc, kept, args[0])});
             })
      .getResult(0);
}

/// sift.topk with `valid` as the top-k of keys whose elements at and past
/// their line's valid length are the value that ranks last (the top-k is
/// stable: a valid element of that value stays ahead of them, and they
/// keep their index order), and its values read back from the input:
///   key[..., j, ...] = j < valid[line] ? x[..., j, ...] : last   elementwise
///   _, i = topk(key)                                             topk kernel
///   v[..., t, ...] = x[..., i[..., t, ...], ...]                 elementwise
/// Along a dynamic axis the top-k of the keys is decomposeTopkDynamic's,
/// and lane t reads the input only below the axis' extent n (a lane past
/// it, t >= n > k's run-time error, is 0 as on the CPU).
static LogicalResult decomposeTopkValid(TopkOp op) {
  auto type = cast<RankedTensorType>(op.getInput().getType());
  Value valid = op.getValid();
  if (!valid)
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t axis = op.getAxis();
  Type elementType = type.getElementType();
  Value input = op.getInput();
  Value last = arith::ConstantOp::create(
      b, loc,
      getLastInSortOrder(elementType, op.getSmallest(), op.getIsUnsigned()));
  // The input and the lengths as operands (the lengths along the lines):
  // the masking fuses into the input's producer, often the same masking.
  Value keys = mapAlongLines(
      b, loc, input, valid, axis,
      [&](OpBuilder &b, Location loc, Value inPrefix, Value x) -> Value {
        return arith::SelectOp::create(b, loc, inPrefix, x, last);
      });
  auto topk = TopkOp::create(
      b, loc, op.getValues().getType(), op.getIndices().getType(), keys,
      op.getK(), op.getDim(), op.getSmallest(), op.getUnsorted(),
      /*valid=*/Value(), /*limit=*/Value(), op.getIsUnsigned());
  Value indices = topk.getIndices();
  Value extent = type.isDynamicDim(axis)
                     ? tensor::DimOp::create(b, loc, input, axis).getResult()
                     : Value();
  Value values = generateTensor(
      b, loc, tensor::getMixedSizes(b, loc, indices), elementType,
      [&](OpBuilder &b, Location loc, ValueRange ivs) -> Value {
        auto read = [&](OpBuilder &b, Location loc) -> Value {
          SmallVector<Value> at(ivs);
          at[axis] = lowering::i64ToIndex(
              b, loc, tensor::ExtractOp::create(b, loc, indices, ivs));
          return tensor::ExtractOp::create(b, loc, input, at);
        };
        if (!extent)
          return read(b, loc);
        Value inLine = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             ivs[axis], extent);
        return lowering::ifThenElse(
            b, loc, inLine, read,
            arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType)));
      });
  op.getValues().replaceAllUsesWith(values);
  op.getIndices().replaceAllUsesWith(indices);
  op.erase();
  return success();
}

/// sift.topk with `limit` as the sorted top-k of every
/// line (the first c of an unsorted one need not be the top c) and the
/// padding past each line's limit:
///   v, i = topk(x) (valid as given)                      topk kernel
///   v[..., t, ...] = t < limit[line] ? v : 0             elementwise
///   i[..., t, ...] = t < limit[line] ? i : -1
/// The selection and sort of all k cost what they cost without the limit.
static LogicalResult decomposeTopkLimit(TopkOp op) {
  auto type = cast<RankedTensorType>(op.getValues().getType());
  Value limit = op.getLimit();
  if (!limit)
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  int64_t axis = op.getAxis();
  auto topk = TopkOp::create(b, loc, op.getValues().getType(),
                             op.getIndices().getType(), op.getInput(),
                             op.getK(), op.getDim(), op.getSmallest(),
                             /*unsorted=*/false, op.getValid(),
                             /*limit=*/Value(), op.getIsUnsigned());
  // One element-wise op per result that is read (each fuses into its
  // readers on its own).
  auto pad = [&](Value result, TypedAttr padding) -> Value {
    return mapAlongLines(
        b, loc, result, limit, axis,
        [&](OpBuilder &b, Location loc, Value kept, Value x) -> Value {
          Value none = arith::ConstantOp::create(b, loc, padding);
          return arith::SelectOp::create(b, loc, kept, x, none);
        });
  };
  if (!op.getValues().use_empty())
    op.getValues().replaceAllUsesWith(
        pad(topk.getValues(), b.getZeroAttr(type.getElementType())));
  if (!op.getIndices().use_empty())
    op.getIndices().replaceAllUsesWith(
        pad(topk.getIndices(), b.getI64IntegerAttr(-1)));
  op.erase();
  return success();
}

/// sift.topk along a dynamic axis (no `valid` or `limit` left, k >= 1) as
/// the CPU lowering computes it (Sort.cpp: a line of dynamic extent n is
/// sorted whole), with the argsort kernel, which takes rows of a dynamic
/// length:
///   n < k: the CPU lowering's run-time error         host, from the shape
///   perm = argsort(x) (descending unless smallest)  argsort kernel
///   i[..., t, ...] = t < n ? perm[..., t, ...] : 0  elementwise
///   v[..., t, ...] = t < n ? x[..., i, ...] : 0     elementwise
/// The sort is stable, so ties keep the lower index first, as the top-k
/// orders them; with `unsorted` the chosen set comes sorted, as on the CPU.
static LogicalResult decomposeTopkDynamic(TopkOp op) {
  auto type = cast<RankedTensorType>(op.getInput().getType());
  int64_t axis = op.getAxis();
  int64_t k = static_cast<int64_t>(op.getK());
  if (op.getValid() || op.getLimit() || !type.isDynamicDim(axis) || k == 0 ||
      failed(
          lowering::getSortKeyInfo(type.getElementType(), op.getIsUnsigned())))
    return failure();
  IRRewriter rewriter(op);
  if (failed(lowering::declareRuntimeReport(rewriter, op)))
    return failure();
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  Value input = op.getInput();
  Value n = tensor::DimOp::create(b, loc, input, axis);
  Value kValue = constIndex(b, loc, k);
  lowering::emitRuntimeCheck(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, kValue, n),
      SIFT_RT_ERROR_TOPK_K_EXCEEDS_SIZE, {kValue, n});
  Value perm =
      ArgsortOp::create(b, loc, input, axis,
                        /*descending=*/!op.getSmallest(), op.getIsUnsigned());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
  sizes[axis] = b.getIndexAttr(k);
  Type i64 = b.getI64Type();
  Type elementType = type.getElementType();
  auto inLine = [&](OpBuilder &b, Location loc, ValueRange ivs) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, ivs[axis],
                                 n);
  };
  Value indices = generateTensor(
      b, loc, sizes, i64, [&](OpBuilder &b, Location loc, ValueRange ivs) {
        return lowering::ifThenElse(
            b, loc, inLine(b, loc, ivs),
            [&](OpBuilder &b, Location loc) -> Value {
              return tensor::ExtractOp::create(b, loc, perm, ivs);
            },
            lowering::constInt(b, loc, i64, 0));
      });
  Value values = generateTensor(
      b, loc, sizes, elementType,
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        return lowering::ifThenElse(
            b, loc, inLine(b, loc, ivs),
            [&](OpBuilder &b, Location loc) -> Value {
              SmallVector<Value> at(ivs);
              at[axis] = lowering::i64ToIndex(
                  b, loc, tensor::ExtractOp::create(b, loc, perm, ivs));
              return tensor::ExtractOp::create(b, loc, input, at);
            },
            arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType)));
      });
  rewriter.replaceOp(
      op, {lowering::castTo(b, loc, values, op.getValues().getType()),
           lowering::castTo(b, loc, indices, op.getIndices().getType())});
  return success();
}

/// sift.sample_balanced of static, non-empty labels `[B..., N]` as rows
/// `[R, N]`, as kernels:
///   key[r, j] = philox(seed, stream of row r, j)          elementwise
///   perm = argsort(key) unsigned                           argsort kernel
///   pos[r, i], neg[r, i] = the class of label[r, perm[r, i]] elementwise
///   P, numPos = compact(pos, K = min(posCap, N))           compact kernel
///   Q, negCount = compact(neg, K = min(num_samples, N))    compact kernel
///   out[r, s] = perm[r, P[s]] for s < numPos, then
///               perm[r, Q[s - numPos]] for the next numNeg, then -1
///   count[r] = numPos + numNeg                             elementwise
/// with numNeg = min(negCount, num_samples - numPos). The argsort orders
/// the words as unsigned (as randperm's) and is stable, so perm is the
/// CPU's order by (unsigned key, index), and each compaction keeps its class's
/// first items in that order: the items the CPU's walk over perm takes, in its
/// order. numPos = min(P, posCap) and numNeg = min(Q, num_samples - numPos)
/// as on the CPU: a compaction's count is min(true lanes, K).
///
/// N may be dynamic: the rows are N at run time, 0 included. K is then
/// posCap and num_samples (a compaction's lanes past N are its fill), and
/// `perm` is read only at a lane a compaction filled (none when N = 0).
/// The batch dimensions may be dynamic too, except those after the seeds'
/// (per-row seeds cover the leading ones; a row's stream is its index
/// among the rows of one seed).
static LogicalResult decomposeSampleBalanced(SampleBalancedOp op) {
  auto labelsType = cast<RankedTensorType>(op.getLabels().getType());
  ArrayRef<int64_t> shape = labelsType.getShape();
  int64_t numSamples = static_cast<int64_t>(op.getNumSamples());
  bool dynamicN = ShapedType::isDynamic(shape.back());
  int64_t seedRank = 0;
  for (Value v : {op.getSeed(), op.getOffset()})
    if (auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr)
      seedRank = type.getRank();
  // Row (p, q) of the [R, N] rows uses seed[p] and stream offset[p] + q:
  // with scalar seeds p = 0 and q is the row, whatever R is.
  ArrayRef<int64_t> perSeed = shape.drop_back().drop_front(seedRank);
  std::optional<int64_t> rowsPerSeed;
  if (!ShapedType::isDynamicShape(perSeed))
    rowsPerSeed = ShapedType::getNumElements(perSeed);
  else if (seedRank == 0)
    rowsPerSeed = std::numeric_limits<int64_t>::max();
  if (!rowsPerSeed || (!dynamicN && !compactable(shape.back())) ||
      numSamples < 0 || llvm::is_contained(shape.drop_back(), 0))
    return failure();
  int64_t posCap = static_cast<int64_t>(
      std::floor(static_cast<double>(numSamples) *
                 op.getPositiveFraction().convertToDouble()));
  // Per-row seeds and offsets against the labels' leading extents (as the
  // CPU lowering checks them).
  {
    IRRewriter rewriter(op);
    for (Value v : {op.getSeed(), op.getOffset()})
      if (auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr)
        if (failed(lowering::checkLeadingExtents(rewriter, op, op.getLabels(),
                                                 v, type.getRank())))
          return failure();
  }
  int64_t kPos = posCap, kNeg = numSamples;
  if (!dynamicN) {
    kPos = std::min(posCap, shape.back());
    kNeg = std::min(numSamples, shape.back());
  }
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type i64 = b.getI64Type(), i1 = b.getI1Type();
  Type labelType = labelsType.getElementType();
  Rows rows = asRows(b, loc, op.getLabels());
  Value labels = rows.matrix;
  OpFoldResult r = getAsOpFoldResult(rows.numRows);
  OpFoldResult n = getAsOpFoldResult(rows.rowLength);
  Value seed = op.getSeed();
  Value offset =
      op.getOffset() ? op.getOffset() : lowering::constInt(b, loc, i64, 0);
  for (Value *v : {&seed, &offset})
    if (isa<RankedTensorType>(v->getType()))
      *v = lowering::flatten(b, loc, *v);
  // Row (p, q) takes words 0 .. n-1 of the stream (seed[p], offset[p] + q),
  // a Philox block per thread.
  Value keys = buildPhiloxWords(b, loc, op, r, n, seed, offset, *rowsPerSeed);
  Value perm = ArgsortOp::create(b, loc, keys, /*dim=*/-1,
                                 /*descending=*/false, /*isUnsigned=*/true);
  // The classes in key order, in one elementwise op: labels equal to
  // negative_label are negatives, others not equal to ignore_label
  // positives.
  SmallVector<Value> classes = generateTensors(
      b, loc, {r, n}, {i1, i1},
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        Value item = tensor::ExtractOp::create(b, loc, perm, ivs);
        Value label = tensor::ExtractOp::create(
            b, loc, labels,
            ValueRange{ivs[0], lowering::i64ToIndex(b, loc, item)});
        Value negative =
            lowering::constInt(b, loc, labelType, op.getNegativeLabel());
        Value ignore =
            lowering::constInt(b, loc, labelType, op.getIgnoreLabel());
        Value isNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            label, negative);
        Value isPos = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, label,
                                  ignore),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, label,
                                  negative));
        return SmallVector<Value>{isPos, isNeg};
      });
  // The first K items of a class in key order and how many there are (none
  // for K = 0).
  auto firstOfClass = [&](bool positive, int64_t k) -> std::pair<Value, Value> {
    if (k == 0)
      return {};
    int64_t rowsExtent = cast<RankedTensorType>(labels.getType()).getDimSize(0);
    auto compact = CompactOp::create(
        b, loc, RankedTensorType::get({rowsExtent, k}, i64),
        RankedTensorType::get({rowsExtent}, i64), classes[positive ? 0 : 1],
        /*fill=*/-1);
    return {compact.getIndices(), compact.getCount()};
  };
  Value posSlots, posCount, negSlots, negCount;
  std::tie(posSlots, posCount) = firstOfClass(true, kPos);
  std::tie(negSlots, negCount) = firstOfClass(false, kNeg);
  // numPos and numNeg of row `row`.
  auto numbers = [&](OpBuilder &b, Location loc,
                     Value row) -> std::pair<Value, Value> {
    Value zero = lowering::constInt(b, loc, i64, 0);
    Value numPos =
        posCount ? tensor::ExtractOp::create(b, loc, posCount, row).getResult()
                 : zero;
    Value numNeg = zero;
    if (negCount)
      numNeg = arith::MinSIOp::create(
          b, loc, tensor::ExtractOp::create(b, loc, negCount, row),
          arith::SubIOp::create(
              b, loc, lowering::constInt(b, loc, i64, numSamples), numPos));
    return {numPos, numNeg};
  };
  Value sampled;
  if (numSamples == 0) {
    sampled = tensor::EmptyOp::create(
        b, loc, ArrayRef<OpFoldResult>{r, b.getIndexAttr(0)}, i64);
  } else {
    sampled = generateTensor(
        b, loc, {r, b.getIndexAttr(numSamples)}, i64,
        [&](OpBuilder &b, Location loc, ValueRange ivs) {
          auto [numPos, numNeg] = numbers(b, loc, ivs[0]);
          Value s = lowering::indexToI64(b, loc, ivs[1]);
          // The item at slot `slot` of a class's compaction (clamped into
          // its K lanes: a slot past them is not taken).
          auto itemAt = [&](Value slots, int64_t k, Value slot) {
            Value lane = arith::MinSIOp::create(
                b, loc,
                arith::MaxSIOp::create(b, loc, slot,
                                       lowering::constInt(b, loc, i64, 0)),
                lowering::constInt(b, loc, i64, k - 1));
            Value at = tensor::ExtractOp::create(
                b, loc, slots,
                ValueRange{ivs[0], lowering::i64ToIndex(b, loc, lane)});
            auto item = [&](OpBuilder &b, Location loc) -> Value {
              return tensor::ExtractOp::create(
                  b, loc, perm, ValueRange{ivs[0], laneIndex(b, loc, at)});
            };
            if (!dynamicN)
              return item(b, loc);
            return lowering::ifThenElse(
                b, loc,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, at,
                                      lowering::constInt(b, loc, i64, 0)),
                item, lowering::constInt(b, loc, i64, -1));
          };
          Value result = lowering::constInt(b, loc, i64, -1);
          Value t = arith::SubIOp::create(b, loc, s, numPos);
          Value isNeg = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, t,
                                    lowering::constInt(b, loc, i64, 0)),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, t,
                                    numNeg));
          result = arith::SelectOp::create(b, loc, isNeg,
                                           itemAt(negSlots, kNeg, t), result);
          if (posSlots) {
            Value isPos = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::slt, s, numPos);
            result = arith::SelectOp::create(b, loc, isPos,
                                             itemAt(posSlots, kPos, s), result);
          }
          return result;
        });
  }
  Value counts = generateTensor(
      b, loc, {r}, i64, [&](OpBuilder &b, Location loc, ValueRange ivs) {
        auto [numPos, numNeg] = numbers(b, loc, ivs[0]);
        return arith::AddIOp::create(b, loc, numPos, numNeg).getResult();
      });
  // [R, num_samples] and [R] as the op's [B..., num_samples] and [B...].
  auto sampledType = cast<RankedTensorType>(op.getIndices().getType());
  int64_t rank = labelsType.getRank();
  if (rank == 1)
    sampled = tensor::CollapseShapeOp::create(b, loc, sampledType, sampled,
                                              rowsReassociation(1));
  else if (rank > 2) {
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(b, loc, op.getLabels());
    sizes.back() = b.getIndexAttr(numSamples);
    SmallVector<int64_t> shape;
    SmallVector<Value> dynamic;
    dispatchIndexOpFoldResults(sizes, dynamic, shape);
    sampled =
        tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, i64),
                                      sampled, rowsReassociation(rank), sizes);
  }
  op.getIndices().replaceAllUsesWith(
      lowering::castTo(b, loc, sampled, sampledType));
  op.getCount().replaceAllUsesWith(
      reshapeCounts(b, loc, counts, op.getLabels(),
                    cast<RankedTensorType>(op.getCount().getType())));
  op.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Ops along an axis other than the last: the same op along the last axis
//===----------------------------------------------------------------------===//

/// Whether `op` (sort, argsort, top-k or cumsum along `axis`) moved to the
/// last axis would become a kernel call (`convertSorting`,
/// `convertCumsum`): moving an axis last for the linalg lowering would only
/// add the transposes.
static bool hasRowKernel(Operation *op, int64_t axis) {
  auto inputType = cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t extent = inputType.getDimSize(axis);
  if (auto cumsum = dyn_cast<CumsumOp>(op)) {
    Type elt = cumsum.getResult().getType().getElementType();
    return elt.isInteger() || elt.isF32() || elt.isF64();
  }
  bool isUnsigned = false;
  if (auto argsort = dyn_cast<ArgsortOp>(op))
    isUnsigned = argsort.getIsUnsigned();
  else if (auto topk = dyn_cast<TopkOp>(op))
    isUnsigned = topk.getIsUnsigned();
  if (extent == 0 ||
      failed(lowering::getSortKeyInfo(inputType.getElementType(), isUnsigned)))
    return false;
  if (auto topk = dyn_cast<TopkOp>(op))
    return !topk.getValid() && !topk.getLimit() &&
           !ShapedType::isDynamic(extent) && topk.getK() > 0 &&
           static_cast<int64_t>(topk.getK()) <= extent;
  return true;
}

/// sort, argsort, top-k or cumsum along an axis other than the last whose
/// last-axis form is a row kernel: that op on its input transposed
/// (`sift::moveAxisLast`, as --sift-layout does on the CPU). The kernels
/// work on rows (a block per row, split across blocks when long); left
/// alone, such an op is the linalg lowering's loop per line, one thread
/// each. The transposes read and write each element once more.
static LogicalResult moveAxisLastForKernel(Operation *axisOp) {
  int64_t rank =
      cast<RankedTensorType>(axisOp->getOperand(0).getType()).getRank();
  int64_t axis = llvm::TypeSwitch<Operation *, int64_t>(axisOp)
                     .Case<SortOp, ArgsortOp, TopkOp, CumsumOp>(
                         [](auto op) { return op.getAxis(); })
                     .Default([](Operation *) { return -1; });
  if (axis < 0 || axis >= rank - 1 || !hasRowKernel(axisOp, axis))
    return failure();
  IRRewriter rewriter(axisOp);
  return sift::moveAxisLast(rewriter, axisOp);
}

struct ConvertSiftToGpuPass
    : public sift::impl::ConvertSiftToGPUBase<ConvertSiftToGpuPass> {
  using ConvertSiftToGPUBase::ConvertSiftToGPUBase;

  void runOnOperation() override {
    // An op whose results are unused goes first: its kernel call would
    // stay (a call has effects), and run (e.g. a sort that a top-k made
    // redundant, when no canonicalization ran before).
    SmallVector<Operation *> dead;
    getOperation()->walk([&](Operation *op) {
      if (isa<SiftDialect>(op->getDialect()) && isOpTriviallyDead(op))
        dead.push_back(op);
    });
    for (Operation *op : llvm::reverse(dead))
      op->erase();
    if (sortDigitBits != 4 && sortDigitBits != 8) {
      getOperation()->emitError("convert-sift-to-gpu: sort-digit-bits must "
                                "be 4 or 8, not ")
          << static_cast<int64_t>(sortDigitBits);
      return signalPassFailure();
    }
    SplitOptions split{splitBlocks, splitMin, sortSplitMin, sortDigitBits};
    // Ops of the host code (a function body, or the sequential loops and
    // branches in it): one nested in a parallel loop (a --sift-fuse row
    // kernel) is already part of a kernel. unique, randperm, nonzero,
    // masked_select and sample_balanced first become the ops below.
    SmallVector<Operation *> composed;
    getOperation()->walk([&](Operation *op) {
      // A Feistel randperm is element-wise: the linalg lowering's kernel.
      auto randperm = dyn_cast<RandpermOp>(op);
      if (randperm && randperm.isFeistel())
        return;
      if (isa<UniqueOp, RandpermOp, NonzeroOp, MaskedSelectOp,
              SampleBalancedOp>(op) &&
          isHostLevel(op))
        composed.push_back(op);
    });
    for (Operation *op : composed) {
      if (auto unique = dyn_cast<UniqueOp>(op))
        (void)decomposeUnique(unique, split);
      else if (auto randperm = dyn_cast<RandpermOp>(op))
        (void)decomposeRandperm(randperm);
      else if (auto nonzero = dyn_cast<NonzeroOp>(op))
        (void)decomposeNonzero(nonzero, split);
      else if (auto select = dyn_cast<MaskedSelectOp>(op))
        (void)decomposeMaskedSelect(select, split);
      else
        (void)decomposeSampleBalanced(cast<SampleBalancedOp>(op));
    }
    // A top-k with `limit` is a top-k of every line, padded past each
    // line's limit; one with `valid`, a top-k of masked keys.
    SmallVector<TopkOp> limitTopks;
    getOperation()->walk([&](TopkOp op) {
      if (op.getLimit() && isHostLevel(op))
        limitTopks.push_back(op);
    });
    for (TopkOp op : limitTopks)
      (void)decomposeTopkLimit(op);
    SmallVector<TopkOp> validTopks;
    getOperation()->walk([&](TopkOp op) {
      if (op.getValid() && isHostLevel(op))
        validTopks.push_back(op);
    });
    for (TopkOp op : validTopks)
      (void)decomposeTopkValid(op);
    // A top-k along a dynamic axis: the argsort of its lines.
    SmallVector<TopkOp> dynamicTopks;
    getOperation()->walk([&](TopkOp op) {
      if (op.getInput().getType().isDynamicDim(op.getAxis()) && isHostLevel(op))
        dynamicTopks.push_back(op);
    });
    for (TopkOp op : dynamicTopks)
      (void)decomposeTopkDynamic(op);
    // Sorts, top-ks and prefix sums along another axis than the last: along
    // the last of their input transposed.
    SmallVector<Operation *> otherAxis;
    getOperation()->walk([&](Operation *op) {
      if (isa<SortOp, ArgsortOp, TopkOp, CumsumOp>(op) && isHostLevel(op))
        otherAxis.push_back(op);
    });
    for (Operation *op : otherAxis)
      (void)moveAxisLastForKernel(op);
    SmallVector<Operation *> ops;
    // Scatters whose lanes are distinct, known by the ops that make their
    // indices: asked before those ops become kernel calls.
    llvm::SmallPtrSet<Operation *, 4> distinctScatters;
    getOperation()->walk([&](Operation *op) {
      if (isa<CountOp, CumsumOp, CompactOp, SortOp, ArgsortOp, TopkOp,
              CrossEntropyOp, ScatterOp>(op) &&
          isHostLevel(op))
        ops.push_back(op);
      if (auto scatter = dyn_cast<ScatterOp>(op);
          scatter && hasDistinctIndices(scatter))
        distinctScatters.insert(op);
    });
    for (Operation *op : ops) {
      if (auto count = dyn_cast<CountOp>(op))
        (void)convertCount(count, split);
      else if (auto cumsum = dyn_cast<CumsumOp>(op))
        (void)convertCumsum(cumsum, split);
      else if (auto compact = dyn_cast<CompactOp>(op))
        (void)convertCompact(compact, split);
      else if (auto sort = dyn_cast<SortOp>(op))
        (void)convertSort(sort, split);
      else if (auto argsort = dyn_cast<ArgsortOp>(op))
        (void)convertArgsort(argsort, split);
      else if (auto topk = dyn_cast<TopkOp>(op))
        (void)convertTopk(topk, split);
      else if (auto loss = dyn_cast<CrossEntropyOp>(op))
        (void)convertCrossEntropy(loss);
      else
        (void)convertScatter(cast<ScatterOp>(op),
                             distinctScatters.contains(op));
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
    // The masks' functions the kernels computed their elements by.
    SetVector<func::FuncOp> predicates;
    for (func::CallOp call : calls) {
      OpBuilder b(call);
      Location loc = call.getLoc();
      StringRef kind = call->getAttrOfType<StringAttr>(kKernelAttr).getValue();
      // The kernels of their own files expand themselves.
      auto expandOwn = llvm::StringSwitch<LogicalResult (*)(
          OpBuilder &, func::CallOp, int64_t)>(kind)
                           .Case("cross_entropy", expandCrossEntropyCall)
                           .Case("scatter", expandScatterCall)
                           .Case("philox_words", expandPhiloxCall)
                           .Default(nullptr);
      if (expandOwn) {
        if (failed(expandOwn(b, call, threads)))
          return signalPassFailure();
        callees.insert(call.getCallee());
        call.erase();
        continue;
      }
      ValueRange args = call.getOperands();
      std::optional<RowSplit> split = splitOfCall(call);
      FailureOr<MaskSource> mask = failure();
      if (kind == "count" || kind == "compact") {
        mask = maskSourceOfCall(call);
        if (failed(mask)) {
          call.emitOpError("sift-gpu-expand-kernels: the ")
              << kind
              << " kernel's mask predicate is not a function of its "
                 "buffers' elements";
          return signalPassFailure();
        }
        if (mask->predicate)
          predicates.insert(mask->predicate);
      }
      size_t numMask = succeeded(mask) ? numMaskOperands(*mask) : 0;
      size_t numArgs = isSortingKernel(kind) ? sortingKernelArgs(call, kind)
                       : kind == "compact"
                           ? numMask + 2 +
                                 (split ? (mask->predicate ? 2 : 1) : 0) +
                                 (call->hasAttr(kPermuteAttr) ? 2 : 0)
                       : kind == "count" ? numMask + 1
                                         : 2 + (split ? 1 : 0);
      // A permuted compaction's seed and offset (the last two) may be
      // scalars.
      size_t numBuffers =
          kind == "compact" && call->hasAttr(kPermuteAttr) && numArgs >= 2
              ? numArgs - 2
              : numArgs;
      // (Of the rows of the result buffer, when both are static.)
      int64_t numRows = ShapedType::kDynamic;
      if (numMask < args.size())
        if (auto out = dyn_cast<MemRefType>(args[numMask].getType());
            out && out.getRank() == 2)
          numRows = out.getDimSize(0);
      auto perRow = [&](Value v) {
        auto buffer = dyn_cast<MemRefType>(v.getType());
        if (!buffer)
          return v.getType().isInteger(64);
        int64_t n = buffer.getRank() == 1 ? buffer.getDimSize(0) : 0;
        return buffer.getRank() == 1 && buffer.getElementType().isInteger(64) &&
               (ShapedType::isDynamic(n) || ShapedType::isDynamic(numRows) ||
                n == numRows);
      };
      if (args.size() != numArgs ||
          !llvm::all_of(args.take_front(numBuffers).getTypes(),
                        llvm::IsaPred<MemRefType>) ||
          !llvm::all_of(args.drop_front(numBuffers), perRow)) {
        InFlightDiagnostic diag =
            call.emitOpError("sift-gpu-expand-kernels: the ");
        diag << kind << " kernel takes " << numBuffers << " buffers";
        if (numBuffers != numArgs)
          diag << ", then its permutation's seed and offset (each an i64 or "
                  "a buffer [R] of them)";
        return signalPassFailure();
      }
      if (kind == "count") {
        buildCountKernel(b, loc, *mask, args[numMask], threads, split);
      } else if (kind == "compact") {
        auto fill = call->getAttrOfType<IntegerAttr>("fill");
        ValueRange rest = args.drop_front(numMask);
        std::optional<PermutedStore> permuted;
        if (auto k = call->getAttrOfType<IntegerAttr>(kPermuteAttr))
          permuted =
              PermutedStore{k.getInt(), rest[rest.size() - 2], rest.back()};
        buildCompactKernel(
            b, loc, *mask, rest[0], rest[1], fill ? fill.getInt() : -1, threads,
            split, split ? rest[2] : Value(),
            split && mask->predicate ? rest[3] : Value(), permuted);
      } else if (kind == "cumsum") {
        buildCumsumKernel(b, loc, args[0], args[1], call->hasAttr("exclusive"),
                          threads, split, split ? args[2] : Value());
      } else if (isSortingKernel(kind)) {
        if (failed(expandSortingCall(b, call, threads)))
          return signalPassFailure();
      } else {
        call.emitOpError("sift-gpu-expand-kernels: unknown kernel ") << kind;
        return signalPassFailure();
      }
      callees.insert(call.getCallee());
      call.erase();
    }
    // The declarations no call uses any more, and the masks' functions.
    ModuleOp module = getOperation();
    for (func::FuncOp predicate : predicates)
      if (SymbolTable::symbolKnownUseEmpty(predicate, module))
        predicate.erase();
    for (StringRef name : callees) {
      auto decl = module.lookupSymbol<func::FuncOp>(name);
      if (decl && decl.isDeclaration() &&
          SymbolTable::symbolKnownUseEmpty(decl, module))
        decl.erase();
    }
  }
};
} // namespace

ArrayRef<StringRef> sift::getOpsWithGpuBlockKernels() {
  static const StringRef names[] = {
      CountOp::getOperationName(),        CumsumOp::getOperationName(),
      CompactOp::getOperationName(),      SortOp::getOperationName(),
      ArgsortOp::getOperationName(),      TopkOp::getOperationName(),
      CrossEntropyOp::getOperationName(), UniqueOp::getOperationName(),
      RandpermOp::getOperationName(),     NonzeroOp::getOperationName(),
      MaskedSelectOp::getOperationName(), SampleBalancedOp::getOperationName(),
      ScatterOp::getOperationName()};
  return names;
}
