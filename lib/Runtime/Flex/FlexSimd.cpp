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
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
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

/// How far ahead of its loads a loop asks for a contiguous operand: 4 KiB.
/// One core's hardware prefetchers stay too close to the loads for the
/// loops that compute much per element, whose memory time then adds to
/// their compute time instead of hiding under it (about 10% more time for
/// exp, log and erf at 1 thread on arrays far beyond the cache). The
/// request goes to L2 (locality 2), so it does not push out L1.
constexpr int64_t kPrefetchBytes = 4096;

/// Lanes [i, i + count) of an operand of the lane type of `d`; lanes past
/// count read as 0.
template <bool kFull, class DA>
HWY_INLINE hn::Vec<DA> Get(DA d, Arg<hn::TFromD<DA>> a, int64_t i,
                           size_t count) {
  if (!a.s)
    return hn::Set(d, a.p[0]);
  if constexpr (kFull) {
    // An address, not a pointer into the array: it may lie past its end.
    __builtin_prefetch(reinterpret_cast<const void *>(
                           reinterpret_cast<uintptr_t>(a.p + i) + kPrefetchBytes),
                       0, 2);
    return hn::LoadU(d, a.p + i);
  } else
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

/// The lanes of `out` before its first vector-aligned one (at most n).
template <class DO>
HWY_INLINE int64_t AlignedHead(DO d, const hn::TFromD<DO> *out, int64_t n) {
  const size_t vecBytes = hn::Lanes(d) * sizeof(hn::TFromD<DO>);
  const size_t mis = reinterpret_cast<uintptr_t>(out) % vecBytes;
  return mis ? std::min<int64_t>(
                   n, static_cast<int64_t>((vecBytes - mis) /
                                           sizeof(hn::TFromD<DO>)))
             : 0;
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
    const int64_t head = AlignedHead(d, out, n);
    if (head) {
      const size_t count = static_cast<size_t>(head);
      hn::BlendedStore(f(std::false_type(), 0, count), hn::FirstN(d, count), d,
                       out);
      i = head;
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

/// The lanes of a block of DriveStaged: 16 vectors of AVX2.
constexpr int64_t kStageBlock = 128;

/// Drive for the ops whose operations per vector form one long dependent
/// chain (a division, a polynomial, then more). Run in one pass, such a
/// chain keeps the core waiting: its out-of-order window holds too few
/// vectors of it to overlap them. So blocks of kStageBlock lanes run in
/// two passes: `first(i, y, z)` over the whole block computes the first
/// half of the chain for lanes [i, i + N) into y and z, which wait in
/// buffers that stay in L1, and returns the lanes where the op is
/// ordinary; with kMiddle, `middle(i, y, z)` takes them a step further in
/// a pass of its own; then `second(i, y, z)` finishes each vector. Chains
/// half as long overlap twice as well (1.2 to 1.5 times the speed of one
/// pass here, the most for pow). A block with a lane that is not ordinary, the head that aligns
/// streaming stores and the tail take `whole(from, to)`, the one-pass form,
/// which gives the same results.
template <bool kStream, bool kMiddle, class First, class Middle,
          class Second, class Whole>
HWY_INLINE void DriveStaged(D d, float *HWY_RESTRICT out, int64_t n,
                            const First &first, const Middle &middle,
                            const Second &second, const Whole &whole) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  if constexpr (kStream) {
    i = AlignedHead(d, out, n);
    if (i)
      whole(0, i);
  }
  HWY_ALIGN float ys[kStageBlock], zs[kStageBlock];
  for (; i + kStageBlock <= n; i += kStageBlock) {
    M ordinary = hn::FirstN(d, hn::Lanes(d));
    for (int64_t j = 0; j < kStageBlock; j += N) {
      V y, z;
      ordinary = hn::And(ordinary, first(i + j, y, z));
      hn::Store(y, d, ys + j);
      hn::Store(z, d, zs + j);
    }
    if (HWY_UNLIKELY(!hn::AllTrue(d, ordinary))) {
      whole(i, i + kStageBlock);
      continue;
    }
    if constexpr (kMiddle)
      for (int64_t j = 0; j < kStageBlock; j += N) {
        V y = hn::Load(d, ys + j), z = hn::Load(d, zs + j);
        middle(i + j, y, z);
        hn::Store(y, d, ys + j);
        hn::Store(z, d, zs + j);
      }
    for (int64_t j = 0; j < kStageBlock; j += N) {
      const V r = second(i + j, hn::Load(d, ys + j), hn::Load(d, zs + j));
      if constexpr (kStream)
        hn::Stream(r, d, out + i + j);
      else
        hn::StoreU(r, d, out + i + j);
    }
  }
  if constexpr (kStream)
    hwy::FlushStream();
  if (i < n)
    whole(i, n);
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

/// Adding this to a float of magnitude below 2^22 rounds it to an integer,
/// which the low mantissa bits of the sum then hold (two's complement).
constexpr float kRoundMagic = 12582912.0f; // 1.5 * 2^23

/// The least positive normal f32.
constexpr float kMinNormal = 1.17549435e-38f;

/// e^r for |r| <= ln2 / 2 (a little beyond is fine): 1 + r + r^2 P(r), P of
/// degree 4, minimax for the relative error (under 4e-9 with these f32
/// coefficients); Horner's scheme, as the loops overlap two vectors anyway.
HWY_INLINE V ExpPoly(D d, V r) {
  V p = hn::Set(d, 0.00138146128f);
  p = hn::MulAdd(p, r, hn::Set(d, 0.00836871006f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.041668389f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.166665211f));
  p = hn::MulAdd(p, r, hn::Set(d, 0.49999994f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  return hn::MulAdd(p, r, hn::Set(d, 1.0f));
}

/// ExpNormal's reduction: r (returned) and k, which holds n in its low
/// bits.
HWY_INLINE V ExpReduce(D d, V x, V &k) {
  const V magic = hn::Set(d, kRoundMagic);
  k = hn::MulAdd(x, hn::Set(d, 1.44269504089f), magic);
  const V n = hn::Sub(k, magic);
  const V r = hn::NegMulAdd(n, hn::Set(d, 0.693147182464599609375f), x);
  return hn::NegMulAdd(n, hn::Set(d, -1.904654299957768e-09f), r);
}

/// e^r 2^n from ExpReduce's r and k.
HWY_INLINE V ExpScale(D d, V r, V k) {
  const DI di;
  return hn::BitCast(d, hn::Add(hn::BitCast(di, ExpPoly(d, r)),
                                hn::ShiftLeft<23>(hn::BitCast(di, k))));
}

/// e^x for x in [-86.5, 88]: n = round(x / ln2) by the magic addition,
/// r = x - n ln2 (ln2 in two parts), e^r by ExpPoly, and 2^n added to the
/// exponent field as an integer, which is exact because e^r 2^n stays
/// normal in that range (n in [-125, 127]).
HWY_INLINE V ExpNormal(D d, V x) {
  V k;
  const V r = ExpReduce(d, x, k);
  return ExpScale(d, r, k);
}

/// x clamped to [lo, hi]. On x86 min and max return their second operand
/// when one is NaN, so that NaN stays NaN here (kClampKeepsNaN); elsewhere
/// callers restore it with KeepNaN.
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
constexpr bool kClampKeepsNaN = true;
#else
constexpr bool kClampKeepsNaN = false;
#endif
HWY_INLINE V Clamp(D d, V x, float lo, float hi) {
  return hn::Min(hn::Set(d, hi), hn::Max(hn::Set(d, lo), x));
}

/// The range ExpNegCore takes: e^-x stays normal.
constexpr float kExpNegLo = -88.37f, kExpNegHi = 86.98f;

/// e^-x for x in [kExpNegLo, kExpNegHi] (callers clamp), for the sigmoid
/// family: n = round(-x / ln2) by the magic addition, t = x + n ln2 = -r
/// (n ln2Hi is exact in the fused operation), e^r = 1 - t + t^2 P(t) with P
/// of degree 3, minimax (1.1e-7 relative: these ops have 16 ulps), and 2^n
/// added to the exponent field as an integer.
HWY_INLINE V ExpNegCore(D d, V x) {
  const DI di;
  const V magic = hn::Set(d, kRoundMagic);
  const V k = hn::MulAdd(x, hn::Set(d, -1.44269504089f), magic);
  const V n = hn::Sub(k, magic);
  V t = hn::MulAdd(n, hn::Set(d, 0.693147182464599609375f), x);
  t = hn::MulAdd(n, hn::Set(d, -1.904654299957768e-09f), t);
  V p = hn::Set(d, -0.00831252523f);
  p = hn::MulAdd(p, t, hn::Set(d, 0.0418901145f));
  p = hn::MulAdd(p, t, hn::Set(d, -0.166671142f));
  p = hn::MulAdd(p, t, hn::Set(d, 0.499992311f));
  p = hn::MulAdd(p, t, hn::Set(d, -1.0f));
  p = hn::MulAdd(p, t, hn::Set(d, 1.0f));
  // k's bits shifted up by 23 are n << 23: the magic number's shift out.
  return hn::BitCast(d, hn::Add(hn::BitCast(di, p),
                                hn::ShiftLeft<23>(hn::BitCast(di, k))));
}

/// 1 / (1 + e) for e = e^-x.
HWY_INLINE V SigmoidOf(D d, V e) {
  const V one = hn::Set(d, 1.0f);
  return hn::Div(one, hn::Add(one, e));
}

/// 1 / (1 + e^-x): one exponential and one division (cheaper here than a
/// reciprocal estimate and a Newton step, which take the FMA ports). Below
/// -88.37 the exponential is clamped and the result (under 4e-39 there)
/// flushed to 0. NaN is not handled here.
HWY_INLINE V SigmoidCore(D d, V x) {
  const V cx = hn::Min(hn::Max(x, hn::Set(d, kExpNegLo)), hn::Set(d, kExpNegHi));
  const V s = SigmoidOf(d, ExpNegCore(d, cx));
  return hn::IfThenZeroElse(hn::Lt(x, hn::Set(d, kExpNegLo)), s);
}

/// c[0] + c[1] z + ... + c[N-1] z^(N-1) by Horner's scheme.
template <size_t N> HWY_INLINE V Horner(D d, V z, const float (&c)[N]) {
  V p = hn::Set(d, c[N - 1]);
  for (size_t k = N - 1; k-- > 0;)
    p = hn::MulAdd(p, z, hn::Set(d, c[k]));
  return p;
}

/// x P(x^2) / Q(x^2) with x clamped to [-limit, limit]: the odd rational
/// forms of erf and tanh, which round to +-1 in f32 beyond their limit.
template <size_t NP, size_t NQ>
HWY_INLINE V OddRational(D d, V x, float limit, const float (&p)[NP],
                         const float (&q)[NQ]) {
  const V c = Clamp(d, x, -limit, limit);
  const V z = hn::Mul(c, c);
  return hn::Div(hn::Mul(c, Horner(d, z, p)), Horner(d, z, q));
}

/// erf(x) = x P(x^2) / Q(x^2) on |x| <= 3.93, P and Q of degree 5: a
/// rational minimax fit for the relative error (5.4e-8 with these f32
/// coefficients, most of it the rounding of 2/sqrt(pi)). Beyond 3.93, erf
/// rounds to +-1 in f32: x is clamped there. No branches, one division.
/// NaN stays NaN where Clamp keeps it (see KeepClampedNaN).
HWY_INLINE V Erf(D d, V x) {
  static constexpr float kP[] = {1.12837911f,    0.190780848f,
                                 0.052789852f,   0.00377947185f,
                                 0.000284804031f, 2.0419734e-06f};
  static constexpr float kQ[] = {1.0f,           0.502407849f,
                                 0.114256255f,   0.0149971619f,
                                 0.00116517674f, 3.80038655e-05f};
  return OddRational(d, x, 3.93f, kP, kQ);
}

/// tanh(x) = x P(x^2) / Q(x^2) on |x| <= 9.02, P and Q of degree 4: a
/// rational minimax fit for the relative error (5e-8 with these f32
/// coefficients). From 9.02 on tanh rounds to +-1 in f32: x is clamped
/// there. No exponential, no branches, one division. NaN as Erf.
HWY_INLINE V Tanh(D d, V x) {
  static constexpr float kP[] = {1.0f, 0.133797005f, 0.0034940138f,
                                 2.0583142e-05f, 1.3318612e-08f};
  static constexpr float kQ[] = {1.0f, 0.467130154f, 0.0258709956f,
                                 0.000328305905f, 7.76182844e-07f};
  return OddRational(d, x, 9.02f, kP, kQ);
}

/// ln(1 + f) + e ln2 for f in [sqrt(1/2) - 1, sqrt2 - 1] (a little beyond
/// is fine), from s = f / (2 + f) (LogRatio): ln(1 + f) = 2 atanh(s) =
/// 2s + s^3 P(s^2), s in [-0.1716, 0.1716], P of degree 2, minimax for
/// the relative error (8.4e-10 with these f32 coefficients): one division
/// and a short chain.
HWY_INLINE V LogOfRatio(D d, V s, V e) {
  const V z = hn::Mul(s, s);
  V p = hn::Set(d, 0.298713684f);
  p = hn::MulAdd(p, z, hn::Set(d, 0.399775594f));
  p = hn::MulAdd(p, z, hn::Set(d, 0.666667759f));
  const V y = hn::MulAdd(hn::Mul(s, z), p, hn::Add(s, s));
  // ln2 = ln2Hi + ln2Lo.
  return hn::MulAdd(e, hn::Set(d, 0.693147182464599609375f),
                    hn::MulAdd(e, hn::Set(d, -1.904654299957768e-09f), y));
}

/// s = f / (2 + f), the division LogOfRatio starts from.
HWY_INLINE V LogRatio(D d, V f) {
  return hn::Div(f, hn::Add(f, hn::Set(d, 2.0f)));
}

HWY_INLINE V LogOf(D d, V f, V e) { return LogOfRatio(d, LogRatio(d, f), e); }

/// The exponent e and mantissa m in [sqrt(1/2), sqrt2) of x = m 2^e, for
/// normal x > 0, from the bits (exact): subtracting the bits of sqrt(1/2)
/// makes the exponent field step at the mantissa of sqrt2.
HWY_INLINE hn::Vec<DI> SplitLog(D d, V x, V &m) {
  const DI di;
  const hn::Vec<DI> bits = hn::BitCast(di, x);
  const hn::Vec<DI> e =
      hn::ShiftRight<23>(hn::Sub(bits, hn::Set(di, 0x3F3504F3)));
  m = hn::BitCast(d, hn::Sub(bits, hn::ShiftLeft<23>(e)));
  return e;
}

/// f and e of ln x = e ln2 + ln(1 + f), for normal finite x > 0.
HWY_INLINE V LogParts(D d, V x, V &e) {
  V m;
  e = hn::ConvertTo(d, SplitLog(d, x, m));
  return hn::Sub(m, hn::Set(d, 1.0f));
}

/// ln x for normal finite x > 0.
HWY_INLINE V LogCore(D d, V x) {
  V e;
  const V f = LogParts(d, x, e);
  return LogOf(d, f, e);
}

/// f (returned) and e of ln(1 + x) = e ln2 + ln(1 + f) for x in (-1,
/// 1e30): with u = 1 + x rounded, the part of x the rounding lost
/// (x - (u - 1), exact) is put back into f = m - 1, scaled as m is; f is
/// all of x where u is 1.
HWY_INLINE V Log1pParts(D d, V x, V &ef) {
  const DI di;
  const V one = hn::Set(d, 1.0f);
  const V u = hn::Add(one, x);
  const V lost = hn::Sub(x, hn::Sub(u, one));
  V m;
  const hn::Vec<DI> e = SplitLog(d, u, m);
  // 2^-e, normal for these u.
  const V scale = hn::BitCast(
      d, hn::Sub(hn::Set(di, 0x3F800000), hn::ShiftLeft<23>(e)));
  ef = hn::ConvertTo(d, e);
  return hn::MulAdd(lost, scale, hn::Sub(m, one));
}

HWY_INLINE V Log1pCore(D d, V x) {
  V e;
  const V f = Log1pParts(d, x, e);
  return LogOf(d, f, e);
}

/// NaN where the input is NaN. Highway's transcendentals assume finite
/// inputs (Exp(NaN) is 0, Log(0) a large negative number); Flex is the
/// reference backend, so it gives the IEEE answers of the scalar libm.
HWY_INLINE V KeepNaN(V x, V r) { return hn::IfThenElse(hn::IsNaN(x), x, r); }

/// KeepNaN for results computed from Clamp(x): nothing left to do where
/// Clamp keeps NaN.
HWY_INLINE V KeepClampedNaN(V x, V r) {
  if constexpr (kClampKeepsNaN)
    return r;
  else
    return KeepNaN(x, r);
}

/// The lanes where e^x is normal (ExpNormal's range); not NaN.
HWY_INLINE M ExpIsNormal(D d, V x) {
  return hn::And(hn::Ge(x, hn::Set(d, -86.5f)), hn::Le(x, hn::Set(d, 88.0f)));
}

/// e^x for every x: ExpNormal where every lane's result is normal (the
/// usual case), SafeExp for the lanes of a vector that reach the
/// subnormals, the overflow or NaN. The other lanes of such a vector still
/// take ExpNormal, so that a result never depends on its neighbours.
HWY_INLINE V Exp(D d, V x) {
  const M normal = ExpIsNormal(d, x);
  if (HWY_LIKELY(hn::AllTrue(d, normal)))
    return ExpNormal(d, x);
  return hn::IfThenElse(normal, ExpNormal(d, Clamp(d, x, -86.5f, 88.0f)),
                        KeepNaN(x, SafeExp(d, x)));
}

/// log-like special cases: -inf at the pole, NaN below it, +inf at +inf.
HWY_INLINE V LogEdges(D d, V x, V pole, V r) {
  const V inf = hn::Set(d, HUGE_VALF);
  r = hn::IfThenElse(hn::Eq(x, inf), inf, r);
  r = hn::IfThenElse(hn::Eq(x, pole), hn::Neg(inf), r);
  r = hn::IfThenElse(hn::Lt(x, pole), hn::Set(d, NAN), r);
  return KeepNaN(x, r);
}

/// The lanes LogCore takes: the normal positive numbers.
HWY_INLINE M LogIsOrdinary(D d, V x) {
  return hn::And(hn::Ge(x, hn::Set(d, kMinNormal)),
                 hn::Lt(x, hn::Set(d, HUGE_VALF)));
}

/// The lanes Log1pCore takes: (-1, 1e30).
HWY_INLINE M Log1pIsOrdinary(D d, V x) {
  return hn::And(hn::Gt(x, hn::Set(d, -1.0f)), hn::Lt(x, hn::Set(d, 1e30f)));
}

/// ln x for every x: vectors with a lane outside the normal positive
/// numbers (rare) take the edges, subnormals scaled by 2^24 first.
HWY_INLINE V Log(D d, V x) {
  if (HWY_LIKELY(hn::AllTrue(d, LogIsOrdinary(d, x))))
    return LogCore(d, x);
  const M sub = hn::Lt(x, hn::Set(d, kMinNormal));
  V r = LogCore(d, hn::IfThenElse(sub, hn::Mul(x, hn::Set(d, 16777216.0f)), x));
  r = hn::IfThenElse(sub, hn::Sub(r, hn::Set(d, 16.6355323f)), r); // 24 ln2
  return LogEdges(d, x, hn::Zero(d), r);
}

/// ln(1 + x) for every x, as Log: the rare vectors with a lane outside
/// (-1, 1e30) take the edges, and ln x itself from 1e30 on.
HWY_INLINE V Log1p(D d, V x) {
  if (HWY_LIKELY(hn::AllTrue(d, Log1pIsOrdinary(d, x))))
    return Log1pCore(d, x);
  const V minusOne = hn::Set(d, -1.0f);
  const M large = hn::Ge(x, hn::Set(d, 1e30f));
  V r = Log1pCore(d, hn::IfThenZeroElse(large, x));
  r = hn::IfThenElse(large, LogCore(d, x), r);
  return LogEdges(d, x, minusOne, r);
}

/// The vector sin and cos below are valid for |x| <= this; lanes beyond it
/// (and the infinities) take libm's full range reduction.
constexpr float kTrigLimit = 32768.0f;

/// sin x (kCos false) or cos x: x = k pi + r with |r| <= pi/2 (and a bit:
/// k is rounded from x / pi in f32), where k = n for sin and n - 1/2 for
/// cos, so that both are (-1)^n sin r. r by Cody-Waite with pi in three
/// f32 parts: k times the first is exact in the fused operation, the rest
/// leaves r within an ulp. sin r = r + r^3 P(r^2), P of degree 3, minimax
/// on |r| <= pi/2 + 0.001 (relative error 1e-8; below kTrigLimit the
/// rounding of k takes r at most 0.0013 beyond pi/2, where it is as close).
/// Infinities and NaN give NaN.
template <bool kCos> HWY_INLINE V SinCos(D d, V x) {
  const DI di;
  const V magic = hn::Set(d, kRoundMagic);
  const V invPi = hn::Set(d, 0.318309886183790671538f);
  V k, kf;
  if constexpr (kCos) {
    k = hn::Add(hn::MulAdd(x, invPi, hn::Set(d, 0.5f)), magic);
    kf = hn::Sub(hn::Sub(k, magic), hn::Set(d, 0.5f));
  } else {
    k = hn::MulAdd(x, invPi, magic);
    kf = hn::Sub(k, magic);
  }
  V r = hn::NegMulAdd(kf, hn::Set(d, 3.14159274101257324f), x);
  r = hn::NegMulAdd(kf, hn::Set(d, -8.74227765734758577e-8f), r);
  r = hn::NegMulAdd(kf, hn::Set(d, -3.43004335e-15f), r);
  const V z = hn::Mul(r, r);
  V p = hn::Set(d, 2.60558977e-06f);
  p = hn::MulAdd(p, z, hn::Set(d, -0.000198095207f));
  p = hn::MulAdd(p, z, hn::Set(d, 0.00833306555f));
  p = hn::MulAdd(p, z, hn::Set(d, -0.166666597f));
  const V s = hn::MulAdd(hn::Mul(r, z), p, r);
  // (-1)^n: the low bit of n, moved to the sign.
  return hn::BitCast(d, hn::Xor(hn::BitCast(di, s),
                                hn::ShiftLeft<31>(hn::BitCast(di, k))));
}

/// The tanh form of gelu is x/2 (1 + tanh u) = x sigmoid(2u): this is 2u =
/// x (2c + 2c 0.044715 x^2) with c = sqrt(2/pi). One exponential, and no
/// cancellation for x < 0. NaN in x, and -inf (inf * 0), give NaN as the
/// definition does.
HWY_INLINE V GeluTanhArg(D d, V x) {
  return hn::Mul(x, hn::MulAdd(hn::Mul(x, x), hn::Set(d, 0.0713548162f),
                               hn::Set(d, 1.5957691216f)));
}

HWY_INLINE V ApplyUnary(D d, int kind, V x) {
  switch (static_cast<Unary>(kind)) {
  case Unary::Neg:
    return hn::Neg(x);
  case Unary::Abs:
    return hn::Abs(x);
  case Unary::Exp:
    return Exp(d, x);
  case Unary::Log:
    return Log(d, x);
  case Unary::Log1p:
    return Log1p(d, x);
  case Unary::Sqrt:
    return hn::Sqrt(x);
  case Unary::Rsqrt:
    return hn::Div(hn::Set(d, 1.0f), hn::Sqrt(x));
  case Unary::Recip:
    return hn::Div(hn::Set(d, 1.0f), x);
  case Unary::Sin:
    return SinCos<false>(d, x);
  case Unary::Cos:
    return SinCos<true>(d, x);
  case Unary::Tan:
    return hn::Div(SinCos<false>(d, x), SinCos<true>(d, x));
  case Unary::Tanh:
    return KeepClampedNaN(x, Tanh(d, x));
  case Unary::Sigmoid:
    return KeepNaN(x, SigmoidCore(d, x));
  case Unary::Erf:
    return KeepClampedNaN(x, Erf(d, x));
  case Unary::Relu:
    // max(x, 0) that keeps NaN.
    return hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Zero(d), x);
  case Unary::Gelu:
    // As the scalar form (erfF32), so that a result does not depend on the
    // layout. erf(-inf) is exactly -1, so gelu(-inf) is NaN as defined.
    return hn::Mul(hn::Mul(hn::Set(d, 0.5f), x),
                   hn::Add(hn::Set(d, 1.0f),
                           Erf(d, hn::Mul(x, hn::Set(d, 0.70710678118f)))));
  case Unary::GeluTanh:
    return hn::Mul(x, SigmoidCore(d, GeluTanhArg(d, x)));
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
    return hn::Mul(x, SigmoidCore(d, x)); // NaN in x stays NaN
  case Unary::Copy:
    return x;
  }
  return x;
}

/// Lanes of sin, cos and tan beyond kTrigLimit (the infinities too) take
/// libm's full range reduction.
HWY_INLINE V FixLargeTrig(D d, int kind, V x, V r) {
  const Unary u = static_cast<Unary>(kind);
  if (u != Unary::Sin && u != Unary::Cos && u != Unary::Tan)
    return r;
  const auto large = hn::Gt(hn::Abs(x), hn::Set(d, kTrigLimit));
  if (HWY_LIKELY(hn::AllFalse(d, large)))
    return r;
  HWY_ALIGN float xs[HWY_MAX_BYTES / sizeof(float)];
  HWY_ALIGN float rs[HWY_MAX_BYTES / sizeof(float)];
  hn::Store(x, d, xs);
  hn::Store(r, d, rs);
  for (size_t k = 0; k < hn::Lanes(d); ++k)
    if (std::fabs(xs[k]) > kTrigLimit)
      rs[k] = u == Unary::Sin   ? std::sin(xs[k])
              : u == Unary::Cos ? std::cos(xs[k])
                                : std::tan(xs[k]);
  return hn::Load(d, rs);
}

/// Whether UnaryLoop runs op `kind` in two passes (DriveStaged), and its
/// halves: UnarySecond gives ApplyUnary's result wherever UnaryFirst calls
/// a lane ordinary.
constexpr bool IsStagedUnary(int kind) {
  switch (static_cast<Unary>(kind)) {
  case Unary::Exp:
  case Unary::Log:
  case Unary::Log1p:
  case Unary::Sigmoid:
  case Unary::Silu:
  case Unary::GeluTanh:
    return true;
  default:
    return false;
  }
}

HWY_INLINE M UnaryFirst(D d, int kind, V x, V &y, V &z) {
  z = hn::Zero(d);
  switch (static_cast<Unary>(kind)) {
  case Unary::Exp:
    y = ExpReduce(d, x, z);
    return ExpIsNormal(d, x);
  case Unary::Log:
    y = LogRatio(d, LogParts(d, x, z));
    return LogIsOrdinary(d, x);
  case Unary::Log1p:
    y = LogRatio(d, Log1pParts(d, x, z));
    return Log1pIsOrdinary(d, x);
  case Unary::Sigmoid:
  case Unary::Silu:
    // From kExpNegLo on, SigmoidCore's clamp and flush leave x as it is.
    y = ExpNegCore(d, hn::Min(x, hn::Set(d, kExpNegHi)));
    return hn::Ge(x, hn::Set(d, kExpNegLo));
  case Unary::GeluTanh: {
    const V v = GeluTanhArg(d, x);
    y = ExpNegCore(d, hn::Min(v, hn::Set(d, kExpNegHi)));
    return hn::Ge(v, hn::Set(d, kExpNegLo));
  }
  default:
    y = x;
    return hn::FirstN(d, 0);
  }
}

HWY_INLINE V UnarySecond(D d, int kind, V x, V y, V z) {
  switch (static_cast<Unary>(kind)) {
  case Unary::Exp:
    return ExpScale(d, y, z);
  case Unary::Log:
  case Unary::Log1p:
    return LogOfRatio(d, y, z);
  case Unary::Sigmoid:
    return SigmoidOf(d, y);
  case Unary::Silu:
  case Unary::GeluTanh:
    return hn::Mul(x, SigmoidOf(d, y));
  default:
    return x;
  }
}

template <int K, bool kStream>
void UnaryLoop(const float *in, float *out, int64_t n) {
  const D d;
  auto whole = [&](int64_t from, int64_t to) HWY_ATTR {
    const Arg<float> a{in + from, 1};
    Drive<kStream>(d, out + from, to - from,
                   [&](auto full, int64_t i, size_t count) HWY_ATTR {
                     const V x = Get<decltype(full)::value>(d, a, i, count);
                     return FixLargeTrig(d, K, x, ApplyUnary(d, K, x));
                   });
  };
  if constexpr (IsStagedUnary(K)) {
    const Arg<float> a{in, 1};
    const size_t N = hn::Lanes(d);
    DriveStaged<kStream, false>(
        d, out, n,
        [&](int64_t i, V &y, V &z) HWY_ATTR {
          return UnaryFirst(d, K, Get<true>(d, a, i, N), y, z);
        },
        [](int64_t, V &, V &) {},
        [&](int64_t i, V y, V z) HWY_ATTR {
          return UnarySecond(d, K, hn::LoadU(d, in + i), y, z);
        },
        whole);
  } else {
    whole(0, n);
  }
}

using UnaryFn = void (*)(const float *, float *, int64_t);
template <bool kStream, int... K>
HWY_INLINE UnaryFn UnaryLoopOf(int kind, std::integer_sequence<int, K...>) {
  static constexpr UnaryFn table[] = {&UnaryLoop<K, kStream>...};
  return table[kind];
}

void UnaryF32(int kind, const float *in, float *out, int64_t n, bool stream) {
  constexpr auto kinds =
      std::make_integer_sequence<int, kNumUnary>();
  (stream ? UnaryLoopOf<true>(kind, kinds) : UnaryLoopOf<false>(kind, kinds))(
      in, out, n);
}

/// The lanes RemOf does not cover: infinite or NaN operands, b = 0, and
/// quotients from 2^22 on (all lanes without fused multiply-add, where it
/// is not exact).
HWY_INLINE M RemBad(D d, V a, V b, V ratio) {
#if HWY_NATIVE_FMA
  return hn::Not(hn::And(hn::And(hn::IsFinite(a), hn::IsFinite(b)),
                         hn::And(hn::Ne(b, hn::Zero(d)),
                                 hn::Lt(ratio, hn::Set(d, 4194304.0f)))));
#else
  return hn::FirstN(d, hn::Lanes(d));
#endif
}

/// The floored remainder (the sign of b), exact, from ratio = |a| / |b|
/// (RemRatio): q = trunc(ratio) is the true quotient or one more (the
/// division rounds up across an integer at most once below 2^22), and
/// |a| - q|b| in one fused rounding is then exact, as fmod is. Lanes of
/// RemBad are in `bad`.
HWY_INLINE V RemOf(D d, V a, V b, V ratio, M &bad) {
  const V A = hn::Abs(a), B = hn::Abs(b);
  V q = hn::Trunc(ratio);
  V r = hn::NegMulAdd(q, B, A);
  q = hn::IfThenElse(hn::Lt(r, hn::Zero(d)), hn::Sub(q, hn::Set(d, 1.0f)), q);
  r = hn::CopySign(hn::NegMulAdd(q, B, A), a); // fmod: the sign of a
  const M flip = hn::And(hn::Ne(r, hn::Zero(d)),
                         hn::Xor(hn::Lt(r, hn::Zero(d)), hn::Lt(b, hn::Zero(d))));
  bad = RemBad(d, a, b, ratio);
  return hn::IfThenElse(flip, hn::Add(r, b), r);
}

/// |a| / |b|, the division RemOf starts from.
HWY_INLINE V RemRatio(V a, V b) { return hn::Div(hn::Abs(a), hn::Abs(b)); }

HWY_INLINE V Rem(D d, V a, V b, M &bad) {
  return RemOf(d, a, b, RemRatio(a, b), bad);
}

/// The lanes Atan2Of does not cover: where the quotient q is NaN (both
/// zero or both infinite) or either input is NaN.
HWY_INLINE M Atan2Bad(V y, V x, V q) {
  return hn::IsNaN(hn::Add(q, hn::Add(x, y)));
}

/// atan2(y, x) from a = atan(min(|x|, |y|) / max(|x|, |y|)) in [0, pi/4]:
/// the octant gives base + a or base - a, base in {0, pi/2, pi}, and y the
/// sign. atan on [0, 1] is q + q^3 P(q^2), P of degree 7, minimax for the
/// relative error (3.7e-8 with these f32 coefficients). One division and
/// no Highway Atan (which divides again). Lanes of Atan2Bad are in `bad`.
HWY_INLINE V Atan2Of(D d, V y, V x, V q, M &bad) {
  const DI di;
  const V ax = hn::Abs(x), ay = hn::Abs(y);
  const M swap = hn::Gt(ay, ax);
  const V z = hn::Mul(q, q);
  // Estrin's scheme: this chain follows a division.
  const V z2 = hn::Mul(z, z), z4 = hn::Mul(z2, z2);
  const V p01 = hn::MulAdd(z, hn::Set(d, 0.199937731f), hn::Set(d, -0.333331525f));
  const V p23 = hn::MulAdd(z, hn::Set(d, 0.106660023f), hn::Set(d, -0.142110541f));
  const V p45 = hn::MulAdd(z, hn::Set(d, 0.0432117805f), hn::Set(d, -0.0755220801f));
  const V p67 = hn::MulAdd(z, hn::Set(d, 0.00292067765f), hn::Set(d, -0.0163678732f));
  const V p = hn::MulAdd(hn::MulAdd(p67, z2, p45), z4, hn::MulAdd(p23, z2, p01));
  const V a = hn::MulAdd(hn::Mul(q, z), p, q);
  // x < 0: pi - a, or pi/2 + a when swapped; x >= 0: a, or pi/2 - a (with
  // x = -0 where swapped, pi/2 + 0 either way). Bit operations rather than
  // compares and blends, which would take the FMA ports.
  const V signBit = hn::BitCast(d, hn::Set(di, INT32_MIN));
  const V negX = hn::BitCast(d, hn::BroadcastSignBit(hn::BitCast(di, x)));
  const V base = hn::IfThenElse(swap, hn::Set(d, 1.57079637050628662f),
                                hn::And(negX, hn::Set(d, 3.14159274101257324f)));
  const V flip = hn::Xor(hn::And(x, signBit),
                         hn::And(hn::VecFromMask(d, swap), signBit));
  const V r = hn::Add(base, hn::Xor(a, flip)); // >= 0
  // The sign of y (atan2(+-0, x > 0) is +-0).
  const V sign = hn::And(y, signBit);
  bad = Atan2Bad(y, x, q);
  return hn::Or(r, sign);
}

/// min(|x|, |y|) / max(|x|, |y|), the division Atan2Of starts from.
HWY_INLINE V Atan2Ratio(V y, V x) {
  const V ax = hn::Abs(x), ay = hn::Abs(y);
  return hn::Div(hn::Min(ax, ay), hn::Max(ax, ay));
}

HWY_INLINE V Atan2(D d, V y, V x, M &bad) {
  return Atan2Of(d, y, x, Atan2Ratio(y, x), bad);
}

/// The exponential's half of Pow: e^(tHi + tLo) for |tLo| tiny next to
/// tHi, over the whole range of f32 results: 0 below, +inf above, and the
/// subnormals rounded once. r = t - n ln2 (tHi - n ln2Hi exact, as ln2Hi
/// has 16 significant bits), e^r by ExpPoly, and 2^n applied in two
/// steps: to the exponent field of e^r for half of it (the result stays
/// normal), by a multiplication for the rest.
HWY_INLINE V PowExp(D d, V tHi, V tLo) {
  const DI di;
  const V ln2Hi = hn::Set(d, 0.693145751953125f);
  const V ln2Lo = hn::Set(d, 1.4286068202862268e-06f);
  const V magic = hn::Set(d, kRoundMagic);
  const V tc = hn::Min(hn::Max(tHi, hn::Set(d, -110.0f)), hn::Set(d, 100.0f));
  const V k = hn::MulAdd(tc, hn::Set(d, 1.44269504089f), magic);
  const V n = hn::Sub(k, magic);
  V r = hn::NegMulAdd(n, ln2Hi, tc);
  r = hn::Add(hn::NegMulAdd(n, ln2Lo, r), tLo);
  const V p = ExpPoly(d, r);
  const hn::Vec<DI> ni = hn::Sub(hn::BitCast(di, k), hn::BitCast(di, magic));
  const hn::Vec<DI> n1 = hn::ShiftRight<1>(ni), n2 = hn::Sub(ni, n1);
  const V p1 = hn::BitCast(d, hn::Add(hn::BitCast(di, p), hn::ShiftLeft<23>(n1)));
  const V s2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(n2, hn::Set(di, 127))));
  return hn::Mul(p1, s2);
}

/// pow(a, b) = e^(b ln a) for normal a > 0, in f32 lanes only: ln a and
/// b ln a are carried as unevaluated sums hi + lo (error-free products and
/// sums through FMA), so the exponent is known to about 2^-31 of itself and
/// the result, up to about 88 in the exponent, is within an ulp or two.
/// (An f64 form needs eight lane conversions per vector, which cost more
/// than all of this.) Other bases and non-finite exponents are in `bad`.
///
/// ln m = 2 atanh(s), s = f / (2 + f), f = m - 1: s = sHi + sLo with sHi
/// the quotient by 2 + f rounded, and sLo from the residual
/// f - sHi (2 + f), which two fused operations give exactly: f - 2 sHi is
/// exact (Sterbenz), then - sHi f rounds once.
///
/// The steps, which the blocked loop runs as passes of their own: PowSplit
/// gives sHi (returned) and sLo, PowArg t = b ln a, PowExp e^t; Pow is all
/// three.
HWY_INLINE V PowSplit(D d, V a, V &sLo) {
  const V one = hn::Set(d, 1.0f), two = hn::Set(d, 2.0f);
  V m;
  SplitLog(d, a, m);
  const V f = hn::Sub(m, one);
  const V u = hn::Add(f, two);
  const V sHi = hn::Div(f, u);
  // sLo is under an ulp of sHi: 12 bits of 1 / u are plenty for it.
  const V inv = hn::ApproximateReciprocal(u);
  const V res = hn::NegMulAdd(sHi, f, hn::NegMulAdd(two, sHi, f));
  sLo = hn::Mul(res, inv);
  return sHi;
}

/// ln a = lHi + lLo from PowSplit's s = sHi + sLo and the exponent ef of
/// a.
HWY_INLINE V PowLn(D d, V sHi, V sLo, V ef, V &lLo) {
  const V two = hn::Set(d, 2.0f);
  // 2 atanh(s) = 2s + s^3 P(s^2): P minimax on |s| <= 0.1725 (relative
  // error 4e-10 of the whole); the tail is under 1% of ln m, so sHi
  // suffices in it, and its first-order change with sLo is 2 s^2 sLo.
  const V z = hn::Mul(sHi, sHi);
  V P = hn::Set(d, 0.235968292f);
  P = hn::MulAdd(P, z, hn::Set(d, 0.28536582f));
  P = hn::MulAdd(P, z, hn::Set(d, 0.400003463f));
  P = hn::MulAdd(P, z, hn::Set(d, 0.666666627f));
  const V tail = hn::Mul(hn::Mul(sHi, z), P);
  const V lo = hn::MulAdd(hn::MulAdd(z, two, two), sLo, tail);
  // ln a = e ln2 + ln m. ln2Hi has 16 significant bits, so e ln2Hi is
  // exact; |e ln2Hi| >= |2 sHi| unless e = 0, so Fast2Sum applies.
  const V ln2Hi = hn::Set(d, 0.693145751953125f);
  const V ln2Lo = hn::Set(d, 1.4286068202862268e-06f);
  const V x = hn::Mul(ef, ln2Hi), y = hn::Add(sHi, sHi);
  const V sum = hn::Add(x, y);
  const V rest = hn::Add(hn::Add(hn::Sub(x, sum), y), hn::MulAdd(ef, ln2Lo, lo));
  // Renormalized (Fast2Sum again): rest holds the atanh tail, up to 1% of
  // ln a, and tLo below must stay within an ulp of tHi for PowExp.
  const V lHi = hn::Add(sum, rest);
  lLo = hn::Sub(rest, hn::Sub(lHi, sum));
  return lHi;
}

/// The lanes Pow does not cover: bases that are not normal and positive,
/// exponents that are not finite (all lanes without fused multiply-add,
/// where the products are not error-free).
HWY_INLINE M PowBad(D d, V a, V b) {
#if HWY_NATIVE_FMA
  return hn::Not(hn::And(hn::And(hn::Ge(a, hn::Set(d, kMinNormal)),
                                 hn::Lt(a, hn::Set(d, HUGE_VALF))),
                         hn::Lt(hn::Abs(b), hn::Set(d, HUGE_VALF))));
#else
  return hn::FirstN(d, hn::Lanes(d));
#endif
}

/// t = b ln a = tHi (returned) + tLo, PowExp's argument, from PowSplit's
/// sHi and sLo. The exponent of a is taken from its bits again: five
/// operations, cheaper than a third buffer between the passes.
HWY_INLINE V PowArg(D d, V a, V b, V sHi, V sLo, V &tLo) {
  V m, lLo;
  const V ef = hn::ConvertTo(d, SplitLog(d, a, m));
  const V lHi = PowLn(d, sHi, sLo, ef, lLo);
  const V tHi = hn::Mul(b, lHi);
  tLo = hn::MulAdd(b, lLo, hn::MulSub(b, lHi, tHi));
  return tHi;
}

HWY_INLINE V Pow(D d, V a, V b, M &bad) {
  V sLo, tLo;
  const V sHi = PowSplit(d, a, sLo);
  const V tHi = PowArg(d, a, b, sHi, sLo, tLo);
  bad = PowBad(d, a, b);
  return PowExp(d, tHi, tLo);
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

/// Whether BinaryLoop runs op `kind` in two passes (DriveStaged), and its
/// halves: BinarySecond gives ApplyBinary's result wherever BinaryFirst
/// calls a lane ordinary.
constexpr bool IsStagedBinary(int kind) {
  return kind == static_cast<int>(Binary::Pow) ||
         kind == static_cast<int>(Binary::Rem) ||
         kind == static_cast<int>(Binary::Atan2);
}

HWY_INLINE M BinaryFirst(D d, int kind, V a, V b, V &y, V &z) {
  z = hn::Zero(d);
  switch (static_cast<Binary>(kind)) {
  case Binary::Pow:
    y = PowSplit(d, a, z);
    return hn::Not(PowBad(d, a, b));
  case Binary::Rem:
    y = RemRatio(a, b);
    return hn::Not(RemBad(d, a, b, y));
  case Binary::Atan2:
    y = Atan2Ratio(a, b);
    return hn::Not(Atan2Bad(a, b, y));
  default:
    y = a;
    return hn::FirstN(d, 0);
  }
}

/// Whether op `kind` has a third pass between BinaryFirst and
/// BinarySecond, BinaryMiddle: the chain of Pow is long enough for it.
constexpr bool HasBinaryMiddle(int kind) {
  return kind == static_cast<int>(Binary::Pow);
}

HWY_INLINE void BinaryMiddle(D d, int kind, V a, V b, V &y, V &z) {
  if (static_cast<Binary>(kind) == Binary::Pow)
    y = PowArg(d, a, b, y, z, z);
}

HWY_INLINE V BinarySecond(D d, int kind, V a, V b, V y, V z) {
  M bad; // BinaryFirst has seen to it
  switch (static_cast<Binary>(kind)) {
  case Binary::Pow:
    return PowExp(d, y, z);
  case Binary::Rem:
    return RemOf(d, a, b, y, bad);
  case Binary::Atan2:
    return Atan2Of(d, a, b, y, bad);
  default:
    return a;
  }
}

/// Lanes [i, i + N) of an operand already loaded once (no prefetch).
HWY_INLINE V Reload(D d, Arg<float> a, int64_t i) {
  return a.s ? hn::LoadU(d, a.p + i) : hn::Set(d, a.p[0]);
}

template <int K, bool kStream>
void BinaryLoop(const float *a, int64_t sa, const float *b, int64_t sb,
                float *out, int64_t n) {
  const D d;
  const Arg<float> x{a, sa}, y{b, sb};
  auto whole = [&](int64_t from, int64_t to) HWY_ATTR {
    const Arg<float> xs{a + from * sa, sa}, ys{b + from * sb, sb};
    Drive<kStream>(d, out + from, to - from,
                   [&](auto full, int64_t i, size_t count) HWY_ATTR {
                     constexpr bool kFull = decltype(full)::value;
                     return ApplyBinary(d, K, Get<kFull>(d, xs, i, count),
                                        Get<kFull>(d, ys, i, count));
                   });
  };
  if constexpr (IsStagedBinary(K)) {
    const size_t N = hn::Lanes(d);
    DriveStaged<kStream, HasBinaryMiddle(K)>(
        d, out, n,
        [&](int64_t i, V &u, V &v) HWY_ATTR {
          return BinaryFirst(d, K, Get<true>(d, x, i, N),
                             Get<true>(d, y, i, N), u, v);
        },
        [&](int64_t i, V &u, V &v) HWY_ATTR {
          BinaryMiddle(d, K, Reload(d, x, i), Reload(d, y, i), u, v);
        },
        [&](int64_t i, V u, V v) HWY_ATTR {
          return BinarySecond(d, K, Reload(d, x, i), Reload(d, y, i), u, v);
        },
        whole);
  } else {
    whole(0, n);
  }
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
      std::make_integer_sequence<int, kNumBinary>();
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
  CompareLoopOf(kind, std::make_integer_sequence<int, kNumCompare>())(
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

template <bool kStream>
void NotBoolLoop(const bool *in, bool *out, int64_t n) {
  const hn::ScalableTag<uint8_t> d8;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d8));
  const uint8_t *p = reinterpret_cast<const uint8_t *>(in);
  uint8_t *o = reinterpret_cast<uint8_t *>(out);
  const auto one = hn::Set(d8, 1);
  auto notOf = [&](int64_t at) HWY_ATTR {
    return hn::IfThenElseZero(hn::Eq(hn::LoadU(d8, p + at), hn::Zero(d8)),
                              one);
  };
  int64_t i = 0;
  if constexpr (kStream) // bytes up to a whole vector's alignment
    for (; i < n && reinterpret_cast<uintptr_t>(o + i) % (N * sizeof(uint8_t));
         ++i)
      o[i] = p[i] == 0;
  for (; i + 4 * N <= n; i += 4 * N)
    for (int64_t j = 0; j < 4 * N; j += N) {
      if constexpr (kStream)
        hn::Stream(notOf(i + j), d8, o + i + j);
      else
        hn::StoreU(notOf(i + j), d8, o + i + j);
    }
  if constexpr (kStream)
    hwy::FlushStream();
  for (; i + N <= n; i += N)
    hn::StoreU(notOf(i), d8, o + i);
  for (; i < n; ++i)
    o[i] = p[i] == 0;
}

void NotBool(const bool *in, bool *out, int64_t n, bool stream) {
  (stream ? NotBoolLoop<true> : NotBoolLoop<false>)(in, out, n);
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

template <bool kStream>
void F32ToF16Loop(const float *in, uint16_t *out, int64_t n) {
  const D d;
  const hn::Rebind<hwy::float16_t, D> dh;
  const hn::Rebind<uint16_t, D> du;
  const Arg<float> x{in, 1};
  Drive<kStream>(du, out, n, [&](auto full, int64_t i, size_t count) HWY_ATTR {
    return hn::BitCast(
        du, hn::DemoteTo(dh, Get<decltype(full)::value>(d, x, i, count)));
  });
}

bool CastF32ToF16(const float *in, uint16_t *out, int64_t n, bool stream) {
#if KILN_FLEX_F16C
  (stream ? F32ToF16Loop<true> : F32ToF16Loop<false>)(in, out, n);
  return true;
#else
  (void)in, (void)out, (void)n, (void)stream;
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
  const V v = hn::Set(d, x);
  return hn::GetLane(KeepClampedNaN(v, Erf(d, v)));
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

/// The size of the last-level cache that the calling core shares. Linux
/// describes each cache of cpu0 under sysfs; sysconf's figure can be the
/// whole package's (every CCX of an EPYC summed), far above what one core
/// can keep.
static int64_t lastLevelCacheBytes() {
  int64_t best = 0;
  int bestLevel = 0;
  for (int index = 0; index < 8; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream levelFile(dir + "/level"), sizeFile(dir + "/size");
    int level = 0;
    std::string size;
    if (!(levelFile >> level) || !(sizeFile >> size) || size.empty())
      continue;
    int64_t bytes = std::atoll(size.c_str());
    char unit = size.back();
    bytes *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
    if (bytes > 0 && level >= bestLevel) {
      bestLevel = level;
      best = bytes;
    }
  }
  if (best > 0)
    return best;
  long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return llc > 0 ? llc : int64_t(32) << 20;
}

bool streamStores(int64_t bytes) {
  // Half the last-level cache, but no more than 16 MiB (the Cpu backend's
  // figure): a server's last-level cache of hundreds of MiB is shared with
  // every other core, so a later reader would find little of a larger
  // output still there, and streaming saves a third of a unary op's traffic.
  static const int64_t threshold =
      std::min<int64_t>(lastLevelCacheBytes() / 2, int64_t(16) << 20);
  return bytes >= threshold;
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
void notBool(const bool *in, bool *out, int64_t n, Store store) {
  HWY_DYNAMIC_DISPATCH(NotBool)(in, out, n, store == Store::Stream);
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
bool castF32ToF16(const float *in, uint16_t *out, int64_t n, Store store) {
  return HWY_DYNAMIC_DISPATCH(CastF32ToF16)(in, out, n, store == Store::Stream);
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
