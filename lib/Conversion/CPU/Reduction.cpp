//===- Reduction.cpp - Code for reduction kernels -------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Row kernels (reductions over trailing axes) give each work unit one row.
// The template's ops run in order: a reduction is a loop over the row with
// its accumulator in a register (the elementwise producers it reads are
// evaluated inside that loop), per-row ops run once on the reduced values,
// and a last loop writes the full-shape result. A row of a softmax or a
// layer_norm is small enough to stay in cache between the loops, so memory
// sees one read and one write. A value that the last reduction and the
// result both read (a softmax's exponentials) is kept in a row of scratch
// by the reduction loop and read back by the last loop; outputs past the
// caches' size are written with non-temporal stores unless that last loop
// reads the output row back. The last reduction loop runs in chunks, each
// asking for its lines of the next row first.
//
// Column kernels (reductions over leading or middle axes) give each unit a
// chunk of the inner columns and accumulate whole rows into a stack buffer,
// so the inner loop is unit-stride.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/KernelGen.h"

#include <limits>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::kernelgen;

namespace {

ArrayRef<int64_t> shapeOf(Value v) {
  return llvm::cast<RankedTensorType>(v.getType()).getShape();
}

/// Elements per chunk of the loop that prefetches the next row (a chunk's
/// lines of the next row are asked for before the chunk is computed).
constexpr int64_t kPrefetchChunk = 128;
/// A row kernel with fewer rows than this, one reduction and a per-row
/// result splits its rows into parts (generateSplitRows), when the parts
/// keep at least kMinSplitPart elements each.
constexpr int64_t kSplitBelowRows = 16;
constexpr int64_t kSplitUnits = 64;
constexpr int64_t kMinSplitPart = int64_t(1) << 14;
/// Rows of a value that a row kernel computes once and reads again (the
/// exponentials of a softmax) up to this size are kept in scratch.
constexpr int64_t kRowScratchBytes = 256 << 10;
/// A column kernel's accumulators per unit (4096 f32 or 2048 f64 columns).
constexpr int64_t kColumnAccBytes = 16 << 10;

/// Loads argument `a` of a reduction kernel's template at `offsets` (one
/// per argument) plus j when the argument varies along the inner loop
/// (innerFull), else, or with no j, at `offsets` alone.
Value loadOperand(OpBuilder &b, Location loc, Block &entry,
                  ArrayRef<bool> innerFull, ArrayRef<Value> offsets,
                  BlockArgument a, Value j) {
  unsigned i = a.getArgNumber();
  Value at = j && innerFull[i]
                 ? Value(arith::AddIOp::create(b, loc, offsets[i], j))
                 : offsets[i];
  return memref::LoadOp::create(b, loc, entry.getArgument(2 + i),
                                ValueRange{at});
}

/// The reduction `op` of the elements [lo, hi) (at most `maxLength` of
/// them) that `element(j)` evaluates (in the storage type; the builder is
/// then inside the innermost loop): in the accumulator type, or in the
/// block accumulator type when it is one block. A float sum
/// longer than kiln::kReductionBlock runs in blocks of that many elements
/// in the block accumulator type, each block's sum then added to the
/// accumulator: the error grows with the block, not with the row, and the
/// inner loop keeps f32's vector width. A shorter one is one block. With
/// `chunk` set, each block runs in chunks of that many elements, and
/// `beforeChunk(from)` is emitted before each.
FailureOr<Value>
emitReductionLoop(OpBuilder &b, Location loc, Operation *op, Value lo, Value hi,
                  int64_t maxLength, int64_t chunk,
                  function_ref<void(Value)> beforeChunk,
                  function_ref<FailureOr<Value>(Value)> element) {
  auto red = llvm::cast<ReductionOpInterface>(op);
  Type storage = storageElementOf(op->getResult(0).getType());
  Type acc = red.getAccumulatorType(storage);
  Type blockAcc = red.getBlockAccumulatorType(storage);
  bool blocked = blockAcc != acc && maxLength > ::kiln::kReductionBlock;
  OpBuilder::InsertionGuard guard(b);
  // Opens a loop [from, to) by `step` carrying `carried`; the builder goes
  // inside it.
  auto open = [&](Value from, Value to, int64_t step, Value carried) {
    auto loop = scf::ForOp::create(b, loc, from, to, cidx(b, loc, step),
                                   ValueRange{carried});
    b.setInsertionPointToStart(loop.getBody());
    return loop;
  };
  auto upTo = [&](Value from, int64_t n, Value limit) {
    return arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, from, cidx(b, loc, n)), limit);
  };
  scf::ForOp blocks, chunks;
  if (blocked) {
    blocks =
        open(lo, hi, ::kiln::kReductionBlock, red.buildIdentity(b, loc, acc));
    lo = blocks.getInductionVar();
    hi = upTo(lo, ::kiln::kReductionBlock, hi);
  }
  Value blockInit = red.buildIdentity(b, loc, blockAcc);
  Value elementInit = blockInit;
  if (chunk > 0) {
    chunks = open(lo, hi, chunk, blockInit);
    lo = chunks.getInductionVar();
    hi = upTo(lo, chunk, hi);
    beforeChunk(lo);
    elementInit = chunks.getRegionIterArg(0);
  }
  scf::ForOp elements = open(lo, hi, 1, elementInit);
  FailureOr<Value> v = element(elements.getInductionVar());
  if (failed(v))
    return failure();
  scf::YieldOp::create(b, loc,
                       red.buildCombine(b, loc, elements.getRegionIterArg(0),
                                        widenTo(b, loc, *v, blockAcc)));
  Value result = elements.getResult(0);
  if (chunks) {
    b.setInsertionPointAfter(elements);
    scf::YieldOp::create(b, loc, result);
    result = chunks.getResult(0);
  }
  if (blocks) {
    b.setInsertionPointAfter(chunks ? chunks : elements);
    scf::YieldOp::create(b, loc,
                         red.buildCombine(b, loc, blocks.getRegionIterArg(0),
                                          widenTo(b, loc, result, acc)));
    result = blocks.getResult(0);
  }
  return result;
}

