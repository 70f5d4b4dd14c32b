//===- Batch.cpp - Lift a per-sample function over a batch ------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// `batchFunction` (and `--sift-batch`, its pass) builds the batched version
// of a function, as `vmap` does: the body is rebuilt op by op into a new
// function whose batched values carry a leading dimension of the batch size.
// A value is batched when it depends on a batched argument; everything else
// is cloned unchanged and broadcast only where a batched op needs it. The
// rules, per kind of op, each reached from the TypeSwitch of
// `Batcher::batchOp` below:
//
//  - elementwise ops (the `Elementwise` trait) and pure scalar ops become one
//    `linalg.generic` over [B, shape...]: an unbatched tensor operand is read
//    through a map that skips the batch dimension, an unbatched scalar is
//    used in the body as is, so nothing is materialized per row
//    (Pointwise.cpp);
//  - `linalg` ops (named ones generalized first) gain a leading parallel
//    dimension; batched scalars captured by their body become inputs
//    (Linalg.cpp);
//  - tensor ops shift their dimensions by one (`concat`, slices, reshapes,
//    `dim`), `extract` of a batched scalar is the batched tensor itself
//    (TensorOps.cpp);
//  - the sift ops take their batched forms: axis attributes shift, a gather
//    from an unbatched source keeps its form, random ops and
//    `sample_balanced` take per-row seeds, `cross_entropy` reduces per row
//    through `batch_dims`, a static `randperm` becomes an argsort of per-row
//    Philox words (its definition) (SiftOps.cpp);
//  - `scf.if` on a batched condition evaluates both branches and selects per
//    row; on an unbatched one it stays a branch. `scf.for` with unbatched
//    bounds keeps its loop, its carried values batched where needed (found
//    by a fixpoint over the body) (ControlFlow.cpp).
//
//===----------------------------------------------------------------------===//

#include "Batcher.h"
#include "sift/Dialect/Sift/Transforms/Passes.h"
#include "sift/Dialect/Sift/Transforms/Transforms.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTBATCH
#include "sift/Dialect/Sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;
using namespace mlir::sift::batch;

static constexpr StringLiteral kUnbatchedAttr = "sift.unbatched";

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

Value Batcher::batchedValue(OpBuilder &b, Location loc, Value v) {
  Value value = lookup(v);
  if (batched.contains(value))
    return value;
  return broadcast(b, loc, value);
}

/// A `tensor.empty` of the batched form of `sourceType`; dynamic sizes come
/// from `sizesFrom`, a value of the batched function whose type is
/// `sourceType` (unbatched) or its batched form.
Value Batcher::emptyBatched(OpBuilder &b, Location loc, Type sourceType,
                            Value sizesFrom) {
  auto type = cast<RankedTensorType>(batchedType(sourceType));
  SmallVector<Value> dynamic;
  if (!type.hasStaticShape()) {
    int64_t skip = batched.contains(sizesFrom) ? 0 : 1;
    for (int64_t d = 1; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dynamic.push_back(tensor::DimOp::create(b, loc, sizesFrom, d - skip));
  }
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dynamic);
}

/// The same value for every row: splat constants and scalars directly, other
/// tensors through a `linalg.generic` that later fuses into its consumers.
Value Batcher::broadcast(OpBuilder &b, Location loc, Value v) {
  Type type = batchedType(v.getType());
  if (isScalar(v.getType()))
    return tensor::SplatOp::create(b, loc, type, v);
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat())
    return arith::ConstantOp::create(b, loc,
                                     dense.resizeSplat(cast<ShapedType>(type)));
  auto tensorType = cast<RankedTensorType>(v.getType());
  unsigned rank = tensorType.getRank() + 1;
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  Value init = emptyBatched(b, loc, tensorType, v);
  return linalg::GenericOp::create(
             b, loc, type, v, init,
             ArrayRef<AffineMap>{identity.dropResult(0), identity},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [](OpBuilder &b, Location loc, ValueRange args) {
               linalg::YieldOp::create(b, loc, args[0]);
             })
      .getResult(0);
}

