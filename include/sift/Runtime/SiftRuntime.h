//===- SiftRuntime.h - C ABI of the sift CPU runtime ------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Run-time support called by compiled sift code. Errors found while a
// compiled function runs (an out-of-range class target, ...) are recorded,
// never raised: compiled code calls `sift_rt_error`, which keeps the first
// error of the calling thread; the host calls `sift_rt_take_error` after each
// call to read and clear it.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_RUNTIME_SIFTRUNTIME_H
#define SIFT_RUNTIME_SIFTRUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define SIFT_RT_EXPORT __declspec(dllexport)
#else
#define SIFT_RT_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Error codes recorded by compiled code (0 means no error).
enum SiftRtErrorCode {
  SIFT_RT_OK = 0,
  /// `sift.cross_entropy`: a target outside [0, C) that is not
  /// `ignore_index`; the value is the target.
  SIFT_RT_ERROR_TARGET_OUT_OF_RANGE = 1,
};

/// Records an error of the calling thread unless one is already recorded
/// (the first error wins). Called by compiled code.
SIFT_RT_EXPORT void sift_rt_error(int64_t code, int64_t value);

/// Returns the recorded error code of the calling thread (0 when none) and
/// clears it. When `value` is not null it receives the error's value.
SIFT_RT_EXPORT int64_t sift_rt_take_error(int64_t *value);

/// A static, human-readable description of an error code.
SIFT_RT_EXPORT const char *sift_rt_error_message(int64_t code);

/// The same entry points under the names that MLIR's C-interface wrappers
/// (`llvm.emit_c_interface`, which `--sift-cpu-pipeline` requests on every
/// `func.func`, declarations included) call.
/// Allocation of memref buffers by compiled code (the CPU pipeline lowers
/// memref.alloc/dealloc to these). Freed blocks of 64 KiB or more are kept in
/// per-size free lists (at most 1 GiB in all) and handed out again, so that a
/// function called in a loop does not map and fault in its large temporaries
/// on every call. Buffers returned by a compiled function are freed with
/// `_mlir_memref_to_llvm_free` too.
SIFT_RT_EXPORT void *_mlir_memref_to_llvm_alloc(size_t size);
SIFT_RT_EXPORT void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                        size_t size);
SIFT_RT_EXPORT void _mlir_memref_to_llvm_free(void *ptr);

SIFT_RT_EXPORT void _mlir_ciface_sift_rt_error(int64_t code, int64_t value);
SIFT_RT_EXPORT int64_t _mlir_ciface_sift_rt_take_error(int64_t *value);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // SIFT_RUNTIME_SIFTRUNTIME_H
