//===- Pipelines.cpp - End-to-end sift pipelines ----------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Pipelines/Pipelines.h"

#include "sift/Conversion/Passes.h"
#include "sift/Conversion/SiftToLinalg/SiftToLinalg.h"
#include "sift/Runtime/SiftRuntime.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;
using namespace mlir::sift;

/// Appends a textual pipeline fragment; the fragments below are fixed, so a
/// parse failure is a bug in this file.
static void addPasses(OpPassManager &pm, StringRef pipeline) {
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    llvm::report_fatal_error(llvm::Twine("sift: bad built-in pipeline '") +
                             pipeline + "': " + error);
}

namespace {

/// Fuses an elementwise `linalg.generic` into each of its consumers even when
/// it has several, if its body is a couple of arith ops: recomputing them is
/// cheaper than a round trip through memory, and a mask (i1) that is not
/// materialized keeps the consumers' loops vectorizable (LLVM does not widen
/// loads of i1). `linalg-fuse-elementwise-ops` fuses single uses only.
struct FuseCheapProducersPass
    : PassWrapper<FuseCheapProducersPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseCheapProducersPass)
  StringRef getArgument() const override { return "sift-fuse-cheap-producers"; }
  StringRef getDescription() const override {
    return "Fuse cheap elementwise linalg producers into all their consumers";
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
          if (!producer)
            return false;
          Block *body = producer.getBody();
          return body->getOperations().size() <= 3 &&
                 llvm::all_of(body->without_terminator(), [](Operation &op) {
                   return isa<arith::ArithDialect>(op.getDialect());
                 });
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

/// Lanes of the partial sums of a blocked float reduction: each lane adds
/// about n / kReductionLanes elements, then the lanes are added; the rounding
/// error grows with n / lanes + lanes instead of n, and the lane updates are
/// one vector loop.
constexpr int64_t kReductionLanes = 256;

/// Reassociates float sums (a linalg op with one reduction dimension whose
/// outputs are all `acc = addf(acc, x)`) into kReductionLanes interleaved
/// partial sums and a final sum of the lanes, with upstream's partial
/// reduction tiling. A sequential f32 sum of n values has a relative error
/// that grows with n (7e-5 on 4096 normal values); the blocked order keeps
/// it near NumPy's pairwise sum. Integer sums and min/max are exact in any
/// order and are left alone, as are reductions of at most kReductionLanes
/// elements.
struct BlockFloatReductionsPass
    : PassWrapper<BlockFloatReductionsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(BlockFloatReductionsPass)
  StringRef getArgument() const override {
    return "sift-block-float-reductions";
  }
  StringRef getDescription() const override {
    return "Sum floats in blocked order (partial sums per lane, then lanes)";
  }

  /// The reduction dimension of `op` if it is a blocked-sum candidate.
  static std::optional<unsigned> blockedSumDim(linalg::LinalgOp op) {
    if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() != 1 ||
        op.getNumDpsInits() == 0)
      return std::nullopt;
    SmallVector<unsigned> dims;
    op.getReductionDims(dims);
    std::optional<int64_t> extent = op.getStaticLoopRanges()[dims[0]];
    if (!ShapedType::isDynamic(*extent) && *extent <= kReductionLanes)
      return std::nullopt;
    for (unsigned i = 0; i < op.getNumDpsInits(); ++i) {
      SmallVector<Operation *> combiners;
      if (!matchReduction(op.getRegionOutputArgs(), i, combiners) ||
          combiners.size() != 1 || !isa<arith::AddFOp>(combiners[0]))
        return std::nullopt;
    }
    return dims[0];
  }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (blockedSumDim(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates) {
      unsigned dim = *blockedSumDim(op);
      SmallVector<OpFoldResult> tiles(op.getNumLoops(),
                                      rewriter.getIndexAttr(0));
      tiles[dim] = rewriter.getIndexAttr(kReductionLanes);
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileReductionUsingScf(
          rewriter, cast<PartialReductionOpInterface>(op.getOperation()),
          tiles);
      if (failed(tiled))
        continue; // Left as a sequential sum.
      // MLIR 22 leaves `linalg.index` in the partial op relative to the tile
      // (llvm/llvm-project#188261, fixed after 22): offset it by the tile's
      // start, as tiling does for other ops. A staticized masked sum reads
      // its row index there once its validity mask is fused in.
      for (Operation *tiledOp : tiled->tiledOps) {
        auto partial = dyn_cast<linalg::LinalgOp>(tiledOp);
        if (!partial || partial.getNumLoops() != op.getNumLoops() ||
            tiled->loops.size() != 1)
          continue;
        SmallVector<OpFoldResult> offsets(partial.getNumLoops(),
                                          rewriter.getIndexAttr(0));
        offsets[dim] = *tiled->loops.front().getSingleInductionVar();
        linalg::offsetIndices(rewriter, partial, offsets);
      }
      rewriter.replaceOp(op, tiled->replacements);
    }
  }
};

