// The count and compact kernels compute a mask made element by element
// (`labels == 1`: one arith op on tensors, or a linalg.generic of arith
// code) from the mask's inputs where they read it, when nothing else reads
// the mask: the mask is no launch and no buffer of its own. The kernel
// call names the function of the inputs' elements (`mask_predicate`) and
// takes the inputs' buffers instead of the mask's. A row split across
// blocks computes the mask in its counting launch, which writes it (a bit
// an element: each warp's ballot) for the compacting launch to read. ctest
// conformance-gpu-kernels(-split) runs such masks (`computed_masks`: a
// compare with a splat, a compare of a tensor with itself, a compare of
// an and, an xor of two compares, a mask also counted) on the CPU
// execution of the kernels against NumPy.
//
// RUN: tensor-opt %s --convert-sift-to-gpu -split-input-file | FileCheck %s --check-prefix=CALL
// RUN: tensor-opt %s "--convert-sift-to-gpu=split-blocks=64 split-min=32" --sift-gpu-expand-kernels --canonicalize -split-input-file | FileCheck %s --check-prefix=SPLIT
// RUN: tensor-opt %s --convert-sift-to-gpu --sift-gpu-expand-kernels --canonicalize -split-input-file | FileCheck %s --check-prefix=ROW

// One arith op on tensors, with a splat constant: the function compares
// the element with the scalar.
// CALL-LABEL: func.func @compare
// CALL-NOT: arith.cmpi
// CALL: %[[X:.*]] = bufferization.to_buffer %arg0 read_only : tensor<4x300xi64> to memref<4x300xi64>
// CALL: call @__sift_gpu_compact(%[[X]], %{{.*}}, %{{.*}}) {fill = -1 : i64, mask_predicate = @[[PRED:__sift_gpu_mask[_0-9]*]], sift.gpu_kernel = "compact"} : (memref<4x300xi64>, memref<4x300xi32>, memref<4xi64>) -> ()
// CALL: func.func private @[[PRED]](%[[E:.*]]: i64) -> i1
// CALL-NEXT: %[[TWO:.*]] = arith.constant 2 : i64
// CALL-NEXT: %[[M:.*]] = arith.cmpi sgt, %[[E]], %[[TWO]] : i64
// CALL-NEXT: return %[[M]] : i1

// The counting launch computes the element and counts it; lane 0 of each
// warp stores the warp's ballot, the mask's 32 bits of the warp's elements,
// into [4, ceil(300 / 32)] words. The compacting launch reads the element's
// bit. The function goes.
// SPLIT-LABEL: func.func @compare
// SPLIT: %[[BITS:.*]] = memref.alloc() : memref<4x10xi32>
// SPLIT: gpu.launch
// SPLIT: %[[E:.*]] = tensor.extract %arg0[%{{.*}}, %{{.*}}] : tensor<4x300xi64>
// SPLIT-NEXT: %[[SET:.*]] = arith.cmpi sgt, %[[E]], %{{.*}} : i64
// SPLIT: gpu.shuffle xor
// SPLIT: gpu.lane_id
// SPLIT: scf.if
// SPLIT: %[[WORD:.*]] = arith.divui %{{.*}}, %c32 : index
// SPLIT-NEXT: memref.store %[[BALLOT:.*]], %[[BITS]][%{{.*}}, %[[WORD]]] : memref<4x10xi32>
// SPLIT: math.ctpop %[[BALLOT]]
// SPLIT: gpu.terminator
// SPLIT: gpu.launch
// SPLIT-NOT: tensor.extract %arg0
// SPLIT: %[[W:.*]] = memref.load %[[BITS]][%{{.*}}, %{{.*}}] : memref<4x10xi32>
// SPLIT: arith.shrui %[[W]]
// SPLIT: gpu.terminator
// SPLIT-NOT: gpu.launch
// SPLIT: return
// SPLIT-NOT: func.func private @__sift_gpu_mask
func.func @compare(%x: tensor<4x300xi64>) -> (tensor<4x300xi32>, tensor<4xi64>) {
  %two = arith.constant dense<2> : tensor<4x300xi64>
  %m = arith.cmpi sgt, %x, %two : tensor<4x300xi64>
  %i, %n = sift.compact %m : tensor<4x300xi1> -> tensor<4x300xi32>, tensor<4xi64>
  return %i, %n : tensor<4x300xi32>, tensor<4xi64>
}

