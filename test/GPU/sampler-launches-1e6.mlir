// The batched sampler at N = 1e6 (B = 32, K = 1e5: bench/sampler's
// program, examples/sampler.mlir at that size, made static and batched as
// scripts/device-check.sh does), its kernel launches a call
// through the GPU pipeline (host loops of launches unrolled, so each
// gpu.launch_func runs once): 97 with the default 4-bit radix passes, 65
// with sort-digit-bits=8 (its three split sorts of 1e5 take 10 launches
// each instead of 18, its two split selections 4 fewer each). docs/GPU.md
// gives 99 and 67, counted on an H100 too, from before the gather of the
// labels became a select on the shuffle's positions (GatherOfSelection.cpp)
// and the top-k selections took the Philox words unmasked (`unsigned`).
//
// RUN: python3 -c "import sys; sys.path.insert(0, '%sift_src_root/bench/sampler'); from sift_sampler import auto_sampler_mlir; print(auto_sampler_mlir(1000000, 100000))" > %t.dyn.mlir
// RUN: tensor-opt %t.dyn.mlir --sift-staticize --sift-batch="func=sampler size=32" --canonicalize --cse --symbol-privatize=exclude=sampler_batched --symbol-dce -o %t.batched.mlir
// RUN: tensor-opt %t.batched.mlir --sift-gpu-pipeline="chip=sm_90 format=isa" | FileCheck %s --check-prefix=DEFAULT
// RUN: tensor-opt %t.batched.mlir --sift-gpu-pipeline="chip=sm_90 format=isa sort-digit-bits=8" | FileCheck %s --check-prefix=WIDE

// DEFAULT-LABEL: llvm.func @sampler_batched
// DEFAULT-NOT: llvm.br
// DEFAULT-COUNT-97: gpu.launch_func
// DEFAULT-NOT: gpu.launch_func
// WIDE-LABEL: llvm.func @sampler_batched
// WIDE-NOT: llvm.br
// WIDE-COUNT-65: gpu.launch_func
// WIDE-NOT: gpu.launch_func
