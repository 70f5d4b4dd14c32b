//===- Engine.cpp - The sift JIT embedding API ------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Composes the parts under lib/JIT: the compile stages (Stages.h), the
// signatures of the callable functions (Signature.h), the target that lowers,
// loads and calls the code (TargetBackend.h; the CPU one in CpuTarget.cpp),
// and the memref calling convention (CallingConvention.h).
//
//===----------------------------------------------------------------------===//

#include "sift/JIT/Engine.h"

#include "CallingConvention.h"
#include "CompileCache.h"
#include "Signature.h"
#include "Stages.h"
#include "TargetBackend.h"

#include "sift/InitAllSift.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

namespace jit = mlir::sift::jit;
using jit::Argument;
using jit::ErrorCode;
using jit::FunctionSignature;
using jit::Tensor;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

struct jit::Engine::Impl {
  /// The target's loaded code.
  std::unique_ptr<TargetBackend> backend;
  /// Functions whose signature this API cannot call, with the reason.
  llvm::StringMap<std::string> unsupported;
  /// Whether the code came from the compile cache.
  bool fromCache = false;
};

jit::Engine::Engine(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
jit::Engine::~Engine() = default;

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
  auto impl = std::make_unique<Impl>();
  Expected<std::unique_ptr<TargetBackend>> backend =
      createTargetBackend(options);
  if (!backend)
    return backend.takeError();
  impl->backend = std::move(*backend);
  if (options.optLevel > 3)
    return makeError(ErrorCode::InvalidArgument,
                     "optimization level must be 0-3, got " +
                         Twine(options.optLevel));
  // The thread count is the default CPU pipeline's num-threads: a pipeline
  // of one's own would run with its own count and silently drop this one.
  if (options.numThreads != 0 && !options.pipeline.empty())
    return makeError(
        ErrorCode::InvalidArgument,
        "a thread count (" + Twine(options.numThreads) +
            ") is an option of the default pipeline; with a pipeline of "
            "one's own, set it there, e.g. "
            "builtin.module(sift-cpu-pipeline{num-threads=" +
            Twine(options.numThreads) + "})");

  // CompileOptions::timing: the manager prints the time of each stage (and
  // of each pass) to stderr when compile returns.
  mlir::DefaultTimingManager timingManager;
  timingManager.setEnabled(options.timing);
  mlir::TimingScope timing = timingManager.getRootScope();

  // A hit skips every stage below. Only successful compiles are stored, so
  // every error comes from the stages, as without the cache.
  std::optional<CompileCache> cache =
      CompileCache::open(*buffer, options, *impl->backend);
  if (cache) {
    if (std::optional<CachedModule> hit = cache->lookup()) {
      llvm::Error loaded = impl->backend->loadObject(hit->code);
      if (!loaded) {
        for (auto &[name, reason] : hit->unsupported)
          impl->unsupported[name] = reason;
        impl->fromCache = true;
        std::unique_ptr<Engine> result(new Engine(std::move(impl)));
        result->signatures = std::move(hit->signatures);
        return result;
      }
      // An entry this process cannot load (a shared library gone): compile
      // with a fresh backend and store the entry again.
      llvm::consumeError(std::move(loaded));
      Expected<std::unique_ptr<TargetBackend>> fresh =
          createTargetBackend(options);
      if (!fresh)
        return fresh.takeError();
      impl->backend = std::move(*fresh);
    }
  }

  // For textual pipelines (transforms, pipeline overrides).
  mlir::sift::registerAllSiftPasses();

  mlir::TimingScope parsing = timing.nest("parse");
  Expected<std::unique_ptr<SourceModule>> source =
      parseSource(std::move(buffer));
  parsing.stop();
  if (!source)
    return source.takeError();
  if (llvm::Error e = runSourceTransforms(**source, options.transforms, timing))
    return std::move(e);
  mlir::TimingScope checking = timing.nest("keep functions, checks");
  if (llvm::Error e = keepFunctions(**source, options.functions))
    return std::move(e);
  if (llvm::Error e = checkStaticSizes(**source))
    return std::move(e);
  checking.stop();
  // Signatures come from the source functions, before lowering.
  std::vector<FunctionSignature> signatures =
      readSignatures((*source)->getModule(), impl->unsupported);
  markInputsReadOnly((*source)->getModule(), signatures);
  if (llvm::Error e =
          lowerToLLVM(**source, *impl->backend, options.pipeline, timing))
    return std::move(e);
  ObjectCode code;
  if (llvm::Error e = generateCode(**source, *impl->backend, options.optLevel,
                                   timing, cache ? &code : nullptr))
    return std::move(e);
  if (cache && !code.objects.empty()) {
    CachedModule entry;
    entry.signatures = signatures;
    for (auto &unsupported : impl->unsupported)
      entry.unsupported.emplace_back(unsupported.getKey().str(),
                                     unsupported.getValue());
    llvm::sort(entry.unsupported);
    entry.code = std::move(code);
    cache->store(entry);
  }

  std::unique_ptr<Engine> result(new Engine(std::move(impl)));
  result->signatures = std::move(signatures);
  return result;
}

bool jit::Engine::loadedFromCache() const { return impl->fromCache; }

Expected<jit::Function> jit::Engine::lookup(StringRef name) const {
  auto it = llvm::find_if(signatures, [&](const FunctionSignature &sig) {
    return sig.name == name;
  });
  if (it == signatures.end()) {
    auto bad = impl->unsupported.find(name);
    if (bad != impl->unsupported.end())
      return makeError(ErrorCode::Unsupported,
                       "function '" + name +
                           "' cannot be called from the host: " + bad->second);
    std::string names;
    for (const FunctionSignature &sig : signatures)
      names += (names.empty() ? "" : ", ") + sig.name;
    return makeError(ErrorCode::NotFound,
                     "no function '" + name + "' in the module (functions: " +
                         (names.empty() ? std::string("none") : names) + ")");
  }
  Expected<PackedFunction> packed = impl->backend->lookup(name);
  if (!packed)
    return makeError(ErrorCode::CompileError,
                     "function '" + name + "' failed to link: " +
                         llvm::toString(packed.takeError()));
  return Function(this, *it, *packed);
}

Expected<std::vector<Tensor>>
jit::Engine::call(StringRef name, llvm::ArrayRef<Argument> args) const {
  Expected<Function> fn = lookup(name);
  if (!fn)
    return fn.takeError();
  return fn->call(args);
}

Expected<std::vector<Tensor>>
jit::Function::call(llvm::ArrayRef<Argument> args) const {
  PackedCall frame(sig);
  if (llvm::Error e = frame.pack(args))
    return std::move(e);
  const TargetBackend &backend = *engine->impl->backend;
  llvm::Error runError = backend.invoke(packed, frame.arguments());
  // Adopt the returned buffers first, so that they are freed on every path.
  Expected<std::vector<Tensor>> results =
      frame.unpackResults(backend.resultDeallocator());
  if (!runError)
    return results;
  // The error the compiled code reported wins; the results are dropped.
  if (!results)
    llvm::consumeError(results.takeError());
  std::string msg;
  ErrorCode code = jit::consumeError(std::move(runError), &msg);
  return makeError(code, "function '" + sig.name + "': " + msg);
}
