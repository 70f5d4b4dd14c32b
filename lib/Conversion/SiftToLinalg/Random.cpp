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
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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

/// The line routine (a function with `kLineRoutineAttrName`) named `base`
/// of type `fnType` in `module`, or null with `name` set to the name a new
/// one takes: `base`, or `base_<n>` where a symbol that is not this routine
/// (the user's) has it.
static func::FuncOp findLineRoutine(ModuleOp module, StringRef base,
                                    FunctionType fnType, std::string &name) {
  name = base.str();
  for (unsigned n = 1;; ++n) {
    Operation *existing = module.lookupSymbol(name);
    if (!existing)
      return nullptr;
    auto fn = dyn_cast<func::FuncOp>(existing);
    if (fn && fn->hasAttr(kLineRoutineAttrName) &&
        fn.getFunctionType() == fnType)
      return fn;
    name = base.str() + "_" + std::to_string(n);
  }
}

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

/// `llvm.loop_annotation` that asks LLVM to vectorize a loop `width` wide.
static Attribute vectorizeAnnotation(MLIRContext *ctx, int64_t width = 8) {
  auto vectorize = LLVM::LoopVectorizeAttr::get(
      ctx, /*disable=*/BoolAttr::get(ctx, false), /*predicateEnable=*/{},
      /*scalableEnable=*/{},
      /*width=*/IntegerAttr::get(IntegerType::get(ctx, 32), width),
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
    std::string name;
    if (func::FuncOp fn = findLineRoutine(module, base, fnType, name))
      return fn;
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

/// A random op lowered with or without its vector loops (the CPU's
/// `generateFromBlocks` and Feistel routines).
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

//===----------------------------------------------------------------------===//
// The Feistel permutation (randperm_prefix, randperm without `sort`)
//===----------------------------------------------------------------------===//

/// The largest `n` of the Feistel permutation: its elements are 32-bit.
constexpr int64_t kMaxFeistelSize = int64_t(1) << 32;
/// Lanes a call of the CPU routine computes.
constexpr int64_t kFeistelChunk = 4096;
/// Lanes of the CPU routine's vectors: eight AVX-512 registers, whose
/// rounds are independent chains of two multiplies each, so they overlap.
/// The batched sampler with Feistel permutations at N = 1e6,
/// B = 32 took 74-80 ms a call with two vector walks of 16 lanes and a
/// scalar loop for the lanes still out of range, 66-72 ms walking vectors
/// of 16 until all were in range, 56-61 with 64 lanes, 50-51 with 128, 60-61
/// with 256 (spills). A lane whose walk is longer keeps the vector's others
/// waiting (a walk lands in range with probability n / 2^b > 1/2): since
/// session 30 a chunk longer than a vector walks its lanes once and then
/// only those left out of range (walkFeistelChunk), measured side by side
/// at B = 32: N = 1e5 3.06-3.08 -> 2.81-2.90 ms, N = 1e6 51.0 -> 48.4 ms
/// (minima over alternated processes), N = 1e3 and 1e4 the same.
constexpr int64_t kFeistelVectorLanes = 128;

/// `n` (index) clamped to [0, 2^32], as an i64.
static Value clampFeistelN(OpBuilder &b, Location loc, Value n) {
  Type i64 = b.getI64Type();
  Value v = indexToI64(b, loc, n);
  v = arith::MaxSIOp::create(b, loc, v, constInt(b, loc, i64, 0));
  return arith::MinSIOp::create(b, loc, v,
                                constInt(b, loc, i64, kMaxFeistelSize));
}

/// Lane `j` (index) of the permutation of [0, n) (`n` an i64 in [0, 2^32]):
/// the walk from j for j < end, -1 from there (end <= n). With `keys` of the
/// stream.
static Value feistelLane(OpBuilder &b, Location loc, ArrayRef<Value> keys,
                         Value n, Value end, Value j) {
  Type i64 = b.getI64Type();
  Value j64 = indexToI64(b, loc, j);
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j64, end);
  auto lane = scf::IfOp::create(
      b, loc, inRange,
      [&](OpBuilder &b, Location loc) {
        FeistelDomain domain = feistelDomain(b, loc, n);
        Value x = arith::TruncIOp::create(b, loc, b.getI32Type(), j64);
        Value walked = feistelWalk(b, loc, keys, domain, x);
        scf::YieldOp::create(
            b, loc,
            ValueRange{
                arith::ExtUIOp::create(b, loc, i64, walked).getResult()});
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, constInt(b, loc, i64, -1));
      });
  return lane.getResult(0);
}

