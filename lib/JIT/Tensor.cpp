//===- Tensor.cpp - Tensors exchanged with compiled sift code ---*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/JIT/Tensor.h"

#ifdef SIFT_JIT_HAS_RUNTIME
#include "sift/Runtime/SiftRuntime.h"
#endif

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace mlir::sift::jit;

size_t mlir::sift::jit::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::Bool:
  case DType::I8:
  case DType::U8:
    return 1;
  case DType::I16:
    return 2;
  case DType::I32:
  case DType::F32:
    return 4;
  case DType::I64:
  case DType::F64:
    return 8;
  }
  llvm_unreachable("unknown dtype");
}

llvm::StringRef mlir::sift::jit::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return "i1";
  case DType::I8:
    return "i8";
  case DType::I16:
    return "i16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::U8:
    return "u8";
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  }
  llvm_unreachable("unknown dtype");
}

std::optional<DType> mlir::sift::jit::parseDType(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Cases({"i1", "bool"}, DType::Bool)
      .Case("i8", DType::I8)
      .Case("i16", DType::I16)
      .Case("i32", DType::I32)
      .Cases({"i64", "index"}, DType::I64)
      .Case("u8", DType::U8)
      .Case("f32", DType::F32)
      .Case("f64", DType::F64)
      .Default(std::nullopt);
}

bool mlir::sift::jit::isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64;
}

std::string mlir::sift::jit::formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
  }
  return s + "]";
}

/// "[2, -1]": every number as given (formatShape prints negatives as "?").
static std::string formatExtents(llvm::ArrayRef<int64_t> values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

std::optional<int64_t> mlir::sift::jit::checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

llvm::Expected<ShapeSize>
mlir::sift::jit::checkShape(llvm::ArrayRef<int64_t> shape, DType dtype,
                            const llvm::Twine &what) {
  if (static_cast<unsigned>(dtype) > static_cast<unsigned>(DType::F64))
    return makeError(ErrorCode::InvalidArgument,
                     what + ": unknown dtype " +
                         llvm::Twine(static_cast<int>(dtype)));
  for (auto [d, extent] : llvm::enumerate(shape))
    if (extent < 0)
      return makeError(ErrorCode::InvalidArgument,
                       what + ": negative extent " + llvm::Twine(extent) +
                           " in dimension " + llvm::Twine(d) + " of shape " +
                           formatExtents(shape));
  // The product of the non-zero extents bounds every stride and offset.
  int64_t bytes = static_cast<int64_t>(dtypeSize(dtype));
  bool empty = false;
  for (int64_t extent : shape) {
    empty |= extent == 0;
    std::optional<int64_t> next =
        checkedMul(bytes, std::max<int64_t>(extent, 1));
    if (!next)
      return makeError(ErrorCode::InvalidArgument,
                       what + ": shape " + formatExtents(shape) + " of " +
                           dtypeName(dtype) +
                           " is too large (its size in bytes overflows a "
                           "64-bit integer)");
    bytes = *next;
  }
  ShapeSize size;
  size.numElements = empty ? 0 : bytes / static_cast<int64_t>(dtypeSize(dtype));
  size.numBytes = empty ? 0 : bytes;
  return size;
}

int64_t mlir::sift::jit::numElements(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d == 0)
      return 0;
    std::optional<int64_t> next = checkedMul(n, d);
    if (!next)
      return INT64_MAX;
    n = *next;
  }
  return n;
}

llvm::SmallVector<int64_t>
mlir::sift::jit::contiguousStrides(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = checkedMul(strides[i + 1], std::max<int64_t>(shape[i + 1], 1))
                     .value_or(INT64_MAX);
  return strides;
}

llvm::SmallVector<int64_t> TensorView::effectiveStrides() const {
  if (strides.empty())
    return contiguousStrides(shape);
  return llvm::SmallVector<int64_t>(strides.begin(), strides.end());
}

bool TensorView::isContiguous() const {
  if (strides.empty())
    return true;
  if (strides.size() != shape.size())
    return false;
  // Extents of 0 or 1 make their stride irrelevant.
  int64_t expected = 1;
  for (int64_t i = rank() - 1; i >= 0; --i) {
    if (shape[i] > 1 && strides[i] != expected)
      return false;
    expected = checkedMul(expected, std::max<int64_t>(shape[i], 1))
                   .value_or(INT64_MAX);
  }
  return true;
}

llvm::Error TensorView::check(const llvm::Twine &what) const {
  llvm::Expected<ShapeSize> size = checkShape(shape, dtype, what);
  if (!size)
    return size.takeError();
  if (!strides.empty() && strides.size() != shape.size())
    return makeError(ErrorCode::InvalidArgument,
                     what + ": " + llvm::Twine(strides.size()) +
                         " strides given for rank " + llvm::Twine(rank()));
  if (size->numElements == 0)
    return llvm::Error::success();
  if (!data)
    return makeError(ErrorCode::InvalidArgument, what + ": null data pointer");
  // Every element's byte offset, sum(i_k * strides[k]) * size, must be
  // representable: bound the largest |offset| in elements.
  int64_t span = 0;
  for (auto [d, stride] : llvm::enumerate(strides)) {
    std::optional<int64_t> term =
        stride == INT64_MIN
            ? std::nullopt
            : checkedMul(stride < 0 ? -stride : stride, shape[d] - 1);
    int64_t sum;
    if (!term || __builtin_add_overflow(span, *term, &sum))
      return makeError(ErrorCode::InvalidArgument,
                       what + ": strides " + formatExtents(strides) +
                           " of shape " + formatExtents(shape) +
                           " address offsets that overflow a 64-bit integer");
    span = sum;
  }
  if (!checkedMul(span, static_cast<int64_t>(dtypeSize(dtype))))
    return makeError(ErrorCode::InvalidArgument,
                     what + ": strides " + formatExtents(strides) +
                         " of shape " + formatExtents(shape) +
                         " address byte offsets that overflow a 64-bit "
                         "integer");
  return llvm::Error::success();
}

