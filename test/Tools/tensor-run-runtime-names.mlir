// A function may not take the name of a symbol that the sift runtime gives
// the compiled code (memrefCopy, sift_rt_error, the allocator's functions),
// public or private: a clear error, not an abort of the JIT's linker. A
// function that -e leaves out is dropped before it could clash.
// RUN: not tensor-run %s -e memrefCopy --arg x=3 2>&1 | FileCheck %s --check-prefix=PUBLIC
// PUBLIC: tensor-run: error: JIT compilation failed: the module defines a symbol that the sift runtime provides ({{.*}}duplicate definition of symbol 'memrefCopy'{{.*}}): rename the function
// RUN: not tensor-run %s -e twice --arg x=3 2>&1 | FileCheck %s --check-prefix=PRIVATE
// PRIVATE: tensor-run: error: JIT compilation failed: the module defines a symbol that the sift runtime provides ({{.*}}duplicate definition of symbol 'sift_rt_error'{{.*}}): rename the function
// RUN: tensor-run %s -e thrice --arg x=3 | FileCheck %s --check-prefix=OTHER
// OTHER: result 0: i64 [] = 9

func.func @memrefCopy(%x: i64) -> i64 {
  return %x : i64
}

func.func private @sift_rt_error(%x: i64) -> i64 {
  %r = arith.addi %x, %x : i64
  return %r : i64
}

func.func @twice(%x: i64) -> i64 {
  %r = func.call @sift_rt_error(%x) : (i64) -> i64
  return %r : i64
}

func.func @thrice(%x: i64) -> i64 {
  %c3 = arith.constant 3 : i64
  %r = arith.muli %x, %c3 : i64
  return %r : i64
}
