//===- Matmul.cpp - kiln.matmul to linalg ---------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Plain [m, k] x [k, n] becomes linalg.matmul and equal-batch 3-D operands
// linalg.batch_matmul, which the CPU pipeline's matmul schedule targets.
// Anything else (batch broadcasting, more batch dims) is the same
// contraction written as a linalg.generic with broadcast batch maps.
// f16/bf16 accumulate in f32 and round once at the end.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "kiln/Conversion/ElementwiseEmitter.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::tolinalg;

namespace {

struct ConvertMatmul : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = llvm::cast<RankedTensorType>(lhs.getType());
    auto rt = llvm::cast<RankedTensorType>(rhs.getType());
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    Type kiln = op.getType().getElementType();
    Type storage = resultType.getElementType();
    Type acc = accumulatorType(storage);
    Type accKiln = acc == storage ? kiln : acc;
    ArrayRef<int64_t> shape = resultType.getShape();
    int64_t rank = shape.size();

    // Result sizes: batch dims from whichever operand is not broadcast
    // there, then m from lhs and n from rhs.
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank - 2; ++d) {
      if (!ShapedType::isDynamic(shape[d])) {
        sizes.push_back(rewriter.getIndexAttr(shape[d]));
        continue;
      }
      int64_t li = d - (rank - lt.getRank()), ri = d - (rank - rt.getRank());
      if (li >= 0 && lt.isDynamicDim(li))
        sizes.push_back(
            tensor::DimOp::create(rewriter, loc, lhs, li).getResult());
      else
        sizes.push_back(
            tensor::DimOp::create(rewriter, loc, rhs, ri).getResult());
    }
    sizes.push_back(sizeOf(rewriter, loc, lhs, lt.getRank() - 2));
    sizes.push_back(sizeOf(rewriter, loc, rhs, rt.getRank() - 1));
    Value init =
        filledTensor(rewriter, loc, sizes, constantOf(rewriter, loc, acc, 0));

    auto sameBatch = [&] {
      for (int64_t d = 0; d < rank - 2; ++d)
        if (lt.getDimSize(d) != rt.getDimSize(d) ||
            ShapedType::isDynamic(lt.getDimSize(d)))
          return false;
      return true;
    };
    Value product;
    if (lt.getRank() == 2 && rt.getRank() == 2) {
      product = linalg::MatmulOp::create(rewriter, loc, ValueRange{lhs, rhs},
                                         ValueRange{init})
                    .getResult(0);
    } else if (lt.getRank() == 3 && rt.getRank() == 3 && sameBatch()) {
      product = linalg::BatchMatmulOp::create(
                    rewriter, loc, ValueRange{lhs, rhs}, ValueRange{init})
                    .getResult(0);
    } else {
      // Loops: the result dims, then k.
      MLIRContext *ctx = rewriter.getContext();
      unsigned loops = rank + 1;
      auto operandMap = [&](RankedTensorType t, AffineExpr a, AffineExpr b) {
        SmallVector<int64_t> batchOf(shape.begin(), shape.end() - 2);
        AffineMap batch = broadcastMap(t.getShape().drop_back(2), batchOf, ctx);
        SmallVector<AffineExpr> exprs(batch.getResults());
        exprs.push_back(a);
        exprs.push_back(b);
        return AffineMap::get(loops, 0, exprs, ctx);
      };
      AffineExpr m = getAffineDimExpr(rank - 2, ctx),
                 n = getAffineDimExpr(rank - 1, ctx),
                 k = getAffineDimExpr(rank, ctx);
      SmallVector<AffineExpr> outExprs;
      for (int64_t d = 0; d < rank; ++d)
        outExprs.push_back(getAffineDimExpr(d, ctx));
      product =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{init.getType()}, ValueRange{lhs, rhs},
              ValueRange{init},
              ArrayRef<AffineMap>{operandMap(lt, m, k), operandMap(rt, k, n),
                                  AffineMap::get(loops, 0, outExprs, ctx)},
              iteratorTypes(loops, {rank}),
              [&](OpBuilder &b, Location l, ValueRange args) {
                Value x = emitCast(b, l, args[0], kiln, accKiln);
                Value y = emitCast(b, l, args[1], kiln, accKiln);
                linalg::YieldOp::create(
                    b, l, addScalars(b, l, args[2], mulScalars(b, l, x, y)));
              })
              .getResult(0);
    }
    Value result = castTensor(rewriter, loc, product, accKiln, kiln);
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tolinalg::populateMatmulPatterns(const TypeConverter &tc,
                                      RewritePatternSet &p) {
  p.add<ConvertMatmul>(tc, p.getContext());
}
