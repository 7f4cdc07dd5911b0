//===- GPUReduction.cpp - GPU code for reduction kernels ------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Row kernels (reductions over trailing axes: sums, softmax, layer_norm)
// give each block one row at a time. The template's ops run in order, as in
// the CPU generator: a reduction is a strided loop over the row in every
// thread (evaluating the elementwise producers it reads), then a block
// reduction; per-row ops run in every thread on the reduced values; a last
// strided loop writes the full-shape result. A row is read once per
// reduction and written once.
//
// A few very long rows (a full reduction) would leave most of the GPU idle
// with one block per row. When the kernel has a single reduction, such rows
// are split over several blocks that write partial results to the
// workspace, and a second launch combines them and finishes the row.
//
// Column kernels (reductions over leading or middle axes) give each block 32
// consecutive outputs, read coalesced; the reduced dim is split over 8
// thread rows whose partials are combined in shared memory.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelGen.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::kernelgen;
using namespace mlir::kiln::gpugen;

namespace {

ArrayRef<int64_t> shapeOf(Value v) {
  return llvm::cast<RankedTensorType>(v.getType()).getShape();
}

Value cmpIdx(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x,
             Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}

/// Threads per row: the row rounded up to whole warps, at most 256.
int64_t rowBlockSize(int64_t len) {
  return std::clamp<int64_t>((len + 31) / 32 * 32, 32, kBlockSize);
}

/// Everything the row generator knows about a template.
struct RowKernel {
  func::FuncOp tmpl;
  Value root;
  SmallVector<int64_t> full, outerExt;
  int64_t rows = 1, len = 1;
  SmallVector<SmallVector<int64_t>> outerStrides;
  SmallVector<bool> innerFull;
  SmallVector<Operation *> reductions;

  bool isRowValue(Value v) const {
    return shapeOf(v) != ArrayRef<int64_t>(full) &&
           numElements(shapeOf(v)) == rows;
  }
};

/// Emits one row's work inside a launch. `reduce(op, j-loop builder)`
/// produces the reduced value of each reduction (in storage type); the
/// per-row ops and the root follow as in the template.
class RowEmitter {
public:
  RowEmitter(OpBuilder &b, Location loc, const RowKernel &k,
             const HostFunction &host, Value row)
      : b(b), loc(loc), k(k), host(host),
        rowEval(b, loc, [this](BlockArgument a) { return loadRowScalar(a); }) {
    offsets = offsetsFromLinear(b, loc, row, k.outerExt, k.outerStrides);
  }

  /// The element of a full operand at position `j` of the row, or its
  /// per-row scalar.
  Value loadAt(BlockArgument a, Value j) {
    unsigned i = a.getArgNumber();
    if (!k.innerFull[i])
      return loadRowScalar(a);
    Value at = arith::AddIOp::create(b, loc, offsets[i], j);
    return memref::LoadOp::create(b, loc, host.inputs[host.slotOf[i]], at);
  }

  /// An evaluator of full-shape values at position `j`.
  Evaluator at(Value j) {
    Evaluator ev(b, loc, [this, j](BlockArgument a) { return loadAt(a, j); });
    for (auto [key, v] : rowValues)
      ev.bind(key, v);
    return ev;
  }

  /// Runs the template's ops; reductions through `reduce`.
  LogicalResult
  run(function_ref<FailureOr<Value>(Operation *)> reduce) {
    func::FuncOp tmpl = k.tmpl;
    for (Operation &op : tmpl.getBody().front().without_terminator()) {
      if (isFusibleReduction(&op)) {
        FailureOr<Value> v = reduce(&op);
        if (failed(v))
          return failure();
        rowValues[op.getResult(0)] = *v;
        rowEval.bind(op.getResult(0), *v);
        continue;
      }
      if (llvm::isa<ConstantOp>(op) || !k.isRowValue(op.getResult(0)))
        continue; // constants are splats; full values are evaluated lazily
      FailureOr<Value> v = rowEval.eval(op.getResult(0));
      if (failed(v))
        return failure();
      rowValues[op.getResult(0)] = *v;
    }
    return success();
  }

  /// Thread-strided partial reduction of `op` over row positions
  /// [lo, hi) step `step`, in the accumulator type.
  FailureOr<Value> partial(Operation *op, Value lo, Value hi, Value step) {
    Type acc = llvm::cast<ReductionOpInterface>(op).getAccumulatorType(
        storageElementOf(op->getResult(0).getType()));
    Value init =
        llvm::cast<ReductionOpInterface>(op).buildIdentity(b, loc, acc);
    auto loop = scf::ForOp::create(b, loc, lo, hi, step, ValueRange{init});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Evaluator ev = at(loop.getInductionVar());
    FailureOr<Value> v = ev.eval(op->getOperand(0));
    if (failed(v))
      return failure();
    Value next = llvm::cast<ReductionOpInterface>(op).buildCombine(
        b, loc, loop.getRegionIterArg(0), widenTo(b, loc, *v, acc));
    scf::YieldOp::create(b, loc, next);
    return loop.getResult(0);
  }

