//===- EngineTest.cpp - Tests of the C++ embedding API ----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Small upstream-only programs compiled with the CPU pipeline and called on
// host buffers; expected values are computed here, independently. Every error
// path of compile, lookup and call is checked for its code and message.
//
//===----------------------------------------------------------------------===//

#include "sift/JIT/Engine.h"

#include "../Runtime/HugePages.h"

#include "gtest/gtest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#ifdef __linux__
#include <sched.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

using namespace mlir::sift::jit;

namespace {

const char *kProgram = R"mlir(
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>)
                  outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @sum(%a: tensor<?xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%a : tensor<?xf32>) outs(%fill : tensor<f32>)
         dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %v = tensor.extract %r[] : tensor<f32>
  return %v : f32
}

func.func @row_sums(%a: tensor<?x3xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %a, %c0 : tensor<?x3xf64>
  %init = tensor.empty(%n) : tensor<?xf64>
  %fill = linalg.fill ins(%zero : f64) outs(%init : tensor<?xf64>)
            -> tensor<?xf64>
  %r = linalg.reduce ins(%a : tensor<?x3xf64>) outs(%fill : tensor<?xf64>)
         dimensions = [1]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  return %r : tensor<?xf64>
}

func.func @add_mul(%a: tensor<2x3xi64>, %b: tensor<2x3xi64>)
    -> (tensor<2x3xi64>, tensor<2x3xi64>) {
  %e = tensor.empty() : tensor<2x3xi64>
  %s = linalg.add ins(%a, %b : tensor<2x3xi64>, tensor<2x3xi64>)
                  outs(%e : tensor<2x3xi64>) -> tensor<2x3xi64>
  %p = linalg.mul ins(%a, %b : tensor<2x3xi64>, tensor<2x3xi64>)
                  outs(%e : tensor<2x3xi64>) -> tensor<2x3xi64>
  return %s, %p : tensor<2x3xi64>, tensor<2x3xi64>
}

func.func @scale(%a: tensor<?xf64>, %k: f64) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf64>
  %e = tensor.empty(%n) : tensor<?xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<?xf64>) outs(%e : tensor<?xf64>) {
    ^bb0(%x: f64, %o: f64):
      %m = arith.mulf %x, %k : f64
      linalg.yield %m : f64
  } -> tensor<?xf64>
  return %r : tensor<?xf64>
}

func.func @iota(%n: i64, %step: i32) -> (tensor<?xi64>, i64) {
  %len = arith.index_cast %n : i64 to index
  %s = arith.extsi %step : i32 to i64
  %r = tensor.generate %len {
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i64
    %m = arith.muli %v, %s : i64
    tensor.yield %m : i64
  } : tensor<?xi64>
  %twice = arith.muli %n, %s : i64
  return %r, %twice : tensor<?xi64>, i64
}

func.func @positive(%a: tensor<?xf32>) -> tensor<?xi1> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xi1>) {
    ^bb0(%x: f32, %o: i1):
      %c = arith.cmpf ogt, %x, %zero : f32
      linalg.yield %c : i1
  } -> tensor<?xi1>
  return %r : tensor<?xi1>
}

func.func @nothing(%a: tensor<2xf32>) {
  return
}

func.func @half(%a: tensor<2xf16>) -> tensor<2xf16> {
  %e = tensor.empty() : tensor<2xf16>
  %r = linalg.add ins(%a, %a : tensor<2xf16>, tensor<2xf16>)
                  outs(%e : tensor<2xf16>) -> tensor<2xf16>
  return %r : tensor<2xf16>
}

func.func private @helper(%a: tensor<2xf32>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.add ins(%a, %a : tensor<2xf32>, tensor<2xf32>)
                  outs(%e : tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
)mlir";

/// The code and message of an error; fails the test on success.
template <typename T>
std::pair<ErrorCode, std::string> errorOf(llvm::Expected<T> value) {
  if (value) {
    ADD_FAILURE() << "expected an error";
    return {ErrorCode::Ok, ""};
  }
  std::string message;
  ErrorCode code = consumeError(value.takeError(), &message);
  return {code, message};
}

#define ASSERT_OK(expected)                                                    \
  ASSERT_TRUE(static_cast<bool>(expected))                                     \
      << llvm::toString((expected).takeError())

class EngineTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    auto compiled = Engine::compileSource(kProgram, {}, "program.mlir");
    if (!compiled) {
      std::string message;
      consumeError(compiled.takeError(), &message);
      FAIL() << message;
    }
    engine = std::move(*compiled);
  }
  static void TearDownTestSuite() { engine.reset(); }

  /// Calls `name` and returns its results; fails the test on an error.
  std::vector<Tensor> callOk(llvm::StringRef name,
                             llvm::ArrayRef<Argument> args) {
    auto results = engine->call(name, args);
    if (!results) {
      std::string message;
      consumeError(results.takeError(), &message);
      ADD_FAILURE() << message;
      return {};
    }
    return std::move(*results);
  }

  static std::unique_ptr<Engine> engine;
};

std::unique_ptr<Engine> EngineTest::engine;

} // namespace

//===----------------------------------------------------------------------===//
// Correct results
//===----------------------------------------------------------------------===//

TEST_F(EngineTest, ListsPublicCallableFunctions) {
  ASSERT_TRUE(engine);
  std::vector<std::string> names;
  for (const FunctionSignature &sig : engine->functions())
    names.push_back(sig.name);
  // `half` (f16) is not callable, `helper` is private.
  EXPECT_EQ(names,
            (std::vector<std::string>{"add", "sum", "row_sums", "add_mul",
                                      "scale", "iota", "positive", "nothing"}));
  auto fn = engine->lookup("row_sums");
  ASSERT_OK(fn);
  ASSERT_EQ(fn->signature().inputs.size(), 1u);
  EXPECT_EQ(fn->signature().inputs[0].str(), "tensor<?x3xf64>");
  EXPECT_EQ(fn->signature().results[0].str(), "tensor<?xf64>");
}

