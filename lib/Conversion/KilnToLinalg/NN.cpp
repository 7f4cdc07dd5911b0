//===- NN.cpp - Convolution and pooling to linalg -------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Forward convolutions use linalg's named ops on a tensor.pad'ed input
// (grouped convolution through the ngchw/gfchw form); pooling is a generic
// whose innermost loop runs along an output row, so that it vectorizes.
// The backward ops are generics over the tensor they produce, reducing over
// the kernel window: each element gathers the contributions that reach it,
// so no two iterations write one element and no scf loop is needed.
// f16/bf16 accumulate in f32.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "kiln/Conversion/ElementwiseEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::tolinalg;

namespace {

using P = arith::CmpIPredicate;

/// Small index arithmetic inside bodies and size computations.
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return indexConstant(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivSIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemSIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value cmp(P p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
};

/// Pads dims 2 and 3 of an NCHW tensor by `pad` on both sides with `value`.
Value padSpatial(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> pad,
                 Value value) {
  if (pad[0] == 0 && pad[1] == 0)
    return x;
  SmallVector<OpFoldResult> lo = {b.getIndexAttr(0), b.getIndexAttr(0),
                                  b.getIndexAttr(pad[0]),
                                  b.getIndexAttr(pad[1])};
  auto type = llvm::cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (int i = 0; i < 2; ++i)
    if (!ShapedType::isDynamic(shape[2 + i]))
      shape[2 + i] += 2 * pad[i];
  return tensor::PadOp::create(b, loc, type.clone(shape), x, lo, lo, value);
}

/// Size `d` of `type` when static, else `compute()`.
template <typename Fn>
OpFoldResult sizeOr(OpBuilder &b, RankedTensorType type, int64_t d,
                    Fn compute) {
  if (!type.isDynamicDim(d))
    return b.getIndexAttr(type.getDimSize(d));
  return compute();
}

/// Output size of a window sweep: (in + 2p - (d (k - 1) + 1)) / s + 1, and
/// 0 when the window does not fit.
Value windowOutSize(IndexMath &m, Value in, Value k, int64_t s, int64_t p,
                    int64_t d) {
  Value padded = m.add(in, m.c(2 * p));
  Value span = m.add(m.mul(m.c(d), m.sub(k, m.c(1))), m.c(1));
  Value out = m.add(m.div(m.sub(padded, span), m.c(s)), m.c(1));
  return arith::SelectOp::create(m.b, m.loc, m.cmp(P::slt, padded, span),
                                 m.c(0), out);
}

/// result = cast(acc [+ bias[o]]) over an NCHW accumulator.
Value finishNCHW(OpBuilder &b, Location loc, Value acc, Value bias,
                 Type accKiln, Type kiln) {
  auto type = llvm::cast<RankedTensorType>(acc.getType());
  Type storage = storageTypeOf(kiln);
  if (!bias && type.getElementType() == storage)
    return acc;
  Value init = emptyTensor(b, loc, sizesOf(b, loc, acc), storage);
  SmallVector<Value> ins = {acc};
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(4)};
  if (bias) {
    ins.push_back(bias);
    maps.push_back(AffineMap::get(4, 0, b.getAffineDimExpr(1)));
  }
  maps.push_back(b.getMultiDimIdentityMap(4));
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ins, ValueRange{init}, maps,
             iteratorTypes(4),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value v = args[0];
               if (bias)
                 v = addScalars(nb, l, v,
                                emitCast(nb, l, args[1], kiln, accKiln));
               linalg::YieldOp::create(nb, l,
                                       emitCast(nb, l, v, accKiln, kiln));
             })
      .getResult(0);
}

