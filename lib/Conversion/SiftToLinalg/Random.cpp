//===- Random.cpp - Lowering of the sift random ops -------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// `random_bits`, `random_uniform` and `randperm`: element i of the row-major
// order takes word i of the Philox4x32-10 stream (words 2i and 2i+1 for
// 64-bit elements), so the streams are bit-identical to the reference in
// python/sift/reference/philox.py on every target. The tensor ops loop over
// the stream's blocks, computing each block once for the elements it covers.
// Per-row seeds and offsets give each row of the leading dimensions they
// cover its own stream.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils/CodegenUtils.h"
#include "Utils/Philox.h"
#include "Utils/RadixSort.h"
#include "Utils/RuntimeChecks.h"

#include "sift/Runtime/SiftRuntime.h"
#include "sift/Transforms/Routines.h"

#include "sift/Dialect/Sift/IR/SiftOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::lowering;

namespace {

/// The `offset` operand, or a zero `i64`.
static Value offsetOrZero(OpBuilder &b, Location loc, Value offset) {
  return offset ? offset : constInt(b, loc, b.getI64Type(), 0);
}

/// The Philox key and stream offset of each row of a random op. Either may be
/// one `i64` for the whole op or a tensor of them, one per row of the leading
/// dimensions it covers (both the same shape when both are tensors).
struct Streams {
  Value seed, offset;
  /// The per-row ones as rank-1 buffers of `numRows` elements (null when
  /// scalar), and the number of rows they cover (1 when both are scalars).
  Value seedRows, offsetRows;
  int64_t numRows = 1, rowRank = 0;

  Streams(OpBuilder &b, Location loc, Value seed, Value offset)
      : seed(seed), offset(offsetOrZero(b, loc, offset)) {
    for (Value v : {this->seed, this->offset})
      if (auto type = dyn_cast<RankedTensorType>(v.getType())) {
        numRows = type.getNumElements();
        rowRank = type.getRank();
      }
    seedRows = rowsOf(b, loc, this->seed);
    offsetRows = rowsOf(b, loc, this->offset);
  }

  bool perRow() const { return seedRows || offsetRows; }

  /// The key and offset of row `row`, given the values read from the per-row
  /// buffers (in the order seed, offset; only those that exist).
  std::pair<Value, Value> at(ValueRange rowValues) const {
    unsigned next = 0;
    Value s = seedRows ? rowValues[next++] : seed;
    Value o = offsetRows ? rowValues[next++] : offset;
    return {s, o};
  }
  SmallVector<Value> rowBuffers() const {
    SmallVector<Value> buffers;
    for (Value v : {seedRows, offsetRows})
      if (v)
        buffers.push_back(v);
    return buffers;
  }

private:
  static Value rowsOf(OpBuilder &b, Location loc, Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type)
      return nullptr;
    Value flat = flatten(b, loc, v);
    return bufferization::ToBufferOp::create(
        b, loc, MemRefType::get({type.getNumElements()}, type.getElementType()),
        flat, /*readOnly=*/true);
  }
};

/// A static tensor of `type` filled from `streams`: each element takes
/// `wordsPerElement` (1 or 2) consecutive words, element `i` the words from
/// `i * wordsPerElement` on, and is `fn(words)`. With per-row streams, each
/// row of the leading dimensions they cover is filled from its own stream,
/// `i` counting within the row. Each Philox block is computed once and gives
/// the 4 / `wordsPerElement` elements it covers: one parallel
/// `linalg.generic` over the rows and their full blocks writes them through
/// stride-`perBlock` views of one buffer (a tensor-level form would need a
/// plane per lane and an interleaving copy, or copies of aliasing slices),
/// then the last, partial block of each row is stored element by element.
/// The buffer becomes the result tensor with `bufferization.to_tensor
/// restrict writable`: nothing else refers to it. With `vectorLoops` (the
/// CPU), the full blocks are instead an `scf.parallel` over the rows and
/// chunks of `kBlocksPerChunk` blocks whose body calls a routine (a
/// function per module and kind `kind` of element) with an `scf.for` over
/// the chunk's blocks, annotated for LLVM's loop vectorizer (a vector of 8
/// blocks per step: `vpmuludq` on 64-bit lanes), which its cost model
/// does not choose for the multiplies and interleaved stores on its own
/// (the loop ran scalar: 2.8 ms for 32 x 1e5 words, 0.9 ns a word).
static constexpr int64_t kBlocksPerChunk = 1024;

