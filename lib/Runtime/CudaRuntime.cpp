//===- CudaRuntime.cpp - The sift CUDA runtime layer ------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The mgpu* functions of CudaRuntime.h over the CUDA driver API, loaded with
// dlopen at first use. The few driver types and functions used are declared
// here (their ABI is stable: the `_v2` entry points since CUDA 4.0), so the
// build needs neither the CUDA headers nor the driver.
//
//===----------------------------------------------------------------------===//

#include "sift/Runtime/CudaRuntime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {
// Driver types, as cuda.h declares them.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUevent = void *;
using CUmemoryPool = void *;
constexpr CUresult kSuccess = 0;
constexpr unsigned kStreamNonBlocking = 0x1;
constexpr unsigned kEventDisableTiming = 0x2;
constexpr unsigned kMemAttachGlobal = 0x1;
constexpr int kJitOptimizationLevel = 7; // CU_JIT_OPTIMIZATION_LEVEL
// CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD
constexpr int kDeviceMemoryPoolsSupported = 115;
constexpr int kPoolReleaseThreshold = 4;

/// The driver functions sift calls, resolved once.
struct Driver {
  CUresult (*init)(unsigned);
  CUresult (*deviceGetCount)(int *);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*ctxPushCurrent)(CUcontext);
  CUresult (*ctxPopCurrent)(CUcontext *);
  CUresult (*getErrorName)(CUresult, const char **);
  CUresult (*moduleLoadData)(CUmodule *, const void *);
  CUresult (*moduleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                               void **);
  CUresult (*moduleUnload)(CUmodule);
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **);
  CUresult (*streamCreate)(CUstream *, unsigned);
  CUresult (*streamDestroy)(CUstream);
  CUresult (*streamSynchronize)(CUstream);
  CUresult (*streamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*eventCreate)(CUevent *, unsigned);
  CUresult (*eventDestroy)(CUevent);
  CUresult (*eventSynchronize)(CUevent);
  CUresult (*eventRecord)(CUevent, CUstream);
  CUresult (*eventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*memAlloc)(CUdeviceptr *, size_t);
  CUresult (*memAllocManaged)(CUdeviceptr *, size_t, unsigned);
  CUresult (*memFree)(CUdeviceptr);
  CUresult (*memcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*memsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*memsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream);
  CUresult (*memHostRegister)(void *, size_t, unsigned);
  CUresult (*memHostUnregister)(void *);
  // The stream-ordered allocator (CUDA 11.2), when the driver and the
  // device have it: null otherwise.
  CUresult (*memAllocAsync)(CUdeviceptr *, size_t, CUstream) = nullptr;
  CUresult (*memFreeAsync)(CUdeviceptr, CUstream) = nullptr;

  /// Whether device buffers come from the device's default memory pool,
  /// kept by the pool between calls (`initPool`).
  bool pooled = false;
  /// The pool's allocations not yet freed: only those may be freed with
  /// cuMemFreeAsync.
  std::mutex pooledMutex;
  std::unordered_set<CUdeviceptr> pooledLive;

  /// SIFT_CUDA_AVAILABLE once loaded, initialized and a device found.
  int64_t status = SIFT_CUDA_NO_DRIVER;
  /// The CUresult of the failed cuInit/cuDeviceGet, or 0.
  int64_t statusResult = 0;
  char statusText[256] = "";
  CUcontext context = nullptr;
};

const char *const kEntryNames[SIFT_CUDA_ENTRY_COUNT] = {
    "mgpuModuleLoad",      "mgpuModuleLoadJIT",
    "mgpuModuleUnload",    "mgpuModuleGetFunction",
    "mgpuLaunchKernel",    "mgpuStreamCreate",
    "mgpuStreamDestroy",   "mgpuStreamSynchronize",
    "mgpuStreamWaitEvent", "mgpuEventCreate",
    "mgpuEventDestroy",    "mgpuEventSynchronize",
    "mgpuEventRecord",     "mgpuMemAlloc",
    "mgpuMemFree",         "mgpuMemcpy",
    "mgpuMemset32",        "mgpuMemset16",
    "mgpuMemHostRegister", "mgpuMemHostUnregister",
};

template <typename Fn> bool resolve(void *lib, const char *name, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  return fn != nullptr;
}

