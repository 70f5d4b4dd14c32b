//===- CAPIHostileTest.cpp - Hostile inputs at the C API --------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// One test per class of hostile input at the JIT boundary (issue 10 §3):
// counts that overflow, requests that cannot be allocated, errors raised on
// OpenMP worker threads, dynamic extents that disagree, i1 bytes other than
// 0/1, sizes out of range, out-of-range enums; then NaN, empty and strided
// inputs. Each is a status with a message naming the values, never a crash.
//
//===----------------------------------------------------------------------===//

#include "sift-c/Sift.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char *kProgram = R"mlir(
func.func @ce(%x: tensor<?x3xf32>, %t: tensor<?xi64>) -> tensor<f32> {
  %m = sift.cross_entropy %x, %t reduction = mean : tensor<?x3xf32>, tensor<?xi64> -> tensor<f32>
  return %m : tensor<f32>
}
func.func @ce_none(%x: tensor<4096x3xf32>, %t: tensor<4096xi64>) -> tensor<4096xf32> {
  %r = sift.cross_entropy %x, %t reduction = none : tensor<4096x3xf32>, tensor<4096xi64> -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}
func.func @nonzero(%x: tensor<?xi1>) -> tensor<?xi64> {
  %n = sift.nonzero %x : tensor<?xi1> -> tensor<?xi64>
  return %n : tensor<?xi64>
}
func.func @randperm(%n: index, %seed: i64) -> tensor<?xi64> {
  %p = sift.randperm %n, %seed sort : tensor<?xi64>
  return %p : tensor<?xi64>
}
func.func @randperm_bounded(%n: index {sift.bound = 8 : i64}, %seed: i64) -> tensor<?xi64> {
  %p = sift.randperm %n, %seed : tensor<?xi64>
  return %p : tensor<?xi64>
}
func.func @topk(%x: tensor<?xf32>) -> (tensor<3xf32>, tensor<3xi64>) {
  %v, %i = sift.topk %x k(3) : tensor<?xf32> -> tensor<3xf32>, tensor<3xi64>
  return %v, %i : tensor<3xf32>, tensor<3xi64>
}
func.func @copy(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.copy ins(%x : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
)mlir";

class CAPIHostileTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(sift_engine_create_from_source(kProgram, std::strlen(kProgram),
                                             nullptr, &engine),
              SIFT_OK)
        << sift_last_error_message();
  }
  static void TearDownTestSuite() { sift_engine_destroy(engine); }
  void TearDown() override {
    for (sift_tensor_t t : owned)
      sift_tensor_destroy(t);
  }

  sift_tensor_t view(const void *data, sift_dtype_t dtype,
                     std::vector<int64_t> shape,
                     const int64_t *strides = nullptr) {
    sift_tensor_t t = nullptr;
    EXPECT_EQ(sift_tensor_create_view(data, dtype, shape.size(), shape.data(),
                                      strides, &t),
              SIFT_OK)
        << sift_last_error_message();
    owned.push_back(t);
    return t;
  }
  sift_tensor_t scalar(int64_t v, sift_dtype_t dtype = SIFT_DTYPE_I64) {
    sift_tensor_t t = nullptr;
    EXPECT_EQ(sift_tensor_create_scalar_int(v, dtype, &t), SIFT_OK);
    owned.push_back(t);
    return t;
  }
  /// Calls `name`; on success the results are owned by the fixture.
  sift_status_t call(const char *name, std::vector<sift_tensor_t> args,
                     std::vector<sift_tensor_t> &results) {
    results.assign(4, nullptr);
    size_t n = 0;
    sift_status_t s = sift_engine_call(engine, name, args.data(), args.size(),
                                       results.data(), results.size(), &n);
    results.resize(n);
    owned.insert(owned.end(), results.begin(), results.end());
    return s;
  }
  static std::string message() { return sift_last_error_message(); }

  static sift_engine_t engine;
  std::vector<sift_tensor_t> owned;
};

sift_engine_t CAPIHostileTest::engine = nullptr;

} // namespace

