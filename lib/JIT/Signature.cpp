//===- Signature.cpp - Signatures of callable functions ---------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace jit = mlir::sift::jit;
using jit::Argument;
using jit::DType;
using jit::ErrorCode;
using jit::FunctionSignature;
using jit::ValueType;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

std::string ValueType::str() const {
  if (!isTensor)
    return dtypeName(dtype).str();
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  return s + dtypeName(dtype).str() + ">";
}

std::string jit::typeString(mlir::Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

/// The DType of an MLIR element or scalar type, if this API supports it.
static std::optional<DType> dtypeOf(mlir::Type type) {
  if (type.isIndex())
    return DType::I64;
  if (auto intType = llvm::dyn_cast<mlir::IntegerType>(type)) {
    if (intType.isUnsigned() && intType.getWidth() == 8)
      return DType::U8;
    if (intType.isUnsigned())
      return std::nullopt;
    switch (intType.getWidth()) {
    case 1:
      return DType::Bool;
    case 8:
      return DType::I8;
    case 16:
      return DType::I16;
    case 32:
      return DType::I32;
    case 64:
      return DType::I64;
    default:
      return std::nullopt;
    }
  }
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  return std::nullopt;
}

/// Converts a parameter or result type; on failure returns why.
static Expected<ValueType> convertType(mlir::Type type) {
  ValueType vt;
  if (auto tensorType = llvm::dyn_cast<mlir::RankedTensorType>(type)) {
    if (tensorType.getEncoding())
      return jit::makeError(ErrorCode::Unsupported,
                            "tensors with an encoding are not supported: " +
                                jit::typeString(type));
    std::optional<DType> dt = dtypeOf(tensorType.getElementType());
    if (!dt)
      return jit::makeError(ErrorCode::Unsupported,
                            "unsupported element type in " +
                                jit::typeString(type));
    vt.isTensor = true;
    vt.dtype = *dt;
    for (int64_t d : tensorType.getShape())
      vt.shape.push_back(mlir::ShapedType::isDynamic(d) ? ValueType::kDynamic
                                                        : d);
    return vt;
  }
  if (std::optional<DType> dt = dtypeOf(type)) {
    vt.dtype = *dt;
    return vt;
  }
  return jit::makeError(ErrorCode::Unsupported,
                        "unsupported type " + jit::typeString(type) +
                            " (ranked tensors and i1/i8/i16/i32/i64/index/"
                            "f32/f64 scalars are)");
}

//===----------------------------------------------------------------------===//
// Signatures
//===----------------------------------------------------------------------===//

/// Converts `types` into `out`; the first failure (if any) into `why`, naming
/// the `what` ("argument", "result") and its position.
static void convertTypes(llvm::ArrayRef<mlir::Type> types,
                         std::vector<ValueType> &out, StringRef what,
                         std::string &why) {
  for (auto [i, type] : llvm::enumerate(types)) {
    Expected<ValueType> vt = convertType(type);
    if (!vt) {
      std::string msg;
      jit::consumeError(vt.takeError(), &msg);
      if (why.empty())
        why = (what + " " + Twine(i) + ": " + msg).str();
      continue;
    }
    out.push_back(*vt);
  }
}

/// Whether results `i` and `i + 1` have the types of a bounded result
/// (docs/Staticize.md): a static tensor and its i64 count, whose shape is
/// the tensor's leading (batch) dimensions before the padded one.
static bool isBoundedPair(mlir::TypeRange results, size_t i) {
  if (i + 1 >= results.size())
    return false;
  auto data = llvm::dyn_cast<mlir::RankedTensorType>(results[i]);
  auto count = llvm::dyn_cast<mlir::RankedTensorType>(results[i + 1]);
  if (!data || !count || !count.getElementType().isInteger(64) ||
      count.getRank() >= data.getRank())
    return false;
  return count.getShape() == data.getShape().take_front(count.getRank());
}

std::vector<FunctionSignature>
jit::readSignatures(mlir::ModuleOp module,
                    llvm::StringMap<std::string> &unsupported) {
  std::vector<FunctionSignature> signatures;
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    if (func.isDeclaration() || !func.isPublic())
      continue;
    FunctionSignature sig;
    sig.name = func.getSymName().str();
    std::string why;
    convertTypes(func.getArgumentTypes(), sig.inputs, "argument", why);
    // Declared bounds of size arguments (scalars, or the per-row sizes of
    // a batched function) are checked at every call.
    for (auto [i, in] : llvm::enumerate(sig.inputs))
      if (auto bound =
              func.getArgAttrOfType<mlir::IntegerAttr>(i, "sift.bound"))
        in.bound = bound.getInt();
    convertTypes(func.getResultTypes(), sig.results, "result", why);
    if (why.empty()) {
      for (auto [i, in] : llvm::enumerate(sig.inputs))
        if (auto name = func.getArgAttrOfType<mlir::StringAttr>(i, "sift.name"))
          in.name = name.str();
      for (auto [i, res] : llvm::enumerate(sig.results)) {
        if (auto name =
                func.getResultAttrOfType<mlir::StringAttr>(i, "sift.name"))
          res.name = name.str();
      }
      if (auto bounded = func->getAttrOfType<mlir::DenseI64ArrayAttr>(
              "sift.bounded_results"))
        for (auto [k, i] : llvm::enumerate(bounded.asArrayRef()))
          if (i >= 0 && isBoundedPair(func.getResultTypes(), i)) {
            sig.results[i].bounded = true;
            // The padded dimension, past the count's (batch) dimensions.
            auto dims = func->getAttrOfType<mlir::DenseI64ArrayAttr>(
                "sift.bounded_dims");
            int64_t dim = dims && k < dims.size() ? dims[k] : 0;
            int64_t free = (int64_t)sig.results[i].shape.size() -
                           (int64_t)sig.results[i + 1].shape.size();
            if (dim >= 0 && dim < free)
              sig.results[i].boundedDim = dim;
          }
    }
    if (!why.empty()) {
      unsupported[sig.name] = why;
      continue;
    }
    signatures.push_back(std::move(sig));
  }
  return signatures;
}

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

