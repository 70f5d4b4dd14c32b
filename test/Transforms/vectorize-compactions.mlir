// --sift-vectorize-compactions: branch-free compaction loops store the kept
// lanes of a vector at a time (vector.compressstore) and advance their slots
// by the popcount of the kept mask; the scalar loop runs the last iteration.
//
// RUN: tensor-opt %s -split-input-file --sift-vectorize-compactions | FileCheck %s
// RUN: tensor-opt %s -split-input-file --sift-vectorize-compactions="element-bits=64" | FileCheck %s --check-prefix=WIDE

// The lowering's compaction, after bufferization and --sift-byte-bools:
// every position is stored at the slot, which a set mask byte advances.
// CHECK-LABEL: func.func @compact
// CHECK-SAME: (%[[MASK:.*]]: memref<1000xi8>, %[[N:.*]]: index)
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<1000xi32>
// CHECK: %[[REST:.*]] = arith.maxsi
// CHECK: %[[FULL:.*]] = arith.divui %[[REST]], %c16
// CHECK: %[[VN:.*]] = arith.muli %[[FULL]], %c16
// CHECK: %[[VEND:.*]] = arith.addi %c0, %[[VN]]
// CHECK: %[[V:.*]] = scf.for %[[I:.*]] = %c0 to %[[VEND]] step %c16 iter_args(%[[S:.*]] = %c0) -> (index) {
// CHECK: %[[BASE:.*]] = vector.broadcast %[[I]] : index to vector<16xindex>
// CHECK: %[[STEP:.*]] = vector.step : vector<16xindex>
// CHECK: %[[LANES:.*]] = arith.addi %[[BASE]], %[[STEP]] : vector<16xindex>
// CHECK: %[[POS:.*]] = arith.index_cast %[[LANES]] : vector<16xindex> to vector<16xi32>
// CHECK: %[[BYTES:.*]] = vector.load %[[MASK]][%[[I]]] : memref<1000xi8>, vector<16xi8>
// CHECK: %[[KEPT:.*]] = arith.trunci %[[BYTES]] : vector<16xi8> to vector<16xi1>
// CHECK: vector.compressstore %[[OUT]][%[[S]]], %[[KEPT]], %[[POS]]
// CHECK: %[[BITS:.*]] = vector.bitcast %[[KEPT]] : vector<16xi1> to vector<1xi16>
// CHECK: %[[WORD:.*]] = vector.extract %[[BITS]][0]
// CHECK: %[[COUNT:.*]] = math.ctpop %[[WORD]] : i16
// CHECK: %[[ADD:.*]] = arith.index_castui %[[COUNT]] : i16 to index
// CHECK: %[[NEXT:.*]] = arith.addi %[[S]], %[[ADD]] : index
// CHECK: scf.yield %[[NEXT]] : index
// CHECK: scf.for %{{.*}} = %[[VEND]] to %[[N]] step %c1 iter_args(%{{.*}} = %[[V]]) -> (index) {
// CHECK: memref.store
// WIDE-LABEL: func.func @compact
// WIDE-NOT: vector.compressstore
func.func @compact(%mask: memref<1000xi8>, %n: index) -> (memref<1000xi32>, index) {
  %out = memref.alloc() : memref<1000xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0) -> (index) {
    %p = arith.index_cast %i : index to i32
    memref.store %p, %out[%s] : memref<1000xi32>
    %m = memref.load %mask[%i] : memref<1000xi8>
    %b = arith.trunci %m : i8 to i1
    %inc = arith.index_castui %b : i1 to index
    %s2 = arith.addi %s, %inc : index
    scf.yield %s2 : index
  }
  return %out, %r : memref<1000xi32>, index
}

// -----

