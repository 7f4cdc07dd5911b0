//===- GPUMatmul.cpp - GPU code for matmul kernels ------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// C = A x B (+ epilogue), f32, batched with broadcast batch dims; B may be
// dequantized on the fly.
//
// Each block of 128 threads computes a 64x64 tile of C. For every 16-deep
// slice of K it stages a 64x16 tile of A and a 16x64 tile of B in shared
// memory (zero-padded past the edges, rows padded so that the fragment
// reads below hit 32 distinct banks), then:
//
//  - with tensor cores (sm_80 and later), each warp owns a 32x32 quarter:
//    2x4 `nvgpu.mma.sync` m16n8k8 TF32 tiles per 8-deep step. TF32 keeps 10
//    bits of mantissa, so each operand x is split into hi = x with the low
//    13 mantissa bits cleared (exactly TF32) and lo = x - hi (exact in f32),
//    and the tile accumulates lo*hi + hi*lo + hi*hi: the error is that of an
//    f32 product, not of a TF32 one.
//  - without them, each thread owns 8x4 outputs strided over the tile
//    (rows ty + 8i, columns tx + 16j) and runs FMAs from shared memory.
//
// The accumulators are then staged in shared memory and the epilogue (bias,
// activation, residual...) runs once per element in a coalesced loop over
// the tile, reading its other operands and writing C once.
//
// planMatmul reads the template; MatmulEmitter emits the launch: per slice
// stageTiles, then mmaSlice or simtSlice; then stageAccumulators and
// applyEpilogue.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelGen.h"
#include "kiln/Conversion/ElementwiseEmitter.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::kernelgen;
using namespace mlir::kiln::gpugen;

namespace {

constexpr int64_t kTileM = 64, kTileN = 64, kTileK = 16;
constexpr int64_t kThreads = 128;
// Shared-memory row pitches, in floats (see the bank note above).
constexpr int64_t kPitchA = kTileK + 4, kPitchB = kTileN + 8,
                  kPitchC = kTileN + 1;

/// Index arithmetic with constants folded in as they are built.
struct Idx {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return cidx(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y ? add(x, c(y)) : x; }
  Value mul(Value x, int64_t y) {
    return y == 1 ? x : Value(arith::MulIOp::create(b, loc, x, c(y)));
  }
  Value div(Value x, int64_t y) { return arith::DivUIOp::create(b, loc, x, c(y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, loc, x, c(y)); }
  Value lt(Value x, int64_t y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, c(y));
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
};

/// Reads element `idx` of B, dequantizing it when B is quantized (the
/// arithmetic of Flex's dequantize: a signed q8 or q4 value times the scale
/// of its block).
struct BSource {
  Value values, scales;
  QuantSchemeAttr scheme;

  Value load(OpBuilder &b, Location loc, Value idx) const {
    if (!scheme)
      return memref::LoadOp::create(b, loc, values, idx);
    Idx ix{b, loc};
    Type f32 = b.getF32Type(), i8 = b.getI8Type();
    Value q;
    if (scheme.getValueBits() == 8) {
      q = memref::LoadOp::create(b, loc, values, idx);
    } else {
      Value byte = memref::LoadOp::create(b, loc, values, ix.div(idx, 2));
      Value shift = arith::IndexCastOp::create(b, loc, i8,
                                               ix.mul(ix.rem(idx, 2), 4));
      Value nib = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, byte, shift),
          constantOf(b, loc, i8, 15));
      // Sign-extend the nibble: (n ^ 8) - 8.
      q = arith::SubIOp::create(
          b, loc, arith::XOrIOp::create(b, loc, nib, constantOf(b, loc, i8, 8)),
          constantOf(b, loc, i8, 8));
    }
    Value qf = arith::SIToFPOp::create(b, loc, f32, q);
    Value scaleIdx = scheme.isPerTensor() ? ix.c(0)
                                          : ix.div(idx, scheme.getBlockSize());
    Value scale = memref::LoadOp::create(b, loc, scales, scaleIdx);
    if (scale.getType().isF64())
      scale = arith::TruncFOp::create(b, loc, f32, scale);
    else if (!scale.getType().isF32())
      scale = arith::ExtFOp::create(b, loc, f32, scale);
    return arith::MulFOp::create(b, loc, qf, scale);
  }
};

