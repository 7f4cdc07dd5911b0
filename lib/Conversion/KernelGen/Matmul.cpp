//===- Matmul.cpp - Code for matmul kernels -------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// C = A x B (+ epilogue), f32, batched with broadcast batch dims. A and B
// are arguments or transposes of arguments (read in place while packing);
// A may also be an elementwise expression of arguments, or its transpose
// (the prologue), which packing evaluates instead of loading A.
//
// Phase 0 packs A once, into panels of MR rows zero-padded past M, each
// KC-deep slice of a panel MR-interleaved and the panels of one slice
// contiguous, so that a row block of A streams in order. A is read (or a
// prologue evaluated) on vectors: along A's stored rows (2 MR lanes, two
// panels at a time) when A is transposed, else on 8 consecutive k of each
// row, each 8 x 8 block then transposed with shuffles.
// Phase 1 gives each work unit a block of columns of C (and a group of row
// panels when there are too few column blocks for the threads). For every
// KC-deep slice of K it packs its columns of B into a cache-aligned buffer
// of NR-wide panels (one vector copy per row, 8x8 transposes by shuffles
// when B is transposed, element by element when B is dequantized), then
// runs the micro-kernel over every MR x NR tile: MR accumulators of NR
// lanes (8x32: 16 AVX-512 registers; 6x16: 12 AVX2 registers) updated with
// one broadcast and NR/lanes FMAs per row and k, asking for the packed A
// it reads 64 steps ahead (A streams from L2). The block of B stays in
// L2 (or L3 when it is wide) while row blocks of A pass over it, and each
// of its panels stays in L1 for the MC/MR row panels of a row block. The
// tiles of a slice share out the B that the unit packs next (the block's
// next slice, or the first slice of the next unit) and ask for it into L2,
// a line or two per chunk of their k loops, so that packing finds it there.
// When K is one slice, an argument of C's type that only the epilogue
// reads may share C's buffer (the runtime's choice, kiln.in_place).
// The accumulators start at zero; the tile's rows of C (the partial sums of
// earlier K slices) are prefetched before the k loop and added after it.
// On the last slice the epilogue (bias, activation, residual...) is
// applied to the tile in registers before it is stored, so it costs no
// pass over memory; its operands' rows are prefetched with C's. Rows are
// loaded and stored whole on every panel but the last, which is masked.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/ElementwiseEmitter.h"
#include "kiln/Conversion/KernelGen.h"
#include "kiln/Support/ShapeRules.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::kernelgen;

namespace {

/// Phase 1 narrows its column blocks, then splits rows, until there are
/// this many work units.
constexpr int64_t kMinUnits = 8;
/// A k slice of A at most this large stays in L2 across column blocks.
constexpr int64_t kL2SliceBytes = 256 * 1024;
/// The slice of B a work unit packs is kept this small, so that it stays
/// in L2.
constexpr int64_t kMaxBSliceBytes = 256 * 1024;
/// A task of the thread pool packs at least this many bytes of A, or does
/// at least this many FLOPs: waking a thread for less costs more than it
/// saves (a decoding step's products of one row, of 2 threads: 4x slower
/// split).
constexpr int64_t kMinTaskBytes = 256 * 1024;
constexpr double kMinTaskFlops = 4.0e6;
/// Column blocks are not narrowed below this many panels.
constexpr int64_t kMinPanelsPerBlock = 4;
/// Phase 0 packs this many row panels of A per work unit.
constexpr int64_t kRowPanelGroup = 8;
/// k steps per iteration of the micro-kernel's main loop.
constexpr int64_t kUnroll = 4;
/// How many k steps ahead the micro-kernel asks for its packed A (2 KiB
/// ahead on AVX-512: 32 steps left a 2048^3 matmul about 2% slower, 16
/// steps 6%).
constexpr int64_t kAPrefetchSteps = 64;

struct MatmulShape {
  SmallVector<int64_t> batch; ///< of C
  int64_t m, n, k;
  /// Per-batch strides (in whole matrices) of A and B against C's batch.
  SmallVector<int64_t> aBatchStrides, bBatchStrides;
  int64_t bBatches = 1;
};

Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value mul(OpBuilder &b, Location loc, Value x, int64_t c) {
  return arith::MulIOp::create(b, loc, x, cidx(b, loc, c));
}
Value minv(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MinUIOp::create(b, loc, x, y);
}

/// Loads element `idx` of B, dequantizing when B is quantized.
struct BSource {
  Value values, scales; ///< scales null when B is plain f32
  QuantSchemeAttr scheme;

  Value load(OpBuilder &b, Location loc, Value idx) const {
    if (!scheme)
      return memref::LoadOp::create(b, loc, values, idx);
    Type f32 = b.getF32Type();
    Value q;
    if (scheme.getValueBits() == 8) {
      Value byte = memref::LoadOp::create(b, loc, values, idx);
      q = arith::SIToFPOp::create(b, loc, f32, byte);
    } else {
      Value byteIdx = arith::DivUIOp::create(b, loc, idx, cidx(b, loc, 2));
      Value byte = memref::LoadOp::create(b, loc, values, byteIdx);
      Value odd = arith::RemUIOp::create(b, loc, idx, cidx(b, loc, 2));
      Value shift = arith::IndexCastOp::create(
          b, loc, b.getI8Type(), mul(b, loc, odd, 4));
      Value nib = arith::ShRUIOp::create(b, loc, byte, shift);
      nib = arith::AndIOp::create(b, loc, nib, constantOf(b, loc, b.getI8Type(), 15));
      // Sign-extend the 4-bit value: (n ^ 8) - 8.
      nib = arith::XOrIOp::create(b, loc, nib, constantOf(b, loc, b.getI8Type(), 8));
      nib = arith::SubIOp::create(b, loc, nib, constantOf(b, loc, b.getI8Type(), 8));
      q = arith::SIToFPOp::create(b, loc, f32, nib);
    }
    Value scaleIdx = scheme.isPerTensor()
                         ? cidx(b, loc, 0)
                         : Value(arith::DivUIOp::create(
                               b, loc, idx, cidx(b, loc, scheme.getBlockSize())));
    Value scale = memref::LoadOp::create(b, loc, scales, scaleIdx);
    if (!scale.getType().isF32())
      scale = scale.getType().isF64()
                  ? Value(arith::TruncFOp::create(b, loc, f32, scale))
                  : Value(arith::ExtFOp::create(b, loc, f32, scale));
    return arith::MulFOp::create(b, loc, q, scale);
  }
};

} // namespace

/// The transpose of an 8 x 8 block given as 8 rows of 8 lanes: interleave
/// pairs of rows, then pairs of pairs, then swap 128-bit halves (unpack,
/// shufps and vperm2f128 on AVX2), 24 shuffles in all.
static SmallVector<Value> transpose8x8(OpBuilder &b, Location loc,
                                       ArrayRef<Value> r) {
  auto shuffle = [&](Value x, Value y, ArrayRef<int64_t> mask) -> Value {
    return vector::ShuffleOp::create(b, loc, x, y, mask);
  };
  SmallVector<Value> t(8), u(8), out(8);
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = shuffle(r[2 * i], r[2 * i + 1], {0, 8, 1, 9, 4, 12, 5, 13});
    t[2 * i + 1] = shuffle(r[2 * i], r[2 * i + 1], {2, 10, 3, 11, 6, 14, 7, 15});
  }
  for (int h = 0; h < 2; ++h) {
    Value t0 = t[4 * h], t1 = t[4 * h + 1], t2 = t[4 * h + 2], t3 = t[4 * h + 3];
    u[4 * h] = shuffle(t0, t2, {0, 1, 8, 9, 4, 5, 12, 13});
    u[4 * h + 1] = shuffle(t0, t2, {2, 3, 10, 11, 6, 7, 14, 15});
    u[4 * h + 2] = shuffle(t1, t3, {0, 1, 8, 9, 4, 5, 12, 13});
    u[4 * h + 3] = shuffle(t1, t3, {2, 3, 10, 11, 6, 7, 14, 15});
  }
  for (int j = 0; j < 4; ++j) {
    out[j] = shuffle(u[j], u[j + 4], {0, 1, 2, 3, 8, 9, 10, 11});
    out[j + 4] = shuffle(u[j], u[j + 4], {4, 5, 6, 7, 12, 13, 14, 15});
  }
  return out;
}

/// `width` lanes of the flat buffer `buf` from `idx`, in its element type;
/// with `mask`, lanes it leaves off are not read and are zero (false). A
/// bool buffer holds a byte per element, and a vector load of i1 lanes
/// reads packed bits, so bools are read lane by lane (the masked-off ones
/// at `idx`, which is always inside the buffer).
static Value loadLanes(OpBuilder &b, Location loc, Value buf, Value idx,
                       int64_t width, Value mask) {
  Type et = llvm::cast<MemRefType>(buf.getType()).getElementType();
  auto vt = VectorType::get({width}, et);
  if (!et.isInteger(1)) {
    if (!mask)
      return vector::LoadOp::create(b, loc, vt, buf, ValueRange{idx});
    return vector::MaskedLoadOp::create(b, loc, vt, buf, ValueRange{idx}, mask,
                                        constantOf(b, loc, vt, 0.0));
  }
  Value no = arith::ConstantIntOp::create(b, loc, 0, 1);
  SmallVector<Value> lanes;
  for (int64_t i = 0; i < width; ++i) {
    Value at = arith::AddIOp::create(b, loc, idx, cidx(b, loc, i));
    Value on =
        mask ? Value(vector::ExtractOp::create(b, loc, mask, i)) : Value();
    if (on)
      at = arith::SelectOp::create(b, loc, on, at, idx);
    Value v = memref::LoadOp::create(b, loc, buf, ValueRange{at});
    lanes.push_back(on ? Value(arith::SelectOp::create(b, loc, on, v, no)) : v);
  }
  return vector::FromElementsOp::create(b, loc, vt, lanes);
}

