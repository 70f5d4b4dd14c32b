//===- Signature.h - Signatures of callable functions -----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Reads the FunctionSignature of every public func.func of a source module
// (before lowering), and checks the arguments of a call against it.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_JIT_SIGNATURE_H
#define SIFT_LIB_JIT_SIGNATURE_H

#include "sift/JIT/Engine.h"

#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
class Type;

namespace sift {
namespace jit {

/// The MLIR spelling of a type, e.g. "tensor<4xf32>".
std::string typeString(mlir::Type type);

/// The signatures of the public func.func definitions of `module`, in source
/// order. A function whose parameter or result types this API cannot pass
/// goes into `unsupported` instead, with the reason.
std::vector<FunctionSignature>
readSignatures(mlir::ModuleOp module,
               llvm::StringMap<std::string> &unsupported);

/// Checks argument `arg` of a call against the parameter type `want`: its
/// kind, dtype, rank and static extents, the view itself (TensorView::check),
/// and for a scalar its range and declared bound. Returns what is wrong,
/// starting with `where` ("argument 2"). The bound of tensor elements is
/// checked on their contiguous data by checkElementBound.
std::optional<std::string> checkArgument(const Argument &arg,
                                         const ValueType &want,
                                         llvm::StringRef where);

/// For a tensor parameter with a declared bound: the first of the `n`
/// contiguous elements at `data` outside [0, bound], as the error of argument
/// `where`.
std::optional<std::string> checkElementBound(const void *data, int64_t n,
                                             const ValueType &want,
                                             llvm::StringRef where);

} // namespace jit
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_JIT_SIGNATURE_H