// A top-k's partition: the positions of keys whose digit is below the
// split's go to one buffer, those equal to it to another (two slots), the
// key read from a row of a larger buffer; a running OR of the keys is a
// reduction.
// CHECK-LABEL: func.func @partition
// WIDE-LABEL: func.func @partition
// CHECK-SAME: (%[[KEYS:.*]]: memref<4x1000xi32>, %[[ROW:.*]]: index, %[[SHIFT:.*]]: i32, %[[DIGIT:.*]]: i32)
// CHECK: %[[KEPT:.*]] = memref.alloc() : memref<1001xi32>
// CHECK: %[[CAND:.*]] = memref.alloc() : memref<1001xi32>
// CHECK: scf.for %[[I:.*]] = %c0 to %{{.*}} step %c16 iter_args(%[[P:.*]] = %c0, %[[Q:.*]] = %c0, %[[OR:.*]] = %c0_i32) -> (index, index, i32) {
// CHECK: %[[KEY:.*]] = vector.load %[[KEYS]][%[[ROW]], %[[I]]] : memref<4x1000xi32>, vector<16xi32>
// CHECK: %[[SH:.*]] = vector.broadcast %[[SHIFT]] : i32 to vector<16xi32>
// CHECK: arith.shrui %[[KEY]], %[[SH]] : vector<16xi32>
// CHECK: %[[BELOW:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : vector<16xi32>
// CHECK: %[[EQUAL:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : vector<16xi32>
// CHECK: vector.compressstore %[[KEPT]][%[[P]]], %[[BELOW]], %[[POS:.*]] :
// CHECK: vector.compressstore %[[CAND]][%[[Q]]], %[[EQUAL]], %[[POS]] :
// CHECK: math.ctpop
// CHECK: math.ctpop
// CHECK: %[[LANES:.*]] = vector.reduction <or>, %[[KEY]] : vector<16xi32> into i32
// CHECK: arith.ori %[[OR]], %[[LANES]] : i32
// CHECK: scf.for %{{.*}} step %c1 iter_args
func.func @partition(%keys: memref<4x1000xi32>, %row: index, %shift: i32, %digit: i32) -> (memref<1001xi32>, memref<1001xi32>, index, index, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  %c0_i32 = arith.constant 0 : i32
  %kept = memref.alloc() : memref<1001xi32>
  %cand = memref.alloc() : memref<1001xi32>
  %r:3 = scf.for %i = %c0 to %c1000 step %c1 iter_args(%p = %c0, %q = %c0, %or = %c0_i32) -> (index, index, i32) {
    %key = memref.load %keys[%row, %i] : memref<4x1000xi32>
    %c255 = arith.constant 255 : i32
    %sh = arith.shrui %key, %shift : i32
    %d = arith.andi %sh, %c255 : i32
    %below = arith.cmpi ult, %d, %digit : i32
    %equal = arith.cmpi eq, %d, %digit : i32
    %pos = arith.index_castui %i : index to i32
    memref.store %pos, %kept[%p] : memref<1001xi32>
    memref.store %pos, %cand[%q] : memref<1001xi32>
    %a = arith.select %below, %c1, %c0 : index
    %p2 = arith.addi %p, %a : index
    %b = arith.select %equal, %c1, %c0 : index
    %q2 = arith.addi %q, %b : index
    %or2 = arith.ori %or, %key : i32
    scf.yield %p2, %q2, %or2 : index, index, i32
  }
  return %kept, %cand, %r#0, %r#1, %r#2 : memref<1001xi32>, memref<1001xi32>, index, index, i32
}

// -----

// Stored into a function argument, read from another: they may be the same
// buffer, and the loop stays scalar.
// CHECK-LABEL: func.func @arguments
// CHECK-NOT: vector
func.func @arguments(%mask: memref<100xi8>, %out: memref<100xi64>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %r = scf.for %i = %c0 to %c100 step %c1 iter_args(%s = %c0) -> (index) {
    %p = arith.index_cast %i : index to i64
    memref.store %p, %out[%s] : memref<100xi64>
    %m = memref.load %mask[%i] : memref<100xi8>
    %b = arith.trunci %m : i8 to i1
    %inc = arith.index_castui %b : i1 to index
    %s2 = arith.addi %s, %inc : index
    scf.yield %s2 : index
  }
  return %r : index
}

// -----

// Compacted in place (a radix selection's filter): the loop reads the
// buffer it writes, and stays scalar.
// CHECK-LABEL: func.func @in_place
// CHECK-NOT: vector
func.func @in_place(%n: index, %digit: i32) -> (memref<100xi32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = memref.alloc() : memref<100xi32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0) -> (index) {
    %key = memref.load %buf[%i] : memref<100xi32>
    memref.store %key, %buf[%s] : memref<100xi32>
    %match = arith.cmpi eq, %key, %digit : i32
    %inc = arith.select %match, %c1, %c0 : index
    %s2 = arith.addi %s, %inc : index
    scf.yield %s2 : index
  }
  return %buf, %r : memref<100xi32>, index
}

// -----