/// Device buffers from the device's default memory pool, allocated and
/// freed in stream order (cuMemAllocAsync / cuMemFreeAsync): neither waits
/// for the device, where cuMemAlloc costs the host microseconds to
/// milliseconds per buffer and cuMemFree waits for every kernel. The pool
/// keeps what calls free (its release threshold is raised from 0), so a
/// call's buffers are the previous call's memory, as in PyTorch's caching
/// allocator. SIFT_CUDA_POOL=0 keeps cuMemAlloc / cuMemFree (to compare).
void initPool(Driver &d, void *lib, CUdevice device) {
  if (const char *pool = std::getenv("SIFT_CUDA_POOL");
      pool && std::strcmp(pool, "0") == 0)
    return;
  CUresult (*deviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*deviceGetDefaultMemPool)(CUmemoryPool *, CUdevice) = nullptr;
  CUresult (*memPoolSetAttribute)(CUmemoryPool, int, void *) = nullptr;
  if (!resolve(lib, "cuDeviceGetAttribute", deviceGetAttribute) ||
      !resolve(lib, "cuDeviceGetDefaultMemPool", deviceGetDefaultMemPool) ||
      !resolve(lib, "cuMemPoolSetAttribute", memPoolSetAttribute) ||
      !resolve(lib, "cuMemAllocAsync", d.memAllocAsync) ||
      !resolve(lib, "cuMemFreeAsync", d.memFreeAsync))
    return;
  int supported = 0;
  CUmemoryPool pool = nullptr;
  unsigned long long keepAll = ~0ull;
  if (deviceGetAttribute(&supported, kDeviceMemoryPoolsSupported, device) !=
          kSuccess ||
      !supported || deviceGetDefaultMemPool(&pool, device) != kSuccess ||
      memPoolSetAttribute(pool, kPoolReleaseThreshold, &keepAll) != kSuccess)
    return;
  d.pooled = true;
}