  /// Stores the root: a per-row root by thread 0, a full one by all
  /// threads in a strided loop.
  LogicalResult writeRoot(Value row, Value tid, int64_t blockSize) {
    Value out = host.outputs[0];
    if (k.isRowValue(k.root) || shapeOf(k.root) != ArrayRef<int64_t>(k.full)) {
      if (!k.isRowValue(k.root))
        return failure();
      FailureOr<Value> v = rowEval.eval(k.root);
      if (failed(v))
        return failure();
      auto first = scf::IfOp::create(
          b, loc, cmpIdx(b, loc, arith::CmpIPredicate::eq, tid, cidx(b, loc, 0)),
          /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&first.getThenRegion().front());
      memref::StoreOp::create(b, loc, *v, out, ValueRange{row});
      return success();
    }
    Value base = arith::MulIOp::create(b, loc, row, cidx(b, loc, k.len));
    auto loop = scf::ForOp::create(b, loc, tid, cidx(b, loc, k.len),
                                   cidx(b, loc, blockSize));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value j = loop.getInductionVar();
    Evaluator ev = at(j);
    FailureOr<Value> v = ev.eval(k.root);
    if (failed(v))
      return failure();
    memref::StoreOp::create(b, loc, *v, out,
                            ValueRange{arith::AddIOp::create(b, loc, base, j)});
    return success();
  }

private:
  Value loadRowScalar(BlockArgument a) {
    unsigned i = a.getArgNumber();
    return memref::LoadOp::create(b, loc, host.inputs[host.slotOf[i]],
                                  offsets[i]);
  }

