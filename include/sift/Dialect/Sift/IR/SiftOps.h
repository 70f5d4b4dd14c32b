//===- SiftOps.h - Operations of the sift dialect ---------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_DIALECT_SIFT_IR_SIFTOPS_H
#define SIFT_DIALECT_SIFT_IR_SIFTOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "sift/Dialect/Sift/IR/SiftDialect.h"

#include "sift/Dialect/Sift/IR/SiftEnums.h.inc"

#define GET_OP_CLASSES
#include "sift/Dialect/Sift/IR/SiftOps.h.inc"

#endif // SIFT_DIALECT_SIFT_IR_SIFTOPS_H
