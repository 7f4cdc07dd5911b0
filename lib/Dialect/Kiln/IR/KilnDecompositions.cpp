//===- KilnDecompositions.cpp - Composite kiln ops as primitives ----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The decomposition of each composite op (Kiln_Composite): a fact of the op,
// which --kiln-decompose and --convert-kiln-to-linalg both apply.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnBuilders.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::kiln;

namespace {

RankedTensorType typeOf(Value v) {
  return llvm::cast<RankedTensorType>(v.getType());
}

/// Replaces `op` by `value`. Broadcasting a static dim against a dynamic one
/// (layer_norm's weight, mask_fill's mask) can give `value` a more precise
/// type than the op's result; a tensor.cast gives the op's type back.
void replaceKeepingType(PatternRewriter &b, Operation *op, Value value) {
  Type type = op->getResult(0).getType();
  if (value.getType() != type)
    value = tensor::CastOp::create(b, op->getLoc(), type, value);
  b.replaceOp(op, value);
}

/// Number of elements that `axes` of `x` cover, as a value that broadcasts:
/// a constant when the dims are static; otherwise a rank-0 sum of ones over
/// the dynamic dims alone (S ones, not the S * n of `x`), times the static
/// dims' product. The count is the same at every position, so a rank-0
/// value serves keepdim too.
Value reducedCount(PatternRewriter &b, Location loc, Value x,
                   ArrayRef<int64_t> axes) {
  auto type = typeOf(x);
  // In double: the product of static dims can overflow int64_t.
  double count = 1;
  SmallVector<Value> dynamicSizes;
  for (int64_t a : axes) {
    if (type.isDynamicDim(a))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, x, a));
    else
      count *= (double)type.getDimSize(a);
  }
  Type element = type.getElementType();
  if (dynamicSizes.empty())
    return scalarConstant(b, loc, element, count);
  SmallVector<int64_t> shape(dynamicSizes.size(), ShapedType::kDynamic);
  Value ones = FullOp::create(b, loc, RankedTensorType::get(shape, element),
                              b.getF64FloatAttr(1.0), dynamicSizes);
  SmallVector<int64_t> all;
  for (int64_t i = 0; i < (int64_t)shape.size(); ++i)
    all.push_back(i);
  Value n = SumOp::create(b, loc, ones, b.getDenseI64ArrayAttr(all),
                          /*keepdim=*/false);
  if (count == 1)
    return n;
  return MulOp::create(b, loc, n, scalarConstant(b, loc, element, count));
}

/// A constant of `shape` and `element` type holding `values`.
Value constantOf(PatternRewriter &b, Location loc, ArrayRef<int64_t> shape,
                 Type element, ArrayRef<double> values) {
  auto type = RankedTensorType::get(shape, element);
  SmallVector<Attribute> attrs;
  for (double v : values)
    attrs.push_back(llvm::isa<FloatType>(element)
                        ? Attribute(b.getFloatAttr(element, v))
                        : Attribute(b.getIntegerAttr(element, (int64_t)v)));
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, attrs));
}

struct DecomposeSilu : OpRewritePattern<SiluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SiluOp op, PatternRewriter &b) const override {
    Value s = SigmoidOp::create(b, op.getLoc(), op.getInput());
    b.replaceOpWithNewOp<MulOp>(op, op.getInput(), s);
    return success();
  }
};

/// (max(z, 0) + log1p(e^-|z|)): log(1 + e^z) without overflow.
Value stableSoftplus(PatternRewriter &b, Location loc, Value z) {
  Type element = typeOf(z).getElementType();
  Value zero = scalarConstant(b, loc, element, 0.0);
  Value tail = Log1pOp::create(
      b, loc,
      ExpOp::create(b, loc, NegOp::create(b, loc, AbsOp::create(b, loc, z))));
  return AddOp::create(b, loc, MaxOp::create(b, loc, z, zero), tail);
}

struct DecomposeLogSigmoid : OpRewritePattern<LogSigmoidOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LogSigmoidOp op,
                                PatternRewriter &b) const override {
    // log sigmoid(x) = -softplus(-x).
    Value negX = NegOp::create(b, op.getLoc(), op.getInput());
    b.replaceOpWithNewOp<NegOp>(op, stableSoftplus(b, op.getLoc(), negX));
    return success();
  }
};

struct DecomposeHardswish : OpRewritePattern<HardswishOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(HardswishOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    Type element = typeOf(x).getElementType();
    Value gate = ClampOp::create(
        b, loc, AddOp::create(b, loc, x, scalarConstant(b, loc, element, 3.0)),
        b.getF64FloatAttr(0.0), b.getF64FloatAttr(6.0));
    Value y = MulOp::create(b, loc, x, gate);
    b.replaceOpWithNewOp<DivOp>(op, y, scalarConstant(b, loc, element, 6.0));
    return success();
  }
};

struct DecomposeMish : OpRewritePattern<MishOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MishOp op, PatternRewriter &b) const override {
    Value x = op.getInput();
    Value t = TanhOp::create(b, op.getLoc(), stableSoftplus(b, op.getLoc(), x));
    b.replaceOpWithNewOp<MulOp>(op, x, t);
    return success();
  }
};

struct DecomposeLeakyRelu : OpRewritePattern<LeakyReluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LeakyReluOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    Type element = typeOf(x).getElementType();
    Value positive =
        GtOp::create(b, loc, x, scalarConstant(b, loc, element, 0.0));
    Value scaled =
        MulOp::create(b, loc, x,
                      scalarConstant(b, loc, element,
                                     op.getNegativeSlope().convertToDouble()));
    b.replaceOpWithNewOp<WhereOp>(op, positive, x, scaled);
    return success();
  }
};

