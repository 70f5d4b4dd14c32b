//===- Stages.h - Stages shared by sift's pipelines -------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Private to lib/Pipelines/. The stages every target's pipeline starts with
// (source IR to fused linalg on tensors, then to buffers); the per-target
// stages (loops, code generation) sit in that target's file
// (CpuPipeline.cpp; a GPU pipeline beside it).
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_PIPELINES_STAGES_H
#define SIFT_LIB_PIPELINES_STAGES_H

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace sift {
namespace pipelines {

/// Appends a textual pipeline fragment of upstream passes; the fragments are
/// fixed, so a parse failure is a bug in lib/Pipelines.
void addPasses(OpPassManager &pm, llvm::StringRef pipeline);

/// Appends `canonicalize` and a CSE that keeps per-thread scratch tensors
/// apart (see Stages.cpp).
void addCleanup(OpPassManager &pm);

/// Every sift op becomes linalg/scf/arith/math/tensor code on tensors, and
/// operand extents that must agree are checked at run time.
/// `cpuForms`: the CPU's forms (rows gathered a copy per row, random words
/// in vectorized loops); off, the element-wise forms a GPU maps to threads.
void addSiftToLinalgStage(OpPassManager &pm, bool cpuForms = true);

/// Elementwise producers fused into their consumers (with
/// `recomputeProducers`, scalar code over fewer loops too, and elements
/// gathered from cheap element-wise ops computed where they are read: see
/// --sift-fuse-cheap-producers); float sums in blocked order with
/// `reductionLanes` lanes (0: in sequence), the lanes outside with
/// `lanesOuter` (see --sift-block-float-reductions).
void addTensorFusionStage(OpPassManager &pm, int64_t reductionLanes,
                          bool lanesOuter = false,
                          bool recomputeProducers = false);

/// Tensors to buffers over the whole module, identity layouts at function
/// boundaries, every temporary freed and returned buffers caller-owned;
/// with `outlineRoutines`, one function per distinct routine of the
/// lowering (--sift-outline-lines); with `byteBools`, i1 buffers as i8
/// bytes (--sift-byte-bools); with a `stackBufferBytes` above 0, buffers of
/// at most that many bytes on the stack, at most `stackFrameBytes` a
/// function (--sift-stack-buffers); with `compressElementBits`, compaction
/// loops storing elements of those widths as vector compress stores
/// (--sift-vectorize-compactions; none when empty).
void addBufferizationStage(OpPassManager &pm, bool outlineRoutines = true,
                           bool byteBools = false, int64_t stackBufferBytes = 0,
                           int64_t stackFrameBytes = 0,
                           ArrayRef<int64_t> compressElementBits = {});

} // namespace pipelines
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_PIPELINES_STAGES_H
