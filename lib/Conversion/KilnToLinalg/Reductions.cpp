//===- Reductions.cpp - Reductions and scans to linalg --------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Reductions are generics with reduction iterators into a linalg.fill of
// the identity, in the accumulator type the op names (ReductionOpInterface:
// a float product in f64, halves in f32). argmax/argmin carry (value, index)
// pairs whose combine rule is order-independent (NaN wins, then the
// larger/smaller value, then the smaller index), so the result is Flex's "first
// extreme, first NaN" however the loop is split. cumsum is a sequential scan:
// an scf.for along the axis carrying the running sum of one slice.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "kiln/Conversion/ElementwiseEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::tolinalg;

namespace {

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

/// A reduction with a combine: its identity, combine and accumulator type
/// come from the op (ReductionOpInterface), as in every code generator.
struct ConvertReduce : OpInterfaceConversionPattern<ReductionOpInterface> {
  using OpInterfaceConversionPattern::OpInterfaceConversionPattern;

  LogicalResult
  matchAndRewrite(ReductionOpInterface reduction, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *op = reduction;
    Location loc = op->getLoc();
    Value input = operands[0];
    Type kiln = kilnElementOf(op->getOperand(0));
    Type storage = storageTypeOf(kiln);
    Type acc = reduction.getAccumulatorType(storage);
    Type accKiln = acc == storage ? kiln : acc;
    ArrayRef<int64_t> axes =
        llvm::cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef();
    bool keepdim = op->hasAttr("keepdim");
    unsigned rank = llvm::cast<RankedTensorType>(input.getType()).getRank();

    SmallVector<OpFoldResult> sizes;
    AffineMap outMap;
    reducedShape(rewriter, loc, input, axes, keepdim, sizes, outMap);
    Value init = filledTensor(rewriter, loc, sizes,
                              reduction.buildIdentity(rewriter, loc, acc));
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()}, ValueRange{input},
            ValueRange{init},
            ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank), outMap},
            iteratorTypes(rank, axes),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value x = emitCast(b, l, args[0], kiln, accKiln);
              linalg::YieldOp::create(b, l,
                                      reduction.buildCombine(b, l, args[1], x));
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
    ::kiln::ReductionKind kind =
        IsMax ? ::kiln::ReductionKind::Max : ::kiln::ReductionKind::Min;
    // (worst value, index 0): a real element at index 0 ties with it and
    // keeps index 0, which is also what an all-extreme row must give.
    Value bestInit =
        filledTensor(rewriter, loc, sizes,
                     buildReductionIdentity(rewriter, loc, kind, storage,
                                            kiln.isUnsignedInteger()));
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
    // No elements: nothing to scan (and a slice of one would not fit).
    if (hasNoElements(type)) {
      rewriter.replaceOp(op, result);
      return success();
    }
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
  p.add<ConvertReduce, ConvertArgReduce<ArgMaxOp, true>,
        ConvertArgReduce<ArgMinOp, false>, ConvertCumsum>(tc, p.getContext());
}
