//===- Passes.td - Conversion passes of sift ---------------*- tablegen -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_CONVERSION_PASSES_TD
#define SIFT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertSiftToLinalg : Pass<"convert-sift-to-linalg", "ModuleOp"> {
  let summary = "Lower every sift op to linalg, scf, arith, math and tensor";
  let description = [{
    Rewrites each sift op into upstream ops on tensors that one-shot
    bufferization handles: `linalg.generic` for element-wise and reduction
    work (Philox streams, counts, gathers), an `scf.forall` over the
    independent lines of an axis op (one line per batch row;
    `tensor.extract_slice` in, `tensor.parallel_insert_slice` out), and
    sequential `scf.for` scans inside a line (prefix sums, compaction, LSD
    radix sort on an order-preserving unsigned key with an index payload).
    An op it cannot lower (an unsupported element type) is reported once,
    at the op, with the reason.

    - `random_bits`, `random_uniform`, `randperm`: Philox4x32-10 with
      `arith.mului_extended`, bit for bit as the dialect's contract.
    - `sort`, `argsort`, `topk`, `unique`, `randperm`, `sample_balanced`:
      a stable 8-bit-digit LSD radix sort (floats: -0.0 is +0.0, every NaN
      one largest key; descending inverts the key, which stays stable).
    - `cross_entropy`: max-shifted log-sum-exp; an out-of-range target calls
      the runtime's `sift_rt_report(code, target, row, C)` (see
      `sift/Runtime/SiftRuntime.h`) and yields NaN for its element; mean and
      sum accumulate in f64.

    Run-time checks report through `sift_rt_report` with the values
    involved, and the code after them stays in bounds: `randperm` n outside
    [0, 2^56], `topk` k above a dynamic extent, `cross_entropy` rows of
    logits and targets (and weights and C) that disagree. Extents whose
    disagreement would make the next op read out of bounds (a mask against
    its data in `masked_select`, the batch dimensions of a `gather`) call
    `sift_rt_fail` instead, which ends the call with the error; the CPU
    pipeline's `--sift-check-extents` does the same for every linalg op on
    dynamic operands.

    An op (or element type) that has no lowering is reported as an error.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // SIFT_CONVERSION_PASSES_TD
