//===- GPUGeneric.cpp - GPU kernels through linalg ------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Ops without a dedicated generator (gather, scatter_add, convolution,
// pooling, cumsum, argmax, layout copies, ...) go through
// --convert-kiln-to-linalg, one-shot bufferization with the outputs as
// out-parameters and convert-linalg-to-parallel-loops. The bufferized
// function is then mapped onto the GPU statement by statement:
//
//  - each top-level `scf.parallel` becomes one launch whose threads walk
//    its iteration space, linearized, in a grid-stride loop (parallel loops
//    nested inside run sequentially in each thread);
//  - consecutive other statements (the scan of cumsum, the read-modify-write
//    loop of scatter_add, copies of scalars) run in a launch of one thread,
//    so that their order is kept;
//  - temporaries become slices of the kernel's workspace (per-thread ones,
//    inside parallel loops, live on the thread's stack), and side-effect
//    free statements (constants, views, index arithmetic) are recomputed in
//    every launch that reads them.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelGen.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/IRMapping.h"
#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::kernelgen;
using namespace mlir::kiln::gpugen;

/// The lowering of one generic kernel, run on a module nested in the one
/// being generated. Results that are fresh static buffers are written in
/// place of the out-parameter rather than copied into it.
static void buildGenericGPUPipeline(OpPassManager &pm) {
  pm.addPass(createConvertKilnToLinalg());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions out;
  out.hoistStaticAllocs = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(out));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createCanonicalizerPass());
}

namespace {

/// Rewrites memref.copy as a parallel loop of loads and stores: copies of
/// strided views would otherwise call a host runtime function.
LogicalResult expandCopies(func::FuncOp fn) {
  SmallVector<memref::CopyOp> copies;
  fn.walk([&](memref::CopyOp c) { copies.push_back(c); });
  for (memref::CopyOp copy : copies) {
    auto type = llvm::cast<MemRefType>(copy.getSource().getType());
    if (!type.hasStaticShape())
      return failure();
    OpBuilder b(copy);
    Location loc = copy.getLoc();
    if (type.getRank() == 0) {
      Value v = memref::LoadOp::create(b, loc, copy.getSource(), ValueRange{});
      memref::StoreOp::create(b, loc, v, copy.getTarget(), ValueRange{});
      copy.erase();
      continue;
    }
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t d : type.getShape()) {
      lbs.push_back(cidx(b, loc, 0));
      ubs.push_back(cidx(b, loc, d));
      steps.push_back(cidx(b, loc, 1));
    }
    Value src = copy.getSource(), dst = copy.getTarget();
    scf::ParallelOp::create(
        b, loc, lbs, ubs, steps,
        [&](OpBuilder &nb, Location nloc, ValueRange ivs) {
          Value v = memref::LoadOp::create(nb, nloc, src, ivs);
          memref::StoreOp::create(nb, nloc, v, dst, ivs);
        });
    copy.erase();
  }
  return success();
}

bool insideParallel(Operation *op) {
  return op->getParentOfType<scf::ParallelOp>() != nullptr;
}

