//===- ConvToMatmul.cpp - Convolutions as products with their columns -----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A 2-D convolution with one group is a batched product: its weight, as
// [O, C * KH * KW], times the columns of each image's windows
// (kiln.unfold, [N, C * KH * KW, HO * WO]), plus the bias per row. A
// backend whose matmul kernel reads the columns from the input while it
// packs them runs the convolution at its matmul's speed and never stores
// the columns. A 1 x 1 convolution that steps by 1 without padding is a
// plain product with the input. An elementwise op on the convolution's
// result (an activation, a residual add) moves before the view back to
// NCHW, onto the [N, O, OH * OW] product, so that it fuses into the
// matmul's epilogue. The gradient with respect to the input of a
// convolution whose windows step by 1 is itself such a convolution (with
// groups too, then a grouped convolution, which the generic path runs);
// the gradient with respect to the weight is the product of the output's
// gradient with the transposed columns, summed over the images.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/KilnTraits.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>
#include <numeric>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNCONVTOMATMUL
#include "kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Whether `op` (a convolution or one of its gradients) has only static f32
/// tensors, the form the rewrites take.
bool staticF32(Operation *op) {
  auto plain = [](Type t) {
    auto r = llvm::dyn_cast<RankedTensorType>(t);
    return r && r.hasStaticShape() && r.getElementType().isF32();
  };
  return llvm::all_of(op->getOperandTypes(), plain) &&
         llvm::all_of(op->getResultTypes(), plain);
}

/// ... and one group, the form the products take.
bool oneGroupStaticF32(Operation *op, int64_t groups) {
  return groups == 1 && staticF32(op);
}

/// The columns of the windows of `x` for a weight of shape `ws`: the input
/// itself, viewed as [N, C, H * W], for a 1 x 1 window that steps by 1
/// without padding. With `imagesInColumns`, the columns of all images
/// along one row, [C * KH * KW, N * OH * OW].
Value columns(PatternRewriter &b, Location loc, Value x, ArrayRef<int64_t> ws,
              DenseI64ArrayAttr stride, DenseI64ArrayAttr padding,
              DenseI64ArrayAttr dilation, bool imagesInColumns = false) {
  auto ones = [](ArrayRef<int64_t> v) {
    return llvm::all_of(v, [](int64_t e) { return e == 1; });
  };
  bool pointwise =
      ws[2] == 1 && ws[3] == 1 && ones(stride.asArrayRef()) &&
      llvm::all_of(padding.asArrayRef(), [](int64_t e) { return e == 0; });
  ArrayRef<int64_t> xs = llvm::cast<RankedTensorType>(x.getType()).getShape();
  if (pointwise && !imagesInColumns)
    return ReshapeOp::create(
        b, loc, x, b.getDenseI64ArrayAttr({xs[0], xs[1], xs[2] * xs[3]}));
  return UnfoldOp::create(b, loc, x, b.getDenseI64ArrayAttr({ws[2], ws[3]}),
                          stride, padding, dilation,
                          imagesInColumns ? b.getUnitAttr() : UnitAttr());
}

/// A convolution whose images have fewer output pixels than
/// `imagesInColumnsBelow` (a ResNet's last stages) takes the columns of all
/// its images as one matrix, [C * KH * KW, N * OH * OW]: per image, the
/// product's columns would fill a few register tiles partly (16 pixels:
/// half of each 32-wide tile of AVX-512).
struct ConvAsMatmul : OpRewritePattern<Conv2dOp> {
  ConvAsMatmul(MLIRContext *ctx, int64_t imagesInColumnsBelow)
      : OpRewritePattern(ctx), imagesInColumnsBelow(imagesInColumnsBelow) {}
  int64_t imagesInColumnsBelow;

