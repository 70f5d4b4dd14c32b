//===- RadixSort.cpp - Radix sort and selection on sort keys ----*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "RadixSort.h"

#include "CodegenUtils.h"

#include "llvm/ADT/APFloat.h"

#include <limits>

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::lowering;

FailureOr<SortKeyInfo> lowering::getSortKeyInfo(Type elementType,
                                                bool isUnsigned) {
  unsigned width = 0;
  if (isUnsigned && !isa<IntegerType>(elementType))
    return failure();
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    if (!floatType.isF16() && !floatType.isBF16() && !floatType.isF32() &&
        !floatType.isF64())
      return failure();
    width = floatType.getWidth();
  } else if (auto intType = dyn_cast<IntegerType>(elementType)) {
    width = intType.getWidth();
    if (width > 64)
      return failure();
  } else {
    return failure();
  }
  return SortKeyInfo{width <= 32 ? 32u : 64u, width, isUnsigned};
}

static Value constAPInt(OpBuilder &b, Location loc, Type type,
                        const APInt &value) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

Value lowering::toSortKey(OpBuilder &b, Location loc, Value scalar,
                          const SortKeyInfo &info, bool descending) {
  unsigned width = info.sortBits;
  Type bitsType = b.getIntegerType(width);
  Type keyType = b.getIntegerType(info.keyBits);
  Value bits = scalar;
  if (auto floatType = dyn_cast<FloatType>(scalar.getType())) {
    // -0.0 becomes +0.0 and every NaN one quiet NaN, then the sign-magnitude
    // pattern becomes an unsigned order: negatives are inverted, the sign bit
    // of the others is set.
    bits = arith::BitcastOp::create(b, loc, bitsType, scalar);
    Value zero =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, 0.0));
    Value isZero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, scalar, zero);
    Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                        scalar, scalar);
    APInt nan =
        APFloat::getQNaN(floatType.getFloatSemantics()).bitcastToAPInt();
    bits = arith::SelectOp::create(b, loc, isZero,
                                   constInt(b, loc, bitsType, 0), bits);
    bits = arith::SelectOp::create(b, loc, isNan,
                                   constAPInt(b, loc, bitsType, nan), bits);
    Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                           bits, constInt(b, loc, bitsType, 0));
    Value mask = arith::SelectOp::create(
        b, loc, negative, constInt(b, loc, bitsType, -1),
        constAPInt(b, loc, bitsType, APInt::getSignMask(width)));
    bits = arith::XOrIOp::create(b, loc, bits, mask);
  } else if (width > 1 && !info.isUnsigned) {
    // Signed order: flip the sign bit. (`i1` is false < true as it is, and
    // unsigned order is the bits' own.)
    bits = arith::XOrIOp::create(
        b, loc, bits, constAPInt(b, loc, bitsType, APInt::getSignMask(width)));
  }
  Value key = width < info.keyBits
                  ? Value(arith::ExtUIOp::create(b, loc, keyType, bits))
                  : bits;
  if (descending)
    key = arith::XOrIOp::create(
        b, loc, key,
        constAPInt(b, loc, keyType,
                   APInt::getLowBitsSet(info.keyBits, info.sortBits)));
  return key;
}

/// Reads the key of element `i` (an index).
using KeyFn = function_ref<Value(OpBuilder &, Location, Value)>;

/// A `KeyFn` reading a 1-D tensor of keys.
static auto readKeys(Value keys) {
  return [keys](OpBuilder &b, Location loc, Value i) -> Value {
    return tensor::ExtractOp::create(b, loc, keys, i);
  };
}

/// The bitwise OR and AND of the keys of elements [0, n): the bits where they
/// differ are the only ones that vary among the keys.
static std::pair<Value, Value> orAndOf(OpBuilder &b, Location loc, Type keyType,
                                       Value n, KeyFn keyAt) {
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, c0, n, c1,
      ValueRange{constInt(b, loc, keyType, 0), constInt(b, loc, keyType, -1)},
      [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
        Value key = keyAt(b, loc, i);
        scf::YieldOp::create(
            b, loc,
            ValueRange{arith::OrIOp::create(b, loc, it[0], key),
                       arith::AndIOp::create(b, loc, it[1], key)});
      });
  return {loop.getResult(0), loop.getResult(1)};
}