/// Statements that may be recomputed in every launch that needs them.
bool isRematerializable(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

/// Builds the launches of one bufferized function.
class Mapper {
public:
  Mapper(func::FuncOp impl, HostFunction &host,
         llvm::DenseMap<Operation *, int64_t> &workspaceOffsets)
      : impl(impl), host(host), workspaceOffsets(workspaceOffsets),
        b(impl.getContext()) {}

  LogicalResult run() {
    SmallVector<Operation *> serial;
    auto flush = [&]() -> LogicalResult {
      if (serial.empty())
        return success();
      LogicalResult ok = emitSerial(serial);
      serial.clear();
      return ok;
    };
    for (Operation &op : impl.getBody().front().without_terminator()) {
      if (isRematerializable(&op) || llvm::isa<memref::AllocOp>(op) ||
          llvm::isa<memref::AllocaOp>(op))
        continue; // materialized where used
      auto par = llvm::dyn_cast<scf::ParallelOp>(op);
      if (par && par.getNumResults() == 0) {
        if (failed(flush()) || failed(emitParallel(par)))
          return failure();
        continue;
      }
      serial.push_back(&op);
    }
    return flush();
  }

private:
  /// One thread runs `ops` in order.
  LogicalResult emitSerial(ArrayRef<Operation *> ops) {
    for (Operation *op : ops)
      if (failed(checkStaysInLaunch(op, ops)))
        return failure();
    beginLaunch({1, 1, 1}, {1, 1, 1});
    for (Operation *op : ops)
      if (failed(cloneInto(op)))
        return failure();
    return success();
  }

  /// The threads walk the loop's iteration space.
  LogicalResult emitParallel(scf::ParallelOp par) {
    SmallVector<int64_t> lbs, steps, trips;
    for (auto [lb, ub, step] : llvm::zip(par.getLowerBound(),
                                         par.getUpperBound(), par.getStep())) {
      std::optional<int64_t> l = getConstantIntValue(lb),
                             u = getConstantIntValue(ub),
                             s = getConstantIntValue(step);
      if (!l || !u || !s || *s <= 0)
        return par.emitError("a parallel loop with non-constant bounds");
      lbs.push_back(*l);
      steps.push_back(*s);
      trips.push_back(std::max<int64_t>(0, (*u - *l + *s - 1) / *s));
    }
    int64_t total = numElements(trips);
    if (total == 0)
      return success();
    gpu::LaunchOp launch = beginLaunch(
        {blocksFor(total, kBlockSize), 1, 1}, {kBlockSize, 1, 1});
    Location loc = par.getLoc();
    scf::ForOp loop = gridStrideLoop(b, loc, launch, total);
    Value rem = loop.getInductionVar();
    SmallVector<Value> ivs(trips.size());
    for (size_t d = trips.size(); d-- > 0;) {
      Value digit = rem;
      if (d > 0) {
        digit = arith::RemUIOp::create(b, loc, rem, cidx(b, loc, trips[d]));
        rem = arith::DivUIOp::create(b, loc, rem, cidx(b, loc, trips[d]));
      }
      Value iv = digit;
      if (steps[d] != 1)
        iv = arith::MulIOp::create(b, loc, iv, cidx(b, loc, steps[d]));
      if (lbs[d] != 0)
        iv = arith::AddIOp::create(b, loc, iv, cidx(b, loc, lbs[d]));
      ivs[d] = iv;
    }
    for (auto [from, to] : llvm::zip(par.getInductionVars(), ivs))
      map.map(from, to);
    for (Operation &op : par.getBody()->without_terminator())
      if (failed(cloneInto(&op)))
        return failure();
    return success();
  }

  gpu::LaunchOp beginLaunch(std::array<int64_t, 3> grid,
                            std::array<int64_t, 3> block) {
    map.clear();
    return createLaunch(b, host, grid, block);
  }

  /// Values of `op` (a statement of `launch`) may only be read in that
  /// launch. Readers that are recomputed where they are used (the scalar
  /// arithmetic between the loads and stores of a one-element reduction,
  /// whose size-1 loops canonicalization removed) count by their readers.
  LogicalResult checkStaysInLaunch(Operation *op,
                                   ArrayRef<Operation *> launch) {
    SmallVector<Operation *> work{op};
    llvm::SmallPtrSet<Operation *, 8> seen;
    while (!work.empty()) {
      Operation *def = work.pop_back_val();
      for (Operation *user : def->getUsers()) {
        Operation *top = topLevelAncestor(user);
        if (llvm::is_contained(launch, top) || !seen.insert(top).second)
          continue;
        if (!isRematerializable(top))
          return op->emitError("a value crosses kernel launches");
        work.push_back(top);
      }
    }
    return success();
  }

  Operation *topLevelAncestor(Operation *op) {
    while (op->getParentOp() != impl)
      op = op->getParentOp();
    return op;
  }

  /// Clones `op` after giving every value it reads from outside a
  /// counterpart in the current launch.
  LogicalResult cloneInto(Operation *op) {
    SmallVector<Value> outside;
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (!op->isAncestor(v.getParentRegion()->getParentOp()))
          outside.push_back(v);
    });
    for (Value v : outside)
      if (failed(materialize(v)))
        return failure();
    b.clone(*op, map);
    return success();
  }

  /// The counterpart of `v` in the current launch.
  LogicalResult materialize(Value v) {
    if (map.contains(v))
      return success();
    if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner()->getParentOp() != impl)
        return success(); // defined inside what is being cloned
      return mapArgument(arg);
    }
    Operation *def = v.getDefiningOp();
    if (def->getParentOp() != impl)
      return success(); // defined inside what is being cloned
    if (llvm::isa<memref::AllocOp, memref::AllocaOp>(def))
      return mapTemporary(def);
    if (!isRematerializable(def))
      return def->emitError("a value crosses kernel launches");
    for (Value o : def->getOperands())
      if (failed(materialize(o)))
        return failure();
    b.clone(*def, map);
    return success();
  }

  /// An argument of the bufferized function is a flat host argument seen
  /// with its shape.
  LogicalResult mapArgument(BlockArgument arg) {
    auto type = llvm::cast<MemRefType>(arg.getType());
    unsigned i = arg.getArgNumber();
    unsigned numInputs = host.inputs.size();
    Value flat = i < numInputs ? host.inputs[i] : host.outputs[i - numInputs];
    map.map(arg, reshapeFlat(flat, type, arg.getLoc()));
    return success();
  }

  LogicalResult mapTemporary(Operation *alloc) {
    auto type = llvm::cast<MemRefType>(alloc->getResult(0).getType());
    Location loc = alloc->getLoc();
    Value at = cidx(b, loc, workspaceOffsets.at(alloc));
    auto view = memref::ViewOp::create(b, loc, type, host.workspace, at,
                                       ValueRange{});
    map.map(alloc->getResult(0), view);
    return success();
  }

  Value reshapeFlat(Value flat, MemRefType type, Location loc) {
    SmallVector<int64_t> strides(type.getRank(), 1);
    for (int64_t d = type.getRank() - 1; d > 0; --d)
      strides[d - 1] = strides[d] * type.getDimSize(d);
    return memref::ReinterpretCastOp::create(b, loc, type, flat, /*offset=*/0,
                                             type.getShape(), strides);
  }

  func::FuncOp impl;
  HostFunction &host;
  llvm::DenseMap<Operation *, int64_t> &workspaceOffsets;
  OpBuilder b;
  IRMapping map;
};

