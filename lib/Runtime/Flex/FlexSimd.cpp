//===- FlexSimd.cpp - Highway SIMD loops for Flex -------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/Runtime/Flex/FlexSimd.cpp"
#include "hwy/foreach_target.h" // IWYU pragma: keep

#include "hwy/cache_control.h"
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

#include "lib/Runtime/Flex/FlexSimd.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include <unistd.h>

HWY_BEFORE_NAMESPACE();
namespace kiln::detail::flex::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;
using M = hn::Mask<D>;
/// One byte (a bool) and one i32 per f32 lane.
using DB = hn::Rebind<uint8_t, D>;
using DI = hn::Rebind<int32_t, D>;

//===----------------------------------------------------------------------===//
// Loop drivers
//===----------------------------------------------------------------------===//

/// An operand of a loop: `s` is 0 (one value for every lane) or 1.
template <typename T> struct Arg {
  const T *p;
  int64_t s;
};

/// Lanes [i, i + count) of an operand of the lane type of `d`; lanes past
/// count read as 0.
template <bool kFull, class DA>
HWY_INLINE hn::Vec<DA> Get(DA d, Arg<hn::TFromD<DA>> a, int64_t i,
                           size_t count) {
  if (!a.s)
    return hn::Set(d, a.p[0]);
  if constexpr (kFull)
    return hn::LoadU(d, a.p + i);
  else
    return hn::MaskedLoad(hn::FirstN(d, count), d, a.p + i);
}

/// The same for a bool operand, as a mask over the float lanes.
template <bool kFull> HWY_INLINE M GetMask(D d, Arg<bool> a, int64_t i,
                                           size_t count) {
  const DB db;
  const DI di;
  if (!a.s)
    return a.p[0] ? hn::FirstN(d, hn::Lanes(d)) : hn::FirstN(d, 0);
  const uint8_t *p = reinterpret_cast<const uint8_t *>(a.p) + i;
  hn::Vec<DB> bytes;
  if constexpr (kFull) {
    bytes = hn::LoadU(db, p);
  } else {
    HWY_ALIGN uint8_t tail[HWY_MAX_BYTES] = {};
    std::memcpy(tail, p, count);
    bytes = hn::LoadU(db, tail);
  }
  const hn::Vec<DI> wide = hn::PromoteTo(di, bytes);
  return hn::RebindMask(d, hn::Ne(wide, hn::Zero(di)));
}

/// Runs out[i, i + N) = f(i, count) over n lanes of the type of `d`, where
/// f computes a whole vector (lanes past count are not stored). With
/// kStream, the stores are non-temporal; a first partial vector aligns them.
template <bool kStream, class DO, class F>
HWY_INLINE void Drive(DO d, hn::TFromD<DO> *HWY_RESTRICT out, int64_t n,
                      const F &f) {
  using T = hn::TFromD<DO>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  if constexpr (kStream) {
    const size_t vecBytes = hn::Lanes(d) * sizeof(T);
    const size_t mis = reinterpret_cast<uintptr_t>(out) % vecBytes;
    if (mis) {
      const size_t head =
          static_cast<size_t>(std::min<int64_t>(n, (vecBytes - mis) / sizeof(T)));
      hn::BlendedStore(f(std::false_type(), 0, head), hn::FirstN(d, head), d,
                       out);
      i = static_cast<int64_t>(head);
    }
  }
  auto put = [&](hn::Vec<DO> r, T *at) HWY_ATTR {
    if constexpr (kStream)
      hn::Stream(r, d, at);
    else
      hn::StoreU(r, d, at);
  };
  // Two independent vectors per iteration: the long dependency chains of
  // the polynomial approximations then overlap.
  for (; i + 2 * N <= n; i += 2 * N) {
    const auto r0 = f(std::true_type(), i, hn::Lanes(d));
    const auto r1 = f(std::true_type(), i + N, hn::Lanes(d));
    put(r0, out + i);
    put(r1, out + i + N);
  }
  for (; i + N <= n; i += N)
    put(f(std::true_type(), i, hn::Lanes(d)), out + i);
  if (i < n) {
    const size_t count = static_cast<size_t>(n - i);
    hn::BlendedStore(f(std::false_type(), i, count), hn::FirstN(d, count), d,
                     out + i);
  }
  if constexpr (kStream)
    hwy::FlushStream();
}

