//===- Autodiff.cpp - Reverse mode over kiln IR ---------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Each `kiln.grad %loss wrt %x...` becomes the backward graph: composites
// are decomposed first, then the ops between the `wrt` values and the loss
// are visited in reverse and each asks its own rule (DifferentiableOpInterface,
// KilnGradients.cpp) for the cotangents of its operands. Cotangents of a
// value used several times are summed. Values that do not depend on a `wrt`
// value, integer and bool values, ops without a rule and `kiln.detach` carry
// no gradient. Every op the pass creates is tagged `kiln.backward`, which is
// how --kiln-checkpoint tells forward from backward.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnBuilders.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <limits>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNAUTODIFF
#include "kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Tags every op created through the builder as part of the backward graph.
struct BackwardTagger : public OpBuilder::Listener {
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint) override {
    op->setAttr(kBackwardAttr, UnitAttr::get(op->getContext()));
  }
};

bool carriesGradient(Value v) {
  auto t = llvm::dyn_cast<RankedTensorType>(v.getType());
  return t && llvm::isa<FloatType>(t.getElementType());
}

/// The slices of `v` that tile it along one axis (unit steps, every other
/// dim whole, the pieces back to back from 0 to the end), in order, when
/// its active readers are exactly those: the pieces of a split, such as a
/// QKV projection's Q, K and V. Their gradients are then one concat, not a
/// slice_assign of each into zeros of v's shape summed.
SmallVector<SliceOp> tilingSlices(Value v,
                                  const llvm::DenseSet<Operation *> &active) {
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return {};
  SmallVector<SliceOp> slices;
  for (Operation *u : v.getUsers()) {
    if (!active.contains(u))
      continue;
    auto s = llvm::dyn_cast<SliceOp>(u);
    if (!s || llvm::is_contained(slices, s))
      return {};
    slices.push_back(s);
  }
  if (slices.size() < 2)
    return {};
  int64_t rank = type.getRank(), axis = -1;
  for (SliceOp s : slices)
    for (int64_t d = 0; d < rank; ++d) {
      if (s.getSteps()[d] != 1)
        return {};
      // A dynamic dim is taken whole (to the largest end), never tiled.
      if (type.isDynamicDim(d)) {
        if (s.getStarts()[d] != 0 ||
            s.getEnds()[d] != std::numeric_limits<int64_t>::max())
          return {};
        continue;
      }
      int64_t end = std::min(s.getEnds()[d], type.getDimSize(d));
      bool whole = s.getStarts()[d] == 0 && end == type.getDimSize(d);
      if (whole)
        continue;
      if (axis >= 0 && axis != d)
        return {};
      axis = d;
    }
  if (axis < 0)
    return {};
  llvm::sort(slices, [&](SliceOp a, SliceOp b) {
    return a.getStarts()[axis] < b.getStarts()[axis];
  });
  int64_t at = 0;
  for (SliceOp s : slices) {
    if (s.getStarts()[axis] != at)
      return {};
    at = std::min(s.getEnds()[axis], type.getDimSize(axis));
    if (at <= s.getStarts()[axis])
      return {};
  }
  if (at != type.getDimSize(axis))
    return {};
  return slices;
}

