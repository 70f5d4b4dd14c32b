//===- Passes.h - Conversion passes of sift ---------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_CONVERSION_PASSES_H
#define SIFT_CONVERSION_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include "sift/Conversion/SiftToLinalg/SiftToLinalg.h"

namespace mlir {
namespace sift {

#define GEN_PASS_DECL
#include "sift/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sift/Conversion/Passes.h.inc"

/// The sift ops --convert-sift-to-gpu gives block-level kernels (or
/// composes from them) when they sit directly in a function body: the GPU
/// pipeline keeps them out of --sift-fuse's row kernels, where they would
/// run with one thread per row.
ArrayRef<StringRef> getOpsWithGpuBlockKernels();

} // namespace sift
} // namespace mlir

#endif // SIFT_CONVERSION_PASSES_H
