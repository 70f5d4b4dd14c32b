//===- GpuHostScalars.cpp - --sift-gpu-host-scalars -----------------------===//
//
// Part of the sift project: static masked rewrites of data-dependent tensors.
//
// The scalar host code between kernels moves onto the device: a host store
// into a device buffer becomes a one-thread kernel, and a host load of a
// device buffer, with the scalar arithmetic on it, is recomputed inside the
// kernels that use the result. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "GpuHostCode.h"

#include "sift/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir {
namespace sift {
#define GEN_PASS_DEF_SIFTGPUHOSTSCALARS
#include "sift/Transforms/Passes.h.inc"
} // namespace sift
} // namespace mlir

using namespace mlir;
using namespace mlir::sift;

/// Whether `loop` launches kernels (a program's own loop over kernels).
static bool launchesKernels(Operation *loop) {
  return loop->walk([](gpu::LaunchOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// Whether `op` is nested in a loop of host code that launches no kernel.
/// Such a loop's accesses are the verifier's finding: the loop as a whole
/// must become a kernel, not one launch per iteration. In a loop over
/// kernels, the scalar code between them moves like any other.
static bool inHostLoop(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isa<scf::ForOp, scf::WhileOp, scf::ParallelOp, scf::ForallOp,
            affine::AffineForOp, affine::AffineParallelOp>(parent) &&
        !launchesKernels(parent))
      return true;
  return false;
}

/// Whether `value` is, through pure scalar ops in `region`, computed from a
/// host load of a device buffer or from one of `carried` (iteration
/// arguments already kept on the device).
static bool dependsOnDevice(Value value, Region &region,
                            const DenseSet<Value> &carried) {
  SmallVector<Value> work{value};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (carried.contains(v))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || !region.isAncestor(def->getParentRegion()))
      continue;
    if (auto load = dyn_cast<memref::LoadOp>(def)) {
      if (rootBuffer(load.getMemRef()).getDefiningOp<gpu::AllocOp>())
        return true;
      continue;
    }
    if (def->getNumRegions() == 0 && isPure(def))
      work.append(def->operand_begin(), def->operand_end());
  }
  return false;
}

/// The scalars a host loop over kernels carries from one iteration to the
/// next that it computes from device memory (a selection's count, the size
/// of what an iterative filter keeps) live in a one-element device buffer
/// instead (allocated at the function's entry): stored before the loop,
/// loaded at the top of each iteration, the next value stored at its end,
/// loaded after the loop, freed at the function's end. The loads and stores are
/// then the host scalar code below moves into kernels, so that the host never
/// waits for the value.
static void carriedScalarsToCells(func::FuncOp fn) {
  SmallVector<scf::ForOp> loops;
  fn.walk([&](scf::ForOp loop) {
    if (isHostCode(loop) && launchesKernels(loop))
      loops.push_back(loop);
  });
  SmallVector<Value> cells;
  for (scf::ForOp loop : loops) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    // The arguments to carry on the device, to a fixed point: an argument
    // whose next value depends on one of them is carried too.
    DenseSet<Value> carried;
    for (bool changed = true; changed;) {
      changed = false;
      for (BlockArgument arg : loop.getRegionIterArgs()) {
        if (carried.contains(arg) || !arg.getType().isIntOrIndexOrFloat())
          continue;
        Value next = yield.getOperand(arg.getArgNumber() - 1);
        if (dependsOnDevice(next, loop.getRegion(), carried)) {
          carried.insert(arg);
          changed = true;
        }
      }
    }
    for (BlockArgument arg : loop.getRegionIterArgs()) {
      if (!carried.contains(arg))
        continue;
      unsigned index = arg.getArgNumber() - 1;
      Location loc = loop.getLoc();
      // One cell a call, at the function's entry: a loop nested in another
      // loop reuses it at every outer iteration.
      OpBuilder entry = OpBuilder::atBlockBegin(&fn.getBody().front());
      Value cell =
          gpu::AllocOp::create(entry, loc, MemRefType::get({1}, arg.getType()),
                               Type(), ValueRange(), ValueRange(), ValueRange(),
                               /*hostShared=*/false)
              .getMemref();
      cells.push_back(cell);
      OpBuilder b(loop);
      Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
      memref::StoreOp::create(b, loc, loop.getInitArgs()[index], cell,
                              ValueRange{c0});
      b.setInsertionPointToStart(loop.getBody());
      Value current = memref::LoadOp::create(b, loc, cell, ValueRange{c0});
      arg.replaceAllUsesWith(current);
      b.setInsertionPoint(yield);
      memref::StoreOp::create(b, loc, yield.getOperand(index), cell,
                              ValueRange{c0});
      // The argument now only passes its initial value on.
      yield->setOperand(index, arg);
      b.setInsertionPointAfter(loop);
      Value last = memref::LoadOp::create(b, loc, cell, ValueRange{c0});
      loop.getResult(index).replaceAllUsesWith(last);
    }
  }
  if (cells.empty())
    return;
  fn.walk([&](func::ReturnOp ret) {
    OpBuilder b(ret);
    for (Value cell : cells)
      gpu::DeallocOp::create(b, ret.getLoc(), TypeRange(), ValueRange(), cell);
  });
}