/// A row kernel over few long rows (a full sum, the mean of a loss) whose
/// only reduction feeds per-row ops: phase 0 gives each of kSplitUnits
/// units a part of a row and stores its partial result in the workspace,
/// phase 1 combines each row's partials and computes the row's result. A
/// row per unit would leave all but one thread idle on a full reduction.
/// With `dynamicLen` the row is S times `len` elements (a full reduction
/// over a dynamic dim): the parts stay kSplitUnits / rows, whatever S is,
/// and their length is computed at run time.
LogicalResult generateSplitRows(func::FuncOp tmpl, ModuleOp module, Value root,
                                Operation *reduction, int64_t rows, int64_t len,
                                bool dynamicLen, ArrayRef<int64_t> outerExt,
                                ArrayRef<SmallVector<int64_t>> outerStrides,
                                ArrayRef<bool> innerFull) {
  int64_t parts = std::max<int64_t>(
      1, std::min(kSplitUnits / rows,
                  dynamicLen ? kSplitUnits : len / kMinSplitPart));
  int64_t chunk = (len + parts - 1) / parts;
  chunk = (chunk + 15) / 16 * 16; // parts start on a line
  if (!dynamicLen)
    parts = (len + chunk - 1) / chunk;
  OpBuilder b(tmpl.getContext());
  Location loc = tmpl.getLoc();
  Abi abi = abiOf(tmpl, /*workspace=*/true);
  Type storage = storageElementOf(reduction->getResult(0).getType());
  Type acc =
      llvm::cast<ReductionOpInterface>(reduction).getAccumulatorType(storage);
  int64_t accBytes = std::max<int64_t>(1, acc.getIntOrFloatBitWidth() / 8);

  // Starts a phase of `units` units: its function, its view of the
  // partials, and the builder inside its loop over the units.
  struct Phase {
    func::FuncOp fn;
    Block *entry;
    Value ws, unit, one;
  };
  auto beginPhase = [&](unsigned phase, int64_t units) {
    Phase p;
    p.fn = createPhase(b, module, tmpl, phase, abi, units, 1);
    p.entry = &p.fn.getBody().front();
    b.setInsertionPoint(p.entry->getTerminator());
    Value ws = workspaceArg(*p.entry, abi);
    p.ws = memref::ViewOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, acc), ws,
        cidx(b, loc, 0), ValueRange{cidx(b, loc, rows * parts)});
    p.one = cidx(b, loc, 1);
    auto loop = scf::ForOp::create(b, loc, p.entry->getArgument(0),
                                   p.entry->getArgument(1), p.one);
    b.setInsertionPointToStart(loop.getBody());
    p.unit = loop.getInductionVar();
    return p;
  };

  // Phase 0: unit u reduces part u % parts of row u / parts.
  {
    Phase ph = beginPhase(0, rows * parts);
    ph.fn->setAttr(kWorkspaceAttr,
                   b.getI64IntegerAttr(rows * parts * accBytes));
    Block &entry = *ph.entry;
    Value ws = ph.ws, u = ph.unit;
    Value row = arith::DivUIOp::create(b, loc, u, cidx(b, loc, parts));
    Value part = arith::RemUIOp::create(b, loc, u, cidx(b, loc, parts));
    SmallVector<Value> offsets =
        offsetsFromLinear(b, loc, row, outerExt, outerStrides);
    Value lenV = cidx(b, loc, len), chunkV = cidx(b, loc, chunk);
    if (dynamicLen) {
      // ceil(S * len / parts), rounded up to a line.
      lenV =
          arith::MulIOp::create(b, loc, dynamicSize(b, loc, entry, abi), lenV);
      Value perPart =
          arith::CeilDivUIOp::create(b, loc, lenV, cidx(b, loc, parts));
      chunkV = arith::MulIOp::create(
          b, loc, arith::CeilDivUIOp::create(b, loc, perPart, cidx(b, loc, 16)),
          cidx(b, loc, 16));
    }
    Value lo = arith::MulIOp::create(b, loc, part, chunkV);
    if (dynamicLen) // parts past the end of a short row are empty
      lo = arith::MinUIOp::create(b, loc, lo, lenV);
    Value hi = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, lo, chunkV), lenV);
    FailureOr<Value> partial = emitReductionLoop(
        b, loc, reduction, lo, hi,
        dynamicLen ? std::numeric_limits<int64_t>::max() : chunk, 0, nullptr,
        [&](Value j) {
          Evaluator ev(b, loc, [&, j](BlockArgument a) {
            return loadOperand(b, loc, entry, innerFull, offsets, a, j);
          });
          return ev.eval(reduction->getOperand(0));
        });
    if (failed(partial)) {
      ph.fn.erase();
      return failure();
    }
    memref::StoreOp::create(b, loc, widenTo(b, loc, *partial, acc), ws,
                            ValueRange{u});
  }

  // Phase 1: a row's partials, in order, then its per-row ops.
  Phase ph = beginPhase(1, rows);
  func::FuncOp fn = ph.fn;
  Block &entry = *ph.entry;
  Value ws = ph.ws, one = ph.one, row = ph.unit;
  SmallVector<Value> offsets =
      offsetsFromLinear(b, loc, row, outerExt, outerStrides);
  Value first = arith::MulIOp::create(b, loc, row, cidx(b, loc, parts));
  auto loop = scf::ForOp::create(
      b, loc, cidx(b, loc, 0), cidx(b, loc, parts), one,
      ValueRange{llvm::cast<ReductionOpInterface>(reduction).buildIdentity(
          b, loc, acc)});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value p =
        memref::LoadOp::create(b, loc, ws,
                               ValueRange{arith::AddIOp::create(
                                   b, loc, first, loop.getInductionVar())});
    scf::YieldOp::create(
        b, loc,
        llvm::cast<ReductionOpInterface>(reduction).buildCombine(
            b, loc, loop.getRegionIterArg(0), p));
  }
  // After the reduction only per-row values are read.
  Evaluator ev(b, loc, [&](BlockArgument a) {
    return loadOperand(b, loc, entry, {}, offsets, a, Value());
  });
  ev.bind(reduction->getResult(0),
          narrowTo(b, loc, loop.getResult(0), storage));
  FailureOr<Value> v = ev.eval(root);
  if (failed(v)) {
    fn.erase();
    return failure();
  }
  memref::StoreOp::create(b, loc, *v, entry.getArgument(2 + abi.numInputs),
                          ValueRange{row});
  return success();
}

