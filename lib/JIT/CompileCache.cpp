//===- CompileCache.cpp - The JIT's persistent compile cache ----*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "CompileCache.h"

#ifdef SIFT_JIT_HAS_RUNTIME
#include "sift/Runtime/SiftRuntime.h"
#endif

#include "mlir/ExecutionEngine/ExecutionEngine.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>
#include <elf.h>
#include <link.h>
#include <mutex>

namespace jit = mlir::sift::jit;
using llvm::StringRef;

/// The entry format; a change of what an entry holds or how bumps it.
static constexpr uint32_t kFormatVersion = 3;
static constexpr char kMagic[8] = {'S', 'I', 'F', 'T', 'J', 'I', 'T', 'C'};
/// What pruneCache keeps unless $SIFT_CACHE_POLICY says otherwise: entries
/// used in the last 30 days, 1 GiB at most (the least recently used go
/// first), checked at most every 20 minutes.
static constexpr const char *kDefaultPolicy =
    "prune_interval=20m:prune_after=720h:cache_size_bytes=1g";

//===----------------------------------------------------------------------===//
// The build id of the binaries
//===----------------------------------------------------------------------===//

namespace {
struct BinarySearch {
  uintptr_t address;
  std::string id;
};
} // namespace

/// The GNU build id (NT_GNU_BUILD_ID, what the linker hashes the linked
/// binary into) of the loaded binary holding `info`, in hex; else its path,
/// size and modification time; else "".
static std::string identifyBinary(const dl_phdr_info &info) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr) &header = info.dlpi_phdr[i];
    if (header.p_type != PT_NOTE)
      continue;
    const char *at =
        reinterpret_cast<const char *>(info.dlpi_addr + header.p_vaddr);
    const char *end = at + header.p_memsz;
    size_t align = header.p_align == 8 ? 8 : 4;
    auto aligned = [&](size_t n) { return (n + align - 1) & ~(align - 1); };
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      const auto *note = reinterpret_cast<const ElfW(Nhdr) *>(at);
      const char *name = at + sizeof(ElfW(Nhdr));
      const char *desc = name + aligned(note->n_namesz);
      if (desc + note->n_descsz > end)
        break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
          StringRef(name, 3) == "GNU")
        return "build-id:" +
               llvm::toHex(StringRef(desc, note->n_descsz), /*LowerCase=*/true);
      at = desc + aligned(note->n_descsz);
    }
  }
  std::string path =
      info.dlpi_name && *info.dlpi_name ? info.dlpi_name : "/proc/self/exe";
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status))
    return {};
  return "file:" + path + ":" + std::to_string(status.getSize()) + ":" +
         std::to_string(
             status.getLastModificationTime().time_since_epoch().count());
}

/// The identity of the loaded binary that holds `address`, "" if none.
static std::string binaryHolding(const void *address) {
  BinarySearch search{reinterpret_cast<uintptr_t>(address), {}};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto *search = static_cast<BinarySearch *>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &header = info->dlpi_phdr[i];
          uintptr_t start = info->dlpi_addr + header.p_vaddr;
          if (header.p_type == PT_LOAD && search->address >= start &&
              search->address < start + header.p_memsz) {
            search->id = identifyBinary(*info);
            return 1;
          }
        }
        return 0;
      },
      &search);
  return search.id;
}

/// The build of the compiler: the binaries holding sift's JIT (and with it
/// its passes), MLIR, LLVM and the sift runtime, and the LLVM version; ""
/// where one of them cannot be identified.
static const std::string &compilerBuild() {
  static std::string build;
  static std::once_flag once;
  std::call_once(once, [] {
    const void *binaries[] = {
        reinterpret_cast<const void *>(&binaryHolding),
        reinterpret_cast<const void *>(&mlir::ExecutionEngine::create),
        reinterpret_cast<const void *>(&llvm::sys::getHostCPUName),
#ifdef SIFT_JIT_HAS_RUNTIME
        reinterpret_cast<const void *>(&sift_rt_run),
#endif
    };
    std::string ids = "llvm " LLVM_VERSION_STRING;
    for (const void *address : binaries) {
      std::string id = binaryHolding(address);
      if (id.empty())
        return;
      ids += ";" + id;
    }
    build = std::move(ids);
  });
  return build;
}

//===----------------------------------------------------------------------===//
// The entry's bytes
//===----------------------------------------------------------------------===//

