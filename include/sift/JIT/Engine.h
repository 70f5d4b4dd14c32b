//===- Engine.h - The sift JIT embedding API --------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Compiles a module of sift and upstream tensor ops for the host CPU and calls
// its functions on host tensors:
//
//   auto engine = jit::Engine::compileFile("model.mlir", {});
//   if (!engine) { report(engine.takeError()); ... }
//   float x[4] = {1, 2, 3, 4};
//   auto results = (*engine)->call(
//       "double_it", {jit::TensorView(x, jit::DType::F32, {4})});
//   if (!results) { ... }            // every mismatch is an error, not a crash
//   const float *y = (*results)[0].data<float>();
//
// Every failure is an llvm::Error carrying a jit::JitError (an ErrorCode and
// a message naming the function, the argument and what was expected).
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_JIT_ENGINE_H
#define SIFT_JIT_ENGINE_H

#include "sift/JIT/Error.h"
#include "sift/JIT/Tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace mlir {
namespace sift {
namespace jit {

enum class Target { CPU, CUDA };

struct CompileOptions {
  Target target = Target::CPU;
  /// LLVM optimization level 0-3 (IR passes and code generation).
  unsigned optLevel = 2;
  /// A textual pass pipeline that replaces the CPU pipeline, e.g.
  /// "builtin.module(sift-cpu-pipeline)" or "canonicalize,...". It must end in
  /// the LLVM dialect with the standard function calling convention.
  std::string pipeline;
  /// Source-level passes run right after parsing, before the functions are
  /// listed and the pipeline runs, e.g.
  /// "sift-staticize,sift-batch{func=sampler size=32}": the functions they
  /// add (sampler_batched) are callable like the others.
  std::string transforms;
  /// The public functions to compile (after `transforms`), with what they
  /// call; the other public functions are dropped before lowering, so
  /// nobody pays for compiling them. Empty compiles every public function.
  /// Naming a function the module does not have is an error.
  std::vector<std::string> functions;
  /// Threads of each parallel loop (the CPU pipeline's num-threads); 0 leaves
  /// the choice to the OpenMP runtime (OMP_NUM_THREADS, else one per core).
  /// With `pipeline` set it must be 0 (InvalidArgument otherwise): the count
  /// then goes in the pipeline, sift-cpu-pipeline{num-threads=N}.
  /// The CPU backend lets the runtime give a region fewer threads while the
  /// machine is busy (load-balanced dynamic teams) unless OMP_DYNAMIC or
  /// KMP_DYNAMIC_MODE is set in the environment.
  unsigned numThreads = 0;
  /// Reuse the code of an earlier compile of the same source with the same
  /// options, on this machine and build of sift, from the compile cache, and
  /// store the code of this one there (docs/Performance.md, "The compile
  /// cache"). The environment variable SIFT_CACHE=0 turns it off as well.
  /// Results, errors and the calling convention are the same either way.
  /// Only the CPU target's code is cached.
  bool cache = true;
  /// The cache's directory; empty: $SIFT_CACHE_DIR, else
  /// $XDG_CACHE_HOME/sift/jit, else ~/.cache/sift/jit. One that cannot be
  /// created or written leaves the engine compiling every time.
  std::string cacheDir;
  /// Print, when the compile ends, the time each stage took (parse, source
  /// transforms and lowering pass by pass, LLVM's translation, optimization
  /// and code generation) to stderr, as `--mlir-timing` does.
  bool timing = false;
};

/// The type of one parameter or result, read from the source func.func.
struct ValueType {
  bool isTensor = false;
  DType dtype = DType::F32;
  /// Static extents; kDynamic for `?`. Empty for scalars.
  llvm::SmallVector<int64_t, 4> shape;
  static constexpr int64_t kDynamic = -1;
  /// For an integer scalar parameter annotated `{sift.bound = N : i64}`: N.
  /// Calls check that the value lies in [0, N].
  std::optional<int64_t> bound;
  /// The name: a `{sift.name = "..."}` argument or result attribute, else
  /// for a parameter its SSA name in the source text (`%labels` gives
  /// "labels"); functions made by transforms inherit their source's
  /// argument attributes. Empty when unknown.
  std::string name;
  /// For a result listed in the function's `sift.bounded_results` (what
  /// --sift-staticize makes of a data-dependent result, docs/Staticize.md):
  /// the padded tensor whose valid count is the next result, a tensor of
  /// i64 with this result's leading (batch) dimensions.
  bool bounded = false;
  /// For a bounded result: the dimension the count applies to, past the
  /// count's own (batch) dimensions (`sift.bounded_dims`; 0 when absent).
  int64_t boundedDim = 0;

  /// "tensor<4x?xf32>" or "f32".
  std::string str() const;
};

struct FunctionSignature {
  std::string name;
  std::vector<ValueType> inputs;
  std::vector<ValueType> results;
};

class Engine;

/// A function of a compiled module. The Engine must outlive it.
class Function {
public:
  const FunctionSignature &signature() const { return sig; }
  llvm::StringRef name() const { return sig.name; }

  /// Calls the function. Scalar results come back as rank-0 tensors.
  llvm::Expected<std::vector<Tensor>> call(llvm::ArrayRef<Argument> args) const;

private:
  friend class Engine;
  Function(const Engine *engine, FunctionSignature sig, void (*packed)(void **))
      : engine(engine), sig(std::move(sig)), packed(packed) {}
  const Engine *engine;
  FunctionSignature sig;
  void (*packed)(void **);
};

/// A compiled module. Calls may run concurrently (on one Engine or several);
/// each returns the run-time errors raised while it ran, on its own thread or
/// on OpenMP workers. A worker does not know which call it works for: while
/// calls run at once, an error raised on a worker reaches each of them.
class Engine {
public:
  ~Engine();
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  /// Compiles MLIR source text. `bufferName` names it in diagnostics.
  static llvm::Expected<std::unique_ptr<Engine>>
  compileSource(llvm::StringRef source, const CompileOptions &options = {},
                llvm::StringRef bufferName = "<source>");
  /// Compiles the MLIR file at `path`.
  static llvm::Expected<std::unique_ptr<Engine>>
  compileFile(llvm::StringRef path, const CompileOptions &options = {});

  /// The callable functions (public func.func definitions), in source order.
  llvm::ArrayRef<FunctionSignature> functions() const { return signatures; }

  /// Looks up a function by name.
  llvm::Expected<Function> lookup(llvm::StringRef name) const;

  /// Whether the code came from the compile cache (nothing was compiled).
  bool loadedFromCache() const;

  /// lookup(name), then call(args).
  llvm::Expected<std::vector<Tensor>> call(llvm::StringRef name,
                                           llvm::ArrayRef<Argument> args) const;

private:
  /// Function::call reaches the target backend through `impl`.
  friend class Function;
  struct Impl;
  explicit Engine(std::unique_ptr<Impl> impl);
  static llvm::Expected<std::unique_ptr<Engine>>
  compile(std::unique_ptr<llvm::MemoryBuffer> buffer,
          const CompileOptions &options);
  std::unique_ptr<Impl> impl;
  std::vector<FunctionSignature> signatures;
};

} // namespace jit
} // namespace sift
} // namespace mlir

#endif // SIFT_JIT_ENGINE_H