/// The value packing reads for an operand: itself, or the input of a
/// matrix transpose (then `transposed` is set).
static Value untransposed(Value operand, bool &transposed) {
  Operation *def = operand.getDefiningOp();
  transposed = isMatrixTranspose(def);
  return transposed ? def->getOperand(0) : operand;
}

/// The ops of A's prologue: the elementwise ops (and splat constants) that
/// compute `root` from the template's arguments, defs before uses. Fails
/// when another kind of op is among them, when one of them has a shape
/// other than `root`'s, or when a value of theirs other than `root` is read
/// outside them (the epilogue would then need it too).
static LogicalResult collectPrologue(Value root,
                                     llvm::SetVector<Operation *> &ops) {
  auto rootType = llvm::cast<RankedTensorType>(root.getType());
  if (!rootType.getElementType().isF32())
    return failure();
  SmallVector<std::pair<Operation *, bool>> stack;
  stack.push_back({root.getDefiningOp(), false});
  while (!stack.empty()) {
    auto [op, visited] = stack.pop_back_val();
    if (ops.contains(op))
      continue;
    if (visited) {
      ops.insert(op);
      continue;
    }
    if (llvm::isa<ConstantOp>(op)) {
      auto c = llvm::cast<ConstantOp>(op);
      auto dense = llvm::dyn_cast<DenseElementsAttr>(c.getValue());
      if (!dense || !dense.isSplat())
        return failure();
      ops.insert(op);
      continue;
    }
    if (!isFusibleElementwise(op) || op->getNumResults() != 1 ||
        llvm::cast<RankedTensorType>(op->getResult(0).getType()).getShape() !=
            rootType.getShape())
      return failure();
    stack.push_back({op, true});
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp())
        stack.push_back({def, false});
  }
  for (Operation *op : ops)
    for (Operation *u : op->getResult(0).getUsers())
      if (!ops.contains(u) &&
          !(op->getResult(0) == root &&
            (llvm::isa<MatmulOp>(u) || isMatrixTranspose(u))))
        return failure();
  return success();
}

/// Phase 0's body for a prologue: packs row panels [rpFrom, rpTo) of A
/// (batch `ab`) by evaluating `root` on vectors of the prologue's arguments
/// instead of loading A. A transposed A ([K, M] as stored) is walked along
/// its stored rows, two panels (2 MR lanes) at a time; a plain one
/// ([M, K]) panel by panel, one row of 8 k at a time, each 8 x 8 block
/// then transposed. `dstOf(k, rp)` is where the MR values of panel rp at k
/// go in `packed`.
static LogicalResult packPrologue(OpBuilder &b, Location loc, Block &entry,
                                  Value root, bool aT, Value m, Value k,
                                  int64_t kMR, Value ab, Value rpFrom,
                                  Value rpTo, ArrayRef<int64_t> aBatchShape,
                                  ArrayRef<Layout> proLayouts,
                                  ArrayRef<unsigned> slotOf, Value packed,
                                  function_ref<Value(Value, Value)> dstOf) {
  if (!aT && kMR > 8)
    return failure();
  Type f32 = b.getF32Type();
  int64_t rank = aBatchShape.size() + 2;
  int64_t width = aT ? 2 * kMR : 8;
  auto vecT = VectorType::get({width}, f32);
  auto maskT = VectorType::get({width}, b.getI1Type());
  Value zero = cidx(b, loc, 0), one = cidx(b, loc, 1);
  Value zeros = constantOf(b, loc, vecT, 0.0);

  // The prologue's arguments, offset to batch `ab`.
  SmallVector<unsigned> args;
  SmallVector<SmallVector<int64_t>> batchStrides;
  for (auto [i, l] : llvm::enumerate(proLayouts))
    if (!l.strides.empty()) {
      args.push_back(i);
      batchStrides.push_back(
          SmallVector<int64_t>(l.strides.begin(), l.strides.end() - 2));
    }
  SmallVector<Value> offs =
      offsetsFromLinear(b, loc, ab, aBatchShape, batchStrides);
  llvm::DenseMap<unsigned, Value> batchOff;
  for (auto [a, o] : llvm::zip(args, offs))
    batchOff[a] = o;
  // `width` lanes of argument `a` along A's stored rows from `col` of the
  // stored row `row` (masked), or one element broadcast when `a` is
  // broadcast along them.
  auto lanesOf = [&](unsigned a, Value row, Value col, Value mask) -> Value {
    const Layout &l = proLayouts[a];
    Value buf = entry.getArgument(2 + slotOf[a]);
    Type et = llvm::cast<MemRefType>(buf.getType()).getElementType();
    auto vt = VectorType::get({width}, et);
    Value base = add(b, loc, batchOff.lookup(a),
                     mul(b, loc, row, l.strides[rank - 2]));
    if (l.strides.back() == 0)
      return vector::BroadcastOp::create(
          b, loc, vt, memref::LoadOp::create(b, loc, buf, base));
    return loadLanes(b, loc, buf, add(b, loc, base, col), width, mask);
  };
  auto evalAt = [&](Value row, Value col, Value mask) -> FailureOr<Value> {
    Evaluator ev(b, loc, [&](BlockArgument a) {
      return lanesOf(a.getArgNumber(), row, col, mask);
    });
    ev.setVectorWidth(width);
    FailureOr<Value> v = ev.eval(root);
    if (failed(v) || v->getType() != vecT)
      return failure();
    return v;
  };
  auto lanes = [](int64_t from, int64_t n) {
    SmallVector<int64_t> l;
    for (int64_t i = 0; i < n; ++i)
      l.push_back(from + i);
    return l;
  };

  OpBuilder::InsertionGuard g(b);
  if (aT) {
    // Stored row k holds the rows of A side by side: each k reads the
    // panels' part of it in order, two panels per evaluation.
    auto kLoop = scf::ForOp::create(b, loc, zero, k, one);
    b.setInsertionPointToStart(kLoop.getBody());
    Value kv = kLoop.getInductionVar();
    auto rpLoop = scf::ForOp::create(b, loc, rpFrom, rpTo, cidx(b, loc, 2));
    b.setInsertionPointToStart(rpLoop.getBody());
    Value rp = rpLoop.getInductionVar();
    Value m0 = mul(b, loc, rp, kMR);
    Value mask = vector::CreateMaskOp::create(
        b, loc, maskT,
        ValueRange{minv(b, loc, cidx(b, loc, width),
                        arith::SubIOp::create(b, loc, m, m0))});
    FailureOr<Value> v = evalAt(kv, m0, mask);
    if (failed(v))
      return failure();
    // Rows past M are zero.
    Value both = arith::SelectOp::create(b, loc, mask, *v, zeros);
    vector::StoreOp::create(
        b, loc, vector::ShuffleOp::create(b, loc, both, both, lanes(0, kMR)),
        packed, ValueRange{dstOf(kv, rp)});
    Value rp1 = add(b, loc, rp, one);
    auto second = scf::IfOp::create(
        b, loc, TypeRange{},
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, rp1, rpTo),
        false);
    b.setInsertionPointToStart(&second.getThenRegion().front());
    vector::StoreOp::create(
        b, loc,
        vector::ShuffleOp::create(b, loc, both, both, lanes(kMR, kMR)),
        packed, ValueRange{dstOf(kv, rp1)});
    return success();
  }
  // Stored row r of a panel gives 8 consecutive k; the 8 x 8 block's
  // transpose gives the MR rows at each of those k.
  auto rpLoop = scf::ForOp::create(b, loc, rpFrom, rpTo, one);
  b.setInsertionPointToStart(rpLoop.getBody());
  Value rp = rpLoop.getInductionVar();
  auto kLoop = scf::ForOp::create(b, loc, zero, k, cidx(b, loc, 8));
  b.setInsertionPointToStart(kLoop.getBody());
  Value k0 = kLoop.getInductionVar();
  Value mask = vector::CreateMaskOp::create(
      b, loc, maskT,
      ValueRange{
          minv(b, loc, cidx(b, loc, 8), arith::SubIOp::create(b, loc, k, k0))});
  SmallVector<Value> rows(8, zeros);
  for (int64_t r = 0; r < kMR; ++r) {
    Value row = add(b, loc, mul(b, loc, rp, kMR), cidx(b, loc, r));
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, m);
    FailureOr<Value> v = evalAt(
        minv(b, loc, row, arith::SubIOp::create(b, loc, m, one)), k0, mask);
    if (failed(v))
      return failure();
    rows[r] = arith::SelectOp::create(b, loc, inside, *v, zeros);
  }
  SmallVector<Value> cols = transpose8x8(b, loc, rows);
  for (int64_t j = 0; j < 8; ++j) {
    Value kj = add(b, loc, k0, cidx(b, loc, j));
    Value v = kMR == 8 ? cols[j]
                       : Value(vector::ShuffleOp::create(b, loc, cols[j],
                                                         cols[j], lanes(0, kMR)));
    OpBuilder::InsertionGuard g2(b);
    std::optional<int64_t> kStatic = getConstantIntValue(k);
    if (!kStatic || *kStatic % 8 != 0) {
      // k past K is not stored.
      auto inK = scf::IfOp::create(
          b, loc, TypeRange{},
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, kj, k),
          false);
      b.setInsertionPointToStart(&inK.getThenRegion().front());
    }
    vector::StoreOp::create(b, loc, v, packed, ValueRange{dstOf(kj, rp)});
  }
  return success();
}

