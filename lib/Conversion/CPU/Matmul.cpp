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
// A product of one or two column panels (attention's P @ V, a convolution
// of a few pixels) skips phase 0: its micro-kernel reads A in place, MR
// row streams, since A is read once either way; its k slices are deep
// (up to 4096), so that the streams are long enough to be prefetched.
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
// The columns of a convolution whose windows step by 1 over output rows
// as wide as the input's are shifted planes of the input: they are not
// packed, and the micro-kernel loads them from the input, masked at the
// padding (windowsKernel).
// When K is one slice, an argument of C's type that only the epilogue
// reads may share C's buffer (the runtime's choice, kiln.in_place).
// The accumulators start at zero; the tile's rows of C (the partial sums of
// earlier K slices) are prefetched before the k loop and added after it.
// On the last slice the epilogue (bias, activation, residual...) is
// applied to the tile in registers before it is stored, so it costs no
// pass over memory; its operands' rows are prefetched with C's. Rows are
// loaded and stored whole on every panel but the last, which is masked.
//
// MatmulPlan decides what needs no IR: the operands, the dynamic form, the
// tiling and the work units. MatmulEmitter then emits phase 0 (packA) and
// phase 1 (multiplyBlocks: a unit's split, packing B, the micro-kernel,
// the epilogue and the stores).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/ElementwiseEmitter.h"
#include "kiln/Conversion/KernelGen.h"
#include "kiln/Support/ShapeRules.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SetVector.h"

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
/// A product of at most this many column panels reads A where it is
/// stored instead of packing it: each row panel of A is then read once
/// (from memory, or from L2 for the second panel) either way, and packing
/// would only add a write and a read of all of A (attention's P @ V, whose
/// columns are one head; a convolution of a few output pixels).
constexpr int64_t kInPlaceAPanels = 2;
/// A convolution's weight (A, its rows the output channels) is read in
/// place against at most this many panels of packed columns (a ResNet's
/// convolutions at batch 1 past its first stage) when the windows are
/// packed: each panel's pass then reads all of A from L2 or L3, but its k
/// slices are as deep as for kInPlaceAPanels, and no pass over C is made
/// per slice of 256. A 3 x 3 convolution of 256 channels on a 14 x 14
/// image (7 panels) took 2.09 ms instead of 2.47 ms, one of 128 channels
/// on 28 x 28 (25 panels) 1.78 instead of 2.05 ms (1 thread, Intel
/// AVX-512); the convolutions whose windows are read in place (the first
/// stage's) gained nothing.
constexpr int64_t kInPlaceWeightPanels = 32;
/// A product that reads A in place keeps its block of B (kc rows of at most
/// kInPlaceAPanels panels) in L2 while A streams past it: this bounds kc
/// (4096 on 32-lane panels). Slices of 2304 instead of 256 took a 3 x 3
/// convolution of 512 channels on one 7 x 7 image (9.4 MB of weight
/// streaming from memory) from 2.7 to 2.2 ms (1 thread, Intel AVX-512).
constexpr int64_t kInPlaceBBlockBytes = 1024 * 1024;
/// k steps per iteration of the micro-kernel's main loop.
constexpr int64_t kUnroll = 4;
/// The micro-kernel that reads a convolution's windows in place unrolls
/// the taps of a channel (KH * KW); past this many it packs them.
constexpr int64_t kMaxWindowTaps = 64;
/// On 512-bit vectors the windows are read in place for at most this many
/// output channels (rows of C). On an Intel AVX-512 host a 3 x 3
/// convolution of 64 channels ran 10 to 20% faster in place, of 128 and
/// 256 channels 2% slower; on an AMD one (Zen 5), batch 32 at 1 thread, of
/// 128 channels on 16 x 16 images 25% faster (6.7-7.0 ms instead of
/// 8.8-9.6), of 256 on 8 x 8 3% faster. On 256-bit vectors, in place won
/// at every width measured (64: 36%, 128: 7%, 256: 4%).
constexpr int64_t kMaxWindowRows = 256;
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
/// would read packed bits: its lanes are loaded as bytes through the
/// buffer's address and compared with zero.
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
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buf);
  Value at = arith::IndexCastOp::create(
      b, loc, b.getI64Type(), arith::AddIOp::create(b, loc, base, idx));
  Value ptr = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), at);
  auto bytesT = VectorType::get({width}, b.getI8Type());
  Value zeros = arith::ConstantOp::create(
      b, loc, bytesT, DenseElementsAttr::get(bytesT, b.getI8IntegerAttr(0)));
  Value bytes =
      mask ? LLVM::MaskedLoadOp::create(b, loc, bytesT, ptr, mask, zeros,
                                        b.getI32IntegerAttr(1), UnitAttr())
                 .getResult()
           : LLVM::LoadOp::create(b, loc, bytesT, ptr, /*alignment=*/1)
                 .getResult();
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, bytes, zeros);
}

/// The value packing reads for an operand: itself, or the input of a
/// matrix transpose (then `transposed` is set).
static Value untransposed(Value operand, bool &transposed) {
  Operation *def = operand.getDefiningOp();
  transposed = isMatrixTranspose(def);
  return transposed ? def->getOperand(0) : operand;
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

/// Generates the [S, T] rows of a dynamic matmul whose B has no batch dims
/// as S * T rows (mergedRowsCopy), its phases renamed to the template's.
/// False when that does not apply, with nothing generated.
static bool generateMergedRows(func::FuncOp tmpl, ModuleOp module,
                               const MatmulTiling &tiling) {
  if (llvm::all_of(tmpl.getArgumentTypes(), [](Type t) {
        auto r = llvm::dyn_cast<RankedTensorType>(t);
        return !r || r.hasStaticShape();
      }))
    return false;
  int64_t scale = 1;
  std::string name = (tmpl.getName() + "__rows").str();
  func::FuncOp rows = mergedRowsCopy(tmpl, name, scale);
  if (!rows)
    return false;
  LogicalResult ok = kernelgen::generateMatmul(rows, module, tiling);
  bool generated = succeeded(ok) && module.lookupSymbol(name + "__p0");
  for (int phase = 0;; ++phase) {
    auto fn =
        module.lookupSymbol<func::FuncOp>(name + "__p" + std::to_string(phase));
    if (!fn)
      break;
    if (!generated) {
      fn.erase();
      continue;
    }
    // The phases are the template's, at `scale` times its size.
    fn.setName((tmpl.getName() + "__p" + Twine(phase)).str());
    fn->setAttr(kKernelOfAttr,
                StringAttr::get(tmpl.getContext(), tmpl.getName()));
    fn->setAttr(
        kSizeScaleAttr,
        IntegerAttr::get(IntegerType::get(tmpl.getContext(), 64), scale));
  }
  rows.erase();
  return generated;
}

namespace {

/// What becomes of a matmul template: tiled here, handed to the generic
/// kernel, or neither (the caller decides).
enum class MatmulVerdict { Tiled, Generic, Unsupported };

/// What is decided about a matmul template before any code is emitted:
/// what packing reads for A and B, which of its sizes are known only at
/// run time, where the other operands' elements sit, and the tiling plan
/// (the sizes of the packed operands and the work units of both phases)
/// for its shapes.
/// Where packing finds the columns of a convolution's windows
/// (kiln.unfold): row (c, i, j), column (oh, ow) of image n reads input
/// row oh * sh + i * dh - ph, column ow * sw + j * dw - pw of its plane c.
/// With the images along the columns, column n * pixels + oh * OW + ow.
struct UnfoldGeometry {
  int64_t h, w, image, kh, kw, sh, sw, ph, pw, dh, dw, ow;
  /// Output rows that NR consecutive columns span at most; each is read
  /// as one masked load when the windows step by 1 along the row (0: the
  /// lanes are gathered one by one).
  int64_t segments;
  /// The output pixels of an image when the images follow one another
  /// along the columns, else 0.
  int64_t pixelsPerImage;

  /// Whether each row (c, i, j) of the columns is plane c shifted by a
  /// constant, (i * dh - ph) * W + j * dw - pw, at column oh * OW + ow:
  /// the windows step by 1 over output rows as wide as the input's.
  bool shiftedPlanes() const {
    return sh == 1 && sw == 1 && ow == w && !pixelsPerImage;
  }

  static bool of(UnfoldOp op, int64_t nr, UnfoldGeometry &g) {
    auto in = llvm::cast<RankedTensorType>(op.getInput().getType());
    if (!in.hasStaticShape() || !in.getElementType().isF32())
      return false;
    ArrayRef<int64_t> x = in.getShape(), k = op.getKernel(),
                      st = op.getStride(), pad = op.getPadding(),
                      dil = op.getDilation();
    int64_t cols = op.getType().getShape().back();
    if (op.getImagesInColumns())
      cols /= x[0];
    g = {x[2],
         x[3],
         x[1] * x[2] * x[3],
         k[0],
         k[1],
         st[0],
         st[1],
         pad[0],
         pad[1],
         dil[0],
         dil[1],
         0,
         0,
         op.getImagesInColumns() ? cols : 0};
    int64_t oh = (x[2] + 2 * pad[0] - dil[0] * (k[0] - 1) - 1) / st[0] + 1;
    g.ow = cols / oh;
    // Lane indices are 32-bit.
    if (x[0] * g.image >= (int64_t(1) << 31))
      return false;
    int64_t spans = (nr - 1 + g.ow - 1) / g.ow + 1;
    // Past 6 rows (rows of 6 or fewer on 32 lanes), two gathers cost less.
    // A panel that runs across images is gathered too.
    g.segments = g.sw == 1 && spans <= 6 && !g.pixelsPerImage ? spans : 0;
    return true;
  }
};

struct MatmulPlan {
  MatmulTiling tiling;
  MatmulOp mm;
  Value root; ///< what the template returns: C, or its epilogue
  RankedTensorType cType, aType, bType;
  /// What packing reads for A: an argument (aArg) or the root of the
  /// prologue, stored transposed when aT.
  Value aValue;
  BlockArgument aArg, bArg;
  bool aT = false, bT = false;
  /// A is read where it is stored, unpacked (kInPlaceAPanels): phase 0
  /// is not made, and phase 1 is the kernel's only phase.
  bool aInPlace = false;
  QuantSchemeAttr scheme; ///< B's, when B is dequantized
  /// B's, when B is the columns of a convolution's windows.
  UnfoldOp unfold;
  UnfoldGeometry geometry{};
  /// B is those columns read where the input is stored, unpacked: the
  /// windows step by 1 and the output rows are as wide as the input's, so
  /// each row (c, i, j) of the columns is plane c shifted by a constant
  /// (windowsKernel).
  bool windowsInPlace = false;
  llvm::SetVector<Operation *> prologue;

  // The dynamic form, if any (classifyDynamic).
  bool dynamicBatch = false, dynamicM = false, dynamicK = false;
  bool dynamic = false;

  MatmulShape s;
  /// The static part of the batch counts; cBatches takes a dynamic batch
  /// as kDynamicBatchGuess.
  int64_t cBatches = 1, cBatchesStatic = 1, aBatches = 1;
  /// Per template argument: its layout against C (for the epilogue) and
  /// against A as stored (for the prologue); empty where it is not read.
  SmallVector<Layout> layouts, proLayouts;
  /// The epilogue's operands that vary along both rows and columns of C:
  /// a tile prefetches its rows of them.
  SmallVector<unsigned> epilogueArgs;
  /// The ABI slot of each template argument (a quantized one takes two).
  SmallVector<unsigned> slotOf;
  /// The argument whose buffer C may take (kiln.in_place), or -1.
  int64_t inPlaceArg = -1;

  // Sizes, in k slices, panels of NR columns, row panels of MR rows and
  // floats of workspace (0 where dynamic).
  int64_t kSlices = 0, panels = 0, mPanels = 0;
  int64_t packedAFloats = 0, aheadFloats = 0, workspaceFloats = 0;
  // Phase 0's work units: a group of row panels of one batch of A each.
  int64_t groups = 0, packUnits = 0, packGrain = 1;
  // Phase 1's work units: a batch of C, a column block of ppb panels and a
  // group of rpPerGroup row panels each; row blocks of rowBlockPanels.
  int64_t ppb = 0, nBlocks = 0, mGroups = 1, rpPerGroup = 0;
  int64_t rowBlockPanels = 0, phaseUnits = 0, grain = 1;

  /// Plans the template's matmul in the stages below, in order.
  MatmulVerdict build(func::FuncOp tmpl, const MatmulTiling &t);

  /// Whether user `u` of an argument is the epilogue: not the matmul, its
  /// prologue or what packing reads (a dequantize or transpose of B).
  bool inEpilogue(Operation *u) {
    return u != mm.getOperation() && !prologue.contains(u) &&
           !llvm::isa<DequantizeOp, PermuteOp, UnfoldOp>(u);
  }

  MatmulVerdict findOperands(func::FuncOp tmpl);
  MatmulVerdict classifyDynamic(func::FuncOp tmpl);
  void measureShapes();
  MatmulVerdict layOutArguments(func::FuncOp tmpl);
  void chooseTiling();
  void chooseWorkUnits();
  void findInPlaceArg(func::FuncOp tmpl);
};

} // namespace

MatmulVerdict MatmulPlan::build(func::FuncOp tmpl, const MatmulTiling &t) {
  tiling = t;
  MatmulVerdict v = findOperands(tmpl);
  if (v == MatmulVerdict::Tiled)
    v = classifyDynamic(tmpl);
  if (v != MatmulVerdict::Tiled)
    return v;
  measureShapes();
  v = layOutArguments(tmpl);
  if (v != MatmulVerdict::Tiled)
    return v;
  chooseTiling();
  chooseWorkUnits();
  findInPlaceArg(tmpl);
  return MatmulVerdict::Tiled;
}

/// Finds the matmul and what packing reads for its operands: A must be an
/// argument, an elementwise expression of arguments (the prologue,
/// evaluated while packing), or the transpose of either; B an argument,
/// its transpose, or a dequantized argument.
MatmulVerdict MatmulPlan::findOperands(func::FuncOp tmpl) {
  tmpl.walk([&](MatmulOp op) { mm = op; });
  auto ret = llvm::cast<func::ReturnOp>(tmpl.getBody().front().getTerminator());
  if (!mm || ret.getNumOperands() != 1)
    return MatmulVerdict::Unsupported;
  root = ret.getOperand(0);
  cType = llvm::cast<RankedTensorType>(mm.getType());
  aType = mm.getLhs().getType();
  bType = mm.getRhs().getType();
  // (A dynamic M or K is checked by classifyDynamic.)
  if (!cType.getElementType().isF32() ||
      llvm::cast<RankedTensorType>(root.getType()) != cType)
    return MatmulVerdict::Generic;

  aValue = untransposed(mm.getLhs(), aT);
  aArg = llvm::dyn_cast<BlockArgument>(aValue);
  if (!aArg && failed(collectPrologue(aValue, prologue)))
    return MatmulVerdict::Generic;
  if (auto deq = mm.getRhs().getDefiningOp<DequantizeOp>()) {
    bArg = llvm::dyn_cast<BlockArgument>(deq.getInput());
    scheme = getQuantScheme(deq.getInput().getType());
  } else if ((unfold =
                  untransposed(mm.getRhs(), bT).getDefiningOp<UnfoldOp>())) {
    bArg = llvm::dyn_cast<BlockArgument>(unfold.getInput());
    if (!bArg || !cType.hasStaticShape() ||
        !UnfoldGeometry::of(unfold, tiling.nr, geometry))
      return MatmulVerdict::Generic;
  } else {
    bArg = llvm::dyn_cast<BlockArgument>(untransposed(mm.getRhs(), bT));
  }
  if (!bArg)
    return MatmulVerdict::Generic;
  if (cType.hasStaticShape() && cType.getNumElements() == 0)
    return MatmulVerdict::Generic;
  return MatmulVerdict::Tiled;
}

/// Which dynamic form the template takes, if any; Unsupported for a form
/// that is not tiled (the caller decides: --kiln-generate-kernels'
/// generic-dynamic-matmuls).
MatmulVerdict MatmulPlan::classifyDynamic(func::FuncOp tmpl) {
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
  dynamicBatch = cType.getRank() >= 3 && leadOnly(cType) && leadOnly(aType) &&
                 leadOnly(bType) && !scheme;
  for (BlockArgument a : tmpl.getArguments()) {
    auto t = llvm::cast<RankedTensorType>(a.getType());
    if (!t.hasStaticShape() && !leadOnly(t))
      dynamicBatch = false;
  }
  // Or M of a plain [M, K] x [K, N] (the batch rows of a layer): M is then
  // read from the sizes argument, and the rest of the shapes are static.
  dynamicM = !cType.hasStaticShape() && !dynamicBatch;
  // Or K of a plain matmul with C static (a weight's gradient, x^T dy,
  // sums over the batch rows): the k slices are counted at run time.
  dynamicK = !dynamicM && !dynamicBatch &&
             (!aType.hasStaticShape() || !bType.hasStaticShape());
  dynamic = dynamicM || dynamicK || dynamicBatch;
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
      return MatmulVerdict::Unsupported;
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
      return MatmulVerdict::Unsupported;
  }
  return MatmulVerdict::Tiled;
}

