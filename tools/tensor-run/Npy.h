//===- Npy.h - NumPy .npy files for tensor-run ------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// A small reader and writer of the .npy format (versions 1.0, 2.0 and 3.0;
// little-endian or byte-sized dtypes; C or Fortran order, read into C order).
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_TOOLS_TENSOR_RUN_NPY_H
#define SIFT_TOOLS_TENSOR_RUN_NPY_H

#include "sift/JIT/Engine.h"

#include "llvm/Support/Error.h"

namespace mlir {
namespace sift {
namespace npy {

/// Reads a .npy file into a C-order tensor.
llvm::Expected<jit::Tensor> readFile(llvm::StringRef path);

/// Parses the bytes of a .npy file; `name` names it in errors.
llvm::Expected<jit::Tensor> parse(llvm::StringRef bytes, llvm::StringRef name);

/// Writes a tensor as a version 1.0 .npy file.
llvm::Error writeFile(llvm::StringRef path, const jit::Tensor &tensor);

/// The .npy descr of a dtype ("<f4", "|b1", ...).
llvm::StringRef descrOf(jit::DType dtype);

} // namespace npy
} // namespace sift
} // namespace mlir

#endif // SIFT_TOOLS_TENSOR_RUN_NPY_H
