// REQUIRES: ptxas
// sift's count, cumsum and compact kernels (sift-kernels.mlir) and its sort,
// argsort and topk kernels (sift-kernels-sort.mlir: bitonic, radix with
// static and dynamic rows, topk sorted by bitonic or radix, unsorted),
// assembled by the toolkit's ptxas for sm_80 and sm_90: one barrier, shared
// memory, no spills.
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

// RUN: tensor-opt %S/sift-kernels-sort.mlir --symbol-privatize=exclude=sort_rows,argsort_long,argsort_dynamic,topk_rows,topk_unsorted,topk_large_k --symbol-dce | tensor-opt --sift-gpu-pipeline="chip=sm_90 fuse=0" -o %t.sort90.mlir
// RUN: %extract_ptx %t.sort90 %t.sort90.mlir
// RUN: %ptxas -v -arch=sm_90 %t.sort90/sort_rows_kernel.ptx -o %t.sort_rows.90.cubin 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: %ptxas -v -arch=sm_90 %t.sort90/argsort_long_kernel.ptx -o %t.argsort_long.90.cubin 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: %ptxas -v -arch=sm_90 %t.sort90/argsort_dynamic_kernel.ptx -o %t.argsort_dynamic.90.cubin 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: %ptxas -v -arch=sm_90 %t.sort90/topk_rows_kernel.ptx -o %t.topk_rows.90.cubin 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: %ptxas -v -arch=sm_90 %t.sort90/topk_unsorted_kernel.ptx -o %t.topk_unsorted.90.cubin 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: %ptxas -v -arch=sm_90 %t.sort90/topk_large_k_kernel.ptx -o %t.topk_large_k.90.cubin 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: tensor-opt %S/sift-kernels-sort.mlir --symbol-privatize=exclude=sort_rows,argsort_long,argsort_dynamic,topk_rows,topk_unsorted,topk_large_k --symbol-dce | tensor-opt --sift-gpu-pipeline="chip=sm_80 fuse=0" -o %t.sort80.mlir
// RUN: %extract_ptx %t.sort80 %t.sort80.mlir
// RUN: %ptxas -v -arch=sm_80 %t.sort80/sort_rows_kernel.ptx -o %t.sort_rows.80.cubin 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: %ptxas -v -arch=sm_80 %t.sort80/argsort_long_kernel.ptx -o %t.argsort_long.80.cubin 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: %ptxas -v -arch=sm_80 %t.sort80/argsort_dynamic_kernel.ptx -o %t.argsort_dynamic.80.cubin 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: %ptxas -v -arch=sm_80 %t.sort80/topk_rows_kernel.ptx -o %t.topk_rows.80.cubin 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: %ptxas -v -arch=sm_80 %t.sort80/topk_unsorted_kernel.ptx -o %t.topk_unsorted.80.cubin 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: %ptxas -v -arch=sm_80 %t.sort80/topk_large_k_kernel.ptx -o %t.topk_large_k.80.cubin 2>&1 | FileCheck %s --check-prefix=SM80

// SM90: Compiling entry function '{{.*}}_kernel' for 'sm_90'
// SM90: 0 bytes spill stores, 0 bytes spill loads
// SM90: used 1 barriers, {{[0-9]+}} bytes smem
// SM80: Compiling entry function '{{.*}}_kernel' for 'sm_80'
// SM80: 0 bytes spill stores, 0 bytes spill loads
// SM80: used 1 barriers, {{[0-9]+}} bytes smem
