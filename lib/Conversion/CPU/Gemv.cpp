//===- Gemv.cpp - Matmuls of a few rows: B streamed, not packed -----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// C = A x B (+ epilogue) when A has a few rows (at most kGemvRows, as when a
// model decodes one token): the packed matmul would spend more on packing
// B, a pass that reads and writes all of it, than on the product. B is
// read once, as stored, so an f32 weight costs its bytes and a q8 one a
// quarter of them.
//
// A row-major B ([K, N]): each work unit owns a block of 4 vectors of
// columns (16 for a q8 B of one row; the last unit fewer, when N is not a
// whole number of blocks) and
// walks K once, each step loading those vectors of B's row k (dequantizing
// q8 on the fly, a vector of bytes times its block's scale) and adding
// them, times A[r, k], into R x 4 vector accumulators.
//
// A transposed B ([N, K] as stored, a Linear's [out, in] weight, or the
// keys of attention's Q K^T): each unit owns one vector's worth of
// columns, W stored rows of B, and for each row of C walks K a vector at a
// time, multiplying A's vector of k (or its prologue, elementwise ops
// evaluated on their arguments' vectors) into one accumulator per column;
// a tree of shuffles then sums the W accumulators' lanes into one vector,
// column j in lane j.
//
// Either way the epilogue is applied to C's vectors in registers and C is
// stored. A batch of such matmuls (C [..., R, N] with B [..., K, N], as in
// attention's P @ V when one token is decoded) takes a unit per matmul and
// block of columns.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/ElementwiseEmitter.h"
#include "kiln/Conversion/KernelGen.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::kernelgen;

namespace {

/// Matmuls with at most this many rows of C take this generator.
constexpr int64_t kGemvRows = 4;
/// Vectors of columns per work unit (and accumulators per row).
constexpr int64_t kGemvVectors = 4;
/// A task (a run of units on one thread) reads at least this much of B, so
/// that a small product does not pay for threads.
constexpr int64_t kGemvTaskBytes = 1024 * 1024;

Value toF32(OpBuilder &b, Location loc, Value v) {
  Type f32 = b.getF32Type();
  if (v.getType().isF32())
    return v;
  if (v.getType().isF64())
    return arith::TruncFOp::create(b, loc, f32, v);
  return arith::ExtFOp::create(b, loc, f32, v);
}

/// The sums of the lanes of W vectors of W lanes each, as one vector whose
/// lane j is the sum of vector j's lanes. Each level of the tree halves the
/// number of vectors: a pair (p, q) whose vectors hold m slots of g lanes
/// (each slot summing to one column) becomes one vector of 2m slots of g/2
/// lanes, the first halves of every slot of p then q, plus the second
/// halves; p's columns come first, so the order of the columns is kept.
Value sumLanes(OpBuilder &b, Location loc, SmallVector<Value> v) {
  const int64_t w =
      llvm::cast<VectorType>(v.front().getType()).getNumElements();
  for (int64_t g = w; v.size() > 1; g /= 2) {
    SmallVector<int64_t> first, second;
    for (int64_t from : {int64_t(0), w})
      for (int64_t slot = 0; slot < w; slot += g)
        for (int64_t l = 0; l < g / 2; ++l) {
          first.push_back(from + slot + l);
          second.push_back(from + slot + g / 2 + l);
        }
    SmallVector<Value> next;
    for (size_t i = 0; i < v.size(); i += 2)
      next.push_back(arith::AddFOp::create(
          b, loc, vector::ShuffleOp::create(b, loc, v[i], v[i + 1], first),
          vector::ShuffleOp::create(b, loc, v[i], v[i + 1], second)));
    v = std::move(next);
  }
  return v.front();
}

/// B's vectors: f32 as stored, or q8 bytes times their block's scale.
struct BVectors {
  Value values, scales; ///< scales null for an f32 B
  QuantSchemeAttr scheme;
  VectorType vecT;
  Value perTensorScale; ///< broadcast once, for a per-tensor scheme

