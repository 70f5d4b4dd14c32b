//===- Pipelines.cpp - End-to-end sift pipelines ----------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Pipelines/Pipelines.h"

#include "sift/Conversion/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::sift;

/// Appends a textual pipeline fragment; the fragments below are fixed, so a
/// parse failure is a bug in this file.
static void addPasses(OpPassManager &pm, StringRef pipeline) {
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    llvm::report_fatal_error(llvm::Twine("sift: bad built-in pipeline '") +
                             pipeline + "': " + error);
}

void mlir::sift::buildCpuPipeline(OpPassManager &pm,
                                  const CpuPipelineOptions &options) {
  // Every sift op becomes linalg/scf/arith/math/tensor code on tensors
  // (sorts, scans and selections as real algorithms), so the rest of the
  // pipeline only sees upstream dialects.
  pm.addPass(createConvertSiftToLinalg());
  // Element-wise arith/math ops on tensors become linalg.generic, which
  // bufferizes (arith on tensors does not).
  addPasses(pm, "func.func(convert-elementwise-to-linalg)");
  // Fold what is constant before anything grows.
  addPasses(pm, "canonicalize,cse");
  // Fuse producer/consumer elementwise linalg ops (comparisons, shifts,
  // selects of the same shape) into single loops: one pass over memory
  // instead of one per op.
  addPasses(pm, "func.func(linalg-fuse-elementwise-ops),canonicalize,cse");
  // Tensors to buffers in one analysis over the whole module, function
  // boundaries included, so no copies are made at calls; identity layouts at
  // the boundary keep the C interface simple (dense row-major memrefs).
  addPasses(pm, "one-shot-bufferize{bufferize-function-boundaries "
                "function-boundary-type-conversion=identity-layout-map}");
  // Frees every temporary and makes returned memrefs caller-owned.
  addPasses(pm, "buffer-deallocation-pipeline");
  // The deallocation pipeline leaves bufferization.clone (a returned constant
  // becomes a caller-owned copy); lower it to memref.alloc + memref.copy.
  addPasses(pm, "convert-bufferization-to-memref");
  // The sift lowering's loop over independent lines (batch rows) is an
  // `scf.forall`; after bufferization it becomes an `scf.parallel`.
  addPasses(pm, "scf-forall-to-parallel");
  // The parallel dimensions of structured ops become scf.parallel, which
  // runs on OpenMP threads (one team over the machine's cores).
  addPasses(pm, "convert-linalg-to-parallel-loops,lower-affine,"
                "convert-scf-to-openmp");
  // Memref descriptors, then every dialect to LLVM. The memref lowering goes
  // before the loops become branches: the OpenMP loop bodies sit in
  // memref.alloca_scope regions, which must still be single blocks then.
  // (expand-strided-metadata makes affine.apply for dynamic subview offsets,
  // as the bufferized line slices of the sift lowering have.) Allocations
  // call the sift runtime's caching allocator (use-generic-functions).
  addPasses(pm, "expand-strided-metadata,lower-affine,finalize-memref-to-llvm{"
                "use-generic-functions},"
                "convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,"
                "convert-arith-to-llvm,convert-index-to-llvm");
  addPasses(pm, "convert-openmp-to-llvm");
  addPasses(pm, "func.func(llvm-request-c-wrappers),convert-func-to-llvm,"
                "convert-cf-to-llvm,reconcile-unrealized-casts");
}

void mlir::sift::registerSiftPipelines() {
  PassPipelineRegistration<CpuPipelineOptions>(
      "sift-cpu-pipeline",
      "Lower sift and upstream tensor ops to the LLVM dialect for the CPU",
      buildCpuPipeline);
}