  OpBuilder &b;
  Location loc;
  const RowKernel &k;
  const HostFunction &host;
  SmallVector<Value> offsets;
  llvm::DenseMap<Value, Value> rowValues;

public:
  Evaluator rowEval;
};

/// Splits of a long row: enough blocks to fill the GPU, each with at least
/// four strides of its 256 threads.
int64_t splitsFor(const RowKernel &k) {
  if (k.reductions.size() != 1 || !k.isRowValue(k.root) || k.rows >= 64)
    return 1;
  int64_t byWork = k.len / (kBlockSize * 4);
  return std::clamp<int64_t>(std::min<int64_t>(byWork, 512 / k.rows), 1, 256);
}

LogicalResult generateRows(func::FuncOp tmpl, Value root,
                           ArrayRef<int64_t> full, ArrayRef<int64_t> axes) {
  RowKernel k;
  k.tmpl = tmpl;
  k.root = root;
  k.full.assign(full.begin(), full.end());
  size_t r = full.size(), nax = axes.size();
  k.outerExt.assign(full.begin(), full.end() - nax);
  k.rows = numElements(k.outerExt);
  for (size_t d = r - nax; d < r; ++d)
    k.len *= full[d];
  tmpl.walk([&](Operation *op) {
    if (isFusibleReduction(op))
      k.reductions.push_back(op);
  });
  // Operand layouts against the full shape; per-row operands without
  // keepdim are padded with trailing 1s.
  for (BlockArgument a : tmpl.getArguments()) {
    auto t = llvm::cast<RankedTensorType>(a.getType());
    if (getQuantScheme(t))
      return failure();
    SmallVector<int64_t> s(t.getShape());
    if (s.size() == r - nax && k.isRowValue(a))
      s.append(nax, 1);
    if (s.size() > r)
      return failure();
    Layout l = layoutOf(s, full);
    bool anyFull = false, anyBcast = false;
    for (size_t d = r - nax; d < r; ++d) {
      if (full[d] == 1)
        continue;
      (l.shape[d] == 1 ? anyBcast : anyFull) = true;
    }
    if (anyFull && anyBcast)
      return failure(); // partly broadcast inside a row
    k.innerFull.push_back(anyFull);
    k.outerStrides.push_back(
        SmallVector<int64_t>(l.strides.begin(), l.strides.begin() + (r - nax)));
  }
  for (Operation *op : k.reductions)
    if (!llvm::isa<IntegerType, FloatType>(
            llvm::cast<ReductionOpInterface>(op).getAccumulatorType(
                storageElementOf(op->getResult(0).getType()))))
      return failure();

  OpBuilder b(tmpl.getContext());
  Location loc = tmpl.getLoc();
  int64_t splits = splitsFor(k);
  Type partialType;
  int64_t workspace = 0;
  if (splits > 1) {
    partialType = llvm::cast<ReductionOpInterface>(k.reductions[0])
                      .getAccumulatorType(storageElementOf(
                          k.reductions[0]->getResult(0).getType()));
    int64_t bytes = std::max<int64_t>(1, partialType.getIntOrFloatBitWidth() / 8);
    workspace = k.rows * splits * bytes;
  }
  HostFunction host = createHostFunction(b, tmpl, workspace);
  if (k.rows == 0)
    return success();
  auto fail = [&]() {
    host.fn.erase();
    return failure();
  };

  if (splits > 1) {
    Operation *red = k.reductions[0];
    auto partialsType = MemRefType::get({k.rows * splits}, partialType);
    // Launch 1: block (s, row) reduces its slice of the row.
    {
      int64_t chunk = (k.len + splits - 1) / splits;
      gpu::LaunchOp launch =
          createLaunch(b, host, {splits, k.rows, 1}, {kBlockSize, 1, 1});
      Value tid = launch.getThreadIds().x;
      Value s = launch.getBlockIds().x, row = launch.getBlockIds().y;
      Value scratch = addSharedBuffer(launch, partialType, kBlockSize / 32);
      Value partials = memref::ViewOp::create(b, loc, partialsType,
                                              host.workspace, cidx(b, loc, 0),
                                              ValueRange{});
      RowEmitter em(b, loc, k, host, row);
      Value lo = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, s, cidx(b, loc, chunk)), tid);
      Value hi = arith::MinUIOp::create(
          b, loc,
          arith::MulIOp::create(
              b, loc, arith::AddIOp::create(b, loc, s, cidx(b, loc, 1)),
              cidx(b, loc, chunk)),
          cidx(b, loc, k.len));
      FailureOr<Value> part =
          em.partial(red, lo, hi, cidx(b, loc, kBlockSize));
      if (failed(part))
        return fail();
      Value total = blockReduce(
          b, loc, *part, tid, kBlockSize, scratch, [&](Value x, Value y) {
            return llvm::cast<ReductionOpInterface>(red).buildCombine(b, loc, x,
                                                                      y);
          });
      auto first = scf::IfOp::create(
          b, loc, cmpIdx(b, loc, arith::CmpIPredicate::eq, tid, cidx(b, loc, 0)),
          false);
      b.setInsertionPointToStart(&first.getThenRegion().front());
      Value slot = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, row, cidx(b, loc, splits)), s);
      memref::StoreOp::create(b, loc, total, partials, ValueRange{slot});
    }
    // Launch 2: one warp per row combines the partials, in order, and
    // finishes the row.
    gpu::LaunchOp launch = createLaunch(b, host, {k.rows, 1, 1}, {32, 1, 1});
    Value tid = launch.getThreadIds().x, row = launch.getBlockIds().x;
    Value partials = memref::ViewOp::create(b, loc, partialsType,
                                            host.workspace, cidx(b, loc, 0),
                                            ValueRange{});
    RowEmitter em(b, loc, k, host, row);
    LogicalResult ok = em.run([&](Operation *op) -> FailureOr<Value> {
      Value init = llvm::cast<ReductionOpInterface>(op).buildIdentity(
          b, loc, partialType);
      Value base = arith::MulIOp::create(b, loc, row, cidx(b, loc, splits));
      auto loop = scf::ForOp::create(b, loc, tid, cidx(b, loc, splits),
                                     cidx(b, loc, 32), ValueRange{init});
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(loop.getBody());
        Value p = memref::LoadOp::create(
            b, loc, partials,
            ValueRange{arith::AddIOp::create(b, loc, base,
                                             loop.getInductionVar())});
        scf::YieldOp::create(b, loc,
                             llvm::cast<ReductionOpInterface>(op).buildCombine(
                                 b, loc, loop.getRegionIterArg(0), p));
      }
      Value total = blockReduce(
          b, loc, loop.getResult(0), tid, 32, Value(), [&](Value x, Value y) {
            return llvm::cast<ReductionOpInterface>(op).buildCombine(b, loc, x,
                                                                     y);
          });
      return narrowTo(b, loc, total,
                      storageElementOf(op->getResult(0).getType()));
    });
    if (failed(ok) || failed(em.writeRoot(row, tid, 32)))
      return fail();
    return success();
  }

  int64_t blockSize = rowBlockSize(k.len);
  int64_t grid = std::min<int64_t>(k.rows, kMaxBlocks);
  gpu::LaunchOp launch = createLaunch(b, host, {grid, 1, 1}, {blockSize, 1, 1});
  Value tid = launch.getThreadIds().x;
  SmallVector<Value> scratch;
  if (blockSize > 32)
    for (Operation *op : k.reductions)
      scratch.push_back(addSharedBuffer(
          launch,
          llvm::cast<ReductionOpInterface>(op).getAccumulatorType(
              storageElementOf(op->getResult(0).getType())),
          blockSize / 32));
  auto rowLoop = scf::ForOp::create(b, loc, launch.getBlockIds().x,
                                    cidx(b, loc, k.rows), cidx(b, loc, grid));
  b.setInsertionPointToStart(rowLoop.getBody());
  Value row = rowLoop.getInductionVar();
  RowEmitter em(b, loc, k, host, row);
  unsigned next = 0;
  LogicalResult ok = em.run([&](Operation *op) -> FailureOr<Value> {
    FailureOr<Value> part = em.partial(op, tid, cidx(b, loc, k.len),
                                       cidx(b, loc, blockSize));
    if (failed(part))
      return failure();
    // Each reduction has its own scratch, so consecutive reductions of a
    // row need no barrier between them.
    Value s = blockSize > 32 ? scratch[next++] : Value();
    Value total =
        blockReduce(b, loc, *part, tid, blockSize, s, [&](Value x, Value y) {
          return llvm::cast<ReductionOpInterface>(op).buildCombine(b, loc, x,
                                                                   y);
        });
    return narrowTo(b, loc, total, storageElementOf(op->getResult(0).getType()));
  });
  if (failed(ok) || failed(em.writeRoot(row, tid, blockSize)))
    return fail();
  // The next row reuses the scratch buffers.
  if (blockSize > 32 && !k.reductions.empty())
    gpu::BarrierOp::create(b, loc);
  return success();
}

