//===- KilnVerifiers.cpp - Verifiers and builders of kiln ops -------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Rules that result-type inference does not already check: ops whose result
// type is given (creation, cast, quantize) and per-op attribute ranges.
//
//===----------------------------------------------------------------------===//

#include "KilnInference.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Dynamic result dims must each come with one index operand.
LogicalResult verifyDynamicDims(Operation *op, RankedTensorType type,
                                ValueRange dynamicDims) {
  int64_t wanted = type.getNumDynamicDims();
  if ((int64_t)dynamicDims.size() != wanted)
    return op->emitOpError() << "result type " << type << " has " << wanted
                             << " dynamic dims but " << dynamicDims.size()
                             << " sizes were given";
  return success();
}

/// Can `value` be stored exactly in `element`? With `checkRange` false, an
/// integer dtype only needs an integral value (a step may be negative).
LogicalResult verifyScalarFits(Operation *op, Type element, double value,
                               StringRef what, bool checkRange = true) {
  if (element.isInteger(1)) {
    if (value != 0.0 && value != 1.0)
      return op->emitOpError() << what << " " << value
                               << " is not a bool (0 or 1)";
    return success();
  }
  if (auto it = llvm::dyn_cast<IntegerType>(element)) {
    if (std::isnan(value) || value != std::trunc(value))
      return op->emitOpError() << what << " " << value
                               << " is not an integer, but the dtype is "
                               << element;
    if (!checkRange)
      return success();
    unsigned width = it.getWidth();
    double lo = it.isUnsigned() ? 0.0 : -std::ldexp(1.0, width - 1);
    double end = std::ldexp(1.0, it.isUnsigned() ? width : width - 1);
    if (value < lo || value >= end)
      return op->emitOpError()
             << what << " " << value << " is out of range for " << element;
  }
  return success();
}

LogicalResult verifyPoolAttrs(Operation *op, ArrayRef<int64_t> inputShape,
                              ArrayRef<int64_t> kernel,
                              ArrayRef<int64_t> stride,
                              ArrayRef<int64_t> padding,
                              RankedTensorType gradType) {
  rules::Dims out;
  if (std::string e = rules::pool2d(inputShape, kernel, stride, padding, out);
      !e.empty())
    return op->emitOpError() << e;
  if (gradType.getShape() != ArrayRef<int64_t>(out))
    return op->emitOpError()
           << "gradient of shape " << rules::formatDims(gradType.getShape())
           << " does not match the pooled shape " << rules::formatDims(out);
  return success();
}

} // namespace

LogicalResult ConstantOp::verify() {
  auto type = llvm::dyn_cast<RankedTensorType>(getValue().getType());
  if (!type || !llvm::isa<DenseElementsAttr>(getValue()))
    return emitOpError() << "value must be a dense elements attribute";
  return success();
}

LogicalResult FullOp::verify() {
  auto type = getResult().getType();
  if (failed(verifyDynamicDims(*this, type, getDynamicDims())))
    return failure();
  return verifyScalarFits(*this, type.getElementType(),
                          getValue().convertToDouble(), "fill value");
}

LogicalResult ArangeOp::verify() {
  auto type = getResult().getType();
  if (type.getRank() != 1 || type.isDynamicDim(0))
    return emitOpError() << "result must be a static 1-D tensor, got " << type;
  if (getStep().convertToDouble() == 0.0)
    return emitOpError() << "step must not be zero";
  double start = getStart().convertToDouble();
  double step = getStep().convertToDouble();
  if (failed(verifyScalarFits(*this, type.getElementType(), start, "start")) ||
      failed(verifyScalarFits(*this, type.getElementType(), step, "step",
                              /*checkRange=*/false)))
    return failure();
  if (type.getDimSize(0) == 0)
    return success();
  return verifyScalarFits(*this, type.getElementType(),
                          start + (type.getDimSize(0) - 1) * step,
                          "last value");
}