/// Drive for bool results: out[i, i + N) = mask(i, count).
template <class F>
HWY_INLINE void DriveMask(D d, bool *HWY_RESTRICT out, int64_t n, const F &f) {
  const DB db;
  const DI di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  uint8_t *o = reinterpret_cast<uint8_t *>(out);
  auto bytes = [&](M m) HWY_ATTR {
    return hn::DemoteTo(db, hn::IfThenElseZero(hn::RebindMask(di, m),
                                               hn::Set(di, 1)));
  };
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const auto b0 = bytes(f(std::true_type(), i, hn::Lanes(d)));
    const auto b1 = bytes(f(std::true_type(), i + N, hn::Lanes(d)));
    hn::StoreU(b0, db, o + i);
    hn::StoreU(b1, db, o + i + N);
  }
  for (; i + N <= n; i += N)
    hn::StoreU(bytes(f(std::true_type(), i, hn::Lanes(d))), db, o + i);
  if (i < n) {
    const size_t count = static_cast<size_t>(n - i);
    HWY_ALIGN uint8_t tail[HWY_MAX_BYTES];
    hn::StoreU(bytes(f(std::false_type(), i, count)), db, tail);
    std::memcpy(o + i, tail, count);
  }
}

/// Lanes of `bad` recomputed with the scalar `fn(a, b)`: for the special
/// values and ranges a vector form does not cover.
template <class Fn>
HWY_INLINE V FixLanes(D d, M bad, V a, V b, V r, Fn fn) {
  if (hn::AllFalse(d, bad))
    return r;
  HWY_ALIGN float as[HWY_MAX_BYTES / sizeof(float)];
  HWY_ALIGN float bs[HWY_MAX_BYTES / sizeof(float)];
  HWY_ALIGN float rs[HWY_MAX_BYTES / sizeof(float)];
  HWY_ALIGN float flag[HWY_MAX_BYTES / sizeof(float)];
  hn::Store(a, d, as);
  hn::Store(b, d, bs);
  hn::Store(r, d, rs);
  hn::Store(hn::IfThenElseZero(bad, hn::Set(d, 1.0f)), d, flag);
  for (size_t k = 0; k < hn::Lanes(d); ++k)
    if (flag[k] != 0.0f)
      rs[k] = fn(as[k], bs[k]);
  return hn::Load(d, rs);
}

/// e^x in about twenty instructions, a third of Highway's Exp: x = n ln2 + r
/// with |r| <= ln2 / 2, e^r by its Taylor series to r^7 (within 0.05 ulp),
/// and 2^n applied in two halves so that results in the subnormal range come
/// out right. Clamping x to [-104, 89] makes the tails fall out naturally:
/// 0 below, +inf above (2^64 * 2^64 overflows). NaN is not handled here.
HWY_INLINE V SafeExp(D d, V x) {
  const DI di;
  x = hn::Min(hn::Max(x, hn::Set(d, -104.0f)), hn::Set(d, 89.0f));
  const V n = hn::Round(hn::Mul(x, hn::Set(d, 1.44269504089f)));
  V r = hn::NegMulAdd(n, hn::Set(d, 0.693147182464599609375f), x);
  r = hn::NegMulAdd(n, hn::Set(d, -1.904654299957768e-09f), r);
  // Estrin's scheme: shorter dependency chains than Horner's.
  const V r2 = hn::Mul(r, r);
  const V p01 = hn::MulAdd(r, hn::Set(d, 1.0f), hn::Set(d, 1.0f));
  const V p23 = hn::MulAdd(r, hn::Set(d, 1.0f / 6), hn::Set(d, 0.5f));
  const V p45 = hn::MulAdd(r, hn::Set(d, 1.0f / 120), hn::Set(d, 1.0f / 24));
  const V p67 = hn::MulAdd(r, hn::Set(d, 1.0f / 5040), hn::Set(d, 1.0f / 720));
  const V p03 = hn::MulAdd(p23, r2, p01);
  const V p47 = hn::MulAdd(p67, r2, p45);
  const V p = hn::MulAdd(p47, hn::Mul(r2, r2), p03);
  const hn::Vec<DI> ni = hn::ConvertTo(di, n);
  const hn::Vec<DI> n1 = hn::ShiftRight<1>(ni), n2 = hn::Sub(ni, n1);
  const V s1 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(n1, hn::Set(di, 127))));
  const V s2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(n2, hn::Set(di, 127))));
  return hn::Mul(hn::Mul(p, s1), s2);
}

