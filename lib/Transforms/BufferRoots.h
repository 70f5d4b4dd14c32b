//===- BufferRoots.h - The buffers memrefs are views of ---------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// What the passes on buffers ask before they reorder accesses: which buffer
// a memref views, and whether two buffers are provably disjoint.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_TRANSFORMS_BUFFERROOTS_H
#define SIFT_LIB_TRANSFORMS_BUFFERROOTS_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace sift {

/// The buffer `value` is a view of: its source through view-like ops and
/// `memref.extract_strided_metadata` (`value` itself when it is no view).
inline Value rootBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      value = view.getViewSource();
      continue;
    }
    if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(def)) {
      value = meta.getSource();
      continue;
    }
    break;
  }
  return value;
}

/// Whether `root` is a buffer no other root can alias: an allocation made
/// here (a function argument or another allocation is a different buffer).
inline bool isFreshAllocation(Value root) {
  return root.getDefiningOp<memref::AllocOp>() ||
         root.getDefiningOp<memref::AllocaOp>();
}

/// Two roots name disjoint memory if they differ and one is a fresh
/// allocation (two function arguments may alias each other).
inline bool disjointRoots(Value a, Value b) {
  return a != b && (isFreshAllocation(a) || isFreshAllocation(b));
}

} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_TRANSFORMS_BUFFERROOTS_H
