// The CPU pipeline forms kernels over rows of any size (fuse-max-row-bytes
// defaults to 0: no limit): 2 rows of 4 x 10^7 elements, each moving about
// 200 MB unfused (the compaction and the gather), are one kernel, an
// scf.forall over the rows around the row's ops; with the pass's own limit
// of 64 MiB, no kernel forms.
//
// RUN: tensor-opt %s --sift-cpu-pipeline --mlir-print-ir-after=sift-fuse --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s
// RUN: tensor-opt %s '--sift-cpu-pipeline=fuse-max-row-bytes=67108864' --mlir-print-ir-after=sift-fuse --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT

// CHECK-LABEL: func.func @big_rows
// CHECK: scf.forall (%{{.*}}) in (2)
// CHECK: sift.compact {{.*}} : tensor<1x40000000xi1>
// CHECK: sift.gather
// CHECK: scf.forall.in_parallel
// LIMIT-LABEL: func.func @big_rows
// LIMIT-NOT: scf.forall
// LIMIT: sift.compact {{.*}} : tensor<2x40000000xi1>
// LIMIT-NOT: scf.forall
// LIMIT: return
func.func @big_rows(%x: tensor<2x40000000xi64>, %f: tensor<2x40000000xf32>)
    -> (tensor<2x1000xf32>, tensor<2xi64>) {
  %zero = arith.constant dense<0> : tensor<2x40000000xi64>
  %m = arith.cmpi sgt, %x, %zero : tensor<2x40000000xi64>
  %idx, %n = sift.compact %m : tensor<2x40000000xi1> -> tensor<2x1000xi64>, tensor<2xi64>
  %g = sift.gather %f[%idx] {batch_dims = 1 : i64}
      : tensor<2x40000000xf32>, tensor<2x1000xi64> -> tensor<2x1000xf32>
  return %g, %n : tensor<2x1000xf32>, tensor<2xi64>
}