TEST_F(EngineTest, AddsTwoVectors) {
  float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40.5f};
  auto results = callOk(
      "add", {TensorView(a, DType::F32, {4}), TensorView(b, DType::F32, {4})});
  ASSERT_EQ(results.size(), 1u);
  const Tensor &r = results[0];
  EXPECT_EQ(r.dtype(), DType::F32);
  EXPECT_EQ(r.shape(), llvm::ArrayRef<int64_t>({4}));
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(r.data<float>()[i], a[i] + b[i]);
}

TEST_F(EngineTest, SumsToAScalar) {
  std::vector<float> a(1000);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = 0.25f * (i % 7);
  float expected = std::accumulate(a.begin(), a.end(), 0.0f);
  auto results = callOk("sum", {TensorView(a.data(), DType::F32, {1000})});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].rank(), 0);
  EXPECT_EQ(results[0].dtype(), DType::F32);
  EXPECT_FLOAT_EQ(results[0].data<float>()[0], expected);
}

TEST_F(EngineTest, SumsAnEmptyTensorWithNullData) {
  auto results = callOk("sum", {TensorView(nullptr, DType::F32, {0})});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].data<float>()[0], 0.0f);
}

TEST_F(EngineTest, ReducesRowsWithADynamicResultShape) {
  double a[5][3];
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j)
      a[i][j] = i * 10 + j * 0.5;
  auto results = callOk("row_sums", {TensorView(a, DType::F64, {5, 3})});
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(results[0].shape(), llvm::ArrayRef<int64_t>({5}));
  for (int i = 0; i < 5; ++i)
    EXPECT_DOUBLE_EQ(results[0].data<double>()[i], a[i][0] + a[i][1] + a[i][2]);
}

TEST_F(EngineTest, CopiesStridedInputs) {
  // A transposed view of a 3x5 row-major buffer is a 5x3 tensor.
  double buf[3][5];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      buf[i][j] = i + 100 * j;
  TensorView transposed(buf, DType::F64, {5, 3}, {1, 5});
  EXPECT_FALSE(transposed.isContiguous());
  auto results = callOk("row_sums", {transposed});
  ASSERT_EQ(results.size(), 1u);
  for (int j = 0; j < 5; ++j)
    EXPECT_DOUBLE_EQ(results[0].data<double>()[j],
                     buf[0][j] + buf[1][j] + buf[2][j]);
}

TEST_F(EngineTest, ReturnsTwoTensors) {
  int64_t a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {-1, 7, 0, 2, 3, 100};
  auto results = callOk("add_mul", {TensorView(a, DType::I64, {2, 3}),
                                    TensorView(b, DType::I64, {2, 3})});
  ASSERT_EQ(results.size(), 2u);
  for (const Tensor &r : results) {
    EXPECT_EQ(r.dtype(), DType::I64);
    EXPECT_EQ(r.shape(), llvm::ArrayRef<int64_t>({2, 3}));
  }
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(results[0].data<int64_t>()[i], a[i] + b[i]);
    EXPECT_EQ(results[1].data<int64_t>()[i], a[i] * b[i]);
  }
}

TEST_F(EngineTest, TakesAScalarArgument) {
  double a[3] = {1, -2, 3.5};
  auto results =
      callOk("scale", {TensorView(a, DType::F64, {3}), Scalar::ofFloat(-2.0)});
  ASSERT_EQ(results.size(), 1u);
  for (int i = 0; i < 3; ++i)
    EXPECT_DOUBLE_EQ(results[0].data<double>()[i], -2.0 * a[i]);
  // An integer scalar converts to a float parameter.
  results = callOk("scale", {TensorView(a, DType::F64, {3}), Scalar::ofInt(3)});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_DOUBLE_EQ(results[0].data<double>()[2], 10.5);
}

TEST_F(EngineTest, ReturnsATensorAndAScalar) {
  auto results =
      callOk("iota", {Scalar::ofInt(6), Scalar::ofInt(3, DType::I32)});
  ASSERT_EQ(results.size(), 2u);
  ASSERT_EQ(results[0].shape(), llvm::ArrayRef<int64_t>({6}));
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(results[0].data<int64_t>()[i], 3 * i);
  EXPECT_EQ(results[1].rank(), 0);
  EXPECT_EQ(results[1].data<int64_t>()[0], 18);
}

TEST_F(EngineTest, ReturnsAnEmptyTensor) {
  auto results = callOk("iota", {Scalar::ofInt(0), Scalar::ofInt(1)});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].shape(), llvm::ArrayRef<int64_t>({0}));
  EXPECT_EQ(results[0].numElements(), 0);
}

TEST_F(EngineTest, ReturnsBooleans) {
  float a[5] = {-1, 0, 2, 0.5f, -0.1f};
  auto results = callOk("positive", {TensorView(a, DType::F32, {5})});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].dtype(), DType::Bool);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(results[0].getAsInt(i), a[i] > 0 ? 1 : 0) << i;
}

TEST_F(EngineTest, CallsAFunctionWithoutResults) {
  float a[2] = {1, 2};
  auto results = callOk("nothing", {TensorView(a, DType::F32, {2})});
  EXPECT_TRUE(results.empty());
}

TEST_F(EngineTest, ResultsCanBePassedBack) {
  float a[4] = {1, 2, 3, 4};
  auto first = callOk(
      "add", {TensorView(a, DType::F32, {4}), TensorView(a, DType::F32, {4})});
  ASSERT_EQ(first.size(), 1u);
  auto second = callOk("add", {first[0], first[0]});
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].data<float>()[3], 16.0f);
}

//===----------------------------------------------------------------------===//
// Call errors
//===----------------------------------------------------------------------===//

