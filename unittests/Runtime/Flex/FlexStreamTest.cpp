//===- FlexStreamTest.cpp - Non-temporal stores in the Flex SIMD loops ----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Outputs of 16 MiB or half the last-level cache are written with
// non-temporal stores, which need an aligned start: the loops store a
// partial vector first. Every loop that takes a Store must give the same
// bits either way, for every length and misalignment of the output.
//
//===----------------------------------------------------------------------===//

#include "lib/Runtime/Flex/FlexSimd.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace kiln::detail::flex::simd;

namespace {

/// Values in [-3, 3) with a few special ones mixed in.
std::vector<float> inputs(size_t n, unsigned seed) {
  std::vector<float> v(n);
  unsigned s = seed;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[i] = -3.0f + 6.0f * static_cast<float>(s >> 8) / 16777216.0f;
  }
  if (n > 5) {
    v[1] = 0.0f;
    v[3] = INFINITY;
    v[5] = NAN;
  }
  return v;
}

/// Runs `loop(out, n, store)` cached and streaming into outputs that start
/// 0..15 elements past a 64-byte boundary, and checks the bits agree and
/// nothing outside [0, n) is written.
template <typename T>
void expectSameBits(const std::string &what,
                    const std::function<void(T *, int64_t, Store)> &loop) {
  for (int64_t n : {1, 7, 8, 9, 31, 100, 1003}) {
    for (int shift = 0; shift < 16; ++shift) {
      alignas(64) static T cached[1100], streamed[1100];
      std::memset(cached, 0x5a, sizeof(cached));
      std::memset(streamed, 0x5a, sizeof(streamed));
      loop(cached + shift, n, Store::Cached);
      loop(streamed + shift, n, Store::Stream);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(std::memcmp(cached + shift + i, streamed + shift + i,
                              sizeof(T)),
                  0)
            << what << ": n = " << n << ", output offset " << shift
            << ", element " << i << ": " << cached[shift + i] << " cached, "
            << streamed[shift + i] << " streamed";
      // The guard bytes around the output stay as they were.
      unsigned char guard;
      std::memset(&guard, 0x5a, 1);
      for (int i = 0; i < shift; ++i)
        ASSERT_EQ(reinterpret_cast<unsigned char *>(streamed + i)[0], guard)
            << what << ": wrote before the output";
      ASSERT_EQ(reinterpret_cast<unsigned char *>(streamed + shift + n)[0],
                guard)
          << what << ": wrote past the output";
    }
  }
}

TEST(FlexStreamTest, UnaryLoops) {
  std::vector<float> a = inputs(1024, 1);
  for (int k = 0; k < kNumUnary; ++k)
    expectSameBits<float>("unary " + std::to_string(k),
                          [&](float *out, int64_t n, Store store) {
                            unaryF32(static_cast<Unary>(k), a.data(), out, n,
                                     store);
                          });
}

TEST(FlexStreamTest, BinaryLoops) {
  std::vector<float> a = inputs(1024, 2), b = inputs(1024, 3);
  // Positive bases too, which pow takes in blocks past the special values.
  std::vector<float> positive(a.size());
  for (size_t i = 0; i < a.size(); ++i)
    positive[i] = std::fabs(a[i]) + 0.25f;
  for (int k = 0; k < kNumBinary; ++k)
    for (int64_t sb : {0, 1})
      for (const std::vector<float> *lhs : {&a, &positive})
        expectSameBits<float>("binary " + std::to_string(k) +
                                  (sb ? "" : ", scalar rhs") +
                                  (lhs == &a ? "" : ", positive lhs"),
                              [&](float *out, int64_t n, Store store) {
                                binaryF32(static_cast<Binary>(k), lhs->data(),
                                          1, b.data(), sb, out, n, store);
                              });
}

TEST(FlexStreamTest, WhereNotClampAndCasts) {
  std::vector<float> a = inputs(1024, 4), b = inputs(1024, 5);
  std::vector<char> c(1024);
  for (size_t i = 0; i < c.size(); ++i)
    c[i] = (i * 7) % 3 == 0;
  const bool *cond = reinterpret_cast<const bool *>(c.data());
  expectSameBits<float>("where", [&](float *out, int64_t n, Store store) {
    whereF32(cond, 1, a.data(), 1, b.data(), 1, out, n, store);
  });
  expectSameBits<bool>("not", [&](bool *out, int64_t n, Store store) {
    notBool(cond, out, n, store);
  });
  expectSameBits<float>("clamp", [&](float *out, int64_t n, Store store) {
    clampF32(a.data(), -1.0f, 2.0f, out, n, store);
  });
  expectSameBits<int32_t>("f32 to i32",
                          [&](int32_t *out, int64_t n, Store store) {
                            castF32ToI32(a.data(), out, n, store);
                          });
  std::vector<int32_t> ints(1024);
  for (size_t i = 0; i < ints.size(); ++i)
    ints[i] = static_cast<int32_t>(i * 2654435761u);
  expectSameBits<float>("i32 to f32", [&](float *out, int64_t n, Store store) {
    castI32ToF32(ints.data(), out, n, store);
  });
  // The f16 loops decline (return false) only without an exact conversion
  // instruction, which every x86-64 target Flex dispatches to here has.
  expectSameBits<uint16_t>("f32 to f16",
                           [&](uint16_t *out, int64_t n, Store store) {
                             EXPECT_TRUE(castF32ToF16(a.data(), out, n, store));
                           });
  std::vector<uint16_t> halves(1024);
  for (size_t i = 0; i < halves.size(); ++i)
    halves[i] = static_cast<uint16_t>(i * 40503u);
  expectSameBits<float>("f16 to f32", [&](float *out, int64_t n, Store store) {
    EXPECT_TRUE(castF16ToF32(halves.data(), out, n, store));
  });
}

} // namespace
