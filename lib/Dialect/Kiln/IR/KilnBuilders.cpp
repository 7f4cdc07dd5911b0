//===- KilnBuilders.cpp - Small IR-building helpers -----------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnBuilders.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

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

bool mlir::kiln::attrFollowsDynamicDims(llvm::StringRef opName,
                                        llvm::StringRef attr) {
  if (opName == ReshapeOp::getOperationName() ||
      opName == ExpandOp::getOperationName())
    return attr == "shape";
  return opName == SliceOp::getOperationName() && attr == "ends";
}

SmallVector<bool> mlir::kiln::followingEntries(
    StringRef opName, ArrayRef<int64_t> recorded, ArrayRef<int64_t> moved,
    ArrayRef<int64_t> sizes, ArrayRef<int64_t> starts,
    ArrayRef<int64_t> steps) {
  SmallVector<bool> follows(sizes.size(), false);
  auto in = [&](int64_t i) { return i >= 0 && (size_t)i < recorded.size(); };
  if (opName == SliceOp::getOperationName()) {
    // A slice over the whole of a moved dim keeps the whole of it.
    for (int64_t i : moved)
      if (in(i) && (size_t)i < sizes.size() && (size_t)i < starts.size() &&
          (size_t)i < steps.size() && starts[i] == 0 && steps[i] == 1 &&
          sizes[i] == recorded[i])
        follows[i] = true;
  } else if (opName == ExpandOp::getOperationName()) {
    int64_t lead = (int64_t)sizes.size() - (int64_t)recorded.size();
    for (int64_t i : moved)
      if (in(i) && lead + i >= 0 && sizes[lead + i] == recorded[i])
        follows[lead + i] = true;
  } else if (opName == ReshapeOp::getOperationName()) {
    if (moved.size() != 1 || !in(moved.front()) ||
        llvm::is_contained(sizes, -1))
      return follows;
    int64_t p = moved.front();
    // Element counts before and after the dim, in the operand and the
    // target (in double: they may overflow int64_t).
    auto product = [](ArrayRef<int64_t> dims) {
      double n = 1;
      for (int64_t d : dims)
        n *= (double)d;
      return n;
    };
    double before = product(recorded.take_front(p));
    double after = product(recorded.drop_front(p + 1));
    for (size_t q = 0; q < sizes.size(); ++q)
      if (sizes[q] == recorded[p] && product(sizes.take_front(q)) == before &&
          product(sizes.drop_front(q + 1)) == after) {
        follows[q] = true;
        break;
      }
  }
  return follows;
}

SmallVector<bool> mlir::kiln::relaxRecordedShape(Operation *op,
                                                 ArrayRef<int64_t> recorded) {
  if (op->getNumOperands() < 1)
    return {};
  auto type = llvm::dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!type || recorded.size() != (size_t)type.getRank())
    return {};
  // The operand's dims that no longer have their recorded size (dynamic,
  // or another size).
  SmallVector<int64_t> moved;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.getDimSize(i) != recorded[i])
      moved.push_back(i);
  if (moved.empty())
    return {};
  StringRef attr = llvm::isa<SliceOp>(op) ? "ends" : "shape";
  if (!attrFollowsDynamicDims(op->getName().getStringRef(), attr))
    return {};
  auto sizes = op->getAttrOfType<DenseI64ArrayAttr>(attr);
  if (!sizes)
    return {};
  SmallVector<int64_t> starts, steps;
  if (auto slice = llvm::dyn_cast<SliceOp>(op)) {
    starts.assign(slice.getStarts().begin(), slice.getStarts().end());
    steps.assign(slice.getSteps().begin(), slice.getSteps().end());
  }
  SmallVector<bool> follows =
      followingEntries(op->getName().getStringRef(), recorded, moved,
                       sizes.asArrayRef(), starts, steps);
  SmallVector<int64_t> relaxed(sizes.asArrayRef());
  for (size_t i = 0; i < relaxed.size(); ++i)
    if (follows[i])
      relaxed[i] = llvm::isa<SliceOp>(op) ? std::numeric_limits<int64_t>::max()
                                          : -1;
  op->setAttr(attr, DenseI64ArrayAttr::get(op->getContext(), relaxed));
  return follows;
}

