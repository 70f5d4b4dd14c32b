// sift.nonzero, sift.masked_select and sift.sample_balanced through sift's
// kernels (convert-sift-to-gpu, sift-gpu-expand-kernels), composed from the
// existing ones as unique and randperm are (sift-kernels-unique.mlir).
// nonzero: an elementwise "!= 0" mask (none for i1), the compact kernel's
// stable compaction of the flattened input, elementwise row-major
// coordinates for a rank above 1. masked_select: the compact kernel of the
// flattened mask, an elementwise gather of the selected sub-tensors. Both
// are sliced to the compaction's count, read on the host. sample_balanced:
// the CPU's Philox keys (the philox_words kernel: a block of 4 words per
// thread), the argsort kernel of the words as unsigned, the classes in key order (elementwise), one compact kernel per
// class (its first K items in key order), the samples and counts
// (elementwise). No sequential loop is left. Each result equals the CPU
// lowering's; ctest conformance-gpu-kernels checks them against NumPy.
//
// RUN: tensor-opt %s --convert-sift-to-gpu | FileCheck %s --check-prefix=CALLS
// RUN: tensor-opt %s --convert-sift-to-gpu --sift-gpu-expand-kernels | FileCheck %s --check-prefix=LAUNCH

// CALLS-LABEL: func.func @nonzero_f32
// -0.0 is zero, NaN is not.
// CALLS: arith.cmpf une
// CALLS: linalg.yield %{{.*}} : i1
// CALLS: call @__sift_gpu_compact{{(_[0-9]+)?}}({{.*}}) {fill = -1 : i64, sift.gpu_kernel = "compact"} : (memref<1x200xi1>, memref<1x200xi64>, memref<1xi64>) -> ()
// CALLS: %[[C:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CALLS: %[[COUNT:.*]] = arith.index_cast %[[C]] : i64 to index
// CALLS: %[[R:.*]] = tensor.extract_slice %{{.*}}[0] [%[[COUNT]]] [1] : tensor<200xi64> to tensor<?xi64>
// CALLS: return %[[R]]
// CALLS-LABEL: func.func @nonzero_3d_i1
// An i1 input is its own mask.
// CALLS-NOT: linalg.generic
// CALLS: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<3x4x5xi1> into tensor<60xi1>
// CALLS: sift.gpu_kernel = "compact"
// CALLS: %[[COUNT:.*]] = arith.index_cast
// The coordinates of each compacted lane (the fill -1 reads lane 0).
// CALLS: %[[COORDS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<60x3xi64>)
// CALLS: arith.maxsi
// CALLS: arith.divui %{{.*}}, %c20_i64
// CALLS: %[[R:.*]] = tensor.extract_slice %[[COORDS]][0, 0] [%[[COUNT]], 3] [1, 1] : tensor<60x3xi64> to tensor<?x3xi64>
// CALLS: return %[[R]]
// CALLS-LABEL: func.func @masked_select_lead2
// CALLS: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<4x5xi1> into tensor<20xi1>
// CALLS: call @__sift_gpu_compact_{{[0-9]+}}({{.*}}) {fill = -1 : i64, sift.gpu_kernel = "compact"} : (memref<1x20xi1>, memref<1x20xi64>, memref<1xi64>) -> ()
// CALLS: %[[COUNT:.*]] = arith.index_cast
// CALLS: %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<4x5x3xf64> into tensor<20x3xf64>
// CALLS: %[[G:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<20x3xf64>)
// CALLS: tensor.extract %[[X]]
// CALLS: %[[R:.*]] = tensor.extract_slice %[[G]][0, 0] [%[[COUNT]], 3] [1, 1] : tensor<20x3xf64> to tensor<?x3xf64>
// CALLS: return %[[R]]
// CALLS-LABEL: func.func @masked_select_full
// CALLS: sift.gpu_kernel = "compact"
// CALLS: linalg.generic {{.*}} outs(%{{.*}} : tensor<100xi32>)
// CALLS: tensor.extract_slice %{{.*}}[0] [%{{.*}}] [1] : tensor<100xi32> to tensor<?xi32>
// CALLS-LABEL: func.func @sample_balanced_seed_tensors
// CALLS: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x3x300xi32> into tensor<6x300xi32>
// The keys: row (p, q) takes seed[p] and stream offset[p] + q, p = r / 3
// (the philox_words kernel, RandomKernels.cpp).
// CALLS: call @__sift_gpu_philox_words(%{{.*}}, %{{.*}}, %{{.*}}) {rows_per_seed = 3 : i64, sift.gpu_kernel = "philox_words"} : (memref<6x300xi32>, memref<2xi64>, memref<2xi64>) -> ()
// The words sorted as unsigned: no sign bit flipped.
// CALLS-NOT: arith.xori %{{.*}}, %c-2147483648_i32 : i32
// CALLS: call @__sift_gpu_argsort({{.*}}) {sift.gpu_kernel = "argsort", unsigned} : (memref<6x300xi32>, memref<6x300xi64>) -> ()
// Both classes in one elementwise op.
// CALLS: linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<6x300xi1>, tensor<6x300xi1>)
// K = floor(24 * 0.25) positives, K = 24 negatives.
// CALLS: sift.gpu_kernel = "compact"} : (memref<6x300xi1>, memref<6x6xi64>, memref<6xi64>) -> ()
// CALLS: sift.gpu_kernel = "compact"} : (memref<6x300xi1>, memref<6x24xi64>, memref<6xi64>) -> ()
// CALLS: %[[S:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<6x24xi64>)
// CALLS: %[[N:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<6xi64>)
// CALLS: %[[SR:.*]] = tensor.expand_shape %[[S]] {{\[}}[0, 1], [2]] output_shape [2, 3, 24] : tensor<6x24xi64> into tensor<2x3x24xi64>
// CALLS: %[[NR:.*]] = tensor.expand_shape %[[N]] {{\[}}[0, 1]] output_shape [2, 3] : tensor<6xi64> into tensor<2x3xi64>
// CALLS: return %[[SR]], %[[NR]]
// CALLS-NOT: sift.
// CALLS-LABEL: func.func @sample_balanced_no_positives
// positive_fraction 0: no positive compaction. One row: the seed and the
// offset as they are.
// CALLS: call @__sift_gpu_philox_words_{{[0-9]+}}(%{{.*}}, %{{.*}}, %{{.*}}) {rows_per_seed = 1 : i64, sift.gpu_kernel = "philox_words"} : (memref<1x50xi32>, i64, i64) -> ()
// CALLS: sift.gpu_kernel = "argsort"
// CALLS: sift.gpu_kernel = "compact"} : (memref<1x50xi1>, memref<1x16xi64>, memref<1xi64>) -> ()
// CALLS-NOT: sift.gpu_kernel
// CALLS: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<1x16xi64> into tensor<16xi64>
// CALLS: tensor.collapse_shape %{{.*}} [] : tensor<1xi64> into tensor<i64>
// CALLS-LABEL: func.func @nonzero_dynamic
// A dynamic input: its mask, the compaction of its n elements into n slots
// (the call made directly: sift.compact's K is static; a row that may be
// long, split across blocks in segments of a run-time length; longer than
// the kernel's i32 positions, the run-time error that ends the call), the
// coordinates from the extents, sliced to the count.
// CALLS: linalg.generic
// CALLS: %[[LONG:.*]] = arith.cmpi ugt, %{{.*}}, %c2147483647 : index
// CALLS: scf.if %[[LONG]]
// CALLS: func.call @sift_rt_fail(%c12_i64,
// CALLS: segments = 2048 : i64, sift.gpu_kernel = "compact"} : (memref<1x?xi1>, memref<1x?xi64>, memref<1xi64>, memref<2048xi32>) -> ()
// CALLS: %[[COUNT:.*]] = arith.index_cast %{{.*}} : i64 to index
// CALLS: %[[DIM1:.*]] = tensor.dim %{{.*}}, %c1{{(_[0-9]+)?}} : tensor<?x?xi64>
// CALLS: arith.index_cast %[[DIM1]] : index to i64
// CALLS: arith.remui
// CALLS: tensor.extract_slice %{{.*}}[0, 0] [%[[COUNT]], 2] [1, 1] : tensor<?x2xi64> to tensor<?x2xi64>
// CALLS-NOT: sift.nonzero
// CALLS-LABEL: func.func @masked_select_dynamic
// The mask's extents against the input's leading ones (on the host), then
// as above.
// CALLS: call @sift_rt_fail
// CALLS: sift.gpu_kernel = "compact"} : (memref<1x?xi1>, memref<1x?xi64>, memref<1xi64>, memref<2048xi32>) -> ()
// CALLS: linalg.generic
// CALLS-NOT: sift.masked_select
// CALLS-LABEL: func.func @sample_balanced_dynamic
// Labels of a run-time N: the keys and the argsort of rows of N, then one
// compaction per class into K = posCap (4) and num_samples (8) lanes, each
// row checked against the kernel's i32 positions (K may exceed N: lanes
// past N are the fill); the permutation is read only at a filled lane.
// CALLS: sift.gpu_kernel = "philox_words"} : (memref<1x?xi32>, i64, i64) -> ()
// CALLS: sift.gpu_kernel = "argsort", unsigned} : (memref<1x?xi32>, memref<1x?xi64>
// CALLS: linalg.generic
// CALLS: func.call @sift_rt_fail(%c12_i64,
// CALLS: sift.gpu_kernel = "compact"} : (memref<1x?xi1>, memref<1x4xi64>, memref<1xi64>, memref<2048xi32>) -> ()
// CALLS: func.call @sift_rt_fail(%c12_i64,
// CALLS: sift.gpu_kernel = "compact"} : (memref<1x?xi1>, memref<1x8xi64>, memref<1xi64>, memref<2048xi32>) -> ()
// CALLS: linalg.generic
// CALLS: %[[AT:.*]] = tensor.extract %{{.*}} : tensor<1x8xi64>
// CALLS: %[[FILLED:.*]] = arith.cmpi sge, %[[AT]], %c0_i64{{(_[0-9]+)?}} : i64
// CALLS: scf.if %[[FILLED]] -> (i64)
// CALLS: tensor.extract %{{.*}} : tensor<1x?xi64>
// CALLS-NOT: sift.sample_balanced
// CALLS-LABEL: func.func @left_alone
// CALLS: sift.masked_select %{{.*}}, %{{.*}} : tensor<0x3xf32>, tensor<0xi1> -> tensor<?x3xf32>
// Per-row seeds over rows of one seed of a dynamic extent: the linalg
// lowering's kernel per row.
// CALLS: sift.sample_balanced %{{.*}}, %{{.*}} {num_samples = 8 : i64} : tensor<2x?x?xi64>, tensor<2xi64> -> tensor<2x?x8xi64>, tensor<2x?xi64>
// The op in the program's own (sequential, host) loop is a kernel call.
// CALLS: scf.for
// CALLS: sift.gpu_kernel = "compact"} : (memref<1x8xi1>, memref<1x8xi64>, memref<1xi64>) -> ()
// CALLS: scf.yield

