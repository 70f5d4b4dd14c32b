// --sift-prefetch-streams: a vector loop that streams through memory
// prefetches `distance` bytes ahead in the allocation its buffer views,
// one prefetch per cache line of the vector, clamped to the last element.
//
// RUN: tensor-opt %s -split-input-file --sift-prefetch-streams | FileCheck %s
// RUN: tensor-opt %s -split-input-file '--sift-prefetch-streams=distance=0 indirect-distance=0' | FileCheck %s --check-prefix=OFF
// RUN: tensor-opt %s -split-input-file '--sift-prefetch-streams=far-distance=32768' | FileCheck %s --check-prefix=FAR
// RUN: tensor-opt %s -split-input-file '--sift-prefetch-streams=line-loads=false' | FileCheck %s --check-prefix=NOLINE

// A loop over the rows of a matrix, each row read in vectors of 32 f32
// (128 bytes: two lines) by an inner loop, as cross_entropy's log-sum-exp
// is after bufferization. The prefetched index is in the whole matrix seen
// flat (made once, at the function's entry): the read's offset in it (the
// row's view offset plus the column) plus 8192 bytes = 2048 elements, and
// 2064 for the second line, at most the last element (so the rows after
// the current one are prefetched, and nothing past the matrix).
// CHECK-LABEL: func.func @rows
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<64x1000xf32> into memref<64000xf32>
// CHECK: %[[N:.*]] = memref.dim %[[FLAT]], %{{.*}}
// CHECK: %[[LAST:.*]] = arith.subi %[[N]], %{{.*}}
// CHECK: scf.for %[[R:[a-z0-9_]+]] =
// CHECK: %[[ROW:.*]] = memref.subview %arg0[%[[R]], 0] [1, 1000] [1, 1]
// CHECK: scf.for %[[C:[a-z0-9_]+]] =
// CHECK: %{{[a-z_0-9]+}}, %[[OFFSET:[a-z_0-9]+]], %{{[a-z_0-9]+}}, %[[STRIDE:[a-z_0-9]+]] = memref.extract_strided_metadata %[[ROW]]
// CHECK: %[[SCALED:.*]] = arith.muli %[[C]], %[[STRIDE]]
// CHECK: %[[AT:.*]] = arith.addi %[[OFFSET]], %[[SCALED]]
// CHECK: %[[C2048:.*]] = arith.constant 2048 : index
// CHECK: %[[AHEAD:.*]] = arith.addi %[[AT]], %[[C2048]]
// CHECK: %[[CLAMPED:.*]] = arith.minui %[[AHEAD]], %[[LAST]]
// CHECK: memref.prefetch %[[FLAT]][%[[CLAMPED]]], read, locality<3>, data
// CHECK: %[[C2064:.*]] = arith.constant 2064 : index
// CHECK: %[[AHEAD2:.*]] = arith.addi %[[AT]], %[[C2064]]
// CHECK: %[[CLAMPED2:.*]] = arith.minui %[[AHEAD2]], %[[LAST]]
// CHECK: memref.prefetch %[[FLAT]][%[[CLAMPED2]]], read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read %[[ROW]][%[[C]]]
// With far-distance, a second prefetch of each line into the L2 (locality
// 2), 32768 bytes = 8192 elements ahead, after the L1 ones.
// FAR-LABEL: func.func @rows
// FAR: memref.prefetch %{{.*}}, read, locality<3>, data
// FAR: memref.prefetch %{{.*}}, read, locality<3>, data
// FAR: %[[C8192:.*]] = arith.constant 8192 : index
// FAR: arith.addi %{{.*}}, %[[C8192]]
// FAR: memref.prefetch %{{.*}}, read, locality<2>, data
// FAR: %[[C8208:.*]] = arith.constant 8208 : index
// FAR: arith.addi %{{.*}}, %[[C8208]]
// FAR: memref.prefetch %{{.*}}, read, locality<2>, data
// FAR-NOT: memref.prefetch
// FAR: vector.transfer_read
// OFF-LABEL: func.func @rows
// OFF-NOT: memref.prefetch
func.func @rows(%x: memref<64x1000xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c992 = arith.constant 992 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<32xf32>
  scf.for %r = %c0 to %c64 step %c1 {
    %row = memref.subview %x[%r, 0] [1, 1000] [1, 1]
        : memref<64x1000xf32> to memref<1000xf32, strided<[1], offset: ?>>
    %sum = scf.for %c = %c0 to %c992 step %c32 iter_args(%acc = %zero) -> (vector<32xf32>) {
      %v = vector.transfer_read %row[%c], %pad {in_bounds = [true]}
          : memref<1000xf32, strided<[1], offset: ?>>, vector<32xf32>
      %s = arith.addf %acc, %v : vector<32xf32>
      scf.yield %s : vector<32xf32>
    }
    %t = vector.reduction <add>, %sum : vector<32xf32> into f32
    memref.store %t, %out[%r] : memref<64xf32>
  }
  return
}

