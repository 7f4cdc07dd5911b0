//===- CastTest.cpp - cast between every pair of dtypes -------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A cast is exact arithmetic, so it is compared bit for bit: to a float it
// rounds once to nearest even; float to integer truncates and saturates,
// with NaN giving 0; integer to integer wraps; anything to bool is "!= 0".
// Integers are carried as long double, which holds every int64 exactly.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

using namespace kiln;
using namespace kiln::test;

namespace {

using Exact = long double;

/// Source values for each dtype: boundaries of every other dtype, ties and
/// near-ties of f16 and bf16, and the IEEE special values.
std::vector<Exact> castSources(DType dtype) {
  const Exact p2 = 2;
  switch (dtype.kind()) {
  case DTypeKind::Bool:
    return {0, 1};
  case DTypeKind::U8:
    return {0, 1, 127, 128, 255};
  case DTypeKind::I8:
    return {-128, -1, 0, 1, 127};
  case DTypeKind::I16:
    return {-32768, -129, -128, -1, 0, 1, 127, 128, 255, 256, 32767};
  case DTypeKind::I32:
    return {-2147483648.0L, -70000, -129, -1, 0, 1, 127, 128, 255, 256, 65535,
            70000,
            // A bf16 tie after rounding to f32: must round up, not to even.
            std::pow(p2, 30) + std::pow(p2, 22) + 1, 2147483647};
  case DTypeKind::I64:
    return {-9223372036854775807.0L - 1, -std::pow(p2, 40) - 1, -70000, -129,
            -1, 0, 1, 127, 128, 255, 256, 65535, 70000,
            std::pow(p2, 30) + std::pow(p2, 22) + 1, std::pow(p2, 31),
            // Not exact in double either: needs more than 53 bits.
            std::pow(p2, 62) + std::pow(p2, 54) + 1, 9223372036854775807.0L};
  default: {
    std::vector<Exact> v = {
        -300.7, -129, -128.5, -1.5, -0.5, 0, 0.49, 1, 2.5, 127.5, 128, 255.9,
        256, 65504, 65520, 70000.25, 3e9, -3e9, 1e10, 1e20, -1e20, 1e-8, 3e-5,
        // Ties of f16 / bf16 once rounded to f32 (from f64 only).
        1 + std::pow(p2, -11) + std::pow(p2, -30),
        1 + std::pow(p2, -8) + std::pow(p2, -30), kNaN, kInf, -kInf};
    for (Exact &x : v)
      x = storedAs(dtype, x);
    return v;
  }
  }
}

Tensor exactTensor(const std::vector<Exact> &v, DType dtype) {
  DispatchDevice flex = DispatchDevice::flex();
  Shape shape{static_cast<int64_t>(v.size())};
  auto make = [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> out;
    for (Exact x : v)
      out.push_back(static_cast<T>(x));
    return DispatchTensor::fromVector<T>(out, shape, flex);
  };
  switch (dtype.kind()) {
  case DTypeKind::F64:
    return make(double());
  case DTypeKind::F32:
    return make(float());
  case DTypeKind::F16: {
    std::vector<Half> out;
    for (Exact x : v)
      out.push_back(Half::fromFloat(static_cast<float>(x)));
    return DispatchTensor::fromVector<Half>(out, shape, flex);
  }
  case DTypeKind::BF16: {
    std::vector<BFloat16> out;
    for (Exact x : v)
      out.push_back(BFloat16::fromFloat(static_cast<float>(x)));
    return DispatchTensor::fromVector<BFloat16>(out, shape, flex);
  }
  case DTypeKind::I64:
    return make(int64_t());
  case DTypeKind::I32:
    return make(int32_t());
  case DTypeKind::I16:
    return make(int16_t());
  case DTypeKind::I8:
    return make(int8_t());
  case DTypeKind::U8:
    return make(uint8_t());
  default: {
    std::vector<bool> out;
    for (Exact x : v)
      out.push_back(x != 0);
    return DispatchTensor::fromVector(out, shape, flex);
  }
  }
}

std::vector<Exact> exactValuesOf(const Tensor &t) {
  std::vector<Exact> out;
  auto read = [&](auto tag) {
    using T = decltype(tag);
    for (T x : t.toVector<T>())
      out.push_back(static_cast<Exact>(x));
  };
  switch (t.dtype().kind()) {
  case DTypeKind::I64:
    read(int64_t());
    break;
  case DTypeKind::I32:
    read(int32_t());
    break;
  case DTypeKind::I16:
    read(int16_t());
    break;
  case DTypeKind::I8:
    read(int8_t());
    break;
  case DTypeKind::U8:
    read(uint8_t());
    break;
  default:
    for (double x : valuesOf(t))
      out.push_back(x);
  }
  return out;
}

/// The reference cast of one exact value.
Exact castRef(Exact x, DType from, DType to) {
  if (to.isBool())
    return x != 0 || std::isnan(x) ? 1 : 0;
  if (to.isFloat())
    return storedAs(to, x);
  // To an integer.
  if (from.isFloat()) {
    if (std::isnan(x))
      return 0;
    int bits = intBits(to);
    Exact lo = to.kind() == DTypeKind::U8 ? 0 : -std::ldexp(1.0L, bits - 1);
    Exact hi =
        to.kind() == DTypeKind::U8 ? 255 : std::ldexp(1.0L, bits - 1) - 1;
    return std::min(hi, std::max(lo, std::trunc(x)));
  }
  return storedAs(to, x);
}

class CastTest : public ::testing::TestWithParam<DType> {};

TEST_P(CastTest, ToEveryDTypeIsExact) {
  DType from = GetParam();
  std::vector<Exact> src = castSources(from);
  for (DType to : allDTypes()) {
    SCOPED_TRACE(from.str() + " -> " + to.str());
    // Contiguous, and a flipped view (the strided loop).
    for (bool flipped : {false, true}) {
      Tensor x = exactTensor(src, from);
      if (flipped)
        x = flip(x, {0});
      Tensor y = cast(x, to);
      ASSERT_EQ(y.dtype(), to);
      std::vector<Exact> got = exactValuesOf(y);
      ASSERT_EQ(got.size(), src.size());
      for (size_t i = 0; i < src.size(); ++i) {
        Exact in = src[flipped ? src.size() - 1 - i : i];
        Exact want = castRef(in, from, to);
        if (std::isnan(want) && std::isnan(got[i]))
          continue;
        EXPECT_EQ(got[i], want) << "cast of " << static_cast<double>(in)
                                << (flipped ? " (flipped)" : "");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(FromEach, CastTest, ::testing::ValuesIn(allDTypes()),
                         [](const auto &info) { return info.param.str(); });

TEST(CastTest, SameDTypeIsTheSameHandle) {
  Tensor x = tensorOf({1, 2}, {2}, DType::F32, DispatchDevice::flex());
  Tensor y = cast(x, DType::F32);
  EXPECT_EQ(x.kind.node, y.kind.node);
}

} // namespace