// A histogram: a store at a computed index is no compaction.
// CHECK-LABEL: func.func @histogram
// CHECK-NOT: vector
func.func @histogram(%keys: memref<100xi32>) -> memref<256xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %c255 = arith.constant 255 : i32
  %one = arith.constant 1 : i64
  %hist = memref.alloc() : memref<256xi64>
  scf.for %i = %c0 to %c100 step %c1 {
    %key = memref.load %keys[%i] : memref<100xi32>
    %d = arith.andi %key, %c255 : i32
    %at = arith.index_castui %d : i32 to index
    %c = memref.load %hist[%at] : memref<256xi64>
    %c2 = arith.addi %c, %one : i64
    memref.store %c2, %hist[%at] : memref<256xi64>
  }
  return %hist : memref<256xi64>
}

// -----

// The slot is also read as data (stored): not a compaction.
// CHECK-LABEL: func.func @slot_as_value
// CHECK-NOT: vector
func.func @slot_as_value(%mask: memref<100xi8>) -> (memref<100xindex>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %out = memref.alloc() : memref<100xindex>
  %r = scf.for %i = %c0 to %c100 step %c1 iter_args(%s = %c0) -> (index) {
    memref.store %s, %out[%s] : memref<100xindex>
    %m = memref.load %mask[%i] : memref<100xi8>
    %b = arith.trunci %m : i8 to i1
    %inc = arith.index_castui %b : i1 to index
    %s2 = arith.addi %s, %inc : index
    scf.yield %s2 : index
  }
  return %out, %r : memref<100xindex>, index
}

// -----

// A mask of i1 (a byte an element in memory, packed bits as an LLVM
// vector: what vector.load would read) is read as bytes through a pointer.
// CHECK-LABEL: func.func @bit_mask
// CHECK-SAME: (%[[MASK:.*]]: memref<100xi1>)
// CHECK: scf.for %[[I:.*]] = %c0 to %{{.*}} step %c16
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[MASK]]
// CHECK: %{{.*}}, %[[OFF:.*]], %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[MASK]]
// CHECK: %[[REL:.*]] = arith.addi %[[OFF]], %[[I]] : index
// CHECK: %[[AT:.*]] = arith.addi %[[PTR]], %[[REL]] : index
// CHECK: %[[AT64:.*]] = arith.index_castui %[[AT]] : index to i64
// CHECK: %[[P:.*]] = llvm.inttoptr %[[AT64]] : i64 to !llvm.ptr
// CHECK: %[[BYTES:.*]] = llvm.load %[[P]] {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
// CHECK: %[[KEPT:.*]] = arith.trunci %[[BYTES]] : vector<16xi8> to vector<16xi1>
// CHECK: vector.compressstore %{{.*}}[%{{.*}}], %[[KEPT]], %{{.*}} : memref<100xi64>, vector<16xi1>, vector<16xi64>
func.func @bit_mask(%mask: memref<100xi1>) -> (memref<100xi64>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %out = memref.alloc() : memref<100xi64>
  %r = scf.for %i = %c0 to %c100 step %c1 iter_args(%s = %c0) -> (index) {
    %p = arith.index_cast %i : index to i64
    memref.store %p, %out[%s] : memref<100xi64>
    %b = memref.load %mask[%i] : memref<100xi1>
    %inc = arith.index_castui %b : i1 to index
    %s2 = arith.addi %s, %inc : index
    scf.yield %s2 : index
  }
  return %out, %r : memref<100xi64>, index
}

// -----

// A 2-D buffer of i1 is left alone (its bytes would need its strides).
// CHECK-LABEL: func.func @bit_mask_2d
// CHECK-NOT: vector
func.func @bit_mask_2d(%mask: memref<4x100xi1>, %row: index) -> (memref<100xi64>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %out = memref.alloc() : memref<100xi64>
  %r = scf.for %i = %c0 to %c100 step %c1 iter_args(%s = %c0) -> (index) {
    %p = arith.index_cast %i : index to i64
    memref.store %p, %out[%s] : memref<100xi64>
    %b = memref.load %mask[%row, %i] : memref<4x100xi1>
    %inc = arith.index_castui %b : i1 to index
    %s2 = arith.addi %s, %inc : index
    scf.yield %s2 : index
  }
  return %out, %r : memref<100xi64>, index
}

// -----