/// The static elements of `shape`, and whether the dynamic size S is a
/// factor.
std::pair<int64_t, bool> staticNumel(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  bool withS = false;
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d))
      withS = true;
    else
      n *= d;
  }
  return std::make_pair(n, withS);
}

/// Where the operands of a row kernel over `full` (its last `nax` dims
/// reduced) read their elements.
struct RowLayout {
  RowLayout(ArrayRef<int64_t> full, size_t nax)
      : full(full), r(full.size()), nax(nax),
        dynamic(ShapedType::isDynamicShape(full)),
        dynamicLen(dynamic && nax == r) {}

  /// Lays out the template's arguments. Fails on a dynamic dim other than
  /// the leading one, a quantized argument, or one partly broadcast inside
  /// a row.
  LogicalResult layOut(func::FuncOp tmpl);

  /// Whether S is at most the leading dim of `shape` (right-aligned
  /// against the full shape).
  bool dynamicOnlyLeading(ArrayRef<int64_t> shape) const {
    for (size_t d = 0; d < shape.size(); ++d)
      if (ShapedType::isDynamic(shape[d]) && d + r - shape.size() != 0)
        return false;
    return true;
  }

  /// A value is per-row when it has one element per row.
  bool isRowValue(Value v) const {
    return shapeOf(v) != full &&
           staticNumel(shapeOf(v)) ==
               std::make_pair(rows, dynamic && !dynamicLen);
  }

