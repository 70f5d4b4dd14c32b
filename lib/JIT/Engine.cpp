//===- Engine.cpp - The sift JIT embedding API ------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Parse -> read the signatures -> CPU pipeline -> mlir::ExecutionEngine (the
// steps of mlir/examples/toy/Ch6/toyc.cpp runJit). Calls use the packed
// wrappers the ExecutionEngine generates for every function (`_mlir_<name>`),
// over the expanded memref calling convention of convert-func-to-llvm: each
// memref argument is (allocated ptr, aligned ptr, offset, sizes[rank],
// strides[rank]) field by field, and the results come back as one LLVM value
// (a descriptor struct, a scalar, or a struct of those) stored through the
// pointer after the arguments.
//
//===----------------------------------------------------------------------===//

#include "sift/JIT/Engine.h"

#include "Signature.h"

#include "sift/Dialect/Sift/IR/SiftDialect.h"
#include "sift/Dialect/Sift/Transforms/GuardedVerify.h"
#include "sift/Dialect/Sift/Transforms/Passes.h"
#include "sift/InitAllSift.h"
#include "sift/Pipelines/Pipelines.h"

#ifdef SIFT_JIT_HAS_RUNTIME
#include "sift/Runtime/SiftRuntime.h"
#endif

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace jit = mlir::sift::jit;
using jit::Argument;
using jit::DType;
using jit::ErrorCode;
using jit::FunctionSignature;
using jit::Tensor;
using jit::TensorView;
using jit::ValueType;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// Engine
//===----------------------------------------------------------------------===//

struct jit::Engine::Impl {
  std::unique_ptr<mlir::ExecutionEngine> engine;
  /// Functions whose signature this API cannot call, with the reason.
  llvm::StringMap<std::string> unsupported;
};

jit::Engine::Engine(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
jit::Engine::~Engine() = default;

/// One-time global set-up: the native target and the pass registry (for
/// textual pipeline overrides).
static void initializeOnce() {
  static std::once_flag flag;
  std::call_once(flag, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    mlir::sift::registerAllSiftPasses();
  });
}

/// Symbols the compiled code may call that the JIT must resolve even when the
/// process does not export them globally (e.g. loaded with RTLD_LOCAL).
static llvm::orc::SymbolMap
runtimeSymbols(llvm::orc::MangleAndInterner mangle) {
  llvm::orc::SymbolMap map;
  auto add = [&](StringRef name, void *ptr) {
    map[mangle(name)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(ptr), llvm::JITSymbolFlags::Exported);
  };
  add("memrefCopy", reinterpret_cast<void *>(&memrefCopy));
#ifdef SIFT_JIT_HAS_RUNTIME
  // The CPU pipeline requests C interfaces for every func.func, declarations
  // included, so a call to `func.func private @sift_rt_report(i64, i64, i64,
  // i64)` goes to `_mlir_ciface_sift_rt_report`; with scalar arguments only,
  // both names have the same ABI.
  add("sift_rt_error", reinterpret_cast<void *>(&sift_rt_error));
  add("_mlir_ciface_sift_rt_error", reinterpret_cast<void *>(&sift_rt_error));
  add("sift_rt_report", reinterpret_cast<void *>(&sift_rt_report));
  add("_mlir_ciface_sift_rt_report", reinterpret_cast<void *>(&sift_rt_report));
  add("sift_rt_fail", reinterpret_cast<void *>(&sift_rt_fail));
  add("_mlir_ciface_sift_rt_fail", reinterpret_cast<void *>(&sift_rt_fail));
  // Buffer allocation of compiled code (the runtime's caching allocator).
  add("_mlir_memref_to_llvm_alloc",
      reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc));
  add("_mlir_memref_to_llvm_aligned_alloc",
      reinterpret_cast<void *>(&_mlir_memref_to_llvm_aligned_alloc));
  add("_mlir_memref_to_llvm_free",
      reinterpret_cast<void *>(&_mlir_memref_to_llvm_free));
#endif
  return map;
}

/// No machine has more address space than this (x86-64 and AArch64 with
/// 4-level page tables map 2^48 bytes at most).
static constexpr int64_t kMaxTensorBytes = int64_t(1) << 48;

