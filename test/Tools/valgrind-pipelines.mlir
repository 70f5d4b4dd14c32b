// The passes under valgrind's memcheck: the seed's sampler staticized and
// batched, then through the GPU pipeline (kernels for the CPU and PTX for
// sm_90) and the CPU pipeline, with no invalid read or write. A pass that
// uses an op a rewrite erased reads freed memory inside libMLIR.so, which
// the sanitizer build does not instrument; whether it crashes depends on the
// heap (--sift-gpu-shape-parallel-loops once did, now and then, in CI),
// while memcheck reports it on every run.
// REQUIRES: valgrind
// RUN: %valgrind tensor-opt %sift_src_root/examples/sampler.mlir --sift-staticize --sift-batch="func=sampler size=32" -o %t.both.mlir
// RUN: %valgrind tensor-opt %t.both.mlir --sift-gpu-pipeline="on-cpu=1" -o %t.on-cpu.mlir
// RUN: %valgrind tensor-opt %t.both.mlir --sift-gpu-pipeline="chip=sm_90" -o %t.sm90.mlir
// RUN: %valgrind tensor-opt %t.both.mlir --sift-cpu-pipeline -o %t.cpu.mlir
// RUN: FileCheck %s < %t.sm90.mlir
// CHECK: gpu.binary
