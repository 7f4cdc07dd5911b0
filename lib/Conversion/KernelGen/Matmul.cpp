//===- Matmul.cpp - Code for matmul kernels -------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// C = A x B (+ epilogue), f32, batched with broadcast batch dims. A and B
// are arguments or transposes of arguments (read in place while packing).
//
// Phase 0 packs B into panels of NR columns, each panel K rows of NR
// contiguous floats, zero-padded past N: one vector copy per row, a gather
// from NR stored rows when B is transposed (a dequantized B is unpacked
// here, element by element).
// Phase 1 gives each work unit MC rows and a block of NC columns of C. For
// every KC-deep slice of K it packs those rows of A into panels of MR rows
// (zero-padded past M) and runs the micro-kernel over every MR x NR tile:
// MR accumulators of NR lanes (8x32: 16 AVX-512 registers; 6x16: 12 AVX2
// registers) updated with one broadcast and NR/lanes FMAs per row and k.
// The accumulators start at zero; the tile's rows of C (the partial sums of
// earlier K slices) are prefetched before the k loop and added after it.
// On the last slice the epilogue (bias, activation, residual...) is
// applied to the tile in registers before it is stored, so it costs no
// pass over memory; its operands' rows are prefetched with C's.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"
#include "kiln/Conversion/ElementwiseEmitter.h"
#include "kiln/Transforms/Fusion.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::kernelgen;

