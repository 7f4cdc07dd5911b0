//===- FlexElementwise.cpp - Elementwise kernels of Flex ------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Unary, binary, comparison, logic, where, cast and clamp. f32 runs through
// the Highway loops wherever the operands are contiguous or scalar along the
// innermost run; everything else runs a typed scalar loop with the same
// formulas.
//
//===----------------------------------------------------------------------===//

#include "FlexConvert.h"
#include "FlexKernels.h"
#include "FlexSimd.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace kiln;
using namespace kiln::detail;
using namespace kiln::detail::flex;
using simd::Binary;
using simd::Unary;

namespace {

//===----------------------------------------------------------------------===//
// Scalar formulas
//===----------------------------------------------------------------------===//

template <typename C> C erfOf(C x) {
  if constexpr (std::is_same_v<C, float>)
    return simd::erfF32(x);
  else
    return std::erf(x);
}

template <typename C> C unaryOf(Unary k, C x) {
  if constexpr (std::is_floating_point_v<C>) {
    switch (k) {
    case Unary::Neg:
      return -x;
    case Unary::Abs:
      return std::fabs(x);
    case Unary::Exp:
      return std::exp(x);
    case Unary::Log:
      return std::log(x);
    case Unary::Log1p:
      return std::log1p(x);
    case Unary::Sqrt:
      return std::sqrt(x);
    case Unary::Rsqrt:
      return C(1) / std::sqrt(x);
    case Unary::Recip:
      return C(1) / x;
    case Unary::Sin:
      return std::sin(x);
    case Unary::Cos:
      return std::cos(x);
    case Unary::Tanh:
      return std::tanh(x);
    case Unary::Sigmoid:
      return C(1) / (C(1) + std::exp(-x));
    case Unary::Erf:
      return erfOf(x);
    case Unary::Relu:
      return x < C(0) ? C(0) : x;
    case Unary::Gelu:
      return C(0.5) * x * (C(1) + erfOf<C>(x * C(0.70710678118654752)));
    case Unary::GeluTanh:
      return C(0.5) * x *
             (C(1) + std::tanh(C(0.7978845608028654) *
                               (x + C(0.044715) * x * x * x)));
    case Unary::Floor:
      return std::floor(x);
    case Unary::Ceil:
      return std::ceil(x);
    case Unary::Round:
      return std::nearbyint(x);
    case Unary::Sign:
      return x > C(0) ? C(1) : (x < C(0) ? C(-1) : x);
    case Unary::Silu:
      return x / (C(1) + std::exp(-x));
    case Unary::Copy:
      return x;
    }
    return x;
  } else {
    switch (k) {
    case Unary::Neg:
      return static_cast<C>(-x);
    case Unary::Abs:
      return x < 0 ? static_cast<C>(-x) : x;
    case Unary::Relu:
      return x < 0 ? C(0) : x;
    case Unary::Sign:
      return static_cast<C>((x > 0) - (x < 0));
    default:
      return x;
    }
  }
}

int64_t floorDiv(int64_t a, int64_t b) {
  if (b == 0)
    return 0;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t floorMod(int64_t a, int64_t b) {
  if (b == 0)
    return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

enum class BinaryOp { Add, Sub, Mul, Div, Max, Min, Pow, Rem, Atan2 };

template <typename C> C binaryOf(BinaryOp k, C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    switch (k) {
    case BinaryOp::Add:
      return a + b;
    case BinaryOp::Sub:
      return a - b;
    case BinaryOp::Mul:
      return a * b;
    case BinaryOp::Div:
      return a / b;
    case BinaryOp::Max:
      return std::isnan(a) ? a : (std::isnan(b) ? b : (a > b ? a : b));
    case BinaryOp::Min:
      return std::isnan(a) ? a : (std::isnan(b) ? b : (a < b ? a : b));
    case BinaryOp::Pow:
      return std::pow(a, b);
    case BinaryOp::Rem: {
      C r = std::fmod(a, b);
      if (r != C(0) && ((r < C(0)) != (b < C(0))))
        r += b;
      return r;
    }
    case BinaryOp::Atan2:
      return std::atan2(a, b);
    }
    return a;
  } else {
    using W = std::conditional_t<std::is_unsigned_v<C>, uint64_t, int64_t>;
    W x = a, y = b;
    switch (k) {
    case BinaryOp::Add:
      return static_cast<C>(x + y);
    case BinaryOp::Sub:
      return static_cast<C>(x - y);
    case BinaryOp::Mul:
      return static_cast<C>(x * y);
    case BinaryOp::Div:
      if constexpr (std::is_unsigned_v<C>)
        return y == 0 ? C(0) : static_cast<C>(x / y);
      else
        return static_cast<C>(floorDiv(x, y));
    case BinaryOp::Max:
      return a > b ? a : b;
    case BinaryOp::Min:
      return a < b ? a : b;
    case BinaryOp::Rem:
      if constexpr (std::is_unsigned_v<C>)
        return y == 0 ? C(0) : static_cast<C>(x % y);
      else
        return static_cast<C>(floorMod(x, y));
    default:
      return a;
    }
  }
}

Binary simdBinary(BinaryOp k) {
  switch (k) {
  case BinaryOp::Add:
    return Binary::Add;
  case BinaryOp::Sub:
    return Binary::Sub;
  case BinaryOp::Mul:
    return Binary::Mul;
  case BinaryOp::Div:
    return Binary::Div;
  case BinaryOp::Max:
    return Binary::Max;
  case BinaryOp::Min:
    return Binary::Min;
  case BinaryOp::Pow:
    return Binary::Pow;
  case BinaryOp::Rem:
    return Binary::Rem;
  case BinaryOp::Atan2:
    return Binary::Atan2;
  }
  return Binary::Add;
}

/// Non-temporal stores for outputs far larger than the cache.
simd::Store storeFor(const Buffer &out) {
  return simd::streamStores(out.numel() *
                            static_cast<int64_t>(out.elementBytes()))
             ? simd::Store::Stream
             : simd::Store::Cached;
}

/// True when a run's input strides (s[1..count]) suit the SIMD loops: one
/// value for every lane (0) or contiguous (1).
bool simdStrides(const int64_t *s, int count) {
  for (int k = 1; k <= count; ++k)
    if (s[k] != 0 && s[k] != 1)
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Step builders
//===----------------------------------------------------------------------===//

KernelBuilder unaryKernel(Unary kind) {
  return [kind](mlir::Operation *op) -> Step {
    DType dt = resultDType(op);
    std::vector<int64_t> shape = resultShape(op);
    return [=](llvm::ArrayRef<const Buffer *> ops,
               llvm::MutableArrayRef<Buffer> results, StepContext &ctx) {
      const Buffer &in = *ops[0];
      Buffer out = elementwiseOutput(ops, ctx, dt, shape);
      if (dt == DType::F32 && in.isContiguous()) {
        const float *src = in.as<float>();
        float *dst = out.as<float>();
        const simd::Store store = storeFor(out);
        parallelFor(in.numel(), 1 << 15, [&](int64_t b, int64_t e) {
          simd::unaryF32(kind, src + b, dst + b, e - b, store);
        });
      } else {
        dispatchAny(dt, [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (!std::is_same_v<T, bool>) {
            elementwiseLoop(out, {in},
                            [&](char **p, const int64_t *s, int64_t n) {
                              T *o = reinterpret_cast<T *>(p[0]);
                              const T *a = reinterpret_cast<const T *>(p[1]);
                              for (int64_t i = 0; i < n; ++i)
                                o[i] = storeAs<T>(unaryOf(kind, load(a[i * s[1]])));
                            });
          }
        });
      }
      results[0] = std::move(out);
    };
  };
}

KernelBuilder binaryKernel(BinaryOp kind) {
  return [kind](mlir::Operation *op) -> Step {
    DType dt = resultDType(op);
    std::vector<int64_t> shape = resultShape(op);
    return [=](llvm::ArrayRef<const Buffer *> ops,
               llvm::MutableArrayRef<Buffer> results, StepContext &ctx) {
      Buffer out = elementwiseOutput(ops, ctx, dt, shape);
      Buffer a = broadcastView(*ops[0], shape), b = broadcastView(*ops[1], shape);
      const Binary vec = simdBinary(kind);
      const simd::Store store = storeFor(out);
      dispatchAny(dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (!std::is_same_v<T, bool>) {
          elementwiseLoop(out, {a, b}, [&](char **p, const int64_t *s,
                                           int64_t n) {
            T *o = reinterpret_cast<T *>(p[0]);
            const T *x = reinterpret_cast<const T *>(p[1]);
            const T *y = reinterpret_cast<const T *>(p[2]);
            if constexpr (std::is_same_v<T, float>) {
              if (simdStrides(s, 2)) {
                simd::binaryF32(vec, x, s[1], y, s[2], o, n, store);
                return;
              }
            }
            for (int64_t i = 0; i < n; ++i)
              o[i] = storeAs<T>(binaryOf(kind, load(x[i * s[1]]),
                                         load(y[i * s[2]])));
          });
        }
      });
      results[0] = std::move(out);
    };
  };
}

enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge, And, Or };

template <typename C> bool compareOf(CompareOp k, C a, C b) {
  switch (k) {
  case CompareOp::Eq:
    return a == b;
  case CompareOp::Ne:
    return a != b;
  case CompareOp::Lt:
    return a < b;
  case CompareOp::Le:
    return a <= b;
  case CompareOp::Gt:
    return a > b;
  case CompareOp::Ge:
    return a >= b;
  case CompareOp::And:
    return a && b;
  case CompareOp::Or:
    return a || b;
  }
  return false;
}

KernelBuilder compareKernel(CompareOp kind) {
  return [kind](mlir::Operation *op) -> Step {
    DType in = operandDType(op, 0);
    std::vector<int64_t> shape = resultShape(op);
    return [=](llvm::ArrayRef<const Buffer *> ops,
               llvm::MutableArrayRef<Buffer> results, StepContext &ctx) {
      Buffer out = elementwiseOutput(ops, ctx, DType::Bool, shape);
      Buffer a = broadcastView(*ops[0], shape), b = broadcastView(*ops[1], shape);
      dispatchAny(in, [&](auto tag) {
        using T = typename decltype(tag)::type;
        elementwiseLoop(out, {a, b}, [&](char **p, const int64_t *s,
                                         int64_t n) {
          bool *o = reinterpret_cast<bool *>(p[0]);
          const T *x = reinterpret_cast<const T *>(p[1]);
          const T *y = reinterpret_cast<const T *>(p[2]);
          if (simdStrides(s, 2)) {
            if constexpr (std::is_same_v<T, float>) {
              if (kind != CompareOp::And && kind != CompareOp::Or) {
                simd::compareF32(static_cast<simd::Compare>(kind), x, s[1], y,
                                 s[2], o, n);
                return;
              }
            }
            if constexpr (std::is_same_v<T, bool>) {
              if (kind == CompareOp::And || kind == CompareOp::Or) {
                simd::logicBool(kind == CompareOp::And ? simd::Logic::And
                                                       : simd::Logic::Or,
                                x, s[1], y, s[2], o, n);
                return;
              }
            }
          }
          for (int64_t i = 0; i < n; ++i)
            o[i] = compareOf(kind, load(x[i * s[1]]), load(y[i * s[2]]));
        });
      });
      results[0] = std::move(out);
    };
  };
}

Step buildNot(mlir::Operation *op) {
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> results, StepContext &ctx) {
    Buffer out = elementwiseOutput(ops, ctx, DType::Bool, shape);
    const simd::Store store = storeFor(out);
    elementwiseLoop(out, {*ops[0]}, [=](char **p, const int64_t *s, int64_t n) {
      bool *o = reinterpret_cast<bool *>(p[0]);
      const bool *a = reinterpret_cast<const bool *>(p[1]);
      if (s[1] == 1) {
        simd::notBool(a, o, n, store);
        return;
      }
      for (int64_t i = 0; i < n; ++i)
        o[i] = !a[i * s[1]];
    });
    results[0] = std::move(out);
  };
}