struct ConvertConv2d : OpConversionPattern<Conv2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Conv2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    IndexMath m{rewriter, loc};
    Value x = adaptor.getInput(), w = adaptor.getWeight();
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    Type kiln = op.getType().getElementType();
    Type storage = resultType.getElementType();
    Type acc = accumulatorType(storage);
    Type accKiln = acc == storage ? kiln : acc;
    ArrayRef<int64_t> stride = op.getStride(), pad = op.getPadding(),
                      dil = op.getDilation();
    int64_t groups = op.getGroups();

    SmallVector<OpFoldResult> sizes = {sizeOf(rewriter, loc, x, 0),
                                       sizeOf(rewriter, loc, w, 0)};
    for (int i = 0; i < 2; ++i)
      sizes.push_back(
          sizeOr(rewriter, resultType, 2 + i, [&]() -> OpFoldResult {
            return windowOutSize(m, dimValue(rewriter, loc, x, 2 + i),
                                 dimValue(rewriter, loc, w, 2 + i), stride[i],
                                 pad[i], dil[i]);
          }));
    Value xp = padSpatial(rewriter, loc, x, pad,
                          constantOf(rewriter, loc, storage, 0));
    Value zero = constantOf(rewriter, loc, acc, 0);
    auto strides = rewriter.getI64TensorAttr(stride);
    auto dilations = rewriter.getI64TensorAttr(dil);

    Value conv;
    if (groups == 1) {
      Value init = filledTensor(rewriter, loc, sizes, zero);
      conv = linalg::Conv2DNchwFchwOp::create(
                 rewriter, loc, TypeRange{init.getType()}, ValueRange{xp, w},
                 ValueRange{init}, strides, dilations)
                 .getResult(0);
    } else {
      // [N, C, H, W] -> [N, G, C/G, H, W]; [O, C/G, KH, KW] -> [G, O/G, ...].
      auto split = [&](Value v, int64_t dim) {
        auto t = llvm::cast<RankedTensorType>(v.getType());
        SmallVector<OpFoldResult> s = sizesOf(rewriter, loc, v);
        SmallVector<int64_t> shape(t.getShape());
        int64_t n = shape[dim];
        OpFoldResult per =
            ShapedType::isDynamic(n)
                ? OpFoldResult(
                      m.div(dimValue(rewriter, loc, v, dim), m.c(groups)))
                : OpFoldResult(rewriter.getIndexAttr(n / groups));
        shape[dim] = ShapedType::isDynamic(n) ? n : n / groups;
        shape.insert(shape.begin() + dim, groups);
        s[dim] = per;
        s.insert(s.begin() + dim, rewriter.getIndexAttr(groups));
        SmallVector<ReassociationIndices> groupsOf;
        for (int64_t d = 0; d < t.getRank(); ++d) {
          if (d < dim)
            groupsOf.push_back({d});
          else if (d == dim)
            groupsOf.push_back({d, d + 1});
          else
            groupsOf.push_back({d + 1});
        }
        return tensor::ExpandShapeOp::create(rewriter, loc, t.clone(shape), v,
                                             groupsOf, s)
            .getResult();
      };
      Value xg = split(xp, 1), wg = split(w, 0);
      SmallVector<OpFoldResult> gsizes = {
          sizes[0], rewriter.getIndexAttr(groups), sizeOf(rewriter, loc, wg, 1),
          sizes[2], sizes[3]};
      Value init = filledTensor(rewriter, loc, gsizes, zero);
      Value grouped =
          linalg::Conv2DNgchwGfchwOp::create(
              rewriter, loc, TypeRange{init.getType()}, ValueRange{xg, wg},
              ValueRange{init}, strides, dilations)
              .getResult(0);
      auto gt = llvm::cast<RankedTensorType>(grouped.getType());
      SmallVector<int64_t> shape(gt.getShape());
      int64_t o = ShapedType::isDynamic(shape[2]) ? ShapedType::kDynamic
                                                  : shape[2] * groups;
      conv = tensor::CollapseShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({shape[0], o, shape[3], shape[4]}, acc),
          grouped, ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
    }
    Value result =
        finishNCHW(rewriter, loc, conv, adaptor.getBias(), accKiln, kiln);
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Sizes [N, C, OH, OW] of a pooling of `x`.
SmallVector<OpFoldResult> poolSizes(OpBuilder &b, Location loc, Value x,
                                    RankedTensorType resultType,
                                    ArrayRef<int64_t> kernel,
                                    ArrayRef<int64_t> stride,
                                    ArrayRef<int64_t> pad) {
  IndexMath m{b, loc};
  SmallVector<OpFoldResult> in = sizesOf(b, loc, x);
  SmallVector<OpFoldResult> sizes = {in[0], in[1]};
  for (int i = 0; i < 2; ++i)
    sizes.push_back(sizeOr(b, resultType, 2 + i, [&]() -> OpFoldResult {
      return windowOutSize(m, dimValue(b, loc, x, 2 + i), m.c(kernel[i]),
                           stride[i], pad[i], 1);
    }));
  return sizes;
}

