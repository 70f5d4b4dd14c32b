//===- ErrorTest.cpp - The runtime's error channel --------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// sift_rt_run returns the first error recorded during the call, whichever
// thread raised it, and a buffer that cannot be allocated ends the call
// instead of returning null to compiled code. A call ended that way frees
// the buffers it allocated.
//
//===----------------------------------------------------------------------===//

#include "sift/Runtime/SiftRuntime.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <string>
#include <thread>

namespace {

int reachedAfterAlloc = 0;

void reportOnAnotherThread(void **) {
  std::thread worker(
      [] { sift_rt_report(SIFT_RT_ERROR_CROSS_ENTROPY_TARGET, 3, 4095, 3); });
  worker.join();
  // The first error wins.
  sift_rt_report(SIFT_RT_ERROR_RANDPERM_NEGATIVE, -1, 0, 0);
}

void allocateTooMuch(void **) {
  void *p = _mlir_memref_to_llvm_alloc(SIZE_MAX - 8); // wraps with a header
  reachedAfterAlloc = 1;
  *static_cast<char *>(p) = 1; // never reached
}

void noError(void **) {}

int reachedAfterFail = 0;

// What the GPU pipeline's host code does before a compaction of a dynamic
// row longer than the compact kernel's i32 positions take.
void rowTooLong(void **) {
  sift_rt_fail(SIFT_RT_ERROR_ROW_TOO_LONG, 3000000000, 2147483647, 0);
  reachedAfterFail = 1;
}

// Blocks of a small size (this thread's free lists) and a large one (the
// shared lists): a freed block is the next one of its size handed out on the
// thread that freed it.
constexpr size_t kSmall = 1000, kLarge = 1 << 20;
void *small = nullptr, *large = nullptr, *returned = nullptr;

// What code compiled for a disagreeing extent does: buffers allocated, then
// a check that fails (sift_rt_fail), with the buffers never freed by it.
void allocateThenFail(void **) {
  small = _mlir_memref_to_llvm_alloc(kSmall);
  large = _mlir_memref_to_llvm_aligned_alloc(128, kLarge);
  sift_rt_fail(SIFT_RT_ERROR_EXTENT_MISMATCH, 6, 5, 0);
}

void allocateAndReturn(void **) {
  returned = _mlir_memref_to_llvm_alloc(kSmall);
  small = _mlir_memref_to_llvm_alloc(kSmall);
  _mlir_memref_to_llvm_free(small);
}

// A call that runs another one: the inner call's result is the outer's
// until the outer one ends.
void callThenFail(void **) {
  EXPECT_EQ(sift_rt_run(&allocateAndReturn, nullptr, nullptr), 0);
  sift_rt_fail(SIFT_RT_ERROR_EXTENT_MISMATCH, 6, 5, 0);
}

// A block freed on another thread while its call runs.
void freeOnAnotherThread(void **) {
  small = _mlir_memref_to_llvm_alloc(kSmall);
  std::thread worker([] { _mlir_memref_to_llvm_free(small); });
  worker.join();
}

} // namespace

TEST(ErrorTest, AFailedCallFreesTheBuffersItAllocated) {
  int64_t values[3] = {};
  EXPECT_EQ(sift_rt_run(&allocateThenFail, nullptr, values),
            SIFT_RT_ERROR_EXTENT_MISMATCH);
  // Both went back to the cache (the sanitizer stage's leak checks see a
  // block that did not).
  void *againSmall = _mlir_memref_to_llvm_alloc(kSmall);
  void *againLarge = _mlir_memref_to_llvm_aligned_alloc(128, kLarge);
  EXPECT_EQ(againSmall, small);
  EXPECT_EQ(againLarge, large);
  _mlir_memref_to_llvm_free(againSmall);
  _mlir_memref_to_llvm_free(againLarge);
}

TEST(ErrorTest, AReturnedBufferIsTheCallers) {
  EXPECT_EQ(sift_rt_run(&allocateAndReturn, nullptr, nullptr), 0);
  // Still live after the call: the next block of its size is another one.
  void *other = _mlir_memref_to_llvm_alloc(kSmall);
  EXPECT_NE(other, returned);
  _mlir_memref_to_llvm_free(other);
  _mlir_memref_to_llvm_free(returned);
  void *again = _mlir_memref_to_llvm_alloc(kSmall);
  EXPECT_EQ(again, returned);
  _mlir_memref_to_llvm_free(again);

  // An inner call's result, when the outer call fails, is freed with it.
  EXPECT_EQ(sift_rt_run(&callThenFail, nullptr, nullptr),
            SIFT_RT_ERROR_EXTENT_MISMATCH);
  void *a = _mlir_memref_to_llvm_alloc(kSmall);
  void *b = _mlir_memref_to_llvm_alloc(kSmall);
  EXPECT_TRUE((a == returned || b == returned)) << returned;
  _mlir_memref_to_llvm_free(a);
  _mlir_memref_to_llvm_free(b);
}

TEST(ErrorTest, ABufferFreedOnAnotherThreadIsFreedWhenItsCallEnds) {
  EXPECT_EQ(sift_rt_run(&freeOnAnotherThread, nullptr, nullptr), 0);
  void *again = _mlir_memref_to_llvm_alloc(kSmall);
  EXPECT_EQ(again, small);
  _mlir_memref_to_llvm_free(again);
}

