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

/// Options of `--sift-cpu-pipeline` (`tensor-opt --help` lists them; in a
/// textual pipeline: `sift-cpu-pipeline{enable-openmp=false}`).
struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  PassOptions::Option<bool> enableOpenMP{
      *this, "enable-openmp",
      llvm::cl::desc("Run the outer parallel loops on OpenMP threads; false "
                     "runs every loop on the calling thread"),
      llvm::cl::init(true)};
  PassOptions::Option<unsigned> numThreads{
      *this, "num-threads",
      llvm::cl::desc("Threads of each OpenMP parallel loop; 0 leaves the "
                     "choice to the OpenMP runtime (OMP_NUM_THREADS, else "
                     "one per core)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> minParallelIterations{
      *this, "min-parallel-iterations",
      llvm::cl::desc("Parallel iterations a loop nest's outer dimensions "
                     "must give before a further dimension is made parallel "
                     "too (see --sift-sequentialize-inner-parallel-dims)"),
      llvm::cl::init(32)};
  PassOptions::Option<int64_t> minParallelWork{
      *this, "min-parallel-work",
      llvm::cl::desc("Innermost iterations a loop nest with constant trip "
                     "counts needs to run on threads at all; smaller ones "
                     "run on the calling thread"),
      llvm::cl::init(4096)};
  PassOptions::Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Form kernels first (--sift-fuse): one parallel loop "
                     "over the rows of a batched function, its whole "
                     "per-row chain inside"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> layout{
      *this, "layout",
      llvm::cl::desc("Run sorts, top-k and scans along contiguous lines "
                     "(--sift-layout): an axis that is not the last is "
                     "transposed last and back"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> outlineRoutines{
      *this, "outline-routines",
      llvm::cl::desc("Compile each distinct sort, top-k or compaction "
                     "routine once, as a function every op running it "
                     "calls (--sift-outline-lines); false inlines each"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> reductionLanes{
      *this, "reduction-lanes",
      llvm::cl::desc("Partial sums of a blocked float sum (accuracy; see "
                     "--sift-block-float-reductions); 0 sums in sequence"),
      llvm::cl::init(256)};
};

/// Lowers a module of sift and upstream tensor ops to the LLVM dialect for the
/// host CPU. Public functions get C interfaces (`_mlir_ciface_<name>`);
/// memrefs returned by a function are owned by the caller (allocated with
/// malloc), as the ownership-based buffer deallocation guarantees.
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options);

/// Registers `--sift-cpu-pipeline` (and later pipelines) and the passes of
/// sift/Transforms/Passes.h they are built from with the pass registry, for
/// tensor-opt and textual pipelines.
void registerSiftPipelines();

} // namespace sift
} // namespace mlir

#endif // SIFT_PIPELINES_PIPELINES_H
