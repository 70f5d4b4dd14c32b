// --sift-fuse takes its candidate roots, consumers first, before it forms
// any kernel, and forming one erases the ops it fused or left dead; an op
// made later (a slice, a tiled transpose) can take an erased candidate's
// address. Here the xor after the transposed top-k forms a kernel that
// fuses the transpose of the values; the transposes were candidates. The
// pass skips the candidates its rewriter erased, instead of looking their
// addresses up in the function (which found a new op there and crashed
// in TilingInterface::getLoopIteratorTypes): the IR of an unsigned top-k
// along dimension 0 on the GPU path (decomposeUnsignedOrder, --sift-layout).
//
// RUN: tensor-opt %s --sift-fuse | FileCheck %s

// CHECK-LABEL: func.func @transposed_topk_between_xors
// CHECK: sift.topk %{{.*}} k(7) {dim = 1 : i64} : tensor<5x9xi16>
// CHECK: scf.forall (%{{.*}}) in (7)
// CHECK: linalg.transpose
// CHECK: linalg.transpose
// CHECK: arith.xori
// CHECK: scf.forall.in_parallel
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @transposed_topk_between_xors(%x: tensor<9x5xi16>)
    -> (tensor<7x5xi16>, tensor<7x5xi64>) {
  %sign = arith.constant -32768 : i16
  %e0 = tensor.empty() : tensor<9x5xi16>
  %keys = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<9x5xi16>) outs(%e0 : tensor<9x5xi16>) {
  ^bb0(%in: i16, %out: i16):
    %f = arith.xori %in, %sign : i16
    linalg.yield %f : i16
  } -> tensor<9x5xi16>
  %e1 = tensor.empty() : tensor<5x9xi16>
  %t = linalg.transpose ins(%keys : tensor<9x5xi16>) outs(%e1 : tensor<5x9xi16>) permutation = [1, 0]
  %v, %i = sift.topk %t k(7) {dim = 1 : i64} : tensor<5x9xi16> -> tensor<5x7xi16>, tensor<5x7xi64>
  %e2 = tensor.empty() : tensor<7x5xi16>
  %tv = linalg.transpose ins(%v : tensor<5x7xi16>) outs(%e2 : tensor<7x5xi16>) permutation = [1, 0]
  %e3 = tensor.empty() : tensor<7x5xi64>
  %ti = linalg.transpose ins(%i : tensor<5x7xi64>) outs(%e3 : tensor<7x5xi64>) permutation = [1, 0]
  %e4 = tensor.empty() : tensor<7x5xi16>
  %back = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%tv : tensor<7x5xi16>) outs(%e4 : tensor<7x5xi16>) {
  ^bb0(%in: i16, %out: i16):
    %f = arith.xori %in, %sign : i16
    linalg.yield %f : i16
  } -> tensor<7x5xi16>
  return %back, %ti : tensor<7x5xi16>, tensor<7x5xi64>
}