/// Loads `load()` when `inside`, else 0, and stores it to `dst[at]`.
void stageElement(OpBuilder &b, Location loc, Value inside,
                  function_ref<Value()> load, Value dst, Value at) {
  Type f32 = b.getF32Type();
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{f32}, inside, true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(b, loc, load());
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(b, loc, constantOf(b, loc, f32, 0.0));
  }
  memref::StoreOp::create(b, loc, ifOp.getResult(0), dst, ValueRange{at});
}

/// The TF32 high part of `x` (low 13 mantissa bits cleared) and the rest.
std::pair<Value, Value> splitTf32(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, x);
  Value hiBits = arith::AndIOp::create(
      b, loc, bits,
      arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(~0x1FFF)));
  Value hi = arith::BitcastOp::create(b, loc, x.getType(), hiBits);
  Value lo = arith::SubFOp::create(b, loc, x, hi);
  return {hi, lo};
}

/// What the GPU matmul of a template reads: A an f32 argument, B an f32 or
/// a dequantized argument, and the epilogue's operands laid out against C.
struct MatmulPlan {
  MatmulOp mm;
  Value root; ///< what the template returns: C, or its epilogue
  BlockArgument aArg, bArg;
  QuantSchemeAttr scheme; ///< B's, when B is dequantized
  SmallVector<int64_t> batch;
  int64_t m = 0, n = 0, k = 0, cBatches = 0;
  /// Batch strides (in elements) of A, B, then each argument.
  SmallVector<SmallVector<int64_t>> batchStrides;
  /// Per argument, against C; empty for a quantized one.
  SmallVector<Layout> layouts;
};

/// Plans the template's matmul; fails for one the GPU kernel does not take.
LogicalResult planMatmul(func::FuncOp tmpl, MatmulPlan &plan) {
  MatmulOp mm;
  tmpl.walk([&](MatmulOp op) { mm = op; });
  auto ret = llvm::cast<func::ReturnOp>(tmpl.getBody().front().getTerminator());
  if (!mm || ret.getNumOperands() != 1)
    return failure();
  plan.mm = mm;
  plan.root = ret.getOperand(0);
  auto cType = llvm::cast<RankedTensorType>(mm.getType());
  auto aType = mm.getLhs().getType();
  if (!cType.getElementType().isF32() || !aType.getElementType().isF32() ||
      plan.root.getType() != cType)
    return failure();

  plan.aArg = llvm::dyn_cast<BlockArgument>(mm.getLhs());
  if (auto deq = mm.getRhs().getDefiningOp<DequantizeOp>()) {
    plan.bArg = llvm::dyn_cast<BlockArgument>(deq.getInput());
    plan.scheme = getQuantScheme(deq.getInput().getType());
  } else {
    plan.bArg = llvm::dyn_cast<BlockArgument>(mm.getRhs());
    if (!mm.getRhs().getType().getElementType().isF32())
      return failure();
  }
  if (!plan.aArg || !plan.bArg)
    return failure();

  ArrayRef<int64_t> cs = cType.getShape();
  SmallVector<int64_t> &batch = plan.batch;
  batch.assign(cs.begin(), cs.end() - 2);
  int64_t m = cs[cs.size() - 2], n = cs.back(), k = aType.getShape().back();
  plan.m = m;
  plan.n = n;
  plan.k = k;
  auto bShape = llvm::cast<RankedTensorType>(mm.getRhs().getType()).getShape();
  plan.cBatches = numElements(batch);
  if (plan.cBatches > 65535)
    return failure(); // beyond the grid's z dim

  // Batch strides (in elements) of A, B and the epilogue's operands.
  auto batchStridesOf = [&](ArrayRef<int64_t> matrixShape, int64_t perMatrix) {
    Layout l = layoutOf(matrixShape.drop_back(2), batch);
    for (int64_t &s : l.strides)
      s *= perMatrix;
    return l.strides;
  };
  plan.batchStrides.push_back(batchStridesOf(aType.getShape(), m * k));
  plan.batchStrides.push_back(batchStridesOf(bShape, k * n));
  for (BlockArgument a : tmpl.getArguments()) {
    auto t = llvm::cast<RankedTensorType>(a.getType());
    if (getQuantScheme(t) || t.getRank() > cType.getRank()) {
      plan.layouts.push_back({});
      plan.batchStrides.push_back(SmallVector<int64_t>(batch.size(), 0));
      continue;
    }
    plan.layouts.push_back(layoutOf(t.getShape(), cs));
    plan.batchStrides.push_back(
        SmallVector<int64_t>(plan.layouts.back().strides.begin(),
                             plan.layouts.back().strides.end() - 2));
  }
  return success();
}