  /// The vector at element `idx` (a multiple of the vector width).
  Value load(OpBuilder &b, Location loc, Value idx) const {
    if (!scheme)
      return vector::LoadOp::create(b, loc, vecT, values, ValueRange{idx});
    Value scale = perTensorScale;
    if (!scale)
      scale =
          vector::BroadcastOp::create(b, loc, vecT, blockScale(b, loc, idx));
    return arith::MulFOp::create(b, loc, unscaled(b, loc, idx), scale);
  }

  /// The q8 values of the vector at element `idx`, not yet scaled.
  Value unscaled(OpBuilder &b, Location loc, Value idx) const {
    Value bytes = vector::LoadOp::create(
        b, loc, VectorType::get(vecT.getShape(), b.getI8Type()), values,
        ValueRange{idx});
    return arith::SIToFPOp::create(b, loc, vecT, bytes);
  }

  /// The scale of the block that holds element `idx`.
  Value blockScale(OpBuilder &b, Location loc, Value idx) const {
    Value at = arith::DivUIOp::create(b, loc, idx,
                                      cidx(b, loc, scheme.getBlockSize()));
    return toF32(b, loc, memref::LoadOp::create(b, loc, scales, at));
  }
};

/// What the generator reads from a template it takes: the matmul, its
/// operands' arguments, and where the epilogue's arguments lie.
struct GemvPlan {
  MatmulOp mm;
  Value root;
  BlockArgument aArg, bArg;              ///< aArg null when A has a prologue
  llvm::SetVector<Operation *> prologue; ///< A's elementwise ops
  QuantSchemeAttr scheme;          ///< B's, when B is dequantized
  Operation *dequantize = nullptr; ///< B's dequantize, if any
  Operation *transpose = nullptr;  ///< B's transpose, if any
  bool bT = false;                 ///< B is stored [N, K]
  int64_t k = 0, n = 0, rows = 0;
  /// Matmuls of a few rows each (C [..., R, N] with B [..., K, N]): their
  /// count, and whether B has them (or is one [K, N] for all rows).
  int64_t batches = 1;
  bool bBatched = false;
  SmallVector<unsigned> slotOf; ///< each argument's first ABI slot
  SmallVector<Layout> layouts;  ///< the epilogue's arguments against C
  SmallVector<SmallVector<int64_t>> rowOffsets; ///< their offset per row
  SmallVector<int64_t> batchStrides;            ///< and per matmul of the batch