namespace {

/// Phase 1 splits the columns too when there are fewer row blocks than this.
constexpr int64_t kMinUnits = 8;
/// Phase 0 packs this many panels of B per work unit.
constexpr int64_t kPanelGroup = 16;

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
Value mulv(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
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

/// The argument an operand reads: itself, or the input of a matrix
/// transpose (then `transposed` is set).
static BlockArgument transposableArg(Value operand, bool &transposed) {
  Operation *def = operand.getDefiningOp();
  transposed = isMatrixTranspose(def);
  return llvm::dyn_cast<BlockArgument>(transposed ? def->getOperand(0)
                                                  : operand);
}

LogicalResult kernelgen::generateMatmul(func::FuncOp tmpl, ModuleOp module,
                                        const MatmulTiling &tiling) {
  const int64_t kNR = tiling.nr, kMR = tiling.mr, kMC = tiling.mc,
                kKC = tiling.kc;
  MatmulOp mm;
  tmpl.walk([&](MatmulOp op) { mm = op; });
  auto ret = llvm::cast<func::ReturnOp>(tmpl.getBody().front().getTerminator());
  if (!mm || ret.getNumOperands() != 1)
    return failure();
  Value root = ret.getOperand(0);
  auto cType = llvm::cast<RankedTensorType>(mm.getType());
  auto aType = mm.getLhs().getType(), bType = mm.getRhs().getType();
  if (!cType.getElementType().isF32() || !cType.hasStaticShape() ||
      !aType.hasStaticShape() || !bType.hasStaticShape() ||
      llvm::cast<RankedTensorType>(root.getType()) != cType)
    return generateGeneric(tmpl, module);

  // Operands: A must be an argument or its transpose; B an argument, its
  // transpose, or a dequantized argument.
  bool aT = false, bT = false;
  auto aArg = transposableArg(mm.getLhs(), aT);
  BlockArgument bArg;
  QuantSchemeAttr scheme;
  if (auto deq = mm.getRhs().getDefiningOp<DequantizeOp>()) {
    bArg = llvm::dyn_cast<BlockArgument>(deq.getInput());
    scheme = getQuantScheme(deq.getInput().getType());
  } else {
    bArg = transposableArg(mm.getRhs(), bT);
  }
  if (!aArg || !bArg)
    return generateGeneric(tmpl, module);

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
  for (int64_t d : bType.getShape().drop_back(2))
    s.bBatches *= d;
  int64_t cBatches = 1;
  for (int64_t d : s.batch)
    cBatches *= d;

  // The epilogue's other operands, laid out against C.
  SmallVector<Layout> layouts;
  for (BlockArgument a : tmpl.getArguments()) {
    auto t = llvm::cast<RankedTensorType>(a.getType());
    if (getQuantScheme(t) || t.getRank() > cType.getRank())
      layouts.push_back({});
    else
      layouts.push_back(layoutOf(t.getShape(), cs));
  }

  // Epilogue operands that vary along both rows and columns of C: their
  // tile rows are prefetched before the last slice's k loop.
  SmallVector<unsigned> epilogueArgs;
  for (BlockArgument a : tmpl.getArguments()) {
    const Layout &l = layouts[a.getArgNumber()];
    bool readByEpilogue = llvm::any_of(a.getUsers(), [&](Operation *u) {
      return u != mm.getOperation() && !llvm::isa<DequantizeOp, PermuteOp>(u);
    });
    if (readByEpilogue && l.strides.size() >= 2 &&
        l.strides[l.strides.size() - 2] != 0 && l.strides.back() != 0)
      epilogueArgs.push_back(a.getArgNumber());
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
  int64_t packedFloats = s.bBatches * panels * s.k * kNR;

  //===--- Phase 0: pack B -------------------------------------------------===//
  {
    // A unit packs a group of panels. A row-major B is walked row by row
    // across the whole group, so that each stored row is read as one long
    // run (a page and a TLB entry serve many panels, not one); a
    // transposed B is walked panel by panel, each of its NR stored rows
    // read sequentially along k.
    int64_t groups = (panels + kPanelGroup - 1) / kPanelGroup;
    func::FuncOp fn =
        createPhase(b, module, tmpl, 0, abi, s.bBatches * groups, 1);
    fn->setAttr(kWorkspaceAttr, b.getI64IntegerAttr(packedFloats * 4));
    Block &entry = fn.getBody().front();
    b.setInsertionPoint(entry.getTerminator());
    auto arg = [&](unsigned i) { return entry.getArgument(2 + i); };
    BSource src{arg(slotOf[bArg.getArgNumber()]),
                scheme ? arg(slotOf[bArg.getArgNumber()] + 1) : Value(), scheme};
    Value ws = arg(abi.args.size() - 1);
    Value packed = memref::ViewOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, f32), ws,
        cidx(b, loc, 0), ValueRange{cidx(b, loc, packedFloats)});
    Value zero = cidx(b, loc, 0), one = cidx(b, loc, 1);
    auto units = scf::ForOp::create(b, loc, entry.getArgument(0),
                                    entry.getArgument(1), one);
    b.setInsertionPointToStart(units.getBody());
    Value u = units.getInductionVar();
    Value bb = arith::DivUIOp::create(b, loc, u, cidx(b, loc, groups));
    Value pFrom = mul(b, loc, arith::RemUIOp::create(b, loc, u,
                                                     cidx(b, loc, groups)),
                      kPanelGroup);
    Value pTo = minv(b, loc, add(b, loc, pFrom, cidx(b, loc, kPanelGroup)),
                     cidx(b, loc, panels));
    Value p, kk;
    if (bT) {
      auto pLoop = scf::ForOp::create(b, loc, pFrom, pTo, one);
      b.setInsertionPointToStart(pLoop.getBody());
      auto kLoop = scf::ForOp::create(b, loc, zero, cidx(b, loc, s.k), one);
      b.setInsertionPointToStart(kLoop.getBody());
      p = pLoop.getInductionVar();
      kk = kLoop.getInductionVar();
    } else {
      auto kLoop = scf::ForOp::create(b, loc, zero, cidx(b, loc, s.k), one);
      b.setInsertionPointToStart(kLoop.getBody());
      auto pLoop = scf::ForOp::create(b, loc, pFrom, pTo, one);
      b.setInsertionPointToStart(pLoop.getBody());
      p = pLoop.getInductionVar();
      kk = kLoop.getInductionVar();
    }
    Value srcBase = mul(b, loc, bb, s.k * s.n);
    Value dstBase =
        mul(b, loc, add(b, loc, mul(b, loc, bb, panels), p), s.k * kNR);
    Value n0 = mul(b, loc, p, kNR);
    Value cols = minv(b, loc, cidx(b, loc, kNR),
                      arith::SubIOp::create(b, loc, cidx(b, loc, s.n), n0));
    Value rowSrc = add(b, loc, add(b, loc, srcBase, mul(b, loc, kk, s.n)), n0);
    Value rowDst = add(b, loc, dstBase, mul(b, loc, kk, kNR));
    if (bT) {
      // B is stored as [N, K]: a row of the panel gathers one element from
      // each of NR stored rows, each read sequentially along k. Columns
      // past N read the last one and are zeroed: no branch.
      Value lastCol = arith::SubIOp::create(b, loc, cols, one);
      Value zeroF = constantOf(b, loc, f32, 0.0);
      SmallVector<Value> lanes;
      for (int64_t c = 0; c < kNR; ++c) {
        Value col = minv(b, loc, cidx(b, loc, c), lastCol);
        Value idx = add(b, loc, add(b, loc, srcBase, kk),
                        mul(b, loc, add(b, loc, n0, col), s.k));
        Value v = memref::LoadOp::create(b, loc, src.values, idx);
        Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             cidx(b, loc, c), cols);
        lanes.push_back(arith::SelectOp::create(b, loc, inside, v, zeroF));
      }
      vector::StoreOp::create(
          b, loc, vector::FromElementsOp::create(b, loc, vecT, lanes), packed,
          ValueRange{rowDst});
    } else if (!scheme) {
      // A row of the panel is one vector: a plain load inside B, a masked
      // one (zeros past N) on the last panel.
      Value colMask =
          vector::CreateMaskOp::create(b, loc, maskT, ValueRange{cols});
      Value full = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, cols,
                                         cidx(b, loc, kNR));
      auto ifFull = scf::IfOp::create(b, loc, TypeRange{vecT}, full, true);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&ifFull.getThenRegion().front());
        scf::YieldOp::create(
            b, loc,
            vector::LoadOp::create(b, loc, vecT, src.values, ValueRange{rowSrc})
                .getResult());
        b.setInsertionPointToStart(&ifFull.getElseRegion().front());
        scf::YieldOp::create(
            b, loc,
            vector::MaskedLoadOp::create(b, loc, vecT, src.values,
                                         ValueRange{rowSrc}, colMask,
                                         constantOf(b, loc, vecT, 0.0))
                .getResult());
      }
      vector::StoreOp::create(b, loc, ifFull.getResult(0), packed,
                              ValueRange{rowDst});
    } else {
      auto cLoop = scf::ForOp::create(b, loc, zero, cidx(b, loc, kNR), one);
      b.setInsertionPointToStart(cLoop.getBody());
      Value c = cLoop.getInductionVar();
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c,
                                           cols);
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{f32}, inside, true);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        scf::YieldOp::create(b, loc, src.load(b, loc, add(b, loc, rowSrc, c)));
        b.setInsertionPointToStart(&ifOp.getElseRegion().front());
        scf::YieldOp::create(b, loc, constantOf(b, loc, f32, 0.0));
      }
      memref::StoreOp::create(b, loc, ifOp.getResult(0), packed,
                              ValueRange{add(b, loc, rowDst, c)});
    }
  }

  //===--- Phase 1: micro-kernel over row and column blocks -----------------===//
  // Work units are (column block, row block) pairs, column-block major: the
  // units that run one after another on a thread share a column block of
  // packed B (NC columns, K rows), which stays in L3 while every row block
  // passes over it, and each unit's partial sums (MC x NC) stay in L2
  // across K slices. Each unit packs its own copy of A's rows, which is
  // cheap next to the FMAs. When there are few units the column blocks are
  // narrowed, so that two or more threads share the work evenly.
  int64_t mBlocks = (s.m + kMC - 1) / kMC;
  int64_t rowUnits = std::max<int64_t>(cBatches * mBlocks, 1);
  int64_t nBlocks = std::max<int64_t>(
      (panels * kNR + tiling.nc - 1) / tiling.nc,
      std::min<int64_t>((kMinUnits + rowUnits - 1) / rowUnits,
                        std::max<int64_t>(panels, 1)));
  int64_t panelsPerBlock = (panels + nBlocks - 1) / nBlocks;
  nBlocks = std::max<int64_t>((panels + panelsPerBlock - 1) / panelsPerBlock, 1);
  func::FuncOp fn = createPhase(b, module, tmpl, 1, abi,
                                cBatches * mBlocks * nBlocks, 1);
  Block &entry = fn.getBody().front();
  b.setInsertionPoint(entry.getTerminator());
  auto arg = [&](unsigned i) { return entry.getArgument(2 + i); };
  Value aBuf = arg(slotOf[aArg.getArgNumber()]);
  Value out = arg(abi.numInputs);
  Value ws = arg(abi.args.size() - 1);
  Value packedB = memref::ViewOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, f32), ws, cidx(b, loc, 0),
      ValueRange{cidx(b, loc, packedFloats)});
  Value packedA =
      memref::AllocaOp::create(b, loc, MemRefType::get({kMC * kKC}, f32));
  Value zero = cidx(b, loc, 0), one = cidx(b, loc, 1);
  Value zeroVec = constantOf(b, loc, vecT, 0.0);

  auto units =
      scf::ForOp::create(b, loc, entry.getArgument(0), entry.getArgument(1), one);
  b.setInsertionPointToStart(units.getBody());
  Value u = units.getInductionVar();
  Value nb = arith::DivUIOp::create(b, loc, u, cidx(b, loc, rowUnits));
  u = arith::RemUIOp::create(b, loc, u, cidx(b, loc, rowUnits));
  Value bc = arith::DivUIOp::create(b, loc, u, cidx(b, loc, mBlocks));
  Value m0 = mul(b, loc, arith::RemUIOp::create(b, loc, u, cidx(b, loc, mBlocks)),
                 kMC);
  Value rows = minv(b, loc, cidx(b, loc, kMC),
                    arith::SubIOp::create(b, loc, cidx(b, loc, s.m), m0));
  SmallVector<SmallVector<int64_t>> batchStrides{s.aBatchStrides, s.bBatchStrides};
  for (const Layout &l : layouts)
    batchStrides.push_back(l.strides.empty()
                               ? SmallVector<int64_t>(s.batch.size(), 0)
                               : SmallVector<int64_t>(l.strides.begin(),
                                                      l.strides.end() - 2));
  SmallVector<Value> boffs = offsetsFromLinear(b, loc, bc, s.batch, batchStrides);
  Value aBase = mul(b, loc, boffs[0], s.m * s.k);
  Value bPanelBase = mul(b, loc, boffs[1], panels * s.k * kNR);
  Value cBase = mul(b, loc, bc, s.m * s.n);
  Value rowPanels = arith::DivUIOp::create(
      b, loc, add(b, loc, rows, cidx(b, loc, kMR - 1)), cidx(b, loc, kMR));

  int64_t kSlices = (s.k + kKC - 1) / kKC;
  auto kcLoop = scf::ForOp::create(b, loc, zero, cidx(b, loc, kSlices), one);
  b.setInsertionPointToStart(kcLoop.getBody());
  Value kc = mul(b, loc, kcLoop.getInductionVar(), kKC);
  Value kb = minv(b, loc, cidx(b, loc, kKC),
                  arith::SubIOp::create(b, loc, cidx(b, loc, s.k), kc));
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      kcLoop.getInductionVar(), zero);
  Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     kcLoop.getInductionVar(),
                                     cidx(b, loc, kSlices - 1));

  // Pack A[m0 : m0 + rows, kc : kc + kb] as panels of MR rows, k-major.
  {
    auto ir = scf::ForOp::create(b, loc, zero, rowPanels, one);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ir.getBody());
    Value panelBase = mul(b, loc, ir.getInductionVar(), kMR * kKC);
    auto kLoop = scf::ForOp::create(b, loc, zero, kb, one);
    b.setInsertionPointToStart(kLoop.getBody());
    Value kk = kLoop.getInductionVar();
    // Rows past the block read its last row and store zero: no branch.
    Value lastRow = arith::SubIOp::create(b, loc, rows, one);
    Value zeroF = constantOf(b, loc, f32, 0.0);
    for (int64_t r = 0; r < kMR; ++r) {
      Value row = add(b, loc, mul(b, loc, ir.getInductionVar(), kMR),
                      cidx(b, loc, r));
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           row, rows);
      Value srcRow = minv(b, loc, row, lastRow);
      // A is stored as [M, K], or as [K, M] when transposed.
      Value mIdx = add(b, loc, m0, srcRow), kIdx = add(b, loc, kc, kk);
      Value idx = aT ? add(b, loc, aBase,
                           add(b, loc, mul(b, loc, kIdx, s.m), mIdx))
                     : add(b, loc, aBase,
                           add(b, loc, mul(b, loc, mIdx, s.k), kIdx));
      Value v = memref::LoadOp::create(b, loc, aBuf, idx);
      v = arith::SelectOp::create(b, loc, inside, v, zeroF);
      Value dst = add(b, loc, add(b, loc, panelBase, mul(b, loc, kk, kMR)),
                      cidx(b, loc, r));
      memref::StoreOp::create(b, loc, v, packedA, dst);
    }
  }

  // Tiles: every 32-column panel, every 8-row panel.
  Value pBegin = mul(b, loc, nb, panelsPerBlock);
  Value pEnd = minv(b, loc, add(b, loc, pBegin, cidx(b, loc, panelsPerBlock)),
                    cidx(b, loc, panels));
  auto pLoop = scf::ForOp::create(b, loc, pBegin, pEnd, one);
  b.setInsertionPointToStart(pLoop.getBody());
  Value p = pLoop.getInductionVar();
  Value n0 = mul(b, loc, p, kNR);
  Value cols = minv(b, loc, cidx(b, loc, kNR),
                    arith::SubIOp::create(b, loc, cidx(b, loc, s.n), n0));
  Value colMask = vector::CreateMaskOp::create(b, loc, maskT, ValueRange{cols});
  Value bPanel = add(b, loc, bPanelBase, mul(b, loc, p, s.k * kNR));
  auto irLoop = scf::ForOp::create(b, loc, zero, rowPanels, one);
  b.setInsertionPointToStart(irLoop.getBody());
  Value ir = irLoop.getInductionVar();
  Value aPanel = mul(b, loc, ir, kMR * kKC);

  // While this panel of B is reused from L1, bring the next panel's slice
  // into L2, a share of its rows on each row panel: the first tile of the
  // next panel would otherwise wait on memory.
  {
    Value nextPanel = add(b, loc, p, one);
    Value hasNext = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          nextPanel, pEnd);
    auto ifNext = scf::IfOp::create(b, loc, TypeRange{}, hasNext, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifNext.getThenRegion().front());
    Value share = arith::DivUIOp::create(
        b, loc, add(b, loc, kb, arith::SubIOp::create(b, loc, rowPanels, one)),
        rowPanels);
    Value from = mulv(b, loc, ir, share);
    Value to = minv(b, loc, add(b, loc, from, share), kb);
    auto rowLoop = scf::ForOp::create(b, loc, from, to, one);
    b.setInsertionPointToStart(rowLoop.getBody());
    Value row = add(b, loc, add(b, loc, bPanel, cidx(b, loc, s.k * kNR)),
                    mul(b, loc, add(b, loc, kc, rowLoop.getInductionVar()), kNR));
    for (int64_t off = 0; off < kNR; off += 16)
      memref::PrefetchOp::create(b, loc, packedB,
                                 ValueRange{add(b, loc, row, cidx(b, loc, off))},
                                 /*isWrite=*/false, /*localityHint=*/2,
                                 /*isDataCache=*/true);
  }

  // Row r of the tile lives at C[m0 + ir*8 + r, n0 : n0 + 32].
  SmallVector<Value> rowValid, rowOffset;
  for (int64_t r = 0; r < kMR; ++r) {
    Value row = add(b, loc, mul(b, loc, ir, kMR), cidx(b, loc, r));
    rowValid.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                             row, rows));
    rowOffset.push_back(
        add(b, loc, add(b, loc, cBase, mul(b, loc, add(b, loc, m0, row), s.n)),
            n0));
  }
  // The accumulators start at zero. The tile's rows of C (partial sums of
  // earlier K slices, read after the k loop; on every slice, lines about to
  // be stored) are prefetched now, and on the last slice so are the rows of
  // the epilogue's operands, so that their cache misses overlap the FMAs.
  SmallVector<Value> init(kMR, zeroVec);
  auto prefetchRows = [&](Value buf, ArrayRef<Value> offsets, bool write) {
    for (Value o : offsets)
      for (int64_t off : {int64_t(0), kNR - 1})
        memref::PrefetchOp::create(b, loc, buf,
                                   ValueRange{add(b, loc, o, cidx(b, loc, off))},
                                   write, /*localityHint=*/3,
                                   /*isDataCache=*/true);
  };
  prefetchRows(out, rowOffset, /*write=*/true);
  if (!epilogueArgs.empty()) {
    auto ifLast = scf::IfOp::create(b, loc, TypeRange{}, last, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifLast.getThenRegion().front());
    for (unsigned i : epilogueArgs) {
      const Layout &l = layouts[i];
      SmallVector<Value> offsets;
      for (int64_t r = 0; r < kMR; ++r) {
        Value row = add(b, loc, add(b, loc, m0, mul(b, loc, ir, kMR)),
                        cidx(b, loc, r));
        offsets.push_back(add(
            b, loc,
            add(b, loc, boffs[2 + i],
                mul(b, loc, row, l.strides[l.strides.size() - 2])),
            n0));
      }
      prefetchRows(arg(slotOf[i]), offsets, /*write=*/false);
    }
  }
  auto kLoop = scf::ForOp::create(b, loc, zero, kb, one, init);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value kk = kLoop.getInductionVar();
    Value bIdx = add(b, loc, bPanel, mul(b, loc, add(b, loc, kc, kk), kNR));
    Value bv = vector::LoadOp::create(b, loc, vecT, packedB, ValueRange{bIdx});
    Value aIdx = add(b, loc, aPanel, mul(b, loc, kk, kMR));
    SmallVector<Value> next;
    for (int64_t r = 0; r < kMR; ++r) {
      Value a = memref::LoadOp::create(b, loc, packedA,
                                       ValueRange{add(b, loc, aIdx, cidx(b, loc, r))});
      Value av = vector::BroadcastOp::create(b, loc, vecT, a);
      next.push_back(vector::FMAOp::create(b, loc, vecT, av, bv,
                                           kLoop.getRegionIterArg(r)));
    }
    scf::YieldOp::create(b, loc, next);
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
      Value partial = vector::MaskedLoadOp::create(
          b, loc, vecT, out, ValueRange{rowOffset[r]}, colMask, zeroVec);
      scf::YieldOp::create(
          b, loc, arith::AddFOp::create(b, loc, acc, partial).getResult());
      acc = ifFirst.getResult(0);
    }
    auto ifLast = scf::IfOp::create(b, loc, TypeRange{vecT}, last, true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifLast.getThenRegion().front());
      Value row = add(b, loc, add(b, loc, m0, mul(b, loc, ir, kMR)),
                      cidx(b, loc, r));
      Evaluator ev(b, loc, [&](BlockArgument a) -> Value {
        unsigned i = a.getArgNumber();
        const Layout &l = layouts[i];
        Value base = add(b, loc, boffs[2 + i],
                         mul(b, loc, row, l.strides[l.strides.size() - 2]));
        Value buf = arg(slotOf[i]);
        if (l.strides.back() != 0)
          return vector::MaskedLoadOp::create(b, loc, vecT, buf,
                                              ValueRange{add(b, loc, base, n0)},
                                              colMask, zeroVec);
        Value scalar = memref::LoadOp::create(b, loc, buf, base);
        return vector::BroadcastOp::create(b, loc, vecT, scalar);
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
    vector::MaskedStoreOp::create(b, loc, out, ValueRange{rowOffset[r]}, colMask,
                                  ifLast.getResult(0));
  }
  return success();
}
