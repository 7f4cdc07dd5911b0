//===- Elementwise.cpp - Elementwise kiln ops to linalg.generic -----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// One pattern for every op with the Kiln_Elementwise fact: a linalg.generic
// over the result shape whose operands are read through numpy broadcast
// maps, and whose body is what ElementwiseEmitter says the op computes.
// kiln.expand is the same generic with an identity body.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "kiln/Conversion/ElementwiseEmitter.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::tolinalg;

namespace {

struct ConvertElementwise : ConversionPattern {
  ConvertElementwise(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchTraitOpTypeTag(),
                          TypeID::get<mlir::kiln::OpTrait::Elementwise>(),
                          /*benefit=*/1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    // These carry the fact but are not computed by the emitter: dequantize
    // has its own pattern, detach forwards, and the composites decompose.
    if (llvm::isa<DequantizeOp, DetachOp, MaskFillOp, DropoutOp>(op))
      return failure();
    Location loc = op->getLoc();
    auto resultType =
        convertedTensorType(*typeConverter, op->getResult(0).getType());
    if (!resultType)
      return failure();
    ArrayRef<int64_t> shape = resultType.getShape();
    MLIRContext *ctx = rewriter.getContext();

    // A dynamic result dim takes its size from an operand that is dynamic
    // there too (broadcasting never makes a dim dynamic otherwise).
    SmallVector<OpFoldResult> sizes;
    for (auto [d, size] : llvm::enumerate(shape)) {
      if (!ShapedType::isDynamic(size)) {
        sizes.push_back(rewriter.getIndexAttr(size));
        continue;
      }
      Value from;
      int64_t at = 0;
      for (Value v : operands) {
        auto t = llvm::cast<RankedTensorType>(v.getType());
        int64_t i = (int64_t)d - (int64_t)(shape.size() - t.getRank());
        if (i >= 0 && t.isDynamicDim(i)) {
          from = v;
          at = i;
          break;
        }
      }
      if (!from)
        return rewriter.notifyMatchFailure(op, "no operand gives dynamic dim");
      sizes.push_back(
          tensor::DimOp::create(rewriter, loc, from, at).getResult());
    }

    SmallVector<AffineMap> maps;
    for (Value v : operands)
      maps.push_back(broadcastMap(
          llvm::cast<RankedTensorType>(v.getType()).getShape(), shape, ctx));
    maps.push_back(rewriter.getMultiDimIdentityMap(shape.size()));

    Value init = emptyTensor(rewriter, loc, sizes, resultType.getElementType());
    bool emitted = true;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, operands, ValueRange{init}, maps,
        iteratorTypes(shape.size()),
        [&](OpBuilder &b, Location l, ValueRange args) {
          FailureOr<Value> v = emitElementwise(b, l, op, args.drop_back());
          emitted = succeeded(v);
          linalg::YieldOp::create(b, l, emitted ? *v : args.back());
        });
    if (!emitted)
      return op->emitOpError("has no elementwise semantics to lower");
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void tolinalg::populateElementwisePatterns(const TypeConverter &tc,
                                           RewritePatternSet &p) {
  p.add<ConvertElementwise>(tc, p.getContext());
}