/// A window sweep over the padded NCHW input `xp` into `init` ([N, C, OH,
/// OW]) as a generic whose loops run (n, c, oh, kh, kw, ow): the innermost
/// loop walks a row of the output, and of the input at the stride, which
/// LLVM vectorizes (linalg's named pooling ops walk the window innermost,
/// a few scalar steps per output element). `combine(acc, x)` folds input
/// element x into the accumulator.
template <typename CombineFn>
Value sweepWindowsByRow(OpBuilder &b, Location loc, Value xp, Value init,
                        ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                        CombineFn combine) {
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  Type e = llvm::cast<RankedTensorType>(xp.getType()).getElementType();
  Value window = emptyTensor(b, loc, getAsIndexOpFoldResult(ctx, kernel), e);
  AffineMap in = AffineMap::get(
      6, 0, {d(0), d(1), d(2) * stride[0] + d(3), d(5) * stride[1] + d(4)},
      ctx);
  AffineMap win = AffineMap::get(6, 0, {d(3), d(4)}, ctx);
  AffineMap out = AffineMap::get(6, 0, {d(0), d(1), d(2), d(5)}, ctx);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{xp, window},
             ValueRange{init}, ArrayRef<AffineMap>{in, win, out},
             iteratorTypes(6, {3, 4}),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, combine(nb, l, args[2], args[0]));
             })
      .getResult(0);
}

struct ConvertMaxPool2d : OpConversionPattern<MaxPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPool2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    Type e = resultType.getElementType();
    Value lowest = constantOf(rewriter, loc, e, -INFINITY);
    SmallVector<OpFoldResult> sizes =
        poolSizes(rewriter, loc, x, resultType, op.getKernel(), op.getStride(),
                  op.getPadding());
    Value xp = padSpatial(rewriter, loc, x, op.getPadding(), lowest);
    Value init = filledTensor(rewriter, loc, sizes, lowest);
    Value result = sweepWindowsByRow(
        rewriter, loc, xp, init, op.getKernel(), op.getStride(),
        [](OpBuilder &b, Location l, Value acc, Value v) -> Value {
          return arith::MaximumFOp::create(b, l, acc, v);
        });
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Each element of the columns reads the zero-padded input at its window's
/// place: row (c, i, j), column (oh, ow) of image n; with the images along
/// the columns, column n * OH * OW + oh * OW + ow.
struct ConvertUnfold : OpConversionPattern<UnfoldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(UnfoldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    Type e = resultType.getElementType();
    ArrayRef<int64_t> kernel = op.getKernel(), stride = op.getStride(),
                      dilation = op.getDilation();
    bool imagesInColumns = op.getImagesInColumns();
    Value input = adaptor.getInput();
    Value xp = padSpatial(rewriter, loc, input, op.getPadding(),
                          constantOf(rewriter, loc, e, 0.0));
    IndexMath m{rewriter, loc};
    Value ow =
        windowOutSize(m, dimValue(rewriter, loc, input, 3), m.c(kernel[1]),
                      stride[1], op.getPadding()[1], dilation[1]);
    Value pixels = m.mul(windowOutSize(m, dimValue(rewriter, loc, input, 2),
                                       m.c(kernel[0]), stride[0],
                                       op.getPadding()[0], dilation[0]),
                         ow);
    Value rows =
        m.mul(dimValue(rewriter, loc, input, 1), m.c(kernel[0] * kernel[1]));
    SmallVector<Value> dims =
        imagesInColumns
            ? SmallVector<Value>{rows, m.mul(dimValue(rewriter, loc, input, 0),
                                             pixels)}
            : SmallVector<Value>{dimValue(rewriter, loc, input, 0), rows,
                                 pixels};
    int64_t rank = dims.size();
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(sizeOr(rewriter, resultType, d,
                             [&]() -> OpFoldResult { return dims[d]; }));
    Value init = emptyTensor(rewriter, loc, sizes, e);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()}, ValueRange{},
            ValueRange{init},
            ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
            iteratorTypes(rank),
            [&](OpBuilder &b, Location l, ValueRange) {
              IndexMath k{b, l};
              Value n, r, col;
              if (imagesInColumns) {
                r = linalg::IndexOp::create(b, l, 0);
                Value flat = linalg::IndexOp::create(b, l, 1);
                n = k.div(flat, pixels);
                col = k.rem(flat, pixels);
              } else {
                n = linalg::IndexOp::create(b, l, 0);
                r = linalg::IndexOp::create(b, l, 1);
                col = linalg::IndexOp::create(b, l, 2);
              }
              Value j = k.rem(r, k.c(kernel[1]));
              Value i = k.rem(k.div(r, k.c(kernel[1])), k.c(kernel[0]));
              Value c = k.div(r, k.c(kernel[0] * kernel[1]));
              Value y = k.add(k.mul(k.div(col, ow), k.c(stride[0])),
                              k.mul(i, k.c(dilation[0])));
              Value x = k.add(k.mul(k.rem(col, ow), k.c(stride[1])),
                              k.mul(j, k.c(dilation[1])));
              linalg::YieldOp::create(
                  b, l,
                  tensor::ExtractOp::create(b, l, xp, ValueRange{n, c, y, x})
                      .getResult());
            })
            .getResult(0);
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// How many input elements the window at (oh, ow) covers: the whole
/// kernel with count_include_pad, else only the in-bounds part.
Value windowCount(IndexMath &m, Value oh, Value ow, Value h, Value w,
                  ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                  ArrayRef<int64_t> pad, bool includePad) {
  if (includePad)
    return m.c(kernel[0] * kernel[1]);
  auto extent = [&](Value o, Value n, int i) {
    Value start = m.sub(m.mul(o, m.c(stride[i])), m.c(pad[i]));
    Value end = m.min(m.add(start, m.c(kernel[i])), n);
    return m.sub(end, m.max(start, m.c(0)));
  };
  return m.mul(extent(oh, h, 0), extent(ow, w, 1));
}