LogicalResult generateColumns(func::FuncOp tmpl, Operation *reduction,
                              ArrayRef<int64_t> full, ArrayRef<int64_t> axes) {
  size_t r = full.size();
  int64_t a0 = axes.front(), a1 = axes.back() + 1;
  for (auto [i, a] : llvm::enumerate(axes))
    if (a != a0 + (int64_t)i)
      return failure(); // not one block of axes
  SmallVector<int64_t> outerExt(full.begin(), full.begin() + a0);
  SmallVector<int64_t> redExt(full.begin() + a0, full.begin() + a1);
  int64_t outer = numElements(outerExt), redCount = numElements(redExt);
  int64_t inner = numElements(ArrayRef<int64_t>(full).drop_front(a1));
  int64_t outputs = outer * inner;

  SmallVector<SmallVector<int64_t>> outerStrides, redStrides;
  SmallVector<bool> innerFull;
  for (BlockArgument a : tmpl.getArguments()) {
    auto t = llvm::cast<RankedTensorType>(a.getType());
    if (getQuantScheme(t) || (size_t)t.getRank() > r)
      return failure();
    std::optional<BlockReductionLayout> l =
        blockReductionLayout(t.getShape(), full, a0, a1);
    if (!l)
      return failure();
    innerFull.push_back(l->innerFull);
    outerStrides.push_back(l->outer);
    redStrides.push_back(l->reduced);
  }

  OpBuilder b(tmpl.getContext());
  Location loc = tmpl.getLoc();
  HostFunction host = createHostFunction(b, tmpl, 0);
  if (outputs == 0)
    return success();
  Type storage = storageElementOf(reduction->getResult(0).getType());
  Type accType =
      llvm::cast<ReductionOpInterface>(reduction).getAccumulatorType(storage);
  constexpr int64_t kCols = 32, kSplit = 8;
  int64_t groups = (outputs + kCols - 1) / kCols;
  int64_t grid = std::min<int64_t>(groups, kMaxBlocks);
  gpu::LaunchOp launch = createLaunch(b, host, {grid, 1, 1}, {kCols, kSplit, 1});
  Value shared = addSharedBuffer(launch, accType, kCols * kSplit);
  Value tx = launch.getThreadIds().x, ty = launch.getThreadIds().y;
  auto groupLoop = scf::ForOp::create(b, loc, launch.getBlockIds().x,
                                      cidx(b, loc, groups), cidx(b, loc, grid));
  b.setInsertionPointToStart(groupLoop.getBody());
  Value o = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, groupLoop.getInductionVar(),
                            cidx(b, loc, kCols)),
      tx);
  Value valid = cmpIdx(b, loc, arith::CmpIPredicate::ult, o,
                       cidx(b, loc, outputs));
  // Threads past the end read output 0's column (in bounds) and store
  // nothing, so the loop below stays free of divergence.
  Value oc = arith::SelectOp::create(b, loc, valid, o, cidx(b, loc, 0));
  Value a = arith::DivUIOp::create(b, loc, oc, cidx(b, loc, inner));
  Value c = arith::RemUIOp::create(b, loc, oc, cidx(b, loc, inner));
  SmallVector<Value> aOff = offsetsFromLinear(b, loc, a, outerExt, outerStrides);
  Value init = llvm::cast<ReductionOpInterface>(reduction).buildIdentity(
      b, loc, accType);
  auto redLoop = scf::ForOp::create(b, loc, ty, cidx(b, loc, redCount),
                                    cidx(b, loc, kSplit), ValueRange{init});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(redLoop.getBody());
    SmallVector<Value> rOff = offsetsFromLinear(
        b, loc, redLoop.getInductionVar(), redExt, redStrides);
    Evaluator ev(b, loc, [&](BlockArgument arg) -> Value {
      unsigned i = arg.getArgNumber();
      Value at = arith::AddIOp::create(b, loc, aOff[i], rOff[i]);
      if (innerFull[i])
        at = arith::AddIOp::create(b, loc, at, c);
      return memref::LoadOp::create(b, loc, host.inputs[host.slotOf[i]], at);
    });
    FailureOr<Value> v = ev.eval(reduction->getOperand(0));
    if (failed(v)) {
      host.fn.erase();
      return failure();
    }
    scf::YieldOp::create(
        b, loc,
        llvm::cast<ReductionOpInterface>(reduction).buildCombine(
            b, loc, redLoop.getRegionIterArg(0), widenTo(b, loc, *v, accType)));
  }
  Value slot = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, ty, cidx(b, loc, kCols)), tx);
  memref::StoreOp::create(b, loc, redLoop.getResult(0), shared,
                          ValueRange{slot});
  gpu::BarrierOp::create(b, loc);
  Value writer = arith::AndIOp::create(
      b, loc, valid,
      cmpIdx(b, loc, arith::CmpIPredicate::eq, ty, cidx(b, loc, 0)));
  auto ifWriter = scf::IfOp::create(b, loc, writer, false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifWriter.getThenRegion().front());
    Value acc = memref::LoadOp::create(b, loc, shared, ValueRange{tx});
    for (int64_t y = 1; y < kSplit; ++y) {
      Value at = arith::AddIOp::create(b, loc, tx, cidx(b, loc, y * kCols));
      acc = llvm::cast<ReductionOpInterface>(reduction).buildCombine(
          b, loc, acc, memref::LoadOp::create(b, loc, shared, at));
    }
    memref::StoreOp::create(b, loc, narrowTo(b, loc, acc, storage),
                            host.outputs[0], ValueRange{o});
  }
  // The next group reuses the shared partials.
  gpu::BarrierOp::create(b, loc);
  return success();
}

} // namespace