  LogicalResult matchAndRewrite(Conv2dOp op,
                                PatternRewriter &b) const override {
    auto w = llvm::cast<RankedTensorType>(op.getWeight().getType());
    RankedTensorType y = op.getType();
    if (!oneGroupStaticF32(op, op.getGroups()) || y.getNumElements() == 0)
      return b.notifyMatchFailure(op, "grouped, not f32, dynamic or empty");
    Location loc = op.getLoc();
    ArrayRef<int64_t> ws = w.getShape(), ys = y.getShape();
    int64_t rows = ws[1] * ws[2] * ws[3];
    Value a = ReshapeOp::create(b, loc, op.getWeight(),
                                b.getDenseI64ArrayAttr({ws[0], rows}));
    int64_t pixels = ys[2] * ys[3];
    bool imagesInColumns = ys[0] > 1 && pixels < imagesInColumnsBelow;
    Value cols =
        columns(b, loc, op.getInput(), ws, op.getStrideAttr(),
                op.getPaddingAttr(), op.getDilationAttr(), imagesInColumns);
    Value c = MatmulOp::create(b, loc, a, cols);
    if (Value bias = op.getBias())
      c = AddOp::create(
          b, loc, c,
          ReshapeOp::create(b, loc, bias, b.getDenseI64ArrayAttr({ws[0], 1})));
    if (imagesInColumns) {
      // [O, N * P] back to [N, O, P]: a copy, of a small output.
      c = ReshapeOp::create(b, loc, c,
                            b.getDenseI64ArrayAttr({ws[0], ys[0], pixels}));
      c = PermuteOp::create(b, loc, c, b.getDenseI64ArrayAttr({1, 0, 2}));
    }
    b.replaceOpWithNewOp<ReshapeOp>(op, c, b.getDenseI64ArrayAttr(ys));
    return success();
  }
};

/// The gradient of a convolution with respect to its input, when the
/// windows step by 1, is the convolution of the gradient with the weight
/// flipped along both spatial dims and with its channels swapped,
/// `[C, O, KH, KW]`, padded by `dilation * (kernel - 1) - padding` on
/// each side; which then goes the way of every convolution. With groups,
/// the channels are swapped within each group (`[G, O/G, C/G, ...]` to
/// `[G, C/G, O/G, ...]`) and the convolution keeps the groups (a
/// depthwise one's gradient is a depthwise convolution).
struct BackwardInputAsConv : OpRewritePattern<Conv2dBackwardInputOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2dBackwardInputOp op,
                                PatternRewriter &b) const override {
    auto w = llvm::cast<RankedTensorType>(op.getWeight().getType());
    RankedTensorType x = op.getType();
    if (!staticF32(op))
      return b.notifyMatchFailure(op, "not f32, or dynamic");
    ArrayRef<int64_t> ws = w.getShape();
    int64_t groups = op.getGroups();
    SmallVector<int64_t> pad;
    for (int d = 0; d < 2; ++d) {
      int64_t p = op.getDilation()[d] * (ws[2 + d] - 1) - op.getPadding()[d];
      if (op.getStride()[d] != 1 || p < 0)
        return b.notifyMatchFailure(op, "strided, or padded past the window");
      pad.push_back(p);
    }
    Location loc = op.getLoc();
    Value flipped =
        FlipOp::create(b, loc, op.getWeight(), b.getDenseI64ArrayAttr({2, 3}));
    Value swapped;
    if (groups == 1) {
      swapped = PermuteOp::create(b, loc, flipped,
                                  b.getDenseI64ArrayAttr({1, 0, 2, 3}));
    } else {
      int64_t perGroup = ws[0] / groups;
      Value split = ReshapeOp::create(
          b, loc, flipped,
          b.getDenseI64ArrayAttr({groups, perGroup, ws[1], ws[2], ws[3]}));
      Value within = PermuteOp::create(b, loc, split,
                                       b.getDenseI64ArrayAttr({0, 2, 1, 3, 4}));
      swapped = ReshapeOp::create(
          b, loc, within,
          b.getDenseI64ArrayAttr({groups * ws[1], perGroup, ws[2], ws[3]}));
    }
    auto conv = Conv2dOp::create(
        b, loc, op.getGrad(), swapped, Value(), b.getDenseI64ArrayAttr({1, 1}),
        b.getDenseI64ArrayAttr(pad), op.getDilationAttr(),
        b.getI64IntegerAttr(groups));
    if (conv.getType() != x) {
      b.eraseOp(conv);
      return b.notifyMatchFailure(op, "the output is not the input's shape");
    }
    b.replaceOp(op, conv.getResult());
    return success();
  }
};

/// Along one spatial dim, phase `a` of a strided convolution's input
/// gradient: the input rows h = s * q + a, q in [0, rows), take the taps i
/// with i * d = a + p (mod s), every step-th from `first` (in the flipped
/// kernel), which read gradient rows q + lowest + t * dilation for tap t.
struct Phase {
  int64_t rows = 0, taps = 0, first = 0, step = 1, dilation = 1, lowest = 0;
  /// The gradient's padding for a stride-1 convolution of `rows` outputs:
  /// negative crops.
  int64_t low = 0, high = 0;

