//===- KilnBuilders.cpp - Small IR-building helpers -----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnBuilders.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::kiln;

Value mlir::kiln::scalarConstant(OpBuilder &b, Location loc, Type elementType,
                                 double value) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute element;
  if (llvm::isa<FloatType>(elementType))
    element = b.getFloatAttr(elementType, value);
  else
    element = b.getIntegerAttr(elementType, (int64_t)value);
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, element));
}

SmallVector<Value> mlir::kiln::dynamicDimsOf(OpBuilder &b, Location loc,
                                             Value v) {
  auto type = llvm::cast<RankedTensorType>(v.getType());
  SmallVector<Value> dims;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dims.push_back(tensor::DimOp::create(b, loc, v, i));
  return dims;
}

Value mlir::kiln::fullLike(OpBuilder &b, Location loc, Value like,
                           double value) {
  auto type = llvm::cast<RankedTensorType>(like.getType());
  return FullOp::create(b, loc, type, b.getF64FloatAttr(value),
                        dynamicDimsOf(b, loc, like));
}

/// Reshape target for `type`: its dims, with -1 standing for the one dynamic
/// dim (more than one dynamic dim cannot be expressed and keeps -1 for the
/// first only).
static SmallVector<int64_t> reshapeTarget(RankedTensorType type) {
  SmallVector<int64_t> shape;
  bool usedInfer = false;
  for (int64_t d : type.getShape()) {
    if (ShapedType::isDynamic(d) && !usedInfer) {
      shape.push_back(-1);
      usedInfer = true;
    } else {
      shape.push_back(d);
    }
  }
  return shape;
}

Value mlir::kiln::sumOver(OpBuilder &b, Location loc, Value v,
                          ArrayRef<int64_t> axes, bool keepdim) {
  if (axes.empty())
    return v;
  return SumOp::create(b, loc, v, b.getDenseI64ArrayAttr(axes), keepdim);
}

Value mlir::kiln::sumToShape(OpBuilder &b, Location loc, Value grad,
                             RankedTensorType target) {
  auto type = llvm::cast<RankedTensorType>(grad.getType());
  if (type.getShape() == target.getShape())
    return grad;
  int64_t rank = type.getRank(), lead = rank - target.getRank();
  SmallVector<int64_t> stretched, leading;
  for (int64_t i = 0; i < rank; ++i) {
    if (i < lead) {
      leading.push_back(i);
    } else if (target.getDimSize(i - lead) == 1 && type.getDimSize(i) != 1) {
      stretched.push_back(i);
    }
  }
  Value v = grad;
  v = sumOver(b, loc, v, stretched, /*keepdim=*/true);
  v = sumOver(b, loc, v, leading, /*keepdim=*/false);
  return reshapeTo(b, loc, v, target);
}

Value mlir::kiln::reshapeTo(OpBuilder &b, Location loc, Value v,
                            RankedTensorType target) {
  if (llvm::cast<RankedTensorType>(v.getType()).getShape() ==
      target.getShape())
    return v;
  return ReshapeOp::create(b, loc, v,
                           b.getDenseI64ArrayAttr(reshapeTarget(target)));
}

Value mlir::kiln::expandReduced(OpBuilder &b, Location loc, Value reduced,
                                ArrayRef<int64_t> axes, bool keepdim,
                                Value like) {
  Value v = reduced;
  if (!keepdim)
    v = UnsqueezeOp::create(b, loc, v, b.getDenseI64ArrayAttr(axes));
  auto likeType = llvm::cast<RankedTensorType>(like.getType());
  if (v.getType() == likeType)
    return v;
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < likeType.getRank(); ++i) {
    int64_t d = likeType.getDimSize(i);
    if (ShapedType::isDynamic(d)) {
      if (llvm::is_contained(axes, i)) {
        // The size is only known at run time: broadcast against `like`.
        Value zeros = fullLike(b, loc, like, 0.0);
        return AddOp::create(b, loc, zeros, v);
      }
      d = -1;
    }
    shape.push_back(d);
  }
  return ExpandOp::create(b, loc, v, b.getDenseI64ArrayAttr(shape));
}
