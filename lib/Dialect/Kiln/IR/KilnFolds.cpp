//===- KilnFolds.cpp - Folders and canonicalizations of kiln ops ----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Constant folding evaluates small constants (at most kMaxFoldElements, or
// any splat) in double precision for floats and int64 for integers, then
// rounds to the result dtype. Algebraic identities (x + 0, x * 1) fold only
// when they do not change the result type.
//
//===----------------------------------------------------------------------===//

#include "KilnInference.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::kiln;

namespace {

constexpr int64_t kMaxFoldElements = 256;

/// One element of a folded constant, viewed as float or integer by dtype.
struct Scalar {
  double f = 0;
  int64_t i = 0;
};

bool isFloatDType(Type t) { return llvm::isa<FloatType>(t); }

/// The elements of a foldable constant, or nothing.
std::optional<SmallVector<Scalar>> readConstant(Attribute attr) {
  auto dense = llvm::dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  auto type = llvm::cast<ShapedType>(dense.getType());
  if (!type.hasStaticShape())
    return std::nullopt;
  if (!dense.isSplat() && dense.getNumElements() > kMaxFoldElements)
    return std::nullopt;
  SmallVector<Scalar> out;
  Type element = type.getElementType();
  int64_t n = dense.isSplat() ? 1 : dense.getNumElements();
  if (isFloatDType(element)) {
    auto values = dense.getValues<APFloat>();
    for (int64_t k = 0; k < n; ++k) {
      APFloat v = values[k];
      bool lost;
      v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      out.push_back({v.convertToDouble(), 0});
    }
  } else {
    bool isUnsigned = element.isUnsignedInteger() || element.isInteger(1);
    auto values = dense.getValues<APInt>();
    for (int64_t k = 0; k < n; ++k) {
      APInt v = values[k];
      int64_t x = isUnsigned ? (int64_t)v.getZExtValue() : v.getSExtValue();
      out.push_back({(double)x, x});
    }
  }
  return out;
}

bool isSplat(Attribute attr) {
  auto dense = llvm::dyn_cast_or_null<DenseElementsAttr>(attr);
  return dense && dense.isSplat();
}

/// Builds a dense attribute of `type` from scalars (one scalar: a splat).
Attribute makeConstant(RankedTensorType type, ArrayRef<Scalar> values) {
  Type element = type.getElementType();
  if (auto ft = llvm::dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> out;
    for (const Scalar &s : values) {
      APFloat f(s.f);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      out.push_back(f);
    }
    return values.size() == 1 ? DenseElementsAttr::get(type, out.front())
                              : DenseElementsAttr::get(type, out);
  }
  unsigned width = element.getIntOrFloatBitWidth();
  SmallVector<APInt> out;
  for (const Scalar &s : values)
    out.push_back(APInt(64, (uint64_t)s.i).trunc(width));
  return values.size() == 1 ? DenseElementsAttr::get(type, out.front())
                            : DenseElementsAttr::get(type, out);
}

/// Maps each result element of a broadcast to the flat index of an operand.
SmallVector<int64_t> broadcastIndices(ArrayRef<int64_t> resultShape,
                                      ArrayRef<int64_t> operandShape,
                                      bool operandIsSplat) {
  int64_t n = rules::numElements(resultShape);
  SmallVector<int64_t> idx(n, 0);
  if (operandIsSplat)
    return idx;
  size_t rank = resultShape.size(), lead = rank - operandShape.size();
  SmallVector<int64_t> strides(rank, 0);
  int64_t s = 1;
  for (size_t d = rank; d-- > lead;) {
    int64_t od = operandShape[d - lead];
    strides[d] = od == 1 ? 0 : s;
    s *= od;
  }
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rem = flat, off = 0;
    for (size_t d = rank; d-- > 0;) {
      off += (rem % resultShape[d]) * strides[d];
      rem /= resultShape[d];
    }
    idx[flat] = off;
  }
  return idx;
}

using ScalarFn = std::function<Scalar(ArrayRef<Scalar>, bool isFloat)>;

