// REQUIRES: ptxas
// The batched sampler's row kernel (test/GPU/sampler.mlir), made by the
// default pipeline for sm_90 and for sm_80, is PTX that the toolkit's ptxas
// assembles for that chip.
//
// RUN: tensor-opt %sift_src_root/examples/sampler.mlir --sift-staticize --sift-batch="func=sampler size=32" --symbol-privatize=exclude=sampler_batched --symbol-dce -o %t.batched.mlir
// RUN: tensor-opt %t.batched.mlir --sift-gpu-pipeline="chip=sm_90" -o %t.sm90.mlir
// RUN: %extract_ptx %t.sm90 %t.sm90.mlir
// RUN: FileCheck %s --check-prefix=PTX90 --implicit-check-not=malloc --implicit-check-not=free < %t.sm90/sampler_batched_kernel.ptx
// RUN: %ptxas -v -arch=sm_90 %t.sm90/sampler_batched_kernel.ptx -o %t.sm90.cubin 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: tensor-opt %t.batched.mlir --sift-gpu-pipeline="chip=sm_80" -o %t.sm80.mlir
// RUN: %extract_ptx %t.sm80 %t.sm80.mlir
// RUN: FileCheck %s --check-prefix=PTX80 --implicit-check-not=malloc --implicit-check-not=free < %t.sm80/sampler_batched_kernel.ptx
// RUN: %ptxas -v -arch=sm_80 %t.sm80/sampler_batched_kernel.ptx -o %t.sm80.cubin 2>&1 | FileCheck %s --check-prefix=SM80

// PTX90: .target sm_90
// PTX90: .visible .entry sampler_batched_kernel(
// PTX80: .target sm_80
// PTX80: .visible .entry sampler_batched_kernel(

// SM90: Compiling entry function 'sampler_batched_kernel' for 'sm_90'
// SM90: {{[0-9]+}} bytes spill stores
// SM90: Used {{[0-9]+}} registers
// SM80: Compiling entry function 'sampler_batched_kernel' for 'sm_80'
// SM80: Used {{[0-9]+}} registers

// The whole module (the unbatched `sampler`'s 4 launches too, test/GPU/
// sampler.mlir) as cubins: the pipeline's ptxas assembles every kernel for
// sm_80 and for sm_90.
// RUN: tensor-opt %sift_src_root/examples/sampler.mlir --sift-staticize --sift-batch="func=sampler size=32" -o %t.both.mlir
// RUN: tensor-opt %t.both.mlir --sift-gpu-pipeline="chip=sm_80 format=bin toolkit=%cuda_toolkit" -o %t.bin80.mlir
// RUN: tensor-opt %t.both.mlir --sift-gpu-pipeline="chip=sm_90 format=bin toolkit=%cuda_toolkit" -o %t.bin90.mlir
// RUN: FileCheck %s --check-prefix=BIN < %t.bin90.mlir
// BIN-COUNT-7: gpu.binary @sampler