  ArrayRef<int64_t> full;
  size_t r, nax;
  /// A dynamic size S may be the leading dim, outside the row: S times
  /// `rows` rows, counted at run time (the code does not depend on S).
  bool dynamic;
  /// S inside the row: a reduction over every dim (a full sum over the
  /// batch), split into parts of a length computed at run time.
  bool dynamicLen;
  SmallVector<int64_t> outerExt;
  /// The static rows and row length.
  int64_t rows = 1, len = 1;
  /// Per argument: its strides along the rows, and whether it varies
  /// along the row (else it is one element per row).
  SmallVector<SmallVector<int64_t>> outerStrides;
  SmallVector<bool> innerFull;
};

LogicalResult RowLayout::layOut(func::FuncOp tmpl) {
  if (dynamic && (!dynamicOnlyLeading(full) || nax > r))
    return failure();
  outerExt.assign(full.begin(), full.end() - nax);
  for (int64_t d : outerExt)
    if (!ShapedType::isDynamic(d))
      rows *= d;
  for (size_t d = r - nax; d < r; ++d)
    if (!ShapedType::isDynamic(full[d]))
      len *= full[d];

  // Operand layouts against the full shape; per-row operands without
  // keepdim are padded with trailing 1s.
  for (BlockArgument a : tmpl.getArguments()) {
    auto t = llvm::cast<RankedTensorType>(a.getType());
    if (getQuantScheme(t) || (!dynamic && !t.hasStaticShape()) ||
        !dynamicOnlyLeading(t.getShape()))
      return failure();
    SmallVector<int64_t> s(t.getShape());
    // Right-aligned (numpy) broadcasting comes first: a [5, 5] operand of a
    // [5, 5, 5] row kernel varies along the row even though it has one
    // element per row.
    bool rightAligned = s.size() <= r;
    for (size_t d = 0; rightAligned && d < s.size(); ++d) {
      int64_t f = full[r - s.size() + d];
      rightAligned = s[d] == 1 || s[d] == f;
    }
    if (!rightAligned && s.size() == r - nax && isRowValue(a))
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
    innerFull.push_back(anyFull);
    outerStrides.push_back(
        SmallVector<int64_t>(l.strides.begin(), l.strides.begin() + (r - nax)));
  }
  return success();
}

/// The operand of the last reduction when it is also what the output is
/// made of (softmax: exp(x - max)), else null. The last reduction loop
/// then keeps it, and the write loop reads it back instead of evaluating
/// it (and its exp) a second time.
Value cachedOperand(Operation *lastReduction, Value root,
                    ArrayRef<int64_t> full) {
  if (!lastReduction || shapeOf(root) != full)
    return Value();
  Value v = lastReduction->getOperand(0);
  bool feedsRoot = false;
  SmallVector<Value> work{root};
  llvm::DenseSet<Value> seen;
  while (!work.empty() && !feedsRoot) {
    Value w = work.pop_back_val();
    if (!seen.insert(w).second)
      continue;
    if (w == v) {
      feedsRoot = true;
      break;
    }
    if (Operation *def = w.getDefiningOp())
      if (!isFusibleReduction(def))
        work.append(def->operand_begin(), def->operand_end());
  }
  if (feedsRoot && shapeOf(v) == full &&
      storageElementOf(v.getType()) == storageElementOf(root.getType()) &&
      v.getDefiningOp() && !llvm::isa<BlockArgument>(v))
    return v;
  return Value();
}

/// Emits a row kernel of one phase, a row per work unit (see the file
/// comment); the state its stages share.
class RowEmitter {
public:
  RowEmitter(func::FuncOp tmpl, ModuleOp module, Value root,
             const RowLayout &layout, Operation *lastReduction)
      : tmpl(tmpl), module(module), root(root), layout(layout),
        full(layout.full), rows(layout.rows), len(layout.len),
        dynamic(layout.dynamic), lastReduction(lastReduction),
        b(tmpl.getContext()), loc(tmpl.getLoc()), abi(abiOf(tmpl, false)),
        rowEval(b, loc, [this](BlockArgument a) { return loadRowScalar(a); }) {}

  /// Emits the kernel; fails, creating nothing, when one of its values
  /// cannot be evaluated.
  LogicalResult emit(bool streamStores);

private:
  func::FuncOp tmpl;
  ModuleOp module;
  Value root;
  const RowLayout &layout;
  ArrayRef<int64_t> full;
  const int64_t rows, len;
  const bool dynamic;
  Operation *lastReduction;
  OpBuilder b;
  Location loc;
  Abi abi;

