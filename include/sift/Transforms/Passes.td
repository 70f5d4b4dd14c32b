//===- Passes.td - sift's passes on upstream IR ------------*- tablegen -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Passes that work on upstream dialects only (linalg, tensor, scf), used as
// stages of sift's pipelines (lib/Pipelines), and --sift-fuse, which sees
// the sift ops only through upstream's TilingInterface. One file per pass in
// lib/Transforms/, named after the pass; one test per pass in
// test/Transforms/.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_TRANSFORMS_PASSES_TD
#define SIFT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SiftFuse : Pass<"sift-fuse", "func::FuncOp"> {
  let summary = "Form kernels: one scf.forall over the rows of a batched "
                "program, the whole per-row chain inside";
  let description = [{
    Groups the producers and consumers of a batched program (the output of
    `--sift-batch`, or any function whose results share a leading batch
    dimension) into kernels: each kernel is one `scf.forall` over the rows
    whose body computes one row of every op of the chain (the sift ops on
    row slices, through their `TilingInterface`, and the `linalg` ops
    between them), so a row's data stays in cache and the whole chain is
    one parallel region. Upstream's tiling does the work: each root (an op
    whose result leaves the chain: a function result, or a value another
    op reads whole) is tiled over its leading dimension with tile size 1
    (`scf::tileConsumerAndFuseProducersUsingSCF`) and its producers are
    fused into the tile; kernels over the same rows that do not depend on
    each other are then merged into one loop (upstream's
    `fuseIndependentSiblingForallLoops`) and the ops they share computed
    once (CSE). A producer that an op outside the kernel also needs whole
    is computed once in the kernel and yielded, unless that op comes before
    the kernel: then it is recomputed if it is a cheap elementwise op and
    stays its own kernel otherwise. Elementwise ops on tensors become
    `linalg.generic` first (as `convert-elementwise-to-linalg`).

    Only leading dimensions of at least `min-rows` rows that are also the
    leading dimension of a function result are tiled: a loop over the
    items of an unbatched tensor would be too fine. A function whose rows
    move more than `max-row-bytes` each (the sum of its chain's operand
    and result sizes over the rows) forms no kernel: such a row does not
    stay in cache, and the ops' own loops parallelize better. (The GPU
    pipeline keeps this default; the CPU pipeline sets no limit since
    session 32, measured: docs/Fuse.md.) Ops named in
    `keep-out` are neither roots nor fused producers. With `report`, a
    remark at each kernel lists its ops, its loop and the bytes it reads
    and writes next to what its ops move when each runs as its own loop.
    See docs/Fuse.md.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every kernel formed: its ops, its loop and "
           "the bytes it reads and writes">,
    Option<"minRows", "min-rows", "int64_t", /*default=*/"2",
           "Fewest rows a leading dimension must have to be tiled">,
    Option<"maxRowBytes", "max-row-bytes", "int64_t",
           /*default=*/"67108864",
           "Most bytes one row of the chain may move unfused (its ops' "
           "operands and results) for kernels to form; larger rows do not "
           "stay in cache (0: no limit)">,
    ListOption<"keepOut", "keep-out", "std::string",
               "Ops (by name, e.g. sift.topk) that never join a kernel: "
               "each stays its own op between kernels (the GPU pipeline's: "
               "the ops sift has block-level kernels for, which a row "
               "kernel would run with one thread per row)">
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernels (scf.forall loops) formed">,
    Statistic<"numFusedOps", "fused-ops",
              "Ops of the input moved into a kernel">,
    Statistic<"numBytesRead", "bytes-read",
              "Bytes the kernels read from outside (tensor sizes)">,
    Statistic<"numBytesWritten", "bytes-written",
              "Bytes the kernels write (their results)">,
    Statistic<"numBytesUnfused", "bytes-unfused",
              "Bytes the same ops read and write when each is its own loop">
  ];
  let dependentDialects = ["affine::AffineDialect", "arith::ArithDialect",
                           "linalg::LinalgDialect", "scf::SCFDialect",
                           "tensor::TensorDialect"];
}

def SiftFuseCheapProducers
    : Pass<"sift-fuse-cheap-producers", "func::FuncOp"> {
  let summary = "Fuse cheap elementwise linalg producers into all their "
                "consumers";
  let description = [{
    Fuses an elementwise `linalg.generic` into each of its consumers even
    when it has several, if its body is a couple of arith ops: recomputing
    them is cheaper than a round trip through memory, and a mask (i1) that
    is not materialized keeps the consumers' loops vectorizable (LLVM does
    not widen loads of i1). `linalg-fuse-elementwise-ops` fuses single uses
    only.

    With `broadcast-producers` (the GPU pipeline), a producer of up to 31
    arith ops over fewer loops than its consumer (per-row sizes that every
    element of the row reads) is fused too: each element recomputes them,
    and the producer's own kernel, a launch of a few threads between two
    large ones, goes.

    With `gathered-producers` (the GPU pipeline), an element that a
    `tensor.extract` reads from the one result of an element-wise
    `linalg.generic` (a gather through a concatenation's compaction) is
    computed there: the producer's body at the element's indices, its
    inputs read at the positions their maps select. Only where nothing
    else reads the result (the producer goes), the producer does not read
    its init, and its body is at most 31 arith ops, `linalg.index` and
    `tensor.extract`. An element that a `tensor.extract` reads from a
    `tensor.concat` (of static sizes along its dimension, read by nothing
    else) is read from the input that holds it, under an `scf.if` per
    boundary: the concatenation is not materialized, and an input made
    element by element is computed where its element is read (the batched
    sampler's groups of indices on the GPU: 77 MB less at N = 1e6).

    Both are off in the CPU pipeline: there the recomputed code runs in
    the consumers' loops instead of once (the compiler-made sampler at N =
    1e6, B = 32 took 78-81 ms with both against 48-55 ms; at N = 1e5,
    7.5-7.8 against 2.6-2.9 ms).
  }];
  let options = [
    Option<"broadcastProducers", "broadcast-producers", "bool",
           /*default=*/"false",
           "Also fuse arith producers of up to 31 ops into consumers over "
           "more loops">,
    Option<"gatheredProducers", "gathered-producers", "bool",
           /*default=*/"false",
           "Compute an element that a tensor.extract reads from a cheap "
           "element-wise producer (or a concatenation's input) where it is "
           "read">,
  ];
  let dependentDialects = ["linalg::LinalgDialect", "scf::SCFDialect",
                           "tensor::TensorDialect"];
}

def SiftFuseSiblings : Pass<"sift-fuse-siblings", "func::FuncOp"> {
  let summary = "Merge element-wise linalg ops that read the same tensor "
                "into one op with several results";
  let description = [{
    Two element-wise `linalg.generic` ops of one block over the same static
    iteration space that read one tensor through the same map (two masks
    of the same labels, `labels == 1` and `labels == 0`) each make a pass
    over it; producer-consumer fusion does not join them, as neither uses
    the other. This pass merges such siblings into one generic with the
    results of both, placed where the second was, so the shared tensor is
    read once. A pair is merged when every loop is parallel, the bodies
    are pure, the outputs are fresh `tensor.empty` buffers at the identity
    map that the bodies do not read, and nothing uses the first before the
    second. Inputs read through the same map by both are read once. Two
    parts of one `tensor.concat` stay apart: each is computed in its slice
    of the concatenation (`--sift-eliminate-alloc-tensors`), which one op
    computing both cannot be.
  }];
  let dependentDialects = ["linalg::LinalgDialect"];
}