/// A dynamic matmul whose rows are [S, ..., M] and whose B has no batch
/// dims ([S, T, K] x [K, N], a layer over a batch of sequences) is, in
/// row-major order, the plain [S * T, K] x [K, N]: a copy of `tmpl`, named
/// `name`, with those row dims merged into one dynamic dim of `scale` (the
/// static rows per S) times the call's size. Null when a value or op of
/// the template does not allow it: a value laid out against part of the
/// row dims, an op with shape attributes, a transposed A.
static func::FuncOp mergedRowsCopy(func::FuncOp tmpl, StringRef name,
                                   int64_t &scale) {
  MatmulOp mm;
  tmpl.walk([&](MatmulOp op) { mm = op; });
  if (!mm)
    return {};
  auto cType = llvm::cast<RankedTensorType>(mm.getType());
  int64_t r = cType.getRank();
  if (r < 3 || !cType.isDynamicDim(0) ||
      llvm::cast<RankedTensorType>(mm.getRhs().getType()).getRank() != 2)
    return {};
  for (int64_t d = 1; d < r; ++d)
    if (cType.isDynamicDim(d))
      return {};
  bool aT = false;
  (void)untransposed(mm.getLhs(), aT);
  if (aT)
    return {};
  ArrayRef<int64_t> rows = cType.getShape().drop_back();
  scale = 1;
  for (int64_t d : rows.drop_front())
    scale *= d;

  OpBuilder b(tmpl);
  auto copy = llvm::cast<func::FuncOp>(b.clone(*tmpl));
  copy.setName(name);
  MatmulOp cmm;
  copy.walk([&](MatmulOp op) { cmm = op; });
  // B, and what B is read through (a transpose, a dequantize), keep their
  // types.
  llvm::DenseSet<Value> bSide{cmm.getRhs()};
  llvm::DenseSet<Operation *> bOps;
  if (Operation *def = cmm.getRhs().getDefiningOp()) {
    if (!llvm::isa<PermuteOp, DequantizeOp>(def)) {
      copy.erase();
      return {};
    }
    bOps.insert(def);
    bSide.insert(def->getOperand(0));
  }
  auto merged = [&](Type t) -> Type {
    auto rt = llvm::dyn_cast<RankedTensorType>(t);
    if (!rt || rt.getRank() > r)
      return {};
    if (rt.getRank() <= 1)
      return rt;
    SmallVector<int64_t> dims(r - rt.getRank(), 1);
    dims.append(rt.getShape().begin(), rt.getShape().end());
    ArrayRef<int64_t> lead = ArrayRef<int64_t>(dims).drop_back();
    bool along = lead == rows;
    bool broadcast = llvm::all_of(lead, [](int64_t d) { return d == 1; });
    if (!along && !broadcast)
      return {};
    return rt.clone({along ? ShapedType::kDynamic : 1, dims.back()});
  };
  bool ok = true;
  for (BlockArgument a : copy.getArguments())
    if (!bSide.contains(a)) {
      Type t = merged(a.getType());
      ok &= bool(t);
      if (t)
        a.setType(t);
    }
  copy.walk([&](Operation *op) {
    if (!ok || bOps.contains(op) || op == copy.getOperation() ||
        llvm::isa<func::ReturnOp>(op))
      return;
    for (NamedAttribute at : op->getAttrs())
      if (llvm::isa<DenseI64ArrayAttr>(at.getValue()) ||
          at.getName() == "axis" || at.getName() == "axes")
        ok = false;
    for (Value v : op->getResults()) {
      Type t = merged(v.getType());
      if (!t || (llvm::isa<ConstantOp>(op) && t != v.getType())) {
        ok = false;
        return;
      }
      v.setType(t);
    }
  });
  if (ok) {
    auto ret = llvm::cast<func::ReturnOp>(copy.getBody().front().getTerminator());
    copy.setFunctionType(b.getFunctionType(
        copy.getBody().front().getArgumentTypes(), ret.getOperandTypes()));
    ScopedDiagnosticHandler quiet(copy.getContext(),
                                  [](Diagnostic &) { return success(); });
    ok = succeeded(mlir::verify(copy));
  }
  if (!ok) {
    copy.erase();
    return {};
  }
  return copy;
}