/// Loads and initializes the driver; never unloaded (kernels and contexts
/// outlive any one engine).
Driver &driver() {
  static Driver *d = [] {
    auto *drv = new Driver();
    if (const char *off = std::getenv("SIFT_CUDA_DISABLE");
        off && std::strcmp(off, "1") == 0) {
      std::snprintf(drv->statusText, sizeof(drv->statusText),
                    "libcuda.so.1 not loaded (SIFT_CUDA_DISABLE=1)");
      return drv;
    }
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *why = dlerror();
      std::snprintf(drv->statusText, sizeof(drv->statusText),
                    "cannot load libcuda.so.1 (%s)", why ? why : "not found");
      return drv;
    }
    const char *missing = nullptr;
#define SIFT_RESOLVE(field, name)                                              \
  if (!missing && !resolve(lib, name, drv->field))                             \
    missing = name;
    SIFT_RESOLVE(init, "cuInit")
    SIFT_RESOLVE(deviceGetCount, "cuDeviceGetCount")
    SIFT_RESOLVE(deviceGet, "cuDeviceGet")
    SIFT_RESOLVE(primaryCtxRetain, "cuDevicePrimaryCtxRetain")
    SIFT_RESOLVE(ctxPushCurrent, "cuCtxPushCurrent_v2")
    SIFT_RESOLVE(ctxPopCurrent, "cuCtxPopCurrent_v2")
    SIFT_RESOLVE(getErrorName, "cuGetErrorName")
    SIFT_RESOLVE(moduleLoadData, "cuModuleLoadData")
    SIFT_RESOLVE(moduleLoadDataEx, "cuModuleLoadDataEx")
    SIFT_RESOLVE(moduleUnload, "cuModuleUnload")
    SIFT_RESOLVE(moduleGetFunction, "cuModuleGetFunction")
    SIFT_RESOLVE(launchKernel, "cuLaunchKernel")
    SIFT_RESOLVE(streamCreate, "cuStreamCreate")
    SIFT_RESOLVE(streamDestroy, "cuStreamDestroy_v2")
    SIFT_RESOLVE(streamSynchronize, "cuStreamSynchronize")
    SIFT_RESOLVE(streamWaitEvent, "cuStreamWaitEvent")
    SIFT_RESOLVE(eventCreate, "cuEventCreate")
    SIFT_RESOLVE(eventDestroy, "cuEventDestroy_v2")
    SIFT_RESOLVE(eventSynchronize, "cuEventSynchronize")
    SIFT_RESOLVE(eventRecord, "cuEventRecord")
    SIFT_RESOLVE(eventElapsedTime, "cuEventElapsedTime")
    SIFT_RESOLVE(memAlloc, "cuMemAlloc_v2")
    SIFT_RESOLVE(memAllocManaged, "cuMemAllocManaged")
    SIFT_RESOLVE(memFree, "cuMemFree_v2")
    SIFT_RESOLVE(memcpyAsync, "cuMemcpyAsync")
    SIFT_RESOLVE(memsetD32Async, "cuMemsetD32Async")
    SIFT_RESOLVE(memsetD16Async, "cuMemsetD16Async")
    SIFT_RESOLVE(memHostRegister, "cuMemHostRegister_v2")
    SIFT_RESOLVE(memHostUnregister, "cuMemHostUnregister")
#undef SIFT_RESOLVE
    if (missing) {
      drv->status = SIFT_CUDA_MISSING_SYMBOL;
      std::snprintf(drv->statusText, sizeof(drv->statusText),
                    "libcuda.so.1 has no %s (driver too old?)", missing);
      return drv;
    }
    auto errorName = [&](CUresult r) {
      const char *name = nullptr;
      drv->getErrorName(r, &name);
      return name ? name : "unknown CUDA error";
    };
    if (CUresult r = drv->init(0); r != kSuccess) {
      drv->status = SIFT_CUDA_INIT_FAILED;
      drv->statusResult = r;
      std::snprintf(drv->statusText, sizeof(drv->statusText),
                    "cuInit failed with %s (%d)", errorName(r), r);
      return drv;
    }
    int count = 0;
    if (drv->deviceGetCount(&count) != kSuccess || count < 1) {
      drv->status = SIFT_CUDA_NO_DEVICE;
      std::snprintf(drv->statusText, sizeof(drv->statusText),
                    "the driver finds no CUDA device");
      return drv;
    }
    CUdevice device = 0;
    CUresult r = drv->deviceGet(&device, 0);
    if (r == kSuccess)
      r = drv->primaryCtxRetain(&drv->context, device);
    if (r != kSuccess) {
      drv->status = SIFT_CUDA_NO_CONTEXT;
      drv->statusResult = r;
      std::snprintf(drv->statusText, sizeof(drv->statusText),
                    "cannot retain the context of device 0: %s (%d)",
                    errorName(r), r);
      return drv;
    }
    drv->status = SIFT_CUDA_AVAILABLE;
    initPool(*drv, lib, device);
    return drv;
  }();
  return *d;
}

/// The driver when usable; otherwise records SIFT_RT_ERROR_NO_CUDA for
/// `entry` and returns null.
Driver *usableDriver(SiftCudaEntry entry) {
  Driver &d = driver();
  if (d.status == SIFT_CUDA_AVAILABLE)
    return &d;
  sift_rt_report(SIFT_RT_ERROR_NO_CUDA, d.status, entry, 0);
  return nullptr;
}

/// Records a failed driver call as the running call's error.
bool check(CUresult result, SiftCudaEntry entry) {
  if (result == kSuccess)
    return true;
  sift_rt_report(SIFT_RT_ERROR_CUDA, result, entry, 0);
  return false;
}

/// The primary context of device 0 is current while a driver call runs.
class ScopedContext {
public:
  explicit ScopedContext(Driver &d) : d(d) { d.ctxPushCurrent(d.context); }
  ~ScopedContext() { d.ctxPopCurrent(nullptr); }

private:
  Driver &d;
};

CUdeviceptr devicePtr(void *p) { return reinterpret_cast<CUdeviceptr>(p); }

/// Device timing for benchmarks (sift_cuda_profile_*): while enabled, each
/// stream's first launch is preceded by a timing event and every launch
/// followed by one; when the stream is synchronized, the time between the
/// first and the last is added to the total. Off by default: two event
/// records per launch are not free.
struct Profile {
  struct Span {
    CUevent first = nullptr, last = nullptr;
    bool open = false;
  };
  std::mutex mutex;
  bool enabled = false;
  double totalMs = 0;
  int64_t launches = 0;
  std::unordered_map<CUstream, Span> spans;

