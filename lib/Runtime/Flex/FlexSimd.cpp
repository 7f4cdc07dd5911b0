//===- FlexSimd.cpp - Highway SIMD loops for Flex -------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/Runtime/Flex/FlexSimd.cpp"
#include "hwy/foreach_target.h" // IWYU pragma: keep

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

#include "lib/Runtime/Flex/FlexSimd.h"

#include <cmath>

HWY_BEFORE_NAMESPACE();
namespace kiln::detail::flex::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

/// erf(x): odd Taylor series on |x| < 1; 1 - poly(t) exp(-x^2) with
/// t = 1 / (1 + p|x|) beyond (Abramowitz-Stegun 7.1.26), both within
/// 2e-7 of the true value.
HWY_INLINE V Erf(D d, V x) {
  const V ax = hn::Abs(x);
  const V x2 = hn::Mul(x, x);
  // Taylor: 2/sqrt(pi) * sum (-1)^k x^(2k+1) / (k! (2k+1)).
  const float c[] = {1.1283791671f,    -0.3761263890f,   0.1128379167f,
                     -0.02686617064f,  0.005223977625f,  -0.0008548327024f,
                     0.0001205533299f, -1.492565035e-05f, 1.646386e-06f,
                     -1.6365e-07f,     1.4807e-08f};
  V p = hn::Set(d, c[10]);
  for (int k = 9; k >= 0; --k)
    p = hn::MulAdd(p, x2, hn::Set(d, c[k]));
  const V small = hn::Mul(p, x);
  const V t = hn::Div(hn::Set(d, 1.0f),
                      hn::MulAdd(hn::Set(d, 0.3275911f), ax, hn::Set(d, 1.0f)));
  V q = hn::Set(d, 1.061405429f);
  q = hn::MulAdd(q, t, hn::Set(d, -1.453152027f));
  q = hn::MulAdd(q, t, hn::Set(d, 1.421413741f));
  q = hn::MulAdd(q, t, hn::Set(d, -0.284496736f));
  q = hn::MulAdd(q, t, hn::Set(d, 0.254829592f));
  q = hn::Mul(q, t);
  const V e = hn::Exp(d, hn::Neg(x2));
  V large = hn::NegMulAdd(q, e, hn::Set(d, 1.0f));
  large = hn::CopySign(large, x);
  return hn::IfThenElse(hn::Lt(ax, hn::Set(d, 1.0f)), small, large);
}

/// exp that overflows to +inf: Highway's Exp is only valid up to about 104
/// and returns garbage beyond it.
HWY_INLINE V SafeExp(D d, V x) {
  const V top = hn::Set(d, 88.72283f); // just under log(FLT_MAX)
  const V r = hn::Exp(d, hn::Min(x, top));
  return hn::IfThenElse(hn::Gt(x, top), hn::Set(d, HUGE_VALF), r);
}

/// NaN where the input is NaN. Highway's transcendentals assume finite
/// inputs (Exp(NaN) is 0, Log(0) a large negative number); Flex is the
/// reference backend, so it gives the IEEE answers of the scalar libm.
HWY_INLINE V KeepNaN(V x, V r) { return hn::IfThenElse(hn::IsNaN(x), x, r); }

/// log-like special cases: -inf at the pole, NaN below it, +inf at +inf.
HWY_INLINE V LogEdges(D d, V x, V pole, V r) {
  const V inf = hn::Set(d, HUGE_VALF);
  r = hn::IfThenElse(hn::Eq(x, inf), inf, r);
  r = hn::IfThenElse(hn::Eq(x, pole), hn::Neg(inf), r);
  r = hn::IfThenElse(hn::Lt(x, pole), hn::Set(d, NAN), r);
  return KeepNaN(x, r);
}