// -----

// Short rows, read whole at fixed columns by a loop over the rows (an
// scf.parallel, as cross_entropy at C = 100 is): each read streams with
// the row loop and prefetches its two lines 8 KB ahead, clamped to the
// last element. A read at a column that is neither constant nor a streaming
// loop's (%k, from memory) prefetches nothing.
// CHECK-LABEL: func.func @short_rows
// CHECK: scf.parallel (%[[R:.*]]) =
// CHECK: %[[ROW:.*]] = memref.subview %arg0[%[[R]], 0] [1, 20] [1, 1]
// CHECK: %[[C2048:.*]] = arith.constant 2048 : index
// CHECK: memref.prefetch %{{.*}}, read, locality<3>, data
// CHECK: %[[C2064:.*]] = arith.constant 2064 : index
// CHECK: memref.prefetch %{{.*}}, read, locality<3>, data
// CHECK-NEXT: vector.transfer_read %[[ROW]][%c0
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read %[[ROW]][%{{.*}}]
// OFF-LABEL: func.func @short_rows
// OFF-NOT: memref.prefetch
func.func @short_rows(%x: memref<100x20xf32>, %out: memref<100xf32>,
                      %col: memref<100xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %pad = arith.constant 0.0 : f32
  scf.parallel (%r) = (%c0) to (%c100) step (%c1) {
    %row = memref.subview %x[%r, 0] [1, 20] [1, 1]
        : memref<100x20xf32> to memref<20xf32, strided<[1], offset: ?>>
    %v = vector.transfer_read %row[%c0], %pad
        : memref<20xf32, strided<[1], offset: ?>>, vector<32xf32>
    %s = vector.reduction <add>, %v : vector<32xf32> into f32
    %k = memref.load %col[%r] : memref<100xindex>
    %w = vector.transfer_read %row[%k], %pad
        : memref<20xf32, strided<[1], offset: ?>>, vector<4xf32>
    %e = vector.extract %w[0] : f32 from vector<4xf32>
    %t = arith.addf %s, %e : f32
    memref.store %t, %out[%r] : memref<100xf32>
    scf.reduce
  }
  return
}

// -----

// A step that reads two vectors of 16 f32 (a line each), at c and c + 16:
// each read prefetches its own line 8 KB ahead.
// CHECK-LABEL: func.func @two_vectors_a_step
// CHECK: scf.for %[[C:[a-z0-9_]+]] =
// CHECK: memref.prefetch
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read %{{.*}}[%[[C]]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[C]], %{{.*}} : index
// CHECK: %[[SCALED:.*]] = arith.muli %[[NEXT]], %{{.*}}
// CHECK: memref.prefetch
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read %{{.*}}[%[[NEXT]]]
// OFF-LABEL: func.func @two_vectors_a_step
// OFF-NOT: memref.prefetch
func.func @two_vectors_a_step(%x: memref<4096xf32>) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %sum = scf.for %c = %c0 to %c4096 step %c32 iter_args(%acc = %zero) -> (vector<16xf32>) {
    %v = vector.transfer_read %x[%c], %pad {in_bounds = [true]}
        : memref<4096xf32>, vector<16xf32>
    %next = arith.addi %c, %c16 : index
    %u = vector.transfer_read %x[%next], %pad {in_bounds = [true]}
        : memref<4096xf32>, vector<16xf32>
    %s = arith.addf %acc, %v : vector<16xf32>
    %t = arith.addf %s, %u : vector<16xf32>
    scf.yield %t : vector<16xf32>
  }
  return %sum : vector<16xf32>
}

