//===- tensor-opt.cpp - The sift optimizer driver ---------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// An mlir-opt-style driver: every upstream dialect, extension and pass, plus
// the sift dialect and its passes.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "sift/Conversion/Passes.h"
#include "sift/Dialect/Sift/IR/SiftDialect.h"
#include "sift/Dialect/Sift/Transforms/Passes.h"
#include "sift/Pipelines/Pipelines.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();

  registry.insert<mlir::sift::SiftDialect>();
  mlir::sift::registerSiftPasses();
  mlir::sift::registerSiftConversionPasses();
  mlir::sift::registerSiftPipelines();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv,
      "sift optimizer driver: the sift dialect and passes over "
      "all of upstream MLIR\n",
      registry));
}
