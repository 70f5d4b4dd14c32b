//===- CpuTarget.cpp - The host CPU backend of the JIT ----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Lowers with the sift CPU pipeline; mlir::ExecutionEngine translates the
// result to LLVM IR with a packed wrapper (`_mlir_<name>`) for every
// function; the module is split into partitions that LLVM optimizes and
// compiles on several threads at once, and the objects are linked into the
// process by an ORC JIT (LoadedObject, which loads the compile cache's
// objects the same way). Calls run through the sift runtime, which collects
// the errors compiled code raises and allocates its buffers.
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

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <cstdlib>
#include <dlfcn.h>
#ifdef __linux__
#include <sched.h>
#endif
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

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
                   mlir::TimingScope &timing, jit::ObjectCode *code) override;

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

#ifdef __linux__
/// Pins the calling thread of an OpenMP team to the `*tid`-th processor it
/// may run on, then lets it run anywhere again: the thread moves there now
/// and stays until the scheduler has a reason to move it.
static void spreadMicrotask(int32_t *, int32_t *tid, const cpu_set_t *allowed) {
  int count = CPU_COUNT(allowed);
  if (count <= 1 || !tid)
    return;
  int wanted = *tid % count;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, allowed) || wanted-- != 0)
      continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof(one), &one) == 0)
      sched_setaffinity(0, sizeof(*allowed), allowed);
    return;
  }
}
#endif

/// Starts the OpenMP runtime's threads and puts each on its own processor
/// once, with no binding left (unless the environment binds them:
/// OMP_PROC_BIND, OMP_PLACES, KMP_AFFINITY). Its first parallel region would
/// otherwise start them right after the compile has loaded every core, and
/// the scheduler may place a new thread on its parent's processor until
/// load balancing moves it: the batched sampler at N = 1e3, B = 32 then ran
/// its first ~100 ms of calls at 0.134 ms a call, against 0.070 on one
/// thread and 0.037 on two processors, in 3 of 22 processes that had just
/// compiled it (0 of 22 with this). Binding the threads for good would do the
/// same, but would keep a thread on a processor that another process has taken,
/// which the load-balanced teams (preferLoadBalancedTeams) rely on escaping.
static void spreadOpenMPThreads() {
#ifdef __linux__
  static std::once_flag once;
  std::call_once(once, [] {
    for (const char *bound : {"OMP_PROC_BIND", "OMP_PLACES", "KMP_AFFINITY"})
      if (std::getenv(bound))
        return;
    // libomp's entry point of a parallel region (what compilers emit for
    // `#pragma omp parallel`), and its source-location argument.
    using Microtask = void (*)(int32_t *, int32_t *, ...);
    using ForkCall = void (*)(void *, int32_t, Microtask, ...);
    auto fork = reinterpret_cast<ForkCall>(
        llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
            "__kmpc_fork_call"));
    if (!fork)
      return;
    struct Ident {
      int32_t reserved1, flags, reserved2, reserved3;
      const char *source;
    };
    static Ident ident = {0, /*KMP_IDENT_KMPC*/ 2, 0, 0,
                          ";sift;spreadOpenMPThreads;0;0;;"};
    static cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 ||
        CPU_COUNT(&allowed) <= 1)
      return;
    fork(&ident, 1, reinterpret_cast<Microtask>(&spreadMicrotask), &allowed);
  });
#endif
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

/// LLVM's optimization and code generation level for 0-3.
static llvm::CodeGenOptLevel codeGenLevel(unsigned optLevel) {
  static const llvm::CodeGenOptLevel levels[] = {
      llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
      llvm::CodeGenOptLevel::Default, llvm::CodeGenOptLevel::Aggressive};
  return levels[std::min(optLevel, 3u)];
}

/// Whether an LLVM module defines anything.
static bool definesAnything(const llvm::Module &m) {
  return llvm::any_of(m.global_values(), [](const llvm::GlobalValue &gv) {
    return !gv.isDeclaration();
  });
}

/// Makes every definition of `m` a declaration.
static void dropDefinitions(llvm::Module &m) {
  for (llvm::Function &f : m)
    f.deleteBody();
  for (llvm::GlobalVariable &gv : llvm::make_early_inc_range(m.globals())) {
    if (gv.hasAppendingLinkage()) { // llvm.global_ctors and the like
      gv.eraseFromParent();
      continue;
    }
    gv.setInitializer(nullptr);
    gv.setLinkage(llvm::GlobalValue::ExternalLinkage);
  }
}

