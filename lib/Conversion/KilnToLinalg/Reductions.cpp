//===- Reductions.cpp - Reductions and scans to linalg --------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Reductions are generics with reduction iterators into a linalg.fill of
// the identity. argmax/argmin carry (value, index) pairs whose combine rule
// is order-independent (NaN wins, then the larger/smaller value, then the
// smaller index), so the result is Flex's "first extreme, first NaN"
// however the loop is split. cumsum is a sequential scan: an scf.for along
// the axis carrying the running sum of one slice.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "kiln/Conversion/ElementwiseEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::tolinalg;

namespace {

enum class Combine { Sum, Prod, Max, Min, Any, All };

/// Identity of `kind` on storage type `t` (kiln type `kiln` tells signed
/// from unsigned).
Value identityOf(OpBuilder &b, Location loc, Combine kind, Type t, Type kiln) {
  bool isFloat = llvm::isa<FloatType>(t);
  unsigned w = isFloat ? 0 : t.getIntOrFloatBitWidth();
  bool isUnsigned = kiln.isUnsignedInteger();
  auto intConst = [&](APInt v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
  };
  switch (kind) {
  case Combine::Sum:
  case Combine::Any:
    return constantOf(b, loc, t, 0);
  case Combine::Prod:
  case Combine::All:
    return constantOf(b, loc, t, 1);
  case Combine::Max:
    if (isFloat)
      return constantOf(b, loc, t, -INFINITY);
    return intConst(isUnsigned ? APInt::getMinValue(w)
                               : APInt::getSignedMinValue(w));
  case Combine::Min:
    if (isFloat)
      return constantOf(b, loc, t, INFINITY);
    return intConst(isUnsigned ? APInt::getMaxValue(w)
                               : APInt::getSignedMaxValue(w));
  }
  llvm_unreachable("unknown combine");
}

Value combine(OpBuilder &b, Location loc, Combine kind, Value acc, Value x,
              Type kiln) {
  bool isFloat = llvm::isa<FloatType>(acc.getType());
  bool isUnsigned = kiln.isUnsignedInteger();
  switch (kind) {
  case Combine::Sum:
    return addScalars(b, loc, acc, x);
  case Combine::Prod:
    return mulScalars(b, loc, acc, x);
  case Combine::Max:
    if (isFloat) // NaN propagates, like Flex's max
      return arith::MaximumFOp::create(b, loc, acc, x);
    if (isUnsigned)
      return arith::MaxUIOp::create(b, loc, acc, x);
    return arith::MaxSIOp::create(b, loc, acc, x);
  case Combine::Min:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, acc, x);
    if (isUnsigned)
      return arith::MinUIOp::create(b, loc, acc, x);
    return arith::MinSIOp::create(b, loc, acc, x);
  case Combine::Any:
    return arith::OrIOp::create(b, loc, acc, x);
  case Combine::All:
    return arith::AndIOp::create(b, loc, acc, x);
  }
  llvm_unreachable("unknown combine");
}

/// Result sizes and output map of a reduction of `input` over `axes`.
void reducedShape(OpBuilder &b, Location loc, Value input,
                  ArrayRef<int64_t> axes, bool keepdim,
                  SmallVectorImpl<OpFoldResult> &sizes, AffineMap &outMap) {
  auto type = llvm::cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> in = sizesOf(b, loc, input);
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    bool reduced = llvm::is_contained(axes, d);
    if (reduced && !keepdim)
      continue;
    sizes.push_back(reduced ? b.getIndexAttr(1) : in[d]);
    exprs.push_back(reduced ? b.getAffineConstantExpr(0)
                            : b.getAffineDimExpr(d));
  }
  outMap = AffineMap::get(type.getRank(), 0, exprs, b.getContext());
}

template <typename OpTy, Combine Kind>
struct ConvertReduce : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    Type kiln = kilnElementOf(op.getInput());
    Type storage = storageTypeOf(kiln);
    // Sums and products of halves accumulate in f32; extremes are exact.
    Type acc = Kind == Combine::Sum || Kind == Combine::Prod
                   ? accumulatorType(storage)
                   : storage;
    Type accKiln = acc == storage ? kiln : acc;
    ArrayRef<int64_t> axes = op.getAxes();
    unsigned rank = llvm::cast<RankedTensorType>(input.getType()).getRank();

    SmallVector<OpFoldResult> sizes;
    AffineMap outMap;
    reducedShape(rewriter, loc, input, axes, op.getKeepdim(), sizes, outMap);
    Value init = filledTensor(rewriter, loc, sizes,
                              identityOf(rewriter, loc, Kind, acc, kiln));
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()}, ValueRange{input},
            ValueRange{init},
            ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank), outMap},
            iteratorTypes(rank, axes),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value x = emitCast(b, l, args[0], kiln, accKiln);
              linalg::YieldOp::create(b, l,
                                      combine(b, l, Kind, args[1], x, kiln));
            })
            .getResult(0);
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, accKiln, kiln));
    return success();
  }
};