namespace {
/// The digits of a radix pass: `bits` wide, counted in histograms of
/// 2^bits i64 counts spread over `copies` sub-histograms (element i counts
/// in copy i % copies: repeated digits then increment different counters,
/// not one counter through a store-to-load chain).
struct Digits {
  unsigned bits;
  int64_t copies;
  int64_t bins() const { return int64_t(1) << bits; }
  int64_t mask() const { return bins() - 1; }
  /// The flat size of one digit's histogram, its copies included.
  int64_t histSize() const { return bins() * copies; }
};
} // namespace

/// Byte digits, four copies: the selections' (and short sorts') digits.
static constexpr Digits kByteDigits{8, 4};

/// 11-bit digits, one copy: a sort of 32-bit keys in three passes instead
/// of four. Its histograms (2048 counts a digit) cost more than they save
/// on short lines; random digits of 2048 values rarely repeat back to back,
/// so one copy (48 KB for three digits) does.
static constexpr Digits kWideDigits{11, 1};

/// Lines at least this long sort with `kWideDigits`. Measured in C on Zen 5
/// (random 32-bit keys packed with their positions, the histograms
/// cleared each time): 11-bit digits take 1.32x the time of 8-bit ones
/// at 1024 keys, 1.01x at 4096, 0.87x at 16384, 0.84x at 65536 and 1e5.
static constexpr int64_t kWideDigitsMinLength = 16384;

/// Whether the digit at `shift` (a value of the key type) of `bits` (a
/// key-typed value) is not zero.
static Value digitNonZero(OpBuilder &b, Location loc, Value bits, Value shift,
                          Digits digits = kByteDigits) {
  Type keyType = bits.getType();
  Value d =
      arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, bits, shift),
                            constInt(b, loc, keyType, digits.mask()));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, d,
                               constInt(b, loc, keyType, 0));
}

static Value digitNonZero(OpBuilder &b, Location loc, Value bits,
                          unsigned shift, Digits digits = kByteDigits) {
  return digitNonZero(b, loc, bits, constInt(b, loc, bits.getType(), shift),
                      digits);
}

/// Where element `i`'s sub-histogram starts: bins * (i % copies).
static Value copyOffset(OpBuilder &b, Location loc, Value i, Digits digits) {
  if (digits.copies == 1)
    return constIndex(b, loc, 0);
  Value copy =
      arith::AndIOp::create(b, loc, i, constIndex(b, loc, digits.copies - 1));
  return arith::MulIOp::create(b, loc, copy, constIndex(b, loc, digits.bins()));
}

/// `hist` with its count at `at` (an index) incremented.
static Value incrementCount(OpBuilder &b, Location loc, Value hist, Value at) {
  Value c = tensor::ExtractOp::create(b, loc, hist, at);
  c = arith::AddIOp::create(b, loc, c, constInt(b, loc, b.getI64Type(), 1));
  return tensor::InsertOp::create(b, loc, c, hist, at);
}

/// The histogram of `digitOf(keyAt(i))` (an index in [0, 256)) over i in
/// [0, n): a flat tensor of the `kByteDigits` sub-histograms.
static Value
histogramOf(OpBuilder &b, Location loc, Value n, KeyFn keyAt,
            function_ref<Value(OpBuilder &, Location, Value)> digitOf) {
  Type i64 = b.getI64Type();
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  Value hist0 = emptyTensor(b, loc, {b.getIndexAttr(kByteDigits.histSize())},
                            i64, constInt(b, loc, i64, 0));
  auto hist = scf::ForOp::create(
      b, loc, c0, n, c1, ValueRange{hist0},
      [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
        Value key = keyAt(b, loc, i);
        Value base = copyOffset(b, loc, i, kByteDigits);
        Value at = arith::AddIOp::create(b, loc, base, digitOf(b, loc, key));
        scf::YieldOp::create(b, loc, incrementCount(b, loc, it[0], at));
      });
  return hist.getResult(0);
}

