//===- Pipelines.cpp - Registration of sift's pipelines -------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The pipelines are built in one file per target (CpuPipeline.cpp,
// GpuPipeline.cpp) from the shared stages of Stages.h.
//
//===----------------------------------------------------------------------===//

#include "sift/Pipelines/Pipelines.h"

#include "sift/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::sift;

void mlir::sift::registerSiftPipelines() {
  registerSiftCommonPasses();
  PassPipelineRegistration<CpuPipelineOptions>(
      "sift-cpu-pipeline",
      "Lower sift and upstream tensor ops to the LLVM dialect for the CPU",
      buildCpuPipeline);
  PassPipelineRegistration<GpuPipelineOptions>(
      "sift-gpu-pipeline",
      "Lower sift and upstream tensor ops for an NVIDIA GPU: kernels as PTX "
      "or cubins (chip=sm_80|sm_90 format=isa|bin|fatbin), host code to the "
      "LLVM dialect calling the sift CUDA runtime",
      buildGpuPipeline);
}