// The dynamic masked_select's fill: each element is read before the branch
// and stored under it, at the slot the branch's condition advances; a
// compress store writes exactly those lanes.
// CHECK-LABEL: func.func @conditional
// CHECK-SAME: (%[[X:.*]]: memref<?xf32>, %[[MASK:.*]]: memref<?xi8>, %[[N:.*]]: index)
// CHECK: scf.for %[[I:.*]] = %c0 to %{{.*}} step %c16 iter_args(%[[S:.*]] = %c0) -> (index) {
// CHECK: %[[TAKE:.*]] = arith.trunci %{{.*}} : vector<16xi8> to vector<16xi1>
// CHECK: %[[V:.*]] = vector.load %[[X]][%[[I]]] : memref<?xf32>, vector<16xf32>
// CHECK-NOT: scf.if
// CHECK: vector.compressstore %{{.*}}[%[[S]]], %[[TAKE]], %[[V]] : memref<?xf32>, vector<16xi1>, vector<16xf32>
// CHECK: scf.for %{{.*}} step %c1
// CHECK: scf.if
func.func @conditional(%x: memref<?xf32>, %mask: memref<?xi8>, %n: index) -> (memref<?xf32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %out = memref.alloc(%n) : memref<?xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0) -> (index) {
    %m = memref.load %mask[%i] : memref<?xi8>
    %take = arith.trunci %m : i8 to i1
    %v = memref.load %x[%i] : memref<?xf32>
    scf.if %take {
      memref.store %v, %out[%s] : memref<?xf32>
    }
    %inc = arith.select %take, %c1, %c0 : index
    %s2 = arith.addi %s, %inc : index
    scf.yield %s2 : index
  }
  return %out, %r : memref<?xf32>, index
}

// -----

// A branch on another condition than the slot's kept flag is no
// compaction.
// CHECK-LABEL: func.func @other_condition
// CHECK-NOT: vector
func.func @other_condition(%x: memref<?xf32>, %mask: memref<?xi8>, %n: index, %c: i1) -> (memref<?xf32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %out = memref.alloc(%n) : memref<?xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0) -> (index) {
    %m = memref.load %mask[%i] : memref<?xi8>
    %take = arith.trunci %m : i8 to i1
    %v = memref.load %x[%i] : memref<?xf32>
    scf.if %c {
      memref.store %v, %out[%s] : memref<?xf32>
    }
    %inc = arith.select %take, %c1, %c0 : index
    %s2 = arith.addi %s, %inc : index
    scf.yield %s2 : index
  }
  return %out, %r : memref<?xf32>, index
}

// -----

// A count (a slot and no store) adds the popcount of each vector's mask.
// CHECK-LABEL: func.func @count
// CHECK: scf.for %{{.*}} step %c16 iter_args(%[[S:.*]] = %c0) -> (index) {
// CHECK: math.ctpop
// CHECK-NOT: vector.compressstore
// CHECK: scf.for %{{.*}} step %c1
func.func @count(%mask: memref<?xi8>, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0) -> (index) {
    %m = memref.load %mask[%i] : memref<?xi8>
    %take = arith.trunci %m : i8 to i1
    %inc = arith.select %take, %c1, %c0 : index
    %s2 = arith.addi %s, %inc : index
    scf.yield %s2 : index
  }
  return %r : index
}

// -----

// A loop over an i32 induction variable is left alone.
// CHECK-LABEL: func.func @i32_loop
// CHECK-NOT: vector
func.func @i32_loop(%mask: memref<100xi8>) -> (memref<100xi32>, index) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c100 = arith.constant 100 : i32
  %z = arith.constant 0 : index
  %out = memref.alloc() : memref<100xi32>
  %r = scf.for %i = %c0 to %c100 step %c1 iter_args(%s = %z) -> (index) : i32 {
    memref.store %i, %out[%s] : memref<100xi32>
    %ii = arith.index_cast %i : i32 to index
    %m = memref.load %mask[%ii] : memref<100xi8>
    %b = arith.trunci %m : i8 to i1
    %inc = arith.index_castui %b : i1 to index
    %s2 = arith.addi %s, %inc : index
    scf.yield %s2 : index
  }
  return %out, %r : memref<100xi32>, index
}

// -----

// A math op on the stored value (math.erf lowers to a libm call on scalars
// only) keeps the loop scalar.
// CHECK-LABEL: func.func @math_value
// CHECK-NOT: vector
func.func @math_value(%x: memref<100xf32>, %mask: memref<100xi8>) -> (memref<100xf32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %out = memref.alloc() : memref<100xf32>
  %r = scf.for %i = %c0 to %c100 step %c1 iter_args(%s = %c0) -> (index) {
    %v = memref.load %x[%i] : memref<100xf32>
    %e = math.erf %v : f32
    memref.store %e, %out[%s] : memref<100xf32>
    %m = memref.load %mask[%i] : memref<100xi8>
    %b = arith.trunci %m : i8 to i1
    %inc = arith.index_castui %b : i1 to index
    %s2 = arith.addi %s, %inc : index
    scf.yield %s2 : index
  }
  return %out, %r : memref<100xf32>, index
}