LogicalResult EyeOp::verify() {
  auto type = getResult().getType();
  if (type.getRank() != 2 || !type.hasStaticShape())
    return emitOpError() << "result must be a static 2-D tensor, got " << type;
  return success();
}

LogicalResult RandOp::verify() {
  if (failed(verifyDynamicDims(*this, getResult().getType(), getDynamicDims())))
    return failure();
  if (!(getLow().convertToDouble() < getHigh().convertToDouble()))
    return emitOpError() << "needs low < high, got ["
                         << getLow().convertToDouble() << ", "
                         << getHigh().convertToDouble() << ")";
  return success();
}

LogicalResult RandnOp::verify() {
  if (failed(verifyDynamicDims(*this, getResult().getType(), getDynamicDims())))
    return failure();
  if (!(getStd().convertToDouble() >= 0.0))
    return emitOpError() << "standard deviation must be >= 0, got "
                         << getStd().convertToDouble();
  return success();
}

LogicalResult LeakyReluOp::verify() {
  if (!std::isfinite(getNegativeSlope().convertToDouble()))
    return emitOpError() << "negative_slope must be finite, got "
                         << getNegativeSlope().convertToDouble();
  return success();
}

LogicalResult EluOp::verify() {
  if (!std::isfinite(getAlpha().convertToDouble()))
    return emitOpError() << "alpha must be finite, got "
                         << getAlpha().convertToDouble();
  return success();
}

LogicalResult SoftplusOp::verify() {
  double beta = getBeta().convertToDouble();
  if (!(beta > 0) || !std::isfinite(beta))
    return emitOpError() << "beta must be finite and > 0, got " << beta;
  if (std::isnan(getThreshold().convertToDouble()))
    return emitOpError() << "threshold must not be NaN";
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  double e = getLabelSmoothing().convertToDouble();
  if (!(e >= 0 && e <= 1))
    return emitOpError() << "label_smoothing must be in [0, 1], got " << e;
  return success();
}

LogicalResult RopeOp::verify() {
  std::string m = ::kiln::rules::rope(getInput().getType().getShape(),
                                      getTheta().convertToDouble());
  if (!m.empty())
    return emitOpError() << m;
  return success();
}

LogicalResult RmsNormOp::verify() {
  if (!(getEps().convertToDouble() >= 0))
    return emitOpError() << "eps must be >= 0, got "
                         << getEps().convertToDouble();
  return success();
}

LogicalResult ClampOp::verify() {
  // Written so that a NaN bound fails too.
  if (!(getMin().convertToDouble() <= getMax().convertToDouble()))
    return emitOpError() << "needs min <= max, got ["
                         << getMin().convertToDouble() << ", "
                         << getMax().convertToDouble() << "]";
  return success();
}

LogicalResult PadOp::verify() {
  return verifyScalarFits(*this, getInput().getType().getElementType(),
                          getValue().convertToDouble(), "padding value");
}

LogicalResult MaskFillOp::verify() {
  return verifyScalarFits(*this, getInput().getType().getElementType(),
                          getValue().convertToDouble(), "fill value");
}

void CastOp::build(OpBuilder &builder, OperationState &state, Value input,
                   Type elementType) {
  auto in = llvm::cast<RankedTensorType>(input.getType());
  build(builder, state, RankedTensorType::get(in.getShape(), elementType),
        input);
}

LogicalResult CastOp::verify() {
  auto in = getInput().getType();
  auto out = getResult().getType();
  if (in.getShape() != out.getShape())
    return emitOpError() << "changes the shape from "
                         << rules::formatDims(in.getShape()) << " to "
                         << rules::formatDims(out.getShape());
  return success();
}