struct DecomposeElu : OpRewritePattern<EluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EluOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    Type element = typeOf(x).getElementType();
    Value zero = scalarConstant(b, loc, element, 0.0);
    Value positive = GtOp::create(b, loc, x, zero);
    // e^min(x, 0): the branch not taken stays finite, and so does its
    // gradient.
    Value em1 = SubOp::create(
        b, loc, ExpOp::create(b, loc, MinOp::create(b, loc, x, zero)),
        scalarConstant(b, loc, element, 1.0));
    Value negative = MulOp::create(
        b, loc, em1,
        scalarConstant(b, loc, element, op.getAlpha().convertToDouble()));
    b.replaceOpWithNewOp<WhereOp>(op, positive, x, negative);
    return success();
  }
};

struct DecomposeSoftplus : OpRewritePattern<SoftplusOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftplusOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    Type element = typeOf(x).getElementType();
    double beta = op.getBeta().convertToDouble();
    Value z =
        beta == 1.0
            ? x
            : MulOp::create(b, loc, x, scalarConstant(b, loc, element, beta));
    Value soft = stableSoftplus(b, loc, z);
    if (beta != 1.0)
      soft = DivOp::create(b, loc, soft, scalarConstant(b, loc, element, beta));
    double threshold = op.getThreshold().convertToDouble();
    if (std::isinf(threshold) && threshold > 0) {
      b.replaceOp(op, soft);
      return success();
    }
    Value linear =
        GtOp::create(b, loc, z, scalarConstant(b, loc, element, threshold));
    b.replaceOpWithNewOp<WhereOp>(op, linear, x, soft);
    return success();
  }
};

struct DecomposeMean : OpRewritePattern<MeanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MeanOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value sum =
        SumOp::create(b, loc, op.getInput(), op.getAxesAttr(), op.getKeepdim());
    Value count = reducedCount(b, loc, op.getInput(), op.getAxes());
    b.replaceOpWithNewOp<DivOp>(op, sum, count);
    return success();
  }
};

/// max over `axis` with keepdim, detached: a shift that the result of a
/// softmax-like op does not depend on.
Value stabilizer(PatternRewriter &b, Location loc, Value x,
                 ArrayRef<int64_t> axes) {
  Value m = ReduceMaxOp::create(b, loc, x, b.getDenseI64ArrayAttr(axes),
                                /*keepdim=*/true);
  return DetachOp::create(b, loc, m);
}

struct DecomposeSoftmax : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    Value m = stabilizer(b, loc, op.getInput(), {axis});
    Value e = ExpOp::create(b, loc, SubOp::create(b, loc, op.getInput(), m));
    Value s = SumOp::create(b, loc, e, b.getDenseI64ArrayAttr({axis}),
                            /*keepdim=*/true);
    b.replaceOpWithNewOp<MulOp>(op, e, RecipOp::create(b, loc, s));
    return success();
  }
};

struct DecomposeLogSoftmax : OpRewritePattern<LogSoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LogSoftmaxOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    Value m = stabilizer(b, loc, op.getInput(), {axis});
    Value shifted = SubOp::create(b, loc, op.getInput(), m);
    Value s = SumOp::create(b, loc, ExpOp::create(b, loc, shifted),
                            b.getDenseI64ArrayAttr({axis}), /*keepdim=*/true);
    b.replaceOpWithNewOp<SubOp>(op, shifted, LogOp::create(b, loc, s));
    return success();
  }
};

struct DecomposeLogSumExp : OpRewritePattern<LogSumExpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LogSumExpOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value m = stabilizer(b, loc, op.getInput(), op.getAxes());
    // An infinite max shifts by 0 instead: a row of -inf (a fully masked
    // row) then gives log(0) = -inf rather than -inf - -inf = NaN, and a row
    // holding +inf gives +inf.
    Type elementType = typeOf(m).getElementType();
    Value isInf =
        EqOp::create(b, loc, AbsOp::create(b, loc, m),
                     scalarConstant(b, loc, elementType,
                                    std::numeric_limits<double>::infinity()));
    m = WhereOp::create(b, loc, isInf, scalarConstant(b, loc, elementType, 0.0),
                        m);
    Value e = ExpOp::create(b, loc, SubOp::create(b, loc, op.getInput(), m));
    Value s = SumOp::create(b, loc, e, op.getAxesAttr(), /*keepdim=*/true);
    Value r = AddOp::create(b, loc, LogOp::create(b, loc, s), m);
    if (!op.getKeepdim())
      r = SqueezeOp::create(b, loc, r, op.getAxesAttr());
    b.replaceOp(op, r);
    return success();
  }
};

/// v * rsqrt(sum(v^2, last dim) / count + eps), then * weight and + bias
/// where given: layer_norm of the centered input, rms_norm of the input.
Value byInverseRms(PatternRewriter &b, Location loc, Value v, Value count,
                   APFloat eps, Value weight, Value bias) {
  auto axes = b.getDenseI64ArrayAttr({typeOf(v).getRank() - 1});
  Value sq = MulOp::create(b, loc, v, v);
  Value meanSq =
      DivOp::create(b, loc, SumOp::create(b, loc, sq, axes, true), count);
  Value e =
      scalarConstant(b, loc, typeOf(v).getElementType(), eps.convertToDouble());
  Value inv = RsqrtOp::create(b, loc, AddOp::create(b, loc, meanSq, e));
  Value y = MulOp::create(b, loc, v, inv);
  if (weight)
    y = MulOp::create(b, loc, y, weight);
  if (bias)
    y = AddOp::create(b, loc, y, bias);
  return y;
}