TEST_F(EngineTest, MissingFunction) {
  auto [code, message] = errorOf(engine->lookup("subtract"));
  EXPECT_EQ(code, ErrorCode::NotFound);
  EXPECT_NE(message.find("no function 'subtract'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("add, sum"), std::string::npos) << message;
}

TEST_F(EngineTest, PrivateFunctionIsNotCallable) {
  auto [code, message] = errorOf(engine->lookup("helper"));
  EXPECT_EQ(code, ErrorCode::NotFound);
}

TEST_F(EngineTest, UnsupportedSignature) {
  auto [code, message] = errorOf(engine->lookup("half"));
  EXPECT_EQ(code, ErrorCode::Unsupported);
  EXPECT_NE(message.find("function 'half'"), std::string::npos) << message;
  EXPECT_NE(message.find("argument 0"), std::string::npos) << message;
  EXPECT_NE(message.find("f16"), std::string::npos) << message;
}

TEST_F(EngineTest, WrongArgumentCount) {
  float a[4] = {};
  auto [code, message] =
      errorOf(engine->call("add", {TensorView(a, DType::F32, {4})}));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_EQ(message, "function 'add': expected 2 argument(s), got 1");
}

TEST_F(EngineTest, WrongRank) {
  float a[4] = {};
  auto [code, message] =
      errorOf(engine->call("add", {TensorView(a, DType::F32, {4}),
                                   TensorView(a, DType::F32, {2, 2})}));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_EQ(message, "function 'add': argument 1: expected rank 1 "
                     "(tensor<4xf32>), got rank 2 with shape [2, 2]");
}

TEST_F(EngineTest, WrongShape) {
  double a[8] = {};
  auto [code, message] =
      errorOf(engine->call("row_sums", {TensorView(a, DType::F64, {2, 4})}));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_EQ(message, "function 'row_sums': argument 0: expected shape "
                     "[?, 3] (tensor<?x3xf64>), got [2, 4] (dimension 1)");
}

TEST_F(EngineTest, WrongDType) {
  double a[4] = {};
  float b[4] = {};
  auto [code, message] = errorOf(engine->call(
      "add", {TensorView(b, DType::F32, {4}), TensorView(a, DType::F64, {4})}));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_EQ(message, "function 'add': argument 1: expected element type f32 "
                     "(tensor<4xf32>), got f64");
}

TEST_F(EngineTest, NullData) {
  float a[4] = {};
  auto [code, message] =
      errorOf(engine->call("add", {TensorView(nullptr, DType::F32, {4}),
                                   TensorView(a, DType::F32, {4})}));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_EQ(message, "function 'add': argument 0: null data pointer");
}

TEST_F(EngineTest, NegativeExtent) {
  float a[4] = {};
  auto [code, message] =
      errorOf(engine->call("sum", {TensorView(a, DType::F32, {-4})}));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_EQ(message,
            "function 'sum': argument 0: negative extent -4 in dimension 0 of "
            "shape [-4]");
}

TEST_F(EngineTest, StridesOfTheWrongLength) {
  float a[4] = {};
  auto [code, message] =
      errorOf(engine->call("sum", {TensorView(a, DType::F32, {4}, {1, 1})}));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_NE(message.find("2 strides given for rank 1"), std::string::npos)
      << message;
}

TEST_F(EngineTest, ScalarWhereATensorIsExpected) {
  auto [code, message] =
      errorOf(engine->call("sum", {Scalar::ofFloat(1.0, DType::F32)}));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_EQ(message, "function 'sum': argument 0: expected tensor<?xf32>, "
                     "got a scalar f32");
}

TEST_F(EngineTest, TensorWhereAScalarIsExpected) {
  double a[3] = {};
  auto [code, message] =
      errorOf(engine->call("scale", {TensorView(a, DType::F64, {3}),
                                     TensorView(a, DType::F64, {3})}));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_EQ(message, "function 'scale': argument 1: expected a scalar f64, "
                     "got a tensor");
}

TEST_F(EngineTest, ScalarOutOfRangeOrOfTheWrongKind) {
  auto [code, message] = errorOf(engine->call(
      "iota", {Scalar::ofInt(3), Scalar::ofInt(int64_t(1) << 40)}));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_EQ(message, "function 'iota': argument 1: value 1099511627776 does "
                     "not fit in i32");
  auto [code2, message2] =
      errorOf(engine->call("iota", {Scalar::ofFloat(3.5), Scalar::ofInt(1)}));
  EXPECT_EQ(code2, ErrorCode::InvalidArgument);
  EXPECT_EQ(message2, "function 'iota': argument 0: expected an integer "
                      "(i64), got f64");
}

//===----------------------------------------------------------------------===//
// Compile errors
//===----------------------------------------------------------------------===//

// Tensor::zeros (and so copyOf, and tensor-run's inputs) puts the data on a
// cache line, zeroed, whatever the size: a large calloc alone is 16 bytes
// into a page, which makes every 64-byte row a compiled gather reads two
// lines.
TEST(TensorTest, ZerosStartOnACacheLine) {
  for (int64_t n : {int64_t(0), int64_t(1), int64_t(3), int64_t(1) << 20}) {
    llvm::Expected<Tensor> t = Tensor::zeros(DType::F32, {n, 16});
    ASSERT_TRUE(static_cast<bool>(t)) << llvm::toString(t.takeError());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t->data()) % 64, 0u) << n;
    const float *data = t->data<float>();
    EXPECT_TRUE(
        std::all_of(data, data + n * 16, [](float x) { return x == 0.0f; }));
  }
  float src[2][16] = {};
  src[1][15] = 7.0f;
  llvm::Expected<Tensor> copy =
      Tensor::copyOf(TensorView(&src[0][0], DType::F32, {2, 16}));
  ASSERT_TRUE(static_cast<bool>(copy)) << llvm::toString(copy.takeError());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(copy->data()) % 64, 0u);
  EXPECT_EQ(copy->data<float>()[31], 7.0f);
}

// Large tensors are advised huge pages (as NumPy's arrays are): compiled
// code streams through them and gathers their rows.
TEST(TensorTest, LargeTensorsAskForHugePages) {
  std::string unavailable = sift_test::hugePagesUnavailable();
  if (!unavailable.empty())
    GTEST_SKIP() << unavailable;
  llvm::Expected<Tensor> t = Tensor::zeros(DType::F32, {int64_t(3) << 20});
  ASSERT_TRUE(static_cast<bool>(t)) << llvm::toString(t.takeError());
  EXPECT_TRUE(sift_test::advisedHugePages(t->data<float>() + (1 << 20)));
  EXPECT_EQ(t->data<float>()[(3 << 20) - 1], 0.0f);
}