/// erf(x): odd Taylor series on |x| < 1/2; 1 - poly(t) exp(-x^2) with
/// t = 1 / (1 + p|x|) beyond (Abramowitz-Stegun 7.1.26), both within
/// 1.5e-7 of the true value (3 ulps at the switch, fewer elsewhere).
HWY_INLINE V Erf(D d, V x) {
  const V ax = hn::Abs(x);
  const V x2 = hn::Mul(x, x);
  // Taylor: 2/sqrt(pi) * sum (-1)^k x^(2k+1) / (k! (2k+1)), to x^13; the
  // next term is below 4e-9 on |x| < 1/2.
  const float c[] = {1.1283791671f,   -0.3761263890f,  0.1128379167f,
                     -0.02686617064f, 0.005223977625f, -0.0008548327024f,
                     0.0001205533299f};
  V p = hn::Set(d, c[6]);
  for (int k = 5; k >= 0; --k)
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
  const V e = SafeExp(d, hn::Neg(x2));
  V large = hn::NegMulAdd(q, e, hn::Set(d, 1.0f));
  large = hn::CopySign(large, x);
  return hn::IfThenElse(hn::Lt(ax, hn::Set(d, 0.5f)), small, large);
}

/// tanh from the exponential above: 1 - 2 / (e^2|x| + 1) where |x| >= 0.4
/// (at most 1.6x cancellation there), the odd Taylor series to x^13 below
/// (next term under 4e-9 relative). NaN is not handled here.
HWY_INLINE V Tanh(D d, V x) {
  const V ax = hn::Abs(x);
  const V one = hn::Set(d, 1.0f);
  const V e = SafeExp(d, hn::Add(ax, ax));
  const V large = hn::Sub(one, hn::Div(hn::Set(d, 2.0f), hn::Add(e, one)));
  const V z = hn::Mul(x, x), z2 = hn::Mul(z, z);
  // 1 - z/3 + 2z^2/15 - 17z^3/315 + 62z^4/2835 - 1382z^5/155925
  //   + 21844z^6/6081075, by Estrin's scheme.
  const V p01 = hn::MulAdd(z, hn::Set(d, -1.0f / 3), one);
  const V p23 = hn::MulAdd(z, hn::Set(d, -17.0f / 315), hn::Set(d, 2.0f / 15));
  const V p45 =
      hn::MulAdd(z, hn::Set(d, -1382.0f / 155925), hn::Set(d, 62.0f / 2835));
  const V p6 = hn::Set(d, 21844.0f / 6081075);
  const V p = hn::MulAdd(hn::MulAdd(p6, z2, p45), hn::Mul(z2, z2),
                         hn::MulAdd(p23, z2, p01));
  return hn::IfThenElse(hn::Lt(ax, hn::Set(d, 0.4f)), hn::Mul(x, p),
                        hn::CopySign(large, x));
}

/// log1p(x) = log(u) + (x - (u - 1)) / u with u = 1 + x rounded: the
/// second term restores what the rounding of u lost (all of x when u is 1).
/// A reciprocal estimate with one Newton step (22 bits) is precise enough
/// for it and saves the division Highway's Log1p makes. Edges are not
/// handled here.
HWY_INLINE V Log1p(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  const V u = hn::Add(one, x);
  const V lost = hn::Sub(x, hn::Sub(u, one));
  V inv = hn::ApproximateReciprocal(u);
  inv = hn::Mul(inv, hn::NegMulAdd(u, inv, hn::Set(d, 2.0f)));
  return hn::MulAdd(lost, inv, hn::Log(d, u));
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
    return LogEdges(d, x, hn::Set(d, -1.0f), Log1p(d, x));
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
    return KeepNaN(x, Tanh(d, x));
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
                   hn::Add(hn::Set(d, 1.0f), KeepNaN(inner, Tanh(d, inner))));
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
  case Unary::Silu:
    return KeepNaN(x, hn::Div(x, hn::Add(hn::Set(d, 1.0f),
                                         SafeExp(d, hn::Neg(x)))));
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

template <int K, bool kStream>
void UnaryLoop(const float *in, float *out, int64_t n) {
  const D d;
  const Arg<float> a{in, 1};
  Drive<kStream>(d, out, n, [&](auto full, int64_t i, size_t count) HWY_ATTR {
    const V x = Get<decltype(full)::value>(d, a, i, count);
    return FixLargeTrig(d, K, x, ApplyUnary(d, K, x));
  });
}

using UnaryFn = void (*)(const float *, float *, int64_t);
template <bool kStream, int... K>
HWY_INLINE UnaryFn UnaryLoopOf(int kind, std::integer_sequence<int, K...>) {
  static constexpr UnaryFn table[] = {&UnaryLoop<K, kStream>...};
  return table[kind];
}

void UnaryF32(int kind, const float *in, float *out, int64_t n, bool stream) {
  constexpr auto kinds =
      std::make_integer_sequence<int, static_cast<int>(Unary::Copy) + 1>();
  (stream ? UnaryLoopOf<true>(kind, kinds) : UnaryLoopOf<false>(kind, kinds))(
      in, out, n);
}

