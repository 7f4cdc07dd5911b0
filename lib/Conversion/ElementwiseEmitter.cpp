//===- ElementwiseEmitter.cpp - Kiln elementwise ops as arith/math --------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/ElementwiseEmitter.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::kiln;

Type mlir::kiln::storageTypeOf(Type t) {
  if (auto i = llvm::dyn_cast<IntegerType>(t))
    if (!i.isSignless())
      return IntegerType::get(t.getContext(), i.getWidth());
  return t;
}

static Type scalarOf(Type t) { return getElementTypeOrSelf(t); }

Value mlir::kiln::constantOf(OpBuilder &b, Location loc, Type type,
                             double value) {
  Type e = scalarOf(type);
  TypedAttr attr;
  if (auto f = llvm::dyn_cast<FloatType>(e)) {
    attr = b.getFloatAttr(f, value);
  } else {
    auto i = llvm::cast<IntegerType>(e);
    if (i.getWidth() == 1)
      attr = b.getIntegerAttr(i, value != 0 ? 1 : 0);
    else
      attr = b.getIntegerAttr(i, APInt(64, (uint64_t)(int64_t)value)
                                     .trunc(i.getWidth()));
  }
  if (auto v = llvm::dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(v, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

namespace {

/// Builds elementwise arithmetic for one kiln op at one location.
struct Emitter {
  OpBuilder &b;
  Location loc;

  Value c(Value like, double v) { return constantOf(b, loc, like.getType(), v); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value cmpf(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value isNaN(Value x) { return cmpf(arith::CmpFPredicate::UNO, x, x); }

  Value erf(Value x) { return math::ErfOp::create(b, loc, x); }
  Value tanh(Value x) { return math::TanhOp::create(b, loc, x); }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
};

bool isUnsignedKiln(Type kilnElement) {
  return scalarOf(kilnElement).isUnsignedInteger();
}

/// The kiln element type of operand `i` of `op`.
Type kilnElementOf(Operation *op, unsigned i) {
  return llvm::cast<ShapedType>(op->getOperand(i).getType()).getElementType();
}

FailureOr<Value> emitUnary(Emitter &e, Operation *op, Value x) {
  Type kiln = kilnElementOf(op, 0);
  bool isFloat = llvm::isa<FloatType>(scalarOf(x.getType()));
  OpBuilder &b = e.b;
  Location loc = e.loc;
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case([&](NegOp) -> Value {
        if (isFloat)
          return arith::NegFOp::create(b, loc, x);
        return arith::SubIOp::create(b, loc, e.c(x, 0), x);
      })
      .Case([&](AbsOp) -> Value {
        if (isFloat)
          return math::AbsFOp::create(b, loc, x);
        return math::AbsIOp::create(b, loc, x);
      })
      .Case([&](ExpOp) -> Value { return e.exp(x); })
      .Case([&](LogOp) -> Value { return math::LogOp::create(b, loc, x); })
      .Case([&](Log1pOp) -> Value { return math::Log1pOp::create(b, loc, x); })
      .Case([&](SqrtOp) -> Value { return math::SqrtOp::create(b, loc, x); })
      .Case([&](RsqrtOp) -> Value {
        // 1 / sqrt(x) rounds like the reference; math.rsqrt's fast
        // approximation does not.
        return e.div(e.c(x, 1.0), math::SqrtOp::create(b, loc, x));
      })
      .Case([&](RecipOp) -> Value { return e.div(e.c(x, 1.0), x); })
      .Case([&](SinOp) -> Value { return math::SinOp::create(b, loc, x); })
      .Case([&](CosOp) -> Value { return math::CosOp::create(b, loc, x); })
      .Case([&](TanOp) -> Value {
        // As sin / cos, so that every backend's lowering of those serves.
        return e.div(math::SinOp::create(b, loc, x),
                     math::CosOp::create(b, loc, x));
      })
      .Case([&](TanhOp) -> Value { return e.tanh(x); })
      .Case([&](SigmoidOp) -> Value {
        Value nx = arith::NegFOp::create(b, loc, x);
        return e.div(e.c(x, 1.0), e.add(e.c(x, 1.0), e.exp(nx)));
      })
      .Case([&](ErfOp) -> Value { return e.erf(x); })
      .Case([&](ReluOp) -> Value {
        if (isFloat) // keeps NaN, like max(x, 0) with NaN propagation
          return e.select(e.cmpf(arith::CmpFPredicate::OLT, x, e.c(x, 0)),
                          e.c(x, 0), x);
        return arith::MaxSIOp::create(b, loc, x, e.c(x, 0));
      })
      .Case([&](GeluOp g) -> Value {
        Value half = e.mul(e.c(x, 0.5), x);
        if (g.getApproximate() == GeluApprox::Tanh) {
          Value x3 = e.mul(e.mul(x, x), x);
          Value inner =
              e.mul(e.c(x, 0.7978845608028654), e.add(x, e.mul(e.c(x, 0.044715), x3)));
          return e.mul(half, e.add(e.c(x, 1.0), e.tanh(inner)));
        }
        Value t = e.erf(e.mul(x, e.c(x, M_SQRT1_2)));
        return e.mul(half, e.add(e.c(x, 1.0), t));
      })
      .Case([&](SiluOp) -> Value {
        Value nx = arith::NegFOp::create(b, loc, x);
        return e.div(x, e.add(e.c(x, 1.0), e.exp(nx)));
      })
      .Case([&](FloorOp) -> Value { return math::FloorOp::create(b, loc, x); })
      .Case([&](CeilOp) -> Value { return math::CeilOp::create(b, loc, x); })
      .Case([&](RoundOp) -> Value {
        return math::RoundEvenOp::create(b, loc, x);
      })
      .Case([&](SignOp) -> Value {
        if (isFloat) {
          Value pos = e.cmpf(arith::CmpFPredicate::OGT, x, e.c(x, 0));
          Value neg = e.cmpf(arith::CmpFPredicate::OLT, x, e.c(x, 0));
          Value s = e.select(pos, e.c(x, 1), e.select(neg, e.c(x, -1), x));
          return s; // 0, -0 and NaN pass through
        }
        Value pos = e.cmpi(arith::CmpIPredicate::sgt, x, e.c(x, 0));
        Value neg = e.cmpi(arith::CmpIPredicate::slt, x, e.c(x, 0));
        return e.select(pos, e.c(x, 1), e.select(neg, e.c(x, -1), e.c(x, 0)));
      })
      .Case([&](ClampOp cl) -> Value {
        double lo = cl.getMin().convertToDouble();
        double hi = cl.getMax().convertToDouble();
        if (isFloat) {
          // NaN passes: compare-and-select keeps it.
          Value below = e.cmpf(arith::CmpFPredicate::OLT, x, e.c(x, lo));
          Value above = e.cmpf(arith::CmpFPredicate::OGT, x, e.c(x, hi));
          return e.select(below, e.c(x, lo), e.select(above, e.c(x, hi), x));
        }
        unsigned w = scalarOf(x.getType()).getIntOrFloatBitWidth();
        bool u = isUnsignedKiln(kiln);
        double tmin = u ? 0.0 : -std::ldexp(1.0, w - 1);
        double tmax = u ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
        lo = std::max(lo, tmin);
        hi = std::min(hi, tmax);
        Value l = e.c(x, std::ceil(lo)), h = e.c(x, std::floor(hi));
        if (u)
          return arith::MinUIOp::create(b, loc,
                                        arith::MaxUIOp::create(b, loc, x, l), h);
        return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, x, l),
                                      h);
      })
      .Case([&](IsNanOp) -> Value { return e.isNaN(x); })
      .Case([&](NotOp) -> Value {
        return arith::XOrIOp::create(b, loc, x, e.c(x, 1));
      })
      .Case<DetachOp, ExpandOp>([&](Operation *) -> Value { return x; })
      .Default([](Operation *) -> FailureOr<Value> { return failure(); });
}

/// x mod y with the sign of y, for floats.
Value floatRem(Emitter &e, Value x, Value y) {
  Value r = arith::RemFOp::create(e.b, e.loc, x, y);
  Value rNeg = e.cmpf(arith::CmpFPredicate::OLT, r, e.c(r, 0));
  Value yNeg = e.cmpf(arith::CmpFPredicate::OLT, y, e.c(y, 0));
  Value rNonZero = e.cmpf(arith::CmpFPredicate::ONE, r, e.c(r, 0));
  Value fix = arith::AndIOp::create(
      e.b, e.loc, rNonZero, arith::XOrIOp::create(e.b, e.loc, rNeg, yNeg));
  return e.select(fix, e.add(r, y), r);
}

FailureOr<Value> emitBinary(Emitter &e, Operation *op, Value x, Value y) {
  Type kiln = kilnElementOf(op, 0);
  bool isFloat = llvm::isa<FloatType>(scalarOf(x.getType()));
  bool u = isUnsignedKiln(kiln) || scalarOf(x.getType()).isInteger(1);
  OpBuilder &b = e.b;
  Location loc = e.loc;
  // Integer division must not trap: by zero it gives 0, and the signed
  // minimum by -1 (which overflows) wraps, as numpy does; both divide by 1
  // instead.
  auto safeDivisor = [&](Value d) {
    Value zero = e.cmpi(arith::CmpIPredicate::eq, d, e.c(d, 0));
    Value minusOne =
        u ? e.c(zero, 0) : e.cmpi(arith::CmpIPredicate::eq, d, e.c(d, -1));
    Value bad = arith::OrIOp::create(b, loc, zero, minusOne);
    return std::make_tuple(zero, minusOne, e.select(bad, e.c(d, 1), d));
  };
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case([&](AddOp) -> Value {
        return isFloat ? e.add(x, y) : arith::AddIOp::create(b, loc, x, y);
      })
      .Case([&](SubOp) -> Value {
        return isFloat ? e.sub(x, y) : arith::SubIOp::create(b, loc, x, y);
      })
      .Case([&](MulOp) -> Value {
        return isFloat ? e.mul(x, y) : arith::MulIOp::create(b, loc, x, y);
      })
      .Case([&](DivOp) -> Value {
        if (isFloat)
          return e.div(x, y);
        auto [zero, minusOne, d] = safeDivisor(y);
        Value q = u ? Value(arith::DivUIOp::create(b, loc, x, d))
                    : Value(arith::FloorDivSIOp::create(b, loc, x, d));
        if (!u)
          q = e.select(minusOne, arith::SubIOp::create(b, loc, e.c(x, 0), x),
                       q);
        return e.select(zero, e.c(x, 0), q);
      })
      .Case([&](RemOp) -> Value {
        if (isFloat)
          return floatRem(e, x, y);
        auto [zero, minusOne, d] = safeDivisor(y);
        Value r;
        if (u) {
          r = arith::RemUIOp::create(b, loc, x, d);
        } else {
          // Floored: fix the truncated remainder when the signs differ.
          Value t = arith::RemSIOp::create(b, loc, x, d);
          Value tNeg = e.cmpi(arith::CmpIPredicate::slt, t, e.c(t, 0));
          Value dNeg = e.cmpi(arith::CmpIPredicate::slt, d, e.c(d, 0));
          Value tNonZero = e.cmpi(arith::CmpIPredicate::ne, t, e.c(t, 0));
          Value fix = arith::AndIOp::create(
              b, loc, tNonZero, arith::XOrIOp::create(b, loc, tNeg, dNeg));
          r = e.select(fix, arith::AddIOp::create(b, loc, t, d), t);
          r = e.select(minusOne, e.c(x, 0), r);
        }
        return e.select(zero, e.c(x, 0), r);
      })
      .Case([&](PowOp) -> Value { return math::PowFOp::create(b, loc, x, y); })
      .Case([&](MaxOp) -> Value {
        if (isFloat)
          return arith::MaximumFOp::create(b, loc, x, y);
        return u ? Value(arith::MaxUIOp::create(b, loc, x, y))
                 : Value(arith::MaxSIOp::create(b, loc, x, y));
      })
      .Case([&](MinOp) -> Value {
        if (isFloat)
          return arith::MinimumFOp::create(b, loc, x, y);
        return u ? Value(arith::MinUIOp::create(b, loc, x, y))
                 : Value(arith::MinSIOp::create(b, loc, x, y));
      })
      .Case([&](Atan2Op) -> Value {
        return math::Atan2Op::create(b, loc, x, y);
      })
      .Case([&](AndOp) -> Value { return arith::AndIOp::create(b, loc, x, y); })
      .Case([&](OrOp) -> Value { return arith::OrIOp::create(b, loc, x, y); })
      .Default([&](Operation *) -> FailureOr<Value> {
        // Comparisons.
        using FP = arith::CmpFPredicate;
        using IP = arith::CmpIPredicate;
        struct Preds {
          FP f;
          IP s, u;
        };
        std::optional<Preds> p =
            llvm::TypeSwitch<Operation *, std::optional<Preds>>(op)
                .Case([](EqOp) { return Preds{FP::OEQ, IP::eq, IP::eq}; })
                .Case([](NeOp) { return Preds{FP::UNE, IP::ne, IP::ne}; })
                .Case([](LtOp) { return Preds{FP::OLT, IP::slt, IP::ult}; })
                .Case([](LeOp) { return Preds{FP::OLE, IP::sle, IP::ule}; })
                .Case([](GtOp) { return Preds{FP::OGT, IP::sgt, IP::ugt}; })
                .Case([](GeOp) { return Preds{FP::OGE, IP::sge, IP::uge}; })
                .Default([](Operation *) { return std::nullopt; });
        if (!p)
          return failure();
        if (isFloat)
          return e.cmpf(p->f, x, y);
        return e.cmpi(u ? p->u : p->s, x, y);
      });
}

} // namespace

Value mlir::kiln::emitCast(OpBuilder &b, Location loc, Value v, Type from,
                           Type to) {
  Type fromS = storageTypeOf(scalarOf(from)), toS = storageTypeOf(scalarOf(to));
  Type vt = v.getType();
  auto withElement = [&](Type e) -> Type {
    if (auto vec = llvm::dyn_cast<VectorType>(vt))
      return vec.clone(e);
    return e;
  };
  Type target = withElement(toS);
  if (fromS == toS)
    return v;
  Emitter e{b, loc};
  bool fromFloat = llvm::isa<FloatType>(fromS), toFloat = llvm::isa<FloatType>(toS);
  bool fromUnsigned = scalarOf(from).isUnsignedInteger() || fromS.isInteger(1);
  if (toS.isInteger(1)) {
    if (fromFloat)
      return e.cmpf(arith::CmpFPredicate::UNE, v, e.c(v, 0));
    return e.cmpi(arith::CmpIPredicate::ne, v, e.c(v, 0));
  }
  if (fromFloat && toFloat) {
    if (fromS.getIntOrFloatBitWidth() < toS.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, target, v);
    if (fromS.getIntOrFloatBitWidth() > toS.getIntOrFloatBitWidth())
      return arith::TruncFOp::create(b, loc, target, v);
    // f16 <-> bf16: through f32.
    Value f32 = arith::ExtFOp::create(b, loc, withElement(b.getF32Type()), v);
    return arith::TruncFOp::create(b, loc, target, f32);
  }
  if (!fromFloat && toFloat) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, loc, target, v);
    return arith::SIToFPOp::create(b, loc, target, v);
  }
  if (fromFloat && !toFloat) {
    // Saturate, then convert; NaN gives 0.
    unsigned w = toS.getIntOrFloatBitWidth();
    bool u = scalarOf(to).isUnsignedInteger();
    double lo = u ? 0.0 : -std::ldexp(1.0, w - 1);
    double hi = u ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
    // Work in f64 so that the bounds are exact for every width.
    Value d = v;
    if (fromS.getIntOrFloatBitWidth() < 64)
      d = arith::ExtFOp::create(b, loc, withElement(b.getF64Type()), v);
    Value t = math::TruncOp::create(b, loc, d);
    Value nan = e.isNaN(t);
    // At 64 bits the top bound is not a double: 2^63 - 1 rounds up to 2^63,
    // which fptosi cannot convert. Clamp below it and put the integer
    // maximum back after the conversion.
    Value over;
    if (w == 64) {
      over = e.cmpf(arith::CmpFPredicate::OGE, t, e.c(t, hi));
      hi = std::nextafter(hi, 0.0);
    }
    t = e.select(e.cmpf(arith::CmpFPredicate::OLT, t, e.c(t, lo)), e.c(t, lo), t);
    t = e.select(e.cmpf(arith::CmpFPredicate::OGT, t, e.c(t, hi)), e.c(t, hi), t);
    t = e.select(nan, e.c(t, 0), t);
    Value r = u ? arith::FPToUIOp::create(b, loc, target, t).getResult()
                : arith::FPToSIOp::create(b, loc, target, t).getResult();
    if (!over)
      return r;
    llvm::APInt max = u ? llvm::APInt::getMaxValue(64)
                        : llvm::APInt::getSignedMaxValue(64);
    TypedAttr maxAttr = b.getIntegerAttr(toS, max);
    if (auto vec = llvm::dyn_cast<VectorType>(target))
      maxAttr = DenseElementsAttr::get(vec, max);
    return e.select(over, arith::ConstantOp::create(b, loc, maxAttr), r);
  }
  // Integer to integer: wrap when narrowing, sign- or zero-extend by source.
  unsigned fw = fromS.getIntOrFloatBitWidth(), tw = toS.getIntOrFloatBitWidth();
  if (fw > tw)
    return arith::TruncIOp::create(b, loc, target, v);
  if (fromUnsigned)
    return arith::ExtUIOp::create(b, loc, target, v);
  return arith::ExtSIOp::create(b, loc, target, v);
}

FailureOr<Value> mlir::kiln::emitElementwise(OpBuilder &b, Location loc,
                                             Operation *op,
                                             ValueRange operands) {
  Emitter e{b, loc};
  if (auto cast = llvm::dyn_cast<CastOp>(op))
    return emitCast(b, loc, operands[0], kilnElementOf(op, 0),
                    cast.getType().getElementType());
  if (llvm::isa<WhereOp>(op))
    return e.select(operands[0], operands[1], operands[2]);
  if (operands.size() == 1)
    return emitUnary(e, op, operands[0]);
  if (operands.size() == 2)
    return emitBinary(e, op, operands[0], operands[1]);
  return failure();
}