// LAUNCH-LABEL: func.func @nonzero_f32
// LAUNCH: linalg.generic
// LAUNCH: gpu.launch
// LAUNCH-NOT: linalg.generic
// LAUNCH-LABEL: func.func @nonzero_3d_i1
// LAUNCH: gpu.launch
// LAUNCH: linalg.generic
// LAUNCH-LABEL: func.func @masked_select_lead2
// LAUNCH: gpu.launch
// LAUNCH: linalg.generic
// LAUNCH-LABEL: func.func @sample_balanced_seed_tensors
// keys, argsort, classes, 2 compactions, samples, counts.
// LAUNCH: gpu.launch
// LAUNCH: gpu.launch
// LAUNCH: linalg.generic
// LAUNCH: gpu.launch
// LAUNCH: gpu.launch
// LAUNCH: linalg.generic
// LAUNCH: linalg.generic
// LAUNCH-NOT: call @__sift_gpu
// LAUNCH-LABEL: func.func @sample_balanced_no_positives
// LAUNCH-LABEL: func.func @left_alone

func.func @nonzero_f32(%x: tensor<200xf32>) -> tensor<?xi64> {
  %r = sift.nonzero %x : tensor<200xf32> -> tensor<?xi64>
  return %r : tensor<?xi64>
}