struct DecomposeLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    int64_t last = typeOf(x).getRank() - 1;
    auto axes = b.getDenseI64ArrayAttr({last});
    Value count = reducedCount(b, loc, x, {last});
    Value mean =
        DivOp::create(b, loc, SumOp::create(b, loc, x, axes, true), count);
    Value centered = SubOp::create(b, loc, x, mean);
    replaceKeepingType(b, op,
                       byInverseRms(b, loc, centered, count, op.getEps(),
                                    op.getWeight(), op.getBias()));
    return success();
  }
};

struct DecomposeRmsNorm : OpRewritePattern<RmsNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RmsNormOp op,
                                PatternRewriter &b) const override {
    Value x = op.getInput();
    Value count = reducedCount(b, op.getLoc(), x, {typeOf(x).getRank() - 1});
    replaceKeepingType(b, op,
                       byInverseRms(b, op.getLoc(), x, count, op.getEps(),
                                    op.getWeight(), Value()));
    return success();
  }
};

/// x * cos(p f) + rotate(x) * sin(p f) over [..., T, D], where p is the
/// row's position, f the frequency of each element's pair, and rotate
/// moves each pair (a, b) to (-b, a): an index_select of the last dim
/// whose signs ride on the sine.
struct DecomposeRope : OpRewritePattern<RopeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RopeOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    RankedTensorType type = typeOf(x);
    int64_t rank = type.getRank(), d = type.getDimSize(rank - 1);
    int64_t t = type.getDimSize(rank - 2);
    Type element = type.getElementType();
    // Angles in f32 (f64 for f64 input), as Hugging Face computes them.
    Type angleType = element.isF64() ? element : b.getF32Type();
    Value pos;
    if (!ShapedType::isDynamic(t)) {
      SmallVector<double> rows;
      for (int64_t i = 0; i < t; ++i)
        rows.push_back(static_cast<double>(i));
      pos = constantOf(b, loc, {t, 1}, angleType, rows);
    } else {
      Value n = tensor::DimOp::create(b, loc, x, rank - 2);
      Value ones = FullOp::create(
          b, loc, RankedTensorType::get({ShapedType::kDynamic, 1}, angleType),
          b.getF64FloatAttr(1.0), ValueRange{n});
      pos = SubOp::create(b, loc, CumsumOp::create(b, loc, ones, 0),
                          scalarConstant(b, loc, angleType, 1.0));
    }
    if (op.getOffset())
      pos = AddOp::create(b, loc, pos,
                          CastOp::create(b, loc, op.getOffset(), angleType));
    bool interleaved = op.getInterleaved();
    double theta = op.getTheta().convertToDouble();
    SmallVector<double> freq, sign, perm;
    for (int64_t j = 0; j < d; ++j) {
      int64_t k = interleaved ? j / 2 : j % (d / 2);
      freq.push_back(std::pow(theta, -2.0 * static_cast<double>(k) /
                                         static_cast<double>(d)));
      bool first = interleaved ? j % 2 == 0 : j < d / 2;
      sign.push_back(first ? -1.0 : 1.0);
      perm.push_back(static_cast<double>(
          interleaved ? (j ^ 1) : (first ? j + d / 2 : j - d / 2)));
    }
    Value angle =
        MulOp::create(b, loc, pos, constantOf(b, loc, {1, d}, angleType, freq));
    Value cos = CosOp::create(b, loc, angle);
    Value sin = MulOp::create(b, loc, SinOp::create(b, loc, angle),
                              constantOf(b, loc, {1, d}, angleType, sign));
    if (angleType != element) {
      cos = CastOp::create(b, loc, cos, element);
      sin = CastOp::create(b, loc, sin, element);
    }
    Value rotated = IndexSelectOp::create(
        b, loc, x, constantOf(b, loc, {d}, b.getI64Type(), perm), rank - 1);
    Value y = AddOp::create(b, loc, MulOp::create(b, loc, x, cos),
                            MulOp::create(b, loc, rotated, sin));
    replaceKeepingType(b, op, y);
    return success();
  }
};

struct DecomposeDropout : OpRewritePattern<DropoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DropoutOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    double p = op.getP().convertToDouble();
    if (p == 0.0) {
      b.replaceOp(op, x);
      return success();
    }
    Value u = RandOp::create(b, loc, typeOf(x), op.getSeedAttr(),
                             b.getF64FloatAttr(0.0), b.getF64FloatAttr(1.0),
                             op.getOffset(), dynamicDimsOf(b, loc, x));
    Type element = typeOf(x).getElementType();
    Value keep = GeOp::create(b, loc, u, scalarConstant(b, loc, element, p));
    Value scaled = MulOp::create(
        b, loc, x, scalarConstant(b, loc, element, 1.0 / (1 - p)));
    b.replaceOpWithNewOp<WhereOp>(op, keep, scaled,
                                  scalarConstant(b, loc, element, 0.0));
    return success();
  }
};