/// Stores lanes [begin, end) (at most `kFeistelChunk`) of the Feistel
/// permutation into row `line` of `out` (a memref of i64), walking vectors
/// of `kFeistelVectorLanes` lanes. A walk of every lane, then of the lanes
/// it left out of range, compacted (`vector.compressstore`) into
/// `pendingLanes` (their offsets from `begin`) and `pendingValues`, and so
/// on until none is left: the lanes walk 1 / p times on average
/// (p = n / 2^b > 1/2), where a vector walked until all of its lanes are in
/// range waits for the longest of them (about 4-6 walks for 128 lanes).
static void walkFeistelChunk(OpBuilder &b, Location loc, ArrayRef<Value> keys,
                             const FeistelDomain &domain, Value out, Value line,
                             Value begin, Value end, Value pendingLanes,
                             Value pendingValues) {
  Type i32 = b.getI32Type();
  Type i64 = b.getI64Type();
  auto lanesType = VectorType::get({kFeistelVectorLanes}, i32);
  auto wideType = VectorType::get({kFeistelVectorLanes}, i64);
  Value width = constIndex(b, loc, kFeistelVectorLanes);
  Value zero = constIndex(b, loc, 0);
  SmallVector<int32_t> iota(kFeistelVectorLanes);
  for (int64_t e = 0; e < kFeistelVectorLanes; ++e)
    iota[e] = e;
  Value steps = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(lanesType, ArrayRef(iota)));
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(lanesType, b.getI32IntegerAttr(0)));
  Value last = vector::BroadcastOp::create(b, loc, lanesType, domain.last);
  // The lanes of a vector below `count` (an index, from its first lane).
  auto keptBelow = [&](OpBuilder &b, Location loc, Value count) {
    Value left = arith::MinUIOp::create(b, loc, count, width);
    left = arith::IndexCastOp::create(b, loc, i32, left);
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult, steps,
        vector::BroadcastOp::create(b, loc, lanesType, left));
  };
  // One walk of the lanes `x` (`kept` of them real, at offsets `lanes` from
  // `begin`): those in range are stored (`storeDone`), the others appended
  // to the pending lists at `pending`; returns the new length of the lists.
  auto walk =
      [&](OpBuilder &b, Location loc, Value kept, Value lanes, Value x,
          Value pending,
          function_ref<void(OpBuilder &, Location, Value, Value)> storeDone)
      -> Value {
    Value y = feistelRounds(b, loc, keys, domain, x);
    Value outside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, y, last);
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, y, last);
    Value done = arith::AndIOp::create(b, loc, kept, inside);
    storeDone(b, loc, done, arith::ExtUIOp::create(b, loc, wideType, y));
    Value left = arith::AndIOp::create(b, loc, kept, outside);
    // (The builder taking an IntegerAttr alignment: docs/UpstreamBugs.md.)
    vector::CompressStoreOp::create(b, loc, pendingLanes, ValueRange{pending},
                                    left, lanes, IntegerAttr());
    vector::CompressStoreOp::create(b, loc, pendingValues, ValueRange{pending},
                                    left, y, IntegerAttr());
    // Their count: the population of the mask's bits.
    Value bits = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, b.getIntegerType(kFeistelVectorLanes)),
        left);
    Value word = vector::ExtractOp::create(b, loc, bits, ArrayRef<int64_t>{0});
    Value added = math::CtPopOp::create(b, loc, word);
    added = arith::TruncIOp::create(b, loc, i64, added);
    added = arith::IndexCastOp::create(b, loc, b.getIndexType(), added);
    return arith::AddIOp::create(b, loc, pending, added);
  };
  // The lanes of the vector from lane `j` below `end`: which are kept, and
  // their values (the others 0, in range).
  struct Lanes {
    Value kept, lanes, x;
  };
  auto lanesFrom = [&](OpBuilder &b, Location loc, Value j) {
    Value kept = keptBelow(b, loc, arith::SubIOp::create(b, loc, end, j));
    Value jv = arith::TruncIOp::create(b, loc, i32, indexToI64(b, loc, j));
    Value lanes = arith::AddIOp::create(
        b, loc, vector::BroadcastOp::create(b, loc, lanesType, jv), steps);
    Value x = arith::SelectOp::create(b, loc, kept, lanes, zeros);
    return Lanes{kept, lanes, x};
  };
  // Walks the lanes `x` (`kept` of them real; the others 0, in range) until
  // all are in range, and stores them (`store`): for one vector of lanes,
  // where another pass over the pending ones would cost as much.
  auto walkAll =
      [&](OpBuilder &b, Location loc, Value kept, Value x,
          function_ref<void(OpBuilder &, Location, Value, Value)> store) {
        x = feistelWalkLanes(b, loc, keys, domain, x);
        store(b, loc, kept, arith::ExtUIOp::create(b, loc, wideType, x));
      };
  // A chunk of one vector (a short line).
  Value span = arith::SubIOp::create(b, loc, end, begin);
  Value oneVector =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, span, width);
  scf::IfOp::create(
      b, loc, oneVector,
      [&](OpBuilder &b, Location loc) {
        Lanes from = lanesFrom(b, loc, begin);
        walkAll(b, loc, from.kept, from.x,
                [&](OpBuilder &b, Location loc, Value kept, Value wide) {
                  vector::MaskedStoreOp::create(
                      b, loc, out, ValueRange{line, begin}, kept, wide);
                });
        scf::YieldOp::create(b, loc);
      },
      [&](OpBuilder &b, Location loc) {
        // Every lane once, in order: stored in place.
        Value firstLane =
            arith::TruncIOp::create(b, loc, i32, indexToI64(b, loc, begin));
        auto first = scf::ForOp::create(
            b, loc, begin, end, width, ValueRange{zero},
            [&](OpBuilder &b, Location loc, Value j, ValueRange counts) {
              Lanes from = lanesFrom(b, loc, j);
              Value offsets = arith::SubIOp::create(
                  b, loc, from.lanes,
                  vector::BroadcastOp::create(b, loc, lanesType, firstLane));
              Value pending =
                  walk(b, loc, from.kept, offsets, from.x, counts[0],
                       [&](OpBuilder &b, Location loc, Value done, Value wide) {
                         vector::MaskedStoreOp::create(
                             b, loc, out, ValueRange{line, j}, done, wide);
                       });
              scf::YieldOp::create(b, loc, pending);
            });
        // The pending lanes again, compacted in place (a vector is read before
        // the lists' new end, never past it, is written), until none is left.
        scf::WhileOp::create(
            b, loc, TypeRange{b.getIndexType()}, first.getResults(),
            [&](OpBuilder &b, Location loc, ValueRange args) {
              Value any = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::ne, args[0], zero);
              scf::ConditionOp::create(b, loc, any, args);
            },
            [&](OpBuilder &b, Location loc, ValueRange args) {
              Value count = args[0];
              // The lanes of the pending lists from `t`, `kept` of them real.
              auto load = [&](OpBuilder &b, Location loc, Value t, Value kept) {
                Value offsets = vector::MaskedLoadOp::create(
                    b, loc, lanesType, pendingLanes, ValueRange{t}, kept, zeros,
                    IntegerAttr());
                Value x = vector::MaskedLoadOp::create(
                    b, loc, lanesType, pendingValues, ValueRange{t}, kept,
                    zeros, IntegerAttr());
                return std::make_pair(offsets, x);
              };
              auto scatter = [&](OpBuilder &b, Location loc, Value offsets,
                                 Value done, Value wide) {
                vector::ScatterOp::create(b, loc, Type(), out,
                                          ValueRange{line, begin}, offsets,
                                          done, wide, IntegerAttr());
              };
              Value oneVector = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::ule, count, width);
              auto step = scf::IfOp::create(
                  b, loc, oneVector,
                  [&](OpBuilder &b, Location loc) {
                    // Few enough for one vector.
                    Value kept = keptBelow(b, loc, count);
                    std::pair<Value, Value> lanes = load(b, loc, zero, kept);
                    walkAll(b, loc, kept, lanes.second,
                            [&](OpBuilder &b, Location loc, Value kept,
                                Value wide) {
                              scatter(b, loc, lanes.first, kept, wide);
                            });
                    scf::YieldOp::create(b, loc, zero);
                  },
                  [&](OpBuilder &b, Location loc) {
                    auto again = scf::ForOp::create(
                        b, loc, zero, count, width, ValueRange{zero},
                        [&](OpBuilder &b, Location loc, Value t,
                            ValueRange counts) {
                          Value kept = keptBelow(
                              b, loc, arith::SubIOp::create(b, loc, count, t));
                          std::pair<Value, Value> lanes = load(b, loc, t, kept);
                          Value offsets = lanes.first;
                          Value pending = walk(
                              b, loc, kept, offsets, lanes.second, counts[0],
                              [&](OpBuilder &b, Location loc, Value done,
                                  Value wide) {
                                scatter(b, loc, offsets, done, wide);
                              });
                          scf::YieldOp::create(b, loc, pending);
                        });
                    scf::YieldOp::create(b, loc, again.getResults());
                  });
              scf::YieldOp::create(b, loc, step.getResults());
            });
        scf::YieldOp::create(b, loc);
      });
}