def SiftStackSiblings : Pass<"sift-stack-siblings", "func::FuncOp"> {
  let summary = "Run independent single-line sorts and top-ks as the two "
                "lines of one op";
  let description = [{
    The CPU lowering runs the lines of a sort, argsort or top-k in
    parallel, but each line on one thread: a function that sorts one line
    at a time (an unbatched program, or a batch of one) keeps one core
    busy while the others wait. Two such ops of the function's body that
    are the same op on different inputs (the same attributes and types:
    a sampler's top-ks of its two groups' random words) become one op over
    their inputs stacked along a new leading dimension, whose two lines
    run on two threads; each op's results are its slice of the stacked
    results. A pair is stacked when both have static inputs of one line of
    at least `min-length` elements, directly in the function's body (a
    loop's iterations may already run in parallel), and nothing uses the
    first before the second (the stacked op stands where the second was).
    A top-k's `valid` and `limit` become one length per line. The stacked
    input is a `tensor.concat` of the two inputs (a copy of each), or,
    where both are `sift.random_bits` streams of one type read only by
    the pair, one stream of two rows (per-row seeds, offsets and `valid`
    lengths): the words are drawn in place, on two threads too. The
    compiler-made sampler at N = 1e6, B = 1: 4.05-4.12 -> 2.80-3.27 ms;
    N = 1e5, B = 1: 0.248 -> 0.197-0.201 ms.
  }];
  let options = [
    Option<"minLength", "min-length", "int64_t", /*default=*/"65536",
           "Elements a line must have for its op to be stacked">,
  ];
  let dependentDialects = ["tensor::TensorDialect", "arith::ArithDialect"];
}

def SiftPropagateValid : Pass<"sift-propagate-valid", "func::FuncOp"> {
  let summary = "Compute random words for the prefix a top-k ranks only";
  let description = [{
    A `sift.topk ... valid(%v)` ranks the first `%v` keys of each line and
    puts the rest last whatever they are. When its values result is unused
    and its keys along the last dimension come, through element-wise ops
    used by nothing else (pure bodies, no division), from a
    `sift.random_bits` used by nothing else, the stream gets `valid(%v)`:
    only the words of each line's prefix are computed. `--sift-staticize`
    makes this chain of `randperm(len(sel))[:k]` (Philox keys over a
    selection's bound, masked past its count), so the compiler-made
    sampler draws its two group streams over the groups' counts rather
    than twice over N. A stream drawn before its count is computed moves
    down to the op that reads it, where the count must be known.
  }];
  let dependentDialects = ["sift::SiftDialect"];
  let statistics = [
    Statistic<"numPrefixStreams", "prefix-streams",
              "Random streams computed for a top-k's valid prefix only">
  ];
}

def SiftNarrowIndices : Pass<"sift-narrow-indices", "func::FuncOp"> {
  let summary = "Compact into i32 indices where only gathers read them";
  let description = [{
    A `sift.compact` whose mask lines have a static length below 2^31 and
    whose indices only `sift.gather` reads, as its source (the
    `nonzero(mask)[perm]` of a sampler), writes `i32` indices: half the
    bytes to write and to gather through (8 MB less a line at N = 1e6).
    Each such gather then gathers `i32` values (its fill too, which must
    fit) and extends its result to `i64`, an element-wise op over the
    gathered lanes that fuses with what reads them. Indices read by
    anything else (returned, compared, a gather's indices) stay `i64`.
  }];
  let dependentDialects = ["linalg::LinalgDialect"];
  let statistics = [
    Statistic<"numNarrowed", "narrowed-compactions",
              "Compactions that write i32 indices">
  ];
}

def SiftBlockFloatReductions
    : Pass<"sift-block-float-reductions", "func::FuncOp"> {
  let summary = "Sum floats in blocked order (partial sums per lane, then "
                "lanes)";
  let description = [{
    Reassociates float sums (a linalg op with one reduction dimension whose
    outputs are all `acc = addf(acc, x)`) into `lanes` interleaved partial
    sums and a final sum of the lanes, with upstream's partial reduction
    tiling. A sequential f32 sum of n values has a relative error that grows
    with n (7e-5 on 4096 normal values); the blocked order keeps it near
    NumPy's pairwise sum, and the lane updates are one vector loop. Integer
    sums and min/max are exact in any order and are left alone (except with
    `lanes-outer`, below), as are reductions of at most `lanes` elements.

    With `lanes-outer` (the GPU pipeline), the same additions in the same
    order take another loop structure: an `scf.forall` over the output's
    elements and the lanes, each lane adding the elements `l`, `l + lanes`,
    `l + 2 lanes`, ... in a sequential loop (one thread per lane, adjacent
    lanes reading adjacent elements), then an `scf.forall` over the
    output's elements (over one element for a scalar, mapped to
    `#gpu.block<x>` so that canonicalization keeps it a loop) adding its
    lanes in order. With `lanes-outer` the exact reductions (integer add,
    mul and bitwise ops, integer and float max and min) take the same form,
    for its parallelism: on the GPU such a reduction was otherwise a
    sequential loop, a kernel of one thread. The tiled form keeps its loop over the tiles outside,
    which the GPU pipeline left on the host, one launch per tile. This form
    needs
    ranked tensor inputs and an output indexed by the parallel dimensions
    in order; other sums keep the tiled form.
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"256",
           "Partial sums per reduction (0 leaves every sum sequential)">,
    Option<"lanesOuter", "lanes-outer", "bool", /*default=*/"false",
           "The lanes as a parallel loop outside the sequential loop over "
           "each lane's elements (the GPU pipeline)">
  ];
  let dependentDialects = ["affine::AffineDialect", "arith::ArithDialect",
                           "gpu::GPUDialect", "linalg::LinalgDialect",
                           "scf::SCFDialect", "tensor::TensorDialect"];
}

def SiftApproximateMath
    : Pass<"sift-approximate-math", "func::FuncOp"> {
  let summary = "Replace f32 exp and log that allow approximate functions "
                "(fastmath<afn>) by polynomials";
  let description = [{
    Rewrites each f32 `math.exp` and `math.log` that carries the `afn`
    fast-math flag into upstream's polynomial approximation
    (`populateMathPolynomialApproximationPatterns`), on scalars or vectors:
    straight-line arith and `math.fma`, which LLVM's loop vectorizer widens
    and which stays vector code on vectors, where a libm call keeps a loop
    scalar and splits a vector into one call per lane. Other math ops, and
    exp and log without `afn`, are left to libm. The approximations (Cephes) are within a few ulp of libm on
    normal numbers and keep NaN, +inf, 0 and -inf; exp flushes results
    below 2^-126 to 0 and log reads denormal inputs as 2^-126, which is why
    only ops that say they allow it are rewritten. Example:

    ```mlir
    %e = math.exp %x fastmath<afn> : f32   // becomes fma/floor/bitcast code
    %l = math.log %y : f32                 // stays: a call to logf
    ```
  }];
  let dependentDialects = ["arith::ArithDialect", "math::MathDialect",
                           "vector::VectorDialect"];
}

def SiftExpandShapeToReshape
    : Pass<"sift-expand-shape-to-reshape", "func::FuncOp"> {
  let summary = "Rewrite expand_shape with several dynamic sizes in a group "
                "into tensor.reshape (avoids an upstream crash)";
  let description = [{
    Rewrites each `tensor.expand_shape` that has two or more dynamic sizes
    in one reassociation group into a `tensor.reshape` to its
    `output_shape`. MLIR 22's `--expand-strided-metadata` dereferences a
    null size on the memref form of such an expand_shape
    (llvm/llvm-project#186830, docs/UpstreamBugs.md); `tensor.reshape`
    bufferizes to `memref.reshape`, which does not go through it. sift's own
    lowerings never emit one; this is for input programs that do.
  }];
  let dependentDialects = ["tensor::TensorDialect"];
}

def SiftLoopCarriedInPlace
    : Pass<"sift-loop-carried-in-place", "func::FuncOp"> {
  let summary = "Update a tensor a loop carries in place: an element-wise "
                "op that computes its next value writes into it";
  let description = [{
    A loop that carries a tensor and computes its next value with an
    element-wise `linalg.generic` (a batched running sum: `acc' = select(k <
    n, acc + x[k], acc)`, one lane a row) reads the carried tensor as an
    input and writes a fresh output. Bufferized, every iteration allocates a
    buffer and frees the last one, and the buffer the loop returns is known
    only at run time, so the deallocation pipeline keeps ownership flags and
    compares buffer addresses at the end (its helper function, host code
    the GPU pipeline cannot leave between kernels).

    This pass makes such an op read the carried tensor through its output:
    the output's initial value becomes the loop's iteration argument, and
    the body reads the output's block argument where it read the input's.
    One-shot bufferization then updates the loop's buffer in place (an
    element-wise op may read and write the same buffer), the loop yields its
    own argument, and canonicalization drops the carried buffer and its
    ownership flag.

    An op qualifies when it sits directly in an `scf.for` body, every loop
    is parallel, its result is yielded as the next value of an iteration
    argument it reads through the same indexing map as that output, the
    output's initial value is not read by the body, and the argument's other
    uses come before the op in the body and make no view of it (a later
    read of the old value would make bufferization copy anyway).
  }];
  let dependentDialects = ["linalg::LinalgDialect"];
}

def SiftEliminateAllocTensors
    : Pass<"sift-eliminate-alloc-tensors", "func::FuncOp"> {
  let summary = "Compute values that are inserted into a slice in the slice "
                "itself (upstream empty-tensor elimination on alloc_tensor)";
  let description = [{
    Runs MLIR's empty-tensor elimination on the plain
    `bufferization.alloc_tensor` ops (no copy, size hint or memory space)
    that the pipelines made of `tensor.empty` before their cleanups: a value
    computed into such an allocation and then inserted into a slice of
    another tensor (`tensor.insert_slice`, `tensor.parallel_insert_slice`)
    is computed in that slice instead, so that bufferization needs neither
    the allocation nor the copy. A `--sift-fuse` kernel's row results (the
    sampler's gathered feature rows) are written straight into the kernel's
    results. The allocations it cannot eliminate stay allocations, and so
    with `routine-buffers` (the CPU pipeline, whose `--sift-outline-lines`
    makes functions of routines) do those inside a routine's region (a
    sort, top-k or compaction built to be outlined,
    `sift.routine.<name>`): a routine keeps its own result buffer wherever
    the result goes, so that `--sift-outline-lines` makes one function of
    it (the batched sampler's radix argsort of K keys,
    inside its top-k routines and writing the shuffle's rows, compiled
    once: 0.07-0.1 s less of LLVM's CPU time; the row is copied, 80 KB at
    N = 1e5). Runs right before `one-shot-bufferize`, with no CSE in
    between. It first decomposes each `tensor.concat` into an empty tensor
    and an `insert_slice` of each input (upstream's
    `populateDecomposeTensorConcatPatterns`), so that inputs computed into
    allocations of their own are computed in the concatenation's slices:
    the batched sampler's two groups of indices (2 x 25.6 MB at N = 1e6,
    B = 32) are no longer copied (0.97x on two threads, per-call minima of
    4 alternated process pairs), and its GPU program launches two copy
    kernels fewer.
  }];
  let options = [
    Option<"routineBuffers", "routine-buffers", "bool", /*default=*/"true",
           "Leave the allocations inside routine regions to the routines "
           "(for --sift-outline-lines, which then shares their functions)">,
  ];
  let dependentDialects = ["bufferization::BufferizationDialect",
                           "tensor::TensorDialect"];
}