struct DecomposeCrossEntropy : OpRewritePattern<CrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CrossEntropyOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value logits = op.getLogits(), labels = op.getLabels();
    Type element = typeOf(logits).getElementType();
    Type indexType = typeOf(labels).getElementType();
    Value logp = LogSoftmaxOp::create(b, loc, logits, 1);
    // Ignored labels read class 0 and lose nothing. (An ignore_index that
    // i32 labels cannot hold matches none of them.)
    auto ignore = static_cast<int64_t>(op.getIgnoreIndex());
    unsigned width = indexType.getIntOrFloatBitWidth();
    bool fits = width >= 64 || llvm::isIntN(width, ignore);
    Value counted = NeOp::create(
        b, loc, labels,
        ConstantOp::create(
            b, loc,
            DenseElementsAttr::get(RankedTensorType::get({}, indexType),
                                   b.getIntegerAttr(indexType, ignore))));
    if (!fits)
      counted = fullLike(b, loc, counted, 1.0);
    Value safe = WhereOp::create(b, loc, counted, labels,
                                 scalarConstant(b, loc, indexType, 0.0));
    // [N, d...] -> [N, 1, d...] (a reshape that keeps one dynamic dim), the
    // class dim that gather reads along.
    RankedTensorType lt = typeOf(labels);
    SmallVector<int64_t> withClass(lt.getShape());
    withClass.insert(withClass.begin() + 1, 1);
    Value index =
        reshapeTo(b, loc, safe, RankedTensorType::get(withClass, indexType));
    Value picked = GatherOp::create(b, loc, logp, index, 1);
    Value loss = NegOp::create(
        b, loc,
        SumOp::create(b, loc, picked, b.getDenseI64ArrayAttr({1}), false));
    double e = op.getLabelSmoothing().convertToDouble();
    if (e > 0) {
      Value uniform = NegOp::create(
          b, loc,
          MeanOp::create(b, loc, logp, b.getDenseI64ArrayAttr({1}), false));
      loss = AddOp::create(
          b, loc,
          MulOp::create(b, loc, loss, scalarConstant(b, loc, element, 1 - e)),
          MulOp::create(b, loc, uniform, scalarConstant(b, loc, element, e)));
    }
    loss = WhereOp::create(b, loc, counted, loss,
                           scalarConstant(b, loc, element, 0.0));
    if (op.getReduction() == LossReduction::None) {
      replaceKeepingType(b, op, loss);
      return success();
    }
    SmallVector<int64_t> all;
    for (int64_t d = 0; d < lt.getRank(); ++d)
      all.push_back(d);
    auto axes = b.getDenseI64ArrayAttr(all);
    Value total = SumOp::create(b, loc, loss, axes, false);
    if (op.getReduction() == LossReduction::Mean)
      total = DivOp::create(
          b, loc, total,
          SumOp::create(b, loc, CastOp::create(b, loc, counted, element), axes,
                        false));
    replaceKeepingType(b, op, total);
    return success();
  }
};

struct DecomposeConv1d : OpRewritePattern<Conv1dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv1dOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto two = b.getDenseI64ArrayAttr({2});
    Value x = UnsqueezeOp::create(b, loc, op.getInput(), two);
    Value w = UnsqueezeOp::create(b, loc, op.getWeight(), two);
    auto pair = [&](ArrayRef<int64_t> v, int64_t first) {
      return b.getDenseI64ArrayAttr({first, v[0]});
    };
    Value y =
        Conv2dOp::create(b, loc, x, w, op.getBias(), pair(op.getStride(), 1),
                         pair(op.getPadding(), 0), pair(op.getDilation(), 1),
                         op.getGroupsAttr());
    b.replaceOpWithNewOp<SqueezeOp>(op, y, two);
    return success();
  }
};

/// A 1-D pooling op as the 2-D one over [N, C, 1, L] (window 1 x k), then
/// the height dim dropped.
template <typename Op> LogicalResult poolAs2d(Op op, PatternRewriter &b) {
  if (op.getKernel().size() != 1)
    return failure();
  Location loc = op.getLoc();
  auto two = b.getDenseI64ArrayAttr({2});
  auto pair = [&](ArrayRef<int64_t> v, int64_t first) {
    return b.getDenseI64ArrayAttr({first, v[0]});
  };
  Value x = UnsqueezeOp::create(b, loc, op.getInput(), two);
  Value y;
  if constexpr (std::is_same_v<Op, AvgPoolOp>)
    y = AvgPoolOp::create(b, loc, x, pair(op.getKernel(), 1),
                          pair(op.getStride(), 1), pair(op.getPadding(), 0),
                          op.getCountIncludePadAttr(), op.getCeilModeAttr());
  else
    y = Op::create(b, loc, x, pair(op.getKernel(), 1), pair(op.getStride(), 1),
                   pair(op.getPadding(), 0), pair(op.getDilation(), 1),
                   op.getCeilModeAttr());
  b.replaceOpWithNewOp<SqueezeOp>(op, y, two);
  return success();
}

/// The geometry of a 2-D pooling op over its static H and W: per dim the
/// window, step, padding, dilation, input and output sizes, and the high
/// padding past the input's that its ceil-mode windows reach.
struct PoolGeometry {
  int64_t k[2], s[2], p[2], d[2], in[2], out[2], extra[2];

