//===- OutlineLines.cpp - --sift-outline-lines ------------------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"
#include "sift/Transforms/Routines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTOUTLINELINES
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {
/// Drops the results of `region` that are values defined outside it (a
/// buffer the routine writes in place): their users read that value
/// directly. Returns the region to outline (a new op when results went).
static scf::ExecuteRegionOp forwardOuterResults(RewriterBase &rewriter,
                                                scf::ExecuteRegionOp region) {
  auto yield = cast<scf::YieldOp>(region.getRegion().front().getTerminator());
  SmallVector<Value> kept;
  SmallVector<unsigned> keptIndices;
  bool dropped = false;
  for (auto [i, value] : llvm::enumerate(yield.getOperands())) {
    if (!region.getRegion().isAncestor(value.getParentRegion())) {
      rewriter.replaceAllUsesWith(region.getResult(i), value);
      dropped = true;
      continue;
    }
    kept.push_back(value);
    keptIndices.push_back(i);
  }
  if (!dropped)
    return region;
  rewriter.setInsertionPoint(region);
  auto slim = scf::ExecuteRegionOp::create(rewriter, region.getLoc(),
                                           ValueRange(kept).getTypes(),
                                           /*no_inline=*/true);
  slim->setAttrs(region->getAttrs());
  rewriter.inlineRegionBefore(region.getRegion(), slim.getRegion(),
                              slim.getRegion().end());
  rewriter.modifyOpInPlace(yield, [&] { yield->setOperands(kept); });
  for (auto [newIndex, oldIndex] : llvm::enumerate(keptIndices))
    rewriter.replaceAllUsesWith(region.getResult(oldIndex),
                                slim.getResult(newIndex));
  rewriter.eraseOp(region);
  return slim;
}

/// Clones into `region` the index constants it uses from outside (sizes,
/// trip counts), so that the outlined function is specialized on its static
/// shapes. Other constants (seeds, stream offsets, fill values) stay
/// arguments: routines that differ only in them share a function, and
/// LLVM's interprocedural constant propagation still specializes a function
/// whose callers all pass the same one.
static void sinkIndexConstants(RewriterBase &rewriter, Region &region) {
  llvm::SetVector<Value> outside;
  getUsedValuesDefinedAbove(region, outside);
  Block &entry = region.front();
  for (Value value : outside) {
    Operation *def = value.getDefiningOp();
    if (!def || !def->hasTrait<OpTrait::ConstantLike>() ||
        !value.getType().isIndex())
      continue;
    rewriter.setInsertionPointToStart(&entry);
    Operation *copy = rewriter.clone(*def);
    replaceAllUsesInRegionWith(value, copy->getResult(0), region);
  }
}

/// Whether two outlined functions run the same code.
static bool sameRoutine(func::FuncOp a, func::FuncOp b) {
  return a.getFunctionType() == b.getFunctionType() &&
         OperationEquivalence::isRegionEquivalentTo(
             &a.getBody(), &b.getBody(), OperationEquivalence::IgnoreLocations);
}

struct OutlineLinesPass : sift::impl::SiftOutlineLinesBase<OutlineLinesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Innermost first: a routine that calls another is compared after its
    // callee became a call.
    SmallVector<scf::ExecuteRegionOp> regions;
    module.walk([&](scf::ExecuteRegionOp region) {
      if (!routineName(region).empty())
        regions.push_back(region);
    });
    IRRewriter rewriter(&getContext());
    unsigned numFunctions = 0;
    // The functions made so far, by routine name.
    llvm::StringMap<SmallVector<func::FuncOp>> routines;
    for (scf::ExecuteRegionOp region : regions) {
      std::string routine = routineName(region).str();
      // Multi-block regions stay as they are (inlined by scf-to-cf).
      if (!region.getRegion().hasOneBlock())
        continue;
      region = forwardOuterResults(rewriter, region);
      sinkIndexConstants(rewriter, region.getRegion());

      // outlineSingleBlockRegion puts the function before the enclosing
      // function; it takes the captured values as arguments.
      func::CallOp call;
      std::string name;
      do
        name = "__sift_" + routine + "_" + std::to_string(numFunctions++);
      while (module.lookupSymbol(name));
      FailureOr<func::FuncOp> outlined = outlineSingleBlockRegion(
          rewriter, region.getLoc(), region.getRegion(), name, &call);
      if (failed(outlined)) {
        region.emitError("could not outline the routine '") << routine << "'";
        return signalPassFailure();
      }
      func::FuncOp fn = *outlined;
      fn.setPrivate();
      // The region now holds the call: inline it where the region was.
      Block &body = region.getRegion().front();
      auto yield = cast<scf::YieldOp>(body.getTerminator());
      SmallVector<Value> results = yield.getOperands();
      rewriter.eraseOp(yield);
      rewriter.inlineBlockBefore(&body, region);
      rewriter.replaceOp(region, results);

      // The same code already has a function: call that one.
      SmallVector<func::FuncOp> &same = routines[routine];
      auto existing = llvm::find_if(
          same, [&](func::FuncOp other) { return sameRoutine(fn, other); });
      if (existing != same.end()) {
        rewriter.modifyOpInPlace(
            call, [&] { call.setCallee(existing->getSymName()); });
        rewriter.eraseOp(fn);
        continue;
      }
      // One line's work: its loops run on the calling thread
      // (--sift-sequentialize-inner-parallel-dims), whether the caller is a
      // parallel loop over lines or a single line. Forking threads for a
      // routine's elementwise passes (keys, permutations, fills of a
      // histogram or of a line's tail) cost more than they gained below
      // ~1e6 elements (N = 1e3, one row: 0.108 -> 0.071 ms per call of the
      // sampler; N = 1e6: 3% slower).
      fn->setAttr(kLineRoutineAttrName, rewriter.getUnitAttr());
      same.push_back(fn);
    }
  }
};
} // namespace