  /// SIFT_CUDA_PROFILE=kernels: every launch timed by its own events, the
  /// totals per kernel printed to stderr at exit.
  bool perKernel = false;
  struct Pending {
    CUstream stream;
    CUfunction function;
    CUevent start, stop;
  };
  std::vector<Pending> pending;
  std::unordered_map<CUfunction, std::string> names;
  /// The modules in load order (kernels of one name are told apart by it).
  std::unordered_map<CUmodule, int> modules;
  struct Totals {
    int64_t launches = 0;
    double ms = 0;
  };
  std::map<std::string, Totals> perName;
};

void printKernelProfile();

Profile &profile() {
  static Profile *p = [] {
    auto *p = new Profile();
    const char *env = std::getenv("SIFT_CUDA_PROFILE");
    p->perKernel = env && std::strcmp(env, "kernels") == 0;
    if (p->perKernel)
      std::atexit(printKernelProfile);
    return p;
  }();
  return *p;
}

void printKernelProfile() {
  Profile &p = profile();
  std::lock_guard<std::mutex> lock(p.mutex);
  std::vector<std::pair<std::string, Profile::Totals>> rows(p.perName.begin(),
                                                            p.perName.end());
  std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    return a.second.ms > b.second.ms;
  });
  double total = 0;
  for (auto &row : rows)
    total += row.second.ms;
  std::fprintf(stderr,
               "sift CUDA kernel profile (SIFT_CUDA_PROFILE=kernels): "
               "%.3f ms in all\n%10s %9s %10s  %s\n",
               total, "total ms", "launches", "mean us", "kernel");
  for (auto &[name, t] : rows)
    std::fprintf(stderr, "%10.3f %9lld %10.1f  %s\n", t.ms,
                 static_cast<long long>(t.launches),
                 1e3 * t.ms / static_cast<double>(t.launches), name.c_str());
}

/// Per-kernel timing around one launch (the context is current).
void profileKernel(Driver &d, CUstream stream, CUfunction function,
                   bool before) {
  Profile &p = profile();
  if (!p.perKernel)
    return;
  std::lock_guard<std::mutex> lock(p.mutex);
  if (before) {
    Profile::Pending e{stream, function, nullptr, nullptr};
    if (d.eventCreate(&e.start, 0) != kSuccess)
      return;
    if (d.eventCreate(&e.stop, 0) != kSuccess) {
      d.eventDestroy(e.start);
      return;
    }
    d.eventRecord(e.start, stream);
    p.pending.push_back(e);
    return;
  }
  for (auto it = p.pending.rbegin(); it != p.pending.rend(); ++it)
    if (it->stream == stream && it->function == function) {
      d.eventRecord(it->stop, stream);
      return;
    }
}

/// After `stream` was synchronized: its launches' times are added up.
void profileKernelsDone(Driver &d, CUstream stream) {
  Profile &p = profile();
  if (!p.perKernel)
    return;
  std::lock_guard<std::mutex> lock(p.mutex);
  std::vector<Profile::Pending> rest;
  for (Profile::Pending &e : p.pending) {
    if (e.stream != stream) {
      rest.push_back(e);
      continue;
    }
    float ms = 0;
    if (d.eventElapsedTime(&ms, e.start, e.stop) == kSuccess) {
      auto name = p.names.find(e.function);
      Profile::Totals &t =
          p.perName[name == p.names.end() ? "?" : name->second];
      ++t.launches;
      t.ms += ms;
    }
    d.eventDestroy(e.start);
    d.eventDestroy(e.stop);
  }
  p.pending = std::move(rest);
}

/// Around a launch on `stream` (the context is current).
void profileLaunch(Driver &d, CUstream stream, bool before) {
  Profile &p = profile();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (!p.enabled)
    return;
  Profile::Span &span = p.spans[stream];
  if (!span.first && (d.eventCreate(&span.first, 0) != kSuccess ||
                      d.eventCreate(&span.last, 0) != kSuccess))
    return;
  if (before) {
    if (!span.open)
      span.open = d.eventRecord(span.first, stream) == kSuccess;
    return;
  }
  ++p.launches;
  d.eventRecord(span.last, stream);
}