/// Fails, with a diagnostic at the op, where a value of the module has a
/// static tensor or memref type of more than kMaxTensorBytes bytes (elements
/// narrower than a byte take one).
static mlir::LogicalResult checkStaticSizes(mlir::ModuleOp module) {
  auto tooLarge = [](mlir::Type type) -> std::optional<std::string> {
    auto shaped = llvm::dyn_cast<mlir::ShapedType>(type);
    if (!shaped || !shaped.hasRank() || !shaped.hasStaticShape() ||
        !shaped.getElementType().isIntOrIndexOrFloat())
      return std::nullopt;
    unsigned bits = shaped.getElementType().isIndex()
                        ? 64
                        : shaped.getElementType().getIntOrFloatBitWidth();
    int64_t bytes = std::max<unsigned>(bits, 8) / 8;
    for (int64_t d : shaped.getShape()) {
      std::optional<int64_t> next =
          jit::checkedMul(bytes, std::max<int64_t>(d, 1));
      if (!next || *next > kMaxTensorBytes)
        return "type " + jit::typeString(type) +
               " is larger than any address space (" +
               std::to_string(kMaxTensorBytes) + " bytes)";
      bytes = *next;
    }
    return std::nullopt;
  };
  mlir::WalkResult result = module.walk([&](mlir::Operation *op) {
    for (mlir::Type type : op->getResultTypes())
      if (std::optional<std::string> why = tooLarge(type)) {
        op->emitError() << *why;
        return mlir::WalkResult::interrupt();
      }
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument arg : block.getArguments())
          if (std::optional<std::string> why = tooLarge(arg.getType())) {
            op->emitError() << *why;
            return mlir::WalkResult::interrupt();
          }
    return mlir::WalkResult::advance();
  });
  return mlir::failure(result.wasInterrupted());
}

Expected<std::unique_ptr<jit::Engine>>
jit::Engine::compileSource(StringRef source, const CompileOptions &options,
                           StringRef bufferName) {
  return compile(llvm::MemoryBuffer::getMemBufferCopy(source, bufferName),
                 options);
}

Expected<std::unique_ptr<jit::Engine>>
jit::Engine::compileFile(StringRef path, const CompileOptions &options) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return makeError(ErrorCode::NotFound, "cannot open '" + path + "': " +
                                              buffer.getError().message());
  return compile(std::move(*buffer), options);
}

