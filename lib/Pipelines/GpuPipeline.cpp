//===- GpuPipeline.cpp - --sift-gpu-pipeline ------------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The NVIDIA GPU pipeline: the shared stages of Stages.h, then the parallel
// loops become kernels (upstream loop mapping), the kernels NVVM and PTX
// (or cubins), and the host code the LLVM dialect calling the mgpu*
// functions of the sift CUDA runtime.
//
//===----------------------------------------------------------------------===//

#include "Stages.h"

#include "sift/Conversion/Passes.h"
#include "sift/Pipelines/Pipelines.h"
#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::pipelines;

/// Buffers to kernels: every parallel loop nest becomes a gpu.launch, then
/// an outlined gpu.func in a gpu.module.
static void addGpuKernelStage(OpPassManager &pm,
                              const GpuPipelineOptions &options) {
  // A copy outside loops is host code between device buffers (a concat's
  // parts into the result): a linalg.copy, then a parallel loop, a kernel.
  SiftStridedCopiesToLinalgOptions copies;
  copies.outsideLoops = true;
  pm.addNestedPass<func::FuncOp>(createSiftStridedCopiesToLinalg(copies));
  // The --sift-fuse kernels (one scf.forall over the rows of a batch) and
  // the parallel dimensions of structured ops become scf.parallel.
  addPasses(pm, "scf-forall-to-parallel,convert-linalg-to-parallel-loops");
  // Blocks outside, at most `threads` threads inside: a row kernel gets a
  // block per row whose threads stride over the row; a flat elementwise
  // loop is tiled into blocks.
  SiftGpuShapeParallelLoopsOptions shape;
  shape.threads = options.threads;
  pm.addNestedPass<func::FuncOp>(createSiftGpuShapeParallelLoops(shape));
  // Outermost parallel loops to blocks, the next level to threads, deeper
  // ones to sequential loops; then each mapped nest becomes a gpu.launch.
  // What is not a parallel loop (the sequential loops of sort, top-k and
  // other data-dependent ops) stays on the host: --sift-verify-gpu below.
  addPasses(pm, "func.func(gpu-map-parallel-loops,convert-parallel-loops-to-"
                "gpu),lower-affine,canonicalize,cse");
  // sift's kernels, on the buffers bufferization made. After the
  // canonicalization above, so that their constants stay inside the launch
  // (a constant hoisted out would become a kernel parameter).
  if (options.siftKernels) {
    SiftGpuExpandKernelsOptions kernels;
    kernels.threads = options.threads;
    pm.addPass(createSiftGpuExpandKernels(kernels));
  }
  // A kernel's scratch buffers (a row kernel's per-row temporaries) become
  // slots of device buffers the host allocates around the launch.
  pm.addNestedPass<func::FuncOp>(createSiftGpuHoistKernelAllocs());
  // The buffers kernels use live in device memory.
  pm.addPass(createSiftGpuDeviceBuffers());
  // Public functions keep a host interface: arguments are copied to the
  // device on entry, results back to the host on return.
  pm.addPass(createSiftGpuHostBoundary());
  // Scalar host code between kernels goes on the device: host stores into
  // device buffers become one-thread kernels, and scalars read from device
  // buffers (a compaction's count) are read by the kernels that use them.
  pm.addPass(createSiftGpuHostScalars());
  // Independent kernels of one block shape run as one launch (the
  // sampler's two groups' compactions, permutations and gathers).
  if (options.mergeLaunches)
    pm.addNestedPass<func::FuncOp>(createSiftGpuMergeLaunches());
  // The host copies of functions only kernels call (the deallocation
  // helper) are dead once the kernels have their own. (On the CPU, the
  // launches stay in their functions.)
  if (!options.onCpu)
    addPasses(pm, "gpu-kernel-outlining,symbol-dce");
  // Nothing silently left behind: host loops over data, host buffers,
  // allocating kernels and oversized launches are errors (warnings with
  // allow-host-code).
  SiftVerifyGpuOptions verify;
  verify.warnOnly = options.allowHostCode;
  pm.addPass(createSiftVerifyGpu(verify));
}

/// on-cpu: each launch executes on the CPU (its threads one after another
/// between synchronizations), device memory is host memory, then the CPU
/// pipeline's lowering to LLVM (no OpenMP: the blocks run in order).
static void addCpuExecutionStage(OpPassManager &pm) {
  // After bufferization: each block restores the stack its buffers took.
  SiftGpuLaunchToCpuOptions launches;
  launches.restoreStack = true;
  pm.addPass(createSiftGpuLaunchToCpu(launches));
  // The vector loops of the lowering (cross_entropy's log-sum-exp), as on
  // the CPU.
  addPasses(pm, "convert-vector-to-llvm,expand-strided-metadata,lower-affine,"
                "finalize-memref-to-llvm{"
                "use-generic-functions},"
                "convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,"
                "convert-arith-to-llvm,convert-index-to-llvm,"
                "func.func(llvm-request-c-wrappers),convert-func-to-llvm,"
                "convert-cf-to-llvm,reconcile-unrealized-casts");
}

