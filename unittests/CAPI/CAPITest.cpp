//===- CAPITest.cpp - Tests of the C API ------------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Drives libsift.so through include/sift-c/Sift.h only: results on small
// upstream-only programs, and the status and message of every error path.
//
//===----------------------------------------------------------------------===//

#include "sift-c/Sift.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

extern "C" int sift_c_header_compiles_as_c(void);

namespace {

const char *kProgram = R"mlir(
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>)
                  outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @sum_and_scale(%a: tensor<?x2xf64>, %k: f64)
    -> (tensor<?x2xf64>, f64) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %a, %c0 : tensor<?x2xf64>
  %e = tensor.empty(%n) : tensor<?x2xf64>
  %scaled = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<?x2xf64>) outs(%e : tensor<?x2xf64>) {
    ^bb0(%x: f64, %o: f64):
      %m = arith.mulf %x, %k : f64
      linalg.yield %m : f64
  } -> tensor<?x2xf64>
  %init = tensor.empty() : tensor<f64>
  %fill = linalg.fill ins(%zero : f64) outs(%init : tensor<f64>)
            -> tensor<f64>
  %r = linalg.reduce ins(%a : tensor<?x2xf64>) outs(%fill : tensor<f64>)
         dimensions = [0, 1]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  %sum = tensor.extract %r[] : tensor<f64>
  return %scaled, %sum : tensor<?x2xf64>, f64
}

func.func private @sift_rt_error(i64, i64)
func.func @checked(%a: tensor<2xi32>, %bad: i1) -> tensor<2xi32> {
  scf.if %bad {
    %code = arith.constant 1 : i64
    %value = arith.constant -3 : i64
    func.call @sift_rt_error(%code, %value) : (i64, i64) -> ()
  }
  %e = tensor.empty() : tensor<2xi32>
  %r = linalg.add ins(%a, %a : tensor<2xi32>, tensor<2xi32>)
                  outs(%e : tensor<2xi32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}
)mlir";

class CAPITest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(sift_engine_create_from_source(kProgram, std::strlen(kProgram),
                                             nullptr, &engine),
              SIFT_OK)
        << sift_last_error_message();
  }
  void TearDown() override { sift_engine_destroy(engine); }

  sift_tensor_t view(const void *data, sift_dtype_t dtype,
                     std::initializer_list<int64_t> shape,
                     const int64_t *strides = nullptr) {
    sift_tensor_t t = nullptr;
    EXPECT_EQ(sift_tensor_create_view(data, dtype, shape.size(), shape.begin(),
                                      strides, &t),
              SIFT_OK)
        << sift_last_error_message();
    return t;
  }

  sift_engine_t engine = nullptr;
};

} // namespace

TEST(CAPIHeaderTest, CompilesAsC) {
  EXPECT_EQ(sift_c_header_compiles_as_c(), 8);
}

TEST_F(CAPITest, ListsAndLooksUpFunctions) {
  ASSERT_EQ(sift_engine_num_functions(engine), 3u);
  EXPECT_STREQ(sift_engine_function_name(engine, 0), "add");
  EXPECT_STREQ(sift_engine_function_name(engine, 1), "sum_and_scale");
  EXPECT_STREQ(sift_engine_function_name(engine, 2), "checked");
  EXPECT_EQ(sift_engine_function_name(engine, 3), nullptr);
  size_t inputs = 0, results = 0;
  ASSERT_EQ(sift_engine_lookup(engine, "sum_and_scale", &inputs, &results),
            SIFT_OK);
  EXPECT_EQ(inputs, 2u);
  EXPECT_EQ(results, 2u);
}

TEST(CAPIEngineTest, CompilesOnlyTheFunctionsAskedFor) {
  sift_compile_options_t options;
  sift_compile_options_init(&options);
  options.functions = "sum_and_scale,add";
  options.num_threads = 1;
  sift_engine_t engine = nullptr;
  ASSERT_EQ(sift_engine_create_from_source(kProgram, std::strlen(kProgram),
                                           &options, &engine),
            SIFT_OK)
      << sift_last_error_message();
  ASSERT_EQ(sift_engine_num_functions(engine), 2u);
  EXPECT_STREQ(sift_engine_function_name(engine, 0), "add");
  EXPECT_STREQ(sift_engine_function_name(engine, 1), "sum_and_scale");
  size_t inputs = 0, results = 0;
  EXPECT_EQ(sift_engine_lookup(engine, "checked", &inputs, &results),
            SIFT_ERROR_NOT_FOUND);
  sift_engine_destroy(engine);
}

