//===- CompileCacheTest.cpp - Tests of the JIT's compile cache --*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Each test uses a cache directory of its own under the system's temporary
// folder (never the user's): a compile that misses stores an entry, the same
// compile again loads it (Engine::loadedFromCache) and computes the same
// results, which are checked against values computed here; other options
// miss; corrupt, truncated or foreign entries are compiled again; a disabled
// cache or an unusable directory writes nothing and still compiles.
//
//===----------------------------------------------------------------------===//

#include "sift/JIT/Engine.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace mlir::sift::jit;

namespace {

// @scale multiplies by a scalar; @check raises a runtime error when asked;
// @half takes f16, which the API cannot pass (an Unsupported lookup).
const char *kProgram = R"mlir(
func.func private @sift_rt_error(i64, i64)
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

func.func @half(%a: tensor<2xf16>) -> tensor<2xf16> {
  %e = tensor.empty() : tensor<2xf16>
  %r = linalg.add ins(%a, %a : tensor<2xf16>, tensor<2xf16>)
                  outs(%e : tensor<2xf16>) -> tensor<2xf16>
  return %r : tensor<2xf16>
}
)mlir";

// A data-dependent program made static and batched by the transforms: the
// cached signatures keep the names and the bounded results.
const char *kPick = R"mlir(
func.func @pick(%labels: tensor<16xi64>, %seed: i64) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %ones = arith.constant dense<1> : tensor<16xi64>
  %m = arith.cmpi eq, %labels, %ones : tensor<16xi64>
  %pos = sift.nonzero %m : tensor<16xi1> -> tensor<?xi64>
  %n = tensor.dim %pos, %c0 : tensor<?xi64>
  %perm = sift.randperm %n, %seed : tensor<?xi64>
  %shuffled = sift.gather %pos[%perm] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  return %shuffled : tensor<?xi64>
}
)mlir";

template <typename T>
std::pair<ErrorCode, std::string> errorOf(llvm::Expected<T> value) {
  if (value)
    return {ErrorCode::Ok, ""};
  std::string message;
  ErrorCode code = consumeError(value.takeError(), &message);
  return {code, message};
}

#define ASSERT_OK(expected)                                                    \
  ASSERT_TRUE(static_cast<bool>(expected))                                     \
      << errorOf(std::move(expected)).second

/// A fresh cache directory (not created: the cache creates it), removed
/// afterwards; SIFT_CACHE and SIFT_CACHE_DIR are unset meanwhile.
class CompileCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char *name : {"SIFT_CACHE", "SIFT_CACHE_DIR"}) {
      const char *value = std::getenv(name);
      saved.emplace_back(name, value ? std::optional<std::string>(value)
                                     : std::nullopt);
      unsetenv(name);
    }
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("sift-cache-test", path));
    root = std::string(path);
    dir = root + "/jit";
    options.cacheDir = dir;
  }
  void TearDown() override {
    llvm::sys::fs::remove_directories(root);
    for (auto &[name, value] : saved)
      if (value)
        setenv(name.c_str(), value->c_str(), 1);
      else
        unsetenv(name.c_str());
  }

  /// The entries in the directory (llvmcache-<key>), by path.
  std::vector<std::string> entries() const {
    std::vector<std::string> found;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
         it.increment(ec))
      if (llvm::sys::path::filename(it->path()).starts_with("llvmcache-") &&
          it->path().find("timestamp") == std::string::npos)
        found.push_back(it->path());
    std::sort(found.begin(), found.end());
    return found;
  }
  /// Every file in the directory, temporary ones included.
  size_t files() const {
    size_t n = 0;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
         it.increment(ec))
      ++n;
    return n;
  }
  std::string read(const std::string &path) const {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    return buffer ? (*buffer)->getBuffer().str() : "";
  }
  void write(const std::string &path, llvm::StringRef bytes) const {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec) << ec.message();
    os << bytes;
  }

  std::unique_ptr<Engine> compile(const char *source = kProgram) {
    auto engine = Engine::compileSource(source, options);
    if (!engine) {
      ADD_FAILURE() << errorOf(std::move(engine)).second;
      return nullptr;
    }
    return std::move(*engine);
  }

  /// Calls @scale and @check of kProgram and checks the results and errors
  /// against values computed here.
  void checkProgram(Engine &engine) {
    double a[5] = {1, -2, 3.5, 0, 1e10};
    auto scaled = engine.call(
        "scale", {TensorView(a, DType::F64, {5}), Scalar::ofFloat(2.5)});
    ASSERT_OK(scaled);
    ASSERT_EQ((*scaled)[0].shape().vec(), std::vector<int64_t>({5}));
    for (int i = 0; i < 5; ++i)
      EXPECT_EQ((*scaled)[0].data<double>()[i], a[i] * 2.5) << i;

    int64_t b[2] = {3, -7};
    auto twice = engine.call("check", {TensorView(b, DType::I64, {2}),
                                       Scalar::ofInt(0, DType::Bool)});
    ASSERT_OK(twice);
    EXPECT_EQ((*twice)[0].data<int64_t>()[0], 6);
    EXPECT_EQ((*twice)[0].data<int64_t>()[1], -14);

    auto [code, message] =
        errorOf(engine.call("check", {TensorView(b, DType::I64, {2}),
                                      Scalar::ofInt(1, DType::Bool)}));
    EXPECT_EQ(code, ErrorCode::RuntimeError);
    EXPECT_NE(message.find("function 'check': runtime error: code 1: "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("(value 42)"), std::string::npos) << message;
  }

  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  std::string root, dir;
  CompileOptions options;
};

