//===- tensor-run.cpp - Run a function of a .mlir file ----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Compiles a module of sift and upstream tensor ops with the CPU pipeline
// (through the embedding API), calls one of its functions on inputs read from
// .npy files or generated from a seed, and prints a summary of each result or
// writes it as .npy:
//
//   tensor-run model.mlir -e f --input a.npy --random --seed 3 --repeat 10
//
// Tensor arguments take the --input files in order; the rest are random with
// --random. Scalar arguments take --arg NAME=VALUE (NAME: the SSA name in the
// source, or the argument index), or are random with --random.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "sift/JIT/Engine.h"
#include "sift/Runtime/CudaRuntime.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>

using namespace mlir::sift;
using jit::DType;
using jit::Tensor;
using llvm::StringRef;
using llvm::Twine;

namespace cl = llvm::cl;

static cl::OptionCategory category("tensor-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<file.mlir>"),
                                      cl::Required, cl::cat(category));
static cl::opt<std::string>
    entry("e",
          cl::desc("The function to run (default: the only public "
                   "function, or @main); with -e, only it and what it "
                   "calls are compiled"),
          cl::value_desc("function"), cl::cat(category));
static cl::list<std::string>
    inputs("input",
           cl::desc(".npy file for the next tensor argument (repeatable)"),
           cl::value_desc("file.npy"), cl::cat(category));
static cl::opt<bool>
    randomInputs("random",
                 cl::desc("Generate the arguments not given: floats uniform in "
                          "[0, 1), integers in [0, 16), random booleans"),
                 cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of --random (default 0)"),
                              cl::init(0), cl::cat(category));
static cl::opt<int64_t> dynamicSize(
    "dynamic-size",
    cl::desc("Extent of each '?' dimension of a random tensor (default 8)"),
    cl::init(8), cl::cat(category));
static cl::list<std::string>
    scalarArgs("arg", cl::desc("Value of a scalar argument (repeatable)"),
               cl::value_desc("NAME=VALUE"), cl::cat(category));
static cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("Write result<i>.npy files into this directory"),
              cl::value_desc("dir"), cl::cat(category));
static cl::opt<unsigned>
    repeat("repeat", cl::desc("Call N times; print min and median time"),
           cl::init(1), cl::cat(category));
static cl::opt<unsigned>
    warmup("warmup",
           cl::desc("Untimed calls before the --repeat timed ones (caches, "
                    "first-touch page faults, the thread pool's start)"),
           cl::init(0), cl::cat(category));
static cl::opt<std::string> target("target", cl::desc("cpu (default) or cuda"),
                                   cl::init("cpu"), cl::cat(category));
static cl::opt<unsigned>
    numThreads("num-threads",
               cl::desc("Threads of each parallel loop, at most (0: the "
                        "OpenMP runtime's choice, OMP_NUM_THREADS or one per "
                        "core; fewer on a busy machine unless "
                        "OMP_DYNAMIC=false); with --pipeline, set "
                        "num-threads in the pipeline instead"),
               cl::init(0), cl::cat(category));

static cl::opt<unsigned> optLevel("O", cl::desc("Optimization level 0-3"),
                                  cl::init(2), cl::Prefix, cl::cat(category));
static cl::opt<std::string>
    transforms("transforms",
               cl::desc("Source passes to run first, e.g. "
                        "'sift-staticize,sift-batch{func=f size=32}' "
                        "(then run -e f_batched)"),
               cl::cat(category));
static cl::opt<std::string>
    pipeline("pipeline", cl::desc("Replace the CPU pipeline (textual)"),
             cl::cat(category));
static cl::opt<bool> noCompileCache(
    "no-compile-cache",
    cl::desc("Compile even where the compile cache has the code of this "
             "file and options, and store nothing (as SIFT_CACHE=0)"),
    cl::cat(category));
static cl::opt<bool> compileTiming(
    "compile-timing",
    cl::desc("Print the time of each compile stage and pass to stderr (parse, "
             "transforms, lowering, LLVM translation, optimization, code "
             "generation)"),
    cl::cat(category));
static cl::opt<unsigned>
    printLimit("print-limit",
               cl::desc("Elements printed per result (default 16)"),
               cl::init(16), cl::cat(category));