/// M, N, K, the batch dims of C and how A and B broadcast along them.
void MatmulPlan::measureShapes() {
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
  for (int64_t d : aType.getShape().drop_back(2))
    aBatches *= ShapedType::isDynamic(d) ? 1 : d;
  for (int64_t d : s.batch)
    cBatches *= ShapedType::isDynamic(d) ? 1 : d;
  cBatchesStatic = cBatches;
  if (dynamicBatch)
    cBatches *= kDynamicBatchGuess;
}

/// Where the other arguments' elements sit: the epilogue's laid out
/// against C, the prologue's against A as stored (before any transpose);
/// an argument only the prologue reads has no layout against C. Generic
/// when an argument of the prologue is quantized or does not broadcast to
/// A.
MatmulVerdict MatmulPlan::layOutArguments(func::FuncOp tmpl) {
  auto readOutside = [&](BlockArgument a) {
    return llvm::any_of(a.getUsers(), [&](Operation *u) {
      return !prologue.contains(u);
    });
  };
  ArrayRef<int64_t> aStored =
      llvm::cast<RankedTensorType>(aValue.getType()).getShape();
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
      return MatmulVerdict::Generic;
    proLayouts.push_back(forPrologue ? layoutOf(t.getShape(), aStored)
                                     : Layout{});
    if (getQuantScheme(t) || t.getRank() > cType.getRank() || !readOutside(a))
      layouts.push_back({});
    else
      layouts.push_back(layoutOf(t.getShape(), cType.getShape()));
  }

  // Epilogue operands that vary along both rows and columns of C: their
  // tile rows are prefetched before the last slice's k loop.
  for (BlockArgument a : tmpl.getArguments()) {
    const Layout &l = layouts[a.getArgNumber()];
    bool readByEpilogue =
        llvm::any_of(a.getUsers(), [&](Operation *u) { return inEpilogue(u); });
    if (readByEpilogue && l.strides.size() >= 2 &&
        l.strides[l.strides.size() - 2] != 0 && l.strides.back() != 0)
      epilogueArgs.push_back(a.getArgNumber());
  }

  unsigned slot = 0;
  for (BlockArgument a : tmpl.getArguments()) {
    slotOf.push_back(slot);
    slot += getQuantScheme(a.getType()) ? 2 : 1;
  }
  return MatmulVerdict::Tiled;
}

/// The k slices, panels and row panels of the shapes, and the workspace
/// that packed A takes.
void MatmulPlan::chooseTiling() {
  const UnfoldGeometry &g = geometry;
  int64_t taps = g.kh * g.kw;
  // On 512-bit vectors (NR / 2 = 16 lanes a register) nearly every tap's
  // load straddles two cache lines, and packing costs less once a packed
  // panel serves more than kMaxWindowRows rows.
  windowsInPlace = unfold && !bT && g.shiftedPlanes() &&
                   taps <= kMaxWindowTaps &&
                   (tiling.nr / 2 < 16 || s.m <= kMaxWindowRows);
  panels = (s.n + tiling.nr - 1) / tiling.nr;
  // (A weight's gradient, whose B is the transposed columns, keeps packing
  // A: its A is the output's gradient, not a weight.)
  bool convWeight = unfold && !bT && !windowsInPlace;
  aInPlace = aArg && !aT && !dynamic &&
             (panels <= kInPlaceAPanels ||
              (convWeight && panels <= kInPlaceWeightPanels)) &&
             aType.getElementType().isF32() && !getQuantScheme(aType);
  // A read in place streams from memory (a large weight against a few
  // columns): each slice reads a run of kc floats of each of its rows, and
  // runs of 256 are too short for the hardware prefetcher to follow. Its
  // slices are as deep as a block of B that stays in L2 allows.
  if (aInPlace && !dynamicK)
    tiling.kc = std::max(
        tiling.kc,
        std::min(s.k, kInPlaceBBlockBytes / (kInPlaceAPanels * tiling.nr * 4)));
  // A static K is cut into slices of equal depth (a multiple of 8, at most
  // the tiling's): K = 576, a 3 x 3 convolution of 64 channels, is three
  // slices of 192 rather than 256, 256 and 64, whose last one pays a whole
  // pass over the tiles of C for a quarter of the FMAs. With the windows
  // read in place, a slice is whole channels: all taps of each.
  if (windowsInPlace) {
    int64_t channels = s.k / taps;
    int64_t slices = (s.k + tiling.kc - 1) / tiling.kc;
    tiling.kc = taps * ((channels + slices - 1) / slices);
  } else if (!dynamicK && s.k > tiling.kc) {
    int64_t slices = (s.k + tiling.kc - 1) / tiling.kc;
    tiling.kc = std::min(tiling.kc, ((s.k + slices - 1) / slices + 7) / 8 * 8);
  }
  const int64_t kMR = tiling.mr, kKC = tiling.kc;
  kSlices = dynamicK ? 0 : std::max<int64_t>((s.k + kKC - 1) / kKC, 1);
  mPanels = dynamicM ? 0 : (s.m + kMR - 1) / kMR;
  packedAFloats = aInPlace ? 0 : aBatches * kSlices * mPanels * kKC * kMR;
  // The workspace runs on past packed A by as much as the micro-kernel
  // asks for ahead of what it reads, so that those addresses need no
  // clamp (integer ops on the FMA ports).
  aheadFloats = (kAPrefetchSteps + kUnroll) * kMR;
  workspaceFloats = packedAFloats + aheadFloats;
}