/// argmax / argmin along one axis.
template <typename OpTy, bool IsMax>
struct ConvertArgReduce : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    Type kiln = kilnElementOf(op.getInput());
    Type storage = storageTypeOf(kiln);
    int64_t axis = op.getAxis();
    unsigned rank = llvm::cast<RankedTensorType>(input.getType()).getRank();
    Type i64 = rewriter.getI64Type();

    SmallVector<OpFoldResult> sizes;
    AffineMap outMap;
    reducedShape(rewriter, loc, input, {axis}, op.getKeepdim(), sizes, outMap);
    Combine kind = IsMax ? Combine::Max : Combine::Min;
    // (worst value, index 0): a real element at index 0 ties with it and
    // keeps index 0, which is also what an all-extreme row must give.
    Value bestInit = filledTensor(
        rewriter, loc, sizes, identityOf(rewriter, loc, kind, storage, kiln));
    Value indexInit =
        filledTensor(rewriter, loc, sizes,
                     arith::ConstantOp::create(rewriter, loc,
                                               rewriter.getI64IntegerAttr(0)));
    bool isFloat = llvm::isa<FloatType>(storage);
    bool isUnsigned = kiln.isUnsignedInteger();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{bestInit.getType(), indexInit.getType()},
        ValueRange{input}, ValueRange{bestInit, indexInit},
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank), outMap,
                            outMap},
        iteratorTypes(rank, {axis}),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1], at = args[2];
          Value i = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value earlier =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i, at);
          Value take;
          if (isFloat) {
            using P = arith::CmpFPredicate;
            Value xNaN = arith::CmpFOp::create(b, l, P::UNO, x, x);
            Value bestNaN = arith::CmpFOp::create(b, l, P::UNO, best, best);
            Value better =
                arith::CmpFOp::create(b, l, IsMax ? P::OGT : P::OLT, x, best);
            Value tie = arith::CmpFOp::create(b, l, P::OEQ, x, best);
            // Neither is NaN: better, or equal and earlier.
            Value ordered = arith::OrIOp::create(
                b, l, better, arith::AndIOp::create(b, l, tie, earlier));
            // x is NaN: wins over a number, or over a later NaN.
            Value nanWins = arith::AndIOp::create(
                b, l, xNaN,
                arith::OrIOp::create(
                    b, l,
                    arith::XOrIOp::create(b, l, bestNaN,
                                          constantOf(b, l, b.getI1Type(), 1)),
                    earlier));
            Value notBestNaN = arith::XOrIOp::create(
                b, l, bestNaN, constantOf(b, l, b.getI1Type(), 1));
            take = arith::OrIOp::create(
                b, l, nanWins,
                arith::AndIOp::create(b, l, notBestNaN, ordered));
          } else {
            using P = arith::CmpIPredicate;
            P pred = IsMax ? (isUnsigned ? P::ugt : P::sgt)
                           : (isUnsigned ? P::ult : P::slt);
            Value better = arith::CmpIOp::create(b, l, pred, x, best);
            Value tie = arith::CmpIOp::create(b, l, P::eq, x, best);
            take = arith::OrIOp::create(
                b, l, better, arith::AndIOp::create(b, l, tie, earlier));
          }
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, x, best),
                         arith::SelectOp::create(b, l, take, i, at)});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

struct ConvertCumsum : OpConversionPattern<CumsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CumsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = llvm::cast<RankedTensorType>(input.getType());
    Type kiln = kilnElementOf(op.getInput());
    Type storage = type.getElementType();
    // Flex keeps the running sum of floats in f64 and rounds each output.
    bool isFloat = llvm::isa<FloatType>(storage);
    Type acc = isFloat ? rewriter.getF64Type() : storage;
    Type accKiln = isFloat ? acc : kiln;
    int64_t axis = op.getAxis();
    unsigned rank = type.getRank();

    // The scan walks the axis; each step handles one rank-preserving slice.
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, input);
    SmallVector<OpFoldResult> sliceSizes = sizes;
    sliceSizes[axis] = rewriter.getIndexAttr(1);
    Value result = emptyTensor(rewriter, loc, sizes, storage);
    Value running = filledTensor(rewriter, loc, sliceSizes,
                                 constantOf(rewriter, loc, acc, 0));
    Value zero = indexConstant(rewriter, loc, 0);
    Value one = indexConstant(rewriter, loc, 1);
    Value n = dimValue(rewriter, loc, input, axis);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);

    auto loop = scf::ForOp::create(
        rewriter, loc, zero, n, one, ValueRange{result, running},
        [&](OpBuilder &b, Location l, Value i, ValueRange iter) {
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
          offsets[axis] = i;
          Value x = tensor::ExtractSliceOp::create(b, l, input, offsets,
                                                   sliceSizes, strides);
          // The running sum is updated in place, so that bufferization
          // keeps one buffer for it across iterations.
          Value out = emptyTensor(b, l, sliceSizes, storage);
          auto step = linalg::GenericOp::create(
              b, l, TypeRange{iter[1].getType(), out.getType()}, ValueRange{x},
              ValueRange{iter[1], out}, ArrayRef<AffineMap>{id, id, id},
              iteratorTypes(rank),
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                Value s = addScalars(nb, nl, args[1],
                                     emitCast(nb, nl, args[0], kiln, accKiln));
                Value out = isFloat ? fromF64ThroughCompute(nb, nl, s, kiln)
                                    : emitCast(nb, nl, s, accKiln, kiln);
                linalg::YieldOp::create(nb, nl, ValueRange{s, out});
              });
          Value updated = tensor::InsertSliceOp::create(
              b, l, step.getResult(1), iter[0], offsets, sliceSizes, strides);
          scf::YieldOp::create(b, l, ValueRange{updated, step.getResult(0)});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

} // namespace

void tolinalg::populateReductionPatterns(const TypeConverter &tc,
                                         RewritePatternSet &p) {
  p.add<ConvertReduce<SumOp, Combine::Sum>,
        ConvertReduce<ProdOp, Combine::Prod>,
        ConvertReduce<ReduceMaxOp, Combine::Max>,
        ConvertReduce<ReduceMinOp, Combine::Min>,
        ConvertReduce<AnyOp, Combine::Any>, ConvertReduce<AllOp, Combine::All>,
        ConvertArgReduce<ArgMaxOp, true>, ConvertArgReduce<ArgMinOp, false>,
        ConvertCumsum>(tc, p.getContext());
}
