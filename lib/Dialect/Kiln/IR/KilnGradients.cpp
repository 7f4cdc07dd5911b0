//===- KilnGradients.cpp - Vector-Jacobian products of kiln ops -----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// One rule per differentiable op: given the cotangent of each result, build
// the cotangent of each operand in kiln IR. Composite ops have no rule; the
// autodiff pass decomposes them first. Only floating-point values carry
// gradients.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnBuilders.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

namespace {

bool isFloatTensor(Value v) {
  return v && llvm::isa<FloatType>(elementTypeOf(v));
}

/// Short spellings for building gradient graphs at one location.
struct Grad {
  OpBuilder &b;
  Location loc;

  Value c(Value like, double v) {
    return scalarConstant(b, loc, elementTypeOf(like), v);
  }
  Value add(Value x, Value y) { return AddOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return SubOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return MulOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return DivOp::create(b, loc, x, y); }
  Value neg(Value x) { return NegOp::create(b, loc, x); }
  Value exp(Value x) { return ExpOp::create(b, loc, x); }
  Value log(Value x) { return LogOp::create(b, loc, x); }
  Value floor(Value x) { return FloorOp::create(b, loc, x); }
  Value tanh(Value x) { return TanhOp::create(b, loc, x); }
  Value erf(Value x) { return ErfOp::create(b, loc, x); }
  Value sin(Value x) { return SinOp::create(b, loc, x); }
  Value cos(Value x) { return CosOp::create(b, loc, x); }
  Value sign(Value x) { return SignOp::create(b, loc, x); }
  Value pow(Value x, Value y) { return PowOp::create(b, loc, x, y); }
  Value gt(Value x, Value y) { return GtOp::create(b, loc, x, y); }
  Value ge(Value x, Value y) { return GeOp::create(b, loc, x, y); }
  Value le(Value x, Value y) { return LeOp::create(b, loc, x, y); }
  Value lt(Value x, Value y) { return LtOp::create(b, loc, x, y); }
  Value eq(Value x, Value y) { return EqOp::create(b, loc, x, y); }
  Value land(Value x, Value y) { return AndOp::create(b, loc, x, y); }
  /// where(m, x, 0), broadcast to the larger of m and x.
  Value select(Value m, Value x) {
    return WhereOp::create(b, loc, m, x, c(x, 0.0));
  }
  Value selectElse(Value m, Value x) {
    return WhereOp::create(b, loc, m, c(x, 0.0), x);
  }
  /// Sum `g` back to the shape of operand `like`.
  Value to(Value g, Value like) {
    return sumToShape(b, loc, g, llvm::cast<RankedTensorType>(like.getType()));
  }
  Value zerosLike(Value like) { return fullLike(b, loc, like, 0.0); }
  /// Swap the two innermost dims.
  Value transposeLast(Value x) {
    int64_t r = llvm::cast<RankedTensorType>(x.getType()).getRank();
    SmallVector<int64_t> perm;
    for (int64_t i = 0; i < r; ++i)
      perm.push_back(i);
    std::swap(perm[r - 1], perm[r - 2]);
    return PermuteOp::create(b, loc, x, b.getDenseI64ArrayAttr(perm));
  }
};

/// Fills `out` with one null gradient per operand.
LogicalResult noGradient(Operation *op, SmallVectorImpl<Value> &out) {
  out.assign(op->getNumOperands(), Value());
  return success();
}

/// Shared shape of unary rules: out = [rule(g)] when g and x are float.
template <typename Rule>
LogicalResult unary(Operation *op, OpBuilder &b, ValueRange grads,
                    SmallVectorImpl<Value> &out, Rule rule) {
  Value g = grads[0];
  if (!g || !isFloatTensor(op->getOperand(0)))
    return noGradient(op, out);
  Grad G{b, op->getLoc()};
  out.push_back(rule(G, g, op->getOperand(0), op->getResult(0)));
  return success();
}

/// Shared shape of binary rules; each side is summed back to its shape.
template <typename Rule>
LogicalResult binary(Operation *op, OpBuilder &b, ValueRange grads,
                     SmallVectorImpl<Value> &out, Rule rule) {
  Value g = grads[0];
  if (!g || !isFloatTensor(op->getOperand(0)))
    return noGradient(op, out);
  Grad G{b, op->getLoc()};
  Value x = op->getOperand(0), y = op->getOperand(1), z = op->getResult(0);
  auto [gx, gy] = rule(G, g, x, y, z);
  out.push_back(gx ? G.to(gx, x) : Value());
  out.push_back(gy ? G.to(gy, y) : Value());
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

LogicalResult NegOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  return unary(*this, b, g, out,
               [](Grad &G, Value g, Value, Value) { return G.neg(g); });
}
LogicalResult AbsOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  return unary(*this, b, g, out, [](Grad &G, Value g, Value x, Value) {
    return G.mul(g, G.sign(x));
  });
}
LogicalResult ExpOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  return unary(*this, b, g, out,
               [](Grad &G, Value g, Value, Value y) { return G.mul(g, y); });
}
LogicalResult LogOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  return unary(*this, b, g, out,
               [](Grad &G, Value g, Value x, Value) { return G.div(g, x); });
}
LogicalResult Log1pOp::buildVJP(OpBuilder &b, ValueRange g,
                                SmallVectorImpl<Value> &out) {
  return unary(*this, b, g, out, [](Grad &G, Value g, Value x, Value) {
    return G.div(g, G.add(x, G.c(x, 1.0)));
  });
}
LogicalResult SqrtOp::buildVJP(OpBuilder &b, ValueRange g,
                               SmallVectorImpl<Value> &out) {
  return unary(*this, b, g, out, [](Grad &G, Value g, Value, Value y) {
    return G.div(G.mul(g, G.c(y, 0.5)), y);
  });
}
LogicalResult RsqrtOp::buildVJP(OpBuilder &b, ValueRange g,
                                SmallVectorImpl<Value> &out) {
  // d/dx x^-1/2 = -1/2 x^-3/2 = -1/2 y^3.
  return unary(*this, b, g, out, [](Grad &G, Value g, Value, Value y) {
    return G.mul(G.mul(g, G.c(y, -0.5)), G.mul(y, G.mul(y, y)));
  });
}
LogicalResult RecipOp::buildVJP(OpBuilder &b, ValueRange g,
                                SmallVectorImpl<Value> &out) {
  return unary(*this, b, g, out, [](Grad &G, Value g, Value, Value y) {
    return G.neg(G.mul(g, G.mul(y, y)));
  });
}
LogicalResult SinOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  return unary(*this, b, g, out, [](Grad &G, Value g, Value x, Value) {
    return G.mul(g, G.cos(x));
  });
}
LogicalResult CosOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  return unary(*this, b, g, out, [](Grad &G, Value g, Value x, Value) {
    return G.neg(G.mul(g, G.sin(x)));
  });
}
LogicalResult TanOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  // d tan x = 1 + tan^2 x.
  return unary(*this, b, g, out, [](Grad &G, Value g, Value, Value y) {
    return G.mul(g, G.add(G.c(y, 1.0), G.mul(y, y)));
  });
}
LogicalResult TanhOp::buildVJP(OpBuilder &b, ValueRange g,
                               SmallVectorImpl<Value> &out) {
  return unary(*this, b, g, out, [](Grad &G, Value g, Value, Value y) {
    return G.mul(g, G.sub(G.c(y, 1.0), G.mul(y, y)));
  });
}
LogicalResult SigmoidOp::buildVJP(OpBuilder &b, ValueRange g,
                                  SmallVectorImpl<Value> &out) {
  return unary(*this, b, g, out, [](Grad &G, Value g, Value, Value y) {
    return G.mul(g, G.mul(y, G.sub(G.c(y, 1.0), y)));
  });
}
LogicalResult ErfOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  return unary(*this, b, g, out, [](Grad &G, Value g, Value x, Value) {
    Value e = G.exp(G.neg(G.mul(x, x)));
    return G.mul(g, G.mul(e, G.c(x, 2.0 / std::sqrt(M_PI))));
  });
}
LogicalResult ReluOp::buildVJP(OpBuilder &b, ValueRange g,
                               SmallVectorImpl<Value> &out) {
  // The mask reads the output (y > 0 exactly where x > 0), so that the
  // input need not be kept: what produced it (a normalization's scale and
  // shift, a residual add) fuses with the relu into one kernel.
  return unary(*this, b, g, out, [](Grad &G, Value g, Value, Value y) {
    return G.select(G.gt(y, G.c(y, 0.0)), g);
  });
}
LogicalResult GeluOp::buildVJP(OpBuilder &b, ValueRange g,
                               SmallVectorImpl<Value> &out) {
  bool useTanh = getApproximate() == GeluApprox::Tanh;
  return unary(*this, b, g, out, [&](Grad &G, Value g, Value x, Value) {
    if (!useTanh) {
      // Phi(x) + x * phi(x).
      Value cdf = G.mul(G.c(x, 0.5),
                        G.add(G.c(x, 1.0), G.erf(G.mul(x, G.c(x, M_SQRT1_2)))));
      Value pdf = G.mul(G.exp(G.mul(G.mul(x, x), G.c(x, -0.5))),
                        G.c(x, 0.3989422804014327));
      return G.mul(g, G.add(cdf, G.mul(x, pdf)));
    }
    // t = tanh(k (x + a x^3)):
    // d/dx = 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 a x^2).
    const double k = 0.7978845608028654, a = 0.044715;
    Value x2 = G.mul(x, x);
    Value inner = G.mul(G.c(x, k), G.add(x, G.mul(G.c(x, a), G.mul(x2, x))));
    Value t = G.tanh(inner);
    Value left = G.mul(G.c(x, 0.5), G.add(G.c(x, 1.0), t));
    Value dinner = G.mul(G.c(x, k), G.add(G.c(x, 1.0), G.mul(G.c(x, 3 * a), x2)));
    Value right = G.mul(G.mul(G.mul(G.c(x, 0.5), x), G.sub(G.c(x, 1.0), G.mul(t, t))),
                        dinner);
    return G.mul(g, G.add(left, right));
  });
}
LogicalResult ClampOp::buildVJP(OpBuilder &b, ValueRange g,
                                SmallVectorImpl<Value> &out) {
  double lo = getMin().convertToDouble(), hi = getMax().convertToDouble();
  return unary(*this, b, g, out, [&](Grad &G, Value g, Value x, Value) {
    Value inside = G.land(G.ge(x, G.c(x, lo)), G.le(x, G.c(x, hi)));
    return G.select(inside, g);
  });
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

using Pair = std::pair<Value, Value>;

LogicalResult AddOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  return binary(*this, b, g, out, [](Grad &, Value g, Value, Value, Value) {
    return Pair{g, g};
  });
}
LogicalResult SubOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  return binary(*this, b, g, out, [](Grad &G, Value g, Value, Value, Value) {
    return Pair{g, G.neg(g)};
  });
}
LogicalResult MulOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  return binary(*this, b, g, out, [](Grad &G, Value g, Value x, Value y, Value) {
    return Pair{G.mul(g, y), G.mul(g, x)};
  });
}
LogicalResult DivOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  return binary(*this, b, g, out, [](Grad &G, Value g, Value, Value y, Value z) {
    Value gx = G.div(g, y);
    return Pair{gx, G.neg(G.mul(gx, z))};
  });
}
LogicalResult PowOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  return binary(*this, b, g, out, [](Grad &G, Value g, Value x, Value y, Value z) {
    Value gx = G.mul(G.mul(g, y), G.pow(x, G.sub(y, G.c(y, 1.0))));
    Value gy = G.mul(G.mul(g, z), G.log(x));
    return Pair{gx, gy};
  });
}
LogicalResult MaxOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  return binary(*this, b, g, out, [](Grad &G, Value g, Value x, Value y, Value) {
    Value takeX = G.ge(x, y);
    return Pair{G.select(takeX, g), G.selectElse(takeX, g)};
  });
}
LogicalResult MinOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  return binary(*this, b, g, out, [](Grad &G, Value g, Value x, Value y, Value) {
    Value takeX = G.le(x, y);
    return Pair{G.select(takeX, g), G.selectElse(takeX, g)};
  });
}
LogicalResult RemOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  // x mod y = x - floor(x / y) y.
  return binary(*this, b, g, out, [](Grad &G, Value g, Value x, Value y, Value) {
    return Pair{g, G.neg(G.mul(g, G.floor(G.div(x, y))))};
  });
}
LogicalResult Atan2Op::buildVJP(OpBuilder &b, ValueRange g,
                                SmallVectorImpl<Value> &out) {
  // atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2).
  return binary(*this, b, g, out, [](Grad &G, Value g, Value y, Value x, Value) {
    Value r = G.div(g, G.add(G.mul(x, x), G.mul(y, y)));
    return Pair{G.mul(r, x), G.neg(G.mul(r, y))};
  });
}

