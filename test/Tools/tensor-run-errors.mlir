// Tests that tensor-run reports bad input with a clear message and a non-zero
// exit status, never a crash.

func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>)
                  outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @scale(%a: tensor<?xf64>, %k: f64) -> f64 {
  return %k : f64
}

// RUN: %python -c "import struct,sys; h=str({'descr': '<f4', 'fortran_order': False, 'shape': (4,)}); h=h+' '*(117-len(h))+chr(10); open(sys.argv[1],'wb').write(bytes([147])+b'NUMPY'+bytes([1,0])+struct.pack('<H',len(h))+h.encode()+struct.pack('<4f',1,2,3,4))" %t.f4.npy
// RUN: %python -c "import struct,sys; h=str({'descr': '<f8', 'fortran_order': False, 'shape': (4,)}); h=h+' '*(117-len(h))+chr(10); open(sys.argv[1],'wb').write(bytes([147])+b'NUMPY'+bytes([1,0])+struct.pack('<H',len(h))+h.encode()+struct.pack('<4d',1,2,3,4))" %t.f8.npy
// RUN: %python -c "import struct,sys; h=str({'descr': '<f4', 'fortran_order': False, 'shape': (2, 2)}); h=h+' '*(117-len(h))+chr(10); open(sys.argv[1],'wb').write(bytes([147])+b'NUMPY'+bytes([1,0])+struct.pack('<H',len(h))+h.encode()+struct.pack('<4f',1,2,3,4))" %t.2x2.npy
// RUN: %python -c "import struct,sys; h=str({'descr': '<f4', 'fortran_order': False, 'shape': (5,)}); h=h+' '*(117-len(h))+chr(10); open(sys.argv[1],'wb').write(bytes([147])+b'NUMPY'+bytes([1,0])+struct.pack('<H',len(h))+h.encode()+struct.pack('<5f',1,2,3,4,5))" %t.f5.npy
// RUN: %python -c "import struct,sys; h=str({'descr': '<f4', 'fortran_order': False, 'shape': (8,)}); h=h+' '*(117-len(h))+chr(10); open(sys.argv[1],'wb').write(bytes([147])+b'NUMPY'+bytes([1,0])+struct.pack('<H',len(h))+h.encode()+struct.pack('<4f',1,2,3,4))" %t.short.npy
// RUN: %python -c "import struct,sys; h=str({'descr': '<c8', 'fortran_order': False, 'shape': (4,)}); h=h+' '*(117-len(h))+chr(10); open(sys.argv[1],'wb').write(bytes([147])+b'NUMPY'+bytes([1,0])+struct.pack('<H',len(h))+h.encode()+bytes(32))" %t.c8.npy
// RUN: %python -c "import struct,sys; h=str({'descr': '>f4', 'fortran_order': False, 'shape': (4,)}); h=h+' '*(117-len(h))+chr(10); open(sys.argv[1],'wb').write(bytes([147])+b'NUMPY'+bytes([1,0])+struct.pack('<H',len(h))+h.encode()+bytes(16))" %t.be.npy
// RUN: %python -c "import sys; open(sys.argv[1],'w').write('func.func @f(%%a: tensor<4xf32>) -> tensor<4xf32> {'+chr(10)+'  return %%b : tensor<4xf32>'+chr(10)+'}'+chr(10))" %t.bad.mlir

// RUN: not tensor-run %s -e add --input %t.f8.npy --input %t.f4.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: tensor-run: error: function 'add': argument 0: expected element type f32 (tensor<4xf32>), got f64

// RUN: not tensor-run %s -e add --input %t.f4.npy --input %t.2x2.npy 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: tensor-run: error: function 'add': argument 1: expected rank 1 (tensor<4xf32>), got rank 2 with shape [2, 2]

// RUN: not tensor-run %s -e add --input %t.f5.npy --input %t.f4.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: tensor-run: error: function 'add': argument 0: expected shape [4] (tensor<4xf32>), got [5] (dimension 0)

// RUN: not tensor-run %s -e add --input %t.short.npy --input %t.f4.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: tensor-run: error: '{{.*}}short.npy': truncated data: 8 elements of <f4 need 32 bytes, the file has 16