static LogicalResult verifyAxisOp(Operation *op, int64_t axis,
                                  RankedTensorType type) {
  if (std::string e = rules::checkAxis(axis, type.getRank()); !e.empty())
    return op->emitOpError() << e;
  return success();
}
LogicalResult CumsumOp::verify() {
  return verifyAxisOp(*this, getAxis(), getInput().getType());
}
LogicalResult ArgsortOp::verify() {
  return verifyAxisOp(*this, getAxis(), getInput().getType());
}
LogicalResult SoftmaxOp::verify() {
  return verifyAxisOp(*this, getAxis(), getInput().getType());
}
LogicalResult LogSoftmaxOp::verify() {
  return verifyAxisOp(*this, getAxis(), getInput().getType());
}

LogicalResult OneHotOp::verify() {
  auto in = getIndices().getType();
  auto out = getResult().getType();
  if (out.getRank() != in.getRank() + 1 ||
      out.getShape().drop_back() != in.getShape())
    return emitOpError() << "result shape " << rules::formatDims(out.getShape())
                         << " must be the indices shape "
                         << rules::formatDims(in.getShape())
                         << " plus a class dim";
  if (out.isDynamicDim(out.getRank() - 1) || out.getShape().back() < 1)
    return emitOpError() << "the class dim must be static and >= 1";
  return success();
}

LogicalResult DropoutOp::verify() {
  double p = getP().convertToDouble();
  if (!(p >= 0.0 && p < 1.0))
    return emitOpError() << "p must be in [0, 1), got " << p;
  return success();
}

LogicalResult QuantizeOp::verify() {
  auto in = getInput().getType();
  auto out = llvm::cast<RankedTensorType>(getResult().getType());
  if (in.getShape() != out.getShape())
    return emitOpError() << "changes the shape from "
                         << rules::formatDims(in.getShape()) << " to "
                         << rules::formatDims(out.getShape());
  return success();
}

LogicalResult DequantizeOp::verify() {
  auto in = llvm::cast<RankedTensorType>(getInput().getType());
  auto out = getResult().getType();
  if (in.getShape() != out.getShape())
    return emitOpError() << "changes the shape from "
                         << rules::formatDims(in.getShape()) << " to "
                         << rules::formatDims(out.getShape());
  return success();
}

/// The operands and the result of a backward op share one dtype.
static LogicalResult verifyBackwardDType(Operation *op) {
  SmallVector<Value> values(op->getOperands());
  values.push_back(op->getResult(0));
  Type element;
  return commonElementType(op->getName().getStringRef(), op->getLoc(), values,
                           element);
}

/// conv2d_backward_* describe a 2-D convolution; the shape rule alone would
/// take the convolution's rank from the attributes.
static LogicalResult verifyConv2dBackwardAttrs(Operation *op,
                                               ArrayRef<int64_t> stride) {
  if (stride.size() != 2)
    return op->emitOpError()
           << "stride needs 2 entries, got " << rules::formatDims(stride);
  return verifyBackwardDType(op);
}

LogicalResult Conv2dBackwardInputOp::verify() {
  if (failed(verifyConv2dBackwardAttrs(*this, getStride())))
    return failure();
  auto input = getResult().getType();
  auto weight = getWeight().getType();
  rules::Dims out;
  if (std::string e = rules::conv(input.getShape(), weight.getShape(),
                                  nullptr, getStride(), getPadding(),
                                  getDilation(), getGroups(), out);
      !e.empty())
    return emitOpError() << e;
  if (getGrad().getType().getShape() != ArrayRef<int64_t>(out))
    return emitOpError() << "gradient of shape "
                         << rules::formatDims(getGrad().getType().getShape())
                         << " does not match the convolution output "
                         << rules::formatDims(out);
  return success();
}

LogicalResult Conv2dBackwardWeightOp::verify() {
  if (failed(verifyConv2dBackwardAttrs(*this, getStride())))
    return failure();
  auto weight = getResult().getType();
  auto input = getInput().getType();
  rules::Dims out;
  if (std::string e = rules::conv(input.getShape(), weight.getShape(),
                                  nullptr, getStride(), getPadding(),
                                  getDilation(), getGroups(), out);
      !e.empty())
    return emitOpError() << e;
  if (getGrad().getType().getShape() != ArrayRef<int64_t>(out))
    return emitOpError() << "gradient of shape "
                         << rules::formatDims(getGrad().getType().getShape())
                         << " does not match the convolution output "
                         << rules::formatDims(out);
  return success();
}

