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
// --sift-batch makes, still leaves its sorts, top-k selections and scans
// as sequential loops on the host: the verifier reports those (warnings
// with allow-host-code, errors by default), but no allocation inside a
// kernel any more.
// RUN: tensor-opt %t.both.mlir --sift-gpu-pipeline=allow-host-code=1 -o /dev/null 2> %t.warnings
// RUN: FileCheck %s --check-prefix=WARN --implicit-check-not="inside a kernel" < %t.warnings
// RUN: not tensor-opt %t.both.mlir --sift-gpu-pipeline -o /dev/null 2> %t.errors
// RUN: FileCheck %s --check-prefix=FAIL --implicit-check-not="inside a kernel" < %t.errors
//
// What the verifier still finds in `sampler`, by line of
// examples/sampler.mlir, is only in its sorts and top-k selections: those
// of the randperms of lines 59/60 and 66/67 (staticized into top-k), of
// line 76 (an argsort): their host loops, their scratch and the
// deallocation helper's bookkeeping, which only host code touches and so
// stays in host memory (host allocations, stores and loads), and the loops
// of the deallocation helper itself (line 0), which only their host code
// calls. The compactions' counts (lines 36, 37)
// are read by the kernels that use them, the concat (73) is two copy
// kernels and the scalar results (84) are written by a one-thread kernel.
// RUN: not tensor-opt %sift_src_root/examples/sampler.mlir --sift-staticize --sift-batch="func=sampler size=32" --sift-gpu-pipeline -o /dev/null 2> %t.direct
// RUN: grep -oE "sampler.mlir:[0-9]+:[0-9]+: error: '[a-z._]+'" %t.direct | sed -E 's/^sampler.mlir:([0-9]+):[0-9]+: error: /\1 /' | env LC_ALL=C sort -u | FileCheck %s --check-prefix=LEFT --match-full-lines

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

// WARN: warning: 'scf.for' is a loop over tensor data that stays on the host between kernels

// FAIL: error: 'scf.for' is a loop over tensor data that stays on the host between kernels

// LEFT: 0 'scf.for'
// LEFT-NEXT: 60 'memref.alloc'
// LEFT-NEXT: 60 'memref.load'
// LEFT-NEXT: 60 'memref.store'
// LEFT-NEXT: 60 'scf.for'
// LEFT-NEXT: 67 'memref.alloc'
// LEFT-NEXT: 67 'memref.load'
// LEFT-NEXT: 67 'memref.store'
// LEFT-NEXT: 67 'scf.for'
// LEFT-NEXT: 76 'memref.alloc'
// LEFT-NEXT: 76 'memref.load'
// LEFT-NEXT: 76 'memref.store'
// LEFT-NEXT: 76 'scf.for'
// LEFT-NOT: {{.}}