/// The work units of both phases and the tasks of the thread pool they
/// make.
void MatmulPlan::chooseWorkUnits() {
  const int64_t kNR = tiling.nr, kMR = tiling.mr, kKC = tiling.kc;
  // Phase 0 packs kRowPanelGroup row panels of a batch of A per unit. A
  // small A is packed on one thread: waking another costs more.
  groups = (mPanels + kRowPanelGroup - 1) / kRowPanelGroup;
  packUnits = aBatches * groups;
  packGrain =
      dynamic
          ? 1
          : std::max<int64_t>(
                1, kMinTaskBytes / std::max<int64_t>(
                                       1, aBatches * s.m * s.k * 4 /
                                              std::max<int64_t>(packUnits, 1)));

  // A phase 1 unit owns a block of columns of C (and, when there are too
  // few of those for the threads, a group of row panels). When the k slice
  // of all of A fits in L2, a narrow column block keeps the slice of B
  // there beside it; otherwise a wider block lets each row block of A
  // (read from L3) serve more panels.
  // (A dynamic M is taken as large: the tiling does not depend on it.)
  bool aFitsL2 = !dynamicM && s.m * kKC * 4 <= kL2SliceBytes;
  ppb = std::min<int64_t>(
      std::max<int64_t>((aFitsL2 ? tiling.ncSmallM : tiling.nc) / kNR, 1),
      std::max<int64_t>(panels, 1));
  ppb = std::max<int64_t>(
      std::min<int64_t>(ppb, kMaxBSliceBytes / (kKC * kNR * 4)), 1);
  nBlocks = std::max<int64_t>((panels + ppb - 1) / ppb, 1);
  if (cBatches * nBlocks < kMinUnits) {
    int64_t wanted = (kMinUnits + cBatches - 1) / cBatches;
    ppb = std::max<int64_t>((panels + wanted - 1) / wanted,
                            std::min<int64_t>(kMinPanelsPerBlock, ppb));
    nBlocks = std::max<int64_t>((panels + ppb - 1) / ppb, 1);
  }
  mGroups = 1;
  if (cBatches * nBlocks < kMinUnits)
    mGroups = (kMinUnits + cBatches * nBlocks - 1) / (cBatches * nBlocks);
  // With a dynamic M the groups are fixed and their panels counted at run
  // time (a group past the last panel has nothing to do).
  rpPerGroup = 0;
  if (!dynamicM) {
    mGroups = std::min<int64_t>(mGroups, mPanels);
    rpPerGroup = (mPanels + mGroups - 1) / mGroups;
    mGroups = std::max<int64_t>((mPanels + rpPerGroup - 1) / rpPerGroup, 1);
  }
  rowBlockPanels = std::max<int64_t>(tiling.mc / kMR, 1);

  // A task does at least kMinTaskFlops (a batch of tiny products, as
  // attention's when decoding, runs on one thread).
  phaseUnits = (dynamicBatch ? cBatchesStatic : cBatches) * nBlocks * mGroups;
  grain = 1;
  if (!dynamic) {
    double unitFlops = 2.0 * cBatches * s.m * s.n * s.k / phaseUnits;
    grain = std::max<int64_t>(
        1, static_cast<int64_t>(kMinTaskFlops / std::max(unitFlops, 1.0)));
  }
}

/// An argument of C's type that only the epilogue reads (an SGD update's
/// weights) may share C's buffer when K is one slice: each tile reads its
/// elements of it before it stores the same elements of C, and no partial
/// sums are stored in C first. The runtime then writes C over it when it
/// dies here, which saves the read of every line of C before its store.
void MatmulPlan::findInPlaceArg(func::FuncOp tmpl) {
  if (kSlices != 1)
    return;
  for (BlockArgument a : tmpl.getArguments())
    if (a.getType() == cType && !a.use_empty() &&
        llvm::all_of(a.getUsers(),
                     [&](Operation *u) { return inEpilogue(u); })) {
      inPlaceArg = a.getArgNumber();
      break;
    }
}

namespace {

/// The sizes a phase reads at run time when the matmul has a dynamic form
/// (M, its row panels, K, its slices, and what follows from them); null
/// where static, and then each use makes its constant where it is used.
struct RuntimeSizes {
  Value m, mPanels, k, kSlices, packedAFloats, workspaceFloats;
};

/// What a work unit of phase 1 owns: batch `bc` of C, the column panels
/// [pBegin, pEnd) and the row panels [rpBegin, rpEnd).
struct WorkUnit {
  Value unit; ///< its number
  Value bc, pBegin, pEnd, rpBegin, rpEnd;
  /// The batch's offsets in A and B (in whole matrices), then in each
  /// argument.
  SmallVector<Value> boffs;
  /// Where the batch's A starts: in packed A, or in A itself when it is
  /// read in place.
  Value aPackBase, bSrcBase, cBase;
};

/// A KC-deep slice of K: its number, its first k, its depth kb, and
/// whether it is the first or the last.
struct KSlice {
  Value index, kc, kb, first, last;
};

/// The MR x NR tile of C at row panel `ir` and panel `p`.
struct Tile {
  Value p, n0, cols, colMask, fullPanel, bPanel, ir, aPanel;
  /// With A in place: where each of the tile's rows of A starts in the k
  /// slice (the last row of A for rows past M, whose sums are not stored).
  SmallVector<Value> aRows;
  /// Per row r of the tile: its row of C, whether that is inside M, and
  /// where the tile's part of it starts in C.
  SmallVector<Value> rowOf, rowValid, rowOffset;
};

/// Rows of a buffer that a tile asks for while its k loop runs.
struct RowStream {
  Value buf, base; ///< the tile's first row, at its first column
  int64_t stride;  ///< between rows
  bool write, lastSliceOnly;
};

/// A tile's share of the B that its work unit packs next (planBShare).
struct BShare {
  bool enabled = false; ///< not for a quantized B
  int64_t lines = 0;    ///< lines the tile asks for
  int64_t items = 0, perTile = 0, linesPerItem = 0;
  Value t; ///< the tile's number in its unit
  Value k0, col0, srcBase, valid, lastIdx;
};

/// What a tile asks for while its k loop runs (planTilePrefetch): a line
/// of each row stream every 2^pfShift iterations (all of them before the
/// loop when pfShift < 0), and its share of the next B.
struct TilePrefetch {
  SmallVector<RowStream> streams;
  int64_t pfLines = 0, pfShift = -1, kSpan = 0;
  BShare bShare;
};

/// Emits the phases of a planned matmul; the state its stages share.
class MatmulEmitter {
public:
  MatmulEmitter(func::FuncOp tmpl, ModuleOp module, const MatmulPlan &plan)
      : tmpl(tmpl), module(module), plan(plan), s(plan.s), kNR(plan.tiling.nr),
        kMR(plan.tiling.mr), kKC(plan.tiling.kc), b(tmpl.getContext()),
        loc(tmpl.getLoc()), abi(abiOf(tmpl, /*workspace=*/true)),
        f32(b.getF32Type()), vecT(VectorType::get({kNR}, f32)),
        maskT(VectorType::get({kNR}, b.getI1Type())) {}

  LogicalResult packA();
  LogicalResult multiplyBlocks();

private:
  func::FuncOp tmpl;
  ModuleOp module;
  const MatmulPlan &plan;
  const MatmulShape &s;
  const int64_t kNR, kMR, kKC;
  OpBuilder b;
  Location loc;
  Abi abi;
  Type f32;
  VectorType vecT, maskT;
  func::FuncOp phase0;

  // Phase 1's function and what its stages share (beginPhase1).
  func::FuncOp fn;
  Block *entry = nullptr;
  RuntimeSizes mv;
  BSource src;
  Value out, packedA, packedB, aSrc;
  Value zero, one, zeroF, zeroVec;

  RuntimeSizes runtimeSizes(Block &entryBlock);
  /// The dynamic value when there is one, else the constant.
  Value sized(Value v, int64_t c) { return v ? v : cidx(b, loc, c); }
  /// x * (the dynamic value, or the constant c).
  Value mulSized(Value x, Value v, int64_t c) {
    return v ? Value(arith::MulIOp::create(b, loc, x, v)) : mul(b, loc, x, c);
  }
  void setWorkspace(func::FuncOp phase);
  Value arg(unsigned i) { return entry->getArgument(2 + i); }
  Value loadRow(Value buf, Value idx, Value full, Value mask);
  void storeRow(Value buf, Value idx, Value v, Value full, Value mask);

  void beginPhase1();
  WorkUnit splitWorkUnit(Value unit);
  KSlice beginKSlice();
  void packB(const WorkUnit &w, const KSlice &ks);
  void packBBlocks(const KSlice &ks, const WorkUnit &w, Value n0,
                   Value panelBase, Value kMain);
  void packBRow(const WorkUnit &w, const KSlice &ks, Value n0, Value panelBase,
                Value kk);
  Value unfoldRow(const WorkUnit &w, Value k, Value n0, Value cols,
                  int64_t width);
  Value unfoldColumn(const WorkUnit &w, Value p, Value r0, Value rows);
  Tile openTile(const WorkUnit &w, const KSlice &ks);
  BShare planBShare(const WorkUnit &w, const KSlice &ks, const Tile &t);
  void prefetchBLine(const BShare &share, Value j);
  void placeRows(const WorkUnit &w, Tile &t);
  TilePrefetch planTilePrefetch(const WorkUnit &w, const Tile &t, BShare share);
  void prefetchLines(const TilePrefetch &pf, const KSlice &ks, Value q);
  void prefetchEarlyLines(const TilePrefetch &pf, const KSlice &ks, Value q);
  SmallVector<Value> kSteps(const Tile &t, Value kk, ValueRange acc,
                            int64_t steps);
  void accumulate(const Tile &t, Value kj, Value bv, SmallVector<Value> &acc);
  void prefetchA(const Tile &t, Value kk, int64_t floats);
  scf::ForOp unrolledLoop(const Tile &t, Value from, Value to, ValueRange acc);
  scf::ForOp microKernel(const Tile &t, const KSlice &ks,
                         const TilePrefetch &pf);
  SmallVector<Value> windowsKernel(const WorkUnit &w, const Tile &t,
                                   const KSlice &ks, const TilePrefetch &pf);
  LogicalResult storeTile(const WorkUnit &w, const KSlice &ks, const Tile &t,
                          ValueRange sums);
  FailureOr<Value> applyEpilogue(const WorkUnit &w, const Tile &t, Value row,
                                 Value acc);
};

} // namespace

/// M, its row panels and the sizes that follow, read or computed in
/// `entryBlock` when the matmul is dynamic.
RuntimeSizes MatmulEmitter::runtimeSizes(Block &entryBlock) {
  RuntimeSizes v;
  if (!plan.dynamic) {
    // Static: each use makes its constant where it is used.
    return v;
  }
  const int64_t aBatches = plan.aBatches, kSlices = plan.kSlices,
                mPanels = plan.mPanels;
  v.m = cidx(b, loc, s.m);
  v.mPanels = cidx(b, loc, mPanels);
  v.k = cidx(b, loc, s.k);
  v.kSlices = cidx(b, loc, kSlices);
  if (plan.dynamicM) {
    v.m = dynamicSize(b, loc, entryBlock, abi);
    v.mPanels = arith::DivUIOp::create(
        b, loc, add(b, loc, v.m, cidx(b, loc, kMR - 1)), cidx(b, loc, kMR));
    v.packedAFloats = mul(b, loc, v.mPanels, aBatches * kSlices * kKC * kMR);
  } else if (plan.dynamicBatch) {
    v.packedAFloats =
        mul(b, loc, dynamicSize(b, loc, entryBlock, abi), plan.packedAFloats);
  } else if (plan.dynamicK) {
    v.k = dynamicSize(b, loc, entryBlock, abi);
    v.kSlices = arith::DivUIOp::create(
        b, loc, add(b, loc, v.k, cidx(b, loc, kKC - 1)), cidx(b, loc, kKC));
    // At least one slice: an empty K still writes C (zeros, epilogue).
    v.kSlices = arith::MaxUIOp::create(b, loc, v.kSlices, cidx(b, loc, 1));
    v.packedAFloats = mul(b, loc, v.kSlices, aBatches * mPanels * kKC * kMR);
  }
  v.workspaceFloats =
      add(b, loc, v.packedAFloats, cidx(b, loc, plan.aheadFloats));
  return v;
}

