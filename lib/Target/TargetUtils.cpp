//===- TargetUtils.cpp - What every target reads off a graph --------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/TargetUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnDTypes.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Runtime/HostSteps.h"
#include "kiln/Support/Error.h"

#include "llvm/ADT/DenseMap.h"

using namespace kiln;
using namespace kiln::detail;

namespace {

TensorDesc describeValue(mlir::Value v) {
  auto t = llvm::cast<mlir::RankedTensorType>(v.getType());
  return {mlir::kiln::dtypeOf(t), {t.getShape().begin(), t.getShape().end()}};
}

/// A constant's elements in `dtype`'s storage, one element when they are
/// all the same (a splat).
std::string storedElements(mlir::DenseElementsAttr attr, DType dtype) {
  int64_t n = attr.isSplat() ? 1 : attr.getNumElements();
  std::string bytes(static_cast<size_t>(n) * dtype.byteSize(), '\0');
  mlir::Type e = attr.getElementType();
  dispatchAny(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = typename ComputeOf<T>::type;
    T *dst = reinterpret_cast<T *>(bytes.data());
    if (llvm::isa<mlir::FloatType>(e)) {
      auto values = attr.getValues<llvm::APFloat>();
      for (int64_t k = 0; k < n; ++k)
        dst[k] = storeAs<T>(static_cast<C>(values[k].convertToDouble()));
      return;
    }
    auto values = attr.getValues<llvm::APInt>();
    bool isUnsigned = e.isUnsignedInteger() || e.isInteger(1);
    for (int64_t k = 0; k < n; ++k) {
      int64_t v = isUnsigned ? static_cast<int64_t>(values[k].getZExtValue())
                             : values[k].getSExtValue();
      dst[k] = storeAs<T>(static_cast<C>(v));
    }
  });
  return bytes;
}

/// The name of the case of `op`'s enum attribute `name`, if it is one. The
/// dialect's enums are I32EnumAttrs, integers that another enum's attribute
/// class would take as its own, so they are read through their op.
std::optional<std::string> enumCase(mlir::Operation *op, llvm::StringRef name) {
  if (auto gelu = llvm::dyn_cast<mlir::kiln::GeluOp>(op);
      gelu && name == gelu.getApproximateAttrName())
    return mlir::kiln::stringifyGeluApprox(gelu.getApproximate()).str();
  if (auto r = llvm::dyn_cast<mlir::kiln::AllReduceOp>(op);
      r && name == r.getKindAttrName())
    return mlir::kiln::stringifyAllReduceKind(r.getKind()).str();
  if (auto r = llvm::dyn_cast<mlir::kiln::AllReduceStartOp>(op);
      r && name == r.getKindAttrName())
    return mlir::kiln::stringifyAllReduceKind(r.getKind()).str();
  return std::nullopt;
}

/// The attribute as plain data; false for kinds no host step reads.
bool describeAttr(mlir::Operation *op, mlir::NamedAttribute named,
                  DType resultDType, OpAttr &out) {
  out.name = named.getName().str();
  mlir::Attribute a = named.getValue();
  if (std::optional<std::string> c = enumCase(op, named.getName())) {
    out.kind = OpAttr::Kind::Text;
    out.text = *c;
  } else if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(a)) {
    out.kind = OpAttr::Kind::Int;
    out.i = i.getType().isInteger(1) ? i.getValue().getZExtValue() : i.getInt();
  } else if (auto f = llvm::dyn_cast<mlir::FloatAttr>(a)) {
    out.kind = OpAttr::Kind::Float;
    out.f = f.getValueAsDouble();
  } else if (auto v = llvm::dyn_cast<mlir::DenseI64ArrayAttr>(a)) {
    out.kind = OpAttr::Kind::Ints;
    out.ints.assign(v.asArrayRef().begin(), v.asArrayRef().end());
  } else if (auto v = llvm::dyn_cast<mlir::DenseI32ArrayAttr>(a)) {
    out.kind = OpAttr::Kind::Ints;
    out.ints.assign(v.asArrayRef().begin(), v.asArrayRef().end());
  } else if (auto s = llvm::dyn_cast<mlir::StringAttr>(a)) {
    out.kind = OpAttr::Kind::Text;
    out.text = s.str();
  } else if (llvm::isa<mlir::UnitAttr>(a)) {
    out.kind = OpAttr::Kind::Unit;
  } else if (auto d = llvm::dyn_cast<mlir::DenseElementsAttr>(a)) {
    out.kind = OpAttr::Kind::Bytes;
    out.i = d.isSplat();
    out.text = storedElements(d, resultDType);
  } else {
    return false;
  }
  return true;
}

} // namespace

