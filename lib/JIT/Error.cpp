//===- Error.cpp - Errors of the sift JIT embedding API ---------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/JIT/Error.h"

#include "llvm/Support/raw_ostream.h"

namespace jit = mlir::sift::jit;
using jit::ErrorCode;

char jit::JitError::ID = 0;

void jit::JitError::log(llvm::raw_ostream &os) const { os << message; }

std::error_code jit::JitError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

llvm::Error jit::makeError(ErrorCode code, const llvm::Twine &message) {
  return llvm::make_error<JitError>(code, message.str());
}

ErrorCode jit::consumeError(llvm::Error error, std::string *message) {
  ErrorCode code = ErrorCode::Ok;
  std::string text;
  llvm::handleAllErrors(
      std::move(error),
      [&](const JitError &e) {
        if (code == ErrorCode::Ok)
          code = e.getCode();
        text += (text.empty() ? "" : "; ") + e.getMessage();
      },
      [&](const llvm::ErrorInfoBase &e) {
        if (code == ErrorCode::Ok)
          code = ErrorCode::CompileError;
        text += (text.empty() ? "" : "; ") + e.message();
      });
  if (message)
    *message = std::move(text);
  return code;
}
