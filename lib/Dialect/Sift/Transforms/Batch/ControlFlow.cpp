//===- ControlFlow.cpp - Batch rules of scf.if and scf.for ----------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// `scf.if` on a batched condition evaluates both branches and selects per
// row (the if-conversion --sift-staticize shares); on an unbatched one it
// stays a branch, as does `scf.index_switch` on an unbatched index. `scf.for`
// with unbatched bounds keeps its loop, its carried values batched where needed
// (found by a fixpoint over the body).
//
//===----------------------------------------------------------------------===//

#include "Batcher.h"

#include "sift/Dialect/Sift/Transforms/IfConversion.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::batch;

FailureOr<SmallVector<Value>> Batcher::batchRegion(OpBuilder &b,
                                                   Block &source) {
  if (failed(batchOps(b, source)))
    return failure();
  SmallVector<Value> yielded;
  for (Value v : source.getTerminator()->getOperands())
    yielded.push_back(lookup(v));
  return yielded;
}

//===----------------------------------------------------------------------===//
// scf.if
//===----------------------------------------------------------------------===//

LogicalResult Batcher::batchScfIf(OpBuilder &b, scf::IfOp op) {
  if (!isBatched(op.getCondition()))
    return batchScfIfShared(b, op);
  return batchScfIfPerRow(b, op);
}

/// A branch op that takes the same branch for every row: its regions are
/// batched in `shell`'s (the same op without results), a result is per row
/// when any branch yields a per-row value, and `makeTyped` makes the op with
/// the result types, into which the regions move.
LogicalResult
Batcher::batchSharedBranches(OpBuilder &b, Operation *op, Operation *shell,
                             function_ref<Operation *(TypeRange)> makeTyped) {
  Location loc = op->getLoc();
  SmallVector<SmallVector<Value>> yields;
  for (auto [region, target] :
       llvm::zip_equal(op->getRegions(), shell->getRegions())) {
    if (region.empty())
      continue;
    OpBuilder::InsertionGuard guard(b);
    if (target.empty())
      b.createBlock(&target);
    Block &block = target.front();
    if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
      block.back().erase();
    b.setInsertionPointToEnd(&block);
    FailureOr<SmallVector<Value>> values = batchRegion(b, region.front());
    if (failed(values))
      return failure();
    yields.push_back(*values);
  }
  SmallVector<Type> types;
  SmallVector<bool> perRow;
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    bool any = llvm::any_of(
        yields, [&](auto &values) { return batched.contains(values[i]); });
    perRow.push_back(any);
    types.push_back(any ? batchedType(result.getType()) : result.getType());
  }
  unsigned k = 0;
  for (Region &region : shell->getRegions()) {
    if (region.empty())
      continue;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&region.front());
    SmallVector<Value> values;
    for (auto [i, v] : llvm::enumerate(yields[k]))
      values.push_back(perRow[i] && !batched.contains(v) ? broadcast(b, loc, v)
                                                         : v);
    scf::YieldOp::create(b, loc, values);
    ++k;
  }
  // Re-create the op with its result types, moving the regions over.
  Operation *typed = makeTyped(types);
  for (auto [to, from] :
       llvm::zip_equal(typed->getRegions(), shell->getRegions()))
    to.takeBody(from);
  shell->erase();
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    map.map(result, typed->getResult(i));
    if (perRow[i])
      batched.insert(typed->getResult(i));
  }
  return success();
}

/// The same branch for every row.
LogicalResult Batcher::batchScfIfShared(OpBuilder &b, scf::IfOp op) {
  Location loc = op.getLoc();
  auto shell = scf::IfOp::create(b, loc, TypeRange{}, lookup(op.getCondition()),
                                 /*withElseRegion=*/op.elseBlock() != nullptr);
  return batchSharedBranches(b, op, shell, [&](TypeRange types) {
    return scf::IfOp::create(b, loc, types, shell.getCondition(),
                             /*withElseRegion=*/false)
        .getOperation();
  });
}

//===----------------------------------------------------------------------===//
// scf.index_switch
//===----------------------------------------------------------------------===//

LogicalResult Batcher::batchScfIndexSwitch(OpBuilder &b,
                                           scf::IndexSwitchOp op) {
  // A case index shared by the rows takes the same case for every row; one
  // per row would run every case and select, which is not done.
  if (isBatched(op.getArg()))
    return op.emitOpError("cannot be batched by --sift-batch: its case index "
                          "is per row (a chain of scf.if on the index is "
                          "batched, each if-converted)");
  Location loc = op.getLoc();
  auto shell =
      scf::IndexSwitchOp::create(b, loc, TypeRange{}, lookup(op.getArg()),
                                 op.getCases(), op.getNumCases());
  return batchSharedBranches(b, op, shell, [&](TypeRange types) {
    return scf::IndexSwitchOp::create(b, loc, types, shell.getArg(),
                                      shell.getCases(), shell.getNumCases())
        .getOperation();
  });
}

