//===- FlexConvert.h - Correctly rounded narrow float stores ----*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Kernels compute f16 and bf16 in f32. A value that starts wider (f64, a
// 32- or 64-bit integer) must still round once to the stored type: rounding
// it to the nearest f32 first can land exactly on an f16/bf16 tie that the
// exact value was not on, and the second rounding then goes the wrong way.
// Rounding to odd in between avoids that.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_RUNTIME_FLEX_FLEXCONVERT_H
#define KILN_LIB_RUNTIME_FLEX_FLEXCONVERT_H

#include "FlexKernels.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace kiln::detail::flex {

/// `v` as a float rounded to odd: truncated toward zero, with the last bit
/// set when that dropped anything. With 13 (f16) or 16 (bf16) bits to spare,
/// narrowing it rounds as if from `v` itself.
inline float roundToOddF32(double v) {
  float f = static_cast<float>(v);
  if (std::isnan(v) || std::isinf(f) || static_cast<double>(f) == v)
    return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(v))
    f = std::nextafter(f, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= 1;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// The same from an integer, without going through double (which would
/// round once more above 2^53).
inline float roundToOddF32(int64_t v) {
  uint64_t mag =
      v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int width = 64 - __builtin_clzll(mag | 1);
  if (width <= 24)
    return static_cast<float>(v);
  int shift = width - 24;
  uint64_t kept = mag >> shift;
  kept |= (mag & ((uint64_t(1) << shift) - 1)) != 0;
  float f = std::ldexp(static_cast<float>(kept), shift);
  return v < 0 ? -f : f;
}

template <typename T>
constexpr bool isHalfLike =
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// `v` (a double or a 64-bit integer) stored as T with one rounding.
template <typename T, typename W> inline T narrowTo(W v) {
  if constexpr (isHalfLike<T>)
    return storeAs<T>(roundToOddF32(v));
  else
    return static_cast<T>(v);
}

/// The largest T below `v` (v finite and representable in T).
template <typename T> inline T nextDown(T v) {
  if constexpr (isHalfLike<T>) {
    bool negative = v.bits & 0x8000;
    if ((v.bits & 0x7fff) == 0)
      v.bits = 0x8001; // below +-0: the smallest negative subnormal
    else
      v.bits = negative ? v.bits + 1 : v.bits - 1;
    return v;
  } else {
    return std::nextafter(v, -std::numeric_limits<T>::infinity());
  }
}

} // namespace kiln::detail::flex

#endif // KILN_LIB_RUNTIME_FLEX_FLEXCONVERT_H
