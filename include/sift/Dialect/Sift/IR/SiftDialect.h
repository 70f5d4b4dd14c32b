//===- SiftDialect.h - The sift dialect -------------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_DIALECT_SIFT_IR_SIFTDIALECT_H
#define SIFT_DIALECT_SIFT_IR_SIFTDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "sift/Dialect/Sift/IR/SiftOpsDialect.h.inc"

#endif // SIFT_DIALECT_SIFT_IR_SIFTDIALECT_H