func.func @nonzero_3d_i1(%x: tensor<3x4x5xi1>) -> tensor<?x3xi64> {
  %r = sift.nonzero %x : tensor<3x4x5xi1> -> tensor<?x3xi64>
  return %r : tensor<?x3xi64>
}

func.func @masked_select_lead2(%x: tensor<4x5x3xf64>, %m: tensor<4x5xi1>) -> tensor<?x3xf64> {
  %r = sift.masked_select %x, %m : tensor<4x5x3xf64>, tensor<4x5xi1> -> tensor<?x3xf64>
  return %r : tensor<?x3xf64>
}

func.func @masked_select_full(%x: tensor<100xi32>, %m: tensor<100xi1>) -> tensor<?xi32> {
  %r = sift.masked_select %x, %m : tensor<100xi32>, tensor<100xi1> -> tensor<?xi32>
  return %r : tensor<?xi32>
}

func.func @sample_balanced_seed_tensors(%l: tensor<2x3x300xi32>, %s: tensor<2xi64>, %o: tensor<2xi64>) -> (tensor<2x3x24xi64>, tensor<2x3xi64>) {
  %i, %n = sift.sample_balanced %l, %s offset %o {num_samples = 24 : i64, positive_fraction = 2.5e-01 : f64} : tensor<2x3x300xi32>, tensor<2xi64>, tensor<2xi64> -> tensor<2x3x24xi64>, tensor<2x3xi64>
  return %i, %n : tensor<2x3x24xi64>, tensor<2x3xi64>
}

