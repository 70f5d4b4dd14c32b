//===- Sift.h - C API of the sift JIT -----------------------------*- C -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// A C ABI over the C++ embedding API (sift/JIT/Engine.h) for FFI: opaque
// handles, status codes and a per-thread message of the last error.
//
//   sift_engine_t engine;
//   if (sift_engine_create_from_file("f.mlir", NULL, &engine) != SIFT_OK)
//     fprintf(stderr, "%s\n", sift_last_error_message());
//   int64_t shape[1] = {4};
//   sift_tensor_t x, y;
//   sift_tensor_create_view(data, SIFT_DTYPE_F32, 1, shape, NULL, &x);
//   size_t n;
//   if (sift_engine_call(engine, "f", &x, 1, &y, 1, &n) == SIFT_OK) {
//     const float *out = sift_tensor_data(y); ...
//     sift_tensor_destroy(y);
//   }
//   sift_tensor_destroy(x);
//   sift_engine_destroy(engine);
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_C_SIFT_H
#define SIFT_C_SIFT_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define SIFT_CAPI_EXPORT __declspec(dllexport)
#else
#define SIFT_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Status of every call that can fail. The same numbering as the C++
/// mlir::sift::jit::ErrorCode.
typedef enum sift_status_t {
  SIFT_OK = 0,
  SIFT_ERROR_INVALID_ARGUMENT = 1, /* arguments do not match, null pointers */
  SIFT_ERROR_NOT_FOUND = 2,        /* no such function or file */
  SIFT_ERROR_PARSE = 3,            /* the source does not parse or verify */
  SIFT_ERROR_COMPILE = 4,          /* lowering or JIT compilation failed */
  SIFT_ERROR_UNSUPPORTED = 5,      /* target/type not available in this build */
  SIFT_ERROR_RUNTIME = 6,          /* compiled code reported an error */
  SIFT_ERROR_OUT_OF_MEMORY = 7,    /* a buffer cannot be allocated */
  /* Every int32_t value is in the range of the enum (no undefined behaviour
     for values outside the list; they are rejected). */
  SIFT_STATUS_MIN_ENUM_ = -0x7fffffff - 1,
  SIFT_STATUS_MAX_ENUM_ = 0x7fffffff,
} sift_status_t;

/// Element types (the numbering of mlir::sift::jit::DType).
typedef enum sift_dtype_t {
  SIFT_DTYPE_BOOL = 0, /* i1, one byte per element */
  SIFT_DTYPE_I8 = 1,
  SIFT_DTYPE_I16 = 2,
  SIFT_DTYPE_I32 = 3,
  SIFT_DTYPE_I64 = 4, /* also index */
  SIFT_DTYPE_U8 = 5,  /* accepted for i8 */
  SIFT_DTYPE_F32 = 6,
  SIFT_DTYPE_F64 = 7,
  /* Any int32_t is a valid value of the type; others than the above are
     rejected with SIFT_ERROR_INVALID_ARGUMENT. */
  SIFT_DTYPE_MIN_ENUM_ = -0x7fffffff - 1,
  SIFT_DTYPE_MAX_ENUM_ = 0x7fffffff,
} sift_dtype_t;

typedef enum sift_target_t {
  SIFT_TARGET_CPU = 0,
  SIFT_TARGET_CUDA = 1,
  /* Any int32_t is a valid value of the type; others than the above are
     rejected with SIFT_ERROR_INVALID_ARGUMENT. */
  SIFT_TARGET_MIN_ENUM_ = -0x7fffffff - 1,
  SIFT_TARGET_MAX_ENUM_ = 0x7fffffff,
} sift_target_t;

/// A compiled module.
typedef struct sift_engine *sift_engine_t;
/// A tensor (a borrowed view, or an owned buffer) or a scalar argument.
typedef struct sift_tensor *sift_tensor_t;

typedef struct sift_compile_options_t {
  sift_target_t target;
  int opt_level;        /* 0-3 */
  const char *pipeline; /* NULL or "": the CPU pipeline */
  /* NULL or source-level passes run first, e.g.
     "sift-staticize,sift-batch{func=f size=32}" (adds f_batched) */
  const char *transforms;
  /* Threads of each parallel loop, at most; 0: the OpenMP runtime's choice
     (OMP_NUM_THREADS, else one per core). An option of the default
     pipeline: with a pipeline of one's own, 0 (the count goes in the
     pipeline, sift-cpu-pipeline{num-threads=N}); both is an error. */
  int num_threads;
  /* NULL or "": every public function. Otherwise the comma-separated names
     of the functions to compile (with what they call), e.g. "f_batched". */
  const char *functions;
  /* 1 (the default): reuse the code of an earlier compile of the same source
     and options from the compile cache ($SIFT_CACHE_DIR, else
     $XDG_CACHE_HOME/sift/jit, else ~/.cache/sift/jit) and store this one
     there; 0: always compile, store nothing. SIFT_CACHE=0 in the
     environment turns it off as well. */
  int cache;
} sift_compile_options_t;

