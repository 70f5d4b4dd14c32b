// The scalar host code of an unbatched program between kernels: two
// compactions whose counts are read for a later kernel's mask and for a
// scalar result, and a concat of their outputs. Through the default GPU
// pipeline nothing stays on the host (--sift-verify-gpu passes): the concat
// is two copy kernels, the counts are read by the kernels that use them,
// and the scalar result is written by a kernel of one thread.
//
// RUN: tensor-opt %s --sift-gpu-pipeline -o /dev/null --mlir-print-ir-after=sift-gpu-host-scalars 2> %t.host
// RUN: FileCheck %s < %t.host
// No load, store or copy at the function's top level (host code):
// RUN: not grep -E '^    [^ ].*memref\.(load|store|copy) ' %t.host
//
// Run on the CPU (--sift-gpu-pipeline=on-cpu=1: the same kernels and host
// code, each launch executed by --sift-gpu-launch-to-cpu) against NumPy,
// with the unbatched sampler of examples/sampler.mlir (its sorts and top-k
// stay host loops: allow-host-code), checked by its properties.
// RUN: tensor-opt %sift_src_root/examples/sampler.mlir --sift-staticize --sift-batch="func=sampler size=32" -o %t.sampler.mlir
// RUN: python3 %S/Inputs/check_gpu_on_cpu.py --tensor-run tensor-run --split %s --sampler %t.sampler.mlir --workdir %t.run | FileCheck %s --check-prefix=RUNS

// RUNS: split: ok
// RUNS: sampler: ok
// RUNS: all ok

// CHECK-LABEL: func.func @split
// The two compactions.
// CHECK: gpu.launch {{.*}} workgroup
// CHECK: gpu.launch {{.*}} workgroup
// The concat: a copy kernel per operand.
// CHECK: gpu.launch
// CHECK: gpu.launch
// The mask kernel reads both counts.
// CHECK: gpu.launch
// CHECK-NEXT: %[[P:.*]] = memref.load %{{.*}}[] : memref<i64>
// CHECK-NEXT: %[[Q:.*]] = memref.load %{{.*}}[] : memref<i64>
// CHECK-NEXT: %[[T:.*]] = arith.addi %[[P]], %[[Q]] : i64
// CHECK-NEXT: arith.minsi %[[T]], %[[P]] : i64
// CHECK: gpu.launch
// The scalar result: one thread.
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.load
// CHECK-NEXT: arith.addi
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.terminator
// CHECK: return
func.func @split(%labels: tensor<1024xi64>) -> (tensor<512xi64>, tensor<i64>) {
  %ones = arith.constant dense<1> : tensor<1024xi64>
  %is_pos = arith.cmpi eq, %labels, %ones : tensor<1024xi64>
  %is_neg = arith.cmpi ne, %labels, %ones : tensor<1024xi64>
  %pos, %npos = sift.compact %is_pos : tensor<1024xi1> -> tensor<256xi64>, tensor<i64>
  %neg, %nneg = sift.compact %is_neg : tensor<1024xi1> -> tensor<256xi64>, tensor<i64>
  %p = tensor.extract %npos[] : tensor<i64>
  %q = tensor.extract %nneg[] : tensor<i64>
  %both = tensor.concat dim(0) %pos, %neg : (tensor<256xi64>, tensor<256xi64>) -> tensor<512xi64>
  %total = arith.addi %p, %q : i64
  %m = arith.minsi %total, %p : i64
  %splat = tensor.splat %m : tensor<512xi64>
  %iota = tensor.empty() : tensor<512xi64>
  %idx = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%iota : tensor<512xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<512xi64>
  %keep = arith.cmpi slt, %idx, %splat : tensor<512xi64>
  %neg1 = arith.constant dense<-1> : tensor<512xi64>
  %r = arith.select %keep, %both, %neg1 : tensor<512xi1>, tensor<512xi64>
  %t = tensor.from_elements %total : tensor<i64>
  return %r, %t : tensor<512xi64>, tensor<i64>
}