  /// Fails when the template is not a matmul of a few rows this generator
  /// takes (on vectors of `width` lanes).
  LogicalResult match(func::FuncOp tmpl, int64_t width);
};

LogicalResult GemvPlan::match(func::FuncOp tmpl, int64_t width) {
  int matmuls = 0;
  tmpl.walk([&](MatmulOp op) {
    mm = op;
    ++matmuls;
  });
  auto ret = llvm::cast<func::ReturnOp>(tmpl.getBody().front().getTerminator());
  if (matmuls != 1 || ret.getNumOperands() != 1)
    return failure();
  root = ret.getOperand(0);
  auto cType = llvm::cast<RankedTensorType>(mm.getType());
  auto aType = llvm::cast<RankedTensorType>(mm.getLhs().getType());
  if (!cType.hasStaticShape() || !aType.hasStaticShape() ||
      !cType.getElementType().isF32() || root.getType() != cType ||
      cType.getRank() < 2)
    return failure();
  // A: an argument of C's rows (no transpose, no broadcast), or
  // elementwise ops on arguments of A's shape or of one element (read as
  // A is, below only with a transposed B).
  aArg = llvm::dyn_cast<BlockArgument>(mm.getLhs());
  if (aType.getShape().drop_back() != cType.getShape().drop_back() ||
      (!aArg && failed(collectPrologue(mm.getLhs(), prologue))))
    return failure();
  for (Operation *op : prologue)
    for (Value v : op->getOperands())
      if (auto a = llvm::dyn_cast<BlockArgument>(v)) {
        auto t = llvm::cast<RankedTensorType>(a.getType());
        if (getQuantScheme(t) || !t.getElementType().isF32() ||
            (t.getShape() != aType.getShape() && t.getNumElements() != 1))
          return failure();
      }
  k = aType.getShape().back();
  n = cType.getShape().back();
  // B: a [K, N] argument, or one dequantized from q8 blocks that lie along
  // its rows in whole vectors; or the transpose of an f32 [N, K] argument.
  transpose = mm.getRhs().getDefiningOp();
  bT = isMatrixTranspose(transpose);
  if (!bT)
    transpose = nullptr;
  if (auto deq = mm.getRhs().getDefiningOp<DequantizeOp>()) {
    bArg = llvm::dyn_cast<BlockArgument>(deq.getInput());
    scheme = getQuantScheme(deq.getInput().getType());
    dequantize = deq;
    if (!scheme || scheme.getValueBits() != 8 ||
        (!scheme.isPerTensor() && scheme.getBlockSize() % width != 0))
      return failure();
  } else {
    bArg = llvm::dyn_cast<BlockArgument>(bT ? transpose->getOperand(0)
                                            : mm.getRhs());
  }
  if (!bArg)
    return failure();
  auto bType = llvm::cast<RankedTensorType>(bArg.getType());
  ArrayRef<int64_t> bs = bType.getShape(), cs = cType.getShape();
  if (bs.take_back(2) !=
          (bT ? ArrayRef<int64_t>({n, k}) : ArrayRef<int64_t>({k, n})) ||
      (!scheme && !bType.getElementType().isF32()))
    return failure();
  // One B for every row, or one per matmul of C's batch dims.
  bBatched = bs.size() > 2;
  if (bBatched &&
      (bs.size() != cs.size() || bs.drop_back(2) != cs.drop_back(2)))
    return failure();
  rows = 1;
  for (int64_t d : cs.drop_back(bBatched ? 2 : 1))
    rows *= d;
  if (bBatched) {
    batches = rows;
    rows = cs[cs.size() - 2];
  }
  if (rows < 1 || rows > kGemvRows || n % width != 0 || k < 1 || batches < 1 ||
      batches * rows > (1 << 16))
    return failure();
  // A transposed B takes one accumulator per row and column of a vector's
  // worth of columns: they must fit in the registers, with A's vectors.
  if ((bT && k % width != 0) || (!bT && !prologue.empty()))
    return failure();

  // Arguments the epilogue reads: f32, laid out against C with their last
  // dim whole or broadcast; each row's offset is static.
  unsigned slot = 0;
  for (BlockArgument a : tmpl.getArguments()) {
    slotOf.push_back(slot);
    slot += getQuantScheme(a.getType()) ? 2 : 1;
  }
  layouts.assign(tmpl.getNumArguments(), Layout());
  rowOffsets.assign(tmpl.getNumArguments(), {});
  batchStrides.assign(tmpl.getNumArguments(), 0);
  for (BlockArgument a : tmpl.getArguments()) {
    bool epilogue = llvm::any_of(a.getUsers(), [&](Operation *u) {
      return u != mm.getOperation() && u != dequantize && u != transpose &&
             !prologue.contains(u);
    });
    if (!epilogue)
      continue;
    auto t = llvm::cast<RankedTensorType>(a.getType());
    if (getQuantScheme(t) || !t.getElementType().isF32() ||
        t.getRank() > cType.getRank())
      return failure();
    Layout l = layoutOf(t.getShape(), cs);
    if (l.strides.back() != 0 && l.strides.back() != 1)
      return failure();
    // The offset of each row of C (over the batch too) in the argument:
    // a row's offset within its matmul plus a stride per matmul.
    auto offsetOf = [&](int64_t row) {
      int64_t off = 0;
      for (int64_t d = cType.getRank() - 2; d >= 0; --d) {
        off += (row % cs[d]) * l.strides[d];
        row /= cs[d];
      }
      return off;
    };
    unsigned i = a.getArgNumber();
    for (int64_t r = 0; r < rows; ++r)
      rowOffsets[i].push_back(offsetOf(r));
    batchStrides[i] = batches > 1 ? offsetOf(rows) - offsetOf(0) : 0;
    for (int64_t m = 1; m < batches; ++m)
      for (int64_t r = 0; r < rows; ++r)
        if (offsetOf(m * rows + r) != m * batchStrides[i] + rowOffsets[i][r])
          return failure();
    layouts[i] = l;
  }
  return success();
}

/// Emits the phase of a matched template: one loop over the units, each
/// unit a block of columns of one matmul of the batch.
class GemvEmitter {
public:
  GemvEmitter(GemvPlan &p, func::FuncOp fn, int64_t width)
      : p(p), b(fn.getContext()), loc(fn.getLoc()), width(width),
        entry(fn.getBody().front()),
        vecT(VectorType::get({width}, b.getF32Type())) {}