/// `llvm.loop_annotation` that asks LLVM to vectorize a loop 8 wide.
static Attribute vectorizeAnnotation(MLIRContext *ctx) {
  auto vectorize = LLVM::LoopVectorizeAttr::get(
      ctx, /*disable=*/BoolAttr::get(ctx, false), /*predicateEnable=*/{},
      /*scalableEnable=*/{},
      /*width=*/IntegerAttr::get(IntegerType::get(ctx, 32), 8),
      /*followupVectorized=*/{}, /*followupEpilogue=*/{}, /*followupAll=*/{});
  return LLVM::LoopAnnotationAttr::get(
      ctx, /*disableNonforced=*/{}, vectorize, /*interleave=*/{},
      /*unroll=*/{}, /*unrollAndJam=*/{}, /*licm=*/{}, /*distribute=*/{},
      /*pipeline=*/{}, /*peeled=*/{}, /*unswitch=*/{}, /*mustProgress=*/{},
      /*isVectorized=*/{}, /*startLoc=*/{}, /*endLoc=*/{},
      /*parallelAccesses=*/{});
}

static Value generateFromBlocks(
    OpBuilder &b, Location loc, RankedTensorType type, const Streams &streams,
    unsigned wordsPerElement, bool vectorLoops, StringRef kind,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> fn,
    Value valid = nullptr) {
  int64_t rows = streams.numRows;
  int64_t total = type.getNumElements();
  int64_t perRow = rows ? total / rows : 0;
  int64_t perBlock = 4 / wordsPerElement;
  int64_t fullBlocks = perRow / perBlock, tail = perRow % perBlock;
  bool rowDim = streams.perRow();
  Type elementType = type.getElementType();
  SmallVector<int64_t> bufferShape;
  if (rowDim)
    bufferShape.push_back(rows);
  bufferShape.push_back(perRow);
  Value buffer = memref::AllocOp::create(
      b, loc, MemRefType::get(bufferShape, elementType));
  auto elementsFrom = [&](OpBuilder &b, Location loc, Value seed, Value offset,
                          Value block, int64_t count) {
    std::array<Value, 4> words =
        philoxBlock(b, loc, seed, offset, indexToI64(b, loc, block));
    SmallVector<Value> values;
    for (int64_t e = 0; e < count; ++e)
      values.push_back(fn(
          b, loc,
          ArrayRef<Value>(words).slice(e * wordsPerElement, wordsPerElement)));
    return values;
  };
  auto elementsOf = [&](OpBuilder &b, Location loc, ValueRange rowValues,
                        Value block, int64_t count) {
    auto [seed, offset] = streams.at(rowValues);
    return elementsFrom(b, loc, seed, offset, block, count);
  };
  SmallVector<Value> rowBuffers = streams.rowBuffers();
  // The stream values of row `row` (null: no row dimension).
  auto rowValuesAt = [&](OpBuilder &b, Location loc, Value row) {
    SmallVector<Value> rowValues;
    for (Value rowBuffer : rowBuffers)
      rowValues.push_back(
          memref::LoadOp::create(b, loc, rowBuffer, ValueRange{row}));
    return rowValues;
  };
  // Stores `values`, the first elements of block `block` of row `row`
  // (null: no row dimension), into `dest`.
  auto storeValues = [&](OpBuilder &b, Location loc, ValueRange values,
                         Value dest, Value row, Value block) {
    Value first =
        arith::MulIOp::create(b, loc, block, constIndex(b, loc, perBlock));
    for (auto [e, value] : llvm::enumerate(values)) {
      SmallVector<Value> at;
      if (row)
        at.push_back(row);
      at.push_back(arith::AddIOp::create(b, loc, first, constIndex(b, loc, e)));
      memref::StoreOp::create(b, loc, value, dest, at);
    }
  };
  // Stores the first `count` elements of block `block` of row `row` (null:
  // no row dimension), given the row's stream values.
  auto storeBlock = [&](OpBuilder &b, Location loc, ValueRange rowValues,
                        Value row, Value block, int64_t count) {
    storeValues(b, loc, elementsOf(b, loc, rowValues, block, count), buffer,
                row, block);
  };
  // The blocks a row needs: all of them, or those that cover its first
  // `valid` elements (the row's own one, or the same for every row).
  Value validRows;
  if (valid && isa<RankedTensorType>(valid.getType()))
    validRows = bufferization::ToBufferOp::create(
        b, loc, MemRefType::get({rows}, b.getIndexType()),
        flatten(b, loc, valid), /*readOnly=*/true);
  auto blocksOfRow = [&](OpBuilder &b, Location loc, Value row) -> Value {
    Value all = constIndex(b, loc, fullBlocks);
    if (!valid)
      return all;
    Value n = validRows
                  ? memref::LoadOp::create(b, loc, validRows, ValueRange{row})
                  : valid;
    Value blocks =
        arith::CeilDivUIOp::create(b, loc, n, constIndex(b, loc, perBlock));
    return arith::MinUIOp::create(b, loc, blocks, all);
  };
  // The buffer as the dynamic-size memref the chunk routine writes.
  auto destType = MemRefType::get(
      SmallVector<int64_t>(bufferShape.size(), ShapedType::kDynamic),
      elementType);
  // The function that writes the blocks [begin, end) of one row of a chunk,
  // then zeros up to the chunk's end (with `valid`; nothing otherwise, where
  // end is the chunk's end), made once per module for each element
  // function (`kind`), block shape and element type: every stream of the
  // same kind shares it (a sampler's two groups and its shuffle), and LLVM
  // vectorizes its loop once. Arguments: seed, offset, the buffer (dynamic
  // sizes), the row (with a row dimension), begin, end and the chunk's end.
  // A function from the start, not a routine region: the stream values stay
  // arguments, where constants folded into a region (offsets 0, 1, 2) made
  // each stream's loop its own (the batched sampler compiled three vector
  // loops and their scalar remainders, 40% of LLVM's time).
  auto chunkRoutine = [&](OpBuilder &b, Location loc) -> func::FuncOp {
    auto module =
        b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
    assert(module && "a random op is lowered inside a module");
    Type index = b.getIndexType();
    SmallVector<Type> inputs{getElementTypeOrSelf(streams.seed.getType()),
                             getElementTypeOrSelf(streams.offset.getType()),
                             destType};
    if (rowDim)
      inputs.push_back(index);
    inputs.append({index, index, index});
    FunctionType fnType = b.getFunctionType(inputs, TypeRange{});
    std::string base;
    llvm::raw_string_ostream os(base);
    os << "__sift_philox_" << kind << "_" << elementType << "_x" << perBlock
       << (rowDim ? "_rows" : "");
    // A symbol of that name that is not this routine (the user's) makes
    // the name take a number.
    std::string name = base;
    for (unsigned n = 1;; ++n) {
      Operation *existing = module.lookupSymbol(name);
      if (!existing)
        break;
      auto fn = dyn_cast<func::FuncOp>(existing);
      if (fn && fn->hasAttr(kLineRoutineAttrName) &&
          fn.getFunctionType() == fnType)
        return fn;
      name = base + "_" + std::to_string(n);
    }
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto fn = func::FuncOp::create(b, loc, name, fnType);
    fn.setPrivate();
    fn->setAttr(kLineRoutineAttrName, b.getUnitAttr());
    b.setInsertionPointToStart(fn.addEntryBlock());
    ValueRange args = fn.getArguments();
    Value seed = args[0], offset = args[1], out = args[2];
    Value row = rowDim ? args[3] : Value();
    Value begin = args[rowDim ? 4 : 3], end = args[rowDim ? 5 : 4],
          chunkEnd = args.back();
    auto blocks = scf::ForOp::create(
        b, loc, begin, end, constIndex(b, loc, 1), ValueRange{},
        [&](OpBuilder &b, Location loc, Value block, ValueRange) {
          storeValues(b, loc,
                      elementsFrom(b, loc, seed, offset, block, perBlock), out,
                      row, block);
          scf::YieldOp::create(b, loc);
        });
    // scf-to-cf moves LLVM attributes to the loop's back edge, where
    // `loop_annotation` is the branch's own attribute.
    blocks->setAttr("loop_annotation", vectorizeAnnotation(b.getContext()));
    // The blocks past the prefix are written with zeros, not left as they
    // were: what reads the whole line (the element-wise ops between the
    // stream and a top-k) then finds them in the cache after cheap stores,
    // where stale lines would be read misses (the batched sampler at
    // N = 1e5, B = 32: 1.06-1.28x slower unwritten, 0.8-1.0x of the whole
    // stream zero-filled).
    Value from = arith::MaxUIOp::create(b, loc, begin, end);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
    scf::ForOp::create(
        b, loc, from, chunkEnd, constIndex(b, loc, 1), ValueRange{},
        [&](OpBuilder &b, Location loc, Value block, ValueRange) {
          storeValues(b, loc, SmallVector<Value>(perBlock, zero), out, row,
                      block);
          scf::YieldOp::create(b, loc);
        });
    func::ReturnOp::create(b, loc);
    return fn;
  };
  if (fullBlocks > 0 && rows > 0 && vectorLoops) {
    func::FuncOp routine = chunkRoutine(b, loc);
    int64_t chunks = llvm::divideCeil(fullBlocks, kBlocksPerChunk);
    SmallVector<Value> lbs, ubs, steps;
    if (rowDim) {
      lbs.push_back(constIndex(b, loc, 0));
      ubs.push_back(constIndex(b, loc, rows));
      steps.push_back(constIndex(b, loc, 1));
    }
    lbs.push_back(constIndex(b, loc, 0));
    ubs.push_back(constIndex(b, loc, chunks));
    steps.push_back(constIndex(b, loc, 1));
    scf::ParallelOp::create(
        b, loc, lbs, ubs, steps,
        [&](OpBuilder &b, Location loc, ValueRange ivs) {
          Value row = rowDim ? ivs.front() : Value();
          SmallVector<Value> rowValues = rowValuesAt(b, loc, row);
          Value begin = arith::MulIOp::create(
              b, loc, ivs.back(), constIndex(b, loc, kBlocksPerChunk));
          // One op per statement: the order of the ops must not depend on
          // the compiler's order of evaluating arguments.
          Value chunkEnd = arith::MinUIOp::create(
              b, loc,
              arith::AddIOp::create(b, loc, begin,
                                    constIndex(b, loc, kBlocksPerChunk)),
              constIndex(b, loc, fullBlocks));
          Value end = chunkEnd;
          if (valid) {
            Value rowBlocks =
                blocksOfRow(b, loc, rowDim ? row : constIndex(b, loc, 0));
            end = arith::MinUIOp::create(b, loc, chunkEnd, rowBlocks);
          }
          auto [seed, offset] = streams.at(rowValues);
          SmallVector<Value> args{
              seed, offset,
              memref::CastOp::create(b, loc, destType, buffer).getResult()};
          if (row)
            args.push_back(row);
          args.append({begin, end, chunkEnd});
          // At most a chunk of blocks a call: a small stream's chunk loop
          // then runs on the calling thread.
          func::CallOp::create(b, loc, routine, args)
              ->setAttr(kStaticWorkAttrName,
                        b.getI64IntegerAttr(kBlocksPerChunk));
        });
  } else if (fullBlocks > 0 && rows > 0) {
    SmallVector<Value> lanes;
    for (int64_t e = 0; e < perBlock; ++e) {
      SmallVector<OpFoldResult> offsets, sizes, strides;
      if (rowDim) {
        offsets.push_back(b.getIndexAttr(0));
        sizes.push_back(b.getIndexAttr(rows));
        strides.push_back(b.getIndexAttr(1));
      }
      offsets.push_back(b.getIndexAttr(e));
      sizes.push_back(b.getIndexAttr(fullBlocks));
      strides.push_back(b.getIndexAttr(perBlock));
      lanes.push_back(
          memref::SubViewOp::create(b, loc, buffer, offsets, sizes, strides));
    }
    unsigned rank = rowDim ? 2 : 1;
    AffineMap id = b.getMultiDimIdentityMap(rank);
    SmallVector<AffineMap> maps(rowBuffers.size(),
                                AffineMap::get(rank, 0, b.getAffineDimExpr(0)));
    maps.append(perBlock, id);
    linalg::GenericOp::create(
        b, loc, TypeRange{}, rowBuffers, lanes, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &nb, Location nloc, ValueRange args) {
          Value block = linalg::IndexOp::create(nb, nloc, rank - 1);
          linalg::YieldOp::create(nb, nloc,
                                  elementsOf(nb, nloc,
                                             args.take_front(rowBuffers.size()),
                                             block, perBlock));
        });
  }
  if (tail) {
    auto storeTail = [&](OpBuilder &b, Location loc, Value row) {
      storeBlock(b, loc, rowValuesAt(b, loc, row), row,
                 constIndex(b, loc, fullBlocks), tail);
    };
    if (rowDim)
      scf::ForOp::create(
          b, loc, constIndex(b, loc, 0), constIndex(b, loc, rows),
          constIndex(b, loc, 1), ValueRange{},
          [&](OpBuilder &b, Location loc, Value row, ValueRange) {
            storeTail(b, loc, row);
            scf::YieldOp::create(b, loc);
          });
    else
      storeTail(b, loc, nullptr);
  }
  Value flat = bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get(bufferShape, elementType), buffer,
      /*restrict=*/true, /*writable=*/true);
  if (rowDim)
    flat = flatten(b, loc, flat);
  SmallVector<OpFoldResult> sizes;
  for (int64_t size : type.getShape())
    sizes.push_back(b.getIndexAttr(size));
  return unflatten(b, loc, flat, type, sizes);
}

