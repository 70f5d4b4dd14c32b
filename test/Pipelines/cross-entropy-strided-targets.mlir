// cross_entropy of short rows (at most 16 classes) whose targets are a
// column of a label matrix: after bufferization a strided view, which the
// short rows' kernel reads a target at a time (a vector read of it would
// not lower to LLVM: sift.torch's nll_loss of `lab[:2, 2]` failed to
// compile, "LLVM Translation failed for operation:
// builtin.unrealized_conversion_cast").
//
// RUN: tensor-opt %s --sift-cpu-pipeline | FileCheck %s

// CHECK-LABEL: llvm.func @column_targets
// CHECK-NOT: unrealized_conversion_cast
// CHECK-NOT: vector.transfer_read
// CHECK: llvm.return
func.func @column_targets(%x: tensor<8x6xf32>, %lab: tensor<8x6xi64>)
    -> tensor<f32> {
  %t = tensor.extract_slice %lab[0, 2] [8, 1] [1, 1]
      : tensor<8x6xi64> to tensor<8xi64>
  %loss = sift.cross_entropy %x, %t reduction = mean
      : tensor<8x6xf32>, tensor<8xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