static int fail(const Twine &message) {
  llvm::errs() << "tensor-run: error: " << message << "\n";
  return 1;
}

static int fail(llvm::Error error) {
  std::string message;
  jit::consumeError(std::move(error), &message);
  return fail(message);
}

/// The SSA names of the parameters of `@name` in the source text ("" where
/// not found): the parsed IR does not keep them.
static std::vector<std::string> argumentNames(StringRef source, StringRef name,
                                              size_t count) {
  std::vector<std::string> names(count);
  std::string key = ("@" + name + "(").str();
  size_t pos = 0;
  while ((pos = source.find(key, pos)) != StringRef::npos) {
    StringRef before = source.take_front(pos).rtrim();
    if (before.ends_with("func.func") || before.ends_with("public") ||
        before.ends_with("private"))
      break;
    pos += key.size();
  }
  if (pos == StringRef::npos)
    return names;
  StringRef rest = source.drop_front(pos + key.size());
  int depth = 1;
  size_t index = 0;
  for (size_t i = 0; i < rest.size() && depth > 0 && index < count; ++i) {
    char c = rest[i];
    if (c == '(' || c == '<' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == '>' || c == ']' || c == '}')
      --depth;
    else if (c == '%' && depth == 1) {
      size_t end = i + 1;
      while (end < rest.size() &&
             (isalnum(static_cast<unsigned char>(rest[end])) ||
              rest[end] == '_' || rest[end] == '$' || rest[end] == '.' ||
              rest[end] == '-'))
        ++end;
      names[index++] = rest.substr(i + 1, end - i - 1).str();
      i = end - 1;
    }
  }
  return names;
}

static std::string describeArg(size_t i, const std::string &name,
                               const jit::ValueType &type) {
  std::string s = "argument " + std::to_string(i) + " (";
  if (!name.empty())
    s += "%" + name + ": ";
  return s + type.str() + ")";
}

/// Parses VALUE for a scalar parameter of type `dtype`.
static llvm::Expected<jit::Scalar> parseScalar(StringRef text, DType dtype,
                                               StringRef what) {
  text = text.trim();
  if (jit::isFloat(dtype)) {
    double v;
    if (text.getAsDouble(v))
      return jit::makeError(jit::ErrorCode::InvalidArgument,
                            "--arg for " + what + ": '" + text +
                                "' is not a number");
    return jit::Scalar::ofFloat(v, dtype);
  }
  if (dtype == DType::Bool) {
    if (text == "true")
      return jit::Scalar::ofInt(1, dtype);
    if (text == "false")
      return jit::Scalar::ofInt(0, dtype);
  }
  int64_t v;
  if (text.getAsInteger(0, v))
    return jit::makeError(jit::ErrorCode::InvalidArgument,
                          "--arg for " + what + ": '" + text +
                              "' is not an integer");
  return jit::Scalar::ofInt(v, dtype);
}

static llvm::Expected<Tensor> randomTensor(const jit::ValueType &type,
                                           const std::string &what,
                                           std::mt19937_64 &rng) {
  llvm::SmallVector<int64_t> shape;
  for (int64_t d : type.shape)
    shape.push_back(d == jit::ValueType::kDynamic ? dynamicSize.getValue() : d);
  if (auto size =
          jit::checkShape(shape, type.dtype,
                          "the random input for " + what + " (--dynamic-size=" +
                              Twine(dynamicSize.getValue()) + ")");
      !size)
    return size.takeError();
  llvm::Expected<Tensor> made = Tensor::zeros(type.dtype, shape);
  if (!made)
    return made.takeError();
  Tensor t = std::move(*made);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int64_t> small(0, 15);
  for (int64_t i = 0, n = t.numElements(); i < n; ++i) {
    switch (type.dtype) {
    case DType::F32:
      t.data<float>()[i] = static_cast<float>(unit(rng));
      break;
    case DType::F64:
      t.data<double>()[i] = unit(rng);
      break;
    case DType::Bool:
      t.data<uint8_t>()[i] = small(rng) & 1;
      break;
    case DType::I8:
      t.data<int8_t>()[i] = small(rng);
      break;
    case DType::U8:
      t.data<uint8_t>()[i] = small(rng);
      break;
    case DType::I16:
      t.data<int16_t>()[i] = small(rng);
      break;
    case DType::I32:
      t.data<int32_t>()[i] = small(rng);
      break;
    case DType::I64:
      t.data<int64_t>()[i] = small(rng);
      break;
    }
  }
  return t;
}