/// A random op lowered by `generateFromBlocks`, with or without its
/// vector loops.
template <typename OpTy> struct BlocksLowering : OpRewritePattern<OpTy> {
  BlocksLowering(MLIRContext *context, bool vectorLoops)
      : OpRewritePattern<OpTy>(context), vectorLoops(vectorLoops) {}
  bool vectorLoops;
};

struct RandomBitsLowering : BlocksLowering<RandomBitsOp> {
  using BlocksLowering::BlocksLowering;
  LogicalResult matchAndRewrite(RandomBitsOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(
          op, "has no CPU lowering for a dynamic shape");
    Location loc = op.getLoc();
    Streams streams(rewriter, loc, op.getSeed(), op.getOffset());
    bool wide = type.getElementType().isInteger(64);
    // `valid` leaves the blocks past each line's prefix unwritten where the
    // lines are the streams' rows (a per-line tensor of their shape) or the
    // one line of a single stream; elsewhere every word is written, which
    // `valid` allows too.
    Value valid = op.getValid();
    if (valid) {
      auto validType = dyn_cast<RankedTensorType>(valid.getType());
      bool linesAreRows =
          streams.rowRank == type.getRank() - 1 &&
          (streams.perRow() ? validType != nullptr
                            : !validType && type.getRank() == 1);
      if (!linesAreRows)
        valid = nullptr;
    }
    Value result = generateFromBlocks(
        rewriter, loc, type, streams, wide ? 2 : 1, vectorLoops, "bits",
        [&](OpBuilder &b, Location loc, ArrayRef<Value> w) -> Value {
          if (!wide)
            return w[0];
          // Words 2i (low half) and 2i+1 (high half).
          Type i64 = b.getI64Type();
          Value h = arith::ShLIOp::create(
              b, loc, arith::ExtUIOp::create(b, loc, i64, w[1]),
              constInt(b, loc, i64, 32));
          return arith::OrIOp::create(
              b, loc, h, arith::ExtUIOp::create(b, loc, i64, w[0]));
        },
        valid);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct RandomUniformLowering : BlocksLowering<RandomUniformOp> {
  using BlocksLowering::BlocksLowering;
  LogicalResult matchAndRewrite(RandomUniformOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto floatType = cast<FloatType>(type.getElementType());
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(
          op, "has no CPU lowering for a dynamic shape");
    if (!isSupportedFloat(floatType))
      return unsupportedElementType(rewriter, op, floatType);
    Location loc = op.getLoc();
    Streams streams(rewriter, loc, op.getSeed(), op.getOffset());
    Value result = generateFromBlocks(
        rewriter, loc, type, streams, floatType.isF64() ? 2 : 1, vectorLoops,
        "uniform",
        [&](OpBuilder &b, Location loc, ArrayRef<Value> words) -> Value {
          Type i32 = b.getI32Type(), i64 = b.getI64Type(), f32 = b.getF32Type();
          if (floatType.isF64()) {
            // ((hi >> 11) * 2^32 + lo) * 2^-53: a 53-bit integer, exact.
            Value lo = words[0], hi = words[1];
            Value h =
                arith::ShRUIOp::create(b, loc, hi, constInt(b, loc, i32, 11));
            // One op per statement: the order of the ops must not depend
            // on the compiler's order of evaluating arguments.
            Value lo64 = arith::ExtUIOp::create(b, loc, i64, lo);
            Value hi64 = arith::ExtUIOp::create(b, loc, i64, h);
            Value top =
                arith::ShLIOp::create(b, loc, hi64, constInt(b, loc, i64, 32));
            Value m = arith::OrIOp::create(b, loc, top, lo64);
            Value v = arith::UIToFPOp::create(b, loc, b.getF64Type(), m);
            Value scale = arith::ConstantOp::create(
                b, loc, b.getF64FloatAttr(std::ldexp(1.0, -53)));
            return Value(arith::MulFOp::create(b, loc, v, scale));
          }
          // (w >> 8) * 2^-24 in f32 (exact), then rounded toward zero.
          Value w = words[0];
          Value m = arith::ShRUIOp::create(b, loc, w, constInt(b, loc, i32, 8));
          Value v = arith::UIToFPOp::create(b, loc, f32, m);
          Value scale = arith::ConstantOp::create(
              b, loc, b.getF32FloatAttr(std::ldexp(1.0f, -24)));
          v = arith::MulFOp::create(b, loc, v, scale);
          if (floatType.isF32())
            return v;
          Value bits = arith::BitcastOp::create(b, loc, i32, v);
          if (floatType.isBF16()) {
            // bf16 is the top half of an f32: dropping the low half
            // truncates toward zero.
            Value top =
                arith::ShRUIOp::create(b, loc, bits, constInt(b, loc, i32, 16));
            Value half =
                arith::TruncIOp::create(b, loc, b.getIntegerType(16), top);
            return Value(arith::BitcastOp::create(b, loc, floatType, half));
          }
          // f16 keeps 10 of the 23 mantissa bits: clear the other 13, then
          // the conversion is exact (values below 2^-14 are multiples of
          // 2^-24, exact f16 subnormals).
          bits = arith::AndIOp::create(b, loc, bits,
                                       constInt(b, loc, i32, 0xFFFFE000));
          v = arith::BitcastOp::create(b, loc, f32, bits);
          return Value(arith::TruncFOp::create(b, loc, floatType, v));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The largest `n` of randperm: its buffers (a few words per element) have
/// byte sizes far from overflowing 64 bits; larger ones cannot be allocated
/// on any machine anyway.
constexpr int64_t kMaxRandpermSize = int64_t(1) << 56;

struct RandpermLowering : OpRewritePattern<RandpermOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RandpermOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value seed = op.getSeed();
    Value offset = offsetOrZero(rewriter, loc, op.getOffset());
    // n must lie in [0, kMaxRandpermSize]: otherwise a run-time error, and
    // the code goes on with n = 0 (an empty permutation, nothing allocated).
    if (failed(declareRuntimeReport(rewriter, op)))
      return failure();
    Value n = op.getN();
    {
      OpBuilder &b = rewriter;
      Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                             n, constIndex(b, loc, 0));
      Value tooLarge =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, n,
                                constIndex(b, loc, kMaxRandpermSize));
      emitRuntimeCheck(b, loc, negative, SIFT_RT_ERROR_RANDPERM_NEGATIVE, {n});
      emitRuntimeCheck(b, loc, tooLarge, SIFT_RT_ERROR_RANDPERM_TOO_LARGE,
                       {n, constInt(b, loc, b.getI64Type(), kMaxRandpermSize)});
      n = arith::SelectOp::create(
          b, loc, arith::OrIOp::create(b, loc, negative, tooLarge),
          constIndex(b, loc, 0), n);
    }
    // Stable ascending argsort of the first n unsigned 32-bit words.
    Value keys = generateLine(rewriter, loc, n, rewriter.getI32Type(),
                              [&](OpBuilder &b, Location loc, Value i) {
                                return philoxWord(b, loc, seed, offset,
                                                  indexToI64(b, loc, i));
                              });
    Value perm = radixArgsort(rewriter, loc, keys, n, 32).second;
    replaceOpWithCasts(rewriter, op, perm);
    return success();
  }
};

} // namespace

void lowering::populateRandomPatterns(RewritePatternSet &patterns,
                                      bool vectorLoops) {
  patterns.add<RandomBitsLowering, RandomUniformLowering>(patterns.getContext(),
                                                          vectorLoops);
  patterns.add<RandpermLowering>(patterns.getContext());
}
