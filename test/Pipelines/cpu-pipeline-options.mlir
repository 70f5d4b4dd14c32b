// The options of --sift-cpu-pipeline reach the passes they configure.
//
// RUN: tensor-opt %s --sift-cpu-pipeline | FileCheck %s --check-prefix=DEFAULT
// RUN: tensor-opt %s '--sift-cpu-pipeline=num-threads=3' | FileCheck %s --check-prefix=THREADS
// RUN: tensor-opt %s '--sift-cpu-pipeline=enable-openmp=false' | FileCheck %s --check-prefix=SERIAL
// RUN: tensor-opt %s '--sift-cpu-pipeline=min-parallel-iterations=4' | FileCheck %s --check-prefix=MIN4
// RUN: tensor-opt %s '--sift-cpu-pipeline=reduction-lanes=0' | FileCheck %s --check-prefix=SEQSUM
// RUN: tensor-opt %s '--sift-cpu-pipeline=min-parallel-work=1' | FileCheck %s --check-prefix=WORK1

// By default both dimensions of a 4x8192 loop nest run on one OpenMP team
// (4 rows are fewer than 32 parallel iterations), with the runtime's number
// of threads; min-parallel-iterations=4 keeps only the rows parallel;
// without OpenMP every loop runs on the calling thread.
// DEFAULT-LABEL: llvm.func @add
// DEFAULT: omp.parallel {
// DEFAULT: omp.loop_nest (%{{.*}}, %{{.*}}) : i64
// THREADS-LABEL: llvm.func @add
// THREADS: %[[N:.*]] = llvm.mlir.constant(3 : i32) : i32
// THREADS: omp.parallel num_threads(%[[N]] : i32)
// SERIAL-LABEL: llvm.func @add
// SERIAL-NOT: omp.
// MIN4-LABEL: llvm.func @add
// MIN4: omp.loop_nest (%{{[^,]*}}) : i64
func.func @add(%a: tensor<4x8192xf32>, %b: tensor<4x8192xf32>) -> tensor<4x8192xf32> {
  %c = arith.addf %a, %b : tensor<4x8192xf32>
  return %c : tensor<4x8192xf32>
}

// A float sum of 4096 values is blocked into 256 lanes unless
// reduction-lanes=0.
// DEFAULT-LABEL: llvm.func @sum
// DEFAULT: llvm.mlir.constant(256 : index)
// SEQSUM-LABEL: llvm.func @sum
// MIN4-LABEL: llvm.func @sum
// SEQSUM-NOT: 256
// SEQSUM: llvm.return
func.func @sum(%a: tensor<4096xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce ins(%a : tensor<4096xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%x: f32, %y: f32) {
      %z = arith.addf %x, %y : f32
      linalg.yield %z : f32
    }
  return %s : tensor<f32>
}

// A loop of 4 iterations is less work than a fork of threads costs: it
// runs on the calling thread unless min-parallel-work allows it.
// DEFAULT-LABEL: llvm.func @tiny
// DEFAULT-NOT: omp.
// DEFAULT: llvm.return
// WORK1-LABEL: llvm.func @tiny
// WORK1: omp.parallel
func.func @tiny(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.addf %a, %b : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// A gather of rows prefetches the row it will read indirect-prefetch-distance
// iterations later (128 by default); 0 leaves the prefetch out.
// RUN: tensor-opt %s -split-input-file --sift-cpu-pipeline | FileCheck %s --check-prefix=GATHER
// RUN: tensor-opt %s -split-input-file '--sift-cpu-pipeline=indirect-prefetch-distance=7' | FileCheck %s --check-prefix=GATHER7
// RUN: tensor-opt %s -split-input-file '--sift-cpu-pipeline=indirect-prefetch-distance=0' | FileCheck %s --check-prefix=NOGATHER
// GATHER-LABEL: llvm.func @gather_rows
// GATHER: llvm.mlir.constant(128 : index)
// GATHER: "llvm.intr.prefetch"
// GATHER7-LABEL: llvm.func @gather_rows
// GATHER7: llvm.mlir.constant(7 : index)
// GATHER7: "llvm.intr.prefetch"
// NOGATHER-LABEL: llvm.func @gather_rows
// NOGATHER-NOT: llvm.intr.prefetch
func.func @gather_rows(%f: tensor<4x1000x16xf32>, %i: tensor<4x100xi64>) -> tensor<4x100x16xf32> {
  %o = sift.gather %f[%i] {batch_dims = 1 : i64} : tensor<4x1000x16xf32>, tensor<4x100xi64> -> tensor<4x100x16xf32>
  return %o : tensor<4x100x16xf32>
}