/// The floored remainder (the sign of b), exact: q = trunc(|a| / |b|) is
/// the true quotient or one more (the division rounds up across an
/// integer at most once below 2^22), and |a| - q|b| in one fused rounding
/// is then exact, as fmod is. Lanes outside that range are in `bad`.
HWY_INLINE V Rem(D d, V a, V b, M &bad) {
  const V A = hn::Abs(a), B = hn::Abs(b);
  const V ratio = hn::Div(A, B);
  V q = hn::Trunc(ratio);
  V r = hn::NegMulAdd(q, B, A);
  q = hn::IfThenElse(hn::Lt(r, hn::Zero(d)), hn::Sub(q, hn::Set(d, 1.0f)), q);
  r = hn::CopySign(hn::NegMulAdd(q, B, A), a); // fmod: the sign of a
  const M flip = hn::And(hn::Ne(r, hn::Zero(d)),
                         hn::Xor(hn::Lt(r, hn::Zero(d)), hn::Lt(b, hn::Zero(d))));
  bad = hn::Not(hn::And(hn::And(hn::IsFinite(a), hn::IsFinite(b)),
                        hn::And(hn::Ne(b, hn::Zero(d)),
                                hn::Lt(ratio, hn::Set(d, 4194304.0f)))));
#if !HWY_NATIVE_FMA
  bad = hn::FirstN(d, hn::Lanes(d)); // not exact without a fused multiply-add
#endif
  return hn::IfThenElse(flip, hn::Add(r, b), r);
}

/// atan2 from atan(y / x), shifted by pi (in two parts) when x < 0. Zeros,
/// infinities, NaN and quotients near the ends of the range are in `bad`.
HWY_INLINE V Atan2(D d, V y, V x, M &bad) {
  const V q = hn::Div(y, x);
  V r = hn::Atan(d, q);
  const M negX = hn::Lt(x, hn::Zero(d));
  const V piHi = hn::CopySign(hn::Set(d, 3.14159274101257324f), y);
  const V piLo = hn::CopySign(hn::Set(d, -8.74227765734758577e-8f), y);
  r = hn::IfThenElse(negX, hn::Add(hn::Add(r, piLo), piHi), r);
  const V aq = hn::Abs(q);
  bad = hn::Not(hn::And(
      hn::And(hn::And(hn::IsFinite(x), hn::IsFinite(y)),
              hn::And(hn::Ne(x, hn::Zero(d)), hn::Ne(y, hn::Zero(d)))),
      hn::And(hn::Ge(aq, hn::Set(d, 1e-30f)), hn::Le(aq, hn::Set(d, 1e30f)))));
  return r;
}

