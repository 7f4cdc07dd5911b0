//===- Elementwise.cpp - Code for elementwise kernels ---------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The output is walked as [outer..., inner] where `inner` is the longest
// run of trailing dims along which every operand is either read in full or
// broadcast: the inner loop is then a unit-stride loop (which LLVM turns
// into wide vector code) with broadcast operands loaded once per run. Work
// units are chunks of 64K elements of a run. Outputs past the caches' size
// go out through stack blocks and non-temporal stores (emitStreamedStores).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/KernelGen.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::kernelgen;

namespace {

/// Along dims [k, r) the operand is all-full (true) or all-broadcast
/// (false); nothing when it mixes.
std::optional<bool> innerKind(const Layout &l, ArrayRef<int64_t> iter,
                              size_t k) {
  bool full = false, bcast = false;
  for (size_t d = k; d < iter.size(); ++d) {
    if (iter[d] == 1)
      continue;
    (l.shape[d] == 1 ? bcast : full) = true;
  }
  if (full && bcast)
    return std::nullopt;
  return full;
}

} // namespace

LogicalResult kernelgen::generateElementwise(func::FuncOp tmpl,
                                             ModuleOp module,
                                             bool streamStores) {
  if (tmpl->hasAttr(kKernelAxesAttr)) // row-scalar ops: walk rows
    return generateReduction(tmpl, module, streamStores);
  auto ret = llvm::cast<func::ReturnOp>(tmpl.getBody().front().getTerminator());
  if (ret.getNumOperands() != 1)
    return failure();
  Value root = ret.getOperand(0);
  auto rootType = llvm::cast<RankedTensorType>(root.getType());
  if (getQuantScheme(rootType))
    return failure();
  ArrayRef<int64_t> iter = rootType.getShape();
  size_t r = iter.size();
  // A dynamic size (S, the kernel's sizes argument) may be the leading dim
  // of the iteration shape only, and of the operands that span it.
  auto dynamicOnlyLeading = [&](ArrayRef<int64_t> shape) {
    for (size_t d = 0; d < shape.size(); ++d)
      if (ShapedType::isDynamic(shape[d]) && d + r - shape.size() != 0)
        return false;
    return true;
  };
  const bool dynamic = !rootType.hasStaticShape();
  if (!dynamicOnlyLeading(iter))
    return failure();

  SmallVector<Layout> layouts;
  for (BlockArgument a : tmpl.getArguments()) {
    auto t = llvm::cast<RankedTensorType>(a.getType());
    if (getQuantScheme(t) || !dynamicOnlyLeading(t.getShape()) ||
        (!dynamic && !t.hasStaticShape()))
      return failure();
    layouts.push_back(layoutOf(t.getShape(), iter));
  }
  // The smallest k such that every operand is uniform along [k, r).
  size_t k = r;
  for (size_t cand = 0; cand <= r; ++cand) {
    bool ok = llvm::all_of(layouts, [&](const Layout &l) {
      return innerKind(l, iter, cand).has_value();
    });
    if (ok) {
      k = cand;
      break;
    }
  }
  // With a dynamic leading dim, the static extents leave it out (S counts
  // once, at run time): `inner` when the run spans it (k == 0), else
  // `outer`.
  int64_t inner = 1, outer = 1;
  for (size_t d = k; d < r; ++d)
    if (!ShapedType::isDynamic(iter[d]))
      inner *= iter[d];
  SmallVector<int64_t> outerExt(iter.begin(), iter.begin() + k);
  for (int64_t d : outerExt)
    if (!ShapedType::isDynamic(d))
      outer *= d;
  const bool dynamicRun = dynamic && k == 0;
  // A run over S rows of `inner` is cut into chunks of the largest size,
  // whatever S is: its tiling does not depend on it.
  const int64_t chunk =
      dynamicRun ? int64_t(1) << 16
                 : std::max<int64_t>(1, std::min<int64_t>(inner, 1 << 16));
  const int64_t nChunks = dynamicRun ? 1 : (inner + chunk - 1) / chunk;
  const int64_t units = outer * nChunks;
  const int64_t grain = std::max<int64_t>(1, (1 << 15) / chunk);

  OpBuilder b(tmpl.getContext());
  Location loc = tmpl.getLoc();
  Abi abi = abiOf(tmpl, false);
  func::FuncOp fn = createPhase(b, module, tmpl, 0, abi, units, grain);
  // Units at run time: S rows of `units` each, or S * inner elements in
  // chunks.
  if (dynamic)
    fn->setAttr(kUnitsPerAttr, b.getDenseI64ArrayAttr(
                                   dynamicRun ? ArrayRef<int64_t>{inner, chunk}
                                              : ArrayRef<int64_t>{units, 1}));
  Block &entry = fn.getBody().front();
  b.setInsertionPoint(entry.getTerminator());
  Value begin = entry.getArgument(0), end = entry.getArgument(1);
  Value innerEnd = cidx(b, loc, inner);
  if (dynamicRun)
    innerEnd = arith::MulIOp::create(b, loc, dynamicSize(b, loc, entry, abi),
                                     innerEnd);
  auto argBuf = [&](unsigned i) { return entry.getArgument(2 + i); };
  Value outBuf = argBuf(abi.numInputs);

  SmallVector<SmallVector<int64_t>> outerStrides;
  SmallVector<bool> full;
  for (const Layout &l : layouts) {
    outerStrides.push_back(SmallVector<int64_t>(l.strides.begin(),
                                                l.strides.begin() + k));
    full.push_back(*innerKind(l, iter, k));
  }

  // The output's elements: S times the static ones when dynamic.
  Value numel = cidx(b, loc, outer * inner);
  if (dynamic)
    numel =
        arith::MulIOp::create(b, loc, dynamicSize(b, loc, entry, abi), numel);
  Value one = cidx(b, loc, 1);
  auto unitLoop = scf::ForOp::create(b, loc, begin, end, one);
  b.setInsertionPointToStart(unitLoop.getBody());
  Value u = unitLoop.getInductionVar();
  Value row = u, c = cidx(b, loc, 0);
  if (nChunks > 1) {
    row = arith::DivUIOp::create(b, loc, u, cidx(b, loc, nChunks));
    c = arith::RemUIOp::create(b, loc, u, cidx(b, loc, nChunks));
  }
  if (dynamicRun) {
    row = cidx(b, loc, 0);
    c = u;
  }
  Value lo = arith::MulIOp::create(b, loc, c, cidx(b, loc, chunk));
  Value hi = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, lo, cidx(b, loc, chunk)), innerEnd);
  SmallVector<Value> offsets =
      offsetsFromLinear(b, loc, row, outerExt, outerStrides);
  Value outOff = arith::MulIOp::create(b, loc, row, cidx(b, loc, inner));
  // Broadcast operands: one load per run.
  SmallVector<Value> hoisted(layouts.size());
  for (size_t i = 0; i < layouts.size(); ++i)
    if (!full[i])
      hoisted[i] = memref::LoadOp::create(b, loc, argBuf(i), offsets[i]);

  // The root at position j of the run.
  auto valueAt = [&](Value j) -> FailureOr<Value> {
    Evaluator ev(b, loc, [&, j](BlockArgument a) -> Value {
      unsigned i = a.getArgNumber();
      if (!full[i])
        return hoisted[i];
      Value at = arith::AddIOp::create(b, loc, offsets[i], j);
      return memref::LoadOp::create(b, loc, argBuf(i), at);
    });
    return ev.eval(root);
  };
  if (failed(emitOutputStores(b, loc, fn, module, outBuf, outOff, lo, hi,
                              storageElementOf(rootType), numel, streamStores,
                              valueAt))) {
    fn.erase();
    return failure();
  }
  return success();
}