/// Whether `op` or an op nested in it may write or free `buffer` (or a
/// view of it). Ops whose effects are not known may.
static bool mayWrite(Operation *op, Value buffer) {
  Accesses accesses = collectAccesses(op);
  return accesses.unknown || llvm::any_of(accesses.writes, [&](Value write) {
           return mayAlias(write, buffer);
         });
}

/// Host stores into device buffers become kernels of one thread: a run of
/// adjacent stores is one launch. Stores in host loops stay (the loop is
/// the finding), as do stores into host buffers.
static void storesToKernels(func::FuncOp fn) {
  SmallVector<SmallVector<memref::StoreOp>> runs;
  fn.walk([&](memref::StoreOp store) {
    if (!isHostCode(store) || inHostLoop(store) ||
        !rootBuffer(store.getMemRef()).getDefiningOp<gpu::AllocOp>())
      return;
    Operation *prev = store->getPrevNode();
    if (!runs.empty() && prev && prev == runs.back().back())
      runs.back().push_back(store);
    else
      runs.push_back({store});
  });
  for (MutableArrayRef<memref::StoreOp> run : runs) {
    OpBuilder b(run.front());
    Location loc = run.front().getLoc();
    Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
    auto launch = gpu::LaunchOp::create(b, loc, c1, c1, c1, c1, c1, c1);
    // Its one thread only stores: what is recomputed at its start reads
    // memory before any of its stores (ScalarSinker).
    launch->setAttr("sift.store_kernel", b.getUnitAttr());
    Block &body = launch.getBody().front();
    b.setInsertionPointToStart(&body);
    auto terminator = gpu::TerminatorOp::create(b, loc);
    for (memref::StoreOp store : run)
      store->moveBefore(terminator);
  }
}

