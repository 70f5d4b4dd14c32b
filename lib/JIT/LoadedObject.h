//===- LoadedObject.h - An object file linked into the process --*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Loads a host object file that mlir::ExecutionEngine generated before (the
// compile cache's, CompileCache.h) into an ORC LLJIT set up as
// mlir::ExecutionEngine::create sets up its own: RuntimeDyld with a section
// memory manager, the shared libraries loaded into the process first (with
// their __mlir_execution_engine_init/destroy protocol), symbols resolved in
// the process, the initializers run by initialize(), the deinitializers when
// it is destroyed. The packed wrappers (`_mlir_<name>`) are in the object
// already: nothing is compiled.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_JIT_LOADEDOBJECT_H
#define SIFT_LIB_JIT_LOADEDOBJECT_H

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class JITEventListener;
namespace orc {
class LLJIT;
} // namespace orc
} // namespace llvm

namespace mlir {
namespace sift {
namespace jit {

class LoadedObject {
public:
  using SymbolsFn =
      llvm::function_ref<llvm::orc::SymbolMap(llvm::orc::MangleAndInterner)>;

  ~LoadedObject();
  LoadedObject(const LoadedObject &) = delete;
  LoadedObject &operator=(const LoadedObject &) = delete;

  /// Loads `sharedLibs`, then adds `objects` to a new JIT, where they link
  /// with each other; `perfListener` tells `perf` about their functions
  /// (SIFT_PERF=1). Fails where a library cannot be loaded.
  static llvm::Expected<std::unique_ptr<LoadedObject>>
  create(llvm::ArrayRef<std::string> objects,
         const std::vector<std::string> &sharedLibs, bool perfListener);

  /// Defines absolute symbols, as ExecutionEngine::registerSymbols; fails
  /// where the objects define one of them already.
  llvm::Error registerSymbols(SymbolsFn symbols);

  /// Links the object and runs its initializers (global constructors).
  llvm::Error initialize();

  /// The packed wrapper of `name`, as ExecutionEngine::lookupPacked.
  llvm::Expected<void (*)(void **)> lookupPacked(llvm::StringRef name) const;

private:
  LoadedObject() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  llvm::JITEventListener *perf = nullptr;
  std::vector<void (*)()> destroyFns;
  bool initialized = false;
};

} // namespace jit
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_JIT_LOADEDOBJECT_H
