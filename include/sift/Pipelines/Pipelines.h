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

/// Where --sift-gpu-pipeline looks for ptxas and libdevice by default (set by
/// defining SIFT_CUDA_TOOLKIT_DEFAULT when building changes it).
#ifndef SIFT_CUDA_TOOLKIT_DEFAULT
#define SIFT_CUDA_TOOLKIT_DEFAULT "/usr/local/cuda"
#endif

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
      llvm::cl::desc("Innermost iterations a loop nest with bounded trip "
                     "counts needs to run on threads at all; smaller ones "
                     "run on the calling thread (measured: the sampler at "
                     "N = 1e4, B = 1 takes 0.19 ms on one thread, 0.19 or "
                     "0.32 ms with 1e4-element loops on two)"),
      llvm::cl::init(16384)};
  PassOptions::Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Form kernels first (--sift-fuse): one parallel loop "
                     "over the rows of a batched function, its whole "
                     "per-row chain inside"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> fuseMaxRowBytes{
      *this, "fuse-max-row-bytes",
      llvm::cl::desc("Most bytes one row of a batched chain may move "
                     "unfused for --sift-fuse to form its kernel "
                     "(--sift-fuse's max-row-bytes); 0, the default, sets "
                     "no limit: since compactions compute their masks, the "
                     "sampler's rows of 300 MB (N = 1e6) run 0.77-0.95x the "
                     "time as one kernel at B = 32, 0.82-0.89x at B = 8, "
                     "0.92-1.06x at B = 3 (docs/Fuse.md)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> stackSiblings{
      *this, "stack-siblings",
      llvm::cl::desc("Run pairs of independent single-line sorts and "
                     "top-ks of at least this many elements as the two "
                     "lines of one op, on two threads "
                     "(--sift-stack-siblings); 0 leaves them apart. "
                     "Measured: the sampler at N = 1e5, B = 1 0.86x; at "
                     "N = 1e4, B = 1 (lines of 1e4) two threads for a few "
                     "microseconds cost more than they save on a busy "
                     "machine"),
      llvm::cl::init(65536)};
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
  PassOptions::Option<int64_t> prefetchDistance{
      *this, "prefetch-distance",
      llvm::cl::desc("Bytes ahead that vector loops streaming through memory "
                     "prefetch (--sift-prefetch-streams); 0 inserts no "
                     "prefetches"),
      llvm::cl::init(8192)};
  PassOptions::Option<int64_t> farPrefetchDistance{
      *this, "far-prefetch-distance",
      llvm::cl::desc("Bytes ahead of a second prefetch of each stream, into "
                     "the L2 (--sift-prefetch-streams far-distance); 0 "
                     "inserts none. 32768 (session 36, Xeon): cross_entropy "
                     "over 268 MB at C = 1000 0.82x the time, C = 32000 "
                     "0.87x (docs/Performance.md)"),
      llvm::cl::init(32768)};
  PassOptions::Option<int64_t> indirectPrefetchDistance{
      *this, "indirect-prefetch-distance",
      llvm::cl::desc("Iterations ahead that a gather's loop prefetches the "
                     "source rows it will read (--sift-prefetch-streams); 0 "
                     "inserts no prefetches. 128 (32 until session 31): the "
                     "compiler-made sampler at N = 1e7, B = 1 0.84x the "
                     "time, N = 1e6, B = 32 0.9x (docs/Performance.md)"),
      llvm::cl::init(128)};
  PassOptions::Option<int64_t> streamRowBytes{
      *this, "stream-row-bytes",
      llvm::cl::desc("Smallest allocation whose gathered rows are stored "
                     "non-temporally (--sift-stream-row-stores); 0 stores "
                     "every row through the caches"),
      llvm::cl::init(int64_t(64) << 20)};
  PassOptions::Option<bool> compressInRegisters{
      *this, "compress-in-registers",
      llvm::cl::desc("Compress stores as a compress in registers and a "
                     "masked store (--sift-compress-in-registers): Zen 4 "
                     "runs AVX-512's compress to memory as microcode"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> stackBufferBytes{
      *this, "stack-buffer-bytes",
      llvm::cl::desc("Temporaries of static shape up to this many bytes "
                     "live on the stack of their function instead of the "
                     "runtime's allocator (--sift-stack-buffers); 0 keeps "
                     "every one on the heap"),
      llvm::cl::init(16384)};
  PassOptions::ListOption<int64_t> compressElementBits{
      *this, "compress-element-bits",
      llvm::cl::desc("Widths of the elements that compaction loops store as "
                     "vector compress stores (--sift-vectorize-compactions): "
                     "those the target compresses in one instruction. Empty "
                     "(the default) asks the host: 32 and 64 with AVX-512F, "
                     "8 and 16 too with AVX-512 VBMI2, none without AVX-512; "
                     "0 vectorizes none")};
  PassOptions::Option<int64_t> stackFrameBytes{
      *this, "stack-frame-bytes",
      llvm::cl::desc("Bytes of temporaries a function may put on its stack "
                     "in all (--sift-stack-buffers)"),
      llvm::cl::init(65536)};
};

/// Lowers a module of sift and upstream tensor ops to the LLVM dialect for the
/// host CPU. Public functions get C interfaces (`_mlir_ciface_<name>`);
/// memrefs returned by a function are owned by the caller (allocated with
/// malloc), as the ownership-based buffer deallocation guarantees.
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options);

/// Options of `--sift-gpu-pipeline` (in a textual pipeline:
/// `sift-gpu-pipeline{chip=sm_80 format=bin}`).
struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("The GPU architecture the kernels are compiled for "
                     "(sm_80, sm_90, ...)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features of the NVVM target; +ptx80 (PTX 8.0) is "
                     "the oldest that sm_90 accepts"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What gpu-module-to-binary embeds: isa (PTX, made "
                     "in-process), bin (a cubin, from ptxas), fatbin (from "
                     "ptxas and fatbinary), offloading or llvm"),
      llvm::cl::init("isa")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("The CUDA toolkit whose bin/ptxas makes cubins (format "
                     "bin and fatbin)"),
      llvm::cl::init(SIFT_CUDA_TOOLKIT_DEFAULT)};
  PassOptions::Option<std::string> libdevice{
      *this, "libdevice",
      llvm::cl::desc("libdevice bitcode linked into every kernel module "
                     "(math functions); empty: <toolkit>/nvvm/libdevice/"
                     "libdevice.10.bc"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Threads per block of the loops mapped to kernels"),
      llvm::cl::init(256)};
  PassOptions::Option<int64_t> splitBlocks{
      *this, "split-blocks",
      llvm::cl::desc("sift's count, compact and topk kernels over static "
                     "rows split each row across ceil(split-blocks / R) "
                     "blocks, so that a few long rows fill the device "
                     "(0: one block per row). 2048 and split-min 8192 were "
                     "the fastest of those tried on an H100 (the batched "
                     "sampler at N = 1e6: 5.65 ms, against 6.68 ms with "
                     "1024 and 16384; docs/GPU.md)"),
      llvm::cl::init(2048)};
  PassOptions::Option<int64_t> splitMin{
      *this, "split-min",
      llvm::cl::desc("The fewest elements of a row per block of a split row"),
      llvm::cl::init(8192)};
  PassOptions::Option<int64_t> sortSplitMin{
      *this, "sort-split-min",
      llvm::cl::desc("The fewest elements of a row per block of a split "
                     "radix sort (of a row, or of the K a topk takes; 0: "
                     "split-min). 2048 was the fastest of 1024-8192 on an "
                     "H100 (the batched sampler at N = 1e6: 5.57-5.58 ms "
                     "against 5.67-5.68 ms with 8192; docs/GPU.md)"),
      llvm::cl::init(2048)};
  PassOptions::Option<int64_t> sortDigitBits{
      *this, "sort-digit-bits",
      llvm::cl::desc("The digits of the radix passes split across blocks "
                     "(sorts, and topk's selection): 8 bits (256 bins; "
                     "blocks of fewer than 256 threads keep 4), or 4 (16 "
                     "bins, twice the passes). 8 was the faster on an H200 "
                     "(the batched sampler at N = 1e6: 4.00 ms against "
                     "5.15 ms with 4; docs/GPU.md)"),
      llvm::cl::init(8)};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc("LLVM optimization level of the kernels (0-3)"),
      llvm::cl::init(3)};
  PassOptions::Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Form kernels first (--sift-fuse): one kernel over the "
                     "rows of a batched function, a block per row; the ops "
                     "with block-level kernels stay out of them. Off by "
                     "default: on an H100 the batched sampler (B = 32, N = "
                     "1e4) took 26 ms with it, 1.4 ms without (its gathers "
                     "run a row per thread in a row kernel)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> allowHostCode{
      *this, "allow-host-code",
      llvm::cl::desc("Warn, instead of failing, where --sift-verify-gpu finds "
                     "work left on the host between kernels"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> unrollLaunchLoops{
      *this, "unroll-launch-loops",
      llvm::cl::desc("Unroll host loops of kernel launches with a constant "
                     "trip count (--sift-gpu-unroll-launch-loops), so that "
                     "the host does not wait for the device after every "
                     "iteration (a radix sort's digit passes)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> reductionLanes{
      *this, "reduction-lanes",
      llvm::cl::desc("Partial sums of a blocked float sum (as in the CPU "
                     "pipeline, so that both sum in the same order)"),
      llvm::cl::init(256)};
  PassOptions::Option<bool> mergeLaunches{
      *this, "merge-launches",
      llvm::cl::desc("Run independent kernels of one block shape as one "
                     "launch (--sift-gpu-merge-launches)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> siftKernels{
      *this, "sift-kernels",
      llvm::cl::desc("Lower the data-dependent sift ops left outside the "
                     "--sift-fuse kernels to sift's block-level kernels "
                     "(--convert-sift-to-gpu) before the loop mapping"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> onCpu{
      *this, "on-cpu",
      llvm::cl::desc("Test vehicle: the same kernels and host code, checked "
                     "by --sift-verify-gpu, but each gpu.launch executes on "
                     "the CPU (--sift-gpu-launch-to-cpu), device memory is "
                     "host memory, and the module is lowered like the CPU "
                     "pipeline's (sequentially), so that tensor-run and the "
                     "JIT run it"),
      llvm::cl::init(false)};
};

/// Lowers a module of sift and upstream tensor ops for an NVIDIA GPU: the
/// parallel loops become kernels in `gpu.module`s serialized to PTX or cubin
/// (`gpu.binary`), the host code becomes the LLVM dialect calling the
/// `mgpu*` functions of the sift CUDA runtime (sift/Runtime/CudaRuntime.h).
/// Fails where --sift-verify-gpu finds work left on the host unless
/// `allowHostCode`.
void buildGpuPipeline(OpPassManager &pm, const GpuPipelineOptions &options);

/// Registers `--sift-cpu-pipeline`, `--sift-gpu-pipeline` and the passes of
/// sift/Transforms/Passes.h they are built from with the pass registry, for
/// tensor-opt and textual pipelines.
void registerSiftPipelines();

} // namespace sift
} // namespace mlir

#endif // SIFT_PIPELINES_PIPELINES_H