Operation *Batcher::cloneBatched(OpBuilder &b, Operation *op,
                                 ValueRange operands) {
  Operation *clone = b.clone(*op, map);
  clone->setOperands(operands);
  for (auto [source, result] :
       llvm::zip_equal(op->getResults(), clone->getResults())) {
    result.setType(batchedType(source.getType()));
    setBatched(source, result);
  }
  return clone;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

bool Batcher::needsBatching(Operation *op) const {
  for (Value operand : op->getOperands())
    if (batched.contains(lookup(operand)))
      return true;
  if (op->getNumRegions() == 0)
    return false;
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  return llvm::any_of(captured,
                      [&](Value v) { return batched.contains(lookup(v)); });
}

LogicalResult Batcher::batchOps(OpBuilder &b, Block &block) {
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator()))
    if (failed(batchOp(b, &op)))
      return failure();
  return success();
}

LogicalResult Batcher::batchOp(OpBuilder &b, Operation *op) {
  if (!needsBatching(op)) {
    b.clone(*op, map);
    return success();
  }
  // Every rule gives the results a leading batch dimension: refuse types
  // that cannot have one (unranked tensors, memrefs, ...) here, once.
  for (Type t : op->getResultTypes())
    if (!batchedType(t))
      return op->emitOpError("has a per-row result of type ")
             << t
             << ", which --sift-batch cannot give a batch dimension (only "
                "ranked tensors and scalars can have one)";
  // The batch rule of each op. A new rule is a case here and a member of
  // Batcher (Batcher.h) named after the op.
  return TypeSwitch<Operation *, LogicalResult>(op)
      // sift (SiftOps.cpp)
      .Case<CountOp, CompactOp>(
          [&](auto) { return batchCountOrCompact(b, op); })
      .Case<CumsumOp, SortOp, ArgsortOp, TopkOp>(
          [&](auto) { return batchAlongDim(b, op); })
      .Case([&](GatherOp gather) { return batchGather(b, gather); })
      .Case([&](ScatterOp scatter) { return batchScatter(b, scatter); })
      .Case([&](RandomBitsOp random) {
        return batchRandom(b, op, random.getSeed(), random.getOffset(),
                           random.getValid());
      })
      .Case([&](RandomUniformOp random) {
        return batchRandom(b, op, random.getSeed(), random.getOffset());
      })
      .Case([&](SampleBalancedOp sample) {
        return batchSampleBalanced(b, sample);
      })
      .Case([&](CrossEntropyOp loss) { return batchCrossEntropy(b, loss); })
      .Case([&](RandpermOp perm) { return batchRandperm(b, perm); })
      .Case([&](RandpermPrefixOp perm) { return batchRandpermPrefix(b, perm); })
      .Case<NonzeroOp, UniqueOp, MaskedSelectOp>(
          [&](auto) { return batchDataDependent(op); })
      // linalg (Linalg.cpp)
      .Case([&](linalg::LinalgOp linalgOp) { return batchLinalg(b, linalgOp); })
      // scf (ControlFlow.cpp)
      .Case([&](scf::IfOp ifOp) { return batchScfIf(b, ifOp); })
      .Case([&](scf::ForOp forOp) { return batchScfFor(b, forOp); })
      .Case([&](scf::IndexSwitchOp switchOp) {
        return batchScfIndexSwitch(b, switchOp);
      })
      // tensor (TensorOps.cpp)
      .Case([&](tensor::ExtractOp extract) { return batchExtract(b, extract); })
      .Case([&](tensor::FromElementsOp from) {
        return batchFromElements(b, from);
      })
      .Case([&](tensor::SplatOp splat) { return batchSplat(b, splat); })
      .Case([&](tensor::ConcatOp concat) { return batchConcat(b, concat); })
      .Case([&](tensor::ExtractSliceOp slice) {
        return batchExtractSlice(b, slice);
      })
      .Case([&](tensor::InsertSliceOp slice) {
        return batchInsertSlice(b, slice);
      })
      .Case([&](tensor::ExpandShapeOp expand) {
        return batchExpandShape(b, expand);
      })
      .Case([&](tensor::CollapseShapeOp collapse) {
        return batchCollapseShape(b, collapse);
      })
      .Case([&](tensor::CastOp cast) { return batchCast(b, cast); })
      .Case([&](tensor::DimOp dim) { return batchDim(b, dim); })
      // func
      .Case([&](func::CallOp) {
        return op->emitOpError(
            "cannot be batched by --sift-batch: batch the callee and call it, "
            "or inline it first");
      })
      // Elementwise and pure scalar ops (Pointwise.cpp), or an error.
      .Default([&](Operation *op) { return batchOtherOp(b, op); });
}

