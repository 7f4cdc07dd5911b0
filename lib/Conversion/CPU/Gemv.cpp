//===- Gemv.cpp - Matmuls of a few rows: B streamed, not packed -----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// C = A x B (+ epilogue) when A has a few rows (at most kGemvRows, as when a
// model decodes one token): the packed matmul would spend more on packing
// B, a pass that reads and writes all of it, than on the product. Here each
// work unit owns a block of 4 vectors of columns and walks K once, each
// step loading those vectors of B's row k (dequantizing q8 on the fly, a
// vector of bytes times its block's scale) and adding them, times A[r, k],
// into R x 4 vector accumulators; the epilogue is applied in registers and
// C is stored. B is read once, as stored, so an f32 weight costs its bytes
// and a q8 one a quarter of them.
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

} // namespace

LogicalResult kernelgen::generateGemv(func::FuncOp tmpl, ModuleOp module,
                                      int64_t vectorBits) {
  const int64_t width = std::max<int64_t>(vectorBits / 32, 4);
  const int64_t cols = width * kGemvVectors;
  MatmulOp mm;
  int matmuls = 0;
  tmpl.walk([&](MatmulOp op) {
    mm = op;
    ++matmuls;
  });
  auto ret = llvm::cast<func::ReturnOp>(tmpl.getBody().front().getTerminator());
  if (matmuls != 1 || ret.getNumOperands() != 1)
    return failure();
  Value root = ret.getOperand(0);
  auto cType = llvm::cast<RankedTensorType>(mm.getType());
  auto aType = llvm::cast<RankedTensorType>(mm.getLhs().getType());
  if (!cType.hasStaticShape() || !aType.hasStaticShape() ||
      !cType.getElementType().isF32() || root.getType() != cType ||
      cType.getRank() < 2)
    return failure();
  // A: an argument of C's rows (no transpose, no prologue, no broadcast).
  auto aArg = llvm::dyn_cast<BlockArgument>(mm.getLhs());
  if (!aArg || aType.getShape().drop_back() != cType.getShape().drop_back())
    return failure();
  const int64_t k = aType.getShape().back(), n = cType.getShape().back();
  int64_t rows = 1;
  for (int64_t d : cType.getShape().drop_back())
    rows *= d;
  if (rows < 1 || rows > kGemvRows || n % cols != 0 || k < 1)
    return failure();
  // B: a [K, N] argument, or one dequantized from q8 blocks that lie along
  // its rows in whole vectors.
  BlockArgument bArg;
  QuantSchemeAttr scheme;
  Operation *dequantize = nullptr;
  if (auto deq = mm.getRhs().getDefiningOp<DequantizeOp>()) {
    bArg = llvm::dyn_cast<BlockArgument>(deq.getInput());
    scheme = getQuantScheme(deq.getInput().getType());
    dequantize = deq;
    if (!scheme || scheme.getValueBits() != 8 ||
        (!scheme.isPerTensor() && scheme.getBlockSize() % width != 0))
      return failure();
  } else {
    bArg = llvm::dyn_cast<BlockArgument>(mm.getRhs());
  }
  if (!bArg)
    return failure();
  auto bType = llvm::cast<RankedTensorType>(bArg.getType());
  if (bType.getShape() != ArrayRef<int64_t>({k, n}) ||
      (!scheme && !bType.getElementType().isF32()))
    return failure();

  // Arguments the epilogue reads: f32, laid out against C with their last
  // dim whole or broadcast; each row's offset is static.
  SmallVector<unsigned> slotOf;
  unsigned slot = 0;
  for (BlockArgument a : tmpl.getArguments()) {
    slotOf.push_back(slot);
    slot += getQuantScheme(a.getType()) ? 2 : 1;
  }
  ArrayRef<int64_t> cs = cType.getShape();
  SmallVector<Layout> layouts(tmpl.getNumArguments());
  SmallVector<SmallVector<int64_t>> rowOffsets(tmpl.getNumArguments());
  for (BlockArgument a : tmpl.getArguments()) {
    bool epilogue = llvm::any_of(a.getUsers(), [&](Operation *u) {
      return u != mm.getOperation() && u != dequantize;
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
    for (int64_t r = 0; r < rows; ++r) {
      int64_t off = 0, rest = r;
      for (int64_t d = cType.getRank() - 2; d >= 0; --d) {
        off += (rest % cs[d]) * l.strides[d];
        rest /= cs[d];
      }
      rowOffsets[a.getArgNumber()].push_back(off);
    }
    layouts[a.getArgNumber()] = l;
  }

  OpBuilder b(tmpl.getContext());
  Location loc = tmpl.getLoc();
  Abi abi = abiOf(tmpl, /*workspace=*/false);
  const int64_t units = n / cols;
  const int64_t unitBytes = k * cols * (scheme ? 1 : 4);
  const int64_t grain =
      std::max<int64_t>(1, (kGemvTaskBytes + unitBytes - 1) / unitBytes);
  func::FuncOp fn = createPhase(b, module, tmpl, 0, abi, units, grain);
  fn->setAttr(kVectorCodeAttr, b.getUnitAttr());
  Block &entry = fn.getBody().front();
  b.setInsertionPoint(entry.getTerminator());
  auto arg = [&](unsigned i) { return entry.getArgument(2 + i); };
  Value aBuf = arg(slotOf[aArg.getArgNumber()]);
  Value bBuf = arg(slotOf[bArg.getArgNumber()]);
  Value scales = scheme ? arg(slotOf[bArg.getArgNumber()] + 1) : Value();
  Value out = arg(abi.numInputs);
  Type f32 = b.getF32Type();
  auto vecT = VectorType::get({width}, f32);
  Value zero = constantOf(b, loc, vecT, 0.0);
  Value perTensorScale;
  if (scheme && scheme.isPerTensor())
    perTensorScale = vector::BroadcastOp::create(
        b, loc, vecT,
        toF32(b, loc, memref::LoadOp::create(b, loc, scales, cidx(b, loc, 0))));

  // B's vector at element `idx` (a multiple of the vector width).
  auto loadB = [&](Value idx) -> Value {
    if (!scheme)
      return vector::LoadOp::create(b, loc, vecT, bBuf, ValueRange{idx});
    Value bytes = vector::LoadOp::create(
        b, loc, VectorType::get({width}, b.getI8Type()), bBuf, ValueRange{idx});
    Value q = arith::SIToFPOp::create(b, loc, vecT, bytes);
    Value scale = perTensorScale;
    if (!scale) {
      Value at = arith::DivUIOp::create(b, loc, idx,
                                        cidx(b, loc, scheme.getBlockSize()));
      scale = vector::BroadcastOp::create(
          b, loc, vecT,
          toF32(b, loc, memref::LoadOp::create(b, loc, scales, at)));
    }
    return arith::MulFOp::create(b, loc, q, scale);
  };

  Value one = cidx(b, loc, 1);
  auto unitLoop = scf::ForOp::create(b, loc, entry.getArgument(0),
                                     entry.getArgument(1), one);
  b.setInsertionPointToStart(unitLoop.getBody());
  Value n0 = arith::MulIOp::create(b, loc, unitLoop.getInductionVar(),
                                   cidx(b, loc, cols));
  SmallVector<Value> init(rows * kGemvVectors, zero);
  auto kLoop =
      scf::ForOp::create(b, loc, cidx(b, loc, 0), cidx(b, loc, k), one, init);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value kk = kLoop.getInductionVar();
    Value rowStart = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, kk, cidx(b, loc, n)), n0);
    SmallVector<Value> bs;
    for (int64_t j = 0; j < kGemvVectors; ++j)
      bs.push_back(loadB(
          arith::AddIOp::create(b, loc, rowStart, cidx(b, loc, j * width))));
    SmallVector<Value> next;
    for (int64_t r = 0; r < rows; ++r) {
      Value a = memref::LoadOp::create(
          b, loc, aBuf,
          ValueRange{arith::AddIOp::create(b, loc, kk, cidx(b, loc, r * k))});
      Value av = vector::BroadcastOp::create(b, loc, vecT, a);
      for (int64_t j = 0; j < kGemvVectors; ++j)
        next.push_back(vector::FMAOp::create(
            b, loc, av, bs[j],
            kLoop.getRegionIterArgs()[r * kGemvVectors + j]));
    }
    scf::YieldOp::create(b, loc, next);
  }

  // The epilogue in registers, then C's vectors.
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < kGemvVectors; ++j) {
      Value col = arith::AddIOp::create(b, loc, n0, cidx(b, loc, j * width));
      Evaluator ev(b, loc, [&](BlockArgument a) -> Value {
        unsigned i = a.getArgNumber();
        const Layout &l = layouts[i];
        Value base = cidx(b, loc, rowOffsets[i][r]);
        if (l.strides.back() == 0)
          return vector::BroadcastOp::create(
              b, loc, vecT,
              memref::LoadOp::create(b, loc, arg(slotOf[i]), base));
        return vector::LoadOp::create(
            b, loc, vecT, arg(slotOf[i]),
            ValueRange{arith::AddIOp::create(b, loc, base, col)});
      });
      ev.setVectorWidth(width);
      ev.bind(mm.getResult(), kLoop.getResult(r * kGemvVectors + j));
      FailureOr<Value> v = ev.eval(root);
      if (failed(v)) {
        fn.erase();
        return failure();
      }
      vector::StoreOp::create(
          b, loc, *v, out,
          ValueRange{arith::AddIOp::create(b, loc, cidx(b, loc, r * n), col)});
    }
  return success();
}
