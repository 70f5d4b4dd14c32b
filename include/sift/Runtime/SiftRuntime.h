//===- SiftRuntime.h - C ABI of the sift CPU runtime ------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Run-time support called by compiled sift code. Errors found while a
// compiled function runs (an out-of-range class target, a negative size, ...)
// are recorded, never raised: compiled code calls `sift_rt_report` (or the
// older `sift_rt_error`), which keeps the first error of the call. A host runs
// compiled code through `sift_rt_run`, which returns that error whichever
// thread raised it: the calling thread or an OpenMP worker of a parallel
// region inside the call. A buffer that cannot be allocated ends the call
// early with SIFT_RT_ERROR_OUT_OF_MEMORY instead of handing compiled code a
// null pointer.
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

/// Error codes recorded by compiled code (0 means no error). The values of
/// each are listed with it (`sift_rt_report`'s v0, v1, v2).
enum SiftRtErrorCode {
  SIFT_RT_OK = 0,
  /// A target outside [0, C) that is not `ignore_index` (`sift_rt_error`
  /// form: the value is the target).
  SIFT_RT_ERROR_TARGET_OUT_OF_RANGE = 1,
  /// `sift.cross_entropy`: v0 = the target, v1 = its row, v2 = C.
  SIFT_RT_ERROR_CROSS_ENTROPY_TARGET = 2,
  /// `sift.cross_entropy`: v0 = rows of the logits, v1 = targets.
  SIFT_RT_ERROR_CROSS_ENTROPY_ROWS = 3,
  /// `sift.randperm`: v0 = n (negative).
  SIFT_RT_ERROR_RANDPERM_NEGATIVE = 4,
  /// `sift.randperm`: v0 = n, v1 = the largest n supported.
  SIFT_RT_ERROR_RANDPERM_TOO_LARGE = 5,
  /// `sift.topk`: v0 = k, v1 = the size of the input along the axis.
  SIFT_RT_ERROR_TOPK_K_EXCEEDS_SIZE = 6,
  /// `sift.cross_entropy`: v0 = extent of the class weights, v1 = C.
  SIFT_RT_ERROR_CROSS_ENTROPY_WEIGHTS = 7,
  /// A buffer of v0 bytes cannot be allocated.
  SIFT_RT_ERROR_OUT_OF_MEMORY = 8,
  /// Two operands of one op disagree on an extent the op requires equal
  /// (`--sift-check-extents`): v0 and v1 = the two extents, v2 = the op's
  /// source line (0 when unknown).
  SIFT_RT_ERROR_EXTENT_MISMATCH = 9,
  /// A CUDA driver call of the CUDA runtime layer (CudaRuntime.h) failed:
  /// v0 = the CUresult, v1 = the mgpu* entry point (SiftCudaEntry), v2 = 0.
  SIFT_RT_ERROR_CUDA = 10,
  /// The CUDA runtime layer was called without a usable driver or device:
  /// v0 = the reason (SiftCudaUnavailable), v1 = the entry point.
  SIFT_RT_ERROR_NO_CUDA = 11,
  /// A row of a dynamic length is longer than a GPU kernel takes (the
  /// compact kernel ranks positions as i32): v0 = its length, v1 = the
  /// most the kernel takes.
  SIFT_RT_ERROR_ROW_TOO_LONG = 12,
};

/// Records an error of the running call unless one is already recorded (the
/// first error wins). Called by compiled code, on any thread.
SIFT_RT_EXPORT void sift_rt_report(int64_t code, int64_t v0, int64_t v1,
                                   int64_t v2);
/// sift_rt_report(code, value, 0, 0).
SIFT_RT_EXPORT void sift_rt_error(int64_t code, int64_t value);
/// Records an error after which the code cannot go on safely (the next op
/// would read out of bounds), then ends the call as an allocation failure
/// does (see below); returns only when that is not safe.
SIFT_RT_EXPORT void sift_rt_fail(int64_t code, int64_t v0, int64_t v1,
                                 int64_t v2);

