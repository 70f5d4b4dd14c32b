//===- BlockPrimitives.h - Warp and block primitives of kernels -*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// Builders of the block-level primitives sift's kernels are made of, written
// with the gpu dialect only (gpu.shuffle, gpu.subgroup_reduce, gpu.barrier,
// workgroup memory), so that the same kernel runs on NVIDIA GPUs (through
// --sift-gpu-pipeline) and on the CPU (through --sift-gpu-launch-to-cpu).
//
// Every primitive must be reached by all threads of the block (they contain
// barriers or whole-warp exchanges), and blocks are made of whole warps of
// 32 lanes. Scratch is a workgroup buffer of at least `kWarpSize` elements of
// the value's type.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_CONVERSION_SIFTTOGPU_BLOCKPRIMITIVES_H
#define SIFT_CONVERSION_SIFTTOGPU_BLOCKPRIMITIVES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace sift {
namespace gpu_prims {

/// Lanes of a warp (NVIDIA).
constexpr int64_t kWarpSize = 32;

/// The memref type of a workgroup (shared memory) buffer.
MemRefType workgroupBufferType(ArrayRef<int64_t> shape, Type elementType);

/// The identity of `kind` (add: 0) for `type`.
Value identity(OpBuilder &b, Location loc, gpu::AllReduceOperation kind,
               Type type);
/// `x kind y` (add: x + y).
Value combine(OpBuilder &b, Location loc, gpu::AllReduceOperation kind, Value x,
              Value y);

/// The thread's lane in its warp (i32) and its warp in the block (index):
/// `gpu.lane_id` and the linear thread id divided by 32.
Value laneId(OpBuilder &b, Location loc);
Value linearThreadId(OpBuilder &b, Location loc);
Value warpId(OpBuilder &b, Location loc);

/// The reduction of `value` over the 32 lanes of the warp, in every lane: a
/// butterfly of five `gpu.shuffle xor` (what `gpu.subgroup_reduce` expands
/// to, but side-effect free, as bufferization requires).
Value warpReduce(OpBuilder &b, Location loc, Value value,
                 gpu::AllReduceOperation kind);

/// Inclusive and exclusive prefix sums (`kind`) over the lanes of the warp:
/// five `gpu.shuffle up` steps (Hillis-Steele); the exclusive one is the
/// inclusive one shifted up by one lane (the identity in lane 0).
std::pair<Value, Value> warpScan(OpBuilder &b, Location loc, Value value,
                                 gpu::AllReduceOperation kind);

/// The value of `value` in lane `lane` (i32) of the warp (`gpu.shuffle idx`).
Value warpBroadcast(OpBuilder &b, Location loc, Value value, Value lane);

/// The ballot of `pred` (i1): an i32 whose bit i is `pred` of lane i. Written
/// as the `or` butterfly of `pred << lane` over the warp, which
/// --sift-gpu-prepare-modules turns into one `vote.sync.ballot`.
Value warpBallot(OpBuilder &b, Location loc, Value pred);

/// The number of set bits of `x` (`math.ctpop`, PTX `popc`).
Value popCount(OpBuilder &b, Location loc, Value x);

/// The reduction of `value` over the block, in every thread: a warp
/// reduction, lane 0 of each warp writes `scratch[warp]`, a barrier, then
/// every warp reduces the `numWarps` partial results; a barrier after, so
/// that `scratch` can be reused.
Value blockReduce(OpBuilder &b, Location loc, Value value,
                  gpu::AllReduceOperation kind, Value scratch,
                  int64_t numWarps);

struct BlockScan {
  Value inclusive; ///< this thread's inclusive prefix over the block
  Value exclusive; ///< this thread's exclusive prefix over the block
  Value total;     ///< the whole block's reduction (in every thread)
};

/// The prefix sums of `value` in linear thread order over the block: warp
/// scans, the warp totals through `scratch` and a barrier, a scan of the
/// warp totals in every warp, then each thread adds the total of the warps
/// before its own. A barrier after, so that `scratch` can be reused.
BlockScan blockScan(OpBuilder &b, Location loc, Value value,
                    gpu::AllReduceOperation kind, Value scratch,
                    int64_t numWarps);

struct BallotScan {
  Value position; ///< i32: the set threads before this one in the block
  Value total;    ///< i32: the set threads of the block (in every thread)
};

/// The stable compaction positions of `pred` (i1) over the block: within a
/// warp, `popc(ballot & lanes below)`; across warps, a scan of the warps'
/// `popc(ballot)` through `scratch` (i32) and a barrier. A barrier after,
/// so that `scratch` can be reused.
BallotScan blockBallotScan(OpBuilder &b, Location loc, Value pred,
                           Value scratch, int64_t numWarps);

/// A reduction operator of tuples of values: `x op y`, both tuples of the
/// same types (e.g. the (max, sum of exp) pair of an online log-sum-exp).
using TupleCombiner = function_ref<SmallVector<Value>(
    OpBuilder &, Location, ValueRange x, ValueRange y)>;

/// The reduction of the tuple `values` with `combiner` over each aligned
/// group of `groupSize` lanes (a power of two, at most 32), in every lane of
/// the group: a butterfly of `gpu.shuffle xor` with the offsets below
/// `groupSize` (log2(groupSize) steps, one shuffle per value and step). A
/// group of one lane is the tuple itself.
SmallVector<Value> warpReduceTuple(OpBuilder &b, Location loc,
                                   ValueRange values, TupleCombiner combiner,
                                   int64_t groupSize = kWarpSize);

/// The reduction of the tuple `values` over the block, in every thread:
/// warp reductions, lane 0 of each warp writes its tuple into `scratch` (one
/// workgroup buffer per value), a barrier, then every warp reduces the
/// `numWarps` partial tuples (`identities` in the lanes above); a barrier
/// after, so that the scratch buffers can be reused.
SmallVector<Value> blockReduceTuple(OpBuilder &b, Location loc,
                                    ValueRange values, TupleCombiner combiner,
                                    ValueRange identities, ValueRange scratch,
                                    int64_t numWarps);

} // namespace gpu_prims
} // namespace sift
} // namespace mlir

#endif // SIFT_CONVERSION_SIFTTOGPU_BLOCKPRIMITIVES_H