/// The histograms of the `numDigits` digits (of `digits`' width) of the
/// keys of elements [0, n) (read with `keyAt`) from digit `firstDigit` up
/// (the low ones by default), in one pass over them: a flat tensor of
/// `numDigits` histograms (digit `firstDigit + p` at offset
/// `digits.histSize() * p`, each as `histogramOf`'s with `digits`' bins and
/// copies); and the bitwise OR and AND of the keys (`orAndOf`'s).
static std::tuple<Value, Value, Value>
digitHistogramsOf(OpBuilder &b, Location loc, Type keyType, Value n,
                  unsigned numDigits, KeyFn keyAt, unsigned firstDigit = 0,
                  Digits digits = kByteDigits) {
  Type i64 = b.getI64Type();
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  Value hist0 =
      emptyTensor(b, loc, {b.getIndexAttr(digits.histSize() * numDigits)}, i64,
                  constInt(b, loc, i64, 0));
  auto loop = scf::ForOp::create(
      b, loc, c0, n, c1,
      ValueRange{hist0, constInt(b, loc, keyType, 0),
                 constInt(b, loc, keyType, -1)},
      [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
        Value key = keyAt(b, loc, i);
        Value base = copyOffset(b, loc, i, digits);
        Value hist = it[0];
        for (unsigned p = 0; p < numDigits; ++p) {
          Value d = arith::AndIOp::create(
              b, loc,
              arith::ShRUIOp::create(
                  b, loc, key,
                  constInt(b, loc, keyType, digits.bits * (firstDigit + p))),
              constInt(b, loc, keyType, digits.mask()));
          Value at = arith::AddIOp::create(
              b, loc,
              arith::AddIOp::create(b, loc, base,
                                    constIndex(b, loc, digits.histSize() * p)),
              arith::IndexCastUIOp::create(b, loc, b.getIndexType(), d));
          hist = incrementCount(b, loc, hist, at);
        }
        scf::YieldOp::create(
            b, loc,
            ValueRange{hist, arith::OrIOp::create(b, loc, it[1], key),
                       arith::AndIOp::create(b, loc, it[2], key)});
      });
  return {loop.getResult(0), loop.getResult(1), loop.getResult(2)};
}

/// The count of digit `d` (an index) in a `histogramOf` result, or in the
/// histogram at `offset` (an index) of a `digitHistogramsOf` result of
/// `digits`.
static Value countOf(OpBuilder &b, Location loc, Value hist, Value d,
                     Value offset = {}, Digits digits = kByteDigits) {
  if (offset)
    d = arith::AddIOp::create(b, loc, d, offset);
  Value sum;
  for (int64_t copy = 0; copy < digits.copies; ++copy) {
    Value at = arith::AddIOp::create(b, loc, d,
                                     constIndex(b, loc, digits.bins() * copy));
    Value c = tensor::ExtractOp::create(b, loc, hist, ValueRange{at});
    sum = sum ? arith::AddIOp::create(b, loc, sum, c).getResult() : c;
  }
  return sum;
}

/// The digit (an index) whose run in `hist` (a `histogramOf` result) holds
/// the `need`-th key (an i64, 1-based), and how many keys come before that
/// run (an i64).
static std::pair<Value, Value> findDigit(OpBuilder &b, Location loc, Value hist,
                                         Value need) {
  Type i64 = b.getI64Type();
  Value c0 = constIndex(b, loc, 0), zero64 = constInt(b, loc, i64, 0);
  auto scan = scf::ForOp::create(
      b, loc, c0, constIndex(b, loc, 256), constIndex(b, loc, 1),
      ValueRange{zero64, c0, zero64},
      [&](OpBuilder &b, Location loc, Value d, ValueRange it) {
        Value end =
            arith::AddIOp::create(b, loc, it[0], countOf(b, loc, hist, d));
        Value hit = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, it[0],
                                  need),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, need,
                                  end));
        scf::YieldOp::create(
            b, loc,
            ValueRange{end, arith::SelectOp::create(b, loc, hit, d, it[1]),
                       arith::SelectOp::create(b, loc, hit, it[0], it[2])});
      });
  return {scan.getResult(1), scan.getResult(2)};
}

Type lowering::positionType(OpBuilder &b, int64_t length) {
  return !ShapedType::isDynamic(length) &&
                 length <= std::numeric_limits<int32_t>::max()
             ? Type(b.getI32Type())
             : Type(b.getI64Type());
}

static std::pair<Value, Value> radixArgsortBody(OpBuilder &b, Location loc,
                                                Value keys, Value n,
                                                unsigned sortBits,
                                                bool withKeys);