/// Moves each launch's stack buffers to the launch's entry, so that a
/// buffer inside a loop is not allocated again on every iteration (one per
/// thread is what it means). A buffer that a loop carries is left alone.
void hoistAllocas(func::FuncOp fn) {
  fn.walk([&](gpu::LaunchOp launch) {
    Block &entry = launch.getBody().front();
    SmallVector<memref::AllocaOp> allocas;
    launch.walk([&](memref::AllocaOp a) {
      if (a->getBlock() != &entry &&
          llvm::none_of(a->getUsers(), [](Operation *u) {
            return llvm::isa<scf::YieldOp>(u);
          }))
        allocas.push_back(a);
    });
    for (memref::AllocaOp a : allocas)
      a->moveBefore(&entry, entry.begin());
  });
}

} // namespace

LogicalResult gpugen::generateGeneric(
    func::FuncOp tmpl,
    function_ref<LogicalResult(OpPassManager &, Operation *)> runPipeline) {
  OpBuilder b(tmpl.getContext());
  Location loc = tmpl.getLoc();
  ModuleOp module = tmpl->getParentOfType<ModuleOp>();

  // Lower a copy in a nested module.
  b.setInsertionPointToEnd(module.getBody());
  auto nested = ModuleOp::create(b, loc);
  b.setInsertionPointToEnd(nested.getBody());
  auto impl = llvm::cast<func::FuncOp>(b.clone(*tmpl));
  impl->removeAttr(kKernelKindAttr);
  impl.setPrivate();
  std::string implName = (tmpl.getName() + "__impl").str();
  impl.setName(implName);
  auto fail = [&](const Twine &why) {
    nested.erase();
    return tmpl.emitError() << "the generic GPU lowering of @"
                            << tmpl.getName() << " failed: " << why;
  };
  OpPassManager pm(ModuleOp::getOperationName());
  buildGenericGPUPipeline(pm);
  if (failed(runPipeline(pm, nested)))
    return fail("linalg pipeline");
  impl = nested.lookupSymbol<func::FuncOp>(implName);
  if (failed(expandCopies(impl)))
    return fail("a copy of a dynamic buffer");

  // The bufferized signature must be the flat ABI seen with shapes.
  FunctionType implType = impl.getFunctionType();
  if (implType.getNumResults() != 0)
    return fail("results left after buffer-results-to-out-params");
  for (Type t : implType.getInputs()) {
    auto m = llvm::dyn_cast<MemRefType>(t);
    if (!m || !m.hasStaticShape() || !m.getLayout().isIdentity())
      return fail("an argument that is not a static row-major buffer");
  }

  // Temporaries: workspace slices, or thread-private stack inside parallel
  // loops.
  llvm::DenseMap<Operation *, int64_t> offsets;
  int64_t workspace = 0;
  SmallVector<Operation *> deallocs;
  WalkResult walk = impl.walk([&](Operation *op) {
    if (llvm::isa<memref::DeallocOp>(op)) {
      deallocs.push_back(op);
      return WalkResult::advance();
    }
    if (!llvm::isa<memref::AllocOp, memref::AllocaOp>(op))
      return WalkResult::advance();
    auto type = llvm::cast<MemRefType>(op->getResult(0).getType());
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return WalkResult::interrupt();
    if (insideParallel(op) || op->getParentOp() != impl) {
      if (llvm::isa<memref::AllocOp>(op)) {
        OpBuilder ab(op);
        op->getResult(0).replaceAllUsesWith(
            memref::AllocaOp::create(ab, op->getLoc(), type));
        op->erase();
      }
      return WalkResult::advance();
    }
    int64_t bytes = numElements(type.getShape()) *
                    std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    offsets[op] = workspace;
    workspace += (bytes + 255) / 256 * 256;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return fail("a temporary of dynamic size");
  for (Operation *d : deallocs)
    d->erase();

  HostFunction host = createHostFunction(b, tmpl, workspace);
  if (host.inputs.size() + host.outputs.size() != implType.getNumInputs()) {
    host.fn.erase();
    return fail("unexpected signature");
  }
  Mapper mapper(impl, host, offsets);
  if (failed(mapper.run())) {
    host.fn.erase();
    return fail("mapping to launches");
  }
  // Loops nested in a launched loop run sequentially in each thread.
  OpPassManager fpm(func::FuncOp::getOperationName());
  fpm.addPass(createParallelForToNestedForsPass());
  if (failed(runPipeline(fpm, host.fn))) {
    host.fn.erase();
    return fail("nested parallel loops");
  }

  hoistAllocas(host.fn);

  // Bufferized constants became globals next to impl: move them along,
  // renamed after the kernel so that kernels never share a name.
  SmallVector<Operation *> globals;
  for (Operation &op : nested.getBody()->getOperations())
    if (&op != impl.getOperation())
      globals.push_back(&op);
  for (Operation *g : globals) {
    if (auto sym =
            g->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName())) {
      std::string unique = (tmpl.getName() + "__" + sym.getValue()).str();
      if (failed(SymbolTable::replaceAllSymbolUses(g, b.getStringAttr(unique),
                                                   host.fn)))
        return fail("cannot rename " + sym.getValue());
      SymbolTable::setSymbolName(g, unique);
    }
    g->remove();
    b.setInsertionPoint(host.fn);
    b.insert(g);
  }
  nested.erase();
  return success();
}