// `cache` = 0 compiles and writes no entry; the default (1) stores one,
// which the next compile loads. The entries go to a temporary directory.
TEST_F(CAPITest, CompileCacheOption) {
  char dir[] = "/tmp/sift-capi-cache-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const char *saved = std::getenv("SIFT_CACHE_DIR");
  std::string savedDir = saved ? saved : "";
  setenv("SIFT_CACHE_DIR", dir, 1);
  auto entries = [&] {
    int n = 0;
    for (const auto &file : std::filesystem::directory_iterator(dir))
      n += file.path().filename().string().rfind("llvmcache-", 0) == 0 &&
           file.path().extension() != ".timestamp";
    return n;
  };
  for (int cache : {0, 1, 1}) {
    sift_compile_options_t options;
    sift_compile_options_init(&options);
    EXPECT_EQ(options.cache, 1);
    options.functions = "add";
    options.cache = cache;
    sift_engine_t compiled = nullptr;
    ASSERT_EQ(sift_engine_create_from_source(kProgram, std::strlen(kProgram),
                                             &options, &compiled),
              SIFT_OK)
        << sift_last_error_message();
    float a[4] = {1, 2, 3, 4};
    sift_tensor_t args[2] = {view(a, SIFT_DTYPE_F32, {4}),
                             view(a, SIFT_DTYPE_F32, {4})};
    sift_tensor_t result = nullptr;
    size_t n = 0;
    EXPECT_EQ(sift_engine_call(compiled, "add", args, 2, &result, 1, &n),
              SIFT_OK)
        << sift_last_error_message();
    EXPECT_EQ(static_cast<const float *>(sift_tensor_data(result))[3], 8.0f);
    sift_tensor_destroy(result);
    for (sift_tensor_t t : args)
      sift_tensor_destroy(t);
    sift_engine_destroy(compiled);
    EXPECT_EQ(entries(), cache) << "cache = " << cache;
  }
  std::filesystem::remove_all(dir);
  if (saved)
    setenv("SIFT_CACHE_DIR", savedDir.c_str(), 1);
  else
    unsetenv("SIFT_CACHE_DIR");
}

TEST_F(CAPITest, AddsTwoVectors) {
  float a[4] = {1, 2, 3, 4}, b[4] = {0.5f, -2, 10, 100};
  sift_tensor_t args[2] = {view(a, SIFT_DTYPE_F32, {4}),
                           view(b, SIFT_DTYPE_F32, {4})};
  sift_tensor_t result = nullptr;
  size_t n = 0;
  ASSERT_EQ(sift_engine_call(engine, "add", args, 2, &result, 1, &n), SIFT_OK)
      << sift_last_error_message();
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(sift_tensor_dtype(result), SIFT_DTYPE_F32);
  ASSERT_EQ(sift_tensor_rank(result), 1);
  EXPECT_EQ(sift_tensor_shape(result)[0], 4);
  const float *out = static_cast<const float *>(sift_tensor_data(result));
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out[i], a[i] + b[i]);
  sift_tensor_destroy(result);
  for (sift_tensor_t t : args)
    sift_tensor_destroy(t);
}

