//===- SiftRuntime.cpp - The sift CPU runtime -------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Runtime/SiftRuntime.h"

#include "sift/Runtime/CudaRuntime.h"

#include <algorithm>
#include <atomic>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <dlfcn.h>
#include <map>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>
#include <vector>

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

namespace {
struct RecordedError {
  int64_t code = 0;
  int64_t values[3] = {0, 0, 0};

  void record(int64_t c, int64_t v0, int64_t v1, int64_t v2) {
    if (code != 0)
      return; // the first error wins
    code = c;
    values[0] = v0;
    values[1] = v1;
    values[2] = v2;
  }
};

struct Call;

/// A buffer block's place in the list of blocks its call allocated and has
/// not freed (in the block's header, beside its BlockInfo). A block
/// allocated on a call's own thread belongs to that call until the call
/// ends; blocks of OpenMP workers and of code run outside calls belong to
/// none.
struct BlockLink {
  BlockLink *prev = this, *next = this;
  Call *owner = nullptr;
  /// Freed on another thread while its call ran: the call frees it when it
  /// ends (its own thread alone changes its list).
  std::atomic<bool> freedElsewhere{false};

  void unlink() {
    prev->next = next;
    next->prev = prev;
    prev = next = this;
  }
  /// Puts `link` after this one (the list's head).
  void push(BlockLink *link) {
    link->prev = this;
    link->next = next;
    next->prev = link;
    next = link;
  }
};

/// One sift_rt_run in progress.
struct Call {
  RecordedError error; // guarded by registryMutex()
  jmp_buf exit;        // where sift_rt_fail jumps to
  BlockLink blocks;    // the head of its live blocks' list
};

/// When a call ends: a call that a long jump ended frees every block it
/// still holds (no result left it); one that returned hands the blocks it
/// returns to `outer` (a call that runs this one), or to nobody. Either way
/// it frees the blocks other threads freed.
void settleBlocks(Call &call, bool ended, Call *outer);

/// The calls in progress (any thread) and the errors raised outside them.
/// Errors are rare, so one lock for all is enough.
std::mutex &registryMutex() {
  static std::mutex *mutex = new std::mutex();
  return *mutex;
}
std::vector<Call *> &activeCalls() {
  static auto *calls = new std::vector<Call *>();
  return *calls;
}
RecordedError unattributed;

/// The call this thread runs (null on OpenMP workers and outside calls).
thread_local Call *currentCall = nullptr;

/// Whether the calling thread is inside an OpenMP parallel region (then a
/// long jump would leave the OpenMP runtime's team waiting). The runtime is
/// found where the JIT loaded it (globally); without it there is no region.
bool inParallelRegion() {
  using LevelFn = int (*)();
  static LevelFn level =
      reinterpret_cast<LevelFn>(dlsym(RTLD_DEFAULT, "omp_get_level"));
  return level && level() > 0;
}

/// Runs `fn(args)`; returns whether sift_rt_fail ended it.
__attribute__((noinline)) bool runGuarded(void (*fn)(void **), void **args,
                                          Call *call) {
  if (setjmp(call->exit) != 0)
    return true;
  fn(args);
  return false;
}
} // namespace

extern "C" void sift_rt_report(int64_t code, int64_t v0, int64_t v1,
                               int64_t v2) {
  if (code == 0)
    return;
  std::lock_guard<std::mutex> lock(registryMutex());
  if (Call *call = currentCall) {
    call->error.record(code, v0, v1, v2);
    return;
  }
  // A worker thread of some call's parallel region, or code run outside any
  // call: every call in progress hears of it.
  std::vector<Call *> &calls = activeCalls();
  if (calls.empty())
    unattributed.record(code, v0, v1, v2);
  for (Call *call : calls)
    call->error.record(code, v0, v1, v2);
}

extern "C" void sift_rt_error(int64_t code, int64_t value) {
  sift_rt_report(code, value, 0, 0);
}

extern "C" void sift_rt_fail(int64_t code, int64_t v0, int64_t v1, int64_t v2) {
  sift_rt_report(code, v0, v1, v2);
  // On the calling thread outside parallel regions only: a long jump on a
  // worker would leave the OpenMP runtime's team waiting.
  if (Call *call = currentCall; call && !inParallelRegion())
    longjmp(call->exit, 1);
}