/// Folds an elementwise op with constant operands. `isFloat` tells the
/// function which view of the operands to use (the operand dtype).
OpFoldResult foldElementwise(Operation *op, ArrayRef<Attribute> operands,
                             const ScalarFn &fn) {
  auto resultType = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType || !resultType.hasStaticShape())
    return {};
  SmallVector<SmallVector<Scalar>> values;
  bool allSplat = true;
  for (Attribute a : operands) {
    auto v = readConstant(a);
    if (!v)
      return {};
    values.push_back(std::move(*v));
    allSplat &= isSplat(a);
  }
  bool isFloat = isFloatDType(
      llvm::cast<ShapedType>(op->getOperand(0).getType()).getElementType());
  if (allSplat) {
    SmallVector<Scalar> args;
    for (auto &v : values)
      args.push_back(v.front());
    return makeConstant(resultType, {fn(args, isFloat)});
  }
  // A splat operand can give the result a shape whose element count does
  // not fit in int64_t; the checked count is then dynamic.
  int64_t n = rules::numElements(resultType.getShape());
  if (rules::isDynamic(n) || n > kMaxFoldElements)
    return {};
  SmallVector<SmallVector<int64_t>> maps;
  for (auto [k, a] : llvm::enumerate(operands))
    maps.push_back(broadcastIndices(
        resultType.getShape(),
        llvm::cast<ShapedType>(op->getOperand(k).getType()).getShape(),
        isSplat(a)));
  SmallVector<Scalar> out;
  SmallVector<Scalar> args(values.size());
  for (int64_t flat = 0; flat < n; ++flat) {
    for (size_t k = 0; k < values.size(); ++k)
      args[k] = values[k][maps[k][flat]];
    out.push_back(fn(args, isFloat));
  }
  return makeConstant(resultType, out);
}

/// Saturating double to int64 conversion, NaN giving 0: a plain cast of a
/// value out of range is undefined behaviour.
int64_t toInt64(double f) {
  if (std::isnan(f))
    return 0;
  if (f >= 0x1p63)
    return std::numeric_limits<int64_t>::max();
  if (f < -0x1p63)
    return std::numeric_limits<int64_t>::min();
  return (int64_t)f;
}

/// Two's-complement negation; -INT64_MIN wraps instead of overflowing.
int64_t wrapNeg(int64_t x) { return (int64_t)(0 - (uint64_t)x); }

Scalar fromF(double f) { return {f, toInt64(f)}; }
Scalar fromI(int64_t i) { return {(double)i, i}; }
Scalar fromB(bool b) { return {b ? 1.0 : 0.0, b ? 1 : 0}; }

/// A float-only unary fold.
OpFoldResult foldFloatUnary(Operation *op, ArrayRef<Attribute> operands,
                            double (*f)(double)) {
  return foldElementwise(op, operands, [f](ArrayRef<Scalar> a, bool) {
    return fromF(f(a[0].f));
  });
}

/// A unary fold with a float and an integer form.
template <typename FF, typename IF>
OpFoldResult foldNumericUnary(Operation *op, ArrayRef<Attribute> operands,
                              FF ff, IF fi) {
  return foldElementwise(op, operands, [&](ArrayRef<Scalar> a, bool isFloat) {
    return isFloat ? fromF(ff(a[0].f)) : fromI(fi(a[0].i));
  });
}

template <typename FF, typename IF>
OpFoldResult foldNumericBinary(Operation *op, ArrayRef<Attribute> operands,
                               FF ff, IF fi) {
  return foldElementwise(op, operands, [&](ArrayRef<Scalar> a, bool isFloat) {
    return isFloat ? fromF(ff(a[0].f, a[1].f)) : fromI(fi(a[0].i, a[1].i));
  });
}

template <typename Cmp>
OpFoldResult foldCompare(Operation *op, ArrayRef<Attribute> operands,
                         Cmp cmp) {
  return foldElementwise(op, operands, [&](ArrayRef<Scalar> a, bool isFloat) {
    return isFloat ? fromB(cmp(a[0].f, a[1].f)) : fromB(cmp(a[0].i, a[1].i));
  });
}