static void printElement(llvm::raw_ostream &os, const Tensor &t, int64_t i) {
  if (jit::isFloat(t.dtype()))
    os << llvm::format("%g", t.getAsDouble(i));
  else if (t.dtype() == DType::Bool)
    os << (t.getAsInt(i) ? "true" : "false");
  else
    os << t.getAsInt(i);
}

/// Decimal digits of a 128-bit integer (raw_ostream has no operator).
static std::string formatInt128(__int128 v) {
  if (v >= INT64_MIN && v <= INT64_MAX)
    return std::to_string(static_cast<int64_t>(v));
  bool negative = v < 0;
  unsigned __int128 u = negative ? -static_cast<unsigned __int128>(v)
                                 : static_cast<unsigned __int128>(v);
  std::string digits;
  for (; u; u /= 10)
    digits += static_cast<char>('0' + static_cast<int>(u % 10));
  if (negative)
    digits += '-';
  return std::string(digits.rbegin(), digits.rend());
}

static void printSummary(llvm::raw_ostream &os, size_t index, const Tensor &t) {
  os << "result " << index << ": " << jit::dtypeName(t.dtype()) << " "
     << jit::formatShape(t.shape());
  int64_t n = t.numElements();
  if (t.rank() == 0) {
    os << " = ";
    printElement(os, t, 0);
    os << "\n";
    return;
  }
  if (n > 0) {
    if (jit::isFloat(t.dtype())) {
      double lo = INFINITY, hi = -INFINITY, sum = 0;
      int64_t nans = 0;
      for (int64_t i = 0; i < n; ++i) {
        double v = t.getAsDouble(i);
        if (std::isnan(v)) {
          ++nans;
          continue;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
      }
      os << llvm::format(" min %g max %g mean %g", lo, hi,
                         n > nans ? sum / (n - nans) : NAN);
      if (nans)
        os << " nan " << nans;
    } else if (t.dtype() == DType::Bool) {
      int64_t trues = 0;
      for (int64_t i = 0; i < n; ++i)
        trues += t.getAsInt(i);
      os << " true " << trues << "/" << n;
    } else {
      // The exact sum (128-bit: no overflow for any 2^63 int64 elements).
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      __int128 sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        int64_t v = t.getAsInt(i);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
      }
      os << " min " << lo << " max " << hi << " sum " << formatInt128(sum);
    }
  }
  os << "\n  [";
  int64_t shown = std::min<int64_t>(n, printLimit);
  for (int64_t i = 0; i < shown; ++i) {
    if (i)
      os << ", ";
    printElement(os, t, i);
  }
  if (shown < n)
    os << (shown ? ", " : "") << "... (" << n - shown << " more)";
  os << "]\n";
}

static llvm::Error error(const Twine &message) {
  return llvm::createStringError(message);
}

/// The function to run: -e, else the only one, else @main.
static llvm::Expected<std::string> chooseFunction(const jit::Engine &engine) {
  if (!entry.empty())
    return entry;
  llvm::ArrayRef<jit::FunctionSignature> fns = engine.functions();
  if (fns.size() == 1)
    return fns[0].name;
  if (llvm::any_of(fns, [](const jit::FunctionSignature &f) {
        return f.name == "main";
      }))
    return std::string("main");
  std::string names;
  for (const jit::FunctionSignature &f : fns)
    names += (names.empty() ? "" : ", ") + f.name;
  return error("the module has " + Twine(fns.size()) +
               " functions and none is @main: choose one with -e (" + names +
               ")");
}