  template <typename Op>
  static std::optional<PoolGeometry> of(Op op, ArrayRef<int64_t> dilation) {
    auto in = llvm::cast<RankedTensorType>(op.getInput().getType());
    auto out = llvm::cast<RankedTensorType>(op.getType());
    PoolGeometry g;
    for (int i = 0; i < 2; ++i) {
      if (in.isDynamicDim(2 + i))
        return std::nullopt;
      g.k[i] = op.getKernel()[i];
      g.s[i] = op.getStride()[i];
      g.p[i] = op.getPadding()[i];
      g.d[i] = dilation[i];
      g.in[i] = in.getDimSize(2 + i);
      g.out[i] = out.getDimSize(2 + i);
      int64_t reach = (g.out[i] - 1) * g.s[i] + g.d[i] * (g.k[i] - 1) + 1;
      g.extra[i] = std::max<int64_t>(0, reach - (g.in[i] + 2 * g.p[i]));
    }
    return g;
  }
  /// A plain window: what kiln.max_pool2d and kiln.avg_pool2d compute.
  bool plain() const {
    return d[0] == 1 && d[1] == 1 && extra[0] == 0 && extra[1] == 0;
  }
  /// The slice of the padded input that window offset (i, j) reads for
  /// every output.
  Value window(PatternRewriter &b, Location loc, Value padded, int64_t i,
               int64_t j) const {
    int64_t all = std::numeric_limits<int64_t>::max();
    return SliceOp::create(
        b, loc, padded, b.getDenseI64ArrayAttr({0, 0, i * d[0], j * d[1]}),
        b.getDenseI64ArrayAttr({all, all, i * d[0] + (out[0] - 1) * s[0] + 1,
                                j * d[1] + (out[1] - 1) * s[1] + 1}),
        b.getDenseI64ArrayAttr({1, 1, s[0], s[1]}));
  }
  /// The input padded with `value` by the padding and the ceil-mode extra.
  Value pad(PatternRewriter &b, Location loc, Value x, double value) const {
    if (p[0] == 0 && p[1] == 0 && extra[0] == 0 && extra[1] == 0)
      return x;
    return PadOp::create(
        b, loc, x, b.getDenseI64ArrayAttr({0, 0, p[0], p[1]}),
        b.getDenseI64ArrayAttr({0, 0, p[0] + extra[0], p[1] + extra[1]}),
        b.getF64FloatAttr(value));
  }
};

/// The elementwise maximum of the windows of `x`.
Value maxOfWindows(PatternRewriter &b, Location loc, const PoolGeometry &g,
                   Value x) {
  Value padded = g.pad(b, loc, x, -std::numeric_limits<double>::infinity());
  Value y;
  for (int64_t i = 0; i < g.k[0]; ++i)
    for (int64_t j = 0; j < g.k[1]; ++j) {
      Value w = g.window(b, loc, padded, i, j);
      y = y ? MaxOp::create(b, loc, y, w).getResult() : w;
    }
  return y;
}

struct DecomposeMaxPool : OpRewritePattern<MaxPoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPoolOp op,
                                PatternRewriter &b) const override {
    if (succeeded(poolAs2d(op, b)))
      return success();
    std::optional<PoolGeometry> g = PoolGeometry::of(op, op.getDilation());
    if (!g)
      return b.notifyMatchFailure(op, "dynamic spatial dims");
    if (g->plain()) {
      b.replaceOpWithNewOp<MaxPool2dOp>(op, op.getInput(), op.getKernelAttr(),
                                        op.getStrideAttr(),
                                        op.getPaddingAttr());
      return success();
    }
    replaceKeepingType(b, op, maxOfWindows(b, op.getLoc(), *g, op.getInput()));
    return success();
  }
};

struct DecomposeMaxPoolIndices : OpRewritePattern<MaxPoolIndicesOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPoolIndicesOp op,
                                PatternRewriter &b) const override {
    if (succeeded(poolAs2d(op, b)))
      return success();
    std::optional<PoolGeometry> g = PoolGeometry::of(op, op.getDilation());
    if (!g)
      return b.notifyMatchFailure(op, "dynamic spatial dims");
    // Scans the window offsets in order, taking a value greater than the
    // best so far (or NaN): the first maximum wins, as in PyTorch.
    Location loc = op.getLoc();
    Value padded =
        g->pad(b, loc, op.getInput(), -std::numeric_limits<double>::infinity());
    auto indexMap = [&](int64_t i, int64_t j) {
      std::vector<double> at;
      for (int64_t oh = 0; oh < g->out[0]; ++oh)
        for (int64_t ow = 0; ow < g->out[1]; ++ow) {
          int64_t r = std::clamp<int64_t>(oh * g->s[0] - g->p[0] + i * g->d[0],
                                          0, g->in[0] - 1);
          int64_t c = std::clamp<int64_t>(ow * g->s[1] - g->p[1] + j * g->d[1],
                                          0, g->in[1] - 1);
          at.push_back(double(r * g->in[1] + c));
        }
      return constantOf(b, loc, {g->out[0], g->out[1]}, b.getI64Type(), at);
    };
    Value best = g->window(b, loc, padded, 0, 0);
    Value where = AddOp::create(
        b, loc,
        CastOp::create(b, loc, fullLike(b, loc, best, 0.0), b.getI64Type()),
        indexMap(0, 0));
    for (int64_t i = 0; i < g->k[0]; ++i)
      for (int64_t j = 0; j < g->k[1]; ++j) {
        if (i == 0 && j == 0)
          continue;
        Value v = g->window(b, loc, padded, i, j);
        Value take = OrOp::create(b, loc, GtOp::create(b, loc, v, best),
                                  NeOp::create(b, loc, v, v));
        best = WhereOp::create(b, loc, take, v, best);
        where = WhereOp::create(b, loc, take, indexMap(i, j), where);
      }
    replaceKeepingType(b, op, where);
    return success();
  }
};