/// After `stream` was synchronized: closes its span.
void profileSynchronized(Driver &d, CUstream stream) {
  Profile &p = profile();
  std::lock_guard<std::mutex> lock(p.mutex);
  auto it = p.spans.find(stream);
  if (it == p.spans.end() || !it->second.open)
    return;
  float ms = 0;
  if (d.eventElapsedTime(&ms, it->second.first, it->second.last) == kSuccess)
    p.totalMs += ms;
  it->second.open = false;
}

/// Before `stream` is destroyed: its events go too.
void profileForget(Driver &d, CUstream stream) {
  Profile &p = profile();
  std::lock_guard<std::mutex> lock(p.mutex);
  auto it = p.spans.find(stream);
  if (it == p.spans.end())
    return;
  if (it->second.first)
    d.eventDestroy(it->second.first);
  if (it->second.last)
    d.eventDestroy(it->second.last);
  p.spans.erase(it);
}
} // namespace

extern "C" void sift_cuda_profile_enable(bool on) {
  Profile &p = profile();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.enabled = on;
}

extern "C" double sift_cuda_profile_take(int64_t *launches) {
  Profile &p = profile();
  std::lock_guard<std::mutex> lock(p.mutex);
  double ms = p.totalMs;
  if (launches)
    *launches = p.launches;
  p.totalMs = 0;
  p.launches = 0;
  return ms;
}

extern "C" int64_t sift_cuda_status(char *message, size_t size) {
  Driver &d = driver();
  if (message && size)
    std::snprintf(
        message, size, "%s%s",
        d.status == SIFT_CUDA_AVAILABLE ? "" : "no CUDA driver/device: ",
        d.status == SIFT_CUDA_AVAILABLE ? "CUDA device 0 ready" : d.statusText);
  return d.status;
}

extern "C" size_t sift_cuda_format_error(int64_t code, const int64_t *values,
                                         char *buffer, size_t size) {
  static const int64_t zeros[3] = {0, 0, 0};
  const int64_t *v = values ? values : zeros;
  const char *entry = v[1] >= 0 && v[1] < SIFT_CUDA_ENTRY_COUNT
                          ? kEntryNames[v[1]]
                          : "an mgpu* function";
  int n;
  if (code == SIFT_RT_ERROR_NO_CUDA) {
    n = std::snprintf(buffer, size, "no CUDA driver/device: %s called: %s",
                      entry, driver().statusText);
  } else {
    Driver &d = driver();
    const char *name = nullptr;
    if (d.getErrorName)
      d.getErrorName(static_cast<CUresult>(v[0]), &name);
    n = std::snprintf(buffer, size, "CUDA: %s failed with %s (%lld)", entry,
                      name ? name : "unknown CUDA error",
                      static_cast<long long>(v[0]));
  }
  return n < 0 ? 0 : static_cast<size_t>(n);
}

extern "C" void *mgpuModuleLoad(void *data, size_t /*size*/) {
  Driver *d = usableDriver(SIFT_CUDA_MODULE_LOAD);
  if (!d)
    return nullptr;
  ScopedContext scope(*d);
  CUmodule module = nullptr;
  check(d->moduleLoadData(&module, data), SIFT_CUDA_MODULE_LOAD);
  return module;
}

extern "C" void *mgpuModuleLoadJIT(void *data, int optLevel) {
  Driver *d = usableDriver(SIFT_CUDA_MODULE_LOAD_JIT);
  if (!d)
    return nullptr;
  ScopedContext scope(*d);
  CUmodule module = nullptr;
  int options[1] = {kJitOptimizationLevel};
  void *values[1] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  check(d->moduleLoadDataEx(&module, data, 1, options, values),
        SIFT_CUDA_MODULE_LOAD_JIT);
  return module;
}

extern "C" void mgpuModuleUnload(void *module) {
  // A module that failed to load (its error is recorded) has nothing to
  // unload.
  if (!module)
    return;
  if (Driver *d = usableDriver(SIFT_CUDA_MODULE_UNLOAD)) {
    ScopedContext scope(*d);
    check(d->moduleUnload(module), SIFT_CUDA_MODULE_UNLOAD);
  }
}