// -----

// A vector of 8 f32 covers one line: one prefetch, in the buffer itself
// (a fresh allocation). Reads that do not stream are left alone: one at a
// loop-invariant index, one outside any loop, one along a strided (not
// contiguous) dimension.
// CHECK-LABEL: func.func @one_line_and_not_streaming
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<4096xf32>
// CHECK-NOT: memref.collapse_shape
// CHECK: scf.for
// CHECK: memref.prefetch %[[BUF]]
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @one_line_and_not_streaming(%i: index,
    %cols: memref<100x100xf32, strided<[1, 100]>>) -> vector<8xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<8xf32>
  %buf = memref.alloc() : memref<4096xf32>
  %a = scf.for %c = %c0 to %c4096 step %c8 iter_args(%acc = %zero) -> (vector<8xf32>) {
    %v = vector.transfer_read %buf[%c], %pad {in_bounds = [true]} : memref<4096xf32>, vector<8xf32>
    %w = vector.transfer_read %buf[%i], %pad {in_bounds = [true]} : memref<4096xf32>, vector<8xf32>
    %x = vector.transfer_read %cols[%i, %c], %pad {in_bounds = [true]} : memref<100x100xf32, strided<[1, 100]>>, vector<8xf32>
    %s = arith.addf %acc, %v : vector<8xf32>
    %t = arith.addf %s, %w : vector<8xf32>
    %u = arith.addf %t, %x : vector<8xf32>
    scf.yield %u : vector<8xf32>
  }
  %once = vector.transfer_read %buf[%c0], %pad {in_bounds = [true]} : memref<4096xf32>, vector<8xf32>
  %r = arith.addf %a, %once : vector<8xf32>
  return %r : vector<8xf32>
}

// -----

// A gather of rows, as sift.gather's lowering is after bufferization: a
// parallel loop over (row, j) loads idx[row, j] and copies the source row
// it names when it is in range. After the load, the loop also loads
// idx[row, min(j + 128, 99)] (the index buffer's last element) and
// prefetches the source row that index names, clamped to the source's
// rows (a padding index such as -1 prefetches the last row): a row of 16
// f32 is 64 bytes, one line where it starts on a line and two where it
// does not (a NumPy array's data is 16 bytes into a page), so its first
// and its last element.
// CHECK-LABEL: func.func @gather_rows
// CHECK: scf.parallel (%[[B:[a-z0-9_]+]], %[[J:[a-z0-9_]+]]) =
// CHECK: %[[I:.*]] = memref.load %arg1[%[[B]], %[[J]]] : memref<4x100xi64>
// CHECK: %[[N:.*]] = memref.dim %arg1, %{{.*}} : memref<4x100xi64>
// CHECK: %[[LASTJ:.*]] = arith.subi %[[N]], %{{.*}}
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: %[[JA:.*]] = arith.addi %[[J]], %[[C128]]
// CHECK: %[[JN:.*]] = arith.minui %[[JA]], %[[LASTJ]]
// CHECK: %[[NEXT:.*]] = memref.load %arg1[%[[B]], %[[JN]]] : memref<4x100xi64>
// CHECK: %[[NEXTI:.*]] = arith.index_cast %[[NEXT]] : i64 to index
// CHECK: %[[ROWS:.*]] = memref.dim %arg0, %{{.*}} : memref<4x1000x16xf32>
// CHECK: %[[LASTROW:.*]] = arith.subi %[[ROWS]], %{{.*}}
// CHECK: %[[ROW:.*]] = arith.minui %[[NEXTI]], %[[LASTROW]]
// CHECK: memref.prefetch %arg0[%[[B]], %[[ROW]], %[[C0:.*]]], read, locality<3>, data : memref<4x1000x16xf32>
// CHECK: %[[C15:.*]] = arith.constant 15 : index
// CHECK: %[[LASTCOL:.*]] = arith.addi %[[C0]], %[[C15]] : index
// CHECK: memref.prefetch %arg0[%[[B]], %[[ROW]], %[[LASTCOL]]], read, locality<3>, data : memref<4x1000x16xf32>
// CHECK-NOT: memref.prefetch
// CHECK: memref.copy
// OFF-LABEL: func.func @gather_rows
// OFF-NOT: memref.prefetch
func.func @gather_rows(%src: memref<4x1000x16xf32>, %idx: memref<4x100xi64>,
                       %out: memref<4x100x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c100 = arith.constant 100 : index
  %n = arith.constant 1000 : i64
  %zero = arith.constant 0 : i64
  scf.parallel (%b, %j) = (%c0, %c0) to (%c4, %c100) step (%c1, %c1) {
    %i = memref.load %idx[%b, %j] : memref<4x100xi64>
    %lo = arith.cmpi sge, %i, %zero : i64
    %hi = arith.cmpi slt, %i, %n : i64
    %ok = arith.andi %lo, %hi : i1
    %dst = memref.subview %out[%b, %j, 0] [1, 1, 16] [1, 1, 1]
        : memref<4x100x16xf32> to memref<16xf32, strided<[1], offset: ?>>
    scf.if %ok {
      %r = arith.index_cast %i : i64 to index
      %row = memref.subview %src[%b, %r, 0] [1, 1, 16] [1, 1, 1]
          : memref<4x1000x16xf32> to memref<16xf32, strided<[1], offset: ?>>
      memref.copy %row, %dst : memref<16xf32, strided<[1], offset: ?>> to memref<16xf32, strided<[1], offset: ?>>
    }
    scf.reduce
  }
  return
}