// RUN: not tensor-run %s -e add --input %t.c8.npy --input %t.f4.npy 2>&1 | FileCheck %s --check-prefix=C8
// C8: tensor-run: error: '{{.*}}c8.npy': unsupported dtype '<c8' (supported: <f4 <f8 <i8 <i4 <i2 |i1 |u1 |b1)

// RUN: not tensor-run %s -e add --input %t.be.npy --input %t.f4.npy 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: tensor-run: error: '{{.*}}be.npy': big-endian dtype '>f4' is not supported

// RUN: not tensor-run %s -e add --input %s --input %t.f4.npy 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: tensor-run: error: '{{.*}}tensor-run-errors.mlir': not a .npy file (bad magic)

// RUN: not tensor-run %s -e add --input %t.missing.npy 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: tensor-run: error: cannot open '{{.*}}missing.npy': No such file or directory

// RUN: not tensor-run %s -e add --input %t.f4.npy 2>&1 | FileCheck %s --check-prefix=NOINPUT
// NOINPUT: tensor-run: error: argument 1 (%b: tensor<4xf32>) has no input: give --input FILE.npy or --random

// RUN: not tensor-run %s -e add --input %t.f4.npy --input %t.f4.npy --input %t.f4.npy 2>&1 | FileCheck %s --check-prefix=TOOMANY
// TOOMANY: tensor-run: error: 3 --input files for 2 tensor argument(s) of @add

// RUN: not tensor-run %s -e scale --input %t.f8.npy 2>&1 | FileCheck %s --check-prefix=NOSCALAR
// NOSCALAR: tensor-run: error: argument 1 (%k: f64) has no value: give --arg k=VALUE or --random

// RUN: not tensor-run %s -e scale --input %t.f8.npy --arg k=abc 2>&1 | FileCheck %s --check-prefix=BADVALUE
// BADVALUE: tensor-run: error: --arg for argument 1 (%k: f64): 'abc' is not a number

// RUN: not tensor-run %s -e scale --input %t.f8.npy --arg q=1 2>&1 | FileCheck %s --check-prefix=BADNAME
// BADNAME: tensor-run: error: --arg 'q=1': @scale has no argument named 'q'

// RUN: not tensor-run %s -e scale --arg a=1 2>&1 | FileCheck %s --check-prefix=TENSORARG
// TENSORARG: tensor-run: error: --arg 'a=1': argument 0 (%a: tensor<?xf64>) is a tensor; give it with --input

// RUN: not tensor-run %s -e nope 2>&1 | FileCheck %s --check-prefix=NOFUNC
// NOFUNC: tensor-run: error: no function 'nope' in the module (functions: add, scale)

// RUN: not tensor-run %s 2>&1 | FileCheck %s --check-prefix=NOENTRY
// NOENTRY: tensor-run: error: the module has 2 functions and none is @main: choose one with -e (add, scale)

// Without a CUDA driver (SIFT_CUDA_DISABLE=1 acts as if there were none)
// the cuda target compiles, then stops (test/GPU/cuda-target.mlir).
// RUN: env SIFT_CUDA_DISABLE=1 not tensor-run %s -e add --random --target cuda 2>&1 | FileCheck %s --check-prefix=CUDA
// CUDA: tensor-run: error: no CUDA driver/device: libcuda.so.1 not loaded (SIFT_CUDA_DISABLE=1)

// RUN: not tensor-run %s -e add --random --target tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: tensor-run: error: unknown target 'tpu' (expected cpu or cuda)

// RUN: not tensor-run %s -e add --random --repeat 0 2>&1 | FileCheck %s --check-prefix=REPEAT
// REPEAT: tensor-run: error: --repeat must be at least 1

// RUN: not tensor-run %s -e add --random --pipeline bogus-pass 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: tensor-run: error: bad pipeline 'bogus-pass'

// RUN: not tensor-run %t.bad.mlir 2>&1 | FileCheck %s --check-prefix=BADIR
// BADIR: tensor-run: error: failed to parse MLIR source:
// BADIR-NEXT: {{.*}}bad.mlir:2:10: error: use of undeclared SSA value name

// RUN: not tensor-run %t.nonexistent.mlir 2>&1 | FileCheck %s --check-prefix=NOMLIR
// NOMLIR: tensor-run: error: cannot open '{{.*}}nonexistent.mlir': No such file or directory