def SiftByteBools : Pass<"sift-byte-bools", "func::FuncOp"> {
  let summary = "Keep i1 buffers as bytes of i8, so that their loops "
                "vectorize";
  let description = [{
    LLVM scalarizes loads and stores of `i1` (its store size, a byte, is not
    its size, a bit): a loop that computes a mask into a buffer extracts
    each lane's bit and stores it alone, even where its compares are vector
    code. This pass gives a buffer that the function allocates with `i1`
    elements the element type `i8` instead (the same bytes: 0 or 1), with
    its views (`memref.subview`, `cast`, `collapse_shape`,
    `expand_shape`). Stores extend their value (`arith.extui`), loads
    truncate theirs (`arith.trunci`), and a `linalg.generic` reads and
    writes the operand as `i8` in its body. A buffer that anything else
    reads (a call, a copy, a return, a vector op) keeps `i1`. Runs after
    bufferization, before `--sift-outline-lines` makes calls of the
    routines that read such buffers. The compiler-made sampler's two label
    masks are such buffers.
  }];
  let dependentDialects = ["arith::ArithDialect"];
  let statistics = [
    Statistic<"numWidened", "widened-buffers", "i1 buffers kept as i8">
  ];
}

def SiftVectorizeCompactions
    : Pass<"sift-vectorize-compactions", "func::FuncOp"> {
  let summary = "Vectorize branch-free compaction loops with compress "
                "stores";
  let description = [{
    The lowering's compactions (`compact`, the partition pass of a top-k;
    `nonzero` and `masked_select` of a 1-D mask, their counts) store each
    element's value at the next free slot, which only a kept element then
    claims (`slot += zext(kept)`): branch-free (every element is stored,
    the next kept one overwrites it) or under `scf.if %kept`. About a
    cycle an element, or a mispredicted branch every other one; LLVM
    vectorizes neither. This pass rewrites an `scf.for` of step 1 whose
    body holds only
    - loads whose last index is the induction variable (a buffer contiguous
      in its last dimension; the other indices loop-invariant) or whose
      indices are all loop-invariant,
    - pure element-wise `arith` ops (a `math` op without an LLVM
      intrinsic lowers only on scalars) and loop-invariant pure ops,
    - stores whose last index is a slot (an iteration argument advanced by
      a kept flag: `slot + index_cast(kept)` or
      `slot + select(kept, 1, 0)`), of an element width in `element-bits`,
      directly in the body or alone in an `scf.if` on that slot's kept
      flag (of values computed before it),
    - and iteration arguments that are integer reductions (`addi`, `muli`,
      `andi`, `ori`, `xori`, min and max),

    with at least one store or slot (a count), into a loop over `lanes`
    elements at a time: vector loads, the body on vectors, a
    `vector.compressstore` per store (the kept lanes, in order, from the
    slot) and `slot += popcount(kept)`, a `vector.reduction` per
    reduction. The last iteration (at least one) stays in the scalar loop,
    so that every buffer ends as the scalar loop leaves it, the slot past
    the last kept element included. An `scf.while` that counts an index up
    to a bound and stops when a slot reaches its cap (`compact` with fewer
    results than its line; its before region only the unsigned comparisons
    and their conjunction) gets a vector `scf.while` first, which runs
    while a whole vector fits: the index a vector and one more below its
    bound, each capped slot a vector below its cap (no lane's store passes
    it, and the scalar loop would have run every lane's iteration). Every buffer a store writes must be
    disjoint from every other buffer the loop reads or writes at another
    slot: one of the two is an allocation of the function (two function
    arguments may alias). A 1-D buffer of `i1` (a byte an element in
    memory; `vector.load` would read packed bits) is read as bytes through
    a pointer (`llvm.load` of `vector<16xi8>`) and truncated.

    `vector.compressstore` is one instruction where the target has one
    (`vpcompressd`/`q` of AVX-512F for 32 and 64-bit elements, `b`/`w` of
    AVX-512 VBMI2 for 8 and 16-bit ones) and a branch per lane elsewhere:
    the CPU pipeline runs this pass with the widths the host compresses
    natively, and not at all on a host without AVX-512. Measured on Zen 5:
    0.065 ns an element against 0.25 for the scalar loop (a mask of 10^6
    random bits); `nonzero` of 10^7 random bools 34 -> 6.3 ms and
    `masked_select` of 10^7 floats 34 -> 4.5 ms (NumPy: 5.9 and 44 ms);
    `compact` of 10^5 of 32 x 10^6 bools (5% set) 9.5 -> 3.7 ms.
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"16",
           "Elements a vector iteration handles (a power of two)">,
    ListOption<"elementBits", "element-bits", "int64_t",
               "Widths of the stored elements the target compresses "
               "natively (index counts as 64; empty: every width); a loop "
               "storing others is left alone">,
  ];
  let dependentDialects = ["arith::ArithDialect", "LLVM::LLVMDialect",
                           "math::MathDialect", "memref::MemRefDialect",
                           "scf::SCFDialect", "vector::VectorDialect"];
  let statistics = [
    Statistic<"numVectorized", "vectorized-loops",
              "Compaction loops vectorized">
  ];
}

def SiftStackBuffers : Pass<"sift-stack-buffers", "func::FuncOp"> {
  let summary = "Put a function's small temporaries on the stack, within a "
                "budget a function";
  let description = [{
    Upstream's `promote-buffers-to-stack` (bufferization), with a predicate
    that bounds the stack each function takes: a `memref.alloc` of static
    shape of at most `max-buffer-bytes` becomes a `memref.alloca` while the
    function's promoted buffers total at most `max-frame-bytes`. Upstream's
    own conditions hold too: no `memref.dealloc` yet (the pass runs before
    the deallocation pipeline), not in a loop (an alloca there would grow
    the stack each iteration), not returned or yielded out of the function.
    Each allocation the runtime no longer makes saves its call and its
    free (about 350 instructions with the thread-local lookup): the
    sampler's sort, top-k and compaction routines (functions after
    `--sift-outline-lines`) allocate their histograms and line buffers on
    each call. The budget keeps the stack of a routine that a worker thread
    runs (OpenMP's default stack: 4 MiB; a host's own threads may have
    less) small whatever the program. The allocas it makes move to the
    start of the function, in their order, and keep an alignment only up
    to the stack's own (16 bytes): a frame with a more aligned buffer is
    realigned on entry, which costs the function's loops a frame pointer
    and, with allocas past the entry block, a base pointer register.
  }];
  let dependentDialects = ["bufferization::BufferizationDialect",
                           "memref::MemRefDialect"];
  let options = [
    Option<"maxBufferBytes", "max-buffer-bytes", "int64_t",
           /*default=*/"16384", "Largest buffer put on the stack, in bytes">,
    Option<"maxFrameBytes", "max-frame-bytes", "int64_t",
           /*default=*/"65536",
           "Bytes of buffers a function may put on the stack in all">,
  ];
  let statistics = [
    Statistic<"numPromoted", "promoted-buffers", "buffers put on the stack">
  ];
}