extern "C" int64_t sift_rt_run(void (*fn)(void **), void **args,
                               int64_t *values) {
  Call call;
  Call *outer = currentCall;
  {
    std::lock_guard<std::mutex> lock(registryMutex());
    activeCalls().push_back(&call);
  }
  currentCall = &call;
  bool ended = runGuarded(fn, args, &call);
  currentCall = outer;
  settleBlocks(call, ended, outer);
  RecordedError error;
  {
    std::lock_guard<std::mutex> lock(registryMutex());
    std::vector<Call *> &calls = activeCalls();
    calls.erase(std::find(calls.begin(), calls.end(), &call));
    error = call.error;
  }
  if (values)
    std::memcpy(values, error.values, sizeof(error.values));
  return error.code;
}

extern "C" int64_t sift_rt_take_error(int64_t *value) {
  std::lock_guard<std::mutex> lock(registryMutex());
  int64_t code = unattributed.code;
  if (value)
    *value = unattributed.values[0];
  unattributed = RecordedError();
  return code;
}

extern "C" const char *sift_rt_error_message(int64_t code) {
  switch (code) {
  case SIFT_RT_OK:
    return "no error";
  case SIFT_RT_ERROR_TARGET_OUT_OF_RANGE:
  case SIFT_RT_ERROR_CROSS_ENTROPY_TARGET:
    return "cross_entropy: a target is outside [0, C) and is not "
           "ignore_index";
  case SIFT_RT_ERROR_CROSS_ENTROPY_ROWS:
    return "cross_entropy: the logits and the targets have different numbers "
           "of rows";
  case SIFT_RT_ERROR_CROSS_ENTROPY_WEIGHTS:
    return "cross_entropy: the class weights do not have C elements";
  case SIFT_RT_ERROR_RANDPERM_NEGATIVE:
    return "randperm: n is negative";
  case SIFT_RT_ERROR_RANDPERM_TOO_LARGE:
    return "randperm: n is too large";
  case SIFT_RT_ERROR_TOPK_K_EXCEEDS_SIZE:
    return "topk: k exceeds the input's size";
  case SIFT_RT_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  case SIFT_RT_ERROR_EXTENT_MISMATCH:
    return "operands of one op disagree on an extent";
  case SIFT_RT_ERROR_CUDA:
    return "a CUDA driver call failed";
  case SIFT_RT_ERROR_NO_CUDA:
    return "no CUDA driver/device";
  case SIFT_RT_ERROR_ROW_TOO_LONG:
    return "a row is longer than the GPU kernels take";
  default:
    return "unknown sift runtime error";
  }
}