struct DecomposeAvgPool : OpRewritePattern<AvgPoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AvgPoolOp op,
                                PatternRewriter &b) const override {
    if (succeeded(poolAs2d(op, b)))
      return success();
    int64_t ones[] = {1, 1};
    std::optional<PoolGeometry> g = PoolGeometry::of(op, ones);
    if (!g)
      return b.notifyMatchFailure(op, "dynamic spatial dims");
    if (g->plain()) {
      b.replaceOpWithNewOp<AvgPool2dOp>(op, op.getInput(), op.getKernelAttr(),
                                        op.getStrideAttr(), op.getPaddingAttr(),
                                        op.getCountIncludePadAttr());
      return success();
    }
    Location loc = op.getLoc();
    Value padded = g->pad(b, loc, op.getInput(), 0.0);
    Value sum;
    for (int64_t i = 0; i < g->k[0]; ++i)
      for (int64_t j = 0; j < g->k[1]; ++j) {
        Value w = g->window(b, loc, padded, i, j);
        sum = sum ? AddOp::create(b, loc, sum, w).getResult() : w;
      }
    // PyTorch's divisor: the window clipped to the padded input (its
    // ceil-mode part past the padding never counts), or to the input alone
    // without count_include_pad.
    std::vector<double> scale;
    for (int64_t oh = 0; oh < g->out[0]; ++oh)
      for (int64_t ow = 0; ow < g->out[1]; ++ow) {
        int64_t count = 1;
        for (int dim = 0; dim < 2; ++dim) {
          int64_t o = dim == 0 ? oh : ow;
          int64_t lo = o * g->s[dim] - g->p[dim];
          int64_t hi = std::min(lo + g->k[dim], g->in[dim] + g->p[dim]);
          if (!op.getCountIncludePad()) {
            lo = std::max<int64_t>(lo, 0);
            hi = std::min(hi, g->in[dim]);
          }
          count *= std::max<int64_t>(hi - lo, 1);
        }
        scale.push_back(1.0 / double(count));
      }
    Type element = typeOf(sum).getElementType();
    Value y = MulOp::create(
        b, loc, sum,
        constantOf(b, loc, {g->out[0], g->out[1]}, element, scale));
    replaceKeepingType(b, op, y);
    return success();
  }
};

/// Where output position `o` of a resized dim reads: the input coordinate
/// (kiln.interpolate's description).
double sourceCoordinate(int64_t o, int64_t in, int64_t out, bool linear,
                        bool alignCorners, std::optional<double> factor) {
  if (alignCorners)
    return out > 1 ? double(o) * double(in - 1) / double(out - 1) : 0.0;
  double scale = factor ? 1.0 / *factor : double(in) / double(out);
  if (!linear)
    return double(o) * scale;
  return std::max(0.0, (double(o) + 0.5) * scale - 0.5);
}

struct DecomposeInterpolate : OpRewritePattern<InterpolateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(InterpolateOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value y = op.getInput();
    auto type = typeOf(y);
    int64_t rank = type.getRank();
    bool linear = op.getMode() == InterpolateMode::Linear;
    for (int64_t axis = 2; axis < rank; ++axis) {
      int64_t in = typeOf(y).getDimSize(axis), out = op.getSize()[axis - 2];
      std::optional<double> factor;
      if (auto s = op.getScales())
        factor = (*s)[axis - 2];
      if (in == out && !factor)
        continue;
      if (!linear) {
        std::vector<double> picks;
        for (int64_t o = 0; o < out; ++o)
          picks.push_back(
              double(std::min<int64_t>(int64_t(std::floor(sourceCoordinate(
                                           o, in, out, false, false, factor))),
                                       in - 1)));
        y = IndexSelectOp::create(
            b, loc, y, constantOf(b, loc, {out}, b.getI64Type(), picks), axis);
        continue;
      }
      // Row o of the [out, in] matrix weighs the two inputs around the
      // source coordinate.
      std::vector<double> m(out * in, 0.0);
      for (int64_t o = 0; o < out; ++o) {
        double src =
            sourceCoordinate(o, in, out, true, op.getAlignCorners(), factor);
        int64_t i0 = std::min<int64_t>(int64_t(std::floor(src)), in - 1);
        int64_t i1 = std::min<int64_t>(i0 + 1, in - 1);
        double t = src - double(i0);
        m[o * in + i0] += 1.0 - t;
        m[o * in + i1] += t;
      }
      Type element = type.getElementType();
      if (axis == rank - 1) {
        // [..., in] x [in, out]: the transposed matrix on the right.
        std::vector<double> mt(in * out);
        for (int64_t o = 0; o < out; ++o)
          for (int64_t i = 0; i < in; ++i)
            mt[i * out + o] = m[o * in + i];
        y = MatmulOp::create(b, loc, y,
                             constantOf(b, loc, {in, out}, element, mt));
      } else {
        // [out, in] x [..., in, W]: the rows of each plane.
        y = MatmulOp::create(b, loc, constantOf(b, loc, {out, in}, element, m),
                             y);
      }
    }
    replaceKeepingType(b, op, y);
    return success();
  }
};

/// A [C] vector of an [N, C, ...] input as [1, C, 1, ...], to broadcast.
Value channelView(PatternRewriter &b, Location loc, Value v, int64_t rank) {
  SmallVector<int64_t> axes{0};
  for (int64_t i = 2; i < rank; ++i)
    axes.push_back(i);
  return UnsqueezeOp::create(b, loc, v, b.getDenseI64ArrayAttr(axes));
}

struct DecomposeConvTranspose2d : OpRewritePattern<ConvTranspose2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvTranspose2dOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    // The bias-free result type, with the result's (static or dynamic)
    // dims; a dynamic N comes from the input.
    Value y = Conv2dBackwardInputOp::create(
        b, loc, type, op.getInput(), op.getWeight(), op.getStrideAttr(),
        op.getPaddingAttr(), op.getDilationAttr(), op.getGroupsAttr());
    if (op.getBias())
      y = AddOp::create(b, loc, y, channelView(b, loc, op.getBias(), 4));
    replaceKeepingType(b, op, y);
    return success();
  }
};