/// An index count as a float of type `t`.
Value countAsFloat(OpBuilder &b, Location loc, Value count, Type t) {
  Value i = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  return arith::SIToFPOp::create(b, loc, t, i);
}

struct ConvertAvgPool2d : OpConversionPattern<AvgPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AvgPool2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    Type kiln = op.getType().getElementType();
    Type storage = resultType.getElementType();
    // Flex sums windows in f64 and divides there.
    Type acc = rewriter.getF64Type();
    ArrayRef<int64_t> kernel = op.getKernel(), stride = op.getStride(),
                      pad = op.getPadding();
    bool includePad = op.getCountIncludePad();
    SmallVector<OpFoldResult> sizes =
        poolSizes(rewriter, loc, x, resultType, kernel, stride, pad);
    Value xp = padSpatial(rewriter, loc, x, pad,
                          constantOf(rewriter, loc, storage, 0));
    Value init =
        filledTensor(rewriter, loc, sizes, constantOf(rewriter, loc, acc, 0));
    Value sum = sweepWindowsByRow(
        rewriter, loc, xp, init, kernel, stride,
        [&](OpBuilder &b, Location l, Value sum, Value v) -> Value {
          return arith::AddFOp::create(b, l, sum,
                                       emitCast(b, l, v, kiln, b.getF64Type()));
        });
    Value h = dimValue(rewriter, loc, x, 2), w = dimValue(rewriter, loc, x, 3);
    Value out = emptyTensor(rewriter, loc, sizes, storage);
    AffineMap id = rewriter.getMultiDimIdentityMap(4);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{out.getType()}, ValueRange{sum},
            ValueRange{out}, ArrayRef<AffineMap>{id, id}, iteratorTypes(4),
            [&](OpBuilder &b, Location l, ValueRange args) {
              IndexMath im{b, l};
              SmallVector<Value> ivs = loopIndices(b, l, 4);
              Value count = windowCount(im, ivs[2], ivs[3], h, w, kernel,
                                        stride, pad, includePad);
              Value avg = arith::DivFOp::create(b, l, args[0],
                                                countAsFloat(b, l, count, acc));
              linalg::YieldOp::create(b, l,
                                      fromF64ThroughCompute(b, l, avg, kiln));
            })
            .getResult(0);
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A generic over `outer` (the produced tensor's dims) and `window`
/// reduction dims whose extents come from a placeholder tensor; the body
/// returns the value to add to the accumulator.
template <typename BodyFn>
Value windowReduce(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> outer,
                   ArrayRef<OpFoldResult> window, Type acc, BodyFn body) {
  unsigned no = outer.size(), nw = window.size(), rank = no + nw;
  MLIRContext *ctx = b.getContext();
  Value extents = emptyTensor(b, loc, window, b.getI8Type());
  Value init = filledTensor(b, loc, outer, constantOf(b, loc, acc, 0));
  SmallVector<AffineExpr> wExprs, oExprs;
  for (unsigned d = 0; d < rank; ++d)
    (d < no ? oExprs : wExprs).push_back(getAffineDimExpr(d, ctx));
  SmallVector<int64_t> reductions =
      llvm::to_vector(llvm::seq<int64_t>(no, rank));
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{extents},
             ValueRange{init},
             ArrayRef<AffineMap>{AffineMap::get(rank, 0, wExprs, ctx),
                                 AffineMap::get(rank, 0, oExprs, ctx)},
             iteratorTypes(rank, reductions),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               SmallVector<Value> ivs = loopIndices(nb, l, rank);
               Value add = body(nb, l, ArrayRef<Value>(ivs));
               linalg::YieldOp::create(nb, l, addScalars(nb, l, args[1], add));
             })
      .getResult(0);
}

