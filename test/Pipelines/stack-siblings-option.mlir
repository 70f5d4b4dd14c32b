// The CPU pipeline's `stack-siblings` option: the minimum line length of
// --sift-stack-siblings (65536 by default), 0 leaving the pass out. Two
// independent argsorts of one line of 65536 elements run as the two lines
// of one argsort by default, stay apart when the minimum is above their
// length, and the pass is not in the pipeline at 0. (The pipeline's
// prefetch distances, 8 KB and 32 KB by default, are listed with it.)
//
// RUN: tensor-opt %s --sift-cpu-pipeline --mlir-print-ir-after=sift-stack-siblings -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: tensor-opt %s '--sift-cpu-pipeline=stack-siblings=70000' --mlir-print-ir-after=sift-stack-siblings -o /dev/null 2>&1 | FileCheck %s --check-prefix=LONGER
// RUN: tensor-opt %s --sift-cpu-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PASSES
// RUN: tensor-opt %s '--sift-cpu-pipeline=stack-siblings=0' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF

// DEFAULT-LABEL: func.func @argsorts
// DEFAULT: tensor.concat dim(0) %{{.*}}, %{{.*}} : (tensor<1x65536xf32>, tensor<1x65536xf32>) -> tensor<2x65536xf32>
// DEFAULT: sift.argsort %{{.*}} {dim = 1 : i64} : tensor<2x65536xf32> -> tensor<2x65536xi64>
// DEFAULT-NOT: sift.argsort
// LONGER-LABEL: func.func @argsorts
// LONGER-NOT: tensor.concat
// LONGER-COUNT-2: sift.argsort %{{.*}} : tensor<65536xf32> -> tensor<65536xi64>
// PASSES: sift-stack-siblings{min-length=65536}
// PASSES: sift-prefetch-streams{distance=8192 far-distance=32768 indirect-distance=128 line-loads=true}
// OFF-NOT: sift-stack-siblings
// OFF: sift-prefetch-streams
func.func @argsorts(%x: tensor<65536xf32>, %y: tensor<65536xf32>)
    -> (tensor<65536xi64>, tensor<65536xi64>) {
  %a = sift.argsort %x : tensor<65536xf32> -> tensor<65536xi64>
  %b = sift.argsort %y : tensor<65536xf32> -> tensor<65536xi64>
  return %a, %b : tensor<65536xi64>, tensor<65536xi64>
}