std::pair<Value, Value> lowering::radixArgsort(OpBuilder &b, Location loc,
                                               Value keys, Value n,
                                               unsigned sortBits,
                                               bool withKeys) {
  // One routine per key type and length (and results), shared by every
  // sort of them.
  SmallVector<Value> sorted =
      buildOutlinable(b, loc, "radix_argsort", [&](OpBuilder &b, Location loc) {
        auto [sortedKeys, perm] =
            radixArgsortBody(b, loc, keys, n, sortBits, withKeys);
        if (!withKeys)
          return SmallVector<Value>{perm};
        return SmallVector<Value>{sortedKeys, perm};
      });
  if (!withKeys)
    return {Value(), sorted[0]};
  return {sorted[0], sorted[1]};
}

static std::pair<Value, Value> radixArgsortBody(OpBuilder &b, Location loc,
                                                Value keys, Value n,
                                                unsigned sortBits,
                                                bool withKeys) {
  Type keyType = cast<RankedTensorType>(keys.getType()).getElementType();
  Type i64 = b.getI64Type();
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  Value zero64 = constInt(b, loc, i64, 0), one64 = constInt(b, loc, i64, 1);
  // The positions travel through the passes as i32 when every one fits
  // (a static length below 2^31): each pass then moves 16 bytes an element
  // instead of 24. They widen to i64 once, after the last pass.
  Type idxType =
      positionType(b, cast<RankedTensorType>(keys.getType()).getDimSize(0));
  bool narrow = idxType != i64;
  // Keys of at most 32 bits travel with their i32 position in one i64 (the
  // position in the high half): each pass then loads and stores one 8-byte
  // element instead of two, a move per element.
  bool packed = narrow && keyType.getIntOrFloatBitWidth() <= 32;
  // Wide digits on long lines of static length whose keys travel packed
  // (fewer passes), byte digits on the others (smaller histograms to clear
  // and scan). A pass that moves keys and positions apart writes two
  // streams a digit, which 2048 digits spread over more lines than the L1
  // holds: the unique of 1e6 i64 values below 1e5 took 13.5 ms with
  // 11-bit digits (two passes) and 12.0 with byte ones (three).
  int64_t staticLength = cast<RankedTensorType>(keys.getType()).getDimSize(0);
  Digits digits =
      packed && staticLength >= kWideDigitsMinLength && sortBits > 16
          ? kWideDigits
          : kByteDigits;
  Value numBins = constIndex(b, loc, digits.bins());
  auto keyOfLanes = [&](OpBuilder &b, Location loc, ValueRange lane) -> Value {
    if (!packed)
      return lane[0];
    return arith::TruncIOp::create(b, loc, keyType, lane[0]);
  };
  // What the passes move: (keys, positions), or the packed pairs, which
  // the first pass makes from the keys as it moves them (it always runs).
  SmallVector<Value> lanes{keys};
  if (!packed) {
    lanes.push_back(generateLine(
        b, loc, n, idxType, [&](OpBuilder &b, Location loc, Value i) {
          return arith::IndexCastUIOp::create(b, loc, idxType, i).getResult();
        }));
  }
  // Every digit's histogram in one pass over the keys (a digit's counts do
  // not depend on the order the passes leave the keys in), with the bits
  // that vary among the keys: a digit in which every key agrees would be an
  // identity pass, so it is skipped.
  unsigned numPasses = (sortBits + digits.bits - 1) / digits.bits;
  auto [hists, orAll, andAll] = digitHistogramsOf(
      b, loc, keyType, n, numPasses, readKeys(keys), /*firstDigit=*/0, digits);
  Value varying = arith::XOrIOp::create(b, loc, orAll, andAll);
  // One stable counting-sort pass per digit, least significant first.
  // The passes are unrolled: each reads the previous pass's tensors and
  // writes fresh ones, so bufferization needs no loop-carried buffer swap.
  for (unsigned shiftBits = 0; shiftBits < sortBits; shiftBits += digits.bits) {
    Value histOffset = constIndex(
        b, loc, digits.histSize() * int64_t(shiftBits / digits.bits));
    Value shift = constInt(b, loc, keyType, shiftBits);
    Value digitMask = constInt(b, loc, keyType, digits.mask());
    auto digitOf = [&](OpBuilder &b, Location loc, Value key) -> Value {
      Value d = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, key, shift), digitMask);
      return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), d);
    };
    SmallVector<Value> cur = lanes;
    // The first packed pass reads the keys and packs each with its
    // position; the others move what the pass before wrote.
    bool packing = packed && shiftBits == 0;
    SmallVector<Type> laneTypes = llvm::to_vector(ValueRange(cur).getTypes());
    if (packing)
      laneTypes = {RankedTensorType::get(
          cast<RankedTensorType>(keys.getType()).getShape(), i64)};
    auto readElems = [&](OpBuilder &b, Location loc, Value i) {
      SmallVector<Value> elems;
      for (Value lane : cur)
        elems.push_back(tensor::ExtractOp::create(b, loc, lane, i));
      if (!packing)
        return std::make_pair(elems, keyOfLanes(b, loc, elems));
      Value key = elems[0];
      Value pos = arith::ShLIOp::create(
          b, loc, arith::IndexCastUIOp::create(b, loc, i64, i),
          constInt(b, loc, i64, 32));
      Value pair = arith::OrIOp::create(
          b, loc, pos, arith::ExtUIOp::create(b, loc, i64, key));
      return std::make_pair(SmallVector<Value>{pair}, key);
    };
    auto runPass = [&](OpBuilder &b, Location loc) {
      // Exclusive prefix sum of the digit's histogram: where each
      // digit's run starts.
      Value starts0 = emptyTensor(b, loc, {b.getIndexAttr(digits.bins())}, i64);
      auto starts = scf::ForOp::create(
          b, loc, c0, numBins, c1, ValueRange{starts0, zero64},
          [&](OpBuilder &b, Location loc, Value d, ValueRange it) {
            Value c = countOf(b, loc, hists, d, histOffset, digits);
            Value s = tensor::InsertOp::create(b, loc, it[1], it[0], d);
            Value acc = arith::AddIOp::create(b, loc, it[1], c);
            scf::YieldOp::create(b, loc, ValueRange{s, acc});
          });

      // Stable scatter in input order, into buffers of the keys' static
      // length where they have one (n may be shorter: the first n lanes
      // are sorted, the rest are not written).
      SmallVector<Value> init;
      OpFoldResult laneCount = getAsOpFoldResult(n);
      if (!ShapedType::isDynamic(staticLength))
        laneCount = b.getIndexAttr(staticLength);
      for (Type t : laneTypes)
        init.push_back(emptyTensor(b, loc, {laneCount},
                                   cast<RankedTensorType>(t).getElementType()));
      init.push_back(starts.getResult(0));
      auto scatter = scf::ForOp::create(
          b, loc, c0, n, c1, init,
          [&](OpBuilder &b, Location loc, Value i, ValueRange it) {
            auto [elems, key] = readElems(b, loc, i);
            Value d = digitOf(b, loc, key);
            Value startsNow = it.back();
            Value pos = tensor::ExtractOp::create(b, loc, startsNow, d);
            Value at = i64ToIndex(b, loc, pos);
            SmallVector<Value> next;
            for (auto [elem, out] : llvm::zip(elems, it.drop_back()))
              next.push_back(tensor::InsertOp::create(b, loc, elem, out, at));
            Value bumped = arith::AddIOp::create(b, loc, pos, one64);
            next.push_back(
                tensor::InsertOp::create(b, loc, bumped, startsNow, d));
            scf::YieldOp::create(b, loc, next);
          });
      SmallVector<Value> moved;
      for (auto [result, t] :
           llvm::zip(scatter.getResults().drop_back(), laneTypes))
        moved.push_back(castTo(b, loc, result, t));
      return moved;
    };
    if (packing) {
      lanes = runPass(b, loc);
      continue;
    }
    auto pass = scf::IfOp::create(
        b, loc, digitNonZero(b, loc, varying, shiftBits, digits),
        [&](OpBuilder &b, Location loc) {
          scf::YieldOp::create(b, loc, runPass(b, loc));
        },
        [&](OpBuilder &b, Location loc) { scf::YieldOp::create(b, loc, cur); });
    lanes = llvm::to_vector_of<Value>(pass.getResults());
  }
  if (packed) {
    Value pairs = lanes[0];
    Value sortedKeys;
    if (withKeys)
      sortedKeys =
          mapLine(b, loc, pairs, keyType,
                  [&](OpBuilder &b, Location loc, Value x, Value) -> Value {
                    return arith::TruncIOp::create(b, loc, keyType, x);
                  });
    Value perm = mapLine(
        b, loc, pairs, i64,
        [&](OpBuilder &b, Location loc, Value x, Value) -> Value {
          return arith::ShRUIOp::create(b, loc, x, constInt(b, loc, i64, 32));
        });
    return {sortedKeys, perm};
  }
  Value inIdx = lanes[1];
  if (narrow)
    inIdx = mapLine(b, loc, inIdx, i64,
                    [](OpBuilder &b, Location loc, Value x, Value) -> Value {
                      return arith::ExtUIOp::create(b, loc, b.getI64Type(), x);
                    });
  return {lanes[0], inIdx};
}