TEST(EngineCompileTest, BadIRReportsTheDiagnostic) {
  const char *source = "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                       "  %r = arith.addf %a, %b : tensor<4xf32>\n"
                       "  return %r : tensor<4xf32>\n"
                       "}\n";
  auto [code, message] = errorOf(Engine::compileSource(source, {}, "bad.mlir"));
  EXPECT_EQ(code, ErrorCode::ParseError);
  EXPECT_NE(message.find("bad.mlir:2:"), std::string::npos) << message;
  EXPECT_NE(message.find("use of undeclared SSA value name"), std::string::npos)
      << message;
}

TEST(EngineCompileTest, VerifierErrorIsAParseError) {
  const char *source = "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                       "  %r = arith.addf %a, %a : tensor<4xf32>\n"
                       "  return %a, %r : tensor<4xf32>, tensor<4xf32>\n"
                       "}\n";
  auto [code, message] = errorOf(Engine::compileSource(source));
  EXPECT_EQ(code, ErrorCode::ParseError);
  EXPECT_NE(message.find("has 2 operands, but enclosing function"),
            std::string::npos)
      << message;
}

/// Elementwise work only: every loop becomes a kernel.
const char *kGpuProgram =
    "func.func @add(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> "
    "tensor<1024xf32> {\n"
    "  %r = arith.addf %a, %b : tensor<1024xf32>\n"
    "  return %r : tensor<1024xf32>\n"
    "}\n";

/// The error code and message of compiling `source` (named `file`) for the
/// CUDA target with the runtime acting as if libcuda.so.1 were missing.
static std::pair<ErrorCode, std::string> compileForCuda(const char *source,
                                                        const char *file) {
  ::setenv("SIFT_CUDA_DISABLE", "1", /*overwrite=*/1);
  CompileOptions options;
  options.target = Target::CUDA;
  return errorOf(Engine::compileSource(source, options, file));
}

// The CUDA target compiles (the GPU pipeline runs) and, without a CUDA
// driver, fails to load with a clear error, never a crash. SIFT_CUDA_DISABLE
// makes the runtime act as if libcuda.so.1 were missing, so the test says
// the same on machines with a GPU (each test runs in its own process).
TEST(EngineCompileTest, CudaTargetWithoutDriverIsAClearError) {
  ::setenv("SIFT_CUDA_DISABLE", "1", /*overwrite=*/1);
  CompileOptions options;
  options.target = Target::CUDA;
  auto [code, message] = errorOf(Engine::compileSource(kGpuProgram, options));
  EXPECT_EQ(code, ErrorCode::Unsupported);
  EXPECT_EQ(message.rfind("no CUDA driver/device: ", 0), 0u) << message;
  EXPECT_NE(message.find("SIFT_CUDA_DISABLE=1"), std::string::npos) << message;
}

// A program the GPU pipeline cannot keep on the device fails to compile for
// the CUDA target, naming what it cannot (before any driver check): a
// balanced sample with per-row seeds whose rows of one seed are a dynamic
// extent (its CPU lowering is a kernel per row with scratch of a run-time
// size, which a kernel cannot allocate).
TEST(EngineCompileTest, CudaTargetRejectsKernelAllocations) {
  const char *source =
      "func.func @sb(%l: tensor<2x?x?xi64>, %s: tensor<2xi64>) -> "
      "tensor<2x?x8xi64> {\n"
      "  %i, %n = sift.sample_balanced %l, %s {num_samples = 8 : i64} : "
      "tensor<2x?x?xi64>, tensor<2xi64> -> tensor<2x?x8xi64>, "
      "tensor<2x?xi64>\n"
      "  return %i : tensor<2x?x8xi64>\n"
      "}\n";
  auto [code, message] = compileForCuda(source, "sb.mlir");
  EXPECT_EQ(code, ErrorCode::CompileError);
  EXPECT_NE(message.find("allocates memory inside a kernel"), std::string::npos)
      << message;
  EXPECT_NE(message.find("sb.mlir:2:"), std::string::npos) << message;
}

// Programs of data-dependent shapes (the dynamic programs, not staticized)
// whose ops all have kernels: the unique values of a selection (the sort,
// flags and compaction of a dynamic row) and a balanced sample of a
// selection (Philox keys, argsort and compactions of a dynamic row). They
// compile for the CUDA target and stop only at the missing driver.
TEST(EngineCompileTest, CudaTargetCompilesDynamicPrograms) {
  const char *sources[] = {
      "func.func @uq(%x: tensor<64xi32>, %m: tensor<64xi1>) -> "
      "tensor<?xi32> {\n"
      "  %s = sift.masked_select %x, %m : tensor<64xi32>, tensor<64xi1> -> "
      "tensor<?xi32>\n"
      "  %u = sift.unique %s : tensor<?xi32> -> tensor<?xi32>\n"
      "  return %u : tensor<?xi32>\n"
      "}\n",
      "func.func @sb(%x: tensor<64xi64>, %m: tensor<64xi1>, %seed: i64) -> "
      "tensor<8xi64> {\n"
      "  %s = sift.masked_select %x, %m : tensor<64xi64>, tensor<64xi1> -> "
      "tensor<?xi64>\n"
      "  %i, %n = sift.sample_balanced %s, %seed {num_samples = 8 : i64} : "
      "tensor<?xi64> -> tensor<8xi64>, tensor<i64>\n"
      "  return %i : tensor<8xi64>\n"
      "}\n"};
  for (const char *source : sources) {
    auto [code, message] = compileForCuda(source, "dynamic.mlir");
    EXPECT_EQ(code, ErrorCode::Unsupported) << source;
    EXPECT_EQ(message.rfind("no CUDA driver/device: ", 0), 0u) << message;
  }
}

// The program's own loop that adds tensor elements into a scalar it carries
// is a kernel of one thread (its sum goes through a one-element device
// buffer): it compiles for the CUDA target and stops only at the missing
// driver.
TEST(EngineCompileTest, CudaTargetCompilesScalarLoop) {
  const char *source = "func.func @isum(%a: tensor<64xi32>) -> i32 {\n"
                       "  %c0 = arith.constant 0 : index\n"
                       "  %c1 = arith.constant 1 : index\n"
                       "  %c64 = arith.constant 64 : index\n"
                       "  %z = arith.constant 0 : i32\n"
                       "  %s = scf.for %i = %c0 to %c64 step %c1 "
                       "iter_args(%acc = %z) -> (i32) {\n"
                       "    %x = tensor.extract %a[%i] : tensor<64xi32>\n"
                       "    %r = arith.addi %acc, %x : i32\n"
                       "    scf.yield %r : i32\n"
                       "  }\n"
                       "  return %s : i32\n"
                       "}\n";
  auto [code, message] = compileForCuda(source, "isum.mlir");
  EXPECT_EQ(code, ErrorCode::Unsupported);
  EXPECT_EQ(message.rfind("no CUDA driver/device: ", 0), 0u) << message;
}