/// Rewrites each `tensor.expand_shape` that has two or more dynamic sizes
/// in one reassociation group into a `tensor.reshape` to its
/// `output_shape`. MLIR 22's --expand-strided-metadata dereferences a null
/// size on the memref form of such an expand_shape (llvm/llvm-project#186830,
/// docs/UpstreamBugs.md); `tensor.reshape` bufferizes to `memref.reshape`,
/// which does not go through it. sift's own lowerings never emit one; this
/// is for input programs that do.
struct ExpandShapeToReshapePass
    : PassWrapper<ExpandShapeToReshapePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExpandShapeToReshapePass)
  StringRef getArgument() const override {
    return "sift-expand-shape-to-reshape";
  }
  StringRef getDescription() const override {
    return "Rewrite expand_shape with several dynamic sizes in a group into "
           "tensor.reshape (avoids an upstream crash)";
  }

  static bool hasGroupWithDynamicSizes(tensor::ExpandShapeOp op) {
    RankedTensorType type = op.getResultType();
    return llvm::any_of(op.getReassociationIndices(),
                        [&](const ReassociationIndices &group) {
                          return llvm::count_if(group, [&](int64_t d) {
                                   return type.isDynamicDim(d);
                                 }) > 1;
                        });
  }

  void runOnOperation() override {
    SmallVector<tensor::ExpandShapeOp> ops;
    getOperation().walk([&](tensor::ExpandShapeOp op) {
      if (hasGroupWithDynamicSizes(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (tensor::ExpandShapeOp op : ops) {
      rewriter.setInsertionPoint(op);
      SmallVector<Value> sizes = getValueOrCreateConstantIndexOp(
          rewriter, op.getLoc(), op.getMixedOutputShape());
      Value shape =
          tensor::FromElementsOp::create(rewriter, op.getLoc(), sizes);
      rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, op.getResultType(),
                                                     op.getSrc(), shape);
    }
  }
};

/// Checks at run time, before each linalg op that runs on the calling
/// thread, that the operand extents the op requires equal are equal: two
/// dynamic `tensor<?xf32>` arguments of an `arith.addf` of different lengths
/// would otherwise be read past the end of the shorter. A mismatch calls
/// `sift_rt_fail` with both extents and the op's source line, which ends the
/// call with that error. Ops inside parallel loops and linalg bodies are
/// sift's own, consistent by construction, and are left alone.
struct CheckExtentsPass
    : PassWrapper<CheckExtentsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckExtentsPass)
  StringRef getArgument() const override { return "sift-check-extents"; }
  StringRef getDescription() const override {
    return "Check at run time that the extents a linalg op requires equal "
           "are equal";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, func::FuncDialect, scf::SCFDialect,
                    tensor::TensorDialect>();
  }

  static constexpr StringLiteral kFailFn = "sift_rt_fail";

  /// Whether `op` runs on the thread that called the function.
  static bool onCallingThread(Operation *op) {
    for (Operation *parent = op->getParentOp(); parent;
         parent = parent->getParentOp()) {
      if (isa<FunctionOpInterface>(parent))
        return true;
      if (!isa<scf::ForOp, scf::IfOp, scf::WhileOp>(parent))
        return false;
    }
    return false;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> ops;
    module.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && onCallingThread(op))
        ops.push_back(op);
    });
    bool declared = false;
    for (linalg::LinalgOp op : ops) {
      // Per loop dimension, the operand dimensions it is read from.
      SmallVector<SmallVector<std::pair<Value, int64_t>>> sources(
          op.getNumLoops());
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isa<RankedTensorType>(operand.get().getType()))
          continue;
        AffineMap map = op.getMatchingIndexingMap(&operand);
        for (auto [i, expr] : llvm::enumerate(map.getResults()))
          if (auto dim = dyn_cast<AffineDimExpr>(expr))
            sources[dim.getPosition()].push_back({operand.get(), i});
      }
      OpBuilder b(op);
      auto isStatic = [](std::pair<Value, int64_t> source) {
        return !cast<RankedTensorType>(source.first.getType())
                    .isDynamicDim(source.second);
      };
      for (auto &dimSources : sources) {
        for (size_t i = 1; i < dimSources.size(); ++i) {
          if (dimSources[i] == dimSources[0] ||
              (isStatic(dimSources[0]) && isStatic(dimSources[i])))
            continue; // The same extent, or checked by the verifier.
          if (!declared && failed(declareFailFn(module)))
            return signalPassFailure();
          declared = true;
          auto [x, dx] = dimSources[0];
          auto [y, dy] = dimSources[i];
          emitExtentCheck(b, op.getLoc(), x, dx, y, dy);
        }
      }
    }
  }

  /// Declares `func.func private @sift_rt_fail(i64, i64, i64, i64)` at the
  /// end of `module` unless it is there.
  static LogicalResult declareFailFn(ModuleOp module) {
    Builder b(module.getContext());
    Type i64 = b.getI64Type();
    auto type = b.getFunctionType({i64, i64, i64, i64}, {});
    if (auto existing = module.lookupSymbol<func::FuncOp>(kFailFn)) {
      if (existing.getFunctionType() == type)
        return success();
      return existing.emitError()
             << "cannot declare the runtime function " << kFailFn
             << ": a function of that name exists";
    }
    if (Operation *other = module.lookupSymbol(kFailFn))
      return other->emitError()
             << "cannot declare the runtime function " << kFailFn
             << ": the module has another symbol of that name";
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    func::FuncOp::create(builder, module.getLoc(), kFailFn, type).setPrivate();
    return success();
  }
};