struct DecomposeConvTranspose1d : OpRewritePattern<ConvTranspose1dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvTranspose1dOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto two = b.getDenseI64ArrayAttr({2});
    Value x = UnsqueezeOp::create(b, loc, op.getInput(), two);
    Value w = UnsqueezeOp::create(b, loc, op.getWeight(), two);
    auto pair = [&](ArrayRef<int64_t> v, int64_t first) {
      return b.getDenseI64ArrayAttr({first, v[0]});
    };
    Value y = ConvTranspose2dOp::create(
        b, loc, x, w, op.getBias(), pair(op.getStride(), 1),
        pair(op.getPadding(), 0), pair(op.getOutputPadding(), 0),
        pair(op.getDilation(), 1), op.getGroupsAttr());
    b.replaceOpWithNewOp<SqueezeOp>(op, y, two);
    return success();
  }
};

struct DecomposeMaskFill : OpRewritePattern<MaskFillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaskFillOp op,
                                PatternRewriter &b) const override {
    Value fill =
        scalarConstant(b, op.getLoc(), typeOf(op.getInput()).getElementType(),
                       op.getValue().convertToDouble());
    replaceKeepingType(
        b, op,
        WhereOp::create(b, op.getLoc(), op.getMask(), fill, op.getInput()));
    return success();
  }
};

struct DecomposeEmbedding : OpRewritePattern<EmbeddingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    // 1-D indices select the result rows directly.
    if (typeOf(op.getIndices()).getRank() == 1) {
      b.replaceOpWithNewOp<IndexSelectOp>(op, op.getWeight(), op.getIndices(),
                                          0);
      return success();
    }
    // A reshape back to the result shape can name one dynamic dim only.
    if (op.getResult().getType().getNumDynamicDims() > 1)
      return b.notifyMatchFailure(op, "more than one dynamic result dim");
    Value flat = ReshapeOp::create(b, loc, op.getIndices(),
                                   b.getDenseI64ArrayAttr({-1}));
    Value rows = IndexSelectOp::create(b, loc, op.getWeight(), flat, 0);
    b.replaceOp(op, reshapeTo(b, loc, rows, op.getResult().getType()));
    return success();
  }
};

struct DecomposeBatchNorm : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    int64_t rank = typeOf(x).getRank();
    // The per-channel work is on [C]; each element then takes one
    // subtract, multiply and add, which fuse with x's producer and
    // consumers. (x - mean) * scale, not x * scale - mean * scale: the
    // latter cancels when the mean is large against the spread.
    Value eps = scalarConstant(b, loc, typeOf(x).getElementType(),
                               op.getEps().convertToDouble());
    Value scale =
        RsqrtOp::create(b, loc, AddOp::create(b, loc, op.getVar(), eps));
    if (op.getWeight())
      scale = MulOp::create(b, loc, scale, op.getWeight());
    Value y = SubOp::create(b, loc, x, channelView(b, loc, op.getMean(), rank));
    y = MulOp::create(b, loc, y, channelView(b, loc, scale, rank));
    if (op.getBias())
      y = AddOp::create(b, loc, y, channelView(b, loc, op.getBias(), rank));
    replaceKeepingType(b, op, y);
    return success();
  }
};

struct DecomposeGroupNorm : OpRewritePattern<GroupNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GroupNormOp op,
                                PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    auto type = typeOf(x);
    int64_t groups = op.getGroups();
    // Each sample's group is a row of [N, G, C / G * spatial], which
    // layer_norm (without weight and bias) normalizes.
    int64_t row = type.getDimSize(1) / groups;
    for (int64_t i = 2; i < type.getRank(); ++i)
      row *= type.getDimSize(i);
    int64_t n = type.isDynamicDim(0) ? -1 : type.getDimSize(0);
    Value rows =
        ReshapeOp::create(b, loc, x, b.getDenseI64ArrayAttr({n, groups, row}));
    Value normed =
        LayerNormOp::create(b, loc, rows, Value(), Value(), op.getEpsAttr());
    Value y = reshapeTo(b, loc, normed, type);
    if (op.getWeight())
      y = MulOp::create(b, loc, y,
                        channelView(b, loc, op.getWeight(), type.getRank()));
    if (op.getBias())
      y = AddOp::create(b, loc, y,
                        channelView(b, loc, op.getBias(), type.getRank()));
    replaceKeepingType(b, op, y);
    return success();
  }
};

/// The window of output cell `i` along a dim of input size `in` and output
/// size `out`: [floor(i * in / out), ceil((i + 1) * in / out)).
std::pair<int64_t, int64_t> adaptiveWindow(int64_t i, int64_t in, int64_t out) {
  return {i * in / out, ((i + 1) * in + out - 1) / out};
}

/// The adaptive pooling of `op` when it is a plain one: the whole plane
/// (a reduction over H and W), or windows of one size and step when each
/// output size divides its input size. Null otherwise.
template <typename Reduce, typename Pool, typename Op>
Value uniformAdaptivePool(PatternRewriter &b, Op op) {
  Location loc = op.getLoc();
  Value x = op.getInput();
  auto type = typeOf(x);
  int64_t h = type.getDimSize(2), w = type.getDimSize(3);
  ArrayRef<int64_t> size = op.getSize();
  if (size[0] == 1 && size[1] == 1)
    return Reduce::create(b, loc, x, b.getDenseI64ArrayAttr({2, 3}),
                          /*keepdim=*/true);
  if (h % size[0] != 0 || w % size[1] != 0)
    return {};
  auto window = b.getDenseI64ArrayAttr({h / size[0], w / size[1]});
  auto zero = b.getDenseI64ArrayAttr({0, 0});
  if constexpr (std::is_same_v<Pool, AvgPool2dOp>)
    return Pool::create(b, loc, x, window, window, zero, b.getUnitAttr());
  else
    return Pool::create(b, loc, x, window, window, zero);
}

