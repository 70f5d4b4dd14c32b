// --sift-compress-in-registers: a compress store becomes a compress in
// registers (LLVM's vector.compress) and a masked store of the kept lanes'
// count, a 512-bit register at a time, each part at the slot after the
// lanes the parts before it kept; lanes of widths not listed, index lanes,
// and vectors that are not whole registers stay compress stores.
//
// RUN: tensor-opt %s --sift-compress-in-registers=element-bits=32,64 | FileCheck %s
// RUN: tensor-opt %s --sift-compress-in-registers | FileCheck %s --check-prefix=NONE
// RUN: tensor-opt %s "--sift-cpu-pipeline=compress-element-bits=32,64" | FileCheck %s --check-prefix=PIPELINE
// RUN: tensor-opt %s "--sift-cpu-pipeline=compress-element-bits=32,64 compress-in-registers=0" | FileCheck %s --check-prefix=MEMORY

// One register of i32 lanes: the compaction loops' store.
// CHECK-LABEL: func.func @one_register
// CHECK-SAME: (%[[OUT:.*]]: memref<?xi32>, %[[AT:.*]]: index, %[[MASK:.*]]: vector<16xi1>, %[[V:.*]]: vector<16xi32>)
// CHECK-NOT: vector.compressstore
// CHECK: %[[PACKED:.*]] = llvm.call_intrinsic "llvm.experimental.vector.compress"(%[[V]], %[[MASK]], %{{.*}}) : (vector<16xi32>, vector<16xi1>, vector<16xi32>) -> vector<16xi32>
// CHECK: %[[BITS:.*]] = vector.bitcast %[[MASK]] : vector<16xi1> to vector<1xi16>
// CHECK: %[[WORD:.*]] = vector.extract %[[BITS]][0] : i16 from vector<1xi16>
// CHECK: %[[POP:.*]] = math.ctpop %[[WORD]] : i16
// CHECK: %[[COUNT:.*]] = arith.index_castui %[[POP]] : i16 to index
// CHECK: %[[KEPT:.*]] = vector.create_mask %[[COUNT]] : vector<16xi1>
// CHECK: vector.maskedstore %[[OUT]][%[[AT]]], %[[KEPT]], %[[PACKED]] : memref<?xi32>, vector<16xi1>, vector<16xi32>
// NONE-LABEL: func.func @one_register
// NONE: vector.compressstore
// PIPELINE-LABEL: llvm.func @one_register
// PIPELINE: llvm.call_intrinsic "llvm.experimental.vector.compress"
// PIPELINE: llvm.intr.masked.store
// PIPELINE-NOT: llvm.intr.masked.compressstore
// MEMORY-LABEL: llvm.func @one_register
// MEMORY-NOT: llvm.call_intrinsic
// MEMORY: llvm.intr.masked.compressstore
func.func @one_register(%out: memref<?xi32>, %at: index, %mask: vector<16xi1>,
                        %v: vector<16xi32>) {
  vector.compressstore %out[%at], %mask, %v
      : memref<?xi32>, vector<16xi1>, vector<16xi32>
  return
}

// 32 lanes of i64 (a Feistel walk's pending lanes are 128 of i32): four
// registers of 8, the second stored after the first's kept lanes.
// CHECK-LABEL: func.func @four_registers
// CHECK-SAME: (%[[OUT:.*]]: memref<4x?xi64>, %[[ROW:.*]]: index, %[[AT:.*]]: index, %[[MASK:.*]]: vector<32xi1>, %[[V:.*]]: vector<32xi64>)
// CHECK: %[[P0:.*]] = vector.extract_strided_slice %[[V]] {offsets = [0], sizes = [8], strides = [1]}
// CHECK: %[[M0:.*]] = vector.extract_strided_slice %[[MASK]] {offsets = [0], sizes = [8], strides = [1]}
// CHECK: %[[C0:.*]] = llvm.call_intrinsic "llvm.experimental.vector.compress"(%[[P0]], %[[M0]], %{{.*}}) : (vector<8xi64>, vector<8xi1>, vector<8xi64>) -> vector<8xi64>
// CHECK: vector.bitcast %[[M0]] : vector<8xi1> to vector<1xi8>
// CHECK: %[[N0:.*]] = arith.index_castui %{{.*}} : i8 to index
// CHECK: vector.maskedstore %[[OUT]][%[[ROW]], %[[AT]]], %{{.*}}, %[[C0]]
// CHECK: %[[AT1:.*]] = arith.addi %[[AT]], %[[N0]] : index
// CHECK: %[[P1:.*]] = vector.extract_strided_slice %[[V]] {offsets = [8], sizes = [8], strides = [1]}
// CHECK: vector.maskedstore %[[OUT]][%[[ROW]], %[[AT1]]]
// CHECK: vector.extract_strided_slice %[[V]] {offsets = [16], sizes = [8], strides = [1]}
// CHECK: vector.maskedstore
// CHECK: vector.extract_strided_slice %[[V]] {offsets = [24], sizes = [8], strides = [1]}
// CHECK: vector.maskedstore
// CHECK-NOT: vector.maskedstore
// CHECK-NOT: vector.compressstore
// CHECK: return
// PIPELINE-LABEL: llvm.func @four_registers
// PIPELINE-COUNT-4: llvm.intr.masked.store
// PIPELINE-NOT: compressstore
// PIPELINE: llvm.return
// MEMORY-LABEL: llvm.func @four_registers
func.func @four_registers(%out: memref<4x?xi64>, %row: index, %at: index,
                          %mask: vector<32xi1>, %v: vector<32xi64>) {
  vector.compressstore %out[%row, %at], %mask, %v
      : memref<4x?xi64>, vector<32xi1>, vector<32xi64>
  return
}

// Left alone: bytes (not in element-bits: AVX-512 compresses them only
// with VBMI2), index lanes, and 8 lanes of i32 (half a register).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: vector.compressstore
// CHECK-NOT: llvm.call_intrinsic
func.func @left_alone(%bytes: memref<?xi8>, %indices: memref<?xindex>,
                      %words: memref<?xi32>, %at: index,
                      %m64: vector<64xi1>, %b: vector<64xi8>,
                      %m8: vector<8xi1>, %i: vector<8xindex>,
                      %w: vector<8xi32>) {
  vector.compressstore %bytes[%at], %m64, %b
      : memref<?xi8>, vector<64xi1>, vector<64xi8>
  vector.compressstore %indices[%at], %m8, %i
      : memref<?xindex>, vector<8xi1>, vector<8xindex>
  vector.compressstore %words[%at], %m8, %w
      : memref<?xi32>, vector<8xi1>, vector<8xi32>
  return
}
