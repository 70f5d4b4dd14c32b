// REQUIRES: ptxas
// Every kernel of nonzero, masked_select and sample_balanced
// (sift-kernels-selection.mlir: the compact and argsort kernels they are
// made of, the philox_words kernel of the keys, and their elementwise
// kernels: the masks, coordinates and gathers, the classes, the samples
// and counts) assembled by the toolkit's ptxas for sm_80 and sm_90 with no
// spills.
// allow-host-code: nonzero's and masked_select's result size is the
// compaction's count, which the host reads to slice the result.
//
// RUN: tensor-opt %S/sift-kernels-selection.mlir --symbol-privatize=exclude=nonzero_f32,nonzero_3d_i1,masked_select_lead2,masked_select_full,sample_balanced_seed_tensors,sample_balanced_no_positives,sample_balanced_dynamic --symbol-dce -o %t.in.mlir
// RUN: tensor-opt %t.in.mlir --sift-gpu-pipeline="chip=sm_90 fuse=0 allow-host-code=1" -o %t.sm90.mlir
// RUN: %extract_ptx %t.sm90 %t.sm90.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_90 %t.sm90 > %t.sm90.txt
// RUN: FileCheck %s --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error < %t.sm90.txt
// RUN: FileCheck %s --check-prefix=BITONIC < %t.sm90.txt
// RUN: tensor-opt %t.in.mlir --sift-gpu-pipeline="chip=sm_80 fuse=0 allow-host-code=1" -o %t.sm80.mlir
// RUN: %extract_ptx %t.sm80 %t.sm80.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_80 %t.sm80 > %t.sm80.txt
// RUN: FileCheck %s --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error < %t.sm80.txt
// RUN: FileCheck %s --check-prefix=BITONIC < %t.sm80.txt

// Kernels in name order (the numbered ones in the order of their names,
// which is not the order of the numbers). masked_select: compact, gather;
// of rows (lead2), also the copy of the valid rows into a contiguous buffer
// (the result is a view of a padded one).
// CHECK: == masked_select_full_kernel.ptx
// CHECK: used 1 barriers, 128 bytes smem
// CHECK: == masked_select_full_kernel_{{[0-9]+}}.ptx
// CHECK: used 0 barriers
// CHECK: == masked_select_lead2_kernel.ptx
// CHECK-COUNT-2: == masked_select_lead2_kernel_{{[0-9]+}}.ptx
// nonzero: compact, coordinates (3-D: and the contiguous copy); "!= 0"
// mask, compact.
// CHECK-COUNT-3: == nonzero_3d_i1_kernel
// CHECK-COUNT-2: == nonzero_f32_kernel
// sample_balanced: keys, argsort (bitonic), classes, the compactions,
// samples, counts: 5 and 5 launches (--sift-gpu-merge-launches runs the
// independent ones together; 6 and 7 before).
// Of labels of a run-time N: keys, the argsort of dynamic rows (radix, in
// global scratch), classes, the compactions, samples and counts.
// CHECK-COUNT-8: == sample_balanced_dynamic_kernel
// CHECK-COUNT-5: == sample_balanced_no_positives_kernel
// CHECK: == sample_balanced_seed_tensors_kernel.ptx
// CHECK: used 0 barriers
// CHECK-COUNT-4: == sample_balanced_seed_tensors_kernel_{{[0-9]+}}.ptx
// CHECK-NOT: ==
// The bitonic sort of 300 keys padded to 512, in one of them.
// BITONIC: == sample_balanced_seed_tensors_kernel_{{[0-9]+}}.ptx
// BITONIC: used 1 barriers, 4096 bytes smem
