//===- SplitReductions.cpp - Reductions over scattered axes in two steps --===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A reduction whose axes are not one block, but end with a block of
// trailing dims (a batch norm's per-channel sums over N, H and W of
// [N, C, H, W]), becomes a reduction over that trailing block, whose rows
// are contiguous, then one over the other axes of the much smaller result.
// Both are shapes that kernel generators reduce at memory speed.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNSPLITREDUCTIONS
#include "kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

template <typename Op> struct SplitScatteredAxes : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op, PatternRewriter &b) const override {
    auto type = llvm::cast<RankedTensorType>(op.getInput().getType());
    // Kept in f32 and f64 only: the partial sums are stored in the input's
    // type between the two steps.
    Type element = type.getElementType();
    if (!element.isF32() && !element.isF64())
      return b.notifyMatchFailure(op, "partials would round");
    ArrayRef<int64_t> axes = op.getAxes();
    int64_t rank = type.getRank();
    // The trailing block: the reduced axes that end at the last dim.
    size_t first = axes.size();
    while (first > 0 &&
           axes[first - 1] == rank - int64_t(axes.size() - first) - 1)
      --first;
    if (first == axes.size() || first == 0)
      return b.notifyMatchFailure(op, "no trailing block, or only one");
    bool oneBlock = true;
    for (size_t i = 1; i < axes.size(); ++i)
      oneBlock &= axes[i] == axes[i - 1] + 1;
    if (oneBlock)
      return b.notifyMatchFailure(op, "the axes are one block already");
    Location loc = op.getLoc();
    SmallVector<int64_t> trailing(axes.begin() + first, axes.end());
    SmallVector<int64_t> rest(axes.begin(), axes.begin() + first);
    Value rows = Op::create(b, loc, op.getInput(),
                            b.getDenseI64ArrayAttr(trailing), /*keepdim=*/true);
    Value r = Op::create(b, loc, rows, b.getDenseI64ArrayAttr(rest),
                         /*keepdim=*/true);
    auto result = llvm::cast<RankedTensorType>(op.getType());
    if (r.getType() != result)
      r = ReshapeOp::create(b, loc, r,
                            b.getDenseI64ArrayAttr(result.getShape()));
    b.replaceOp(op, r);
    return success();
  }
};

struct KilnSplitReductionsPass
    : public mlir::kiln::impl::KilnSplitReductionsBase<
          KilnSplitReductionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns
        .add<SplitScatteredAxes<SumOp>, SplitScatteredAxes<ProdOp>,
             SplitScatteredAxes<ReduceMaxOp>, SplitScatteredAxes<ReduceMinOp>>(
            &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