LogicalResult Batcher::batchOtherOp(OpBuilder &b, Operation *op) {
  if (isa<SiftDialect>(op->getDialect()))
    return op->emitOpError("has no batched form in --sift-batch");
  // Elementwise ops on tensors or scalars, and pure scalar ops (none of the
  // tensor dialect).
  auto isValueType = [](Type t) {
    return isScalar(t) || isa<RankedTensorType>(t);
  };
  bool valueTypes = llvm::all_of(op->getOperandTypes(), isValueType) &&
                    llvm::all_of(op->getResultTypes(), isValueType);
  bool scalarOp = llvm::all_of(op->getOperandTypes(), isScalar) &&
                  llvm::all_of(op->getResultTypes(), isScalar);
  if (!isa<tensor::TensorDialect>(op->getDialect()) &&
      op->getNumRegions() == 0 && op->getNumResults() > 0 && valueTypes &&
      isMemoryEffectFree(op) &&
      (op->hasTrait<OpTrait::Elementwise>() || scalarOp))
    return batchPointwise(b, op);
  return op->emitOpError("cannot be batched by --sift-batch: it uses a "
                         "per-row value and --sift-batch has no rule for it");
}

//===----------------------------------------------------------------------===//
// batchFunction
//===----------------------------------------------------------------------===//

/// Checks that `source` can be batched into a new function `name`.
static LogicalResult checkSource(func::FuncOp source, StringRef name) {
  if (source.isExternal() || !source.getBody().hasOneBlock())
    return source.emitOpError("--sift-batch needs a body of one block");
  Operation *parent = source->getParentOp();
  Operation *symbolTable =
      parent ? SymbolTable::getNearestSymbolTable(parent) : nullptr;
  if (!symbolTable)
    return source.emitOpError("--sift-batch needs the function in a module");
  if (SymbolTable::lookupSymbolIn(symbolTable, name))
    return source.emitOpError("--sift-batch: the module already has a symbol '")
           << name << "'";
  return success();
}

/// The type of the batched function; `argBatched` says which of its
/// arguments carry the batch dimension.
static FailureOr<FunctionType> batchedSignature(const Batcher &batcher,
                                                func::FuncOp source,
                                                const BatchOptions &options,
                                                SmallVector<bool> &argBatched) {
  FunctionType type = source.getFunctionType();
  llvm::SmallDenseSet<unsigned> shared(options.unbatchedArgs.begin(),
                                       options.unbatchedArgs.end());
  for (unsigned i : shared)
    if (i >= type.getNumInputs())
      return source.emitOpError("--sift-batch: unbatched=")
             << i << " is not an argument position (the function has "
             << type.getNumInputs() << ")";
  SmallVector<Type> inputs, results;
  for (auto [i, input] : llvm::enumerate(type.getInputs())) {
    bool isShared = shared.contains(i) || source.getArgAttr(i, kUnbatchedAttr);
    Type batched = isShared ? input : batcher.batchedType(input);
    if (!batched)
      return source.emitOpError("--sift-batch: argument #")
             << i << " of type " << input
             << " cannot have a batch dimension; declare it unbatched";
    inputs.push_back(batched);
    argBatched.push_back(!isShared);
  }
  for (auto [i, result] : llvm::enumerate(type.getResults())) {
    Type batched = batcher.batchedType(result);
    if (!batched)
      return source.emitOpError("--sift-batch: result #")
             << i << " of type " << result << " cannot have a batch dimension";
    results.push_back(batched);
  }
  return FunctionType::get(source.getContext(), inputs, results);
}