/// The host loads of device buffers left (a dynamic result's size, a branch
/// condition, a launch or allocation size, a scalar result) read the scalar
/// with one device-to-host copy into a host buffer marked `sift.host_read`
/// (which --sift-verify-gpu accepts): a synchronization, as a dynamic
/// shape needs, rather than a host access to device memory. A buffer of one
/// element with the identity layout is copied whole; any other element is
/// first copied into a one-element device buffer by a one-thread kernel
/// (the copy's lowering needs the identity layout). Loads in host loops
/// stay (the loop is the verifier's finding).
static void loadsToHostReads(func::FuncOp fn) {
  SmallVector<memref::LoadOp> loads;
  fn.walk([&](memref::LoadOp load) {
    if (isHostCode(load) && !inHostLoop(load) &&
        rootBuffer(load.getMemRef()).getDefiningOp<gpu::AllocOp>())
      loads.push_back(load);
  });
  for (memref::LoadOp load : loads) {
    OpBuilder b(load);
    Location loc = load.getLoc();
    auto type = cast<MemRefType>(load.getMemRef().getType());
    Type element = type.getElementType();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value source = load.getMemRef();
    auto hostType = MemRefType::get(type.getShape(), element);
    if (type.getNumElements() != 1 || !type.getLayout().isIdentity() ||
        !type.hasStaticShape()) {
      // The element, into a device buffer of one.
      hostType = MemRefType::get({1}, element);
      Value one = gpu::AllocOp::create(b, loc, hostType, Type(), ValueRange(),
                                       ValueRange(), ValueRange(),
                                       /*hostShared=*/false)
                      .getMemref();
      Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
      auto launch = gpu::LaunchOp::create(b, loc, c1, c1, c1, c1, c1, c1);
      OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
      Value value =
          memref::LoadOp::create(kb, loc, load.getMemRef(), load.getIndices());
      memref::StoreOp::create(kb, loc, value, one, ValueRange{zero});
      gpu::TerminatorOp::create(kb, loc);
      source = one;
    }
    // At the function's entry: an alloca in a loop would grow the stack at
    // every iteration.
    OpBuilder entry = OpBuilder::atBlockBegin(&fn.getBody().front());
    auto host = memref::AllocaOp::create(entry, loc, hostType);
    host->setAttr("sift.host_read", b.getUnitAttr());
    gpu::MemcpyOp::create(b, loc, TypeRange(), ValueRange(), host, source);
    if (source != load.getMemRef())
      gpu::DeallocOp::create(b, loc, TypeRange(), ValueRange(), source);
    SmallVector<Value> zeros(hostType.getRank(), zero);
    Value value = memref::LoadOp::create(b, loc, host, zeros);
    load.replaceAllUsesWith(value);
    load.erase();
  }
}

/// Host loads from constant globals at constant indices (a reduction's
/// initial value, bufferized from a constant tensor) become the constants
/// they read: the host keeps no copy of a constant it would have to read.
static void foldConstantLoads(func::FuncOp fn, SymbolTableCollection &symbols) {
  SmallVector<memref::LoadOp> loads;
  fn.walk([&](memref::LoadOp load) {
    if (isHostCode(load) &&
        load.getMemRef().getDefiningOp<memref::GetGlobalOp>())
      loads.push_back(load);
  });
  for (memref::LoadOp load : loads) {
    auto get = load.getMemRef().getDefiningOp<memref::GetGlobalOp>();
    auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
        get, get.getNameAttr());
    if (!global || !global.getConstant())
      continue;
    auto init =
        dyn_cast_if_present<DenseElementsAttr>(global.getInitialValueAttr());
    if (!init)
      continue;
    SmallVector<uint64_t> at;
    for (Value index : load.getIndices()) {
      std::optional<int64_t> c = getConstantIntValue(index);
      if (!c || *c < 0)
        break;
      at.push_back(static_cast<uint64_t>(*c));
    }
    if (at.size() != load.getIndices().size())
      continue;
    // The row-major position of `at`, within the global's shape.
    ArrayRef<int64_t> shape = init.getType().getShape();
    uint64_t flat = 0;
    bool inBounds = true;
    for (auto [i, size] : llvm::zip(at, shape)) {
      inBounds &= i < static_cast<uint64_t>(size);
      flat = flat * size + i;
    }
    if (!inBounds)
      continue;
    OpBuilder b(load);
    Attribute value = init.isSplat() ? init.getSplatValue<Attribute>()
                                     : init.getValues<Attribute>()[flat];
    auto typed = dyn_cast<TypedAttr>(value);
    if (!typed)
      continue;
    load.replaceAllUsesWith(
        arith::ConstantOp::create(b, load.getLoc(), typed).getResult());
    load.erase();
    if (get->use_empty())
      get.erase();
  }
}

