// tensor-run --compile-timing reports the time of each compile stage, the
// lowering pass by pass; LLVM optimizes and generates code for the module's
// partitions on several threads, and the partitions link with each other:
// @main calls @twice and @offset, which may be compiled apart from it.
// RUN: tensor-run %s -e main --no-compile-cache --compile-timing 2> %t.timing | FileCheck %s
// RUN: FileCheck %s --check-prefix=TIMING < %t.timing
// The same with the module verified after each pass of the lowering (what
// the sanitizer stage of the tests asks for): the same result.
// RUN: env SIFT_VERIFY_EACH=1 tensor-run %s -e main --no-compile-cache | FileCheck %s

// CHECK: result 0: f32 [4] min 3 max 9 mean 6
// CHECK-NEXT: [3, 5, 7, 9]

// TIMING: Execution time report
// TIMING-DAG: parse
// TIMING-DAG: lowering to the LLVM dialect
// TIMING-DAG: OneShotBufferize
// TIMING-DAG: verify the lowered module
// TIMING-DAG: LLVM: translate, split
// TIMING-DAG: LLVM: optimize, generate code ({{[1-9][0-9]*}} partitions, {{[1-9][0-9]*}} threads)
// TIMING-DAG: LLVM: link, load
// TIMING: Total

func.func @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @offset(%a: tensor<4xf32>) -> tensor<4xf32> {
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %r = arith.addf %a, %one : tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @main() -> tensor<4xf32> {
  %x = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %t = func.call @twice(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %r = func.call @offset(%t) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