/// Fills `options` with the defaults (cpu, -O2, the CPU pipeline, every
/// function, the runtime's thread count, the compile cache on).
SIFT_CAPI_EXPORT void
sift_compile_options_init(sift_compile_options_t *options);

/// The message of the last failing call on this thread ("" if none). Valid
/// until the next failing call on the thread.
SIFT_CAPI_EXPORT const char *sift_last_error_message(void);
/// A static name of a status ("SIFT_OK", ...).
SIFT_CAPI_EXPORT const char *sift_status_string(sift_status_t status);
/// "f32", "i64", ...
SIFT_CAPI_EXPORT const char *sift_dtype_name(sift_dtype_t dtype);
SIFT_CAPI_EXPORT size_t sift_dtype_size(sift_dtype_t dtype);

/* Engines. `options` may be NULL (defaults). */
SIFT_CAPI_EXPORT sift_status_t sift_engine_create_from_source(
    const char *source, size_t length, const sift_compile_options_t *options,
    sift_engine_t *engine);
SIFT_CAPI_EXPORT sift_status_t sift_engine_create_from_file(
    const char *path, const sift_compile_options_t *options,
    sift_engine_t *engine);
SIFT_CAPI_EXPORT void sift_engine_destroy(sift_engine_t engine);

/// The callable functions: their number and names (owned by the engine).
SIFT_CAPI_EXPORT size_t sift_engine_num_functions(sift_engine_t engine);
SIFT_CAPI_EXPORT const char *sift_engine_function_name(sift_engine_t engine,
                                                       size_t index);
/// Checks that `name` is callable; the counts may be NULL.
SIFT_CAPI_EXPORT sift_status_t sift_engine_lookup(sift_engine_t engine,
                                                  const char *name,
                                                  size_t *num_inputs,
                                                  size_t *num_results);

/// Calls `name`. `results` has room for `max_results` handles; on success
/// `*num_results` handles are stored there, each owned by the caller
/// (sift_tensor_destroy). Scalar results are rank-0 tensors. On failure
/// nothing is stored and nothing needs freeing.
SIFT_CAPI_EXPORT sift_status_t sift_engine_call(
    sift_engine_t engine, const char *name, const sift_tensor_t *args,
    size_t num_args, sift_tensor_t *results, size_t max_results,
    size_t *num_results);

/* Tensors. `shape` has `rank` extents; `strides` (in elements) may be NULL
   for row-major. */
/// A view of caller memory (not copied: it must outlive the calls using it).
SIFT_CAPI_EXPORT sift_status_t sift_tensor_create_view(
    const void *data, sift_dtype_t dtype, int64_t rank, const int64_t *shape,
    const int64_t *strides, sift_tensor_t *tensor);
/// An owned row-major copy of caller memory.
SIFT_CAPI_EXPORT sift_status_t sift_tensor_create_copy(
    const void *data, sift_dtype_t dtype, int64_t rank, const int64_t *shape,
    const int64_t *strides, sift_tensor_t *tensor);
/// Scalar arguments.
SIFT_CAPI_EXPORT sift_status_t sift_tensor_create_scalar_int(
    int64_t value, sift_dtype_t dtype, sift_tensor_t *tensor);
SIFT_CAPI_EXPORT sift_status_t sift_tensor_create_scalar_float(
    double value, sift_dtype_t dtype, sift_tensor_t *tensor);
SIFT_CAPI_EXPORT void sift_tensor_destroy(sift_tensor_t tensor);

SIFT_CAPI_EXPORT sift_dtype_t sift_tensor_dtype(sift_tensor_t tensor);
SIFT_CAPI_EXPORT int64_t sift_tensor_rank(sift_tensor_t tensor);
/// The extents (owned by the tensor; NULL for rank 0 or scalars).
SIFT_CAPI_EXPORT const int64_t *sift_tensor_shape(sift_tensor_t tensor);
SIFT_CAPI_EXPORT int64_t sift_tensor_num_elements(sift_tensor_t tensor);
/// The element data: row-major for results and copies, the pointer given for
/// views, NULL for scalar arguments.
SIFT_CAPI_EXPORT const void *sift_tensor_data(sift_tensor_t tensor);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // SIFT_C_SIFT_H