// An integer sum over a whole tensor (a reduction with no parallel
// dimension) is a kernel of one thread: the program compiles for the CUDA
// target and stops only at the missing driver.
TEST(EngineCompileTest, CudaTargetCompilesSerialReduction) {
  const char *source =
      "func.func @isum(%a: tensor<64xi32>, %acc: tensor<i32>) -> "
      "tensor<i32> {\n"
      "  %s = linalg.reduce ins(%a : tensor<64xi32>) outs(%acc : tensor<i32>) "
      "dimensions = [0]\n"
      "    (%x: i32, %y: i32) {\n"
      "      %r = arith.addi %x, %y : i32\n"
      "      linalg.yield %r : i32\n"
      "    }\n"
      "  return %s : tensor<i32>\n"
      "}\n";
  auto [code, message] = compileForCuda(source, "isum.mlir");
  EXPECT_EQ(code, ErrorCode::Unsupported);
  EXPECT_EQ(message.rfind("no CUDA driver/device: ", 0), 0u) << message;
}

// A sort is sift's block-level sort kernel: the program compiles for the
// CUDA target and stops only at the missing driver.
TEST(EngineCompileTest, CudaTargetCompilesSortKernel) {
  const char *source =
      "func.func @sorted(%a: tensor<64xf32>) -> tensor<64xf32> {\n"
      "  %s:2 = sift.sort %a : tensor<64xf32> -> tensor<64xf32>, "
      "tensor<64xi64>\n"
      "  return %s#0 : tensor<64xf32>\n"
      "}\n";
  auto [code, message] = compileForCuda(source, "sort.mlir");
  EXPECT_EQ(code, ErrorCode::Unsupported);
  EXPECT_EQ(message.rfind("no CUDA driver/device: ", 0), 0u) << message;
}

TEST(EngineCompileTest, BadOptLevel) {
  CompileOptions options;
  options.optLevel = 4;
  auto [code, message] = errorOf(Engine::compileSource(kProgram, options));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_EQ(message, "optimization level must be 0-3, got 4");
}

// A thread count beside a pipeline of one's own would be dropped (the
// pipeline says its own): an error that names where it goes.
TEST(EngineCompileTest, ThreadCountWithOwnPipeline) {
  CompileOptions options;
  options.pipeline = "builtin.module(sift-cpu-pipeline)";
  options.numThreads = 1;
  auto [code, message] = errorOf(Engine::compileSource(kProgram, options));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_EQ(message, "a thread count (1) is an option of the default "
                     "pipeline; with a pipeline of one's own, set it there, "
                     "e.g. builtin.module(sift-cpu-pipeline{num-threads=1})");
  // In the pipeline, the count compiles and runs.
  options.pipeline = "builtin.module(sift-cpu-pipeline{num-threads=1})";
  options.numThreads = 0;
  auto compiled = Engine::compileSource(kProgram, options);
  ASSERT_OK(compiled);
  float a[4] = {1, 2, 3, 4};
  auto results = (*compiled)->call(
      "add", {TensorView(a, DType::F32, {4}), TensorView(a, DType::F32, {4})});
  ASSERT_OK(results);
  EXPECT_EQ((*results)[0].data<float>()[3], 8.0f);
}

TEST(EngineCompileTest, BadPipeline) {
  CompileOptions options;
  options.pipeline = "no-such-pass";
  auto [code, message] = errorOf(Engine::compileSource(kProgram, options));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_NE(message.find("bad pipeline 'no-such-pass'"), std::string::npos)
      << message;
}

TEST(EngineCompileTest, PipelineThatDoesNotReachLLVMFails) {
  CompileOptions options;
  options.pipeline = "builtin.module(canonicalize)";
  auto [code, message] = errorOf(Engine::compileSource(kProgram, options));
  EXPECT_EQ(code, ErrorCode::CompileError);
  EXPECT_NE(message.find("JIT compilation failed"), std::string::npos)
      << message;
}

TEST(EngineCompileTest, MissingFile) {
  auto [code, message] = errorOf(Engine::compileFile("/no/such/file.mlir"));
  EXPECT_EQ(code, ErrorCode::NotFound);
  EXPECT_NE(message.find("cannot open '/no/such/file.mlir'"), std::string::npos)
      << message;
}

