//===- Staticizer.h - The state of one --sift-staticize rewrite -*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Private to lib/Dialect/Sift/Transforms/Staticize/: the Staticizer (one
// function's rewrite) and the helpers its files share. Staticize.cpp has the
// walk, the dispatch to one rule per op (a TypeSwitch in
// Staticizer::rewrite) and the pass; SiftOps.cpp the rules of sift ops;
// TensorOps.cpp those of tensor and elementwise ops; Linalg.cpp the linalg
// rule; Sorts.cpp the sort, top-k and unique rules; Regions.cpp the branches
// and loops on counts.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_DIALECT_SIFT_TRANSFORMS_STATICIZE_STATICIZER_H
#define SIFT_LIB_DIALECT_SIFT_TRANSFORMS_STATICIZE_STATICIZER_H

#include "sift/Dialect/Sift/Analysis/SizeBounds.h"
#include "sift/Dialect/Sift/IR/SiftOps.h"
#include "sift/Dialect/Sift/Transforms/HostReads.h"
#include "sift/Dialect/Sift/Transforms/IfConversion.h"
#include "sift/Dialect/Sift/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace sift {
namespace staticize {

/// The static form of a tensor whose leading dimension is data-dependent:
/// `padded` has `bound` rows, the first `count` of which are the value.
struct Padded {
  Value padded;
  Value count; // index
  int64_t bound;
};

class Staticizer {
public:
  Staticizer(func::FuncOp func, SizeBounds &bounds)
      : func(func), bounds(bounds) {}

  /// Rank-reducing slices of tensors with a dynamic leading dimension
  /// become a slice that keeps the rank and a collapse_shape, before the
  /// bounds are taken.
  void splitRankReducingSlices();
  LogicalResult run();

  int64_t numRewritten = 0;
  int64_t numSyncsRemoved = 0;
  /// (location, op name, bound) of every rewritten value, for `report`.
  SmallVector<std::tuple<Location, std::string, int64_t>> reportedBounds;

private:
  LogicalResult rewrite(Operation *op);
  LogicalResult rewriteBlock(Block &block);
  /// Replaces a host branch on device data whose branches are speculatable
  /// scalar code by a select.
  /// Returns the values that stand for the if's results afterwards.
  SmallVector<Value> ifConvert(scf::IfOp ifOp);
  /// Runs a loop over range(count) to the count's bound, its iterations past
  /// the count guarded.
  void staticizeLoop(scf::ForOp forOp, int64_t bound);
  LogicalResult rewriteReturn(func::ReturnOp op);

  /// The padded form of `v` (a mapped dynamic value or a static tensor).
  Padded lookup(ImplicitLocOpBuilder &b, Value v);
  bool isMapped(Value v) const { return padded.count(v); }

  /// Maps the dynamic result `v` to its padded form.
  void define(Operation *op, Value v, Value paddedValue, Value count) {
    int64_t bound = cast<RankedTensorType>(paddedValue.getType()).getDimSize(0);
    padded[v] = {paddedValue, count, bound};
    reportedBounds.emplace_back(op->getLoc(),
                                op->getName().getStringRef().str(), bound);
    ++numRewritten;
  }

  /// Replaces the single result of `op` by `replacement`: padded with the
  /// count of `shapeFrom` when `bounded`, a plain value otherwise; `op` is
  /// erased at the end.
  void replaceResult(Operation *op, Value replacement, const Padded &shapeFrom,
                     bool bounded);

  /// The bound of dimension 0 of `v`, or an error at `op` that says how to
  /// supply one.
  FailureOr<int64_t> requireBound(Operation *op, Value v);