/// A tensor of `type` ([lines..., K] of i64; K may be dynamic, given by
/// `size`, for a rank-1 type) whose line `l`, lane `j` is element `j` of the
/// Feistel permutation of [0, n_l) for the stream of the line, or -1 at and
/// past n_l or limit_l. `n` and `limit` (null: none) are an index (every
/// line) or a tensor of index of the lines' shape; `seed` and `offset` are
/// i64 or tensors covering a prefix of the lines. With `vectorLoops` (the
/// CPU): an `scf.parallel` over the lines and chunks of `kFeistelChunk`
/// lanes calling a routine that walks them (`walkFeistelChunk`).
/// Otherwise (the GPU) one `linalg.generic`: a thread per lane.
static Value feistelPermutation(OpBuilder &b, Location loc,
                                RankedTensorType type, Value size, Value n,
                                Value limit, Value seed, Value offset,
                                bool vectorLoops) {
  Type i64 = b.getI64Type();
  offset = offsetOrZero(b, loc, offset);
  int64_t rank = type.getRank();
  // The end of the lanes of a line: min(n, limit) (i64; n clamped).
  auto laneEnd = [&](OpBuilder &b, Location loc, Value nv, Value lv) {
    if (!lv)
      return nv;
    // One op per statement: the order of the ops must not depend on the
    // compiler's order of evaluating arguments.
    Value l = indexToI64(b, loc, lv);
    l = arith::MaxSIOp::create(b, loc, l, constInt(b, loc, i64, 0));
    return Value(arith::MinSIOp::create(b, loc, nv, l));
  };
  if (!vectorLoops) {
    SmallVector<Value> dynSizes;
    if (type.isDynamicDim(rank - 1))
      dynSizes.push_back(size);
    Value init = tensor::EmptyOp::create(b, loc, type, dynSizes);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (Value v : {n, limit, seed, offset})
      if (v && isa<RankedTensorType>(v.getType())) {
        inputs.push_back(v);
        auto dims = b.getMultiDimIdentityMap(rank).getResults().take_front(
            cast<RankedTensorType>(v.getType()).getRank());
        maps.push_back(AffineMap::get(rank, 0, dims, b.getContext()));
      }
    maps.push_back(b.getMultiDimIdentityMap(rank));
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{type}, inputs, ValueRange{init}, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          unsigned next = 0;
          auto operand = [&](Value v) {
            return v && isa<RankedTensorType>(v.getType()) ? args[next++] : v;
          };
          Value nv = operand(n), lv = operand(limit);
          Value s = operand(seed), o = operand(offset);
          SmallVector<Value> keys = feistelKeys(b, loc, s, o);
          Value j = linalg::IndexOp::create(b, loc, rank - 1);
          nv = clampFeistelN(b, loc, nv);
          linalg::YieldOp::create(
              b, loc,
              feistelLane(b, loc, keys, nv, laneEnd(b, loc, nv, lv), j));
        });
    return generic.getResult(0);
  }
  // The CPU form over the flattened lines.
  int64_t lines = 1;
  for (int64_t d : type.getShape().drop_back())
    lines *= d;
  Value lanes = type.isDynamicDim(rank - 1)
                    ? size
                    : constIndex(b, loc, type.getDimSize(rank - 1));
  auto bufferType = MemRefType::get({lines, type.getDimSize(rank - 1)}, i64);
  Value buffer = memref::AllocOp::create(
      b, loc, bufferType,
      type.isDynamicDim(rank - 1) ? ValueRange{size} : ValueRange{});
  auto rowsOf = [&](Value v) -> Value {
    auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
    if (!t)
      return nullptr;
    return bufferization::ToBufferOp::create(
        b, loc, MemRefType::get({t.getNumElements()}, t.getElementType()),
        flatten(b, loc, v), /*readOnly=*/true);
  };
  Value nRows = rowsOf(n), limitRows = rowsOf(limit), seedRows = rowsOf(seed),
        offsetRows = rowsOf(offset);
  // Lines per row of the per-row seeds and offsets.
  int64_t streamRows = 1;
  for (Value v : {seed, offset})
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      streamRows = t.getNumElements();
  int64_t linesPerStream = streamRows ? lines / streamRows : 1;

  // The routine: seed, offset, n (i64, clamped), the lanes' end (i64, at
  // most n), the buffer, the line, the chunk's first lane and its end.
  Type index = b.getIndexType();
  auto destType =
      MemRefType::get({ShapedType::kDynamic, ShapedType::kDynamic}, i64);
  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  assert(module && "a random op is lowered inside a module");
  FunctionType fnType = b.getFunctionType(
      {i64, i64, i64, i64, destType, index, index, index}, {});
  std::string name;
  func::FuncOp routine =
      findLineRoutine(module, "__sift_feistel", fnType, name);
  if (!routine) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    routine = func::FuncOp::create(b, loc, name, fnType);
    routine.setPrivate();
    routine->setAttr(kLineRoutineAttrName, b.getUnitAttr());
    b.setInsertionPointToStart(routine.addEntryBlock());
    ValueRange args = routine.getArguments();
    Value s = args[0], o = args[1], nv = args[2], endv = args[3], out = args[4],
          line = args[5], begin = args[6], end = args[7];
    Type i32 = b.getI32Type();
    Value one = constIndex(b, loc, 1);
    // Lanes [begin, validEnd) are in the permutation, [validEnd, end) not.
    Value validEnd = arith::MaxUIOp::create(
        b, loc, begin,
        arith::MinUIOp::create(b, loc, end, i64ToIndex(b, loc, endv)));
    SmallVector<Value> keys = feistelKeys(b, loc, s, o);
    // The lanes still out of range after a walk, and their values.
    auto pendingType = MemRefType::get({kFeistelChunk}, i32);
    Value pendingLanes = memref::AllocaOp::create(b, loc, pendingType);
    Value pendingValues = memref::AllocaOp::create(b, loc, pendingType);
    scf::IfOp::create(b, loc,
                      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            begin, validEnd),
                      [&](OpBuilder &b, Location loc) {
                        walkFeistelChunk(
                            b, loc, keys, feistelDomain(b, loc, nv), out, line,
                            begin, validEnd, pendingLanes, pendingValues);
                        scf::YieldOp::create(b, loc);
                      });
    Value minusOne = constInt(b, loc, i64, -1);
    scf::ForOp::create(
        b, loc, validEnd, end, one, ValueRange{},
        [&](OpBuilder &b, Location loc, Value j, ValueRange) {
          memref::StoreOp::create(b, loc, minusOne, out, ValueRange{line, j});
          scf::YieldOp::create(b, loc);
        });
    func::ReturnOp::create(b, loc);
  }
  Value chunks = arith::CeilDivUIOp::create(b, loc, lanes,
                                            constIndex(b, loc, kFeistelChunk));
  Value dest = memref::CastOp::create(b, loc, destType, buffer);
  scf::ParallelOp::create(
      b, loc, ValueRange{constIndex(b, loc, 0), constIndex(b, loc, 0)},
      ValueRange{constIndex(b, loc, lines), chunks},
      ValueRange{constIndex(b, loc, 1), constIndex(b, loc, 1)},
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        Value line = ivs[0];
        Value stream = arith::DivUIOp::create(
            b, loc, line, constIndex(b, loc, linesPerStream));
        auto rowValue = [&](Value rows, Value at, Value scalar) -> Value {
          if (!rows)
            return scalar;
          return memref::LoadOp::create(b, loc, rows, ValueRange{at});
        };
        Value s = rowValue(seedRows, stream, seed);
        Value o = rowValue(offsetRows, stream, offset);
        Value nv = clampFeistelN(b, loc, rowValue(nRows, line, n));
        Value endv = laneEnd(b, loc, nv, rowValue(limitRows, line, limit));
        Value begin = arith::MulIOp::create(b, loc, ivs[1],
                                            constIndex(b, loc, kFeistelChunk));
        Value chunkEnd = arith::AddIOp::create(
            b, loc, begin, constIndex(b, loc, kFeistelChunk));
        Value end = arith::MinUIOp::create(b, loc, chunkEnd, lanes);
        func::CallOp::create(b, loc, routine,
                             ValueRange{s, o, nv, endv, dest, line, begin, end})
            ->setAttr(kStaticWorkAttrName, b.getI64IntegerAttr(kFeistelChunk));
      });
  Value flat = bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get(bufferType.getShape(), i64), buffer,
      /*restrict=*/true, /*writable=*/true);
  if (rank == 1)
    return tensor::CastOp::create(
               b, loc, type,
               tensor::CollapseShapeOp::create(
                   b, loc, flat, ArrayRef<ReassociationIndices>{{0, 1}}))
        .getResult();
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : type.getShape())
    sizes.push_back(b.getIndexAttr(d));
  return unflatten(b, loc, flatten(b, loc, flat), type, sizes);
}