/// True when `attr` is a constant whose every element equals `value`.
bool isSplatOf(Attribute attr, double value) {
  if (!isSplat(attr))
    return false;
  auto v = readConstant(attr);
  return v && v->front().f == value;
}

/// `x op c` folds to x when c is the identity and no broadcast happens.
OpFoldResult foldIdentity(Operation *op, Value x, Attribute other,
                          double identity) {
  if (x.getType() == op->getResult(0).getType() && isSplatOf(other, identity))
    return x;
  return {};
}

int64_t floorDiv(int64_t a, int64_t b) {
  if (b == 0)
    return 0;
  // INT64_MIN / -1 traps on x86.
  if (b == -1)
    return wrapNeg(a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}
int64_t floorMod(int64_t a, int64_t b) {
  if (b == 0 || b == -1)
    return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}
double floorModF(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

} // namespace

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult FullOp::fold(FoldAdaptor) {
  auto type = getResult().getType();
  if (!type.hasStaticShape())
    return {};
  return makeConstant(type, {fromF(getValue().convertToDouble())});
}

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor a) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  return foldNumericUnary(
      *this, a.getOperands(), [](double x) { return -x; }, wrapNeg);
}
OpFoldResult AbsOp::fold(FoldAdaptor a) {
  return foldNumericUnary(
      *this, a.getOperands(), [](double x) { return std::fabs(x); },
      [](int64_t x) { return x < 0 ? wrapNeg(x) : x; });
}
OpFoldResult ExpOp::fold(FoldAdaptor a) {
  return foldFloatUnary(*this, a.getOperands(), [](double x) {
    return std::exp(x);
  });
}
OpFoldResult LogOp::fold(FoldAdaptor a) {
  return foldFloatUnary(*this, a.getOperands(), [](double x) {
    return std::log(x);
  });
}
OpFoldResult Log1pOp::fold(FoldAdaptor a) {
  return foldFloatUnary(*this, a.getOperands(), [](double x) {
    return std::log1p(x);
  });
}
OpFoldResult SqrtOp::fold(FoldAdaptor a) {
  return foldFloatUnary(*this, a.getOperands(), [](double x) {
    return std::sqrt(x);
  });
}
OpFoldResult RsqrtOp::fold(FoldAdaptor a) {
  return foldFloatUnary(*this, a.getOperands(), [](double x) {
    return 1.0 / std::sqrt(x);
  });
}
OpFoldResult RecipOp::fold(FoldAdaptor a) {
  return foldFloatUnary(*this, a.getOperands(), [](double x) {
    return 1.0 / x;
  });
}
OpFoldResult SinOp::fold(FoldAdaptor a) {
  return foldFloatUnary(*this, a.getOperands(), [](double x) {
    return std::sin(x);
  });
}
OpFoldResult CosOp::fold(FoldAdaptor a) {
  return foldFloatUnary(*this, a.getOperands(), [](double x) {
    return std::cos(x);
  });
}
OpFoldResult TanhOp::fold(FoldAdaptor a) {
  return foldFloatUnary(*this, a.getOperands(), [](double x) {
    return std::tanh(x);
  });
}
OpFoldResult SigmoidOp::fold(FoldAdaptor a) {
  return foldFloatUnary(*this, a.getOperands(), [](double x) {
    return 1.0 / (1.0 + std::exp(-x));
  });
}
OpFoldResult ErfOp::fold(FoldAdaptor a) {
  return foldFloatUnary(*this, a.getOperands(), [](double x) {
    return std::erf(x);
  });
}
OpFoldResult ReluOp::fold(FoldAdaptor a) {
  return foldNumericUnary(
      *this, a.getOperands(), [](double x) { return x > 0 ? x : 0.0; },
      [](int64_t x) { return x > 0 ? x : int64_t(0); });
}
OpFoldResult FloorOp::fold(FoldAdaptor a) {
  return foldFloatUnary(*this, a.getOperands(), [](double x) {
    return std::floor(x);
  });
}
OpFoldResult CeilOp::fold(FoldAdaptor a) {
  return foldFloatUnary(*this, a.getOperands(), [](double x) {
    return std::ceil(x);
  });
}
OpFoldResult RoundOp::fold(FoldAdaptor a) {
  return foldFloatUnary(*this, a.getOperands(), [](double x) {
    return std::nearbyint(x);
  });
}
OpFoldResult SignOp::fold(FoldAdaptor a) {
  return foldNumericUnary(
      *this, a.getOperands(),
      [](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : x); },
      [](int64_t x) { return int64_t(x > 0) - int64_t(x < 0); });
}
OpFoldResult ClampOp::fold(FoldAdaptor a) {
  double lo = getMin().convertToDouble(), hi = getMax().convertToDouble();
  return foldNumericUnary(
      *this, a.getOperands(),
      [&](double x) {
        return std::isnan(x) ? x : std::min(std::max(x, lo), hi);
      },
      [&](int64_t x) {
        return toInt64(std::min(std::max((double)x, lo), hi));
      });
}
OpFoldResult NotOp::fold(FoldAdaptor a) {
  if (auto inner = getInput().getDefiningOp<NotOp>())
    return inner.getInput();
  return foldElementwise(*this, a.getOperands(), [](ArrayRef<Scalar> v, bool) {
    return fromB(v[0].i == 0);
  });
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor a) {
  if (OpFoldResult r = foldIdentity(*this, getLhs(), a.getRhs(), 0.0))
    return r;
  if (OpFoldResult r = foldIdentity(*this, getRhs(), a.getLhs(), 0.0))
    return r;
  return foldNumericBinary(
      *this, a.getOperands(), [](double x, double y) { return x + y; },
      [](int64_t x, int64_t y) { return (int64_t)((uint64_t)x + (uint64_t)y); });
}
OpFoldResult SubOp::fold(FoldAdaptor a) {
  if (OpFoldResult r = foldIdentity(*this, getLhs(), a.getRhs(), 0.0))
    return r;
  return foldNumericBinary(
      *this, a.getOperands(), [](double x, double y) { return x - y; },
      [](int64_t x, int64_t y) { return (int64_t)((uint64_t)x - (uint64_t)y); });
}
OpFoldResult MulOp::fold(FoldAdaptor a) {
  if (OpFoldResult r = foldIdentity(*this, getLhs(), a.getRhs(), 1.0))
    return r;
  if (OpFoldResult r = foldIdentity(*this, getRhs(), a.getLhs(), 1.0))
    return r;
  return foldNumericBinary(
      *this, a.getOperands(), [](double x, double y) { return x * y; },
      [](int64_t x, int64_t y) { return (int64_t)((uint64_t)x * (uint64_t)y); });
}
OpFoldResult DivOp::fold(FoldAdaptor a) {
  if (OpFoldResult r = foldIdentity(*this, getLhs(), a.getRhs(), 1.0))
    return r;
  return foldNumericBinary(
      *this, a.getOperands(), [](double x, double y) { return x / y; },
      floorDiv);
}
OpFoldResult PowOp::fold(FoldAdaptor a) {
  if (OpFoldResult r = foldIdentity(*this, getLhs(), a.getRhs(), 1.0))
    return r;
  return foldNumericBinary(
      *this, a.getOperands(),
      [](double x, double y) { return std::pow(x, y); },
      [](int64_t x, int64_t) { return x; });
}
OpFoldResult MaxOp::fold(FoldAdaptor a) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldNumericBinary(
      *this, a.getOperands(),
      [](double x, double y) {
        return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
      },
      [](int64_t x, int64_t y) { return std::max(x, y); });
}
OpFoldResult MinOp::fold(FoldAdaptor a) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldNumericBinary(
      *this, a.getOperands(),
      [](double x, double y) {
        return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
      },
      [](int64_t x, int64_t y) { return std::min(x, y); });
}
OpFoldResult RemOp::fold(FoldAdaptor a) {
  return foldNumericBinary(*this, a.getOperands(), floorModF, floorMod);
}
OpFoldResult Atan2Op::fold(FoldAdaptor a) {
  return foldNumericBinary(
      *this, a.getOperands(),
      [](double y, double x) { return std::atan2(y, x); },
      [](int64_t y, int64_t) { return y; });
}