def SiftCheckExtents : Pass<"sift-check-extents", "ModuleOp"> {
  let summary = "Check at run time that the extents a linalg op requires "
                "equal are equal";
  let description = [{
    Before each linalg op that runs on the calling thread, checks at run
    time that the operand extents the op requires equal are equal: two
    dynamic `tensor<?xf32>` arguments of an `arith.addf` of different
    lengths would otherwise be read past the end of the shorter. A mismatch
    calls `sift_rt_fail` with both extents and the op's source line, which
    ends the call with that error. Ops inside parallel loops and linalg
    bodies are sift's own, consistent by construction, and are left alone.
  }];
  let dependentDialects = ["arith::ArithDialect", "func::FuncDialect",
                           "scf::SCFDialect", "tensor::TensorDialect"];
}

def SiftVerifyIR : Pass<"sift-verify-ir", "ModuleOp"> {
  let summary = "Verify the IR here (a compile error at the invalid op)";
  let description = [{
    Runs the IR verifier on the module. The CPU and GPU pipelines run it
    once, after the tensor-level passes and before bufferization: the JIT
    verifies only the lowered module (every pass with
    `SIFT_VERIFY_EACH=1`), and bufferization can turn a tensor op a pass
    made invalid (a `linalg.generic` given a slice of the wrong shape)
    into valid loops that compute garbage. Here it is still an error.
  }];
}

def SiftSequentializeInnerParallelDims
    : Pass<"sift-sequentialize-inner-parallel-dims", "func::FuncOp"> {
  let summary = "Run only the outer dimensions of scf.parallel loops in "
                "parallel";
  let description = [{
    Keeps only the leading dimensions of each outermost `scf.parallel` that
    give `min-parallel-iterations` parallel iterations (unit dimensions
    dropped) and runs the others, and every `scf.parallel` nested in
    another (or in a function marked `sift.line_routine`: a routine of one
    line that `--sift-outline-lines` made), as sequential `scf.for` loops. OpenMP collapses a
    multi-dimensional loop into one and recovers each index with a division
    per iteration, which keeps LLVM from vectorizing the inner loop; a
    nested parallel loop would fork (serially) once per outer iteration.
    Where too few leading iterations leave the innermost loop of the nest
    parallel too (8 rows of 1e6 elements), it runs in tiles of 4096
    iterations: the rows and tiles are parallel, each tile a sequential
    loop (one division per tile); an innermost dimension of fewer than two
    tiles is sequential instead.

    A loop nest whose trip counts (its own, times those of the loops in its
    body) give fewer than `min-parallel-work` innermost iterations runs
    sequentially altogether: forking a team of threads costs microseconds,
    more than a small loop, and a thread that is not running (a busy
    machine) makes it cost far more. A trip count counts when it is a
    constant or has a constant upper bound (`ValueBoundsConstraintSet`; the
    tiles of a loop, `t * T` to `min(t * T + T, n)`, have at most T
    iterations). A loop with a trip count without such a bound, or that
    calls a function, stays parallel.
  }];
  let options = [
    Option<"minParallelIterations", "min-parallel-iterations", "int64_t",
           /*default=*/"32",
           "Parallel iterations wanted before a further dimension is made "
           "parallel too">,
    Option<"minParallelWork", "min-parallel-work", "int64_t",
           /*default=*/"16384",
           "Innermost iterations a loop nest with constant trip counts needs "
           "to run in parallel at all">
  ];
  let dependentDialects = ["scf::SCFDialect"];
}

