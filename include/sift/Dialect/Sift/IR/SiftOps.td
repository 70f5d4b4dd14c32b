//===- SiftOps.td - Operations of the sift dialect ---------*- tablegen -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_DIALECT_SIFT_IR_SIFTOPS_TD
#define SIFT_DIALECT_SIFT_IR_SIFTOPS_TD

include "sift/Dialect/Sift/IR/SiftDialect.td"
include "sift/Dialect/Sift/IR/SiftAttrs.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/InferIntRangeInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ValueBoundsOpInterface.td"

// Ops whose result dimensions are bounded by (or equal to) their operands'.
def Sift_ShapeBounds : DeclareOpInterfaceMethods<ValueBoundsOpInterface,
    ["populateBoundsForShapedValueDim"]>;

class Sift_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sift_Dialect, mnemonic, traits>;

// Shorthands for the operand kinds of the contract.
def Sift_NumericTensor : RankedTensorOf<[AnySignlessInteger, AnyFloat]>;
def Sift_MaskTensor : RankedTensorOf<[I1]>;
def Sift_I64Tensor : RankedTensorOf<[I64]>;
def Sift_I32OrI64Tensor : RankedTensorOf<[I32, I64]>;
def Sift_IntTensor : RankedTensorOf<[AnySignlessInteger]>;
def Sift_FloatTensor : RankedTensorOf<[AnyFloat]>;
// A Philox key or stream offset: one `i64` for the whole op, or a static
// tensor of them, one per row of the leading dimensions it covers.
def Sift_Seed : AnyTypeOf<[I64, StaticShapeTensorOf<[I64]>],
                          "i64 or a static tensor of i64 (one per row)">;

// Ops that work along one axis (`dim`, negative counts from the end).
class Sift_AxisOp<string mnemonic, list<Trait> traits = []>
    : Sift_Op<mnemonic, traits> {
  code extraAxisDecl = [{
    /// The `dim` attribute made non-negative (it is verified in range).
    int64_t getAxis() {
      int64_t rank = ::llvm::cast<::mlir::RankedTensorType>(
          getInput().getType()).getRank();
      int64_t dim = static_cast<int64_t>(getDim());
      return dim < 0 ? dim + rank : dim;
    }
  }];
  let extraClassDeclaration = extraAxisDecl;
}

//===----------------------------------------------------------------------===//
// Data-dependent ops: their result shapes depend on the values of operands.
//===----------------------------------------------------------------------===//