/// Everything a caller can observe of an engine without calling it.
std::string describe(Engine &engine) {
  std::string out;
  for (const FunctionSignature &sig : engine.functions()) {
    out += sig.name + "(";
    for (const ValueType &t : sig.inputs)
      out += t.name + ":" + t.str() +
             (t.bound ? "<=" + std::to_string(*t.bound) : "") + ",";
    out += ")->(";
    for (const ValueType &t : sig.results)
      out += t.name + ":" + t.str() + (t.bounded ? " bounded" : "") + ",";
    out += ")\n";
  }
  for (const char *name : {"half", "nope", "scale"}) {
    auto [code, message] = errorOf(engine.lookup(name));
    out += std::string(name) + ": " + std::to_string(int(code)) + " " +
           message + "\n";
  }
  return out;
}

TEST_F(CompileCacheTest, MissThenHitGiveTheSameResultsAndErrors) {
  auto first = compile();
  ASSERT_TRUE(first);
  EXPECT_FALSE(first->loadedFromCache());
  ASSERT_EQ(entries().size(), 1u);
  checkProgram(*first);

  auto second = compile();
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->loadedFromCache());
  EXPECT_EQ(entries().size(), 1u);
  EXPECT_EQ(describe(*first), describe(*second));
  // The lookup errors say the same on both paths.
  EXPECT_NE(describe(*second).find("half: "), std::string::npos);
  checkProgram(*second);
  // Both engines live at once, and the second outlives the first.
  first.reset();
  checkProgram(*second);
}

TEST_F(CompileCacheTest, TransformedSignaturesSurviveTheCache) {
  options.transforms = "sift-staticize,sift-batch{func=pick size=2}";
  auto first = compile(kPick);
  ASSERT_TRUE(first);
  auto second = compile(kPick);
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->loadedFromCache());
  EXPECT_EQ(describe(*first), describe(*second));
  auto fn = second->lookup("pick_batched");
  ASSERT_OK(fn);
  EXPECT_EQ(fn->signature().inputs[0].name, "labels");
  EXPECT_TRUE(fn->signature().results[0].bounded);

  int64_t labels[2][16] = {};
  for (int j = 0; j < 16; ++j)
    labels[1][j] = j % 4 == 1;
  int64_t seeds[2] = {5, 6};
  for (Engine *engine : {first.get(), second.get()}) {
    auto results =
        engine->call("pick_batched", {TensorView(labels, DType::I64, {2, 16}),
                                      TensorView(seeds, DType::I64, {2})});
    ASSERT_OK(results);
    const int64_t *counts = (*results)[1].data<int64_t>();
    EXPECT_EQ(counts[0], 0);
    ASSERT_EQ(counts[1], 4);
    std::vector<int64_t> got((*results)[0].data<int64_t>() + 16,
                             (*results)[0].data<int64_t>() + 20);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, std::vector<int64_t>({1, 5, 9, 13}));
  }
}

TEST_F(CompileCacheTest, EveryOptionAndTheSourceAreInTheKey) {
  ASSERT_TRUE(compile());
  std::vector<CompileOptions> variants(6, options);
  variants[0].optLevel = 1;
  variants[1].numThreads = 3;
  variants[2].functions = {"scale"};
  variants[3].transforms = "canonicalize";
  variants[4].pipeline = "builtin.module(sift-cpu-pipeline)";
  variants[5].functions = {"scale", "check"};
  size_t expected = 1;
  for (const CompileOptions &variant : variants) {
    auto engine = Engine::compileSource(kProgram, variant);
    ASSERT_OK(engine);
    EXPECT_FALSE((*engine)->loadedFromCache()) << expected;
    EXPECT_EQ(entries().size(), ++expected);
  }
  // Another source text, and the same text under another buffer name.
  std::string other = std::string(kProgram) + "\n// another comment\n";
  auto engine = Engine::compileSource(other, options);
  ASSERT_OK(engine);
  EXPECT_FALSE((*engine)->loadedFromCache());
  auto renamed = Engine::compileSource(kProgram, options, "other.mlir");
  ASSERT_OK(renamed);
  EXPECT_FALSE((*renamed)->loadedFromCache());
  EXPECT_EQ(entries().size(), expected + 2);
  // Each of them hits now.
  for (const CompileOptions &variant : variants) {
    auto again = Engine::compileSource(kProgram, variant);
    ASSERT_OK(again);
    EXPECT_TRUE((*again)->loadedFromCache());
  }
}