  // The phase and its loop over rows (beginPhase, openRowLoop).
  func::FuncOp fn;
  Block *entry = nullptr;
  Value outBuf, zero, one, lenV, lastRow, outNumel;
  bool manyRows = false;
  scf::ForOp rowLoop;
  Value row;
  SmallVector<Value> offsets, nextOffsets;
  // The value kept for the write loop (keepCached).
  Value cached, outOffset, scratch;
  /// Per-row values computed so far, shared by every loop over the row.
  llvm::DenseMap<Value, Value> rowValues;
  /// Evaluates per-row values.
  Evaluator rowEval;

  Value argBuf(unsigned i) { return entry->getArgument(2 + i); }
  Value loadRowScalar(BlockArgument a) {
    return loadOperand(b, loc, *entry, {}, offsets, a, Value());
  }
  void beginPhase();
  void openRowLoop();
  void prefetchNext(Value from, int64_t span);
  Evaluator elementEvaluator(Value j);
  void keepCached();
  std::pair<Value, Value> cachedAt(Value j);
  LogicalResult reduceRow();
  LogicalResult storeResult(bool streamStores);
};

LogicalResult RowEmitter::emit(bool streamStores) {
  beginPhase();
  openRowLoop();
  keepCached();
  if (failed(reduceRow()) || failed(storeResult(streamStores))) {
    fn.erase();
    return failure();
  }
  return success();
}

/// Creates the phase function, a row per work unit, and the values its
/// loops share.
void RowEmitter::beginPhase() {
  int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(1, len));
  fn = createPhase(b, module, tmpl, 0, abi, rows, grain);
  if (dynamic)
    fn->setAttr(kUnitsPerAttr, b.getDenseI64ArrayAttr({rows, 1}));
  entry = &fn.getBody().front();
  b.setInsertionPoint(entry->getTerminator());
  outBuf = argBuf(abi.numInputs);
  zero = cidx(b, loc, 0);
  one = cidx(b, loc, 1);
  lenV = cidx(b, loc, len);
  // The rows of this call: S * rows when dynamic.
  lastRow = cidx(b, loc, rows - 1);
  if (dynamic)
    lastRow = arith::SubIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, dynamicSize(b, loc, *entry, abi),
                              cidx(b, loc, rows)),
        one);
  manyRows = dynamic || rows > 1;
  // The output's elements, for the choice of its stores.
  outNumel = cidx(b, loc, rows * len);
  if (dynamic)
    outNumel = arith::MulIOp::create(b, loc, dynamicSize(b, loc, *entry, abi),
                                     outNumel);
}

/// Opens the loop over the unit's rows, with the offsets of this row's
/// operands and of the next row's.
void RowEmitter::openRowLoop() {
  rowLoop = scf::ForOp::create(b, loc, entry->getArgument(0),
                               entry->getArgument(1), one);
  b.setInsertionPointToStart(rowLoop.getBody());
  row = rowLoop.getInductionVar();
  offsets =
      offsetsFromLinear(b, loc, row, layout.outerExt, layout.outerStrides);
  // The next row's operands are requested into L2 while this row is
  // computed: the loops over a row are compute, and without it each row's
  // first loop waited on memory (layer_norm at one thread took its memory
  // time plus its compute time). Into L1 they would push out the row at
  // work. The requests are spread over the last reduction loop, a chunk's
  // lines before each chunk: every line of the next row, since the
  // hardware's streamer does not follow a few of them. A 4096-wide f32
  // softmax at one thread took 14.0 ms asking for the first 4 KiB in a
  // burst at the row's start (it filled the core's miss buffers), 12.2 ms
  // spread over the last loop, 13.6 ms asking for every fourth line, and
  // 14.6 ms spread over the first loop.
  if (manyRows) {
    Value next = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, row, one), lastRow);
    nextOffsets =
        offsetsFromLinear(b, loc, next, layout.outerExt, layout.outerStrides);
  }
}

/// Asks for the lines of [from, from + span) of the next row of each
/// operand that is full along the row (span in elements).
void RowEmitter::prefetchNext(Value from, int64_t span) {
  for (auto [i, a] : llvm::enumerate(tmpl.getArguments())) {
    if (!layout.innerFull[i])
      continue;
    Type e = storageElementOf(a.getType());
    int64_t bytes = std::max<int64_t>(1, e.getIntOrFloatBitWidth() / 8);
    int64_t lineElems = std::max<int64_t>(1, 64 / bytes);
    for (int64_t at = 0; at < std::min(span, len); at += lineElems) {
      Value j = arith::MinUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, from, cidx(b, loc, at)),
          cidx(b, loc, len - 1));
      memref::PrefetchOp::create(
          b, loc, argBuf(i),
          ValueRange{arith::AddIOp::create(b, loc, nextOffsets[i], j)},
          /*isWrite=*/false, /*localityHint=*/2, /*isDataCache=*/true);
    }
  }
}

