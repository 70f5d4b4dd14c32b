//===- CpuTarget.cpp - The host CPU backend of the JIT ----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Lowers with the sift CPU pipeline and loads the result with
// mlir::ExecutionEngine (the steps of mlir/examples/toy/Ch6/toyc.cpp runJit),
// which generates a packed wrapper (`_mlir_<name>`) for every function. Calls
// run through the sift runtime, which collects the errors compiled code raises
// and allocates its buffers.
//
//===----------------------------------------------------------------------===//

#include "TargetBackend.h"

#include "LoadedObject.h"

#include "sift/Pipelines/Pipelines.h"

#ifdef SIFT_JIT_HAS_RUNTIME
#include "sift/Runtime/SiftRuntime.h"
#endif

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace jit = mlir::sift::jit;
using llvm::StringRef;

/// Symbols the compiled code may call that the JIT must resolve even when the
/// process does not export them globally (e.g. loaded with RTLD_LOCAL).
static llvm::orc::SymbolMap
runtimeSymbols(llvm::orc::MangleAndInterner mangle) {
  llvm::orc::SymbolMap map;
  auto add = [&](StringRef name, void *ptr) {
    map[mangle(name)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(ptr), llvm::JITSymbolFlags::Exported);
  };
  add("memrefCopy", reinterpret_cast<void *>(&memrefCopy));
#ifdef SIFT_JIT_HAS_RUNTIME
  // The CPU pipeline requests C interfaces for every func.func, declarations
  // included, so a call to `func.func private @sift_rt_report(i64, i64, i64,
  // i64)` goes to `_mlir_ciface_sift_rt_report`; with scalar arguments only,
  // both names have the same ABI.
  add("sift_rt_error", reinterpret_cast<void *>(&sift_rt_error));
  add("_mlir_ciface_sift_rt_error", reinterpret_cast<void *>(&sift_rt_error));
  add("sift_rt_report", reinterpret_cast<void *>(&sift_rt_report));
  add("_mlir_ciface_sift_rt_report", reinterpret_cast<void *>(&sift_rt_report));
  add("sift_rt_fail", reinterpret_cast<void *>(&sift_rt_fail));
  add("_mlir_ciface_sift_rt_fail", reinterpret_cast<void *>(&sift_rt_fail));
  // Buffer allocation of compiled code (the runtime's caching allocator).
  add("_mlir_memref_to_llvm_alloc",
      reinterpret_cast<void *>(&_mlir_memref_to_llvm_alloc));
  add("_mlir_memref_to_llvm_aligned_alloc",
      reinterpret_cast<void *>(&_mlir_memref_to_llvm_aligned_alloc));
  add("_mlir_memref_to_llvm_free",
      reinterpret_cast<void *>(&_mlir_memref_to_llvm_free));
#endif
  return map;
}

/// The target machine of the host CPU, or null where it cannot be detected.
static std::unique_ptr<llvm::TargetMachine> hostTargetMachine() {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    llvm::consumeError(builder.takeError());
    return nullptr;
  }
  auto tm = builder->createTargetMachine();
  if (!tm) {
    llvm::consumeError(tm.takeError());
    return nullptr;
  }
  return std::move(*tm);
}

namespace {
class CpuBackend final : public jit::ExecutionEngineBackend {
public:
  explicit CpuBackend(unsigned numThreads) : numThreads(numThreads) {}

  void buildPipeline(mlir::OpPassManager &pm) const override {
    mlir::sift::CpuPipelineOptions options;
    options.numThreads = numThreads;
    mlir::sift::buildCpuPipeline(pm, options);
  }

  std::string cacheTarget() const override;

  llvm::Error load(mlir::ModuleOp module, unsigned optLevel,
                   jit::ObjectCode *code) override;

  llvm::Error loadObject(const jit::ObjectCode &code) override;

  jit::BufferDeallocator resultDeallocator() const override {
    // Compiled code allocates with the runtime's _mlir_memref_to_llvm_alloc.
    return [](void *p) { _mlir_memref_to_llvm_free(p); };
  }

private:
  unsigned numThreads;
};
} // namespace

/// Lets the OpenMP runtime size each parallel region's team by the
/// machine's load (libomp's `load_balance` dynamic mode), unless the
/// environment says otherwise (OMP_DYNAMIC, KMP_DYNAMIC_MODE). A fixed team
/// on a busy machine waits at every barrier for a thread that another
/// process preempted: on 2 cores with one other busy process, a team of two
/// ran the batched sampler at half the speed of one thread. The runtime
/// reads these defaults when it starts (the first parallel region); later
/// calls change nothing.
static void preferLoadBalancedTeams() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("OMP_DYNAMIC") || std::getenv("KMP_DYNAMIC_MODE"))
      return;
    using SetDefaultsFn = void (*)(const char *);
    auto setDefaults = reinterpret_cast<SetDefaultsFn>(
        llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
            "kmp_set_defaults"));
    if (!setDefaults)
      return;
    setDefaults("OMP_DYNAMIC=true");
    setDefaults("KMP_DYNAMIC_MODE=load_balance");
  });
}

