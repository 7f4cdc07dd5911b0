//===- Random.h - The counter-based generator of every backend --*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Element i of a random tensor depends only on (seed, i), so Flex, the CPU
// JIT and the GPU produce the same numbers and a kernel can be split any
// way. The mixing function is the splitmix64 finalizer; the CPU and GPU
// lowerings emit the same arithmetic.
//
//   bits(seed, i)   = mix(seed * 0x9E3779B97F4A7C15 + i) >> 32
//   uniform(seed,i) = (bits >> 8) * 2^-24                 in [0, 1)
//   normal(seed,i)  = sqrt(-2 ln u1) * cos(2 pi u2), with
//                     u1 = ((bits(seed, 2i) >> 8) + 1) * 2^-24   in (0, 1]
//                     u2 = (bits(seed, 2i + 1) >> 8) * 2^-24
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_RANDOM_H
#define KILN_SUPPORT_RANDOM_H

#include <cmath>
#include <cstdint>

namespace kiln::random {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kMix1 = 0xBF58476D1CE4E5B9ull;
constexpr uint64_t kMix2 = 0x94D049BB133111EBull;

/// The splitmix64 finalizer.
inline uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * kMix1;
  z = (z ^ (z >> 27)) * kMix2;
  return z ^ (z >> 31);
}

inline uint32_t bits(uint64_t seed, uint64_t index) {
  return static_cast<uint32_t>(mix(seed * kGolden + index) >> 32);
}

/// SplitMix64, a sequential generator: the fuzzers' input values and the
/// demos' batches (examples/python/char_gpt.py reproduces it bit for bit).
struct SplitMix64 {
  uint64_t state;
  uint64_t next() { return mix(state += kGolden); }
  /// Uniform in [lo, hi] (up to a modulo bias of (hi - lo + 1) / 2^64).
  uint64_t between(uint64_t lo, uint64_t hi) {
    return lo + next() % (hi - lo + 1);
  }
};

inline double uniform(uint64_t seed, uint64_t index) {
  return static_cast<double>(bits(seed, index) >> 8) * (1.0 / 16777216.0);
}

inline double normal(uint64_t seed, uint64_t index) {
  double u1 =
      (static_cast<double>(bits(seed, 2 * index) >> 8) + 1.0) / 16777216.0;
  double u2 = static_cast<double>(bits(seed, 2 * index + 1) >> 8) / 16777216.0;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

} // namespace kiln::random

#endif // KILN_SUPPORT_RANDOM_H