// -----

// A gather of scalars in an scf.for prefetches one element; a loop of
// step 2 and a load whose value is not an index of another buffer get
// nothing.
// CHECK-LABEL: func.func @gather_scalars
// CHECK: scf.for %[[J:[a-z0-9_]+]] =
// CHECK: memref.load %arg1[%[[J]]]
// CHECK: %[[NEXT:.*]] = memref.load %arg1[%{{.*}}] : memref<64xindex>
// CHECK: %[[AT:.*]] = arith.minui %[[NEXT]], %{{.*}}
// CHECK: memref.prefetch %arg0[%[[AT]]], read, locality<3>, data : memref<1000xf32>
// CHECK: memref.load %arg0
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @gather_scalars(%src: memref<1000xf32>, %idx: memref<64xindex>,
                          %out: memref<64xf32>, %plain: memref<64xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  scf.for %j = %c0 to %c64 step %c1 {
    %i = memref.load %idx[%j] : memref<64xindex>
    %v = memref.load %src[%i] : memref<1000xf32>
    memref.store %v, %out[%j] : memref<64xf32>
  }
  scf.for %j = %c0 to %c64 step %c2 {
    %i = memref.load %idx[%j] : memref<64xindex>
    %v = memref.load %src[%i] : memref<1000xf32>
    memref.store %v, %out[%j] : memref<64xf32>
  }
  scf.for %j = %c0 to %c64 step %c1 {
    %p = memref.load %plain[%j] : memref<64xi64>
    %q = arith.addi %p, %p : i64
    memref.store %q, %plain[%j] : memref<64xi64>
  }
  return
}

// -----