/// A per-row condition: both branches run for every row, then each row
/// takes its branch's values. That is the if-conversion --sift-staticize
/// applies to branches on counts (sift/Dialect/Sift/Transforms/
/// IfConversion.h), done on the scratch source: a branch's ops are guarded
/// where it is not taken (clamped indices, divisors of 1), hoisted before
/// the branch with an `arith.select` per result, then batched here.
LogicalResult Batcher::batchScfIfPerRow(OpBuilder &b, scf::IfOp op) {
  for (Region *region : {&op.getThenRegion(), &op.getElseRegion()}) {
    if (region->empty())
      continue;
    if (Operation *blocker = findUnspeculatable(region->front())) {
      if (!isMemoryEffectFree(blocker))
        return blocker->emitOpError(
            "has side effects, so --sift-batch cannot run both branches of a "
            "per-row scf.if");
      return blocker->emitOpError(
          "may trap or read out of bounds where its branch is not taken, so "
          "--sift-batch cannot run both branches of a per-row scf.if");
    }
  }
  if (op.getNumResults() == 0)
    return success();
  Block *block = op->getBlock();
  Operation *prev = op->getPrevNode();
  Operation *next = op->getNextNode();
  ifConvertToSelects(op);
  // The next op is read before batching one: a nested per-row scf.if among
  // the hoisted ops is if-converted (erased) by its own batchOp.
  for (Operation *cur = prev ? prev->getNextNode() : &block->front();
       cur != next;) {
    Operation *after = cur->getNextNode();
    if (failed(batchOp(b, cur)))
      return failure();
    cur = after;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// scf.for
//===----------------------------------------------------------------------===//

void Batcher::forgetValuesIn(Operation *op) {
  op->walk([&](Operation *inner) {
    for (Value v : inner->getResults())
      batched.erase(v);
    for (Region &region : inner->getRegions())
      for (Block &block : region)
        for (Value v : block.getArguments())
          batched.erase(v);
  });
}

/// The same loop for every row; a carried value is per row when its initial
/// value or the value yielded for it is. That is a fixpoint: the body is
/// batched again whenever a carried value turns out to be per row.
LogicalResult Batcher::batchScfFor(OpBuilder &b, scf::ForOp op) {
  if (isBatched(op.getLowerBound()) || isBatched(op.getUpperBound()) ||
      isBatched(op.getStep()))
    return op.emitOpError("has per-row bounds, which --sift-batch cannot "
                          "batch (a loop of per-row trip counts)");
  SmallVector<bool> perRow;
  for (Value init : op.getInitArgs())
    perRow.push_back(isBatched(init));
  while (true) {
    bool failedBody = false;
    scf::ForOp loop = tryBatchScfFor(b, op, perRow, failedBody);
    if (failedBody)
      return failure();
    if (!loop)
      continue;
    for (auto [result, value, isPerRow] :
         llvm::zip_equal(op.getResults(), loop.getResults(), perRow)) {
      map.map(result, value);
      if (isPerRow)
        batched.insert(value);
    }
    return success();
  }
}

scf::ForOp Batcher::tryBatchScfFor(OpBuilder &b, scf::ForOp op,
                                   SmallVector<bool> &perRow,
                                   bool &failedBody) {
  Location loc = op.getLoc();
  SmallVector<Value> inits;
  for (auto [init, isPerRow] : llvm::zip_equal(op.getInitArgs(), perRow))
    inits.push_back(isPerRow ? batchedValue(b, loc, init) : lookup(init));
  bool grew = false;
  auto loop = scf::ForOp::create(
      b, loc, lookup(op.getLowerBound()), lookup(op.getUpperBound()),
      lookup(op.getStep()), inits,
      [&](OpBuilder &nb, Location nloc, Value iv, ValueRange args) {
        map.map(op.getInductionVar(), iv);
        for (auto [arg, newArg, isPerRow] :
             llvm::zip_equal(op.getRegionIterArgs(), args, perRow))
          mapArgument(arg, newArg, isPerRow);
        FailureOr<SmallVector<Value>> yielded = batchRegion(nb, *op.getBody());
        if (failed(yielded)) {
          failedBody = true;
          scf::YieldOp::create(nb, nloc, args);
          return;
        }
        SmallVector<Value> values;
        for (auto [i, v] : llvm::enumerate(*yielded)) {
          if (batched.contains(v) && !perRow[i]) {
            perRow[i] = true;
            grew = true;
          }
          values.push_back(
              perRow[i] && !batched.contains(v) ? broadcast(nb, nloc, v) : v);
        }
        if (grew)
          values.assign(args.begin(), args.end());
        scf::YieldOp::create(nb, nloc, values);
      });
  if (!failedBody && !grew)
    return loop;
  // Forget the values of this attempt before they are erased.
  forgetValuesIn(loop);
  loop.erase();
  return nullptr;
}
