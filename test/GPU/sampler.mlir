// The seed's sampler (examples/sampler.mlir), staticized and batched over
// 32 rows, through --sift-gpu-pipeline. The batched function is one row
// kernel (a thread per row) whose scratch, top-k's candidate lists
// included, is a slot of one host-allocated device buffer: the default
// pipeline accepts it and makes PTX with no device malloc and no libdevice
// call left.
//
// RUN: tensor-opt %sift_src_root/examples/sampler.mlir --sift-staticize --sift-batch="func=sampler size=32" -o %t.both.mlir
// RUN: tensor-opt %t.both.mlir --symbol-privatize=exclude=sampler_batched --symbol-dce -o %t.batched.mlir
// RUN: tensor-opt %t.batched.mlir --sift-gpu-pipeline="chip=sm_90" -o %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: %extract_ptx %t %t.mlir
// RUN: cat %t/sampler_batched_kernel.ptx | FileCheck %s --check-prefix=PTX --implicit-check-not=__nv_ --implicit-check-not=malloc --implicit-check-not=free
//
// The per-sample function `sampler`, left unbatched in the module that
// --sift-batch makes: its sorts, top-k selections and scans are sift's
// block kernels, but it still reads scalars (counts) and copies buffers on
// the host: the verifier reports those (warnings with allow-host-code,
// errors by default), and no allocation inside a kernel.
// RUN: tensor-opt %t.both.mlir --sift-gpu-pipeline=allow-host-code=1 -o /dev/null 2> %t.warnings
// RUN: FileCheck %s --check-prefix=WARN --implicit-check-not="inside a kernel" < %t.warnings
// RUN: not tensor-opt %t.both.mlir --sift-gpu-pipeline -o /dev/null 2> %t.errors
// RUN: FileCheck %s --check-prefix=FAIL --implicit-check-not="inside a kernel" < %t.errors

// HOST-LABEL: llvm.func @sampler_batched
// HOST-NOT: gpu.launch_func
// HOST: llvm.call @mgpuMemAlloc
// HOST: gpu.launch_func {{.*}} @sampler_batched_kernel::@sampler_batched_kernel
// HOST-NOT: gpu.launch_func
// HOST: llvm.return
// HOST-NOT: llvm.func @sampler(

// PTX: .version 8.0
// PTX: .target sm_90
// PTX: .visible .entry sampler_batched_kernel(
// PTX: ret;

// WARN: warning: 'memref.load' reads or writes a buffer on the host between kernels

// FAIL: error: 'memref.load' reads or writes a buffer on the host between kernels