// A gather through a guarded index, as a staticized `pos[perm[:count]]` is
// after bufferization: perm[j] is chosen for j < count (else 0), kept when
// in range (else 0) and cast before it indexes the source. The prefetch
// follows the index through the selects and the casts, prefetches the
// element perm[j + 32] names (clamped: a guard's other choice is a row of
// the source all the same) and leaves the guards alone. An index that is
// only compared, or offset by arithmetic, is not followed.
// CHECK-LABEL: func.func @gather_guarded
// CHECK: scf.for %[[J:[a-z0-9_]+]] =
// CHECK: %[[P:.*]] = memref.load %arg1[%[[J]]] : memref<100xi64>
// CHECK: %[[NEXT:.*]] = memref.load %arg1[%{{.*}}] : memref<100xi64>
// CHECK: %[[NEXTI:.*]] = arith.index_cast %[[NEXT]] : i64 to index
// CHECK: %[[AT:.*]] = arith.minui %[[NEXTI]], %{{.*}}
// CHECK: memref.prefetch %arg0[%[[AT]]], read, locality<3>, data : memref<1000xi32>
// CHECK: arith.select %{{.*}}, %[[P]], %{{.*}} : i64
// CHECK: memref.load %arg0
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @gather_guarded(%src: memref<1000xi32>, %perm: memref<100xi64>,
                          %count: i64, %out: memref<100xi64>,
                          %flags: memref<100xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant 0 : i64
  %zero32 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %n = arith.constant 1000 : i64
  scf.for %j = %c0 to %c100 step %c1 {
    %p = memref.load %perm[%j] : memref<100xi64>
    %j64 = arith.index_cast %j : index to i64
    %valid = arith.cmpi slt, %j64, %count : i64
    %q = arith.select %valid, %p, %zero : i64
    %lo = arith.cmpi sge, %q, %zero : i64
    %hi = arith.cmpi slt, %q, %n : i64
    %ok = arith.andi %lo, %hi : i1
    %r = arith.select %ok, %q, %zero : i64
    %i = arith.index_cast %r : i64 to index
    %v = memref.load %src[%i] : memref<1000xi32>
    %w = arith.select %ok, %v, %zero32 : i32
    %x = arith.extsi %w : i32 to i64
    memref.store %x, %out[%j] : memref<100xi64>
  }
  scf.for %j = %c0 to %c100 step %c1 {
    %f = memref.load %flags[%j] : memref<100xi64>
    %set = arith.cmpi ne, %f, %zero : i64
    %pick = arith.select %set, %one, %zero : i64
    %next = arith.addi %f, %one : i64
    %i = arith.index_cast %next : i64 to index
    %v = memref.load %out[%i] : memref<100xi64>
    memref.store %pick, %out[%j] : memref<100xi64>
    memref.store %v, %flags[%j] : memref<100xi64>
  }
  return
}

// -----

// A read through an index into a view made in the loop's body (each row's
// target logit, as cross_entropy reads it): the view of iteration j + 32
// is not this one, so nothing is prefetched through it.
// CHECK-LABEL: func.func @per_iteration_source
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @per_iteration_source(%x: memref<64x1000xf32>, %t: memref<64xi64>,
                                %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%r) = (%c0) to (%c64) step (%c1) {
    %row = memref.subview %x[%r, 0] [1, 1000] [1, 1]
        : memref<64x1000xf32> to memref<1000xf32, strided<[1], offset: ?>>
    %target = memref.load %t[%r] : memref<64xi64>
    %i = arith.index_cast %target : i64 to index
    %v = memref.load %row[%i] : memref<1000xf32, strided<[1], offset: ?>>
    memref.store %v, %out[%r] : memref<64xf32>
    scf.reduce
  }
  return
}

// -----

// A compaction's vector loop (--sift-vectorize-compactions) in a routine
// whose line is an argument with a dynamic offset: each vector.load of 16
// i64 (two lines) prefetches both lines 8 KB (1024 elements) ahead in the
// argument itself, clamped to its last element; with line-loads=false,
// nothing. The scalar epilogue's loads are not vector loads.
// CHECK-LABEL: func.func @compaction_line
// CHECK: %[[LAST:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: scf.for %[[I:[a-z0-9_]+]] =
// CHECK: %[[C1024:.*]] = arith.constant 1024 : index
// CHECK: %[[A:.*]] = arith.addi %[[I]], %[[C1024]]
// CHECK: %[[M:.*]] = arith.minui %[[A]], %[[LAST]]
// CHECK: memref.prefetch %arg0[%[[M]]], read, locality<3>, data
// CHECK: %[[C1032:.*]] = arith.constant 1032 : index
// CHECK: arith.addi %[[I]], %[[C1032]]
// CHECK: memref.prefetch %arg0[%{{.*}}], read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: vector.load %arg0[%[[I]]]
// NOLINE-LABEL: func.func @compaction_line
// NOLINE-NOT: memref.prefetch
func.func @compaction_line(%line: memref<4096xi64, strided<[1], offset: ?>>,
                           %out: memref<4096xi32>) -> index {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  %one = arith.constant dense<1> : vector<16xi64>
  %n = scf.for %i = %c0 to %c4096 step %c16 iter_args(%slot = %c0) -> (index) {
    %v = vector.load %line[%i] : memref<4096xi64, strided<[1], offset: ?>>, vector<16xi64>
    %keep = arith.cmpi eq, %v, %one : vector<16xi64>
    %b = vector.broadcast %i : index to vector<16xindex>
    %s = vector.step : vector<16xindex>
    %pos = arith.addi %b, %s : vector<16xindex>
    %p32 = arith.index_cast %pos : vector<16xindex> to vector<16xi32>
    vector.compressstore %out[%slot], %keep, %p32 : memref<4096xi32>, vector<16xi1>, vector<16xi32>
    %bits = vector.bitcast %keep : vector<16xi1> to vector<1xi16>
    %w = vector.extract %bits[0] : i16 from vector<1xi16>
    %cnt = math.ctpop %w : i16
    %c = arith.index_castui %cnt : i16 to index
    %next = arith.addi %slot, %c : index
    scf.yield %next : index
  }
  return %n : index
}

