// The seed's sampler (examples/sampler.mlir), staticized and batched over
// 32 rows, through --sift-gpu-pipeline: 3 launches, each over every row
// (the issue's target is 4; 11 in session 30, 4 in session 31). The two
// label masks are computed by the compactions' kernels where they read
// them, from the labels (no mask buffer: convert-sift-to-gpu's mask
// predicates, session 38), and each writes its group's sample, every
// element at its lane of the inverse of the group's permutation (no
// indices written or gathered: convert-sift-to-gpu's permuted stores,
// session 39); element-wise ops reading the same tensor are one kernel
// (--sift-fuse-siblings); the concatenation of the groups' samples is
// not written: a gather through it reads the sample that holds the
// element (--sift-fuse-cheap-producers' gathered-producers);
// the groups' sizes are recomputed by the kernels that read them, and the
// concatenation of the groups' valid prefixes by the gathers through it
// (--sift-fuse-cheap-producers' broadcast-producers and
// gathered-producers); independent kernels of one block shape are one
// launch (--sift-gpu-merge-launches). The launches: both compactions
// with their masks, sift's block kernels (a block per row: ballots, shuffles,
// barriers, shared-memory atomics); the shuffle's lanes (the Feistel
// permutation: no sort, no selection); the features and labels gathered
// through the shuffle and the samples, with the counts.
// test/GPU/sampler-launches-1e6.mlir counts them at N = 1e6 and the `sort`
// form's sorts and selections. (--sift-fuse, off by default on the GPU,
// would put the gathers in a row kernel with one thread per row: on an
// H100 at N = 1e4, 26 ms against 1.4 ms.) Scratch is a slot of a
// host-allocated device buffer: the default pipeline accepts it and makes
// PTX with no device malloc and no libdevice call left.
//
// RUN: tensor-opt %sift_src_root/examples/sampler.mlir --sift-staticize --sift-batch="func=sampler size=32" -o %t.both.mlir
// RUN: tensor-opt %t.both.mlir --symbol-privatize=exclude=sampler_batched --symbol-dce -o %t.batched.mlir
// RUN: tensor-opt %t.batched.mlir --sift-gpu-pipeline="chip=sm_90" -o %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: %extract_ptx %t %t.mlir
// RUN: cat %t/sampler_batched_kernel.ptx | FileCheck %s --check-prefix=PTX --implicit-check-not=__nv_ --implicit-check-not=malloc --implicit-check-not=free
//
// The per-sample function `sampler`, left unbatched in the module that
// --sift-batch makes: its compactions are sift's block kernels, the counts
// the host used to read are read by the kernels that use them
// (--sift-gpu-host-scalars), its concat is two copy kernels and its scalar
// results a one-thread kernel, run with the others where independent: 4
// launches (14 in session 30, 5 before the masks moved into the
// compactions).
// The default pipeline accepts
// the whole module (the verifier finds nothing on the host, no allocation
// inside a kernel): the issue's "done when" command.
// RUN: tensor-opt %t.both.mlir --sift-gpu-pipeline="chip=sm_90" -o %t.whole.mlir 2> %t.whole.err
// RUN: FileCheck %s --check-prefix=WHOLE < %t.whole.mlir
// RUN: count 0 < %t.whole.err

// WHOLE-LABEL: llvm.func @sampler(
// WHOLE-COUNT-4: gpu.launch_func
// WHOLE-NOT: gpu.launch_func
// WHOLE: llvm.func @sampler_batched

// HOST-LABEL: llvm.func @sampler_batched
// HOST-NOT: gpu.launch_func
// HOST: llvm.call @mgpuMemAlloc
// HOST-COUNT-3: gpu.launch_func {{.*}} @sampler_batched_kernel{{(_[0-9]+)?}}::@sampler_batched_kernel
// HOST-NOT: gpu.launch_func
// HOST: llvm.return
// HOST-NOT: llvm.func @sampler(

// The two compactions' kernel (a block per row), the first launch: each
// reads the labels (8 bytes an element) and compares them with 1 (0) to
// count the group, computes its row's Feistel keys (Philox: mul.hi.u32),
// then reads them again to compact the group, each element stored at its
// lane of the permutation (i32 indices).
// PTX: .version 8.0
// PTX: .target sm_90
// PTX: .visible .entry sampler_batched_kernel(
// PTX: .shared
// PTX: ld.global.b64 [[POS:%rd[0-9]+]], [%rd{{[0-9]+}}];
// PTX-NEXT: setp.eq.b64 %p{{[0-9]+}}, [[POS]], 1;
// PTX: mul.hi.u32
// PTX: setp.eq.b64 %p{{[0-9]+}}, %rd{{[0-9]+}}, 1;
// PTX: st.global.b32
// PTX: ld.global.b64 [[NEG:%rd[0-9]+]], [%rd{{[0-9]+}}];
// PTX-NEXT: setp.eq.b64 %p{{[0-9]+}}, [[NEG]], 0;
// PTX: mul.hi.u32
// PTX: setp.eq.b64 %p{{[0-9]+}}, %rd{{[0-9]+}}, 0;
// PTX: st.global.b32
// PTX: ret;
// RUN: cat %t/sampler_batched_kernel.ptx | FileCheck %s --check-prefix=COMPACT --implicit-check-not=__nv_ --implicit-check-not=malloc --implicit-check-not=free
// COMPACT: .visible .entry sampler_batched_kernel(
// COMPACT-DAG: vote.sync.ballot.b32
// COMPACT-DAG: shfl.sync
// COMPACT-DAG: bar.sync