/// Emits the launch of a planned matmul into its host function: a block of
/// kThreads threads per 64x64 tile of C; the state its stages share.
class MatmulEmitter {
public:
  MatmulEmitter(OpBuilder &b, Location loc, const MatmulPlan &plan,
                HostFunction &host, bool mma)
      : b(b), loc(loc), ix{b, loc}, plan(plan), host(host), mma(mma),
        f32(b.getF32Type()) {}

  /// Fails when the epilogue cannot be evaluated.
  LogicalResult emit();

private:
  OpBuilder &b;
  Location loc;
  Idx ix;
  const MatmulPlan &plan;
  HostFunction &host;
  const bool mma;
  Type f32;

  // The launch and what its threads share (emit).
  gpu::LaunchOp launch;
  Value sa, sb, sc; ///< shared tiles of A, B and C
  Value tid, m0, n0, bc;
  SmallVector<Value> boffs;
  Value aBuf;
  BSource bsrc;
  // MMA: warp (wm, wn) of a 2x2 grid; lane = 4 * g + t4.
  Value wm, wn, g, t4;
  // SIMT: thread (ty, tx) of an 8x16 grid.
  Value ty, tx;

  Value loadShared(Value buf, Value at) {
    return memref::LoadOp::create(b, loc, buf, ValueRange{at});
  }
  void stageTiles(Value k0);
  void mmaSlice(SmallVector<Value> &acc);
  std::pair<Value, Value> fragment(Value shared, ArrayRef<Value> at);
  SmallVector<std::pair<Value, Value>> aFragments(int64_t kk);
  SmallVector<std::pair<Value, Value>> bFragments(int64_t kk);
  void simtSlice(SmallVector<Value> &acc);
  void stageAccumulators(scf::ForOp kLoop);
  LogicalResult applyEpilogue();
};