  // Small IR builders.
  Value iota(ImplicitLocOpBuilder &b, int64_t n);
  Value splat(ImplicitLocOpBuilder &b, Value scalar, int64_t n);
  Value toI64(ImplicitLocOpBuilder &b, Value index);
  Value toIndex(ImplicitLocOpBuilder &b, Value i64Tensor0D);
  Value laneIsValid(ImplicitLocOpBuilder &b, int64_t n, Value count);
  Value gatherRows(ImplicitLocOpBuilder &b, Value source, Value indices);
  /// gatherRows of indices that name valid rows of `source` or are -1: the
  /// result's padding rows never read the source's (see definedPadding).
  Value gatherValidRows(ImplicitLocOpBuilder &b, Value source, Value indices);
  Value constantI64(ImplicitLocOpBuilder &b, int64_t v, int64_t n);
  /// An i1 tensor of `type`'s shape: true on the first `count` rows.
  Value validRows(ImplicitLocOpBuilder &b, RankedTensorType type, Value count);
  /// `p.padded` with its padding rows replaced by `fill`.
  Value resetPadding(ImplicitLocOpBuilder &b, const Padded &p, TypedAttr fill);
  /// `p.padded` as a function returns it: with padding rows that do not
  /// depend on memory an unpadded compaction left unwritten (the results
  /// stay deterministic).
  Value definedPadding(const Padded &p);

  /// `p.padded` resized to `n` rows (rows past its own are invalid lanes).
  Value fitRows(ImplicitLocOpBuilder &b, const Padded &p, int64_t n);

  // The rule of each op, reached from `rewrite`'s TypeSwitch; the file
  // that has it is in the comment above each group.
  // SiftOps.cpp:
  LogicalResult rewriteNonzero(ImplicitLocOpBuilder &b, NonzeroOp op);
  LogicalResult rewriteMaskedSelect(ImplicitLocOpBuilder &b, MaskedSelectOp op);
  LogicalResult rewriteRandperm(ImplicitLocOpBuilder &b, RandpermOp op);
  LogicalResult rewriteGather(ImplicitLocOpBuilder &b, GatherOp op);
  LogicalResult rewriteScatter(ImplicitLocOpBuilder &b, ScatterOp op);
  LogicalResult rewriteCount(ImplicitLocOpBuilder &b, CountOp op);
  LogicalResult rewriteCrossEntropy(ImplicitLocOpBuilder &b, CrossEntropyOp op);
  // Sorts.cpp: sort, argsort, topk, cumsum; unique.
  LogicalResult rewriteSortLike(ImplicitLocOpBuilder &b, Operation *op);
  LogicalResult rewriteUnique(ImplicitLocOpBuilder &b, UniqueOp op);
  // TensorOps.cpp:
  LogicalResult rewriteDim(ImplicitLocOpBuilder &b, tensor::DimOp op);
  LogicalResult rewriteExtractSlice(ImplicitLocOpBuilder &b,
                                    tensor::ExtractSliceOp op);
  LogicalResult rewriteConcat(ImplicitLocOpBuilder &b, tensor::ConcatOp op);
  LogicalResult rewriteCast(ImplicitLocOpBuilder &b, tensor::CastOp op);
  LogicalResult rewriteExtract(ImplicitLocOpBuilder &b, tensor::ExtractOp op);
  /// tensor.expand_shape, tensor.collapse_shape.
  LogicalResult rewriteReshape(ImplicitLocOpBuilder &b, Operation *op);
  /// tensor.empty, tensor.splat.
  LogicalResult rewriteEmptyOrSplat(ImplicitLocOpBuilder &b, Operation *op);
  /// Ops with the Elementwise trait (arith, math on tensors).
  LogicalResult rewriteElementwise(ImplicitLocOpBuilder &b, Operation *op);
  // Linalg.cpp:
  LogicalResult rewriteLinalg(ImplicitLocOpBuilder &b, linalg::LinalgOp op);
  // Staticize.cpp, Regions.cpp: region ops (branches and loops on counts).
  LogicalResult rewriteRegionOp(Operation *op, bool touchesBoundedValue);
  /// An scf.if that yields bounded tensors: each padded to the larger
  /// branch's bound, yielded with its count.
  LogicalResult rewriteBoundedIf(scf::IfOp ifOp);
  /// An scf.index_switch that yields bounded tensors: the same, over its
  /// cases and default.
  LogicalResult rewriteBoundedSwitch(scf::IndexSwitchOp switchOp);
  /// The rule of both: the branches rewritten, their bounded yields padded
  /// to the largest bound with their counts; `rebuild` makes the op with
  /// the static result types, moves the branches into it and returns its
  /// results.
  /// Replaces `yield` (of `op`'s region) by one that yields, for each
  /// operand whose bound is not -1, its padded form fitted to that bound and
  /// its count.
  LogicalResult yieldPadded(Operation *op, scf::YieldOp yield,
                            ArrayRef<int64_t> bounds);
  /// Maps `op`'s results to `values`, yielded that way: a result whose bound
  /// is not -1 to the padded value and count that follow each other there.
  void defineResults(Operation *op, ValueRange values,
                     ArrayRef<int64_t> bounds);
  LogicalResult rewriteBoundedBranches(
      Operation *op,
      function_ref<SmallVector<Value>(ImplicitLocOpBuilder &, TypeRange)>
          rebuild);
  /// An scf.for that carries bounded tensors: each padded to its initial
  /// value's bound, carried with its count.
  LogicalResult rewriteBoundedFor(scf::ForOp forOp);
  /// A linalg body's reads of bounded values defined outside, rewritten in
  /// place to read their padded forms (and sizes to counts).
  LogicalResult rewriteBodyReads(Operation *op);

