//===- RuntimeChecks.cpp - Run-time checks of the sift lowering -*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "RuntimeChecks.h"

#include "CodegenUtils.h"
#include "sift/Conversion/SiftToLinalg/SiftToLinalg.h"
#include "sift/Runtime/SiftRuntime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::lowering;

static constexpr StringLiteral kReportFn = "sift_rt_report";
static constexpr StringLiteral kFailFn = "sift_rt_fail";

LogicalResult lowering::declareRuntimeReport(RewriterBase &rewriter,
                                             Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  if (!module)
    return rewriter.notifyMatchFailure(op,
                                       "must be inside a module to be lowered");
  Type i64 = rewriter.getI64Type();
  FunctionType type = rewriter.getFunctionType({i64, i64, i64, i64}, {});
  // Both names are checked before either is declared: a failed match
  // leaves the module as it was.
  for (StringLiteral name : {kReportFn, kFailFn}) {
    Operation *existing = module.lookupSymbol(name);
    if (!existing)
      continue;
    auto fn = dyn_cast<func::FuncOp>(existing);
    if (fn && fn.getFunctionType() == type)
      continue;
    return rewriter.notifyMatchFailure(op, [&](Diagnostic &diag) {
      diag << "cannot declare the sift runtime's " << name << ": "
           << (fn ? "a function of that name has another type"
                  : "the module has another symbol of that name");
      diag.attachNote(existing->getLoc()) << "'" << name << "' is here";
    });
  }
  for (StringLiteral name : {kReportFn, kFailFn}) {
    if (module.lookupSymbol(name))
      continue;
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    auto fn = func::FuncOp::create(rewriter, module.getLoc(), name, type);
    fn.setPrivate();
  }
  return success();
}

LogicalResult lowering::checkLeadingExtents(RewriterBase &rewriter,
                                            Operation *op, Value x, Value y,
                                            int64_t n) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto yType = cast<RankedTensorType>(y.getType());
  for (int64_t d = 0; d < n; ++d) {
    if (!xType.isDynamicDim(d) && !yType.isDynamicDim(d))
      continue; // Checked by the verifier.
    if (failed(declareRuntimeReport(rewriter, op)))
      return failure();
    emitExtentCheck(rewriter, op->getLoc(), x, d, y, d);
  }
  return success();
}

void mlir::sift::emitExtentCheck(OpBuilder &b, Location loc, Value x,
                                 int64_t dx, Value y, int64_t dy) {
  using namespace lowering;
  Value a = indexToI64(b, loc, dimValue(b, loc, x, dx));
  Value c = indexToI64(b, loc, dimValue(b, loc, y, dy));
  Value differ = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, a, c);
  int64_t line = 0;
  if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>())
    line = fileLoc.getLine();
  scf::IfOp::create(b, loc, differ, [&](OpBuilder &b, Location loc) {
    Type i64 = b.getI64Type();
    Value code = constInt(b, loc, i64, SIFT_RT_ERROR_EXTENT_MISMATCH);
    Value where = constInt(b, loc, i64, line);
    func::CallOp::create(b, loc, kFailFn, TypeRange{},
                         ValueRange{code, a, c, where});
    scf::YieldOp::create(b, loc);
  });
}

/// `if (failed) fn(code, values..., 0...)`.
static void emitCall(OpBuilder &b, Location loc, Value failed, StringRef fn,
                     int64_t code, ValueRange values) {
  assert(values.size() <= 3 && "the runtime's calls take three values");
  scf::IfOp::create(b, loc, failed, [&](OpBuilder &b, Location loc) {
    Type i64 = b.getI64Type();
    SmallVector<Value> args{constInt(b, loc, i64, code)};
    for (Value v : values)
      args.push_back(v.getType().isIndex() ? indexToI64(b, loc, v) : v);
    while (args.size() < 4)
      args.push_back(constInt(b, loc, i64, 0));
    func::CallOp::create(b, loc, fn, TypeRange{}, args);
    scf::YieldOp::create(b, loc);
  });
}

void lowering::emitRuntimeCheck(OpBuilder &b, Location loc, Value failed,
                                int64_t code, ValueRange values) {
  emitCall(b, loc, failed, kReportFn, code, values);
}

void lowering::emitRuntimeFail(OpBuilder &b, Location loc, Value failed,
                               int64_t code, ValueRange values) {
  emitCall(b, loc, failed, kFailFn, code, values);
}