// -----

// Blocks of rows read class by class (cross_entropy's short rows: 16 rows
// of 10 classes a step of a unit-step loop over the groups, each class one
// strided gather with constant offsets): the first class's gather, at the
// step's start (the loop's induction variable times 160), prefetches the
// block's ten lines 8 KB ahead, clamped to the last element; the gathers of
// the other classes (at the start plus the class loop's induction variable)
// prefetch nothing, nor does a gather at an index that is not the loop's.
// CHECK-LABEL: func.func @row_blocks
// CHECK: %[[LAST:.*]] = arith.subi %{{.*}}, %c1 : index
// CHECK: scf.parallel (%[[G:.*]]) =
// CHECK: %[[BASE:.*]] = arith.muli %[[G]], %{{.*}} : index
// CHECK: %[[OFFSET:.*]] = arith.addi %[[BASE]], %{{.*}} : index
// CHECK: %[[AT:.*]] = arith.addi %{{.*}}, %[[OFFSET]] : index
// CHECK: %[[C2048:.*]] = arith.constant 2048 : index
// CHECK: %[[A0:.*]] = arith.addi %[[AT]], %[[C2048]] : index
// CHECK: %[[P0:.*]] = arith.minui %[[A0]], %[[LAST]] : index
// CHECK: memref.prefetch %arg0[%[[P0]]], read, locality<3>, data
// CHECK: arith.constant 2064 : index
// CHECK-COUNT-8: memref.prefetch %arg0
// CHECK: arith.constant 2192 : index
// CHECK: memref.prefetch %arg0
// CHECK-NOT: memref.prefetch
// CHECK: vector.gather %arg0[%[[BASE]]]
// CHECK: scf.for
// CHECK-NOT: memref.prefetch
// CHECK: vector.gather
// CHECK: return
// OFF-LABEL: func.func @row_blocks
// OFF-NOT: memref.prefetch
// NOLINE-LABEL: func.func @row_blocks
func.func @row_blocks(%x: memref<1600xf32>, %out: memref<100xf32>,
                      %k: memref<index>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c100 = arith.constant 100 : index
  %c160 = arith.constant 160 : index
  %pad = arith.constant dense<0.0> : vector<16xf32>
  %mask = arith.constant dense<true> : vector<16xi1>
  %offsets = arith.constant dense<[0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150]> : vector<16xi32>
  scf.parallel (%g) = (%c0) to (%c10) step (%c1) {
    %base = arith.muli %g, %c160 : index
    %x0 = vector.gather %x[%base] [%offsets], %mask, %pad
        : memref<1600xf32>, vector<16xi32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
    %sum = scf.for %c = %c1 to %c10 step %c1 iter_args(%acc = %x0) -> (vector<16xf32>) {
      %at = arith.addi %base, %c : index
      %xc = vector.gather %x[%at] [%offsets], %mask, %pad
          : memref<1600xf32>, vector<16xi32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
      %s = arith.addf %acc, %xc : vector<16xf32>
      scf.yield %s : vector<16xf32>
    }
    %kk = memref.load %k[] : memref<index>
    %xk = vector.gather %x[%kk] [%offsets], %mask, %pad
        : memref<1600xf32>, vector<16xi32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
    %t = arith.addf %sum, %xk : vector<16xf32>
    %r = vector.reduction <add>, %t : vector<16xf32> into f32
    memref.store %r, %out[%g] : memref<100xf32>
    scf.reduce
  }
  return
}