LogicalResult kernelgen::generateMatmul(func::FuncOp tmpl, ModuleOp module,
                                        const MatmulTiling &tiling) {
  // Rows [S, T] of a B without batch dims: generated as S * T rows.
  if (!llvm::all_of(tmpl.getArgumentTypes(), [](Type t) {
        auto r = llvm::dyn_cast<RankedTensorType>(t);
        return !r || r.hasStaticShape();
      })) {
    int64_t scale = 1;
    std::string name = (tmpl.getName() + "__rows").str();
    if (func::FuncOp rows = mergedRowsCopy(tmpl, name, scale)) {
      LogicalResult ok = generateMatmul(rows, module, tiling);
      bool generated = succeeded(ok) && module.lookupSymbol(name + "__p0");
      for (int phase = 0;; ++phase) {
        auto fn = module.lookupSymbol<func::FuncOp>(name + "__p" +
                                                   std::to_string(phase));
        if (!fn)
          break;
        if (!generated) {
          fn.erase();
          continue;
        }
        // The phases are the template's, at `scale` times its size.
        fn.setName((tmpl.getName() + "__p" + Twine(phase)).str());
        fn->setAttr(kKernelOfAttr, StringAttr::get(tmpl.getContext(),
                                                   tmpl.getName()));
        fn->setAttr(kSizeScaleAttr,
                    IntegerAttr::get(IntegerType::get(tmpl.getContext(), 64),
                                     scale));
      }
      rows.erase();
      if (generated)
        return success();
    }
  }
  const int64_t kNR = tiling.nr, kMR = tiling.mr, kMC = tiling.mc,
                kKC = tiling.kc;
  // A few rows of A: B streamed once rather than packed.
  if (succeeded(generateGemv(tmpl, module, kNR / 2 * 32)))
    return success();
  MatmulOp mm;
  tmpl.walk([&](MatmulOp op) { mm = op; });
  auto ret = llvm::cast<func::ReturnOp>(tmpl.getBody().front().getTerminator());
  if (!mm || ret.getNumOperands() != 1)
    return failure();
  Value root = ret.getOperand(0);
  auto cType = llvm::cast<RankedTensorType>(mm.getType());
  auto aType = mm.getLhs().getType(), bType = mm.getRhs().getType();
  // (A dynamic M or K is checked below.)
  if (!cType.getElementType().isF32() ||
      llvm::cast<RankedTensorType>(root.getType()) != cType)
    return generateGeneric(tmpl, module);

  // Operands: A must be an argument, an elementwise expression of
  // arguments (the prologue, evaluated while packing), or the transpose of
  // either; B an argument, its transpose, or a dequantized argument.
  bool aT = false, bT = false;
  Value aValue = untransposed(mm.getLhs(), aT);
  auto aArg = llvm::dyn_cast<BlockArgument>(aValue);
  llvm::SetVector<Operation *> prologue;
  if (!aArg && failed(collectPrologue(aValue, prologue)))
    return generateGeneric(tmpl, module);
  BlockArgument bArg;
  QuantSchemeAttr scheme;
  if (auto deq = mm.getRhs().getDefiningOp<DequantizeOp>()) {
    bArg = llvm::dyn_cast<BlockArgument>(deq.getInput());
    scheme = getQuantScheme(deq.getInput().getType());
  } else {
    bArg = llvm::dyn_cast<BlockArgument>(untransposed(mm.getRhs(), bT));
  }
  if (!bArg)
    return generateGeneric(tmpl, module);
  if (cType.hasStaticShape() && cType.getNumElements() == 0)
    return generateGeneric(tmpl, module);
  // A dynamic size S may be the leading batch dim of a batched matmul
  // whose A, B and C all have it (attention's products over [S, H, T, d]):
  // the batches are counted at run time, and M, N and K are static.
  auto leadOnly = [&](RankedTensorType t) {
    if (t.getRank() != cType.getRank() || !t.isDynamicDim(0))
      return false;
    for (int64_t d = 1; d < t.getRank(); ++d)
      if (t.isDynamicDim(d))
        return false;
    return true;
  };
  bool dynamicBatch = cType.getRank() >= 3 && leadOnly(cType) &&
                      leadOnly(aType) && leadOnly(bType) && !scheme;
  for (BlockArgument a : tmpl.getArguments()) {
    auto t = llvm::cast<RankedTensorType>(a.getType());
    if (!t.hasStaticShape() && !leadOnly(t))
      dynamicBatch = false;
  }
  // Or M of a plain [M, K] x [K, N] (the batch rows of a layer): M is then
  // read from the sizes argument, and the rest of the shapes are static.
  // Other dynamic forms are not tiled: the caller decides
  // (--kiln-generate-kernels' generic-dynamic-matmuls).
  const bool dynamicM = !cType.hasStaticShape() && !dynamicBatch;
  // Or K of a plain matmul with C static (a weight's gradient, x^T dy,
  // sums over the batch rows): the k slices are counted at run time.
  const bool dynamicK = !dynamicM && !dynamicBatch &&
                        (!aType.hasStaticShape() || !bType.hasStaticShape());
  if (dynamicK) {
    ArrayRef<int64_t> bs = bType.getShape();
    bool ok = cType.getRank() == 2 && aType.getRank() == 2 &&
              bType.getRank() == 2 && ShapedType::isDynamic(bs[0]) &&
              !ShapedType::isDynamic(bs[1]) && !bT && aT && !scheme &&
              ShapedType::isDynamic(aType.getShape().back()) &&
              aType.getNumDynamicDims() == 1;
    for (BlockArgument a : tmpl.getArguments()) {
      auto t = llvm::cast<RankedTensorType>(a.getType());
      if (!t.hasStaticShape() && t.getRank() != 2)
        ok = false;
    }
    if (!ok)
      return failure();
  }
  if (dynamicM) {
    auto isStatic = [](Type t) {
      return llvm::cast<RankedTensorType>(t).hasStaticShape();
    };
    ArrayRef<int64_t> as = aType.getShape();
    bool ok = cType.getRank() == 2 && cType.isDynamicDim(0) &&
              !cType.isDynamicDim(1) && aType.getRank() == 2 &&
              aType.isDynamicDim(0) && !aType.isDynamicDim(1) &&
              isStatic(bType) && !aT && as.size() == 2 && bType.getRank() == 2;
    for (BlockArgument a : tmpl.getArguments()) {
      auto t = llvm::cast<RankedTensorType>(a.getType());
      for (int64_t d = 0; d < t.getRank(); ++d)
        if (t.isDynamicDim(d) && !(t.getRank() == 2 && d == 0))
          ok = false;
    }
    if (!ok)
      return failure();
  }

  MatmulShape s;
  ArrayRef<int64_t> cs = cType.getShape();
  s.batch.assign(cs.begin(), cs.end() - 2);
  s.m = cs[cs.size() - 2];
  s.n = cs.back();
  s.k = aType.getShape().back();
  Layout aB = layoutOf(aType.getShape().drop_back(2), s.batch);
  Layout bB = layoutOf(bType.getShape().drop_back(2), s.batch);
  s.aBatchStrides = aB.strides;
  s.bBatchStrides = bB.strides;
  // With a dynamic batch, the static part of each count; the batch is
  // taken as large where it decides the tiling.
  constexpr int64_t kDynamicBatchGuess = 16;
  for (int64_t d : bType.getShape().drop_back(2))
    s.bBatches *= ShapedType::isDynamic(d) ? 1 : d;
  int64_t cBatches = 1;
  for (int64_t d : s.batch)
    cBatches *= ShapedType::isDynamic(d) ? 1 : d;
  const int64_t cBatchesStatic = cBatches;
  if (dynamicBatch)
    cBatches *= kDynamicBatchGuess;

  // The epilogue's other operands, laid out against C.
  // The prologue's operands, laid out against A as stored (before any
  // transpose); an argument only the prologue reads has no layout against
  // C.
  auto readOutside = [&](BlockArgument a) {
    return llvm::any_of(a.getUsers(), [&](Operation *u) {
      return !prologue.contains(u);
    });
  };
  ArrayRef<int64_t> aStored =
      llvm::cast<RankedTensorType>(aValue.getType()).getShape();
  SmallVector<Layout> layouts, proLayouts;
  for (BlockArgument a : tmpl.getArguments()) {
    auto t = llvm::cast<RankedTensorType>(a.getType());
    // A itself, when it is an argument, is packed as a prologue of no ops.
    bool forPrologue =
        a == aArg || llvm::any_of(a.getUsers(), [&](Operation *u) {
          return prologue.contains(u);
        });
    // Whether the argument broadcasts to A; a dynamic dim (S) stands for
    // the same size on both sides.
    auto withS = [](ArrayRef<int64_t> dims) {
      ::kiln::rules::Dims d(dims.begin(), dims.end());
      for (int64_t &x : d)
        if (ShapedType::isDynamic(x))
          x = int64_t(1) << 20;
      return d;
    };
    ::kiln::rules::Dims expanded;
    if (forPrologue &&
        (getQuantScheme(t) ||
         !::kiln::rules::expand(withS(t.getShape()), withS(aStored), expanded)
              .empty()))
      return generateGeneric(tmpl, module);
    proLayouts.push_back(forPrologue ? layoutOf(t.getShape(), aStored)
                                     : Layout{});
    if (getQuantScheme(t) || t.getRank() > cType.getRank() || !readOutside(a))
      layouts.push_back({});
    else
      layouts.push_back(layoutOf(t.getShape(), cs));
  }

  // Epilogue operands that vary along both rows and columns of C: their
  // tile rows are prefetched before the last slice's k loop.
  // A use by the epilogue: not the matmul, its prologue or what packing
  // reads (a dequantize or transpose of B).
  auto inEpilogue = [&](Operation *u) {
    return u != mm.getOperation() && !prologue.contains(u) &&
           !llvm::isa<DequantizeOp, PermuteOp>(u);
  };
  SmallVector<unsigned> epilogueArgs;
  for (BlockArgument a : tmpl.getArguments()) {
    const Layout &l = layouts[a.getArgNumber()];
    bool readByEpilogue = llvm::any_of(a.getUsers(), inEpilogue);
    if (readByEpilogue && l.strides.size() >= 2 &&
        l.strides[l.strides.size() - 2] != 0 && l.strides.back() != 0)
      epilogueArgs.push_back(a.getArgNumber());
  }
  // An argument of C's type that only the epilogue reads (an SGD update's
  // weights) may share C's buffer when K is one slice: each tile reads its
  // elements of it before it stores the same elements of C, and no partial
  // sums are stored in C first. The runtime then writes C over it when it
  // dies here, which saves the read of every line of C before its store.
  int64_t kSlices = dynamicK ? 0 : std::max<int64_t>((s.k + kKC - 1) / kKC, 1);
  int64_t inPlaceArg = -1;
  if (kSlices == 1)
    for (BlockArgument a : tmpl.getArguments())
      if (a.getType() == cType && !a.use_empty() &&
          llvm::all_of(a.getUsers(), inEpilogue)) {
        inPlaceArg = a.getArgNumber();
        break;
      }

  // Map template arguments to ABI slots (a quantized one takes two).
  SmallVector<unsigned> slotOf;
  unsigned slot = 0;
  for (BlockArgument a : tmpl.getArguments()) {
    slotOf.push_back(slot);
    slot += getQuantScheme(a.getType()) ? 2 : 1;
  }

  OpBuilder b(tmpl.getContext());
  Location loc = tmpl.getLoc();
  Abi abi = abiOf(tmpl, /*workspace=*/true);
  Type f32 = b.getF32Type();
  auto vecT = VectorType::get({kNR}, f32);
  auto maskT = VectorType::get({kNR}, b.getI1Type());
  int64_t panels = (s.n + kNR - 1) / kNR;
  int64_t mPanels = dynamicM ? 0 : (s.m + kMR - 1) / kMR;
  int64_t aBatches = 1;
  for (int64_t d : aType.getShape().drop_back(2))
    aBatches *= ShapedType::isDynamic(d) ? 1 : d;
  int64_t packedAFloats = aBatches * kSlices * mPanels * kKC * kMR;
  const bool dynamic = dynamicM || dynamicK || dynamicBatch;
  // The workspace runs on past packed A by as much as the micro-kernel
  // asks for ahead of what it reads, so that those addresses need no
  // clamp (integer ops on the FMA ports).
  const int64_t aheadFloats = (kAPrefetchSteps + kUnroll) * kMR;
  int64_t workspaceFloats = packedAFloats + aheadFloats;
  // M, its row panels and the sizes that follow, at run time when dynamic.
  auto mValues = [&](Block &entry) {
    struct {
      Value m, mPanels, k, kSlices, packedAFloats, workspaceFloats;
    } v;
    if (!dynamic) {
      // Static: each use makes its constant where it is used.
      return v;
    }
    v.m = cidx(b, loc, s.m);
    v.mPanels = cidx(b, loc, mPanels);
    v.k = cidx(b, loc, s.k);
    v.kSlices = cidx(b, loc, kSlices);
    if (dynamicM) {
      v.m = dynamicSize(b, loc, entry, abi);
      v.mPanels = arith::DivUIOp::create(
          b, loc, add(b, loc, v.m, cidx(b, loc, kMR - 1)), cidx(b, loc, kMR));
      v.packedAFloats = mul(b, loc, v.mPanels, aBatches * kSlices * kKC * kMR);
    } else if (dynamicBatch) {
      v.packedAFloats =
          mul(b, loc, dynamicSize(b, loc, entry, abi), packedAFloats);
    } else if (dynamicK) {
      v.k = dynamicSize(b, loc, entry, abi);
      v.kSlices = arith::DivUIOp::create(
          b, loc, add(b, loc, v.k, cidx(b, loc, kKC - 1)), cidx(b, loc, kKC));
      // At least one slice: an empty K still writes C (zeros, epilogue).
      v.kSlices = arith::MaxUIOp::create(b, loc, v.kSlices, cidx(b, loc, 1));
      v.packedAFloats = mul(b, loc, v.kSlices, aBatches * mPanels * kKC * kMR);
    }
    v.workspaceFloats = add(b, loc, v.packedAFloats, cidx(b, loc, aheadFloats));
    return v;
  };
  // The dynamic value when there is one, else the constant.
  auto sized = [&](Value v, int64_t c) { return v ? v : cidx(b, loc, c); };
  // x * (the dynamic value, or the constant c).
  auto mulSized = [&](Value x, Value v, int64_t c) {
    return v ? Value(arith::MulIOp::create(b, loc, x, v)) : mul(b, loc, x, c);
  };
  auto setWorkspace = [&](func::FuncOp fn) {
    if (dynamicM)
      fn->setAttr(kWorkspacePerAttr,
                  b.getDenseI64ArrayAttr({aBatches * kSlices * kKC * kMR * 4,
                                          kMR, aheadFloats * 4}));
    else if (dynamicBatch)
      fn->setAttr(kWorkspacePerAttr,
                  b.getDenseI64ArrayAttr({packedAFloats * 4, 1,
                                          aheadFloats * 4}));
    else if (dynamicK)
      fn->setAttr(kWorkspacePerAttr,
                  b.getDenseI64ArrayAttr({aBatches * mPanels * kKC * kMR * 4,
                                          kKC, aheadFloats * 4}));
    else
      fn->setAttr(kWorkspaceAttr, b.getI64IntegerAttr(workspaceFloats * 4));
  };

  //===--- Phase 0: pack A -------------------------------------------------===//
  // Panels of MR rows of A, rows past M zero, each k slice of a panel
  // k-major and the panels of one slice contiguous: a tile reads its A as
  // one run, and a row block of A streams in order. A is packed once here,
  // however many column blocks read it.
  {
    int64_t groups = (mPanels + kRowPanelGroup - 1) / kRowPanelGroup;
    // A small A is packed on one thread: waking another costs more.
    int64_t packUnits = aBatches * groups;
    int64_t packGrain =
        dynamic ? 1
                : std::max<int64_t>(
                       1, kMinTaskBytes /
                              std::max<int64_t>(1, aBatches * s.m * s.k * 4 /
                                                       std::max<int64_t>(
                                                           packUnits, 1)));
    func::FuncOp fn =
        createPhase(b, module, tmpl, 0, abi, packUnits, packGrain);
    // Packing A (and its prologue) is vector code as written.
    fn->setAttr(kVectorCodeAttr, b.getUnitAttr());
    setWorkspace(fn);
    // Dynamic M (one batch): ceil(S / (MR * group)) groups of row panels.
    if (dynamicM)
      fn->setAttr(kUnitsPerAttr,
                  b.getDenseI64ArrayAttr({1, kMR * kRowPanelGroup}));
    // Dynamic batch: S times the static batches' groups.
    if (dynamicBatch)
      fn->setAttr(kUnitsPerAttr, b.getDenseI64ArrayAttr({packUnits, 1}));
    Block &entry = fn.getBody().front();
    b.setInsertionPoint(entry.getTerminator());
    auto mv = mValues(entry);
    Value ws = workspaceArg(entry, abi);
    Value packed = memref::ViewOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, f32), ws,
        cidx(b, loc, 0), ValueRange{sized(mv.packedAFloats, packedAFloats)});
    Value one = cidx(b, loc, 1);
    auto units = scf::ForOp::create(b, loc, entry.getArgument(0),
                                    entry.getArgument(1), one);
    b.setInsertionPointToStart(units.getBody());
    Value u = units.getInductionVar();
    Value ab =
        dynamicM
            ? cidx(b, loc, 0)
            : Value(arith::DivUIOp::create(b, loc, u, cidx(b, loc, groups)));
    Value rpFrom = mul(b, loc,
                       dynamicM ? u
                                : Value(arith::RemUIOp::create(
                                      b, loc, u, cidx(b, loc, groups))),
                       kRowPanelGroup);
    Value rpTo = minv(b, loc, add(b, loc, rpFrom, cidx(b, loc, kRowPanelGroup)),
                      sized(mv.mPanels, mPanels));
    // Where the MR values of row panel rp at k go.
    auto dstOf = [&](Value k, Value rp) {
      Value ks = arith::DivUIOp::create(b, loc, k, cidx(b, loc, kKC));
      Value kk = arith::RemUIOp::create(b, loc, k, cidx(b, loc, kKC));
      return add(
          b, loc,
          mul(b, loc,
              add(b, loc,
                  mulSized(add(b, loc, mulSized(ab, mv.kSlices, kSlices), ks),
                           mv.mPanels, mPanels),
                  rp),
              kKC * kMR),
          mul(b, loc, kk, kMR));
    };
    if (failed(packPrologue(b, loc, entry, aValue, aT, sized(mv.m, s.m),
                            sized(mv.k, s.k), kMR, ab, rpFrom, rpTo,
                            aType.getShape().drop_back(2), proLayouts, slotOf,
                            packed, dstOf))) {
      module.lookupSymbol<func::FuncOp>((tmpl.getName() + "__p0").str())
          .erase();
      return generateGeneric(tmpl, module);
    }
  }

  //===--- Phase 1: pack B slices, micro-kernel over the tiles
  //--------------===//
  // A work unit owns a block of columns of C (and, when there are too few
  // of those for the threads, a group of row panels). For every KC-deep
  // slice of K it packs its columns of B into panels of NR columns (one
  // vector per row, masked on the last panel; 8x8 transposes, and gathers
  // at the edges, when B is transposed; element by element when B is
  // dequantized). Every row block of packed A then passes over that slice,
  // and each panel of it stays in L1 while the MC/MR row panels of a row
  // block run the micro-kernel against it. When the k slice of all of A
  // fits in L2, a narrow column block keeps the slice of B there beside
  // it; otherwise a wider block lets each row block of A (read from L3)
  // serve more panels.
  // (A dynamic M is taken as large: the tiling does not depend on it.)
  bool aFitsL2 = !dynamicM && s.m * kKC * 4 <= kL2SliceBytes;
  int64_t ppb = std::min<int64_t>(
      std::max<int64_t>((aFitsL2 ? tiling.ncSmallM : tiling.nc) / kNR, 1),
      std::max<int64_t>(panels, 1));
  ppb = std::max<int64_t>(
      std::min<int64_t>(ppb, kMaxBSliceBytes / (kKC * kNR * 4)), 1);
  int64_t nBlocks = std::max<int64_t>((panels + ppb - 1) / ppb, 1);
  if (cBatches * nBlocks < kMinUnits) {
    int64_t wanted = (kMinUnits + cBatches - 1) / cBatches;
    ppb = std::max<int64_t>((panels + wanted - 1) / wanted,
                            std::min<int64_t>(kMinPanelsPerBlock, ppb));
    nBlocks = std::max<int64_t>((panels + ppb - 1) / ppb, 1);
  }
  int64_t mGroups = 1;
  if (cBatches * nBlocks < kMinUnits)
    mGroups = (kMinUnits + cBatches * nBlocks - 1) / (cBatches * nBlocks);
  // With a dynamic M the groups are fixed and their panels counted at run
  // time (a group past the last panel has nothing to do).
  int64_t rpPerGroup = 0;
  if (!dynamicM) {
    mGroups = std::min<int64_t>(mGroups, mPanels);
    rpPerGroup = (mPanels + mGroups - 1) / mGroups;
    mGroups = std::max<int64_t>((mPanels + rpPerGroup - 1) / rpPerGroup, 1);
  }
  int64_t rowBlockPanels = std::max<int64_t>(kMC / kMR, 1);

  // A task does at least kMinTaskFlops (a batch of tiny products, as
  // attention's when decoding, runs on one thread).
  int64_t phaseUnits =
      (dynamicBatch ? cBatchesStatic : cBatches) * nBlocks * mGroups;
  int64_t grain = 1;
  if (!dynamic) {
    double unitFlops = 2.0 * cBatches * s.m * s.n * s.k / phaseUnits;
    grain = std::max<int64_t>(
        1, static_cast<int64_t>(kMinTaskFlops / std::max(unitFlops, 1.0)));
  }
  func::FuncOp fn = createPhase(b, module, tmpl, 1, abi, phaseUnits, grain);
  if (dynamicBatch)
    fn->setAttr(kUnitsPerAttr, b.getDenseI64ArrayAttr({phaseUnits, 1}));
  // The micro-kernel and its epilogue are vector code as written; so is
  // the packing of B, but for a quantized B's (a scalar loop).
  if (!scheme)
    fn->setAttr(kVectorCodeAttr, b.getUnitAttr());
  if (inPlaceArg >= 0)
    fn->setAttr(kInPlaceAttr, b.getI64IntegerAttr(inPlaceArg));
  Block &entry = fn.getBody().front();
  b.setInsertionPoint(entry.getTerminator());
  auto arg = [&](unsigned i) { return entry.getArgument(2 + i); };
  BSource src{arg(slotOf[bArg.getArgNumber()]),
              scheme ? arg(slotOf[bArg.getArgNumber()] + 1) : Value(), scheme};
  Value out = arg(abi.numInputs);
  Value ws = workspaceArg(entry, abi);
  setWorkspace(fn);
  auto mv = mValues(entry);
  Value packedA = memref::ViewOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, f32), ws, cidx(b, loc, 0),
      ValueRange{sized(mv.workspaceFloats, workspaceFloats)});
  // On the heap, once per call (the calling thread's stack may be small),
  // and aligned to a cache line, so that no row of a panel straddles two.
  Value packedB = memref::AllocOp::create(
      b, loc, MemRefType::get({kKC * ppb * kNR}, f32), ValueRange{},
      b.getI64IntegerAttr(64));
  Value zero = cidx(b, loc, 0), one = cidx(b, loc, 1);
  Value zeroF = constantOf(b, loc, f32, 0.0);
  Value zeroVec = constantOf(b, loc, vecT, 0.0);
  // A row of NR lanes of a panel: whole when the panel is (`full`), masked
  // (zeros past N) on the last one. Masked stores are microcoded and slow on
  // AVX2 machines, and the branch goes the same way for a whole panel.
  auto loadRow = [&](Value buf, Value idx, Value full, Value mask) -> Value {
    auto ifFull = scf::IfOp::create(b, loc, TypeRange{vecT}, full, true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifFull.getThenRegion().front());
    scf::YieldOp::create(
        b, loc, vector::LoadOp::create(b, loc, vecT, buf, ValueRange{idx})
                    .getResult());
    b.setInsertionPointToStart(&ifFull.getElseRegion().front());
    scf::YieldOp::create(b, loc,
                         vector::MaskedLoadOp::create(b, loc, vecT, buf,
                                                      ValueRange{idx}, mask,
                                                      zeroVec)
                             .getResult());
    return ifFull.getResult(0);
  };
  auto storeRow = [&](Value buf, Value idx, Value v, Value full, Value mask) {
    auto ifFull = scf::IfOp::create(b, loc, TypeRange{}, full, true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifFull.getThenRegion().front());
    vector::StoreOp::create(b, loc, v, buf, ValueRange{idx});
    b.setInsertionPointToStart(&ifFull.getElseRegion().front());
    vector::MaskedStoreOp::create(b, loc, buf, ValueRange{idx}, mask, v);
  };

  auto units =
      scf::ForOp::create(b, loc, entry.getArgument(0), entry.getArgument(1), one);
  b.setInsertionPointToStart(units.getBody());
  Value u = units.getInductionVar();
  Value bc = arith::DivUIOp::create(b, loc, u, cidx(b, loc, nBlocks * mGroups));
  u = arith::RemUIOp::create(b, loc, u, cidx(b, loc, nBlocks * mGroups));
  Value nb = arith::DivUIOp::create(b, loc, u, cidx(b, loc, mGroups));
  Value mg = arith::RemUIOp::create(b, loc, u, cidx(b, loc, mGroups));
  Value pBegin = mul(b, loc, nb, ppb);
  Value pEnd = minv(b, loc, add(b, loc, pBegin, cidx(b, loc, ppb)),
                    cidx(b, loc, panels));
  Value rpPerGroupV =
      dynamicM ? Value(arith::DivUIOp::create(
                     b, loc, add(b, loc, mv.mPanels, cidx(b, loc, mGroups - 1)),
                     cidx(b, loc, mGroups)))
               : Value();
  Value rpBegin = mulSized(mg, rpPerGroupV, rpPerGroup);
  Value rpEnd =
      minv(b, loc, add(b, loc, rpBegin, sized(rpPerGroupV, rpPerGroup)),
           sized(mv.mPanels, mPanels));
  SmallVector<SmallVector<int64_t>> batchStrides{s.aBatchStrides, s.bBatchStrides};
  for (const Layout &l : layouts)
    batchStrides.push_back(l.strides.empty()
                               ? SmallVector<int64_t>(s.batch.size(), 0)
                               : SmallVector<int64_t>(l.strides.begin(),
                                                      l.strides.end() - 2));
  SmallVector<Value> boffs = offsetsFromLinear(b, loc, bc, s.batch, batchStrides);
  Value aPackBase =
      dynamic ? Value(arith::MulIOp::create(
                    b, loc, boffs[0],
                    mul(b, loc,
                        arith::MulIOp::create(b, loc, mv.mPanels, mv.kSlices),
                        kKC * kMR)))
              : mul(b, loc, boffs[0], kSlices * mPanels * kKC * kMR);
  Value bSrcBase = dynamicK ? Value(arith::MulIOp::create(
                                  b, loc, boffs[1], mul(b, loc, mv.k, s.n)))
                            : mul(b, loc, boffs[1], s.k * s.n);
  Value cBase =
      dynamicM
          ? Value(arith::MulIOp::create(b, loc, bc, mul(b, loc, mv.m, s.n)))
          : mul(b, loc, bc, s.m * s.n);

  auto kcLoop =
      scf::ForOp::create(b, loc, zero, sized(mv.kSlices, kSlices), one);
  b.setInsertionPointToStart(kcLoop.getBody());
  Value kc = mul(b, loc, kcLoop.getInductionVar(), kKC);
  Value kb = minv(b, loc, cidx(b, loc, kKC),
                  arith::SubIOp::create(b, loc, sized(mv.k, s.k), kc));
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      kcLoop.getInductionVar(), zero);
  Value last = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, kcLoop.getInductionVar(),
      dynamicK ? Value(arith::SubIOp::create(b, loc, mv.kSlices, one))
               : cidx(b, loc, kSlices - 1));

  // Pack B[kc : kc + kb, this block's columns]. A row-major B is walked
  // row by row across the block, each stored row read as one run; a
  // transposed B panel by panel, each of its NR stored rows read along k.
  {
    OpBuilder::InsertionGuard g(b);
    Value p, kk, n0, panelBase;
    auto panelAt = [&](Value panel) {
      p = panel;
      n0 = mul(b, loc, p, kNR);
      panelBase =
          mul(b, loc, arith::SubIOp::create(b, loc, p, pBegin), kKC * kNR);
    };
    if (bT) {
      // B is stored as [N, K]. On a whole panel, 8 x 8 blocks (8 stored
      // rows, 8 consecutive k) are loaded as 8 vectors and transposed with
      // shuffles; the k rows past the last whole block, and a partial
      // panel, are gathered below.
      auto pLoop = scf::ForOp::create(b, loc, pBegin, pEnd, one);
      b.setInsertionPointToStart(pLoop.getBody());
      panelAt(pLoop.getInductionVar());
      Value whole = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ule, add(b, loc, n0, cidx(b, loc, kNR)),
          cidx(b, loc, s.n));
      Value kMain = arith::SelectOp::create(
          b, loc, whole,
          arith::SubIOp::create(b, loc, kb,
                                arith::RemUIOp::create(b, loc, kb, cidx(b, loc, 8))),
          zero);
      {
        OpBuilder::InsertionGuard g2(b);
        auto blkLoop = scf::ForOp::create(b, loc, zero, kMain, cidx(b, loc, 8));
        b.setInsertionPointToStart(blkLoop.getBody());
        Value k0 = blkLoop.getInductionVar();
        auto row8 = VectorType::get({8}, f32);
        for (int64_t c0 = 0; c0 < kNR; c0 += 8) {
          SmallVector<Value> r;
          for (int64_t i = 0; i < 8; ++i)
            r.push_back(vector::LoadOp::create(
                b, loc, row8, src.values,
                ValueRange{add(b, loc, add(b, loc, bSrcBase, add(b, loc, kc, k0)),
                               mul(b, loc, add(b, loc, n0, cidx(b, loc, c0 + i)),
                                   s.k))}));
          SmallVector<Value> t = transpose8x8(b, loc, r);
          for (int64_t j = 0; j < 8; ++j)
            vector::StoreOp::create(
                b, loc, t[j], packedB,
                ValueRange{add(b, loc, panelBase,
                               add(b, loc, mul(b, loc, add(b, loc, k0, cidx(b, loc, j)),
                                               kNR),
                                   cidx(b, loc, c0)))});
        }
      }
      auto kLoop = scf::ForOp::create(b, loc, kMain, kb, one);
      b.setInsertionPointToStart(kLoop.getBody());
      kk = kLoop.getInductionVar();
    } else {
      auto kLoop = scf::ForOp::create(b, loc, zero, kb, one);
      b.setInsertionPointToStart(kLoop.getBody());
      auto pLoop = scf::ForOp::create(b, loc, pBegin, pEnd, one);
      b.setInsertionPointToStart(pLoop.getBody());
      panelAt(pLoop.getInductionVar());
      kk = kLoop.getInductionVar();
    }
    Value k = add(b, loc, kc, kk);
    Value cols = minv(b, loc, cidx(b, loc, kNR),
                      arith::SubIOp::create(b, loc, cidx(b, loc, s.n), n0));
    Value rowDst = add(b, loc, panelBase, mul(b, loc, kk, kNR));
    if (bT) {
      // B is stored as [N, K]: a row of the panel gathers one element from
      // each of NR stored rows. Columns past N read the last one and are
      // zeroed: no branch.
      Value lastCol = arith::SubIOp::create(b, loc, cols, one);
      SmallVector<Value> lanes;
      for (int64_t c = 0; c < kNR; ++c) {
        Value col = minv(b, loc, cidx(b, loc, c), lastCol);
        Value idx = add(b, loc, add(b, loc, bSrcBase, k),
                        mul(b, loc, add(b, loc, n0, col), s.k));
        Value v = memref::LoadOp::create(b, loc, src.values, idx);
        Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             cidx(b, loc, c), cols);
        lanes.push_back(arith::SelectOp::create(b, loc, inside, v, zeroF));
      }
      vector::StoreOp::create(
          b, loc, vector::FromElementsOp::create(b, loc, vecT, lanes), packedB,
          ValueRange{rowDst});
    } else {
      Value rowSrc = add(b, loc, add(b, loc, bSrcBase, mul(b, loc, k, s.n)), n0);
      if (!scheme) {
        // A row of the panel is one vector: a plain load inside B, a masked
        // one (zeros past N) on the last panel.
        Value colMask =
            vector::CreateMaskOp::create(b, loc, maskT, ValueRange{cols});
        Value full = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           cols, cidx(b, loc, kNR));
        vector::StoreOp::create(b, loc,
                                loadRow(src.values, rowSrc, full, colMask),
                                packedB, ValueRange{rowDst});
      } else {
        auto cLoop = scf::ForOp::create(b, loc, zero, cidx(b, loc, kNR), one);
        b.setInsertionPointToStart(cLoop.getBody());
        Value c = cLoop.getInductionVar();
        Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             c, cols);
        auto ifOp = scf::IfOp::create(b, loc, TypeRange{f32}, inside, true);
        {
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPointToStart(&ifOp.getThenRegion().front());
          scf::YieldOp::create(b, loc,
                               src.load(b, loc, add(b, loc, rowSrc, c)));
          b.setInsertionPointToStart(&ifOp.getElseRegion().front());
          scf::YieldOp::create(b, loc, zeroF);
        }
        memref::StoreOp::create(b, loc, ifOp.getResult(0), packedB,
                                ValueRange{add(b, loc, rowDst, c)});
      }
    }
  }

  // Tiles: row blocks of MC rows, then every panel of the block, then every
  // row panel of the row block.
  auto rbLoop =
      scf::ForOp::create(b, loc, rpBegin, rpEnd, cidx(b, loc, rowBlockPanels));
  b.setInsertionPointToStart(rbLoop.getBody());
  Value rbEnd = minv(b, loc,
                     add(b, loc, rbLoop.getInductionVar(),
                         cidx(b, loc, rowBlockPanels)),
                     rpEnd);
  auto pLoop = scf::ForOp::create(b, loc, pBegin, pEnd, one);
  b.setInsertionPointToStart(pLoop.getBody());
  Value p = pLoop.getInductionVar();
  Value n0 = mul(b, loc, p, kNR);
  Value cols = minv(b, loc, cidx(b, loc, kNR),
                    arith::SubIOp::create(b, loc, cidx(b, loc, s.n), n0));
  Value colMask = vector::CreateMaskOp::create(b, loc, maskT, ValueRange{cols});
  // Rows of C and of the epilogue's operands are read and written whole on
  // every panel but the last.
  Value fullPanel = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          cols, cidx(b, loc, kNR));
  Value bPanel = mul(b, loc, arith::SubIOp::create(b, loc, p, pBegin),
                     kKC * kNR);
  auto irLoop = scf::ForOp::create(b, loc, rbLoop.getInductionVar(), rbEnd, one);
  b.setInsertionPointToStart(irLoop.getBody());
  Value ir = irLoop.getInductionVar();
  Value aPanel =
      add(b, loc, aPackBase,
          mul(b, loc,
              add(b, loc,
                  mulSized(kcLoop.getInductionVar(), mv.mPanels, mPanels), ir),
              kKC * kMR));

  // The tiles of a k slice share out the B this unit packs next, so that
  // packing it finds it in L2: this block's next k slice or, on the last
  // slice, the first slice of the next unit this thread runs. Each tile
  // asks for `perTile` of its rows (a transposed B: its columns), a line or
  // two per chunk of its k loop (below): asked for at once, the misses of a
  // tile's share fill the line fill buffers and stall the micro-kernel.
  int64_t bShareLines = 0;
  std::function<void(Value)> prefetchBLine;
  if (!scheme) {
    int64_t blockCols = ppb * kNR;
    int64_t items = bT ? blockCols : kKC;
    // (With a dynamic M, a row block's panels stand for the unit's.)
    int64_t tiles = ppb * (dynamicM ? rowBlockPanels : rpPerGroup);
    int64_t perTile = (items + tiles - 1) / tiles;
    Value t = add(b, loc,
                  arith::MulIOp::create(
                      b, loc, arith::SubIOp::create(b, loc, p, pBegin),
                      arith::SubIOp::create(b, loc, rpEnd, rpBegin)),
                  arith::SubIOp::create(b, loc, ir, rpBegin));
    Value nextUnit = add(b, loc, units.getInductionVar(), one);
    Value nextIn = arith::RemUIOp::create(b, loc, nextUnit,
                                          cidx(b, loc, nBlocks * mGroups));
    Value nextBlock0 = mul(
        b, loc,
        mul(b, loc, arith::DivUIOp::create(b, loc, nextIn, cidx(b, loc, mGroups)),
            ppb),
        kNR);
    Value nextSrcBase = arith::MulIOp::create(
        b, loc,
        offsetsFromLinear(
            b, loc,
            arith::DivUIOp::create(b, loc, nextUnit,
                                   cidx(b, loc, nBlocks * mGroups)),
            s.batch, {s.bBatchStrides})[0],
        dynamicK ? mul(b, loc, mv.k, s.n) : cidx(b, loc, s.k * s.n));
    auto pick = [&](Value ifLast, Value otherwise) -> Value {
      return arith::SelectOp::create(b, loc, last, ifLast, otherwise);
    };
    Value k0 = pick(zero, add(b, loc, kc, cidx(b, loc, kKC)));
    Value col0 = pick(nextBlock0, mul(b, loc, pBegin, kNR));
    Value srcBase = pick(nextSrcBase, bSrcBase);
    Value valid = pick(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             nextUnit, entry.getArgument(1)),
                       arith::ConstantIntOp::create(b, loc, 1, 1));
    Value lastIdx =
        dynamicK
            ? Value(arith::SubIOp::create(
                  b, loc,
                  mul(b, loc, mv.k, s.n * std::max<int64_t>(1, s.bBatches)),
                  one))
        : dynamicBatch
            ? Value(arith::SubIOp::create(
                  b, loc,
                  mul(b, loc, dynamicSize(b, loc, entry, abi),
                      s.k * s.n * std::max<int64_t>(1, s.bBatches)),
                  one))
            : cidx(b, loc, s.k * s.n * std::max<int64_t>(1, s.bBatches) - 1);
    int64_t span = bT ? std::min(kKC, s.k) : blockCols;
    int64_t linesPerItem = (span + 15) / 16; // 64-byte lines
    bShareLines = perTile * linesPerItem;
    // Line j of this tile's share: item t * perTile + j / linesPerItem.
    prefetchBLine = [=, &b](Value j) {
      Value i =
          add(b, loc, mul(b, loc, t, perTile),
              arith::DivUIOp::create(b, loc, j, cidx(b, loc, linesPerItem)));
      Value off = mul(
          b, loc, arith::RemUIOp::create(b, loc, j, cidx(b, loc, linesPerItem)),
          16);
      Value inside =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                bT ? add(b, loc, col0, i) : add(b, loc, k0, i),
                                bT ? cidx(b, loc, s.n) : sized(mv.k, s.k));
      Value want = arith::AndIOp::create(
          b, loc, valid,
          arith::AndIOp::create(
              b, loc, inside,
              arith::AndIOp::create(
                  b, loc,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i,
                                        cidx(b, loc, items)),
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j,
                                        cidx(b, loc, bShareLines)))));
      OpBuilder::InsertionGuard g(b);
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, want, false);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      Value start =
          bT ? add(b, loc,
                   add(b, loc, srcBase, mul(b, loc, add(b, loc, col0, i), s.k)),
                   k0)
             : add(b, loc,
                   add(b, loc, srcBase, mul(b, loc, add(b, loc, k0, i), s.n)),
                   col0);
      memref::PrefetchOp::create(
          b, loc, src.values,
          ValueRange{minv(b, loc, add(b, loc, start, off), lastIdx)},
          /*isWrite=*/false, /*localityHint=*/2, /*isDataCache=*/true);
    };
  }

  // Row r of the tile lives at C[ir*MR + r, n0 : n0 + NR].
  SmallVector<Value> rowOf, rowValid, rowOffset;
  for (int64_t r = 0; r < kMR; ++r) {
    Value row = add(b, loc, mul(b, loc, ir, kMR), cidx(b, loc, r));
    rowOf.push_back(row);
    rowValid.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             row, sized(mv.m, s.m)));
    rowOffset.push_back(
        add(b, loc, add(b, loc, cBase, mul(b, loc, row, s.n)), n0));
  }
  // The accumulators start at zero. The tile's rows of C (partial sums of
  // earlier K slices, read after the k loop; on every slice, lines about to
  // be stored) and, on the last slice, the rows of the epilogue's operands
  // are prefetched while the k loop runs, so that their cache misses
  // overlap the FMAs: one line of each every 2^pfShift iterations, not all
  // at once (32 misses at the start of a tile fill the line fill buffers
  // and stall the micro-kernel's own loads). A slice too short for that
  // asks for them all before its k loop.
  SmallVector<Value> init(kMR, zeroVec);
  struct RowStream {
    Value buf, base; ///< the tile's first row, at its first column
    int64_t stride;  ///< between rows
    bool write, lastSliceOnly;
  };
  SmallVector<RowStream> streams;
  streams.push_back({out, rowOffset[0], s.n, true, false});
  for (unsigned i : epilogueArgs) {
    const Layout &l = layouts[i];
    int64_t stride = l.strides[l.strides.size() - 2];
    streams.push_back({arg(slotOf[i]),
                       add(b, loc, add(b, loc, boffs[2 + i],
                                       mul(b, loc, rowOf[0], stride)),
                           n0),
                       stride, false, true});
  }
  // Two lines per row: its first and last element. They are asked for two
  // per chunk in the first half of the k loop, so that the last of them,
  // from memory when C is a large update written in place, arrive before
  // the tile's rows are stored (one per chunk over all of it, the last
  // rows' loads stalled the store of a weight update's tiles).
  int64_t pfLines = 2 * kMR;
  int64_t kSpan = dynamicK ? kKC : std::min(kKC, s.k);
  int64_t pfIters = std::max<int64_t>(kSpan / kUnroll, 1);
  int64_t pfShift = -1;
  if (pfIters >= pfLines) {
    pfShift = 0;
    while ((pfLines << (pfShift + 1)) <= pfIters)
      ++pfShift;
  }
  // Asks for line q of each stream (all lines when q is null).
  auto prefetchLines = [&](Value q) {
    for (const RowStream &st : streams) {
      OpBuilder::InsertionGuard g(b);
      if (st.lastSliceOnly) {
        auto ifLast = scf::IfOp::create(b, loc, TypeRange{}, last, false);
        b.setInsertionPointToStart(&ifLast.getThenRegion().front());
      }
      auto one = [&](Value row, Value col) {
        memref::PrefetchOp::create(
            b, loc, st.buf,
            ValueRange{add(b, loc, add(b, loc, st.base,
                                       arith::MulIOp::create(
                                           b, loc, row,
                                           cidx(b, loc, st.stride))),
                           col)},
            st.write, /*localityHint=*/3, /*isDataCache=*/true);
      };
      if (!q) {
        for (int64_t r = 0; r < kMR; ++r)
          for (int64_t off : {int64_t(0), kNR - 1})
            one(cidx(b, loc, r), cidx(b, loc, off));
        continue;
      }
      Value row = arith::DivUIOp::create(b, loc, q, cidx(b, loc, 2));
      Value col = mul(b, loc, arith::RemUIOp::create(b, loc, q, cidx(b, loc, 2)),
                      kNR - 1);
      one(row, col);
    }
  };
  if (pfShift < 0) {
    prefetchLines(Value());
    if (prefetchBLine) {
      auto all =
          scf::ForOp::create(b, loc, zero, cidx(b, loc, bShareLines), one);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(all.getBody());
      prefetchBLine(all.getInductionVar());
    }
  }
  // The k loop runs kUnroll steps per iteration (so that its counter and
  // branch take fewer of the cycles the FMA ports need), then the rest of
  // the slice one step at a time.
  auto kSteps = [&](Value kk, ValueRange acc, int64_t steps) {
    SmallVector<Value> next(acc.begin(), acc.end());
    if (steps == kUnroll) {
      // Packed A streams from L2 (a tile reads its panel once): ask for it
      // into L1 kAPrefetchSteps ahead, one line per 16 floats this
      // iteration reads. The next panel follows this one, so the stream
      // runs on across tiles.
      Value ahead =
          add(b, loc, aPanel,
              mul(b, loc, add(b, loc, kk, cidx(b, loc, kAPrefetchSteps)), kMR));
      for (int64_t off = 0; off < kUnroll * kMR; off += 16)
        memref::PrefetchOp::create(
            b, loc, packedA, ValueRange{add(b, loc, ahead, cidx(b, loc, off))},
            /*isWrite=*/false, /*localityHint=*/3,
            /*isDataCache=*/true);
    }
    for (int64_t j = 0; j < steps; ++j) {
      Value kj = add(b, loc, kk, cidx(b, loc, j));
      Value bIdx = add(b, loc, bPanel, mul(b, loc, kj, kNR));
      Value bv = vector::LoadOp::create(b, loc, vecT, packedB, ValueRange{bIdx});
      Value aIdx = add(b, loc, aPanel, mul(b, loc, kj, kMR));
      for (int64_t r = 0; r < kMR; ++r) {
        Value a = memref::LoadOp::create(
            b, loc, packedA, ValueRange{add(b, loc, aIdx, cidx(b, loc, r))});
        Value av = vector::BroadcastOp::create(b, loc, vecT, a);
        next[r] = vector::FMAOp::create(b, loc, vecT, av, bv, next[r]);
      }
    }
    return next;
  };
  // Chunks of kUnroll << pfShift steps, each asking for one line of each
  // row stream and then running its steps kUnroll at a time; whole groups
  // of kUnroll steps after the last chunk; then single steps.
  int64_t chunk = kUnroll << std::max<int64_t>(pfShift, 0);
  Value kbChunks = arith::SubIOp::create(
      b, loc, kb, arith::RemUIOp::create(b, loc, kb, cidx(b, loc, chunk)));
  Value kbMain = arith::SubIOp::create(
      b, loc, kb, arith::RemUIOp::create(b, loc, kb, cidx(b, loc, kUnroll)));
  // Runs [from, to) kUnroll steps per iteration.
  auto unrolledLoop = [&](Value from, Value to, ValueRange acc) {
    auto loop =
        scf::ForOp::create(b, loc, from, to, cidx(b, loc, kUnroll), acc);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    scf::YieldOp::create(
        b, loc,
        kSteps(loop.getInductionVar(), loop.getRegionIterArgs(), kUnroll));
    return loop;
  };
  ValueRange accs = init;
  Value mainFrom = zero;
  if (pfShift >= 0) {
    auto chunkLoop =
        scf::ForOp::create(b, loc, zero, kbChunks, cidx(b, loc, chunk), init);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(chunkLoop.getBody());
      Value kk = chunkLoop.getInductionVar();
      Value q = arith::DivUIOp::create(b, loc, kk, cidx(b, loc, chunk));
      {
        OpBuilder::InsertionGuard g2(b);
        auto early = scf::IfOp::create(
            b, loc, TypeRange{},
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, q,
                                  cidx(b, loc, pfLines / 2)),
            false);
        b.setInsertionPointToStart(&early.getThenRegion().front());
        prefetchLines(mul(b, loc, q, 2));
        prefetchLines(add(b, loc, mul(b, loc, q, 2), cidx(b, loc, 1)));
      }
      if (prefetchBLine) {
        // This chunk's lines of the tile's share of the next B.
        int64_t chunks = std::max<int64_t>(kSpan / chunk, 1);
        int64_t perChunk = (bShareLines + chunks - 1) / chunks;
        Value from = mul(b, loc, q, perChunk);
        auto lines = scf::ForOp::create(
            b, loc, from, add(b, loc, from, cidx(b, loc, perChunk)), one);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(lines.getBody());
        prefetchBLine(lines.getInductionVar());
      }
      scf::YieldOp::create(
          b, loc,
          unrolledLoop(kk, add(b, loc, kk, cidx(b, loc, chunk)),
                       chunkLoop.getRegionIterArgs())
              .getResults());
    }
    accs = chunkLoop.getResults();
    mainFrom = kbChunks;
  }
  auto kMainLoop = unrolledLoop(mainFrom, kbMain, accs);
  auto kLoop =
      scf::ForOp::create(b, loc, kbMain, kb, one, kMainLoop.getResults());
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(kLoop.getBody());
    scf::YieldOp::create(
        b, loc, kSteps(kLoop.getInductionVar(), kLoop.getRegionIterArgs(), 1));
  }

  // Store each valid row: raw partial sums, or the epilogue on the last
  // slice.
  for (int64_t r = 0; r < kMR; ++r) {
    auto ifValid = scf::IfOp::create(b, loc, TypeRange{}, rowValid[r], false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifValid.getThenRegion().front());
    Value acc = kLoop.getResult(r);
    {
      auto ifFirst = scf::IfOp::create(b, loc, TypeRange{vecT}, first, true);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
      scf::YieldOp::create(b, loc, acc);
      b.setInsertionPointToStart(&ifFirst.getElseRegion().front());
      Value partial = loadRow(out, rowOffset[r], fullPanel, colMask);
      scf::YieldOp::create(
          b, loc, arith::AddFOp::create(b, loc, acc, partial).getResult());
      acc = ifFirst.getResult(0);
    }
    auto ifLast = scf::IfOp::create(b, loc, TypeRange{vecT}, last, true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifLast.getThenRegion().front());
      Value row = rowOf[r];
      Evaluator ev(b, loc, [&](BlockArgument a) -> Value {
        unsigned i = a.getArgNumber();
        const Layout &l = layouts[i];
        Value base = add(b, loc, boffs[2 + i],
                         mul(b, loc, row, l.strides[l.strides.size() - 2]));
        Value buf = arg(slotOf[i]);
        Type et = llvm::cast<MemRefType>(buf.getType()).getElementType();
        if (l.strides.back() != 0)
          return et == vecT.getElementType()
                     ? loadRow(buf, add(b, loc, base, n0), fullPanel, colMask)
                     : loadLanes(b, loc, buf, add(b, loc, base, n0), kNR,
                                 colMask);
        Value scalar = memref::LoadOp::create(b, loc, buf, base);
        return vector::BroadcastOp::create(b, loc, VectorType::get({kNR}, et),
                                           scalar);
      });
      ev.setVectorWidth(kNR);
      ev.bind(mm.getResult(), acc);
      FailureOr<Value> v = ev.eval(root);
      if (failed(v)) {
        module.lookupSymbol<func::FuncOp>(
                  (tmpl.getName() + "__p0").str())
            .erase();
        fn.erase();
        return failure();
      }
      scf::YieldOp::create(b, loc, *v);
      b.setInsertionPointToStart(&ifLast.getElseRegion().front());
      scf::YieldOp::create(b, loc, acc);
    }
    storeRow(out, rowOffset[r], ifLast.getResult(0), fullPanel, colMask);
  }
  b.setInsertionPoint(entry.getTerminator());
  memref::DeallocOp::create(b, loc, packedB);
  return success();
}