/// The workspace of `phase`: packed A and what the micro-kernel reads
/// ahead of it, in bytes (per unit of S when dynamic).
void MatmulEmitter::setWorkspace(func::FuncOp phase) {
  const int64_t aBatches = plan.aBatches, kSlices = plan.kSlices,
                aheadFloats = plan.aheadFloats;
  if (plan.dynamicM)
    phase->setAttr(kWorkspacePerAttr,
                   b.getDenseI64ArrayAttr({aBatches * kSlices * kKC * kMR * 4,
                                           kMR, aheadFloats * 4}));
  else if (plan.dynamicBatch)
    phase->setAttr(
        kWorkspacePerAttr,
        b.getDenseI64ArrayAttr({plan.packedAFloats * 4, 1, aheadFloats * 4}));
  else if (plan.dynamicK)
    phase->setAttr(
        kWorkspacePerAttr,
        b.getDenseI64ArrayAttr(
            {aBatches * plan.mPanels * kKC * kMR * 4, kKC, aheadFloats * 4}));
  else
    phase->setAttr(kWorkspaceAttr,
                   b.getI64IntegerAttr(plan.workspaceFloats * 4));
}

//===--- Phase 0: pack A --------------------------------------------------===//

/// Packs A into panels of MR rows, rows past M zero, each k slice of a
/// panel k-major and the panels of one slice contiguous: a tile reads its
/// A as one run, and a row block of A streams in order. A is packed once
/// here, however many column blocks read it. Fails, erasing the phase,
/// when the prologue cannot be evaluated on vectors.
LogicalResult MatmulEmitter::packA() {
  const int64_t kSlices = plan.kSlices, mPanels = plan.mPanels;
  phase0 = createPhase(b, module, tmpl, 0, abi, plan.packUnits, plan.packGrain);
  // Packing A (and its prologue) is vector code as written.
  phase0->setAttr(kVectorCodeAttr, b.getUnitAttr());
  setWorkspace(phase0);
  // Dynamic M (one batch): ceil(S / (MR * group)) groups of row panels.
  if (plan.dynamicM)
    phase0->setAttr(kUnitsPerAttr,
                    b.getDenseI64ArrayAttr({1, kMR * kRowPanelGroup}));
  // Dynamic batch: S times the static batches' groups.
  if (plan.dynamicBatch)
    phase0->setAttr(kUnitsPerAttr, b.getDenseI64ArrayAttr({plan.packUnits, 1}));
  Block &block = phase0.getBody().front();
  b.setInsertionPoint(block.getTerminator());
  RuntimeSizes sizes = runtimeSizes(block);
  Value ws = workspaceArg(block, abi);
  Value packed = memref::ViewOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, f32), ws, cidx(b, loc, 0),
      ValueRange{sized(sizes.packedAFloats, plan.packedAFloats)});
  Value step = cidx(b, loc, 1);
  auto units = scf::ForOp::create(b, loc, block.getArgument(0),
                                  block.getArgument(1), step);
  b.setInsertionPointToStart(units.getBody());
  Value u = units.getInductionVar();
  Value ab =
      plan.dynamicM
          ? cidx(b, loc, 0)
          : Value(arith::DivUIOp::create(b, loc, u, cidx(b, loc, plan.groups)));
  Value rpFrom = mul(b, loc,
                     plan.dynamicM ? u
                                   : Value(arith::RemUIOp::create(
                                         b, loc, u, cidx(b, loc, plan.groups))),
                     kRowPanelGroup);
  Value rpTo = minv(b, loc, add(b, loc, rpFrom, cidx(b, loc, kRowPanelGroup)),
                    sized(sizes.mPanels, mPanels));
  // Where the MR values of row panel rp at k go.
  auto dstOf = [&](Value k, Value rp) {
    Value ks = arith::DivUIOp::create(b, loc, k, cidx(b, loc, kKC));
    Value kk = arith::RemUIOp::create(b, loc, k, cidx(b, loc, kKC));
    return add(
        b, loc,
        mul(b, loc,
            add(b, loc,
                mulSized(add(b, loc, mulSized(ab, sizes.kSlices, kSlices), ks),
                         sizes.mPanels, mPanels),
                rp),
            kKC * kMR),
        mul(b, loc, kk, kMR));
  };
  if (failed(packPrologue(b, loc, block, plan.aValue, plan.aT,
                          sized(sizes.m, s.m), sized(sizes.k, s.k), kMR, ab,
                          rpFrom, rpTo, plan.aType.getShape().drop_back(2),
                          plan.proLayouts, plan.slotOf, packed, dstOf))) {
    phase0.erase();
    return failure();
  }
  return success();
}

//===--- Phase 1: pack B slices, micro-kernel over the tiles --------------===//

/// A work unit owns a block of columns of C (and, when there are too few
/// of those for the threads, a group of row panels). For every KC-deep
/// slice of K it packs its columns of B into panels of NR columns (one
/// vector per row, masked on the last panel; 8x8 transposes, and gathers
/// at the edges, when B is transposed; element by element when B is
/// dequantized). Every row block of packed A then passes over that slice,
/// and each panel of it stays in L1 while the MC/MR row panels of a row
/// block run the micro-kernel against it. Fails, erasing both phases, when
/// the epilogue cannot be evaluated on vectors.
LogicalResult MatmulEmitter::multiplyBlocks() {
  beginPhase1();
  auto units = scf::ForOp::create(b, loc, entry->getArgument(0),
                                  entry->getArgument(1), one);
  b.setInsertionPointToStart(units.getBody());
  WorkUnit w = splitWorkUnit(units.getInductionVar());
  KSlice ks = beginKSlice();
  if (!plan.windowsInPlace)
    packB(w, ks);
  Tile t = openTile(w, ks);
  BShare share = planBShare(w, ks, t);
  placeRows(w, t);
  TilePrefetch pf = planTilePrefetch(w, t, std::move(share));
  SmallVector<Value> sums =
      plan.windowsInPlace
          ? windowsKernel(w, t, ks, pf)
          : SmallVector<Value>(microKernel(t, ks, pf).getResults());
  if (failed(storeTile(w, ks, t, sums))) {
    if (phase0)
      phase0.erase();
    fn.erase();
    return failure();
  }
  b.setInsertionPoint(entry->getTerminator());
  if (packedB)
    memref::DeallocOp::create(b, loc, packedB);
  return success();
}

/// Creates phase 1's function (phase 0 when A is read in place), and in it
/// the buffers its stages share.
void MatmulEmitter::beginPhase1() {
  fn = createPhase(b, module, tmpl, plan.aInPlace ? 0 : 1, abi, plan.phaseUnits,
                   plan.grain);
  if (plan.dynamicBatch)
    fn->setAttr(kUnitsPerAttr, b.getDenseI64ArrayAttr({plan.phaseUnits, 1}));
  // The micro-kernel and its epilogue are vector code as written; so is
  // the packing of B, but for a quantized B's (a scalar loop).
  if (!plan.scheme)
    fn->setAttr(kVectorCodeAttr, b.getUnitAttr());
  if (plan.inPlaceArg >= 0)
    fn->setAttr(kInPlaceAttr, b.getI64IntegerAttr(plan.inPlaceArg));
  entry = &fn.getBody().front();
  b.setInsertionPoint(entry->getTerminator());
  unsigned bSlot = plan.slotOf[plan.bArg.getArgNumber()];
  src =
      BSource{arg(bSlot), plan.scheme ? arg(bSlot + 1) : Value(), plan.scheme};
  if (plan.aInPlace)
    aSrc = arg(plan.slotOf[plan.aArg.getArgNumber()]);
  out = arg(abi.numInputs);
  Value ws = workspaceArg(*entry, abi);
  setWorkspace(fn);
  mv = runtimeSizes(*entry);
  packedA = memref::ViewOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, f32), ws, cidx(b, loc, 0),
      ValueRange{sized(mv.workspaceFloats, plan.workspaceFloats)});
  // On the heap, once per call (the calling thread's stack may be small),
  // and aligned to a cache line, so that no row of a panel straddles two.
  if (!plan.windowsInPlace)
    packedB = memref::AllocOp::create(
        b, loc, MemRefType::get({kKC * plan.ppb * kNR}, f32), ValueRange{},
        b.getI64IntegerAttr(64));
  zero = cidx(b, loc, 0);
  one = cidx(b, loc, 1);
  zeroF = constantOf(b, loc, f32, 0.0);
  zeroVec = constantOf(b, loc, vecT, 0.0);
}

/// A row of NR lanes of a panel, in the buffer's element type (loadLanes):
/// whole when the panel is (`full`), masked (zeros past N) on the last one.
/// Masked stores are microcoded and slow on AVX2 machines, and the branch
/// goes the same way for a whole panel.
Value MatmulEmitter::loadRow(Value buf, Value idx, Value full, Value mask) {
  Type et = llvm::cast<MemRefType>(buf.getType()).getElementType();
  auto ifFull = scf::IfOp::create(b, loc, TypeRange{VectorType::get({kNR}, et)},
                                  full, true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifFull.getThenRegion().front());
  scf::YieldOp::create(b, loc, loadLanes(b, loc, buf, idx, kNR, Value()));
  b.setInsertionPointToStart(&ifFull.getElseRegion().front());
  scf::YieldOp::create(b, loc, loadLanes(b, loc, buf, idx, kNR, mask));
  return ifFull.getResult(0);
}

void MatmulEmitter::storeRow(Value buf, Value idx, Value v, Value full,
                             Value mask) {
  auto ifFull = scf::IfOp::create(b, loc, TypeRange{}, full, true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifFull.getThenRegion().front());
  vector::StoreOp::create(b, loc, v, buf, ValueRange{idx});
  b.setInsertionPointToStart(&ifFull.getElseRegion().front());
  vector::MaskedStoreOp::create(b, loc, buf, ValueRange{idx}, mask, v);
}

/// The threading split of phase 1: what work unit `unit` owns. Units are
/// numbered by batch, then column block, then group of row panels.
WorkUnit MatmulEmitter::splitWorkUnit(Value unit) {
  const int64_t nBlocks = plan.nBlocks, mGroups = plan.mGroups, ppb = plan.ppb,
                rpPerGroup = plan.rpPerGroup, mPanels = plan.mPanels,
                kSlices = plan.kSlices;
  WorkUnit w;
  w.unit = unit;
  Value u = unit;
  w.bc = arith::DivUIOp::create(b, loc, u, cidx(b, loc, nBlocks * mGroups));
  u = arith::RemUIOp::create(b, loc, u, cidx(b, loc, nBlocks * mGroups));
  Value nb = arith::DivUIOp::create(b, loc, u, cidx(b, loc, mGroups));
  Value mg = arith::RemUIOp::create(b, loc, u, cidx(b, loc, mGroups));
  w.pBegin = mul(b, loc, nb, ppb);
  w.pEnd = minv(b, loc, add(b, loc, w.pBegin, cidx(b, loc, ppb)),
                cidx(b, loc, plan.panels));
  Value rpPerGroupV =
      plan.dynamicM
          ? Value(arith::DivUIOp::create(
                b, loc, add(b, loc, mv.mPanels, cidx(b, loc, mGroups - 1)),
                cidx(b, loc, mGroups)))
          : Value();
  w.rpBegin = mulSized(mg, rpPerGroupV, rpPerGroup);
  w.rpEnd = minv(b, loc, add(b, loc, w.rpBegin, sized(rpPerGroupV, rpPerGroup)),
                 sized(mv.mPanels, mPanels));
  SmallVector<SmallVector<int64_t>> batchStrides{s.aBatchStrides,
                                                 s.bBatchStrides};
  for (const Layout &l : plan.layouts)
    batchStrides.push_back(l.strides.empty()
                               ? SmallVector<int64_t>(s.batch.size(), 0)
                               : SmallVector<int64_t>(l.strides.begin(),
                                                      l.strides.end() - 2));
  w.boffs = offsetsFromLinear(b, loc, w.bc, s.batch, batchStrides);
  w.aPackBase =
      plan.aInPlace ? mul(b, loc, w.boffs[0], s.m * s.k)
      : plan.dynamic
          ? Value(arith::MulIOp::create(
                b, loc, w.boffs[0],
                mul(b, loc,
                    arith::MulIOp::create(b, loc, mv.mPanels, mv.kSlices),
                    kKC * kMR)))
          : mul(b, loc, w.boffs[0], kSlices * mPanels * kKC * kMR);
  w.bSrcBase = plan.dynamicK ? Value(arith::MulIOp::create(
                                   b, loc, w.boffs[1], mul(b, loc, mv.k, s.n)))
               : plan.unfold ? mul(b, loc, w.boffs[1], plan.geometry.image)
                             : mul(b, loc, w.boffs[1], s.k * s.n);
  w.cBase =
      plan.dynamicM
          ? Value(arith::MulIOp::create(b, loc, w.bc, mul(b, loc, mv.m, s.n)))
          : mul(b, loc, w.bc, s.m * s.n);
  return w;
}