/// pow(a, b) = e^(b ln a) for normal a > 0, in f32 lanes only: ln a and
/// b ln a are carried as unevaluated sums hi + lo (error-free products and
/// sums through FMA), so the exponent is known to about 2^-31 of itself and
/// the result, up to about 88 in the exponent, is within an ulp or two.
/// (An f64 form needs eight lane conversions per vector, which cost more
/// than all of this.) Other bases and non-finite exponents are in `bad`.
HWY_INLINE V Pow(D d, V a, V b, M &bad) {
  const DI di;
  const V one = hn::Set(d, 1.0f), two = hn::Set(d, 2.0f);
  // a = m 2^e with m in [sqrt(1/2), sqrt(2)), from the bits (exact).
  const hn::Vec<DI> bits = hn::BitCast(di, a);
  hn::Vec<DI> e = hn::Sub(hn::ShiftRight<23>(bits), hn::Set(di, 127));
  V m = hn::BitCast(d, hn::Or(hn::And(bits, hn::Set(di, 0x007FFFFF)),
                              hn::Set(di, 0x3F800000)));
  const M big = hn::Gt(m, hn::Set(d, 1.41421356f));
  m = hn::IfThenElse(big, hn::Mul(m, hn::Set(d, 0.5f)), m);
  e = hn::IfThenElse(hn::RebindMask(di, big), hn::Add(e, hn::Set(di, 1)), e);
  const V ef = hn::ConvertTo(d, e);

  // ln m = 2 atanh(s), s = f / (2 + f), f = m - 1 (exact); |s| <= 0.1716.
  const V f = hn::Sub(m, one);
  const V uHi = hn::Add(two, f);
  const V uLo = hn::Sub(f, hn::Sub(uHi, two)); // 2 + f = uHi + uLo exactly
  const V sHi = hn::Div(f, uHi);
  // f - sHi (uHi + uLo), nearly exact, over u: the rest of the quotient.
  const V res = hn::NegMulAdd(sHi, uLo, hn::NegMulAdd(sHi, uHi, f));
  const V sLo = hn::Div(res, uHi);
  // 2 atanh(s) = 2s + s^3 P(s^2), P to s^10: the tail is below 1% of
  // ln m, so f32 suffices for it.
  const V z = hn::Mul(sHi, sHi), z2 = hn::Mul(z, z);
  const V p01 = hn::MulAdd(z, hn::Set(d, 2.0f / 5), hn::Set(d, 2.0f / 3));
  const V p23 = hn::MulAdd(z, hn::Set(d, 2.0f / 9), hn::Set(d, 2.0f / 7));
  const V p45 = hn::MulAdd(z, hn::Set(d, 2.0f / 13), hn::Set(d, 2.0f / 11));
  const V P = hn::MulAdd(hn::MulAdd(p45, z2, p23), z2, p01);
  const V tail = hn::Mul(hn::Mul(sHi, z), P);
  // ln a = e ln2 + ln m. ln2Hi has 16 significant bits, so e ln2Hi is
  // exact; |e ln2Hi| >= |2 sHi| unless e = 0, so Fast2Sum applies.
  const V ln2Hi = hn::Set(d, 0.693145751953125f);
  const V ln2Lo = hn::Set(d, 1.4286068202862268e-06f);
  const V x = hn::Mul(ef, ln2Hi), y = hn::Add(sHi, sHi);
  const V lHi = hn::Add(x, y);
  const V lLo = hn::Add(hn::Add(hn::Sub(x, lHi), y),
                        hn::MulAdd(ef, ln2Lo, hn::MulAdd(two, sLo, tail)));
  // t = b ln a = tHi + tLo.
  const V tHi = hn::Mul(b, lHi);
  const V tLo = hn::MulAdd(b, lLo, hn::MulSub(b, lHi, tHi));
  // e^t = 2^n e^r, r = t - n ln2 (tHi - n ln2Hi is exact for |n| < 256).
  const V tc = hn::Min(hn::Max(tHi, hn::Set(d, -110.0f)), hn::Set(d, 100.0f));
  const V n = hn::Round(hn::Mul(tc, hn::Set(d, 1.44269504089f)));
  V r = hn::NegMulAdd(n, ln2Hi, tc);
  r = hn::Add(hn::NegMulAdd(n, ln2Lo, r), tLo);
  const V r2 = hn::Mul(r, r);
  const V q01 = hn::MulAdd(r, one, one);
  const V q23 = hn::MulAdd(r, hn::Set(d, 1.0f / 6), hn::Set(d, 0.5f));
  const V q45 = hn::MulAdd(r, hn::Set(d, 1.0f / 120), hn::Set(d, 1.0f / 24));
  const V q67 = hn::MulAdd(r, hn::Set(d, 1.0f / 5040), hn::Set(d, 1.0f / 720));
  const V q = hn::MulAdd(hn::MulAdd(q67, r2, q45), hn::Mul(r2, r2),
                         hn::MulAdd(q23, r2, q01));
  const hn::Vec<DI> ni = hn::ConvertTo(di, n);
  const hn::Vec<DI> n1 = hn::ShiftRight<1>(ni), n2 = hn::Sub(ni, n1);
  const V s1 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(n1, hn::Set(di, 127))));
  const V s2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(n2, hn::Set(di, 127))));
  bad = hn::Not(hn::And(hn::And(hn::Ge(a, hn::Set(d, 1.17549435e-38f)),
                                hn::IsFinite(a)),
                        hn::IsFinite(b)));
#if !HWY_NATIVE_FMA
  bad = hn::FirstN(d, hn::Lanes(d)); // the products are not error-free
#endif
  return hn::Mul(hn::Mul(q, s1), s2);
}

/// The scalar forms the lanes in `bad` take: the reference definitions.
float PowScalar(float a, float b) { return std::pow(a, b); }
float RemScalar(float a, float b) {
  float r = std::fmod(a, b);
  if (r != 0.0f && ((r < 0.0f) != (b < 0.0f)))
    r += b;
  return r;
}
float Atan2Scalar(float y, float x) { return std::atan2(y, x); }

/// `form(d, a, b, bad)` where it applies, the scalar reference `scalar` in
/// the lanes it marks bad.
template <class Form, class Scalar>
HWY_INLINE V Checked(D d, V a, V b, Form form, Scalar scalar) {
  M bad;
  const V r = form(d, a, b, bad);
  return FixLanes(d, bad, a, b, r, scalar);
}

HWY_INLINE V ApplyBinary(D d, int kind, V a, V b) {
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
  case Binary::Pow:
    return Checked(d, a, b, Pow, PowScalar);
  case Binary::Rem:
    return Checked(d, a, b, Rem, RemScalar);
  case Binary::Atan2:
    return Checked(d, a, b, Atan2, Atan2Scalar);
  }
  return a;
}