TEST_F(CAPITest, StridedViewScalarAndTwoResults) {
  // Column 0 and 2 of a 3x3 row-major matrix: a 3x2 view with strides (3, 2).
  double m[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  int64_t strides[2] = {3, 2};
  sift_tensor_t k = nullptr;
  ASSERT_EQ(sift_tensor_create_scalar_float(0.5, SIFT_DTYPE_F64, &k), SIFT_OK);
  sift_tensor_t args[2] = {view(m, SIFT_DTYPE_F64, {3, 2}, strides), k};
  sift_tensor_t results[2] = {nullptr, nullptr};
  size_t n = 0;
  ASSERT_EQ(sift_engine_call(engine, "sum_and_scale", args, 2, results, 2, &n),
            SIFT_OK)
      << sift_last_error_message();
  ASSERT_EQ(n, 2u);
  ASSERT_EQ(sift_tensor_rank(results[0]), 2);
  EXPECT_EQ(sift_tensor_shape(results[0])[0], 3);
  EXPECT_EQ(sift_tensor_shape(results[0])[1], 2);
  const double *scaled =
      static_cast<const double *>(sift_tensor_data(results[0]));
  double expected[6] = {0.5, 1.5, 2, 3, 3.5, 4.5};
  for (int i = 0; i < 6; ++i)
    EXPECT_DOUBLE_EQ(scaled[i], expected[i]);
  EXPECT_EQ(sift_tensor_rank(results[1]), 0);
  EXPECT_EQ(sift_tensor_shape(results[1]), nullptr);
  EXPECT_DOUBLE_EQ(*static_cast<const double *>(sift_tensor_data(results[1])),
                   1 + 3 + 4 + 6 + 7 + 9);
  for (sift_tensor_t t : results)
    sift_tensor_destroy(t);
  for (sift_tensor_t t : args)
    sift_tensor_destroy(t);
}

TEST_F(CAPITest, CopiedTensorOutlivesTheSource) {
  sift_tensor_t args[2];
  {
    float a[4] = {1, 2, 3, 4};
    int64_t shape[1] = {4};
    ASSERT_EQ(
        sift_tensor_create_copy(a, SIFT_DTYPE_F32, 1, shape, nullptr, &args[0]),
        SIFT_OK);
    ASSERT_EQ(
        sift_tensor_create_copy(a, SIFT_DTYPE_F32, 1, shape, nullptr, &args[1]),
        SIFT_OK);
    std::memset(a, 0, sizeof(a));
  }
  sift_tensor_t result;
  size_t n;
  ASSERT_EQ(sift_engine_call(engine, "add", args, 2, &result, 1, &n), SIFT_OK);
  EXPECT_EQ(static_cast<const float *>(sift_tensor_data(result))[3], 8.0f);
  sift_tensor_destroy(result);
  sift_tensor_destroy(args[0]);
  sift_tensor_destroy(args[1]);
}

TEST_F(CAPITest, CallErrorsNameTheArgument) {
  float a[4] = {};
  double d[4] = {};
  sift_tensor_t f4 = view(a, SIFT_DTYPE_F32, {4});
  sift_tensor_t f2x2 = view(a, SIFT_DTYPE_F32, {2, 2});
  sift_tensor_t f3 = view(a, SIFT_DTYPE_F32, {3});
  sift_tensor_t d4 = view(d, SIFT_DTYPE_F64, {4});
  sift_tensor_t result = nullptr;
  size_t n = 7;

  sift_tensor_t rank[2] = {f4, f2x2};
  EXPECT_EQ(sift_engine_call(engine, "add", rank, 2, &result, 1, &n),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(),
               "function 'add': argument 1: expected rank 1 (tensor<4xf32>), "
               "got rank 2 with shape [2, 2]");
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(result, nullptr);

  sift_tensor_t shape[2] = {f3, f4};
  EXPECT_EQ(sift_engine_call(engine, "add", shape, 2, &result, 1, &n),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(),
               "function 'add': argument 0: expected shape [4] "
               "(tensor<4xf32>), got [3] (dimension 0)");

  sift_tensor_t dtype[2] = {f4, d4};
  EXPECT_EQ(sift_engine_call(engine, "add", dtype, 2, &result, 1, &n),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(),
               "function 'add': argument 1: expected element type f32 "
               "(tensor<4xf32>), got f64");

  sift_tensor_t null[2] = {f4, nullptr};
  EXPECT_EQ(sift_engine_call(engine, "add", null, 2, &result, 1, &n),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(),
               "function 'add': argument 1: null tensor handle");

  EXPECT_EQ(sift_engine_call(engine, "add", rank, 1, &result, 1, &n),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(),
               "function 'add': expected 2 argument(s), got 1");

  sift_tensor_t ok[2] = {f4, f4};
  EXPECT_EQ(sift_engine_call(engine, "add", ok, 2, &result, 0, &n),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(),
               "function 'add' returns 1 result(s), room for 0");

  EXPECT_EQ(sift_engine_call(engine, "subtract", ok, 2, &result, 1, &n),
            SIFT_ERROR_NOT_FOUND);
  EXPECT_STREQ(sift_last_error_message(),
               "no function 'subtract' in the module (functions: add, "
               "sum_and_scale, checked)");
  EXPECT_EQ(sift_engine_lookup(engine, "subtract", nullptr, nullptr),
            SIFT_ERROR_NOT_FOUND);

  EXPECT_EQ(sift_engine_call(nullptr, "add", ok, 2, &result, 1, &n),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(), "null engine");
  EXPECT_EQ(sift_engine_call(engine, nullptr, ok, 2, &result, 1, &n),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sift_engine_call(engine, "add", nullptr, 2, &result, 1, &n),
            SIFT_ERROR_INVALID_ARGUMENT);

  for (sift_tensor_t t : {f4, f2x2, f3, d4})
    sift_tensor_destroy(t);
}

TEST_F(CAPITest, ScalarErrors) {
  double m[2] = {1, 2};
  sift_tensor_t k = nullptr;
  ASSERT_EQ(sift_tensor_create_scalar_int(1, SIFT_DTYPE_I64, &k), SIFT_OK);
  sift_tensor_t args[2] = {k, k};
  sift_tensor_t results[2];
  size_t n;
  EXPECT_EQ(sift_engine_call(engine, "sum_and_scale", args, 2, results, 2, &n),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(),
               "function 'sum_and_scale': argument 0: expected "
               "tensor<?x2xf64>, got a scalar i64");
  args[0] = view(m, SIFT_DTYPE_F64, {1, 2});
  args[1] = args[0];
  EXPECT_EQ(sift_engine_call(engine, "sum_and_scale", args, 2, results, 2, &n),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(),
               "function 'sum_and_scale': argument 1: expected a scalar f64, "
               "got a tensor");
  sift_tensor_destroy(args[0]);
  sift_tensor_destroy(k);
  EXPECT_EQ(sift_tensor_create_scalar_float(1.0, SIFT_DTYPE_I32, &k),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(k, nullptr);
}

TEST_F(CAPITest, RuntimeErrorIsAStatus) {
  int32_t a[2] = {5, 6};
  sift_tensor_t bad = nullptr, good = nullptr;
  ASSERT_EQ(sift_tensor_create_scalar_int(1, SIFT_DTYPE_BOOL, &bad), SIFT_OK);
  ASSERT_EQ(sift_tensor_create_scalar_int(0, SIFT_DTYPE_BOOL, &good), SIFT_OK);
  sift_tensor_t args[2] = {view(a, SIFT_DTYPE_I32, {2}), bad};
  sift_tensor_t result = nullptr;
  size_t n;
  EXPECT_EQ(sift_engine_call(engine, "checked", args, 2, &result, 1, &n),
            SIFT_ERROR_RUNTIME);
  EXPECT_NE(std::string(sift_last_error_message())
                .find("function 'checked': runtime error: code 1: "),
            std::string::npos)
      << sift_last_error_message();
  EXPECT_EQ(result, nullptr);
  args[1] = good;
  ASSERT_EQ(sift_engine_call(engine, "checked", args, 2, &result, 1, &n),
            SIFT_OK)
      << sift_last_error_message();
  EXPECT_EQ(static_cast<const int32_t *>(sift_tensor_data(result))[1], 12);
  sift_tensor_destroy(result);
  sift_tensor_destroy(args[0]);
  sift_tensor_destroy(bad);
  sift_tensor_destroy(good);
}

TEST(CAPITensorTest, CreationErrors) {
  float a[4] = {};
  int64_t shape[2] = {2, 2}, negative[1] = {-1};
  sift_tensor_t t = reinterpret_cast<sift_tensor_t>(&a);
  EXPECT_EQ(
      sift_tensor_create_view(nullptr, SIFT_DTYPE_F32, 2, shape, nullptr, &t),
      SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(), "tensor: null data pointer");
  EXPECT_EQ(t, nullptr);
  EXPECT_EQ(sift_tensor_create_view(a, static_cast<sift_dtype_t>(42), 2, shape,
                                    nullptr, &t),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(),
               "unknown dtype 42 (expected 0-7, SIFT_DTYPE_BOOL to "
               "SIFT_DTYPE_F64)");
  EXPECT_EQ(sift_tensor_create_view(a, SIFT_DTYPE_F32, -1, shape, nullptr, &t),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(), "negative rank -1");
  EXPECT_EQ(sift_tensor_create_view(a, SIFT_DTYPE_F32, 2, nullptr, nullptr, &t),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(), "null shape for rank 2");
  EXPECT_EQ(
      sift_tensor_create_copy(a, SIFT_DTYPE_F32, 1, negative, nullptr, &t),
      SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(),
               "tensor: negative extent -1 in dimension 0 of shape [-1]");
  EXPECT_EQ(
      sift_tensor_create_view(a, SIFT_DTYPE_F32, 2, shape, nullptr, nullptr),
      SIFT_ERROR_INVALID_ARGUMENT);
  // An empty tensor may have null data.
  int64_t empty[1] = {0};
  ASSERT_EQ(
      sift_tensor_create_view(nullptr, SIFT_DTYPE_F32, 1, empty, nullptr, &t),
      SIFT_OK);
  EXPECT_EQ(sift_tensor_num_elements(t), 0);
  sift_tensor_destroy(t);
  sift_tensor_destroy(nullptr);
}

TEST(CAPIEngineTest, CompileErrors) {
  sift_engine_t engine = reinterpret_cast<sift_engine_t>(1);
  const char *bad = "func.func @f() {\n  %x = arith.constant 1 : i32\n"
                    "  return %x : i32\n}\n";
  EXPECT_EQ(
      sift_engine_create_from_source(bad, std::strlen(bad), nullptr, &engine),
      SIFT_ERROR_PARSE);
  EXPECT_EQ(engine, nullptr);
  std::string message = sift_last_error_message();
  EXPECT_NE(message.find("failed to parse MLIR source"), std::string::npos);
  EXPECT_NE(message.find("<source>:3:3: error: 'func.return' op has 1 "
                         "operands, but enclosing function (@f) returns 0"),
            std::string::npos)
      << message;

  sift_compile_options_t options;
  sift_compile_options_init(&options);
  EXPECT_EQ(options.target, SIFT_TARGET_CPU);
  EXPECT_EQ(options.opt_level, 2);
  // Without a CUDA driver (SIFT_CUDA_DISABLE=1 acts as if libcuda.so.1
  // were missing) the CUDA target compiles, then fails with a clear error.
  ::setenv("SIFT_CUDA_DISABLE", "1", /*overwrite=*/1);
  options.target = SIFT_TARGET_CUDA;
  const char *gpuProgram =
      "func.func @add(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> "
      "tensor<1024xf32> {\n"
      "  %r = arith.addf %a, %b : tensor<1024xf32>\n"
      "  return %r : tensor<1024xf32>\n"
      "}\n";
  EXPECT_EQ(sift_engine_create_from_source(gpuProgram, std::strlen(gpuProgram),
                                           &options, &engine),
            SIFT_ERROR_UNSUPPORTED);
  EXPECT_EQ(std::string(sift_last_error_message())
                .rfind("no CUDA driver/device: ", 0),
            0u)
      << sift_last_error_message();

  sift_compile_options_init(&options);
  options.opt_level = 9;
  EXPECT_EQ(sift_engine_create_from_source(kProgram, std::strlen(kProgram),
                                           &options, &engine),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(),
               "optimization level must be 0-3, got 9");

  sift_compile_options_init(&options);
  EXPECT_EQ(options.transforms, nullptr);
  options.transforms = "sift-batch{func=missing size=2}";
  EXPECT_EQ(sift_engine_create_from_source(kProgram, std::strlen(kProgram),
                                           &options, &engine),
            SIFT_ERROR_COMPILE);
  EXPECT_NE(std::string(sift_last_error_message())
                .find("no function named 'missing'"),
            std::string::npos)
      << sift_last_error_message();

  sift_compile_options_init(&options);
  EXPECT_EQ(options.num_threads, 0);
  EXPECT_EQ(options.functions, nullptr);
  options.num_threads = -2;
  EXPECT_EQ(sift_engine_create_from_source(kProgram, std::strlen(kProgram),
                                           &options, &engine),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_last_error_message(),
               "num_threads must be 0 (the runtime's choice) or positive, "
               "got -2");
  sift_compile_options_init(&options);
  options.functions = "add, nope";
  EXPECT_EQ(sift_engine_create_from_source(kProgram, std::strlen(kProgram),
                                           &options, &engine),
            SIFT_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(sift_last_error_message()).find("nope"),
            std::string::npos)
      << sift_last_error_message();

  EXPECT_EQ(sift_engine_create_from_file("/no/such.mlir", nullptr, &engine),
            SIFT_ERROR_NOT_FOUND);
  EXPECT_STREQ(sift_last_error_message(),
               "cannot open '/no/such.mlir': No such file or directory");
  EXPECT_EQ(sift_engine_create_from_source(nullptr, 0, nullptr, &engine),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sift_engine_create_from_source(kProgram, 1, nullptr, nullptr),
            SIFT_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(sift_status_string(SIFT_ERROR_RUNTIME), "SIFT_ERROR_RUNTIME");
  EXPECT_STREQ(sift_dtype_name(SIFT_DTYPE_BOOL), "i1");
  EXPECT_EQ(sift_dtype_size(SIFT_DTYPE_F64), 8u);
}