/// Opens the loop over the KC-deep slices of K.
KSlice MatmulEmitter::beginKSlice() {
  auto kcLoop =
      scf::ForOp::create(b, loc, zero, sized(mv.kSlices, plan.kSlices), one);
  b.setInsertionPointToStart(kcLoop.getBody());
  KSlice ks;
  ks.index = kcLoop.getInductionVar();
  ks.kc = mul(b, loc, ks.index, kKC);
  ks.kb = minv(b, loc, cidx(b, loc, kKC),
               arith::SubIOp::create(b, loc, sized(mv.k, s.k), ks.kc));
  ks.first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, ks.index, zero);
  ks.last = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, ks.index,
      plan.dynamicK ? Value(arith::SubIOp::create(b, loc, mv.kSlices, one))
                    : cidx(b, loc, plan.kSlices - 1));
  return ks;
}

/// Packs B[kc : kc + kb, the unit's columns]. A row-major B is walked row
/// by row across the block, each stored row read as one run; a transposed
/// B panel by panel, each of its NR stored rows read along k.
void MatmulEmitter::packB(const WorkUnit &w, const KSlice &ks) {
  OpBuilder::InsertionGuard g(b);
  Value p, kk, n0, panelBase;
  auto panelAt = [&](Value panel) {
    p = panel;
    n0 = mul(b, loc, p, kNR);
    panelBase =
        mul(b, loc, arith::SubIOp::create(b, loc, p, w.pBegin), kKC * kNR);
  };
  if (plan.bT) {
    // B is stored as [N, K]. On a whole panel, 8 x 8 blocks (8 stored
    // rows, 8 consecutive k) are loaded as 8 vectors and transposed with
    // shuffles; the k rows past the last whole block, and a partial
    // panel, are gathered below.
    auto pLoop = scf::ForOp::create(b, loc, w.pBegin, w.pEnd, one);
    b.setInsertionPointToStart(pLoop.getBody());
    panelAt(pLoop.getInductionVar());
    Value whole = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                        add(b, loc, n0, cidx(b, loc, kNR)),
                                        cidx(b, loc, s.n));
    Value kMain = arith::SelectOp::create(
        b, loc,
        plan.unfold && plan.geometry.segments == 0 &&
                !plan.geometry.shiftedPlanes()
            ? Value(constantOf(b, loc, b.getI1Type(), 0))
            : whole,
        arith::SubIOp::create(
            b, loc, ks.kb,
            arith::RemUIOp::create(b, loc, ks.kb, cidx(b, loc, 8))),
        zero);
    packBBlocks(ks, w, n0, panelBase, kMain);
    auto kLoop = scf::ForOp::create(b, loc, kMain, ks.kb, one);
    b.setInsertionPointToStart(kLoop.getBody());
    kk = kLoop.getInductionVar();
  } else {
    auto kLoop = scf::ForOp::create(b, loc, zero, ks.kb, one);
    b.setInsertionPointToStart(kLoop.getBody());
    auto pLoop = scf::ForOp::create(b, loc, w.pBegin, w.pEnd, one);
    b.setInsertionPointToStart(pLoop.getBody());
    panelAt(pLoop.getInductionVar());
    kk = kLoop.getInductionVar();
  }
  packBRow(w, ks, n0, panelBase, kk);
}

/// Packs the whole 8 x 8 blocks [0, kMain) of a panel of a transposed B
/// (the panel starts at column n0 of B and at panelBase of packed B).
void MatmulEmitter::packBBlocks(const KSlice &ks, const WorkUnit &w, Value n0,
                                Value panelBase, Value kMain) {
  OpBuilder::InsertionGuard g(b);
  auto blkLoop = scf::ForOp::create(b, loc, zero, kMain, cidx(b, loc, 8));
  b.setInsertionPointToStart(blkLoop.getBody());
  Value k0 = blkLoop.getInductionVar();
  auto row8 = VectorType::get({8}, f32);
  for (int64_t c0 = 0; c0 < kNR; c0 += 8) {
    SmallVector<Value> r;
    for (int64_t i = 0; i < 8; ++i)
      r.push_back(
          plan.unfold
              // Row c0 + i of the columns, at 8 pixels: runs of the input.
              ? unfoldRow(w, add(b, loc, n0, cidx(b, loc, c0 + i)),
                          add(b, loc, ks.kc, k0), cidx(b, loc, 8), 8)
              : vector::LoadOp::create(
                    b, loc, row8, src.values,
                    ValueRange{add(
                        b, loc, add(b, loc, w.bSrcBase, add(b, loc, ks.kc, k0)),
                        mul(b, loc, add(b, loc, n0, cidx(b, loc, c0 + i)),
                            s.k))})
                    .getResult());
    SmallVector<Value> t = transpose8x8(b, loc, r);
    for (int64_t j = 0; j < 8; ++j)
      vector::StoreOp::create(
          b, loc, t[j], packedB,
          ValueRange{add(b, loc, panelBase,
                         add(b, loc,
                             mul(b, loc, add(b, loc, k0, cidx(b, loc, j)), kNR),
                             cidx(b, loc, c0)))});
  }
}

/// Packs row kk of the slice into a panel (starting at column n0 of B and
/// at panelBase of packed B), zeros past N.
void MatmulEmitter::packBRow(const WorkUnit &w, const KSlice &ks, Value n0,
                             Value panelBase, Value kk) {
  Value k = add(b, loc, ks.kc, kk);
  Value cols = minv(b, loc, cidx(b, loc, kNR),
                    arith::SubIOp::create(b, loc, cidx(b, loc, s.n), n0));
  Value rowDst = add(b, loc, panelBase, mul(b, loc, kk, kNR));
  if (plan.unfold) {
    vector::StoreOp::create(b, loc,
                            plan.bT ? unfoldColumn(w, k, n0, cols)
                                    : unfoldRow(w, k, n0, cols, kNR),
                            packedB, ValueRange{rowDst});
    return;
  }
  if (plan.bT) {
    // B is stored as [N, K]: a row of the panel gathers one element from
    // each of NR stored rows. Columns past N read the last one and are
    // zeroed: no branch.
    Value lastCol = arith::SubIOp::create(b, loc, cols, one);
    SmallVector<Value> lanes;
    for (int64_t c = 0; c < kNR; ++c) {
      Value col = minv(b, loc, cidx(b, loc, c), lastCol);
      Value idx = add(b, loc, add(b, loc, w.bSrcBase, k),
                      mul(b, loc, add(b, loc, n0, col), s.k));
      Value v = memref::LoadOp::create(b, loc, src.values, idx);
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           cidx(b, loc, c), cols);
      lanes.push_back(arith::SelectOp::create(b, loc, inside, v, zeroF));
    }
    vector::StoreOp::create(b, loc,
                            vector::FromElementsOp::create(b, loc, vecT, lanes),
                            packedB, ValueRange{rowDst});
    return;
  }
  Value rowSrc = add(b, loc, add(b, loc, w.bSrcBase, mul(b, loc, k, s.n)), n0);
  if (!plan.scheme) {
    // A row of the panel is one vector: a plain load inside B, a masked
    // one (zeros past N) on the last panel.
    Value colMask =
        vector::CreateMaskOp::create(b, loc, maskT, ValueRange{cols});
    Value full = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, cols,
                                       cidx(b, loc, kNR));
    vector::StoreOp::create(b, loc, loadRow(src.values, rowSrc, full, colMask),
                            packedB, ValueRange{rowDst});
    return;
  }
  auto cLoop = scf::ForOp::create(b, loc, zero, cidx(b, loc, kNR), one);
  b.setInsertionPointToStart(cLoop.getBody());
  Value c = cLoop.getInductionVar();
  Value inside =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c, cols);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{f32}, inside, true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(b, loc, src.load(b, loc, add(b, loc, rowSrc, c)));
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(b, loc, zeroF);
  }
  memref::StoreOp::create(b, loc, ifOp.getResult(0), packedB,
                          ValueRange{add(b, loc, rowDst, c)});
}

namespace {

/// Arithmetic on vectors of NR lane indices (i32), for packing the columns
/// of a convolution's windows.
struct Lanes {
  OpBuilder &b;
  Location loc;
  VectorType type;
  Value iota; ///< 0, 1, ..., NR - 1

  Lanes(OpBuilder &b, Location loc, int64_t n)
      : b(b), loc(loc), type(VectorType::get({n}, b.getI32Type())) {
    SmallVector<int32_t> values;
    for (int64_t l = 0; l < n; ++l)
      values.push_back(static_cast<int32_t>(l));
    iota = arith::ConstantOp::create(
        b, loc, type, DenseElementsAttr::get(type, ArrayRef(values)));
  }
  Value splat(Value index) {
    return vector::BroadcastOp::create(
               b, loc, type,
               arith::IndexCastOp::create(b, loc, b.getI32Type(), index))
        .getResult();
  }
  Value c(int64_t v) { return constantOf(b, loc, type, double(v)); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t v) {
    return arith::MulIOp::create(b, loc, x, c(v));
  }
  Value div(Value x, int64_t v) {
    return arith::DivUIOp::create(b, loc, x, c(v));
  }
  Value rem(Value x, int64_t v) {
    return arith::RemUIOp::create(b, loc, x, c(v));
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value below(Value x, Value bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, bound);
  }
  /// Lanes in [0, n): one unsigned compare (a negative lane is above n).
  Value inside(Value x, int64_t n) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, c(n));
  }
  /// Lanes in [lo, hi), signed.
  Value within(Value x, Value lo, Value hi) {
    return both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, x, lo),
                below(x, hi));
  }
};

} // namespace

/// The input elements [ih, iw] of planes `chan` (in elements past `base`),
/// zero outside an H x W plane or where `mask` is off: a gather.
static Value gatherWindows(OpBuilder &b, Location loc, Lanes &l,
                           const UnfoldGeometry &g, Value src, Value base,
                           Value chan, Value ih, Value iw, Value mask,
                           VectorType vecT, Value zeroVec) {
  Value inside = l.both(l.both(l.inside(ih, g.h), l.inside(iw, g.w)), mask);
  Value idx = l.add(l.mul(ih, g.w), iw);
  if (chan)
    idx = l.add(l.mul(chan, g.h * g.w), idx);
  return vector::GatherOp::create(b, loc, vecT, src, ValueRange{base}, idx,
                                  inside, zeroVec, nullptr)
      .getResult();
}