func.func @sample_balanced_no_positives(%l: tensor<50xi64>, %seed: i64) -> (tensor<16xi64>, tensor<i64>) {
  %i, %n = sift.sample_balanced %l, %seed {num_samples = 16 : i64, positive_fraction = 0.0 : f64} : tensor<50xi64> -> tensor<16xi64>, tensor<i64>
  return %i, %n : tensor<16xi64>, tensor<i64>
}

// Dynamic operands: kernels of rows of a run-time length. Empty operands
// and a sample of dynamic batch dimensions stay with the linalg lowering;
// an op in a sequential loop of the host code is a kernel call there (only
// ops in parallel loops, row kernels, stay).
func.func @nonzero_dynamic(%x: tensor<?x?xi64>) -> tensor<?x2xi64> {
  %r = sift.nonzero %x : tensor<?x?xi64> -> tensor<?x2xi64>
  return %r : tensor<?x2xi64>
}

func.func @masked_select_dynamic(%x: tensor<?x?xf32>, %m: tensor<?xi1>) -> tensor<?x?xf32> {
  %r = sift.masked_select %x, %m : tensor<?x?xf32>, tensor<?xi1> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @sample_balanced_dynamic(%l: tensor<?xi64>, %seed: i64) -> (tensor<8xi64>, tensor<i64>) {
  %i, %n = sift.sample_balanced %l, %seed {num_samples = 8 : i64} : tensor<?xi64> -> tensor<8xi64>, tensor<i64>
  return %i, %n : tensor<8xi64>, tensor<i64>
}

func.func @left_alone(%e: tensor<0x3xf32>, %em: tensor<0xi1>, %l: tensor<2x?x?xi64>, %seed: tensor<2xi64>, %b: tensor<4x8xi1>) -> (tensor<?x3xf32>, tensor<2x?x8xi64>, index) {
  %ms = sift.masked_select %e, %em : tensor<0x3xf32>, tensor<0xi1> -> tensor<?x3xf32>
  %i, %n = sift.sample_balanced %l, %seed {num_samples = 8 : i64} : tensor<2x?x?xi64>, tensor<2xi64> -> tensor<2x?x8xi64>, tensor<2x?xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %total = scf.for %r = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> (index) {
    %row = tensor.extract_slice %b[%r, 0] [1, 8] [1, 1] : tensor<4x8xi1> to tensor<8xi1>
    %idx = sift.nonzero %row : tensor<8xi1> -> tensor<?xi64>
    %k = tensor.dim %idx, %c0 : tensor<?xi64>
    %sum = arith.addi %acc, %k : index
    scf.yield %sum : index
  }
  return %ms, %i, %total : tensor<?x3xf32>, tensor<2x?x8xi64>, index
}
