//===- SiftModule.cpp - The sift._sift nanobind extension -------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// A thin layer over the C++ JIT engine (sift/JIT/Engine.h); MLIR crosses the
// boundary as text. The Python API (compile_mlir, Module, Bounded) lives in
// python/sift/_runtime.py; this module only:
//   - compiles (Engine, with the GIL released) and lists the signatures,
//   - turns arguments into tensor views without a copy: NumPy arrays and any
//     DLPack producer on the CPU (nb::ndarray), Python and NumPy scalars,
//   - calls with the GIL released,
//   - returns every result as a NumPy array that owns the engine's buffer
//     (a capsule keeps the jit::Tensor alive; no copy),
//   - raises engine errors as the sift.Error subclass of their ErrorCode
//     (sift.errors._from_engine builds it),
//   - runs source-level passes on MLIR text and returns the text and the
//     diagnostics (`transform`: sift.torch's static_mlir and report).
//
//===----------------------------------------------------------------------===//

#include "sift/InitAllSift.h"
#include "sift/JIT/Engine.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/SourceMgr.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nb = nanobind;
namespace jit = mlir::sift::jit;

namespace {

/// Raises the sift.Error subclass of `code` with `message`.
[[noreturn]] void raise(jit::ErrorCode code, const std::string &message) {
  nb::object errors = nb::module_::import_("sift.errors");
  nb::object exc = errors.attr("_from_engine")(static_cast<int>(code), message);
  PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(exc.ptr())), exc.ptr());
  throw nb::python_error();
}

/// Raises an llvm::Error (consumed) as a sift.Error.
[[noreturn]] void raise(llvm::Error error) {
  std::string message;
  jit::ErrorCode code = jit::consumeError(std::move(error), &message);
  raise(code, message);
}

template <typename T> T unwrap(llvm::Expected<T> value) {
  if (!value)
    raise(value.takeError());
  return std::move(*value);
}

//===----------------------------------------------------------------------===//
// Data types
//===----------------------------------------------------------------------===//

/// The DLPack dtype of a sift DType (Bool is one byte, as in NumPy).
nb::dlpack::dtype toDlpack(jit::DType dtype) {
  using Code = nb::dlpack::dtype_code;
  auto make = [](Code code, int bits) {
    nb::dlpack::dtype d;
    d.code = static_cast<uint8_t>(code);
    d.bits = static_cast<uint8_t>(bits);
    d.lanes = 1;
    return d;
  };
  switch (dtype) {
  case jit::DType::Bool:
    return make(Code::Bool, 8);
  case jit::DType::I8:
    return make(Code::Int, 8);
  case jit::DType::I16:
    return make(Code::Int, 16);
  case jit::DType::I32:
    return make(Code::Int, 32);
  case jit::DType::I64:
    return make(Code::Int, 64);
  case jit::DType::U8:
    return make(Code::UInt, 8);
  case jit::DType::F32:
    return make(Code::Float, 32);
  case jit::DType::F64:
    return make(Code::Float, 64);
  }
  return make(Code::Float, 32);
}