/// Makes the local symbols of `m` that no call names (the bodies of
/// parallel regions, which reach the OpenMP runtime as pointers, and local
/// variables such as the runtime's source-location records, which every
/// region refers to) hidden external symbols. Nothing can inline them, so
/// they need not stay in the partition of the functions that refer to
/// them: llvm::SplitModule then places each function by its size. Kept
/// local, a function's two dozen region bodies and the records they share
/// made one partition of 60% of the batched sampler's code.
static void exposeUninlinedLocals(llvm::Module &m) {
  // A name of their own: a local's name may be that of a symbol defined
  // elsewhere (a private function may share its name with one the runtime
  // gives the JIT).
  auto expose = [](llvm::GlobalValue &value) {
    value.setName("__sift_local." + value.getName());
    value.setLinkage(llvm::GlobalValue::ExternalLinkage);
    value.setVisibility(llvm::GlobalValue::HiddenVisibility);
  };
  for (llvm::Function &f : m) {
    if (f.isDeclaration() || !f.hasLocalLinkage())
      continue;
    bool calledDirectly = llvm::any_of(f.uses(), [](const llvm::Use &use) {
      auto *call = llvm::dyn_cast<llvm::CallBase>(use.getUser());
      return call && call->isCallee(&use);
    });
    if (!calledDirectly)
      expose(f);
  }
  for (llvm::GlobalVariable &gv : m.globals())
    if (!gv.isDeclaration() && gv.hasLocalLinkage())
      expose(gv);
}

/// The lowered `module` as LLVM IR in up to `parts` partitions, as bitcode.
/// mlir::ExecutionEngine::create translates it, sets the host's triple and
/// data layout and adds the packed wrapper (`_mlir_<name>`) of each
/// function that the calls use; its transformer receives that module. The
/// engine itself compiles one module on one thread at its first lookup, so
/// the transformer takes the module out instead: split with the internal
/// functions that calls name next to their callers (what the inliner may
/// take; the parallel regions' bodies go anywhere, exposeUninlinedLocals),
/// balanced by size (llvm::SplitModule), and emptied, so that the engine,
/// dropped without a lookup, has nothing to compile.
static llvm::Expected<std::vector<std::string>>
translateAndSplit(mlir::ModuleOp module, unsigned parts) {
  std::vector<std::string> partitions;
  auto keep = [&](const llvm::Module &part) {
    if (!definesAnything(part))
      return;
    std::string bitcode;
    llvm::raw_string_ostream os(bitcode);
    llvm::WriteBitcodeToFile(part, os);
    partitions.push_back(std::move(bitcode));
  };
  mlir::ExecutionEngineOptions options;
  options.enableGDBNotificationListener = false;
  auto takeOut = [&](llvm::Module *m) {
    if (parts <= 1) {
      keep(*m);
    } else {
      exposeUninlinedLocals(*m);
      llvm::SplitModule(
          *m, parts, [&](std::unique_ptr<llvm::Module> part) { keep(*part); },
          /*PreserveLocals=*/true);
    }
    dropDefinitions(*m);
    return llvm::Error::success();
  };
  options.transformer = takeOut; // a function_ref
  auto engine = mlir::ExecutionEngine::create(module, options);
  if (!engine)
    return engine.takeError();
  return partitions;
}

