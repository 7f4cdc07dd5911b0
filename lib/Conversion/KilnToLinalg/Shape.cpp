//===- Shape.cpp - Layout and shape kiln ops to tensor and linalg ---------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// reshape, squeeze and unsqueeze are collapse/expand_shape; permute is
// linalg.transpose; slice, slice_assign, split and concat are strided
// extract/insert_slice; pad is tensor.pad. flip and repeat read their input
// at a computed index, so they are generics that tensor.extract.
// (expand is elementwise: see Elementwise.cpp.)
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::tolinalg;

namespace {

/// Reshape-like ops: result dims are either static or copied from an
/// input dim (`sourceDim(d)`), or, for reshape's -1, the leftover count.
template <typename OpTy> struct ConvertReshapeLike : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto resultType =
        convertedTensorType(*this->typeConverter, op.getResult().getType());
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < resultType.getRank(); ++d) {
      if (!resultType.isDynamicDim(d)) {
        sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(d)));
        continue;
      }
      FailureOr<Value> size = dynamicSize(rewriter, loc, op, input, d);
      if (failed(size))
        return rewriter.notifyMatchFailure(op, "cannot size a dynamic dim");
      sizes.push_back(*size);
    }
    rewriter.replaceOp(op,
                       reshapeTensor(rewriter, loc, input, resultType, sizes));
    return success();
  }

  FailureOr<Value> dynamicSize(OpBuilder &b, Location loc, OpTy op, Value input,
                               int64_t d) const;
};

template <>
FailureOr<Value> ConvertReshapeLike<ReshapeOp>::dynamicSize(
    OpBuilder &b, Location loc, ReshapeOp op, Value input, int64_t d) const {
  // The -1 dim: what the other (static) target dims leave.
  int64_t known = 1;
  for (auto [i, t] : llvm::enumerate(op.getShape()))
    if ((int64_t)i != d)
      known *= t;
  if (known <= 0)
    return failure();
  return arith::DivUIOp::create(b, loc, numElementsOf(b, loc, input),
                                indexConstant(b, loc, known))
      .getResult();
}

template <>
FailureOr<Value> ConvertReshapeLike<SqueezeOp>::dynamicSize(
    OpBuilder &b, Location loc, SqueezeOp op, Value input, int64_t d) const {
  int64_t kept = -1;
  auto rank = llvm::cast<RankedTensorType>(input.getType()).getRank();
  for (int64_t i = 0; i < rank; ++i) {
    if (llvm::is_contained(op.getAxes(), i))
      continue;
    if (++kept == d)
      return dimValue(b, loc, input, i);
  }
  return failure();
}

template <>
FailureOr<Value> ConvertReshapeLike<UnsqueezeOp>::dynamicSize(
    OpBuilder &b, Location loc, UnsqueezeOp op, Value input, int64_t d) const {
  int64_t from = d;
  for (int64_t a : op.getAxes())
    if (a < d)
      --from;
  return dimValue(b, loc, input, from);
}

struct ConvertPermute : OpConversionPattern<PermuteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PermuteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> in = sizesOf(rewriter, loc, adaptor.getInput());
    SmallVector<OpFoldResult> sizes;
    for (int64_t p : op.getDims())
      sizes.push_back(in[p]);
    auto type = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
    Value init = emptyTensor(rewriter, loc, sizes, type.getElementType());
    rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, loc,
                                                       adaptor.getInput(), init,
                                                       op.getDims())
                               .getResult());
    return success();
  }
};

/// ceil((min(end, size) - start) / step), at least 0.
OpFoldResult sliceLength(OpBuilder &b, Location loc, Value size, int64_t start,
                         int64_t end, int64_t step) {
  Value e = arith::MinSIOp::create(b, loc, size, indexConstant(b, loc, end));
  Value diff = arith::SubIOp::create(b, loc, e, indexConstant(b, loc, start));
  Value zero = indexConstant(b, loc, 0), one = indexConstant(b, loc, 1);
  Value len = arith::AddIOp::create(
      b, loc,
      arith::DivSIOp::create(b, loc, arith::SubIOp::create(b, loc, diff, one),
                             indexConstant(b, loc, step)),
      one);
  Value positive =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, diff, zero);
  return arith::SelectOp::create(b, loc, positive, len, zero).getResult();
}