TEST(ErrorTest, RowTooLongEndsTheCallWithItsLength) {
  int64_t values[3] = {};
  EXPECT_EQ(sift_rt_run(&rowTooLong, nullptr, values),
            SIFT_RT_ERROR_ROW_TOO_LONG);
  EXPECT_EQ(reachedAfterFail, 0);
  char text[128];
  sift_rt_format_error(SIFT_RT_ERROR_ROW_TOO_LONG, values, text, sizeof(text));
  EXPECT_EQ(std::string(text), "a row of 3000000000 elements is longer than "
                               "the GPU kernels take (at most 2147483647)");
}

TEST(ErrorTest, ErrorsFromAnyThreadReachTheCall) {
  int64_t values[3] = {};
  EXPECT_EQ(sift_rt_run(&reportOnAnotherThread, nullptr, values),
            SIFT_RT_ERROR_CROSS_ENTROPY_TARGET);
  EXPECT_EQ(values[0], 3);
  EXPECT_EQ(values[1], 4095);
  EXPECT_EQ(values[2], 3);
  char text[128];
  sift_rt_format_error(SIFT_RT_ERROR_CROSS_ENTROPY_TARGET, values, text,
                       sizeof(text));
  EXPECT_EQ(std::string(text),
            "cross_entropy: target 3 in row 4095 is outside [0, 3)");
  // Cleared: the next call is clean, and nothing leaked outside calls.
  EXPECT_EQ(sift_rt_run(&noError, nullptr, values), 0);
  EXPECT_EQ(sift_rt_take_error(nullptr), 0);
}

TEST(ErrorTest, AllocationFailureEndsTheCall) {
  int64_t values[3] = {};
  EXPECT_EQ(sift_rt_run(&allocateTooMuch, nullptr, values),
            SIFT_RT_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(reachedAfterAlloc, 0);
  EXPECT_EQ(values[0], INT64_MAX);
  // Outside a call, a failed allocation is a null pointer and a recorded
  // error.
  EXPECT_EQ(_mlir_memref_to_llvm_alloc(SIZE_MAX - 8), nullptr);
  int64_t value = 0;
  EXPECT_EQ(sift_rt_take_error(&value), SIFT_RT_ERROR_OUT_OF_MEMORY);
}

//===----------------------------------------------------------------------===//
// The CUDA runtime layer without a driver
//===----------------------------------------------------------------------===//

#include "sift/Runtime/CudaRuntime.h"

#include <cstdlib>

namespace {
void *cudaAllocResult = reinterpret_cast<void *>(1);

/// What code lowered by gpu-to-llvm does first: a stream, a device buffer.
void allocateOnTheDevice(void **) {
  void *stream = mgpuStreamCreate();
  cudaAllocResult = mgpuMemAlloc(64, stream, false);
  mgpuMemFree(cudaAllocResult, stream);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
}
} // namespace

// Without a driver (SIFT_CUDA_DISABLE=1 acts as if libcuda.so.1 were
// missing; each test runs in its own process), every entry point records
// the call's error and returns null handles instead of crashing.
TEST(CudaRuntimeTest, NoDriverIsAnErrorOfTheCall) {
  ::setenv("SIFT_CUDA_DISABLE", "1", /*overwrite=*/1);
  char status[256];
  EXPECT_EQ(sift_cuda_status(status, sizeof(status)), SIFT_CUDA_NO_DRIVER);
  EXPECT_EQ(std::string(status), "no CUDA driver/device: libcuda.so.1 not "
                                 "loaded (SIFT_CUDA_DISABLE=1)");

  int64_t values[3] = {0, 0, 0};
  EXPECT_EQ(sift_rt_run(allocateOnTheDevice, nullptr, values),
            SIFT_RT_ERROR_NO_CUDA);
  EXPECT_EQ(cudaAllocResult, nullptr);
  // The first error wins: the stream that could not be created.
  EXPECT_EQ(values[0], SIFT_CUDA_NO_DRIVER);
  EXPECT_EQ(values[1], SIFT_CUDA_STREAM_CREATE);
  char text[256];
  sift_rt_format_error(SIFT_RT_ERROR_NO_CUDA, values, text, sizeof(text));
  EXPECT_EQ(std::string(text),
            "no CUDA driver/device: mgpuStreamCreate called: libcuda.so.1 "
            "not loaded (SIFT_CUDA_DISABLE=1)");
  EXPECT_EQ(std::string(sift_rt_error_message(SIFT_RT_ERROR_NO_CUDA)),
            "no CUDA driver/device");
}

// Without SIFT_CUDA_DISABLE, on this machine or one with a GPU: the status
// is either ready or a "no CUDA driver/device" message, never a crash.
TEST(CudaRuntimeTest, StatusNamesWhatIsMissing) {
  ::unsetenv("SIFT_CUDA_DISABLE");
  char status[512];
  int64_t code = sift_cuda_status(status, sizeof(status));
  if (code == SIFT_CUDA_AVAILABLE)
    EXPECT_EQ(std::string(status), "CUDA device 0 ready");
  else
    EXPECT_EQ(std::string(status).rfind("no CUDA driver/device: ", 0), 0u)
        << status;
}

// Device timing without a device: enabling it and taking the totals is
// harmless, and nothing was timed (no launch reached a driver).
TEST(CudaRuntimeTest, ProfileWithoutDriverTimesNothing) {
  ::setenv("SIFT_CUDA_DISABLE", "1", /*overwrite=*/1);
  sift_cuda_profile_enable(true);
  int64_t args[1] = {0};
  void *params[1] = {&args[0]};
  mgpuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr, 1);
  sift_rt_take_error(nullptr);
  int64_t launches = -1;
  EXPECT_EQ(sift_cuda_profile_take(&launches), 0.0);
  EXPECT_EQ(launches, 0);
  sift_cuda_profile_enable(false);
}