/// The scalar arguments given with --arg NAME=VALUE, by position.
static llvm::Expected<std::vector<std::optional<jit::Scalar>>>
parseScalarArgs(StringRef name, const jit::FunctionSignature &sig,
                llvm::ArrayRef<std::string> names) {
  std::vector<std::optional<jit::Scalar>> scalars(sig.inputs.size());
  for (StringRef spec : scalarArgs) {
    auto [key, value] = spec.split('=');
    key = key.trim();
    if (value.empty() && !spec.contains('='))
      return error("--arg '" + spec + "': expected NAME=VALUE");
    key.consume_front("%");
    std::optional<size_t> index;
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == key)
        index = i;
    unsigned number;
    if (!index && !key.getAsInteger(10, number) && number < sig.inputs.size())
      index = number;
    if (!index)
      return error("--arg '" + spec + "': @" + name +
                   " has no argument named '" + key + "'");
    const jit::ValueType &type = sig.inputs[*index];
    std::string what = describeArg(*index, names[*index], type);
    if (type.isTensor)
      return error("--arg '" + spec + "': " + what +
                   " is a tensor; give it with --input");
    auto scalar = parseScalar(value, type.dtype, what);
    if (!scalar)
      return scalar.takeError();
    scalars[*index] = *scalar;
  }
  return scalars;
}

/// A random scalar of `dtype` (floats in [0, 1), integers in [0, 15]).
static jit::Scalar randomScalar(DType dtype, std::mt19937_64 &rng) {
  if (jit::isFloat(dtype))
    return jit::Scalar::ofFloat(
        std::uniform_real_distribution<double>(0, 1)(rng), dtype);
  return jit::Scalar::ofInt(std::uniform_int_distribution<int64_t>(
                                0, dtype == DType::Bool ? 1 : 15)(rng),
                            dtype);
}

/// The call's arguments: scalars from --arg, tensors from --input in order,
/// the rest random with --random. `tensors` owns the tensors the arguments
/// view.
static llvm::Expected<std::vector<jit::Argument>>
buildArguments(StringRef name, const jit::FunctionSignature &sig,
               llvm::ArrayRef<std::string> names,
               std::vector<Tensor> &tensors) {
  auto scalars = parseScalarArgs(name, sig, names);
  if (!scalars)
    return scalars.takeError();
  size_t numTensors = llvm::count_if(
      sig.inputs, [](const jit::ValueType &t) { return t.isTensor; });
  if (inputs.size() > numTensors)
    return error(Twine(inputs.size()) + " --input files for " +
                 Twine(numTensors) + " tensor argument(s) of @" + name);
  std::mt19937_64 rng(seed);
  tensors.reserve(sig.inputs.size());
  std::vector<jit::Argument> args;
  size_t nextInput = 0;
  for (auto [i, type] : llvm::enumerate(sig.inputs)) {
    std::string what = describeArg(i, names[i], type);
    std::optional<jit::Scalar> &scalar = (*scalars)[i];
    if (!type.isTensor) {
      if (!scalar) {
        if (!randomInputs)
          return error(what + " has no value: give --arg " +
                       (names[i].empty() ? std::to_string(i) : names[i]) +
                       "=VALUE or --random");
        scalar = randomScalar(type.dtype, rng);
      }
      args.emplace_back(*scalar);
      continue;
    }
    if (nextInput < inputs.size()) {
      auto tensor = npy::readFile(inputs[nextInput++]);
      if (!tensor)
        return tensor.takeError();
      tensors.push_back(std::move(*tensor));
    } else if (randomInputs) {
      auto tensor = randomTensor(type, what, rng);
      if (!tensor)
        return tensor.takeError();
      tensors.push_back(std::move(*tensor));
    } else {
      return error(what + " has no input: give --input FILE.npy or --random");
    }
    args.emplace_back(tensors.back());
  }
  return args;
}

/// Writes result<i>.npy for each result into --output-dir.
static llvm::Error writeResults(llvm::ArrayRef<Tensor> results) {
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return error("cannot create '" + outputDir + "': " + ec.message());
  for (auto [i, t] : llvm::enumerate(results)) {
    llvm::SmallString<128> path(outputDir);
    llvm::sys::path::append(path, "result" + Twine(i) + ".npy");
    if (llvm::Error e = npy::writeFile(path, t))
      return e;
    llvm::outs() << "wrote " << path << "\n";
  }
  return llvm::Error::success();
}

