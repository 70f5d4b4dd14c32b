//===- Passes.td - Passes of the sift dialect --------------*- tablegen -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_DIALECT_SIFT_TRANSFORMS_PASSES_TD
#define SIFT_DIALECT_SIFT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SiftStaticize : Pass<"sift-staticize", "ModuleOp"> {
  let summary = "Rewrite data-dependent shapes into static padded tensors "
                "plus counts";
  let description = [{
    For every tensor whose leading dimension depends on data, derives a
    static upper bound from the program (ValueBoundsOpInterface of the sift
    and upstream ops, then interval evaluation of the size arithmetic), and
    rewrites the tensor into a static tensor padded to that bound plus a
    validity count, and every consumer so that the first `count` rows of
    each result are exactly what the dynamic program computes:
    `sift.nonzero` and `sift.masked_select` become `sift.compact` (+ gather),
    `sift.randperm` of a dynamic `n` an argsort of Philox keys with the
    invalid lanes last, slices and concatenations gathers, `tensor.dim` the
    count. A bounded function result becomes its padded tensor followed by
    its count as a `tensor<i64>`. See docs/Staticize.md for the rules, the
    ABI and what is not supported yet. A size with no derivable bound is an
    error at the op, saying how to supply one.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with the bound of every rewritten value">
  ];
  let statistics = [
    Statistic<"numRewritten", "rewritten-values",
              "Data-dependent values rewritten into padded form">,
    Statistic<"numSyncsRemoved", "syncs-removed",
              "Host-synchronizing ops (nonzero, masked_select, randperm of a "
              "dynamic n) removed">
  ];
  // The rewrites create sift ops (compact, gather, topk) in programs that
  // may have none of their own: a slice of computed length of a static
  // tensor.
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::sift::SiftDialect",
                           "::mlir::tensor::TensorDialect"];
}

def SiftVerifyStatic : Pass<"sift-verify-static", "ModuleOp"> {
  let summary = "Fail on any data-dependent dynamic shape or host sync left";
  let description = [{
    Checks that a module is fully static, as `--sift-staticize` should leave
    it, and reports with the op's location everything that is not:

    - an op whose result shape depends on data (`sift.nonzero`,
      `sift.unique`, `sift.masked_select`, a `sift.randperm` of a
      non-constant length);
    - any value (op result or block argument) of a tensor or memref type with
      a dynamic dimension, or of an unranked type;
    - host control flow whose condition or bounds are read out of tensor data
      (`scf.if`, `scf.for`, `scf.while`, `cf.cond_br`, `cf.switch` fed by a
      `tensor.extract` or a `memref.load`): on a GPU each is a device-to-host
      sync.

    The pass changes nothing; it fails when it found anything.
  }];
  let dependentDialects = [];
}

def SiftReportBounds : Pass<"sift-report-bounds", "ModuleOp"> {
  let summary = "Report the static upper bound of every dynamic dimension";
  let description = [{
    For every op result of a ranked tensor type, and every dynamic dimension
    of it, reports the constant upper bound `--sift-staticize` pads it to,
    as a remark at the op: `result #0 dim 0 <= 1000`. The bounds come from
    the SizeBounds analysis (sift/Dialect/Sift/Analysis/SizeBounds.h):
    MLIR's `ValueBoundsConstraintSet` (the sift ops implement
    `ValueBoundsOpInterface`: a selection has at most as many rows as it has
    candidates, a permutation of `n` has `n` elements, gathers and sorts keep
    their operands' sizes), then an interval evaluation of the size
    arithmetic it does not model (min/max/select of sizes, divisions, case
    splits). A dimension with no derivable bound gets a warning. With
    `sizes`, every index-typed result gets a remark with its interval too
    (`size in [0, 10]`): the test view that pins the analysis's rules. The
    pass changes nothing.
  }];
  let options = [
    Option<"sizes", "sizes", "bool", /*default=*/"false",
           "Also report the interval of every index-typed result">
  ];
}

def SiftBatch : Pass<"sift-batch", "ModuleOp"> {
  let summary = "Lift a per-sample function over a batch, like vmap";
  let description = [{
    Adds to the module the batched version of a function: every argument
    gains a leading batch dimension of `size` (a scalar becomes a tensor of
    `size` elements) unless it is declared shared by all rows, either with
    `unbatched=` (argument positions) or with a `sift.unbatched` unit
    attribute on the argument; every result gains the batch dimension. The
    body is rewritten as one program over the whole batch, not a loop of
    calls: elementwise ops and scalar arithmetic become `linalg.generic`s
    with a leading parallel dimension, `linalg` ops gain that dimension,
    the sift ops take their batched forms (counts and masks per row), and
    values that do not depend on a batched argument stay unbatched.

    Row `i` of every result equals the original function called on row `i`
    of the batched arguments, bit for bit. Random streams follow: a
    per-sample seed argument becomes one seed per row, so row `i` draws
    exactly what the per-sample function draws with `seed[i]`. A random op
    whose seed and offset do not depend on a batched argument draws the
    same numbers for every row, as the per-sample function would.

    The input must have static shapes where they depend on data: run
    `--sift-staticize` first. Ops the pass cannot batch (data-dependent
    shapes, calls, ops with side effects or unknown semantics fed by
    batched values) are errors at the op. See docs/Batch.md.
  }];
  let options = [
    Option<"funcName", "func", "std::string", /*default=*/"\"\"",
           "The function to batch (default: the only function of the "
           "module)">,
    Option<"batchSize", "size", "int64_t", /*default=*/"0",
           "The batch size (required, > 0)">,
    ListOption<"unbatchedArgs", "unbatched", "unsigned",
               "Positions of the arguments shared by all rows">,
    Option<"batchedName", "name", "std::string", /*default=*/"\"\"",
           "Name of the batched function (default: <func>_batched)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::sift::SiftDialect",
                           "::mlir::tensor::TensorDialect"];
}

def SiftLayout : Pass<"sift-layout", "func::FuncOp"> {
  let summary = "Make the axis each sort, top-k and scan works along the "
                "contiguous one";
  let description = [{
    The lowering of `sift.sort`, `sift.argsort`, `sift.topk` and
    `sift.cumsum` works line by line along the op's `dim`. When `dim` is not
    the innermost dimension (a per-column top-k of an IoU matrix,
    `topk(k, dim=0)`; a `cumsum` over the rows), every line is read and
    written with a stride, one cache line per element. This pass moves the
    axis last: the op runs on `linalg.transpose` of its input with `dim` the
    last dimension, and its results are transposed back. Each transpose is
    one contiguous pass; two that cancel (an op along dimension 0 feeding
    another along dimension 0) fold away under canonicalization, so a chain
    of such ops transposes once in and once out. An op whose lines are
    already contiguous (every dimension after `dim` of size 1) is left
    alone. The CPU pipeline runs it first.
  }];
  let dependentDialects = ["linalg::LinalgDialect", "tensor::TensorDialect"];
}

#endif // SIFT_DIALECT_SIFT_TRANSFORMS_PASSES_TD