std::pair<Value, Value> lowering::radixSelect(OpBuilder &b, Location loc,
                                              Type keyType, Value n, Value k,
                                              unsigned sortBits, KeyFn keyAt,
                                              OpFoldResult capacity) {
  Type indexType = b.getIndexType();
  Value c0 = constIndex(b, loc, 0), c1 = constIndex(b, loc, 1);
  Value zeroKey = constInt(b, loc, keyType, 0);
  Value onesKey = constInt(b, loc, keyType, -1);
  // The candidates are the keys that agree with the k-th key on the digits
  // found so far: all n keys (read with `keyAt`) until a digit that varies
  // among them is found; from then on, the `m` keys compacted at the front
  // of `cand`. The OR and AND of the candidates tell which bits still vary
  // among them.
  auto [orAll, andAll] = orAndOf(b, loc, keyType, n, keyAt);
  if (!capacity)
    capacity = getAsOpFoldResult(n);
  Value cand = emptyTensor(b, loc, {capacity}, keyType, /*fillValue=*/{});
  // One step per 8-bit digit, most significant first, as a loop: the
  // step's code (a histogram and a filter, each in two versions) is written
  // once rather than once per digit, which made the top-k routine the
  // largest function LLVM compiled.
  unsigned numDigits = (sortBits + 7) / 8;
  Value lastDigit = constIndex(b, loc, numDigits - 1);
  auto digits = scf::ForOp::create(
      b, loc, c0, constIndex(b, loc, numDigits), c1,
      ValueRange{cand, n, k, zeroKey, orAll, andAll},
      [&](OpBuilder &b, Location loc, Value step, ValueRange it) {
        Value curCand = it[0], curM = it[1], curNeed = it[2];
        Value curOr = it[4], curAnd = it[5];
        Value shift = arith::IndexCastUIOp::create(
            b, loc, keyType,
            arith::MulIOp::create(
                b, loc, arith::SubIOp::create(b, loc, lastDigit, step),
                constIndex(b, loc, 8)));
        Value digitMask = constInt(b, loc, keyType, 255);
        auto digitOf = [&](OpBuilder &b, Location loc, Value key) -> Value {
          return arith::AndIOp::create(
              b, loc, arith::ShRUIOp::create(b, loc, key, shift), digitMask);
        };
        Value varies = digitNonZero(
            b, loc, arith::XOrIOp::create(b, loc, curOr, curAnd), shift);
        // `build(fromKeys)` in two versions: reading the candidates with
        // `keyAt` (none compacted yet: m == n) or from `cand`.
        auto bothWays =
            [&](OpBuilder &b, Location loc,
                function_ref<SmallVector<Value>(OpBuilder &, Location, bool)>
                    build) -> SmallVector<Value> {
          Value fromKeys =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, curM, n);
          auto twoWays = scf::IfOp::create(
              b, loc, fromKeys,
              [&](OpBuilder &b, Location loc) {
                scf::YieldOp::create(b, loc, build(b, loc, true));
              },
              [&](OpBuilder &b, Location loc) {
                scf::YieldOp::create(b, loc, build(b, loc, false));
              });
          return llvm::to_vector_of<Value>(twoWays.getResults());
        };
        auto found = scf::IfOp::create(
            b, loc, varies,
            [&](OpBuilder &b, Location loc) {
              // Histogram of the digit among the candidates.
              Value hist = bothWays(
                  b, loc, [&](OpBuilder &b, Location loc, bool fromKeys) {
                    auto read = readKeys(curCand);
                    return SmallVector<Value>{histogramOf(
                        b, loc, curM, fromKeys ? keyAt : KeyFn(read),
                        [&](OpBuilder &b, Location loc, Value key) {
                          return Value(arith::IndexCastUIOp::create(
                              b, loc, indexType, digitOf(b, loc, key)));
                        })};
                  })[0];
              auto [digit, before] = findDigit(b, loc, hist, curNeed);
              Value selDigit =
                  arith::IndexCastUIOp::create(b, loc, keyType, digit);
              Value newNeed = arith::SubIOp::create(b, loc, curNeed, before);
              // Keep the candidates with that digit, compacted in place (the
              // write index never passes the read index).
              SmallVector<Value> kept = bothWays(
                  b, loc, [&](OpBuilder &b, Location loc, bool fromKeys) {
                    auto filter = scf::ForOp::create(
                        b, loc, c0, curM, c1,
                        ValueRange{curCand, c0, zeroKey, onesKey},
                        [&](OpBuilder &b, Location loc, Value i,
                            ValueRange it) {
                          Value key = fromKeys
                                          ? keyAt(b, loc, i)
                                          : Value(tensor::ExtractOp::create(
                                                b, loc, it[0], i));
                          Value match = arith::CmpIOp::create(
                              b, loc, arith::CmpIPredicate::eq,
                              digitOf(b, loc, key), selDigit);
                          Value out = tensor::InsertOp::create(b, loc, key,
                                                               it[0], it[1]);
                          Value j = arith::AddIOp::create(
                              b, loc, it[1],
                              arith::SelectOp::create(b, loc, match, c1, c0));
                          Value o = arith::OrIOp::create(
                              b, loc, it[2],
                              arith::SelectOp::create(b, loc, match, key,
                                                      zeroKey));
                          Value a = arith::AndIOp::create(
                              b, loc, it[3],
                              arith::SelectOp::create(b, loc, match, key,
                                                      onesKey));
                          scf::YieldOp::create(b, loc,
                                               ValueRange{out, j, o, a});
                        });
                    return llvm::to_vector_of<Value>(filter.getResults());
                  });
              scf::YieldOp::create(b, loc,
                                   ValueRange{kept[0], kept[1], newNeed,
                                              selDigit, kept[2], kept[3]});
            },
            [&](OpBuilder &b, Location loc) {
              // Every candidate has this digit.
              scf::YieldOp::create(b, loc,
                                   ValueRange{curCand, curM, curNeed,
                                              digitOf(b, loc, curAnd), curOr,
                                              curAnd});
            });
        Value threshold = arith::OrIOp::create(
            b, loc, it[3],
            arith::ShLIOp::create(b, loc, found.getResult(3), shift));
        scf::YieldOp::create(b, loc,
                             ValueRange{found.getResult(0), found.getResult(1),
                                        found.getResult(2), threshold,
                                        found.getResult(4),
                                        found.getResult(5)});
      });
  Value threshold = digits.getResult(3), need = digits.getResult(2);
  return {threshold, need};
}

