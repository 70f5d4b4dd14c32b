// Tests tensor-run on hostile inputs at the JIT boundary: every class is a
// clear error naming the values (or a correct result), never a crash or
// garbage. One section per class of issue 10 section 3.

// RUN: %python %S/Inputs/write_npy.py %t.x43.npy '<f4' 4,3 0,0.25,0.5,0.75,1,1.25,1.5,1.75,2,2.25,2.5,2.75
// RUN: %python %S/Inputs/write_npy.py %t.t4.npy '<i8' 4 0,1,2,1
// RUN: %python %S/Inputs/write_npy.py %t.t3.npy '<i8' 3 0,1,2
// RUN: %python %S/Inputs/write_npy.py %t.t5.npy '<i8' 5 0,1,2,1,0

func.func @ce(%x: tensor<?x3xf32>, %t: tensor<?xi64>) -> tensor<f32> {
  %m = sift.cross_entropy %x, %t reduction = mean : tensor<?x3xf32>, tensor<?xi64> -> tensor<f32>
  return %m : tensor<f32>
}
func.func @ce_none(%x: tensor<?x3xf32>, %t: tensor<?xi64>) -> tensor<?xf32> {
  %m = sift.cross_entropy %x, %t reduction = none : tensor<?x3xf32>, tensor<?xi64> -> tensor<?xf32>
  return %m : tensor<?xf32>
}
func.func @ce_big(%x: tensor<4096x3xf32>, %t: tensor<4096xi64>) -> tensor<4096xf32> {
  %r = sift.cross_entropy %x, %t reduction = none : tensor<4096x3xf32>, tensor<4096xi64> -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}