HWY_INLINE V ApplyUnary(D d, int kind, V x) {
  switch (static_cast<Unary>(kind)) {
  case Unary::Neg:
    return hn::Neg(x);
  case Unary::Abs:
    return hn::Abs(x);
  case Unary::Exp:
    return KeepNaN(x, SafeExp(d, x));
  case Unary::Log:
    return LogEdges(d, x, hn::Zero(d), hn::Log(d, x));
  case Unary::Log1p:
    return LogEdges(d, x, hn::Set(d, -1.0f), hn::Log1p(d, x));
  case Unary::Sqrt:
    return hn::Sqrt(x);
  case Unary::Rsqrt:
    return hn::Div(hn::Set(d, 1.0f), hn::Sqrt(x));
  case Unary::Recip:
    return hn::Div(hn::Set(d, 1.0f), x);
  case Unary::Sin:
    return hn::IfThenElse(hn::IsFinite(x), hn::Sin(d, x), hn::Set(d, NAN));
  case Unary::Cos:
    return hn::IfThenElse(hn::IsFinite(x), hn::Cos(d, x), hn::Set(d, NAN));
  case Unary::Tanh:
    return hn::Tanh(d, x);
  case Unary::Sigmoid:
    return KeepNaN(x,
                   hn::Div(hn::Set(d, 1.0f),
                           hn::Add(hn::Set(d, 1.0f), SafeExp(d, hn::Neg(x)))));
  case Unary::Erf:
    return Erf(d, x);
  case Unary::Relu:
    // max(x, 0) that keeps NaN.
    return hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Zero(d), x);
  case Unary::Gelu:
    return hn::Mul(hn::Mul(hn::Set(d, 0.5f), x),
                   hn::Add(hn::Set(d, 1.0f),
                           Erf(d, hn::Mul(x, hn::Set(d, 0.70710678118f)))));
  case Unary::GeluTanh: {
    const V x3 = hn::Mul(hn::Mul(x, x), x);
    const V inner = hn::Mul(hn::Set(d, 0.7978845608f),
                            hn::MulAdd(hn::Set(d, 0.044715f), x3, x));
    return hn::Mul(hn::Mul(hn::Set(d, 0.5f), x),
                   hn::Add(hn::Set(d, 1.0f), hn::Tanh(d, inner)));
  }
  case Unary::Floor:
    return hn::Floor(x);
  case Unary::Ceil:
    return hn::Ceil(x);
  case Unary::Round:
    return hn::Round(x);
  case Unary::Sign: {
    const V one = hn::Set(d, 1.0f);
    V s = hn::IfThenElse(hn::Gt(x, hn::Zero(d)), one, hn::Zero(d));
    s = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Neg(one), s);
    return hn::IfThenElse(hn::IsNaN(x), x, s);
  }
  case Unary::Copy:
    return x;
  }
  return x;
}

/// Highway's Sin and Cos are valid for |x| <= 39000; lanes beyond that
/// take libm's full range reduction.
HWY_INLINE V FixLargeTrig(D d, int kind, V x, V r) {
  const Unary u = static_cast<Unary>(kind);
  if (u != Unary::Sin && u != Unary::Cos)
    return r;
  const auto large = hn::And(hn::Gt(hn::Abs(x), hn::Set(d, 39000.0f)),
                             hn::IsFinite(x));
  if (hn::AllFalse(d, large))
    return r;
  HWY_ALIGN float xs[HWY_MAX_BYTES / sizeof(float)];
  HWY_ALIGN float rs[HWY_MAX_BYTES / sizeof(float)];
  hn::Store(x, d, xs);
  hn::Store(r, d, rs);
  for (size_t k = 0; k < hn::Lanes(d); ++k)
    if (std::isfinite(xs[k]) && std::fabs(xs[k]) > 39000.0f)
      rs[k] = u == Unary::Sin ? std::sin(xs[k]) : std::cos(xs[k]);
  return hn::Load(d, rs);
}

void UnaryF32(int kind, const float *in, float *out, int64_t n) {
  const D d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const V x = hn::LoadU(d, in + i);
    hn::StoreU(FixLargeTrig(d, kind, x, ApplyUnary(d, kind, x)), d, out + i);
  }
  if (i < n) {
    const auto m = hn::FirstN(d, static_cast<size_t>(n - i));
    const V v = hn::MaskedLoad(m, d, in + i);
    hn::BlendedStore(FixLargeTrig(d, kind, v, ApplyUnary(d, kind, v)), m, d,
                     out + i);
  }
}

HWY_INLINE V ApplyBinary(int kind, V a, V b) {
  switch (static_cast<Binary>(kind)) {
  case Binary::Add:
    return hn::Add(a, b);
  case Binary::Sub:
    return hn::Sub(a, b);
  case Binary::Mul:
    return hn::Mul(a, b);
  case Binary::Div:
    return hn::Div(a, b);
  case Binary::Max: {
    const V m = hn::Max(a, b);
    return hn::IfThenElse(hn::IsNaN(a), a, hn::IfThenElse(hn::IsNaN(b), b, m));
  }
  case Binary::Min: {
    const V m = hn::Min(a, b);
    return hn::IfThenElse(hn::IsNaN(a), a, hn::IfThenElse(hn::IsNaN(b), b, m));
  }
  }
  return a;
}