/// Sorts `times` (not empty) and returns their median.
static double sortedMedian(std::vector<double> &times) {
  std::sort(times.begin(), times.end());
  size_t n = times.size();
  return n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

static void printTimes(std::vector<double> times, double compileMs,
                       bool fromCache) {
  double median = sortedMedian(times);
  llvm::outs() << llvm::format("time per call: min %.3f ms, median %.3f ms "
                               "(%u calls)\n",
                               times.front(), median, repeat.getValue());
  llvm::outs() << llvm::format("compile time: %.1f ms%s\n", compileMs,
                               fromCache ? " (from the compile cache)" : "");
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tensor-run: compile a .mlir file for the CPU and run one of its "
      "functions\n");

  jit::CompileOptions options;
  if (target == "cuda")
    options.target = jit::Target::CUDA;
  else if (target != "cpu")
    return fail("unknown target '" + target + "' (expected cpu or cuda)");
  options.optLevel = optLevel;
  options.pipeline = pipeline;
  options.transforms = transforms;
  options.numThreads = numThreads;
  options.cache = !noCompileCache;
  options.timing = compileTiming;
  // With -e, only that function (and what it calls) is compiled.
  if (!entry.empty())
    options.functions = {entry};
  if (repeat == 0)
    return fail("--repeat must be at least 1");
  if (dynamicSize < 0)
    return fail("--dynamic-size must not be negative");

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileOrSTDIN(inputFile, /*IsText=*/true);
  if (!file)
    return fail("cannot open '" + inputFile +
                "': " + file.getError().message());
  StringRef source = (*file)->getBuffer();
  auto compileStart = std::chrono::steady_clock::now();
  auto engine = jit::Engine::compileSource(source, options, inputFile);
  if (!engine)
    return fail(engine.takeError());
  auto name = chooseFunction(**engine);
  if (!name)
    return fail(name.takeError());
  // The ExecutionEngine generates the code at the first lookup: the compile
  // time includes it.
  auto fn = (*engine)->lookup(*name);
  if (!fn)
    return fail(fn.takeError());
  double compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - compileStart)
                         .count();
  const jit::FunctionSignature &sig = fn->signature();
  std::vector<std::string> names =
      argumentNames(source, *name, sig.inputs.size());
  std::vector<Tensor> tensors;
  auto args = buildArguments(*name, sig, names, tensors);
  if (!args)
    return fail(args.takeError());

  for (unsigned r = 0; r < warmup; ++r)
    if (auto out = fn->call(*args); !out)
      return fail(out.takeError());
  std::vector<Tensor> results;
  std::vector<double> times;
  // On the GPU, the device's time of each call too: from its first kernel
  // launch to the end of its last kernel (CUDA events), without the copies
  // of the arguments and results.
  bool deviceTiming = options.target == jit::Target::CUDA && repeat > 1;
  std::vector<double> deviceTimes;
  int64_t launches = 0;
  if (deviceTiming) {
    sift_cuda_profile_enable(true);
    sift_cuda_profile_take(nullptr);
  }
  for (unsigned r = 0; r < repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    auto out = fn->call(*args);
    auto stop = std::chrono::steady_clock::now();
    if (!out)
      return fail(out.takeError());
    times.push_back(
        std::chrono::duration<double, std::milli>(stop - start).count());
    if (deviceTiming)
      deviceTimes.push_back(sift_cuda_profile_take(&launches));
    if (r == 0)
      results = std::move(*out);
  }
  if (deviceTiming)
    sift_cuda_profile_enable(false);

  llvm::outs() << "@" << *name << ": " << sig.inputs.size() << " argument(s), "
               << results.size() << " result(s)\n";
  for (auto [i, t] : llvm::enumerate(results))
    printSummary(llvm::outs(), i, t);
  if (!outputDir.empty())
    if (llvm::Error e = writeResults(results))
      return fail(std::move(e));
  if (repeat > 1)
    printTimes(std::move(times), compileMs, (*engine)->loadedFromCache());
  if (deviceTiming) {
    double median = sortedMedian(deviceTimes);
    llvm::outs() << llvm::format("device time per call: min %.3f ms, median "
                                 "%.3f ms (%lld kernel launches per call)\n",
                                 deviceTimes.front(), median,
                                 static_cast<long long>(launches));
  }
  return 0;
}