extern "C" void *mgpuModuleGetFunction(void *module, const char *name) {
  Driver *d = usableDriver(SIFT_CUDA_MODULE_GET_FUNCTION);
  if (!d || !module)
    return nullptr;
  CUfunction function = nullptr;
  if (check(d->moduleGetFunction(&function, module, name),
            SIFT_CUDA_MODULE_GET_FUNCTION) &&
      profile().perKernel) {
    Profile &p = profile();
    std::lock_guard<std::mutex> lock(p.mutex);
    auto ordinal = p.modules.try_emplace(module, p.modules.size()).first;
    p.names[function] =
        std::string(name) + " (module " + std::to_string(ordinal->second) + ")";
  }
  return function;
}

extern "C" void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                 intptr_t gridZ, intptr_t blockX,
                                 intptr_t blockY, intptr_t blockZ, int32_t smem,
                                 void *stream, void **params, void **extra,
                                 size_t /*paramsCount*/) {
  Driver *d = usableDriver(SIFT_CUDA_LAUNCH_KERNEL);
  // A kernel whose module did not load is not launched (the load's error
  // is the call's error).
  if (!d || !function)
    return;
  // A launch over nothing (an empty tensor's kernel: zero blocks) does
  // nothing; the driver would reject it (CUDA_ERROR_INVALID_VALUE).
  if (gridX <= 0 || gridY <= 0 || gridZ <= 0 || blockX <= 0 || blockY <= 0 ||
      blockZ <= 0)
    return;
  ScopedContext scope(*d);
  profileLaunch(*d, stream, /*before=*/true);
  profileKernel(*d, stream, function, /*before=*/true);
  if (check(d->launchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                            blockZ, smem, stream, params, extra),
            SIFT_CUDA_LAUNCH_KERNEL)) {
    profileLaunch(*d, stream, /*before=*/false);
    profileKernel(*d, stream, function, /*before=*/false);
  }
}

extern "C" void *mgpuStreamCreate(void) {
  Driver *d = usableDriver(SIFT_CUDA_STREAM_CREATE);
  if (!d)
    return nullptr;
  ScopedContext scope(*d);
  CUstream stream = nullptr;
  check(d->streamCreate(&stream, kStreamNonBlocking), SIFT_CUDA_STREAM_CREATE);
  return stream;
}

extern "C" void mgpuStreamDestroy(void *stream) {
  if (Driver *d = usableDriver(SIFT_CUDA_STREAM_DESTROY); d && stream) {
    ScopedContext scope(*d);
    profileForget(*d, stream);
    check(d->streamDestroy(stream), SIFT_CUDA_STREAM_DESTROY);
  }
}

extern "C" void mgpuStreamSynchronize(void *stream) {
  if (Driver *d = usableDriver(SIFT_CUDA_STREAM_SYNCHRONIZE); d && stream) {
    ScopedContext scope(*d);
    if (check(d->streamSynchronize(stream), SIFT_CUDA_STREAM_SYNCHRONIZE)) {
      profileSynchronized(*d, stream);
      profileKernelsDone(*d, stream);
    }
  }
}

extern "C" void mgpuStreamWaitEvent(void *stream, void *event) {
  if (Driver *d = usableDriver(SIFT_CUDA_STREAM_WAIT_EVENT);
      d && stream && event) {
    ScopedContext scope(*d);
    check(d->streamWaitEvent(stream, event, 0), SIFT_CUDA_STREAM_WAIT_EVENT);
  }
}

extern "C" void *mgpuEventCreate(void) {
  Driver *d = usableDriver(SIFT_CUDA_EVENT_CREATE);
  if (!d)
    return nullptr;
  ScopedContext scope(*d);
  CUevent event = nullptr;
  check(d->eventCreate(&event, kEventDisableTiming), SIFT_CUDA_EVENT_CREATE);
  return event;
}

extern "C" void mgpuEventDestroy(void *event) {
  if (Driver *d = usableDriver(SIFT_CUDA_EVENT_DESTROY); d && event) {
    ScopedContext scope(*d);
    check(d->eventDestroy(event), SIFT_CUDA_EVENT_DESTROY);
  }
}

extern "C" void mgpuEventSynchronize(void *event) {
  if (Driver *d = usableDriver(SIFT_CUDA_EVENT_SYNCHRONIZE); d && event) {
    ScopedContext scope(*d);
    check(d->eventSynchronize(event), SIFT_CUDA_EVENT_SYNCHRONIZE);
  }
}

