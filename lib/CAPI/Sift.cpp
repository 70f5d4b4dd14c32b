//===- Sift.cpp - C API of the sift JIT -------------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Wraps the C++ embedding API; every failure is a status plus a per-thread
// message, never a crash or an exception across the C boundary.
//
//===----------------------------------------------------------------------===//

#include "sift-c/Sift.h"

#include "sift/JIT/Engine.h"

#include <string>

namespace jit = mlir::sift::jit;

struct sift_engine {
  std::unique_ptr<jit::Engine> engine;
};

struct sift_tensor {
  bool isScalar = false;
  jit::Scalar scalar;
  jit::TensorView view; // what calls see: into `owned` or caller memory
  jit::Tensor owned;    // empty for borrowed views
};

static thread_local std::string lastError;

static sift_status_t fail(sift_status_t status, std::string message) {
  lastError = std::move(message);
  return status;
}

static sift_status_t fail(llvm::Error error) {
  std::string message;
  jit::ErrorCode code = jit::consumeError(std::move(error), &message);
  return fail(static_cast<sift_status_t>(code), std::move(message));
}

// The C enums span all of int32_t (their *_MIN_ENUM_ and *_MAX_ENUM_
// enumerators), so any value a caller passes is a valid value of the type:
// read it as an integer, then check it against the listed enumerators.
static bool validDType(sift_dtype_t dtype) {
  int32_t v = dtype;
  return v >= SIFT_DTYPE_BOOL && v <= SIFT_DTYPE_F64;
}

static std::string unknownDType(sift_dtype_t dtype) {
  return "unknown dtype " + std::to_string(static_cast<int32_t>(dtype)) +
         " (expected 0-7, SIFT_DTYPE_BOOL to SIFT_DTYPE_F64)";
}

