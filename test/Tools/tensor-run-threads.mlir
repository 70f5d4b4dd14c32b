// --num-threads sets the team of every parallel loop (the CPU pipeline's
// num-threads): each element records the size of the team that wrote it.
// By default the OpenMP runtime may give a smaller team on a busy machine
// (load-balanced dynamic teams, see lib/JIT/CpuTarget.cpp); OMP_DYNAMIC=false
// makes the team exactly the size asked for.
//
// RUN: env OMP_DYNAMIC=false tensor-run %s -e team --random --num-threads 1 | FileCheck %s --check-prefix=ONE
// RUN: env OMP_DYNAMIC=false tensor-run %s -e team --random --num-threads 3 | FileCheck %s --check-prefix=THREE
// RUN: tensor-run %s -e team --random --num-threads 1 | FileCheck %s --check-prefix=ONE

// ONE: result 0: i32 [8192] min 1 max 1
// THREE: result 0: i32 [8192] min 3 max 3
func.func private @omp_get_num_threads() -> i32
func.func @team(%x: tensor<8192xi32>) -> tensor<8192xi32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%x : tensor<8192xi32>) {
  ^bb0(%o: i32):
    %n = func.call @omp_get_num_threads() : () -> i32
    linalg.yield %n : i32
  } -> tensor<8192xi32>
  return %r : tensor<8192xi32>
}

// The CPU backend turns on dynamic (load-balanced) teams unless the
// environment decides: omp_get_dynamic() is 1 by default, 0 with
// OMP_DYNAMIC=false.
// RUN: tensor-run %s -e dynamic | FileCheck %s --check-prefix=DYN
// RUN: env OMP_DYNAMIC=false tensor-run %s -e dynamic | FileCheck %s --check-prefix=FIXED
// DYN: result 0: i32 [] = 1
// FIXED: result 0: i32 [] = 0
func.func private @omp_get_dynamic() -> i32
func.func @dynamic() -> i32 {
  %d = func.call @omp_get_dynamic() : () -> i32
  return %d : i32
}
