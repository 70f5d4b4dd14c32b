// REQUIRES: cuda-driver
// On a machine with a CUDA device: the elementwise kernel runs and gives
// the CPU's results (same inputs from the same seed).
//
// RUN: tensor-run %s --target cuda --random --seed 3 --output-dir %t.cuda
// RUN: tensor-run %s --target cpu --random --seed 3 --output-dir %t.cpu
// RUN: python3 -c "import numpy as n, sys; a=n.load('%t.cuda/result0.npy'); b=n.load('%t.cpu/result0.npy'); sys.exit(0 if n.allclose(a, b, rtol=1e-5) else 1)"
// With --repeat, the kernels' own time (CUDA events) too: one launch.
// RUN: tensor-run %s --target cuda --random --repeat 3 | FileCheck %s
// CHECK: device time per call: min {{[0-9.]+}} ms, median {{[0-9.]+}} ms (1 kernel launches per call)
func.func @exp_add(%a: tensor<1000xf32>, %b: tensor<1000xf32>)
    -> tensor<1000xf32> {
  %e = math.exp %a : tensor<1000xf32>
  %s = arith.addf %e, %b : tensor<1000xf32>
  return %s : tensor<1000xf32>
}
