//===- KilnToLinalg.cpp - The convert-kiln-to-linalg pass -----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The pass, its type converter and the patterns that only move values
// around (function boundaries, detach, leftover non-kiln ops on kiln
// types). The per-op lowerings live in the files next to this one.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "kiln/Conversion/ElementwiseEmitter.h"
#include "kiln/Conversion/KilnToLinalg.h"
#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_CONVERTKILNTOLINALG
#include "kiln/Conversion/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;
using namespace mlir::kiln::tolinalg;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

KilnToLinalgTypeConverter::KilnToLinalgTypeConverter() {
  // Conversions are tried last-added first.
  addConversion([](Type t) { return t; });
  addConversion([](RankedTensorType t) -> std::optional<Type> {
    if (t.getEncoding())
      return std::nullopt;
    Type e = storageTypeOf(t.getElementType());
    if (e == t.getElementType())
      return t;
    return RankedTensorType::get(t.getShape(), e);
  });
  addConversion([](RankedTensorType t,
                   SmallVectorImpl<Type> &out) -> std::optional<LogicalResult> {
    QuantSchemeAttr scheme = getQuantScheme(t);
    if (!scheme)
      return std::nullopt;
    MLIRContext *ctx = t.getContext();
    int64_t n = t.hasStaticShape() ? t.getNumElements() : ShapedType::kDynamic;
    int64_t bytes = n, scales = 1;
    if (!ShapedType::isDynamic(n)) {
      if (scheme.getValueBits() == 4)
        bytes = (n + 1) / 2;
      if (!scheme.isPerTensor())
        scales = n / scheme.getBlockSize();
    } else if (!scheme.isPerTensor()) {
      scales = ShapedType::kDynamic;
    }
    out.push_back(RankedTensorType::get({bytes}, IntegerType::get(ctx, 8)));
    out.push_back(RankedTensorType::get({scales}, scheme.getScaleType()));
    // A flat buffer forgets the shape; dynamic dims travel next to it.
    out.append(t.getNumDynamicDims(), IndexType::get(ctx));
    return success();
  });
}

//===----------------------------------------------------------------------===//
// Patterns that only forward values
//===----------------------------------------------------------------------===//

namespace {

struct ConvertDetach : OpConversionPattern<DetachOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DetachOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

/// A non-kiln op without regions whose operands or results have kiln types
/// (tensor.cast and tensor.dim that --kiln-decompose leaves on ui8
/// tensors): the same op on the converted types.
struct ConvertOtherOpTypes : ConversionPattern {
  ConvertOtherOpTypes(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumRegions() != 0 || llvm::isa<KilnDialect>(op->getDialect()))
      return failure();
    SmallVector<Type> types;
    if (failed(typeConverter->convertTypes(op->getResultTypes(), types)) ||
        types.size() != op->getNumResults())
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, types,
                         op->getAttrs(), op->getSuccessors());
    Operation *clone = rewriter.create(state);
    rewriter.replaceOp(op, clone->getResults());
    return success();
  }
};

} // namespace

void mlir::kiln::populateKilnToLinalgConversionPatterns(
    const TypeConverter &tc, RewritePatternSet &patterns, bool indexChecks) {
  MLIRContext *ctx = patterns.getContext();
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, tc);
  populateCallOpTypeConversionPattern(patterns, tc);
  populateReturnOpTypeConversionPattern(patterns, tc);
  patterns.add<ConvertDetach, ConvertOtherOpTypes>(tc, ctx);
  populateCreationPatterns(tc, patterns);
  populateElementwisePatterns(tc, patterns);
  populateReductionPatterns(tc, patterns);
  populateMatmulPatterns(tc, patterns);
  populateShapePatterns(tc, patterns);
  populateIndexingPatterns(tc, patterns, indexChecks);
  populateNNPatterns(tc, patterns);
  populateQuantPatterns(tc, patterns);
}

void mlir::kiln::declareBadIndexFn(ModuleOp module) {
  if (module.lookupSymbol(kBadIndexFn))
    return;
  OpBuilder b(module.getBodyRegion());
  Type i64 = b.getI64Type();
  auto decl = func::FuncOp::create(b, module.getLoc(), kBadIndexFn,
                                   b.getFunctionType({i64, i64, i64}, {}));
  decl.setPrivate();
}

void mlir::kiln::configureKilnToLinalgTarget(ConversionTarget &target,
                                             const TypeConverter &tc) {
  target.addIllegalDialect<KilnDialect>();
  target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                         math::MathDialect, scf::SCFDialect,
                         tensor::TensorDialect>();
  target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
    return tc.isSignatureLegal(op.getFunctionType()) &&
           tc.isLegal(&op.getBody());
  });
  // Everything else is legal once it no longer touches a kiln type.
  target.markUnknownOpDynamicallyLegal(
      [&](Operation *op) { return tc.isLegal(op); });
  target.addDynamicallyLegalDialect<tensor::TensorDialect>(
      [&](Operation *op) { return tc.isLegal(op); });
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {

struct ConvertKilnToLinalgPass
    : public mlir::kiln::impl::ConvertKilnToLinalgBase<
          ConvertKilnToLinalgPass> {
  using ConvertKilnToLinalgBase::ConvertKilnToLinalgBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ModuleOp module = getOperation();

    // The backward graph does not exist yet: say so instead of failing to
    // legalize.
    WalkResult grads = module.walk([](GradOp op) {
      op.emitOpError("cannot be lowered to linalg: run --kiln-autodiff first");
      return WalkResult::interrupt();
    });
    if (grads.wasInterrupted())
      return signalPassFailure();

    // Composites first, so that only primitives reach the conversion.
    RewritePatternSet decompose(ctx);
    populateDecomposePatterns(decompose);
    if (failed(applyPatternsGreedily(module, std::move(decompose))))
      return signalPassFailure();

    if (indexChecks && module
                           .walk([](Operation *op) {
                             return llvm::isa<GatherOp, IndexSelectOp,
                                              EmbeddingOp, ScatterAddOp>(op)
                                        ? WalkResult::interrupt()
                                        : WalkResult::advance();
                           })
                           .wasInterrupted())
      declareBadIndexFn(module);

    KilnToLinalgTypeConverter converter;
    ConversionTarget target(*ctx);
    configureKilnToLinalgTarget(target, converter);
    RewritePatternSet patterns(ctx);
    populateKilnToLinalgConversionPatterns(converter, patterns, indexChecks);
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