  /// The unit loop, `cols` columns per unit (the row-major B's last unit
  /// of a matmul `fullUnits` in, when N is not whole units, fewer).
  LogicalResult emit(int64_t cols, int64_t perUnit, int64_t numInputs);

private:
  Value arg(unsigned i) { return entry.getArgument(2 + i); }
  Value add(Value x, int64_t c) {
    return arith::AddIOp::create(b, loc, x, cidx(b, loc, c));
  }
  Value mulc(Value x, int64_t c) {
    return arith::MulIOp::create(b, loc, x, cidx(b, loc, c));
  }
  Value sum(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  /// A[r, kk] of the unit's matmul.
  Value aAt(Value kk, int64_t r) { return sum(aBase, add(kk, r * p.k)); }
  FailureOr<Value> aVector(Value kk, int64_t r);
  LogicalResult store(int64_t r, Value col, Value acc);
  LogicalResult rowMajorUnit(Value n0, int64_t vectors);
  LogicalResult transposedUnit(Value n0);

  GemvPlan &p;
  OpBuilder b;
  Location loc;
  int64_t width;
  Block &entry;
  VectorType vecT;
  Value aBuf, out, zero;
  BVectors bv;
  /// Columns of a whole unit (units start at multiples of it).
  int64_t cols = 0;
  /// The unit's matmul of the batch, and where its A, B and C start.
  Value batch, aBase, bBase, cBase;
};

LogicalResult GemvEmitter::emit(int64_t unitCols, int64_t perUnit,
                                int64_t numInputs) {
  cols = unitCols;
  b.setInsertionPoint(entry.getTerminator());
  aBuf = p.aArg ? arg(p.slotOf[p.aArg.getArgNumber()]) : Value();
  out = arg(numInputs);
  zero = constantOf(b, loc, vecT, 0.0);
  unsigned bSlot = p.slotOf[p.bArg.getArgNumber()];
  bv =
      BVectors{arg(bSlot), p.scheme ? arg(bSlot + 1) : Value(), p.scheme, vecT};
  if (p.scheme && p.scheme.isPerTensor())
    bv.perTensorScale = vector::BroadcastOp::create(
        b, loc, vecT,
        toF32(b, loc,
              memref::LoadOp::create(b, loc, bv.scales, cidx(b, loc, 0))));

  const int64_t fullUnits = p.n / cols, colUnits = (p.n + cols - 1) / cols;
  auto unitLoop = scf::ForOp::create(b, loc, entry.getArgument(0),
                                     entry.getArgument(1), cidx(b, loc, 1));
  b.setInsertionPointToStart(unitLoop.getBody());
  Value unit = unitLoop.getInductionVar();
  batch = arith::DivUIOp::create(b, loc, unit, cidx(b, loc, colUnits));
  Value colUnit = arith::RemUIOp::create(b, loc, unit, cidx(b, loc, colUnits));
  aBase = mulc(batch, p.rows * p.k);
  bBase = mulc(batch, p.bBatched ? p.k * p.n : 0);
  cBase = mulc(batch, p.rows * p.n);
  Value n0 = mulc(colUnit, cols);
  if (p.bT)
    return transposedUnit(n0);
  if (fullUnits == colUnits)
    return rowMajorUnit(n0, perUnit);
  if (fullUnits == 0)
    return rowMajorUnit(n0, p.n / width);
  // The last unit has the vectors of columns past the whole units'.
  Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                      colUnit, cidx(b, loc, fullUnits));
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, whole, true);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  if (failed(rowMajorUnit(n0, perUnit)))
    return failure();
  b.setInsertionPointToStart(&ifOp.getElseRegion().front());
  return rowMajorUnit(n0, (p.n - fullUnits * cols) / width);
}

