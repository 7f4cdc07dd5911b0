//===- Creation.cpp - Creation kiln ops to linalg -------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// constant and full become arith.constant and linalg.fill; arange, eye and
// the random ops are generics over the result that compute each element
// from its index. The random ops emit Random.h's arithmetic in i64 and f64,
// so they give Flex's numbers bit for bit; every value rounds once to the
// result dtype, as Flex's creation kernels do.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "kiln/Conversion/ElementwiseEmitter.h"
#include "kiln/Support/Random.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::tolinalg;

namespace {

/// A generic over `type` whose element at each index is body(b, loc,
/// flatIndex as i64, loop indices, the elements of the rank-0 tensors
/// `scalars`, read as inputs of the generic).
template <typename BodyFn>
Value generateTensorWith(OpBuilder &b, Location loc, RankedTensorType type,
                         ValueRange dynamicDims, ValueRange scalars,
                         BodyFn body) {
  SmallVector<OpFoldResult> sizes = mixedSizes(b, type, dynamicDims);
  Value init = emptyTensor(b, loc, sizes, type.getElementType());
  unsigned rank = type.getRank();
  SmallVector<Value> sizeValues;
  for (OpFoldResult s : sizes)
    sizeValues.push_back(toIndexValue(b, loc, s));
  SmallVector<AffineMap> maps(scalars.size(),
                              AffineMap::get(rank, 0, {}, b.getContext()));
  maps.push_back(b.getMultiDimIdentityMap(rank));
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, scalars, ValueRange{init}, maps,
             iteratorTypes(rank),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               SmallVector<Value> ivs = loopIndices(nb, l, rank);
               Value flat = linearize(nb, l, ivs, sizeValues);
               Value i64 =
                   arith::IndexCastOp::create(nb, l, nb.getI64Type(), flat);
               linalg::YieldOp::create(nb, l,
                                       body(nb, l, i64, ivs, args.drop_back()));
             })
      .getResult(0);
}

template <typename BodyFn>
Value generateTensor(OpBuilder &b, Location loc, RankedTensorType type,
                     ValueRange dynamicDims, BodyFn body) {
  return generateTensorWith(b, loc, type, dynamicDims, {},
                            [&](OpBuilder &nb, Location l, Value i,
                                ValueRange ivs,
                                ValueRange) { return body(nb, l, i, ivs); });
}

struct ConvertConstant : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertedTensorType(*typeConverter, op.getType());
    auto dense = llvm::dyn_cast<DenseElementsAttr>(op.getValue());
    if (!type || (!dense && type != op.getType()))
      return rewriter.notifyMatchFailure(op, "unsupported constant payload");
    TypedAttr value = dense ? TypedAttr(dense.bitcast(type.getElementType()))
                            : llvm::cast<TypedAttr>(op.getValue());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, value);
    return success();
  }
};

struct ConvertFull : OpConversionPattern<FullOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FullOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = convertedTensorType(*typeConverter, op.getType());
    Value value = attrConstant(rewriter, loc, op.getType().getElementType(),
                               op.getValue().convertToDouble());
    rewriter.replaceOp(
        op, filledTensor(rewriter, loc,
                         mixedSizes(rewriter, type, adaptor.getDynamicDims()),
                         value));
    return success();
  }
};

struct ConvertArange : OpConversionPattern<ArangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = convertedTensorType(*typeConverter, op.getType());
    Type kiln = op.getType().getElementType();
    double start = op.getStart().convertToDouble();
    double step = op.getStep().convertToDouble();
    rewriter.replaceOp(
        op, generateTensor(rewriter, loc, type, {},
                           [&](OpBuilder &b, Location l, Value i, ValueRange) {
                             Type f64 = b.getF64Type();
                             Value x = arith::SIToFPOp::create(b, l, f64, i);
                             Value v = arith::AddFOp::create(
                                 b, l, constantOf(b, l, f64, start),
                                 arith::MulFOp::create(
                                     b, l, x, constantOf(b, l, f64, step)));
                             return fromF64(b, l, v, kiln);
                           }));
    return success();
  }
};

struct ConvertEye : OpConversionPattern<EyeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EyeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = convertedTensorType(*typeConverter, op.getType());
    Type e = type.getElementType();
    rewriter.replaceOp(
        op,
        generateTensor(
            rewriter, loc, type, {},
            [&](OpBuilder &b, Location l, Value, ValueRange ivs) -> Value {
              Value diag = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                                 ivs[0], ivs[1]);
              return arith::SelectOp::create(b, l, diag, constantOf(b, l, e, 1),
                                             constantOf(b, l, e, 0));
            }));
    return success();
  }
};

/// Random.h's `seed * kGolden` as an i64 value, where the seed is the
/// attribute plus the i64 `offset` when there is one.
Value randomBase(OpBuilder &b, Location loc, uint64_t seed, Value offset) {
  Type i64 = b.getI64Type();
  auto c = [&](uint64_t v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, (int64_t)v));
  };
  if (!offset)
    return c(seed * ::kiln::random::kGolden);
  return arith::MulIOp::create(b, loc,
                               arith::AddIOp::create(b, loc, offset, c(seed)),
                               c(::kiln::random::kGolden));
}

/// The rank-0 offset tensor of a random op, as the scalars of
/// generateTensorWith.
SmallVector<Value> offsetScalars(Value offset) {
  return offset ? SmallVector<Value>{offset} : SmallVector<Value>{};
}

