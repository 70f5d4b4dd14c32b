//===- Passes.h - Passes of the sift dialect --------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_DIALECT_SIFT_TRANSFORMS_PASSES_H
#define SIFT_DIALECT_SIFT_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace sift {

#define GEN_PASS_DECL
#include "sift/Dialect/Sift/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sift/Dialect/Sift/Transforms/Passes.h.inc"

} // namespace sift
} // namespace mlir

#endif // SIFT_DIALECT_SIFT_TRANSFORMS_PASSES_H