Step buildIsNan(mlir::Operation *op) {
  DType in = operandDType(op, 0);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> results, StepContext &ctx) {
    Buffer out = elementwiseOutput(ops, ctx, DType::Bool, shape);
    dispatchAny(in, [&](auto tag) {
      using T = typename decltype(tag)::type;
      elementwiseLoop(out, {*ops[0]}, [](char **p, const int64_t *s,
                                         int64_t n) {
        bool *o = reinterpret_cast<bool *>(p[0]);
        const T *a = reinterpret_cast<const T *>(p[1]);
        if constexpr (std::is_same_v<T, float>) {
          if (s[1] == 1) {
            simd::isNanF32(a, o, n);
            return;
          }
        }
        for (int64_t i = 0; i < n; ++i) {
          auto v = load(a[i * s[1]]);
          o[i] = v != v;
        }
      });
    });
    results[0] = std::move(out);
  };
}

Step buildWhere(mlir::Operation *op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> results, StepContext &ctx) {
    // Only x or y can hold the result (the condition is bool); their reuse
    // flags are operands 1 and 2, not 0 and 1.
    StepContext valueCtx{ctx.allocator,
                         ctx.reusable ? ctx.reusable + 1 : nullptr};
    Buffer out = elementwiseOutput(ops.drop_front(), valueCtx, dt, shape);
    Buffer c = broadcastView(*ops[0], shape), a = broadcastView(*ops[1], shape),
           b = broadcastView(*ops[2], shape);
    const simd::Store store = storeFor(out);
    dispatchAny(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      elementwiseLoop(out, {c, a, b}, [&](char **p, const int64_t *s,
                                          int64_t n) {
        T *o = reinterpret_cast<T *>(p[0]);
        const bool *m = reinterpret_cast<const bool *>(p[1]);
        const T *x = reinterpret_cast<const T *>(p[2]);
        const T *y = reinterpret_cast<const T *>(p[3]);
        if constexpr (std::is_same_v<T, float>) {
          if (simdStrides(s, 3)) {
            simd::whereF32(m, s[1], x, s[2], y, s[3], o, n, store);
            return;
          }
        }
        for (int64_t i = 0; i < n; ++i)
          o[i] = m[i * s[1]] ? x[i * s[2]] : y[i * s[3]];
      });
    });
    results[0] = std::move(out);
  };
}

