// --sift-loop-carried-in-place: an element-wise op that computes the next
// value of a tensor a loop carries reads it through its output, so that
// bufferization updates the loop's buffer in place; ops whose carried
// tensor is read later, through another map, or not yielded stay as they
// are.
//
// RUN: tensor-opt %s -split-input-file --sift-loop-carried-in-place | FileCheck %s
// RUN: tensor-opt %s -split-input-file --sift-loop-carried-in-place \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries allow-return-allocs-from-loops" \
// RUN:   --buffer-deallocation-pipeline --convert-bufferization-to-memref \
// RUN:   | FileCheck %s --check-prefix=BUF

#map = affine_map<(d0) -> (d0)>
#col = affine_map<(d0) -> (0)>

// A batched running sum (one lane a row, rows shorter than the loop keep
// their sum): the carried tensor becomes the output, the body reads it
// through the output's argument.
// CHECK-LABEL: func.func @running_sum
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<7xi64>)
// CHECK: %[[X:.*]] = tensor.extract_slice
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg1, %[[X]] : tensor<7xindex>, tensor<7xi64>)
// CHECK-SAME: outs(%[[ACC]] : tensor<7xi64>)
// CHECK-NEXT: ^bb0(%[[N:.*]]: index, %[[V:.*]]: i64, %[[A:.*]]: i64):
// CHECK: %[[S:.*]] = arith.addi %[[A]], %[[V]]
// CHECK: arith.select %{{.*}}, %[[S]], %[[A]]
// With bufferization: one buffer for the loop, no per-iteration allocation
// and no run-time ownership bookkeeping at the return.
// BUF-LABEL: func.func @running_sum
// BUF: memref.alloc
// BUF-NOT: memref.alloc
// BUF: scf.for
// BUF-NOT: memref.alloc
// BUF-NOT: scf.yield %{{.*}}, %{{.*}} : memref<7xi64>, i1
// BUF: return
// BUF-NOT: @dealloc_helper
func.func @running_sum(%x: tensor<7x16xi64>, %n: tensor<7xindex>) -> tensor<7xi64> {
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

// -----

#map = affine_map<(d0) -> (d0)>

// Two carried tensors updated by one op with two outputs: both outputs
// become the carried tensors, in the order the loop yields them.
// BUF-LABEL: func.func @two_carried
// CHECK-LABEL: func.func @two_carried
// CHECK: scf.for {{.*}} iter_args(%[[S:.*]] = %{{.*}}, %[[M:.*]] = %{{.*}})
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<8xf32>)
// CHECK-SAME: outs(%[[M]], %[[S]] : tensor<8xf32>, tensor<8xf32>)
func.func @two_carried(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant dense<0.0> : tensor<8xf32>
  %r:2 = scf.for %k = %c0 to %c4 step %c1 iter_args(%sum = %zero, %max = %zero) -> (tensor<8xf32>, tensor<8xf32>) {
    %e0 = tensor.empty() : tensor<8xf32>
    %e1 = tensor.empty() : tensor<8xf32>
    %next:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map, #map], iterator_types = ["parallel"]}
        ins(%x, %sum, %max : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e0, %e1 : tensor<8xf32>, tensor<8xf32>) {
    ^bb0(%v: f32, %s: f32, %m: f32, %o0: f32, %o1: f32):
      %a = arith.addf %s, %v : f32
      %b = arith.maximumf %m, %v : f32
      linalg.yield %b, %a : f32, f32
    } -> (tensor<8xf32>, tensor<8xf32>)
    scf.yield %next#1, %next#0 : tensor<8xf32>, tensor<8xf32>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>
#rev = affine_map<(d0) -> (7 - d0)>

// Not rewritten: the old value is read after the update (a copy either
// way); the carried tensor is read through another map than the output's
// (element i would read what element 7 - i already wrote); the result is
// not what the loop carries on (%nc: the loop carries %later as %c).
// CHECK-LABEL: func.func @stay
// CHECK-COUNT-4: outs(%{{.*}} : tensor<8xi32>)
// CHECK-NOT: outs(%arg
// CHECK: return
func.func @stay(%x: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant dense<0> : tensor<8xi32>
  %r:3 = scf.for %k = %c0 to %c4 step %c1 iter_args(%a = %zero, %b = %zero, %c = %zero) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) {
    %e0 = tensor.empty() : tensor<8xi32>
    %na = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
        ins(%x, %a : tensor<8xi32>, tensor<8xi32>) outs(%e0 : tensor<8xi32>) {
    ^bb0(%v: i32, %w: i32, %o: i32):
      %s = arith.addi %v, %w : i32
      linalg.yield %s : i32
    } -> tensor<8xi32>
    %e3 = tensor.empty() : tensor<8xi32>
    %later = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
        ins(%x, %a : tensor<8xi32>, tensor<8xi32>) outs(%e3 : tensor<8xi32>) {
    ^bb0(%v: i32, %w: i32, %o: i32):
      %s = arith.muli %v, %w : i32
      linalg.yield %s : i32
    } -> tensor<8xi32>
    %e1 = tensor.empty() : tensor<8xi32>
    %nb = linalg.generic {indexing_maps = [#map, #rev, #map], iterator_types = ["parallel"]}
        ins(%x, %b : tensor<8xi32>, tensor<8xi32>) outs(%e1 : tensor<8xi32>) {
    ^bb0(%v: i32, %w: i32, %o: i32):
      %s = arith.addi %v, %w : i32
      linalg.yield %s : i32
    } -> tensor<8xi32>
    %e2 = tensor.empty() : tensor<8xi32>
    %nc = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
        ins(%x, %c : tensor<8xi32>, tensor<8xi32>) outs(%e2 : tensor<8xi32>) {
    ^bb0(%v: i32, %w: i32, %o: i32):
      %s = arith.addi %v, %w : i32
      linalg.yield %s : i32
    } -> tensor<8xi32>
    scf.yield %na, %nb, %later : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>
  }
  return %r#0, %r#1, %r#2 : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>
}
