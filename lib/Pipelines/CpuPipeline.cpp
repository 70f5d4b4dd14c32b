//===- CpuPipeline.cpp - --sift-cpu-pipeline ------------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The host CPU pipeline: the shared stages of Stages.h, then parallel loops
// on OpenMP threads and the lowering to the LLVM dialect.
//
//===----------------------------------------------------------------------===//

#include "Stages.h"

#include "sift/Dialect/Sift/Transforms/Passes.h"
#include "sift/Pipelines/Pipelines.h"
#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::pipelines;

/// Buffers to loops: the parallel dimensions of structured ops, and the
/// sift lowering's loops over independent lines, on OpenMP threads.
static void addCpuLoopStage(OpPassManager &pm,
                            const CpuPipelineOptions &options) {
  // The sift lowering's loop over independent lines (batch rows) is an
  // `scf.forall`; after bufferization it becomes an `scf.parallel`.
  addPasses(pm, "scf-forall-to-parallel");
  // The parallel dimensions of structured ops become scf.parallel.
  addPasses(pm, "convert-linalg-to-parallel-loops");
  // Only the outer dimensions of each loop nest run in parallel (see
  // --sift-sequentialize-inner-parallel-dims).
  SiftSequentializeInnerParallelDimsOptions outer;
  outer.minParallelIterations = options.minParallelIterations;
  outer.minParallelWork = options.minParallelWork;
  pm.addNestedPass<func::FuncOp>(
      createSiftSequentializeInnerParallelDims(outer));
  // A reduction's accumulator stays in a register across its loop.
  pm.addNestedPass<func::FuncOp>(createSiftPromoteAccumulators());
  // Vector loops that stream through rows of memory (cross_entropy's
  // log-sum-exp) prefetch ahead, across the page and row ends where the
  // hardware prefetchers stop; gathers prefetch the rows they will read.
  SiftPrefetchStreamsOptions prefetch;
  prefetch.distance = options.prefetchDistance;
  prefetch.farDistance = options.farPrefetchDistance;
  prefetch.indirectDistance = options.indirectPrefetchDistance;
  pm.addNestedPass<func::FuncOp>(createSiftPrefetchStreams(prefetch));
  // Gathered rows go to large results in whole lines, with no read for
  // ownership of lines they overwrite.
  SiftStreamRowStoresOptions stream;
  stream.minBytes = options.streamRowBytes;
  pm.addNestedPass<func::FuncOp>(createSiftStreamRowStores(stream));
  addPasses(pm, "lower-affine");
  // scf.parallel runs on OpenMP threads (one team over the machine's cores
  // unless num-threads says otherwise); without OpenMP it becomes a
  // sequential loop nest in convert-scf-to-cf.
  if (options.enableOpenMP)
    addPasses(pm, llvm::formatv("convert-scf-to-openmp{{num-threads={0}}",
                                unsigned(options.numThreads))
                      .str());
}

/// The element widths compaction loops store compressed (see the
/// `compress-element-bits` option): those given, or the host's.
static SmallVector<int64_t>
compressElementBits(const CpuPipelineOptions &options) {
  if (!options.compressElementBits.empty()) {
    if (llvm::is_contained(options.compressElementBits, 0))
      return {};
    return llvm::to_vector(options.compressElementBits);
  }
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (!features.lookup("avx512f"))
    return {};
  if (!features.lookup("avx512vbmi2"))
    return {32, 64};
  return {8, 16, 32, 64};
}

/// Memref descriptors, then every dialect to LLVM. `compressBits`: the
/// element widths the compaction loops store compressed.
static void addCpuToLLVMStage(OpPassManager &pm,
                              const CpuPipelineOptions &options,
                              ArrayRef<int64_t> compressBits) {
  // f32 exp and log marked `afn` (the lowering's log-sum-exp) become
  // polynomials that LLVM vectorizes; the others call libm below.
  pm.addNestedPass<func::FuncOp>(createSiftApproximateMath());
  // Compaction loops pack their kept lanes in registers, then store them
  // with a mask (AVX-512's compress to memory is microcode on Zen 4).
  if (options.compressInRegisters && !compressBits.empty()) {
    SiftCompressInRegistersOptions compress;
    compress.elementBits = llvm::to_vector(compressBits);
    pm.addNestedPass<func::FuncOp>(createSiftCompressInRegisters(compress));
  }
  // The vector loops of the lowering (cross_entropy's log-sum-exp): masked
  // loads, reductions and lane-wise arith.
  addPasses(pm, "convert-vector-to-llvm");
  // The memref lowering goes before the loops become branches: the OpenMP
  // loop bodies sit in memref.alloca_scope regions, which must still be
  // single blocks then. (expand-strided-metadata makes affine.apply for
  // dynamic subview offsets, as the bufferized line slices of the sift
  // lowering have.) Allocations call the sift runtime's caching allocator
  // (use-generic-functions).
  addPasses(pm, "expand-strided-metadata,lower-affine,finalize-memref-to-llvm{"
                "use-generic-functions},"
                "convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,"
                "convert-arith-to-llvm,convert-index-to-llvm");
  if (options.enableOpenMP)
    addPasses(pm, "convert-openmp-to-llvm");
  // Public functions get C interfaces (`_mlir_ciface_<name>`).
  addPasses(pm, "func.func(llvm-request-c-wrappers),convert-func-to-llvm,"
                "convert-cf-to-llvm,reconcile-unrealized-casts");
}

void mlir::sift::buildCpuPipeline(OpPassManager &pm,
                                  const CpuPipelineOptions &options) {
  // Sorts, top-k and scans along the contiguous axis; the transposes that
  // cancel fold before kernels form.
  if (options.layout) {
    pm.addNestedPass<func::FuncOp>(createSiftLayout());
    pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  }
  // Random streams that only a top-k's valid prefix reads are computed for
  // that prefix (the GPU computes every word: nothing to gain there).
  pm.addNestedPass<func::FuncOp>(createSiftPropagateValid());
  // Compactions that only gathers read write i32 indices (as on the GPU).
  pm.addNestedPass<func::FuncOp>(createSiftNarrowIndices());
  // Kernels over the rows of a batched function, while the sift ops still
  // tile as ops (their lowering then runs on row slices).
  if (options.fuse) {
    SiftFuseOptions fuse;
    fuse.maxRowBytes = options.fuseMaxRowBytes;
    pm.addNestedPass<func::FuncOp>(createSiftFuse(fuse));
  }
  // Single-line sorts and top-ks outside those kernels run in pairs, one
  // line per thread.
  if (options.stackSiblings > 0) {
    SiftStackSiblingsOptions stack;
    stack.minLength = options.stackSiblings;
    pm.addNestedPass<func::FuncOp>(createSiftStackSiblings(stack));
  }
  addSiftToLinalgStage(pm);
  addTensorFusionStage(pm, options.reductionLanes);
  // The host's features are asked once: the compaction loops' vectorizing
  // and their compress stores use the same widths.
  SmallVector<int64_t> compressBits = compressElementBits(options);
  addBufferizationStage(pm, options.outlineRoutines, /*byteBools=*/true,
                        options.stackBufferBytes, options.stackFrameBytes,
                        compressBits);
  addCpuLoopStage(pm, options);
  addCpuToLLVMStage(pm, options, compressBits);
}