def SiftCompressInRegisters
    : Pass<"sift-compress-in-registers", "func::FuncOp"> {
  let summary = "Compress stores as a compress in registers and a masked "
                "store";
  let description = [{
    A `vector.compressstore` (the kept lanes of a vectorized compaction
    loop, the lanes a Feistel walk left out of range) becomes LLVM's
    `llvm.experimental.vector.compress` of the value's lanes, in registers,
    and a `vector.maskedstore` of the first popcount(mask) lanes at the same
    address: the same lanes reach the same addresses, and nothing else is
    written. With AVX-512 that is `vpcompressd zmm{k}{z}, zmm` and a
    `vmovdqu32 [mem]{k}` instead of `vpcompressd [mem]{k}, zmm`, the
    memory form, which AMD's Zen 4 runs as microcode, dozens of times slower
    than the register form (the batched sampler's compaction at N = 1e6,
    B = 32 on a Zen 4 machine: docs/Performance.md).

    Only 1-D vectors of integers or floats (index lanes have no LLVM type
    before the conversion) whose lanes have one of `element-bits`' widths
    (those the target compresses in a register: 32 and 64 with AVX-512F, 8
    and 16 too with VBMI2) and that are whole 512-bit registers; others are
    left as they are. A vector of several registers is compressed and
    stored a register at a time (LLVM 22 legalizes a wider compress through
    a stack slot, with an aligned store at an unaligned offset).
  }];
  let options = [
    ListOption<"elementBits", "element-bits", "int64_t",
               "Lane widths (bits) compressed in registers">
  ];
  let dependentDialects = ["LLVM::LLVMDialect", "math::MathDialect"];
}