OpDesc detail::describeOp(mlir::Operation *op) {
  OpDesc d;
  d.name = op->getName().getStringRef().str();
  for (mlir::Value v : op->getOperands())
    d.operands.push_back(describeValue(v));
  for (mlir::Value v : op->getResults())
    d.results.push_back(describeValue(v));
  DType resultDType = d.results.empty() ? DType::F32 : d.results[0].dtype;
  for (mlir::NamedAttribute a : op->getAttrs()) {
    OpAttr attr;
    if (describeAttr(op, a, resultDType, attr))
      d.attrs.push_back(std::move(attr));
  }
  if (mlir::kiln::isCollectiveOp(op)) {
    OpAttr collective;
    collective.name = kCollectiveAttr;
    d.attrs.push_back(std::move(collective));
  }
  if (auto red = llvm::dyn_cast<mlir::kiln::ReductionOpInterface>(op)) {
    OpAttr kind;
    kind.name = kReductionKindAttr;
    kind.kind = OpAttr::Kind::Int;
    kind.i = static_cast<int64_t>(red.getReductionKind());
    d.attrs.push_back(std::move(kind));
  }
  return d;
}

std::pair<int, int> detail::hostStep(Artifact &a, mlir::Operation &op) {
  a.ops.push_back(describeOp(&op));
  return {kHostOpStep, static_cast<int>(a.ops.size()) - 1};
}

void detail::planMain(
    mlir::func::FuncOp main, Artifact &a,
    llvm::function_ref<std::optional<std::pair<int, int>>(mlir::Operation &)>
        stepOf) {
  PlanBuilder b(static_cast<int>(main.getNumArguments()));
  llvm::DenseMap<mlir::Value, int> slotOf;
  for (mlir::BlockArgument arg : main.getArguments())
    slotOf[arg] = static_cast<int>(arg.getArgNumber());
  std::vector<int> results;
  for (mlir::Operation &op : main.getBody().front()) {
    if (auto ret = llvm::dyn_cast<mlir::func::ReturnOp>(op)) {
      for (mlir::Value v : ret.getOperands())
        results.push_back(slotOf.at(v));
      continue;
    }
    if (llvm::isa<mlir::kiln::ConstantOp>(op)) {
      a.constants.push_back(describeOp(&op));
      slotOf[op.getResult(0)] =
          b.constant(static_cast<int>(a.constants.size()) - 1);
      continue;
    }
    std::optional<std::pair<int, int>> step = stepOf(op);
    if (!step)
      continue;
    std::vector<int> operands;
    for (mlir::Value v : op.getOperands()) {
      auto it = slotOf.find(v);
      if (it == slotOf.end())
        throw Error("internal error: " + op.getName().getStringRef().str() +
                    " reads a value the plan does not hold");
      operands.push_back(it->second);
    }
    std::vector<int> out = b.step(step->first, step->second,
                                  std::move(operands), op.getNumResults());
    for (auto [r, slot] : llvm::zip(op.getResults(), out))
      slotOf[r] = slot;
  }
  a.plan = b.finish(std::move(results));
}

std::string detail::kernelSummary(mlir::func::FuncOp fn) {
  std::optional<mlir::kiln::KernelKind> kind = mlir::kiln::kernelKindOf(fn);
  std::string s =
      (kind ? mlir::kiln::stringifyKernelKind(*kind).str() : "ops") + "(";
  std::vector<llvm::StringRef> fused;
  for (mlir::Operation &inner : fn.getBody().front().without_terminator())
    if (!llvm::isa<mlir::kiln::ConstantOp>(inner))
      fused.push_back(inner.getName().getStringRef().drop_front(5));
  // A long kernel (up to --kiln-fuse's 256 ops) is named by its ends.
  constexpr size_t kHead = 8, kTail = 4;
  for (size_t i = 0; i < fused.size(); ++i) {
    if (fused.size() > kHead + kTail + 1 && i == kHead) {
      s += " ... (" + std::to_string(fused.size()) + " ops)";
      i = fused.size() - kTail - 1;
      continue;
    }
    s += (i ? " " : "") + fused[i].str();
  }
  return s + ")";
}
