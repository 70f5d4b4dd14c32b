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

#include "CallingConvention.h"
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
  jit::markInputsReadOnly(*module, signatures);

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

Expected<std::vector<Tensor>>
jit::Function::call(llvm::ArrayRef<Argument> args) const {
  PackedCall frame(sig);
  if (llvm::Error e = frame.pack(args))
    return std::move(e);

    // The runtime collects the errors of compiled code from every thread and
    // ends the call early when a buffer cannot be allocated.
#ifdef SIFT_JIT_HAS_RUNTIME
  int64_t errorValues[3] = {0, 0, 0};
  // When it ended the call early, the results were never written: all
  // zeros, nothing to adopt.
  int64_t errorCode = sift_rt_run(packed, frame.arguments(), errorValues);
#else
  packed(frame.arguments());
#endif

  // Adopt the returned buffers first, so that they are freed on every path.
  Expected<std::vector<Tensor>> results =
      frame.unpackResults([](void *p) { _mlir_memref_to_llvm_free(p); });

#ifdef SIFT_JIT_HAS_RUNTIME
  if (errorCode) {
    if (!results)
      llvm::consumeError(results.takeError());
    char text[256];
    sift_rt_format_error(errorCode, errorValues, text, sizeof(text));
    if (errorCode == SIFT_RT_ERROR_OUT_OF_MEMORY)
      return makeError(ErrorCode::OutOfMemory,
                       "function '" + sig.name + "': " + text);
    return makeError(ErrorCode::RuntimeError,
                     "function '" + sig.name + "': runtime error: " + text);
  }
#endif
  return results;
}
