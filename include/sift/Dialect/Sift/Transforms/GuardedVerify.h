//===- GuardedVerify.h - Verification that upstream bugs cannot crash -*- C++
//-*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Some upstream MLIR 22 verifiers crash on invalid input instead of
// rejecting it (docs/UpstreamBugs.md). sift's drivers parse without
// verification, reject those inputs with a diagnostic, then verify.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_DIALECT_SIFT_TRANSFORMS_GUARDEDVERIFY_H
#define SIFT_DIALECT_SIFT_TRANSFORMS_GUARDEDVERIFY_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace sift {

/// Emits an error at each op of `root` that an upstream verifier would crash
/// on, then (if there is none) runs the verifier on `root`.
LogicalResult guardedVerify(Operation *root);

/// A pass that runs `guardedVerify` on its op: the first pass of
/// `tensor-opt`, which parses without verification.
std::unique_ptr<Pass> createGuardedVerifyPass();

} // namespace sift
} // namespace mlir

#endif // SIFT_DIALECT_SIFT_TRANSFORMS_GUARDEDVERIFY_H