namespace {
/// Recomputes, inside a kernel, the host scalars it uses that are read from
/// device memory.
class ScalarSinker {
public:
  explicit ScalarSinker(gpu::LaunchOp launch) : launch(launch) {}

  void run() {
    llvm::SetVector<Value> used;
    getUsedValuesDefinedAbove(launch.getBody(), used);
    Block &body = launch.getBody().front();
    OpBuilder b(&body, body.begin());
    for (Value value : used) {
      if (!isSinkable(value))
        continue;
      clone(b, value);
      value.replaceUsesWithIf(mapping.lookup(value), [&](OpOperand &use) {
        return launch->isProperAncestor(use.getOwner());
      });
    }
  }

  /// The host ops this launch now recomputes.
  ArrayRef<Operation *> getSunk() const { return sunk; }

private:
  /// A host load of a device buffer that nothing writes between the load
  /// and the launch (the launch included), or a pure scalar op of such
  /// loads.
  bool isSinkable(Value value) {
    auto it = memo.find(value);
    if (it != memo.end())
      return it->second;
    bool result = computeSinkable(value);
    memo[value] = result;
    return result;
  }

  bool computeSinkable(Value value) {
    Operation *def = value.getDefiningOp();
    if (!def || !isHostCode(def) || !value.getType().isIntOrIndexOrFloat())
      return false;
    if (auto load = dyn_cast<memref::LoadOp>(def)) {
      Value buffer = load.getMemRef();
      if (!rootBuffer(buffer).getDefiningOp<gpu::AllocOp>())
        return false;
      // The launch, or the op around it in the load's block, is after the
      // load: nothing from the load to it may write the buffer.
      Operation *until = load->getBlock()->findAncestorOpInBlock(*launch);
      if (!until || until->isBeforeInBlock(load))
        return false;
      for (Operation *op = load->getNextNode();; op = op->getNextNode()) {
        // A store kernel reads what it recomputes before it stores.
        if (op == until && op == launch.getOperation() &&
            launch->hasAttr("sift.store_kernel"))
          break;
        if (mayWrite(op, buffer))
          return false;
        if (op == until)
          break;
      }
      return true;
    }
    if (def->getNumRegions() != 0 || !isPure(def) ||
        !llvm::all_of(def->getResultTypes(),
                      [](Type t) { return t.isIntOrIndexOrFloat(); }))
      return false;
    bool any = false;
    for (Value operand : def->getOperands())
      any |= isSinkable(operand);
    return any;
  }

  void clone(OpBuilder &b, Value value) {
    if (mapping.contains(value))
      return;
    Operation *def = value.getDefiningOp();
    for (Value operand : def->getOperands())
      if (isSinkable(operand))
        clone(b, operand);
    b.clone(*def, mapping);
    sunk.push_back(def);
  }

  gpu::LaunchOp launch;
  DenseMap<Value, bool> memo;
  IRMapping mapping;
  SmallVector<Operation *> sunk;
};

struct GpuHostScalarsPass
    : public sift::impl::SiftGpuHostScalarsBase<GpuHostScalarsPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      carriedScalarsToCells(fn);
      foldConstantLoads(fn, symbols);
      storesToKernels(fn);
      SmallVector<gpu::LaunchOp> launches;
      fn.walk([&](gpu::LaunchOp launch) {
        if (isHostCode(launch))
          launches.push_back(launch);
      });
      llvm::SetVector<Operation *> sunkSet;
      for (gpu::LaunchOp launch : launches) {
        ScalarSinker sinker(launch);
        sinker.run();
        sunkSet.insert_range(sinker.getSunk());
      }
      SmallVector<Operation *> sunk(sunkSet.begin(), sunkSet.end());
      // The host ops no host code uses any more go (users before
      // producers).
      bool changed = true;
      while (changed) {
        changed = false;
        for (Operation *&op : sunk) {
          if (op && op->use_empty()) {
            op->erase();
            op = nullptr;
            changed = true;
          }
        }
      }
      loadsToHostReads(fn);
    }
  }
};
} // namespace
