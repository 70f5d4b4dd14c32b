//===- tensor-opt.cpp - The sift optimizer driver ---------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// An mlir-opt-style driver: every upstream dialect, extension and pass, plus
// the sift dialect and its passes. It parses without verification and
// verifies in its first pass (sift::guardedVerify), so that inputs on which
// an upstream verifier crashes get an error instead.
//
//===----------------------------------------------------------------------===//

#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

#include "sift/Dialect/Sift/Transforms/GuardedVerify.h"
#include "sift/InitAllSift.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::sift::registerAllSiftDialects(registry);
  mlir::sift::registerAllSiftPasses();

  // mlir::MlirOptMain(argc, argv, ...), with the verification on parsing
  // moved into the first pass.
  llvm::InitLLVM init(argc, argv);
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv,
      "sift optimizer driver: the sift dialect and passes over all of "
      "upstream MLIR\n",
      registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    return 0;
  }
  if (config.shouldListPasses()) {
    mlir::printRegisteredPasses();
    return 0;
  }
  if (config.shouldVerifyOnParsing()) {
    mlir::MlirOptMainConfig userPipeline = config;
    config.verifyOnParsing(false);
    config.setPassPipelineSetupFn([userPipeline](mlir::PassManager &pm) {
      pm.addPass(mlir::sift::createGuardedVerifyPass());
      return userPipeline.setupPassPipeline(pm);
    });
  }

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
