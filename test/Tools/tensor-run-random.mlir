// Tests tensor-run's generated inputs (--random, --seed, --dynamic-size),
// scalar arguments (--arg), the default function and --repeat.

// The same seed gives the same inputs, a different seed different ones.
// RUN: tensor-run %s -e scale --random --seed 7 --output-dir %t.s7a
// RUN: tensor-run %s -e scale --random --seed 7 --output-dir %t.s7b
// RUN: tensor-run %s -e scale --random --seed 8 --output-dir %t.s8
// RUN: cmp %t.s7a/result0.npy %t.s7b/result0.npy
// RUN: not cmp %t.s7a/result0.npy %t.s8/result0.npy

// Random floats lie in [0, 1): scaled by 2 they lie in [0, 2); '?' extents
// take --dynamic-size.
// RUN: tensor-run %s -e scale --random --arg k=2 --dynamic-size 100 | FileCheck %s --check-prefix=SCALE
// SCALE: result 0: f32 [100] min {{0(\.[0-9]+)?(e-[0-9]+)?}} max {{1(\.[0-9]+)?}} mean {{0\.[5-9][0-9]*|1(\.[0-9]+)?}}
func.func @scale(%a: tensor<?xf32>, %k: f32) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
    ^bb0(%x: f32, %o: f32):
      %m = arith.mulf %x, %k : f32
      linalg.yield %m : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// Random integers lie in [0, 16): their maximum over 1000 draws is 15.
// RUN: tensor-run %s -e max_of --random --dynamic-size 1000 | FileCheck %s --check-prefix=INTS
// INTS: result 0: i32 [] = 15
func.func @max_of(%a: tensor<?xi32>) -> i32 {
  %lowest = arith.constant -2147483648 : i32
  %init = tensor.empty() : tensor<i32>
  %fill = linalg.fill ins(%lowest : i32) outs(%init : tensor<i32>)
            -> tensor<i32>
  %r = linalg.reduce ins(%a : tensor<?xi32>) outs(%fill : tensor<i32>)
         dimensions = [0]
    (%in: i32, %acc: i32) {
      %m = arith.maxsi %in, %acc : i32
      linalg.yield %m : i32
    }
  %v = tensor.extract %r[] : tensor<i32>
  return %v : i32
}

// Scalars by SSA name or index; --print-limit cuts the listing.
// RUN: tensor-run %s -e iota --arg %%n=20 --arg 1=3 --print-limit 4 | FileCheck %s --check-prefix=IOTA
// IOTA: @iota: 2 argument(s), 2 result(s)
// IOTA-NEXT: result 0: i64 [20] min 0 max 57 sum 570
// IOTA-NEXT: [0, 3, 6, 9, ... (16 more)]
// IOTA-NEXT: result 1: i64 [] = 60
func.func @iota(%n: i64, %step: i32) -> (tensor<?xi64>, i64) {
  %len = arith.index_cast %n : i64 to index
  %s = arith.extsi %step : i32 to i64
  %r = tensor.generate %len {
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i64
    %m = arith.muli %v, %s : i64
    tensor.yield %m : i64
  } : tensor<?xi64>
  %twice = arith.muli %n, %s : i64
  return %r, %twice : tensor<?xi64>, i64
}

// --repeat prints the time per call and the compile time; -O0 compiles too.
// RUN: tensor-run %s -e iota --arg n=5 --arg step=1 --repeat 5 -O0 | FileCheck %s --check-prefix=TIME
// TIME: result 1: i64 [] = 5
// TIME: time per call: min {{[0-9.]+}} ms, median {{[0-9.]+}} ms (5 calls)
// TIME-NEXT: compile time: {{[0-9.]+}} ms
// --warmup calls first without timing them: still 5 timed calls.
// RUN: tensor-run %s -e iota --arg n=5 --arg step=1 --warmup 2 --repeat 5 | FileCheck %s --check-prefix=TIME

// @main runs when -e is not given.
// RUN: tensor-run %s | FileCheck %s --check-prefix=MAIN
// MAIN: @main: 0 argument(s), 1 result(s)
// MAIN-NEXT: result 0: f64 [2, 2] min -2 max 5 mean 1.5
// MAIN-NEXT: [-2, 0, 5, 3]
func.func @main() -> tensor<2x2xf64> {
  %c = arith.constant dense<[[-1.0, 0.0], [2.5, 1.5]]> : tensor<2x2xf64>
  %e = tensor.empty() : tensor<2x2xf64>
  %r = linalg.add ins(%c, %c : tensor<2x2xf64>, tensor<2x2xf64>)
                  outs(%e : tensor<2x2xf64>) -> tensor<2x2xf64>
  return %r : tensor<2x2xf64>
}
