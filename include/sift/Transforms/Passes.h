//===- Passes.h - sift's passes on upstream IR ------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The stages of sift's pipelines that work on upstream dialects only; see
// Passes.td. Each has a `create<Name>()` (and, with options,
// `create<Name>(const <Name>Options &)`).
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_TRANSFORMS_PASSES_H
#define SIFT_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace sift {

#define GEN_PASS_DECL
#include "sift/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sift/Transforms/Passes.h.inc"

} // namespace sift
} // namespace mlir

#endif // SIFT_TRANSFORMS_PASSES_H