TEST(EngineCompileTest, CompilesOnlyTheFunctionsAskedFor) {
  const char *source = R"mlir(
func.func @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @four_times(%a: tensor<4xf32>) -> tensor<4xf32> {
  %t = call @twice(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %r = call @twice(%t) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @unused(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
)mlir";
  CompileOptions options;
  options.functions = {"four_times"};
  auto compiled = Engine::compileSource(source, options);
  ASSERT_OK(compiled);
  Engine &engine = **compiled;
  // What it calls is compiled too, but only what was asked for is callable.
  ASSERT_EQ(engine.functions().size(), 1u);
  EXPECT_EQ(engine.functions()[0].name, "four_times");
  EXPECT_EQ(errorOf(engine.lookup("unused")).first, ErrorCode::NotFound);
  float a[4] = {1, 2, 3, -4};
  auto results = engine.call("four_times", {TensorView(a, DType::F32, {4})});
  ASSERT_OK(results);
  const float *r = (*results)[0].data<float>();
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(r[i], 4 * a[i]);

  options.functions = {"four_times", "nope"};
  auto [code, message] = errorOf(Engine::compileSource(source, options));
  EXPECT_EQ(code, ErrorCode::NotFound);
  EXPECT_NE(message.find("no function 'nope' in the module (functions: "
                         "twice, four_times, unused)"),
            std::string::npos)
      << message;
}

TEST(EngineCompileTest, PipelineOverrideAndOptLevels) {
  for (unsigned level = 0; level <= 3; ++level) {
    CompileOptions options;
    options.optLevel = level;
    if (level == 1)
      options.pipeline = "builtin.module(sift-cpu-pipeline)";
    auto compiled = Engine::compileSource(kProgram, options);
    ASSERT_OK(compiled);
    float a[4] = {1, 2, 3, 4};
    auto results = (*compiled)->call("add", {TensorView(a, DType::F32, {4}),
                                             TensorView(a, DType::F32, {4})});
    ASSERT_OK(results);
    EXPECT_EQ((*results)[0].data<float>()[3], 8.0f);
  }
}

// A per-sample program with data-dependent shapes, staticized and batched by
// the compile options' transforms: the batched function is callable, and row
// i of its results equals the per-sample function called on row i.
TEST(EngineCompileTest, TransformsAddACallableBatchedFunction) {
  const char *perSample = R"mlir(
func.func @pick(%labels: tensor<64xi64>, %seed: i64) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %ones = arith.constant dense<1> : tensor<64xi64>
  %m = arith.cmpi eq, %labels, %ones : tensor<64xi64>
  %pos = sift.nonzero %m : tensor<64xi1> -> tensor<?xi64>
  %n = tensor.dim %pos, %c0 : tensor<?xi64>
  %perm = sift.randperm %n, %seed : tensor<?xi64>
  %shuffled = sift.gather %pos[%perm] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  return %shuffled : tensor<?xi64>
}
)mlir";
  CompileOptions options;
  options.transforms = "sift-staticize,sift-batch{func=pick size=4}";
  auto compiled = Engine::compileSource(perSample, options);
  ASSERT_OK(compiled);
  Engine &engine = **compiled;
  auto batched = engine.lookup("pick_batched");
  ASSERT_OK(batched);
  EXPECT_EQ(batched->signature().inputs[0].str(), "tensor<4x64xi64>");
  EXPECT_EQ(batched->signature().inputs[1].str(), "tensor<4xi64>");
  EXPECT_EQ(batched->signature().results[0].str(), "tensor<4x64xi64>");
  EXPECT_EQ(batched->signature().results[1].str(), "tensor<4xi64>");
  // The padded result is marked bounded (its count follows), in the
  // per-sample function and in the batched one; parameters keep the names
  // of the source text.
  for (const char *name : {"pick", "pick_batched"}) {
    auto fn = engine.lookup(name);
    ASSERT_OK(fn);
    const FunctionSignature &sig = fn->signature();
    ASSERT_EQ(sig.results.size(), 2u) << name;
    EXPECT_TRUE(sig.results[0].bounded) << name;
    EXPECT_FALSE(sig.results[1].bounded) << name;
    ASSERT_EQ(sig.inputs.size(), 2u) << name;
    EXPECT_EQ(sig.inputs[0].name, "labels") << name;
    EXPECT_EQ(sig.inputs[1].name, "seed") << name;
  }

  // Rows with no, one, some and all positives.
  int64_t labels[4][64];
  int64_t positives[4] = {0, 0, 0, 0};
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 64; ++j) {
      bool positive = r == 3 || (r == 1 && j == 17) || (r == 2 && j % 3 == 0);
      labels[r][j] = positive ? 1 : 0;
      positives[r] += positive;
    }
  int64_t seeds[4] = {11, 22, 33, 44};
  auto results = batched->call({TensorView(labels, DType::I64, {4, 64}),
                                TensorView(seeds, DType::I64, {4})});
  ASSERT_OK(results);
  const int64_t *rows = (*results)[0].data<int64_t>();
  const int64_t *counts = (*results)[1].data<int64_t>();
  for (int r = 0; r < 4; ++r) {
    // Independently: the count is the number of positives, and the first
    // `count` lanes are a permutation of their positions.
    EXPECT_EQ(counts[r], positives[r]) << "row " << r;
    std::vector<int64_t> got(rows + r * 64, rows + r * 64 + counts[r]);
    std::sort(got.begin(), got.end());
    std::vector<int64_t> want;
    for (int j = 0; j < 64; ++j)
      if (labels[r][j] == 1)
        want.push_back(j);
    EXPECT_EQ(got, want) << "row " << r;
    // Exactly the per-sample function on that row.
    auto single = engine.call("pick", {TensorView(labels[r], DType::I64, {64}),
                                       Scalar::ofInt(seeds[r])});
    ASSERT_OK(single);
    EXPECT_EQ((*single)[1].data<int64_t>()[0], counts[r]);
    for (int j = 0; j < 64; ++j)
      EXPECT_EQ((*single)[0].data<int64_t>()[j], rows[r * 64 + j])
          << "row " << r << " lane " << j;
  }
}

TEST(EngineCompileTest, NamesComeFromTheSourceOrASiftNameAttribute) {
  const char *source = R"mlir(
func.func @f(%logits: tensor<4xf32>, %0: tensor<4xf32>,
             %x: tensor<4xf32> {sift.name = "given"})
    -> (tensor<4xf32> {sift.name = "sum"}, tensor<4xf32>) {
  %s = arith.addf %logits, %0 : tensor<4xf32>
  return %s, %x : tensor<4xf32>, tensor<4xf32>
}
)mlir";
  auto compiled = Engine::compileSource(source);
  ASSERT_OK(compiled);
  const FunctionSignature &sig = (*compiled)->functions()[0];
  EXPECT_EQ(sig.inputs[0].name, "logits");
  EXPECT_EQ(sig.inputs[1].name, ""); // numbered values have no name
  EXPECT_EQ(sig.inputs[2].name, "given");
  EXPECT_EQ(sig.results[0].name, "sum");
  EXPECT_EQ(sig.results[1].name, "");
  EXPECT_FALSE(sig.results[0].bounded);
}

TEST(EngineCompileTest, BadTransforms) {
  CompileOptions options;
  options.transforms = "no-such-pass";
  auto [code, message] = errorOf(Engine::compileSource(kProgram, options));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_NE(message.find("bad transforms 'no-such-pass'"), std::string::npos)
      << message;
  // A pass that fails reports its diagnostic.
  options.transforms = "sift-batch{func=nothing_here size=2}";
  std::tie(code, message) = errorOf(Engine::compileSource(kProgram, options));
  EXPECT_EQ(code, ErrorCode::CompileError);
  EXPECT_NE(message.find("no function named 'nothing_here'"), std::string::npos)
      << message;
}