/// Float to integer: truncate toward zero, saturate, NaN gives 0.
template <typename To, typename From> To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_floating_point_v<From> &&
                       std::is_integral_v<To>) {
    if (v != v)
      return To(0);
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
    double t = std::trunc(static_cast<double>(v));
    if (t <= lo)
      return std::numeric_limits<To>::min();
    if (t >= hi)
      return std::numeric_limits<To>::max();
    return static_cast<To>(t);
  } else {
    return static_cast<To>(v);
  }
}

/// o[i] = a[i * stride] converted from F to T.
template <typename T, typename F>
void castRun(T *o, const F *a, int64_t stride, int64_t n) {
  // Wide sources round once to f16/bf16 (see FlexConvert.h).
  constexpr bool narrowHalf = isHalfLike<T> && (std::is_same_v<F, double> ||
                                                std::is_same_v<F, int64_t> ||
                                                std::is_same_v<F, int32_t>);
  if constexpr (narrowHalf) {
    using Wide = std::conditional_t<std::is_same_v<F, double>, double, int64_t>;
    for (int64_t i = 0; i < n; ++i)
      o[i] = narrowTo<T>(static_cast<Wide>(a[i * stride]));
  } else {
    using TC = typename ComputeOf<T>::type;
    for (int64_t i = 0; i < n; ++i)
      o[i] = storeAs<T>(convert<TC>(load(a[i * stride])));
  }
}

