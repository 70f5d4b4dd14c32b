//===- CallingConvention.cpp - Host values <-> memref descriptors -*- C++ -*-=//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "CallingConvention.h"

#include "Signature.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"

#include <cstring>

namespace jit = mlir::sift::jit;
using jit::DType;
using jit::ErrorCode;
using jit::PackedCall;
using jit::Tensor;
using jit::TensorView;
using jit::ValueType;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

void jit::markInputsReadOnly(mlir::ModuleOp module,
                             llvm::ArrayRef<FunctionSignature> signatures) {
  for (const FunctionSignature &sig : signatures) {
    auto func = module.lookupSymbol<mlir::func::FuncOp>(sig.name);
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      if (llvm::isa<mlir::TensorType>(type))
        func.setArgAttr(
            i, mlir::bufferization::BufferizationDialect::kWritableAttrName,
            mlir::BoolAttr::get(module.getContext(), false));
  }
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

/// The number of 8-byte fields of a value of `type` in the expanded
/// arguments: a memref descriptor field by field, or one scalar.
static size_t numFields(const ValueType &type) {
  return type.isTensor ? 3 + 2 * type.shape.size() : 1;
}

namespace {
/// Size and alignment of a value of `type` in the LLVM struct the compiled
/// function returns (x86-64/AArch64 data layouts: natural alignment).
struct FieldLayout {
  size_t size;
  size_t align;
};
} // namespace

static FieldLayout layoutOf(const ValueType &type) {
  if (type.isTensor)
    return {8 * numFields(type), 8};
  size_t size = dtypeSize(type.dtype);
  return {size, size};
}

static size_t alignTo(size_t offset, size_t align) {
  return (offset + align - 1) / align * align;
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

/// A scalar in the low bytes of an 8-byte slot (little-endian).
static uint64_t scalarSlot(const jit::Scalar &s, DType to) {
  uint64_t slot = 0;
  switch (to) {
  case DType::F32: {
    float f = jit::isFloat(s.dtype) ? static_cast<float>(s.f)
                                    : static_cast<float>(s.i);
    std::memcpy(&slot, &f, sizeof(f));
    break;
  }
  case DType::F64: {
    double d = jit::isFloat(s.dtype) ? s.f : static_cast<double>(s.i);
    std::memcpy(&slot, &d, sizeof(d));
    break;
  }
  default: {
    int64_t v = s.i;
    std::memcpy(&slot, &v, dtypeSize(to));
    break;
  }
  }
  return slot;
}

llvm::Error PackedCall::fail(const Twine &message) const {
  return makeError(ErrorCode::InvalidArgument,
                   "function '" + sig.name + "': " + message);
}

void PackedCall::push(uint64_t value) {
  slots[used] = value;
  pointers.push_back(&slots[used]);
  ++used;
}

llvm::Error PackedCall::pack(llvm::ArrayRef<Argument> args) {
  if (args.size() != sig.inputs.size())
    return fail("expected " + Twine(sig.inputs.size()) + " argument(s), got " +
                Twine(args.size()));

  // Size `slots` once: `pointers` points into it.
  size_t numSlots = 0;
  for (const ValueType &in : sig.inputs)
    numSlots += numFields(in);
  slots.assign(numSlots, 0);
  used = 0;
  pointers.clear();
  pointers.reserve(numSlots + 1);

  for (auto [i, arg] : llvm::enumerate(args)) {
    const ValueType &want = sig.inputs[i];
    std::string where = "argument " + std::to_string(i);
    if (std::optional<std::string> why = checkArgument(arg, want, where))
      return fail(*why);
    if (!want.isTensor) {
      push(scalarSlot(arg.scalar(), want.dtype));
      continue;
    }
    if (llvm::Error e = packTensor(arg.view(), want, where))
      return e;
  }
  layoutResults();
  return llvm::Error::success();
}

llvm::Error PackedCall::packTensor(const TensorView &view,
                                   const ValueType &want, StringRef where) {
  // A pointer that stands in for the null data of empty tensors.
  static char emptyData[16];
  const void *data = view.data;
  int64_t n = view.numElements();
  if (n == 0)
    data = emptyData;
  // Compiled code reads i1 bytes as 0 or 1 only; any other non-zero byte is
  // true, as in NumPy: normalize into a copy where one occurs.
  // The OR of the bytes is at most 1 exactly when each is 0 or 1: a
  // reduction the compiler vectorizes, taken a block at a time (a byte at a
  // time with an exit per byte cost 0.1 ms per million elements).
  bool oddBools = false;
  if (view.dtype == DType::Bool && n > 0 && view.isContiguous()) {
    const auto *bytes = static_cast<const uint8_t *>(data);
    constexpr int64_t kBlock = 1 << 16;
    for (int64_t start = 0; start < n && !oddBools; start += kBlock) {
      uint8_t any = 0;
      for (int64_t e = start, end = std::min(n, start + kBlock); e < end; ++e)
        any |= bytes[e];
      oddBools = any > 1;
    }
  }
  if (n > 0 && (!view.isContiguous() || oddBools)) {
    Expected<Tensor> copy = Tensor::copyOf(view);
    if (!copy)
      return copy.takeError();
    copies.push_back(std::move(*copy));
    data = copies.back().data();
  }
  if (std::optional<std::string> error =
          checkElementBound(data, n, want, where))
    return fail(*error);
  uint64_t ptr = reinterpret_cast<uintptr_t>(data);
  push(ptr); // allocated
  push(ptr); // aligned
  push(0);   // offset
  for (int64_t d : view.shape)
    push(static_cast<uint64_t>(d));
  for (int64_t s : contiguousStrides(view.shape))
    push(static_cast<uint64_t>(s));
  return llvm::Error::success();
}

/// The result storage: one struct (or a single value) in the natural layout,
/// passed after the arguments.
void PackedCall::layoutResults() {
  resultOffsets.clear();
  size_t size = 0;
  for (const ValueType &out : sig.results) {
    FieldLayout l = layoutOf(out);
    size = alignTo(size, l.align);
    resultOffsets.push_back(size);
    size += l.size;
  }
  resultStorage.assign(alignTo(size, 8) / 8 + 1, 0);
  if (!sig.results.empty())
    pointers.push_back(resultStorage.data());
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

namespace {
/// The fields of a returned memref descriptor.
struct Descriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  llvm::SmallVector<int64_t> shape, strides;
};
} // namespace

static Descriptor readDescriptor(const char *base, size_t rank) {
  Descriptor d;
  std::memcpy(&d.allocated, base, 8);
  std::memcpy(&d.aligned, base + 8, 8);
  std::memcpy(&d.offset, base + 16, 8);
  d.shape.resize(rank);
  d.strides.resize(rank);
  std::memcpy(d.shape.data(), base + 24, 8 * rank);
  std::memcpy(d.strides.data(), base + 24 + 8 * rank, 8 * rank);
  return d;
}

/// A returned memref as a tensor: shares `owner` where contiguous, else a
/// contiguous copy. `what` names it in errors.
static Expected<Tensor> adoptMemref(const Descriptor &d, DType dtype,
                                    const std::shared_ptr<void> &owner,
                                    const std::string &what) {
  char *data = static_cast<char *>(d.aligned) +
               d.offset * static_cast<int64_t>(dtypeSize(dtype));
  TensorView view(data, dtype, d.shape, d.strides);
  if (llvm::Error e = view.check(what))
    return std::move(e);
  if (!d.aligned && view.numElements() > 0)
    return jit::makeError(ErrorCode::RuntimeError, what + " has a null buffer");
  if (view.isContiguous())
    return Tensor::share(owner, data, dtype, d.shape);
  return Tensor::copyOf(view);
}

/// Result `r` of type `out`, stored at `base`. A returned buffer gets its
/// owner in `owners` (one per allocation) before anything can fail.
static Expected<Tensor>
unpackResult(const char *base, const ValueType &out, size_t r,
             llvm::DenseMap<void *, std::shared_ptr<void>> &owners,
             jit::BufferDeallocator deallocate) {
  if (!out.isTensor) {
    Expected<Tensor> t = Tensor::zeros(out.dtype, {});
    if (t)
      std::memcpy(t->data(), base, dtypeSize(out.dtype));
    return t;
  }
  Descriptor d = readDescriptor(base, out.shape.size());
  std::shared_ptr<void> &owner = owners[d.allocated];
  if (!owner && d.allocated)
    owner = std::shared_ptr<void>(d.allocated, deallocate);
  return adoptMemref(d, out.dtype, owner, "result " + std::to_string(r));
}

Expected<std::vector<Tensor>>
PackedCall::unpackResults(BufferDeallocator deallocate) {
  // Adopt every returned buffer, so that each is freed on every path.
  // Results may share a buffer; each allocation gets one owner.
  const char *results = reinterpret_cast<const char *>(resultStorage.data());
  std::vector<Tensor> outputs;
  llvm::DenseMap<void *, std::shared_ptr<void>> owners;
  std::optional<llvm::Error> resultError;
  for (auto [r, out] : llvm::enumerate(sig.results)) {
    Expected<Tensor> t =
        unpackResult(results + resultOffsets[r], out, r, owners, deallocate);
    if (t)
      outputs.push_back(std::move(*t));
    else if (!resultError)
      resultError = t.takeError();
    else
      llvm::consumeError(t.takeError());
  }
  owners.clear();

  if (!resultError)
    return outputs;
  std::string msg;
  ErrorCode code = jit::consumeError(std::move(*resultError), &msg);
  return makeError(code == ErrorCode::OutOfMemory ? code
                                                  : ErrorCode::RuntimeError,
                   "function '" + sig.name + "': " + msg);
}
