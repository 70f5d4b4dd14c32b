//===- TargetBackend.cpp - Selects the backend of a target ------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "TargetBackend.h"

#include "LoadedObject.h"

#ifdef SIFT_JIT_HAS_RUNTIME
#include "sift/Runtime/SiftRuntime.h"
#endif

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

namespace jit = mlir::sift::jit;

jit::TargetBackend::~TargetBackend() = default;

llvm::Error jit::TargetBackend::loadObject(const ObjectCode &) {
  return makeError(ErrorCode::Unsupported,
                   "this target does not load cached code");
}

jit::ExecutionEngineBackend::ExecutionEngineBackend() {
  static std::once_flag flag;
  std::call_once(flag, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

jit::ExecutionEngineBackend::~ExecutionEngineBackend() = default;

llvm::Expected<jit::PackedFunction>
jit::ExecutionEngineBackend::lookup(llvm::StringRef name) const {
  if (loaded)
    return loaded->lookupPacked(name);
  return engine->lookupPacked(name);
}

llvm::Error jit::ExecutionEngineBackend::invoke(PackedFunction fn,
                                                void **args) const {
#ifdef SIFT_JIT_HAS_RUNTIME
  // The runtime collects the errors of compiled code from every thread and
  // ends the call early when a buffer cannot be allocated.
  int64_t values[3] = {0, 0, 0};
  int64_t code = sift_rt_run(fn, args, values);
  if (!code)
    return llvm::Error::success();
  char text[256];
  sift_rt_format_error(code, values, text, sizeof(text));
  if (code == SIFT_RT_ERROR_OUT_OF_MEMORY)
    return makeError(ErrorCode::OutOfMemory, text);
  return makeError(ErrorCode::RuntimeError,
                   llvm::Twine("runtime error: ") + text);
#else
  fn(args);
  return llvm::Error::success();
#endif
}

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
