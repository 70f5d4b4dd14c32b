// sift's compact kernel writes the positions in the op's index type: i32
// indices (what --sift-narrow-indices makes of a compaction that only
// gathers read, in the CPU and GPU pipelines) are stored as i32 by the
// kernel, with no i64 buffer and no truncating pass after it. ctest
// conformance-gpu-pipeline runs such compactions (nonzero(mask)[perm], the
// sampler) on the CPU execution of the kernels.
//
// RUN: tensor-opt %s --convert-sift-to-gpu --sift-gpu-expand-kernels | FileCheck %s
// RUN: tensor-opt %s --sift-narrow-indices --convert-sift-to-gpu --sift-gpu-expand-kernels | FileCheck %s --check-prefix=NARROW

// CHECK-LABEL: func.func @compact_i32
// CHECK: gpu.launch
// CHECK: arith.index_castui %{{.*}} : index to i32
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x100xi32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x100xi32>
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK-NOT: arith.trunci
// CHECK: return
func.func @compact_i32(%m: tensor<32x5000xi1>) -> (tensor<32x100xi32>, tensor<32xi64>) {
  %i, %n = sift.compact %m {fill = -1 : i64} : tensor<32x5000xi1> -> tensor<32x100xi32>, tensor<32xi64>
  return %i, %n : tensor<32x100xi32>, tensor<32xi64>
}

// Positions that only a gather reads: narrowed, the kernel's buffer is i32.
// NARROW-LABEL: func.func @gathered
// NARROW: memref.alloc() {{.*}}: memref<32x5000xi32>
// NARROW: gpu.launch
// NARROW: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x5000xi32>
func.func @gathered(%m: tensor<32x5000xi1>, %x: tensor<32x5000xf32>,
                    %perm: tensor<32x100xi64>) -> tensor<32x100xf32> {
  %i, %n = sift.compact %m unpadded : tensor<32x5000xi1> -> tensor<32x5000xi64>, tensor<32xi64>
  %p = sift.gather %i[%perm] {batch_dims = 1 : i64} : tensor<32x5000xi64>, tensor<32x100xi64> -> tensor<32x100xi64>
  %g = sift.gather %x[%p] {batch_dims = 1 : i64} : tensor<32x5000xf32>, tensor<32x100xi64> -> tensor<32x100xf32>
  return %g : tensor<32x100xf32>
}
