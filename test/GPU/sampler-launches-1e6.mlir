// The batched sampler at N = 1e6 (B = 32, K = 1e5: bench/sampler's
// program, examples/sampler.mlir at that size, made static and batched as
// scripts/device-check.sh does), its kernel launches a call
// through the GPU pipeline (host loops of launches unrolled, so each
// gpu.launch_func runs once). With its randperms' default (Feistel)
// definition (DEFAULT), no sort or selection is left: 4 launches (the
// two compactions' counts, rows split in 64 segments, with the masks
// `labels == 1` and `labels == 0` computed from the labels there and
// written for the next launch; their scans, each set element stored at
// its lane of the inverse of its group's permutation, which writes the
// groups' samples and no indices (session 39); the shuffle's lanes; the
// features gathered through the shuffle and the concatenation of the
// samples, read from the sample that holds each element (session 39: the
// concatenation is not written), with the labels and the counts). The
// masks were a launch of their own before session 38 (5). The groups' sizes are
// recomputed where they are read and the concatenation where it is
// gathered (--sift-fuse-cheap-producers' broadcast-producers and
// gathered-producers); independent kernels are one launch
// (--sift-gpu-merge-launches). Without the merging (SEPARATE): 9 (11
// while the concatenation was written before it was gathered, 12 with the
// masks' launch, 13 before the recomputation, 14 before the gathers
// through a permutation's lanes lost their guards, session 30).
// With `sort` on its three randperms (SORT): 40 with the default 8-bit
// radix passes (63 in session 30), 68 with sort-digit-bits=4 (95: its
// three split sorts of 1e5 take 18 launches each instead of 10, its two
// split selections 4 more each). An
// H200 ran 65 and 97 of those (docs/GPU.md, session 25), before the
// concatenation of the two groups' indices stopped being copied (session
// 27) and the group top-ks got their `limit` (session 28: 64 -> 63).
//
// RUN: python3 -c "import sys; sys.path.insert(0, '%sift_src_root/bench/sampler'); from sift_sampler import auto_sampler_mlir; print(auto_sampler_mlir(1000000, 100000))" > %t.dyn.mlir
// RUN: tensor-opt %t.dyn.mlir --sift-staticize --sift-batch="func=sampler size=32" --canonicalize --cse --symbol-privatize=exclude=sampler_batched --symbol-dce -o %t.default.mlir
// RUN: tensor-opt %t.default.mlir --sift-gpu-pipeline="chip=sm_90 format=isa" | FileCheck %s --check-prefix=DEFAULT
// RUN: tensor-opt %t.default.mlir --sift-gpu-pipeline="chip=sm_90 format=isa merge-launches=0" | FileCheck %s --check-prefix=SEPARATE
// RUN: python3 -c "import sys; sys.path.insert(0, '%sift_src_root/bench/sampler'); from sift_sampler import auto_sampler_mlir; print(auto_sampler_mlir(1000000, 100000, by_sort=True))" > %t.sort.mlir
// RUN: tensor-opt %t.sort.mlir --sift-staticize --sift-batch="func=sampler size=32" --canonicalize --cse --symbol-privatize=exclude=sampler_batched --symbol-dce -o %t.batched.mlir
// RUN: tensor-opt %t.batched.mlir --sift-gpu-pipeline="chip=sm_90 format=isa" | FileCheck %s --check-prefix=SORT
// RUN: tensor-opt %t.batched.mlir --sift-gpu-pipeline="chip=sm_90 format=isa sort-digit-bits=4" | FileCheck %s --check-prefix=NARROW

// DEFAULT-LABEL: llvm.func @sampler_batched
// DEFAULT-NOT: llvm.br
// DEFAULT-COUNT-4: gpu.launch_func
// DEFAULT-NOT: gpu.launch_func
// SEPARATE-LABEL: llvm.func @sampler_batched
// SEPARATE-NOT: llvm.br
// SEPARATE-COUNT-9: gpu.launch_func
// SEPARATE-NOT: gpu.launch_func
// SORT-LABEL: llvm.func @sampler_batched
// SORT-NOT: llvm.br
// SORT-COUNT-40: gpu.launch_func
// SORT-NOT: gpu.launch_func
// NARROW-LABEL: llvm.func @sampler_batched
// NARROW-NOT: llvm.br
// NARROW-COUNT-68: gpu.launch_func
// NARROW-NOT: gpu.launch_func
