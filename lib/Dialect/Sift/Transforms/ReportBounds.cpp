//===- ReportBounds.cpp - Report static bounds of dynamic dims --*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#include "sift/Dialect/Sift/Analysis/SizeBounds.h"
#include "sift/Dialect/Sift/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <string>

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
  using Base::Base;

  /// `size in [lo, hi]` for an index-typed `result` (either end `?` when
  /// the analysis has none).
  static void reportSize(sift::SizeBounds &bounds, OpResult result) {
    auto show = [](std::optional<int64_t> b) {
      return b ? std::to_string(*b) : std::string("?");
    };
    InFlightDiagnostic diag = result.getOwner()->emitRemark();
    diag << "result #" << result.getResultNumber() << " size in ["
         << show(bounds.lower(result)) << ", " << show(bounds.upper(result))
         << "]";
    if (std::string why = bounds.whyUpper(result); !why.empty())
      diag << " (upper: " << why << ")";
  }

  // The bounds --sift-staticize pads to: the same analysis, per function.
  void runOnOperation() override {
    getOperation().walk([&](FunctionOpInterface func) {
      sift::SizeBounds bounds;
      func.walk([&](Operation *op) {
        for (OpResult result : op->getResults()) {
          if (sizes && result.getType().isIndex() &&
              !matchPattern(result, m_Constant()))
            reportSize(bounds, result);
          auto type = dyn_cast<RankedTensorType>(result.getType());
          if (!type || type.hasStaticShape())
            continue;
          for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
            if (!type.isDynamicDim(d))
              continue;
            if (std::optional<int64_t> ub = bounds.upperDim(result, d))
              op->emitRemark() << "result #" << result.getResultNumber()
                               << " dim " << d << " <= " << *ub << " ("
                               << bounds.whyUpperDim(result, d) << ")";
            else
              op->emitWarning()
                  << "result #" << result.getResultNumber() << " dim " << d
                  << " has no static upper bound derivable from the program";
          }
        }
      });
    });
  }
};
} // namespace