  static Phase of(int64_t a, int64_t size, int64_t outSize, int64_t k,
                  int64_t s, int64_t p, int64_t d) {
    Phase ph;
    ph.rows = size > a ? (size - a + s - 1) / s : 0;
    int64_t g = std::gcd(s, d);
    ph.step = s / g;
    ph.dilation = d / g;
    int64_t top = -1; // the largest tap of the phase
    for (int64_t i = k - 1; i >= 0 && top < 0; --i)
      if (((a + p - i * d) % s + s) % s == 0)
        top = i;
    if (top < 0)
      return ph;
    ph.taps = top / ph.step + 1;
    ph.first = k - 1 - top;
    ph.lowest = (a + p - top * d) / s;
    ph.low = -ph.lowest;
    ph.high =
        ph.rows - 1 + ph.lowest + (ph.taps - 1) * ph.dilation - (outSize - 1);
    return ph;
  }
};

/// The input gradient of a strided convolution, one phase of input rows
/// and columns at a time: phase (a, b) holds the input elements
/// (s * q + a, s * r + b), a stride-1 convolution of the (padded or
/// cropped) output gradient with the taps of the flipped weight that reach
/// them. The phases, interleaved, are the gradient; every multiply is one
/// the gradient needs (a convolution of the gradient with zeros inserted
/// would do stride^2 times as many).
struct StridedBackwardInput : OpRewritePattern<Conv2dBackwardInputOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2dBackwardInputOp op,
                                PatternRewriter &b) const override {
    auto g = llvm::cast<RankedTensorType>(op.getGrad().getType());
    auto w = llvm::cast<RankedTensorType>(op.getWeight().getType());
    RankedTensorType x = op.getType();
    ArrayRef<int64_t> st = op.getStride();
    if (!oneGroupStaticF32(op, op.getGroups()) || (st[0] == 1 && st[1] == 1) ||
        x.getNumElements() == 0)
      return b.notifyMatchFailure(op, "not strided, grouped, not f32, dynamic");
    Location loc = op.getLoc();
    ArrayRef<int64_t> gs = g.getShape(), ws = w.getShape(), xs = x.getShape();
    int64_t rows = (xs[2] + st[0] - 1) / st[0],
            cols = (xs[3] + st[1] - 1) / st[1];
    Value flipped =
        FlipOp::create(b, loc, op.getWeight(), b.getDenseI64ArrayAttr({2, 3}));
    SmallVector<Value> phaseRows;
    for (int64_t a = 0; a < st[0]; ++a) {
      SmallVector<Value> phaseCols;
      Phase ph = Phase::of(a, xs[2], gs[2], ws[2], st[0], op.getPadding()[0],
                           op.getDilation()[0]);
      for (int64_t c = 0; c < st[1]; ++c) {
        Phase pw = Phase::of(c, xs[3], gs[3], ws[3], st[1], op.getPadding()[1],
                             op.getDilation()[1]);
        Value part;
        if (ph.taps && pw.taps && ph.rows && pw.rows) {
          Value k = SliceOp::create(
              b, loc, flipped,
              b.getDenseI64ArrayAttr({0, 0, ph.first, pw.first}),
              b.getDenseI64ArrayAttr(ws),
              b.getDenseI64ArrayAttr({1, 1, ph.step, pw.step}));
          k = PermuteOp::create(b, loc, k,
                                b.getDenseI64ArrayAttr({1, 0, 2, 3}));
          // Crop what the phase does not read, then pad what it reads
          // past the gradient.
          Value in = SliceOp::create(
              b, loc, op.getGrad(),
              b.getDenseI64ArrayAttr({0, 0, std::max<int64_t>(0, -ph.low),
                                      std::max<int64_t>(0, -pw.low)}),
              b.getDenseI64ArrayAttr({gs[0], gs[1],
                                      gs[2] + std::min<int64_t>(0, ph.high),
                                      gs[3] + std::min<int64_t>(0, pw.high)}),
              b.getDenseI64ArrayAttr({1, 1, 1, 1}));
          if (ph.low > 0 || ph.high > 0 || pw.low > 0 || pw.high > 0)
            in = PadOp::create(
                b, loc, in,
                b.getDenseI64ArrayAttr({0, 0, std::max<int64_t>(0, ph.low),
                                        std::max<int64_t>(0, pw.low)}),
                b.getDenseI64ArrayAttr({0, 0, std::max<int64_t>(0, ph.high),
                                        std::max<int64_t>(0, pw.high)}),
                b.getF64FloatAttr(0.0));
          part = Conv2dOp::create(
              b, loc, in, k, Value(), b.getDenseI64ArrayAttr({1, 1}),
              b.getDenseI64ArrayAttr({0, 0}),
              b.getDenseI64ArrayAttr({ph.dilation, pw.dilation}),
              b.getI64IntegerAttr(1));
          // Phases with fewer rows or columns fill up to the largest.
          if (ph.rows < rows || pw.rows < cols)
            part = PadOp::create(
                b, loc, part, b.getDenseI64ArrayAttr({0, 0, 0, 0}),
                b.getDenseI64ArrayAttr({0, 0, rows - ph.rows, cols - pw.rows}),
                b.getF64FloatAttr(0.0));
        } else {
          part =
              FullOp::create(b, loc,
                             RankedTensorType::get({xs[0], xs[1], rows, cols},
                                                   x.getElementType()),
                             b.getF64FloatAttr(0.0), ValueRange{});
        }
        phaseCols.push_back(
            UnsqueezeOp::create(b, loc, part, b.getDenseI64ArrayAttr({3, 5})));
      }
      Value row = phaseCols.size() == 1
                      ? phaseCols[0]
                      : Value(ConcatOp::create(b, loc, phaseCols, 5));
      phaseRows.push_back(row);
    }
    Value all = phaseRows.size() == 1
                    ? phaseRows[0]
                    : Value(ConcatOp::create(b, loc, phaseRows, 3));
    Value merged = ReshapeOp::create(
        b, loc, all,
        b.getDenseI64ArrayAttr({xs[0], xs[1], rows * st[0], cols * st[1]}));
    b.replaceOpWithNewOp<SliceOp>(
        op, merged, b.getDenseI64ArrayAttr({0, 0, 0, 0}),
        b.getDenseI64ArrayAttr(xs), b.getDenseI64ArrayAttr({1, 1, 1, 1}));
    return success();
  }
};

