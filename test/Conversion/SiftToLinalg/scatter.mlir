// sift.scatter lowers to a sequential scf.for nest over the lanes of its
// indices, in row-major order, carrying a copy of dest: a lane with an index
// in [0, n) combines its update with the element it lands on and inserts
// it, others are skipped (no tensor.scatter, which the CPU pipeline cannot
// bufferize).
// RUN: tensor-opt %s --convert-sift-to-linalg -split-input-file | FileCheck %s
// RUN: tensor-opt %s --sift-cpu-pipeline -split-input-file -o /dev/null

// CHECK-LABEL: func @rows_add
// CHECK-SAME: (%[[U:.*]]: tensor<6x3xf32>, %[[D:.*]]: tensor<4x3xf32>, %[[I:.*]]: tensor<6xi64>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[N:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i64
// CHECK: %[[R:.*]] = scf.for %[[K:.*]] = %[[C0]] to %[[C6]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[D]]) -> (tensor<4x3xf32>) {
// CHECK:   %[[J:.*]] = tensor.extract %[[I]][%[[K]]] : tensor<6xi64>
// CHECK-DAG:   %[[LT:.*]] = arith.cmpi slt, %[[J]], %[[N]] : i64
// CHECK-DAG:   %[[GE:.*]] = arith.cmpi sge, %[[J]], %[[Z]] : i64
// CHECK:   %[[OK:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK:   %[[W:.*]] = scf.if %[[OK]] -> (tensor<4x3xf32>) {
// CHECK:     %[[ROW:.*]] = arith.index_cast %[[J]] : i64 to index
// CHECK:     %[[T:.*]] = scf.for %[[E:.*]] = %[[C0]] to %[[C3]] step %[[C1]] iter_args(%[[IN:.*]] = %[[ACC]]) -> (tensor<4x3xf32>) {
// CHECK:       %[[UV:.*]] = tensor.extract %[[U]][%[[K]], %[[E]]] : tensor<6x3xf32>
// CHECK:       %[[OLD:.*]] = tensor.extract %[[IN]][%[[ROW]], %[[E]]] : tensor<4x3xf32>
// CHECK:       %[[SUM:.*]] = arith.addf %[[OLD]], %[[UV]] : f32
// CHECK:       %[[NEW:.*]] = tensor.insert %[[SUM]] into %[[IN]][%[[ROW]], %[[E]]] : tensor<4x3xf32>
// CHECK:       scf.yield %[[NEW]]
// CHECK:     scf.yield %[[T]]
// CHECK:   } else {
// CHECK:     scf.yield %[[ACC]]
// CHECK:   scf.yield %[[W]]
// CHECK: return %[[R]]
func.func @rows_add(%u: tensor<6x3xf32>, %d: tensor<4x3xf32>, %i: tensor<6xi64>) -> tensor<4x3xf32> {
  %0 = sift.scatter %u into %d[%i] reduce(add) : tensor<6x3xf32>, tensor<6xi64> into tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// reduce(none) replaces (no read of the old element); batch_dims = 1 loops
// over the batch and reads the row of the lane's batch; integer max and min
// are signed.
// CHECK-LABEL: func @batched
// CHECK: scf.for %[[B:.*]] = {{.*}} iter_args(%[[A0:.*]] = {{.*}}) -> (tensor<2x7xi32>)
// CHECK:   scf.for %[[K:.*]] = {{.*}} iter_args(%[[A1:.*]] = %[[A0]]) -> (tensor<2x7xi32>)
// CHECK:     %[[J:.*]] = tensor.extract %{{.*}}[%[[B]], %[[K]]] : tensor<2x5xi64>
// CHECK:     scf.if
// CHECK:       %[[ROW:.*]] = arith.index_cast %[[J]] : i64 to index
// CHECK:       %[[UV:.*]] = tensor.extract %{{.*}}[%[[B]], %[[K]]] : tensor<2x5xi32>
// CHECK-NOT:   tensor.extract
// CHECK:       tensor.insert %[[UV]] into %[[A1]][%[[B]], %[[ROW]]] : tensor<2x7xi32>
// CHECK: arith.maxsi
// CHECK: arith.minsi
func.func @batched(%u: tensor<2x5xi32>, %d: tensor<2x7xi32>, %i: tensor<2x5xi64>) -> (tensor<2x7xi32>, tensor<2x7xi32>, tensor<2x7xi32>) {
  %0 = sift.scatter %u into %d[%i] {batch_dims = 1 : i64} : tensor<2x5xi32>, tensor<2x5xi64> into tensor<2x7xi32>
  %1 = sift.scatter %u into %d[%i] reduce(max) {batch_dims = 1 : i64} : tensor<2x5xi32>, tensor<2x5xi64> into tensor<2x7xi32>
  %2 = sift.scatter %u into %d[%i] reduce(min) {batch_dims = 1 : i64} : tensor<2x5xi32>, tensor<2x5xi64> into tensor<2x7xi32>
  return %0, %1, %2 : tensor<2x7xi32>, tensor<2x7xi32>, tensor<2x7xi32>
}

// -----

// Dynamic lanes: the trip count is the indices' size, checked at run time
// against the updates'.
// CHECK-LABEL: func @dynamic
// CHECK: tensor.dim %{{.*}}, %{{.*}} : tensor<?xi64>
// CHECK: tensor.dim %{{.*}}, %{{.*}} : tensor<?xf32>
// CHECK: call @sift_rt_fail
// CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?xi64>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]]
// CHECK: arith.maximumf
func.func @dynamic(%u: tensor<?xf32>, %d: tensor<8xf32>, %i: tensor<?xi64>) -> tensor<8xf32> {
  %0 = sift.scatter %u into %d[%i] reduce(max) : tensor<?xf32>, tensor<?xi64> into tensor<8xf32>
  return %0 : tensor<8xf32>
}