namespace {
class Writer {
public:
  void u8(uint8_t v) { out.push_back(static_cast<char>(v)); }
  void u64(uint64_t v) {
    char bytes[8];
    llvm::support::endian::write64le(bytes, v);
    out.append(bytes, 8);
  }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void str(StringRef s) {
    u64(s.size());
    out.append(s.data(), s.size());
  }
  void type(const jit::ValueType &t) {
    u8(t.isTensor);
    u8(static_cast<uint8_t>(t.dtype));
    u64(t.shape.size());
    for (int64_t d : t.shape)
      i64(d);
    u8(t.bound.has_value());
    i64(t.bound.value_or(0));
    str(t.name);
    u8(t.bounded);
    i64(t.boundedDim);
  }
  std::string out;
};

/// Reads what Writer wrote; any read past the end or out of range makes
/// `ok` false (and returns zeros), checked once at the end.
class Reader {
public:
  explicit Reader(StringRef in) : in(in) {}
  bool ok = true;

  StringRef bytes(uint64_t n) {
    if (!ok || n > in.size()) {
      ok = false;
      return {};
    }
    StringRef b = in.take_front(n);
    in = in.drop_front(n);
    return b;
  }
  uint8_t u8() {
    StringRef b = bytes(1);
    return ok ? static_cast<uint8_t>(b[0]) : 0;
  }
  uint64_t u64() {
    StringRef b = bytes(8);
    return ok ? llvm::support::endian::read64le(b.data()) : 0;
  }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  std::string str() { return bytes(u64()).str(); }
  /// A count of items of at least `minBytes` each, checked against what is
  /// left so that a corrupt count cannot make us allocate much.
  uint64_t count(uint64_t minBytes) {
    uint64_t n = u64();
    if (n > in.size() / minBytes)
      ok = false;
    return ok ? n : 0;
  }
  jit::ValueType type() {
    jit::ValueType t;
    t.isTensor = u8();
    uint8_t dtype = u8();
    if (dtype > static_cast<uint8_t>(jit::DType::F64))
      ok = false;
    t.dtype = static_cast<jit::DType>(dtype);
    for (uint64_t i = 0, n = count(8); i < n; ++i)
      t.shape.push_back(i64());
    bool hasBound = u8();
    int64_t bound = i64();
    if (hasBound)
      t.bound = bound;
    t.name = str();
    t.bounded = u8();
    t.boundedDim = i64();
    if (t.boundedDim < 0 || t.boundedDim >= (int64_t)t.shape.size() + 1)
      ok = false;
    return t;
  }
  bool atEnd() const { return in.empty(); }

private:
  StringRef in;
};
} // namespace

static std::string hashOf(StringRef bytes) {
  auto hash = llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(bytes));
  return std::string(hash.begin(), hash.end());
}

static std::string encode(StringRef key, const jit::CachedModule &module) {
  Writer w;
  w.out.append(kMagic, sizeof(kMagic));
  w.u64(kFormatVersion);
  w.str(key);
  w.u64(module.signatures.size());
  for (const jit::FunctionSignature &sig : module.signatures) {
    w.str(sig.name);
    w.u64(sig.inputs.size());
    for (const jit::ValueType &t : sig.inputs)
      w.type(t);
    w.u64(sig.results.size());
    for (const jit::ValueType &t : sig.results)
      w.type(t);
  }
  w.u64(module.unsupported.size());
  for (const auto &[name, reason] : module.unsupported) {
    w.str(name);
    w.str(reason);
  }
  w.u64(module.code.sharedLibs.size());
  for (const std::string &lib : module.code.sharedLibs)
    w.str(lib);
  w.u64(module.code.objects.size());
  for (const std::string &object : module.code.objects)
    w.str(object);
  w.out += hashOf(w.out);
  return std::move(w.out);
}

static std::optional<jit::CachedModule> decode(StringRef key, StringRef bytes) {
  constexpr size_t hashSize = LLVM_BLAKE3_OUT_LEN;
  if (bytes.size() < sizeof(kMagic) + hashSize)
    return std::nullopt;
  StringRef body = bytes.drop_back(hashSize);
  if (hashOf(body) != bytes.take_back(hashSize))
    return std::nullopt;
  Reader r(body);
  if (r.bytes(sizeof(kMagic)) != StringRef(kMagic, sizeof(kMagic)) ||
      r.u64() != kFormatVersion || r.str() != key)
    return std::nullopt;
  jit::CachedModule module;
  for (uint64_t i = 0, n = r.count(24); i < n && r.ok; ++i) {
    jit::FunctionSignature sig;
    sig.name = r.str();
    for (uint64_t j = 0, m = r.count(8); j < m && r.ok; ++j)
      sig.inputs.push_back(r.type());
    for (uint64_t j = 0, m = r.count(8); j < m && r.ok; ++j)
      sig.results.push_back(r.type());
    module.signatures.push_back(std::move(sig));
  }
  for (uint64_t i = 0, n = r.count(16); i < n && r.ok; ++i) {
    std::string name = r.str();
    module.unsupported.emplace_back(std::move(name), r.str());
  }
  for (uint64_t i = 0, n = r.count(8); i < n && r.ok; ++i)
    module.code.sharedLibs.push_back(r.str());
  for (uint64_t i = 0, n = r.count(8); i < n && r.ok; ++i)
    module.code.objects.push_back(r.str());
  if (!r.ok || !r.atEnd() || module.code.objects.empty() ||
      llvm::any_of(module.code.objects,
                   [](const std::string &o) { return o.empty(); }))
    return std::nullopt;
  return module;
}

