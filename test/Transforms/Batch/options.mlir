// The options of --sift-batch that do not fit the function or the module.
// RUN: not tensor-opt %s --sift-batch="size=2" 2>&1 | FileCheck %s --check-prefix=WHICH
// RUN: not tensor-opt %s --sift-batch="func=g size=2 unbatched=5,1" 2>&1 | FileCheck %s --check-prefix=POSITION
// RUN: tensor-opt %s --sift-batch="func=g size=2 unbatched=0 name=g_rows" | FileCheck %s --check-prefix=NAME

// WHICH: error: --sift-batch: the module has 2 functions; say which with func=NAME
// POSITION: error: 'func.func' op --sift-batch: unbatched=5 is not an argument position (the function has 1)
// NAME: func.func @g_rows(%{{.*}}: tensor<4xf32>) -> tensor<2x4xf32>

func.func @f() {
  return
}
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
