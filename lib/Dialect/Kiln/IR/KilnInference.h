//===- KilnInference.h - Result-type inference of kiln ops ------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The inferReturnTypes bodies that ODS generates call these helpers. Each
// helper checks dtypes, calls the shared shape rule and builds the result
// type; a failed rule becomes a diagnostic at the op.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_DIALECT_KILN_IR_KILNINFERENCE_H
#define KILN_LIB_DIALECT_KILN_IR_KILNINFERENCE_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Support/ShapeRules.h"

#include "mlir/IR/Diagnostics.h"

namespace mlir::kiln {

namespace rules = ::kiln::rules;

/// Shape of a ranked tensor value, or null when the value is not one (the
/// ODS type constraints then report the real problem).
inline RankedTensorType rankedType(Value v) {
  return v ? llvm::dyn_cast<RankedTensorType>(v.getType()) : nullptr;
}

/// The shape of an optional operand, for a shape rule: null when absent.
struct OptionalShape {
  explicit OptionalShape(Value v) : type(rankedType(v)) {
    if (type)
      dims = type.getShape();
  }
  const rules::DimsRef *get() const { return type ? &dims : nullptr; }

  RankedTensorType type;
  rules::DimsRef dims;
};

inline LogicalResult inferError(StringRef opName,
                                std::optional<Location> loc,
                                const std::string &message) {
  return emitOptionalError(loc, "'", opName, "' op ", message);
}

/// A tensor type with `shape` and `elementType`.
inline RankedTensorType tensorOf(ArrayRef<int64_t> shape, Type elementType) {
  return RankedTensorType::get(shape, elementType);
}

/// The common element type of the operands, or a dtype-mismatch error.
LogicalResult commonElementType(StringRef opName, std::optional<Location> loc,
                                ValueRange values, Type &elementType);

LogicalResult inferBroadcastImpl(StringRef opName, std::optional<Location> loc,
                                 ValueRange operands, Type resultElement,
                                 SmallVectorImpl<Type> &inferred);

//===----------------------------------------------------------------------===//
// Helpers named in ODS (KilnOpBase.td and the op files).
//===----------------------------------------------------------------------===//

template <typename Adaptor>
LogicalResult inferBroadcastSameDType(StringRef opName, MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  Type element;
  if (failed(commonElementType(opName, loc, adaptor.getOperands(), element)))
    return failure();
  return inferBroadcastImpl(opName, loc, adaptor.getOperands(), element,
                            inferred);
}

template <typename Adaptor>
LogicalResult inferBroadcastBool(StringRef opName, MLIRContext *ctx,
                                 std::optional<Location> loc, Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  Type element;
  if (failed(commonElementType(opName, loc, adaptor.getOperands(), element)))
    return failure();
  return inferBroadcastImpl(opName, loc, adaptor.getOperands(),
                            IntegerType::get(ctx, 1), inferred);
}

template <typename Adaptor>
LogicalResult inferWhere(StringRef opName, MLIRContext *,
                         std::optional<Location> loc, Adaptor adaptor,
                         SmallVectorImpl<Type> &inferred) {
  Type element;
  Value branches[] = {adaptor.getLhs(), adaptor.getRhs()};
  if (failed(commonElementType(opName, loc, branches, element)))
    return failure();
  return inferBroadcastImpl(opName, loc, adaptor.getOperands(), element,
                            inferred);
}

template <typename Adaptor>
LogicalResult inferSameShapeBool(StringRef, MLIRContext *ctx,
                                 std::optional<Location>, Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  auto t = rankedType(adaptor.getInput());
  if (!t)
    return failure();
  inferred.push_back(tensorOf(t.getShape(), IntegerType::get(ctx, 1)));
  return success();
}

LogicalResult inferReduceImpl(StringRef opName, std::optional<Location> loc,
                              Value input, ArrayRef<int64_t> axes,
                              bool keepdim, Type element,
                              SmallVectorImpl<Type> &inferred);

template <typename Adaptor>
LogicalResult inferReduce(StringRef opName, MLIRContext *,
                          std::optional<Location> loc, Adaptor adaptor,
                          SmallVectorImpl<Type> &inferred) {
  auto t = rankedType(adaptor.getInput());
  if (!t)
    return failure();
  return inferReduceImpl(opName, loc, adaptor.getInput(), adaptor.getAxes(),
                         adaptor.getKeepdim(), t.getElementType(), inferred);
}

template <typename Adaptor>
LogicalResult inferReduceBool(StringRef opName, MLIRContext *ctx,
                              std::optional<Location> loc, Adaptor adaptor,
                              SmallVectorImpl<Type> &inferred) {
  return inferReduceImpl(opName, loc, adaptor.getInput(), adaptor.getAxes(),
                         adaptor.getKeepdim(), IntegerType::get(ctx, 1),
                         inferred);
}

template <typename Adaptor>
LogicalResult inferArgsort(StringRef opName, MLIRContext *ctx,
                           std::optional<Location> loc, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferred) {
  auto t = rankedType(adaptor.getInput());
  if (!t)
    return failure();
  if (std::string e = rules::checkAxis(adaptor.getAxis(), t.getRank());
      !e.empty())
    return inferError(opName, loc, e);
  inferred.push_back(
      RankedTensorType::get(t.getShape(), IntegerType::get(ctx, 64)));
  return success();
}

template <typename Adaptor>
LogicalResult inferArgReduce(StringRef opName, MLIRContext *ctx,
                             std::optional<Location> loc, Adaptor adaptor,
                             SmallVectorImpl<Type> &inferred) {
  int64_t axis = adaptor.getAxis();
  return inferReduceImpl(opName, loc, adaptor.getInput(), {axis},
                         adaptor.getKeepdim(), IntegerType::get(ctx, 64),
                         inferred);
}

/// Runs a rule that maps the input shape to one result shape with the
/// input's dtype.
template <typename Rule>
LogicalResult inferWithRule(StringRef opName, std::optional<Location> loc,
                            Value input, SmallVectorImpl<Type> &inferred,
                            Rule rule) {
  auto t = rankedType(input);
  if (!t)
    return failure();
  rules::Dims out;
  if (std::string e = rule(t.getShape(), out); !e.empty())
    return inferError(opName, loc, e);
  inferred.push_back(tensorOf(out, t.getElementType()));
  return success();
}

template <typename Adaptor>
LogicalResult inferMatmul(StringRef opName, MLIRContext *,
                          std::optional<Location> loc, Adaptor adaptor,
                          SmallVectorImpl<Type> &inferred) {
  Type element;
  if (failed(commonElementType(opName, loc, adaptor.getOperands(), element)))
    return failure();
  auto b = rankedType(adaptor.getRhs());
  if (!b)
    return failure();
  return inferWithRule(opName, loc, adaptor.getLhs(), inferred,
                       [&](rules::DimsRef a, rules::Dims &out) {
                         return rules::matmul(a, b.getShape(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferReshape(StringRef opName, MLIRContext *,
                           std::optional<Location> loc, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferred) {
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::reshape(in, adaptor.getShape(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferPermute(StringRef opName, MLIRContext *,
                           std::optional<Location> loc, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferred) {
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::permute(in, adaptor.getDims(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferExpand(StringRef opName, MLIRContext *,
                          std::optional<Location> loc, Adaptor adaptor,
                          SmallVectorImpl<Type> &inferred) {
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::expand(in, adaptor.getShape(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferSlice(StringRef opName, MLIRContext *,
                         std::optional<Location> loc, Adaptor adaptor,
                         SmallVectorImpl<Type> &inferred) {
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::slice(in, adaptor.getStarts(),
                                             adaptor.getEnds(),
                                             adaptor.getSteps(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferSliceAssign(StringRef opName, MLIRContext *,
                               std::optional<Location> loc, Adaptor adaptor,
                               SmallVectorImpl<Type> &inferred) {
  Type element;
  if (failed(commonElementType(opName, loc, adaptor.getOperands(), element)))
    return failure();
  auto dest = rankedType(adaptor.getDest());
  auto value = rankedType(adaptor.getValue());
  if (!dest || !value)
    return failure();
  if (std::string e = rules::sliceAssign(dest.getShape(), value.getShape(),
                                         adaptor.getStarts(), adaptor.getEnds(),
                                         adaptor.getSteps());
      !e.empty())
    return inferError(opName, loc, e);
  inferred.push_back(dest);
  return success();
}

template <typename Adaptor>
LogicalResult inferConcat(StringRef opName, MLIRContext *,
                          std::optional<Location> loc, Adaptor adaptor,
                          SmallVectorImpl<Type> &inferred) {
  Type element;
  if (failed(commonElementType(opName, loc, adaptor.getOperands(), element)))
    return failure();
  std::vector<rules::DimsRef> shapes;
  for (Value v : adaptor.getInputs()) {
    auto t = rankedType(v);
    if (!t)
      return failure();
    shapes.push_back(t.getShape());
  }
  rules::Dims out;
  if (std::string e = rules::concat(shapes, adaptor.getAxis(), out);
      !e.empty())
    return inferError(opName, loc, e);
  inferred.push_back(tensorOf(out, element));
  return success();
}

template <typename Adaptor>
LogicalResult inferSplit(StringRef opName, MLIRContext *,
                         std::optional<Location> loc, Adaptor adaptor,
                         SmallVectorImpl<Type> &inferred) {
  auto t = rankedType(adaptor.getInput());
  if (!t)
    return failure();
  std::vector<rules::Dims> outs;
  if (std::string e = rules::split(t.getShape(), adaptor.getSizes(),
                                   adaptor.getAxis(), outs);
      !e.empty())
    return inferError(opName, loc, e);
  for (const rules::Dims &d : outs)
    inferred.push_back(tensorOf(d, t.getElementType()));
  return success();
}

template <typename Adaptor>
LogicalResult inferSqueeze(StringRef opName, MLIRContext *,
                           std::optional<Location> loc, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferred) {
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::squeeze(in, adaptor.getAxes(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferUnsqueeze(StringRef opName, MLIRContext *,
                             std::optional<Location> loc, Adaptor adaptor,
                             SmallVectorImpl<Type> &inferred) {
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::unsqueeze(in, adaptor.getAxes(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferFlip(StringRef opName, MLIRContext *,
                        std::optional<Location> loc, Adaptor adaptor,
                        SmallVectorImpl<Type> &inferred) {
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         out.assign(in.begin(), in.end());
                         return rules::checkAxes(adaptor.getAxes(), in.size());
                       });
}

template <typename Adaptor>
LogicalResult inferRepeat(StringRef opName, MLIRContext *,
                          std::optional<Location> loc, Adaptor adaptor,
                          SmallVectorImpl<Type> &inferred) {
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::repeat(in, adaptor.getRepeats(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferPad(StringRef opName, MLIRContext *,
                       std::optional<Location> loc, Adaptor adaptor,
                       SmallVectorImpl<Type> &inferred) {
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::pad(in, adaptor.getLow(),
                                           adaptor.getHigh(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferGather(StringRef opName, MLIRContext *,
                          std::optional<Location> loc, Adaptor adaptor,
                          SmallVectorImpl<Type> &inferred) {
  auto idx = rankedType(adaptor.getIndices());
  if (!idx)
    return failure();
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::gather(in, idx.getShape(),
                                              adaptor.getAxis(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferScatterAdd(StringRef opName, MLIRContext *,
                              std::optional<Location> loc, Adaptor adaptor,
                              SmallVectorImpl<Type> &inferred) {
  Type element;
  Value data[] = {adaptor.getInput(), adaptor.getUpdates()};
  if (failed(commonElementType(opName, loc, data, element)))
    return failure();
  auto in = rankedType(adaptor.getInput());
  auto idx = rankedType(adaptor.getIndices());
  auto upd = rankedType(adaptor.getUpdates());
  if (!in || !idx || !upd)
    return failure();
  if (std::string e = rules::scatterAdd(in.getShape(), idx.getShape(),
                                        upd.getShape(), adaptor.getAxis());
      !e.empty())
    return inferError(opName, loc, e);
  inferred.push_back(in);
  return success();
}

template <typename Adaptor>
LogicalResult inferIndexSelect(StringRef opName, MLIRContext *,
                               std::optional<Location> loc, Adaptor adaptor,
                               SmallVectorImpl<Type> &inferred) {
  auto idx = rankedType(adaptor.getIndices());
  if (!idx)
    return failure();
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::indexSelect(in, idx.getShape(),
                                                   adaptor.getAxis(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferMaskFill(StringRef opName, MLIRContext *,
                            std::optional<Location> loc, Adaptor adaptor,
                            SmallVectorImpl<Type> &inferred) {
  auto mask = rankedType(adaptor.getMask());
  if (!mask)
    return failure();
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         out.assign(in.begin(), in.end());
                         return rules::maskFill(in, mask.getShape());
                       });
}

template <typename Adaptor>
LogicalResult inferEmbedding(StringRef opName, MLIRContext *,
                             std::optional<Location> loc, Adaptor adaptor,
                             SmallVectorImpl<Type> &inferred) {
  auto idx = rankedType(adaptor.getIndices());
  if (!idx)
    return failure();
  return inferWithRule(opName, loc, adaptor.getWeight(), inferred,
                       [&](rules::DimsRef w, rules::Dims &out) {
                         return rules::embedding(w, idx.getShape(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferConvImpl(StringRef opName, std::optional<Location> loc,
                            Adaptor adaptor, size_t spatial,
                            SmallVectorImpl<Type> &inferred) {
  Type element;
  if (failed(commonElementType(opName, loc, adaptor.getOperands(), element)))
    return failure();
  auto w = rankedType(adaptor.getWeight());
  if (!w)
    return failure();
  if (adaptor.getStride().size() != spatial)
    return inferError(opName, loc,
                      "stride needs " + std::to_string(spatial) + " entries");
  auto b = rankedType(adaptor.getBias());
  rules::DimsRef biasShape =
      b ? rules::DimsRef(b.getShape()) : rules::DimsRef();
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::conv(in, w.getShape(),
                                            b ? &biasShape : nullptr,
                                            adaptor.getStride(),
                                            adaptor.getPadding(),
                                            adaptor.getDilation(),
                                            adaptor.getGroups(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferConv2d(StringRef opName, MLIRContext *,
                          std::optional<Location> loc, Adaptor adaptor,
                          SmallVectorImpl<Type> &inferred) {
  return inferConvImpl(opName, loc, adaptor, 2, inferred);
}

template <typename Adaptor>
LogicalResult inferConv1d(StringRef opName, MLIRContext *,
                          std::optional<Location> loc, Adaptor adaptor,
                          SmallVectorImpl<Type> &inferred) {
  return inferConvImpl(opName, loc, adaptor, 1, inferred);
}

template <typename Adaptor>
LogicalResult inferConvTranspose(StringRef opName, MLIRContext *,
                                 std::optional<Location> loc, Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferred) {
  Type element;
  if (failed(commonElementType(opName, loc, adaptor.getOperands(), element)))
    return failure();
  auto w = rankedType(adaptor.getWeight());
  if (!w)
    return failure();
  auto b = rankedType(adaptor.getBias());
  rules::DimsRef biasShape =
      b ? rules::DimsRef(b.getShape()) : rules::DimsRef();
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::convTranspose(
                             in, w.getShape(), b ? &biasShape : nullptr,
                             adaptor.getStride(), adaptor.getPadding(),
                             adaptor.getOutputPadding(), adaptor.getDilation(),
                             adaptor.getGroups(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferPool2d(StringRef opName, MLIRContext *,
                          std::optional<Location> loc, Adaptor adaptor,
                          SmallVectorImpl<Type> &inferred) {
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::pool2d(in, adaptor.getKernel(),
                                              adaptor.getStride(),
                                              adaptor.getPadding(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferMaxPool(StringRef opName, MLIRContext *,
                           std::optional<Location> loc, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferred) {
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::pool(
                             in, adaptor.getKernel(), adaptor.getStride(),
                             adaptor.getPadding(), adaptor.getDilation(),
                             adaptor.getCeilMode(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferMaxPoolIndices(StringRef opName, MLIRContext *ctx,
                                  std::optional<Location> loc, Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  if (failed(inferMaxPool(opName, ctx, loc, adaptor, inferred)))
    return failure();
  auto t = llvm::cast<RankedTensorType>(inferred[0]);
  inferred[0] = RankedTensorType::get(t.getShape(), IntegerType::get(ctx, 64));
  return success();
}

template <typename Adaptor>
LogicalResult inferAvgPool(StringRef opName, MLIRContext *,
                           std::optional<Location> loc, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferred) {
  SmallVector<int64_t> ones(adaptor.getKernel().size(), 1);
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::pool(in, adaptor.getKernel(),
                                            adaptor.getStride(),
                                            adaptor.getPadding(), ones,
                                            adaptor.getCeilMode(), out);
                       });
}

template <typename Adaptor>
LogicalResult inferInterpolate(StringRef opName, MLIRContext *,
                               std::optional<Location> loc, Adaptor adaptor,
                               SmallVectorImpl<Type> &inferred) {
  std::vector<double> scales;
  if (auto s = adaptor.getScales())
    scales.assign(s->begin(), s->end());
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::interpolate(
                             in, adaptor.getSize(),
                             adaptor.getMode() == InterpolateMode::Linear,
                             adaptor.getAlignCorners(), scales, out);
                       });
}

template <typename Adaptor>
LogicalResult inferUnfold(StringRef opName, MLIRContext *,
                          std::optional<Location> loc, Adaptor adaptor,
                          SmallVectorImpl<Type> &inferred) {
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::unfold(
                             in, adaptor.getKernel(), adaptor.getStride(),
                             adaptor.getPadding(), adaptor.getDilation(),
                             static_cast<bool>(adaptor.getImagesInColumns()),
                             out);
                       });
}

template <typename Adaptor>
LogicalResult inferLayerNorm(StringRef opName, MLIRContext *,
                             std::optional<Location> loc, Adaptor adaptor,
                             SmallVectorImpl<Type> &inferred) {
  Type element;
  if (failed(commonElementType(opName, loc, adaptor.getOperands(), element)))
    return failure();
  OptionalShape w(adaptor.getWeight()), b(adaptor.getBias());
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         out.assign(in.begin(), in.end());
                         return rules::layerNorm(in, w.get(), b.get());
                       });
}

template <typename Adaptor>
LogicalResult inferRmsNorm(StringRef opName, MLIRContext *,
                           std::optional<Location> loc, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferred) {
  Type element;
  if (failed(commonElementType(opName, loc, adaptor.getOperands(), element)))
    return failure();
  OptionalShape w(adaptor.getWeight());
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         out.assign(in.begin(), in.end());
                         return rules::layerNorm(in, w.get(), nullptr);
                       });
}

template <typename Adaptor>
LogicalResult inferBatchNorm(StringRef opName, MLIRContext *,
                             std::optional<Location> loc, Adaptor adaptor,
                             SmallVectorImpl<Type> &inferred) {
  Type element;
  if (failed(commonElementType(opName, loc, adaptor.getOperands(), element)))
    return failure();
  auto mean = rankedType(adaptor.getMean());
  auto var = rankedType(adaptor.getVar());
  if (!mean || !var)
    return failure();
  OptionalShape w(adaptor.getWeight()), b(adaptor.getBias());
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         out.assign(in.begin(), in.end());
                         return rules::batchNorm(in, mean.getShape(),
                                                 var.getShape(), w.get(),
                                                 b.get());
                       });
}

template <typename Adaptor>
LogicalResult inferGroupNorm(StringRef opName, MLIRContext *,
                             std::optional<Location> loc, Adaptor adaptor,
                             SmallVectorImpl<Type> &inferred) {
  Type element;
  if (failed(commonElementType(opName, loc, adaptor.getOperands(), element)))
    return failure();
  OptionalShape w(adaptor.getWeight()), b(adaptor.getBias());
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         out.assign(in.begin(), in.end());
                         return rules::groupNorm(in, w.get(), b.get(),
                                                 adaptor.getGroups());
                       });
}

template <typename Adaptor>
LogicalResult inferAdaptivePool2d(StringRef opName, MLIRContext *,
                                  std::optional<Location> loc, Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  return inferWithRule(opName, loc, adaptor.getInput(), inferred,
                       [&](rules::DimsRef in, rules::Dims &out) {
                         return rules::adaptivePool2d(in, adaptor.getSize(),
                                                      out);
                       });
}

template <typename Adaptor>
LogicalResult inferCrossEntropy(StringRef opName, MLIRContext *,
                                std::optional<Location> loc, Adaptor adaptor,
                                SmallVectorImpl<Type> &inferred) {
  auto labels = rankedType(adaptor.getLabels());
  if (!labels)
    return failure();
  return inferWithRule(opName, loc, adaptor.getLogits(), inferred,
                       [&](rules::DimsRef logits, rules::Dims &out) {
                         return rules::crossEntropy(logits, labels.getShape(),
                                                    adaptor.getReduction() ==
                                                        LossReduction::None,
                                                    out);
                       });
}

template <typename Adaptor>
LogicalResult inferGrad(StringRef opName, MLIRContext *,
                        std::optional<Location> loc, Adaptor adaptor,
                        SmallVectorImpl<Type> &inferred) {
  auto loss = rankedType(adaptor.getLoss());
  if (!loss)
    return failure();
  if (loss.getRank() != 0)
    return inferError(opName, loc,
                      "loss must be a rank-0 tensor, got " +
                          rules::formatDims(loss.getShape()));
  for (Value v : adaptor.getWrt())
    inferred.push_back(v.getType());
  return success();
}

} // namespace mlir::kiln

#endif // KILN_LIB_DIALECT_KILN_IR_KILNINFERENCE_H