/// Evaluates full-shape values at position j of the row.
Evaluator RowEmitter::elementEvaluator(Value j) {
  Evaluator ev(b, loc, [this, j](BlockArgument a) {
    return loadOperand(b, loc, *entry, layout.innerFull, offsets, a, j);
  });
  for (auto [k, v] : rowValues)
    ev.bind(k, v);
  return ev;
}

/// The last reduction loop stores the cached value (cachedOperand) to a
/// row of scratch (allocated once per call of the phase, it stays in L1 or
/// L2), not to the output row: a store to an output line that is not in
/// cache reads it from memory first, and the output can then be written
/// past the caches. A row too long for L2 keeps it in the output row,
/// which is still in cache when the write loop reads it back.
void RowEmitter::keepCached() {
  cached = cachedOperand(lastReduction, root, full);
  outOffset = arith::MulIOp::create(b, loc, row, lenV);
  Type cachedElement = cached ? storageElementOf(cached.getType()) : Type();
  if (cached &&
      len * std::max<int64_t>(1, cachedElement.getIntOrFloatBitWidth() / 8) <=
          kRowScratchBytes) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(rowLoop);
    scratch =
        memref::AllocOp::create(b, loc, MemRefType::get({len}, cachedElement),
                                ValueRange{}, b.getI64IntegerAttr(64));
    b.setInsertionPoint(entry->getTerminator());
    memref::DeallocOp::create(b, loc, scratch);
  }
}

/// Where element j of the row of the cached value is kept.
std::pair<Value, Value> RowEmitter::cachedAt(Value j) {
  if (scratch)
    return {scratch, j};
  return {outBuf, arith::AddIOp::create(b, loc, outOffset, j)};
}

/// Runs the template's ops over the row in order: a reduction is a loop
/// over the row, a per-row op runs once on the reduced values, and
/// full-shape values are left to the loops that read them.
LogicalResult RowEmitter::reduceRow() {
  for (Operation &op : tmpl.getBody().front().without_terminator()) {
    if (isFusibleReduction(&op)) {
      Type storage = storageElementOf(op.getResult(0).getType());
      // The last reduction loop runs in chunks of kPrefetchChunk elements,
      // each asking first for its span of the next row.
      bool prefetches = &op == lastReduction && manyRows;
      FailureOr<Value> result = emitReductionLoop(
          b, loc, &op, zero, lenV, len, prefetches ? kPrefetchChunk : 0,
          [&](Value from) { prefetchNext(from, kPrefetchChunk); },
          [&](Value j) -> FailureOr<Value> {
            Evaluator ev = elementEvaluator(j);
            FailureOr<Value> v = ev.eval(op.getOperand(0));
            if (succeeded(v) && &op == lastReduction && cached) {
              auto [buf, at] = cachedAt(j);
              memref::StoreOp::create(b, loc, *ev.eval(cached), buf,
                                      ValueRange{at});
            }
            return v;
          });
      if (failed(result))
        return failure();
      Value reduced = narrowTo(b, loc, *result, storage);
      rowValues[op.getResult(0)] = reduced;
      rowEval.bind(op.getResult(0), reduced);
      continue;
    }
    if (llvm::isa<ConstantOp>(op) || !layout.isRowValue(op.getResult(0)))
      continue; // constants are splats; full values are evaluated lazily
    FailureOr<Value> v = rowEval.eval(op.getResult(0));
    if (failed(v))
      return failure();
    rowValues[op.getResult(0)] = *v;
  }
  return success();
}

/// Stores the row's result: a per-row value, or the full row written by a
/// last loop that reads the cached value back.
LogicalResult RowEmitter::storeResult(bool streamStores) {
  if (layout.isRowValue(root) || shapeOf(root) != full) {
    if (!layout.isRowValue(root))
      return failure();
    FailureOr<Value> v = rowEval.eval(root);
    if (failed(v))
      return failure();
    memref::StoreOp::create(b, loc, *v, outBuf, ValueRange{row});
    return success();
  }
  Type element = storageElementOf(root.getType());
  // Element j of the root, reading the cached value back.
  auto rootAt = [&](Value j) -> FailureOr<Value> {
    Evaluator ev = elementEvaluator(j);
    if (cached) {
      auto [buf, at] = cachedAt(j);
      ev.bind(cached, memref::LoadOp::create(b, loc, buf, ValueRange{at}));
    }
    return ev.eval(root);
  };
  // Nothing reads the output row back: it can go past the caches.
  return emitOutputStores(b, loc, fn, module, outBuf, outOffset, zero, lenV,
                          element, outNumel,
                          streamStores && (!cached || scratch), rootAt);
}