extern "C" void mgpuEventRecord(void *event, void *stream) {
  if (Driver *d = usableDriver(SIFT_CUDA_EVENT_RECORD); d && event) {
    ScopedContext scope(*d);
    check(d->eventRecord(event, stream), SIFT_CUDA_EVENT_RECORD);
  }
}

extern "C" void *mgpuMemAlloc(uint64_t size, void *stream, bool isHostShared) {
  Driver *d = usableDriver(SIFT_CUDA_MEM_ALLOC);
  if (!d)
    return nullptr;
  ScopedContext scope(*d);
  CUdeviceptr ptr = 0;
  // cuMemAlloc rejects 0 bytes; an empty buffer still gets an address.
  size_t bytes = size ? size : 1;
  // In stream order from the pool when the allocation is on a stream (the
  // generated code's are: gpu-async-region); otherwise it is usable at
  // once, on any stream.
  bool pooled = d->pooled && stream && !isHostShared;
  CUresult r = isHostShared ? d->memAllocManaged(&ptr, bytes, kMemAttachGlobal)
               : pooled     ? d->memAllocAsync(&ptr, bytes, stream)
                            : d->memAlloc(&ptr, bytes);
  if (!check(r, SIFT_CUDA_MEM_ALLOC))
    return nullptr;
  if (pooled) {
    std::lock_guard<std::mutex> lock(d->pooledMutex);
    d->pooledLive.insert(ptr);
  }
  return reinterpret_cast<void *>(ptr);
}

extern "C" void mgpuMemFree(void *ptr, void *stream) {
  if (Driver *d = usableDriver(SIFT_CUDA_MEM_FREE); d && ptr) {
    ScopedContext scope(*d);
    bool pooled = false;
    if (d->pooled) {
      std::lock_guard<std::mutex> lock(d->pooledMutex);
      pooled = d->pooledLive.erase(devicePtr(ptr)) != 0;
    }
    // A pool's buffer goes back to the pool once `stream` reaches the free
    // (with no stream: the caller has synchronized, and cuMemFree of a
    // pool's buffer does not wait); any other waits for the device.
    check(pooled && stream ? d->memFreeAsync(devicePtr(ptr), stream)
                           : d->memFree(devicePtr(ptr)),
          SIFT_CUDA_MEM_FREE);
  }
}

extern "C" void mgpuMemcpy(void *dst, void *src, size_t size, void *stream) {
  if (Driver *d = usableDriver(SIFT_CUDA_MEMCPY); d && size) {
    ScopedContext scope(*d);
    check(d->memcpyAsync(devicePtr(dst), devicePtr(src), size, stream),
          SIFT_CUDA_MEMCPY);
  }
}

extern "C" void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             void *stream) {
  if (Driver *d = usableDriver(SIFT_CUDA_MEMSET32); d && count) {
    ScopedContext scope(*d);
    check(d->memsetD32Async(devicePtr(dst), value, count, stream),
          SIFT_CUDA_MEMSET32);
  }
}

extern "C" void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             void *stream) {
  if (Driver *d = usableDriver(SIFT_CUDA_MEMSET16); d && count) {
    ScopedContext scope(*d);
    check(d->memsetD16Async(devicePtr(dst), value, count, stream),
          SIFT_CUDA_MEMSET16);
  }
}

extern "C" void mgpuMemHostRegister(void *ptr, uint64_t size) {
  if (Driver *d = usableDriver(SIFT_CUDA_MEM_HOST_REGISTER); d && size) {
    ScopedContext scope(*d);
    check(d->memHostRegister(ptr, size, 0), SIFT_CUDA_MEM_HOST_REGISTER);
  }
}

extern "C" void mgpuMemHostUnregister(void *ptr) {
  if (Driver *d = usableDriver(SIFT_CUDA_MEM_HOST_UNREGISTER); d && ptr) {
    ScopedContext scope(*d);
    check(d->memHostUnregister(ptr), SIFT_CUDA_MEM_HOST_UNREGISTER);
  }
}

extern "C" void mgpuSetDefaultDevice(int32_t device) {
  // One device (0) is supported; another is an error of the call.
  if (device != 0)
    sift_rt_report(SIFT_RT_ERROR_CUDA, /*CUDA_ERROR_INVALID_DEVICE=*/101,
                   SIFT_CUDA_ENTRY_COUNT, 0);
}
