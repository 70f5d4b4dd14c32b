// The CPU pipeline's compress-element-bits: the widths given get compress
// stores (one per compaction store: a compress in registers and a masked
// store, --sift-compress-in-registers, or LLVM's masked.compressstore with
// compress-in-registers=0); 0 turns the pass off; empty asks the host (not
// checked here: hosts differ).
//
// RUN: tensor-opt %s --sift-cpu-pipeline="compress-element-bits=32,64" | FileCheck %s --check-prefix=REGISTERS
// RUN: tensor-opt %s --sift-cpu-pipeline="compress-element-bits=32,64 compress-in-registers=0" | FileCheck %s --check-prefix=ON
// RUN: tensor-opt %s --sift-cpu-pipeline="compress-element-bits=0" | FileCheck %s --check-prefix=OFF
// RUN: tensor-opt %s --sift-cpu-pipeline="compress-element-bits=8" | FileCheck %s --check-prefix=OFF

// REGISTERS: llvm.call_intrinsic "llvm.experimental.vector.compress"
// REGISTERS: llvm.intr.masked.store
// REGISTERS-NOT: compressstore
// ON: llvm.intr.masked.compressstore
// OFF-NOT: llvm.intr.masked.compressstore
func.func @nonzero(%m: tensor<?xi1>) -> tensor<?xi64> {
  %r = sift.nonzero %m : tensor<?xi1> -> tensor<?xi64>
  return %r : tensor<?xi64>
}
