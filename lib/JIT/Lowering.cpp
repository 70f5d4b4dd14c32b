//===- Lowering.cpp - Lowering and code generation --------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Stages.h"
#include "TargetBackend.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

namespace jit = mlir::sift::jit;
using jit::ErrorCode;

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
  if (mlir::failed(pm.run(source.getModule())))
    return makeError(ErrorCode::CompileError,
                     "lowering to the LLVM dialect failed:\n" +
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