extern "C" size_t sift_rt_format_error(int64_t code, const int64_t *values,
                                       char *buffer, size_t size) {
  static const int64_t zeros[3] = {0, 0, 0};
  const int64_t *v = values ? values : zeros;
  long long a = v[0], b = v[1], c = v[2];
  int n;
  switch (code) {
  case SIFT_RT_ERROR_CROSS_ENTROPY_TARGET:
    n = std::snprintf(buffer, size,
                      "cross_entropy: target %lld in row %lld is outside "
                      "[0, %lld)",
                      a, b, c);
    break;
  case SIFT_RT_ERROR_CROSS_ENTROPY_ROWS:
    n = std::snprintf(buffer, size,
                      "cross_entropy: the logits have %lld rows but the "
                      "targets have %lld elements",
                      a, b);
    break;
  case SIFT_RT_ERROR_CROSS_ENTROPY_WEIGHTS:
    n = std::snprintf(buffer, size,
                      "cross_entropy: the class weights have %lld elements, "
                      "the logits %lld classes",
                      a, b);
    break;
  case SIFT_RT_ERROR_RANDPERM_NEGATIVE:
    n = std::snprintf(buffer, size, "randperm: n = %lld is negative", a);
    break;
  case SIFT_RT_ERROR_RANDPERM_TOO_LARGE:
    n = std::snprintf(buffer, size,
                      "randperm: n = %lld is too large (at most %lld)", a, b);
    break;
  case SIFT_RT_ERROR_TOPK_K_EXCEEDS_SIZE:
    n = std::snprintf(buffer, size,
                      "topk: k = %lld exceeds the input's size %lld", a, b);
    break;
  case SIFT_RT_ERROR_OUT_OF_MEMORY:
    n = std::snprintf(buffer, size,
                      "out of memory: cannot allocate a buffer of %lld bytes",
                      a);
    break;
  case SIFT_RT_ERROR_CUDA:
  case SIFT_RT_ERROR_NO_CUDA:
    n = static_cast<int>(sift_cuda_format_error(code, v, buffer, size));
    break;
  case SIFT_RT_ERROR_ROW_TOO_LONG:
    n = std::snprintf(buffer, size,
                      "a row of %lld elements is longer than the GPU kernels "
                      "take (at most %lld)",
                      a, b);
    break;
  case SIFT_RT_ERROR_EXTENT_MISMATCH:
    n = c > 0 ? std::snprintf(buffer, size,
                              "the operands of the op at line %lld disagree "
                              "on an extent: %lld and %lld",
                              c, a, b)
              : std::snprintf(buffer, size,
                              "the operands of an op disagree on an extent: "
                              "%lld and %lld",
                              a, b);
    break;
  default:
    n = std::snprintf(buffer, size, "code %lld: %s (value %lld)",
                      static_cast<long long>(code), sift_rt_error_message(code),
                      a);
    break;
  }
  return n < 0 ? 0 : static_cast<size_t>(n);
}

extern "C" void _mlir_ciface_sift_rt_error(int64_t code, int64_t value) {
  sift_rt_error(code, value);
}

extern "C" void _mlir_ciface_sift_rt_report(int64_t code, int64_t v0,
                                            int64_t v1, int64_t v2) {
  sift_rt_report(code, v0, v1, v2);
}

extern "C" void _mlir_ciface_sift_rt_fail(int64_t code, int64_t v0, int64_t v1,
                                          int64_t v2) {
  sift_rt_fail(code, v0, v1, v2);
}

extern "C" int64_t _mlir_ciface_sift_rt_take_error(int64_t *value) {
  return sift_rt_take_error(value);
}

//===----------------------------------------------------------------------===//
// Buffer allocation
//===----------------------------------------------------------------------===//