Operation *mlir::kiln::findResizedDynamicDim(Operation *root) {
  auto dynamicAt = [](Value v, int64_t i) {
    auto t = llvm::dyn_cast<RankedTensorType>(v.getType());
    return t && i >= 0 && i < t.getRank() && t.isDynamicDim(i);
  };
  auto staticCount = [](RankedTensorType t) {
    int64_t n = 1;
    for (int64_t d : t.getShape())
      if (!ShapedType::isDynamic(d))
        n *= d;
    return n;
  };
  auto isKernel = [](Operation *op) {
    auto fn = op->getParentOfType<func::FuncOp>();
    return fn && fn->hasAttr(kKernelKindAttr);
  };
  // Inside a kernel, every dynamic dim has one size: no op may resize one.
  // Between kernels, a reshape may merge S with static dims (S * T rows):
  // its dynamic dim is S times a factor, which each kernel then takes as
  // its own size. The dynamic operands of a call must agree on it.
  llvm::DenseMap<Value, int64_t> factor;
  auto factorOf = [&](Value v) {
    auto it = factor.find(v);
    return it == factor.end() ? int64_t(1) : it->second;
  };
  Operation *found = nullptr;
  root->walk([&](Operation *op) {
    if (found || op->getNumResults() < 1)
      return;
    bool kernel = isKernel(op);
    // The factor the dynamic operands agree on (0: they do not).
    int64_t common = -1;
    for (Value v : op->getOperands()) {
      auto t = llvm::dyn_cast<RankedTensorType>(v.getType());
      // (An index counts when it is a dynamic dim read by tensor.dim.)
      bool dynamic = t ? !t.hasStaticShape() : factor.count(v) > 0;
      if (!dynamic)
        continue;
      int64_t f = factorOf(v);
      common = common == -1 ? f : (common == f ? f : 0);
    }
    if (common == 0) {
      found = op;
      return;
    }
    if (auto dim = llvm::dyn_cast<tensor::DimOp>(op)) {
      if (!dim.getSource().getType().hasStaticShape())
        factor[dim.getResult()] = factorOf(dim.getSource());
      return;
    }
    auto result = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!result)
      return;
    Value in = op->getNumOperands() ? op->getOperand(0) : Value();
    int64_t out = common == -1 ? 1 : common;
    bool resized = false;
    if (auto r = llvm::dyn_cast<ReshapeOp>(op)) {
      auto t = llvm::cast<RankedTensorType>(r.getInput().getType());
      if (t.getNumDynamicDims() || result.getNumDynamicDims()) {
        resized = t.getNumDynamicDims() != 1 ||
                  result.getNumDynamicDims() != 1;
        int64_t from = staticCount(t) * factorOf(r.getInput()),
                to = staticCount(result);
        if (!resized) {
          resized = to == 0 || from % to != 0 || (kernel && from != to);
          out = to ? from / to : 1;
        }
      }
    } else if (auto c = llvm::dyn_cast<ConcatOp>(op)) {
      resized = result.isDynamicDim(c.getAxis());
    } else if (auto p = llvm::dyn_cast<PadOp>(op)) {
      for (int64_t i = 0; i < result.getRank(); ++i)
        resized |= dynamicAt(in, i) && (p.getLow()[i] || p.getHigh()[i]);
    } else if (auto r = llvm::dyn_cast<RepeatOp>(op)) {
      for (int64_t i = 0; i < result.getRank(); ++i)
        resized |= result.isDynamicDim(i) && r.getRepeats()[i] != 1;
    } else if (auto s = llvm::dyn_cast<SliceOp>(op)) {
      for (int64_t i = 0; i < result.getRank(); ++i)
        resized |= dynamicAt(in, i) &&
                   (s.getStarts()[i] != 0 || s.getSteps()[i] != 1 ||
                    s.getEnds()[i] != std::numeric_limits<int64_t>::max());
    } else if (llvm::isa<Conv2dOp, Conv1dOp, MaxPool2dOp, AvgPool2dOp>(op)) {
      for (int64_t i = 2; i < result.getRank(); ++i)
        resized |= result.isDynamicDim(i);
    }
    if (resized) {
      found = op;
      return;
    }
    // A kernel's results have its size; so has anything else whose dynamic
    // dims come from its operands.
    if (auto call = llvm::dyn_cast<func::CallOp>(op))
      if (common == -1 &&
          llvm::any_of(call.getResultTypes(), [](Type t) {
            auto r = llvm::dyn_cast<RankedTensorType>(t);
            return r && !r.hasStaticShape();
          })) {
        // A kernel with a dynamic result and no dynamic operand: nothing
        // tells the runtime its size.
        found = op;
        return;
      }
    for (Value r : op->getResults())
      if (out != 1)
        factor[r] = out;
  });
  return found;
}