Expected<std::unique_ptr<jit::Engine>>
jit::Engine::compile(std::unique_ptr<llvm::MemoryBuffer> buffer,
                     const CompileOptions &options) {
  if (options.target == jit::Target::CUDA)
    return jit::makeError(ErrorCode::Unsupported,
                          "target 'cuda' is not available: no CUDA support in "
                          "this build/no GPU (use target 'cpu')");
  if (options.optLevel > 3)
    return jit::makeError(ErrorCode::InvalidArgument,
                          "optimization level must be 0-3, got " +
                              Twine(options.optLevel));
  initializeOnce();

  mlir::DialectRegistry registry;
  mlir::sift::registerAllSiftDialects(registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerOpenMPDialectTranslation(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);

  // Every diagnostic (parser, verifier, passes) goes into `diagnostics` with
  // its location and source line, and becomes part of the error message.
  std::string diagnostics;
  llvm::raw_string_ostream diagOS(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagOS);

  // Verified by sift::guardedVerify, not by the parser: it rejects first
  // what an upstream verifier would crash on.
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(
          sourceMgr, mlir::ParserConfig(&context, /*verifyAfterParse=*/false));
  if (!module || mlir::failed(mlir::sift::guardedVerify(*module)))
    return jit::makeError(ErrorCode::ParseError,
                          "failed to parse MLIR source:\n" + diagnostics);

  // Source-level transforms (staticize, batch) first: what they add is
  // callable.
  if (!options.transforms.empty()) {
    mlir::PassManager transforms(&context, mlir::ModuleOp::getOperationName());
    std::string error;
    llvm::raw_string_ostream errorOS(error);
    if (mlir::failed(
            mlir::parsePassPipeline(options.transforms, transforms, errorOS)))
      return jit::makeError(ErrorCode::InvalidArgument, "bad transforms '" +
                                                            options.transforms +
                                                            "': " + error);
    if (mlir::failed(transforms.run(*module)))
      return jit::makeError(ErrorCode::CompileError,
                            "the transforms '" + options.transforms +
                                "' failed:\n" + diagnostics);
  }

  // A static shape larger than any address space can never be allocated,
  // and loops over it never end: reject it before lowering.
  if (mlir::failed(checkStaticSizes(*module)))
    return jit::makeError(ErrorCode::CompileError,
                          "a tensor is too large:\n" + diagnostics);

  // Signatures come from the source functions, before lowering.
  auto impl = std::make_unique<jit::Engine::Impl>();
  std::vector<FunctionSignature> signatures =
      jit::readSignatures(*module, impl->unsupported);
  // Inputs are host memory the caller still owns: compiled code must copy
  // before writing, never write in place.
  for (const FunctionSignature &sig : signatures) {
    auto func = module->lookupSymbol<mlir::func::FuncOp>(sig.name);
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      if (llvm::isa<mlir::TensorType>(type))
        func.setArgAttr(
            i, mlir::bufferization::BufferizationDialect::kWritableAttrName,
            mlir::BoolAttr::get(&context, false));
  }

  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
  if (options.pipeline.empty()) {
    mlir::sift::buildCpuPipeline(pm, mlir::sift::CpuPipelineOptions());
  } else {
    StringRef text = StringRef(options.pipeline).trim();
    if (text.consume_front("builtin.module(") && !text.consume_back(")"))
      text = options.pipeline;
    std::string error;
    llvm::raw_string_ostream errorOS(error);
    if (mlir::failed(mlir::parsePassPipeline(text, pm, errorOS)))
      return jit::makeError(ErrorCode::InvalidArgument, "bad pipeline '" +
                                                            options.pipeline +
                                                            "': " + error);
  }
  if (mlir::failed(pm.run(*module)))
    return jit::makeError(ErrorCode::CompileError,
                          "lowering to the LLVM dialect failed:\n" +
                              diagnostics);

  mlir::ExecutionEngineOptions engineOptions;
  // Optimize for the host CPU (its vector width and features), as the code
  // generator will; without a target machine LLVM's vectorizers have no
  // cost model.
  std::unique_ptr<llvm::TargetMachine> hostMachine;
  if (auto builder = llvm::orc::JITTargetMachineBuilder::detectHost()) {
    if (auto tm = builder->createTargetMachine())
      hostMachine = std::move(*tm);
    else
      llvm::consumeError(tm.takeError());
  } else {
    llvm::consumeError(builder.takeError());
  }
  auto transformer = mlir::makeOptimizingTransformer(
      options.optLevel, /*sizeLevel=*/0, hostMachine.get());
  engineOptions.transformer = transformer;
  static const llvm::CodeGenOptLevel levels[] = {
      llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
      llvm::CodeGenOptLevel::Default, llvm::CodeGenOptLevel::Aggressive};
  engineOptions.jitCodeGenOptLevel = levels[options.optLevel];
  // The MLIR runner utilities (printMemref*, printF32, ...) so that modules
  // written for mlir-runner also run here; loaded only where they exist.
  llvm::SmallVector<StringRef> sharedLibs;
#ifdef SIFT_MLIR_RUNNER_UTILS
  if (llvm::sys::fs::exists(SIFT_MLIR_RUNNER_UTILS))
    sharedLibs.push_back(SIFT_MLIR_RUNNER_UTILS);
#endif
  // The OpenMP runtime that parallel loops call (__kmpc_*).
  sharedLibs.push_back(SIFT_OPENMP_RUNTIME);
  engineOptions.sharedLibPaths = sharedLibs;
  engineOptions.enableGDBNotificationListener = false;
  // SIFT_PERF=1 tells `perf` about the JIT-compiled functions (with
  // `perf record -k 1` and `perf inject --jit`), for profiling.
  const char *perfEnv = std::getenv("SIFT_PERF");
  engineOptions.enablePerfNotificationListener =
      perfEnv && StringRef(perfEnv) == "1";
  Expected<std::unique_ptr<mlir::ExecutionEngine>> engine =
      mlir::ExecutionEngine::create(*module, engineOptions);
  if (!engine) {
    std::string msg = llvm::toString(engine.takeError());
    return jit::makeError(ErrorCode::CompileError,
                          "JIT compilation failed: " + msg + "\n" +
                              diagnostics);
  }
  (*engine)->registerSymbols(runtimeSymbols);
  (*engine)->initialize();
  impl->engine = std::move(*engine);
  std::unique_ptr<Engine> result(new Engine(std::move(impl)));
  result->signatures = std::move(signatures);
  return result;
}

Expected<jit::Function> jit::Engine::lookup(StringRef name) const {
  auto it = llvm::find_if(signatures, [&](const FunctionSignature &sig) {
    return sig.name == name;
  });
  if (it == signatures.end()) {
    auto bad = impl->unsupported.find(name);
    if (bad != impl->unsupported.end())
      return makeError(ErrorCode::Unsupported,
                       "function '" + name +
                           "' cannot be called from the "
                           "host: " +
                           bad->second);
    std::string names;
    for (const FunctionSignature &sig : signatures)
      names += (names.empty() ? "" : ", ") + sig.name;
    return makeError(ErrorCode::NotFound,
                     "no function '" + name + "' in the module (functions: " +
                         (names.empty() ? std::string("none") : names) + ")");
  }
  Expected<void (*)(void **)> packed = impl->engine->lookupPacked(name);
  if (!packed) {
    std::string msg = llvm::toString(packed.takeError());
    return makeError(ErrorCode::CompileError,
                     "function '" + name + "' failed to link: " + msg);
  }
  return Function(this, *it, *packed);
}

Expected<std::vector<Tensor>>
jit::Engine::call(StringRef name, llvm::ArrayRef<Argument> args) const {
  Expected<Function> fn = lookup(name);
  if (!fn)
    return fn.takeError();
  return fn->call(args);
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

namespace {
/// Size and alignment of a value of `type` in the LLVM struct the compiled
/// function returns (x86-64/AArch64 data layouts: natural alignment).
struct FieldLayout {
  size_t size;
  size_t align;
};
} // namespace

static FieldLayout layoutOf(const ValueType &type) {
  if (type.isTensor)
    return {8 * (3 + 2 * type.shape.size()), 8};
  size_t size = dtypeSize(type.dtype);
  return {size, size};
}

static size_t alignTo(size_t offset, size_t align) {
  return (offset + align - 1) / align * align;
}

/// Stores a scalar in the low bytes of an 8-byte slot (little-endian).
static void storeScalar(uint64_t &slot, const jit::Scalar &s, DType to) {
  slot = 0;
  switch (to) {
  case DType::F32: {
    float f = jit::isFloat(s.dtype) ? static_cast<float>(s.f)
                                    : static_cast<float>(s.i);
    std::memcpy(&slot, &f, sizeof(f));
    return;
  }
  case DType::F64: {
    double d = jit::isFloat(s.dtype) ? s.f : static_cast<double>(s.i);
    std::memcpy(&slot, &d, sizeof(d));
    return;
  }
  default: {
    int64_t v = s.i;
    std::memcpy(&slot, &v, dtypeSize(to));
    return;
  }
  }
}

Expected<std::vector<Tensor>>
jit::Function::call(llvm::ArrayRef<Argument> args) const {
  auto fail = [&](const Twine &msg) {
    return makeError(ErrorCode::InvalidArgument,
                     "function '" + sig.name + "': " + msg);
  };
  if (args.size() != sig.inputs.size())
    return fail("expected " + Twine(sig.inputs.size()) + " argument(s), got " +
                Twine(args.size()));

  // Count the 8-byte slots of the expanded arguments so that `slots` never
  // reallocates (the packed argument array points into it).
  size_t numSlots = 0;
  for (const ValueType &in : sig.inputs)
    numSlots += in.isTensor ? 3 + 2 * in.shape.size() : 1;
  std::vector<uint64_t> slots(numSlots, 0);
  llvm::SmallVector<void *> packedArgs;
  packedArgs.reserve(numSlots + 1);
  std::vector<Tensor> copies; // contiguous copies of strided inputs
  size_t slot = 0;
  auto push = [&](uint64_t value) {
    slots[slot] = value;
    packedArgs.push_back(&slots[slot]);
    ++slot;
  };
  // Pointers that stand in for null data of empty tensors.
  static char emptyData[16];

  for (auto [i, arg] : llvm::enumerate(args)) {
    const ValueType &want = sig.inputs[i];
    std::string where = "argument " + std::to_string(i);
    if (std::optional<std::string> why = jit::checkArgument(arg, want, where))
      return fail(*why);
    if (!want.isTensor) {
      uint64_t value;
      storeScalar(value, arg.scalar(), want.dtype);
      push(value);
      continue;
    }
    const TensorView &view = arg.view();
    const void *data = view.data;
    int64_t n = view.numElements();
    if (n == 0)
      data = emptyData;
    // Compiled code reads i1 bytes as 0 or 1 only; any other non-zero byte
    // is true, as in NumPy: normalize into a copy where one occurs.
    bool oddBools = false;
    if (view.dtype == DType::Bool && n > 0 && view.isContiguous()) {
      const auto *bytes = static_cast<const uint8_t *>(data);
      for (int64_t e = 0; e < n && !oddBools; ++e)
        oddBools = bytes[e] > 1;
    }
    if (n > 0 && (!view.isContiguous() || oddBools)) {
      Expected<Tensor> copy = Tensor::copyOf(view);
      if (!copy)
        return copy.takeError();
      copies.push_back(std::move(*copy));
      data = copies.back().data();
    }
    if (std::optional<std::string> error =
            jit::checkElementBound(data, n, want, where))
      return fail(*error);
    uint64_t ptr = reinterpret_cast<uintptr_t>(data);
    push(ptr); // allocated
    push(ptr); // aligned
    push(0);   // offset
    for (int64_t d : view.shape)
      push(static_cast<uint64_t>(d));
    for (int64_t s : contiguousStrides(view.shape))
      push(static_cast<uint64_t>(s));
  }

  // The result storage: one struct (or a single value) in the natural layout.
  llvm::SmallVector<size_t> offsets;
  size_t size = 0, align = 1;
  for (const ValueType &out : sig.results) {
    FieldLayout l = layoutOf(out);
    size = alignTo(size, l.align);
    offsets.push_back(size);
    size += l.size;
    align = std::max(align, l.align);
  }
  std::vector<uint64_t> resultStorage(alignTo(size, 8) / 8 + 1, 0);
  char *results = reinterpret_cast<char *>(resultStorage.data());
  if (!sig.results.empty())
    packedArgs.push_back(results);

    // The runtime collects the errors of compiled code from every thread and
    // ends the call early when a buffer cannot be allocated.
#ifdef SIFT_JIT_HAS_RUNTIME
  int64_t errorValues[3] = {0, 0, 0};
  // When it ended the call early, the results were never written: all
  // zeros, nothing to adopt.
  int64_t errorCode = sift_rt_run(packed, packedArgs.data(), errorValues);
#else
  packed(packedArgs.data());
#endif

  // Adopt the returned buffers first, so that they are freed on every path.
  // Results may share a buffer; each allocation gets one owner.
  std::vector<Tensor> outputs;
  llvm::DenseMap<void *, std::shared_ptr<void>> owners;
  std::optional<llvm::Error> resultError;
  auto setError = [&](llvm::Error e) {
    if (!resultError)
      resultError = std::move(e);
    else
      llvm::consumeError(std::move(e));
  };
  for (auto [r, out] : llvm::enumerate(sig.results)) {
    char *base = results + offsets[r];
    if (!out.isTensor) {
      Expected<Tensor> t = Tensor::zeros(out.dtype, {});
      if (!t) {
        setError(t.takeError());
        continue;
      }
      std::memcpy(t->data(), base, dtypeSize(out.dtype));
      outputs.push_back(std::move(*t));
      continue;
    }
    size_t rank = out.shape.size();
    void *allocated, *aligned;
    int64_t offset;
    std::memcpy(&allocated, base, 8);
    std::memcpy(&aligned, base + 8, 8);
    std::memcpy(&offset, base + 16, 8);
    llvm::SmallVector<int64_t> shape(rank), strides(rank);
    std::memcpy(shape.data(), base + 24, 8 * rank);
    std::memcpy(strides.data(), base + 24 + 8 * rank, 8 * rank);
    std::shared_ptr<void> &owner = owners[allocated];
    if (!owner && allocated)
      owner = std::shared_ptr<void>(
          allocated, [](void *p) { _mlir_memref_to_llvm_free(p); });
    std::string what = "result " + std::to_string(r);
    char *data = static_cast<char *>(aligned) +
                 offset * static_cast<int64_t>(dtypeSize(out.dtype));
    TensorView view(data, out.dtype, shape, strides);
    if (llvm::Error e = view.check(what)) {
      setError(std::move(e));
      continue;
    }
    if (!aligned && view.numElements() > 0) {
      setError(makeError(ErrorCode::RuntimeError, what + " has a null buffer"));
      continue;
    }
    if (view.isContiguous()) {
      outputs.push_back(Tensor::share(owner, data, out.dtype, shape));
      continue;
    }
    Expected<Tensor> copy = Tensor::copyOf(view);
    if (!copy) {
      setError(copy.takeError());
      continue;
    }
    outputs.push_back(std::move(*copy));
  }
  owners.clear();

#ifdef SIFT_JIT_HAS_RUNTIME
  if (errorCode) {
    if (resultError)
      llvm::consumeError(std::move(*resultError));
    char text[256];
    sift_rt_format_error(errorCode, errorValues, text, sizeof(text));
    if (errorCode == SIFT_RT_ERROR_OUT_OF_MEMORY)
      return makeError(ErrorCode::OutOfMemory,
                       "function '" + sig.name + "': " + text);
    return makeError(ErrorCode::RuntimeError,
                     "function '" + sig.name + "': runtime error: " + text);
  }
#endif
  if (resultError) {
    std::string msg;
    ErrorCode code = jit::consumeError(std::move(*resultError), &msg);
    return makeError(code == ErrorCode::OutOfMemory ? code
                                                    : ErrorCode::RuntimeError,
                     "function '" + sig.name + "': " + msg);
  }
  return outputs;
}