OpFoldResult EqOp::fold(FoldAdaptor a) {
  return foldCompare(*this, a.getOperands(),
                     [](auto x, auto y) { return x == y; });
}
OpFoldResult NeOp::fold(FoldAdaptor a) {
  return foldCompare(*this, a.getOperands(),
                     [](auto x, auto y) { return x != y; });
}
OpFoldResult LtOp::fold(FoldAdaptor a) {
  return foldCompare(*this, a.getOperands(),
                     [](auto x, auto y) { return x < y; });
}
OpFoldResult LeOp::fold(FoldAdaptor a) {
  return foldCompare(*this, a.getOperands(),
                     [](auto x, auto y) { return x <= y; });
}
OpFoldResult GtOp::fold(FoldAdaptor a) {
  return foldCompare(*this, a.getOperands(),
                     [](auto x, auto y) { return x > y; });
}
OpFoldResult GeOp::fold(FoldAdaptor a) {
  return foldCompare(*this, a.getOperands(),
                     [](auto x, auto y) { return x >= y; });
}
OpFoldResult AndOp::fold(FoldAdaptor a) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldElementwise(*this, a.getOperands(), [](ArrayRef<Scalar> v, bool) {
    return fromB(v[0].i && v[1].i);
  });
}
OpFoldResult OrOp::fold(FoldAdaptor a) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldElementwise(*this, a.getOperands(), [](ArrayRef<Scalar> v, bool) {
    return fromB(v[0].i || v[1].i);
  });
}

