// The seed's sampler (examples/sampler.mlir), staticized and batched over
// 32 rows, through --sift-gpu-pipeline: the batched function is one row
// kernel (a thread per row) and compiles to PTX; --sift-verify-gpu still
// finds what is not right for a GPU and says where. With allow-host-code
// the findings are warnings:
// - top-k's selection allocates buffers of dynamic size inside the kernel
//   (device malloc), at the sift.topk of each half (positives, negatives);
// - the per-sample function `sampler`, unbatched, leaves its sort, top-k
//   and scans as sequential loops on the host.
// Without allow-host-code the pipeline fails on them.
//
// RUN: tensor-opt %sift_src_root/examples/sampler.mlir --sift-staticize --sift-batch="func=sampler size=32" -o %t.batched.mlir
// RUN: tensor-opt %t.batched.mlir --sift-gpu-pipeline=allow-host-code=1 -o %t.mlir 2> %t.warnings
// RUN: FileCheck %s --check-prefix=WARN < %t.warnings
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: %extract_ptx %t %t.mlir
// RUN: cat %t/sampler_batched_kernel.ptx | FileCheck %s --check-prefix=PTX --implicit-check-not=__nv_
// RUN: not tensor-opt %t.batched.mlir --sift-gpu-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=FAIL

// WARN-DAG: batched.mlir:{{[0-9]+}}:{{[0-9]+}}: warning: 'memref.alloc' allocates memory inside a kernel
// WARN-DAG: batched.mlir:{{[0-9]+}}:{{[0-9]+}}: warning: 'memref.alloc' allocates memory inside a kernel
// WARN-DAG: warning: 'scf.for' is a loop over tensor data that stays on the host between kernels

// HOST-LABEL: llvm.func @sampler_batched
// HOST-NOT: gpu.launch_func
// HOST: gpu.launch_func {{.*}} @sampler_batched_kernel::@sampler_batched_kernel
// HOST-NOT: gpu.launch_func
// HOST: llvm.return

// PTX: .target sm_90
// PTX: .visible .entry sampler_batched_kernel(
// PTX: ret;

// FAIL: error: 'memref.alloc' allocates memory inside a kernel
