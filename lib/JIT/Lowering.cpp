//===- Lowering.cpp - Lowering and code generation --------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Stages.h"
#include "TargetBackend.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstdlib>

namespace jit = mlir::sift::jit;
using jit::ErrorCode;

/// Whether the lowering verifies the module after each of its passes:
/// SIFT_VERIFY_EACH=1 (the sanitizer stage of the tests) or =0 says; by
/// default only builds with assertions do. The lowering is ~60 passes, and
/// verifying after each took 85 of the 220 ms that the batched sampler's
/// lowering took. The source was verified when parsed and after its
/// transforms, and the lowered module is verified once at the end, so a
/// pass that breaks the IR still gives an error rather than code.
static bool verifyEachPass() {
  if (const char *env = std::getenv("SIFT_VERIFY_EACH"); env && *env)
    return llvm::StringRef(env) != "0";
#ifdef NDEBUG
  return false;
#else
  return true;
#endif
}

llvm::Error jit::lowerToLLVM(SourceModule &source, const TargetBackend &backend,
                             llvm::StringRef pipeline,
                             mlir::TimingScope &timing) {
  mlir::PassManager pm(&source.getContext(),
                       mlir::ModuleOp::getOperationName());
  if (pipeline.empty()) {
    backend.buildPipeline(pm);
  } else {
    // The passes of "builtin.module(...)" go straight into `pm`, which is
    // anchored on the module already.
    llvm::StringRef text = pipeline.trim();
    if (text.consume_front("builtin.module(") && !text.consume_back(")"))
      text = pipeline;
    std::string error;
    llvm::raw_string_ostream errorOS(error);
    if (mlir::failed(mlir::parsePassPipeline(text, pm, errorOS)))
      return makeError(ErrorCode::InvalidArgument,
                       "bad pipeline '" + pipeline + "': " + error);
  }
  mlir::TimingScope scope = timing.nest("lowering to the LLVM dialect");
  pm.enableTiming(scope);
  pm.enableVerifier(verifyEachPass());
  if (mlir::failed(pm.run(source.getModule())))
    return makeError(ErrorCode::CompileError,
                     "lowering to the LLVM dialect failed:\n" +
                         source.getDiagnostics());
  mlir::TimingScope verifying = scope.nest("verify the lowered module");
  if (mlir::failed(mlir::verify(source.getModule())))
    return makeError(ErrorCode::CompileError,
                     "the lowered module does not verify (a bug of the "
                     "pipeline; SIFT_VERIFY_EACH=1 finds the pass):\n" +
                         source.getDiagnostics());
  return llvm::Error::success();
}

llvm::Error jit::generateCode(SourceModule &source, TargetBackend &backend,
                              unsigned optLevel, mlir::TimingScope &timing,
                              ObjectCode *code) {
  if (llvm::Error e =
          backend.load(source.getModule(), optLevel, timing, code)) {
    std::string message;
    ErrorCode code = consumeError(std::move(e), &message);
    // A target that cannot run here (no CUDA driver or device) says so as
    // it is.
    if (code == ErrorCode::Unsupported)
      return makeError(code, message);
    return makeError(ErrorCode::CompileError,
                     "JIT compilation failed: " + message + "\n" +
                         source.getDiagnostics());
  }
  return llvm::Error::success();
}