def SiftStreamRowStores : Pass<"sift-stream-row-stores", "func::FuncOp"> {
  let summary = "Copy rows into large results with non-temporal stores";
  let description = [{
    A gather of rows (`sift.gather` with rows, bufferized into one
    `memref.copy` of a row per index) writes a result that nothing reads
    again in the call: a line the store misses is first read from memory
    (the store's read for ownership), only to be overwritten whole. This
    pass rewrites a `memref.copy` of a contiguous row of static size (a
    multiple of 64 bytes, at most 1 KiB; every dimension but the last of
    extent 1) into a view of an allocation of at least `min-bytes` as a
    `vector.load` and a `vector.store {nontemporal = true}`: the row goes
    to memory in whole lines (`vmovntps`), with no read before.

    It applies only where every row it writes starts on a 64-byte line: the
    allocation is aligned to 64 bytes or more (`alignment` of
    `memref.alloc`), and the offset of the row's view in it, through
    `memref.subview`s (static offsets, or dynamic ones times static
    strides) and casts, is a multiple of 64 bytes. A partial line of
    non-temporal stores would be written to memory in pieces.

    Results smaller than `min-bytes` are left to the caches, which hold them
    for what reads them next. x86 orders non-temporal stores with the
    locked instructions that end a parallel region, so the OpenMP barrier
    after the gather makes the rows visible to the other threads.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"67108864",
           "Smallest allocation (in bytes) whose rows are stored "
           "non-temporally; 0 rewrites nothing">
  ];
  let dependentDialects = ["vector::VectorDialect"];
}

def SiftPromoteAccumulators
    : Pass<"sift-promote-accumulators", "func::FuncOp"> {
  let summary = "Carry a loop's memory accumulator in a register "
                "(iter_args) when no other access in the loop can alias it";
  let description = [{
    A reduction lowered to loops (`convert-linalg-to-parallel-loops`) loads
    its accumulator from memory, updates it and stores it back on every
    iteration. LLVM cannot keep it in a register: the input and the output
    are both plain pointers to it, and the store might change the next
    element read. This pass rewrites an `scf.for` whose body loads
    `A[i...]` and later stores to `A[i...]` (the same loop-invariant
    indices, no other access to `A` in the loop) into a loop that carries
    the value as an iteration argument: one load before the loop, one store
    after it. It does so only when every other memory access in the loop is
    to a different allocation: the buffer of `A` (through its views) is an
    allocation made in the function, and the others are function arguments
    or other allocations. A loop with a call or any operation whose memory
    effects are unknown is left alone. The loop then vectorizes (a sum or
    count of a mask runs at memory speed instead of one element per
    load-add-store round trip).
  }];
  let dependentDialects = ["scf::SCFDialect", "memref::MemRefDialect"];
}

def SiftPrefetchStreams : Pass<"sift-prefetch-streams", "func::FuncOp"> {
  let summary = "Prefetch ahead of vector loops that stream through memory";
  let description = [{
    A loop that reads vectors at consecutive addresses (an `scf.for` whose
    induction variable, or the induction variable plus a constant where a
    step reads several vectors, is the last index of a
    `vector.transfer_read` of a buffer contiguous in its last dimension)
    gets, before each read, a `memref.prefetch` of the address `distance`
    bytes further on in the same allocation, one per cache line the vector
    covers. The prefetched address is computed in the allocation the read's
    buffer is a view of (through subviews and casts, to a function argument
    or an allocation with the identity layout) and clamped to its last
    element, so it crosses row ends: a loop over a row of a matrix,
    repeated row after row, has the next row in cache when it starts.

    The hardware's own prefetchers stop at 4 KB page boundaries, so a
    computation that reads each row of 4 KB once (cross_entropy's
    log-sum-exp) waits for memory at the start of every row. With the
    prefetches, cross_entropy over 256 MB of f32 logits at C = 1000 went
    from 21 to 15 ms on the 2-core machine (from 55% to 90% of its read
    bandwidth). The default of 8 KB (two rows ahead at C = 1000) is
    measured on the 2-core Zen 5: cross_entropy at C = 1000 0.84-0.95x
    the time with 4 KB, C = 32000 0.93-1.11x, C = 10 and 100 and the
    sampler unchanged (alternated processes). A `distance` of 0 inserts
    nothing.

    A read at constant indices of a view at a unit-step loop's induction
    variable (a row that the loop moves on, row by row: the whole of a
    short row, or the block of a row's last elements after a vector loop)
    streams too, with the row loop: cross_entropy at C = 100, whose rows
    are one block each, went from 23-25 to 15 ms over 268 MB.

    A `vector.load` at the induction variable of its scf.for from a 1-D
    buffer of unit stride (the vector loops of --sift-vectorize-compactions,
    in routines whose buffer is an argument, often a view of a row) gets the
    same prefetches in its own buffer, clamped to its last element
    (`line-loads`): the compiler-made sampler at N = 1e6, B = 32, whose
    compaction reads 256 MB of labels, 0.93-0.97x the time (4 alternated
    pairs of per-call minima, Xeon).

    With `far-distance`, each line is also prefetched that many bytes
    ahead into the L2 (locality 2): on a core whose own misses in flight
    bound its bandwidth, the far prefetches keep memory busy while the
    near ones wait on the L2 only. The CPU pipeline uses 32 KB: on the
    2-core Xeon (huge pages), cross_entropy over 268 MB at C = 1000 took
    0.82x the time, C = 32000 0.87x, C = 10 and 100 unchanged.

    A block read class by class streams too: a `vector.gather` of a 1-D
    buffer of unit stride with constant offsets, at a unit-step loop's
    induction variable times a constant (plus a constant), prefetches the
    lines from its smallest offset to its largest, `distance` (and
    `far-distance`) bytes ahead. cross_entropy's rows of at most 16 classes
    read 16 rows a step, one strided gather a class, the first at the
    step's start: at C = 10 (268 MB) the first gather's misses were a third
    of the profile, and the call went from 57-63 to 46-53 ms on a 2-core
    Zen 4 (medians of 20 calls, alternated processes).

    Gathers get the same for their random reads: a loop over j (unit step,
    an `scf.for` or a dimension of an `scf.parallel`) that loads
    `idx[..., j]` and uses it as an index of another buffer (a
    `memref.load`, or the offset of a `memref.subview` of static size: a
    gathered row), directly or through the casts, clamps (`min`, `max`)
    and selects that guard a padding or out-of-range index, also loads
    `idx[..., min(j + indirect-distance, ub - 1)]` and prefetches what it
    names (clamped to the source's extent; the first four cache lines of a
    row, and its last element, as a row need not start on a line). The
    source must be defined outside the loop (a view made in the body is
    this iteration's, not the one prefetched for). A gather of 8 x 1e5
    rows of 64 bytes from 8 x 1e6 went from 24 to 14 ms on the 2-core
    machine; the staticized sampler's guarded gathers of compacted
    positions (`pos[perm[j]]` for j below a count) take 40% fewer samples
    of its profile with them, and its gather of 64-byte feature rows from
    a NumPy-aligned array (16 bytes into a page) is 0.91x the sampler's
    time with each row's second line prefetched.
  }];
  let options = [
    Option<"lineLoads", "line-loads", "bool", /*default=*/"true",
           "Prefetch ahead of vector.load loops through 1-D buffers (the "
           "compaction loops of --sift-vectorize-compactions)">,

    Option<"farDistance", "far-distance", "int64_t", /*default=*/"0",
           "Bytes ahead of a second prefetch of each stream, into the L2 "
           "(locality 2); 0 inserts none">,

    Option<"distance", "distance", "int64_t", /*default=*/"8192",
           "How far ahead to prefetch, in bytes (0: no prefetches)">,
    Option<"indirectDistance", "indirect-distance", "int64_t",
           /*default=*/"128",
           "How many iterations ahead a gather prefetches its source rows "
           "(0: none)">,
  ];
  let dependentDialects = ["memref::MemRefDialect", "arith::ArithDialect"];
}

def SiftStridedCopiesToLinalg
    : Pass<"sift-strided-copies-to-linalg", "func::FuncOp"> {
  let summary = "Turn memref.copy between non-contiguous buffers into "
                "linalg.copy (loops) instead of a runtime call";
  let description = [{
    The memref lowering turns a `memref.copy` whose source and target are
    both contiguous into a `memcpy`, and any other into a call of the
    runtime's generic `memrefCopy`, which walks the elements one at a time
    through their strides. Bufferization makes such copies when a line
    result is inserted into a row of a larger buffer (a concat, a per-line
    scalar written into its slot). This pass rewrites them into
    `linalg.copy`, which the CPU pipeline lowers to loops that LLVM
    vectorizes (and runs in parallel when large). Contiguous copies stay
    `memcpy`.

    With `outside-loops`, the contiguous copies of host code (in a
    function's body, or in the sequential loops and branches there: a
    program's own loop that inserts each step's result into a slice of an
    accumulator) become `linalg.copy` as well: in the GPU pipeline such a
    copy is host code between two device buffers, which must become a
    kernel (its parallel loop is mapped like any other). Copies inside
    parallel loops (a row kernel's) and kernels are left to them.
  }];
  let options = [
    Option<"outsideLoops", "outside-loops", "bool", /*default=*/"false",
           "Also rewrite contiguous copies that are outside loops">,
  ];
  let dependentDialects = ["linalg::LinalgDialect"];
}

def SiftOutlineLines : Pass<"sift-outline-lines", "ModuleOp"> {
  let summary = "Make the lowering's routines functions, one per distinct "
                "routine";
  let description = [{
    The sift lowering builds each sort, radix sort and top-k selection of a
    line in an `scf.execute_region no_inline` located at
    `NameLoc("sift.routine.<routine>", ...)` (a location, because
    bufferization rebuilds the op without its attributes). After bufferization this pass makes each such region a
    private function (`__sift_<routine>_<n>`) and calls it, with the index
    constants the routine uses moved inside it, so that the function is
    specialized on its static sizes; other values it uses (seeds, stream
    offsets, buffers) are its arguments. Two routines with the same code
    (the same ops on the same types and index constants: two top-k
    selections of the same k from lines of the same length and type, the
    radix sort inside a top-k and a `sift.argsort` of the same length)
    share one function: a
    program is compiled once per distinct routine rather than once per op,
    which cuts the code LLVM compiles. A region result that is a buffer
    from outside the region (a line written in place) is not returned: the
    call writes it. Every routine is marked `sift.line_routine`: it is one
    line's work, and its own loops run on the calling thread
    (`--sift-sequentialize-inner-parallel-dims`), whether it is called from
    the parallel loop over the lines or for a single line: forking threads
    for its light elementwise passes (keys, permutations, fills) costs more
    than it gains on lines below about 1e6 elements. Run it after
    one-shot bufferization and before the deallocation pipeline, which
    then sees plain calls.
  }];
  let dependentDialects = ["func::FuncDialect"];
}

//===----------------------------------------------------------------------===//
// GPU stages (--sift-gpu-pipeline)
//===----------------------------------------------------------------------===//

def SiftGpuShapeParallelLoops
    : Pass<"sift-gpu-shape-parallel-loops", "func::FuncOp"> {
  let summary = "Give scf.parallel nests the shape of a GPU launch: blocks "
                "outside, at most `threads` threads inside";
  let description = [{
    Prepares buffer-level parallel loops for `gpu-map-parallel-loops` and
    `convert-parallel-loops-to-gpu`, which map the outermost `scf.parallel`
    of a nest to blocks, the next one to threads and deeper ones to
    sequential loops, with one thread per iteration.

    - An outermost `scf.parallel` with no parallel loop inside (an
      elementwise loop) is tiled by `threads` along its last dimension: the
      tiles become blocks, the iterations of a tile threads.
    - A `scf.parallel` directly nested in an outermost one (the per-row work
      of a `--sift-fuse` kernel: one block per row) becomes a loop over at
      most `threads` threads, each of which strides over the original
      iterations (thread `t` runs iterations `t`, `t + threads`, ...), so a
      row of any length fits in one block and neighbouring threads touch
      neighbouring elements.

    - A sequential `scf.for` nest in the function's body that reads or
      writes buffers and holds only scalar code (a reduction left
      sequential: a float sum too short to block, an integer sum to a
      scalar, a scatter's lanes in order) becomes the one iteration of an
      `scf.parallel`: a kernel of one thread, in the nest's order, where
      the host could not read the device's buffers. Its scalar results (a
      sum over a tensor's elements) go through buffers of one element that
      the kernel writes and the host reads after it (the host's read moves
      into the kernels that use it, --sift-gpu-host-scalars). A nest with a
      parallel loop, a call, an allocation or a result that is not a scalar
      stays (a program's own loop over kernels).

    Example (threads = 256):

    ```mlir
    scf.parallel (%i) = (%c0) to (%c10000) step (%c1) { ... }
    // becomes
    scf.parallel (%b) = (%c0) to (%c10000) step (%c256) {
      scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
        // if %b + %t < 10000: ...
      }
    }
    ```
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"256",
           "Threads per block">
  ];
  let dependentDialects = ["scf::SCFDialect", "arith::ArithDialect"];
}

def SiftGpuHoistKernelAllocs
    : Pass<"sift-gpu-hoist-kernel-allocs", "func::FuncOp"> {
  let summary = "Replace a kernel's scratch allocations by slices of one "
                "device buffer per allocation, allocated by the host";
  let description = [{
    A `--sift-fuse` row kernel allocates its per-row scratch buffers inside
    the kernel (the bufferized sift ops on one row). On a GPU that is a
    device `malloc` per thread. This pass moves every `memref.alloc` of a
    `gpu.launch` body that has a static shape and an identity layout and is
    not inside a loop of the kernel out of the kernel: the host allocates
    one device buffer (`gpu.alloc`) per launch, with a slot per thread that
    holds every such allocation at a fixed 64-byte aligned offset, before
    the launch and frees it after it; in the kernel each allocation becomes
    a `memref.view` of its place in the thread's slot, and its
    deallocations are dropped. Allocations with dynamic sizes or inside
    loops stay (`--sift-verify-gpu` reports them).
  }];
  let dependentDialects = ["gpu::GPUDialect", "memref::MemRefDialect",
                           "arith::ArithDialect"];
}

def SiftGpuCopyEscapingConstants
    : Pass<"sift-gpu-copy-escaping-constants", "func::FuncOp"> {
  let summary = "Copy a constant tensor that a function returns or a region "
                "yields into a tensor of its own (the GPU pipeline)";
  let description = [{
    A constant tensor that is a function's result or a region's (a branch
    of an `scf.if` that keeps a scatter's initial value when nothing is
    scattered, a loop's initial value) bufferizes to the host's
    `memref.get_global` flowing to the host code as a buffer, which
    kernels then read or the host copies: host memory between kernels,
    which `--sift-verify-gpu` rejects. Each such use gets a `linalg.copy`
    of the constant into a `tensor.empty` instead, right before the
    terminator: bufferization allocates it (device memory, owned and freed
    like any temporary), the copy becomes a kernel, and the constant it
    reads moves into that kernel's `gpu.module` (`--sift-gpu-device-buffers`),
    copied to the device once. Constants that ops read stay as they are.
    Runs before bufferization.
  }];
  let dependentDialects = ["linalg::LinalgDialect", "tensor::TensorDialect"];
}

def SiftGpuDeviceBuffers : Pass<"sift-gpu-device-buffers", "ModuleOp"> {
  let summary = "Allocate the host code's buffers in device memory "
                "(memref.alloc to gpu.alloc)";
  let description = [{
    Every `memref.alloc` and `memref.dealloc` of host code (outside
    `gpu.launch` and `gpu.module`) becomes `gpu.alloc` / `gpu.dealloc`, so
    that the buffers kernels read and write live in device memory. Host
    code that still reads or writes such a buffer is what
    `--sift-verify-gpu` reports. Allocations inside kernels are left for
    the verifier to report.

    Except a buffer only host code touches: every use (through views) a
    host load, store, `memref.dim` or dealloc, or an operand of a call of a
    module function whose body uses that argument the same way. It stays
    a host `memref.alloc` (marked `sift.host_buffer`), and a function
    argument that every call passes such a buffer is marked
    `sift.host_buffer` too: the deallocation helper's bookkeeping (buffer
    addresses and ownership flags) and the scratch of sequential host
    loops. The verifier accepts the helper's bookkeeping (host buffers only
    host code touches hold no tensor data) and reports host loops over
    them like any other.

    Constants kernels read move into them: a host `memref.get_global`, or
    a view of one (casts, reshapes, subviews), used inside a `gpu.launch` is
    recomputed at the start of the kernel, so that `gpu-kernel-outlining`
    copies the `memref.global` into the kernel's `gpu.module`: a device
    global, initialized when the module is loaded (copied once). Host ops
    left without uses go.
  }];
  let dependentDialects = ["gpu::GPUDialect"];
}

def SiftGpuPrepareModules : Pass<"sift-gpu-prepare-modules", "ModuleOp"> {
  let summary = "Expand gpu.subgroup_reduce to shuffles and give each "
                "gpu.module the NVPTX64 data layout";
  let description = [{
    Inside every `gpu.module`: `gpu.subgroup_reduce` (which
    `convert-gpu-to-nvvm` does not lower) becomes a butterfly of
    `gpu.shuffle` over 32 lanes, and the module gets the NVPTX64 data
    layout (`llvm.data_layout`), without which the LLVM IR of the kernels
    aligns 64-bit values to 4 bytes and the NVPTX back end splits every
    i64 load and store in two. A ballot written as a subgroup `or` of
    `pred ? 1 << lane : 0` (how sift's kernels write it, so that the CPU
    execution runs it too) becomes one `nvvm.vote.sync ballot`, and 64-bit
    shuffles become two 32-bit ones. A 32-bit `arith.mului_extended` or
    `arith.mulsi_extended` (Philox's rounds) becomes a 32-bit `arith.muli`
    and `llvm.nvvm.mulhi.ui` (`.i`): the PTX's `mul.lo.s32` and
    `mul.hi.u32`. The generic lowering through 64-bit products lets LLVM
    widen the code around them, and the NVPTX back end then emulates
    64-bit multiplies.
  }];
  let dependentDialects = ["gpu::GPUDialect", "LLVM::LLVMDialect",
                           "NVVM::NVVMDialect", "arith::ArithDialect"];
}

def SiftGpuUnrollLaunchLoops
    : Pass<"sift-gpu-unroll-launch-loops", "func::FuncOp"> {
  let summary = "Unroll the host loops of kernel launches that have a "
                "constant trip count";
  let description = [{
    `gpu-async-region` gives each block of host code its own stream, and
    makes the host wait before an op with side effects and at the end of a
    block. A host `scf.for` of launches (the digit passes of a radix sort
    split across blocks: two launches a digit) therefore waits for the
    device before the loop and after every iteration, and creates and
    destroys a stream per iteration: the device idles while the host
    catches up. This pass fully unrolls every host `scf.for` that contains
    a `gpu.launch_func` and has a constant trip count of at most
    `max-trip-count`, innermost first, so that its launches run on the
    stream of the code around them with no wait in between. The kernels
    stay the same outlined functions, launched with constant operands
    where the induction variable was. Run it after `gpu-kernel-outlining`
    and before `gpu-async-region`.
  }];
  let options = [
    Option<"maxTripCount", "max-trip-count", "int64_t", /*default=*/"64",
           "The longest loop unrolled">,
  ];
  let dependentDialects = ["scf::SCFDialect"];
}

def SiftGpuHostBoundary : Pass<"sift-gpu-host-boundary", "ModuleOp"> {
  let summary = "Copy a public function's buffer arguments to the device on "
                "entry and its buffer results to the host on return";
  let description = [{
    After `--sift-gpu-device-buffers`, kernels read and write device memory,
    but a public function is called with host buffers and must return host
    buffers. This pass gives every public function with a body a boundary:
    on entry each memref argument is copied into a `gpu.alloc` buffer
    (`gpu.memcpy`), which replaces it in the body; before each return each
    memref result is copied into a host `memref.alloc` (marked
    `sift.host_result`, which `--sift-verify-gpu` accepts) that is returned
    instead, and the device copies of the arguments and the device results
    are freed. The results are the only device-to-host copies of a call.
    A result that is a view of another layout (the valid rows of a padded
    buffer: a dynamic result) is first copied on the device into a buffer
    of the identity layout by a kernel of a thread per element, as the
    copy to the host needs (the host boundary sees through `memref.cast`,
    which later canonicalizations fold into the copy).
  }];
  let dependentDialects = ["arith::ArithDialect", "gpu::GPUDialect",
                           "memref::MemRefDialect", "scf::SCFDialect"];
}

def SiftGpuHostScalars : Pass<"sift-gpu-host-scalars", "ModuleOp"> {
  let summary = "Move the host's scalar reads and writes of device buffers "
                "into kernels";
  let description = [{
    After `--sift-gpu-device-buffers` and `--sift-gpu-host-boundary`, every
    buffer a kernel may touch is device memory (a `gpu.alloc`), so a host
    `memref.load` or `memref.store` of one is a device access from the host (a copy per
    scalar and a synchronization, or a crash). Typical sources: the count
    of a `sift.compact` read for the arithmetic of later sizes and masks,
    and a scalar result written with `tensor.from_elements`.

    - A host `memref.store` into a device buffer (a `gpu.alloc` or a view of
      one) becomes a kernel of one block of one thread; a run of adjacent
      stores is one kernel. Stores inside host loops that launch no kernel
      stay: the loop is what `--sift-verify-gpu` reports (in a loop over
      kernels, a program's own, they move like any other).
    - First, a scalar such a loop over kernels carries from one iteration
      to the next and computes from device memory (the size an iterative
      filter keeps: each step's compaction count) is carried in a
      one-element device buffer instead: stored before the loop, loaded at
      the top of each iteration, the next value stored at its end, loaded
      after the loop, freed before the function returns. The rules below
      then move those loads and stores into kernels, so that the host does
      not wait for the value at every iteration.
    - A scalar a `gpu.launch` uses that is a host `memref.load` of a device
      buffer, or a pure scalar op (arith, index, math) of such loads, is
      recomputed at the start of the kernel (the load included), provided
      that nothing from the load to the launch, the launch itself included
      (unless it is one of the one-thread store kernels above, which read
      before they store), may write or free the buffer (or a view of it;
      buffers of unknown origin may alias any other). The host ops left
      without uses go.

    - What still needs the host value (a launch size, a branch condition,
      an allocation size: a dynamic result's; a scalar result) reads it
      with one device-to-host copy into a host buffer marked
      `sift.host_read`, which `--sift-verify-gpu` accepts: a
      synchronization, as a dynamic shape needs (`--sift-staticize`
      removes it). A buffer of one element with the identity layout is
      copied whole; another element goes through a one-element device
      buffer that a one-thread kernel fills; the host buffer is an alloca
      at the function's entry. Loads in host loops that launch no kernel
      stay (the loop is the verifier's finding).
  }];
  let dependentDialects = ["arith::ArithDialect", "gpu::GPUDialect"];
}

def SiftGpuMergeLaunches : Pass<"sift-gpu-merge-launches", "func::FuncOp"> {
  let summary = "Run independent kernels of one block shape as one launch";
  let description = [{
    After the host scalars moved into kernels (`--sift-gpu-host-scalars`),
    before outlining: a `gpu.launch` moves up to the earliest earlier launch
    of the same block of host code that

    - has the same block size, and either the same grid size or constant
      grid sizes in every dimension where the two differ;
    - together with it uses at most `max-shared-bytes` of static shared
      memory, and neither is asynchronous, has dynamic shared memory or
      clusters, or a body of several blocks;

    provided that nothing it passes over (kernels, host code, that launch
    itself) writes a buffer it reads or reads or writes one it writes (the
    roots of views; allocations are distinct from each other and from the
    function's arguments, which may alias each other), and that what it uses
    from the ops it passes is an allocation, a view, a constant or scalar
    arithmetic, which moves up with it. The merged launch runs the earlier
    body and then the later one in every block; a body whose grid is
    smaller runs in its own blocks only (an `scf.if` on the block id, the
    same for every thread of a block, so its barriers stay uniform), and
    reads its own grid size.

    What it removes is the cost of a launch and the device idling at its
    boundary: the batched sampler's per-group compactions, permutations and
    gathers are independent of each other (docs/GPU.md).
  }];
  let options = [
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t",
           /*default=*/"49152",
           "Most static shared memory of a merged launch (48 KiB: a "
           "kernel's static limit)">,
  ];
  let statistics = [
    Statistic<"numMerged", "merged", "Launches merged into an earlier one">,
  ];
  let dependentDialects = ["arith::ArithDialect", "gpu::GPUDialect",
                           "scf::SCFDialect"];
}

def SiftVerifyGpu : Pass<"sift-verify-gpu", "ModuleOp"> {
  let summary = "Fail if work stays on the host between kernels, a kernel "
                "allocates, or a launch exceeds the device's limits";
  let description = [{
    Checks a module after its parallel loops became `gpu.launch` (or were
    outlined to `gpu.launch_func`). Each finding is an error at the op:

    - a loop of host code (scf.for, scf.while, scf.parallel, scf.forall,
      affine.for) that reads or writes memory: a loop over tensor data
      that runs on the host between kernels (the sequential loops the
      upstream mapping leaves for sort, top-k and other data-dependent
      ops);
    - an op of host code outside such loops that reads or writes a buffer
      (memref.load/store, memref.copy, linalg ops ...);
    - an allocation of host memory in host code (memref.alloc/alloca),
      except the host buffers a scalar is copied into from the device
      (`sift.error_word`: a kernel's error word; `sift.host_read`: a scalar
      the host needs, --sift-gpu-host-scalars), whose loads are accepted
      too;
    - a constant buffer (memref.get_global) used by host code, which lives
      in host memory;
    - an allocation inside a kernel (memref.alloc, gpu.alloc, a call of
      malloc);
    - a call inside a kernel of a function the module only declares (a
      host runtime function: the CPU lowering's `sift_rt_report` of a
      cross_entropy in a program's own parallel loop), which the device
      cannot link (libdevice's `__nv_*` are fine);
    - a launch with constant sizes above `max-threads-per-block` threads
      per block, or a block or grid extent above the CUDA limits (block
      1024 x 1024 x 64, grid 2^31-1 x 65535 x 65535);
    - a `gpu.launch_func` whose kernel operands take more than the 4352
      bytes of parameter space of PTX 8.0.

    A function that only kernels call (before outlining: the deallocation
    helper, which outlining copies into their `gpu.module`s) is checked as
    kernel code, not host code.

    Not findings: the host buffers `--sift-gpu-host-boundary` returns
    results in, the host copies of scalars the host must read
    (`sift.host_read`, `sift.error_word`: a synchronization, in a loop too),
    and the deallocation helper's bookkeeping (host buffers and function
    arguments marked `sift.host_buffer`: buffer addresses and ownership
    flags, no tensor data), with the host code that fills and scans it.

    With `warn-only`, the findings are warnings and the pass succeeds (the
    work left on the host is visible but not fatal).
  }];
  let options = [
    Option<"maxThreadsPerBlock", "max-threads-per-block", "int64_t",
           /*default=*/"1024", "Threads a block may have">,
    Option<"warnOnly", "warn-only", "bool", /*default=*/"false",
           "Report findings as warnings and succeed">
  ];
}

#endif // SIFT_TRANSFORMS_PASSES_TD