/// The gradient of a convolution with respect to its weight is, per
/// image, the gradient `[O, OH * OW]` times the transposed columns of the
/// input's windows, summed over the images; the matmul kernel reads the
/// transposed columns from the input while packing.
/// The weight's gradient is one product over all images, not one per image
/// summed, when the output channels number at least this many times the
/// output pixels of an image.
constexpr int64_t kFoldImagesBelow = 4;

struct BackwardWeightAsMatmul : OpRewritePattern<Conv2dBackwardWeightOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2dBackwardWeightOp op,
                                PatternRewriter &b) const override {
    auto g = llvm::cast<RankedTensorType>(op.getGrad().getType());
    RankedTensorType w = op.getType();
    if (!oneGroupStaticF32(op, op.getGroups()) || g.getNumElements() == 0)
      return b.notifyMatchFailure(op, "grouped, not f32, dynamic or empty");
    Location loc = op.getLoc();
    ArrayRef<int64_t> gs = g.getShape(), ws = w.getShape();
    Value grad = ReshapeOp::create(
        b, loc, op.getGrad(),
        b.getDenseI64ArrayAttr({gs[0], gs[1], gs[2] * gs[3]}));
    int64_t n = gs[0], o = gs[1], pixels = gs[2] * gs[3];
    if (n > 1 && o >= kFoldImagesBelow * pixels) {
      // Few output pixels per image (a ResNet's last stages): one product
      // over all images, [O, N * P] x [N * P, C * KH * KW], the columns
      // of all images read from the input as one matrix. Per image, it
      // would write N times the whole gradient and sum them.
      Value cols = columns(b, loc, op.getInput(), ws, op.getStrideAttr(),
                           op.getPaddingAttr(), op.getDilationAttr(),
                           /*imagesInColumns=*/true);
      Value colsT =
          PermuteOp::create(b, loc, cols, b.getDenseI64ArrayAttr({1, 0}));
      Value flatGrad = ReshapeOp::create(
          b, loc,
          PermuteOp::create(b, loc, grad, b.getDenseI64ArrayAttr({1, 0, 2})),
          b.getDenseI64ArrayAttr({o, n * pixels}));
      Value product = MatmulOp::create(b, loc, flatGrad, colsT);
      b.replaceOpWithNewOp<ReshapeOp>(op, product, b.getDenseI64ArrayAttr(ws));
      return success();
    }
    Value cols = columns(b, loc, op.getInput(), ws, op.getStrideAttr(),
                         op.getPaddingAttr(), op.getDilationAttr());
    Value colsT =
        PermuteOp::create(b, loc, cols, b.getDenseI64ArrayAttr({0, 2, 1}));
    Value perImage = MatmulOp::create(b, loc, grad, colsT);
    Value summed =
        SumOp::create(b, loc, perImage, b.getDenseI64ArrayAttr({0}), false);
    b.replaceOpWithNewOp<ReshapeOp>(op, summed, b.getDenseI64ArrayAttr(ws));
    return success();
  }
};

