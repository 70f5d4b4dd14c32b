//===- FuseSiblings.cpp - --sift-fuse-siblings ----------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTFUSESIBLINGS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

/// An element-wise generic that may join a sibling: every loop parallel,
/// tensors only, a pure body, and outputs that are only written (fresh
/// `tensor.empty` buffers at the identity map, never read by the body).
static bool isFusable(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() ||
      op.getNumParallelLoops() != op.getNumLoops())
    return false;
  for (OpOperand &out : op.getDpsInitsMutable())
    if (!out.get().getDefiningOp<tensor::EmptyOp>() ||
        !op.getMatchingIndexingMap(&out).isIdentity() ||
        op.payloadUsesValueFromOperand(&out))
      return false;
  return llvm::all_of(op.getBody()->without_terminator(), [](Operation &inner) {
    return isMemoryEffectFree(&inner) && inner.getNumRegions() == 0;
  });
}

/// Whether `a` and `b` (after `a` in the same block) run over the same
/// static iteration space and read one tensor through the same map, and
/// nothing uses `a` before `b` (so `b` does not depend on `a`, and the
/// merged op can stand where `b` is).
static bool areSiblings(linalg::GenericOp a, linalg::GenericOp b) {
  if (a.getStaticLoopRanges() != b.getStaticLoopRanges() ||
      ShapedType::isDynamicShape(a.getStaticLoopRanges()))
    return false;
  bool shared = llvm::any_of(a.getDpsInputOperands(), [&](OpOperand *x) {
    return llvm::any_of(b.getDpsInputOperands(), [&](OpOperand *y) {
      return x->get() == y->get() &&
             a.getMatchingIndexingMap(x) == b.getMatchingIndexingMap(y);
    });
  });
  if (!shared)
    return false;
  // Parts of one concatenation are each computed in its slice
  // (--sift-eliminate-alloc-tensors), which one op of both cannot be: the
  // second slice's destination is the first's insertion, after the op.
  for (Operation *user : a->getUsers())
    if (isa<tensor::ConcatOp>(user) && llvm::is_contained(b->getUsers(), user))
      return false;
  Block *block = a->getBlock();
  for (Operation *user : a->getUsers()) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (!inBlock || !b->isBeforeInBlock(inBlock))
      return false;
  }
  return true;
}

/// One generic computing both: the inputs of `a` then those of `b` that
/// `a` does not read through the same map, the outputs of `a` then `b`;
/// each body cloned on its own arguments, the yields concatenated.
static void merge(RewriterBase &rewriter, linalg::GenericOp a,
                  linalg::GenericOp b) {
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  auto inputIndex = [&](Value value, AffineMap map) -> unsigned {
    for (auto [i, known] : llvm::enumerate(inputs))
      if (known == value && maps[i] == map)
        return i;
    inputs.push_back(value);
    maps.push_back(map);
    return inputs.size() - 1;
  };
  SmallVector<unsigned> aInputs, bInputs;
  for (OpOperand *x : a.getDpsInputOperands())
    aInputs.push_back(inputIndex(x->get(), a.getMatchingIndexingMap(x)));
  for (OpOperand *x : b.getDpsInputOperands())
    bInputs.push_back(inputIndex(x->get(), b.getMatchingIndexingMap(x)));
  SmallVector<Value> outputs(a.getDpsInits());
  llvm::append_range(outputs, b.getDpsInits());
  for (OpOperand &out : a.getDpsInitsMutable())
    maps.push_back(a.getMatchingIndexingMap(&out));
  for (OpOperand &out : b.getDpsInitsMutable())
    maps.push_back(b.getMatchingIndexingMap(&out));

  rewriter.setInsertionPoint(b);
  auto fused = linalg::GenericOp::create(
      rewriter, b.getLoc(), ValueRange(outputs).getTypes(), inputs, outputs,
      maps, a.getIteratorTypesArray(),
      [&](OpBuilder &nb, Location loc, ValueRange args) {
        SmallVector<Value> yields;
        auto cloneBody = [&](linalg::GenericOp op, ArrayRef<unsigned> ins,
                             unsigned outputsAt) {
          IRMapping mapping;
          Block *body = op.getBody();
          for (auto [arg, i] :
               llvm::zip(body->getArguments().take_front(ins.size()), ins))
            mapping.map(arg, args[i]);
          for (auto [j, arg] :
               llvm::enumerate(body->getArguments().drop_front(ins.size())))
            mapping.map(arg, args[inputs.size() + outputsAt + j]);
          for (Operation &inner : body->without_terminator())
            nb.clone(inner, mapping);
          for (Value v : body->getTerminator()->getOperands())
            yields.push_back(mapping.lookupOrDefault(v));
        };
        cloneBody(a, aInputs, 0);
        cloneBody(b, bInputs, a.getNumDpsInits());
        linalg::YieldOp::create(nb, loc, yields);
      });
  unsigned split = a.getNumResults();
  rewriter.replaceOp(a, fused.getResults().take_front(split));
  rewriter.replaceOp(b, fused.getResults().drop_front(split));
}

namespace {
/// See SiftFuseSiblings in Passes.td.
struct FuseSiblingsPass : sift::impl::SiftFuseSiblingsBase<FuseSiblingsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) { blocks.push_back(block); });
    // Per block, merge one pair at a time until none is left (a merged op
    // may join a third sibling). Merging erases ops of that block only, and
    // the post-order walk listed their body blocks before it.
    for (Block *block : blocks)
      while (mergeOnePair(rewriter, *block)) {
      }
  }

  static bool mergeOnePair(RewriterBase &rewriter, Block &block) {
    SmallVector<linalg::GenericOp> generics;
    for (Operation &op : block)
      if (auto generic = dyn_cast<linalg::GenericOp>(op);
          generic && isFusable(generic))
        generics.push_back(generic);
    for (auto [i, a] : llvm::enumerate(generics))
      for (linalg::GenericOp b : ArrayRef(generics).drop_front(i + 1))
        if (areSiblings(a, b)) {
          merge(rewriter, a, b);
          return true;
        }
    return false;
  }
};
} // namespace
