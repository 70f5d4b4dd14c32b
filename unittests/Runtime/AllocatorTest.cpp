//===- AllocatorTest.cpp - The runtime's buffer allocator -------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Runtime/SiftRuntime.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstring>

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

} // namespace
