//===- SourceTransforms.cpp - Source-level passes and checks ----*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Signature.h"
#include "Stages.h"

#include "sift/JIT/Error.h"
#include "sift/JIT/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <algorithm>

namespace jit = mlir::sift::jit;
using jit::ErrorCode;

llvm::Error jit::runSourceTransforms(SourceModule &source,
                                     llvm::StringRef transforms,
                                     mlir::TimingScope &timing) {
  if (transforms.empty())
    return llvm::Error::success();
  mlir::PassManager pm(&source.getContext(),
                       mlir::ModuleOp::getOperationName());
  std::string error;
  llvm::raw_string_ostream errorOS(error);
  if (mlir::failed(mlir::parsePassPipeline(transforms, pm, errorOS)))
    return makeError(ErrorCode::InvalidArgument,
                     "bad transforms '" + transforms + "': " + error);
  mlir::TimingScope scope = timing.nest("source transforms");
  pm.enableTiming(scope);
  if (mlir::failed(pm.run(source.getModule())))
    return makeError(ErrorCode::CompileError, "the transforms '" + transforms +
                                                  "' failed:\n" +
                                                  source.getDiagnostics());
  return llvm::Error::success();
}

llvm::Error jit::keepFunctions(SourceModule &source,
                               llvm::ArrayRef<std::string> names) {
  if (names.empty())
    return llvm::Error::success();
  mlir::ModuleOp module = source.getModule();
  auto isDefinedPublic = [](mlir::func::FuncOp func) {
    return func && func.isPublic() && !func.isExternal();
  };
  // The message of Engine::lookup for a missing function.
  for (const std::string &name : names) {
    if (isDefinedPublic(module.lookupSymbol<mlir::func::FuncOp>(name)))
      continue;
    std::string available;
    for (auto func : module.getOps<mlir::func::FuncOp>())
      if (isDefinedPublic(func))
        available += (available.empty() ? "" : ", ") + func.getSymName().str();
    return makeError(ErrorCode::NotFound,
                     "no function '" + name + "' in the module (functions: " +
                         (available.empty() ? "none" : available) + ")");
  }
  for (auto func : module.getOps<mlir::func::FuncOp>())
    if (isDefinedPublic(func) && !llvm::is_contained(names, func.getSymName()))
      func.setPrivate();
  mlir::PassManager pm(&source.getContext(),
                       mlir::ModuleOp::getOperationName());
  pm.addPass(mlir::createSymbolDCEPass());
  if (mlir::failed(pm.run(module)))
    return makeError(ErrorCode::CompileError,
                     "dropping the functions not asked for failed:\n" +
                         source.getDiagnostics());
  return llvm::Error::success();
}

/// No machine has more address space than this (x86-64 and AArch64 with
/// 4-level page tables map 2^48 bytes at most).
static constexpr int64_t kMaxTensorBytes = int64_t(1) << 48;

/// Why a value of `type` can never exist: a static tensor or memref type of
/// more than kMaxTensorBytes bytes (elements narrower than a byte take one).
static std::optional<std::string> tooLarge(mlir::Type type) {
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
}

llvm::Error jit::checkStaticSizes(SourceModule &source) {
  // Each diagnostic is at the op that defines the value.
  mlir::WalkResult result = source.getModule().walk([&](mlir::Operation *op) {
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
  if (!result.wasInterrupted())
    return llvm::Error::success();
  return makeError(ErrorCode::CompileError,
                   "a tensor is too large:\n" + source.getDiagnostics());
}
