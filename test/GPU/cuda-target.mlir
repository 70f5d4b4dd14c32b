// tensor-run --target cuda compiles with the GPU pipeline, then, without a
// CUDA driver or device, stops with a clear error (never a crash).
// SIFT_CUDA_DISABLE=1 makes the runtime act as if libcuda.so.1 were
// missing, so the check holds on machines with a GPU too; on this one the
// plain run says why the driver is missing.
//
// RUN: env SIFT_CUDA_DISABLE=1 not tensor-run %s --target cuda --random 2>&1 | FileCheck %s --check-prefix=DISABLED
// RUN: %if !cuda-driver %{ not tensor-run %s --target cuda --random 2>&1 | FileCheck %s --check-prefix=NODRIVER %}
// RUN: %if cuda-driver %{ tensor-run %s --target cuda --random --seed 1 | FileCheck %s --check-prefix=DEVICE %}
// RUN: %if cuda-driver %{ tensor-run %s --target cpu --random --seed 1 | FileCheck %s --check-prefix=DEVICE %}

// DISABLED: tensor-run: error: no CUDA driver/device: libcuda.so.1 not loaded (SIFT_CUDA_DISABLE=1)
// NODRIVER: tensor-run: error: no CUDA driver/device: {{.*}}
// DEVICE: result 0: f32 [1000]
func.func @exp_add(%a: tensor<1000xf32>, %b: tensor<1000xf32>)
    -> tensor<1000xf32> {
  %e = math.exp %a : tensor<1000xf32>
  %s = arith.addf %e, %b : tensor<1000xf32>
  return %s : tensor<1000xf32>
}