// -----

// A linalg.generic (a batched program's form) of two inputs and a splat
// read through a broadcast, counted: one launch a row, no mask buffer.
// CALL-LABEL: func.func @generic_count
// CALL-NOT: linalg.generic
// CALL: call @__sift_gpu_count(%{{.*}}, %{{.*}}, %{{.*}}) {mask_predicate = @[[PRED:__sift_gpu_mask[_0-9]*]], sift.gpu_kernel = "count"} : (memref<8x100xf32>, memref<8x100xf32>, memref<8xi64>) -> ()
// CALL: func.func private @[[PRED]](%[[A:.*]]: f32, %[[B:.*]]: f32) -> i1
// CALL-NEXT: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CALL-NEXT: %[[D:.*]] = arith.subf %[[A]], %[[B]] : f32
// CALL-NEXT: %[[M:.*]] = arith.cmpf ogt, %[[D]], %[[HALF]] : f32
// CALL-NEXT: return %[[M]] : i1

// ROW-LABEL: func.func @generic_count
// ROW-NOT: memref<8x100xi1>
// ROW: gpu.launch
// ROW: tensor.extract %arg0
// ROW: tensor.extract %arg1
// ROW: arith.subf
// ROW: arith.cmpf ogt
// ROW: math.ctpop
// ROW: gpu.terminator
// ROW-NOT: gpu.launch
// ROW: return
// ROW-NOT: func.func private @__sift_gpu_mask
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @generic_count(%a: tensor<8x100xf32>, %b: tensor<8x100xf32>) -> tensor<8xi64> {
  %half = arith.constant dense<0.5> : tensor<100xf32>
  %e = tensor.empty() : tensor<8x100xi1>
  %m = linalg.generic {indexing_maps = [#id, #id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %half : tensor<8x100xf32>, tensor<8x100xf32>, tensor<100xf32>) outs(%e : tensor<8x100xi1>) {
  ^bb0(%x: f32, %y: f32, %h: f32, %out: i1):
    %d = arith.subf %x, %y : f32
    %c = arith.cmpf ogt, %d, %h : f32
    linalg.yield %c : i1
  } -> tensor<8x100xi1>
  %n = sift.count %m : tensor<8x100xi1> -> tensor<8xi64>
  return %n : tensor<8xi64>
}

// -----

// Left as masks: one read twice (a compaction and a count), and a generic
// with a tensor input read along a broadcast (not at the element's own
// indices).
// CALL-LABEL: func.func @kept
// CALL: %[[M:.*]] = arith.cmpi sgt
// CALL: %[[MB:.*]] = bufferization.to_buffer %[[M]]
// CALL: call @__sift_gpu_compact(%[[MB]], %{{.*}}, %{{.*}}) {fill = -1 : i64, sift.gpu_kernel = "compact"}
// CALL: call @__sift_gpu_count(%[[MB2:.*]], %{{.*}}) {sift.gpu_kernel = "count"}
// CALL: %[[W:.*]] = linalg.generic
// CALL: call @__sift_gpu_count_0(%{{.*}}, %{{.*}}) {sift.gpu_kernel = "count"}
// CALL-NOT: func.func private @__sift_gpu_mask
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @kept(%x: tensor<4x300xi64>, %row: tensor<300xi64>)
    -> (tensor<4x300xi32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  %two = arith.constant dense<2> : tensor<4x300xi64>
  %m = arith.cmpi sgt, %x, %two : tensor<4x300xi64>
  %i, %n = sift.compact %m : tensor<4x300xi1> -> tensor<4x300xi32>, tensor<4xi64>
  %c = sift.count %m : tensor<4x300xi1> -> tensor<4xi64>
  %e = tensor.empty() : tensor<4x300xi1>
  %w = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %row : tensor<4x300xi64>, tensor<300xi64>) outs(%e : tensor<4x300xi1>) {
  ^bb0(%a: i64, %r: i64, %out: i1):
    %s = arith.cmpi slt, %a, %r : i64
    linalg.yield %s : i1
  } -> tensor<4x300xi1>
  %wc = sift.count %w : tensor<4x300xi1> -> tensor<4xi64>
  return %i, %n, %c, %wc : tensor<4x300xi32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
}