/// Random.h's bits(seed, index) on i64 values, as i64 in [0, 2^32), from
/// randomBase's `seed * kGolden`.
Value randomBits(OpBuilder &b, Location loc, Value base, Value index) {
  Type i64 = b.getI64Type();
  auto c = [&](uint64_t v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, (int64_t)v));
  };
  auto xorShift = [&](Value z, uint64_t s) -> Value {
    return arith::XOrIOp::create(b, loc, z,
                                 arith::ShRUIOp::create(b, loc, z, c(s)));
  };
  Value z = arith::AddIOp::create(b, loc, base, index);
  z = arith::MulIOp::create(b, loc, xorShift(z, 30), c(::kiln::random::kMix1));
  z = arith::MulIOp::create(b, loc, xorShift(z, 27), c(::kiln::random::kMix2));
  z = xorShift(z, 31);
  return arith::ShRUIOp::create(b, loc, z, c(32));
}

/// (bits(seed, index) >> 8 [+ 1]) * 2^-24 in f64.
Value randomUnit(OpBuilder &b, Location loc, Value base, Value index,
                 bool open0) {
  Type i64 = b.getI64Type(), f64 = b.getF64Type();
  Value top = arith::ShRUIOp::create(
      b, loc, randomBits(b, loc, base, index),
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, 8)));
  Value x = arith::UIToFPOp::create(b, loc, f64, top);
  if (open0)
    x = arith::AddFOp::create(b, loc, x, constantOf(b, loc, f64, 1.0));
  return arith::MulFOp::create(b, loc, x,
                               constantOf(b, loc, f64, 1.0 / 16777216.0));
}

/// `v` as a double, whatever its float semantics.
double asDouble(APFloat v) {
  bool lost;
  v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return v.convertToDouble();
}

/// The largest value of float type `t` below `high`: what a uniform sample
/// that rounded up onto `high` is stored as.
APFloat largestBelow(FloatType t, double high) {
  APFloat v(high);
  bool lost;
  v.convert(t.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  while (asDouble(v) >= high)
    v.next(/*nextDown=*/true);
  return v;
}

struct ConvertRand : OpConversionPattern<RandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertedTensorType(*typeConverter, op.getType());
    Type kiln = op.getType().getElementType();
    uint64_t seed = op.getSeed();
    double low = op.getLow().convertToDouble();
    double high = op.getHigh().convertToDouble();
    rewriter.replaceOp(
        op,
        generateTensorWith(
            rewriter, op.getLoc(), type, adaptor.getDynamicDims(),
            offsetScalars(adaptor.getOffset()),
            [&](OpBuilder &b, Location l, Value i, ValueRange,
                ValueRange offset) {
              Value base =
                  randomBase(b, l, seed, offset.empty() ? Value() : offset[0]);
              Type f64 = b.getF64Type();
              Value u = randomUnit(b, l, base, i, /*open0=*/false);
              Value v = arith::AddFOp::create(
                  b, l, constantOf(b, l, f64, low),
                  arith::MulFOp::create(b, l, constantOf(b, l, f64, high - low),
                                        u));
              // low + (high - low) u < high exactly, but may round up
              // onto high; the range stays half-open, as in Flex.
              Value r = fromF64(b, l, v, kiln);
              Value over = arith::CmpFOp::create(
                  b, l, arith::CmpFPredicate::OGE, emitCast(b, l, r, kiln, f64),
                  constantOf(b, l, f64, high));
              Value cap = arith::ConstantOp::create(
                  b, l,
                  b.getFloatAttr(
                      kiln, largestBelow(llvm::cast<FloatType>(kiln), high)));
              return arith::SelectOp::create(b, l, over, cap, r).getResult();
            }));
    return success();
  }
};

struct ConvertRandn : OpConversionPattern<RandnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertedTensorType(*typeConverter, op.getType());
    Type kiln = op.getType().getElementType();
    uint64_t seed = op.getSeed();
    double mean = op.getMean().convertToDouble();
    double stddev = op.getStd().convertToDouble();
    rewriter.replaceOp(
        op,
        generateTensorWith(
            rewriter, op.getLoc(), type, adaptor.getDynamicDims(),
            offsetScalars(adaptor.getOffset()),
            [&](OpBuilder &b, Location l, Value i, ValueRange,
                ValueRange offset) {
              Value base =
                  randomBase(b, l, seed, offset.empty() ? Value() : offset[0]);
              Type i64 = b.getI64Type(), f64 = b.getF64Type();
              auto c = [&](double v) { return constantOf(b, l, f64, v); };
              Value two =
                  arith::ConstantOp::create(b, l, b.getIntegerAttr(i64, 2));
              Value even = arith::MulIOp::create(b, l, i, two);
              Value odd = arith::AddIOp::create(
                  b, l, even,
                  arith::ConstantOp::create(b, l, b.getIntegerAttr(i64, 1)));
              Value u1 = randomUnit(b, l, base, even, /*open0=*/true);
              Value u2 = randomUnit(b, l, base, odd, /*open0=*/false);
              Value r = math::SqrtOp::create(
                  b, l,
                  arith::MulFOp::create(b, l, c(-2.0),
                                        math::LogOp::create(b, l, u1)));
              Value t = math::CosOp::create(
                  b, l, arith::MulFOp::create(b, l, c(6.283185307179586), u2));
              Value n = arith::MulFOp::create(b, l, r, t);
              Value v = arith::AddFOp::create(
                  b, l, c(mean), arith::MulFOp::create(b, l, c(stddev), n));
              return fromF64(b, l, v, kiln);
            }));
    return success();
  }
};

} // namespace

void tolinalg::populateCreationPatterns(const TypeConverter &tc,
                                        RewritePatternSet &p) {
  p.add<ConvertConstant, ConvertFull, ConvertArange, ConvertEye, ConvertRand,
        ConvertRandn>(tc, p.getContext());
}
