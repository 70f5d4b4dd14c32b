//===- GpuHostCode.h - Host code of the GPU pipeline -----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_TRANSFORMS_GPUHOSTCODE_H
#define SIFT_LIB_TRANSFORMS_GPUHOSTCODE_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace sift {

/// Whether `op` is host code: outside kernels and device modules.
inline bool isHostCode(Operation *op) {
  return !op->getParentOfType<gpu::LaunchOp>() &&
         !op->getParentOfType<gpu::GPUModuleOp>();
}

} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_TRANSFORMS_GPUHOSTCODE_H
