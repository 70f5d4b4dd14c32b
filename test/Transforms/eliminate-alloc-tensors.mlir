// --sift-eliminate-alloc-tensors: a value computed into an allocation of
// its own and then inserted into a slice (a kernel's row result) is
// computed in the slice; an allocation whose value is not inserted, or one
// with a copy, stays.
//
// RUN: tensor-opt %s -split-input-file --sift-eliminate-alloc-tensors | FileCheck %s
// Bufferized (and the self-copy of the slice folded, as the pipelines do),
// the kernel writes its rows in place: no copy is left.
// RUN: tensor-opt %s -split-input-file --sift-eliminate-alloc-tensors \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" -cse -canonicalize \
// RUN:   | FileCheck %s --check-prefix=BUF

#id = affine_map<(d0) -> (d0)>

// A kernel over 8 rows whose row result is computed into an allocation and
// inserted into the kernel's result: computed in the result's row.
// CHECK-LABEL: func.func @row_result
// CHECK: scf.forall (%[[R:.*]]) in (8) shared_outs(%[[OUT:.*]] = %{{.*}})
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[OUT]][%[[R]], 0] [1, 64] [1, 1]
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[ROW]] : tensor<64xf32>)
// CHECK: tensor.parallel_insert_slice
// BUF-LABEL: func.func @row_result
// BUF-NOT: memref.copy
// BUF: return
func.func @row_result(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %init = bufferization.alloc_tensor() : tensor<8x64xf32>
  %r = scf.forall (%i) in (8) shared_outs(%out = %init) -> (tensor<8x64xf32>) {
    %in = tensor.extract_slice %x[%i, 0] [1, 64] [1, 1]
        : tensor<8x64xf32> to tensor<64xf32>
    %row = bufferization.alloc_tensor() : tensor<64xf32>
    %y = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel"]}
        ins(%in : tensor<64xf32>) outs(%row : tensor<64xf32>) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.mulf %a, %a : f32
      linalg.yield %s : f32
    } -> tensor<64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %y into %out[%i, 0] [1, 64] [1, 1]
          : tensor<64xf32> into tensor<8x64xf32>
    }
  }
  return %r : tensor<8x64xf32>
}

// -----

// Returned whole, the value is not inserted anywhere: the allocation stays;
// so does one that copies.
// CHECK-LABEL: func.func @kept
// CHECK: bufferization.alloc_tensor() : tensor<64xf32>
// CHECK: bufferization.alloc_tensor() copy(%arg0)
func.func @kept(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %cst = arith.constant 1.0 : f32
  %e = bufferization.alloc_tensor() : tensor<64xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %c = bufferization.alloc_tensor() copy(%x) : tensor<64xf32>
  return %f, %c : tensor<64xf32>, tensor<64xf32>
}
