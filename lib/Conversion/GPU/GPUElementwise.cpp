//===- GPUElementwise.cpp - GPU code for elementwise kernels --------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// One thread per element, or per vector of up to 16 bytes when the
// innermost dim is a multiple of the vector: operands read in full along
// that dim are loaded as vectors, broadcast ones once and splat. Each
// thread walks the elements in a grid-stride loop, so the grid stays
// bounded and consecutive threads touch consecutive addresses.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelGen.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::kernelgen;
using namespace mlir::kiln::gpugen;

/// Lanes per thread: 16 bytes of the widest element, when the innermost
/// dim splits into whole vectors. Never for i1, whose vectors are
/// bit-packed in memory while its buffers hold one byte per element.
static int64_t vectorLanes(ArrayRef<int64_t> iter, ArrayRef<Type> elements) {
  if (iter.empty())
    return 1;
  int64_t widest = 1;
  for (Type e : elements) {
    if (e.isInteger(1))
      return 1;
    widest = std::max<int64_t>(widest, e.getIntOrFloatBitWidth() / 8);
  }
  int64_t lanes = kBufferAlignment / widest;
  while (lanes > 1 && iter.back() % lanes != 0)
    lanes /= 2;
  return lanes;
}

LogicalResult gpugen::generateElementwise(func::FuncOp tmpl,
                                          const Options &options) {
  if (tmpl->hasAttr(kKernelAxesAttr))
    return generateReduction(tmpl, options); // per-row values: walk rows
  auto ret = llvm::cast<func::ReturnOp>(tmpl.getBody().front().getTerminator());
  if (ret.getNumOperands() == 0)
    return failure();
  auto rootType = llvm::cast<RankedTensorType>(ret.getOperand(0).getType());
  ArrayRef<int64_t> iter = rootType.getShape();
  SmallVector<Type> elements;
  for (Value root : ret.getOperands()) {
    auto t = llvm::cast<RankedTensorType>(root.getType());
    if (t.getShape() != iter || getQuantScheme(t))
      return failure();
    elements.push_back(storageElementOf(t));
  }
  SmallVector<Layout> layouts;
  for (BlockArgument a : tmpl.getArguments()) {
    auto t = llvm::cast<RankedTensorType>(a.getType());
    if (getQuantScheme(t) || t.getRank() > rootType.getRank())
      return failure();
    layouts.push_back(layoutOf(t.getShape(), iter));
    elements.push_back(storageElementOf(t));
  }

  OpBuilder b(tmpl.getContext());
  Location loc = tmpl.getLoc();
  HostFunction host = createHostFunction(b, tmpl, 0);
  int64_t total = numElements(iter);
  if (total == 0)
    return success(); // nothing to launch
  int64_t lanes = vectorLanes(iter, elements);
  int64_t units = total / lanes;
  gpu::LaunchOp launch =
      createLaunch(b, host, {blocksFor(units, kBlockSize), 1, 1},
                   {kBlockSize, 1, 1});
  scf::ForOp loop = gridStrideLoop(b, loc, launch, units);
  Value first = loop.getInductionVar();
  if (lanes > 1)
    first = arith::MulIOp::create(b, loc, first, cidx(b, loc, lanes));

  SmallVector<SmallVector<int64_t>> strides;
  for (const Layout &l : layouts)
    strides.push_back(l.strides);
  SmallVector<Value> offsets = offsetsFromLinear(b, loc, first, iter, strides);
  Evaluator ev(b, loc, [&](BlockArgument a) -> Value {
    unsigned i = a.getArgNumber();
    Value buffer = host.inputs[i];
    if (lanes == 1)
      return memref::LoadOp::create(b, loc, buffer, offsets[i]);
    // Lanes walk the innermost dim, along which the operand is read in
    // full (stride 1) or broadcast (stride 0).
    if (layouts[i].strides.back() == 1)
      return loadVector(b, loc, buffer, offsets[i], lanes);
    Value scalar = memref::LoadOp::create(b, loc, buffer, offsets[i]);
    return vector::BroadcastOp::create(
        b, loc, VectorType::get({lanes}, scalar.getType()), scalar);
  });
  if (lanes > 1)
    ev.setVectorWidth(lanes);
  for (auto [k, root] : llvm::enumerate(ret.getOperands())) {
    FailureOr<Value> v = ev.eval(root);
    if (failed(v)) {
      host.fn.erase();
      return failure();
    }
    if (lanes > 1)
      storeVector(b, loc, *v, host.outputs[k], first);
    else
      memref::StoreOp::create(b, loc, *v, host.outputs[k], first);
  }
  return success();
}