LogicalResult MaxPool2dBackwardOp::verify() {
  if (failed(verifyBackwardDType(*this)))
    return failure();
  if (getResult().getType() != getInput().getType())
    return emitOpError() << "result must have the input's type";
  return verifyPoolAttrs(*this, getInput().getType().getShape(), getKernel(),
                         getStride(), getPadding(), getGrad().getType());
}

LogicalResult AvgPool2dBackwardOp::verify() {
  if (failed(verifyBackwardDType(*this)))
    return failure();
  if (getResult().getType() != getInput().getType())
    return emitOpError() << "result must have the input's type";
  return verifyPoolAttrs(*this, getInput().getType().getShape(), getKernel(),
                         getStride(), getPadding(), getGrad().getType());
}

LogicalResult mlir::kiln::OpTrait::verifySizedTensors(Operation *op) {
  auto check = [&](Type type, const char *what, unsigned i) -> LogicalResult {
    auto t = llvm::dyn_cast<RankedTensorType>(type);
    if (!t || !t.getElementType().isIntOrFloat())
      return success();
    int64_t bytes = std::max<unsigned>(1, t.getElementTypeBitWidth() / 8);
    std::string e = rules::checkSize(t.getShape(), bytes);
    if (e.empty())
      return success();
    return op->emitOpError() << what << " #" << i << ": " << e;
  };
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (failed(check(v.getType(), "operand", i)))
      return failure();
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    if (failed(check(v.getType(), "result", i)))
      return failure();
  return success();
}

LogicalResult mlir::kiln::OpTrait::verifyNeedsElements(Operation *op) {
  auto in = llvm::dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!in)
    return success();
  SmallVector<int64_t> axes;
  if (auto a = op->getAttrOfType<DenseI64ArrayAttr>("axes"))
    axes.assign(a.asArrayRef().begin(), a.asArrayRef().end());
  else if (auto a = op->getAttrOfType<IntegerAttr>("axis"))
    axes.push_back(a.getInt());
  std::string e = rules::reduceNonEmpty(in.getShape(), axes);
  if (e.empty())
    return success();
  return op->emitOpError() << e;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

static LogicalResult verifyAllReduceKind(Operation *op, Value input,
                                         AllReduceKind kind) {
  Type element = llvm::cast<RankedTensorType>(input.getType()).getElementType();
  if (kind == AllReduceKind::Mean && !llvm::isa<FloatType>(element))
    return op->emitOpError() << "takes the mean of a float tensor, not of "
                             << input.getType()
                             << " (sum integers, then divide)";
  return success();
}

LogicalResult AllReduceOp::verify() {
  return verifyAllReduceKind(*this, getInput(), getKind());
}

LogicalResult AllReduceStartOp::verify() {
  if (failed(verifyAllReduceKind(*this, getInput(), getKind())))
    return failure();
  // The token is the buffer in flight: reading it anywhere but in its one
  // wait would read a half-reduced value.
  int64_t waits = 0;
  for (Operation *user : getToken().getUsers()) {
    if (!llvm::isa<AllReduceWaitOp>(user))
      return emitOpError() << "token is read by " << user->getName()
                           << "; only kiln.all_reduce_wait may read it";
    ++waits;
  }
  if (waits > 1)
    return emitOpError() << "token has " << waits
                         << " waits; an all-reduce is waited for once";
  return success();
}

LogicalResult AllReduceWaitOp::verify() {
  if (!getToken().getDefiningOp<AllReduceStartOp>())
    return emitOpError() << "waits for a value that no kiln.all_reduce_start "
                            "made";
  return success();
}
