//===- Reduction.h - What each reduction computes ---------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The semantics of the reductions with a combine (sum, prod, max, min, any,
// all), written once: their identity, how two partial results combine, and
// the type a compiled reduction accumulates in. The dialect's reduction
// interface builds IR from these facts (KernelGen, KilnToLinalg and the GPU
// generator ask it), and Flex computes with the same functions.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_REDUCTION_H
#define KILN_SUPPORT_REDUCTION_H

#include "kiln/Support/DType.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace kiln {

enum class ReductionKind : uint8_t { Sum, Prod, Max, Min, Any, All };

/// "sum", "prod", "max", "min", "any", "all".
const char *reductionName(ReductionKind kind);

/// The value that leaves any other unchanged: 0 for Sum and Any, 1 for Prod
/// and All, the lowest value of T for Max (-inf for floats), the highest for
/// Min (+inf).
template <typename T> constexpr T reductionIdentity(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Sum:
  case ReductionKind::Any:
    return T(0);
  case ReductionKind::Prod:
  case ReductionKind::All:
    return T(1);
  case ReductionKind::Max:
    if constexpr (std::numeric_limits<T>::has_infinity)
      return -std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::lowest();
  case ReductionKind::Min:
    if constexpr (std::numeric_limits<T>::has_infinity)
      return std::numeric_limits<T>::infinity();
    else
      return std::numeric_limits<T>::max();
  }
  return T(0);
}

/// Two partial results combined. A NaN propagates through Max and Min;
/// integer sums and products wrap (two's complement), as compiled code's do.
template <typename T>
constexpr T reductionCombine(ReductionKind kind, T acc, T v) {
  constexpr bool wraps = std::is_integral_v<T> && !std::is_same_v<T, bool>;
  switch (kind) {
  case ReductionKind::Sum:
    if constexpr (wraps) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(acc) + static_cast<U>(v));
    }
    return static_cast<T>(acc + v);
  case ReductionKind::Prod:
    if constexpr (wraps) {
      // Promoted to at least unsigned int, so that narrow types cannot
      // overflow a signed int.
      using U = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
      return static_cast<T>(static_cast<U>(acc) * static_cast<U>(v));
    }
    return static_cast<T>(acc * v);
  case ReductionKind::Max:
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(acc) || std::isnan(v))
        return std::isnan(acc) ? acc : v;
    return acc < v ? v : acc;
  case ReductionKind::Min:
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(acc) || std::isnan(v))
        return std::isnan(acc) ? acc : v;
    return v < acc ? v : acc;
  case ReductionKind::Any:
    return static_cast<T>(acc || v);
  case ReductionKind::All:
    return static_cast<T>(acc && v);
  }
  return acc;
}

/// The element type a compiled reduction of `storage` elements accumulates
/// in: float sums and products in f64 (2^25 f32 adds of 1.0 stop at 2^24,
/// and a long product of factors near 1 loses its digits in f32), f16 and
/// bf16 max and min in f32; every other type in itself.
DTypeKind reductionAccumulator(ReductionKind kind, DTypeKind storage);

/// A compiled float sum adds blocks of this many elements in the block
/// accumulator, and the blocks' sums in the accumulator: its error grows
/// with the block, not with the length, and the inner loop keeps the
/// storage's vector width.
constexpr int64_t kReductionBlock = 1024;

/// The type within a block: f32 for f32, f16 and bf16 sums; the accumulator
/// for everything else (which is then not blocked).
DTypeKind reductionBlockAccumulator(ReductionKind kind, DTypeKind storage);

} // namespace kiln

#endif // KILN_SUPPORT_REDUCTION_H