/// The sift DType of a DLPack dtype, if sift has one.
std::optional<jit::DType> fromDlpack(nb::dlpack::dtype d) {
  using Code = nb::dlpack::dtype_code;
  if (d.lanes != 1)
    return std::nullopt;
  switch (static_cast<Code>(d.code)) {
  case Code::Bool:
    if (d.bits == 8)
      return jit::DType::Bool;
    return std::nullopt;
  case Code::Int:
    switch (d.bits) {
    case 8:
      return jit::DType::I8;
    case 16:
      return jit::DType::I16;
    case 32:
      return jit::DType::I32;
    case 64:
      return jit::DType::I64;
    }
    return std::nullopt;
  case Code::UInt:
    if (d.bits == 8)
      return jit::DType::U8;
    return std::nullopt;
  case Code::Float:
    if (d.bits == 32)
      return jit::DType::F32;
    if (d.bits == 64)
      return jit::DType::F64;
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

/// "int16", "float16", ... for the message that rejects a DLPack dtype.
std::string describeDlpack(nb::dlpack::dtype d) {
  using Code = nb::dlpack::dtype_code;
  std::string kind;
  switch (static_cast<Code>(d.code)) {
  case Code::Int:
    kind = "int";
    break;
  case Code::UInt:
    kind = "uint";
    break;
  case Code::Float:
    kind = "float";
    break;
  case Code::Bfloat:
    kind = "bfloat";
    break;
  case Code::Complex:
    kind = "complex";
    break;
  case Code::Bool:
    kind = "bool";
    break;
  default:
    kind = "dtype code " + std::to_string(d.code) + " of ";
  }
  std::string s = kind + std::to_string(d.bits);
  if (d.lanes != 1)
    s += "x" + std::to_string(d.lanes);
  return s;
}

//===----------------------------------------------------------------------===//
// Signatures
//===----------------------------------------------------------------------===//

/// A parameter or result type as a tuple the Python layer turns into a
/// sift.TensorType: (name, is_tensor, dtype name, shape with None for `?`,
/// bound or None, bounded, the padded dimension of a bounded result).
nb::tuple describe(const jit::ValueType &type) {
  nb::list shape;
  for (int64_t d : type.shape)
    shape.append(d == jit::ValueType::kDynamic ? nb::object(nb::none())
                                               : nb::object(nb::int_(d)));
  nb::object bound =
      type.bound ? nb::object(nb::int_(*type.bound)) : nb::object(nb::none());
  return nb::make_tuple(type.name, type.isTensor,
                        std::string(jit::dtypeName(type.dtype)),
                        nb::tuple(shape), bound, type.bounded, type.boundedDim);
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

using InputArray = nb::ndarray<nb::ro, nb::device::cpu>;

/// "function 'f': argument 2" as the engine words it.
std::string where(const jit::Function &fn, size_t i) {
  return "function '" + fn.name().str() + "': argument " + std::to_string(i);
}

/// A scalar argument for a parameter of `want`'s dtype: Python and NumPy
/// integers (anything with __index__) and floats (anything with
/// __float__); bools are integers. Range checks are the engine's.
jit::Argument scalarArgument(const jit::Function &fn, size_t i,
                             nb::handle value, const jit::ValueType &want) {
  PyObject *obj = value.ptr();
  // NumPy's bool scalar has no __index__: read its truth.
  llvm::StringRef typeName = Py_TYPE(obj)->tp_name;
  if (typeName == "numpy.bool" || typeName == "numpy.bool_") {
    int truth = PyObject_IsTrue(obj);
    if (truth < 0)
      throw nb::python_error();
    return jit::Scalar::ofInt(truth);
  }
  // What cannot convert (a string, an array of several elements) is an
  // InvalidArgument error below, not the conversion's TypeError.
  if (PyIndex_Check(obj)) {
    nb::object index = nb::steal(PyNumber_Index(obj));
    if (index.is_valid()) {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
      if (overflow)
        raise(jit::ErrorCode::InvalidArgument,
              where(fn, i) + ": value " + nb::str(index).c_str() +
                  " does not fit in " + want.str());
      if (!(v == -1 && PyErr_Occurred()))
        return jit::Scalar::ofInt(v);
    }
    PyErr_Clear();
  }
  if (PyFloat_Check(obj) || PyObject_HasAttrString(obj, "__float__")) {
    double v = PyFloat_AsDouble(obj);
    if (!(v == -1.0 && PyErr_Occurred()))
      return jit::Scalar::ofFloat(v);
    PyErr_Clear();
  }
  raise(jit::ErrorCode::InvalidArgument,
        where(fn, i) + ": expected a scalar " + want.str() + ", got " +
            nb::type_name(value.type()).c_str());
}

/// Imports `value` (a NumPy array or a DLPack producer on the CPU) into
/// `array` without a copy. Returns what is wrong, or "" on success.
std::string importArray(nb::handle value, InputArray &array) {
  if (!nb::try_cast<InputArray>(value, array, /*convert=*/false))
    return std::string("expected a NumPy array or a DLPack producer on the "
                       "CPU, got ") +
           nb::type_name(value.type()).c_str();
  if (!fromDlpack(array.dtype()))
    return "unsupported element type " + describeDlpack(array.dtype());
  return "";
}

/// The view of an imported array: its data pointer, dtype, shape and
/// strides (elements), exactly as the caller laid it out.
jit::TensorView viewOf(const InputArray &array) {
  llvm::SmallVector<int64_t, 4> shape, strides;
  for (size_t d = 0; d < array.ndim(); ++d) {
    shape.push_back(static_cast<int64_t>(array.shape(d)));
    strides.push_back(array.stride(d));
  }
  return jit::TensorView(array.data(), *fromDlpack(array.dtype()), shape,
                         strides);
}

/// A view of `value` for a tensor parameter (no copy). `keep` holds what
/// the view points into.
jit::Argument tensorArgument(const jit::Function &fn, size_t i,
                             nb::handle value, const jit::ValueType &want,
                             std::vector<InputArray> &keep) {
  InputArray array;
  std::string why = importArray(value, array);
  if (!why.empty())
    raise(jit::ErrorCode::InvalidArgument,
          where(fn, i) + ": expected a tensor " + want.str() + ": " + why);
  jit::TensorView view = viewOf(array);
  keep.push_back(std::move(array));
  return jit::Argument(view);
}

/// For tests: (data address, dtype, shape, strides) of the view a call
/// would pass for `value`.
nb::tuple viewInfo(nb::handle value) {
  InputArray array;
  std::string why = importArray(value, array);
  if (!why.empty())
    raise(jit::ErrorCode::InvalidArgument, why);
  jit::TensorView view = viewOf(array);
  nb::list shape, strides;
  for (int64_t d : view.shape)
    shape.append(d);
  for (int64_t d : view.strides)
    strides.append(d);
  return nb::make_tuple(reinterpret_cast<uintptr_t>(view.data),
                        std::string(jit::dtypeName(view.dtype)),
                        nb::tuple(shape), nb::tuple(strides));
}

/// A result as a NumPy array that owns the engine's buffer.
nb::object toNumpy(jit::Tensor tensor) {
  std::vector<size_t> shape(tensor.shape().begin(), tensor.shape().end());
  auto *owned = new jit::Tensor(std::move(tensor));
  nb::capsule owner(
      owned, [](void *p) noexcept { delete static_cast<jit::Tensor *>(p); });
  nb::ndarray<nb::numpy> array(owned->data(), shape.size(), shape.data(), owner,
                               /*strides=*/nullptr, toDlpack(owned->dtype()),
                               nb::device::cpu::value);
  return array.cast();
}

/// A compiled module: the engine and its functions.
class PyEngine {
public:
  static PyEngine
  compile(const std::string &source, bool isPath, const std::string &bufferName,
          const std::string &transforms, const std::string &pipeline,
          const std::vector<std::string> &functions, const std::string &target,
          unsigned optLevel, unsigned numThreads, bool cache) {
    jit::CompileOptions options;
    if (target == "cpu")
      options.target = jit::Target::CPU;
    else if (target == "cuda")
      options.target = jit::Target::CUDA;
    else
      raise(jit::ErrorCode::InvalidArgument,
            "unknown target '" + target + "' (expected 'cpu' or 'cuda')");
    options.optLevel = optLevel;
    options.transforms = transforms;
    options.pipeline = pipeline;
    options.functions = functions;
    options.numThreads = numThreads;
    options.cache = cache;
    std::optional<llvm::Expected<std::unique_ptr<jit::Engine>>> engine;
    {
      nb::gil_scoped_release release;
      if (isPath)
        engine.emplace(jit::Engine::compileFile(source, options));
      else
        engine.emplace(jit::Engine::compileSource(source, options, bufferName));
    }
    PyEngine result;
    result.engine = std::shared_ptr<jit::Engine>(unwrap(std::move(*engine)));
    return result;
  }

  /// Whether the code came from the compile cache.
  bool loadedFromCache() const { return engine->loadedFromCache(); }

  /// [(name, [input types], [result types])] in source order.
  nb::list signatures() const {
    nb::list out;
    for (const jit::FunctionSignature &sig : engine->functions()) {
      nb::list inputs, results;
      for (const jit::ValueType &t : sig.inputs)
        inputs.append(describe(t));
      for (const jit::ValueType &t : sig.results)
        results.append(describe(t));
      out.append(nb::make_tuple(sig.name, inputs, results));
    }
    return out;
  }

  /// Calls `name` on the positional `args`; returns the list of results.
  nb::list call(const std::string &name, nb::args args) const {
    jit::Function fn = unwrap(engine->lookup(name));
    const jit::FunctionSignature &sig = fn.signature();
    if (args.size() != sig.inputs.size())
      raise(jit::ErrorCode::InvalidArgument,
            "function '" + name + "': expected " +
                std::to_string(sig.inputs.size()) + " argument(s), got " +
                std::to_string(args.size()));
    std::vector<InputArray> keep;
    keep.reserve(args.size());
    std::vector<jit::Argument> arguments;
    arguments.reserve(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      const jit::ValueType &want = sig.inputs[i];
      arguments.push_back(want.isTensor
                              ? tensorArgument(fn, i, args[i], want, keep)
                              : scalarArgument(fn, i, args[i], want));
    }
    std::optional<llvm::Expected<std::vector<jit::Tensor>>> results;
    {
      nb::gil_scoped_release release;
      results.emplace(fn.call(arguments));
    }
    std::vector<jit::Tensor> tensors = unwrap(std::move(*results));
    nb::list out;
    for (jit::Tensor &t : tensors)
      out.append(toNumpy(std::move(t)));
    return out;
  }

private:
  std::shared_ptr<jit::Engine> engine;
};

/// (output, diagnostics) of the textual pass pipeline `passes` run on the
/// MLIR `source`: the printed module, and every diagnostic (remarks of
/// --sift-staticize{report=1}, --sift-report-bounds) as
/// `file:line:col: kind: message` lines. A parse or pass failure raises
/// the sift.Error of the engine's codes with the diagnostics.
nb::tuple transform(const std::string &source, const std::string &passes) {
  std::string output, diagnostics;
  {
    nb::gil_scoped_release release;
    mlir::sift::registerAllSiftPasses();
    mlir::DialectRegistry registry;
    mlir::sift::registerAllSiftDialects(registry);
    mlir::MLIRContext context(registry);
    llvm::SourceMgr sourceMgr;
    llvm::raw_string_ostream diagOS(diagnostics);
    mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagOS);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(source, &context, "<sift>");
    if (!module) {
      nb::gil_scoped_acquire acquire;
      raise(jit::ErrorCode::ParseError, "transform: " + diagnostics);
    }
    mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
    std::string error;
    llvm::raw_string_ostream errorOS(error);
    if (mlir::failed(mlir::parsePassPipeline(passes, pm, errorOS))) {
      nb::gil_scoped_acquire acquire;
      raise(jit::ErrorCode::InvalidArgument, "transform: " + error);
    }
    if (mlir::failed(pm.run(*module))) {
      nb::gil_scoped_acquire acquire;
      raise(jit::ErrorCode::CompileError, "transform: " + diagnostics);
    }
    llvm::raw_string_ostream outOS(output);
    module->print(outOS);
  }
  return nb::make_tuple(output, diagnostics);
}

} // namespace

NB_MODULE(_sift, m) {
  m.doc() = "sift's JIT engine (use the sift package, not this module)";

  nb::class_<PyEngine>(m, "Engine")
      .def_static("compile", &PyEngine::compile, nb::arg("source"),
                  nb::arg("is_path"), nb::arg("buffer_name"),
                  nb::arg("transforms"), nb::arg("pipeline"),
                  nb::arg("functions"), nb::arg("target"), nb::arg("opt_level"),
                  nb::arg("num_threads"), nb::arg("cache") = true)
      .def_prop_ro("loaded_from_cache", &PyEngine::loadedFromCache)
      .def("signatures", &PyEngine::signatures)
      .def("call", &PyEngine::call);

  nb::list dtypes;
  for (int d = 0; d <= static_cast<int>(jit::DType::F64); ++d)
    dtypes.append(std::string(jit::dtypeName(static_cast<jit::DType>(d))));
  m.attr("dtypes") = dtypes;
  m.def("transform", &transform, nb::arg("source"), nb::arg("passes"),
        "(output MLIR, diagnostics) of a textual pass pipeline run on MLIR "
        "text (releases the GIL)");
  m.def("_view_info", &viewInfo, nb::arg("value"),
        "(address, dtype, shape, strides) of the view a call passes for a "
        "tensor argument (for tests: no copy is made)");
}
