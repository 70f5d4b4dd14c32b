// A batched program's loop over a row's elements (a running sum, one lane a
// row; --sift-batch makes it of the per-sample scf.for) carries a tensor.
// Through the GPU pipeline each step is a kernel that updates the carried
// buffer in place (--sift-loop-carried-in-place): no buffer is allocated
// per iteration, and no deallocation helper compares buffer addresses on the
// host at the return (it used to, which --sift-verify-gpu rejects as host
// allocations and stores between kernels).
//
// RUN: tensor-opt %s --sift-gpu-pipeline="chip=sm_90 format=isa" | FileCheck %s

// Device buffers: the two inputs and the carried sum, then one kernel a
// step (the loop's 16 steps, unrolled) with no allocation or free between.
// CHECK-NOT: dealloc_helper
// CHECK-LABEL: llvm.func @running_sums(
// CHECK-COUNT-3: llvm.call @mgpuMemAlloc
// CHECK-NOT: llvm.call @mgpuMem{{Alloc|Free}}
// CHECK-COUNT-16: gpu.launch_func
// CHECK-NOT: llvm.call @mgpuMem{{Alloc|Free}}
// CHECK: llvm.call @mgpuStreamSynchronize
// CHECK-NOT: dealloc_helper
#map = affine_map<(d0) -> (d0)>
func.func @running_sums(%x: tensor<7x16xi64>, %n: tensor<7xindex>) -> tensor<7xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant dense<0> : tensor<7xi64>
  %r = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (tensor<7xi64>) {
    %col = tensor.extract_slice %x[0, %k] [7, 1] [1, 1] : tensor<7x16xi64> to tensor<7xi64>
    %e = tensor.empty() : tensor<7xi64>
    %next = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
        ins(%n, %acc, %col : tensor<7xindex>, tensor<7xi64>, tensor<7xi64>) outs(%e : tensor<7xi64>) {
    ^bb0(%len: index, %a: i64, %v: i64, %o: i64):
      %s = arith.addi %a, %v : i64
      %in = arith.cmpi slt, %k, %len : index
      %y = arith.select %in, %s, %a : i64
      linalg.yield %y : i64
    } -> tensor<7xi64>
    scf.yield %next : tensor<7xi64>
  }
  return %r : tensor<7xi64>
}
