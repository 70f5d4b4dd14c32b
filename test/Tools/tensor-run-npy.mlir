// Tests tensor-run on .npy inputs: dtypes, ranks, header versions, Fortran
// order, and .npy outputs. The inputs are written with the standard library.

// RUN: %python -c "import struct,sys; h=str({'descr': '<f4', 'fortran_order': False, 'shape': (4,)}); h=h+' '*(117-len(h))+chr(10); open(sys.argv[1],'wb').write(bytes([147])+b'NUMPY'+bytes([1,0])+struct.pack('<H',len(h))+h.encode()+struct.pack('<4f',1,2,3,4.5))" %t.a.npy
// RUN: %python -c "import struct,sys; h=str({'descr': '<f4', 'fortran_order': False, 'shape': (4,)}); h=h+' '*(115-len(h))+chr(10); open(sys.argv[1],'wb').write(bytes([147])+b'NUMPY'+bytes([2,0])+struct.pack('<I',len(h))+h.encode()+struct.pack('<4f',10,20,30,40))" %t.b.npy
// RUN: tensor-run %s -e add --input %t.a.npy --input %t.b.npy | FileCheck %s --check-prefix=ADD
// ADD: @add: 2 argument(s), 1 result(s)
// ADD-NEXT: result 0: f32 [4] min 11 max 44.5 mean 27.625
// ADD-NEXT: [11, 22, 33, 44.5]
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>)
                  outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// The result as .npy, read back with the standard library.
// RUN: tensor-run %s -e add --input %t.a.npy --input %t.b.npy --output-dir %t.out | FileCheck %s --check-prefix=WROTE
// WROTE: wrote {{.*}}result0.npy
// RUN: %python -c "import struct,sys; d=open(sys.argv[1],'rb').read(); n=d[8]+256*d[9]; print(d[:8] == bytes([147])+b'NUMPY'+bytes([1,0]), (10+n)%%64); print(d[10:10+n].decode().strip()); print(struct.unpack('<4f', d[10+n:]))" %t.out/result0.npy | FileCheck %s --check-prefix=NPY
// NPY: True 0
// NPY-NEXT: {'descr': '<f4', 'fortran_order': False, 'shape': (4,), }
// NPY-NEXT: (11.0, 22.0, 33.0, 44.5)

// The output reads back as an input.
// RUN: tensor-run %s -e add --input %t.out/result0.npy --input %t.out/result0.npy | FileCheck %s --check-prefix=BACK
// BACK: [22, 44, 66, 89]

// int64 in C and Fortran order: the same 2x3 matrix [[0, 1, 2], [3, 4, 5]].
// RUN: %python -c "import struct,sys; h=str({'descr': '<i8', 'fortran_order': False, 'shape': (2, 3)}); h=h+' '*(117-len(h))+chr(10); open(sys.argv[1],'wb').write(bytes([147])+b'NUMPY'+bytes([1,0])+struct.pack('<H',len(h))+h.encode()+struct.pack('<6q',0,1,2,3,4,5))" %t.c.npy
// RUN: %python -c "import struct,sys; h=str({'descr': '<i8', 'fortran_order': True, 'shape': (2, 3)}); h=h+' '*(117-len(h))+chr(10); open(sys.argv[1],'wb').write(bytes([147])+b'NUMPY'+bytes([1,0])+struct.pack('<H',len(h))+h.encode()+struct.pack('<6q',0,3,1,4,2,5))" %t.f.npy
// RUN: tensor-run %s -e row_sums --input %t.c.npy | FileCheck %s --check-prefix=ROWS
// RUN: tensor-run %s -e row_sums --input %t.f.npy | FileCheck %s --check-prefix=ROWS
// ROWS: result 0: i64 [2] min 3 max 12 sum 15
// ROWS-NEXT: [3, 12]
func.func @row_sums(%a: tensor<?x3xi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i64
  %n = tensor.dim %a, %c0 : tensor<?x3xi64>
  %init = tensor.empty(%n) : tensor<?xi64>
  %fill = linalg.fill ins(%zero : i64) outs(%init : tensor<?xi64>)
            -> tensor<?xi64>
  %r = linalg.reduce ins(%a : tensor<?x3xi64>) outs(%fill : tensor<?xi64>)
         dimensions = [1]
    (%in: i64, %acc: i64) {
      %s = arith.addi %in, %acc : i64
      linalg.yield %s : i64
    }
  return %r : tensor<?xi64>
}

// Booleans in, booleans out ('|b1').
// RUN: %python -c "import struct,sys; h=str({'descr': '|b1', 'fortran_order': False, 'shape': (5,)}); h=h+' '*(117-len(h))+chr(10); open(sys.argv[1],'wb').write(bytes([147])+b'NUMPY'+bytes([1,0])+struct.pack('<H',len(h))+h.encode()+bytes([1,0,0,1,1]))" %t.m.npy
// RUN: tensor-run %s -e negate --input %t.m.npy | FileCheck %s --check-prefix=BOOL
// BOOL: result 0: i1 [5] true 2/5
// BOOL-NEXT: [false, true, true, false, false]
func.func @negate(%m: tensor<?xi1>) -> tensor<?xi1> {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  %n = tensor.dim %m, %c0 : tensor<?xi1>
  %e = tensor.empty(%n) : tensor<?xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%m : tensor<?xi1>) outs(%e : tensor<?xi1>) {
    ^bb0(%x: i1, %o: i1):
      %y = arith.xori %x, %true : i1
      linalg.yield %y : i1
  } -> tensor<?xi1>
  return %r : tensor<?xi1>
}

// Bytes ('|u1' for an i8 argument) and a scalar result.
// RUN: %python -c "import struct,sys; h=str({'descr': '|u1', 'fortran_order': False, 'shape': (3,)}); h=h+' '*(117-len(h))+chr(10); open(sys.argv[1],'wb').write(bytes([147])+b'NUMPY'+bytes([1,0])+struct.pack('<H',len(h))+h.encode()+bytes([7,8,9]))" %t.u.npy
// RUN: tensor-run %s -e first --input %t.u.npy | FileCheck %s --check-prefix=BYTE
// BYTE: result 0: i8 [] = 7
func.func @first(%a: tensor<3xi8>) -> i8 {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %a[%c0] : tensor<3xi8>
  return %v : i8
}