/// The SIMD loops for the common contiguous casts; false when there is none.
template <typename T, typename F>
bool castRunSimd(T *o, const F *a, int64_t n, simd::Store store) {
  if constexpr (std::is_same_v<F, float> && std::is_same_v<T, int32_t>) {
    simd::castF32ToI32(a, o, n, store);
    return true;
  } else if constexpr (std::is_same_v<F, int32_t> && std::is_same_v<T, float>) {
    simd::castI32ToF32(a, o, n, store);
    return true;
  } else if constexpr (std::is_same_v<F, float> && std::is_same_v<T, Half>) {
    return simd::castF32ToF16(a, reinterpret_cast<uint16_t *>(o), n, store);
  } else if constexpr (std::is_same_v<F, Half> && std::is_same_v<T, float>) {
    return simd::castF16ToF32(reinterpret_cast<const uint16_t *>(a), o, n,
                              store);
  } else {
    (void)o, (void)a, (void)n, (void)store;
    return false;
  }
}

Step buildCast(mlir::Operation *op) {
  DType from = operandDType(op, 0), to = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> results, StepContext &ctx) {
    Buffer out = allocateBuffer(ctx.allocator, to, shape);
    const simd::Store store = storeFor(out);
    dispatchAny(from, [&](auto fromTag) {
      using F = typename decltype(fromTag)::type;
      dispatchAny(to, [&](auto toTag) {
        using T = typename decltype(toTag)::type;
        elementwiseLoop(out, {*ops[0]},
                        [&](char **p, const int64_t *s, int64_t n) {
                          T *o = reinterpret_cast<T *>(p[0]);
                          const F *a = reinterpret_cast<const F *>(p[1]);
                          if (s[1] == 1 && castRunSimd(o, a, n, store))
                            return;
                          castRun(o, a, s[1], n);
                        });
      });
    });
    results[0] = std::move(out);
  };
}