//===----------------------------------------------------------------------===//
// Results that alias arguments or constants
//===----------------------------------------------------------------------===//

// The ownership-based deallocation clones such results (bufferization.clone),
// so the caller always owns what it gets; the pipeline must lower the clones.
TEST(EngineAliasingTest, ReturnsArgumentsAndConstantsAsOwnedCopies) {
  const char *source = R"mlir(
func.func @identity(%a: tensor<3xi32>) -> tensor<3xi32> {
  return %a : tensor<3xi32>
}
func.func @twice_same(%a: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  return %a, %a : tensor<3xi32>, tensor<3xi32>
}
func.func @constant() -> tensor<3xf32> {
  %c = arith.constant dense<[1.5, 2.5, 3.5]> : tensor<3xf32>
  return %c : tensor<3xf32>
}
)mlir";
  auto compiled = Engine::compileSource(source);
  ASSERT_OK(compiled);
  Engine &engine = **compiled;

  int32_t a[3] = {7, 8, 9};
  auto results = engine.call("identity", {TensorView(a, DType::I32, {3})});
  ASSERT_OK(results);
  EXPECT_NE((*results)[0].data(), static_cast<void *>(a));
  a[0] = -1; // the result does not alias the input
  EXPECT_EQ((*results)[0].data<int32_t>()[0], 7);
  EXPECT_EQ((*results)[0].data<int32_t>()[2], 9);

  results = engine.call("twice_same", {TensorView(a, DType::I32, {3})});
  ASSERT_OK(results);
  ASSERT_EQ(results->size(), 2u);
  EXPECT_EQ((*results)[0].data<int32_t>()[0], -1);
  EXPECT_EQ((*results)[1].data<int32_t>()[1], 8);

  for (int repeat = 0; repeat < 2; ++repeat) {
    results = engine.call("constant", {});
    ASSERT_OK(results);
    EXPECT_EQ((*results)[0].data<float>()[0], 1.5f);
    EXPECT_EQ((*results)[0].data<float>()[2], 3.5f);
  }
}

//===----------------------------------------------------------------------===//
// Runtime errors
//===----------------------------------------------------------------------===//

TEST(EngineRuntimeTest, RuntimeErrorBecomesAnErrorValue) {
  const char *source = R"mlir(
func.func private @sift_rt_error(i64, i64)
func.func @check(%a: tensor<2xi64>, %bad: i1) -> tensor<2xi64> {
  scf.if %bad {
    %code = arith.constant 1 : i64
    %value = arith.constant 42 : i64
    func.call @sift_rt_error(%code, %value) : (i64, i64) -> ()
  }
  %e = tensor.empty() : tensor<2xi64>
  %r = linalg.add ins(%a, %a : tensor<2xi64>, tensor<2xi64>)
                  outs(%e : tensor<2xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}
)mlir";
  auto compiled = Engine::compileSource(source);
  ASSERT_OK(compiled);
  int64_t a[2] = {1, 2};
  auto [code, message] =
      errorOf((*compiled)->call("check", {TensorView(a, DType::I64, {2}),
                                          Scalar::ofInt(1, DType::Bool)}));
  EXPECT_EQ(code, ErrorCode::RuntimeError);
  EXPECT_NE(message.find("function 'check': runtime error: code 1: "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("(value 42)"), std::string::npos) << message;
  // The error was cleared: the next good call succeeds.
  auto results = (*compiled)->call(
      "check", {TensorView(a, DType::I64, {2}), Scalar::ofInt(0, DType::Bool)});
  ASSERT_OK(results);
  EXPECT_EQ((*results)[0].data<int64_t>()[1], 4);
}

#ifdef __linux__
// Loading compiled code starts the OpenMP runtime's threads and moves each
// to a processor of its own once (CpuTarget.cpp, spreadOpenMPThreads): no
// thread of the process is left bound to fewer processors than the
// process may use.
namespace {
/// The processors the program may run on, read before any engine exists.
struct InitialAffinity {
  cpu_set_t mask;
  bool ok;
  InitialAffinity() { ok = sched_getaffinity(0, sizeof(mask), &mask) == 0; }
};
const InitialAffinity initialAffinity;
} // namespace

TEST_F(EngineTest, OpenMPThreadsAreSpreadButNotBound) {
  ASSERT_TRUE(engine);
  ASSERT_TRUE(initialAffinity.ok);
  float a[4] = {1, 2, 3, 4};
  callOk("add",
         {TensorView(a, DType::F32, {4}), TensorView(a, DType::F32, {4})});
  const cpu_set_t &process = initialAffinity.mask;
  std::error_code ec;
  int threads = 0;
  for (llvm::sys::fs::directory_iterator it("/proc/self/task", ec), end;
       !ec && it != end; it.increment(ec)) {
    pid_t tid = std::atoi(llvm::sys::path::filename(it->path()).str().c_str());
    cpu_set_t mask;
    if (sched_getaffinity(tid, sizeof(mask), &mask) != 0)
      continue; // the thread ended
    ++threads;
    EXPECT_TRUE(CPU_EQUAL(&mask, &process))
        << "thread " << tid << " may run on " << CPU_COUNT(&mask) << " of "
        << CPU_COUNT(&process) << " processors";
  }
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_GE(threads, 1);
}
#endif

// Modules written for mlir-runner call the runner utilities; the engine
// loads them for such modules only (loading them brings libLLVM.so into the
// global symbol scope, where a later library with its own LLVM would bind
// to it).
TEST(EngineRuntimeTest, RunnerUtilitiesAreLoadedForModulesThatCallThem) {
  const char *source = R"mlir(
func.func private @printMemrefF32(memref<*xf32>)
    attributes {llvm.emit_c_interface}
func.func @show(%x: tensor<2xf32>) -> tensor<2xf32> {
  %m = bufferization.to_buffer %x : tensor<2xf32> to memref<2xf32>
  %u = memref.cast %m : memref<2xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return %x : tensor<2xf32>
}
)mlir";
  auto compiled = Engine::compileSource(source);
  ASSERT_OK(compiled);
  float x[2] = {1.25f, -2.0f};
  testing::internal::CaptureStdout();
  auto results = (*compiled)->call("show", {TensorView(x, DType::F32, {2})});
  std::fflush(stdout);
  std::string printed = testing::internal::GetCapturedStdout();
  ASSERT_OK(results);
  EXPECT_EQ((*results)[0].data<float>()[0], 1.25f);
  EXPECT_NE(printed.find("[1.25,  -2]"), std::string::npos) << printed;
}

