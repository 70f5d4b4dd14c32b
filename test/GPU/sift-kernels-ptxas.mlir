// REQUIRES: ptxas
// sift's count, cumsum and compact kernels (sift-kernels.mlir), assembled by the
// toolkit's ptxas for sm_80 and sm_90: one barrier, shared memory, no spills.
//
// RUN: tensor-opt %S/sift-kernels.mlir --sift-gpu-pipeline="chip=sm_90 fuse=0" -o %t.sm90.mlir
// RUN: %extract_ptx %t.sm90 %t.sm90.mlir
// RUN: %ptxas -v -arch=sm_90 %t.sm90/count_rows_kernel.ptx -o %t.c90.cubin 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: %ptxas -v -arch=sm_90 %t.sm90/scan_rows_kernel.ptx -o %t.s90.cubin 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: %ptxas -v -arch=sm_90 %t.sm90/scan_floats_kernel.ptx -o %t.f90.cubin 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: %ptxas -v -arch=sm_90 %t.sm90/compact_rows_kernel.ptx -o %t.k90.cubin 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: tensor-opt %S/sift-kernels.mlir --sift-gpu-pipeline="chip=sm_80 fuse=0" -o %t.sm80.mlir
// RUN: %extract_ptx %t.sm80 %t.sm80.mlir
// RUN: %ptxas -v -arch=sm_80 %t.sm80/count_rows_kernel.ptx -o %t.c80.cubin 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: %ptxas -v -arch=sm_80 %t.sm80/scan_rows_kernel.ptx -o %t.s80.cubin 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: %ptxas -v -arch=sm_80 %t.sm80/scan_floats_kernel.ptx -o %t.f80.cubin 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: %ptxas -v -arch=sm_80 %t.sm80/compact_rows_kernel.ptx -o %t.k80.cubin 2>&1 | FileCheck %s --check-prefix=SM80

// SM90: Compiling entry function '{{.*}}_kernel' for 'sm_90'
// SM90: 0 bytes spill stores, 0 bytes spill loads
// SM90: used 1 barriers, {{[0-9]+}} bytes smem
// SM80: Compiling entry function '{{.*}}_kernel' for 'sm_80'
// SM80: 0 bytes spill stores, 0 bytes spill loads
// SM80: used 1 barriers, {{[0-9]+}} bytes smem
