// tensor-run's compile cache: the second run of the same program loads the
// code the first stored, and says so; --no-compile-cache compiles afresh and
// stores nothing; results are the same either way.
// RUN: rm -rf %t.cache
// RUN: env SIFT_CACHE_DIR=%t.cache tensor-run %s -e scale --random --repeat 2 | FileCheck %s --check-prefix=FIRST
// RUN: env SIFT_CACHE_DIR=%t.cache tensor-run %s -e scale --random --repeat 2 | FileCheck %s --check-prefix=HIT
// RUN: rm -rf %t.cache
// RUN: env SIFT_CACHE_DIR=%t.cache tensor-run %s -e scale --random --repeat 2 --no-compile-cache | FileCheck %s --check-prefix=OFF
// RUN: env SIFT_CACHE_DIR=%t.cache tensor-run %s -e scale --random --repeat 2 --no-compile-cache | FileCheck %s --check-prefix=OFF
// RUN: %python -c "import os, sys; d = sys.argv[1]; sys.exit(1 if os.path.isdir(d) and os.listdir(d) else 0)" %t.cache

// FIRST: result 0: f32 [4]
// FIRST: compile time: {{[0-9.]+}} ms{{$}}
// HIT: result 0: f32 [4]
// HIT: compile time: {{[0-9.]+}} ms (from the compile cache)
// OFF: result 0: f32 [4]
// OFF: compile time: {{[0-9.]+}} ms{{$}}
func.func @scale(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}