RankedTensorType typeOf(Value v) {
  return llvm::cast<RankedTensorType>(v.getType());
}

/// Whether `v` is a product this pass made, or elementwise of one.
bool fromConvProduct(Value v, int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 64)
    return false;
  if (auto mm = llvm::dyn_cast<MatmulOp>(def)) {
    Operation *rhs = mm.getRhs().getDefiningOp();
    return rhs && (llvm::isa<UnfoldOp>(rhs) ||
                   (llvm::isa<ReshapeOp>(rhs) &&
                    typeOf(rhs->getOperand(0)).getRank() == 4));
  }
  if (!isFusibleElementwise(def))
    return false;
  return llvm::any_of(def->getOperands(),
                      [&](Value o) { return fromConvProduct(o, depth + 1); });
}

/// op(..., reshape(p) to [N, O, OH, OW], ...) -> reshape(op(..., p, ...)):
/// the other operands are viewed as [N, O, OH * OW] (or their broadcast
/// form), so the op joins the product's epilogue.
struct SinkViewBelowElementwise : RewritePattern {
  SinkViewBelowElementwise(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), 1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &b) const override {
    if (!isFusibleElementwise(op) || op->getNumResults() != 1 ||
        op->getNumRegions() != 0)
      return failure();
    auto type = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape() || type.getRank() != 4)
      return failure();
    ArrayRef<int64_t> full = type.getShape();
    SmallVector<int64_t> flat = {full[0], full[1], full[2] * full[3]};
    // The view of a product this pass made, of the op's full shape.
    ReshapeOp view;
    for (Value o : op->getOperands())
      if (auto r = o.getDefiningOp<ReshapeOp>())
        if (typeOf(r.getResult()).getShape() == full &&
            typeOf(r.getInput()).getShape() == ArrayRef<int64_t>(flat) &&
            fromConvProduct(r.getInput()))
          view = r;
    if (!view)
      return failure();
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (Value o : op->getOperands()) {
      auto t = llvm::dyn_cast<RankedTensorType>(o.getType());
      if (!t || !t.hasStaticShape())
        return failure();
      ArrayRef<int64_t> sh = t.getShape();
      int64_t rank = t.getRank();
      std::optional<SmallVector<int64_t>> to;
      if (rank == 0) {
        operands.push_back(o);
        continue;
      }
      if (rank >= 2 && sh[rank - 2] == full[2] && sh[rank - 1] == full[3]) {
        // Varies over the pixels: both spatial dims as one.
        to = SmallVector<int64_t>(sh.drop_back(2));
        to->push_back(full[2] * full[3]);
      } else if (sh.back() == 1 && (rank < 2 || sh[rank - 2] == 1)) {
        // The same for every pixel: one broadcast dim for both.
        to = SmallVector<int64_t>(sh.drop_back(rank < 2 ? 1 : 2));
        to->push_back(1);
      }
      if (!to)
        return failure();
      if (auto r = o.getDefiningOp<ReshapeOp>();
          r && typeOf(r.getInput()).getShape() == ArrayRef<int64_t>(*to))
        operands.push_back(r.getInput());
      else
        operands.push_back(
            ReshapeOp::create(b, loc, o, b.getDenseI64ArrayAttr(*to)));
    }
    OperationState state(loc, op->getName().getStringRef(), operands,
                         TypeRange{type.clone(flat)}, op->getAttrs());
    Operation *moved = b.create(state);
    b.replaceOpWithNewOp<ReshapeOp>(op, moved->getResult(0),
                                    b.getDenseI64ArrayAttr(full));
    return success();
  }
};