/// An empty function `name` of `type` after `source`, with its visibility
/// its argument and result attributes, and the positions of its bounded
/// results and their padded dimensions (`sift.bounded_results`,
/// `sift.bounded_dims`, see --sift-staticize).
static func::FuncOp createBatchedFunction(func::FuncOp source, StringRef name,
                                          FunctionType type) {
  OpBuilder b(source.getContext());
  b.setInsertionPointAfter(source);
  auto batchedFn = func::FuncOp::create(b, source.getLoc(), name, type);
  batchedFn.setVisibility(source.getVisibility());
  for (unsigned i = 0; i < type.getNumInputs(); ++i)
    for (NamedAttribute attr :
         cast<FunctionOpInterface>(source.getOperation()).getArgAttrs(i))
      // A batched size keeps its `sift.bound`: each row's size is bounded.
      if (attr.getName() != kUnbatchedAttr)
        batchedFn.setArgAttr(i, attr.getName(), attr.getValue());
  for (unsigned i = 0; i < type.getNumResults(); ++i)
    if (DictionaryAttr attrs = source.getResultAttrDict(i))
      batchedFn.setResultAttrs(i, attrs);
  for (StringRef attr : {"sift.bounded_results", "sift.bounded_dims"})
    if (Attribute value = source->getAttr(attr))
      batchedFn->setAttr(attr, value);
  return batchedFn;
}

FailureOr<func::FuncOp> sift::batchFunction(func::FuncOp source,
                                            const BatchOptions &options) {
  if (options.batchSize <= 0)
    return source.emitOpError(
        "--sift-batch needs a batch size: size=N with N > 0");
  std::string name = options.batchedName.empty()
                         ? (source.getSymName() + "_batched").str()
                         : options.batchedName;
  if (failed(checkSource(source, name)))
    return failure();
  Batcher batcher(options.batchSize);
  SmallVector<bool> argBatched;
  FailureOr<FunctionType> type =
      batchedSignature(batcher, source, options, argBatched);
  if (failed(type))
    return failure();
  func::FuncOp batchedFn = createBatchedFunction(source, name, *type);

  // The source is batched from a scratch copy: named linalg ops are
  // generalized in it on the way.
  func::FuncOp scratch = source.clone();
  Block &sourceBlock = scratch.getBody().front();
  Block *block = batchedFn.addEntryBlock();
  for (auto [arg, newArg, isBatched] : llvm::zip_equal(
           sourceBlock.getArguments(), block->getArguments(), argBatched))
    batcher.mapArgument(arg, newArg, isBatched);
  OpBuilder b = OpBuilder::atBlockBegin(block);
  if (failed(batcher.batchOps(b, sourceBlock))) {
    scratch.erase();
    batchedFn.erase();
    return failure();
  }
  auto ret = cast<func::ReturnOp>(sourceBlock.getTerminator());
  SmallVector<Value> returned;
  for (Value v : ret.getOperands())
    returned.push_back(batcher.batchedValue(b, ret.getLoc(), v));
  func::ReturnOp::create(b, ret.getLoc(), returned);
  scratch.erase();
  return batchedFn;
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {

struct SiftBatchPass : sift::impl::SiftBatchBase<SiftBatchPass> {
  using SiftBatchBase::SiftBatchBase;

  /// The function `func=` names, or the only one; null after an error.
  func::FuncOp findSource(ModuleOp module) {
    if (!funcName.empty()) {
      auto source = module.lookupSymbol<func::FuncOp>(funcName);
      if (!source)
        module.emitError("--sift-batch: no function named '")
            << funcName << "'";
      return source;
    }
    auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
    if (funcs.size() == 1)
      return funcs.front();
    module.emitError("--sift-batch: the module has ")
        << funcs.size() << " functions; say which with func=NAME";
    return nullptr;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (batchSize <= 0) {
      module.emitError("--sift-batch needs a batch size: size=N with N > 0");
      return signalPassFailure();
    }
    func::FuncOp source = findSource(module);
    if (!source)
      return signalPassFailure();
    BatchOptions options;
    options.batchSize = batchSize;
    options.unbatchedArgs.assign(unbatchedArgs.begin(), unbatchedArgs.end());
    options.batchedName = batchedName;
    if (failed(batchFunction(source, options)))
      return signalPassFailure();
  }
};

} // namespace