struct DecomposeAdaptiveAvgPool2d : OpRewritePattern<AdaptiveAvgPool2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AdaptiveAvgPool2dOp op,
                                PatternRewriter &b) const override {
    if (Value y = uniformAdaptivePool<MeanOp, AvgPool2dOp>(b, op)) {
      replaceKeepingType(b, op, y);
      return success();
    }
    // Averaging windows is separable: y = Ph x Pw, where row i of
    // Ph [OH, H] holds 1 / length over window i (Pw [W, OW] likewise by
    // column). Two small matmuls, exact for overlapping windows too.
    Location loc = op.getLoc();
    Value x = op.getInput();
    auto type = typeOf(x);
    Type element = type.getElementType();
    auto averaging = [&](int64_t in, int64_t out, bool transposed) {
      std::vector<double> m(in * out, 0.0);
      for (int64_t i = 0; i < out; ++i) {
        auto [lo, hi] = adaptiveWindow(i, in, out);
        for (int64_t k = lo; k < hi; ++k)
          m[transposed ? k * out + i : i * in + k] = 1.0 / double(hi - lo);
      }
      SmallVector<int64_t> shape = transposed ? SmallVector<int64_t>{in, out}
                                              : SmallVector<int64_t>{out, in};
      return constantOf(b, loc, shape, element, m);
    };
    ArrayRef<int64_t> size = op.getSize();
    Value rows = MatmulOp::create(
        b, loc, x, averaging(type.getDimSize(3), size[1], /*transposed=*/true));
    Value y = MatmulOp::create(
        b, loc, averaging(type.getDimSize(2), size[0], /*transposed=*/false),
        rows);
    replaceKeepingType(b, op, y);
    return success();
  }
};

struct DecomposeAdaptiveMaxPool2d : OpRewritePattern<AdaptiveMaxPool2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AdaptiveMaxPool2dOp op,
                                PatternRewriter &b) const override {
    if (Value y = uniformAdaptivePool<ReduceMaxOp, MaxPool2dOp>(b, op)) {
      replaceKeepingType(b, op, y);
      return success();
    }
    // One spatial dim at a time: pick each window's rows (padded to the
    // longest window by repeating its last row, which changes no maximum
    // and, as the gradient of a max splits between ties and index_select's
    // adds them back, no gradient), then take the max over them.
    Location loc = op.getLoc();
    Value y = op.getInput();
    ArrayRef<int64_t> size = op.getSize();
    for (int64_t axis : {2, 3}) {
      auto type = typeOf(y);
      int64_t in = type.getDimSize(axis), out = size[axis - 2];
      int64_t longest = 0;
      for (int64_t i = 0; i < out; ++i) {
        auto [lo, hi] = adaptiveWindow(i, in, out);
        longest = std::max(longest, hi - lo);
      }
      std::vector<double> picks;
      for (int64_t i = 0; i < out; ++i) {
        auto [lo, hi] = adaptiveWindow(i, in, out);
        for (int64_t k = 0; k < longest; ++k)
          picks.push_back((double)std::min(lo + k, hi - 1));
      }
      Value indices =
          constantOf(b, loc, {out * longest}, b.getI64Type(), picks);
      Value picked = IndexSelectOp::create(b, loc, y, indices, axis);
      SmallVector<int64_t> shape(type.getShape());
      shape[axis] = out;
      shape.insert(shape.begin() + axis + 1, longest);
      Value windows = reshapeTo(
          b, loc, picked, RankedTensorType::get(shape, type.getElementType()));
      y = ReduceMaxOp::create(b, loc, windows,
                              b.getDenseI64ArrayAttr({axis + 1}),
                              /*keepdim=*/false);
    }
    replaceKeepingType(b, op, y);
    return success();
  }
};

} // namespace

void mlir::kiln::populateDecomposePatterns(RewritePatternSet &patterns,
                                           ArrayRef<std::string> keep) {
  RewritePatternSet all(patterns.getContext());
  all.add<DecomposeSilu, DecomposeMean, DecomposeSoftmax, DecomposeLogSoftmax,
          DecomposeLogSumExp, DecomposeLayerNorm, DecomposeDropout,
          DecomposeCrossEntropy, DecomposeConv1d, DecomposeMaskFill,
          DecomposeEmbedding, DecomposeBatchNorm, DecomposeGroupNorm,
          DecomposeAdaptiveAvgPool2d, DecomposeAdaptiveMaxPool2d,
          DecomposeConvTranspose2d, DecomposeConvTranspose1d, DecomposeMaxPool,
          DecomposeMaxPoolIndices, DecomposeAvgPool, DecomposeInterpolate,
          DecomposeLogSigmoid, DecomposeHardswish, DecomposeMish,
          DecomposeLeakyRelu, DecomposeElu, DecomposeSoftplus, DecomposeRmsNorm,
          DecomposeRope>(patterns.getContext());
  for (std::unique_ptr<RewritePattern> &p : all.getNativePatterns())
    if (!llvm::is_contained(keep, p->getRootKind()->getStringRef()))
      patterns.add(std::move(p));
}
