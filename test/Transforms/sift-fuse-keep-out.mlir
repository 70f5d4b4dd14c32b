// --sift-fuse{keep-out=...}: the named ops neither root a kernel nor fuse
// into one (the GPU pipeline keeps the ops with sift's block-level kernels
// out). The gather that reads the compaction still forms a row kernel; the
// compaction and the count stay whole, between kernels.
//
// RUN: tensor-opt %s --pass-pipeline='builtin.module(func.func(sift-fuse{keep-out=sift.compact,sift.count}))' | FileCheck %s
// RUN: tensor-opt %s --pass-pipeline='builtin.module(func.func(sift-fuse))' | FileCheck %s --check-prefix=ALL

// CHECK-LABEL: func.func @chain
// CHECK: %[[M:.*]] = linalg.generic
// CHECK: %{{.*}}, %[[N:.*]] = sift.compact %[[M]] : tensor<8x64xi1> -> tensor<8x16xi64>, tensor<8xi64>
// CHECK: sift.count %[[M]] : tensor<8x64xi1> -> tensor<8xi64>
// CHECK: scf.forall (%{{.*}}) in (8)
// CHECK: sift.gather {{.*}} : tensor<1x64xf32>, tensor<1x16xi64> -> tensor<1x16xf32>
// CHECK-NOT: sift.compact
// CHECK: return
// ALL-LABEL: func.func @chain
// ALL: scf.forall (%{{.*}}) in (8)
// ALL-DAG: sift.compact {{.*}} : tensor<1x64xi1> -> tensor<1x16xi64>, tensor<1xi64>
// ALL-DAG: sift.count {{.*}} : tensor<1x64xi1> -> tensor<1xi64>
// ALL-DAG: sift.gather {{.*}} : tensor<1x64xf32>, tensor<1x16xi64> -> tensor<1x16xf32>
func.func @chain(%x: tensor<8x64xi64>, %f: tensor<8x64xf32>)
    -> (tensor<8x16xf32>, tensor<8xi64>, tensor<8xi64>) {
  %zero = arith.constant dense<0> : tensor<8x64xi64>
  %m = arith.cmpi sgt, %x, %zero : tensor<8x64xi64>
  %idx, %n = sift.compact %m : tensor<8x64xi1> -> tensor<8x16xi64>, tensor<8xi64>
  %c = sift.count %m : tensor<8x64xi1> -> tensor<8xi64>
  %g = sift.gather %f[%idx] {batch_dims = 1 : i64}
      : tensor<8x64xf32>, tensor<8x16xi64> -> tensor<8x16xf32>
  return %g, %n, %c : tensor<8x16xf32>, tensor<8xi64>, tensor<8xi64>
}