void BinaryF32(int kind, const float *a, int64_t sa, const float *b,
               int64_t sb, float *out, int64_t n) {
  const D d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const V as = hn::Set(d, a[0]), bs = hn::Set(d, b[0]);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    V va = sa ? hn::LoadU(d, a + i) : as;
    V vb = sb ? hn::LoadU(d, b + i) : bs;
    hn::StoreU(ApplyBinary(kind, va, vb), d, out + i);
  }
  if (i < n) {
    const auto m = hn::FirstN(d, static_cast<size_t>(n - i));
    V va = sa ? hn::MaskedLoad(m, d, a + i) : as;
    V vb = sb ? hn::MaskedLoad(m, d, b + i) : bs;
    hn::BlendedStore(ApplyBinary(kind, va, vb), m, d, out + i);
  }
}

double SumF32(const float *in, int64_t n) {
  const D d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int64_t block = 4096;
  double total = 0;
  for (int64_t start = 0; start < n; start += block) {
    const int64_t end = start + block < n ? start + block : n;
    V s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
    int64_t i = start;
    for (; i + 4 * N <= end; i += 4 * N) {
      s0 = hn::Add(s0, hn::LoadU(d, in + i));
      s1 = hn::Add(s1, hn::LoadU(d, in + i + N));
      s2 = hn::Add(s2, hn::LoadU(d, in + i + 2 * N));
      s3 = hn::Add(s3, hn::LoadU(d, in + i + 3 * N));
    }
    for (; i + N <= end; i += N)
      s0 = hn::Add(s0, hn::LoadU(d, in + i));
    if (i < end)
      s1 = hn::Add(s1, hn::MaskedLoad(hn::FirstN(d, static_cast<size_t>(end - i)),
                                      d, in + i));
    const V s = hn::Add(hn::Add(s0, s1), hn::Add(s2, s3));
    total += static_cast<double>(hn::GetLane(hn::SumOfLanes(d, s)));
  }
  return total;
}

template <bool IsMax> float ExtremumF32(const float *in, int64_t n) {
  const D d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  V acc = hn::Set(d, in[0]);
  auto nan = hn::IsNaN(acc);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const V v = hn::LoadU(d, in + i);
    nan = hn::Or(nan, hn::IsNaN(v));
    acc = IsMax ? hn::Max(acc, v) : hn::Min(acc, v);
  }
  if (i < n) {
    const auto m = hn::FirstN(d, static_cast<size_t>(n - i));
    const V v = hn::IfThenElse(m, hn::MaskedLoad(m, d, in + i), acc);
    nan = hn::Or(nan, hn::IsNaN(v));
    acc = IsMax ? hn::Max(acc, v) : hn::Min(acc, v);
  }
  if (!hn::AllFalse(d, nan))
    return std::nanf("");
  const V r = IsMax ? hn::MaxOfLanes(d, acc) : hn::MinOfLanes(d, acc);
  return hn::GetLane(r);
}
float MaxF32(const float *in, int64_t n) { return ExtremumF32<true>(in, n); }
float MinF32(const float *in, int64_t n) { return ExtremumF32<false>(in, n); }

float ErfScalar(float x) {
  const D d;
  return hn::GetLane(Erf(d, hn::Set(d, x)));
}

} // namespace HWY_NAMESPACE
} // namespace kiln::detail::flex::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace kiln::detail::flex::simd {

HWY_EXPORT(UnaryF32);
HWY_EXPORT(BinaryF32);
HWY_EXPORT(SumF32);
HWY_EXPORT(MaxF32);
HWY_EXPORT(MinF32);
HWY_EXPORT(ErfScalar);

void unaryF32(Unary kind, const float *in, float *out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(UnaryF32)(static_cast<int>(kind), in, out, n);
}
void binaryF32(Binary kind, const float *a, int64_t sa, const float *b,
               int64_t sb, float *out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryF32)(static_cast<int>(kind), a, sa, b, sb, out, n);
}
double sumF32(const float *in, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumF32)(in, n);
}
float maxF32(const float *in, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(MaxF32)(in, n);
}
float minF32(const float *in, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(MinF32)(in, n);
}
float erfF32(float x) { return HWY_DYNAMIC_DISPATCH(ErfScalar)(x); }

} // namespace kiln::detail::flex::simd
#endif
