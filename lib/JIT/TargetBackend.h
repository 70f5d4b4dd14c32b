//===- TargetBackend.h - What one JIT target provides -----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The per-target part of the engine: the pipeline that lowers a source module
// to the LLVM dialect, how the lowered module becomes loaded code, how one of
// its functions is found and called, and how the buffers its results live in
// are freed. Everything else (parsing, source transforms, signatures, the
// memref calling convention) is shared by every target.
//
// A new target implements TargetBackend in its own file (as CpuTarget.cpp
// does) and is selected for its jit::Target in createTargetBackend
// (TargetBackend.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_JIT_TARGETBACKEND_H
#define SIFT_LIB_JIT_TARGETBACKEND_H

#include "CallingConvention.h"

#include "sift/JIT/Engine.h"

#include "mlir/Support/Timing.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
class ModuleOp;
class OpPassManager;

namespace sift {
namespace jit {

class LoadedObject;

/// The loadable code of a compiled module, as the compile cache stores it
/// (CompileCache.h): a relocatable object file of the host, and the shared
/// libraries it calls into, loaded before it is linked.
struct ObjectCode {
  /// Relocatable object files, linked together when loaded (the module's
  /// partitions, generated in parallel).
  std::vector<std::string> objects;
  std::vector<std::string> sharedLibs;
};

/// One target's code generation and calls, for one Engine: it owns the code it
/// loaded. Calls (lookup, invoke) may come from several threads at once.
class TargetBackend {
public:
  virtual ~TargetBackend();

  /// What, besides the source and the CompileOptions, decides the code this
  /// backend generates (the target's triple, CPU and features), for the key
  /// of the compile cache; empty where the target's code is never cached
  /// (then `load` never fills its `code` and `loadObject` is never called).
  virtual std::string cacheTarget() const { return {}; }

  /// Adds the passes that lower a verified source module to the LLVM dialect
  /// with the standard function calling convention (replaced by
  /// CompileOptions::pipeline when that is given).
  virtual void buildPipeline(mlir::OpPassManager &pm) const = 0;

  /// Generates code for the lowered module at `optLevel` (0-3) and loads it.
  /// When `code` is not null and the target caches its code (cacheTarget()),
  /// also returns in it what loadObject needs to load the same code again
  /// (left empty where that is not possible: then nothing is cached).
  /// Its steps (translation, LLVM's optimization, code generation) are timed
  /// in `timing`.
  virtual llvm::Error load(mlir::ModuleOp module, unsigned optLevel,
                           mlir::TimingScope &timing, ObjectCode *code) = 0;

  /// Loads code that `load` returned before, in this process or another,
  /// without generating it: the functions then behave exactly as after
  /// `load`. Only called where cacheTarget() is not empty.
  virtual llvm::Error loadObject(const ObjectCode &code);

  /// The packed wrapper of the loaded function `name`.
  virtual llvm::Expected<PackedFunction> lookup(llvm::StringRef name) const = 0;

  /// Calls a packed wrapper. An error (RuntimeError or OutOfMemory, its
  /// message without the function's name) when the compiled code reported
  /// one; results it did not write stay all zeros, and the caller still
  /// unpacks them so that the buffers it did return are freed.
  virtual llvm::Error invoke(PackedFunction fn, void **args) const = 0;

  /// How to free the buffers of returned tensors (the allocated pointer of a
  /// result's memref descriptor).
  virtual BufferDeallocator resultDeallocator() const = 0;
};

/// The backend of `options.target` (with `options`' per-target settings), or
/// an Unsupported error where this build has none.
/// A backend whose code runs on the host through an mlir::ExecutionEngine
/// (the CPU's, and the CUDA target's host side): the native target is
/// initialized once, functions are looked up in `engine` (or in `loaded`,
/// for code from the compile cache), and calls run
/// through the sift runtime, which collects the errors compiled code
/// reports (from any thread) and turns them into the call's error.
class ExecutionEngineBackend : public TargetBackend {
public:
  ExecutionEngineBackend();
  ~ExecutionEngineBackend() override;

  llvm::Expected<PackedFunction> lookup(llvm::StringRef name) const override;
  llvm::Error invoke(PackedFunction fn, void **args) const override;

protected:
  /// Set by `load`.
  std::unique_ptr<mlir::ExecutionEngine> engine;
  /// Set by `loadObject` instead (LoadedObject.h).
  std::unique_ptr<LoadedObject> loaded;
};

llvm::Expected<std::unique_ptr<TargetBackend>>
createTargetBackend(const CompileOptions &options);

/// The host CPU: the sift CPU pipeline and mlir::ExecutionEngine
/// (CpuTarget.cpp).
std::unique_ptr<TargetBackend> createCpuBackend(unsigned numThreads);

/// An NVIDIA GPU: the sift GPU pipeline, host code through
/// mlir::ExecutionEngine calling the sift CUDA runtime layer; loading fails
/// with "no CUDA driver/device: ..." where there is none (CudaTarget.cpp).
std::unique_ptr<TargetBackend> createCudaBackend();

} // namespace jit
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_JIT_TARGETBACKEND_H