// -----

// A compaction with fewer results than its line stops at the end of the
// line or when the slot reaches its cap: a vector while loop runs first as
// long as a whole vector fits below both (the index a vector and one more
// below its bound, the slot a vector below its cap), then the scalar one.
// CHECK-LABEL: func.func @compact_while
// CHECK-SAME: (%[[MASK:.*]]: memref<1000xi8>)
// CHECK: %[[V:.*]]:2 = scf.while (%[[I:.*]] = %c0, %[[S:.*]] = %c0) : (index, index) -> (index, index) {
// CHECK: %[[END:.*]] = arith.addi %[[I]], %c17 : index
// CHECK: %[[IN:.*]] = arith.cmpi ule, %[[END]], %c1000 : index
// CHECK: %[[FULL:.*]] = arith.addi %[[S]], %c16 : index
// CHECK: %[[ROOM:.*]] = arith.cmpi ule, %[[FULL]], %c100 : index
// CHECK: %[[MORE:.*]] = arith.andi %[[IN]], %[[ROOM]] : i1
// CHECK: scf.condition(%[[MORE]]) %[[I]], %[[S]]
// CHECK: } do {
// CHECK: ^bb0(%[[VI:.*]]: index, %[[VS:.*]]: index):
// CHECK: vector.load %[[MASK]][%[[VI]]] : memref<1000xi8>, vector<16xi8>
// CHECK: vector.compressstore %{{.*}}[%[[VS]]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[VI]], %c16 : index
// CHECK: scf.yield %[[NEXT]], %{{.*}} : index, index
// CHECK: scf.while (%{{.*}} = %[[V]]#0, %{{.*}} = %[[V]]#1)
// CHECK: arith.cmpi ult
// CHECK: memref.store
func.func @compact_while(%mask: memref<1000xi8>) -> (memref<100xi64>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %c1000 = arith.constant 1000 : index
  %out = memref.alloc() : memref<100xi64>
  %r:2 = scf.while (%i = %c0, %s = %c0) : (index, index) -> (index, index) {
    %room = arith.cmpi ult, %s, %c100 : index
    %in = arith.cmpi ult, %i, %c1000 : index
    %more = arith.andi %in, %room : i1
    scf.condition(%more) %i, %s : index, index
  } do {
  ^bb0(%i: index, %s: index):
    %p = arith.index_cast %i : index to i64
    memref.store %p, %out[%s] : memref<100xi64>
    %m = memref.load %mask[%i] : memref<1000xi8>
    %b = arith.trunci %m : i8 to i1
    %inc = arith.index_castui %b : i1 to index
    %s2 = arith.addi %s, %inc : index
    %i2 = arith.addi %i, %c1 : index
    scf.yield %i2, %s2 : index, index
  }
  return %out, %r#1 : memref<100xi64>, index
}

// -----

// A while loop whose condition reads memory is not a counted compaction.
// CHECK-LABEL: func.func @while_reads
// CHECK-NOT: vector
func.func @while_reads(%mask: memref<1000xi8>, %stop: memref<1000xi8>) -> (memref<1000xi64>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  %out = memref.alloc() : memref<1000xi64>
  %r:2 = scf.while (%i = %c0, %s = %c0) : (index, index) -> (index, index) {
    %in = arith.cmpi ult, %i, %c1000 : index
    %x = memref.load %stop[%c0] : memref<1000xi8>
    %go = arith.trunci %x : i8 to i1
    %more = arith.andi %in, %go : i1
    scf.condition(%more) %i, %s : index, index
  } do {
  ^bb0(%i: index, %s: index):
    %p = arith.index_cast %i : index to i64
    memref.store %p, %out[%s] : memref<1000xi64>
    %m = memref.load %mask[%i] : memref<1000xi8>
    %b = arith.trunci %m : i8 to i1
    %inc = arith.index_castui %b : i1 to index
    %s2 = arith.addi %s, %inc : index
    %i2 = arith.addi %i, %c1 : index
    scf.yield %i2, %s2 : index, index
  }
  return %out, %r#1 : memref<1000xi64>, index
}
