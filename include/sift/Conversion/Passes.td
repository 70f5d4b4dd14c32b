//===- Passes.td - Conversion passes of sift ---------------*- tablegen -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_CONVERSION_PASSES_TD
#define SIFT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertSiftToLinalg : Pass<"convert-sift-to-linalg", "ModuleOp"> {
  let summary = "Lower every sift op to linalg, scf, arith, math and tensor";
  let description = [{
    Rewrites each sift op into upstream ops on tensors that one-shot
    bufferization handles: `linalg.generic` for element-wise and reduction
    work (Philox streams, counts, gathers), an `scf.forall` over the
    independent lines of an axis op (one line per batch row;
    `tensor.extract_slice` in, `tensor.parallel_insert_slice` out), and
    sequential `scf.for` scans inside a line (prefix sums, compaction, LSD
    radix sort on an order-preserving unsigned key with an index payload).
    An op it cannot lower (an unsupported element type) is reported once,
    at the op, with the reason.

    - `random_bits`, `random_uniform`, `randperm`: Philox4x32-10 with
      `arith.mului_extended`, bit for bit as the dialect's contract.
    - `sort`, `argsort`, `topk`, `unique`, `randperm`, `sample_balanced`:
      a stable LSD radix sort (11-bit digits for keys of at most 32 bits on
      lines of a static length of at least 16384, else 8-bit; floats: -0.0
      is +0.0, every NaN
      one largest key; descending inverts the key, which stays stable).
    - `cross_entropy`: max-shifted log-sum-exp; an out-of-range target calls
      the runtime's `sift_rt_report(code, target, row, C)` (see
      `sift/Runtime/SiftRuntime.h`) and yields NaN for its element; mean and
      sum accumulate in f64.

    Run-time checks report through `sift_rt_report` with the values
    involved, and the code after them stays in bounds: `randperm` n outside
    [0, 2^56], `topk` k above a dynamic extent, `cross_entropy` rows of
    logits and targets (and weights and C) that disagree. Extents whose
    disagreement would make the next op read out of bounds (a mask against
    its data in `masked_select`, the batch dimensions of a `gather`) call
    `sift_rt_fail` instead, which ends the call with the error; the CPU
    pipeline's `--sift-check-extents` does the same for every linalg op on
    dynamic operands.

    An op (or element type) that has no lowering is reported as an error.

    `gather-rows` (on by default, the CPU's choice): a gather of rows (a
    source of rank above batch_dims + 1) copies each selected row (an
    `scf.forall` over the indices, a `memref.copy` per row); off, it is one
    element-wise `linalg.generic` over every output element, which the GPU
    pipeline maps to threads that read and write adjacent elements.

    `vector-loops` (on by default, the CPU's choice): the Philox blocks of
    the random ops are computed in loops over chunks of 1024 blocks (in
    parallel over the chunks and rows) that carry
    `llvm.loop_annotation<vectorize = <disable = false, width = 8>>`:
    LLVM's cost model does not vectorize the 32 x 32 -> 64-bit multiplies
    and four interleaved stores of a block on its own. Off, the blocks are
    one element-wise `linalg.generic`, which the GPU pipeline maps to a
    thread per block.
  }];
  let options = [
    Option<"gatherRows", "gather-rows", "bool", /*default=*/"true",
           "Gather rows as a copy per row (else element-wise)">,
    Option<"vectorLoops", "vector-loops", "bool", /*default=*/"true",
           "Random words in loops annotated for LLVM's vectorizer (else "
           "one element-wise linalg.generic over the Philox blocks)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def ConvertSiftToGPU : Pass<"convert-sift-to-gpu", "ModuleOp"> {
  let summary = "Data-dependent sift ops as calls of sift's block-level GPU "
                "kernels";
  let description = [{
    Rewrites sift ops that sit directly in a function body (not in a
    `--sift-fuse` row kernel) into a call of one of sift's kernels on
    buffers: the operand, seen as rows `[R, N]` (the batch dimensions
    collapsed; one row for a 1-D tensor), through `bufferization.to_buffer`
    (read only), the result in a new `memref.alloc` returned by
    `bufferization.to_tensor restrict writable`. The call
    (`func.call @__sift_gpu_<kernel>` to a private declaration, marked with
    `sift.gpu_kernel`) goes through bufferization as an opaque call;
    `--sift-gpu-expand-kernels` then replaces it with the kernel's
    `gpu.launch` (a kernel's barriers cannot go through buffer
    deallocation, which rejects ops without declared memory effects).

    - `sift.count` (any element type; NaN counts, -0.0 does not);
    - `sift.cumsum` along the last axis (i32, i64, f32, f64 results);
    - `sift.compact` (indices `[R, K]`, counts `[R]`, the fill an attribute
      of the call).
    - `sift.sort`, `sift.argsort` and `sift.topk` along the last axis
      (values `[R, M]`, i64 indices `[R, M]`, M = K for topk; `descending`,
      `k`, `smallest` and `unsorted` attributes of the call). When the
      kernel sorts in global memory (a row, or topk's K, past the bitonic
      sort's limit, or a dynamic row), two scratch buffers `[2, R, N]` (the
      keys, i32 indices; `[2, R, K]` for topk) are allocated here, on the host, and passed to the
      call. A topk with `valid` becomes the topk of keys masked past each
      line's length, one with `limit` the topk padded past it, and one
      along a dynamic axis the argsort kernel of its lines (k above the
      extent is the CPU lowering's run-time error, checked on the host).
      Topk of K = 0 and statically empty rows stay with the linalg
      lowering.
    - `sift.unique` of a non-empty input and `sift.randperm` first
      become the ops above and elementwise `linalg.generic` ops (unique:
      sort, run flags, compact, gathers, and for the inverse cumsum and
      a scatter through the sort's permutation; randperm: its Philox keys,
      a `philox_words` kernel of a block of 4 words per thread, and an
      argsort), each result equal to the CPU lowering's.
    - `sift.nonzero` and `sift.masked_select` of non-empty operands
      and `sift.sample_balanced` (of non-empty labels whose rows per
      per-row seed are static) also become
      those ops and elementwise ops (nonzero: a mask, compact, row-major
      coordinates; masked_select: compact of the mask, a gather;
      sample_balanced: Philox keys (`philox_words`), argsort, the classes in key order, a
      compact per class, the samples and counts), each result equal to the
      CPU lowering's. Of a dynamic input of n elements, unique, nonzero and
      masked_select compact into n slots: the compact kernel's call made
      here with indices `[1, n]` (a `sift.compact` has a static K).
      Of labels of a run-time N, sample_balanced compacts each class into
      posCap and num_samples lanes (lanes past N are the fill).
    - `sift.scatter` with static trailing extents: `dest`, `indices` and
      `updates` flat, the result a new buffer, for `reduce(none)` an i64
      buffer of each row's winning lane; `n` and the lanes per batch item
      are index operands, `reduce`, the trailing size `tail` and (with
      batch dimensions) `batched` attributes of the call; a float max or
      min also gets a buffer of the result's integer keys. A thread per element: a copy of `dest`, then (none) the
      last lane of each row by an atomic max, then the updates stored by
      the winners or combined by atomics (float sums in the atomics'
      order; everything else bit-identical to the CPU). Indices that are
      distinct per item by construction (an argsort's, a top-k's, a
      compaction's padded with a negative fill, through casts and slices)
      need no winners (the call's `distinct`); a `tensor.empty` dest is
      not copied (`fresh`). A reduce of i1, i8, i16, f16 or bf16 stays
      with the linalg lowering.
    - `sift.cumsum`, `sift.sort`, `sift.argsort` and `sift.topk` along
      another axis than the last, when the op along the last axis has a
      kernel: that op on the input transposed (`linalg.transpose`, the
      axis moved last), its results transposed back.

    Other ops are left for the linalg lowering.

    Long static rows are split across blocks, so that a few long rows
    still fill the device: `count`, `compact` and topk's selection (0 < K <
    N) of R rows of N elements get S = min(ceil(split-blocks / R),
    N / split-min) segments per row (when S >= 2), whole warps each, marked
    on the call (`segments`, `segment_length`). The blocks of a row then
    share an i32 buffer allocated here with the call's other buffers
    (compact: each segment's count; topk: the digits' histograms and each
    segment's counts), and a split topk keeps the K it takes in the global
    scratch `[2, R, K]`. A radix sort (of a row, or of the K a topk takes)
    splits the same way with `sort-split-min` (when set) for `split-min`:
    its blocks run their tiles one after the other, so shorter segments
    mean more blocks at once. Rows of a dynamic length (a static number R
    of them) split too for `count`, `cumsum` and `compact`: S =
    ceil(split-blocks / R) segments of max(split-min, ceil(N / S) in whole
    warps) elements, computed from N in the kernel (`segment_length = 0`,
    `segment_min_length`), a short row leaving its last segments empty.
  }];
  let options = [
    Option<"splitBlocks", "split-blocks", "int64_t", /*default=*/"2048",
           "Split the rows of count, compact and topk of static rows across "
           "ceil(split-blocks / R) blocks each (0: one block per row)">,
    Option<"splitMin", "split-min", "int64_t", /*default=*/"8192",
           "The fewest elements of a row per block of a split row">,
    Option<"sortSplitMin", "sort-split-min", "int64_t", /*default=*/"2048",
           "The fewest elements of a row per block of a split radix sort "
           "(of a row, or of the K a topk takes; 0: split-min)">,
    Option<"sortDigitBits", "sort-digit-bits", "int64_t", /*default=*/"8",
           "The digits of the radix passes split across blocks (sorts, "
           "and topk's selection): 8 bits (256 bins; blocks of fewer than "
           "256 threads keep 4), or 4 (16 bins, twice the passes)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def SiftGpuExpandKernels : Pass<"sift-gpu-expand-kernels", "ModuleOp"> {
  let summary = "Replace sift's kernel calls by block-level gpu.launch "
                "kernels built from the block primitives";
  let description = [{
    Each call marked `sift.gpu_kernel` by `--convert-sift-to-gpu` becomes a
    `gpu.launch` of one block per row (R blocks; none when R = 0), built
    from the primitives of `sift/Conversion/SiftToGPU/BlockPrimitives.h`.
    The threads of a block stride over the row in tiles of one element per
    thread (`threads`, fewer whole warps for a short static row), with 32
    elements of workgroup memory for the warps' partial results (and the
    sorting kernels' buffers).

    - `count`: per tile, the ballot of the non-zero lanes and its popcount
      (the warp's count, in every lane), summed over the tiles; a block
      reduction of the warps' counts; thread 0 writes the row's count.
    - `cumsum`: per tile, a block scan (warp scans by `gpu.shuffle up`, the
      warp totals through workgroup memory and a barrier, a scan of them)
      plus the carry of the tiles before, which adds the tile's total.
    - `compact`: while fewer than K are found (the carry is the same in
      every thread, so the block branches uniformly), per tile each set
      lane's stable position: `popc(ballot & lanes below)` plus a scan of
      the warps' `popc(ballot)`; positions below K write their index. Then
      the slots past min(count, K) get the fill and thread 0 the count.
    - `sort`, `argsort`: the keys of sift's total order (those of the CPU
      lowering). A static row whose padded power of two P fits (4096 32-bit
      or 2048 64-bit keys) is a bitonic sort of (key, index) pairs in
      workgroup memory; another one an LSD radix sort of 4-bit digits in
      the call's global scratch. Both give the CPU's stable order.
    - `topk` (0 < K < N): an MSD radix selection of the K-th key (4-bit
      digits, a histogram in workgroup memory), a ballot-scan compaction in
      index order of the keys below it and the first ties (the `unsorted`
      result, as on the CPU), then their bitonic or radix sort. K = N sorts
      the row.

    `--sift-gpu-launch-to-cpu` runs these kernels on the CPU.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"256",
           "Threads per block at most (a multiple of 32); a short static "
           "row gets fewer whole warps">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def SiftGpuLaunchToCpu : Pass<"sift-gpu-launch-to-cpu", "ModuleOp"> {
  let summary = "Execute gpu.launch on the CPU (to test kernels without a GPU)";
  let description = [{
    Replaces each `gpu.launch` by CPU code with the same results: the blocks
    are an `scf.parallel`, each workgroup buffer an alloca per block, and the
    threads of a block sequential `scf.for` loops over the linear thread id,
    split at each `gpu.barrier` and around each warp exchange
    (`gpu.shuffle`, `gpu.subgroup_reduce`: every thread writes its operand
    to a per-thread buffer, then every thread reads the lanes it names).
    Values used across a split are kept per thread in allocas (side-effect
    free ops are recomputed). Warps are 32 consecutive linear thread ids.

    - `gpu.shuffle` follows PTX `shfl.sync` as the NVVM lowering emits it:
      the offset's low 5 bits, a clamp of `width - 1` (`up`: lanes below
      `32 - width` are out of range), and an out-of-range lane gets its own
      value with `valid` false.
    - `gpu.subgroup_reduce` is first expanded into the same shuffle
      butterflies as on the GPU (so floats add in the same order); types the
      expansion does not take are reduced over the cluster in lane order.

    Accepted form: a single-block body, no async tokens, clusters, dynamic
    shared memory or private attributions, workgroup buffers of static
    shape; a barrier or warp exchange only at the top level of the body,
    in `scf.for` loops whose bounds are block-uniform (defined outside the
    launch or from block ids, sizes and constants) and in `scf.if` (their
    condition guards each thread loop inside). Their iteration arguments and
    results must be scalars or vectors. Anything else is an error at the op.

    The device's memory is the host's: the host code's `gpu.alloc`,
    `gpu.memcpy` and `gpu.dealloc` (synchronous, not host-shared) become
    `memref.alloc`, `memref.copy` and `memref.dealloc`, so that the host
    code of `--sift-gpu-pipeline` runs too (its `on-cpu` option).
  }];
  let options = [
    Option<"restoreStack", "restore-stack", "bool", /*default=*/"false",
           "Save the stack when a block starts and restore it when it ends "
           "(llvm.intr.stacksave/stackrestore), so that blocks run in a "
           "plain loop do not grow it by their buffers each; only after "
           "bufferization (buffer deallocation rejects ops of unknown "
           "effects)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

#endif // SIFT_CONVERSION_PASSES_TD
