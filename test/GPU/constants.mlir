// Constants kernels read live on the device: --sift-gpu-device-buffers
// recomputes a host memref.get_global (and its views) inside each launch
// that uses it, outlining copies the memref.global into the kernel's
// gpu.module, and the PTX has it as an initialized .global, loaded with the
// module (copied once, not per launch or per call).
//
// RUN: tensor-opt %s --sift-gpu-device-buffers -split-input-file | FileCheck %s --check-prefix=SINK
// RUN: tensor-opt %S/Inputs/constant-table.mlir --sift-gpu-pipeline="chip=sm_90" -o %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: %extract_ptx %t %t.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t/add_table_kernel.ptx

// SINK-LABEL: func.func @table_in_kernel
// SINK-NOT: memref.get_global
// SINK: gpu.launch
// SINK-NEXT: %[[G:.*]] = memref.get_global @table : memref<1x4xf32>
// SINK-NEXT: %[[C:.*]] = memref.collapse_shape %[[G]] {{\[}}[0, 1]] : memref<1x4xf32> into memref<4xf32>
// SINK: memref.load %[[C]][%{{.*}}] : memref<4xf32>
// SINK: gpu.terminator
memref.global "private" constant @table : memref<1x4xf32> = dense<[[1.0, 2.0, 3.0, 4.0]]>
func.func @table_in_kernel(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %g = memref.get_global @table : memref<1x4xf32>
  %t = memref.collapse_shape %g [[0, 1]] : memref<1x4xf32> into memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %v = memref.load %t[%tx] : memref<4xf32>
    memref.store %v, %out[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// A constant the host reads as well stays on the host for it (the verifier
// reports that read); the kernel gets its own.
// SINK-LABEL: func.func @table_on_both
// SINK: %[[H:.*]] = memref.get_global @table : memref<4xf32>
// SINK: memref.load %[[H]]
// SINK: gpu.launch
// SINK-NEXT: %[[G:.*]] = memref.get_global @table : memref<4xf32>
// SINK: memref.load %[[G]]
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @table_on_both(%out: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %g = memref.get_global @table : memref<4xf32>
  %h = memref.load %g[%c0] : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %v = memref.load %g[%tx] : memref<4xf32>
    memref.store %v, %out[%tx] : memref<4xf32>
    gpu.terminator
  }
  return %h : f32
}

// -----

// The host asks a constant only its static size (a kernel's check that a
// weights vector has C entries): the size is a constant, and no host copy
// of the table is left (it is the kernel's alone).
// SINK-LABEL: func.func @table_size_on_host
// SINK-NOT: memref.get_global
// SINK-NOT: memref.dim
// SINK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c4{{.*}}, %{{.*}} = %c1
// SINK-NEXT: memref.get_global @table : memref<4xf32>
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @table_size_on_host(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g = memref.get_global @table : memref<4xf32>
  %n = memref.dim %g, %c0 : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %g[%bx] : memref<4xf32>
    memref.store %v, %out[%bx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// The whole pipeline on a tensor constant (Inputs/constant-table.mlir): the
// verifier accepts it, the host neither holds nor passes the table, and the
// kernel's PTX defines it.
// HOST-NOT: llvm.mlir.global {{.*}}__constant
// HOST-LABEL: llvm.func @add_table
// HOST-NOT: llvm.mlir.addressof
// HOST: gpu.launch_func
// HOST: llvm.return
// PTX: .global .align {{[0-9]+}} .b8 __constant_4xf32[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64};
// PTX: .visible .entry add_table_kernel(