struct ConvertSlice : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < resultType.getRank(); ++d) {
      if (!resultType.isDynamicDim(d))
        sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(d)));
      else
        sizes.push_back(
            sliceLength(rewriter, loc, dimValue(rewriter, loc, input, d),
                        op.getStarts()[d], op.getEnds()[d], op.getSteps()[d]));
    }
    // An empty slice reads nothing; its start may lie past the end, which
    // extract_slice rejects.
    if (hasNoElements(resultType)) {
      rewriter.replaceOp(
          op, emptyTensor(rewriter, loc, sizes, resultType.getElementType()));
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, resultType, input,
        getAsIndexOpFoldResult(getContext(), op.getStarts()), sizes,
        getAsIndexOpFoldResult(getContext(), op.getSteps()));
    return success();
  }
};

struct ConvertSliceAssign : OpConversionPattern<SliceAssignOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceAssignOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value value = adaptor.getValue();
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    // An empty value writes nothing (and may start past the end).
    if (hasNoElements(value.getType())) {
      Value dest = adaptor.getDest();
      if (dest.getType() != resultType)
        dest = tensor::CastOp::create(rewriter, loc, resultType, dest);
      rewriter.replaceOp(op, dest);
      return success();
    }
    Value result = tensor::InsertSliceOp::create(
        rewriter, loc, value, adaptor.getDest(),
        getAsIndexOpFoldResult(getContext(), op.getStarts()),
        sizesOf(rewriter, loc, value),
        getAsIndexOpFoldResult(getContext(), op.getSteps()));
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// a + b on sizes, folded when both are static.
OpFoldResult addSizes(OpBuilder &b, Location loc, OpFoldResult x,
                      OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx + *cy);
  return arith::AddIOp::create(b, loc, toIndexValue(b, loc, x),
                               toIndexValue(b, loc, y))
      .getResult();
}

struct ConvertConcat : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    ValueRange inputs = adaptor.getInputs();
    // Other dims: any input that knows the size statically, else the first.
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < resultType.getRank(); ++d) {
      if (!resultType.isDynamicDim(d)) {
        sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(d)));
        continue;
      }
      if (d != axis) {
        sizes.push_back(dimValue(rewriter, loc, inputs[0], d));
        continue;
      }
      OpFoldResult total = rewriter.getIndexAttr(0);
      for (Value in : inputs)
        total = addSizes(rewriter, loc, total, sizeOf(rewriter, loc, in, d));
      sizes.push_back(total);
    }
    Value result =
        emptyTensor(rewriter, loc, sizes, resultType.getElementType());
    OpFoldResult at = rewriter.getIndexAttr(0);
    for (Value in : inputs) {
      // An input with no elements inserts nothing, and its offset may be
      // the axis's end, which insert_slice rejects.
      if (hasNoElements(in.getType()))
        continue;
      SmallVector<OpFoldResult> offsets(resultType.getRank(),
                                        rewriter.getIndexAttr(0));
      offsets[axis] = at;
      SmallVector<OpFoldResult> inSizes = sizesOf(rewriter, loc, in);
      SmallVector<OpFoldResult> strides(resultType.getRank(),
                                        rewriter.getIndexAttr(1));
      result = tensor::InsertSliceOp::create(rewriter, loc, in, result, offsets,
                                             inSizes, strides);
      at = addSizes(rewriter, loc, at, inSizes[axis]);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertSplit : OpConversionPattern<SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    int64_t axis = op.getAxis();
    auto rank = llvm::cast<RankedTensorType>(input.getType()).getRank();
    SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, input);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<Value> results;
    int64_t at = 0;
    for (auto [k, size] : llvm::enumerate(op.getSizes())) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(at);
      sizes[axis] = rewriter.getIndexAttr(size);
      auto type =
          convertedTensorType(*typeConverter, op.getResult(k).getType());
      at += size;
      if (size == 0) {
        // Past the end when it comes last: nothing to read.
        results.push_back(
            emptyTensor(rewriter, loc, sizes, type.getElementType()));
        continue;
      }
      results.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, type, input, offsets, sizes, strides));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// A generic over `sizes` whose element is input[index(ivs)].
