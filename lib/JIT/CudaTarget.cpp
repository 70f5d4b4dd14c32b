//===- CudaTarget.cpp - The CUDA backend of the JIT -------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Lowers with --sift-gpu-pipeline (kernels as PTX, which the driver compiles
// for the device it finds) and loads the host code with
// mlir::ExecutionEngine; the host code calls the mgpu* functions of the sift
// CUDA runtime layer (sift/Runtime/CudaRuntime.h). Without a CUDA driver or
// device, loading fails with a "no CUDA driver/device: ..." error after the
// pipeline ran: the code is compiled, never run.
//
//===----------------------------------------------------------------------===//

#include "TargetBackend.h"

#include "sift/Pipelines/Pipelines.h"

#ifdef SIFT_JIT_HAS_RUNTIME
#include "sift/Runtime/CudaRuntime.h"
#endif

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

#include <cstdlib>

namespace jit = mlir::sift::jit;
using llvm::StringRef;

#ifdef SIFT_JIT_HAS_RUNTIME
/// The runtime functions the host code calls, resolved by the JIT.
static llvm::orc::SymbolMap
cudaRuntimeSymbols(llvm::orc::MangleAndInterner mangle) {
  llvm::orc::SymbolMap map;
  auto add = [&](StringRef name, void *ptr) {
    map[mangle(name)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(ptr), llvm::JITSymbolFlags::Exported);
  };
#define SIFT_ADD(fn) add(#fn, reinterpret_cast<void *>(&fn))
  SIFT_ADD(mgpuModuleLoad);
  SIFT_ADD(mgpuModuleLoadJIT);
  SIFT_ADD(mgpuModuleUnload);
  SIFT_ADD(mgpuModuleGetFunction);
  SIFT_ADD(mgpuLaunchKernel);
  SIFT_ADD(mgpuStreamCreate);
  SIFT_ADD(mgpuStreamDestroy);
  SIFT_ADD(mgpuStreamSynchronize);
  SIFT_ADD(mgpuStreamWaitEvent);
  SIFT_ADD(mgpuEventCreate);
  SIFT_ADD(mgpuEventDestroy);
  SIFT_ADD(mgpuEventSynchronize);
  SIFT_ADD(mgpuEventRecord);
  SIFT_ADD(mgpuMemAlloc);
  SIFT_ADD(mgpuMemFree);
  SIFT_ADD(mgpuMemcpy);
  SIFT_ADD(mgpuMemset32);
  SIFT_ADD(mgpuMemset16);
  SIFT_ADD(mgpuMemHostRegister);
  SIFT_ADD(mgpuMemHostUnregister);
  SIFT_ADD(mgpuSetDefaultDevice);
  SIFT_ADD(sift_rt_report);
  SIFT_ADD(sift_rt_error);
  SIFT_ADD(sift_rt_fail);
  add("_mlir_ciface_sift_rt_report",
      reinterpret_cast<void *>(&_mlir_ciface_sift_rt_report));
  add("_mlir_ciface_sift_rt_error",
      reinterpret_cast<void *>(&_mlir_ciface_sift_rt_error));
  add("_mlir_ciface_sift_rt_fail",
      reinterpret_cast<void *>(&_mlir_ciface_sift_rt_fail));
#undef SIFT_ADD
  return map;
}
#endif

namespace {
class CudaBackend final : public jit::ExecutionEngineBackend {
public:
  void buildPipeline(mlir::OpPassManager &pm) const override {
    mlir::sift::GpuPipelineOptions options;
    // PTX for sm_80 runs on every device since Ampere: the driver compiles
    // it for the device at load time (mgpuModuleLoadJIT).
    options.chip = "sm_80";
    options.format = "isa";
    mlir::sift::buildGpuPipeline(pm, options);
  }

  // Not cached (cacheTarget() is empty): the host code embeds the kernels'
  // PTX and loads them in its constructors, which no test here can run.
  llvm::Error load(mlir::ModuleOp module, unsigned optLevel,
                   mlir::TimingScope &timing, jit::ObjectCode *code) override;

  jit::BufferDeallocator resultDeallocator() const override {
    // Results are host buffers (--sift-gpu-host-boundary), from malloc.
    return [](void *p) { std::free(p); };
  }
};
} // namespace

llvm::Error CudaBackend::load(mlir::ModuleOp module, unsigned optLevel,
                              mlir::TimingScope &timing, jit::ObjectCode *) {
  mlir::TimingScope scope = timing.nest("LLVM: translate, optimize, load");
#ifdef SIFT_JIT_HAS_RUNTIME
  char status[512];
  if (sift_cuda_status(status, sizeof(status)) != SIFT_CUDA_AVAILABLE)
    return jit::makeError(jit::ErrorCode::Unsupported, status);
  mlir::MLIRContext &context = *module.getContext();
  mlir::registerBuiltinDialectTranslation(context);
  mlir::registerLLVMDialectTranslation(context);
  mlir::registerGPUDialectTranslation(context);

  mlir::ExecutionEngineOptions options;
  auto transformer = mlir::makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                                     /*targetMachine=*/nullptr);
  options.transformer = transformer;
  options.enableGDBNotificationListener = false;
  auto created = mlir::ExecutionEngine::create(module, options);
  if (!created)
    return created.takeError();
  engine = std::move(*created);
  engine->registerSymbols(cudaRuntimeSymbols);
  // The kernels' modules load in the global constructors; their errors are
  // recorded outside any call.
  engine->initialize();
  int64_t value = 0;
  if (int64_t code = sift_rt_take_error(&value)) {
    int64_t values[3] = {value, 0, 0};
    char text[256];
    sift_rt_format_error(code, values, text, sizeof(text));
    return jit::makeError(jit::ErrorCode::CompileError,
                          llvm::Twine("loading the kernels failed: ") + text);
  }
  return llvm::Error::success();
#else
  (void)module;
  (void)optLevel;
  (void)scope;
  return jit::makeError(jit::ErrorCode::Unsupported,
                        "no CUDA driver/device: this build has no sift "
                        "runtime");
#endif
}

std::unique_ptr<jit::TargetBackend> jit::createCudaBackend() {
  return std::make_unique<CudaBackend>();
}
