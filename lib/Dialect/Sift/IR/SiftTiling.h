//===- SiftTiling.h - TilingInterface of the sift ops -----------*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Private to the dialect library: SiftDialect::initialize attaches the
// models.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_DIALECT_SIFT_IR_SIFTTILING_H
#define SIFT_LIB_DIALECT_SIFT_IR_SIFTTILING_H

namespace mlir {
class MLIRContext;
namespace sift {

/// Attaches `TilingInterface` to the sift ops whose leading (batch, row)
/// dimensions are independent: count, compact, cumsum, sort, argsort, topk,
/// gather, random_bits and random_uniform with per-row seeds and
/// sample_balanced. Their iteration domain is those
/// dimensions, all parallel; a tile is the same op on slices of the rows.
void attachTilingInterfaceModels(MLIRContext &context);

} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_DIALECT_SIFT_IR_SIFTTILING_H
