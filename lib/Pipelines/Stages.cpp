//===- Stages.cpp - Stages shared by sift's pipelines ---------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Stages.h"

#include "sift/Conversion/Passes.h"
#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::sift;

void pipelines::addPasses(OpPassManager &pm, StringRef pipeline) {
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    llvm::report_fatal_error(llvm::Twine("sift: bad built-in pipeline '") +
                             pipeline + "': " + error);
}

void pipelines::addCleanup(OpPassManager &pm) {
  // Before every CSE, `tensor.empty` becomes `bufferization.alloc_tensor`:
  // CSE would otherwise replace a scratch tensor.empty inside a per-line
  // `scf.forall` body by an identical one outside it, and bufferization
  // then gives every thread the same buffer (tensor.empty has no contents
  // to conflict on). alloc_tensor allocates, so CSE leaves it in place.
  addPasses(pm, "canonicalize,empty-tensor-to-alloc-tensor,cse");
}

void pipelines::addSiftToLinalgStage(OpPassManager &pm, bool cpuForms) {
  // Every sift op becomes linalg/scf/arith/math/tensor code on tensors
  // (sorts, scans and selections as real algorithms), so the rest of the
  // pipeline only sees upstream dialects.
  ConvertSiftToLinalgOptions options;
  options.gatherRows = cpuForms;
  options.vectorLoops = cpuForms;
  pm.addPass(createConvertSiftToLinalg(options));
  // Element-wise arith/math ops on tensors become linalg.generic, which
  // bufferizes (arith on tensors does not).
  addPasses(pm, "func.func(convert-elementwise-to-linalg)");
  // Operand extents that must agree are checked before each op reads them.
  pm.addPass(createSiftCheckExtents());
}

void pipelines::addTensorFusionStage(OpPassManager &pm, int64_t reductionLanes,
                                     bool lanesOuter, bool recomputeProducers) {
  // Fold what is constant before anything grows.
  addCleanup(pm);
  // Fuse producer/consumer elementwise linalg ops (comparisons, shifts,
  // selects of the same shape) into single loops: one pass over memory
  // instead of one per op.
  addPasses(pm, "func.func(linalg-fuse-elementwise-ops)");
  SiftFuseCheapProducersOptions cheap;
  cheap.broadcastProducers = recomputeProducers;
  cheap.gatheredProducers = recomputeProducers;
  pm.addNestedPass<func::FuncOp>(createSiftFuseCheapProducers(cheap));
  // Element-wise ops that read the same tensor (two masks of one labels
  // tensor) become one op: one pass over it.
  pm.addNestedPass<func::FuncOp>(createSiftFuseSiblings());
  // One cleanup for both fusions and the blocked reductions: the code of
  // the examples and pattern programs comes out the same as with a cleanup
  // after each, for less compile time (docs/Performance.md).
  addCleanup(pm);
  // Float sums in blocked order (accuracy; the lanes also vectorize).
  SiftBlockFloatReductionsOptions blocked;
  blocked.lanes = reductionLanes;
  blocked.lanesOuter = lanesOuter;
  pm.addNestedPass<func::FuncOp>(createSiftBlockFloatReductions(blocked));
}

void pipelines::addBufferizationStage(OpPassManager &pm, bool outlineRoutines,
                                      bool byteBools, int64_t stackBufferBytes,
                                      int64_t stackFrameBytes,
                                      ArrayRef<int64_t> compressElementBits) {
  // A tensor op a pass left invalid is an error here, at the op; past
  // bufferization it would be loops computing garbage.
  pm.addPass(createSiftVerifyIR());
  // After the last canonicalization, which may fold reshapes back.
  pm.addNestedPass<func::FuncOp>(createSiftExpandShapeToReshape());
  // A value computed into an allocation of its own and then inserted into a
  // slice (a kernel's row results) is computed in the slice; a routine's
  // result stays its own where routines become functions, which are then
  // shared wherever the result goes.
  // A loop's carried tensor updated element-wise is updated in place: one
  // buffer for the loop, no ownership to track at run time.
  pm.addNestedPass<func::FuncOp>(createSiftLoopCarriedInPlace());
  SiftEliminateAllocTensorsOptions eliminate;
  eliminate.routineBuffers = outlineRoutines;
  pm.addNestedPass<func::FuncOp>(createSiftEliminateAllocTensors(eliminate));
  // Tensors to buffers in one analysis over the whole module, function
  // boundaries included, so no copies are made at calls; identity layouts at
  // the boundary keep the C interface simple (dense row-major memrefs).
  // A loop may carry a freshly computed tensor to its next iteration
  // (allow-return-allocs-from-loops); the deallocation pipeline frees it.
  addPasses(pm, "one-shot-bufferize{bufferize-function-boundaries "
                "function-boundary-type-conversion=identity-layout-map "
                "allow-return-allocs-from-loops}");
  // A value computed in place in a slice of a buffer and inserted back
  // into that slice bufferizes to a copy of the slice onto itself: CSE
  // merges the two slices and canonicalization drops the self-copy.
  addPasses(pm, "cse,canonicalize");
  // Buffers of i1 that are only read and written element by element hold
  // i8 bytes, which LLVM vectorizes (before the routines that read them
  // become calls).
  if (byteBools)
    pm.addNestedPass<func::FuncOp>(createSiftByteBools());
  // Compaction loops (the lowering's `compact`, a top-k's partition, the
  // fills of `nonzero` and `masked_select`, counts) store the kept lanes of
  // a vector at a time; before outlining, where their buffers are still
  // allocations (provably disjoint).
  if (!compressElementBits.empty()) {
    SiftVectorizeCompactionsOptions compress;
    compress.elementBits = llvm::to_vector(compressElementBits);
    pm.addNestedPass<func::FuncOp>(createSiftVectorizeCompactions(compress));
  }
  // The lowering's routines (radix sorts, top-k selections, compactions)
  // become functions, one per distinct routine; after the cleanup, which
  // turns a buffer a routine writes in place back into the buffer itself.
  if (outlineRoutines)
    pm.addPass(createSiftOutlineLines());
  // Small temporaries of a function (the routines' histograms and line
  // buffers, now functions of their own) on its stack: before the
  // deallocation pipeline, which would free them.
  if (stackBufferBytes > 0) {
    SiftStackBuffersOptions stack;
    stack.maxBufferBytes = stackBufferBytes;
    stack.maxFrameBytes = stackFrameBytes;
    pm.addNestedPass<func::FuncOp>(createSiftStackBuffers(stack));
  }
  // Frees every temporary and makes returned memrefs caller-owned.
  addPasses(pm, "buffer-deallocation-pipeline");
  // The deallocation pipeline leaves bufferization.clone (a returned constant
  // becomes a caller-owned copy); lower it to memref.alloc + memref.copy.
  addPasses(pm, "convert-bufferization-to-memref");
  // Copies into strided slices (a line into its row of a larger buffer)
  // become loops rather than calls of the element-wise runtime copy.
  pm.addNestedPass<func::FuncOp>(createSiftStridedCopiesToLinalg());
}