RadixSplit lowering::radixSplit(OpBuilder &b, Location loc, Type keyType,
                                Value n, Value k, unsigned sortBits,
                                KeyFn keyAt) {
  // The most significant digit in which the keys differ (digit 0 when they
  // are all equal). One pass counts the top digit and finds the bits that
  // vary: where the top digit varies (random keys), that histogram is the
  // split's; else a second pass counts the digit found.
  unsigned topDigit = (sortBits - 1) / 8;
  auto [topHist, orAll, andAll] =
      digitHistogramsOf(b, loc, keyType, n, 1, keyAt, topDigit);
  Value varying = arith::XOrIOp::create(b, loc, orAll, andAll);
  Value shift = constInt(b, loc, keyType, 0);
  for (unsigned shiftBits = 8; shiftBits < sortBits; shiftBits += 8)
    shift = arith::SelectOp::create(
        b, loc, digitNonZero(b, loc, varying, shiftBits),
        constInt(b, loc, keyType, shiftBits), shift);
  Value digitMask = constInt(b, loc, keyType, 255);
  Value atTop = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, shift,
                                      constInt(b, loc, keyType, 8 * topDigit));
  auto hist = scf::IfOp::create(
      b, loc, atTop,
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(b, loc, topHist);
      },
      [&](OpBuilder &b, Location loc) {
        scf::YieldOp::create(
            b, loc,
            histogramOf(b, loc, n, keyAt,
                        [&](OpBuilder &b, Location loc, Value key) -> Value {
                          Value d = arith::AndIOp::create(
                              b, loc,
                              arith::ShRUIOp::create(b, loc, key, shift),
                              digitMask);
                          return arith::IndexCastUIOp::create(
                              b, loc, b.getIndexType(), d);
                        }));
      });
  auto [digit, below] = findDigit(b, loc, hist.getResult(0), k);
  return {shift, arith::IndexCastUIOp::create(b, loc, keyType, digit), below,
          countOf(b, loc, hist.getResult(0), digit)};
}