/// Row r of C's vector at column `col` (the matmul's `acc`), through the
/// epilogue, stored.
LogicalResult GemvEmitter::store(int64_t r, Value col, Value acc) {
  Evaluator ev(b, loc, [&](BlockArgument a) -> Value {
    unsigned i = a.getArgNumber();
    const Layout &l = p.layouts[i];
    Value base = add(mulc(batch, p.batchStrides[i]), p.rowOffsets[i][r]);
    if (l.strides.back() == 0)
      return vector::BroadcastOp::create(
          b, loc, vecT, memref::LoadOp::create(b, loc, arg(p.slotOf[i]), base));
    return vector::LoadOp::create(b, loc, vecT, arg(p.slotOf[i]),
                                  ValueRange{sum(base, col)});
  });
  ev.setVectorWidth(width);
  ev.bind(p.mm.getResult(), acc);
  FailureOr<Value> v = ev.eval(p.root);
  if (failed(v))
    return failure();
  vector::StoreOp::create(b, loc, *v, out,
                          ValueRange{add(sum(cBase, col), r * p.n)});
  return success();
}

/// A row-major B: `vectors` vectors of columns from n0.
LogicalResult GemvEmitter::rowMajorUnit(Value n0, int64_t vectors) {
  SmallVector<Value> init(p.rows * vectors, zero);
  auto kLoop = scf::ForOp::create(b, loc, cidx(b, loc, 0), cidx(b, loc, p.k),
                                  cidx(b, loc, 1), init);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value kk = kLoop.getInductionVar();
    Value rowStart = sum(sum(mulc(kk, p.n), n0), bBase);
    // A q8 B has the scale folded into A (a * s once per block of a row,
    // rather than q * s for every vector) when it has one scale for all,
    // or when its rows are whole blocks and a unit is whole blocks or lies
    // within one: the vectors from each block's start then share a scale.
    const int64_t bsz = p.scheme ? p.scheme.getBlockSize() : 1;
    const bool perTensor = p.scheme && p.scheme.isPerTensor();
    const bool fold =
        p.scheme &&
        (perTensor || (p.n % bsz == 0 && (cols % bsz == 0 || bsz % cols == 0)));
    const bool byBlock = fold && !perTensor;
    SmallVector<Value> bs, blockScales;
    for (int64_t j = 0; j < vectors; ++j) {
      Value at = add(rowStart, j * width);
      bs.push_back(fold ? bv.unscaled(b, loc, at) : bv.load(b, loc, at));
      if (byBlock && j * width % bsz == 0)
        blockScales.push_back(bv.blockScale(b, loc, at));
    }
    if (p.scheme) {
      // The lines of row k + 8 (the last rows ask for B's last line),
      // which the hardware does not fetch ahead on its own along a stride
      // of N bytes: 10% faster on Llama's decode.
      Value ahead = add(rowStart, 8 * p.n);
      for (int64_t j = 0; j < vectors * width; j += 64)
        memref::PrefetchOp::create(
            b, loc, bv.values,
            ValueRange{arith::MinUIOp::create(b, loc, add(ahead, j),
                                              add(bBase, p.k * p.n - 1))},
            /*isWrite=*/false, /*localityHint=*/3, /*isDataCache=*/true);
    }
    SmallVector<Value> next;
    for (int64_t r = 0; r < p.rows; ++r) {
      Value a = memref::LoadOp::create(b, loc, aBuf, ValueRange{aAt(kk, r)});
      Value av = byBlock
                     ? Value()
                     : vector::BroadcastOp::create(b, loc, vecT, a).getResult();
      if (fold && perTensor)
        av = arith::MulFOp::create(b, loc, av, bv.perTensorScale);
      for (int64_t j = 0; j < vectors; ++j) {
        if (byBlock && j * width % bsz == 0)
          av = vector::BroadcastOp::create(
              b, loc, vecT,
              arith::MulFOp::create(b, loc, a, blockScales[j * width / bsz]));
        next.push_back(vector::FMAOp::create(
            b, loc, av, bs[j], kLoop.getRegionIterArgs()[r * vectors + j]));
      }
    }
    scf::YieldOp::create(b, loc, next);
  }
  for (int64_t r = 0; r < p.rows; ++r)
    for (int64_t j = 0; j < vectors; ++j)
      if (failed(
              store(r, add(n0, j * width), kLoop.getResult(r * vectors + j))))
        return failure();
  return success();
}

