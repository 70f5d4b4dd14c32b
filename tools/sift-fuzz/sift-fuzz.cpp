//===- sift-fuzz.cpp - libFuzzer target over the sift pipeline --*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Parses the input bytes as MLIR with every dialect tensor-opt registers,
// verifies, then runs --sift-staticize, --sift-batch (the first function,
// size 2) and --sift-cpu-pipeline, each only when the step before succeeded.
// Diagnostics are dropped: an input that is rejected with an error is fine;
// a crash, a sanitizer report or a hang is a finding. Each input gets a
// fresh single-threaded context, so a finding reproduces on its own:
//   build-san/bin/sift-fuzz crash-<sha1>
// scripts/fuzz.sh builds it (scripts/sanitize.sh's build) and runs it on the
// .mlir files of test/ and examples/.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "sift/Conversion/Passes.h"
#include "sift/Dialect/Sift/IR/SiftDialect.h"
#include "sift/Dialect/Sift/Transforms/GuardedVerify.h"
#include "sift/Dialect/Sift/Transforms/Passes.h"
#include "sift/InitAllSift.h"
#include "sift/Pipelines/Pipelines.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

using namespace mlir;

namespace {

/// The dialects, extensions and passes of tensor-opt (tools/tensor-opt),
/// registered once: the CPU pipeline names upstream passes textually.
const DialectRegistry &getRegistry() {
  static const DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    sift::registerAllSiftDialects(*r);
    sift::registerAllSiftPasses();
    return r;
  }();
  return *registry;
}

/// Whether `module` holds IR that crashes upstream MLIR 22 itself, in code
/// sift does not own (docs/UpstreamBugs.md): such inputs say nothing about
/// sift, so the fuzzer skips them instead of reporting the same upstream
/// crash over and over. (A verifier's crash, sift::guardedVerify rejects.)
bool hitsKnownUpstreamCrash(ModuleOp module) {
  WalkResult result = module->walk([](Operation *op) {
    StringRef name = op->getName().getStringRef();
    // memref.expand_shape with two dynamic sizes in one reassociation group:
    // --expand-strided-metadata (in --sift-cpu-pipeline) dereferences a
    // null size (llvm/llvm-project#186830). The tensor form is sift's to
    // handle (ExpandShapeToReshapePass rewrites it).
    if (name == "memref.expand_shape") {
      std::optional<Attribute> reassociation =
          op->getInherentAttr("reassociation");
      auto groups = reassociation ? dyn_cast_or_null<ArrayAttr>(*reassociation)
                                  : ArrayAttr();
      auto type = op->getNumResults() == 1
                      ? dyn_cast<ShapedType>(op->getResult(0).getType())
                      : ShapedType();
      if (!groups || !type || !type.hasRank())
        return WalkResult::advance();
      for (Attribute group : groups) {
        auto dims = dyn_cast<ArrayAttr>(group);
        if (!dims)
          continue;
        int dynamic = 0;
        for (Attribute d : dims) {
          auto i = dyn_cast<IntegerAttr>(d);
          if (i && i.getInt() >= 0 && i.getInt() < type.getRank() &&
              type.isDynamicDim(i.getInt()))
            ++dynamic;
        }
        if (dynamic > 1)
          return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `rest`, the text after a `dimensions` or `permutation` keyword,
/// assigns it something other than `[int, ...]` (or the generic form).
bool isMalformedList(StringRef rest) {
  rest = rest.ltrim();
  if (!rest.consume_front("="))
    return false; // Not an attribute assignment.
  rest = rest.ltrim();
  if (rest.starts_with("array<"))
    return false; // The generic form, parsed by the attribute parser.
  if (!rest.consume_front("["))
    return true;
  if (rest.ltrim().starts_with("]"))
    return false; // An empty list.
  for (;;) {
    rest = rest.ltrim();
    rest.consume_front("-");
    size_t digits = rest.find_first_not_of("0123456789");
    if (digits == 0 || digits == StringRef::npos)
      return true;
    rest = rest.drop_front(digits).ltrim();
    if (rest.consume_front("]"))
      return false;
    if (!rest.consume_front(","))
      return true;
  }
}

/// Whether the text has a `dimensions` or `permutation` list that is not
/// `[int, ...]`: the custom parsers of linalg.reduce, linalg.broadcast and
/// linalg.transpose store a null attribute after failing to parse one and
/// crash (llvm/llvm-project#132747, docs/UpstreamBugs.md), before any sift
/// code runs.
bool hasMalformedDimensions(StringRef text) {
  for (StringRef keyword : {"dimensions", "permutation"})
    for (size_t at = text.find(keyword); at != StringRef::npos;
         at = text.find(keyword, at + 1))
      if (isMalformedList(text.drop_front(at + keyword.size())))
        return true;
  return false;
}

/// Runs `build`'s passes on `module`; the pass manager verifies after each
/// pass, as tensor-opt does.
template <typename BuildFn>
LogicalResult runPasses(MLIRContext &ctx, ModuleOp module, BuildFn build) {
  PassManager pm(&ctx);
  build(pm);
  return pm.run(module);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The MLIR lexer reads up to a terminating NUL: copy the bytes into a
  // string, which has one.
  std::string source(reinterpret_cast<const char *>(data), size);
  if (hasMalformedDimensions(source))
    return 0;

  MLIRContext ctx(getRegistry(), MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler dropDiagnostics(
      &ctx, [](Diagnostic &) { return success(); });

  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      source, ParserConfig(&ctx, /*verifyAfterParse=*/false));
  // Verified as tensor-opt does: inputs that crash an upstream verifier are
  // rejected by sift::guardedVerify, and are sift's to catch.
  if (!module || failed(sift::guardedVerify(*module)) ||
      hitsKnownUpstreamCrash(*module))
    return 0;

  if (failed(runPasses(ctx, *module, [](PassManager &pm) {
        pm.addPass(sift::createSiftStaticize());
      })))
    return 0;

  // --sift-batch on the first function with a body, as a size-2 batch.
  std::string funcName;
  for (auto fn : module->getOps<func::FuncOp>()) {
    if (!fn.isExternal()) {
      funcName = fn.getSymName().str();
      break;
    }
  }
  if (!funcName.empty()) {
    sift::SiftBatchOptions options;
    options.funcName = funcName;
    options.batchSize = 2;
    if (failed(runPasses(ctx, *module, [&](PassManager &pm) {
          pm.addPass(sift::createSiftBatch(options));
        })))
      return 0;
  }

  (void)runPasses(ctx, *module, [](PassManager &pm) {
    sift::buildCpuPipeline(pm, sift::CpuPipelineOptions());
  });
  return 0;
}
