//===- InitAllSift.h - Every dialect and pass of sift ----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The one registration entry point of sift's drivers (tensor-opt, the JIT
// behind tensor-run and the C API, the fuzzer, the Python module), so that
// every driver accepts the same dialects and the same pass names.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_INITALLSIFT_H
#define SIFT_INITALLSIFT_H

#include "sift/Conversion/Passes.h"
#include "sift/Dialect/Sift/IR/SiftDialect.h"
#include "sift/Dialect/Sift/Transforms/GuardedVerify.h"
#include "sift/Dialect/Sift/Transforms/Passes.h"
#include "sift/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include <mutex>

namespace mlir {
namespace sift {

/// Every upstream dialect and extension, the sift dialect, and what
/// `gpu-module-to-binary` needs to serialize kernels: the NVVM target
/// (`#nvvm.target`) and the GPU dialects' translations to LLVM IR (without
/// them serialization fails with "missing LLVMTranslationDialectInterface").
inline void registerAllSiftDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerAllGPUToLLVMIRTranslations(registry);
  registry.insert<SiftDialect>();
}

/// Every upstream pass, sift's passes and conversions, and its pipelines.
/// Safe to call more than once, from any thread.
inline void registerAllSiftPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    registerSiftPasses();
    registerSiftConversionPasses();
    registerSiftPipelines();
    registerPass([] { return createGuardedVerifyPass(); });
  });
}

} // namespace sift
} // namespace mlir

#endif // SIFT_INITALLSIFT_H