/// Row k of the columns of a convolution's windows, at columns
/// [n0, n0 + cols) (zeros past them and in the padding). When the rows are
/// shifted planes, the lanes are one run of the input: a single masked
/// load. Otherwise, when the windows step by 1 along a row, the lanes of
/// each output row the panel spans are one run of the input row: a masked
/// load each, the lanes outside the input masked off. Otherwise each lane
/// is gathered.
Value MatmulEmitter::unfoldRow(const WorkUnit &w, Value k, Value n0, Value cols,
                               int64_t width) {
  const UnfoldGeometry &g = plan.geometry;
  Lanes l(b, loc, width);
  auto rowT = VectorType::get({width}, f32);
  Value zeros = constantOf(b, loc, rowT, 0.0);
  auto sub = [&](Value x, Value y) {
    return arith::SubIOp::create(b, loc, x, y).getResult();
  };
  Value jj = arith::RemUIOp::create(b, loc, k, cidx(b, loc, g.kw));
  Value ii = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, k, cidx(b, loc, g.kw)),
      cidx(b, loc, g.kh));
  Value ch = arith::DivUIOp::create(b, loc, k, cidx(b, loc, g.kh * g.kw));
  // The input row and column that output (0, 0) reads for this row.
  Value rowOff = sub(mul(b, loc, ii, g.dh), cidx(b, loc, g.ph));
  Value colOff = sub(mul(b, loc, jj, g.dw), cidx(b, loc, g.pw));
  Value plane = add(b, loc, w.bSrcBase, mul(b, loc, ch, g.h * g.w));
  Value inCols = l.below(l.iota, l.splat(cols));
  if (g.shiftedPlanes()) {
    // The row is plane c shifted by rowOff * W + colOff: one masked load,
    // whatever output rows the lanes span.
    Value c = l.add(l.splat(n0), l.iota);
    Value ih = l.add(l.div(c, g.ow), l.splat(rowOff));
    Value iw = l.add(l.rem(c, g.ow), l.splat(colOff));
    Value mask = l.both(l.both(l.inside(ih, g.h), l.inside(iw, g.w)), inCols);
    Value base = add(b, loc, add(b, loc, plane, n0),
                     add(b, loc, mul(b, loc, rowOff, g.w), colOff));
    return vector::MaskedLoadOp::create(b, loc, rowT, src.values,
                                        ValueRange{base}, mask, zeros)
        .getResult();
  }
  if (g.segments == 0) {
    Value c = l.add(l.splat(n0), l.iota);
    // Along the columns of several images, each lane's image is a whole
    // number of images past the plane.
    Value images;
    if (g.pixelsPerImage) {
      images = l.mul(l.div(c, g.pixelsPerImage), g.image / (g.h * g.w));
      c = l.rem(c, g.pixelsPerImage);
    }
    Value ih = l.add(l.mul(l.div(c, g.ow), g.sh), l.splat(rowOff));
    Value iw = l.add(l.mul(l.rem(c, g.ow), g.sw), l.splat(colOff));
    return gatherWindows(b, loc, l, g, src.values, plane, images, ih, iw,
                         inCols, rowT, zeros);
  }
  // Segment t holds the lanes of output row ho0 + t: lanes
  // [t * OW - wo0, (t + 1) * OW - wo0); lane l reads input column
  // wo0 + l - t * OW + colOff, so the lanes inside the input are
  // [-colOff - wo0 + t * OW, W - colOff - wo0 + t * OW).
  Value ho0 = arith::DivUIOp::create(b, loc, n0, cidx(b, loc, g.ow));
  Value wo0 = arith::RemUIOp::create(b, loc, n0, cidx(b, loc, g.ow));
  Value v = zeros;
  for (int64_t t = 0; t < g.segments; ++t) {
    Value shift = sub(cidx(b, loc, t * g.ow), wo0);
    Value lo = arith::MaxSIOp::create(b, loc, shift, sub(shift, colOff));
    Value hi = arith::MinSIOp::create(
        b, loc, add(b, loc, shift, cidx(b, loc, g.ow)),
        add(b, loc, shift, sub(cidx(b, loc, g.w), colOff)));
    Value ih = add(b, loc, mul(b, loc, add(b, loc, ho0, cidx(b, loc, t)), g.sh),
                   rowOff);
    Value rowInside = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, ih, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, ih,
                              cidx(b, loc, g.h)));
    hi = arith::SelectOp::create(b, loc, rowInside, hi, lo);
    Value mask = l.both(l.within(l.iota, l.splat(lo), l.splat(hi)), inCols);
    // Lane l of the load reads plane[ih * W + colOff - shift + l].
    Value base = add(b, loc, plane,
                     add(b, loc, mul(b, loc, ih, g.w), sub(colOff, shift)));
    v = vector::MaskedLoadOp::create(b, loc, rowT, src.values, ValueRange{base},
                                     mask, v)
            .getResult();
  }
  return v;
}

/// Column p (an output pixel) of the columns of a convolution's windows,
/// at rows [r0, r0 + rows) (zeros past them and in the padding), as the
/// row of a transposed B: each lane is gathered.
Value MatmulEmitter::unfoldColumn(const WorkUnit &w, Value p, Value r0,
                                  Value rows) {
  const UnfoldGeometry &g = plan.geometry;
  Lanes l(b, loc, kNR);
  Value r = l.add(l.splat(r0), l.iota);
  Value j = l.rem(r, g.kw), i = l.rem(l.div(r, g.kw), g.kh);
  Value base = w.bSrcBase;
  if (g.pixelsPerImage) {
    // Column p is pixel p % pixels of image p / pixels.
    Value ppi = cidx(b, loc, g.pixelsPerImage);
    base = add(b, loc, base,
               mul(b, loc, arith::DivUIOp::create(b, loc, p, ppi), g.image));
    p = arith::RemUIOp::create(b, loc, p, ppi);
  }
  Value ho = arith::DivUIOp::create(b, loc, p, cidx(b, loc, g.ow));
  Value wo = arith::RemUIOp::create(b, loc, p, cidx(b, loc, g.ow));
  Value ih = l.add(l.mul(i, g.dh),
                   l.splat(arith::SubIOp::create(b, loc, mul(b, loc, ho, g.sh),
                                                 cidx(b, loc, g.ph))));
  Value iw = l.add(l.mul(j, g.dw),
                   l.splat(arith::SubIOp::create(b, loc, mul(b, loc, wo, g.sw),
                                                 cidx(b, loc, g.pw))));
  return gatherWindows(b, loc, l, g, src.values, base, l.div(r, g.kh * g.kw),
                       ih, iw, l.below(l.iota, l.splat(rows)), vecT, zeroVec);
}

/// Opens the loops over the unit's tiles: row blocks of MC rows, then
/// every panel of the block, then every row panel of the row block.
Tile MatmulEmitter::openTile(const WorkUnit &w, const KSlice &ks) {
  const int64_t rowBlockPanels = plan.rowBlockPanels;
  Tile t;
  auto rbLoop = scf::ForOp::create(b, loc, w.rpBegin, w.rpEnd,
                                   cidx(b, loc, rowBlockPanels));
  b.setInsertionPointToStart(rbLoop.getBody());
  Value rbEnd =
      minv(b, loc,
           add(b, loc, rbLoop.getInductionVar(), cidx(b, loc, rowBlockPanels)),
           w.rpEnd);
  auto pLoop = scf::ForOp::create(b, loc, w.pBegin, w.pEnd, one);
  b.setInsertionPointToStart(pLoop.getBody());
  t.p = pLoop.getInductionVar();
  t.n0 = mul(b, loc, t.p, kNR);
  t.cols = minv(b, loc, cidx(b, loc, kNR),
                arith::SubIOp::create(b, loc, cidx(b, loc, s.n), t.n0));
  t.colMask = vector::CreateMaskOp::create(b, loc, maskT, ValueRange{t.cols});
  // Rows of C and of the epilogue's operands are read and written whole on
  // every panel but the last.
  t.fullPanel = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t.cols,
                                      cidx(b, loc, kNR));
  t.bPanel =
      mul(b, loc, arith::SubIOp::create(b, loc, t.p, w.pBegin), kKC * kNR);
  auto irLoop =
      scf::ForOp::create(b, loc, rbLoop.getInductionVar(), rbEnd, one);
  b.setInsertionPointToStart(irLoop.getBody());
  t.ir = irLoop.getInductionVar();
  if (plan.aInPlace) {
    for (int64_t r = 0; r < kMR; ++r) {
      Value row =
          minv(b, loc, add(b, loc, mul(b, loc, t.ir, kMR), cidx(b, loc, r)),
               cidx(b, loc, s.m - 1));
      t.aRows.push_back(
          add(b, loc, add(b, loc, w.aPackBase, ks.kc), mul(b, loc, row, s.k)));
    }
    return t;
  }
  t.aPanel =
      add(b, loc, w.aPackBase,
          mul(b, loc,
              add(b, loc, mulSized(ks.index, mv.mPanels, plan.mPanels), t.ir),
              kKC * kMR));
  return t;
}

/// The tiles of a k slice share out the B this unit packs next, so that
/// packing it finds it in L2: this block's next k slice or, on the last
/// slice, the first slice of the next unit this thread runs. Each tile
/// asks for `perTile` of its rows (a transposed B: its columns), a line or
/// two per chunk of its k loop (microKernel): asked for at once, the
/// misses of a tile's share fill the line fill buffers and stall the
/// micro-kernel. None for a quantized B.
BShare MatmulEmitter::planBShare(const WorkUnit &w, const KSlice &ks,
                                 const Tile &t) {
  BShare share;
  if (plan.scheme || plan.unfold)
    return share;
  const int64_t ppb = plan.ppb, nBlocks = plan.nBlocks, mGroups = plan.mGroups;
  const bool bT = plan.bT;
  int64_t blockCols = ppb * kNR;
  share.items = bT ? blockCols : kKC;
  // (With a dynamic M, a row block's panels stand for the unit's.)
  int64_t tiles = ppb * (plan.dynamicM ? plan.rowBlockPanels : plan.rpPerGroup);
  share.perTile = (share.items + tiles - 1) / tiles;
  share.t = add(b, loc,
                arith::MulIOp::create(
                    b, loc, arith::SubIOp::create(b, loc, t.p, w.pBegin),
                    arith::SubIOp::create(b, loc, w.rpEnd, w.rpBegin)),
                arith::SubIOp::create(b, loc, t.ir, w.rpBegin));
  Value nextUnit = add(b, loc, w.unit, one);
  Value nextIn =
      arith::RemUIOp::create(b, loc, nextUnit, cidx(b, loc, nBlocks * mGroups));
  Value nextBlock0 = mul(
      b, loc,
      mul(b, loc, arith::DivUIOp::create(b, loc, nextIn, cidx(b, loc, mGroups)),
          ppb),
      kNR);
  Value nextSrcBase = arith::MulIOp::create(
      b, loc,
      offsetsFromLinear(b, loc,
                        arith::DivUIOp::create(b, loc, nextUnit,
                                               cidx(b, loc, nBlocks * mGroups)),
                        s.batch, {s.bBatchStrides})[0],
      plan.dynamicK ? mul(b, loc, mv.k, s.n) : cidx(b, loc, s.k * s.n));
  auto pick = [&](Value ifLast, Value otherwise) -> Value {
    return arith::SelectOp::create(b, loc, ks.last, ifLast, otherwise);
  };
  share.k0 = pick(zero, add(b, loc, ks.kc, cidx(b, loc, kKC)));
  share.col0 = pick(nextBlock0, mul(b, loc, w.pBegin, kNR));
  share.srcBase = pick(nextSrcBase, w.bSrcBase);
  share.valid = pick(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           nextUnit, entry->getArgument(1)),
                     arith::ConstantIntOp::create(b, loc, 1, 1));
  share.lastIdx =
      plan.dynamicK
          ? Value(arith::SubIOp::create(
                b, loc,
                mul(b, loc, mv.k, s.n * std::max<int64_t>(1, s.bBatches)), one))
      : plan.dynamicBatch
          ? Value(arith::SubIOp::create(
                b, loc,
                mul(b, loc, dynamicSize(b, loc, *entry, abi),
                    s.k * s.n * std::max<int64_t>(1, s.bBatches)),
                one))
          : cidx(b, loc, s.k * s.n * std::max<int64_t>(1, s.bBatches) - 1);
  int64_t span = bT ? std::min(kKC, s.k) : blockCols;
  share.linesPerItem = (span + 15) / 16; // 64-byte lines
  share.lines = share.perTile * share.linesPerItem;
  share.enabled = true;
  return share;
}