/// Whether `module` declares a function that the MLIR runner utilities
/// at `path` define (printMemrefF32, printNewline, ...). The JIT loads a
/// shared library into the global symbol scope, and the runner utilities
/// bring libLLVM.so with them: a library loaded after that which embeds
/// its own LLVM (Triton's, which PyTorch imports) would bind to ours and
/// crash. So they are loaded only for the modules that call them.
static bool needsRunnerUtils(mlir::ModuleOp module, const char *path) {
  llvm::SmallVector<std::string> external;
  for (auto fn : module.getOps<mlir::LLVM::LLVMFuncOp>())
    if (fn.isExternal())
      external.push_back(fn.getName().str());
  if (external.empty() || !llvm::sys::fs::exists(path))
    return false;
  // A private look at the library: its own symbols, not those of its
  // dependencies (libc, libLLVM).
  void *handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  if (!handle)
    return false;
  bool found = llvm::any_of(external, [&](const std::string &name) {
    void *symbol = dlsym(handle, name.c_str());
    Dl_info info;
    return symbol && dladdr(symbol, &info) && info.dli_fname &&
           StringRef(info.dli_fname).contains("libmlir_");
  });
  dlclose(handle);
  return found;
}

/// Whether SIFT_PERF=1 asks to tell `perf` about the JIT-compiled functions
/// (with `perf record -k 1` and `perf inject --jit`), for profiling.
static bool perfListenerWanted() {
  const char *perfEnv = std::getenv("SIFT_PERF");
  return perfEnv && StringRef(perfEnv) == "1";
}

std::string CpuBackend::cacheTarget() const {
  // The code is generated for the host's CPU and features (hostTargetMachine,
  // and the ExecutionEngine's default target machine).
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    llvm::consumeError(builder.takeError());
    return {};
  }
  return "cpu;" + builder->getTargetTriple().str() + ";" + builder->getCPU() +
         ";" + builder->getFeatures().getString();
}

/// The object code `engine` generated for its module, from the object cache
/// of ExecutionEngineOptions::enableObjectDump, which it writes to a file
/// only; empty where there is none (nothing is cached then).
static std::string takeObject(mlir::ExecutionEngine &engine,
                              mlir::ModuleOp module) {
  // The ExecutionEngine generates the code of its one module at the first
  // lookup, of any function it defines.
  bool compiled = false;
  for (auto fn : module.getOps<mlir::LLVM::LLVMFuncOp>()) {
    if (fn.isExternal() || fn.getLinkage() == mlir::LLVM::Linkage::Private ||
        fn.getLinkage() == mlir::LLVM::Linkage::Internal)
      continue;
    auto symbol = engine.lookup(fn.getName());
    if (symbol) {
      compiled = true;
      break;
    }
    llvm::consumeError(symbol.takeError());
  }
  if (!compiled)
    return {};
  llvm::SmallString<128> path;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("sift-jit", "o", fd, path))
    return {};
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  engine.dumpToObjectFile(path);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  llvm::sys::fs::remove(path);
  if (!buffer)
    return {};
  return (*buffer)->getBuffer().str();
}

llvm::Error CpuBackend::load(mlir::ModuleOp module, unsigned optLevel,
                             jit::ObjectCode *code) {
  mlir::MLIRContext &context = *module.getContext();
  mlir::registerBuiltinDialectTranslation(context);
  mlir::registerLLVMDialectTranslation(context);
  mlir::registerOpenMPDialectTranslation(context);

  mlir::ExecutionEngineOptions options;
  // Optimize for the host CPU (its vector width and features), as the code
  // generator will; without a target machine LLVM's vectorizers have no
  // cost model.
  std::unique_ptr<llvm::TargetMachine> hostMachine = hostTargetMachine();
  auto transformer = mlir::makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                                     hostMachine.get());
  options.transformer = transformer;
  static const llvm::CodeGenOptLevel levels[] = {
      llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
      llvm::CodeGenOptLevel::Default, llvm::CodeGenOptLevel::Aggressive};
  options.jitCodeGenOptLevel = levels[optLevel];
  // The MLIR runner utilities (printMemref*, printF32, ...) so that modules
  // written for mlir-runner also run here; loaded only where they exist.
  std::vector<std::string> sharedLibs;
#ifdef SIFT_MLIR_RUNNER_UTILS
  if (needsRunnerUtils(module, SIFT_MLIR_RUNNER_UTILS))
    sharedLibs.push_back(SIFT_MLIR_RUNNER_UTILS);
#endif
  // The OpenMP runtime that parallel loops call (__kmpc_*).
  sharedLibs.push_back(SIFT_OPENMP_RUNTIME);
  llvm::SmallVector<StringRef> sharedLibRefs(sharedLibs.begin(),
                                             sharedLibs.end());
  options.sharedLibPaths = sharedLibRefs;
  options.enableGDBNotificationListener = false;
  options.enablePerfNotificationListener = perfListenerWanted();
  // The compile cache keeps the object code.
  options.enableObjectDump = code != nullptr;

  auto created = mlir::ExecutionEngine::create(module, options);
  if (!created)
    return created.takeError();
  engine = std::move(*created);
  engine->registerSymbols(runtimeSymbols);
  if (code) {
    code->object = takeObject(*engine, module);
    code->sharedLibs = std::move(sharedLibs);
  }
  preferLoadBalancedTeams();
  engine->initialize();
  return llvm::Error::success();
}

llvm::Error CpuBackend::loadObject(const jit::ObjectCode &code) {
  auto created = jit::LoadedObject::create(code.object, code.sharedLibs,
                                           perfListenerWanted());
  if (!created)
    return created.takeError();
  loaded = std::move(*created);
  loaded->registerSymbols(runtimeSymbols);
  preferLoadBalancedTeams();
  return loaded->initialize();
}

std::unique_ptr<jit::TargetBackend> jit::createCpuBackend(unsigned numThreads) {
  return std::make_unique<CpuBackend>(numThreads);
}