//===----------------------------------------------------------------------===//
// CompileCache
//===----------------------------------------------------------------------===//

/// SIFT_CACHE=0 (or off, false, no) turns the cache off.
static bool disabledByEnvironment() {
  const char *env = std::getenv("SIFT_CACHE");
  if (!env)
    return false;
  std::string value = StringRef(env).trim().lower();
  return value == "0" || value == "off" || value == "false" || value == "no";
}

std::string jit::CompileCache::directory(const CompileOptions &options) {
  if (!options.cacheDir.empty())
    return options.cacheDir;
  if (const char *env = std::getenv("SIFT_CACHE_DIR"); env && *env)
    return env;
  // $XDG_CACHE_HOME, else ~/.cache.
  llvm::SmallString<256> dir;
  if (!llvm::sys::path::cache_directory(dir))
    return {};
  llvm::sys::path::append(dir, "sift", "jit");
  return std::string(dir);
}

std::optional<jit::CompileCache>
jit::CompileCache::open(const llvm::MemoryBuffer &source,
                        const CompileOptions &options,
                        const TargetBackend &backend) {
  if (!options.cache || disabledByEnvironment())
    return std::nullopt;
  std::string target = backend.cacheTarget();
  const std::string &build = compilerBuild();
  std::string dir = directory(options);
  if (target.empty() || build.empty() || dir.empty())
    return std::nullopt;

  // Every input of the compile, each with its length so that no two lists
  // of fields give the same bytes.
  Writer key;
  key.u64(kFormatVersion);
  key.str(build);
  key.str(target);
  key.u64(options.optLevel);
  key.u64(options.numThreads);
  key.str(options.pipeline);
  key.str(options.transforms);
  key.u64(options.functions.size());
  for (const std::string &fn : options.functions)
    key.str(fn);
  // Locations (file names included) reach diagnostics and may reach code.
  key.str(source.getBufferIdentifier());
  key.str(source.getBuffer());
  std::string hex = llvm::toHex(hashOf(key.out), /*LowerCase=*/true);

  // localCache hands an entry it finds to this callback.
  auto hit = std::make_shared<std::unique_ptr<llvm::MemoryBuffer>>();
  auto files =
      llvm::localCache("sift JIT cache", "sift-tmp", dir,
                       [hit](unsigned, const llvm::Twine &,
                             std::unique_ptr<llvm::MemoryBuffer> buffer) {
                         *hit = std::move(buffer);
                       });
  if (!files) {
    llvm::consumeError(files.takeError());
    return std::nullopt;
  }
  return CompileCache(std::move(dir), std::move(hex), std::move(*files),
                      std::move(hit));
}

std::optional<jit::CachedModule> jit::CompileCache::lookup() {
  auto stream = files(0, key, key);
  if (!stream) {
    llvm::consumeError(stream.takeError());
    return std::nullopt;
  }
  std::unique_ptr<llvm::MemoryBuffer> entry = std::move(*hit);
  if (*stream || !entry)
    return std::nullopt;
  std::optional<CachedModule> module = decode(key, entry->getBuffer());
  if (!module) {
    // `store` writes it again.
    entry.reset();
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, "llvmcache-" + key);
    llvm::sys::fs::remove(path);
  }
  return module;
}

void jit::CompileCache::store(const CachedModule &module) {
  auto stream = files(0, key, key);
  if (!stream) {
    llvm::consumeError(stream.takeError());
    return;
  }
  // Another compile stored it meanwhile.
  if (!*stream)
    return;
  auto file = (*stream)(0, key);
  if (!file) {
    // The directory cannot be created or written: no cache.
    llvm::consumeError(file.takeError());
    return;
  }
  *(*file)->OS << encode(key, module);
  llvm::consumeError((*file)->commit());
  // The commit hands the entry written to the callback.
  hit->reset();

  const char *policyText = std::getenv("SIFT_CACHE_POLICY");
  auto policy = llvm::parseCachePruningPolicy(
      policyText && *policyText ? policyText : kDefaultPolicy);
  if (!policy) {
    llvm::consumeError(policy.takeError());
    policy = llvm::parseCachePruningPolicy(kDefaultPolicy);
  }
  if (policy)
    llvm::pruneCache(dir, *policy);
}