/// Asks for line j of the tile's share of the next B: item
/// t * perTile + j / linesPerItem.
void MatmulEmitter::prefetchBLine(const BShare &share, Value j) {
  const bool bT = plan.bT;
  Value i =
      add(b, loc, mul(b, loc, share.t, share.perTile),
          arith::DivUIOp::create(b, loc, j, cidx(b, loc, share.linesPerItem)));
  Value off = mul(
      b, loc,
      arith::RemUIOp::create(b, loc, j, cidx(b, loc, share.linesPerItem)), 16);
  Value inside = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ult,
      bT ? add(b, loc, share.col0, i) : add(b, loc, share.k0, i),
      bT ? cidx(b, loc, s.n) : sized(mv.k, s.k));
  Value want = arith::AndIOp::create(
      b, loc, share.valid,
      arith::AndIOp::create(
          b, loc, inside,
          arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i,
                                    cidx(b, loc, share.items)),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j,
                                    cidx(b, loc, share.lines)))));
  OpBuilder::InsertionGuard g(b);
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, want, false);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  Value start = bT ? add(b, loc,
                         add(b, loc, share.srcBase,
                             mul(b, loc, add(b, loc, share.col0, i), s.k)),
                         share.k0)
                   : add(b, loc,
                         add(b, loc, share.srcBase,
                             mul(b, loc, add(b, loc, share.k0, i), s.n)),
                         share.col0);
  memref::PrefetchOp::create(
      b, loc, src.values,
      ValueRange{minv(b, loc, add(b, loc, start, off), share.lastIdx)},
      /*isWrite=*/false, /*localityHint=*/2, /*isDataCache=*/true);
}

/// Row r of the tile lives at C[ir*MR + r, n0 : n0 + NR].
void MatmulEmitter::placeRows(const WorkUnit &w, Tile &t) {
  for (int64_t r = 0; r < kMR; ++r) {
    Value row = add(b, loc, mul(b, loc, t.ir, kMR), cidx(b, loc, r));
    t.rowOf.push_back(row);
    t.rowValid.push_back(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult, row, sized(mv.m, s.m)));
    t.rowOffset.push_back(
        add(b, loc, add(b, loc, w.cBase, mul(b, loc, row, s.n)), t.n0));
  }
}

/// The accumulators start at zero. The tile's rows of C (partial sums of
/// earlier K slices, read after the k loop; on every slice, lines about to
/// be stored) and, on the last slice, the rows of the epilogue's operands
/// are prefetched while the k loop runs, so that their cache misses
/// overlap the FMAs: one line of each every 2^pfShift iterations, not all
/// at once (32 misses at the start of a tile fill the line fill buffers
/// and stall the micro-kernel's own loads). A slice too short for that
/// asks for them all before its k loop.
TilePrefetch MatmulEmitter::planTilePrefetch(const WorkUnit &w, const Tile &t,
                                             BShare share) {
  TilePrefetch pf;
  pf.bShare = std::move(share);
  pf.streams.push_back({out, t.rowOffset[0], s.n, true, false});
  for (unsigned i : plan.epilogueArgs) {
    const Layout &l = plan.layouts[i];
    int64_t stride = l.strides[l.strides.size() - 2];
    pf.streams.push_back(
        {arg(plan.slotOf[i]),
         add(b, loc,
             add(b, loc, w.boffs[2 + i], mul(b, loc, t.rowOf[0], stride)),
             t.n0),
         stride, false, true});
  }
  // Two lines per row: its first and last element. They are asked for two
  // per chunk in the first half of the k loop, so that the last of them,
  // from memory when C is a large update written in place, arrive before
  // the tile's rows are stored (one per chunk over all of it, the last
  // rows' loads stalled the store of a weight update's tiles).
  pf.pfLines = 2 * kMR;
  pf.kSpan = plan.dynamicK ? kKC : std::min(kKC, s.k);
  int64_t pfIters = std::max<int64_t>(pf.kSpan / kUnroll, 1);
  if (pfIters >= pf.pfLines) {
    pf.pfShift = 0;
    while ((pf.pfLines << (pf.pfShift + 1)) <= pfIters)
      ++pf.pfShift;
  }
  return pf;
}

/// Asks for line q of each row stream (all lines when q is null).
void MatmulEmitter::prefetchLines(const TilePrefetch &pf, const KSlice &ks,
                                  Value q) {
  for (const RowStream &st : pf.streams) {
    OpBuilder::InsertionGuard g(b);
    if (st.lastSliceOnly) {
      auto ifLast = scf::IfOp::create(b, loc, TypeRange{}, ks.last, false);
      b.setInsertionPointToStart(&ifLast.getThenRegion().front());
    }
    auto ask = [&](Value row, Value col) {
      memref::PrefetchOp::create(
          b, loc, st.buf,
          ValueRange{add(
              b, loc,
              add(b, loc, st.base,
                  arith::MulIOp::create(b, loc, row, cidx(b, loc, st.stride))),
              col)},
          st.write, /*localityHint=*/3, /*isDataCache=*/true);
    };
    if (!q) {
      for (int64_t r = 0; r < kMR; ++r)
        for (int64_t off : {int64_t(0), kNR - 1})
          ask(cidx(b, loc, r), cidx(b, loc, off));
      continue;
    }
    Value row = arith::DivUIOp::create(b, loc, q, cidx(b, loc, 2));
    Value col = mul(b, loc, arith::RemUIOp::create(b, loc, q, cidx(b, loc, 2)),
                    kNR - 1);
    ask(row, col);
  }
}

/// Chunk q of a k loop asks for lines 2q and 2q + 1 of each row stream,
/// while q < pfLines / 2: the lines arrive over the first half of the
/// loop.
void MatmulEmitter::prefetchEarlyLines(const TilePrefetch &pf,
                                       const KSlice &ks, Value q) {
  OpBuilder::InsertionGuard g(b);
  auto early = scf::IfOp::create(
      b, loc, TypeRange{},
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, q,
                            cidx(b, loc, pf.pfLines / 2)),
      false);
  b.setInsertionPointToStart(&early.getThenRegion().front());
  prefetchLines(pf, ks, mul(b, loc, q, 2));
  prefetchLines(pf, ks, add(b, loc, mul(b, loc, q, 2), cidx(b, loc, 1)));
}

/// The micro-kernel's FMAs for `steps` k steps from kk: per step, one
/// vector of the packed B panel, and for each of the MR rows one broadcast
/// of packed A and one FMA into its accumulator.
SmallVector<Value> MatmulEmitter::kSteps(const Tile &t, Value kk,
                                         ValueRange acc, int64_t steps) {
  SmallVector<Value> next(acc.begin(), acc.end());
  if (steps == kUnroll)
    prefetchA(t, kk, kUnroll * kMR);
  for (int64_t j = 0; j < steps; ++j) {
    Value kj = add(b, loc, kk, cidx(b, loc, j));
    Value bIdx = add(b, loc, t.bPanel, mul(b, loc, kj, kNR));
    accumulate(t, kj,
               vector::LoadOp::create(b, loc, vecT, packedB, ValueRange{bIdx}),
               next);
  }
  return next;
}

/// Packed A streams from L2 (a tile reads its panel once): asks for it
/// into L1 kAPrefetchSteps k steps past kk, one line per 16 of the
/// `floats` the caller reads from kk. The next panel follows this one, so
/// the stream runs on across tiles. Nothing when A is read in place.
void MatmulEmitter::prefetchA(const Tile &t, Value kk, int64_t floats) {
  if (plan.aInPlace)
    return;
  Value ahead =
      add(b, loc, t.aPanel,
          mul(b, loc, add(b, loc, kk, cidx(b, loc, kAPrefetchSteps)), kMR));
  for (int64_t off = 0; off < floats; off += 16)
    memref::PrefetchOp::create(
        b, loc, packedA, ValueRange{add(b, loc, ahead, cidx(b, loc, off))},
        /*isWrite=*/false, /*localityHint=*/3,
        /*isDataCache=*/true);
}

/// One k step (kj, in the slice) of the tile against the NR lanes `bv` of
/// B: for each of the MR rows one broadcast of A and one FMA into its
/// accumulator. Row r of the tile at kj: in place, on row r's stream of
/// A; packed, lane r of the panel's MR values at kj.
void MatmulEmitter::accumulate(const Tile &t, Value kj, Value bv,
                               SmallVector<Value> &acc) {
  Value aIdx =
      plan.aInPlace ? Value() : add(b, loc, t.aPanel, mul(b, loc, kj, kMR));
  for (int64_t r = 0; r < kMR; ++r) {
    Value a = memref::LoadOp::create(
        b, loc, plan.aInPlace ? aSrc : packedA,
        ValueRange{plan.aInPlace ? add(b, loc, t.aRows[r], kj)
                                 : add(b, loc, aIdx, cidx(b, loc, r))});
    Value av = vector::BroadcastOp::create(b, loc, vecT, a);
    acc[r] = vector::FMAOp::create(b, loc, vecT, av, bv, acc[r]);
  }
}

/// Runs [from, to) kUnroll steps per iteration.
scf::ForOp MatmulEmitter::unrolledLoop(const Tile &t, Value from, Value to,
                                       ValueRange acc) {
  auto loop = scf::ForOp::create(b, loc, from, to, cidx(b, loc, kUnroll), acc);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(loop.getBody());
  scf::YieldOp::create(
      b, loc,
      kSteps(t, loop.getInductionVar(), loop.getRegionIterArgs(), kUnroll));
  return loop;
}

/// The register-tiled micro-kernel over the slice: MR accumulators of NR
/// lanes, run kUnroll steps per iteration (so that its counter and branch
/// take fewer of the cycles the FMA ports need), then the rest of the
/// slice one step at a time. Chunks of kUnroll << pfShift steps each ask
/// first for one line of each row stream and their lines of the tile's
/// share of the next B. Returns the loop whose results are the sums.
scf::ForOp MatmulEmitter::microKernel(const Tile &t, const KSlice &ks,
                                      const TilePrefetch &pf) {
  const int64_t pfShift = pf.pfShift;
  const BShare &share = pf.bShare;
  SmallVector<Value> init(kMR, zeroVec);
  if (pfShift < 0) {
    prefetchLines(pf, ks, Value());
    if (share.enabled) {
      auto all =
          scf::ForOp::create(b, loc, zero, cidx(b, loc, share.lines), one);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(all.getBody());
      prefetchBLine(share, all.getInductionVar());
    }
  }
  // Chunks of kUnroll << pfShift steps, each asking for one line of each
  // row stream and then running its steps kUnroll at a time; whole groups
  // of kUnroll steps after the last chunk; then single steps.
  int64_t chunk = kUnroll << std::max<int64_t>(pfShift, 0);
  Value kbChunks = arith::SubIOp::create(
      b, loc, ks.kb,
      arith::RemUIOp::create(b, loc, ks.kb, cidx(b, loc, chunk)));
  Value kbMain = arith::SubIOp::create(
      b, loc, ks.kb,
      arith::RemUIOp::create(b, loc, ks.kb, cidx(b, loc, kUnroll)));
  ValueRange accs = init;
  Value mainFrom = zero;
  if (pfShift >= 0) {
    auto chunkLoop =
        scf::ForOp::create(b, loc, zero, kbChunks, cidx(b, loc, chunk), init);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(chunkLoop.getBody());
    Value kk = chunkLoop.getInductionVar();
    Value q = arith::DivUIOp::create(b, loc, kk, cidx(b, loc, chunk));
    prefetchEarlyLines(pf, ks, q);
    if (share.enabled) {
      // This chunk's lines of the tile's share of the next B.
      int64_t chunks = std::max<int64_t>(pf.kSpan / chunk, 1);
      int64_t perChunk = (share.lines + chunks - 1) / chunks;
      Value from = mul(b, loc, q, perChunk);
      auto lines = scf::ForOp::create(
          b, loc, from, add(b, loc, from, cidx(b, loc, perChunk)), one);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(lines.getBody());
      prefetchBLine(share, lines.getInductionVar());
    }
    scf::YieldOp::create(b, loc,
                         unrolledLoop(t, kk,
                                      add(b, loc, kk, cidx(b, loc, chunk)),
                                      chunkLoop.getRegionIterArgs())
                             .getResults());
    accs = chunkLoop.getResults();
    mainFrom = kbChunks;
  }
  auto kMainLoop = unrolledLoop(t, mainFrom, kbMain, accs);
  auto kLoop =
      scf::ForOp::create(b, loc, kbMain, ks.kb, one, kMainLoop.getResults());
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(kLoop.getBody());
  scf::YieldOp::create(
      b, loc, kSteps(t, kLoop.getInductionVar(), kLoop.getRegionIterArgs(), 1));
  return kLoop;
}