/// Whether `r` merges the two trailing dims of a 4-D value, [A, B, H, W]
/// to [A, B, H * W] (`split` false), or splits them, [A, B, H * W] to
/// [A, B, H, W] (`split` true): the views between a convolution's product
/// and the NCHW ops around it.
bool viewsTrailingPair(ReshapeOp r, bool split) {
  ArrayRef<int64_t> in = typeOf(r.getInput()).getShape(),
                    out = typeOf(r.getResult()).getShape();
  ArrayRef<int64_t> full = split ? out : in, flat = split ? in : out;
  return full.size() == 4 && flat.size() == 3 &&
         !ShapedType::isDynamicShape(full) && flat[0] == full[0] &&
         flat[1] == full[1] && flat[2] == full[2] * full[3];
}

/// sum(x viewed as [N, C, H, W], axes) -> sum(x, axes') viewed as the
/// result, where x is [N, C, H * W] and the axes take both spatial dims or
/// neither: the sum then reads x itself, so that the elementwise ops
/// producing x (a batch norm's gradient, on the product's [N, C, H * W])
/// fuse into it instead of being stored for it.
struct SumOfSplitView : OpRewritePattern<SumOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SumOp op, PatternRewriter &b) const override {
    auto view = op.getInput().getDefiningOp<ReshapeOp>();
    if (!view || !viewsTrailingPair(view, /*split=*/true))
      return b.notifyMatchFailure(op, "not a view of [N, C, H * W]");
    ArrayRef<int64_t> axes = op.getAxes();
    bool h = llvm::is_contained(axes, 2), w = llvm::is_contained(axes, 3);
    if (h != w)
      return b.notifyMatchFailure(op, "reduces one spatial dim only");
    SmallVector<int64_t> flatAxes;
    for (int64_t a : axes)
      if (a < 3)
        flatAxes.push_back(a);
    Value sum =
        SumOp::create(b, op.getLoc(), view.getInput(),
                      b.getDenseI64ArrayAttr(flatAxes), op.getKeepdim());
    if (sum.getType() != op.getType())
      sum = ReshapeOp::create(b, op.getLoc(), sum,
                              b.getDenseI64ArrayAttr(op.getType().getShape()));
    b.replaceOp(op, sum);
    return success();
  }
};

/// expand(v to [N, C, H, W]) viewed as [N, C, H * W] -> expand(v viewed
/// as [..., 1]) to [N, C, H * W], for a v that is the same at every pixel
/// (a batch norm's per-channel gradient term): the readers of the
/// broadcast then read v in place instead of a stored [N, C, H, W] copy.
struct FlatViewOfExpand : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &b) const override {
    auto expand = op.getInput().getDefiningOp<ExpandOp>();
    if (!expand || !viewsTrailingPair(op, /*split=*/false))
      return b.notifyMatchFailure(op, "not the flat view of an expand");
    ArrayRef<int64_t> in = typeOf(expand.getInput()).getShape();
    int64_t rank = in.size();
    if (ShapedType::isDynamicShape(in) || (rank >= 1 && in[rank - 1] != 1) ||
        (rank >= 2 && in[rank - 2] != 1))
      return b.notifyMatchFailure(op, "varies over the pixels");
    // The input's dims before the spatial ones, then one for both.
    SmallVector<int64_t> flatIn(in.begin(),
                                in.end() - std::min<int64_t>(rank, 2));
    flatIn.push_back(1);
    Value v = expand.getInput();
    if (ArrayRef<int64_t>(flatIn) != in)
      v = ReshapeOp::create(b, op.getLoc(), v, b.getDenseI64ArrayAttr(flatIn));
    b.replaceOpWithNewOp<ExpandOp>(
        op, v, b.getDenseI64ArrayAttr(op.getType().getShape()));
    return success();
  }
};

struct KilnConvToMatmulPass
    : public mlir::kiln::impl::KilnConvToMatmulBase<KilnConvToMatmulPass> {
  using KilnConvToMatmulBase::KilnConvToMatmulBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ConvAsMatmul>(&getContext(), imagesInColumnsBelow);
    patterns
        .add<BackwardInputAsConv, StridedBackwardInput, BackwardWeightAsMatmul,
             SinkViewBelowElementwise, SumOfSplitView, FlatViewOfExpand>(
            &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