TEST_F(CAPIHostileTest, CountsThatOverflowAreErrors) {
  float a[4] = {};
  sift_tensor_t t = nullptr;
  // 2^62 x 4 f32: the byte count wraps to 0 mod 2^64.
  int64_t shape[2] = {int64_t(1) << 62, 4};
  EXPECT_EQ(sift_tensor_create_view(a, SIFT_DTYPE_F32, 2, shape, nullptr, &t),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message(), "tensor: shape [4611686018427387904, 4] of f32 is too "
                       "large (its size in bytes overflows a 64-bit integer)");
  EXPECT_EQ(t, nullptr);
  EXPECT_EQ(sift_tensor_create_copy(a, SIFT_DTYPE_F32, 2, shape, nullptr, &t),
            SIFT_ERROR_INVALID_ARGUMENT);
  // Element count alone overflows (i1: one byte each).
  int64_t wide[3] = {int64_t(1) << 32, int64_t(1) << 32, 2};
  EXPECT_EQ(sift_tensor_create_view(a, SIFT_DTYPE_BOOL, 3, wide, nullptr, &t),
            SIFT_ERROR_INVALID_ARGUMENT);
  // Strides whose offsets overflow, and INT64_MIN.
  int64_t two[2] = {2, 2}, strides[2] = {int64_t(1) << 62, 1};
  EXPECT_EQ(sift_tensor_create_view(a, SIFT_DTYPE_F32, 2, two, strides, &t),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(message().find("strides [4611686018427387904, 1] of shape [2, 2] "
                           "address byte offsets that overflow"),
            std::string::npos)
      << message();
  int64_t minStrides[2] = {INT64_MIN, 1};
  EXPECT_EQ(sift_tensor_create_view(a, SIFT_DTYPE_F32, 2, two, minStrides, &t),
            SIFT_ERROR_INVALID_ARGUMENT);
  // A zero extent makes the tensor empty, but the other extents still count.
  int64_t emptyHuge[3] = {0, int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_EQ(
      sift_tensor_create_view(a, SIFT_DTYPE_F32, 3, emptyHuge, nullptr, &t),
      SIFT_ERROR_INVALID_ARGUMENT);
  int64_t rank = int64_t(1) << 40;
  EXPECT_EQ(
      sift_tensor_create_view(a, SIFT_DTYPE_F32, rank, shape, nullptr, &t),
      SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message(), "rank 1099511627776 is too large (at most 1024)");
}

TEST_F(CAPIHostileTest, RequestsThatCannotBeAllocatedAreErrors) {
  // A copy of 2^48 bytes (beyond any address space): the allocation fails
  // before anything is read.
  int64_t a = 0;
  int64_t shape[1] = {int64_t(1) << 45};
  sift_tensor_t t = nullptr;
  EXPECT_EQ(sift_tensor_create_copy(&a, SIFT_DTYPE_I64, 1, shape, nullptr, &t),
            SIFT_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(message(), "out of memory: cannot allocate 281474976710656 bytes "
                       "for a tensor of shape [35184372088832] of i64");
  EXPECT_EQ(t, nullptr);
  // A buffer of compiled code: randperm (its argsort form) of 2^50
  // elements.
  std::vector<sift_tensor_t> results;
  EXPECT_EQ(call("randperm", {scalar(int64_t(1) << 50), scalar(1)}, results),
            SIFT_ERROR_OUT_OF_MEMORY);
  EXPECT_NE(message().find("function 'randperm': out of memory: cannot "
                           "allocate a buffer of "),
            std::string::npos)
      << message();
  EXPECT_TRUE(results.empty());
  // The engine still works.
  ASSERT_EQ(call("randperm", {scalar(5), scalar(1)}, results), SIFT_OK)
      << message();
  EXPECT_EQ(sift_tensor_num_elements(results[0]), 5);
}

TEST_F(CAPIHostileTest, ErrorsOnWorkerThreadsReachTheCaller) {
  // 4096 rows: the parallel loop spreads them over OpenMP threads; the bad
  // target is in the last row, far from the calling thread's share.
  std::vector<float> x(4096 * 3, 0.5f);
  std::vector<int64_t> t(4096, 1);
  t.back() = 3;
  std::vector<sift_tensor_t> results;
  for (int repeat = 0; repeat < 3; ++repeat) {
    EXPECT_EQ(call("ce_none",
                   {view(x.data(), SIFT_DTYPE_F32, {4096, 3}),
                    view(t.data(), SIFT_DTYPE_I64, {4096})},
                   results),
              SIFT_ERROR_RUNTIME);
    EXPECT_EQ(message(), "function 'ce_none': runtime error: cross_entropy: "
                         "target 3 in row 4095 is outside [0, 3)");
  }
  t.back() = 2;
  ASSERT_EQ(call("ce_none",
                 {view(x.data(), SIFT_DTYPE_F32, {4096, 3}),
                  view(t.data(), SIFT_DTYPE_I64, {4096})},
                 results),
            SIFT_OK)
      << message();
  // NumPy: log(3 * e^0.5) - 0.5 = log(3).
  const float *loss = static_cast<const float *>(sift_tensor_data(results[0]));
  EXPECT_NEAR(loss[4095], std::log(3.0), 1e-6);
}

TEST_F(CAPIHostileTest, DisagreeingDynamicExtentsAreErrors) {
  float x[12] = {};
  int64_t t3[3] = {0, 1, 2}, t5[5] = {0, 1, 2, 1, 0};
  std::vector<sift_tensor_t> results;
  EXPECT_EQ(
      call("ce",
           {view(x, SIFT_DTYPE_F32, {4, 3}), view(t3, SIFT_DTYPE_I64, {3})},
           results),
      SIFT_ERROR_RUNTIME);
  EXPECT_EQ(message(), "function 'ce': runtime error: cross_entropy: the "
                       "logits have 4 rows but the targets have 3 elements");
  EXPECT_EQ(
      call("ce",
           {view(x, SIFT_DTYPE_F32, {4, 3}), view(t5, SIFT_DTYPE_I64, {5})},
           results),
      SIFT_ERROR_RUNTIME);
  EXPECT_EQ(message(), "function 'ce': runtime error: cross_entropy: the "
                       "logits have 4 rows but the targets have 5 elements");
}

TEST_F(CAPIHostileTest, BoolBytesOtherThanZeroAndOneAreTrue) {
  // NumPy: np.nonzero(np.frombuffer(bytes([0, 2, 255, 1, 0, 10]), bool)).
  uint8_t bytes[6] = {0, 2, 255, 1, 0, 10};
  std::vector<sift_tensor_t> results;
  for (int repeat = 0; repeat < 3; ++repeat) {
    ASSERT_EQ(call("nonzero", {view(bytes, SIFT_DTYPE_BOOL, {6})}, results),
              SIFT_OK)
        << message();
    ASSERT_EQ(sift_tensor_num_elements(results[0]), 4);
    const int64_t *idx =
        static_cast<const int64_t *>(sift_tensor_data(results[0]));
    EXPECT_EQ(idx[0], 1);
    EXPECT_EQ(idx[1], 2);
    EXPECT_EQ(idx[2], 3);
    EXPECT_EQ(idx[3], 5);
  }
  // Strided, and as an owned copy.
  int64_t stride[1] = {2};
  ASSERT_EQ(
      call("nonzero", {view(bytes, SIFT_DTYPE_BOOL, {3}, stride)}, results),
      SIFT_OK);
  // bytes[0], bytes[2], bytes[4] = 0, 255, 0.
  ASSERT_EQ(sift_tensor_num_elements(results[0]), 1);
  EXPECT_EQ(static_cast<const int64_t *>(sift_tensor_data(results[0]))[0], 1);
  sift_tensor_t copy = nullptr;
  int64_t six[1] = {6};
  ASSERT_EQ(
      sift_tensor_create_copy(bytes, SIFT_DTYPE_BOOL, 1, six, nullptr, &copy),
      SIFT_OK);
  owned.push_back(copy);
  const uint8_t *normalized =
      static_cast<const uint8_t *>(sift_tensor_data(copy));
  EXPECT_EQ(normalized[1], 1);
  EXPECT_EQ(normalized[2], 1);
  EXPECT_EQ(normalized[5], 1);
  // An odd byte past the first block the boundary scans (65536 bytes), in
  // a line the compiled fill reads 16 bytes at a time: every true element
  // is found, the odd one included.
  std::vector<uint8_t> many(70001, 0);
  for (size_t e = 0; e < many.size(); e += 7)
    many[e] = 1;
  many[69999] = 2;
  ASSERT_EQ(call("nonzero",
                 {view(many.data(), SIFT_DTYPE_BOOL,
                       {static_cast<int64_t>(many.size())})},
                 results),
            SIFT_OK)
      << message();
  std::vector<int64_t> want;
  for (size_t e = 0; e < many.size(); ++e)
    if (many[e])
      want.push_back(static_cast<int64_t>(e));
  ASSERT_EQ(sift_tensor_num_elements(results[0]),
            static_cast<int64_t>(want.size()));
  const int64_t *got =
      static_cast<const int64_t *>(sift_tensor_data(results[0]));
  EXPECT_TRUE(std::equal(want.begin(), want.end(), got));
}

TEST_F(CAPIHostileTest, SizesOutOfRangeAreErrors) {
  std::vector<sift_tensor_t> results;
  EXPECT_EQ(call("randperm", {scalar(-1), scalar(1)}, results),
            SIFT_ERROR_RUNTIME);
  EXPECT_EQ(message(),
            "function 'randperm': runtime error: randperm: n = -1 is negative");
  EXPECT_EQ(call("randperm", {scalar(INT64_MAX), scalar(1)}, results),
            SIFT_ERROR_RUNTIME);
  EXPECT_EQ(message(), "function 'randperm': runtime error: randperm: n = "
                       "9223372036854775807 is too large (at most "
                       "72057594037927936)");
  float x[2] = {3, 1};
  EXPECT_EQ(call("topk", {view(x, SIFT_DTYPE_F32, {2})}, results),
            SIFT_ERROR_RUNTIME);
  EXPECT_EQ(message(), "function 'topk': runtime error: topk: k = 3 exceeds "
                       "the input's size 2");
  EXPECT_EQ(call("topk", {view(nullptr, SIFT_DTYPE_F32, {0})}, results),
            SIFT_ERROR_RUNTIME);
  EXPECT_EQ(message(), "function 'topk': runtime error: topk: k = 3 exceeds "
                       "the input's size 0");
  EXPECT_EQ(call("randperm_bounded", {scalar(9), scalar(1)}, results),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message(), "function 'randperm_bounded': argument 0: value 9 "
                       "exceeds its declared bound {sift.bound = 8}");
  ASSERT_EQ(call("randperm_bounded", {scalar(8), scalar(1)}, results), SIFT_OK);
  EXPECT_EQ(sift_tensor_num_elements(results[0]), 8);
}

TEST_F(CAPIHostileTest, OutOfRangeEnumsAreRejected) {
  sift_compile_options_t options;
  sift_compile_options_init(&options);
  options.target = static_cast<sift_target_t>(7);
  sift_engine_t other = nullptr;
  EXPECT_EQ(sift_engine_create_from_source(kProgram, std::strlen(kProgram),
                                           &options, &other),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(message(), "unknown target 7 (expected SIFT_TARGET_CPU = 0 or "
                       "SIFT_TARGET_CUDA = 1)");
  options.target = static_cast<sift_target_t>(-1);
  EXPECT_EQ(sift_engine_create_from_source(kProgram, std::strlen(kProgram),
                                           &options, &other),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(other, nullptr);
  float a[1] = {};
  int64_t one[1] = {1};
  sift_tensor_t t = nullptr;
  for (int32_t bad : {8, -1, INT32_MAX, INT32_MIN}) {
    EXPECT_EQ(sift_tensor_create_view(a, static_cast<sift_dtype_t>(bad), 1, one,
                                      nullptr, &t),
              SIFT_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(
        sift_tensor_create_scalar_int(1, static_cast<sift_dtype_t>(bad), &t),
        SIFT_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(sift_dtype_name(static_cast<sift_dtype_t>(bad)),
                 "unknown dtype");
    EXPECT_EQ(sift_dtype_size(static_cast<sift_dtype_t>(bad)), 0u);
  }
  EXPECT_STREQ(sift_status_string(static_cast<sift_status_t>(99)),
               "unknown status");
  EXPECT_STREQ(sift_status_string(SIFT_ERROR_OUT_OF_MEMORY),
               "SIFT_ERROR_OUT_OF_MEMORY");
}

TEST_F(CAPIHostileTest, NaNEmptyAndStridedInputs) {
  std::vector<sift_tensor_t> results;
  // NaN logits: a NaN loss, not an error (PyTorch).
  float x[6] = {NAN, 0, 0, 0, 0, 0};
  int64_t t[2] = {0, 1};
  ASSERT_EQ(
      call("ce",
           {view(x, SIFT_DTYPE_F32, {2, 3}), view(t, SIFT_DTYPE_I64, {2})},
           results),
      SIFT_OK)
      << message();
  EXPECT_TRUE(
      std::isnan(static_cast<const float *>(sift_tensor_data(results[0]))[0]));
  // Empty: 0 rows (null data is fine for empty tensors); NumPy's mean of an
  // empty set is NaN.
  ASSERT_EQ(call("ce",
                 {view(nullptr, SIFT_DTYPE_F32, {0, 3}),
                  view(nullptr, SIFT_DTYPE_I64, {0})},
                 results),
            SIFT_OK)
      << message();
  EXPECT_TRUE(
      std::isnan(static_cast<const float *>(sift_tensor_data(results[0]))[0]));
  // Strided: a transposed view with a negative stride (the columns of a 2x3
  // matrix, last row first): element (i, j) = m[1 - j][i].
  float m[6] = {0, 1, 2, 3, 4, 5};
  int64_t strides[2] = {1, -3};
  ASSERT_EQ(
      call("copy", {view(&m[3], SIFT_DTYPE_F32, {3, 2}, strides)}, results),
      SIFT_OK)
      << message();
  const float *out = static_cast<const float *>(sift_tensor_data(results[0]));
  const float expected[6] = {3, 0, 4, 1, 5, 2};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(out[i], expected[i]) << i;
  // Null data for a non-empty view.
  sift_tensor_t bad = nullptr;
  int64_t two[1] = {2};
  EXPECT_EQ(
      sift_tensor_create_view(nullptr, SIFT_DTYPE_F32, 1, two, nullptr, &bad),
      SIFT_ERROR_INVALID_ARGUMENT);
}
