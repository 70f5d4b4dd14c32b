//===- Parse.cpp - Source text to a verified module -------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Stages.h"

#include "sift/Dialect/Sift/Transforms/GuardedVerify.h"
#include "sift/InitAllSift.h"
#include "sift/JIT/Error.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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

/// The SSA name at `loc` in the main buffer of `sourceMgr` ("labels" for
/// `%labels`), or "" when `loc` does not point at a named value there.
static std::string ssaNameAt(mlir::Location loc, llvm::SourceMgr &sourceMgr) {
  auto fileLoc = llvm::dyn_cast<mlir::FileLineColLoc>(loc);
  if (!fileLoc)
    return "";
  unsigned buffer = sourceMgr.getMainFileID();
  llvm::SMLoc at = sourceMgr.FindLocForLineAndColumn(buffer, fileLoc.getLine(),
                                                     fileLoc.getColumn());
  if (!at.isValid())
    return "";
  llvm::StringRef text = sourceMgr.getMemoryBuffer(buffer)->getBuffer();
  text = text.drop_front(at.getPointer() - text.data());
  if (!text.consume_front("%"))
    return "";
  llvm::StringRef name = text.take_while([](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-';
  });
  // Numbered values (%0) have no name worth showing.
  if (name.empty() || llvm::isDigit(name.front()))
    return "";
  return name.str();
}

/// Gives every parameter of a public function defined in the source a
/// `sift.name` attribute with its SSA name in the text, unless it has one:
/// the signature shows it, and functions that transforms make from it
/// (--sift-batch copies argument attributes) inherit it.
static void nameArguments(mlir::ModuleOp module, llvm::SourceMgr &sourceMgr) {
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    if (func.isDeclaration() || !func.isPublic())
      continue;
    for (mlir::BlockArgument arg : func.getArguments()) {
      if (func.getArgAttr(arg.getArgNumber(), "sift.name"))
        continue;
      std::string name = ssaNameAt(arg.getLoc(), sourceMgr);
      if (!name.empty())
        func.setArgAttr(arg.getArgNumber(), "sift.name",
                        mlir::StringAttr::get(func.getContext(), name));
    }
  }
}

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
  nameArguments(*source->module, source->sourceMgr);
  return source;
}