def Sift_NonzeroOp : Sift_Op<"nonzero",
    [Sift_ShapeBounds, Pure, InferTypeOpAdaptor]> {
  let summary = "indices of the non-zero elements (data-dependent size)";
  let description = [{
    Returns the indices of the elements of `input` that are not zero (`true`
    for `i1`), in row-major order, as `torch.nonzero` and `numpy.nonzero` do.
    For a 1-D input the result is `tensor<?xi64>`; for an input of rank `R`
    it is `tensor<?xRxi64>`, one row of coordinates per element. The number
    of rows depends on the data: `--sift-staticize` rewrites it into
    `sift.compact` (a static padded tensor plus a count).

    A floating-point NaN is non-zero. An input with no non-zero element gives
    an empty result.

    Example:

    ```mlir
    %idx = sift.nonzero %mask : tensor<1000xi1> -> tensor<?xi64>
    %coords = sift.nonzero %img : tensor<32x32xf32> -> tensor<?x2xi64>
    ```
  }];
  let arguments = (ins Sift_NumericTensor:$input);
  let results = (outs Sift_I64Tensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasCanonicalizer = 1;
}

def Sift_UniqueOp : Sift_Op<"unique",
    [Sift_ShapeBounds, Pure, AttrSizedResultSegments,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "sorted unique values, with optional inverse and counts";
  let description = [{
    Returns the distinct values of the flattened `input` in ascending order,
    as `torch.unique(x, sorted=True)` and `numpy.unique`. With `inverse`, a
    second result of the input's shape holds, for each element, the position
    of its value in the unique values; with `counts`, a last result holds how
    often each unique value occurs. All NaNs count as one value, sorted
    last (as `numpy.unique` with `equal_nan=True`); -0.0 and +0.0 are one
    value, returned with the sign of its first occurrence in the input. The
    number of unique values depends on the data; an empty input gives empty
    results.

    Example:

    ```mlir
    %u = sift.unique %labels : tensor<100xi64> -> tensor<?xi64>
    %u2, %inv, %cnt = sift.unique %labels inverse counts
        : tensor<100xi64> -> tensor<?xi64>, tensor<100xi64>, tensor<?xi64>
    ```
  }];
  let arguments = (ins Sift_NumericTensor:$input);
  let results = (outs RankedTensorOf<[AnySignlessInteger, AnyFloat]>:$values,
                      Optional<Sift_I64Tensor>:$inverse,
                      Optional<Sift_I64Tensor>:$counts);
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "bool":$withInverse,
                   "bool":$withCounts)>
  ];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Sift_MaskedSelectOp : Sift_Op<"masked_select",
    [Sift_ShapeBounds, Pure, InferTypeOpAdaptor]> {
  let summary = "elements (or rows) where a mask is true (data-dependent size)";
  let description = [{
    Boolean-mask indexing, `input[mask]` in PyTorch and NumPy. The mask's
    shape must equal the leading dimensions of `input`; the result stacks the
    selected sub-tensors in row-major order of the mask. With a mask of the
    input's full shape this is `torch.masked_select` (a 1-D result); with a
    mask over the first dimension it selects rows. The number of selected
    elements depends on the data; nothing selected gives an empty result.

    Example:

    ```mlir
    %vals = sift.masked_select %scores, %keep
        : tensor<1000xf32>, tensor<1000xi1> -> tensor<?xf32>
    %boxes = sift.masked_select %all_boxes, %keep
        : tensor<1000x4xf32>, tensor<1000xi1> -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Sift_MaskTensor:$mask);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $mask attr-dict `:` type($input) `,` type($mask)
    `->` type($result)
  }];
}

def Sift_RandpermOp : Sift_Op<"randperm", [Sift_ShapeBounds, Pure]> {
  let summary = "random permutation of 0..n-1 (n may be dynamic)";
  let description = [{
    A random permutation of the integers `0 .. n-1`, as `torch.randperm(n)`.
    The stream is counter-based and reproducible: the same `seed` and
    `offset` give the same permutation on every target. `n` is an `index`;
    when it is not a constant the result is `tensor<?xi64>`. When `n` is a
    constant the result may be static and must then have `n` elements.
    `offset` defaults to zero.

    By default the permutation is a keyed bijection of `[0, n)` evaluated
    element by element (a Feistel network with cycle walking, keyed by the
    `sift.random_bits` stream of the same `seed` and `offset`;
    `sift.randperm_prefix` gives its exact definition): no sort, and
    `randperm(n)[:k]` costs `k` evaluations. `n` is at most 2^32.

    With `sort`, the permutation is instead the stable ascending argsort of
    the first `n` words of that stream, compared as unsigned 32-bit
    integers: a different permutation of the same seed, equally uniform,
    that costs a sort of `n` keys (and `randperm(n)[:k]` a top-k).

    Example:

    ```mlir
    %perm = sift.randperm %n, %seed : tensor<?xi64>
    %perm2 = sift.randperm %c16, %seed offset %off : tensor<16xi64>
    %perm3 = sift.randperm %n, %seed sort : tensor<?xi64>
    ```
  }];
  let arguments = (ins Index:$n, I64:$seed, Optional<I64>:$offset,
                       UnitAttr:$sort);
  let results = (outs 1DTensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $n `,` $seed (`offset` $offset^)? (`sort` $sort^)? attr-dict `:`
    type($result)
  }];
  let extraClassDeclaration = [{
    /// Whether the permutation is the Feistel bijection (the default), not
    /// the argsort of the stream's words.
    bool isFeistel() { return !getSort(); }
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Static primitives.
//===----------------------------------------------------------------------===//

def Sift_RandpermPrefixOp : Sift_Op<"randperm_prefix", [Pure,
    AttrSizedOperandSegments]> {
  let summary = "the first lanes of a Feistel random permutation, per line";
  let description = [{
    Lane `j` of each line of the result is element `j` of the permutation
    `sift.randperm %n, %seed offset %offset` of that line's `n`,
    for `j < n`; lanes at and past `n` are padding, -1 (as
    `sift.compact` pads). The last dimension `K` may be shorter than `n`
    (the first `K` elements of the permutation: `randperm(n)[:K]`) or
    longer (padding past `n`). `n` is an `index` for every line or a tensor
    of `index`, one per line (the result's shape without its last
    dimension); it is clamped to `[0, 2^32]`. `seed` and `offset` are
    `i64`, or tensors covering a prefix of the lines (per-row streams, as
    `sift.random_bits` takes them). With `limit` (an `index`, or a tensor
    of one per line like `n`), the lanes at and past it are padding too:
    `randperm(n)[:m]` for a data-dependent `m` evaluates `m` lanes, not the
    bound's.

    The permutation of `[0, n)` for a stream (`seed`, `offset`):
    - the round keys `k_0 .. k_5` are words 0 to 5 of the `sift.random_bits`
      stream of that seed and offset;
    - `b = max(8, ceil(log2 n))` bits, split into `l = b / 2` (rounded down)
      and `r = b - l`;
    - a round `i` maps `x` in `[0, 2^b)`, with `(hl, hr) = (l, r)` for even
      `i` and `(r, l)` for odd `i`, `c = x mod 2^hr`, `a = x >> hr`, to
      `(c << hl) | ((a ^ F(c ^ k_i)) mod 2^hl)`, where `F` is MurmurHash3's
      32-bit finalizer (`h ^= h >> 16; h *= 0x85ebca6b; h ^= h >> 13;
      h *= 0xc2b2ae35; h ^= h >> 16`). Each round is a bijection of
      `[0, 2^b)`, and so are the six rounds `P`;
    - element `j` is `P(j)`, `P(P(j))`, ... the first of these below `n`
      (cycle walking: a bijection of `[0, n)`).

    The reference is `randperm_feistel` in python/sift/reference/ops.py.
    `--sift-staticize` makes this op of `sift.randperm` (without `sort`)
    and its prefixes.

    Example:

    ```mlir
    %p = sift.randperm_prefix %n, %seed offset %off
        : (index, i64, i64) -> tensor<1000xi64>
    %rows = sift.randperm_prefix %ns, %seeds limit %ms
        : (tensor<32xindex>, tensor<32xi64>, tensor<32xindex>)
          -> tensor<32x1000xi64>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Index, RankedTensorOf<[Index]>]>:$n,
                       Sift_Seed:$seed, Optional<Sift_Seed>:$offset,
                       Optional<AnyTypeOf<[Index, RankedTensorOf<[Index]>]>>:$limit);
  let results = (outs StaticShapeTensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $n `,` $seed (`offset` $offset^)? (`limit` $limit^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let builders = [
    OpBuilder<(ins "Type":$result, "Value":$n, "Value":$seed,
                   "Value":$offset), [{
      build($_builder, $_state, result, n, seed, offset, /*limit=*/Value());
    }]>
  ];
  let hasVerifier = 1;
}

def Sift_CountOp : Sift_Op<"count", [Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<InferIntRangeInterface,
                              ["inferResultRanges"]>]> {
  let summary = "number of non-zero elements along the last axis";
  let description = [{
    `torch.count_nonzero(x, dim=-1)`: counts the non-zero (`true`) elements
    along the last axis. Leading dimensions are batch dimensions: an input of
    shape `[B..., N]` gives a count of shape `[B...]` (a rank-0 tensor for a
    1-D input). NaN counts as non-zero. A count of a constant folds.

    Example:

    ```mlir
    %n = sift.count %mask : tensor<1000xi1> -> tensor<i64>
    %per_row = sift.count %masks : tensor<32x1000xi1> -> tensor<32xi64>
    ```
  }];
  let arguments = (ins Sift_NumericTensor:$input);
  let results = (outs Sift_I64Tensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def Sift_CompactOp : Sift_Op<"compact", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "stream compaction: indices of true lanes, padded, plus count";
  let description = [{
    The static form of `nonzero` (like `torch.nonzero_static`): along the last
    axis of `mask`, writes the indices of the `true` lanes in increasing order
    into the first lanes of `indices`, fills the remaining lanes with `fill`
    (default -1), and returns in `count` how many lanes are valid. The result
    width `K` is static and chosen by the user or by `--sift-staticize`; when
    more than `K` lanes are true only the first `K` are kept and `count` is
    `K`. Leading dimensions are batch dimensions: a mask `[B..., N]` gives
    indices `[B..., K]` and a count `[B...]`.

    With `unpadded`, the lanes past `count` are unspecified (`fill` does not
    apply): nothing writes them. `--sift-staticize` asks for this, since
    the padding rows of its values are unspecified anyway; at a line of
    N = 1e6 it saves writing up to 8 MB a line.

    The indices are `i64`, or `i32` when the mask's lines have a static
    length below 2^31 (half the bytes to write and to gather through;
    `--sift-narrow-indices` chooses it where every reader is a gather).

    Example:

    ```mlir
    %idx, %n = sift.compact %mask : tensor<1000xi1> -> tensor<1000xi64>, tensor<i64>
    %idx2, %n2 = sift.compact %masks {fill = 0 : i64}
        : tensor<8x100xi1> -> tensor<8x16xi64>, tensor<8xi64>
    %idx3, %n3 = sift.compact %mask unpadded
        : tensor<1000xi1> -> tensor<1000xi32>, tensor<i64>
    ```
  }];
  let arguments = (ins Sift_MaskTensor:$mask,
                       DefaultValuedAttr<I64Attr, "-1">:$fill,
                       UnitAttr:$unpadded);
  let results = (outs Sift_I32OrI64Tensor:$indices, Sift_I64Tensor:$count);
  let assemblyFormat = [{
    $mask (`unpadded` $unpadded^)? attr-dict `:` type($mask) `->`
    type($indices) `,` type($count)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Sift_CumsumOp : Sift_AxisOp<"cumsum", [Sift_ShapeBounds, Pure]> {
  let summary = "inclusive or exclusive prefix sum along an axis";
  let description = [{
    `torch.cumsum(x, dim)`: element `i` along `dim` is the sum of elements
    `0..i` (inclusive) or `0..i-1` (`exclusive`, the first being zero). The
    result has the input's shape. Its element type equals the input's, or,
    for an `i1` mask, is any wider integer type, so that the exclusive sum of
    a mask gives each selected lane its output position. Integer sums wrap
    around on overflow; the summation order of float sums is left to the
    implementation (results agree with a sequential sum to rounding).

    Example:

    ```mlir
    %pos = sift.cumsum %mask exclusive : tensor<1000xi1> -> tensor<1000xi64>
    %acc = sift.cumsum %x {dim = 0 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Sift_NumericTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$dim,
                       UnitAttr:$exclusive);
  let results = (outs Sift_NumericTensor:$result);
  let assemblyFormat = [{
    $input (`exclusive` $exclusive^)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Sift_SortOp : Sift_AxisOp<"sort",
    [Sift_ShapeBounds, Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "stable sort along an axis: values and their indices";
  let description = [{
    `torch.sort(x, dim, descending, stable=True)`: sorts along `dim` and
    returns the sorted values and, for each, its index in the input. The
    sort is stable: equal values keep their input order (in both directions).
    NaN sorts as larger than every number (last ascending, first descending);
    -0.0 and +0.0 are equal. Sorting a constant folds.

    Example:

    ```mlir
    %v, %i = sift.sort %scores descending
        : tensor<1000xf32> -> tensor<1000xf32>, tensor<1000xi64>
    ```
  }];
  let arguments = (ins Sift_NumericTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$dim,
                       UnitAttr:$descending);
  let results = (outs Sift_NumericTensor:$values, Sift_I64Tensor:$indices);
  let assemblyFormat = [{
    $input (`descending` $descending^)? attr-dict `:` type($input) `->`
    type($values) `,` type($indices)
  }];
  let hasFolder = 1;
}

def Sift_ArgsortOp : Sift_AxisOp<"argsort",
    [Sift_ShapeBounds, Pure, InferTypeOpAdaptor]> {
  let summary = "stable argsort along an axis";
  let description = [{
    `torch.argsort(x, dim, descending, stable=True)`: the indices that sort
    `input` along `dim`, with the ordering rules of `sift.sort` (stable, NaN
    largest). `unsigned` orders integers as unsigned (`i32` 0xFFFFFFFF
    last ascending), as randperm orders its Philox words: integers only.
    Argsort of a constant folds.

    Example:

    ```mlir
    %order = sift.argsort %keys : tensor<1000xi32> -> tensor<1000xi64>
    ```
  }];
  let arguments = (ins Sift_NumericTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$dim,
                       UnitAttr:$descending,
                       UnitAttr:$isUnsigned);
  let results = (outs Sift_I64Tensor:$result);
  let assemblyFormat = [{
    $input (`descending` $descending^)? (`unsigned` $isUnsigned^)? attr-dict
    `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Sift_TopkOp : Sift_AxisOp<"topk",
    [Sift_ShapeBounds, Pure, InferTypeOpAdaptor, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "k largest (or smallest) elements along an axis";
  let description = [{
    `torch.topk(x, k, dim, largest, sorted)`: the `k` largest elements along
    `dim` (the `k` smallest with `smallest`) and their indices. Ties are
    broken by the lower index first, so the result is fully determined. With
    the default ordering the values are sorted (largest first, or smallest
    first with `smallest`); with `unsorted` the same set is returned in an
    order the implementation chooses. NaN is larger than every number.
    `unsigned` orders integers as unsigned (as `sift.argsort unsigned`). `k`
    must not exceed the size of the axis; `k = 0` gives empty results.

    `valid(%v)` says that only the first `%v` elements of each line are
    ranked by value: the elements at and past position `%v` rank after
    every element before it, among themselves in index order, whatever
    their values (the result still holds their values). It is the top-k
    of a line whose tail is padding, as a data-dependent prefix is once
    `--sift-staticize` has given it a static bound: the selection reads
    the prefix only. `%v` is an `index` for every line, or a tensor of
    `index` with one per line (the input's shape without the axis); it is
    clamped to [0, size of the axis].

    `limit(%c)` makes `k` a bound: each line gives its top `c` (clamped to
    [0, k]; an `index`, or one per line as for `valid`), as the op with
    `k = c` would, and the results at and past position `c` are padding:
    value zero and index -1, as `sift.compact` pads. It is the top-k of a
    data-dependent count with a static bound, as `randperm(n)[:m]` becomes
    once `--sift-staticize` has bounded `m`: only the `c` results are
    selected and sorted.

    Example:

    ```mlir
    %v, %i = sift.topk %scores k(100)
        : tensor<1000xf32> -> tensor<100xf32>, tensor<100xi64>
    %lv, %li = sift.topk %costs k(5) smallest {dim = 1 : i64}
        : tensor<8x64xf32> -> tensor<8x5xf32>, tensor<8x5xi64>
    // Rows of 64 whose first %n[r] elements are real.
    %pv, %pi = sift.topk %keys k(5) valid(%n : tensor<8xindex>) smallest
        : tensor<8x64xi32> -> tensor<8x5xi32>, tensor<8x5xi64>
    // The first %m (at most 100) of a random permutation of the %n.
    %w, %first = sift.topk %words k(100) valid(%n : index) limit(%m : index)
        smallest unsigned : tensor<1000xi32> -> tensor<100xi32>, tensor<100xi64>
    ```
  }];
  let arguments = (ins Sift_NumericTensor:$input,
                       I64Attr:$k,
                       DefaultValuedAttr<I64Attr, "-1">:$dim,
                       UnitAttr:$smallest,
                       UnitAttr:$unsorted,
                       Optional<AnyTypeOf<[Index, RankedTensorOf<[Index]>]>>:$valid,
                       Optional<AnyTypeOf<[Index, RankedTensorOf<[Index]>]>>:$limit,
                       UnitAttr:$isUnsigned);
  let results = (outs Sift_NumericTensor:$values, Sift_I64Tensor:$indices);
  let assemblyFormat = [{
    $input `k` `(` $k `)` (`valid` `(` $valid^ `:` type($valid) `)`)?
    (`limit` `(` $limit^ `:` type($limit) `)`)?
    (`smallest` $smallest^)? (`unsorted` $unsorted^)? (`unsigned` $isUnsigned^)?
    attr-dict `:` type($input) `->` type($values) `,` type($indices)
  }];
  let hasVerifier = 1;
}

def Sift_GatherOp : Sift_Op<"gather",
    [Sift_ShapeBounds, Pure, InferTypeOpAdaptor]> {
  let summary = "batched take along an axis, with a fill for invalid lanes";
  let description = [{
    Gathers slices of `source` along axis `batch_dims` (as `tf.gather` with
    `axis = batch_dims`): the first `batch_dims` dimensions of `source` and
    `indices` are batch dimensions and must agree; then

    ```
    result[b..., i..., d...] = source[b..., indices[b..., i...], d...]
    ```

    so the result's shape is `indices.shape ++ source.shape[batch_dims+1:]`.
    This covers `x[idx]` (rows of a matrix), `torch.take_along_dim` on the
    last axis and their batched forms. An index outside `[0, n)` (for
    instance the -1 padding of `sift.compact`) marks an invalid lane whose
    result is `fill` (zero by default). Gathering by the identity `iota`
    folds away. A gather of a 1-D `x` at indices selected where `x == c`
    (through slices, in-range gathers and concatenations with other such
    selections, as a sampler's `labels[idx]`) is `c` at each index, or a
    select on the positions between the selections: a canonicalization,
    applied by `--sift-staticize` before its rewrite.

    Example:

    ```mlir
    %rows = sift.gather %feats[%idx]
        : tensor<10000x16xf32>, tensor<1000xi64> -> tensor<1000x16xf32>
    %lab = sift.gather %labels[%idx] {batch_dims = 1 : i64, fill = -1 : i64}
        : tensor<32x10000xi64>, tensor<32x1000xi64> -> tensor<32x1000xi64>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source,
                       Sift_I64Tensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims,
                       OptionalAttr<TypedAttrInterface>:$fill);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` attr-dict `:` type($source) `,` type($indices)
    `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Sift_ScatterOp : Sift_Op<"scatter",
    [Sift_ShapeBounds, Pure, AllTypesMatch<["dest", "result"]>]> {
  let summary = "batched scatter along an axis (the dual of sift.gather)";
  let description = [{
    Writes the slices of `updates` into a copy of `dest` along axis
    `batch_dims`, at the rows `indices` names: the first `batch_dims`
    dimensions of `dest`, `indices` and `updates` are batch dimensions and
    must agree; `updates` has the shape
    `indices.shape ++ dest.shape[batch_dims+1:]`, and for every lane
    `(b..., i...)` of `indices`, in row-major order,

    ```
    j = indices[b..., i...]
    result[b..., j, d...] = combine(result[b..., j, d...], updates[b..., i..., d...])
    ```

    where `combine` is given by `reduce`:

    * `none` (the default) replaces the element: `x[idx] = v`,
      `index_put_`, `scatter_`. When indices repeat, the **last** lane in
      row-major order of `indices` wins.
    * `add` adds (`index_add_`, `scatter_add_`, `np.add.at`, `bincount`,
      segment sums; integers wrap);
    * `max` / `min`: signed integer or float maximum / minimum (`amax`,
      `amin`), a NaN on either side gives NaN as `np.maximum.at` does.

    Elements no index names keep their `dest` value. An index outside
    `[0, n)`, `n = dest.shape[batch_dims]` (for instance the -1 padding of
    `sift.compact`, `sift.topk` of a bounded tensor, or a negative
    "ignore" value), **skips** its lane: padded indices drop out without a
    mask. `add`, `max` and `min` need a non-`i1` element type.

    Example:

    ```mlir
    // counts[labels[k]] += 1 (bincount)
    %h = sift.scatter %ones into %zeros[%labels] reduce(add)
        : tensor<1000xi64>, tensor<1000xi64> into tensor<21xi64>
    // per-row x[r, idx[r, k]] = v[r, k] (scatter_ along the last axis)
    %y = sift.scatter %v into %x[%idx] {batch_dims = 1 : i64}
        : tensor<32x8xf32>, tensor<32x8xi64> into tensor<32x100xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$updates,
                       AnyRankedTensor:$dest,
                       Sift_I64Tensor:$indices,
                       DefaultValuedAttr<Sift_ScatterReduce,
                                         "ScatterReduce::None">:$reduce,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $updates `into` $dest `[` $indices `]` (`reduce` `(` $reduce^ `)`)?
    attr-dict `:` type($updates) `,` type($indices) `into` type($dest)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Sift_RandomUniformOp : Sift_Op<"random_uniform", [Pure]> {
  let summary = "counter-based uniform random floats in [0, 1)";
  let description = [{
    Fills a static tensor with uniform floats in `[0, 1)` from the
    Philox4x32-10 stream of `sift.random_bits`: element `i` (row-major) takes
    the 32-bit word `w = word[i]` of the stream and keeps its top 24 bits:
    `(w >> 8) * 2^-24` for `f32`, rounded toward zero for `f16` and `bf16`
    (keeping subnormals).
    For `f64` it takes `lo = word[2i]` and `hi = word[2i+1]` and returns
    `((hi >> 11) * 2^32 + lo) * 2^-53` (53 bits). 1.0 is never produced. The
    same `seed` and `offset` give bit-identical tensors on every target.

    Per-row streams: `seed` and `offset` may each be a tensor whose shape
    is a prefix `[R...]` of the result shape (both the same shape when both
    are tensors). Row `r` of those leading dimensions is then filled exactly
    as the op with the scalars `seed[r]` and `offset[r]` and the remaining
    dimensions as its shape would fill it; their types are written before
    an arrow:

    ```mlir
    %rows = sift.random_bits %seeds : tensor<32xi64> -> tensor<32x1024xi32>
    ```

    Example:

    ```mlir
    %r = sift.random_uniform %seed : tensor<32x10000xf32>
    %r2 = sift.random_uniform %seed offset %step : tensor<16xf64>
    ```
  }];
  let arguments = (ins Sift_Seed:$seed, Optional<Sift_Seed>:$offset);
  let results = (outs Sift_FloatTensor:$result);
  let assemblyFormat = [{
    $seed (`offset` $offset^)? attr-dict `:`
    custom<RandomTypes>(type($seed), ref($offset), type($offset),
                       type($result))
  }];
  let hasVerifier = 1;
}

def Sift_RandomBitsOp : Sift_Op<"random_bits", [Pure,
    AttrSizedOperandSegments]> {
  let summary = "counter-based random bits (Philox4x32-10)";
  let description = [{
    Fills a static tensor with random bits from Philox4x32-10 with 10 rounds
    (Salmon et al., SC'11). The 64-bit `seed` is the key (low word first).
    Block `j` of the stream is Philox applied to the 128-bit counter
    `(lo(j), hi(j), lo(offset), hi(offset))` and yields four 32-bit words;
    the stream is the concatenation of the blocks. Element `i` (row-major) of
    an `i32` result is word `i`; of an `i64` result, words `2i` (low half)
    and `2i+1` (high half). `offset` (default 0) selects an independent
    stream, for instance per batch row or per training step.

    Per-row streams: `seed` and `offset` may each be a tensor whose shape
    is a prefix `[R...]` of the result shape (both the same shape when both
    are tensors). Row `r` of those leading dimensions is then filled exactly
    as the op with the scalars `seed[r]` and `offset[r]` and the remaining
    dimensions as its shape would fill it; their types are written before
    an arrow:

    ```mlir
    %rows = sift.random_bits %seeds : tensor<32xi64> -> tensor<32x1024xi32>
    ```

    `valid(%v)` says that only the first `%v` elements of each line (along
    the last dimension) are read: they are the words above, and the
    elements at and past `%v` are unspecified (an implementation may leave
    them unwritten). `%v` is an `index` for every line, or a tensor of
    `index` with one per line (the result's shape without its last
    dimension), clamped to [0, size of the line].
    `--sift-propagate-valid` sets it where every reader of the stream is a
    `sift.topk` that ranks a prefix of its lines.

    Example:

    ```mlir
    %bits = sift.random_bits %seed : tensor<1024xi32>
    %keys = sift.random_bits %seeds valid(%n : tensor<32xindex>)
        : tensor<32xi64> -> tensor<32x1024xi32>
    ```
  }];
  let arguments = (ins Sift_Seed:$seed, Optional<Sift_Seed>:$offset,
                       Optional<AnyTypeOf<[Index, RankedTensorOf<[Index]>]>>:$valid);
  let results = (outs RankedTensorOf<[I32, I64]>:$result);
  let assemblyFormat = [{
    $seed (`offset` $offset^)? (`valid` `(` $valid^ `:` type($valid) `)`)?
    attr-dict `:`
    custom<RandomTypes>(type($seed), ref($offset), type($offset),
                       type($result))
  }];
  let builders = [
    // Every word (no `valid`).
    OpBuilder<(ins "Type":$result, "Value":$seed, "Value":$offset), [{
      build($_builder, $_state, result, seed, offset, /*valid=*/Value());
    }]>
  ];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Sampling and loss ops.
//===----------------------------------------------------------------------===//

def Sift_SampleBalancedOp : Sift_Op<"sample_balanced", [Pure,
    InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "balanced positive/negative sampling (Detectron2 semantics)";
  let description = [{
    Detectron2's `subsample_labels` over the last axis of `labels`: a label
    equal to `ignore_label` (default -1) is never sampled, one equal to
    `negative_label` (default 0) is a negative, any other label is a
    positive (labels narrower than i64 are sign-extended to compare).
    `floor(num_samples * positive_fraction)` is computed in f64, as
    Detectron2's `int(...)`. With `P` positives and `Q` negatives in a row,

    ```
    num_pos = min(P, floor(num_samples * positive_fraction))
    num_neg = min(Q, num_samples - num_pos)
    ```

    so negatives fill up when positives are short. The op returns a static
    `[B..., num_samples]` tensor of item indices, the `num_pos` positives
    first then the `num_neg` negatives, each group in random order, the
    remaining lanes -1, and `count = num_pos + num_neg` of shape `[B...]`.

    The choice is reproducible: item `j` of a row is keyed by word `j` of the
    `sift.random_bits` stream (row `r` of a batch uses stream `offset + r`),
    keys compared as unsigned 32-bit integers; each group takes its items
    with the smallest keys, ties by the lower index, in increasing key order.

    `seed` and `offset` may each be a tensor whose shape is a prefix `[P...]`
    of the batch dimensions (both the same shape when both are tensors),
    their types then listed after the labels' type: row `(p, q)` uses key
    `seed[p]` and stream `offset[p] + q`, where `q` numbers the rows of the
    remaining batch dimensions, exactly as the op on `labels[p]` with the
    scalars `seed[p]` and `offset[p]`. A dynamic batch extent of the labels
    is checked against the seeds' at run time (an error of extents that
    disagree).

    Example:

    ```mlir
    %idx, %n = sift.sample_balanced %labels, %seed
        {num_samples = 512 : i64, positive_fraction = 2.500000e-01 : f64}
        : tensor<8x20000xi64> -> tensor<8x512xi64>, tensor<8xi64>
    ```
  }];
  let arguments = (ins Sift_IntTensor:$labels, Sift_Seed:$seed,
                       Optional<Sift_Seed>:$offset,
                       I64Attr:$num_samples,
                       DefaultValuedAttr<F64Attr, "0.5">:$positive_fraction,
                       DefaultValuedAttr<I64Attr, "-1">:$ignore_label,
                       DefaultValuedAttr<I64Attr, "0">:$negative_label);
  let results = (outs Sift_I64Tensor:$indices, Sift_I64Tensor:$count);
  let assemblyFormat = [{
    $labels `,` $seed (`offset` $offset^)? attr-dict `:`
    custom<SeedTypes>(type($labels), type($seed), ref($offset), type($offset))
    `->` type($indices) `,` type($count)
  }];
  let hasVerifier = 1;
}

def Sift_CrossEntropyOp : Sift_Op<"cross_entropy", [Pure, InferTypeOpAdaptor]> {
  let summary = "cross-entropy of logits against class targets";
  let description = [{
    `torch.nn.functional.cross_entropy` with the class dimension last:
    `logits` is `[N..., C]`, `targets` is `[N...]` of class indices. With
    `lse = log(sum_c exp(x_c))`, `label_smoothing = s` and optional class
    weights `w` (`[C]`, all ones when absent), an element with target `t`
    has the loss
    `(1-s) * w[t] * (lse - x_t) + (s/C) * sum_c w[c] * (lse - x_c)`,
    exactly PyTorch's (the smoothing term is added only when `s > 0`, so an
    infinite logit of another class does not turn a plain loss into NaN).
    Targets equal to
    `ignore_index` (default -100) contribute zero and are left out of the
    mean. `reduction` is `none` (a loss per element, shape `[N...]`),
    `sum`, or `mean`: the sum divided by the sum of the weights of the
    non-ignored targets, so a mean over only ignored targets is NaN, as in
    PyTorch. A target outside `[0, C)` that is not `ignore_index` is an
    error at run time. Log-sum-exp is computed stably (max-shifted).
    With `batch_dims = b`, `sum` and `mean` reduce each item of the leading
    `b` dimensions separately (the result has the targets' first `b`
    sizes), each exactly as the op on that item alone; `none` ignores it.

    Example:

    ```mlir
    %loss = sift.cross_entropy %logits, %targets reduction = mean
        : tensor<32x10xf32>, tensor<32xi64> -> tensor<f32>
    %each = sift.cross_entropy %logits, %targets weight(%w : tensor<10xf32>)
        reduction = none {label_smoothing = 1.000000e-01 : f64}
        : tensor<32x10xf32>, tensor<32xi64> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins Sift_FloatTensor:$logits, Sift_IntTensor:$targets,
                       Optional<Sift_FloatTensor>:$weight,
                       Sift_Reduction:$reduction,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index,
                       DefaultValuedAttr<F64Attr, "0.0">:$label_smoothing,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Sift_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $targets (`weight` `(` $weight^ `:` type($weight) `)`)?
    `reduction` `=` $reduction attr-dict `:` type($logits) `,` type($targets)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // SIFT_DIALECT_SIFT_IR_SIFTOPS_TD
