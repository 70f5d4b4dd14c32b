// A top-k with `valid` on the GPU (convert-sift-to-gpu): the top-k kernel
// of keys masked past each line's valid length (the value that ranks last:
// NaN for the smallest floats, the minimum for the largest integers; the
// stable order keeps a valid element of that value ahead), then the values
// read back from the input at the indices, so a line shorter than k gives
// the input's own values past its length. The masking is an elementwise
// op over the input that fuses into the input's producer. The results are
// checked against NumPy by ctest conformance-gpu-pipeline (topk_valid).
//
// RUN: tensor-opt %s --convert-sift-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @rows
// CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: %[[KEYS:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<32x100xf32>, tensor<32xindex>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[N:.*]]: index, %{{.*}}: f32):
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[J]], %[[N]] : index
// CHECK: arith.select %[[IN]], %[[X]], %[[NAN]] : f32
// CHECK: call @__sift_gpu_topk({{.*}}) {k = 5 : i64, sift.gpu_kernel = "topk", smallest}
// CHECK: %[[I:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<32x5xi64>
// CHECK: linalg.generic
// CHECK: %[[P:.*]] = tensor.extract %[[I]][%{{.*}}, %{{.*}}] : tensor<32x5xi64>
// CHECK: %[[PI:.*]] = arith.index_cast %[[P]] : i64 to index
// CHECK: tensor.extract %arg0[%{{.*}}, %[[PI]]] : tensor<32x100xf32>
func.func @rows(%x: tensor<32x100xf32>, %n: tensor<32xindex>)
    -> (tensor<32x5xf32>, tensor<32x5xi64>) {
  %v, %i = sift.topk %x k(5) valid(%n : tensor<32xindex>) smallest
      : tensor<32x100xf32> -> tensor<32x5xf32>, tensor<32x5xi64>
  return %v, %i : tensor<32x5xf32>, tensor<32x5xi64>
}

// One length for the row; largest of i32: the padding is the minimum.
// CHECK-LABEL: func.func @one_length
// CHECK-DAG: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<1000xi32>)
// CHECK: %[[J:.*]] = linalg.index 0 : index
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[J]], %arg1 : index
// CHECK: arith.select %[[IN]], %{{.*}}, %[[MIN]] : i32
// CHECK: {k = 10 : i64, sift.gpu_kernel = "topk"}
func.func @one_length(%x: tensor<1000xi32>, %n: index) -> tensor<10xi64> {
  %v, %i = sift.topk %x k(10) valid(%n : index)
      : tensor<1000xi32> -> tensor<10xi32>, tensor<10xi64>
  return %i : tensor<10xi64>
}
