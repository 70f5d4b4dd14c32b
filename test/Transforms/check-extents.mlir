// --sift-check-extents: before a linalg op on the calling thread, each pair
// of operand extents the op requires equal is compared at run time; a
// mismatch calls sift_rt_fail(9, extent, extent, source line). Static pairs
// (checked by the verifier) and ops in parallel loops are left alone.
//
// RUN: tensor-opt %s -split-input-file --sift-check-extents | FileCheck %s

// CHECK-LABEL: func.func @two_dynamic
// CHECK: %[[A:.*]] = tensor.dim %arg0, %{{.*}}
// CHECK: %[[AI:.*]] = arith.index_cast %[[A]] : index to i64
// CHECK: %[[B:.*]] = tensor.dim %arg1, %{{.*}}
// CHECK: %[[BI:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK: %[[NE:.*]] = arith.cmpi ne, %[[AI]], %[[BI]] : i64
// CHECK: scf.if %[[NE]] {
// CHECK:   %[[CODE:.*]] = arith.constant 9 : i64
// CHECK:   %[[LINE:.*]] = arith.constant [[# @LINE + 6]] : i64
// CHECK:   func.call @sift_rt_fail(%[[CODE]], %[[AI]], %[[BI]], %[[LINE]])
// CHECK: }
// CHECK: linalg.add
// CHECK: func.func private @sift_rt_fail(i64, i64, i64, i64)
func.func @two_dynamic(%a: tensor<?xf32>, %b: tensor<?xf32>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.add ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%o : tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @all_static
// CHECK-NOT: scf.if
// CHECK-NOT: sift_rt_fail
func.func @all_static(%a: tensor<8xf32>, %b: tensor<8xf32>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.add ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%o : tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @in_forall
// CHECK-NOT: sift_rt_fail
func.func @in_forall(%a: tensor<4x?xf32>, %b: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %r = scf.forall (%i) in (4) shared_outs(%out = %a) -> (tensor<4x?xf32>) {
    %c1 = arith.constant 1 : index
    %n = tensor.dim %a, %c1 : tensor<4x?xf32>
    %x = tensor.extract_slice %a[%i, 0] [1, %n] [1, 1] : tensor<4x?xf32> to tensor<?xf32>
    %y = tensor.extract_slice %b[%i, 0] [1, %n] [1, 1] : tensor<4x?xf32> to tensor<?xf32>
    %s = linalg.add ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%x : tensor<?xf32>) -> tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %out[%i, 0] [1, %n] [1, 1] : tensor<?xf32> into tensor<4x?xf32>
    }
  }
  return %r : tensor<4x?xf32>
}