/// A row kernel: reductions over trailing axes (`axes` of `full`), a row
/// per work unit, or split into parts (generateSplitRows) when there are
/// few long rows.
LogicalResult generateRows(func::FuncOp tmpl, ModuleOp module, Value root,
                           ArrayRef<int64_t> full, ArrayRef<int64_t> axes,
                           bool streamStores) {
  RowLayout layout(full, axes.size());
  if (failed(layout.layOut(tmpl)))
    return failure();

  // Few long rows, one reduction, a per-row result: split the rows.
  SmallVector<Operation *> reductions;
  for (Operation &op : tmpl.getBody().front().without_terminator())
    if (isFusibleReduction(&op))
      reductions.push_back(&op);
  bool oneReduction = reductions.size() == 1 && shapeOf(root) != full;
  if (layout.dynamicLen && !oneReduction)
    return failure();
  if (layout.dynamicLen || (!layout.dynamic && layout.rows < kSplitBelowRows &&
                            layout.len >= 2 * kMinSplitPart && oneReduction)) {
    return generateSplitRows(tmpl, module, root, reductions.front(),
                             layout.rows, layout.len, layout.dynamicLen,
                             layout.outerExt, layout.outerStrides,
                             layout.innerFull);
  }
  RowEmitter emitter(tmpl, module, root, layout,
                     reductions.empty() ? nullptr : reductions.back());
  return emitter.emit(streamStores);
}