LogicalResult MatmulEmitter::emit() {
  const int64_t m = plan.m, n = plan.n, k = plan.k;
  int64_t gridN = (n + kTileN - 1) / kTileN, gridM = (m + kTileM - 1) / kTileM;
  launch =
      createLaunch(b, host, {gridN, gridM, plan.cBatches}, {kThreads, 1, 1});
  sa = addSharedBuffer(launch, f32, kTileM * kPitchA);
  sb = addSharedBuffer(launch, f32, kTileK * kPitchB);
  sc = addSharedBuffer(launch, f32, kTileM * kPitchC);
  tid = launch.getThreadIds().x;
  m0 = ix.mul(launch.getBlockIds().y, kTileM);
  n0 = ix.mul(launch.getBlockIds().x, kTileN);
  bc = launch.getBlockIds().z;
  boffs = offsetsFromLinear(b, loc, bc, plan.batch, plan.batchStrides);
  aBuf = host.inputs[host.slotOf[plan.aArg.getArgNumber()]];
  unsigned bSlot = host.slotOf[plan.bArg.getArgNumber()];
  bsrc = BSource{host.inputs[bSlot],
                 plan.scheme ? host.inputs[bSlot + 1] : Value(), plan.scheme};

  Value warp = ix.div(tid, 32), lane = ix.rem(tid, 32);
  wm = ix.div(warp, 2);
  wn = ix.rem(warp, 2);
  g = ix.div(lane, 4);
  t4 = ix.rem(lane, 4);
  ty = ix.div(tid, 16);
  tx = ix.rem(tid, 16);

  auto accType = VectorType::get({2, 2}, f32);
  SmallVector<Value> init;
  if (mma)
    init.assign(8, constantOf(b, loc, accType, 0.0));
  else
    init.assign(32, constantOf(b, loc, f32, 0.0));
  int64_t kTiles = (k + kTileK - 1) / kTileK;
  auto kLoop = scf::ForOp::create(b, loc, ix.c(0), ix.c(kTiles), ix.c(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    stageTiles(ix.mul(kLoop.getInductionVar(), kTileK));
    SmallVector<Value> acc(kLoop.getRegionIterArgs());
    if (mma)
      mmaSlice(acc);
    else
      simtSlice(acc);
    // The next slice overwrites the tiles.
    gpu::BarrierOp::create(b, loc);
    scf::YieldOp::create(b, loc, acc);
  }
  stageAccumulators(kLoop);
  return applyEpilogue();
}

/// Stages the slice of A and B from k0 in shared memory: 8 elements of
/// each per thread, consecutive threads on consecutive addresses.
void MatmulEmitter::stageTiles(Value k0) {
  const int64_t m = plan.m, n = plan.n, k = plan.k;
  for (int64_t i = 0; i < kTileM * kTileK / kThreads; ++i) {
    Value e = ix.add(tid, i * kThreads);
    Value row = ix.div(e, kTileK), col = ix.rem(e, kTileK);
    Value gm = ix.add(m0, row), gk = ix.add(k0, col);
    stageElement(
        b, loc, ix.both(ix.lt(gm, m), ix.lt(gk, k)),
        [&] {
          Value at = ix.add(ix.add(boffs[0], ix.mul(gm, k)), gk);
          return memref::LoadOp::create(b, loc, aBuf, at).getResult();
        },
        sa, ix.add(ix.mul(row, kPitchA), col));
  }
  for (int64_t i = 0; i < kTileK * kTileN / kThreads; ++i) {
    Value e = ix.add(tid, i * kThreads);
    Value row = ix.div(e, kTileN), col = ix.rem(e, kTileN);
    Value gk = ix.add(k0, row), gn = ix.add(n0, col);
    stageElement(
        b, loc, ix.both(ix.lt(gk, k), ix.lt(gn, n)),
        [&] {
          return bsrc.load(b, loc, ix.add(ix.add(boffs[1], ix.mul(gk, n)), gn));
        },
        sb, ix.add(ix.mul(row, kPitchB), col));
  }
  gpu::BarrierOp::create(b, loc);
}

/// The elements of shared memory at `at`, each split into (hi, lo) TF32
/// parts, as an [n, 1] vector of each.
std::pair<Value, Value> MatmulEmitter::fragment(Value shared,
                                                ArrayRef<Value> at) {
  SmallVector<Value> hi, lo;
  for (Value a : at) {
    auto [h, l] = splitTf32(b, loc, loadShared(shared, a));
    hi.push_back(h);
    lo.push_back(l);
  }
  auto t = VectorType::get({static_cast<int64_t>(at.size()), 1}, f32);
  return {vector::FromElementsOp::create(b, loc, t, hi),
          vector::FromElementsOp::create(b, loc, t, lo)};
}

/// The warp's A fragments of its two 16-row tiles at step kk, each split
/// into (hi, lo) TF32 parts.
SmallVector<std::pair<Value, Value>> MatmulEmitter::aFragments(int64_t kk) {
  SmallVector<std::pair<Value, Value>> aFrag;
  for (int64_t mi = 0; mi < 2; ++mi) {
    Value r0 = ix.add(ix.add(ix.mul(wm, 32), mi * 16), g);
    SmallVector<Value> at;
    // a0 (g, t4), a1 (g + 8, t4), a2 (g, t4 + 4), a3 (g + 8, t4 + 4).
    for (auto [dr, dc] :
         {std::pair<int64_t, int64_t>{0, 0}, {8, 0}, {0, 4}, {8, 4}})
      at.push_back(
          ix.add(ix.add(ix.mul(ix.add(r0, dr), kPitchA), kk + dc), t4));
    aFrag.push_back(fragment(sa, at));
  }
  return aFrag;
}

/// The warp's B fragments of its four 8-column tiles at step kk, each split
/// into (hi, lo) TF32 parts.
SmallVector<std::pair<Value, Value>> MatmulEmitter::bFragments(int64_t kk) {
  SmallVector<std::pair<Value, Value>> bFrag;
  for (int64_t ni = 0; ni < 4; ++ni) {
    Value col = ix.add(ix.add(ix.mul(wn, 32), ni * 8), g);
    SmallVector<Value> at;
    // b0 (k = t4, n = g), b1 (k = t4 + 4, n = g).
    for (int64_t dk : {0, 4})
      at.push_back(ix.add(ix.mul(ix.add(t4, kk + dk), kPitchB), col));
    bFrag.push_back(fragment(sb, at));
  }
  return bFrag;
}

/// Tensor cores: the warp's 32x32 quarter of the tile as 2x4 m16n8k8 TF32
/// tiles per 8-deep step, each product as lo*hi + hi*lo + hi*hi.
void MatmulEmitter::mmaSlice(SmallVector<Value> &acc) {
  for (int64_t kk = 0; kk < kTileK; kk += 8) {
    SmallVector<std::pair<Value, Value>> aFrag = aFragments(kk);
    SmallVector<std::pair<Value, Value>> bFrag = bFragments(kk);
    for (int64_t mi = 0; mi < 2; ++mi)
      for (int64_t ni = 0; ni < 4; ++ni) {
        Value &c = acc[mi * 4 + ni];
        auto mmaOp = [&](Value x, Value y) {
          c = nvgpu::MmaSyncOp::create(b, loc, x, y, c,
                                       ArrayRef<int64_t>{16, 8, 8},
                                       /*tf32Enabled=*/true);
        };
        // Small terms first, so that they are not lost against the
        // large one.
        mmaOp(aFrag[mi].second, bFrag[ni].first);
        mmaOp(aFrag[mi].first, bFrag[ni].second);
        mmaOp(aFrag[mi].first, bFrag[ni].first);
      }
  }
}

/// Without tensor cores: the thread's 8x4 outputs (rows ty + 8i, columns
/// tx + 16j) by FMAs from shared memory.
void MatmulEmitter::simtSlice(SmallVector<Value> &acc) {
  auto inner = scf::ForOp::create(b, loc, ix.c(0), ix.c(kTileK), ix.c(1), acc);
  OpBuilder::InsertionGuard g2(b);
  b.setInsertionPointToStart(inner.getBody());
  Value kk = inner.getInductionVar();
  SmallVector<Value> av, bv, next;
  for (int64_t i = 0; i < 8; ++i)
    av.push_back(
        loadShared(sa, ix.add(ix.mul(ix.add(ty, 8 * i), kPitchA), kk)));
  for (int64_t j = 0; j < 4; ++j)
    bv.push_back(
        loadShared(sb, ix.add(ix.mul(kk, kPitchB), ix.add(tx, 16 * j))));
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 4; ++j)
      next.push_back(math::FmaOp::create(b, loc, av[i], bv[j],
                                         inner.getRegionIterArg(i * 4 + j)));
  scf::YieldOp::create(b, loc, next);
  b.setInsertionPointAfter(inner);
  acc.assign(inner.getResults().begin(), inner.getResults().end());
}