LogicalResult differentiate(GradOp grad) {
  Block *block = grad->getBlock();
  // Values that depend on a wrt value, in program order.
  llvm::DenseSet<Value> active(grad.getWrt().begin(), grad.getWrt().end());
  SmallVector<Operation *> ops;
  for (Operation &op : *block) {
    if (&op == grad.getOperation())
      break;
    if (llvm::isa<DetachOp>(op))
      continue;
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return active.contains(v); })) {
      for (Value r : op.getResults())
        if (carriesGradient(r))
          active.insert(r);
      ops.push_back(&op);
    }
  }

  BackwardTagger tagger;
  OpBuilder b(grad);
  b.setListener(&tagger);
  Location loc = grad.getLoc();
  llvm::DenseMap<Value, Value> cotangent;
  auto accumulate = [&](Value v, Value g) {
    auto it = cotangent.find(v);
    if (it == cotangent.end()) {
      cotangent[v] = g;
      return;
    }
    it->second = AddOp::create(b, loc, it->second, g);
  };
  Value loss = grad.getLoss();
  if (active.contains(loss))
    cotangent[loss] = scalarConstant(b, loc, elementTypeOf(loss), 1.0);

  // Values read by slices that tile them: each slice's gradient is kept
  // aside, and the value's is their concat once every piece is in (a
  // piece nothing flows back to is zeros).
  llvm::DenseSet<Operation *> activeOps(ops.begin(), ops.end());
  llvm::DenseMap<Operation *, Value> tiled; // slice -> the value it tiles
  llvm::DenseMap<Value, SmallVector<SliceOp>> tiles;
  for (Operation *op : ops)
    for (Value r : op->getResults())
      if (SmallVector<SliceOp> t = tilingSlices(r, activeOps); !t.empty()) {
        for (SliceOp s : t)
          tiled[s] = r;
        tiles[r] = std::move(t);
      }
  for (Value w : grad.getWrt())
    if (!tiles.count(w))
      if (SmallVector<SliceOp> t = tilingSlices(w, activeOps); !t.empty()) {
        for (SliceOp s : t)
          tiled[s] = w;
        tiles[w] = std::move(t);
      }
  llvm::DenseMap<Operation *, Value> pieceGrad;
  // Once the last tiling slice is behind (every slice of v comes after v
  // in the block, so before v's producer in this reverse walk).
  auto flushTiles = [&](Value v) {
    auto it = tiles.find(v);
    if (it == tiles.end())
      return;
    SmallVector<Value> pieces;
    bool any = false;
    for (SliceOp s : it->second) {
      Value g = pieceGrad.lookup(s);
      any |= static_cast<bool>(g);
      pieces.push_back(g ? g : fullLike(b, loc, s.getResult(), 0.0));
    }
    int64_t axis = 0;
    auto type = llvm::cast<RankedTensorType>(v.getType());
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (it->second.front().getResult().getType().getDimSize(d) !=
          type.getDimSize(d))
        axis = d;
    tiles.erase(it);
    if (any)
      accumulate(v, ConcatOp::create(b, loc, pieces, axis));
  };

  for (Operation *op : llvm::reverse(ops)) {
    for (Value r : op->getResults())
      flushTiles(r);
    if (auto it = tiled.find(op); it != tiled.end()) {
      Value g = cotangent.lookup(op->getResult(0));
      if (g && g.getType() != op->getResult(0).getType())
        g = AddOp::create(b, loc, fullLike(b, loc, op->getResult(0), 0.0), g);
      pieceGrad[op] = g;
      continue;
    }
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value r : op->getResults()) {
      Value g = cotangent.lookup(r);
      resultGrads.push_back(g);
      any |= static_cast<bool>(g);
    }
    if (!any)
      continue;
    auto rule = llvm::dyn_cast<DifferentiableOpInterface>(op);
    if (!rule)
      continue; // no gradient flows through this op
    // A rank-0 seed must take the result's shape before a rule reads it.
    for (unsigned i = 0; i < op->getNumResults(); ++i) {
      Value r = op->getResult(i);
      if (resultGrads[i] && resultGrads[i].getType() != r.getType())
        resultGrads[i] =
            AddOp::create(b, loc, fullLike(b, loc, r, 0.0), resultGrads[i]);
    }
    SmallVector<Value> operandGrads;
    if (failed(rule.buildVJP(b, resultGrads, operandGrads)))
      return op->emitOpError("has no usable gradient rule here");
    for (auto [operand, g] : llvm::zip(op->getOperands(), operandGrads))
      if (g && active.contains(operand))
        accumulate(operand, g);
  }

  for (Value w : grad.getWrt())
    flushTiles(w);
  SmallVector<Value> results;
  for (Value w : grad.getWrt()) {
    Value g = cotangent.lookup(w);
    if (!g)
      g = fullLike(b, loc, w, 0.0);
    else if (g.getType() != w.getType())
      g = AddOp::create(b, loc, fullLike(b, loc, w, 0.0), g);
    results.push_back(g);
  }
  grad.replaceAllUsesWith(results);
  grad.erase();
  return success();
}

struct KilnAutodiffPass
    : public mlir::kiln::impl::KilnAutodiffBase<KilnAutodiffPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    SmallVector<GradOp> grads;
    root->walk([&](GradOp g) { grads.push_back(g); });
    if (grads.empty())
      return;
    // Rules exist for primitives only: decompose first.
    RewritePatternSet patterns(&getContext());
    populateDecomposePatterns(patterns);
    if (failed(applyPatternsGreedily(root, std::move(patterns))))
      return signalPassFailure();
    grads.clear();
    root->walk([&](GradOp g) { grads.push_back(g); });
    for (GradOp g : grads)
      if (failed(differentiate(g)))
        return signalPassFailure();
    // Gradients are done: a detach is the identity from here on.
    SmallVector<DetachOp> detaches;
    root->walk([&](DetachOp d) { detaches.push_back(d); });
    for (DetachOp d : detaches) {
      d.replaceAllUsesWith(d.getInput());
      d.erase();
    }
  }
};

} // namespace