LogicalResult generateColumns(func::FuncOp tmpl, ModuleOp module,
                              Operation *reduction, ArrayRef<int64_t> full,
                              ArrayRef<int64_t> axes) {
  size_t r = full.size();
  int64_t a0 = axes.front(), a1 = axes.back() + 1;
  for (auto [i, a] : llvm::enumerate(axes))
    if (a != a0 + (int64_t)i)
      return failure(); // not one block of axes
  SmallVector<int64_t> outerExt(full.begin(), full.begin() + a0);
  SmallVector<int64_t> redExt(full.begin() + a0, full.begin() + a1);
  // A dynamic size S may be the leading reduced dim (a bias's gradient sums
  // over the batch rows): the reduction loop runs to S times the rest.
  const bool dynamic = ShapedType::isDynamicShape(full);
  if (dynamic) {
    if (a0 != 0)
      return failure();
    for (size_t d = 1; d < r; ++d)
      if (ShapedType::isDynamic(full[d]))
        return failure();
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d : outerExt)
    outer *= d;
  for (size_t d = a1; d < r; ++d)
    inner *= full[d];

  SmallVector<SmallVector<int64_t>> outerStrides, redStrides;
  SmallVector<bool> innerFull;
  for (BlockArgument a : tmpl.getArguments()) {
    auto t = llvm::cast<RankedTensorType>(a.getType());
    if (getQuantScheme(t) || (!dynamic && !t.hasStaticShape()))
      return failure();
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (t.isDynamicDim(d) && d + r - t.getRank() != 0)
        return failure();
    std::optional<BlockReductionLayout> l =
        blockReductionLayout(t.getShape(), full, a0, a1);
    if (!l)
      return failure();
    innerFull.push_back(l->innerFull);
    outerStrides.push_back(l->outer);
    redStrides.push_back(l->reduced);
  }

  Type storage = storageElementOf(reduction->getResult(0).getType());
  Type accType =
      llvm::cast<ReductionOpInterface>(reduction).getAccumulatorType(storage);
  // The columns' accumulators (in the accumulator type: every column adds
  // one element per reduced row) take at most kColumnAccBytes of stack, so
  // that they stay in L1 beside the rows streaming through.
  const int64_t accBytes =
      std::max<int64_t>(1, accType.getIntOrFloatBitWidth() / 8);
  const int64_t chunk = std::min<int64_t>(inner, kColumnAccBytes / accBytes);
  const int64_t nChunks = (inner + chunk - 1) / chunk;
  OpBuilder b(tmpl.getContext());
  Location loc = tmpl.getLoc();
  Abi abi = abiOf(tmpl, false);
  func::FuncOp fn = createPhase(b, module, tmpl, 0, abi, outer * nChunks, 1);
  Block &entry = fn.getBody().front();
  b.setInsertionPoint(entry.getTerminator());
  auto argBuf = [&](unsigned i) { return entry.getArgument(2 + i); };
  Value outBuf = argBuf(abi.numInputs);
  Value zero = cidx(b, loc, 0), one = cidx(b, loc, 1);
  // Allocated once per call, before the loop over units: an alloca inside
  // the loop would take `chunk` more elements of stack per unit, and a
  // call over many units (a batch norm's per-channel sums over N, H and W)
  // would overflow a worker thread's stack.
  auto accBuf =
      memref::AllocaOp::create(b, loc, MemRefType::get({chunk}, accType));

  auto unitLoop =
      scf::ForOp::create(b, loc, entry.getArgument(0), entry.getArgument(1), one);
  b.setInsertionPointToStart(unitLoop.getBody());
  Value u = unitLoop.getInductionVar();
  Value a = arith::DivUIOp::create(b, loc, u, cidx(b, loc, nChunks));
  Value c = arith::RemUIOp::create(b, loc, u, cidx(b, loc, nChunks));
  Value lo = arith::MulIOp::create(b, loc, c, cidx(b, loc, chunk));
  Value hi = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, lo, cidx(b, loc, chunk)),
      cidx(b, loc, inner));
  Value n = arith::SubIOp::create(b, loc, hi, lo);
  SmallVector<Value> aOff =
      offsetsFromLinear(b, loc, a, outerExt, outerStrides);
  Value init = llvm::cast<ReductionOpInterface>(reduction).buildIdentity(
      b, loc, accType);
  {
    auto fill = scf::ForOp::create(b, loc, zero, n, one);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(fill.getBody());
    memref::StoreOp::create(b, loc, init, accBuf, fill.getInductionVar());
  }
  int64_t redCount = 1;
  for (int64_t d : redExt)
    if (!ShapedType::isDynamic(d))
      redCount *= d;
  Value redEnd = cidx(b, loc, redCount);
  if (dynamic)
    redEnd =
        arith::MulIOp::create(b, loc, dynamicSize(b, loc, entry, abi), redEnd);
  auto redLoop = scf::ForOp::create(b, loc, zero, redEnd, one);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(redLoop.getBody());
    SmallVector<Value> rOff =
        offsetsFromLinear(b, loc, redLoop.getInductionVar(), redExt, redStrides);
    SmallVector<Value> base;
    for (size_t i = 0; i < aOff.size(); ++i)
      base.push_back(arith::AddIOp::create(b, loc, aOff[i], rOff[i]));
    auto colLoop = scf::ForOp::create(b, loc, lo, hi, one);
    b.setInsertionPointToStart(colLoop.getBody());
    Value j = colLoop.getInductionVar();
    Evaluator ev(b, loc, [&](BlockArgument arg) {
      return loadOperand(b, loc, entry, innerFull, base, arg, j);
    });
    FailureOr<Value> v = ev.eval(reduction->getOperand(0));
    if (failed(v)) {
      fn.erase();
      return failure();
    }
    Value slot = arith::SubIOp::create(b, loc, j, lo);
    Value acc = memref::LoadOp::create(b, loc, accBuf, slot);
    Value next = llvm::cast<ReductionOpInterface>(reduction).buildCombine(
        b, loc, acc, widenTo(b, loc, *v, accType));
    memref::StoreOp::create(b, loc, next, accBuf, slot);
  }
  auto write = scf::ForOp::create(b, loc, zero, n, one);
  b.setInsertionPointToStart(write.getBody());
  Value slot = write.getInductionVar();
  Value acc = memref::LoadOp::create(b, loc, accBuf, slot);
  Value outIdx = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, a, cidx(b, loc, inner)),
      arith::AddIOp::create(b, loc, lo, slot));
  memref::StoreOp::create(b, loc, narrowTo(b, loc, acc, storage), outBuf,
                          outIdx);
  return success();
}

} // namespace

LogicalResult kernelgen::generateReduction(func::FuncOp tmpl,
                                           ModuleOp module,
                                           bool streamStores) {
  auto ret = llvm::cast<func::ReturnOp>(tmpl.getBody().front().getTerminator());
  if (ret.getNumOperands() != 1)
    return failure();
  Value root = ret.getOperand(0);
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
  // Empty shapes go through the generic (linalg) path, and so do dynamic
  // dims, except a leading one: outside the rows, or inside a reduction
  // over every dim (generateRows).
  if (axes.empty() || llvm::is_contained(full, 0))
    return failure();
  bool trailing = true;
  for (auto [i, a] : llvm::enumerate(axes))
    trailing &= a == (int64_t)(full.size() - axes.size() + i);
  if (trailing)
    return generateRows(tmpl, module, root, full, axes, streamStores);
  Operation *reduction = root.getDefiningOp();
  if (!reduction || !isFusibleReduction(reduction))
    return failure();
  return generateColumns(tmpl, module, reduction, full, axes);
}
