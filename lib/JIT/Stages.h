//===- Stages.h - The compile stages of the JIT engine ----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Engine::compile runs, in order:
//   parseSource          (Parse.cpp)             text -> verified module
//   runSourceTransforms  (SourceTransforms.cpp)  CompileOptions::transforms
//   keepFunctions        (SourceTransforms.cpp)  CompileOptions::functions
//   checkStaticSizes     (SourceTransforms.cpp)  no impossible static shapes
//   readSignatures       (Signature.cpp)         the callable functions
//   markInputsReadOnly   (CallingConvention.cpp) inputs stay the caller's
//   lowerToLLVM          (Lowering.cpp)          the target's pipeline
//   generateCode         (Lowering.cpp)          the target loads the code
// Every stage's error carries the diagnostics raised so far. Before them, the
// compile cache (CompileCache.h) may have the code of the same compile: then
// no stage runs, and generateCode's object is what a later hit loads.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_JIT_STAGES_H
#define SIFT_LIB_JIT_STAGES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace mlir {
namespace sift {
namespace jit {

class TargetBackend;
struct ObjectCode;

/// A module being compiled, in a context of its own (every sift and upstream
/// dialect, no threading), with every diagnostic raised on it so far: its
/// location and source line, ready to become part of an error message.
class SourceModule {
public:
  SourceModule();
  SourceModule(const SourceModule &) = delete;
  SourceModule &operator=(const SourceModule &) = delete;

  mlir::MLIRContext &getContext() { return context; }
  mlir::ModuleOp getModule() { return *module; }
  const std::string &getDiagnostics() const { return diagnostics; }

private:
  friend llvm::Expected<std::unique_ptr<SourceModule>>
  parseSource(std::unique_ptr<llvm::MemoryBuffer> buffer);

  mlir::MLIRContext context;
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream{diagnostics};
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> handler;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// Parses and verifies (sift::guardedVerify) the source in `buffer`.
llvm::Expected<std::unique_ptr<SourceModule>>
parseSource(std::unique_ptr<llvm::MemoryBuffer> buffer);

/// Runs the textual pass pipeline `transforms` (none when empty) on the
/// source module: what it adds is callable. Its passes are timed in
/// `timing` (a no-op scope unless CompileOptions::timing).
llvm::Error runSourceTransforms(SourceModule &source,
                                llvm::StringRef transforms,
                                mlir::TimingScope &timing);

/// Makes every public function not named in `names` private and drops what
/// nothing named calls (nothing when `names` is empty). Fails, naming the
/// module's public functions, when a name is not one of them.
llvm::Error keepFunctions(SourceModule &source,
                          llvm::ArrayRef<std::string> names);

/// Fails where a static shape is larger than any address space: it could
/// never be allocated, and loops over it would never end.
llvm::Error checkStaticSizes(SourceModule &source);

/// Lowers the source module to the LLVM dialect with `backend`'s pipeline,
/// or with the textual `pipeline` when that is not empty.
llvm::Error lowerToLLVM(SourceModule &source, const TargetBackend &backend,
                        llvm::StringRef pipeline, mlir::TimingScope &timing);

/// Has `backend` generate and load the code of the lowered module; with
/// `code`, also return it for the compile cache (TargetBackend::load).
llvm::Error generateCode(SourceModule &source, TargetBackend &backend,
                         unsigned optLevel, mlir::TimingScope &timing,
                         ObjectCode *code = nullptr);

} // namespace jit
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_JIT_STAGES_H