/// A's vector at A[r, kk : kk + width]: loaded, or its prologue evaluated
/// on its arguments' vectors there.
FailureOr<Value> GemvEmitter::aVector(Value kk, int64_t r) {
  if (p.aArg)
    return Value(
        vector::LoadOp::create(b, loc, vecT, aBuf, ValueRange{aAt(kk, r)}));
  Evaluator ev(b, loc, [&](BlockArgument a) -> Value {
    Value buf = arg(p.slotOf[a.getArgNumber()]);
    if (llvm::cast<RankedTensorType>(a.getType()).getNumElements() == 1)
      return vector::BroadcastOp::create(
          b, loc, vecT, memref::LoadOp::create(b, loc, buf, cidx(b, loc, 0)));
    return vector::LoadOp::create(b, loc, vecT, buf, ValueRange{aAt(kk, r)});
  });
  ev.setVectorWidth(width);
  return ev.eval(p.mm.getLhs());
}

/// A transposed B: the `width` columns from n0, one stored row each; a row
/// of C at a time, its `width` accumulators in registers (the unit's rows
/// of B stay in L1 for the next row).
LogicalResult GemvEmitter::transposedUnit(Value n0) {
  for (int64_t r = 0; r < p.rows; ++r) {
    SmallVector<Value> init(width, zero);
    auto kLoop = scf::ForOp::create(b, loc, cidx(b, loc, 0), cidx(b, loc, p.k),
                                    cidx(b, loc, width), init);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(kLoop.getBody());
      Value kk = kLoop.getInductionVar();
      FailureOr<Value> av = aVector(kk, r);
      if (failed(av))
        return failure();
      SmallVector<Value> next;
      for (int64_t j = 0; j < width; ++j) {
        Value bj = bv.load(b, loc, sum(sum(mulc(add(n0, j), p.k), kk), bBase));
        next.push_back(vector::FMAOp::create(b, loc, *av, bj,
                                             kLoop.getRegionIterArgs()[j]));
      }
      scf::YieldOp::create(b, loc, next);
    }
    SmallVector<Value> acc(kLoop.getResults());
    if (failed(store(r, n0, sumLanes(b, loc, acc))))
      return failure();
  }
  return success();
}

} // namespace

LogicalResult kernelgen::generateGemv(func::FuncOp tmpl, ModuleOp module,
                                      int64_t vectorBits) {
  const int64_t width = std::max<int64_t>(vectorBits / 32, 4);
  GemvPlan p;
  if (failed(p.match(tmpl, width)))
    return failure();
  OpBuilder b(tmpl.getContext());
  Abi abi = abiOf(tmpl, /*workspace=*/false);
  // Columns per unit; the last unit of a row-major B may have fewer. A q8
  // B of one row takes 16 vectors of 512 bits: each row of B it reads is
  // then 256 bytes in a row, as many lines as f32's 4 vectors (it measured
  // 25% faster than 4 vectors on Llama's decode). Of 256-bit vectors it
  // takes 8: 16 accumulators would fill all 16 registers AVX2 has, and
  // spill (8 measured 12% faster on the same decode).
  // Of 256-bit vectors, 3 or 4 rows take 2 vectors a unit: 4 x 4
  // accumulators would fill AVX2's registers too (attention's P @ V of a
  // decoded token, 4 query heads per key/value head: 24 -> 12 us a token).
  const int64_t perUnit = p.scheme && p.rows == 1
                              ? (width >= 16 ? 4 : 2) * kGemvVectors
                          : width < 16 && p.rows > 2 ? kGemvVectors / 2
                                                     : kGemvVectors;
  const int64_t cols = p.bT ? width : width * perUnit;
  const int64_t units = p.batches * ((p.n + cols - 1) / cols);
  const int64_t unitBytes = p.k * cols * (p.scheme ? 1 : 4);
  const int64_t grain =
      std::max<int64_t>(1, (kGemvTaskBytes + unitBytes - 1) / unitBytes);
  func::FuncOp fn = createPhase(b, module, tmpl, 0, abi, units, grain);
  fn->setAttr(kVectorCodeAttr, b.getUnitAttr());
  if (failed(GemvEmitter(p, fn, width).emit(cols, perUnit, abi.numInputs))) {
    fn.erase();
    return failure();
  }
  return success();
}
