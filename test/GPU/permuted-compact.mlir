// A compaction whose indices only a gather through a permutation of its
// count reads, `nonzero(m)[randperm(len(idx))[:k]]` (the sampler's
// groups: `sift.gather %i[%p]` with `%p = sift.randperm_prefix %count,
// ...`), becomes one compact kernel that writes the gather's result: each
// set element goes to its lane of the inverse Feistel permutation, and no
// indices are written or gathered (on the batched sampler at N = 1e6, 230
// MB of 1.14 GB). The permutation's limit masks the lanes after the kernel
// (an element-wise op that fuses into what reads them). The kernel call
// takes the permutation's seed and offset (an i64, or a buffer of one per
// row) and the compaction's K (`permute_k`). A row in one block counts its
// set elements first (the permutation is of their count); a split row has
// the count from its first launch. ctest conformance-gpu-kernels(-split,
// -threads64) runs such programs (`compact/permuted_*`) on the CPU
// execution of the kernels against NumPy.
//
// RUN: tensor-opt %s --convert-sift-to-gpu --canonicalize -split-input-file | FileCheck %s --check-prefix=CALL
// RUN: tensor-opt %s --convert-sift-to-gpu --sift-gpu-expand-kernels --canonicalize -split-input-file | FileCheck %s --check-prefix=ROW
// RUN: tensor-opt %s "--convert-sift-to-gpu=split-blocks=64 split-min=32" --sift-gpu-expand-kernels --canonicalize -split-input-file | FileCheck %s --check-prefix=SPLIT

// Per-row seeds, a constant offset defined after the compaction (cloned
// before it), per-row limits and a fill: the kernel writes [4, 64] i32
// lanes, the limit's mask reads them.
// CALL-LABEL: func.func @batched
// CALL-SAME: (%[[M:.*]]: tensor<4x300xi1>, %[[SEEDS:.*]]: tensor<4xi64>, %[[LIM:.*]]: tensor<4xindex>)
// CALL-NOT: sift.
// CALL-DAG: %[[OFF:.*]] = arith.constant 3 : i64
// CALL-DAG: %[[OUT:.*]] = memref.alloc() : memref<4x64xi32>
// CALL-DAG: %[[LANES:.*]] = bufferization.to_tensor %[[OUT]]
// CALL-DAG: %[[S:.*]] = bufferization.to_buffer %[[SEEDS]] read_only
// CALL: call @__sift_gpu_compact(%{{.*}}, %[[OUT]], %[[COUNT:.*]], %[[S]], %[[OFF]]) {fill = 9 : i64, permute_k = 300 : i64, sift.gpu_kernel = "compact"} : (memref<4x300xi1>, memref<4x64xi32>, memref<4xi64>, memref<4xi64>, i64) -> ()
// CALL: %[[G:.*]] = linalg.generic {{.*}} ins(%[[LANES]], %[[LIM]] : tensor<4x64xi32>, tensor<4xindex>)
// CALL: %[[LANE:.*]] = linalg.index 1 : index
// CALL: %[[BELOW:.*]] = arith.cmpi slt, %[[LANE]], %{{.*}} : index
// CALL: arith.select %[[BELOW]], %{{.*}}, %c9_i32 : i32
// CALL: return %[[G]], %{{.*}} : tensor<4x64xi32>, tensor<4xi64>
// CALL-NOT: sift.randperm_prefix
func.func @batched(%m: tensor<4x300xi1>, %seeds: tensor<4xi64>, %lim: tensor<4xindex>) -> (tensor<4x64xi32>, tensor<4xi64>) {
  %i, %n = sift.compact %m unpadded : tensor<4x300xi1> -> tensor<4x300xi32>, tensor<4xi64>
  %ni = arith.index_cast %n : tensor<4xi64> to tensor<4xindex>
  %off = arith.constant 3 : i64
  %p = sift.randperm_prefix %ni, %seeds offset %off limit %lim : (tensor<4xindex>, tensor<4xi64>, i64, tensor<4xindex>) -> tensor<4x64xi64>
  %g = sift.gather %i[%p] {batch_dims = 1 : i64, fill = 9 : i32} : tensor<4x300xi32>, tensor<4x64xi64> -> tensor<4x64xi32>
  return %g, %n : tensor<4x64xi32>, tensor<4xi64>
}

// -----
// A 1-D mask, its count extracted, a scalar seed and no offset (0): the
// kernel's [1, 100] rows are a view of the result's buffer (no reshape of
// the tensor). One block counts the row's set elements, computes the
// row's round keys and domain, then compacts: each set element walks the
// inverse permutation (an scf.while) and is stored at its lane below 100;
// the lanes from min(count, 100) get the fill.
// CALL-LABEL: func.func @rank1
// CALL-SAME: (%{{.*}}: tensor<500xi1>, %[[SEED:.*]]: i64)
// CALL-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CALL-DAG: %[[OUT:.*]] = memref.alloc() : memref<100xi64>
// CALL-DAG: %[[RESULT:.*]] = bufferization.to_tensor %[[OUT]]
// CALL-DAG: %[[ROWS:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1]] output_shape [1, 100] : memref<100xi64> into memref<1x100xi64>
// CALL: call @__sift_gpu_compact(%{{.*}}, %[[ROWS]], %{{.*}}, %[[SEED]], %[[ZERO]]) {fill = 0 : i64, permute_k = 500 : i64, sift.gpu_kernel = "compact"}
// CALL: return %[[RESULT]] : tensor<100xi64>
// ROW-LABEL: func.func @rank1
// ROW: gpu.launch
// ROW: math.ctpop
// ROW: math.ctpop
// ROW: scf.while
// ROW: arith.cmpi ult, %{{.*}}, %c100_i32 : i32
// ROW: memref.store %{{.*}}, %{{.*}}[%c0, %{{.*}}] : memref<1x100xi64>
// ROW: gpu.terminator
// ROW-NOT: gpu.launch
// ROW: return
func.func @rank1(%m: tensor<500xi1>, %seed: i64) -> tensor<100xi64> {
  %i, %n = sift.compact %m unpadded : tensor<500xi1> -> tensor<500xi64>, tensor<i64>
  %e = tensor.extract %n[] : tensor<i64>
  %ni = arith.index_cast %e : i64 to index
  %p = sift.randperm_prefix %ni, %seed : (index, i64) -> tensor<100xi64>
  %g = sift.gather %i[%p] : tensor<500xi64>, tensor<100xi64> -> tensor<100xi64>
  return %g : tensor<100xi64>
}