OpFoldResult WhereOp::fold(FoldAdaptor a) {
  Type resultType = getResult().getType();
  if (getLhs() == getRhs() && getLhs().getType() == resultType)
    return getLhs();
  if (isSplat(a.getCondition())) {
    bool taken = readConstant(a.getCondition())->front().i != 0;
    Value v = taken ? getLhs() : getRhs();
    if (v.getType() == resultType)
      return v;
  }
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  auto in = readConstant(a.getInput());
  if (!in)
    return {};
  auto outType = getResult().getType();
  Type inElement = getInput().getType().getElementType();
  Type outElement = outType.getElementType();
  SmallVector<Scalar> out;
  for (const Scalar &s : *in) {
    if (outElement.isInteger(1)) {
      out.push_back(fromB(isFloatDType(inElement) ? s.f != 0 : s.i != 0));
    } else if (isFloatDType(outElement)) {
      out.push_back(fromF(isFloatDType(inElement) ? s.f : (double)s.i));
    } else if (isFloatDType(inElement)) {
      // Saturating truncation toward zero.
      unsigned w = outElement.getIntOrFloatBitWidth();
      bool isUnsigned = outElement.isUnsignedInteger();
      double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, w - 1);
      double hi = isUnsigned ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
      out.push_back(fromI(toInt64(std::min(std::max(s.f, lo), hi))));
    } else {
      out.push_back(fromI(s.i));
    }
  }
  if (out.size() == 1 && isSplat(a.getInput()))
    return makeConstant(outType, out);
  if ((int64_t)out.size() != outType.getNumElements())
    return {};
  return makeConstant(outType, out);
}

//===----------------------------------------------------------------------===//
// Reductions and layout
//===----------------------------------------------------------------------===//

OpFoldResult SumOp::fold(FoldAdaptor) {
  // Summing over size-1 dims with keepdim changes nothing.
  auto in = getInput().getType();
  if (in != getResult().getType())
    return {};
  for (int64_t axis : getAxes())
    if (in.getDimSize(axis) != 1)
      return {};
  return getInput();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  auto dense = llvm::dyn_cast_or_null<DenseElementsAttr>(a.getInput());
  if (dense && getResult().getType().hasStaticShape())
    return dense.reshape(getResult().getType());
  return {};
}

