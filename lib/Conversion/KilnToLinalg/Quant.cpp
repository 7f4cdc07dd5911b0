//===- Quant.cpp - quantize and dequantize to linalg ----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A quantized tensor travels as (values: tensor<Kxi8>, scales: tensor<S x
// scale dtype>, one index per dynamic dim); see the type converter. The
// arithmetic is Flex's (FlexQuant.cpp): per block of consecutive row-major
// elements, scale = max|x| / maxLevel rounded to the scale dtype (1 when
// that is 0 or not finite), q = clamp(round_half_even(x / scale), -max,
// max) computed in f64, NaN giving 0; q4 packs element 2k in the low nibble
// of byte k and element 2k + 1 in the high one.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "kiln/Conversion/ElementwiseEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::tolinalg;

namespace {

/// Elements per scale: the block size, or every element.
Value blockLength(OpBuilder &b, Location loc, QuantSchemeAttr scheme,
                  Value numel) {
  if (scheme.isPerTensor())
    return numel;
  return indexConstant(b, loc, scheme.getBlockSize());
}

struct ConvertQuantize : OpConversionPattern<QuantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(QuantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto quantType = llvm::cast<RankedTensorType>(op.getType());
    QuantSchemeAttr scheme = getQuantScheme(quantType);
    SmallVector<Type> parts;
    if (failed(typeConverter->convertType(quantType, parts)))
      return failure();
    auto valuesType = llvm::cast<RankedTensorType>(parts[0]);
    auto scalesType = llvm::cast<RankedTensorType>(parts[1]);
    Type kiln = kilnElementOf(op.getInput());
    Type scaleType = scheme.getScaleType();
    Type f64 = rewriter.getF64Type(), i8 = rewriter.getI8Type();
    double maxLevel = scheme.getMaxLevel();

    // [S, B] view of the row-major elements.
    Value n = numElementsOf(rewriter, loc, x);
    Value blockLen = blockLength(rewriter, loc, scheme, n);
    Value blocks = arith::DivUIOp::create(rewriter, loc, n, blockLen);
    auto xType = llvm::cast<RankedTensorType>(x.getType());
    int64_t staticN =
        xType.hasStaticShape() ? xType.getNumElements() : ShapedType::kDynamic;
    int64_t staticB = scheme.isPerTensor() ? staticN : scheme.getBlockSize();
    int64_t staticS = scalesType.getDimSize(0);
    Value flat =
        reshapeTensor(rewriter, loc, x,
                      RankedTensorType::get({staticN}, xType.getElementType()),
                      {getAsOpFoldResult(n)});
    auto blockedType =
        RankedTensorType::get({staticS, staticB}, xType.getElementType());
    Value blocked =
        reshapeTensor(rewriter, loc, flat, blockedType,
                      {getAsOpFoldResult(blocks), getAsOpFoldResult(blockLen)});
    SmallVector<OpFoldResult> blockedSizes = sizesOf(rewriter, loc, blocked);
    MLIRContext *ctx = getContext();
    AffineMap id2 = rewriter.getMultiDimIdentityMap(2);
    AffineMap rows = AffineMap::get(2, 0, rewriter.getAffineDimExpr(0), ctx);
    AffineMap id1 = rewriter.getMultiDimIdentityMap(1);

    // max|x| per block in f64; NaN does not count (max ignores it).
    Value maxInit = filledTensor(rewriter, loc, {blockedSizes[0]},
                                 constantOf(rewriter, loc, f64, 0));
    Value absMax =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{maxInit.getType()}, ValueRange{blocked},
            ValueRange{maxInit}, ArrayRef<AffineMap>{id2, rows},
            iteratorTypes(2, {1}),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value v = math::AbsFOp::create(
                  b, l, emitCast(b, l, args[0], kiln, f64));
              linalg::YieldOp::create(
                  b, l, arith::MaxNumFOp::create(b, l, args[1], v).getResult());
            })
            .getResult(0);

    // The stored scale, and the f64 value the levels are computed with.
    Value scalesInit = emptyTensor(rewriter, loc, {blockedSizes[0]}, scaleType);
    Value divisorInit = emptyTensor(rewriter, loc, {blockedSizes[0]}, f64);
    auto scaleGen = linalg::GenericOp::create(
        rewriter, loc, TypeRange{scalesInit.getType(), divisorInit.getType()},
        ValueRange{absMax}, ValueRange{scalesInit, divisorInit},
        ArrayRef<AffineMap>{id1, id1, id1}, iteratorTypes(1),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value s = fromF64ThroughCompute(
              b, l,
              arith::DivFOp::create(b, l, args[0],
                                    constantOf(b, l, f64, maxLevel)),
              scaleType);
          Value sd = emitCast(b, l, s, scaleType, f64);
          using FP = arith::CmpFPredicate;
          Value usable = arith::AndIOp::create(
              b, l,
              arith::CmpFOp::create(b, l, FP::OGT, sd,
                                    constantOf(b, l, f64, 0)),
              arith::CmpFOp::create(b, l, FP::OLT, sd,
                                    constantOf(b, l, f64, INFINITY)));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(
                             b, l, usable, s, constantOf(b, l, scaleType, 1)),
                         arith::SelectOp::create(b, l, usable, sd,
                                                 constantOf(b, l, f64, 1))});
        });
    Value scales = scaleGen.getResult(0);

    // One level per element, as i8.
    Value levelsInit = emptyTensor(rewriter, loc, blockedSizes, i8);
    Value levels =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{levelsInit.getType()},
            ValueRange{blocked, scaleGen.getResult(1)}, ValueRange{levelsInit},
            ArrayRef<AffineMap>{id2, rows, id2}, iteratorTypes(2),
            [&](OpBuilder &b, Location l, ValueRange args) {
              using FP = arith::CmpFPredicate;
              Value v = emitCast(b, l, args[0], kiln, f64);
              Value r = math::RoundEvenOp::create(
                  b, l, arith::DivFOp::create(b, l, v, args[1]));
              Value lo = constantOf(b, l, f64, -maxLevel);
              Value hi = constantOf(b, l, f64, maxLevel);
              r = arith::SelectOp::create(
                  b, l, arith::CmpFOp::create(b, l, FP::OLT, r, lo), lo, r);
              r = arith::SelectOp::create(
                  b, l, arith::CmpFOp::create(b, l, FP::OGT, r, hi), hi, r);
              // The cast saturates and maps NaN to 0.
              linalg::YieldOp::create(b, l, emitCast(b, l, r, f64, i8));
            })
            .getResult(0);
    Value values = reshapeTensor(rewriter, loc, levels,
                                 RankedTensorType::get({staticN}, i8),
                                 {getAsOpFoldResult(n)});

    if (scheme.getValueBits() == 4) {
      // Byte k holds elements 2k (low nibble) and 2k + 1 (high nibble).
      OpFoldResult bytes =
          valuesType.hasStaticShape()
              ? OpFoldResult(rewriter.getIndexAttr(valuesType.getDimSize(0)))
              : OpFoldResult(
                    arith::DivUIOp::create(
                        rewriter, loc,
                        arith::AddIOp::create(rewriter, loc, n,
                                              indexConstant(rewriter, loc, 1)),
                        indexConstant(rewriter, loc, 2))
                        .getResult());
      Value init = emptyTensor(rewriter, loc, {bytes}, i8);
      Value levelsFlat = values;
      values =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{init.getType()}, ValueRange{},
              ValueRange{init}, ArrayRef<AffineMap>{id1}, iteratorTypes(1),
              [&](OpBuilder &b, Location l, ValueRange) {
                Value k = linalg::IndexOp::create(b, l, 0);
                Value even =
                    arith::MulIOp::create(b, l, k, indexConstant(b, l, 2));
                Value odd =
                    arith::AddIOp::create(b, l, even, indexConstant(b, l, 1));
                Value lo = tensor::ExtractOp::create(b, l, levelsFlat, even);
                Value hiAt = arith::MinUIOp::create(
                    b, l, odd,
                    arith::SubIOp::create(b, l, n, indexConstant(b, l, 1)));
                Value hi = tensor::ExtractOp::create(b, l, levelsFlat, hiAt);
                Value hasHi = arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::ult, odd, n);
                hi = arith::SelectOp::create(b, l, hasHi, hi,
                                             constantOf(b, l, i8, 0));
                Value low =
                    arith::AndIOp::create(b, l, lo, constantOf(b, l, i8, 0x0F));
                Value high =
                    arith::ShLIOp::create(b, l, hi, constantOf(b, l, i8, 4));
                linalg::YieldOp::create(
                    b, l, arith::OrIOp::create(b, l, low, high).getResult());
              })
              .getResult(0);
    }
    if (values.getType() != valuesType)
      values = tensor::CastOp::create(rewriter, loc, valuesType, values);
    if (scales.getType() != scalesType)
      scales = tensor::CastOp::create(rewriter, loc, scalesType, scales);

    SmallVector<Value> replacement = {values, scales};
    for (int64_t d = 0; d < xType.getRank(); ++d)
      if (xType.isDynamicDim(d))
        replacement.push_back(dimValue(rewriter, loc, x, d));
    SmallVector<SmallVector<Value>> results;
    results.push_back(std::move(replacement));
    rewriter.replaceOpWithMultiple(op, std::move(results));
    return success();
  }
};

