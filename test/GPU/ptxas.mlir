// REQUIRES: ptxas
// The CUDA toolkit's ptxas assembles every kernel the GPU pipeline makes
// for sm_80 and sm_90 without spilling registers (a kernel that reads a
// device constant, Inputs/constant-table.mlir, too), and format=bin makes a
// cubin through it in-process (the toolkit option).
//
// RUN: tensor-opt %s --sift-gpu-pipeline="chip=sm_90" -o %t.sm90.mlir
// RUN: %extract_ptx %t.sm90 %t.sm90.mlir
// RUN: %ptxas -v -arch=sm_90 %t.sm90/exp_add_kernel.ptx -o %t.sm90.exp_add.cubin 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: %ptxas -v -arch=sm_90 %t.sm90/count_rows_kernel.ptx -o %t.sm90.count.cubin 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: tensor-opt %s --sift-gpu-pipeline="chip=sm_80" -o %t.sm80.mlir
// RUN: %extract_ptx %t.sm80 %t.sm80.mlir
// RUN: %ptxas -v -arch=sm_80 %t.sm80/exp_add_kernel.ptx -o %t.sm80.exp_add.cubin 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: %ptxas -v -arch=sm_80 %t.sm80/count_rows_kernel.ptx -o %t.sm80.count.cubin 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: tensor-opt %S/Inputs/constant-table.mlir --sift-gpu-pipeline="chip=sm_80" -o %t.cst.mlir
// RUN: %extract_ptx %t.cst %t.cst.mlir
// RUN: %ptxas -v -arch=sm_80 %t.cst/add_table_kernel.ptx -o %t.cst.cubin 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: tensor-opt %s --sift-gpu-pipeline="chip=sm_90 format=bin toolkit=%cuda_toolkit" | FileCheck %s --check-prefix=BIN

// SM90: Compiling entry function '{{.*}}_kernel' for 'sm_90'
// SM90: 0 bytes spill stores, 0 bytes spill loads
// SM80: Compiling entry function '{{.*}}_kernel' for 'sm_80'
// SM80: 0 bytes spill stores, 0 bytes spill loads

// BIN: gpu.binary @exp_add_kernel [#gpu.object<#nvvm.target<{{.*}}chip = "sm_90"{{.*}}, bin = "
// BIN: gpu.binary @count_rows_kernel [#gpu.object<#nvvm.target<{{.*}}chip = "sm_90"{{.*}}, bin = "
func.func @exp_add(%a: tensor<32x1000xf32>, %b: tensor<32x1000xf32>)
    -> tensor<32x1000xf32> {
  %e = math.exp %a : tensor<32x1000xf32>
  %s = arith.addf %e, %b : tensor<32x1000xf32>
  return %s : tensor<32x1000xf32>
}

func.func @count_rows(%x: tensor<32x4096xf32>) -> tensor<32xi64> {
  %c = sift.count %x : tensor<32x4096xf32> -> tensor<32xi64>
  return %c : tensor<32xi64>
}