/// Stages the accumulators as a 64x64 tile in shared memory.
void MatmulEmitter::stageAccumulators(scf::ForOp kLoop) {
  if (mma) {
    for (int64_t mi = 0; mi < 2; ++mi)
      for (int64_t ni = 0; ni < 4; ++ni)
        for (int64_t e = 0; e < 4; ++e) {
          // c0 (g, 2 t4), c1 (g, 2 t4 + 1), c2 (g + 8, 2 t4), c3 (g + 8,
          // 2 t4 + 1).
          Value row = ix.add(ix.add(ix.mul(wm, 32), mi * 16 + (e / 2) * 8), g);
          Value col =
              ix.add(ix.add(ix.mul(wn, 32), ni * 8 + e % 2), ix.mul(t4, 2));
          Value v = vector::ExtractOp::create(b, loc,
                                              kLoop.getResult(mi * 4 + ni),
                                              ArrayRef<int64_t>{e / 2, e % 2});
          memref::StoreOp::create(
              b, loc, v, sc, ValueRange{ix.add(ix.mul(row, kPitchC), col)});
        }
  } else {
    for (int64_t i = 0; i < 8; ++i)
      for (int64_t j = 0; j < 4; ++j) {
        Value at =
            ix.add(ix.mul(ix.add(ty, 8 * i), kPitchC), ix.add(tx, 16 * j));
        memref::StoreOp::create(b, loc, kLoop.getResult(i * 4 + j), sc,
                                ValueRange{at});
      }
  }
  gpu::BarrierOp::create(b, loc);
}