// -----
// The count cast element by element in a linalg.generic (as --sift-batch
// writes it), batch dimensions of rank 2 with seeds of the lines' shape
// (a buffer of the 6 rows), rows split across blocks: the first launch
// counts each segment, the second sums the row's segments (the
// permutation's domain) and walks the inverse permutation.
// CALL-LABEL: func.func @lines
// CALL: memref.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : memref<2x3x50xi64> into memref<6x50xi64>
// CALL: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<2x3xi64> into tensor<6xi64>
// CALL: call @__sift_gpu_compact({{.*}}) {fill = 0 : i64, permute_k = 200 : i64, sift.gpu_kernel = "compact"} : (memref<6x200xi1>, memref<6x50xi64>, memref<6xi64>, memref<6xi64>, i64) -> ()
// SPLIT-LABEL: func.func @lines
// SPLIT: gpu.launch
// SPLIT-NOT: scf.while
// SPLIT: gpu.terminator
// SPLIT: gpu.launch
// SPLIT: scf.while
// SPLIT: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<6x50xi64>
// SPLIT: gpu.terminator
// SPLIT-NOT: gpu.launch
// SPLIT: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @lines(%m: tensor<2x3x200xi1>, %seeds: tensor<2x3xi64>) -> tensor<2x3x50xi64> {
  %i, %n = sift.compact %m : tensor<2x3x200xi1> -> tensor<2x3x200xi64>, tensor<2x3xi64>
  %z = tensor.empty() : tensor<2x3xindex>
  %ni = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%n : tensor<2x3xi64>) outs(%z : tensor<2x3xindex>) {
  ^bb0(%a: i64, %b: index):
    %c = arith.index_cast %a : i64 to index
    linalg.yield %c : index
  } -> tensor<2x3xindex>
  %p = sift.randperm_prefix %ni, %seeds : (tensor<2x3xindex>, tensor<2x3xi64>) -> tensor<2x3x50xi64>
  %g = sift.gather %i[%p] {batch_dims = 2 : i64} : tensor<2x3x200xi64>, tensor<2x3x50xi64> -> tensor<2x3x50xi64>
  return %g : tensor<2x3x50xi64>
}

// -----
// Not fused: the indices are also returned; the permutation is of another
// length than the count; the seed is computed after the compaction (from
// the count). Each stays a compaction and a gather.
// CALL-LABEL: func.func @also_returned
// CALL: call @__sift_gpu_compact({{.*}}) {fill = -1 : i64, sift.gpu_kernel = "compact"}
// CALL: sift.gather
func.func @also_returned(%m: tensor<300xi1>, %seed: i64) -> (tensor<50xi64>, tensor<300xi64>) {
  %i, %n = sift.compact %m : tensor<300xi1> -> tensor<300xi64>, tensor<i64>
  %e = tensor.extract %n[] : tensor<i64>
  %ni = arith.index_cast %e : i64 to index
  %p = sift.randperm_prefix %ni, %seed : (index, i64) -> tensor<50xi64>
  %g = sift.gather %i[%p] : tensor<300xi64>, tensor<50xi64> -> tensor<50xi64>
  return %g, %i : tensor<50xi64>, tensor<300xi64>
}

// -----
// CALL-LABEL: func.func @other_length
// CALL: call @__sift_gpu_compact({{.*}}) {fill = -1 : i64, sift.gpu_kernel = "compact"}
// CALL: sift.gather
func.func @other_length(%m: tensor<300xi1>, %seed: i64, %len: index) -> tensor<50xi64> {
  %i, %n = sift.compact %m : tensor<300xi1> -> tensor<300xi64>, tensor<i64>
  %p = sift.randperm_prefix %len, %seed : (index, i64) -> tensor<50xi64>
  %g = sift.gather %i[%p] : tensor<300xi64>, tensor<50xi64> -> tensor<50xi64>
  return %g : tensor<50xi64>
}

// -----
// CALL-LABEL: func.func @seed_after
// CALL: call @__sift_gpu_compact({{.*}}) {fill = -1 : i64, sift.gpu_kernel = "compact"}
// CALL: sift.gather
func.func @seed_after(%m: tensor<300xi1>) -> tensor<50xi64> {
  %i, %n = sift.compact %m : tensor<300xi1> -> tensor<300xi64>, tensor<i64>
  %e = tensor.extract %n[] : tensor<i64>
  %ni = arith.index_cast %e : i64 to index
  %p = sift.randperm_prefix %ni, %e : (index, i64) -> tensor<50xi64>
  %g = sift.gather %i[%p] : tensor<300xi64>, tensor<50xi64> -> tensor<50xi64>
  return %g : tensor<50xi64>
}
