// The CPU pipeline's compress-element-bits: the widths given get compress
// stores (one per compaction store, as LLVM's masked.compressstore); 0 turns
// the pass off; empty asks the host (not checked here: hosts differ).
//
// RUN: tensor-opt %s --sift-cpu-pipeline="compress-element-bits=32,64" | FileCheck %s --check-prefix=ON
// RUN: tensor-opt %s --sift-cpu-pipeline="compress-element-bits=0" | FileCheck %s --check-prefix=OFF
// RUN: tensor-opt %s --sift-cpu-pipeline="compress-element-bits=8" | FileCheck %s --check-prefix=OFF

// ON: llvm.intr.masked.compressstore
// OFF-NOT: llvm.intr.masked.compressstore
func.func @nonzero(%m: tensor<?xi1>) -> tensor<?xi64> {
  %r = sift.nonzero %m : tensor<?xi1> -> tensor<?xi64>
  return %r : tensor<?xi64>
}