/// Parallel iterations wanted before a further dimension of an
/// `scf.parallel` is made parallel too.
constexpr int64_t kMinParallelIterations = 32;

/// Keeps only the leading dimensions of each outermost `scf.parallel` that
/// give kMinParallelIterations parallel (unit dimensions dropped) and runs
/// the others, and every `scf.parallel` nested in another, as sequential
/// `scf.for` loops. OpenMP collapses a multi-dimensional loop into one and
/// recovers each index with a division per iteration, which keeps LLVM from
/// vectorizing the inner loop; a nested parallel loop would fork (serially)
/// once per outer iteration.
struct SequentializeInnerParallelDimsPass
    : PassWrapper<SequentializeInnerParallelDimsPass,
                  OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(
      SequentializeInnerParallelDimsPass)
  StringRef getArgument() const override {
    return "sift-sequentialize-inner-parallel-dims";
  }
  StringRef getDescription() const override {
    return "Run only the outer dimensions of scf.parallel loops in parallel";
  }
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    // Post-order: inner loops first, while their parents still exist.
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop.getInitVals().empty())
        loops.push_back(loop);
    });
    for (scf::ParallelOp loop : loops)
      rewrite(loop);
  }

  static void rewrite(scf::ParallelOp loop) {
    bool nested = loop->getParentOfType<scf::ParallelOp>() != nullptr;
    SmallVector<int64_t> parallelDims, sequentialDims;
    // getInductionVars() returns a vector by value: copy it once.
    SmallVector<Value> ivValues = llvm::to_vector(loop.getInductionVars());
    int64_t iterations = 1;
    for (int64_t d = 0, e = loop.getNumLoops(); d < e; ++d) {
      std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[d]);
      std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[d]);
      std::optional<int64_t> step = getConstantIntValue(loop.getStep()[d]);
      std::optional<int64_t> tripCount;
      if (lb && ub && step && *step > 0)
        if (std::optional<int64_t> span = llvm::checkedSub(*ub, *lb))
          tripCount = *span <= 0 ? 0 : llvm::divideCeil(*span, *step);
      if (tripCount == 1) {
        ivValues[d] = loop.getLowerBound()[d];
        continue;
      }
      if (nested || iterations >= kMinParallelIterations) {
        sequentialDims.push_back(d);
        continue;
      }
      parallelDims.push_back(d);
      int64_t product;
      iterations =
          tripCount && !llvm::MulOverflow(iterations, *tripCount, product)
              ? product
              : std::numeric_limits<int64_t>::max();
    }
    if (parallelDims.size() == loop.getNumLoops())
      return;

    IRRewriter rewriter(loop);
    Location loc = loop.getLoc();
    auto select = [&](ValueRange values, ArrayRef<int64_t> dims) {
      return llvm::map_to_vector(dims, [&](int64_t d) { return values[d]; });
    };
    Block *body = loop.getBody();
    rewriter.eraseOp(body->getTerminator());
    auto buildSequential = [&](OpBuilder &b, Location loc, ValueRange ivs) {
      for (auto [d, iv] : llvm::zip_equal(parallelDims, ivs))
        ivValues[d] = iv;
      scf::buildLoopNest(
          b, loc, select(loop.getLowerBound(), sequentialDims),
          select(loop.getUpperBound(), sequentialDims),
          select(loop.getStep(), sequentialDims),
          [&](OpBuilder &b, Location loc, ValueRange ivs) {
            for (auto [d, iv] : llvm::zip_equal(sequentialDims, ivs))
              ivValues[d] = iv;
            rewriter.inlineBlockBefore(body, b.getInsertionBlock(),
                                       b.getInsertionPoint(), ivValues);
          });
    };
    if (parallelDims.empty()) {
      buildSequential(rewriter, loc, {});
    } else {
      scf::ParallelOp::create(
          rewriter, loc, select(loop.getLowerBound(), parallelDims),
          select(loop.getUpperBound(), parallelDims),
          select(loop.getStep(), parallelDims), buildSequential);
    }
    rewriter.eraseOp(loop);
  }
};

} // namespace

