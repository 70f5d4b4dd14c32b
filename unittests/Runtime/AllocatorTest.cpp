//===- AllocatorTest.cpp - The runtime's buffer allocator -------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Runtime/SiftRuntime.h"

#include "HugePages.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstring>
#include <iterator>
#include <set>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

TEST(AllocatorTest, LargeBlocksAreReusedBySize) {
  const size_t size = 1 << 20;
  void *a = _mlir_memref_to_llvm_alloc(size);
  ASSERT_NE(a, nullptr);
  std::memset(a, 0x5a, size); // The whole block is usable.
  _mlir_memref_to_llvm_free(a);
  void *b = _mlir_memref_to_llvm_alloc(size);
  EXPECT_EQ(a, b); // Handed out again instead of mapped anew.
  void *c = _mlir_memref_to_llvm_alloc(size);
  EXPECT_NE(b, c); // A block in use is never handed out twice.
  _mlir_memref_to_llvm_free(b);
  _mlir_memref_to_llvm_free(c);
}

TEST(AllocatorTest, KeepsMoreThanOneGiBWhereTheMachineHasIt) {
  // A batched call at N = 1e6, B = 32 frees more than 1 GiB of temporaries;
  // the cache keeps a quarter of the machine's memory so that the next call
  // reuses them. Three blocks of 512 MiB (never touched, so never backed).
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  const size_t size = (size_t(512) << 20) + 4096; // a size of its own
  if (pages <= 0 || pageSize <= 0 ||
      size_t(pages) / 4 * size_t(pageSize) < 3 * size)
    GTEST_SKIP() << "a quarter of this machine's memory is under 1.5 GiB";
  // A mark in each block's first bytes tells a cached block (the mark is
  // still there) from one the kernel mapped again at the same address
  // (zeros).
  const uint64_t mark = 0x51f7cafe;
  void *blocks[3];
  for (void *&block : blocks) {
    block = _mlir_memref_to_llvm_alloc(size);
    ASSERT_NE(block, nullptr);
    std::memcpy(block, &mark, sizeof(mark));
  }
  for (void *block : blocks)
    _mlir_memref_to_llvm_free(block);
  std::set<void *> freed(std::begin(blocks), std::end(blocks));
  for (void *&block : blocks) {
    block = _mlir_memref_to_llvm_alloc(size);
    ASSERT_NE(block, nullptr);
    uint64_t kept = 0;
    std::memcpy(&kept, block, sizeof(kept));
    // All three came back from the cache.
    EXPECT_EQ(freed.count(block), 1u);
    EXPECT_EQ(kept, mark);
  }
  for (void *block : blocks)
    _mlir_memref_to_llvm_free(block);
}

TEST(AllocatorTest, LargeBlocksAskForHugePages) {
  // Compiled code streams through its large temporaries and gathers rows
  // from them: they are advised huge pages, as NumPy's arrays are.
  std::string unavailable = sift_test::hugePagesUnavailable();
  if (!unavailable.empty())
    GTEST_SKIP() << unavailable;
  const size_t size = (size_t(24) << 20) + 3 * 4096; // a size of its own
  char *block = static_cast<char *>(_mlir_memref_to_llvm_alloc(size));
  ASSERT_NE(block, nullptr);
  EXPECT_TRUE(sift_test::advisedHugePages(block + size / 2));
  EXPECT_TRUE(sift_test::advisedHugePages(block + size - 1));
  _mlir_memref_to_llvm_free(block);
  // The helper itself: a mapping of its own, advised only from the size up.
  const size_t mapped = size_t(8) << 20;
  void *map = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  sift_rt_advise_huge_pages(map, SIFT_RT_HUGE_PAGE_MIN_BYTES - 1);
  EXPECT_FALSE(sift_test::advisedHugePages(map));
  sift_rt_advise_huge_pages(static_cast<char *>(map) + 100, mapped - 100);
  EXPECT_TRUE(sift_test::advisedHugePages(map));
  munmap(map, mapped);
}

TEST(AllocatorTest, HonoursAlignment) {
  for (size_t alignment : {16, 64, 128, 4096}) {
    void *p = _mlir_memref_to_llvm_aligned_alloc(alignment, 100);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u) << alignment;
    _mlir_memref_to_llvm_free(p);
  }
}

TEST(AllocatorTest, DifferentSizesAndNullAreSafe) {
  _mlir_memref_to_llvm_free(nullptr);
  void *small = _mlir_memref_to_llvm_alloc(8);
  void *large = _mlir_memref_to_llvm_alloc(3 << 20);
  ASSERT_NE(small, nullptr);
  ASSERT_NE(large, nullptr);
  _mlir_memref_to_llvm_free(large);
  void *other = _mlir_memref_to_llvm_alloc(2 << 20);
  EXPECT_NE(other, large); // A block of another size is not reused.
  _mlir_memref_to_llvm_free(small);
  _mlir_memref_to_llvm_free(other);
}

TEST(AllocatorTest, SmallBlocksAreReusedOnTheirThread) {
  // A program called in a loop allocates the same small temporaries each
  // call: they come back from the thread's own lists, not from malloc.
  void *a = _mlir_memref_to_llvm_alloc(100);
  ASSERT_NE(a, nullptr);
  std::memset(a, 0x5a, 100);
  _mlir_memref_to_llvm_free(a);
  void *b = _mlir_memref_to_llvm_alloc(100);
  EXPECT_EQ(a, b);
  void *c = _mlir_memref_to_llvm_alloc(100);
  EXPECT_NE(b, c);
  // A block of another alignment is another key: reuse keeps alignment.
  void *d = _mlir_memref_to_llvm_aligned_alloc(4096, 100);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d) % 4096, 0u);
  _mlir_memref_to_llvm_free(b);
  void *e = _mlir_memref_to_llvm_aligned_alloc(4096, 100);
  EXPECT_NE(e, b);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(e) % 4096, 0u);
  _mlir_memref_to_llvm_free(c);
  _mlir_memref_to_llvm_free(d);
  _mlir_memref_to_llvm_free(e);
}

TEST(AllocatorTest, SmallBlocksCrossThreads) {
  // Blocks allocated on one thread and freed on another (a parallel loop's
  // results, freed by the host) join the freeing thread's lists; a thread
  // that ends frees what it kept. The sanitizer stage checks that nothing
  // is freed twice or leaked.
  std::vector<void *> fromWorker;
  std::thread worker([&] {
    for (int i = 0; i < 64; ++i) {
      void *p = _mlir_memref_to_llvm_alloc(32 + i);
      ASSERT_NE(p, nullptr);
      std::memset(p, i, 32 + i);
      fromWorker.push_back(p);
    }
    // Kept by this thread until it ends.
    for (int i = 0; i < 16; ++i)
      _mlir_memref_to_llvm_free(_mlir_memref_to_llvm_alloc(1000));
  });
  worker.join();
  for (void *p : fromWorker)
    _mlir_memref_to_llvm_free(p);
  // Freed here, so reused here.
  void *again = _mlir_memref_to_llvm_alloc(32);
  EXPECT_EQ(again, fromWorker[0]);
  _mlir_memref_to_llvm_free(again);
  // More blocks than a thread keeps: the rest go back to malloc.
  std::vector<void *> many;
  for (int i = 0; i < 5000; ++i)
    many.push_back(_mlir_memref_to_llvm_alloc(24));
  for (void *p : many)
    _mlir_memref_to_llvm_free(p);
}

} // namespace