template <int K, bool kStream>
void BinaryLoop(const float *a, int64_t sa, const float *b, int64_t sb,
                float *out, int64_t n) {
  const D d;
  const Arg<float> x{a, sa}, y{b, sb};
  Drive<kStream>(d, out, n, [&](auto full, int64_t i, size_t count) HWY_ATTR {
    constexpr bool kFull = decltype(full)::value;
    return ApplyBinary(d, K, Get<kFull>(d, x, i, count),
                       Get<kFull>(d, y, i, count));
  });
}

using BinaryFn = void (*)(const float *, int64_t, const float *, int64_t,
                          float *, int64_t);
template <bool kStream, int... K>
HWY_INLINE BinaryFn BinaryLoopOf(int kind, std::integer_sequence<int, K...>) {
  static constexpr BinaryFn table[] = {&BinaryLoop<K, kStream>...};
  return table[kind];
}

void BinaryF32(int kind, const float *a, int64_t sa, const float *b,
               int64_t sb, float *out, int64_t n, bool stream) {
  constexpr auto kinds =
      std::make_integer_sequence<int, static_cast<int>(Binary::Atan2) + 1>();
  (stream ? BinaryLoopOf<true>(kind, kinds)
          : BinaryLoopOf<false>(kind, kinds))(a, sa, b, sb, out, n);
}

HWY_INLINE M ApplyCompare(int kind, V a, V b) {
  switch (static_cast<Compare>(kind)) {
  case Compare::Eq:
    return hn::Eq(a, b);
  case Compare::Ne:
    return hn::Not(hn::Eq(a, b)); // unordered counts as unequal
  case Compare::Lt:
    return hn::Lt(a, b);
  case Compare::Le:
    return hn::Le(a, b);
  case Compare::Gt:
    return hn::Gt(a, b);
  case Compare::Ge:
    return hn::Ge(a, b);
  }
  return hn::Eq(a, b);
}

template <int K>
void CompareLoop(const float *a, int64_t sa, const float *b, int64_t sb,
                 bool *out, int64_t n) {
  const D d;
  const Arg<float> x{a, sa}, y{b, sb};
  DriveMask(d, out, n, [&](auto full, int64_t i, size_t count) HWY_ATTR {
    constexpr bool kFull = decltype(full)::value;
    return ApplyCompare(K, Get<kFull>(d, x, i, count),
                        Get<kFull>(d, y, i, count));
  });
}

using CompareFn = void (*)(const float *, int64_t, const float *, int64_t,
                           bool *, int64_t);
template <int... K>
HWY_INLINE CompareFn CompareLoopOf(int kind, std::integer_sequence<int, K...>) {
  static constexpr CompareFn table[] = {&CompareLoop<K>...};
  return table[kind];
}

void CompareF32(int kind, const float *a, int64_t sa, const float *b,
                int64_t sb, bool *out, int64_t n) {
  CompareLoopOf(kind, std::make_integer_sequence<
                          int, static_cast<int>(Compare::Ge) + 1>())(
      a, sa, b, sb, out, n);
}

void IsNanF32(const float *in, bool *out, int64_t n) {
  const D d;
  const Arg<float> x{in, 1};
  DriveMask(d, out, n, [&](auto full, int64_t i, size_t count) HWY_ATTR {
    return hn::IsNaN(Get<decltype(full)::value>(d, x, i, count));
  });
}

/// Bools as bytes, any non-zero byte true: and/or/not of whole vectors.
void LogicBool(int kind, const bool *a, int64_t sa, const bool *b, int64_t sb,
               bool *out, int64_t n) {
  const hn::ScalableTag<uint8_t> d8;
  using V8 = hn::Vec<decltype(d8)>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d8));
  const uint8_t *pa = reinterpret_cast<const uint8_t *>(a);
  const uint8_t *pb = reinterpret_cast<const uint8_t *>(b);
  uint8_t *o = reinterpret_cast<uint8_t *>(out);
  const V8 one = hn::Set(d8, 1);
  const V8 as = hn::Set(d8, pa[0] != 0), bs = hn::Set(d8, pb[0] != 0);
  const bool isAnd = static_cast<Logic>(kind) == Logic::And;
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const V8 x = sa ? hn::Min(hn::LoadU(d8, pa + i), one) : as;
    const V8 y = sb ? hn::Min(hn::LoadU(d8, pb + i), one) : bs;
    hn::StoreU(isAnd ? hn::And(x, y) : hn::Or(x, y), d8, o + i);
  }
  for (; i < n; ++i) {
    const bool x = pa[i * sa] != 0, y = pb[i * sb] != 0;
    o[i] = isAnd ? (x && y) : (x || y);
  }
}