/// The relocatable object of one partition: LLVM's optimization pipeline at
/// `optLevel` for the host CPU of `host` (its vector width and features:
/// without a target machine LLVM's vectorizers have no cost model), then its
/// code generator. In a context and target machine of its own, so that
/// partitions compile at once.
static llvm::Expected<std::string>
generateObject(StringRef bitcode, unsigned optLevel,
               llvm::orc::JITTargetMachineBuilder host) {
  llvm::LLVMContext context;
  auto parsed = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(bitcode, "sift-jit"), context);
  if (!parsed)
    return parsed.takeError();
  llvm::Module &m = **parsed;
  auto tm = host.createTargetMachine();
  if (!tm)
    return tm.takeError();
  auto optimize =
      mlir::makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, tm->get());
  if (llvm::Error e = optimize(&m))
    return std::move(e);
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager codegen;
  if ((*tm)->addPassesToEmitFile(codegen, os, /*DwoOut=*/nullptr,
                                 llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the host target cannot emit objects");
  codegen.run(m);
  return std::string(object.begin(), object.end());
}

/// The objects of `partitions`, generated by up to `threads` threads, the
/// largest first.
static llvm::Expected<std::vector<std::string>>
generateObjects(llvm::ArrayRef<std::string> partitions, unsigned optLevel,
                unsigned threads) {
  std::vector<size_t> order(partitions.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::sort(order, [&](size_t a, size_t b) {
    return partitions[a].size() > partitions[b].size();
  });
  // The host is detected once; each partition makes its target machine.
  auto host = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!host)
    return host.takeError();
  host->setCodeGenOptLevel(codeGenLevel(optLevel));
  std::vector<std::optional<llvm::Expected<std::string>>> results(
      partitions.size());
  {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
    for (size_t i : order)
      pool.async([&, i] {
        results[i] = generateObject(partitions[i], optLevel, *host);
      });
    pool.wait();
  }
  std::vector<std::string> objects;
  llvm::Error errors = llvm::Error::success();
  for (auto &result : results) {
    if (*result)
      objects.push_back(std::move(**result));
    else
      errors = llvm::joinErrors(std::move(errors), result->takeError());
  }
  if (errors)
    return std::move(errors);
  return objects;
}

llvm::Error CpuBackend::load(mlir::ModuleOp module, unsigned optLevel,
                             mlir::TimingScope &timing, jit::ObjectCode *code) {
  mlir::MLIRContext &context = *module.getContext();
  mlir::registerBuiltinDialectTranslation(context);
  mlir::registerLLVMDialectTranslation(context);
  mlir::registerOpenMPDialectTranslation(context);

  // Three partitions a thread: the time LLVM takes per byte of a
  // partition varies threefold (a top-k routine against element-wise
  // loops), so the threads, which take the largest partitions first, end
  // together only with several small ones each. On the batched sampler
  // with 2 threads, 3 partitions took 0.35 s and 6 took 0.31 s (8 to 14:
  // 0.32-0.33 s).
  unsigned threads =
      std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  mlir::TimingScope translating = timing.nest("LLVM: translate, split");
  auto partitions = translateAndSplit(module, threads == 1 ? 1 : 3 * threads);
  translating.stop();
  if (!partitions)
    return partitions.takeError();
  mlir::TimingScope generating = timing.nest(
      ("LLVM: optimize, generate code (" + llvm::Twine(partitions->size()) +
       " partitions, " + llvm::Twine(threads) + " threads)")
          .str());
  jit::ObjectCode generated;
  auto objects = generateObjects(*partitions, optLevel, threads);
  generating.stop();
  if (!objects)
    return objects.takeError();
  generated.objects = std::move(*objects);
  // The MLIR runner utilities (printMemref*, printF32, ...) so that modules
  // written for mlir-runner also run here; loaded only where they exist.
#ifdef SIFT_MLIR_RUNNER_UTILS
  if (needsRunnerUtils(module, SIFT_MLIR_RUNNER_UTILS))
    generated.sharedLibs.push_back(SIFT_MLIR_RUNNER_UTILS);
#endif
  // The OpenMP runtime that parallel loops call (__kmpc_*): the build's,
  // or SIFT_OPENMP_RUNTIME's (the tools moved to a machine without LLVM,
  // scripts/device-bundle.sh).
  const char *openmp = std::getenv("SIFT_OPENMP_RUNTIME");
  generated.sharedLibs.push_back(openmp && *openmp ? openmp
                                                   : SIFT_OPENMP_RUNTIME);

  mlir::TimingScope loading = timing.nest("LLVM: link, load");
  if (llvm::Error e = loadObject(generated))
    return e;
  // The compile cache keeps the objects.
  if (code)
    *code = std::move(generated);
  return llvm::Error::success();
}

llvm::Error CpuBackend::loadObject(const jit::ObjectCode &code) {
  auto created = jit::LoadedObject::create(code.objects, code.sharedLibs,
                                           perfListenerWanted());
  if (!created)
    return created.takeError();
  if (llvm::Error e = (*created)->registerSymbols(runtimeSymbols))
    return e;
  loaded = std::move(*created);
  preferLoadBalancedTeams();
  spreadOpenMPThreads();
  return loaded->initialize();
}

std::unique_ptr<jit::TargetBackend> jit::createCpuBackend(unsigned numThreads) {
  return std::make_unique<CpuBackend>(numThreads);
}
