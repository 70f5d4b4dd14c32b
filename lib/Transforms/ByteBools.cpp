//===- ByteBools.cpp - --sift-byte-bools ----------------------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// An i1 in memory is a byte, but LLVM's vectorizer scalarizes i1 loads and
// stores (their size is not their store size): the compiler-made sampler's
// label masks were computed by vector compares whose lanes were then
// extracted and stored one byte at a time. Buffers the function allocates
// for i1 values, and only reads and writes element by element, become i8
// buffers of the same bytes (0 or 1), which LLVM vectorizes like any other.
//
//===----------------------------------------------------------------------===//

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTBYTEBOOLS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

namespace {

/// Ops whose result is a view of their first operand (same elements).
static bool isView(Operation *op) {
  return isa<memref::SubViewOp, memref::CastOp, memref::CollapseShapeOp,
             memref::ExpandShapeOp>(op);
}

/// Collects `root` and its views into `values` and the ops that read or
/// write their elements into `users`; fails when some use is of another
/// kind (the buffer must then keep its type).
static LogicalResult collectUses(Value root, llvm::SetVector<Value> &values,
                                 llvm::SetVector<Operation *> &users) {
  SmallVector<Value> worklist{root};
  values.insert(root);
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isView(user) && use.getOperandNumber() == 0) {
        if (values.insert(user->getResult(0)))
          worklist.push_back(user->getResult(0));
        continue;
      }
      if (isa<memref::LoadOp, memref::DeallocOp>(user)) {
        users.insert(user);
        continue;
      }
      if (auto store = dyn_cast<memref::StoreOp>(user);
          store && store.getMemRef() == value) {
        users.insert(user);
        continue;
      }
      if (auto generic = dyn_cast<linalg::GenericOp>(user);
          generic && generic.hasPureBufferSemantics()) {
        users.insert(user);
        continue;
      }
      return failure();
    }
  }
  return success();
}

/// Gives `op`'s operands in `values` (now i8 buffers) i8 block arguments:
/// the body reads them truncated and yields outputs extended.
static void widenGenericOperands(linalg::GenericOp op,
                                 const llvm::SetVector<Value> &values) {
  Block *body = op.getBody();
  OpBuilder b(op.getContext());
  Type i1 = b.getI1Type(), i8 = b.getI8Type();
  for (OpOperand &operand : op->getOpOperands()) {
    if (!values.contains(operand.get()))
      continue;
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    arg.setType(i8);
    if (!arg.use_empty()) {
      b.setInsertionPointToStart(body);
      auto narrow = arith::TruncIOp::create(b, op.getLoc(), i1, arg);
      arg.replaceAllUsesExcept(narrow, narrow);
    }
    if (op.isDpsInit(&operand)) {
      Operation *yield = body->getTerminator();
      OpOperand &yielded = yield->getOpOperand(operand.getOperandNumber() -
                                               op.getNumDpsInputs());
      b.setInsertionPoint(yield);
      yielded.set(arith::ExtUIOp::create(b, op.getLoc(), i8, yielded.get()));
    }
  }
}

/// Makes `values` (a buffer and its views) i8 buffers and their element
/// reads and writes `users` convert.
static void widen(const llvm::SetVector<Value> &values,
                  const llvm::SetVector<Operation *> &users, MLIRContext *ctx) {
  Type i1 = IntegerType::get(ctx, 1), i8 = IntegerType::get(ctx, 8);
  for (Value value : values)
    value.setType(cast<MemRefType>(value.getType()).clone(i8));
  OpBuilder b(ctx);
  for (Operation *user : users) {
    if (auto load = dyn_cast<memref::LoadOp>(user)) {
      load.getResult().setType(i8);
      b.setInsertionPointAfter(load);
      auto narrow = arith::TruncIOp::create(b, load.getLoc(), i1, load);
      load.getResult().replaceAllUsesExcept(narrow, narrow);
    } else if (auto store = dyn_cast<memref::StoreOp>(user)) {
      b.setInsertionPoint(store);
      store.getValueMutable().assign(
          arith::ExtUIOp::create(b, store.getLoc(), i8, store.getValue()));
    } else if (auto generic = dyn_cast<linalg::GenericOp>(user)) {
      widenGenericOperands(generic, values);
    }
  }
}

/// See SiftByteBools in Passes.td.
struct ByteBoolsPass : sift::impl::SiftByteBoolsBase<ByteBoolsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Value> roots;
    getOperation().walk([&](Operation *op) {
      if (!isa<memref::AllocOp, memref::AllocaOp>(op))
        return;
      auto type = cast<MemRefType>(op->getResult(0).getType());
      if (type.getElementType().isInteger(1))
        roots.push_back(op->getResult(0));
    });
    for (Value root : roots) {
      llvm::SetVector<Value> values;
      llvm::SetVector<Operation *> users;
      if (failed(collectUses(root, values, users)))
        continue;
      widen(values, users, &getContext());
      ++numWidened;
    }
  }
};
} // namespace
