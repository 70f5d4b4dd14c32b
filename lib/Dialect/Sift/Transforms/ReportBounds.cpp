//===- ReportBounds.cpp - Report static bounds of dynamic dims --*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/Transforms/Passes.h"

#include "mlir/Interfaces/ValueBoundsOpInterface.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTREPORTBOUNDS
#include "sift/Dialect/Sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;

namespace {
struct SiftReportBoundsPass
    : public sift::impl::SiftReportBoundsBase<SiftReportBoundsPass> {
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      for (OpResult result : op->getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        if (!type || type.hasStaticShape())
          continue;
        for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
          if (!type.isDynamicDim(d))
            continue;
          FailureOr<int64_t> ub =
              ValueBoundsConstraintSet::computeConstantBound(
                  presburger::BoundType::UB, {result, d},
                  /*stopCondition=*/nullptr, /*closedUB=*/true);
          if (succeeded(ub))
            op->emitRemark() << "result #" << result.getResultNumber()
                             << " dim " << d << " <= " << *ub;
          else
            op->emitWarning()
                << "result #" << result.getResultNumber() << " dim " << d
                << " has no static upper bound derivable from the program";
        }
      }
    });
  }
};
} // namespace
