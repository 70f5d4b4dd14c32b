//===- TargetBackend.cpp - Selects the backend of a target ------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "TargetBackend.h"

namespace jit = mlir::sift::jit;

jit::TargetBackend::~TargetBackend() = default;

llvm::Expected<std::unique_ptr<jit::TargetBackend>>
jit::createTargetBackend(const CompileOptions &options) {
  switch (options.target) {
  case Target::CPU:
    break;
  case Target::CUDA:
    // Compiles anywhere; loading checks for a driver and a device.
    return createCudaBackend();
  }
  return createCpuBackend(options.numThreads);
}