void NotBool(const bool *in, bool *out, int64_t n) {
  const hn::ScalableTag<uint8_t> d8;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d8));
  const uint8_t *p = reinterpret_cast<const uint8_t *>(in);
  uint8_t *o = reinterpret_cast<uint8_t *>(out);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto x = hn::LoadU(d8, p + i);
    hn::StoreU(hn::IfThenElseZero(hn::Eq(x, hn::Zero(d8)), hn::Set(d8, 1)),
               d8, o + i);
  }
  for (; i < n; ++i)
    o[i] = p[i] == 0;
}

template <bool kStream>
void WhereLoop(const bool *c, int64_t sc, const float *a, int64_t sa,
               const float *b, int64_t sb, float *out, int64_t n) {
  const D d;
  const Arg<bool> m{c, sc};
  const Arg<float> x{a, sa}, y{b, sb};
  Drive<kStream>(d, out, n, [&](auto full, int64_t i, size_t count) HWY_ATTR {
    constexpr bool kFull = decltype(full)::value;
    return hn::IfThenElse(GetMask<kFull>(d, m, i, count),
                          Get<kFull>(d, x, i, count),
                          Get<kFull>(d, y, i, count));
  });
}

void WhereF32(const bool *c, int64_t sc, const float *a, int64_t sa,
              const float *b, int64_t sb, float *out, int64_t n, bool stream) {
  (stream ? WhereLoop<true> : WhereLoop<false>)(c, sc, a, sa, b, sb, out, n);
}

template <bool kStream>
void ClampLoop(const float *in, float lo, float hi, float *out, int64_t n) {
  const D d;
  const Arg<float> x{in, 1};
  const V l = hn::Set(d, lo), h = hn::Set(d, hi);
  Drive<kStream>(d, out, n, [&](auto full, int64_t i, size_t count) HWY_ATTR {
    const V v = Get<decltype(full)::value>(d, x, i, count);
    // Compares, not Min/Max, so that NaN passes through.
    return hn::IfThenElse(hn::Lt(v, l), l, hn::IfThenElse(hn::Gt(v, h), h, v));
  });
}

void ClampF32(const float *in, float lo, float hi, float *out, int64_t n,
              bool stream) {
  (stream ? ClampLoop<true> : ClampLoop<false>)(in, lo, hi, out, n);
}

template <bool kStream>
void F32ToI32Loop(const float *in, int32_t *out, int64_t n) {
  const D d;
  const DI di;
  const Arg<float> x{in, 1};
  Drive<kStream>(di, out, n, [&](auto full, int64_t i, size_t count) HWY_ATTR {
    const V v = Get<decltype(full)::value>(d, x, i, count);
    // ConvertTo truncates and saturates; NaN lanes become 0.
    return hn::ConvertTo(di, hn::IfThenZeroElse(hn::IsNaN(v), v));
  });
}

void CastF32ToI32(const float *in, int32_t *out, int64_t n, bool stream) {
  (stream ? F32ToI32Loop<true> : F32ToI32Loop<false>)(in, out, n);
}

template <bool kStream>
void I32ToF32Loop(const int32_t *in, float *out, int64_t n) {
  const D d;
  const DI di;
  const Arg<int32_t> x{in, 1};
  Drive<kStream>(d, out, n, [&](auto full, int64_t i, size_t count) HWY_ATTR {
    return hn::ConvertTo(d, Get<decltype(full)::value>(di, x, i, count));
  });
}

void CastI32ToF32(const int32_t *in, float *out, int64_t n, bool stream) {
  (stream ? I32ToF32Loop<true> : I32ToF32Loop<false>)(in, out, n);
}

// f16 conversions with F16C (AVX2 and above) round to nearest even, as the
// scalar ones; the emulated forms of other targets do not, so those decline.
#undef KILN_FLEX_F16C
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
#define KILN_FLEX_F16C 1
#else
#define KILN_FLEX_F16C 0
#endif

bool CastF32ToF16(const float *in, uint16_t *out, int64_t n) {
#if KILN_FLEX_F16C
  const D d;
  const hn::Rebind<hwy::float16_t, D> dh;
  hwy::float16_t *o = reinterpret_cast<hwy::float16_t *>(out);
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= n; i += N)
    hn::StoreU(hn::DemoteTo(dh, hn::LoadU(d, in + i)), dh, o + i);
  if (i < n) {
    const size_t count = static_cast<size_t>(n - i);
    HWY_ALIGN hwy::float16_t tail[HWY_MAX_BYTES / 2];
    hn::StoreU(
        hn::DemoteTo(dh, hn::MaskedLoad(hn::FirstN(d, count), d, in + i)), dh,
        tail);
    std::memcpy(o + i, tail, count * sizeof(uint16_t));
  }
  return true;