TEST_F(CompileCacheTest, BadEntriesAreCompiledAgain) {
  ASSERT_TRUE(compile());
  ASSERT_EQ(entries().size(), 1u);
  const std::string path = entries()[0];
  const std::string good = read(path);
  ASSERT_GT(good.size(), 64u);

  // A different format version with a valid hash: as a newer sift would
  // write it under the same name.
  std::string otherVersion = good.substr(0, good.size() - 32);
  llvm::support::endian::write64le(&otherVersion[8], 99);
  auto hash = llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(otherVersion));
  otherVersion.append(hash.begin(), hash.end());

  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x5a;
  const std::pair<const char *, std::string> bad[] = {
      {"empty", ""},
      {"truncated", good.substr(0, good.size() / 2)},
      {"one byte short", good.substr(0, good.size() - 1)},
      {"a flipped byte", flipped},
      {"another format version", otherVersion},
      {"garbage", std::string(4096, 'x')},
  };
  for (const auto &[what, bytes] : bad) {
    write(path, bytes);
    auto engine = compile();
    ASSERT_TRUE(engine) << what;
    EXPECT_FALSE(engine->loadedFromCache()) << what;
    checkProgram(*engine);
    // Written again, whole.
    EXPECT_EQ(read(path), good) << what;
    auto again = compile();
    ASSERT_TRUE(again) << what;
    EXPECT_TRUE(again->loadedFromCache()) << what;
  }
}

TEST_F(CompileCacheTest, DisabledCacheWritesNothing) {
  options.cache = false;
  auto engine = compile();
  ASSERT_TRUE(engine);
  EXPECT_FALSE(engine->loadedFromCache());
  checkProgram(*engine);
  EXPECT_FALSE(llvm::sys::fs::exists(dir));

  options.cache = true;
  for (const char *off : {"0", "off"}) {
    setenv("SIFT_CACHE", off, 1);
    auto again = compile();
    ASSERT_TRUE(again);
    EXPECT_FALSE(again->loadedFromCache());
    EXPECT_FALSE(llvm::sys::fs::exists(dir)) << off;
  }
  unsetenv("SIFT_CACHE");
  ASSERT_TRUE(compile());
  EXPECT_EQ(entries().size(), 1u);
}

TEST_F(CompileCacheTest, EnvironmentNamesTheDirectory) {
  options.cacheDir.clear();
  setenv("SIFT_CACHE_DIR", dir.c_str(), 1);
  ASSERT_TRUE(compile());
  EXPECT_EQ(entries().size(), 1u);
  auto again = compile();
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->loadedFromCache());
}

TEST_F(CompileCacheTest, UnusableDirectoryCompilesWithoutCache) {
  // A directory inside a regular file can be neither created nor read.
  std::string file = root + "/file";
  write(file, "not a directory");
  options.cacheDir = file + "/jit";
  for (int i = 0; i < 2; ++i) {
    auto engine = compile();
    ASSERT_TRUE(engine);
    EXPECT_FALSE(engine->loadedFromCache());
    checkProgram(*engine);
  }
  EXPECT_EQ(read(file), "not a directory");
}

TEST_F(CompileCacheTest, FailedCompilesAreNotStoredAndFailTheSameWay) {
  const char *bad = "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  return %b : tensor<4xf32>\n}\n";
  auto [code, message] = errorOf(Engine::compileSource(bad, options));
  EXPECT_EQ(code, ErrorCode::ParseError);
  auto [code2, message2] = errorOf(Engine::compileSource(bad, options));
  EXPECT_EQ(code2, code);
  EXPECT_EQ(message2, message);
  EXPECT_EQ(entries().size(), 0u);

  CompileOptions missing = options;
  missing.functions = {"nope"};
  auto [code3, message3] = errorOf(Engine::compileSource(kProgram, missing));
  EXPECT_EQ(code3, ErrorCode::NotFound);
  EXPECT_EQ(entries().size(), 0u);
}

TEST_F(CompileCacheTest, ConcurrentCompilesOfOneProgram) {
  std::vector<std::unique_ptr<Engine>> engines(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < engines.size(); ++i)
    threads.emplace_back([&, i] {
      auto engine = Engine::compileSource(kProgram, options);
      if (engine)
        engines[i] = std::move(*engine);
      else
        llvm::consumeError(engine.takeError());
    });
  for (std::thread &t : threads)
    t.join();
  for (auto &engine : engines) {
    ASSERT_TRUE(engine);
    checkProgram(*engine);
  }
  // One entry, no temporary file left behind.
  EXPECT_EQ(entries().size(), 1u);
  EXPECT_EQ(files(), 2u); // and llvmcache.timestamp
}

} // namespace
