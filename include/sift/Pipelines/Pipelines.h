//===- Pipelines.h - End-to-end sift pipelines ------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Pipelines from source IR (sift + upstream ops on tensors) to the LLVM
// dialect, in the shape of upstream's SparseTensor pipelines: an options
// struct, a build function that says why each pass sits where it does, and a
// registration call for the textual names.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_PIPELINES_PIPELINES_H
#define SIFT_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace sift {

/// Options of `--sift-cpu-pipeline`.
struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {};

/// Lowers a module of sift and upstream tensor ops to the LLVM dialect for the
/// host CPU. Public functions get C interfaces (`_mlir_ciface_<name>`);
/// memrefs returned by a function are owned by the caller (allocated with
/// malloc), as the ownership-based buffer deallocation guarantees.
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options);

/// Registers `--sift-cpu-pipeline` (and later pipelines) with the pass
/// registry, for tensor-opt and textual pipelines.
void registerSiftPipelines();

} // namespace sift
} // namespace mlir

#endif // SIFT_PIPELINES_PIPELINES_H