LogicalResult WhereOp::buildVJP(OpBuilder &b, ValueRange grads,
                                SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  if (!g || !isFloatTensor(getLhs()))
    return noGradient(*this, out);
  Grad G{b, getLoc()};
  out.push_back(Value());
  out.push_back(G.to(G.select(getCondition(), g), getLhs()));
  out.push_back(G.to(G.selectElse(getCondition(), g), getRhs()));
  return success();
}

LogicalResult CastOp::buildVJP(OpBuilder &b, ValueRange grads,
                               SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  if (!g || !isFloatTensor(getInput()) || !isFloatTensor(getResult()))
    return noGradient(*this, out);
  out.push_back(CastOp::create(b, getLoc(), g, elementTypeOf(getInput())));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

LogicalResult SumOp::buildVJP(OpBuilder &b, ValueRange grads,
                              SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  if (!g || !isFloatTensor(getInput()))
    return noGradient(*this, out);
  out.push_back(expandReduced(b, getLoc(), g, getAxes(), getKeepdim(),
                              getInput()));
  return success();
}

LogicalResult ProdOp::buildVJP(OpBuilder &b, ValueRange grads,
                               SmallVectorImpl<Value> &out) {
  // d prod / dx_i = prod / x_i (inputs are assumed non-zero).
  Value g = grads[0];
  if (!g || !isFloatTensor(getInput()))
    return noGradient(*this, out);
  Grad G{b, getLoc()};
  Value gp = G.mul(g, getResult());
  Value full = expandReduced(b, getLoc(), gp, getAxes(), getKeepdim(),
                             getInput());
  out.push_back(G.div(full, getInput()));
  return success();
}

/// max/min over axes: the gradient is shared evenly between tied extrema.
static LogicalResult extremumVJP(Operation *op, ArrayRef<int64_t> axes,
                                 bool keepdim, OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  Value g = grads[0], x = op->getOperand(0), y = op->getResult(0);
  if (!g || !isFloatTensor(x))
    return noGradient(op, out);
  Grad G{b, op->getLoc()};
  Value yFull = expandReduced(b, op->getLoc(), y, axes, keepdim, x);
  Value hit = G.eq(x, yFull);
  Value hits = CastOp::create(b, op->getLoc(), hit, elementTypeOf(x));
  Value count = sumOver(b, op->getLoc(), hits, axes, /*keepdim=*/true);
  Value gKeep = keepdim ? g
                        : UnsqueezeOp::create(b, op->getLoc(), g,
                                              b.getDenseI64ArrayAttr(axes))
                              .getResult();
  Value share = G.div(gKeep, count);
  out.push_back(G.mul(hits, share));
  return success();
}

LogicalResult ReduceMaxOp::buildVJP(OpBuilder &b, ValueRange g,
                                    SmallVectorImpl<Value> &out) {
  return extremumVJP(*this, getAxes(), getKeepdim(), b, g, out);
}
LogicalResult ReduceMinOp::buildVJP(OpBuilder &b, ValueRange g,
                                    SmallVectorImpl<Value> &out) {
  return extremumVJP(*this, getAxes(), getKeepdim(), b, g, out);
}

LogicalResult CumsumOp::buildVJP(OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  // The adjoint of a running sum is the running sum from the other end.
  Value g = grads[0];
  if (!g || !isFloatTensor(getInput()))
    return noGradient(*this, out);
  Location loc = getLoc();
  auto axes = b.getDenseI64ArrayAttr({(int64_t)getAxis()});
  Value r = FlipOp::create(b, loc, g, axes);
  r = CumsumOp::create(b, loc, r, getAxis());
  out.push_back(FlipOp::create(b, loc, r, axes));
  return success();
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::buildVJP(OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  if (!g || !isFloatTensor(getLhs()))
    return noGradient(*this, out);
  Grad G{b, getLoc()};
  Value ga = MatmulOp::create(b, getLoc(), g, G.transposeLast(getRhs()));
  auto lhs = llvm::cast<RankedTensorType>(getLhs().getType());
  auto rhs = llvm::cast<RankedTensorType>(getRhs().getType());
  Value gb;
  if (lhs.getRank() > 2 && rhs.getRank() == 2) {
    // A [..., M, K] times a matrix B (a linear layer over a batch of
    // sequences): B's gradient is one matmul over every row of every
    // batch, A^T [K, rows] x g [rows, N], rather than a batched product
    // [..., K, N] summed over its batch dims (which stores the batch's
    // partial gradients and runs matmuls of K = M).
    Value a = ReshapeOp::create(
        b, getLoc(), getLhs(),
        b.getDenseI64ArrayAttr({-1, lhs.getShape().back()}));
    Value gm = ReshapeOp::create(
        b, getLoc(), g,
        b.getDenseI64ArrayAttr(
            {-1, llvm::cast<RankedTensorType>(g.getType()).getShape().back()}));
    gb = MatmulOp::create(b, getLoc(), G.transposeLast(a), gm);
  } else {
    gb = MatmulOp::create(b, getLoc(), G.transposeLast(getLhs()), g);
  }
  out.push_back(G.to(ga, getLhs()));
  out.push_back(G.to(gb, getRhs()));
  return success();
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

/// Layout rules move the gradient, so they apply to every float dtype.
template <typename Rule>
static LogicalResult layout(Operation *op, OpBuilder &b, ValueRange grads,
                            SmallVectorImpl<Value> &out, Rule rule) {
  Value g = grads[0];
  if (!g || !isFloatTensor(op->getOperand(0)))
    return noGradient(op, out);
  Grad G{b, op->getLoc()};
  out.push_back(rule(G, g));
  return success();
}

LogicalResult ReshapeOp::buildVJP(OpBuilder &b, ValueRange g,
                                  SmallVectorImpl<Value> &out) {
  return layout(*this, b, g, out, [&](Grad &G, Value g) {
    return reshapeTo(G.b, G.loc, g, getInput().getType());
  });
}
LogicalResult PermuteOp::buildVJP(OpBuilder &b, ValueRange g,
                                  SmallVectorImpl<Value> &out) {
  SmallVector<int64_t> inverse(getDims().size());
  for (auto [i, d] : llvm::enumerate(getDims()))
    inverse[d] = i;
  return layout(*this, b, g, out, [&](Grad &G, Value g) -> Value {
    return PermuteOp::create(G.b, G.loc, g, G.b.getDenseI64ArrayAttr(inverse));
  });
}
LogicalResult ExpandOp::buildVJP(OpBuilder &b, ValueRange g,
                                 SmallVectorImpl<Value> &out) {
  return layout(*this, b, g, out, [&](Grad &G, Value g) {
    return G.to(g, getInput());
  });
}
LogicalResult SliceOp::buildVJP(OpBuilder &b, ValueRange g,
                                SmallVectorImpl<Value> &out) {
  return layout(*this, b, g, out, [&](Grad &G, Value g) -> Value {
    return SliceAssignOp::create(G.b, G.loc, g, G.zerosLike(getInput()),
                                 getStartsAttr(), getEndsAttr(),
                                 getStepsAttr());
  });
}
LogicalResult SliceAssignOp::buildVJP(OpBuilder &b, ValueRange grads,
                                      SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  if (!g || !isFloatTensor(getDest()))
    return noGradient(*this, out);
  Grad G{b, getLoc()};
  out.push_back(SliceOp::create(b, getLoc(), g, getStartsAttr(), getEndsAttr(),
                                getStepsAttr()));
  out.push_back(SliceAssignOp::create(b, getLoc(), G.zerosLike(getValue()), g,
                                      getStartsAttr(), getEndsAttr(),
                                      getStepsAttr()));
  return success();
}
LogicalResult ConcatOp::buildVJP(OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  if (!g || !isFloatTensor(getResult()))
    return noGradient(*this, out);
  SmallVector<int64_t> sizes;
  for (Value v : getInputs()) {
    int64_t d = llvm::cast<RankedTensorType>(v.getType()).getDimSize(getAxis());
    if (ShapedType::isDynamic(d))
      return emitOpError() << "cannot differentiate a concat along a dynamic dim";
    sizes.push_back(d);
  }
  auto split = SplitOp::create(b, getLoc(), g, b.getDenseI64ArrayAttr(sizes),
                               getAxis());
  for (Value piece : split.getResults())
    out.push_back(piece);
  return success();
}
LogicalResult SplitOp::buildVJP(OpBuilder &b, ValueRange grads,
                                SmallVectorImpl<Value> &out) {
  if (!isFloatTensor(getInput()) || llvm::all_of(grads, [](Value v) {
        return !v;
      }))
    return noGradient(*this, out);
  Grad G{b, getLoc()};
  SmallVector<Value> pieces;
  for (auto [g, r] : llvm::zip(grads, getResults()))
    pieces.push_back(g ? g : G.zerosLike(r));
  out.push_back(ConcatOp::create(b, getLoc(), pieces, getAxis()));
  return success();
}
LogicalResult SqueezeOp::buildVJP(OpBuilder &b, ValueRange g,
                                  SmallVectorImpl<Value> &out) {
  return layout(*this, b, g, out, [&](Grad &G, Value g) -> Value {
    return UnsqueezeOp::create(G.b, G.loc, g, getAxesAttr());
  });
}
LogicalResult UnsqueezeOp::buildVJP(OpBuilder &b, ValueRange g,
                                    SmallVectorImpl<Value> &out) {
  return layout(*this, b, g, out, [&](Grad &G, Value g) -> Value {
    return SqueezeOp::create(G.b, G.loc, g, getAxesAttr());
  });
}
LogicalResult FlipOp::buildVJP(OpBuilder &b, ValueRange g,
                               SmallVectorImpl<Value> &out) {
  return layout(*this, b, g, out, [&](Grad &G, Value g) -> Value {
    return FlipOp::create(G.b, G.loc, g, getAxesAttr());
  });
}
LogicalResult RepeatOp::buildVJP(OpBuilder &b, ValueRange g,
                                 SmallVectorImpl<Value> &out) {
  // View the gradient as [r0, d0, r1, d1, ...] and sum the copies.
  auto in = getInput().getType();
  if (!in.hasStaticShape())
    return emitOpError() << "cannot differentiate a repeat of dynamic shape";
  SmallVector<int64_t> split, copies;
  for (auto [i, r] : llvm::enumerate(getRepeats())) {
    split.push_back(r);
    split.push_back(in.getDimSize(i));
    copies.push_back(2 * i);
  }
  return layout(*this, b, g, out, [&](Grad &G, Value g) -> Value {
    Value v = ReshapeOp::create(G.b, G.loc, g, G.b.getDenseI64ArrayAttr(split));
    return sumOver(G.b, G.loc, v, copies, /*keepdim=*/false);
  });
}
LogicalResult PadOp::buildVJP(OpBuilder &b, ValueRange g,
                              SmallVectorImpl<Value> &out) {
  auto in = getInput().getType();
  SmallVector<int64_t> starts, ends, steps;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    starts.push_back(getLow()[i]);
    int64_t d = in.getDimSize(i);
    ends.push_back(ShapedType::isDynamic(d) ? std::numeric_limits<int64_t>::max()
                                            : getLow()[i] + d);
    steps.push_back(1);
  }
  if (llvm::any_of(getHigh(), [](int64_t h) { return h != 0; }) &&
      !in.hasStaticShape())
    return emitOpError() << "cannot differentiate a high pad of dynamic shape";
  return layout(*this, b, g, out, [&](Grad &G, Value g) -> Value {
    return SliceOp::create(G.b, G.loc, g, G.b.getDenseI64ArrayAttr(starts),
                           G.b.getDenseI64ArrayAttr(ends),
                           G.b.getDenseI64ArrayAttr(steps));
  });
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::buildVJP(OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  if (!g || !isFloatTensor(getInput()))
    return noGradient(*this, out);
  Grad G{b, getLoc()};
  out.push_back(ScatterAddOp::create(b, getLoc(), g, G.zerosLike(getInput()),
                                     getIndices(), getAxis()));
  out.push_back(Value());
  return success();
}

LogicalResult ScatterAddOp::buildVJP(OpBuilder &b, ValueRange grads,
                                     SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  if (!g || !isFloatTensor(getInput()))
    return noGradient(*this, out);
  out.push_back(GatherOp::create(b, getLoc(), g, getIndices(), getAxis()));
  out.push_back(g);
  out.push_back(Value());
  return success();
}

LogicalResult IndexSelectOp::buildVJP(OpBuilder &b, ValueRange grads,
                                      SmallVectorImpl<Value> &out) {
  // Scatter-add whole slices back: the 1-D indices are laid along `axis`
  // and broadcast over the other dims.
  Value g = grads[0];
  if (!g || !isFloatTensor(getInput()))
    return noGradient(*this, out);
  Grad G{b, getLoc()};
  auto gType = llvm::cast<RankedTensorType>(g.getType());
  int64_t axis = getAxis();
  // Constant indices that permute the axis (rope's rotation of each head's
  // halves) move each slice back with the inverse permutation: a gather,
  // not a scatter-add through an index tensor of the gradient's size.
  DenseIntElementsAttr constant;
  int64_t n =
      llvm::cast<RankedTensorType>(getInput().getType()).getDimSize(axis);
  if (matchPattern(getIndices(), m_Constant(&constant)) &&
      !ShapedType::isDynamic(n) && constant.getNumElements() == n) {
    SmallVector<int64_t> inverse(n, -1);
    bool permutes = true;
    for (auto [j, v] : llvm::enumerate(constant.getValues<APInt>())) {
      int64_t i = v.getSExtValue();
      if (i < 0 || i >= n || inverse[i] != -1) {
        permutes = false;
        break;
      }
      inverse[i] = static_cast<int64_t>(j);
    }
    if (permutes) {
      auto type = llvm::cast<RankedTensorType>(constant.getType());
      unsigned bits = type.getElementType().getIntOrFloatBitWidth();
      SmallVector<APInt> values;
      for (int64_t i : inverse)
        values.push_back(APInt(bits, i));
      Value inv =
          ConstantOp::create(b, getLoc(), DenseElementsAttr::get(type, values));
      out.push_back(IndexSelectOp::create(b, getLoc(), g, inv, axis));
      out.push_back(Value());
      return success();
    }
  }
  SmallVector<int64_t> along(gType.getRank(), 1);
  along[axis] = -1;
  Value idx = ReshapeOp::create(b, getLoc(), getIndices(),
                                b.getDenseI64ArrayAttr(along));
  SmallVector<int64_t> full;
  for (int64_t i = 0; i < gType.getRank(); ++i)
    full.push_back(gType.isDynamicDim(i) || i == axis ? -1 : gType.getDimSize(i));
  idx = ExpandOp::create(b, getLoc(), idx, b.getDenseI64ArrayAttr(full));
  out.push_back(ScatterAddOp::create(b, getLoc(), g, G.zerosLike(getInput()),
                                     idx, axis));
  out.push_back(Value());
  return success();
}

//===----------------------------------------------------------------------===//
// Neural-network ops
//===----------------------------------------------------------------------===//

LogicalResult Conv2dOp::buildVJP(OpBuilder &b, ValueRange grads,
                                 SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  if (!g)
    return noGradient(*this, out);
  Location loc = getLoc();
  out.push_back(Conv2dBackwardInputOp::create(
      b, loc, getInput().getType(), g, getWeight(), getStrideAttr(),
      getPaddingAttr(), getDilationAttr(), getGroupsAttr()));
  out.push_back(Conv2dBackwardWeightOp::create(
      b, loc, getWeight().getType(), g, getInput(), getStrideAttr(),
      getPaddingAttr(), getDilationAttr(), getGroupsAttr()));
  if (getBias())
    out.push_back(SumOp::create(b, loc, g, b.getDenseI64ArrayAttr({0, 2, 3}),
                                /*keepdim=*/false));
  return success();
}

LogicalResult Conv2dBackwardInputOp::buildVJP(OpBuilder &b, ValueRange grads,
                                              SmallVectorImpl<Value> &out) {
  // result = convT(grad, weight), linear in each: its adjoint with respect
  // to grad is the convolution of the result's gradient d with weight; with
  // respect to weight, the weight gradient of the convolution of d whose
  // output gradient is grad.
  Value d = grads[0];
  if (!d)
    return noGradient(*this, out);
  Location loc = getLoc();
  out.push_back(Conv2dOp::create(b, loc, d, getWeight(), Value(),
                                 getStrideAttr(), getPaddingAttr(),
                                 getDilationAttr(), getGroupsAttr()));
  out.push_back(Conv2dBackwardWeightOp::create(
      b, loc, getWeight().getType(), getGrad(), d, getStrideAttr(),
      getPaddingAttr(), getDilationAttr(), getGroupsAttr()));
  return success();
}

LogicalResult MaxPool2dOp::buildVJP(OpBuilder &b, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  if (!g)
    return noGradient(*this, out);
  out.push_back(MaxPool2dBackwardOp::create(
      b, getLoc(), getInput().getType(), g, getInput(), getKernelAttr(),
      getStrideAttr(), getPaddingAttr()));
  return success();
}

LogicalResult AvgPool2dOp::buildVJP(OpBuilder &b, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  Value g = grads[0];
  if (!g)
    return noGradient(*this, out);
  out.push_back(AvgPool2dBackwardOp::create(
      b, getLoc(), getInput().getType(), g, getInput(), getKernelAttr(),
      getStrideAttr(), getPaddingAttr(), getCountIncludePadAttr()));
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

LogicalResult AllReduceOp::buildVJP(OpBuilder &b, ValueRange grads,
                                    SmallVectorImpl<Value> &out) {
  // Every rank's loss reads the reduction, so rank r's input reaches the
  // losses of all ranks: its gradient is the same reduction of theirs (a
  // mean scales by 1/ranks both ways).
  Value g = grads[0];
  if (!g || !isFloatTensor(getInput()))
    return noGradient(*this, out);
  out.push_back(AllReduceOp::create(b, getLoc(), g, getKind()));
  return success();
}