struct RandpermPrefixLowering : BlocksLowering<RandpermPrefixOp> {
  using BlocksLowering::BlocksLowering;
  LogicalResult matchAndRewrite(RandpermPrefixOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, feistelPermutation(rewriter, op.getLoc(),
                                              op.getType(), Value(), op.getN(),
                                              op.getLimit(), op.getSeed(),
                                              op.getOffset(), vectorLoops));
    return success();
  }
};

/// The largest `n` of randperm: its buffers (a few words per element) have
/// byte sizes far from overflowing 64 bits; larger ones cannot be allocated
/// on any machine anyway.
constexpr int64_t kMaxRandpermSize = int64_t(1) << 56;

struct RandpermLowering : BlocksLowering<RandpermOp> {
  using BlocksLowering::BlocksLowering;
  LogicalResult matchAndRewrite(RandpermOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value seed = op.getSeed();
    Value offset = offsetOrZero(rewriter, loc, op.getOffset());
    // n must lie in [0, the largest n]: otherwise a run-time error, and the
    // code goes on with n = 0 (an empty permutation, nothing allocated).
    if (failed(declareRuntimeReport(rewriter, op)))
      return failure();
    Value n = op.getN();
    int64_t maxSize = op.isFeistel() ? kMaxFeistelSize : kMaxRandpermSize;
    {
      OpBuilder &b = rewriter;
      Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                             n, constIndex(b, loc, 0));
      Value tooLarge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                             n, constIndex(b, loc, maxSize));
      emitRuntimeCheck(b, loc, negative, SIFT_RT_ERROR_RANDPERM_NEGATIVE, {n});
      emitRuntimeCheck(b, loc, tooLarge, SIFT_RT_ERROR_RANDPERM_TOO_LARGE,
                       {n, constInt(b, loc, b.getI64Type(), maxSize)});
      n = arith::SelectOp::create(
          b, loc, arith::OrIOp::create(b, loc, negative, tooLarge),
          constIndex(b, loc, 0), n);
    }
    if (op.isFeistel()) {
      auto type =
          RankedTensorType::get({ShapedType::kDynamic}, rewriter.getI64Type());
      Value perm =
          feistelPermutation(rewriter, loc, type, n, n,
                             /*limit=*/Value(), seed, offset, vectorLoops);
      replaceOpWithCasts(rewriter, op, perm);
      return success();
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
  patterns.add<RandpermLowering, RandpermPrefixLowering>(patterns.getContext(),
                                                         vectorLoops);
}
