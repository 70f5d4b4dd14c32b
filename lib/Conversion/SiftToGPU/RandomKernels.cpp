//===- RandomKernels.cpp - Philox words, a block per thread ---------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The random keys that randperm's and sample_balanced's sorts order, as one
// kernel (--convert-sift-to-gpu makes the `philox_words` call,
// --sift-gpu-expand-kernels its launch): rows [R, n] of i32 words, row
// r = (p, q), p = r / rows_per_seed and q = r % rows_per_seed, holding
// words 0 .. n-1 of the Philox stream (seed[p], offset[p] + q). `seed` and
// `offset` are each one i64 for every row or a 1-D buffer of one per p.
//
// A thread computes one Philox4x32-10 block (`lowering::philoxBlock`, the
// CPU's arithmetic: bit-identical by construction) and stores its 4 words,
// those below n: a row of n words is ceil(n / 4) threads, where a word per
// element computed each block 4 times, and the last, partial block needs
// no second loop (or launch). The threads of all rows form one launch of
// blocks of `threads`, so a short row does not leave a block idle.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "../SiftToLinalg/Utils/CodegenUtils.h"
#include "../SiftToLinalg/Utils/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::gpu_kernels;

namespace {

/// The kernel call's attribute: rows per seed (at least 1).
constexpr llvm::StringLiteral kRowsPerSeedAttr = "rows_per_seed";

/// The operands of a `philox_words` call.
struct PhiloxCall {
  Value out;          ///< [R, n] i32
  Value seed, offset; ///< i64, or a 1-D buffer of i64
  int64_t rowsPerSeed;
};

bool isSeed(Value v) {
  if (v.getType().isInteger(64))
    return true;
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getRank() == 1 && type.getElementType().isInteger(64);
}

FailureOr<PhiloxCall> parsePhiloxCall(func::CallOp call) {
  auto rowsPerSeed = call->getAttrOfType<IntegerAttr>(kRowsPerSeedAttr);
  ValueRange args = call.getOperands();
  auto out =
      args.empty() ? MemRefType() : dyn_cast<MemRefType>(args[0].getType());
  if (!rowsPerSeed || rowsPerSeed.getInt() < 1 || args.size() != 3 || !out ||
      out.getRank() != 2 || !out.getElementType().isInteger(32) ||
      !isSeed(args[1]) || !isSeed(args[2]))
    return call.emitOpError(
        "sift-gpu-expand-kernels: the philox_words kernel takes the [R, n] "
        "i32 buffer of the words, then the seed and the offset (each an i64 "
        "or a 1-D buffer of i64), and rows_per_seed of at least 1");
  return PhiloxCall{args[0], args[1], args[2], rowsPerSeed.getInt()};
}

} // namespace

Value gpu_kernels::buildPhiloxWords(OpBuilder &b, Location loc,
                                    Operation *anchor, OpFoldResult rows,
                                    OpFoldResult n, Value seed, Value offset,
                                    int64_t rowsPerSeed) {
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  dispatchIndexOpFoldResults({rows, n}, dynamic, shape);
  Value out = memref::AllocOp::create(
      b, loc, MemRefType::get(shape, b.getI32Type()), dynamic);
  auto operand = [&](Value v) {
    return isa<RankedTensorType>(v.getType()) ? toBuffer(b, loc, v) : v;
  };
  createKernelCall(
      b, loc, anchor, "philox_words", {out, operand(seed), operand(offset)},
      {b.getNamedAttr(kRowsPerSeedAttr, b.getI64IntegerAttr(rowsPerSeed))});
  return toTensor(b, loc, out);
}

LogicalResult gpu_kernels::expandPhiloxCall(OpBuilder &b, func::CallOp call,
                                            int64_t threads) {
  FailureOr<PhiloxCall> parsed = parsePhiloxCall(call);
  if (failed(parsed))
    return failure();
  const PhiloxCall &c = *parsed;
  Location loc = call.getLoc();
  Value rows = extentOf(b, loc, c.out, 0), n = extentOf(b, loc, c.out, 1);
  Value c4 = constIndex(b, loc, 4);
  Value blocksPerRow = b.createOrFold<arith::CeilDivUIOp>(loc, n, c4);
  Value total = b.createOrFold<arith::MulIOp>(loc, rows, blocksPerRow);
  buildElementLaunch(b, loc, total, threads, [&](OpBuilder &b, Value t) {
    Type i64 = b.getI64Type();
    Value row = arith::DivUIOp::create(b, loc, t, blocksPerRow);
    Value block = arith::RemUIOp::create(b, loc, t, blocksPerRow);
    Value perSeed = constIndex(b, loc, c.rowsPerSeed);
    Value p = arith::DivUIOp::create(b, loc, row, perSeed);
    Value q = arith::RemUIOp::create(b, loc, row, perSeed);
    auto ofRow = [&](Value v) -> Value {
      if (isa<MemRefType>(v.getType()))
        return memref::LoadOp::create(b, loc, v, ValueRange{p});
      return v;
    };
    Value stream = arith::AddIOp::create(
        b, loc, ofRow(c.offset), arith::IndexCastUIOp::create(b, loc, i64, q));
    std::array<Value, 4> words =
        lowering::philoxBlock(b, loc, ofRow(c.seed), stream,
                              arith::IndexCastUIOp::create(b, loc, i64, block));
    Value first = arith::MulIOp::create(b, loc, block, c4);
    for (int64_t w = 0; w < 4; ++w) {
      Value col = arith::AddIOp::create(b, loc, first, constIndex(b, loc, w));
      auto store = [&](OpBuilder &b) {
        memref::StoreOp::create(b, loc, words[w], c.out, ValueRange{row, col});
      };
      // Word 0 of a block is always below n.
      if (w == 0)
        store(b);
      else
        buildIf(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, n),
            store);
    }
  });
  return success();
}