#else
  (void)in, (void)out, (void)n;
  return false;
#endif
}

bool CastF16ToF32(const uint16_t *in, float *out, int64_t n, bool stream) {
#if KILN_FLEX_F16C
  const D d;
  const hn::Rebind<hwy::float16_t, D> dh;
  const hwy::float16_t *p = reinterpret_cast<const hwy::float16_t *>(in);
  auto run = [&](auto streamTag) HWY_ATTR {
    constexpr bool kS = decltype(streamTag)::value;
    Drive<kS>(d, out, n, [&](auto full, int64_t i, size_t count) HWY_ATTR {
      if constexpr (decltype(full)::value) {
        return hn::PromoteTo(d, hn::LoadU(dh, p + i));
      } else {
        HWY_ALIGN hwy::float16_t tail[HWY_MAX_BYTES / 2] = {};
        std::memcpy(tail, p + i, count * sizeof(uint16_t));
        return hn::PromoteTo(d, hn::LoadU(dh, tail));
      }
    });
  };
  if (stream)
    run(std::true_type());
  else
    run(std::false_type());
  return true;
#else
  (void)in, (void)out, (void)n, (void)stream;
  return false;
#endif
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
HWY_EXPORT(CompareF32);
HWY_EXPORT(LogicBool);
HWY_EXPORT(NotBool);
HWY_EXPORT(IsNanF32);
HWY_EXPORT(WhereF32);
HWY_EXPORT(ClampF32);
HWY_EXPORT(CastF32ToI32);
HWY_EXPORT(CastI32ToF32);
HWY_EXPORT(CastF32ToF16);
HWY_EXPORT(CastF16ToF32);
HWY_EXPORT(SumF32);
HWY_EXPORT(MaxF32);
HWY_EXPORT(MinF32);
HWY_EXPORT(ErfScalar);

bool streamStores(int64_t bytes) {
  static const int64_t threshold = [] {
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0)
      llc = 32l << 20;
    return static_cast<int64_t>(llc) / 2;
  }();
  return bytes > threshold;
}

void unaryF32(Unary kind, const float *in, float *out, int64_t n,
              Store store) {
  HWY_DYNAMIC_DISPATCH(UnaryF32)
  (static_cast<int>(kind), in, out, n, store == Store::Stream);
}
void binaryF32(Binary kind, const float *a, int64_t sa, const float *b,
               int64_t sb, float *out, int64_t n, Store store) {
  HWY_DYNAMIC_DISPATCH(BinaryF32)
  (static_cast<int>(kind), a, sa, b, sb, out, n, store == Store::Stream);
}
void compareF32(Compare kind, const float *a, int64_t sa, const float *b,
                int64_t sb, bool *out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(CompareF32)(static_cast<int>(kind), a, sa, b, sb, out, n);
}
void logicBool(Logic kind, const bool *a, int64_t sa, const bool *b,
               int64_t sb, bool *out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(LogicBool)(static_cast<int>(kind), a, sa, b, sb, out, n);
}
void notBool(const bool *in, bool *out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(NotBool)(in, out, n);
}
void isNanF32(const float *in, bool *out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(IsNanF32)(in, out, n);
}
void whereF32(const bool *c, int64_t sc, const float *a, int64_t sa,
              const float *b, int64_t sb, float *out, int64_t n, Store store) {
  HWY_DYNAMIC_DISPATCH(WhereF32)
  (c, sc, a, sa, b, sb, out, n, store == Store::Stream);
}
void clampF32(const float *in, float lo, float hi, float *out, int64_t n,
              Store store) {
  HWY_DYNAMIC_DISPATCH(ClampF32)(in, lo, hi, out, n, store == Store::Stream);
}
void castF32ToI32(const float *in, int32_t *out, int64_t n, Store store) {
  HWY_DYNAMIC_DISPATCH(CastF32ToI32)(in, out, n, store == Store::Stream);
}
void castI32ToF32(const int32_t *in, float *out, int64_t n, Store store) {
  HWY_DYNAMIC_DISPATCH(CastI32ToF32)(in, out, n, store == Store::Stream);
}
bool castF32ToF16(const float *in, uint16_t *out, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(CastF32ToF16)(in, out, n);
}
bool castF16ToF32(const uint16_t *in, float *out, int64_t n, Store store) {
  return HWY_DYNAMIC_DISPATCH(CastF16ToF32)(in, out, n, store == Store::Stream);
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
