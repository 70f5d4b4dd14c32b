//===- Parse.cpp - Source text to a verified module -------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Stages.h"

#include "sift/Dialect/Sift/Transforms/GuardedVerify.h"
#include "sift/InitAllSift.h"
#include "sift/JIT/Error.h"

#include "mlir/Parser/Parser.h"

#include "llvm/Support/MemoryBuffer.h"

namespace jit = mlir::sift::jit;

static mlir::DialectRegistry siftRegistry() {
  mlir::DialectRegistry registry;
  mlir::sift::registerAllSiftDialects(registry);
  return registry;
}

jit::SourceModule::SourceModule()
    : context(siftRegistry(), mlir::MLIRContext::Threading::DISABLED) {}

llvm::Expected<std::unique_ptr<jit::SourceModule>>
jit::parseSource(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  auto source = std::make_unique<SourceModule>();
  // Every diagnostic (parser, verifier, passes) goes into `diagnostics` with
  // its location and source line, and becomes part of the error message.
  source->sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  source->handler = std::make_unique<mlir::SourceMgrDiagnosticHandler>(
      source->sourceMgr, &source->context, source->diagnosticStream);

  // Verified by sift::guardedVerify, not by the parser: it rejects first
  // what an upstream verifier would crash on.
  source->module = mlir::parseSourceFile<mlir::ModuleOp>(
      source->sourceMgr,
      mlir::ParserConfig(&source->context, /*verifyAfterParse=*/false));
  if (!source->module ||
      mlir::failed(mlir::sift::guardedVerify(*source->module)))
    return makeError(ErrorCode::ParseError,
                     "failed to parse MLIR source:\n" + source->diagnostics);
  return source;
}
