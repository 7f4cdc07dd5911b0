//===- Indexing.cpp - Gather, scatter and friends to linalg ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The reads (gather, index_select, embedding) are generics over the result
// that tensor.extract at an index clamped into range, as Flex does; one_hot
// compares the class with the loop index, so out-of-range indices give a
// zero row. scatter_add is a read-modify-write where two updates may hit
// one element: an scf.for nest over the updates that skips out-of-range
// indices. With index checks on (the Cpu backend), every index outside
// [0, size) also calls the runtime's kBadIndexFn(site, index, size), which
// records the first one so that the materialization throws.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "kiln/Conversion/ElementwiseEmitter.h"
#include "kiln/Conversion/KilnToLinalg.h"
#include "kiln/Support/IndexCheck.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::tolinalg;

namespace {

/// A pattern that may check its indices.
template <typename Op> struct IndexingPattern : OpConversionPattern<Op> {
  IndexingPattern(const TypeConverter &tc, MLIRContext *ctx, bool checks)
      : OpConversionPattern<Op>(tc, ctx), checks(checks) {}
  /// With checks on, an index `j` outside [0, n) calls kBadIndexFn.
  void check(OpBuilder &b, Location l, ::kiln::IndexSite site, Value j,
             Value n) const {
    if (!checks)
      return;
    Value bad = arith::XOrIOp::create(b, l, inRange(b, l, j, n),
                                      arith::ConstantIntOp::create(b, l, 1, 1));
    auto ifBad = scf::IfOp::create(b, l, TypeRange{}, bad, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifBad.getThenRegion().front());
    Type i64 = b.getI64Type();
    func::CallOp::create(b, l, kBadIndexFn, TypeRange{},
                         ValueRange{arith::ConstantIntOp::create(
                                        b, l, static_cast<int64_t>(site), 64),
                                    arith::IndexCastOp::create(b, l, i64, j),
                                    arith::IndexCastOp::create(b, l, i64, n)});
  }
  bool checks;
};

/// A generic over `indices`' iteration space extended by `extraDims` trailing
/// loops, reading `indices` at its own (leading) dims and producing a tensor
/// of `sizes` and `elementType`: element = body(index value, loop indices).
template <typename BodyFn>
Value indexedGeneric(OpBuilder &b, Location loc, Value indices,
                     AffineMap indicesMap, ArrayRef<OpFoldResult> sizes,
                     Type elementType, BodyFn body) {
  unsigned rank = sizes.size();
  Value init = emptyTensor(b, loc, sizes, elementType);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{indices},
             ValueRange{init},
             ArrayRef<AffineMap>{indicesMap, b.getMultiDimIdentityMap(rank)},
             iteratorTypes(rank),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l,
                                       body(nb, l, asIndex(nb, l, args[0]),
                                            loopIndices(nb, l, rank)));
             })
      .getResult(0);
}