  func::FuncOp func;
  SizeBounds &bounds;
  DenseMap<Value, Padded> padded;
  /// Replaced ops, erased at the end (they stay in their blocks until then).
  llvm::SetVector<Operation *> toErase;
  /// The gathers that read only valid rows of their source
  /// (gatherValidRows).
  llvm::DenseSet<Operation *> validRowGathers;
  /// Collects the unpadded compactions whose unwritten lanes the padding
  /// rows of `value` may hold.
  void collectUnpaddedSources(Value value, llvm::SmallPtrSetImpl<Value> &seen,
                              llvm::SetVector<CompactOp> &sources);
  /// Upper bounds of loops' upper bounds, taken before the rewrite replaces
  /// sizes by counts.
  DenseMap<Operation *, int64_t> loopBounds;
  /// The argsorts that make randperm(n), each with its stream's words
  /// before the lanes at and past n were masked: a top-k of the argsort's
  /// first lanes with `valid(n)` reads those, and no masking pass runs.
  DenseMap<Value, Value> unmaskedKeys;
  /// Returned transposes of padded values (what sinkLateTransposes leaves
  /// of a selection along a later dimension), with their permutations: the
  /// function returns the padded value transposed, its count along the
  /// dimension the padded rows move to.
  DenseMap<Value, SmallVector<int64_t>> returnedTransposes;
  /// A linalg.transpose of a padded value that only a return reads.
  LogicalResult rewriteReturnedTranspose(linalg::TransposeOp op);
};

/// Whether some type is a tensor with a dynamic dimension.
bool hasDynamicTensor(TypeRange types);
/// Whether only dimension 0 of `t` is dynamic (the form staticize handles).
bool onlyLeadingDynamic(RankedTensorType t);
/// The error (at `op`) for a result type with a dynamic dimension past the
/// first.
LogicalResult checkLeadingDynamic(Operation *op);
/// Moves transposes whose results are data-dependent past dimension 0 down
/// through their consumers (Transposes.cpp), so that the data-dependent
/// dimension of what they compute is the first.
void sinkLateTransposes(func::FuncOp func);
/// `t` with `n` rows.
RankedTensorType withLeading(RankedTensorType t, int64_t n);
/// `x != 0` elementwise (NaN counts as non-zero, as in sift.count).
Value isNonZero(ImplicitLocOpBuilder &b, Value x);
/// The reassociation that collapses the first `rank` dimensions into one.
ReassociationIndices leadingDims(int64_t rank);
/// Whether some op of `op` (or of its regions) may trap or has an effect
/// when run on arbitrary values, as on padding rows.
bool mayTrapOnPadding(Operation *op);

} // namespace staticize
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_DIALECT_SIFT_TRANSFORMS_STATICIZE_STATICIZER_H