struct ConvertDequantize : OpConversionPattern<DequantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DequantizeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange parts = adaptor.getInput();
    if (parts.size() < 2)
      return rewriter.notifyMatchFailure(op, "input was not converted 1:N");
    Value values = parts[0], scales = parts[1];
    QuantSchemeAttr scheme = getQuantScheme(op.getInput().getType());
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    Type kiln = op.getType().getElementType();
    Type scaleType = scheme.getScaleType();
    Type compute = accumulatorType(resultType.getElementType());
    bool q4 = scheme.getValueBits() == 4;
    unsigned rank = resultType.getRank();

    SmallVector<OpFoldResult> sizes =
        mixedSizes(rewriter, resultType, parts.drop_front(2));
    SmallVector<Value> sizeValues;
    Value n = indexConstant(rewriter, loc, 1);
    for (OpFoldResult s : sizes) {
      sizeValues.push_back(toIndexValue(rewriter, loc, s));
      n = arith::MulIOp::create(rewriter, loc, n, sizeValues.back());
    }
    Value blockLen = blockLength(rewriter, loc, scheme, n);
    Value init = emptyTensor(rewriter, loc, sizes, resultType.getElementType());
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resultType}, ValueRange{},
            ValueRange{init},
            ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
            iteratorTypes(rank),
            [&](OpBuilder &b, Location l, ValueRange) {
              Value e = linearize(b, l, loopIndices(b, l, rank), sizeValues);
              Type i8 = b.getI8Type();
              Value q;
              if (q4) {
                Value byte = tensor::ExtractOp::create(
                    b, l, values,
                    ValueRange{arith::DivUIOp::create(b, l, e,
                                                      indexConstant(b, l, 2))});
                // Move the wanted nibble to the top, then shift it back
                // down arithmetically to sign-extend it.
                Value odd =
                    arith::RemUIOp::create(b, l, e, indexConstant(b, l, 2));
                Value isOdd =
                    arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, odd,
                                          indexConstant(b, l, 0));
                Value up = arith::SelectOp::create(
                    b, l, isOdd, byte,
                    arith::ShLIOp::create(b, l, byte, constantOf(b, l, i8, 4)));
                q = arith::ShRSIOp::create(b, l, up, constantOf(b, l, i8, 4));
              } else {
                q = tensor::ExtractOp::create(b, l, values, ValueRange{e});
              }
              Value s = tensor::ExtractOp::create(
                  b, l, scales,
                  ValueRange{arith::DivUIOp::create(b, l, e, blockLen)});
              Value v = arith::MulFOp::create(
                  b, l, emitCast(b, l, s, scaleType, compute),
                  emitCast(b, l, q, i8, compute));
              linalg::YieldOp::create(b, l, emitCast(b, l, v, compute, kiln));
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tolinalg::populateQuantPatterns(const TypeConverter &tc,
                                     RewritePatternSet &p) {
  p.add<ConvertQuantize, ConvertDequantize>(tc, p.getContext());
}
