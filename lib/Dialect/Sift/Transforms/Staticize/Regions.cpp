//===- Regions.cpp - Staticize rules of branches and loops ----------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "Staticizer.h"

using namespace mlir;
using namespace mlir::sift;

namespace mlir {
namespace sift {
namespace staticize {

SmallVector<Value> Staticizer::ifConvert(scf::IfOp ifOp) {
  // `k = 4 if n > 4 else n`, `x[m][n - 1] if n > 0 else 0` with n a count:
  // run both branches, guarded, and select, instead of a host branch on
  // device data (the rule --sift-batch applies to per-row conditions).
  auto ignored = [&](Operation *op) { return toErase.contains(op); };
  if (ifOp.getNumResults() == 0 || ifOp.getElseRegion().empty() ||
      !findHostRead(ifOp.getCondition()) ||
      findUnspeculatable(*ifOp.thenBlock(), ignored) ||
      findUnspeculatable(*ifOp.elseBlock(), ignored))
    return ifOp.getResults();
  ++numSyncsRemoved;
  return ifConvertToSelects(ifOp, ignored);
}

/// Whether `value` is `base` with elements replaced by `tensor.insert`s only
/// (which store back what they replace on an invalid iteration).
static bool isInsertChainOf(Value value, Value base) {
  while (auto insert = value.getDefiningOp<tensor::InsertOp>())
    value = insert.getDest();
  return value == base;
}

void Staticizer::staticizeLoop(scf::ForOp forOp, int64_t bound) {
  // `for k in range(count)` runs to the count's bound; an iteration at or
  // past the count is guarded and leaves the loop-carried values as they
  // are.
  Value ub = forOp.getUpperBound();
  if (!findHostRead(ub) || findHostRead(forOp.getLowerBound()) ||
      findHostRead(forOp.getStep()) || !ub.getType().isIndex() ||
      findUnspeculatable(*forOp.getBody(),
                         [&](Operation *op) { return toErase.contains(op); }))
    return;
  Block *body = forOp.getBody();
  ImplicitLocOpBuilder b(forOp.getLoc(), body, body->begin());
  Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::slt,
                                      forOp.getInductionVar(), ub);
  guardSpeculated(*body, valid,
                  [&](Operation *op) { return toErase.contains(op); });
  Operation *yield = body->getTerminator();
  b.setInsertionPoint(yield);
  for (auto [operand, iterArg] :
       llvm::zip_equal(yield->getOpOperands(), forOp.getRegionIterArgs()))
    if (!isInsertChainOf(operand.get(), iterArg))
      operand.set(arith::SelectOp::create(b, valid, operand.get(), iterArg));
  b.setInsertionPoint(forOp);
  forOp.getUpperBoundMutable().set(arith::ConstantIndexOp::create(b, bound));
  ++numSyncsRemoved;
}

LogicalResult Staticizer::yieldPadded(Operation *op, scf::YieldOp yield,
                                      ArrayRef<int64_t> bounds) {
  ImplicitLocOpBuilder b(yield.getLoc(), yield);
  SmallVector<Value> operands;
  for (auto [v, bound] : llvm::zip_equal(yield.getOperands(), bounds)) {
    if (bound < 0) {
      operands.push_back(v);
      continue;
    }
    if (!isMapped(v))
      return op->emitOpError("yields a dynamic tensor that "
                             "--sift-staticize has no padded form of");
    Padded p = padded[v];
    operands.push_back(fitRows(b, p, bound));
    operands.push_back(p.count);
  }
  scf::YieldOp::create(b, operands);
  yield.erase();
  return success();
}

void Staticizer::defineResults(Operation *op, ValueRange values,
                               ArrayRef<int64_t> bounds) {
  unsigned k = 0;
  for (auto [result, bound] : llvm::zip_equal(op->getResults(), bounds)) {
    if (bound < 0) {
      result.replaceAllUsesWith(values[k++]);
      continue;
    }
    define(op, result, values[k], values[k + 1]);
    k += 2;
  }
}

LogicalResult Staticizer::rewriteBoundedBranches(
    Operation *op,
    function_ref<SmallVector<Value>(ImplicitLocOpBuilder &, TypeRange)>
        rebuild) {
  // `idx = nonzero(a) if cond else nonzero(b)`, or a switch over cases: each
  // branch's bounded value is padded to the largest of the branches' bounds
  // and yielded with its count; the op then has static results only.
  if (failed(checkLeadingDynamic(op)))
    return failure();
  // The branches are rewritten in place (the bounds were taken from the
  // program before the rewrite), then move to an op with static results.
  OpBuilder builder(op);
  SmallVector<scf::YieldOp> yields;
  for (Region &region : op->getRegions()) {
    if (region.empty())
      return op->emitOpError("yields a dynamic tensor without an else "
                             "branch, which --sift-staticize cannot pad");
    if (failed(rewriteBlock(region.front())))
      return failure();
    yields.push_back(cast<scf::YieldOp>(region.front().getTerminator()));
  }
  SmallVector<Type> types;
  SmallVector<int64_t> resultBounds; // -1 for a static result.
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    if (!hasDynamicTensor(result.getType())) {
      types.push_back(result.getType());
      resultBounds.push_back(-1);
      continue;
    }
    int64_t bound = 0;
    for (scf::YieldOp yield : yields) {
      Value v = yield.getOperand(i);
      if (!isMapped(v))
        return op->emitOpError("yields a dynamic tensor that "
                               "--sift-staticize has no padded form of");
      bound = std::max(bound, padded[v].bound);
    }
    types.push_back(
        withLeading(cast<RankedTensorType>(result.getType()), bound));
    types.push_back(builder.getIndexType());
    resultBounds.push_back(bound);
  }
  for (scf::YieldOp yield : yields)
    if (failed(yieldPadded(op, yield, resultBounds)))
      return failure();
  ImplicitLocOpBuilder b(op->getLoc(), op);
  defineResults(op, rebuild(b, types), resultBounds);
  toErase.insert(op);
  return success();
}

LogicalResult Staticizer::rewriteBoundedIf(scf::IfOp ifOp) {
  return rewriteBoundedBranches(
      ifOp, [&](ImplicitLocOpBuilder &b, TypeRange types) {
        auto newIf = scf::IfOp::create(b, types, ifOp.getCondition(),
                                       /*withElseRegion=*/true);
        newIf.getThenRegion().takeBody(ifOp.getThenRegion());
        newIf.getElseRegion().takeBody(ifOp.getElseRegion());
        // A branch on device data becomes selects (both selections run,
        // select picks; the values stand for the if's results either way).
        return ifConvert(newIf);
      });
}

LogicalResult Staticizer::rewriteBoundedSwitch(scf::IndexSwitchOp switchOp) {
  // `sel = [x[a], x[b], x[c]][mode]` written as a switch on a host index:
  // the same rule over every case and the default.
  return rewriteBoundedBranches(switchOp, [&](ImplicitLocOpBuilder &b,
                                              TypeRange types) {
    auto newSwitch =
        scf::IndexSwitchOp::create(b, types, switchOp.getArg(),
                                   switchOp.getCases(), switchOp.getNumCases());
    for (auto [to, from] :
         llvm::zip_equal(newSwitch->getRegions(), switchOp->getRegions()))
      to.takeBody(from);
    return SmallVector<Value>(newSwitch.getResults());
  });
}

LogicalResult Staticizer::rewriteBoundedFor(scf::ForOp forOp) {
  // `for t in thresholds: x = x[x > t]`: a carried bounded tensor keeps the
  // bound of its initial value (the bounds analysis checks that no
  // iteration yields a larger one) and is carried padded, with its count.
  Operation *op = forOp;
  if (failed(checkLeadingDynamic(op)))
    return failure();
  ImplicitLocOpBuilder b(op->getLoc(), op);
  SmallVector<Value> inits;
  SmallVector<int64_t> carried; // -1 for a static carried value.
  for (auto [init, arg] :
       llvm::zip_equal(forOp.getInitArgs(), forOp.getRegionIterArgs())) {
    if (!isMapped(init)) {
      inits.push_back(init);
      carried.push_back(-1);
      continue;
    }
    std::optional<int64_t> bound = bounds.upperDim(arg, 0);
    if (!bound)
      return op->emitOpError(
          "carries a data-dependent tensor whose bound may grow from one "
          "iteration to the next (the tensor it yields is not bounded by "
          "its initial value's bound), which --sift-staticize does not "
          "support");
    Padded p = padded[init];
    inits.push_back(fitRows(b, p, std::max<int64_t>(*bound, 0)));
    inits.push_back(p.count);
    carried.push_back(std::max<int64_t>(*bound, 0));
  }
  auto newFor = scf::ForOp::create(
      b, forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep(), inits);
  // The body moves to the new loop and is rewritten there (the bounds were
  // taken from the program before the rewrite). The bounded carried values
  // map to the new loop's padded ones and counts.
  Block *body = newFor.getBody();
  Block *oldBody = forOp.getBody();
  body->getOperations().splice(body->end(), oldBody->getOperations());
  forOp.getInductionVar().replaceAllUsesWith(newFor.getInductionVar());
  unsigned k = 1;
  for (auto [arg, bound] :
       llvm::zip_equal(forOp.getRegionIterArgs(), carried)) {
    if (bound < 0) {
      arg.replaceAllUsesWith(body->getArgument(k++));
      continue;
    }
    padded[arg] = {body->getArgument(k), body->getArgument(k + 1), bound};
    k += 2;
  }
  // Erased after the body's replaced ops, which read its arguments.
  toErase.insert(op);
  if (failed(rewriteBlock(*body)))
    return failure();
  // The analysis showed the yielded counts within the bounds.
  if (failed(
          yieldPadded(op, cast<scf::YieldOp>(body->getTerminator()), carried)))
    return failure();
  defineResults(op, newFor.getResults(), carried);
  if (auto it = loopBounds.find(op); it != loopBounds.end())
    staticizeLoop(newFor, it->second);
  return success();
}

} // namespace staticize
} // namespace sift
} // namespace mlir