namespace {
/// reshape(reshape(x)) -> reshape(x): only the last shape matters.
struct FoldReshapeChain : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    // The inner reshape may have made a dynamic dim static, and a -1 in the
    // outer shape would then infer a less precise type from the inner
    // input. A static result type is itself a valid target shape.
    RankedTensorType type = op.getType();
    DenseI64ArrayAttr shape = op.getShapeAttr();
    if (type.hasStaticShape())
      shape = rewriter.getDenseI64ArrayAttr(type.getShape());
    rules::Dims inferred;
    if (!rules::reshape(inner.getInput().getType().getShape(),
                        shape.asArrayRef(), inferred)
             .empty() ||
        ArrayRef<int64_t>(inferred) != type.getShape())
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, inner.getInput(), shape);
    return success();
  }
};

/// reshape(f(x, ...)) -> f(reshape(x), ...) for an elementwise f that only
/// the reshape reads, when the reshape merges or splits leading dims and
/// keeps the last one: each operand of f's shape is reshaped alike, and
/// scalars and rows along the last dim broadcast as before. The reshape
/// then sits on the value f's chain starts from, and f can be evaluated
/// where a matmul packs its operand (a weight gradient x^T dy over the
/// rows of a batch of sequences, with x recomputed).
struct HoistReshapeOverElementwise : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    Operation *f = op.getInput().getDefiningOp();
    if (!f || !isFusibleElementwise(f) || f->getNumResults() != 1 ||
        !f->getResult(0).hasOneUse() || llvm::isa<ExpandOp>(f))
      return failure();
    auto from = llvm::cast<RankedTensorType>(f->getResult(0).getType());
    RankedTensorType to = op.getType();
    if (!from.hasStaticShape() || !to.hasStaticShape() ||
        from.getRank() == 0 || to.getRank() == 0 ||
        from.getShape().back() != to.getShape().back())
      return failure();
    SmallVector<Value> operands;
    for (Value in : f->getOperands()) {
      auto t = llvm::dyn_cast<RankedTensorType>(in.getType());
      if (!t)
        return failure();
      if (t.getShape() == from.getShape()) {
        operands.push_back(ReshapeOp::create(
            rewriter, op.getLoc(),
            RankedTensorType::get(to.getShape(), t.getElementType(),
                                  t.getEncoding()),
            in, op.getShapeAttr()));
        continue;
      }
      // A scalar, or a row along the last dim: broadcasts to either shape.
      bool row = t.getRank() == 0 ||
                 (t.getRank() == 1 && t.getShape()[0] == to.getShape().back());
      if (!row)
        return failure();
      operands.push_back(in);
    }
    Operation *moved = rewriter.clone(*f);
    moved->setOperands(operands);
    moved->getResult(0).setType(to);
    rewriter.replaceOp(op, moved->getResults());
    rewriter.eraseOp(f);
    return success();
  }
};

/// permute(permute(x, p), q) -> permute(x, p o q).
struct FoldPermuteChain : OpRewritePattern<PermuteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PermuteOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<PermuteOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> composed;
    for (int64_t d : op.getDims())
      composed.push_back(inner.getDims()[d]);
    rewriter.replaceOpWithNewOp<PermuteOp>(op, inner.getInput(),
                                           rewriter.getDenseI64ArrayAttr(composed));
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<FoldReshapeChain, HoistReshapeOverElementwise>(context);
}

OpFoldResult PermuteOp::fold(FoldAdaptor) {
  for (auto [i, d] : llvm::enumerate(getDims()))
    if ((int64_t)i != d)
      return {};
  return getInput();
}

void PermuteOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<FoldPermuteChain>(context);
}

OpFoldResult ExpandOp::fold(FoldAdaptor a) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  // A broadcast of a splat is a bigger splat.
  auto dense = llvm::dyn_cast_or_null<DenseElementsAttr>(a.getInput());
  auto type = getResult().getType();
  if (dense && dense.isSplat() && type.hasStaticShape())
    return DenseElementsAttr::get(type, dense.getSplatValue<Attribute>());
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  // A dynamic dim keeps its type whatever the bounds, so only a static
  // shape proves that the slice takes everything.
  if (getInput().getType() != getResult().getType() ||
      !getInput().getType().hasStaticShape())
    return {};
  for (int64_t s : getSteps())
    if (s != 1)
      return {};
  return getInput();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 &&
      getInputs().front().getType() == getResult().getType())
    return getInputs().front();
  return {};
}