//===----------------------------------------------------------------------===//
// The calling convention (lib/JIT/CallingConvention.cpp)
//===----------------------------------------------------------------------===//

namespace {
const char *kConventionProgram = R"mlir(
func.func @negate0(%a: tensor<f32>) -> tensor<f32> {
  %v = tensor.extract %a[] : tensor<f32>
  %n = arith.negf %v : f32
  %r = tensor.from_elements %n : tensor<f32>
  return %r : tensor<f32>
}

func.func @mixed(%k: i8, %a: tensor<?xi16>, %x: f32)
    -> (i8, tensor<?xi16>, i16, f64) {
  %one = arith.constant 1 : i8
  %k1 = arith.addi %k, %one : i8
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi16>
  %e = tensor.empty(%n) : tensor<?xi16>
  %d = linalg.add ins(%a, %a : tensor<?xi16>, tensor<?xi16>)
                  outs(%e : tensor<?xi16>) -> tensor<?xi16>
  %ni = arith.index_cast %n : index to i16
  %xd = arith.extf %x : f32 to f64
  %two = arith.constant 2.0 : f64
  %x2 = arith.mulf %xd, %two : f64
  return %k1, %d, %ni, %x2 : i8, tensor<?xi16>, i16, f64
}

func.func @row_sums2(%a: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<?xf32>)
            -> tensor<?xf32>
  %r = linalg.reduce ins(%a : tensor<?x?xf32>) outs(%fill : tensor<?xf32>)
         dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
}

func.func @doubled_twice(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.add ins(%a, %a : tensor<3xf32>, tensor<3xf32>)
                  outs(%e : tensor<3xf32>) -> tensor<3xf32>
  return %r, %r : tensor<3xf32>, tensor<3xf32>
}
)mlir";
} // namespace

TEST(EngineConventionTest, RankZeroTensorsInAndOut) {
  auto compiled = Engine::compileSource(kConventionProgram);
  ASSERT_OK(compiled);
  float a = 2.5f;
  auto results = (*compiled)->call("negate0", {TensorView(&a, DType::F32, {})});
  ASSERT_OK(results);
  ASSERT_EQ(results->size(), 1u);
  EXPECT_EQ((*results)[0].rank(), 0);
  EXPECT_EQ((*results)[0].numElements(), 1);
  EXPECT_EQ((*results)[0].data<float>()[0], -2.5f);
  // A rank-0 tensor where a scalar is expected, and the other way round.
  auto [code, message] =
      errorOf((*compiled)->call("negate0", {Scalar::ofFloat(1.0)}));
  EXPECT_EQ(code, ErrorCode::InvalidArgument);
  EXPECT_EQ(message, "function 'negate0': argument 0: expected tensor<f32>, "
                     "got a scalar f64");
}

// Results of different sizes and alignments in one returned struct.
TEST(EngineConventionTest, MixedScalarAndTensorResults) {
  auto compiled = Engine::compileSource(kConventionProgram);
  ASSERT_OK(compiled);
  int16_t a[4] = {1, -2, 300, 4};
  auto results = (*compiled)->call(
      "mixed", {Scalar::ofInt(-8, DType::I8), TensorView(a, DType::I16, {4}),
                Scalar::ofFloat(1.25, DType::F32)});
  ASSERT_OK(results);
  ASSERT_EQ(results->size(), 4u);
  EXPECT_EQ((*results)[0].dtype(), DType::I8);
  EXPECT_EQ((*results)[0].data<int8_t>()[0], -7);
  EXPECT_EQ((*results)[1].dtype(), DType::I16);
  ASSERT_EQ((*results)[1].shape(), llvm::ArrayRef<int64_t>({4}));
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ((*results)[1].data<int16_t>()[i], 2 * a[i]);
  EXPECT_EQ((*results)[2].dtype(), DType::I16);
  EXPECT_EQ((*results)[2].data<int16_t>()[0], 4);
  EXPECT_EQ((*results)[3].dtype(), DType::F64);
  EXPECT_EQ((*results)[3].data<double>()[0], 2.5);
}

TEST(EngineConventionTest, EmptyTensorsOfRankTwo) {
  auto compiled = Engine::compileSource(kConventionProgram);
  ASSERT_OK(compiled);
  // Three empty rows: three zero sums.
  auto results =
      (*compiled)->call("row_sums2", {TensorView(nullptr, DType::F32, {3, 0})});
  ASSERT_OK(results);
  ASSERT_EQ((*results)[0].shape(), llvm::ArrayRef<int64_t>({3}));
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ((*results)[0].data<float>()[i], 0.0f);
  // No rows: an empty result.
  results =
      (*compiled)->call("row_sums2", {TensorView(nullptr, DType::F32, {0, 3})});
  ASSERT_OK(results);
  EXPECT_EQ((*results)[0].shape(), llvm::ArrayRef<int64_t>({0}));
}

// Two results in one buffer: it is freed once, after the last of them, which
// may be after the Engine is gone.
TEST(EngineConventionTest, ResultsSharingABufferOutliveTheEngine) {
  auto compiled = Engine::compileSource(kConventionProgram);
  ASSERT_OK(compiled);
  float a[3] = {1, 2, 3.5f};
  auto results =
      (*compiled)->call("doubled_twice", {TensorView(a, DType::F32, {3})});
  ASSERT_OK(results);
  compiled->reset();
  ASSERT_EQ(results->size(), 2u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ((*results)[0].data<float>()[i], 2 * a[i]);
    EXPECT_EQ((*results)[1].data<float>()[i], 2 * a[i]);
  }
  Tensor first = (*results)[0];
  results->clear();
  EXPECT_EQ(first.data<float>()[2], 7.0f);
}