Step buildClamp(mlir::Operation *op) {
  DType dt = resultDType(op);
  std::vector<int64_t> shape = resultShape(op);
  double lo = floatAttr(op, "min"), hi = floatAttr(op, "max");
  return [=](llvm::ArrayRef<const Buffer *> ops,
             llvm::MutableArrayRef<Buffer> results, StepContext &ctx) {
    Buffer out = elementwiseOutput(ops, ctx, dt, shape);
    dispatchAny(dt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = typename ComputeOf<T>::type;
      if constexpr (!std::is_same_v<T, bool>) {
        // Bounds outside the dtype's range clamp to the range.
        C l, h;
        if constexpr (std::is_integral_v<C>) {
          l = convert<C>(std::max(lo, (double)std::numeric_limits<C>::lowest()));
          h = convert<C>(std::min(hi, (double)std::numeric_limits<C>::max()));
        } else {
          l = static_cast<C>(lo);
          h = static_cast<C>(hi);
        }
        const simd::Store store = storeFor(out);
        elementwiseLoop(out, {*ops[0]}, [&](char **p, const int64_t *s,
                                            int64_t n) {
          T *o = reinterpret_cast<T *>(p[0]);
          const T *a = reinterpret_cast<const T *>(p[1]);
          if constexpr (std::is_same_v<T, float>) {
            if (s[1] == 1) {
              simd::clampF32(a, l, h, o, n, store);
              return;
            }
          }
          for (int64_t i = 0; i < n; ++i) {
            C v = load(a[i * s[1]]);
            o[i] = storeAs<T>(v < l ? l : (v > h ? h : v));
          }
        });
      }
    });
    results[0] = std::move(out);
  };
}

Step buildGelu(mlir::Operation *op) {
  auto gelu = llvm::cast<mlir::kiln::GeluOp>(op);
  bool tanh = gelu.getApproximate() == mlir::kiln::GeluApprox::Tanh;
  return unaryKernel(tanh ? Unary::GeluTanh : Unary::Gelu)(op);
}

Step buildIdentity(mlir::Operation *) {
  return [](llvm::ArrayRef<const Buffer *> ops,
            llvm::MutableArrayRef<Buffer> results, StepContext &) {
    results[0] = *ops[0];
  };
}

} // namespace

void flex::registerElementwiseKernels(KernelRegistry &r) {
  const std::pair<const char *, Unary> unaries[] = {
      {"kiln.neg", Unary::Neg},         {"kiln.abs", Unary::Abs},
      {"kiln.exp", Unary::Exp},         {"kiln.log", Unary::Log},
      {"kiln.log1p", Unary::Log1p},     {"kiln.sqrt", Unary::Sqrt},
      {"kiln.rsqrt", Unary::Rsqrt},     {"kiln.recip", Unary::Recip},
      {"kiln.sin", Unary::Sin},         {"kiln.cos", Unary::Cos},
      {"kiln.tanh", Unary::Tanh},       {"kiln.sigmoid", Unary::Sigmoid},
      {"kiln.erf", Unary::Erf},         {"kiln.relu", Unary::Relu},
      {"kiln.floor", Unary::Floor},     {"kiln.ceil", Unary::Ceil},
      {"kiln.round", Unary::Round},     {"kiln.sign", Unary::Sign}};
  for (auto [name, kind] : unaries)
    r.add(name, unaryKernel(kind));
  r.add("kiln.gelu", buildGelu);
  // Also x * sigmoid(x), fused by the planner (silu itself is decomposed).
  r.add("kiln.silu", unaryKernel(Unary::Silu));

  const std::pair<const char *, BinaryOp> binaries[] = {
      {"kiln.add", BinaryOp::Add}, {"kiln.sub", BinaryOp::Sub},
      {"kiln.mul", BinaryOp::Mul}, {"kiln.div", BinaryOp::Div},
      {"kiln.max", BinaryOp::Max}, {"kiln.min", BinaryOp::Min},
      {"kiln.pow", BinaryOp::Pow}, {"kiln.rem", BinaryOp::Rem},
      {"kiln.atan2", BinaryOp::Atan2}};
  for (auto [name, kind] : binaries)
    r.add(name, binaryKernel(kind));

  const std::pair<const char *, CompareOp> compares[] = {
      {"kiln.eq", CompareOp::Eq},   {"kiln.ne", CompareOp::Ne},
      {"kiln.lt", CompareOp::Lt},   {"kiln.le", CompareOp::Le},
      {"kiln.gt", CompareOp::Gt},   {"kiln.ge", CompareOp::Ge},
      {"kiln.and", CompareOp::And}, {"kiln.or", CompareOp::Or}};
  for (auto [name, kind] : compares)
    r.add(name, compareKernel(kind));

  r.add("kiln.not", buildNot);
  r.add("kiln.is_nan", buildIsNan);
  r.add("kiln.where", buildWhere);
  r.add("kiln.cast", buildCast);
  r.add("kiln.clamp", buildClamp);
  r.add("kiln.detach", buildIdentity);
}