/// Whether an integer fits in a dtype.
static bool fitsIn(int64_t v, DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return v == 0 || v == 1;
  case DType::I8:
    return v >= INT8_MIN && v <= INT8_MAX;
  case DType::U8:
    return v >= 0 && v <= UINT8_MAX;
  case DType::I16:
    return v >= INT16_MIN && v <= INT16_MAX;
  case DType::I32:
    return v >= INT32_MIN && v <= INT32_MAX;
  default:
    return true;
  }
}

static std::optional<std::string>
checkScalar(const Argument &arg, const ValueType &want, StringRef where) {
  if (arg.isTensor())
    return (where + ": expected a scalar " + want.str() + ", got a tensor")
        .str();
  const jit::Scalar &s = arg.scalar();
  // Float parameters take any scalar (integers convert); integer parameters
  // take integers that fit.
  if (jit::isFloat(want.dtype))
    return std::nullopt;
  if (jit::isFloat(s.dtype))
    return (where + ": expected an integer (" + want.str() + "), got " +
            dtypeName(s.dtype))
        .str();
  if (!fitsIn(s.i, want.dtype))
    return (where + ": value " + Twine(s.i) + " does not fit in " + want.str())
        .str();
  if (!want.bound)
    return std::nullopt;
  if (s.i < 0)
    return (where + ": value " + Twine(s.i) +
            " is negative; its declared bound is {sift.bound = " +
            Twine(*want.bound) + "}")
        .str();
  if (s.i > *want.bound)
    return (where + ": value " + Twine(s.i) +
            " exceeds its declared bound {sift.bound = " + Twine(*want.bound) +
            "}")
        .str();
  return std::nullopt;
}

static std::optional<std::string>
checkTensor(const Argument &arg, const ValueType &want, StringRef where) {
  if (!arg.isTensor())
    return (where + ": expected " + want.str() + ", got a scalar " +
            dtypeName(arg.scalar().dtype))
        .str();
  const jit::TensorView &view = arg.view();
  if (static_cast<unsigned>(view.dtype) > static_cast<unsigned>(DType::F64))
    return (where + ": unknown dtype " + Twine(static_cast<int>(view.dtype)))
        .str();
  bool dtypeOk = view.dtype == want.dtype ||
                 (want.dtype == DType::I8 && view.dtype == DType::U8);
  if (!dtypeOk)
    return (where + ": expected element type " + dtypeName(want.dtype) + " (" +
            want.str() + "), got " + dtypeName(view.dtype))
        .str();
  if (view.rank() != static_cast<int64_t>(want.shape.size()))
    return (where + ": expected rank " + Twine(want.shape.size()) + " (" +
            want.str() + "), got rank " + Twine(view.rank()) + " with shape " +
            jit::formatShape(view.shape))
        .str();
  if (llvm::Error e = view.check(where)) {
    std::string msg;
    jit::consumeError(std::move(e), &msg);
    return msg;
  }
  for (int64_t d = 0; d < view.rank(); ++d)
    if (want.shape[d] != ValueType::kDynamic && want.shape[d] != view.shape[d])
      return (where + ": expected shape " + jit::formatShape(want.shape) +
              " (" + want.str() + "), got " + jit::formatShape(view.shape) +
              " (dimension " + Twine(d) + ")")
          .str();
  return std::nullopt;
}

std::optional<std::string> jit::checkArgument(const Argument &arg,
                                              const ValueType &want,
                                              StringRef where) {
  return want.isTensor ? checkTensor(arg, want, where)
                       : checkScalar(arg, want, where);
}

std::optional<std::string> jit::checkElementBound(const void *data, int64_t n,
                                                  const ValueType &want,
                                                  StringRef where) {
  if (!want.bound || jit::isFloat(want.dtype))
    return std::nullopt;
  int64_t bound = *want.bound;
  for (int64_t e = 0; e < n; ++e) {
    int64_t v;
    switch (want.dtype) {
    case DType::I8:
      v = static_cast<const int8_t *>(data)[e];
      break;
    case DType::I16:
      v = static_cast<const int16_t *>(data)[e];
      break;
    case DType::I32:
      v = static_cast<const int32_t *>(data)[e];
      break;
    case DType::I64:
      v = static_cast<const int64_t *>(data)[e];
      break;
    default:
      return std::nullopt; // No sizes in i1 or u8.
    }
    if (v < 0 || v > bound)
      return (where + ": element " + Twine(e) + " is " + Twine(v) +
              ", outside [0, " + Twine(bound) +
              "] of its declared bound {sift.bound = " + Twine(bound) + "}")
          .str();
  }
  return std::nullopt;
}