/// The epilogue, once per element of the tile in a coalesced loop: reads
/// the element's sum and its other operands, and writes C once.
LogicalResult MatmulEmitter::applyEpilogue() {
  const int64_t m = plan.m, n = plan.n;
  auto eLoop =
      scf::ForOp::create(b, loc, tid, ix.c(kTileM * kTileN), ix.c(kThreads));
  b.setInsertionPointToStart(eLoop.getBody());
  Value e = eLoop.getInductionVar();
  Value row = ix.div(e, kTileN), col = ix.rem(e, kTileN);
  Value gm = ix.add(m0, row), gn = ix.add(n0, col);
  auto inside =
      scf::IfOp::create(b, loc, ix.both(ix.lt(gm, m), ix.lt(gn, n)), false);
  b.setInsertionPointToStart(&inside.getThenRegion().front());
  Value accV = memref::LoadOp::create(
      b, loc, sc, ValueRange{ix.add(ix.mul(row, kPitchC), col)});
  Evaluator ev(b, loc, [&](BlockArgument a) -> Value {
    unsigned i = a.getArgNumber();
    const Layout &l = plan.layouts[i];
    size_t r = l.strides.size();
    Value at = ix.add(ix.add(boffs[2 + i], ix.mul(gm, l.strides[r - 2])),
                      ix.mul(gn, l.strides[r - 1]));
    return memref::LoadOp::create(b, loc, host.inputs[host.slotOf[i]], at);
  });
  MatmulOp mm = plan.mm;
  ev.bind(mm.getResult(), accV);
  FailureOr<Value> v = ev.eval(plan.root);
  if (failed(v))
    return failure();
  Value cAt = ix.add(ix.add(ix.mul(bc, m * n), ix.mul(gm, n)), gn);
  memref::StoreOp::create(b, loc, *v, host.outputs[0], ValueRange{cAt});
  return success();
}

} // namespace

LogicalResult gpugen::generateMatmul(func::FuncOp tmpl,
                                     const Options &options) {
  MatmulPlan plan;
  if (failed(planMatmul(tmpl, plan)))
    return failure();
  OpBuilder b(tmpl.getContext());
  Location loc = tmpl.getLoc();
  HostFunction host = createHostFunction(b, tmpl, 0);
  if (plan.m == 0 || plan.n == 0 || plan.cBatches == 0)
    return success();
  MatmulEmitter emitter(b, loc, plan, host, options.useMma());
  if (failed(emitter.emit())) {
    host.fn.erase();
    return failure();
  }
  return success();
}
