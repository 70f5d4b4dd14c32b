//===- Tensor.h - Tensors exchanged with compiled sift code -----*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The values a host passes to and gets back from a compiled function: element
// types (DType), borrowed strided views of host memory (TensorView), scalars,
// and tensors that own their buffer (Tensor).
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_JIT_TENSOR_H
#define SIFT_JIT_TENSOR_H

#include "sift/JIT/Error.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace mlir {
namespace sift {
namespace jit {

/// Element types of tensors and scalars. `index` values are exchanged as I64.
/// The numbering is part of the C API (`sift_dtype_t`): append only.
enum class DType : int {
  Bool = 0, // i1, stored one byte per element (0 or 1)
  I8 = 1,
  I16 = 2,
  I32 = 3,
  I64 = 4,
  U8 = 5, // accepted where the function takes i8
  F32 = 6,
  F64 = 7,
};

/// Bytes per element of `dtype`.
size_t dtypeSize(DType dtype);
/// The MLIR spelling: "i1", "i8", ..., "f64" ("u8" for U8).
llvm::StringRef dtypeName(DType dtype);
/// The inverse of dtypeName (also accepts "bool" and "index").
std::optional<DType> parseDType(llvm::StringRef name);
bool isFloat(DType dtype);

/// Formats a shape as "[2, 3]"; a negative extent prints as "?".
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// `a * b` for non-negative `a` and `b`, or nullopt when it overflows int64_t.
/// Every product of extents, strides and element sizes goes through it.
std::optional<int64_t> checkedMul(int64_t a, int64_t b);

/// The element count of `shape` (1 for rank 0) and its size in bytes with
/// elements of `dtype`, when the shape is valid: no negative extent, and the
/// product of the non-zero extents times the element size fits in int64_t (as
/// NumPy requires), so that every element count, stride and byte offset of the
/// shape is representable. Otherwise an InvalidArgument error that starts with
/// `what` and names the shape.
struct ShapeSize {
  int64_t numElements;
  int64_t numBytes;
};
llvm::Expected<ShapeSize> checkShape(llvm::ArrayRef<int64_t> shape, DType dtype,
                                     const llvm::Twine &what);

/// Number of elements of a shape (1 for rank 0). The shape must be valid
/// (checkShape); an invalid one gives INT64_MAX (never overflows).
int64_t numElements(llvm::ArrayRef<int64_t> shape);

/// Row-major (C order) strides, in elements, of a shape.
llvm::SmallVector<int64_t> contiguousStrides(llvm::ArrayRef<int64_t> shape);

/// A borrowed view of host memory: `data` points to the element at index
/// (0, ..., 0); element (i0, i1, ...) lies at data + sum(ik * strides[k])
/// elements. Empty `strides` means row-major contiguous. The memory must stay
/// valid during the call that uses the view; compiled code never writes it.
struct TensorView {
  const void *data = nullptr;
  DType dtype = DType::F32;
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<int64_t, 4> strides;

  TensorView() = default;
  TensorView(const void *data, DType dtype, llvm::ArrayRef<int64_t> shape,
             llvm::ArrayRef<int64_t> strides = {})
      : data(data), dtype(dtype), shape(shape), strides(strides) {}

  int64_t rank() const { return shape.size(); }
  int64_t numElements() const { return jit::numElements(shape); }
  /// Strides with the empty case resolved to row-major ones.
  llvm::SmallVector<int64_t> effectiveStrides() const;
  /// True when the elements are dense and in row-major order.
  bool isContiguous() const;
  /// Checks the view: a valid dtype and shape (checkShape), as many strides
  /// as extents (or none), every addressed byte offset representable, and a
  /// data pointer unless the view is empty. Errors start with `what`.
  llvm::Error check(const llvm::Twine &what) const;
};

/// A tensor that owns its buffer (row-major contiguous). Copies share the
/// buffer; use clone() for a deep copy.
class Tensor {
public:
  Tensor() = default;

  /// A zero-filled tensor, its data on a 64-byte boundary (a cache line).
  /// An invalid shape (checkShape) is an InvalidArgument error, a buffer
  /// that cannot be allocated an OutOfMemory error naming the shape and the
  /// byte count.
  static llvm::Expected<Tensor> zeros(DType dtype,
                                      llvm::ArrayRef<int64_t> shape);
  /// A contiguous copy of a view (any strides; TensorView::check). Booleans
  /// are normalized: any non-zero byte reads as true (1), as in NumPy.
  static llvm::Expected<Tensor> copyOf(const TensorView &view);
  /// Adopts a buffer allocated with malloc; `data` points into it (at
  /// `allocated` or after it) and is row-major contiguous.
  static Tensor adoptMalloced(void *allocated, void *data, DType dtype,
                              llvm::ArrayRef<int64_t> shape);
  /// Shares `owner` (any buffer keeping `data` alive).
  static Tensor share(std::shared_ptr<void> owner, void *data, DType dtype,
                      llvm::ArrayRef<int64_t> shape);

  DType dtype() const { return dtype_; }
  llvm::ArrayRef<int64_t> shape() const { return shape_; }
  int64_t rank() const { return shape_.size(); }
  int64_t numElements() const { return jit::numElements(shape_); }
  size_t sizeInBytes() const {
    return static_cast<size_t>(numElements()) * dtypeSize(dtype_);
  }

  void *data() { return data_; }
  const void *data() const { return data_; }
  template <typename T> T *data() { return static_cast<T *>(data_); }
  template <typename T> const T *data() const {
    return static_cast<const T *>(data_);
  }

  /// Element `i` in row-major order, converted to double (any dtype).
  double getAsDouble(int64_t i) const;
  /// Element `i` in row-major order, converted to int64_t (any dtype).
  int64_t getAsInt(int64_t i) const;

  /// A view of this tensor, e.g. to pass it back to a compiled function.
  TensorView view() const { return TensorView(data_, dtype_, shape_); }
  llvm::Expected<Tensor> clone() const { return copyOf(view()); }

private:
  std::shared_ptr<void> owner_;
  void *data_ = nullptr;
  DType dtype_ = DType::F32;
  llvm::SmallVector<int64_t, 4> shape_;
};

/// A scalar argument: integers (Bool, I8..I64, U8) or floats (F32, F64).
struct Scalar {
  DType dtype = DType::I64;
  int64_t i = 0;
  double f = 0.0;

  static Scalar ofInt(int64_t value, DType dtype = DType::I64) {
    Scalar s;
    s.dtype = dtype;
    s.i = value;
    s.f = static_cast<double>(value);
    return s;
  }
  static Scalar ofFloat(double value, DType dtype = DType::F64) {
    Scalar s;
    s.dtype = dtype;
    s.f = value;
    s.i = static_cast<int64_t>(value);
    return s;
  }
};

/// One argument of a call: a tensor view or a scalar.
class Argument {
public:
  Argument(const TensorView &view) : isTensor_(true), view_(view) {}
  Argument(const Tensor &tensor) : isTensor_(true), view_(tensor.view()) {}
  Argument(const Scalar &scalar) : isTensor_(false), scalar_(scalar) {}

  bool isTensor() const { return isTensor_; }
  const TensorView &view() const { return view_; }
  const Scalar &scalar() const { return scalar_; }

private:
  bool isTensor_;
  TensorView view_;
  Scalar scalar_;
};

} // namespace jit
} // namespace sift
} // namespace mlir

#endif // SIFT_JIT_TENSOR_H
