//===- Error.h - Errors of the sift JIT embedding API ----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Every failure of the embedding API (sift/JIT/Engine.h, sift/JIT/Tensor.h) is
// an llvm::Error carrying a JitError: an ErrorCode and a message naming the
// values involved.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_JIT_ERROR_H
#define SIFT_JIT_ERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir {
namespace sift {
namespace jit {

/// What went wrong. The numbering is part of the C API (`sift_status_t`):
/// append only.
enum class ErrorCode : int {
  Ok = 0,
  InvalidArgument = 1, // a call's arguments do not match the signature
  NotFound = 2,        // no such function or file
  ParseError = 3,      // the source does not parse or verify
  CompileError = 4,    // the pipeline or the JIT failed
  Unsupported = 5,     // a target, type or option this build cannot handle
  RuntimeError = 6,    // compiled code reported an error through the runtime
  OutOfMemory = 7,     // a buffer (host or compiled code) cannot be allocated
};

/// The error payload of every failure of this API.
class JitError : public llvm::ErrorInfo<JitError> {
public:
  static char ID;
  JitError(ErrorCode code, std::string message)
      : code(code), message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  ErrorCode getCode() const { return code; }
  const std::string &getMessage() const { return message; }

private:
  ErrorCode code;
  std::string message;
};

/// Makes an llvm::Error holding a JitError.
llvm::Error makeError(ErrorCode code, const llvm::Twine &message);

/// Splits an error into its code and message (consumes it). Errors that are
/// not JitErrors get ErrorCode::CompileError.
ErrorCode consumeError(llvm::Error error, std::string *message = nullptr);

} // namespace jit
} // namespace sift
} // namespace mlir

#endif // SIFT_JIT_ERROR_H