func.func @ce_weighted(%x: tensor<?x?xf32>, %t: tensor<?xi64>, %w: tensor<?xf32>) -> tensor<f32> {
  %m = sift.cross_entropy %x, %t weight(%w : tensor<?xf32>) reduction = mean : tensor<?x?xf32>, tensor<?xi64> -> tensor<f32>
  return %m : tensor<f32>
}
func.func @nonzero(%x: tensor<?xi1>) -> tensor<?xi64> {
  %n = sift.nonzero %x : tensor<?xi1> -> tensor<?xi64>
  return %n : tensor<?xi64>
}
func.func @randperm(%n: index, %seed: i64) -> tensor<?xi64> {
  %p = sift.randperm %n, %seed : tensor<?xi64>
  return %p : tensor<?xi64>
}
func.func @randperm_sort(%n: index, %seed: i64) -> tensor<?xi64> {
  %p = sift.randperm %n, %seed sort : tensor<?xi64>
  return %p : tensor<?xi64>
}
func.func @randperm_bounded(%n: index {sift.bound = 8 : i64}, %seed: i64) -> tensor<?xi64> {
  %p = sift.randperm %n, %seed : tensor<?xi64>
  return %p : tensor<?xi64>
}
func.func @topk(%x: tensor<?xf32>) -> (tensor<3xf32>, tensor<3xi64>) {
  %v, %i = sift.topk %x k(3) : tensor<?xf32> -> tensor<3xf32>, tensor<3xi64>
  return %v, %i : tensor<3xf32>, tensor<3xi64>
}
func.func @copy(%x: tensor<?xi64>) -> tensor<?xi64> {
  return %x : tensor<?xi64>
}
func.func @matvec(%m: tensor<?x?xf32>, %v: tensor<?xf32>, %acc: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.matvec ins(%m, %v : tensor<?x?xf32>, tensor<?xf32>) outs(%acc : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @select(%x: tensor<?xi64>, %m: tensor<?xi1>) -> tensor<?xi64> {
  %r = sift.masked_select %x, %m : tensor<?xi64>, tensor<?xi1> -> tensor<?xi64>
  return %r : tensor<?xi64>
}
func.func @gather_rows(%x: tensor<?x3xf32>, %i: tensor<?x2xi64>) -> tensor<?x2xf32> {
  %r = sift.gather %x[%i] {batch_dims = 1 : i64} : tensor<?x3xf32>, tensor<?x2xi64> -> tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}
func.func @sizes_bounded(%n: tensor<?xi64> {sift.bound = 8 : i64}) -> tensor<?xi64> {
  return %n : tensor<?xi64>
}
func.func @huge_static() -> tensor<17592186044416xi64> {
  %c = arith.constant 7 : i64
  %e = tensor.empty() : tensor<17592186044416xi64>
  %f = linalg.fill ins(%c : i64) outs(%e : tensor<17592186044416xi64>) -> tensor<17592186044416xi64>
  return %f : tensor<17592186044416xi64>
}

// == Element and byte counts that overflow: a .npy header whose byte count
// wraps to 0 mod 2^64, a 2-D one, and --dynamic-size.
// RUN: %python %S/Inputs/write_npy.py %t.wrap1.npy '<i8' 2305843009213693952 0,0,0,0
// RUN: not tensor-run %s -e copy --input %t.wrap1.npy 2>&1 | FileCheck %s --check-prefix=WRAP1
// WRAP1: tensor-run: error: '{{.*}}wrap1.npy': shape [2305843009213693952] of i64 is too large (its size in bytes overflows a 64-bit integer)
// RUN: %python %S/Inputs/write_npy.py %t.wrap2.npy '<f4' 4611686018427387904,3 0,0,0
// RUN: not tensor-run %s -e ce --input %t.wrap2.npy --input %t.t3.npy 2>&1 | FileCheck %s --check-prefix=WRAP2
// WRAP2: tensor-run: error: '{{.*}}wrap2.npy': shape [4611686018427387904, 3] of f32 is too large
// RUN: %python %S/Inputs/write_npy.py %t.short.npy '<i8' 1000 1,2
// RUN: not tensor-run %s -e copy --input %t.short.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: error: '{{.*}}short.npy': truncated data: 1000 elements of <i8 need 8000 bytes, the file has 16
// RUN: not tensor-run %s -e ce --random --dynamic-size=4611686018427387904 2>&1 | FileCheck %s --check-prefix=DYNWRAP
// DYNWRAP: tensor-run: error: the random input for argument 0 (%x: tensor<?x3xf32>) (--dynamic-size=4611686018427387904): shape [4611686018427387904, 3] of f32 is too large

// == Requests that cannot be allocated (2^48 bytes and more: beyond the
// address space of any machine) are errors: host inputs, buffers of compiled
// code (randperm), static results; a static type beyond any address space is
// rejected before running.
// RUN: not tensor-run %s -e copy --random --dynamic-size=35184372088832 2>&1 | FileCheck %s --check-prefix=HOSTOOM
// HOSTOOM: tensor-run: error: out of memory: cannot allocate 281474976710656 bytes for a tensor of shape [35184372088832] of i64
// RUN: not tensor-run %s -e randperm_sort --arg n=1125899906842624 --arg seed=1 2>&1 | FileCheck %s --check-prefix=JITOOM
// JITOOM: tensor-run: error: function 'randperm_sort': out of memory: cannot allocate a buffer of {{[0-9]+}} bytes
// RUN: not tensor-run %s -e huge_static 2>&1 | FileCheck %s --check-prefix=STATICOOM
// STATICOOM: tensor-run: error: function 'huge_static': out of memory: cannot allocate a buffer of 140737488355{{[0-9]+}} bytes
// RUN: not tensor-run %S/Inputs/too-large-static.mlir 2>&1 | FileCheck %s --check-prefix=TOOLARGE
// TOOLARGE: error: type tensor<9223372036854775807xi1> is larger than any address space (281474976710656 bytes)

// == Errors raised on an OpenMP worker thread reach the caller: an
// out-of-range target in the last row of 4096 (and of 4), with one thread
// and with the default number.
// RUN: %python %S/Inputs/write_npy.py %t.xbig.npy '<f4' 4096,3 0.5*12288
// RUN: %python %S/Inputs/write_npy.py %t.tbig.npy '<i8' 4096 1*4095,3
// RUN: not tensor-run %s -e ce_big --input %t.xbig.npy --input %t.tbig.npy 2>&1 | FileCheck %s --check-prefix=WORKER
// RUN: env OMP_NUM_THREADS=1 not tensor-run %s -e ce_big --input %t.xbig.npy --input %t.tbig.npy 2>&1 | FileCheck %s --check-prefix=WORKER
// WORKER: tensor-run: error: function 'ce_big': runtime error: cross_entropy: target 3 in row 4095 is outside [0, 3)
// RUN: %python %S/Inputs/write_npy.py %t.tlast.npy '<i8' 4 0,1,2,3
// RUN: not tensor-run %s -e ce_none --input %t.x43.npy --input %t.tlast.npy 2>&1 | FileCheck %s --check-prefix=LAST
// LAST: tensor-run: error: function 'ce_none': runtime error: cross_entropy: target 3 in row 3 is outside [0, 3)
// RUN: %python %S/Inputs/write_npy.py %t.tneg.npy '<i8' 4 0,-7,2,1
// RUN: not tensor-run %s -e ce --input %t.x43.npy --input %t.tneg.npy 2>&1 | FileCheck %s --check-prefix=NEGT
// NEGT: runtime error: cross_entropy: target -7 in row 1 is outside [0, 3)

// == Dynamic extents the IR requires to be equal: rows of logits and
// targets (both ways), class weights and classes.
// RUN: not tensor-run %s -e ce --input %t.x43.npy --input %t.t3.npy 2>&1 | FileCheck %s --check-prefix=ROWS43
// ROWS43: tensor-run: error: function 'ce': runtime error: cross_entropy: the logits have 4 rows but the targets have 3 elements
// RUN: not tensor-run %s -e ce_none --input %t.x43.npy --input %t.t5.npy 2>&1 | FileCheck %s --check-prefix=ROWS45
// ROWS45: runtime error: cross_entropy: the logits have 4 rows but the targets have 5 elements
// RUN: %python %S/Inputs/write_npy.py %t.w2.npy '<f4' 2 1,1
// RUN: not tensor-run %s -e ce_weighted --input %t.x43.npy --input %t.t4.npy --input %t.w2.npy 2>&1 | FileCheck %s --check-prefix=WEIGHTS
// WEIGHTS: runtime error: cross_entropy: the class weights have 2 elements, the logits 3 classes
// Any op on dynamic operands: the extents it requires equal are checked
// before it reads them (--sift-check-extents), named with the op's line.
func.func @add(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  %r = arith.addi %a, %b : tensor<?xi64>
  return %r : tensor<?xi64>
}
// RUN: not tensor-run %s -e add --input %t.t4.npy --input %t.t3.npy 2>&1 | FileCheck %s --check-prefix=ADD
// ADD: runtime error: the operands of the op at line [[# @LINE - 4]] disagree on an extent: 4 and 3
// RUN: tensor-run %s -e add --input %t.t4.npy --input %t.t4.npy | FileCheck %s --check-prefix=ADDOK
// ADDOK: result 0: i64 [4] min 0 max 4 sum 8
// RUN: %python %S/Inputs/write_npy.py %t.v4.npy '<f4' 4 1,1,1,1
// RUN: not tensor-run %s -e matvec --input %t.x43.npy --input %t.v4.npy --input %t.v4.npy 2>&1 | FileCheck %s --check-prefix=MATVEC
// MATVEC: runtime error: the operands of the op at line {{[0-9]+}} disagree on an extent: 3 and 4
// sift ops check the extents they relate: a mask against its data, the
// batch dimensions of a gather.
// RUN: %python %S/Inputs/write_npy.py %t.m3.npy '|b1' 3 raw:010001
// RUN: not tensor-run %s -e select --input %t.t4.npy --input %t.m3.npy 2>&1 | FileCheck %s --check-prefix=SELECT
// SELECT: runtime error: the operands of the op at line {{[0-9]+}} disagree on an extent: 4 and 3
// RUN: %python %S/Inputs/write_npy.py %t.i32.npy '<i8' 3,2 0,1,2,0,1,1
// RUN: not tensor-run %s -e gather_rows --input %t.x43.npy --input %t.i32.npy 2>&1 | FileCheck %s --check-prefix=GATHER
// GATHER: runtime error: the operands of the op at line {{[0-9]+}} disagree on an extent: 4 and 3
// The matching call is fine (NumPy: mean of log(sum(exp(x))) - x[t]).
// RUN: tensor-run %s -e ce --input %t.x43.npy --input %t.t4.npy | FileCheck %s --check-prefix=CEOK
// CEOK: result 0: f32 [] = 1.11934

// == i1 inputs with bytes other than 0 and 1 read as true (NumPy).
// RUN: %python %S/Inputs/write_npy.py %t.b.npy '|b1' 6 raw:0002ff01000a
// RUN: tensor-run %s -e nonzero --input %t.b.npy | FileCheck %s --check-prefix=BOOL
// BOOL: result 0: i64 [4] min 1 max 5 sum 11
// BOOL-NEXT: [1, 2, 3, 5]

// == Sizes out of range: randperm n < 0 and too large, topk k above the
// input's size (also empty), a size above its declared {sift.bound}.
// RUN: not tensor-run %s -e randperm --arg n=-1 --arg seed=1 2>&1 | FileCheck %s --check-prefix=RPNEG
// RPNEG: tensor-run: error: function 'randperm': runtime error: randperm: n = -1 is negative
// RUN: not tensor-run %s -e randperm_sort --arg n=4611686018427387904 --arg seed=1 2>&1 | FileCheck %s --check-prefix=RPBIG
// RPBIG: runtime error: randperm: n = 4611686018427387904 is too large (at most 72057594037927936)
// RUN: not tensor-run %s -e randperm --arg n=4294967297 --arg seed=1 2>&1 | FileCheck %s --check-prefix=RPBIGF
// RPBIGF: tensor-run: error: function 'randperm': runtime error: randperm: n = 4294967297 is too large (at most 4294967296)
// RUN: %python %S/Inputs/write_npy.py %t.x2.npy '<f4' 2 3,1
// RUN: not tensor-run %s -e topk --input %t.x2.npy 2>&1 | FileCheck %s --check-prefix=TOPK
// TOPK: tensor-run: error: function 'topk': runtime error: topk: k = 3 exceeds the input's size 2
// RUN: %python %S/Inputs/write_npy.py %t.x0.npy '<f4' 0
// RUN: not tensor-run %s -e topk --input %t.x0.npy 2>&1 | FileCheck %s --check-prefix=TOPK0
// TOPK0: runtime error: topk: k = 3 exceeds the input's size 0
// RUN: %python %S/Inputs/write_npy.py %t.x5.npy '<f4' 5 3,nan,7,2,9
// RUN: tensor-run %s -e topk --input %t.x5.npy | FileCheck %s --check-prefix=TOPK5
// TOPK5: [nan, 9, 7]
// TOPK5: [1, 4, 2]
// RUN: not tensor-run %s -e randperm_bounded --arg n=9 --arg seed=1 2>&1 | FileCheck %s --check-prefix=BOUND
// BOUND: tensor-run: error: function 'randperm_bounded': argument 0: value 9 exceeds its declared bound {sift.bound = 8}
// RUN: not tensor-run %s -e randperm_bounded --arg n=-2 --arg seed=1 2>&1 | FileCheck %s --check-prefix=BOUNDNEG
// BOUNDNEG: argument 0: value -2 is negative; its declared bound is {sift.bound = 8}
// RUN: tensor-run %s -e randperm_bounded --arg n=8 --arg seed=1 | FileCheck %s --check-prefix=BOUNDOK
// BOUNDOK: result 0: i64 [8] min 0 max 7 sum 28
// Per-row sizes of a batched function keep the bound (--sift-batch), and
// every element is checked.
// RUN: %python %S/Inputs/write_npy.py %t.n3.npy '<i8' 3 3,20,1
// RUN: not tensor-run %s -e sizes_bounded --input %t.n3.npy 2>&1 | FileCheck %s --check-prefix=ROWBOUND
// ROWBOUND: argument 0: element 1 is 20, outside [0, 8] of its declared bound {sift.bound = 8}
// RUN: %python %S/Inputs/write_npy.py %t.nneg.npy '<i8' 2 0,-1
// RUN: not tensor-run %s -e sizes_bounded --input %t.nneg.npy 2>&1 | FileCheck %s --check-prefix=ROWBOUNDNEG
// ROWBOUNDNEG: argument 0: element 1 is -1, outside [0, 8]

// == What a user tries next: NaN logits give NaN (no error), an empty batch,
// int64 results whose sum overflows 64 bits (printed exactly).
// RUN: %python %S/Inputs/write_npy.py %t.xnan.npy '<f4' 2,3 nan,0,0,0,0,0
// RUN: %python %S/Inputs/write_npy.py %t.t2.npy '<i8' 2 0,1
// RUN: tensor-run %s -e ce_none --input %t.xnan.npy --input %t.t2.npy | FileCheck %s --check-prefix=NAN
// NAN: [nan, 1.09861]
// RUN: %python %S/Inputs/write_npy.py %t.x03.npy '<f4' 0,3
// RUN: %python %S/Inputs/write_npy.py %t.te.npy '<i8' 0
// RUN: tensor-run %s -e ce_none --input %t.x03.npy --input %t.te.npy | FileCheck %s --check-prefix=EMPTY
// EMPTY: result 0: f32 [0]
// RUN: %python %S/Inputs/write_npy.py %t.big.npy '<i8' 3 9223372036854775807,9223372036854775807,1
// RUN: tensor-run %s -e copy --input %t.big.npy | FileCheck %s --check-prefix=SUM
// SUM: result 0: i64 [3] min 1 max 9223372036854775807 sum 18446744073709551615
