//===- TransformsTest.cpp - staticize and batch as library calls ----------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The entry points of include/sift/Dialect/Sift/Transforms/Transforms.h,
// called without a pass manager, as the JIT and the Python module do; and
// the pipelines' verifier pass (--sift-verify-ir).
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/Transforms/Transforms.h"
#include "sift/InitAllSift.h"
#include "sift/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::sift;

namespace {

class TransformsTest : public ::testing::Test {
protected:
  TransformsTest() {
    DialectRegistry registry;
    registerAllSiftDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    // Diagnostics go to `diagnostics` instead of stderr.
    handler = context.getDiagEngine().registerHandler([&](Diagnostic &d) {
      diagnostics += d.str() + "\n";
      return success();
    });
  }
  ~TransformsTest() override { context.getDiagEngine().eraseHandler(handler); }

  OwningOpRef<ModuleOp> parse(const char *source) {
    return parseSourceString<ModuleOp>(source, &context);
  }

  MLIRContext context;
  DiagnosticEngine::HandlerID handler;
  std::string diagnostics;
};

constexpr const char *kSelect = R"mlir(
func.func @select(%m: tensor<100xi1>) -> tensor<?xi64> {
  %i = sift.nonzero %m : tensor<100xi1> -> tensor<?xi64>
  return %i : tensor<?xi64>
}
)mlir";

TEST_F(TransformsTest, StaticizeFunctionPadsToTheBound) {
  OwningOpRef<ModuleOp> module = parse(kSelect);
  ASSERT_TRUE(module);
  auto func = module->lookupSymbol<func::FuncOp>("select");
  FailureOr<StaticizeResult> result = staticizeFunction(func);
  ASSERT_TRUE(succeeded(result)) << diagnostics;
  EXPECT_EQ(result->numRewritten, 1);
  EXPECT_EQ(result->numSyncsRemoved, 1);
  ASSERT_EQ(result->padded.size(), 1u);
  EXPECT_EQ(result->padded[0].name, "sift.nonzero");
  EXPECT_EQ(result->padded[0].bound, 100);
  // The bounded result becomes its padded tensor and its count.
  FunctionType type = func.getFunctionType();
  ASSERT_EQ(type.getNumResults(), 2u);
  EXPECT_EQ(cast<RankedTensorType>(type.getResult(0)).getShape(),
            ArrayRef<int64_t>{100});
  EXPECT_EQ(cast<RankedTensorType>(type.getResult(1)).getRank(), 0);
}

TEST_F(TransformsTest, StaticizeFunctionFailsWithADiagnostic) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @unbounded(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
)mlir");
  ASSERT_TRUE(module);
  auto func = module->lookupSymbol<func::FuncOp>("unbounded");
  EXPECT_TRUE(failed(staticizeFunction(func)));
  EXPECT_NE(diagnostics.find("needs static tensor arguments"),
            std::string::npos)
      << diagnostics;
}

TEST_F(TransformsTest, BatchFunctionAddsABatchedFunction) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @scale(%x: tensor<8xf32>, %s: f32) -> tensor<8xf32> {
  %b = tensor.splat %s : tensor<8xf32>
  %y = arith.mulf %x, %b : tensor<8xf32>
  return %y : tensor<8xf32>
}
)mlir");
  ASSERT_TRUE(module);
  auto source = module->lookupSymbol<func::FuncOp>("scale");
  BatchOptions options;
  options.batchSize = 4;
  options.unbatchedArgs = {1};
  FailureOr<func::FuncOp> batched = batchFunction(source, options);
  ASSERT_TRUE(succeeded(batched)) << diagnostics;
  EXPECT_EQ(batched->getSymName(), "scale_batched");
  EXPECT_EQ(module->lookupSymbol<func::FuncOp>("scale_batched"), *batched);
  FunctionType type = batched->getFunctionType();
  EXPECT_EQ(cast<RankedTensorType>(type.getInput(0)).getShape(),
            (ArrayRef<int64_t>{4, 8}));
  EXPECT_TRUE(type.getInput(1).isF32());
  EXPECT_EQ(cast<RankedTensorType>(type.getResult(0)).getShape(),
            (ArrayRef<int64_t>{4, 8}));
  // The source is unchanged.
  EXPECT_EQ(
      cast<RankedTensorType>(source.getFunctionType().getInput(0)).getShape(),
      ArrayRef<int64_t>{8});
}

TEST_F(TransformsTest, BatchFunctionRefusesABadSizeAndBuildsNothing) {
  OwningOpRef<ModuleOp> module = parse(kSelect);
  ASSERT_TRUE(module);
  auto source = module->lookupSymbol<func::FuncOp>("select");
  BatchOptions options; // batchSize 0
  EXPECT_TRUE(failed(batchFunction(source, options)));
  EXPECT_FALSE(diagnostics.empty());
  EXPECT_EQ(llvm::range_size(module->getOps<func::FuncOp>()), 1u);
}

// The pipelines' verifier pass reports an op a pass left invalid (here a
// linalg.generic whose operand lost the extent its map reads, as
// --sift-fuse's reversed reads once did), which bufferization would have
// lowered to loops reading past the slice.
TEST_F(TransformsTest, VerifyIRReportsAnInvalidOpAtTheOp) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
#rev = affine_map<(d0, d1) -> (d0, 2 - d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @flip(%x: tensor<4x3xf32>, %short: tensor<4x1xf32>)
    -> tensor<4x3xf32> {
  %e = tensor.empty() : tensor<4x3xf32>
  %r = linalg.generic {indexing_maps = [#rev, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x3xf32>) outs(%e : tensor<4x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
)mlir");
  ASSERT_TRUE(module);
  PassManager pm(&context);
  pm.enableVerifier(false);
  pm.addPass(createSiftVerifyIR());
  ASSERT_TRUE(succeeded(pm.run(*module))) << diagnostics;
  // What the bug made: the generic reads the 4x1 slice.
  auto func = module->lookupSymbol<func::FuncOp>("flip");
  Operation *generic = &*func.getBody().front().begin();
  generic = generic->getNextNode();
  generic->setOperand(0, func.getArgument(1));
  EXPECT_TRUE(failed(pm.run(*module)));
  EXPECT_NE(diagnostics.find("linalg.generic"), std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("dimension #1"), std::string::npos) << diagnostics;
}

} // namespace