/// Calls `fn(args)` (a packed wrapper of a compiled function) and returns the
/// first error recorded while it ran (0 when none), with its values in
/// `values[0..2]` when `values` is not null. Errors raised on threads that
/// work for this call (OpenMP workers) count: while several calls run at once
/// on different host threads, an error raised on a worker thread is reported
/// by each of them, since a worker does not know its caller.
SIFT_RT_EXPORT int64_t sift_rt_run(void (*fn)(void **), void **args,
                                   int64_t *values);

/// Returns the first error recorded outside any `sift_rt_run` (e.g. by code
/// run with mlir-runner) and clears it. When `value` is not null it receives
/// the error's first value.
SIFT_RT_EXPORT int64_t sift_rt_take_error(int64_t *value);

/// A static, human-readable description of an error code.
SIFT_RT_EXPORT const char *sift_rt_error_message(int64_t code);

/// Writes the message of an error with its values, e.g. "randperm: n = -1 is
/// negative", into `buffer` (NUL-terminated, truncated to `size`); returns
/// the length of the full message.
SIFT_RT_EXPORT size_t sift_rt_format_error(int64_t code, const int64_t *values,
                                           char *buffer, size_t size);

/// Allocation of memref buffers by compiled code (the CPU pipeline lowers
/// memref.alloc/dealloc to these). Freed blocks are kept in per-size free
/// lists and handed out again, so that a function called in a loop neither
/// maps and faults in its large temporaries nor pays the allocator for its
/// small ones on every call: blocks of 64 KiB or more in lists all threads
/// share (at most a quarter of the machine's memory, at least 1 GiB, or
/// SIFT_BUFFER_CACHE_MB), smaller ones in lists of the thread that frees
/// them (at most 4096 blocks and 32 MiB a thread, freed when it ends).
/// Buffers returned by a compiled function are freed with
/// `_mlir_memref_to_llvm_free` too. A request that cannot be met records
/// SIFT_RT_ERROR_OUT_OF_MEMORY; inside `sift_rt_run` on the calling thread
/// outside parallel regions it also ends the call (a long jump back to
/// `sift_rt_run`), as `sift_rt_fail` does. A call ended that way frees the
/// buffers it allocated on its own thread and had not freed; a call that
/// returns leaves the buffers it returns to its caller.
SIFT_RT_EXPORT void *_mlir_memref_to_llvm_alloc(size_t size);
SIFT_RT_EXPORT void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                        size_t size);
SIFT_RT_EXPORT void _mlir_memref_to_llvm_free(void *ptr);

/// Asks the kernel to back `[ptr, ptr + size)` with transparent huge pages
/// where the block is at least SIFT_RT_HUGE_PAGE_MIN_BYTES long, as NumPy
/// does for its arrays (madvise(MADV_HUGEPAGE); where the system allows
/// it only on request, `enabled = madvise`, the common default). Large
/// blocks that compiled code streams through or gathers rows from then
/// cost a TLB entry per 2 MiB instead of per 4 KiB, and the hardware
/// prefetchers lose fewer pages. The buffer cache above advises its large
/// blocks; hosts advise the tensors they allocate (the JIT's do). Advice
/// only: nothing happens where the kernel refuses it.
SIFT_RT_EXPORT void sift_rt_advise_huge_pages(void *ptr, size_t size);
/// The smallest block `sift_rt_advise_huge_pages` advises: 4 MiB, NumPy's
/// threshold.
#define SIFT_RT_HUGE_PAGE_MIN_BYTES (size_t(1) << 22)

/// The same entry points under the names that MLIR's C-interface wrappers
/// (`llvm.emit_c_interface`, which `--sift-cpu-pipeline` requests on every
/// `func.func`, declarations included) call.
SIFT_RT_EXPORT void _mlir_ciface_sift_rt_error(int64_t code, int64_t value);
SIFT_RT_EXPORT void _mlir_ciface_sift_rt_report(int64_t code, int64_t v0,
                                                int64_t v1, int64_t v2);
SIFT_RT_EXPORT void _mlir_ciface_sift_rt_fail(int64_t code, int64_t v0,
                                              int64_t v1, int64_t v2);
SIFT_RT_EXPORT int64_t _mlir_ciface_sift_rt_take_error(int64_t *value);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // SIFT_RUNTIME_SIFTRUNTIME_H