extern "C" {

void sift_compile_options_init(sift_compile_options_t *options) {
  if (!options)
    return;
  options->target = SIFT_TARGET_CPU;
  options->opt_level = 2;
  options->pipeline = nullptr;
  options->transforms = nullptr;
  options->num_threads = 0;
  options->functions = nullptr;
  options->cache = 1;
}

const char *sift_last_error_message(void) { return lastError.c_str(); }

const char *sift_status_string(sift_status_t status) {
  switch (status) {
  case SIFT_OK:
    return "SIFT_OK";
  case SIFT_ERROR_INVALID_ARGUMENT:
    return "SIFT_ERROR_INVALID_ARGUMENT";
  case SIFT_ERROR_NOT_FOUND:
    return "SIFT_ERROR_NOT_FOUND";
  case SIFT_ERROR_PARSE:
    return "SIFT_ERROR_PARSE";
  case SIFT_ERROR_COMPILE:
    return "SIFT_ERROR_COMPILE";
  case SIFT_ERROR_UNSUPPORTED:
    return "SIFT_ERROR_UNSUPPORTED";
  case SIFT_ERROR_RUNTIME:
    return "SIFT_ERROR_RUNTIME";
  case SIFT_ERROR_OUT_OF_MEMORY:
    return "SIFT_ERROR_OUT_OF_MEMORY";
  default:
    return "unknown status";
  }
}

const char *sift_dtype_name(sift_dtype_t dtype) {
  if (!validDType(dtype))
    return "unknown dtype";
  return jit::dtypeName(static_cast<jit::DType>(dtype)).data();
}

size_t sift_dtype_size(sift_dtype_t dtype) {
  if (!validDType(dtype))
    return 0;
  return jit::dtypeSize(static_cast<jit::DType>(dtype));
}

static sift_status_t convertOptions(const sift_compile_options_t *in,
                                    jit::CompileOptions &out) {
  if (!in)
    return SIFT_OK;
  int32_t target = in->target;
  if (target == SIFT_TARGET_CUDA)
    out.target = jit::Target::CUDA;
  else if (target != SIFT_TARGET_CPU)
    return fail(SIFT_ERROR_INVALID_ARGUMENT,
                "unknown target " + std::to_string(target) +
                    " (expected SIFT_TARGET_CPU = 0 or SIFT_TARGET_CUDA = 1)");
  if (in->opt_level < 0 || in->opt_level > 3)
    return fail(SIFT_ERROR_INVALID_ARGUMENT,
                "optimization level must be 0-3, got " +
                    std::to_string(in->opt_level));
  out.optLevel = static_cast<unsigned>(in->opt_level);
  if (in->pipeline)
    out.pipeline = in->pipeline;
  if (in->transforms)
    out.transforms = in->transforms;
  if (in->num_threads < 0)
    return fail(SIFT_ERROR_INVALID_ARGUMENT,
                "num_threads must be 0 (the runtime's choice) or positive, "
                "got " +
                    std::to_string(in->num_threads));
  out.numThreads = static_cast<unsigned>(in->num_threads);
  if (in->functions) {
    llvm::SmallVector<llvm::StringRef> names;
    llvm::StringRef(in->functions)
        .split(names, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    for (llvm::StringRef name : names)
      out.functions.push_back(name.trim().str());
  }
  out.cache = in->cache != 0;
  return SIFT_OK;
}

static sift_status_t
finishCreate(llvm::Expected<std::unique_ptr<jit::Engine>> compiled,
             sift_engine_t *engine) {
  if (!compiled)
    return fail(compiled.takeError());
  *engine = new sift_engine{std::move(*compiled)};
  return SIFT_OK;
}

sift_status_t
sift_engine_create_from_source(const char *source, size_t length,
                               const sift_compile_options_t *options,
                               sift_engine_t *engine) {
  if (!engine)
    return fail(SIFT_ERROR_INVALID_ARGUMENT, "null engine output pointer");
  *engine = nullptr;
  if (!source)
    return fail(SIFT_ERROR_INVALID_ARGUMENT, "null source");
  jit::CompileOptions opts;
  if (sift_status_t s = convertOptions(options, opts))
    return s;
  return finishCreate(
      jit::Engine::compileSource(llvm::StringRef(source, length), opts),
      engine);
}

sift_status_t
sift_engine_create_from_file(const char *path,
                             const sift_compile_options_t *options,
                             sift_engine_t *engine) {
  if (!engine)
    return fail(SIFT_ERROR_INVALID_ARGUMENT, "null engine output pointer");
  *engine = nullptr;
  if (!path)
    return fail(SIFT_ERROR_INVALID_ARGUMENT, "null path");
  jit::CompileOptions opts;
  if (sift_status_t s = convertOptions(options, opts))
    return s;
  return finishCreate(jit::Engine::compileFile(path, opts), engine);
}

void sift_engine_destroy(sift_engine_t engine) { delete engine; }

size_t sift_engine_num_functions(sift_engine_t engine) {
  return engine ? engine->engine->functions().size() : 0;
}

const char *sift_engine_function_name(sift_engine_t engine, size_t index) {
  if (!engine || index >= engine->engine->functions().size())
    return nullptr;
  return engine->engine->functions()[index].name.c_str();
}

sift_status_t sift_engine_lookup(sift_engine_t engine, const char *name,
                                 size_t *num_inputs, size_t *num_results) {
  if (!engine)
    return fail(SIFT_ERROR_INVALID_ARGUMENT, "null engine");
  if (!name)
    return fail(SIFT_ERROR_INVALID_ARGUMENT, "null function name");
  auto fn = engine->engine->lookup(name);
  if (!fn)
    return fail(fn.takeError());
  if (num_inputs)
    *num_inputs = fn->signature().inputs.size();
  if (num_results)
    *num_results = fn->signature().results.size();
  return SIFT_OK;
}

sift_status_t sift_engine_call(sift_engine_t engine, const char *name,
                               const sift_tensor_t *args, size_t num_args,
                               sift_tensor_t *results, size_t max_results,
                               size_t *num_results) {
  if (num_results)
    *num_results = 0;
  if (!engine)
    return fail(SIFT_ERROR_INVALID_ARGUMENT, "null engine");
  if (!name)
    return fail(SIFT_ERROR_INVALID_ARGUMENT, "null function name");
  if (num_args && !args)
    return fail(SIFT_ERROR_INVALID_ARGUMENT, "null argument array");
  if (!num_results)
    return fail(SIFT_ERROR_INVALID_ARGUMENT, "null result count pointer");
  auto fn = engine->engine->lookup(name);
  if (!fn)
    return fail(fn.takeError());
  size_t want = fn->signature().results.size();
  if (want > max_results || (want && !results))
    return fail(SIFT_ERROR_INVALID_ARGUMENT,
                "function '" + std::string(name) + "' returns " +
                    std::to_string(want) + " result(s), room for " +
                    std::to_string(results ? max_results : 0));
  std::vector<jit::Argument> callArgs;
  callArgs.reserve(num_args);
  for (size_t i = 0; i < num_args; ++i) {
    if (!args[i])
      return fail(SIFT_ERROR_INVALID_ARGUMENT,
                  "function '" + std::string(name) + "': argument " +
                      std::to_string(i) + ": null tensor handle");
    if (args[i]->isScalar)
      callArgs.emplace_back(args[i]->scalar);
    else
      callArgs.emplace_back(args[i]->view);
  }
  auto out = fn->call(callArgs);
  if (!out)
    return fail(out.takeError());
  for (size_t i = 0; i < out->size(); ++i) {
    auto *t = new sift_tensor;
    t->owned = std::move((*out)[i]);
    t->view = t->owned.view();
    results[i] = t;
  }
  *num_results = out->size();
  return SIFT_OK;
}

/// More dimensions than any tensor of a compiled function can have.
constexpr int64_t kMaxRank = 1024;

static sift_status_t makeView(const void *data, sift_dtype_t dtype,
                              int64_t rank, const int64_t *shape,
                              const int64_t *strides, jit::TensorView &view) {
  if (!validDType(dtype))
    return fail(SIFT_ERROR_INVALID_ARGUMENT, unknownDType(dtype));
  if (rank < 0)
    return fail(SIFT_ERROR_INVALID_ARGUMENT,
                "negative rank " + std::to_string(rank));
  if (rank > kMaxRank)
    return fail(SIFT_ERROR_INVALID_ARGUMENT,
                "rank " + std::to_string(rank) + " is too large (at most " +
                    std::to_string(kMaxRank) + ")");
  if (rank > 0 && !shape)
    return fail(SIFT_ERROR_INVALID_ARGUMENT,
                "null shape for rank " + std::to_string(rank));
  view.data = data;
  view.dtype = static_cast<jit::DType>(dtype);
  view.shape.assign(shape, shape + rank);
  if (strides)
    view.strides.assign(strides, strides + rank);
  if (llvm::Error e = view.check("tensor"))
    return fail(std::move(e));
  return SIFT_OK;
}

sift_status_t sift_tensor_create_view(const void *data, sift_dtype_t dtype,
                                      int64_t rank, const int64_t *shape,
                                      const int64_t *strides,
                                      sift_tensor_t *tensor) {
  if (!tensor)
    return fail(SIFT_ERROR_INVALID_ARGUMENT, "null tensor output pointer");
  *tensor = nullptr;
  jit::TensorView view;
  if (sift_status_t s = makeView(data, dtype, rank, shape, strides, view))
    return s;
  *tensor = new sift_tensor;
  (*tensor)->view = std::move(view);
  return SIFT_OK;
}

sift_status_t sift_tensor_create_copy(const void *data, sift_dtype_t dtype,
                                      int64_t rank, const int64_t *shape,
                                      const int64_t *strides,
                                      sift_tensor_t *tensor) {
  if (!tensor)
    return fail(SIFT_ERROR_INVALID_ARGUMENT, "null tensor output pointer");
  *tensor = nullptr;
  jit::TensorView view;
  if (sift_status_t s = makeView(data, dtype, rank, shape, strides, view))
    return s;
  llvm::Expected<jit::Tensor> copy = jit::Tensor::copyOf(view);
  if (!copy)
    return fail(copy.takeError());
  *tensor = new sift_tensor;
  (*tensor)->owned = std::move(*copy);
  (*tensor)->view = (*tensor)->owned.view();
  return SIFT_OK;
}

sift_status_t sift_tensor_create_scalar_int(int64_t value, sift_dtype_t dtype,
                                            sift_tensor_t *tensor) {
  if (!tensor)
    return fail(SIFT_ERROR_INVALID_ARGUMENT, "null tensor output pointer");
  *tensor = nullptr;
  if (!validDType(dtype))
    return fail(SIFT_ERROR_INVALID_ARGUMENT, unknownDType(dtype));
  *tensor = new sift_tensor;
  (*tensor)->isScalar = true;
  (*tensor)->scalar = jit::Scalar::ofInt(value, static_cast<jit::DType>(dtype));
  (*tensor)->view.dtype = static_cast<jit::DType>(dtype);
  return SIFT_OK;
}

sift_status_t sift_tensor_create_scalar_float(double value, sift_dtype_t dtype,
                                              sift_tensor_t *tensor) {
  if (!tensor)
    return fail(SIFT_ERROR_INVALID_ARGUMENT, "null tensor output pointer");
  *tensor = nullptr;
  int32_t kind = dtype;
  if (kind != SIFT_DTYPE_F32 && kind != SIFT_DTYPE_F64)
    return fail(SIFT_ERROR_INVALID_ARGUMENT,
                "a float scalar needs dtype f32 or f64");
  *tensor = new sift_tensor;
  (*tensor)->isScalar = true;
  (*tensor)->scalar =
      jit::Scalar::ofFloat(value, static_cast<jit::DType>(dtype));
  (*tensor)->view.dtype = static_cast<jit::DType>(dtype);
  return SIFT_OK;
}

void sift_tensor_destroy(sift_tensor_t tensor) { delete tensor; }

sift_dtype_t sift_tensor_dtype(sift_tensor_t tensor) {
  return tensor ? static_cast<sift_dtype_t>(tensor->view.dtype)
                : SIFT_DTYPE_F32;
}

int64_t sift_tensor_rank(sift_tensor_t tensor) {
  return tensor ? tensor->view.rank() : 0;
}

const int64_t *sift_tensor_shape(sift_tensor_t tensor) {
  if (!tensor || tensor->view.shape.empty())
    return nullptr;
  return tensor->view.shape.data();
}

int64_t sift_tensor_num_elements(sift_tensor_t tensor) {
  if (!tensor)
    return 0;
  return tensor->view.numElements();
}

const void *sift_tensor_data(sift_tensor_t tensor) {
  return tensor ? tensor->view.data : nullptr;
}

} // extern "C"
