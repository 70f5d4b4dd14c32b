//===- CudaRuntime.h - C ABI of the sift CUDA runtime layer -----*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The functions that code lowered by `gpu-to-llvm` (--sift-gpu-pipeline)
// calls: module load, kernel launch, streams, events, device memory. They
// sit on the CUDA driver API, which is loaded with dlopen("libcuda.so.1") at
// first use: nothing is linked against the driver and no CUDA header is
// needed to build. A failed driver call is recorded as the running call's
// error (SIFT_RT_ERROR_CUDA through sift_rt_report, returned by
// sift_rt_run as the engine's error); without a driver or a device every
// entry point records SIFT_RT_ERROR_NO_CUDA and returns a null handle.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_RUNTIME_CUDARUNTIME_H
#define SIFT_RUNTIME_CUDARUNTIME_H

#include "sift/Runtime/SiftRuntime.h"

#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Why the driver cannot be used (SIFT_RT_ERROR_NO_CUDA's v0).
enum SiftCudaUnavailable {
  SIFT_CUDA_AVAILABLE = 0,
  /// dlopen("libcuda.so.1") failed.
  SIFT_CUDA_NO_DRIVER = 1,
  /// The library lacks a driver function sift needs.
  SIFT_CUDA_MISSING_SYMBOL = 2,
  /// cuInit failed (v1 of sift_cuda_status: the CUresult).
  SIFT_CUDA_INIT_FAILED = 3,
  /// The driver sees no device.
  SIFT_CUDA_NO_DEVICE = 4,
  /// The primary context of device 0 cannot be retained.
  SIFT_CUDA_NO_CONTEXT = 5,
};

/// The mgpu* entry points (SIFT_RT_ERROR_CUDA's v1).
enum SiftCudaEntry {
  SIFT_CUDA_MODULE_LOAD = 0,
  SIFT_CUDA_MODULE_LOAD_JIT,
  SIFT_CUDA_MODULE_UNLOAD,
  SIFT_CUDA_MODULE_GET_FUNCTION,
  SIFT_CUDA_LAUNCH_KERNEL,
  SIFT_CUDA_STREAM_CREATE,
  SIFT_CUDA_STREAM_DESTROY,
  SIFT_CUDA_STREAM_SYNCHRONIZE,
  SIFT_CUDA_STREAM_WAIT_EVENT,
  SIFT_CUDA_EVENT_CREATE,
  SIFT_CUDA_EVENT_DESTROY,
  SIFT_CUDA_EVENT_SYNCHRONIZE,
  SIFT_CUDA_EVENT_RECORD,
  SIFT_CUDA_MEM_ALLOC,
  SIFT_CUDA_MEM_FREE,
  SIFT_CUDA_MEMCPY,
  SIFT_CUDA_MEMSET32,
  SIFT_CUDA_MEMSET16,
  SIFT_CUDA_MEM_HOST_REGISTER,
  SIFT_CUDA_MEM_HOST_UNREGISTER,
  SIFT_CUDA_ENTRY_COUNT
};

/// Loads the driver (once per process), initializes it and finds device 0.
/// Returns SIFT_CUDA_AVAILABLE, or the reason it cannot be used with a
/// message ("no CUDA driver/device: ...") in `message` (NUL-terminated,
/// truncated to `size`; may be null).
SIFT_RT_EXPORT int64_t sift_cuda_status(char *message, size_t size);

/// Writes the message of a SIFT_RT_ERROR_CUDA or SIFT_RT_ERROR_NO_CUDA error
/// with its values; returns the length of the full message.
SIFT_RT_EXPORT size_t sift_cuda_format_error(int64_t code,
                                             const int64_t *values,
                                             char *buffer, size_t size);

/// Device timing of the kernels, for benchmarks. While enabled, each
/// stream's launches are bracketed by CUDA timing events, and when the host
/// code synchronizes the stream (once per call, before it returns) the time
/// from its first launch to the end of its last kernel is added to a total:
/// the device's time of a call, without the copies of its arguments and
/// results. Off by default (two event records per launch).
SIFT_RT_EXPORT void sift_cuda_profile_enable(bool on);
/// Returns the milliseconds added since the last take (or the enabling) and
/// resets them; `launches` (may be null) gets the kernels launched.
SIFT_RT_EXPORT double sift_cuda_profile_take(int64_t *launches);

/// The entry points `gpu-to-llvm` and the GPU dialect's LLVM IR translation
/// (gpu.binary, gpu.launch_func) call, with the C signatures they declare.
/// Handles are the driver's (CUmodule, CUfunction, CUstream, CUevent, device
/// pointers), passed as opaque pointers.
SIFT_RT_EXPORT void *mgpuModuleLoad(void *data, size_t size);
SIFT_RT_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel);
SIFT_RT_EXPORT void mgpuModuleUnload(void *module);
SIFT_RT_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);
SIFT_RT_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                     intptr_t gridY, intptr_t gridZ,
                                     intptr_t blockX, intptr_t blockY,
                                     intptr_t blockZ, int32_t smem,
                                     void *stream, void **params, void **extra,
                                     size_t paramsCount);
SIFT_RT_EXPORT void *mgpuStreamCreate(void);
SIFT_RT_EXPORT void mgpuStreamDestroy(void *stream);
SIFT_RT_EXPORT void mgpuStreamSynchronize(void *stream);
SIFT_RT_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);
SIFT_RT_EXPORT void *mgpuEventCreate(void);
SIFT_RT_EXPORT void mgpuEventDestroy(void *event);
SIFT_RT_EXPORT void mgpuEventSynchronize(void *event);
SIFT_RT_EXPORT void mgpuEventRecord(void *event, void *stream);
SIFT_RT_EXPORT void *mgpuMemAlloc(uint64_t size, void *stream,
                                  bool isHostShared);
SIFT_RT_EXPORT void mgpuMemFree(void *ptr, void *stream);
SIFT_RT_EXPORT void mgpuMemcpy(void *dst, void *src, size_t size, void *stream);
SIFT_RT_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                                 void *stream);
SIFT_RT_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                                 void *stream);
SIFT_RT_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t size);
SIFT_RT_EXPORT void mgpuMemHostUnregister(void *ptr);
SIFT_RT_EXPORT void mgpuSetDefaultDevice(int32_t device);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // SIFT_RUNTIME_CUDARUNTIME_H
