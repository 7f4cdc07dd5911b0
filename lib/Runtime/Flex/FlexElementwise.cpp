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

template <typename C> C nanMax(C a, C b) {
  return std::isnan(a) ? a : (std::isnan(b) ? b : (a > b ? a : b));
}
template <typename C> C nanMin(C a, C b) {
  return std::isnan(a) ? a : (std::isnan(b) ? b : (a < b ? a : b));
}
/// The floored remainder: its sign is the divisor's.
template <typename C> C floatRem(C a, C b) {
  C r = std::fmod(a, b);
  if (r != C(0) && ((r < C(0)) != (b < C(0))))
    r += b;
  return r;
}

/// Integer division and remainder, floored for signed types; a zero
/// divisor gives 0, and dividing by -1 negates with wrap-around (the minimum
/// by -1 overflows, and must not trap).
template <typename W> W intDiv(W a, W b) {
  if (b == 0)
    return 0;
  if constexpr (std::is_unsigned_v<W>) {
    return a / b;
  } else {
    if (b == -1)
      return static_cast<W>(0 - static_cast<uint64_t>(a));
    W q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
      --q;
    return q;
  }
}
template <typename W> W intRem(W a, W b) {
  if (b == 0)
    return 0;
  if constexpr (std::is_unsigned_v<W>) {
    return a % b;
  } else {
    if (b == -1)
      return 0;
    W r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
      r += b;
    return r;
  }
}

/// The scalar form of every unary op (FlexOps.def).
template <typename C> C unaryOf(Unary k, C x) {
  switch (k) {
#define KILN_FLEX_UNARY(name, op, floatForm, intForm)                          \
  case Unary::name:                                                            \
    if constexpr (std::is_floating_point_v<C>)                                 \
      return floatForm;                                                        \
    else                                                                       \
      return static_cast<C>(intForm);
#include "FlexOps.def"
  }
  return x;
}

/// The scalar form of every binary op (FlexOps.def).
template <typename C> C binaryOf(Binary k, C a, C b) {
  using W = std::conditional_t<std::is_unsigned_v<C>, uint64_t, int64_t>;
  switch (k) {
#define KILN_FLEX_BINARY(name, op, floatForm, intForm)                         \
  case Binary::name:                                                           \
    if constexpr (std::is_floating_point_v<C>) {                               \
      return floatForm;                                                        \
    } else {                                                                   \
      [[maybe_unused]] W x = a, y = b;                                         \
      return static_cast<C>(intForm);                                          \
    }
#include "FlexOps.def"
  }
  return a;
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
  return [kind](const OpDesc &op) -> Step {
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

KernelBuilder binaryKernel(Binary kind) {
  return [kind](const OpDesc &op) -> Step {
    DType dt = resultDType(op);
    std::vector<int64_t> shape = resultShape(op);
    return [=](llvm::ArrayRef<const Buffer *> ops,
               llvm::MutableArrayRef<Buffer> results, StepContext &ctx) {
      Buffer out = elementwiseOutput(ops, ctx, dt, shape);
      Buffer a = broadcastView(*ops[0], shape),
             b = broadcastView(*ops[1], shape);
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
                simd::binaryF32(kind, x, s[1], y, s[2], o, n, store);
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

/// A comparison, or a logic op on bools (FlexOps.def).
struct CompareOp {
  bool logic;
  int kind; ///< simd::Compare or simd::Logic
};

template <typename C> bool compareOf(CompareOp k, C a, C b) {
  if (!k.logic) {
    switch (static_cast<simd::Compare>(k.kind)) {
#define KILN_FLEX_COMPARE(name, op, form)                                      \
  case simd::Compare::name:                                                    \
    return form;
#include "FlexOps.def"
    }
  } else {
    switch (static_cast<simd::Logic>(k.kind)) {
#define KILN_FLEX_LOGIC(name, op, form)                                        \
  case simd::Logic::name:                                                      \
    return form;
#include "FlexOps.def"
    }
  }
  return false;
}

KernelBuilder compareKernel(CompareOp kind) {
  return [kind](const OpDesc &op) -> Step {
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
              if (!kind.logic) {
                simd::compareF32(static_cast<simd::Compare>(kind.kind), x, s[1],
                                 y, s[2], o, n);
                return;
              }
            }
            if constexpr (std::is_same_v<T, bool>) {
              if (kind.logic) {
                simd::logicBool(static_cast<simd::Logic>(kind.kind), x, s[1], y,
                                s[2], o, n);
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

Step buildNot(const OpDesc &op) {
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

Step buildIsNan(const OpDesc &op) {
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

Step buildWhere(const OpDesc &op) {
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

Step buildCast(const OpDesc &op) {
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

Step buildClamp(const OpDesc &op) {
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

Step buildGelu(const OpDesc &op) {
  const OpAttr *approximate = op.attr("approximate");
  bool tanh = approximate && approximate->text == "tanh";
  return unaryKernel(tanh ? Unary::GeluTanh : Unary::Gelu)(op);
}

Step buildIdentity(const OpDesc &) {
  return [](llvm::ArrayRef<const Buffer *> ops,
            llvm::MutableArrayRef<Buffer> results, StepContext &) {
    results[0] = *ops[0];
  };
}

} // namespace

void flex::registerElementwiseKernels(KernelRegistry &r) {
  auto named = [](const char *op) { return op[0] != '\0'; };
#define KILN_FLEX_UNARY(name, op, ...)                                         \
  if (named(op))                                                               \
    r.add(op, unaryKernel(Unary::name));
#define KILN_FLEX_BINARY(name, op, ...)                                        \
  if (named(op))                                                               \
    r.add(op, binaryKernel(Binary::name));
#define KILN_FLEX_COMPARE(name, op, ...)                                       \
  r.add(op, compareKernel({false, static_cast<int>(simd::Compare::name)}));
#define KILN_FLEX_LOGIC(name, op, ...)                                         \
  r.add(op, compareKernel({true, static_cast<int>(simd::Logic::name)}));
#include "FlexOps.def"
  // gelu picks its form by attribute.
  r.add("kiln.gelu", buildGelu);
  r.add("kiln.not", buildNot);
  r.add("kiln.is_nan", buildIsNan);
  r.add("kiln.where", buildWhere);
  r.add("kiln.cast", buildCast);
  r.add("kiln.clamp", buildClamp);
  r.add("kiln.detach", buildIdentity);
}
