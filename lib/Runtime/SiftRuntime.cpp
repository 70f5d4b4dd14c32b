//===- SiftRuntime.cpp - The sift CPU runtime -------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Runtime/SiftRuntime.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace {
/// The first error recorded on this thread since the last take.
struct ErrorState {
  int64_t code = 0;
  int64_t value = 0;
};
thread_local ErrorState errorState;
} // namespace

extern "C" void sift_rt_error(int64_t code, int64_t value) {
  if (errorState.code != 0 || code == 0)
    return;
  errorState.code = code;
  errorState.value = value;
}

extern "C" int64_t sift_rt_take_error(int64_t *value) {
  int64_t code = errorState.code;
  if (value)
    *value = errorState.value;
  errorState = ErrorState();
  return code;
}

extern "C" const char *sift_rt_error_message(int64_t code) {
  switch (code) {
  case SIFT_RT_OK:
    return "no error";
  case SIFT_RT_ERROR_TARGET_OUT_OF_RANGE:
    return "sift.cross_entropy: a target is outside [0, C) and is not "
           "ignore_index";
  default:
    return "unknown sift runtime error";
  }
}

extern "C" void _mlir_ciface_sift_rt_error(int64_t code, int64_t value) {
  sift_rt_error(code, value);
}

extern "C" int64_t _mlir_ciface_sift_rt_take_error(int64_t *value) {
  return sift_rt_take_error(value);
}

//===----------------------------------------------------------------------===//
// Buffer allocation
//===----------------------------------------------------------------------===//

namespace {
/// Every block starts with a header of `kHeader` bytes (or the requested
/// alignment, if larger) whose last 16 bytes record the block's base pointer
/// and its key in the cache.
constexpr size_t kHeader = 64;
constexpr size_t kCacheMinSize = 64 * 1024;
constexpr size_t kCacheCapacity = size_t(1) << 30;

struct BlockInfo {
  void *base;
  size_t size;   // bytes asked for
  size_t offset; // header size (the alignment)
};

class BufferCache {
public:
  void *allocate(size_t alignment, size_t size) {
    size_t offset = alignment > kHeader ? alignment : kHeader;
    if (size >= kCacheMinSize) {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = free.find({size, offset});
      if (it != free.end() && !it->second.empty()) {
        void *ptr = it->second.back();
        it->second.pop_back();
        cached -= size;
        return ptr;
      }
    }
    void *base = nullptr;
    if (posix_memalign(&base, offset, offset + size) != 0)
      return nullptr;
    char *ptr = static_cast<char *>(base) + offset;
    BlockInfo info{base, size, offset};
    std::memcpy(ptr - sizeof(BlockInfo), &info, sizeof(BlockInfo));
    return ptr;
  }

  void release(void *ptr) {
    if (!ptr)
      return;
    BlockInfo info;
    std::memcpy(&info, static_cast<char *>(ptr) - sizeof(BlockInfo),
                sizeof(BlockInfo));
    if (info.size >= kCacheMinSize) {
      std::lock_guard<std::mutex> lock(mutex);
      if (cached + info.size <= kCacheCapacity) {
        free[{info.size, info.offset}].push_back(ptr);
        cached += info.size;
        return;
      }
    }
    std::free(info.base);
  }

private:
  std::mutex mutex;
  std::map<std::pair<size_t, size_t>, std::vector<void *>> free;
  size_t cached = 0;
};

BufferCache &bufferCache() {
  // Never destroyed: compiled code may free buffers during static
  // destruction of the host.
  static BufferCache *cache = new BufferCache();
  return *cache;
}
} // namespace

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  return bufferCache().allocate(kHeader, size);
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                    size_t size) {
  return bufferCache().allocate(alignment, size);
}

extern "C" void _mlir_memref_to_llvm_free(void *ptr) {
  bufferCache().release(ptr);
}