template <typename IndexFn>
Value gatherFrom(OpBuilder &b, Location loc, Value input,
                 ArrayRef<OpFoldResult> sizes, IndexFn index) {
  auto type = llvm::cast<RankedTensorType>(input.getType());
  unsigned rank = type.getRank();
  Value init = emptyTensor(b, loc, sizes, type.getElementType());
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
             ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)},
             iteratorTypes(rank),
             [&](OpBuilder &nb, Location l, ValueRange) {
               SmallVector<Value> at = index(nb, l, loopIndices(nb, l, rank));
               linalg::YieldOp::create(
                   nb, l,
                   tensor::ExtractOp::create(nb, l, input, at).getResult());
             })
      .getResult(0);
}

struct ConvertFlip : OpConversionPattern<FlipOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FlipOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    ArrayRef<int64_t> axes = op.getAxes();
    SmallVector<Value> last;
    auto rank = llvm::cast<RankedTensorType>(input.getType()).getRank();
    for (int64_t d = 0; d < rank; ++d)
      last.push_back(llvm::is_contained(axes, d)
                         ? arith::SubIOp::create(
                               rewriter, loc, dimValue(rewriter, loc, input, d),
                               indexConstant(rewriter, loc, 1))
                               .getResult()
                         : Value());
    Value result =
        gatherFrom(rewriter, loc, input, sizesOf(rewriter, loc, input),
                   [&](OpBuilder &b, Location l, SmallVector<Value> ivs) {
                     for (size_t d = 0; d < ivs.size(); ++d)
                       if (last[d])
                         ivs[d] = arith::SubIOp::create(b, l, last[d], ivs[d]);
                     return ivs;
                   });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertRepeat : OpConversionPattern<RepeatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RepeatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto rank = llvm::cast<RankedTensorType>(input.getType()).getRank();
    SmallVector<Value> in;
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d) {
      in.push_back(dimValue(rewriter, loc, input, d));
      int64_t r = op.getRepeats()[d];
      std::optional<int64_t> c = getConstantIntValue(in.back());
      sizes.push_back(c ? OpFoldResult(rewriter.getIndexAttr(*c * r))
                        : OpFoldResult(arith::MulIOp::create(
                                           rewriter, loc, in.back(),
                                           indexConstant(rewriter, loc, r))
                                           .getResult()));
    }
    Value result =
        gatherFrom(rewriter, loc, input, sizes,
                   [&](OpBuilder &b, Location l, SmallVector<Value> ivs) {
                     for (size_t d = 0; d < ivs.size(); ++d)
                       if (op.getRepeats()[d] != 1)
                         ivs[d] = arith::RemUIOp::create(b, l, ivs[d], in[d]);
                     return ivs;
                   });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertPad : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = convertedTensorType(*typeConverter, op.getType());
    Value value = attrConstant(rewriter, loc, op.getType().getElementType(),
                               op.getValue().convertToDouble());
    // Padding nothing gives the pad value alone (tensor.pad of an empty
    // input would insert it at an offset past the end).
    Value input = adaptor.getInput();
    if (hasNoElements(input.getType())) {
      SmallVector<OpFoldResult> sizes;
      for (int64_t d = 0; d < resultType.getRank(); ++d) {
        if (!resultType.isDynamicDim(d)) {
          sizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(d)));
          continue;
        }
        OpFoldResult n =
            addSizes(rewriter, loc, sizeOf(rewriter, loc, input, d),
                     rewriter.getIndexAttr(op.getLow()[d]));
        sizes.push_back(
            addSizes(rewriter, loc, n, rewriter.getIndexAttr(op.getHigh()[d])));
      }
      rewriter.replaceOp(op, filledTensor(rewriter, loc, sizes, value));
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::PadOp>(
        op, resultType, adaptor.getInput(),
        getAsIndexOpFoldResult(getContext(), op.getLow()),
        getAsIndexOpFoldResult(getContext(), op.getHigh()), value);
    return success();
  }
};

} // namespace

void tolinalg::populateShapePatterns(const TypeConverter &tc,
                                     RewritePatternSet &p) {
  p.add<ConvertReshapeLike<ReshapeOp>, ConvertReshapeLike<SqueezeOp>,
        ConvertReshapeLike<UnsqueezeOp>, ConvertPermute, ConvertSlice,
        ConvertSliceAssign, ConvertConcat, ConvertSplit, ConvertFlip,
        ConvertRepeat, ConvertPad>(tc, p.getContext());
}