namespace {
/// Every block starts with a header of `kHeader` bytes (or the requested
/// alignment, if larger) that ends with the block's BlockLink and then its
/// BlockInfo (base pointer and key in the cache).
constexpr size_t kHeader = 64;
/// Freed large blocks kept for reuse, at most.
constexpr size_t kMaxCachedBlocks = 1 << 16;

/// The bytes of freed blocks kept for reuse: a quarter of the machine's
/// memory, at least 1 GiB, or SIFT_BUFFER_CACHE_MB. A batched call at
/// N = 1e6, B = 32 frees more than 1 GiB of temporaries; past the cache's
/// capacity they went back to the kernel and every call spent a sixth of
/// its time zeroing fresh pages.
size_t cacheCapacity() {
  static const size_t capacity = [] {
    if (const char *env = std::getenv("SIFT_BUFFER_CACHE_MB")) {
      char *end = nullptr;
      unsigned long long mb = std::strtoull(env, &end, 10);
      if (end != env && *end == '\0')
        return static_cast<size_t>(
                   std::min<unsigned long long>(mb, SIZE_MAX >> 20))
               << 20;
    }
    long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
    size_t quarter =
        pages > 0 && pageSize > 0
            ? static_cast<size_t>(pages) / 4 * static_cast<size_t>(pageSize)
            : 0;
    return std::max(quarter, size_t(1) << 30);
  }();
  return capacity;
}

struct BlockInfo {
  void *base;
  size_t size;   // bytes asked for
  size_t offset; // header size (the alignment)
  bool mapped;   // mmap-ed (a fallback after a failure), not malloc-ed
};

/// A request that cannot be met: records the error, then ends the call when
/// that is safe (see SiftRuntime.h); returns only when it is not.
void allocationFailed(size_t size) {
  sift_rt_fail(SIFT_RT_ERROR_OUT_OF_MEMORY,
               size > static_cast<size_t>(INT64_MAX)
                   ? INT64_MAX
                   : static_cast<int64_t>(size),
               0, 0);
}

/// The header of a block `allocate` handed out.
BlockInfo blockInfoOf(void *ptr) {
  BlockInfo info;
  std::memcpy(&info, static_cast<char *>(ptr) - sizeof(BlockInfo),
              sizeof(BlockInfo));
  return info;
}

static_assert(sizeof(BlockLink) + sizeof(BlockInfo) <= kHeader &&
                  (kHeader - sizeof(BlockInfo) - sizeof(BlockLink)) %
                          alignof(BlockLink) ==
                      0,
              "a block's header holds its link and its info");

void *linkAddress(void *ptr) {
  return static_cast<char *>(ptr) - sizeof(BlockInfo) - sizeof(BlockLink);
}
BlockLink *linkOf(void *ptr) {
  return std::launder(static_cast<BlockLink *>(linkAddress(ptr)));
}
void *blockOf(BlockLink *link) {
  return reinterpret_cast<char *>(link) + sizeof(BlockLink) + sizeof(BlockInfo);
}

/// A block handed out on this thread joins the list of the call the thread
/// runs (if any).
void adopt(void *ptr) {
  auto *link = new (linkAddress(ptr)) BlockLink();
  if (Call *call = currentCall) {
    link->owner = call;
    call->blocks.push(link);
  }
}

/// A block freed on this thread leaves its call's list; returns false where
/// it belongs to a call this thread does not run (then that call frees it
/// when it ends).
bool disown(void *ptr) {
  BlockLink *link = linkOf(ptr);
  if (!link->owner)
    return true;
  if (link->owner != currentCall) {
    link->freedElsewhere.store(true, std::memory_order_release);
    return false;
  }
  link->unlink();
  link->owner = nullptr;
  return true;
}

/// Freed blocks by exact size and header: a program called in a loop
/// allocates the same sizes each call.
struct FreeLists {
  std::map<std::pair<size_t, size_t>, std::vector<void *>> blocks;
  size_t bytes = 0, count = 0;

  void *take(size_t size, size_t offset) {
    auto it = blocks.find({size, offset});
    if (it == blocks.end() || it->second.empty())
      return nullptr;
    void *ptr = it->second.back();
    it->second.pop_back();
    bytes -= size;
    --count;
    return ptr;
  }

  /// Keeps `ptr` unless that would pass the bounds.
  bool put(void *ptr, const BlockInfo &info, size_t maxBytes, size_t maxCount) {
    if (bytes + info.size > maxBytes || count >= maxCount)
      return false;
    blocks[{info.size, info.offset}].push_back(ptr);
    bytes += info.size;
    ++count;
    return true;
  }
};

/// Blocks below this size are kept by the thread that frees them, with no
/// lock: the rows of a parallel loop allocate their small temporaries
/// concurrently, and a shared list made them wait for each other (the
/// batched sampler at N = 1e3, B = 32 took 1.6x as long as with malloc).
constexpr size_t kSmallBlock = 64 * 1024;
constexpr size_t kMaxThreadBlocks = 4096;
constexpr size_t kMaxThreadBytes = 32 << 20;

/// A thread's small blocks, freed when the thread ends; past that, its
/// blocks go back to malloc (a host may free results in its thread_local
/// or static destructors).
struct ThreadFreeLists : FreeLists {
  ~ThreadFreeLists();
};
thread_local bool threadFreeListsGone = false;

FreeLists *threadFreeLists() {
  if (threadFreeListsGone)
    return nullptr;
  thread_local ThreadFreeLists lists;
  return &lists;
}

ThreadFreeLists::~ThreadFreeLists() {
  threadFreeListsGone = true;
  for (auto &entry : blocks)
    for (void *ptr : entry.second)
      std::free(blockInfoOf(ptr).base);
}

/// Allocation with reuse. Small blocks come from the calling thread's free
/// lists, large ones from lists shared under a lock (at most
/// cacheCapacity() bytes and kMaxCachedBlocks blocks), so that neither a
/// large temporary's fresh pages nor a small one's allocator call (a
/// 64-byte aligned posix_memalign and its free: about 800 instructions, a
/// third of the sampler's work at N = 1e3, B = 1, 119 blocks a call) is paid
/// again on every call.
class BufferCache {
public:
  void *allocate(size_t alignment, size_t size) {
    void *ptr = obtain(alignment, size);
    if (ptr)
      adopt(ptr);
    return ptr;
  }

