// tensor-run --transforms runs source passes before compiling: the per-sample
// function below is staticized and batched, and the batched function runs.
// Row i of the counts is the number of non-negative values of row i.
// RUN: %python -c "import struct,sys; h=str({'descr': '<i8', 'fortran_order': False, 'shape': (3, 6)}); h=h+' '*(117-len(h))+chr(10); open(sys.argv[1],'wb').write(bytes([147])+b'NUMPY'+bytes([1,0])+struct.pack('<H',len(h))+h.encode()+struct.pack('<18q',1,-2,3,-4,5,6,-1,-1,-1,-1,-1,-1,0,0,0,0,0,0))" %t.x.npy
// RUN: tensor-run %s --transforms="sift-staticize,sift-batch{func=keep size=3}" -e keep_batched --input %t.x.npy | FileCheck %s
// CHECK: @keep_batched: 1 argument(s), 2 result(s)
// CHECK: result 0: i64 [3, 6]
// CHECK-NEXT: [1, 3, 5, 6,
// CHECK: result 1: i64 [3] min 0 max 6 sum 10
// CHECK-NEXT: [4, 0, 6]

// A transform that fails is an error with its diagnostic.
// RUN: not tensor-run %s --transforms="sift-batch{func=keep size=0}" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: --sift-batch needs a batch size: size=N with N > 0
func.func @keep(%x: tensor<6xi64>) -> tensor<?xi64> {
  %z = arith.constant dense<0> : tensor<6xi64>
  %m = arith.cmpi sge, %x, %z : tensor<6xi64>
  %r = sift.masked_select %x, %m : tensor<6xi64>, tensor<6xi1> -> tensor<?xi64>
  return %r : tensor<?xi64>
}
