//===- IntegerDivisionTest.cpp - Integer division never traps -------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Integer division is floored. A zero divisor gives 0 (quotient and
// remainder), and the minimum of a signed type divided by -1, which
// overflows, wraps to the minimum (remainder 0), as numpy gives: on no
// backend does either raise SIGFPE.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

using namespace kiln;

namespace {

template <typename T> void checkOn(const DispatchDevice &dev) {
  const T lo = std::numeric_limits<T>::min();
  DispatchTensor x =
      DispatchTensor::fromVector<T>({lo, lo, 7, -7, 7, lo}, {6}, dev);
  DispatchTensor y =
      DispatchTensor::fromVector<T>({-1, 0, -1, 2, 0, 2}, {6}, dev);
  std::vector<T> q = (x / y).template toVector<T>();
  std::vector<T> r = rem(x, y).template toVector<T>();
  EXPECT_EQ(q, (std::vector<T>{lo, 0, -7, -4, 0, static_cast<T>(lo / 2)}));
  EXPECT_EQ(r, (std::vector<T>{0, 0, 0, 1, 0, 0}));
  // A scalar divisor of -1 (a kernel argument, not a constant).
  DispatchTensor minusOne =
      DispatchTensor::scalar(-1, DType(DTypeOf<T>::kind), dev);
  std::vector<T> s = (x / minusOne).template toVector<T>();
  EXPECT_EQ(s[0], lo);
  EXPECT_EQ(s[2], T(-7));
}

TEST(IntegerDivisionTest, NeverTraps) {
  for (const DispatchDevice &dev :
       {DispatchDevice::flex(), DispatchDevice::cpu()}) {
    SCOPED_TRACE(dev.str());
    checkOn<int32_t>(dev);
    checkOn<int64_t>(dev);
  }
}

} // namespace