namespace {
/// Where Tensor::zeros puts its data: on a cache line.
constexpr size_t kDataAlignment = 64;

struct FreeDeleter {
  void operator()(void *p) const { std::free(p); }
};
} // namespace

llvm::Expected<Tensor> Tensor::zeros(DType dtype,
                                     llvm::ArrayRef<int64_t> shape) {
  llvm::Expected<ShapeSize> size = checkShape(shape, dtype, "tensor");
  if (!size)
    return size.takeError();
  // The data starts on a cache line (a large calloc is 16 bytes into a
  // page): a 64-byte row that a compiled gather reads is then one line, not
  // two. calloc(0) may return null; always hand out a valid pointer.
  size_t bytes = static_cast<size_t>(size->numBytes);
  void *p = bytes <= std::numeric_limits<size_t>::max() - kDataAlignment
                ? std::calloc(bytes + kDataAlignment, 1)
                : nullptr;
  if (!p)
    return makeError(ErrorCode::OutOfMemory,
                     "out of memory: cannot allocate " + llvm::Twine(bytes) +
                         " bytes for a tensor of shape " + formatShape(shape) +
                         " of " + dtypeName(dtype));
  void *data =
      reinterpret_cast<void *>(llvm::alignAddr(p, llvm::Align(kDataAlignment)));
#ifdef SIFT_JIT_HAS_RUNTIME
  // A large calloc is fresh mapped memory nothing has touched yet: advised
  // now, its pages fault in huge (cross-entropy over 268 MB of logits on
  // two threads: 16.5 -> 11.7 ms; NumPy's arrays get the same advice).
  sift_rt_advise_huge_pages(data, bytes);
#endif
  return adoptMalloced(p, data, dtype, shape);
}

llvm::Expected<Tensor> Tensor::copyOf(const TensorView &view) {
  if (llvm::Error e = view.check("tensor view"))
    return std::move(e);
  llvm::Expected<Tensor> made = zeros(view.dtype, view.shape);
  if (!made)
    return made.takeError();
  Tensor t = std::move(*made);
  int64_t n = view.numElements();
  if (n == 0)
    return t;
  size_t esize = dtypeSize(view.dtype);
  const char *src = static_cast<const char *>(view.data);
  char *dst = static_cast<char *>(t.data_);
  if (view.isContiguous()) {
    std::memcpy(dst, src, static_cast<size_t>(n) * esize);
  } else {
    // Walk the index space in row-major order with an odometer.
    llvm::SmallVector<int64_t> strides = view.effectiveStrides();
    llvm::SmallVector<int64_t> index(view.rank(), 0);
    int64_t offset = 0;
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(dst + i * esize, src + offset * static_cast<int64_t>(esize),
                  esize);
      for (int64_t d = view.rank() - 1; d >= 0; --d) {
        if (index[d] + 1 < view.shape[d]) {
          ++index[d];
          offset += strides[d];
          break;
        }
        offset -= strides[d] * index[d];
        index[d] = 0;
      }
    }
  }
  if (view.dtype == DType::Bool) {
    auto *bytes = static_cast<uint8_t *>(t.data_);
    for (int64_t i = 0; i < n; ++i)
      bytes[i] = bytes[i] != 0;
  }
  return t;
}

Tensor Tensor::adoptMalloced(void *allocated, void *data, DType dtype,
                             llvm::ArrayRef<int64_t> shape) {
  return share(std::shared_ptr<void>(allocated, FreeDeleter()), data, dtype,
               shape);
}

Tensor Tensor::share(std::shared_ptr<void> owner, void *data, DType dtype,
                     llvm::ArrayRef<int64_t> shape) {
  Tensor t;
  t.owner_ = std::move(owner);
  t.data_ = data;
  t.dtype_ = dtype;
  t.shape_.assign(shape.begin(), shape.end());
  return t;
}

template <typename T> static T load(const void *base, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const char *>(base) + i * sizeof(T), sizeof(T));
  return v;
}

double Tensor::getAsDouble(int64_t i) const {
  switch (dtype_) {
  case DType::F32:
    return load<float>(data_, i);
  case DType::F64:
    return load<double>(data_, i);
  default:
    return static_cast<double>(getAsInt(i));
  }
}

int64_t Tensor::getAsInt(int64_t i) const {
  switch (dtype_) {
  case DType::Bool:
    return load<uint8_t>(data_, i) != 0;
  case DType::I8:
    return load<int8_t>(data_, i);
  case DType::U8:
    return load<uint8_t>(data_, i);
  case DType::I16:
    return load<int16_t>(data_, i);
  case DType::I32:
    return load<int32_t>(data_, i);
  case DType::I64:
    return load<int64_t>(data_, i);
  case DType::F32:
    return static_cast<int64_t>(load<float>(data_, i));
  case DType::F64:
    return static_cast<int64_t>(load<double>(data_, i));
  }
  llvm_unreachable("unknown dtype");
}