struct ConvertGather : IndexingPattern<GatherOp> {
  using IndexingPattern::IndexingPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), indices = adaptor.getIndices();
    int64_t axis = op.getAxis();
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    Value n = dimValue(rewriter, loc, input, axis);
    unsigned rank = resultType.getRank();
    Value result = indexedGeneric(
        rewriter, loc, indices, rewriter.getMultiDimIdentityMap(rank),
        sizesOf(rewriter, loc, indices), resultType.getElementType(),
        [&](OpBuilder &b, Location l, Value j, SmallVector<Value> ivs) {
          check(b, l, ::kiln::IndexSite::Gather, j, n);
          ivs[axis] = clampIndex(b, l, j, n);
          return tensor::ExtractOp::create(b, l, input, ivs).getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertIndexSelect : IndexingPattern<IndexSelectOp> {
  using IndexingPattern::IndexingPattern;
  LogicalResult
  matchAndRewrite(IndexSelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), indices = adaptor.getIndices();
    int64_t axis = op.getAxis();
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    unsigned rank = resultType.getRank();
    Value n = dimValue(rewriter, loc, input, axis);
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, input);
    sizes[axis] = sizeOf(rewriter, loc, indices, 0);
    AffineMap map = AffineMap::get(rank, 0, rewriter.getAffineDimExpr(axis));
    Value result = indexedGeneric(
        rewriter, loc, indices, map, sizes, resultType.getElementType(),
        [&](OpBuilder &b, Location l, Value j, SmallVector<Value> ivs) {
          check(b, l, ::kiln::IndexSite::IndexSelect, j, n);
          ivs[axis] = clampIndex(b, l, j, n);
          return tensor::ExtractOp::create(b, l, input, ivs).getResult();
        });
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// embedding normally decomposes into index_select; this covers the
/// shapes the decomposition leaves (several dynamic index dims).
struct ConvertEmbedding : IndexingPattern<EmbeddingOp> {
  using IndexingPattern::IndexingPattern;
  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value weight = adaptor.getWeight(), indices = adaptor.getIndices();
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    unsigned rank = resultType.getRank();
    Value rows = dimValue(rewriter, loc, weight, 0);
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, indices);
    sizes.push_back(sizeOf(rewriter, loc, weight, 1));
    AffineMap map = AffineMap::getMultiDimIdentityMap(rank - 1, getContext());
    map = AffineMap::get(rank, 0, map.getResults(), getContext());
    Value result = indexedGeneric(
        rewriter, loc, indices, map, sizes, resultType.getElementType(),
        [&](OpBuilder &b, Location l, Value j, SmallVector<Value> ivs) {
          check(b, l, ::kiln::IndexSite::Embedding, j, rows);
          Value at[] = {clampIndex(b, l, j, rows), ivs.back()};
          return tensor::ExtractOp::create(b, l, weight, at).getResult();
        });
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertOneHot : OpConversionPattern<OneHotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OneHotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value indices = adaptor.getIndices();
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    unsigned rank = resultType.getRank();
    if (resultType.isDynamicDim(rank - 1))
      return rewriter.notifyMatchFailure(op, "the class count must be static");
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, indices);
    sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(rank - 1)));
    AffineMap map = AffineMap::getMultiDimIdentityMap(rank - 1, getContext());
    map = AffineMap::get(rank, 0, map.getResults(), getContext());
    Type e = resultType.getElementType();
    Value result = indexedGeneric(
        rewriter, loc, indices, map, sizes, e,
        [&](OpBuilder &b, Location l, Value j, SmallVector<Value> ivs) {
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, j,
                                            ivs.back());
          return arith::SelectOp::create(b, l, hit, constantOf(b, l, e, 1),
                                         constantOf(b, l, e, 0))
              .getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertScatterAdd : IndexingPattern<ScatterAddOp> {
  using IndexingPattern::IndexingPattern;
  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value updates = adaptor.getUpdates(), indices = adaptor.getIndices();
    int64_t axis = op.getAxis();
    auto rank = llvm::cast<RankedTensorType>(updates.getType()).getRank();
    // Halves accumulate in f32 and round once, as Flex does.
    Type kiln = op.getType().getElementType();
    Type storage = storageTypeOf(kiln);
    Type acc = accumulatorType(storage);
    Type accKiln = acc == storage ? kiln : acc;
    Value input = castTensor(rewriter, loc, adaptor.getInput(), kiln, accKiln);
    Value n = dimValue(rewriter, loc, input, axis);
    SmallVector<Value> lbs(rank, indexConstant(rewriter, loc, 0));
    SmallVector<Value> steps(rank, indexConstant(rewriter, loc, 1));
    SmallVector<Value> ubs;
    for (int64_t d = 0; d < rank; ++d)
      ubs.push_back(dimValue(rewriter, loc, updates, d));
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, ValueRange{input},
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange iter) -> scf::ValueVector {
          Value u =
              emitCast(b, l, tensor::ExtractOp::create(b, l, updates, ivs),
                       kiln, accKiln);
          Value j =
              asIndex(b, l, tensor::ExtractOp::create(b, l, indices, ivs));
          check(b, l, ::kiln::IndexSite::ScatterAdd, j, n);
          SmallVector<Value> at(ivs);
          at[axis] = clampIndex(b, l, j, n);
          Value cur = tensor::ExtractOp::create(b, l, iter[0], at);
          // An out-of-range index writes the element back unchanged.
          Value next = arith::SelectOp::create(b, l, inRange(b, l, j, n),
                                               addScalars(b, l, cur, u), cur);
          return {tensor::InsertOp::create(b, l, next, iter[0], at)};
        });
    Value result = castTensor(rewriter, loc,
                              nest.results.empty() ? input : nest.results[0],
                              accKiln, kiln);
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tolinalg::populateIndexingPatterns(const TypeConverter &tc,
                                        RewritePatternSet &p,
                                        bool indexChecks) {
  p.add<ConvertGather, ConvertIndexSelect, ConvertEmbedding, ConvertScatterAdd>(
      tc, p.getContext(), indexChecks);
  p.add<ConvertOneHot>(tc, p.getContext());
}
