//===- CompileCache.h - The JIT's persistent compile cache ------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Compiling the same source with the same options for the same machine and
// build of sift again, in this process or another, loads the object code of
// the first compile instead of running the stages (Stages.h) again: no
// parse, no transforms, no pipeline, no LLVM code generation.
//
// An entry holds what the engine needs to call the functions: their
// signatures (and the functions it cannot call, with the reason), the object
// file and the shared libraries it calls into (TargetBackend::ObjectCode).
// Its key is a BLAKE3 hash of the source and its buffer name, every
// CompileOptions field that changes the code, the target (triple, CPU name
// and features), the LLVM version, and the build ids of the binaries that
// hold sift, MLIR and LLVM (a rebuild of any of them changes the key).
//
// The entries are files `llvmcache-<key>` in one directory, written with
// llvm::localCache (a temporary file renamed into place: readers see a whole
// entry or none) and pruned with llvm::pruneCache. An entry that cannot be
// read, is truncated or corrupt (its trailing hash), or was written by
// another format version, is ignored and written again; a directory that
// cannot be created or written leaves the engine compiling as if there were
// no cache. docs/Performance.md ("The compile cache") documents the
// directory, the environment variables and the figures.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_JIT_COMPILECACHE_H
#define SIFT_LIB_JIT_COMPILECACHE_H

#include "TargetBackend.h"

#include "sift/JIT/Engine.h"

#include "llvm/Support/Caching.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace mlir {
namespace sift {
namespace jit {

/// One compiled module, as the cache stores it.
struct CachedModule {
  std::vector<FunctionSignature> signatures;
  /// Public functions the API cannot call, with the reason (in name order).
  std::vector<std::pair<std::string, std::string>> unsupported;
  ObjectCode code;
};

/// The cache entry of one compile.
class CompileCache {
public:
  /// The entry of compiling `source` with `options` for `backend`, or none
  /// where the cache is off: CompileOptions::cache false, SIFT_CACHE=0, a
  /// target whose code is not cached, no directory to name, or a build whose
  /// binaries cannot be identified.
  static std::optional<CompileCache> open(const llvm::MemoryBuffer &source,
                                          const CompileOptions &options,
                                          const TargetBackend &backend);

  /// The directory of `options` (CompileOptions::cacheDir, else
  /// $SIFT_CACHE_DIR, else $XDG_CACHE_HOME/sift/jit, else
  /// ~/.cache/sift/jit); empty where none can be named.
  static std::string directory(const CompileOptions &options);

  /// The stored module, or none (missing, unreadable, corrupt, or another
  /// format version: a bad entry is removed).
  std::optional<CachedModule> lookup();

  /// Stores `module` (nothing where the directory cannot be written), then
  /// prunes the directory by the policy (docs/Performance.md).
  void store(const CachedModule &module);

  llvm::StringRef getKey() const { return key; }

private:
  CompileCache(std::string dir, std::string key, llvm::FileCache files,
               std::shared_ptr<std::unique_ptr<llvm::MemoryBuffer>> hit)
      : dir(std::move(dir)), key(std::move(key)), files(std::move(files)),
        hit(std::move(hit)) {}
  std::string dir;
  std::string key;
  /// llvm::localCache over `dir`.
  llvm::FileCache files;
  /// Where `files` puts the entry it found.
  std::shared_ptr<std::unique_ptr<llvm::MemoryBuffer>> hit;
};

} // namespace jit
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_JIT_COMPILECACHE_H