void mlir::sift::buildCpuPipeline(OpPassManager &pm,
                                  const CpuPipelineOptions &options) {
  // Every sift op becomes linalg/scf/arith/math/tensor code on tensors
  // (sorts, scans and selections as real algorithms), so the rest of the
  // pipeline only sees upstream dialects.
  pm.addPass(createConvertSiftToLinalg());
  // Element-wise arith/math ops on tensors become linalg.generic, which
  // bufferizes (arith on tensors does not).
  addPasses(pm, "func.func(convert-elementwise-to-linalg)");
  // Operand extents that must agree are checked before each op reads them.
  pm.addPass(std::make_unique<CheckExtentsPass>());
  // Before every CSE, `tensor.empty` becomes `bufferization.alloc_tensor`:
  // CSE would otherwise replace a scratch tensor.empty inside a per-line
  // `scf.forall` body by an identical one outside it, and bufferization
  // then gives every thread the same buffer (tensor.empty has no contents
  // to conflict on). alloc_tensor allocates, so CSE leaves it in place.
  constexpr StringLiteral cse = "empty-tensor-to-alloc-tensor,cse";
  // Fold what is constant before anything grows.
  addPasses(pm, ("canonicalize," + cse).str());
  // Fuse producer/consumer elementwise linalg ops (comparisons, shifts,
  // selects of the same shape) into single loops: one pass over memory
  // instead of one per op.
  addPasses(
      pm, ("func.func(linalg-fuse-elementwise-ops),canonicalize," + cse).str());
  pm.addNestedPass<func::FuncOp>(std::make_unique<FuseCheapProducersPass>());
  addPasses(pm, ("canonicalize," + cse).str());
  // Float sums in blocked order (accuracy; the lanes also vectorize).
  pm.addNestedPass<func::FuncOp>(std::make_unique<BlockFloatReductionsPass>());
  addPasses(pm, ("canonicalize," + cse).str());
  // After the last canonicalization, which may fold reshapes back.
  pm.addNestedPass<func::FuncOp>(std::make_unique<ExpandShapeToReshapePass>());
  // Tensors to buffers in one analysis over the whole module, function
  // boundaries included, so no copies are made at calls; identity layouts at
  // the boundary keep the C interface simple (dense row-major memrefs).
  // A loop may carry a freshly computed tensor to its next iteration
  // (allow-return-allocs-from-loops); the deallocation pipeline frees it.
  addPasses(pm, "one-shot-bufferize{bufferize-function-boundaries "
                "function-boundary-type-conversion=identity-layout-map "
                "allow-return-allocs-from-loops}");
  // A value computed in place in a slice of a buffer and inserted back
  // into that slice bufferizes to a copy of the slice onto itself: CSE
  // merges the two slices and canonicalization drops the self-copy.
  addPasses(pm, "cse,canonicalize");
  // Frees every temporary and makes returned memrefs caller-owned.
  addPasses(pm, "buffer-deallocation-pipeline");
  // The deallocation pipeline leaves bufferization.clone (a returned constant
  // becomes a caller-owned copy); lower it to memref.alloc + memref.copy.
  addPasses(pm, "convert-bufferization-to-memref");
  // The sift lowering's loop over independent lines (batch rows) is an
  // `scf.forall`; after bufferization it becomes an `scf.parallel`.
  addPasses(pm, "scf-forall-to-parallel");
  // The parallel dimensions of structured ops become scf.parallel, which
  // runs on OpenMP threads (one team over the machine's cores).
  // Only the outer dimensions of each loop nest run in parallel (see
  // SequentializeInnerParallelDimsPass).
  addPasses(pm, "convert-linalg-to-parallel-loops");
  pm.addNestedPass<func::FuncOp>(
      std::make_unique<SequentializeInnerParallelDimsPass>());
  addPasses(pm, "lower-affine,convert-scf-to-openmp");
  // Memref descriptors, then every dialect to LLVM. The memref lowering goes
  // before the loops become branches: the OpenMP loop bodies sit in
  // memref.alloca_scope regions, which must still be single blocks then.
  // (expand-strided-metadata makes affine.apply for dynamic subview offsets,
  // as the bufferized line slices of the sift lowering have.) Allocations
  // call the sift runtime's caching allocator (use-generic-functions).
  addPasses(pm, "expand-strided-metadata,lower-affine,finalize-memref-to-llvm{"
                "use-generic-functions},"
                "convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,"
                "convert-arith-to-llvm,convert-index-to-llvm");
  addPasses(pm, "convert-openmp-to-llvm");
  addPasses(pm, "func.func(llvm-request-c-wrappers),convert-func-to-llvm,"
                "convert-cf-to-llvm,reconcile-unrealized-casts");
}

void mlir::sift::registerSiftPipelines() {
  PassRegistration<FuseCheapProducersPass>();
  PassRegistration<BlockFloatReductionsPass>();
  PassRegistration<ExpandShapeToReshapePass>();
  PassRegistration<CheckExtentsPass>();
  PassRegistration<SequentializeInnerParallelDimsPass>();
  PassPipelineRegistration<CpuPipelineOptions>(
      "sift-cpu-pipeline",
      "Lower sift and upstream tensor ops to the LLVM dialect for the CPU",
      buildCpuPipeline);
}
