// The layout and outline-routines options of --sift-cpu-pipeline: by
// default a top-k along dimension 0 runs on the transposed input along its
// last axis (--sift-layout) and its selection is a function
// (--sift-outline-lines); layout=false keeps the op along dimension 0, and
// outline-routines=false leaves no routine function. The values are
// checked against NumPy by the conformance suite (topk 2d_dim0).
//
// RUN: tensor-opt %s --sift-cpu-pipeline --mlir-print-ir-after=sift-layout -o %t.default.mlir 2>&1 | FileCheck %s --check-prefix=LAYOUT
// RUN: FileCheck %s --check-prefix=ROUTINE < %t.default.mlir
// RUN: tensor-opt %s '--sift-cpu-pipeline=layout=false outline-routines=false' --mlir-print-ir-after=convert-sift-to-linalg -o %t.plain.mlir 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: FileCheck %s --check-prefix=INLINE < %t.plain.mlir

// LAYOUT: linalg.transpose ins(%arg0 : tensor<1000x64xf32>) outs(%{{.*}} : tensor<64x1000xf32>) permutation = [1, 0]
// LAYOUT: sift.topk %{{.*}} k(9) {dim = 1 : i64} : tensor<64x1000xf32>
// ROUTINE: llvm.func @__sift_topk_{{[0-9]+}}(
// PLAIN-NOT: linalg.transpose
// PLAIN-LABEL: func.func @columns
// PLAIN-NOT: linalg.transpose
// PLAIN: return
// INLINE-NOT: llvm.func @__sift_
// INLINE: llvm.func @columns
// INLINE-NOT: llvm.func @__sift_
func.func @columns(%iou: tensor<1000x64xf32>) -> (tensor<9x64xf32>, tensor<9x64xi64>) {
  %v, %i = sift.topk %iou k(9) {dim = 0 : i64}
      : tensor<1000x64xf32> -> tensor<9x64xf32>, tensor<9x64xi64>
  return %v, %i : tensor<9x64xf32>, tensor<9x64xi64>
}