LogicalResult gpugen::generateReduction(func::FuncOp tmpl,
                                        const Options &options) {
  (void)options;
  auto ret = llvm::cast<func::ReturnOp>(tmpl.getBody().front().getTerminator());
  if (ret.getNumOperands() != 1)
    return failure();
  Value root = ret.getOperand(0);
  if (getQuantScheme(root.getType()))
    return failure();
  auto axesAttr = tmpl->getAttrOfType<DenseI64ArrayAttr>(kKernelAxesAttr);
  SmallVector<int64_t> full = fullShapeOf(tmpl, root);
  SmallVector<int64_t> axes;
  if (axesAttr) {
    axes.assign(axesAttr.asArrayRef().begin(), axesAttr.asArrayRef().end());
  } else {
    tmpl.walk([&](Operation *op) {
      if (axes.empty() && isFusibleReduction(op)) {
        auto a = llvm::cast<DenseI64ArrayAttr>(op->getAttr("axes"));
        axes.assign(a.asArrayRef().begin(), a.asArrayRef().end());
      }
    });
  }
  if (axes.empty())
    return failure();
  bool trailing = true;
  for (auto [i, a] : llvm::enumerate(axes))
    trailing &= a == (int64_t)(full.size() - axes.size() + i);
  if (trailing)
    return generateRows(tmpl, root, full, axes);
  Operation *reduction = root.getDefiningOp();
  if (!reduction || !isFusibleReduction(reduction))
    return failure();
  return generateColumns(tmpl, reduction, full, axes);
}
