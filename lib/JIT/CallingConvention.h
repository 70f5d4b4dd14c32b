//===- CallingConvention.h - Host values <-> memref descriptors -*- C++ -*-===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The calling convention of the packed wrappers (`_mlir_<name>`) over the
// expanded memref convention of convert-func-to-llvm: each memref argument is
// (allocated ptr, aligned ptr, offset, sizes[rank], strides[rank]) field by
// field, each scalar one field, and the results come back as one LLVM value
// (a descriptor struct, a scalar, or a struct of those, in the natural
// layout) stored through the pointer after the arguments.
//
//===----------------------------------------------------------------------===//

#ifndef SIFT_LIB_JIT_CALLINGCONVENTION_H
#define SIFT_LIB_JIT_CALLINGCONVENTION_H

#include "sift/JIT/Engine.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace mlir {
class ModuleOp;

namespace sift {
namespace jit {

/// The packed wrapper of a compiled function (`_mlir_<name>`): it takes an
/// array of pointers, one per field of the expanded arguments, then one to
/// the storage of the results.
using PackedFunction = void (*)(void **);

/// Frees a buffer that compiled code allocated and returned. A plain function:
/// returned tensors may outlive the Engine and its backend.
using BufferDeallocator = void (*)(void *);

/// Marks the tensor parameters of the functions of `signatures` not writable
/// (`bufferization.writable = false`): inputs are host memory the caller
/// still owns, so compiled code must copy before writing, never write in
/// place. Runs on the source module, before lowering.
void markInputsReadOnly(mlir::ModuleOp module,
                        llvm::ArrayRef<FunctionSignature> signatures);

/// One call of a function with signature `sig`: the fields of its arguments,
/// the contiguous copies they point to, and the storage of its results.
/// Neither copied nor moved: the packed array points into it.
class PackedCall {
public:
  explicit PackedCall(const FunctionSignature &sig) : sig(sig) {}
  PackedCall(const PackedCall &) = delete;
  PackedCall &operator=(const PackedCall &) = delete;

  /// Checks `args` against the signature (checkArgument) and lays them out.
  /// A strided tensor, or booleans other than 0 and 1, is passed as a
  /// contiguous copy; host memory is never written. Errors name the function.
  llvm::Error pack(llvm::ArrayRef<Argument> args);

  /// The array the packed wrapper takes (after pack).
  void **arguments() { return pointers.data(); }

  /// Reads the results the call stored. Returned buffers become owned by the
  /// tensors (freed with `deallocate`, once each where results share one),
  /// on every path; strided results come back as contiguous copies. Scalars
  /// come back as rank-0 tensors. Errors name the function.
  llvm::Expected<std::vector<Tensor>>
  unpackResults(BufferDeallocator deallocate);

private:
  llvm::Error fail(const llvm::Twine &message) const;
  void push(uint64_t value);
  llvm::Error packTensor(const TensorView &view, const ValueType &want,
                         llvm::StringRef where);
  void layoutResults();

  const FunctionSignature &sig;
  /// One 8-byte slot per field of the expanded arguments.
  std::vector<uint64_t> slots;
  size_t used = 0;
  /// Contiguous copies of strided (or odd boolean) inputs.
  std::vector<Tensor> copies;
  /// The returned value, 8-byte aligned, and where each result lies in it.
  std::vector<uint64_t> resultStorage;
  llvm::SmallVector<size_t> resultOffsets;
  /// Pointers to each slot, then to the result storage (if any).
  llvm::SmallVector<void *> pointers;
};

} // namespace jit
} // namespace sift
} // namespace mlir

#endif // SIFT_LIB_JIT_CALLINGCONVENTION_H
