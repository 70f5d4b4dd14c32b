//===- Engine.cpp - The sift JIT embedding API ------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Parse -> source transforms -> read the signatures -> the target's pipeline
// -> the target loads the code (TargetBackend.h; the CPU one in
// CpuTarget.cpp). Calls go through the memref calling convention
// (CallingConvention.h).
//
//===----------------------------------------------------------------------===//

#include "sift/JIT/Engine.h"

#include "CallingConvention.h"
#include "Signature.h"
#include "TargetBackend.h"

#include "sift/Dialect/Sift/Transforms/GuardedVerify.h"
#include "sift/InitAllSift.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

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
};

jit::Engine::Engine(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
jit::Engine::~Engine() = default;

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
  auto impl = std::make_unique<Impl>();
  Expected<std::unique_ptr<TargetBackend>> backend =
      createTargetBackend(options.target);
  if (!backend)
    return backend.takeError();
  impl->backend = std::move(*backend);
  if (options.optLevel > 3)
    return jit::makeError(ErrorCode::InvalidArgument,
                          "optimization level must be 0-3, got " +
                              Twine(options.optLevel));
  // For textual pipelines (transforms, pipeline overrides).
  mlir::sift::registerAllSiftPasses();

  mlir::DialectRegistry registry;
  mlir::sift::registerAllSiftDialects(registry);
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
  std::vector<FunctionSignature> signatures =
      jit::readSignatures(*module, impl->unsupported);
  jit::markInputsReadOnly(*module, signatures);

  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
  if (options.pipeline.empty()) {
    impl->backend->buildPipeline(pm);
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

  if (llvm::Error e = impl->backend->load(*module, options.optLevel))
    return jit::makeError(
        ErrorCode::CompileError,
        "JIT compilation failed: " + llvm::toString(std::move(e)) + "\n" +
            diagnostics);
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