/// The micro-kernel of a convolution whose windows step by 1 over output
/// rows as wide as the input's (windowsInPlace): row (c, i, j) of the
/// columns, at output pixel p, is plane c of the input at p + (i * dh -
/// ph) * W + j * dw - pw, so each k step loads its NR lanes straight from
/// the input, the lanes whose window leaves the plane (the padding) masked
/// off, instead of from a packed panel of B: nothing is packed, and the
/// input rows that a tile's columns read stay in L1 for its row panels.
/// The loop runs over the slice's channels (slices are whole channels),
/// each channel's KH * KW taps unrolled with their offsets and masks,
/// which are the same for every channel of the tile.
SmallVector<Value> MatmulEmitter::windowsKernel(const WorkUnit &w,
                                                const Tile &t, const KSlice &ks,
                                                const TilePrefetch &pf) {
  const UnfoldGeometry &g = plan.geometry;
  const int64_t taps = g.kh * g.kw;
  // The NR lanes are loaded as their two registers' halves, each with its
  // own mask, so that no mask register is shifted on the FMA ports.
  const int64_t half = kNR / 2;
  Lanes l(b, loc, half);
  auto halfT = VectorType::get({half}, f32);
  Value zeroHalf = constantOf(b, loc, halfT, 0.0);
  SmallVector<int64_t> concat;
  for (int64_t i = 0; i < kNR; ++i)
    concat.push_back(i);
  SmallVector<int64_t> offsets;
  for (int64_t i = 0; i < g.kh; ++i)
    for (int64_t j = 0; j < g.kw; ++j)
      offsets.push_back((i * g.dh - g.ph) * g.w + j * g.dw - g.pw);
  // The output row and column of each lane of half h.
  auto pixels = [&](int64_t h, Value &lane, Value &oh, Value &ow) {
    lane = l.add(l.iota, l.c(h * half));
    Value p = l.add(l.splat(t.n0), lane);
    oh = l.div(p, g.ow);
    ow = l.rem(p, g.ow);
  };
  // The tile's rows of C are asked for two lines per channel over the
  // first channels (all before the loop when the slice has fewer).
  int64_t channels = kKC / taps;
  bool early = channels >= pf.pfLines / 2;
  if (!early)
    prefetchLines(pf, ks, Value());
  Value cFrom = arith::DivUIOp::create(b, loc, ks.kc, cidx(b, loc, taps));
  Value cTo = add(b, loc, cFrom,
                  arith::DivUIOp::create(b, loc, ks.kb, cidx(b, loc, taps)));
  // The loop over the slice's channels, with masks[tap * 2 + h] the lanes
  // of half h inside the input at the tap (null: all of them).
  auto channelLoop = [&](ArrayRef<Value> masks) {
    SmallVector<Value> init(kMR, zeroVec);
    auto cLoop = scf::ForOp::create(b, loc, cFrom, cTo, one, init);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(cLoop.getBody());
    Value c = cLoop.getInductionVar();
    Value kk = arith::SubIOp::create(b, loc, mul(b, loc, c, taps), ks.kc);
    if (early)
      prefetchEarlyLines(pf, ks, arith::SubIOp::create(b, loc, c, cFrom));
    prefetchA(t, kk, taps * kMR);
    Value plane =
        add(b, loc, add(b, loc, w.bSrcBase, t.n0), mul(b, loc, c, g.h * g.w));
    SmallVector<Value> acc(cLoop.getRegionIterArgs());
    for (int64_t tap = 0; tap < taps; ++tap) {
      // Lanes outside the input are never read: their addresses may lie
      // before or past the plane.
      SmallVector<Value> halves;
      for (int64_t h = 0; h < 2; ++h) {
        Value at = add(b, loc, plane, cidx(b, loc, offsets[tap] + h * half));
        Value mask = masks[tap * 2 + h];
        halves.push_back(
            mask ? vector::MaskedLoadOp::create(b, loc, halfT, src.values,
                                                ValueRange{at}, mask, zeroHalf)
                       .getResult()
                 : vector::LoadOp::create(b, loc, halfT, src.values,
                                          ValueRange{at})
                       .getResult());
      }
      Value bv =
          vector::ShuffleOp::create(b, loc, halves[0], halves[1], concat);
      accumulate(t, add(b, loc, kk, cidx(b, loc, tap)), bv, acc);
    }
    scf::YieldOp::create(b, loc, acc);
    return SmallVector<Value>(cLoop.getResults());
  };
  // A full panel whose output rows have every tap's input row inside the
  // plane (all but the panels at the top and bottom of an image) masks its
  // lanes by column only, and not at all for a tap of column offset 0: 4
  // masks for a 3 x 3 window instead of 18, which, past the 7 mask
  // registers of AVX-512, were reloaded from the stack at every tap.
  Value lastPixel = add(b, loc, t.n0, cidx(b, loc, kNR - 1));
  Value interior = arith::AndIOp::create(
      b, loc,
      arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, t.cols,
                                cidx(b, loc, kNR)),
          arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::uge,
              arith::DivUIOp::create(b, loc, t.n0, cidx(b, loc, g.ow)),
              cidx(b, loc, g.ph))),
      arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult,
          add(b, loc,
              arith::DivUIOp::create(b, loc, lastPixel, cidx(b, loc, g.ow)),
              cidx(b, loc, (g.kh - 1) * g.dh)),
          cidx(b, loc, g.h + g.ph)));
  SmallVector<Type> types(kMR, vecT);
  auto ifInterior = scf::IfOp::create(b, loc, types, interior, true);
  OpBuilder::InsertionGuard g1(b);
  b.setInsertionPointToStart(&ifInterior.getThenRegion().front());
  {
    SmallVector<Value> masks(taps * 2);
    for (int64_t h = 0; h < 2; ++h) {
      Value lane, oh, ow;
      pixels(h, lane, oh, ow);
      for (int64_t j = 0; j < g.kw; ++j) {
        int64_t dx = j * g.dw - g.pw;
        Value inCol = dx ? l.inside(l.add(ow, l.c(dx)), g.w) : Value();
        for (int64_t i = 0; i < g.kh; ++i)
          masks[(i * g.kw + j) * 2 + h] = inCol;
      }
    }
    scf::YieldOp::create(b, loc, channelLoop(masks));
  }
  b.setInsertionPointToStart(&ifInterior.getElseRegion().front());
  {
    SmallVector<Value> masks(taps * 2);
    for (int64_t h = 0; h < 2; ++h) {
      Value lane, oh, ow;
      pixels(h, lane, oh, ow);
      Value inCols = l.below(lane, l.splat(t.cols));
      for (int64_t i = 0; i < g.kh; ++i) {
        Value ih = l.add(oh, l.c(i * g.dh - g.ph));
        Value rowInside = l.both(l.inside(ih, g.h), inCols);
        for (int64_t j = 0; j < g.kw; ++j) {
          Value iw = l.add(ow, l.c(j * g.dw - g.pw));
          masks[(i * g.kw + j) * 2 + h] = l.both(rowInside, l.inside(iw, g.w));
        }
      }
    }
    scf::YieldOp::create(b, loc, channelLoop(masks));
  }
  return SmallVector<Value>(ifInterior.getResults());
}

/// Stores each valid row of the tile: raw partial sums, or the epilogue
/// on the last slice. Rows are loaded and stored whole on every panel but
/// the last, which is masked.
LogicalResult MatmulEmitter::storeTile(const WorkUnit &w, const KSlice &ks,
                                       const Tile &t, ValueRange sums) {
  for (int64_t r = 0; r < kMR; ++r) {
    auto ifValid = scf::IfOp::create(b, loc, TypeRange{}, t.rowValid[r], false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifValid.getThenRegion().front());
    Value acc = sums[r];
    {
      // The partial sums of earlier slices are added after the k loop.
      auto ifFirst = scf::IfOp::create(b, loc, TypeRange{vecT}, ks.first, true);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifFirst.getThenRegion().front());
      scf::YieldOp::create(b, loc, acc);
      b.setInsertionPointToStart(&ifFirst.getElseRegion().front());
      Value partial = loadRow(out, t.rowOffset[r], t.fullPanel, t.colMask);
      scf::YieldOp::create(
          b, loc, arith::AddFOp::create(b, loc, acc, partial).getResult());
      acc = ifFirst.getResult(0);
    }
    auto ifLast = scf::IfOp::create(b, loc, TypeRange{vecT}, ks.last, true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifLast.getThenRegion().front());
      FailureOr<Value> v = applyEpilogue(w, t, t.rowOf[r], acc);
      if (failed(v))
        return failure();
      scf::YieldOp::create(b, loc, *v);
      b.setInsertionPointToStart(&ifLast.getElseRegion().front());
      scf::YieldOp::create(b, loc, acc);
    }
    storeRow(out, t.rowOffset[r], ifLast.getResult(0), t.fullPanel, t.colMask);
  }
  return success();
}

/// The epilogue (bias, activation, residual...) on row `row` of the tile,
/// whose sums are `acc`, in registers, so that it costs no pass over
/// memory: its operands' rows are loaded as vectors (whole but on the last
/// panel), or broadcast when they are constant along the row.
FailureOr<Value> MatmulEmitter::applyEpilogue(const WorkUnit &w, const Tile &t,
                                              Value row, Value acc) {
  Evaluator ev(b, loc, [&](BlockArgument a) -> Value {
    unsigned i = a.getArgNumber();
    const Layout &l = plan.layouts[i];
    Value base = add(b, loc, w.boffs[2 + i],
                     mul(b, loc, row, l.strides[l.strides.size() - 2]));
    Value buf = arg(plan.slotOf[i]);
    Type et = llvm::cast<MemRefType>(buf.getType()).getElementType();
    if (l.strides.back() != 0)
      return loadRow(buf, add(b, loc, base, t.n0), t.fullPanel, t.colMask);
    Value scalar = memref::LoadOp::create(b, loc, buf, base);
    return vector::BroadcastOp::create(b, loc, VectorType::get({kNR}, et),
                                       scalar);
  });
  ev.setVectorWidth(kNR);
  MatmulOp mm = plan.mm;
  ev.bind(mm.getResult(), acc);
  return ev.eval(plan.root);
}

LogicalResult kernelgen::generateMatmul(func::FuncOp tmpl, ModuleOp module,
                                        const MatmulTiling &tiling) {
  if (generateMergedRows(tmpl, module, tiling))
    return success();
  // A few rows of A: B streamed once rather than packed.
  if (succeeded(generateGemv(tmpl, module, tiling.nr / 2 * 32)))
    return success();
  MatmulPlan plan;
  switch (plan.build(tmpl, tiling)) {
  case MatmulVerdict::Unsupported:
    return failure();
  case MatmulVerdict::Generic:
    return generateGeneric(tmpl, module);
  case MatmulVerdict::Tiled:
    break;
  }
  MatmulEmitter emitter(tmpl, module, plan);
  if (!plan.aInPlace && failed(emitter.packA()))
    return generateGeneric(tmpl, module);
  return emitter.multiplyBlocks();
}