/// The output position o that the input position `i` sees through kernel
/// tap `k` (i + p - k d = o s), and whether it exists.
std::pair<Value, Value> sourceWindow(IndexMath &m, Value i, Value k, int64_t s,
                                     int64_t p, int64_t d, Value outSize) {
  Value num = m.sub(m.add(i, m.c(p)), m.mul(k, m.c(d)));
  Value o = m.div(num, m.c(s));
  Value ok = m.both(m.cmp(P::sge, num, m.c(0)),
                    m.both(m.cmp(P::eq, m.rem(num, m.c(s)), m.c(0)),
                           m.cmp(P::slt, o, outSize)));
  return {clampIndex(m.b, m.loc, o, outSize), ok};
}

struct ConvertMaxPool2dBackward : OpConversionPattern<MaxPool2dBackwardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPool2dBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value grad = adaptor.getGrad(), x = adaptor.getInput();
    Type kiln = op.getType().getElementType();
    Type storage = storageTypeOf(kiln);
    Type acc = accumulatorType(storage);
    Type accKiln = acc == storage ? kiln : acc;
    Type i64 = rewriter.getI64Type();
    ArrayRef<int64_t> kernel = op.getKernel(), stride = op.getStride(),
                      pad = op.getPadding();
    Value h = dimValue(rewriter, loc, x, 2), w = dimValue(rewriter, loc, x, 3);
    Value oh = dimValue(rewriter, loc, grad, 2),
          ow = dimValue(rewriter, loc, grad, 3);
    SmallVector<OpFoldResult> gradSizes = sizesOf(rewriter, loc, grad);
    SmallVector<OpFoldResult> kernelSizes =
        getAsIndexOpFoldResult(getContext(), kernel);

    // 1. Where each window's first maximum is, as a flat h * W + w (the
    //    same "NaN first, then larger, then earlier" rule as argmax; only
    //    in-bounds positions compete).
    MLIRContext *ctx = getContext();
    SmallVector<AffineExpr> outer, win;
    for (unsigned d = 0; d < 6; ++d)
      (d < 4 ? outer : win).push_back(getAffineDimExpr(d, ctx));
    AffineMap outerMap = AffineMap::get(6, 0, outer, ctx);
    Value bestInit =
        filledTensor(rewriter, loc, gradSizes,
                     constantOf(rewriter, loc, storage, -INFINITY));
    Value atInit =
        filledTensor(rewriter, loc, gradSizes,
                     arith::ConstantOp::create(
                         rewriter, loc, rewriter.getI64IntegerAttr(INT64_MAX)));
    Value extents =
        emptyTensor(rewriter, loc, kernelSizes, rewriter.getI8Type());
    auto argmax = linalg::GenericOp::create(
        rewriter, loc, TypeRange{bestInit.getType(), atInit.getType()},
        ValueRange{extents}, ValueRange{bestInit, atInit},
        ArrayRef<AffineMap>{AffineMap::get(6, 0, win, ctx), outerMap, outerMap},
        iteratorTypes(6, {4, 5}),
        [&](OpBuilder &b, Location l, ValueRange args) {
          IndexMath m{b, l};
          SmallVector<Value> ivs = loopIndices(b, l, 6);
          Value hi =
              m.sub(m.add(m.mul(ivs[2], m.c(stride[0])), ivs[4]), m.c(pad[0]));
          Value wi =
              m.sub(m.add(m.mul(ivs[3], m.c(stride[1])), ivs[5]), m.c(pad[1]));
          Value valid = m.both(inRange(b, l, hi, h), inRange(b, l, wi, w));
          Value at[] = {ivs[0], ivs[1], clampIndex(b, l, hi, h),
                        clampIndex(b, l, wi, w)};
          Value v = tensor::ExtractOp::create(b, l, x, at);
          Value flat =
              arith::IndexCastOp::create(b, l, i64, m.add(m.mul(hi, w), wi));
          Value best = args[1], bestAt = args[2];
          using FP = arith::CmpFPredicate;
          Value vNaN = arith::CmpFOp::create(b, l, FP::UNO, v, v);
          Value bestNaN = arith::CmpFOp::create(b, l, FP::UNO, best, best);
          Value earlier = arith::CmpIOp::create(b, l, P::slt, flat, bestAt);
          Value better = arith::CmpFOp::create(b, l, FP::OGT, v, best);
          Value tie = arith::CmpFOp::create(b, l, FP::OEQ, v, best);
          Value one = constantOf(b, l, b.getI1Type(), 1);
          Value notBestNaN = arith::XOrIOp::create(b, l, bestNaN, one);
          Value ordered = arith::OrIOp::create(
              b, l, better, arith::AndIOp::create(b, l, tie, earlier));
          Value nanWins = arith::AndIOp::create(
              b, l, vNaN, arith::OrIOp::create(b, l, notBestNaN, earlier));
          Value take = arith::AndIOp::create(
              b, l, valid,
              arith::OrIOp::create(
                  b, l, nanWins,
                  arith::AndIOp::create(b, l, notBestNaN, ordered)));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, v, best),
                         arith::SelectOp::create(b, l, take, flat, bestAt)});
        });
    Value winners = argmax.getResult(1);

    // 2. Each input element sums the gradients of the windows it won.
    Value sum = windowReduce(
        rewriter, loc, sizesOf(rewriter, loc, x), kernelSizes, acc,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) {
          IndexMath m{b, l};
          auto [o0, ok0] =
              sourceWindow(m, ivs[2], ivs[4], stride[0], pad[0], 1, oh);
          auto [o1, ok1] =
              sourceWindow(m, ivs[3], ivs[5], stride[1], pad[1], 1, ow);
          Value at[] = {ivs[0], ivs[1], o0, o1};
          Value winner = tensor::ExtractOp::create(b, l, winners, at);
          Value flat = arith::IndexCastOp::create(
              b, l, i64, m.add(m.mul(ivs[2], w), ivs[3]));
          Value hit = m.both(m.both(ok0, ok1),
                             arith::CmpIOp::create(b, l, P::eq, winner, flat));
          Value g = emitCast(b, l, tensor::ExtractOp::create(b, l, grad, at),
                             kiln, accKiln);
          return arith::SelectOp::create(b, l, hit, g, constantOf(b, l, acc, 0))
              .getResult();
        });
    Value result = castTensor(rewriter, loc, sum, accKiln, kiln);
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertAvgPool2dBackward : OpConversionPattern<AvgPool2dBackwardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AvgPool2dBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value grad = adaptor.getGrad(), x = adaptor.getInput();
    Type kiln = op.getType().getElementType();
    Type storage = storageTypeOf(kiln);
    Type acc = accumulatorType(storage);
    Type accKiln = acc == storage ? kiln : acc;
    ArrayRef<int64_t> kernel = op.getKernel(), stride = op.getStride(),
                      pad = op.getPadding();
    bool includePad = op.getCountIncludePad();
    Value h = dimValue(rewriter, loc, x, 2), w = dimValue(rewriter, loc, x, 3);
    Value oh = dimValue(rewriter, loc, grad, 2),
          ow = dimValue(rewriter, loc, grad, 3);
    Value sum = windowReduce(
        rewriter, loc, sizesOf(rewriter, loc, x),
        getAsIndexOpFoldResult(getContext(), kernel), acc,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) {
          IndexMath m{b, l};
          auto [o0, ok0] =
              sourceWindow(m, ivs[2], ivs[4], stride[0], pad[0], 1, oh);
          auto [o1, ok1] =
              sourceWindow(m, ivs[3], ivs[5], stride[1], pad[1], 1, ow);
          Value at[] = {ivs[0], ivs[1], o0, o1};
          // share = gradient / count in f64, rounded to the accumulator.
          Type f64 = b.getF64Type();
          Value g = emitCast(b, l, tensor::ExtractOp::create(b, l, grad, at),
                             kiln, f64);
          Value count =
              windowCount(m, o0, o1, h, w, kernel, stride, pad, includePad);
          Value share = emitCast(
              b, l,
              arith::DivFOp::create(b, l, g, countAsFloat(b, l, count, f64)),
              f64, accKiln);
          return arith::SelectOp::create(b, l, m.both(ok0, ok1), share,
                                         constantOf(b, l, acc, 0))
              .getResult();
        });
    Value result = castTensor(rewriter, loc, sum, accKiln, kiln);
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertConv2dBackwardInput : OpConversionPattern<Conv2dBackwardInputOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Conv2dBackwardInputOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    IndexMath m{rewriter, loc};
    Value grad = adaptor.getGrad(), weight = adaptor.getWeight();
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    Type kiln = op.getType().getElementType();
    Type storage = resultType.getElementType();
    Type acc = accumulatorType(storage);
    Type accKiln = acc == storage ? kiln : acc;
    ArrayRef<int64_t> stride = op.getStride(), pad = op.getPadding(),
                      dil = op.getDilation();
    int64_t groups = op.getGroups();
    auto gradType = llvm::cast<RankedTensorType>(grad.getType());
    OpFoldResult perGroupOutSize =
        gradType.isDynamicDim(1)
            ? OpFoldResult(m.div(dimValue(rewriter, loc, grad, 1), m.c(groups)))
            : OpFoldResult(
                  rewriter.getIndexAttr(gradType.getDimSize(1) / groups));
    Value perGroupOut = toIndexValue(rewriter, loc, perGroupOutSize);
    Value cg = dimValue(rewriter, loc, weight, 1);
    Value oh = dimValue(rewriter, loc, grad, 2),
          ow = dimValue(rewriter, loc, grad, 3);

    // A dynamic H or W is not determined by the gradient when the stride
    // skips rows; take the smallest input that gives OH rows.
    SmallVector<OpFoldResult> sizes = {
        sizeOf(rewriter, loc, grad, 0),
        sizeOr(rewriter, resultType, 1,
               [&]() -> OpFoldResult { return m.mul(cg, m.c(groups)); })};
    for (int i = 0; i < 2; ++i)
      sizes.push_back(
          sizeOr(rewriter, resultType, 2 + i, [&]() -> OpFoldResult {
            Value out = i == 0 ? oh : ow;
            Value k = dimValue(rewriter, loc, weight, 2 + i);
            Value span = m.add(m.mul(m.c(dil[i]), m.sub(k, m.c(1))), m.c(1));
            return m.sub(m.add(m.mul(m.sub(out, m.c(1)), m.c(stride[i])), span),
                         m.c(2 * pad[i]));
          }));
    SmallVector<OpFoldResult> window = {perGroupOutSize,
                                        sizeOf(rewriter, loc, weight, 2),
                                        sizeOf(rewriter, loc, weight, 3)};

    Value sum = windowReduce(
        rewriter, loc, sizes, window, acc,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) {
          IndexMath im{b, l};
          // ivs: n, c, h, w, og, kh, kw.
          Value g = im.div(ivs[1], cg);
          Value ci = im.rem(ivs[1], cg);
          Value oc = im.add(im.mul(g, perGroupOut), ivs[4]);
          auto [o0, ok0] =
              sourceWindow(im, ivs[2], ivs[5], stride[0], pad[0], dil[0], oh);
          auto [o1, ok1] =
              sourceWindow(im, ivs[3], ivs[6], stride[1], pad[1], dil[1], ow);
          Value gAt[] = {ivs[0], oc, o0, o1};
          Value wAt[] = {oc, ci, ivs[5], ivs[6]};
          Value gv = emitCast(b, l, tensor::ExtractOp::create(b, l, grad, gAt),
                              kiln, accKiln);
          Value wv =
              emitCast(b, l, tensor::ExtractOp::create(b, l, weight, wAt), kiln,
                       accKiln);
          return arith::SelectOp::create(b, l, im.both(ok0, ok1),
                                         mulScalars(b, l, gv, wv),
                                         constantOf(b, l, acc, 0))
              .getResult();
        });
    Value result = castTensor(rewriter, loc, sum, accKiln, kiln);
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertConv2dBackwardWeight
    : OpConversionPattern<Conv2dBackwardWeightOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Conv2dBackwardWeightOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    IndexMath m{rewriter, loc};
    Value grad = adaptor.getGrad(), x = adaptor.getInput();
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    Type kiln = op.getType().getElementType();
    Type storage = resultType.getElementType();
    Type acc = accumulatorType(storage);
    Type accKiln = acc == storage ? kiln : acc;
    ArrayRef<int64_t> stride = op.getStride(), pad = op.getPadding(),
                      dil = op.getDilation();
    int64_t groups = op.getGroups();
    Value perGroupOut = m.div(dimValue(rewriter, loc, grad, 1), m.c(groups));
    Value xp = padSpatial(rewriter, loc, x, pad,
                          constantOf(rewriter, loc, storage, 0));
    Value oh = dimValue(rewriter, loc, grad, 2),
          ow = dimValue(rewriter, loc, grad, 3);

    // A dynamic kernel size: the largest kernel whose sweep gives OH rows.
    SmallVector<OpFoldResult> sizes = {
        sizeOf(rewriter, loc, grad, 1),
        sizeOr(rewriter, resultType, 1, [&]() -> OpFoldResult {
          return m.div(dimValue(rewriter, loc, x, 1), m.c(groups));
        })};
    for (int i = 0; i < 2; ++i)
      sizes.push_back(
          sizeOr(rewriter, resultType, 2 + i, [&]() -> OpFoldResult {
            Value padded = dimValue(rewriter, loc, xp, 2 + i);
            Value out = i == 0 ? oh : ow;
            Value room = m.sub(m.sub(padded, m.c(1)),
                               m.mul(m.sub(out, m.c(1)), m.c(stride[i])));
            return m.add(m.div(room, m.c(dil[i])), m.c(1));
          }));
    Value cg = toIndexValue(rewriter, loc, sizes[1]);

    // Loops: o, ci, kh, kw (the result), then n, oh (reduced), then ow,
    // whose partial sums stay apart (a [O, C/G, KH, KW, OW] tensor) so that
    // the innermost loop has no reduction and LLVM vectorizes it; a second
    // generic sums them. The gradient is read with a plain map, the padded
    // input at a computed (always in-bounds) position.
    MLIRContext *ctx = getContext();
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    SmallVector<OpFoldResult> partialSizes(sizes);
    partialSizes.push_back(sizeOf(rewriter, loc, grad, 3));
    Value partialInit = filledTensor(rewriter, loc, partialSizes,
                                     constantOf(rewriter, loc, acc, 0));
    Value partial =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{partialInit.getType()}, ValueRange{grad},
            ValueRange{partialInit},
            ArrayRef<AffineMap>{
                AffineMap::get(7, 0, {d(4), d(0), d(5), d(6)}, ctx),
                AffineMap::get(7, 0, {d(0), d(1), d(2), d(3), d(6)}, ctx)},
            iteratorTypes(7, {4, 5}),
            [&](OpBuilder &b, Location l, ValueRange args) {
              IndexMath im{b, l};
              SmallVector<Value> ivs = loopIndices(b, l, 7);
              Value c = im.add(im.mul(im.div(ivs[0], perGroupOut), cg), ivs[1]);
              Value hi = im.add(im.mul(ivs[5], im.c(stride[0])),
                                im.mul(ivs[2], im.c(dil[0])));
              Value wi = im.add(im.mul(ivs[6], im.c(stride[1])),
                                im.mul(ivs[3], im.c(dil[1])));
              Value at[] = {ivs[4], c, hi, wi};
              Value xv = emitCast(b, l, tensor::ExtractOp::create(b, l, xp, at),
                                  kiln, accKiln);
              Value gv = emitCast(b, l, args[0], kiln, accKiln);
              linalg::YieldOp::create(
                  b, l, addScalars(b, l, args[1], mulScalars(b, l, gv, xv)));
            })
            .getResult(0);
    Value init =
        filledTensor(rewriter, loc, sizes, constantOf(rewriter, loc, acc, 0));
    Value sum =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()}, ValueRange{partial},
            ValueRange{init},
            ArrayRef<AffineMap>{
                rewriter.getMultiDimIdentityMap(5),
                AffineMap::get(5, 0, {d(0), d(1), d(2), d(3)}, ctx)},
            iteratorTypes(5, {4}),
            [&](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(b, l, addScalars(b, l, args[1], args[0]));
            })
            .getResult(0);
    Value result = castTensor(rewriter, loc, sum, accKiln, kiln);
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tolinalg::populateNNPatterns(const TypeConverter &tc,
                                  RewritePatternSet &p) {
  p.add<ConvertConv2d, ConvertMaxPool2d, ConvertAvgPool2d,
        ConvertMaxPool2dBackward, ConvertAvgPool2dBackward,
        ConvertConv2dBackwardInput, ConvertConv2dBackwardWeight, ConvertUnfold>(
      tc, p.getContext());
}