/// Kernels to NVVM, then the host code to the LLVM dialect and the kernels
/// to PTX or cubins.
static void addGpuCodegenStage(OpPassManager &pm,
                               const GpuPipelineOptions &options) {
  // Subgroup reductions to shuffles, the NVPTX64 data layout.
  pm.addPass(createSiftGpuPrepareModules());
  // The target of every gpu.module: chip, PTX version and libdevice, which
  // must be linked explicitly (the math functions are __nv_* calls until
  // then).
  std::string libdevice = options.libdevice;
  if (libdevice.empty())
    libdevice = options.toolkit + "/nvvm/libdevice/libdevice.10.bc";
  addPasses(pm, llvm::formatv("nvvm-attach-target{{chip={0} features={1} O={2} "
                              "l={3}}",
                              std::string(options.chip),
                              std::string(options.features),
                              unsigned(options.optLevel), libdevice)
                    .str());
  // Device code first, as upstream's gpu-lower-to-nvvm-pipeline does: the
  // module-level host conversions below must not see gpu.func bodies.
  // The vector code of a row kernel (the CPU's log-sum-exp of a
  // cross_entropy a program's own parallel loop holds) lowers as on the
  // CPU: its transfers to masked loads and stores, then LLVM vectors the
  // NVPTX back end splits into scalars.
  addPasses(pm, "gpu.module(expand-strided-metadata,lower-affine,"
                "convert-vector-to-llvm,convert-scf-to-cf,convert-gpu-to-nvvm,"
                "canonicalize,cse,reconcile-unrealized-casts)");
  // Host code: launches, allocations and copies on one stream per block
  // of host code, synchronized at its end and before host side effects. A
  // host loop of launches with a constant trip count (a radix sort's digit
  // passes) is unrolled first, so that the host does not wait for every
  // iteration.
  if (options.unrollLaunchLoops)
    pm.addNestedPass<func::FuncOp>(createSiftGpuUnrollLaunchLoops());
  addPasses(pm, "func.func(gpu-async-region)");
  addPasses(pm, "expand-strided-metadata,lower-affine,finalize-memref-to-llvm,"
                "convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,"
                "convert-arith-to-llvm,convert-index-to-llvm,"
                "func.func(llvm-request-c-wrappers),convert-func-to-llvm,"
                "convert-cf-to-llvm,gpu-to-llvm,reconcile-unrealized-casts,"
                "canonicalize,cse");
  // Kernels to PTX (format=isa, in-process) or cubins (ptxas of the
  // toolkit).
  addPasses(pm, llvm::formatv("gpu-module-to-binary{{format={0} toolkit={1}}",
                              std::string(options.format),
                              std::string(options.toolkit))
                    .str());
}

void mlir::sift::buildGpuPipeline(OpPassManager &pm,
                                  const GpuPipelineOptions &options) {
  // Compactions that only gathers read write i32 positions (the compact
  // kernel writes the op's type): half the bytes to write and to gather
  // through.
  pm.addNestedPass<func::FuncOp>(createSiftNarrowIndices());
  // Kernels over the rows of a batched function (one block per row), with
  // `fuse` (off by default). The ops with sift's block-level kernels stay
  // out of them: in a row kernel they would run with one thread per row
  // (on an H100, the batched sampler at B = 32, N = 1e4: 51 ms in one such
  // kernel). Even so, a row kernel whose per-row code is sequential runs a
  // row per thread (the sampler's gathers: 26 ms with fuse, 1.4 ms
  // without).
  if (options.fuse) {
    SiftFuseOptions fuse;
    if (options.siftKernels)
      for (StringRef name : getOpsWithGpuBlockKernels())
        fuse.keepOut.push_back(name.str());
    pm.addNestedPass<func::FuncOp>(createSiftFuse(fuse));
  }
  // The data-dependent ops left outside those row kernels, that sift has
  // block-level kernels for (one block per row), become calls of those
  // kernels; the calls become kernels after bufferization
  // (sift-gpu-expand-kernels below). Inside a row kernel (one thread per
  // row) they stay: fusion decides the kernels.
  if (options.siftKernels) {
    ConvertSiftToGPUOptions kernels;
    kernels.splitBlocks = options.splitBlocks;
    kernels.splitMin = options.splitMin;
    kernels.sortSplitMin = options.sortSplitMin;
    kernels.sortDigitBits = options.sortDigitBits;
    pm.addPass(createConvertSiftToGPU(kernels));
  }
  // A gather of rows is element-wise: a thread per element of the result
  // (adjacent threads, adjacent elements), not a thread per row copying
  // it (on an H100, the sampler's 16-float features: 4.7 ms per call at
  // B = 32, N = 1e6); the random ops' Philox blocks are a thread each.
  addSiftToLinalgStage(pm, /*cpuForms=*/false);
  // Blocked float sums with the lanes outside: one kernel of a thread per
  // lane, the CPU's additions in the CPU's order. A row's sizes, and the
  // elements a gather reads from a cheap element-wise op (a concatenation's
  // compaction), are computed by the kernels that read them rather than by
  // kernels of their own.
  addTensorFusionStage(pm, options.reductionLanes, /*lanesOuter=*/true,
                       /*recomputeProducers=*/true);
  // A constant returned or yielded as a buffer would be host memory between
  // kernels: a copy of it is a device buffer a kernel fills.
  pm.addNestedPass<func::FuncOp>(createSiftGpuCopyEscapingConstants());
  // The lowering's routines stay inline: a kernel cannot call a host
  // function (they are inlined when the loops become branches).
  addBufferizationStage(pm, /*outlineRoutines=*/false);
  addGpuKernelStage(pm, options);
  if (options.onCpu)
    addCpuExecutionStage(pm);
  else
    addGpuCodegenStage(pm, options);
}
