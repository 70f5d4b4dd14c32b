// --sift-eliminate-alloc-tensors: a value computed into an allocation of
// its own and then inserted into a slice (a kernel's row result) is
// computed in the slice; an allocation whose value is not inserted, or one
// with a copy, stays.
//
// RUN: tensor-opt %s -split-input-file --sift-eliminate-alloc-tensors | FileCheck %s
// Without routine-buffers (pipelines that inline routines: the GPU's), a
// routine's result is computed in the slice too.
// RUN: tensor-opt %s -split-input-file '--sift-eliminate-alloc-tensors=routine-buffers=false' | FileCheck %s --check-prefix=INLINED
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

// -----

#id2 = affine_map<(d0) -> (d0)>

// A routine's region (a sort, top-k or compaction the lowering built to be
// outlined: an scf.execute_region named sift.routine.<name>) keeps its own
// result buffer even where the result is then inserted into a slice, so
// that the routine is the same function wherever its result goes
// (--sift-outline-lines): the batched sampler's two radix argsorts of K
// keys, one inside its top-k routines and one writing a row of the
// result, are one function. The insert copies the row. The same
// computation outside a routine is computed in the slice.
// CHECK-LABEL: func.func @routine_result
// CHECK: scf.execute_region
// CHECK: bufferization.alloc_tensor() : tensor<64xf32>
// CHECK: linalg.generic
// CHECK: tensor.insert_slice
// CHECK: %[[ROW:.*]] = tensor.extract_slice
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[ROW]] : tensor<64xf32>)
// INLINED-LABEL: func.func @routine_result
// INLINED: scf.execute_region
// INLINED-NEXT: %[[ROW:.*]] = tensor.extract_slice
// INLINED: linalg.generic
// INLINED-SAME: outs(%[[ROW]] : tensor<64xf32>)
// BUF-LABEL: func.func @routine_result
// BUF: memref.copy
// BUF-NOT: memref.copy
// BUF: return
func.func @routine_result(%x: tensor<64xf32>) -> tensor<2x64xf32> {
  %init = bufferization.alloc_tensor() : tensor<2x64xf32>
  %y = scf.execute_region -> tensor<64xf32> no_inline {
    %row = bufferization.alloc_tensor() : tensor<64xf32>
    %z = linalg.generic {indexing_maps = [#id2, #id2],
                         iterator_types = ["parallel"]}
        ins(%x : tensor<64xf32>) outs(%row : tensor<64xf32>) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.mulf %a, %a : f32
      linalg.yield %s : f32
    } -> tensor<64xf32>
    scf.yield %z : tensor<64xf32>
  } loc("sift.routine.square")
  %r0 = tensor.insert_slice %y into %init[0, 0] [1, 64] [1, 1]
      : tensor<64xf32> into tensor<2x64xf32>
  %row1 = bufferization.alloc_tensor() : tensor<64xf32>
  %w = linalg.generic {indexing_maps = [#id2, #id2],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%row1 : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %r1 = tensor.insert_slice %w into %r0[1, 0] [1, 64] [1, 1]
      : tensor<64xf32> into tensor<2x64xf32>
  return %r1 : tensor<2x64xf32>
}

// -----

// A concatenation of two values computed into allocations of their own:
// each is computed in its slice of the concatenation, and nothing is
// copied once bufferized.
// CHECK-LABEL: func.func @concat
// CHECK-NOT: tensor.concat
// CHECK: %[[E:.*]] = bufferization.alloc_tensor() : tensor<96xf32>
// CHECK: %[[LO:.*]] = tensor.extract_slice %[[E]][0] [64] [1]
// CHECK: %[[A:.*]] = linalg.generic {{.*}} outs(%[[LO]] : tensor<64xf32>)
// CHECK: %[[C1:.*]] = tensor.insert_slice %[[A]] into %[[E]][0] [64] [1]
// CHECK: %[[HI:.*]] = tensor.extract_slice %[[C1]][64] [32] [1]
// CHECK: %[[B:.*]] = linalg.generic {{.*}} outs(%[[HI]] : tensor<32xf32>)
// CHECK: tensor.insert_slice %[[B]] into %[[C1]][64] [32] [1]
// BUF-LABEL: func.func @concat
// BUF-NOT: memref.copy
// BUF: return
#id1 = affine_map<(d0) -> (d0)>
func.func @concat(%x: tensor<64xf32>, %y: tensor<32xf32>) -> tensor<96xf32> {
  %ia = bufferization.alloc_tensor() : tensor<64xf32>
  %a = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%ia : tensor<64xf32>) {
  ^bb0(%u: f32, %v: f32):
    %s = arith.mulf %u, %u : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %ib = bufferization.alloc_tensor() : tensor<32xf32>
  %b = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%y : tensor<32xf32>) outs(%ib : tensor<32xf32>) {
  ^bb0(%u: f32, %v: f32):
    %s = arith.addf %u, %u : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %c = tensor.concat dim(0) %a, %b : (tensor<64xf32>, tensor<32xf32>) -> tensor<96xf32>
  return %c : tensor<96xf32>
}
