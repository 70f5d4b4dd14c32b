//===- HostReads.h - Host values computed from tensor data ------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// A scalar that the host computes from a `tensor.extract` or `memref.load`
// is a device-to-host sync on a GPU: control flow on it is what
// --sift-verify-static reports and what --sift-staticize if-converts.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_DIALECT_SIFT_TRANSFORMS_HOSTREADS_H
#define SIFT_DIALECT_SIFT_TRANSFORMS_HOSTREADS_H

#include "mlir/IR/Value.h"

namespace mlir {
namespace sift {

/// A `tensor.extract` or `memref.load` that the scalar `value` is computed
/// from through scalar ops only, or null.
Operation *findHostRead(Value value);

} // namespace sift
} // namespace mlir

#endif // SIFT_DIALECT_SIFT_TRANSFORMS_HOSTREADS_H