  void release(void *ptr) {
    if (ptr && disown(ptr))
      recycle(ptr);
  }

  /// Keeps a freed block for reuse or gives it back to the system.
  void recycle(void *ptr) {
    BlockInfo info = blockInfoOf(ptr);
    if (info.mapped) {
      munmap(info.base, info.offset + info.size);
      return;
    }
    if (info.size < kSmallBlock) {
      FreeLists *lists = threadFreeLists();
      if (lists && lists->put(ptr, info, kMaxThreadBytes, kMaxThreadBlocks))
        return;
    } else {
      std::lock_guard<std::mutex> lock(mutex);
      if (shared.put(ptr, info, cacheCapacity(), kMaxCachedBlocks))
        return;
    }
    std::free(info.base);
  }

private:
  /// A block from the free lists or the system.
  void *obtain(size_t alignment, size_t size) {
    size_t offset = alignment > kHeader ? alignment : kHeader;
    if (size < kSmallBlock) {
      if (FreeLists *lists = threadFreeLists())
        if (void *ptr = lists->take(size, offset))
          return ptr;
    } else {
      std::lock_guard<std::mutex> lock(mutex);
      if (void *ptr = shared.take(size, offset))
        return ptr;
    }
    // A size computed from a negative or overflowed extent wraps to a huge
    // one: never let `offset + size` wrap to a small block.
    bool mapped = false;
    void *base = nullptr;
    if (size > static_cast<size_t>(PTRDIFF_MAX) - offset ||
        posix_memalign(&base, offset, offset + size) != 0) {
      allocationFailed(size);
      // Still running (a worker thread or a parallel region): the error is
      // recorded; give compiled code address space the kernel backs only
      // where it is touched, rather than a null pointer.
      if (size > static_cast<size_t>(PTRDIFF_MAX) - offset)
        return nullptr;
      base = mmap(nullptr, offset + size, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED)
        return nullptr;
      mapped = true;
    }
    char *ptr = static_cast<char *>(base) + offset;
    if (!mapped)
      sift_rt_advise_huge_pages(ptr, size);
    BlockInfo info{base, size, offset, mapped};
    std::memcpy(ptr - sizeof(BlockInfo), &info, sizeof(BlockInfo));
    return ptr;
  }

  std::mutex mutex;
  FreeLists shared;
};

BufferCache &bufferCache() {
  // Never destroyed: compiled code may free buffers during static
  // destruction of the host.
  static BufferCache *cache = new BufferCache();
  return *cache;
}

void settleBlocks(Call &call, bool ended, Call *outer) {
  BlockLink &head = call.blocks;
  while (head.next != &head) {
    BlockLink *link = head.next;
    link->unlink();
    link->owner = nullptr;
    if (ended || link->freedElsewhere.load(std::memory_order_acquire)) {
      bufferCache().recycle(blockOf(link));
    } else if (outer) {
      link->owner = outer;
      outer->blocks.push(link);
    }
  }
}
} // namespace

extern "C" void sift_rt_advise_huge_pages(void *ptr, size_t size) {
#ifdef MADV_HUGEPAGE
  if (!ptr || size < SIFT_RT_HUGE_PAGE_MIN_BYTES)
    return;
  // madvise takes whole pages: from the page the block starts in (a page it
  // may share with another block, whose advice this changes too, harmlessly).
  static const uintptr_t pageSize = uintptr_t(sysconf(_SC_PAGESIZE));
  uintptr_t begin = reinterpret_cast<uintptr_t>(ptr) & ~(pageSize - 1);
  uintptr_t end = reinterpret_cast<uintptr_t>(ptr) + size;
  (void)madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)ptr;
  (void)size;
#endif
}

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
