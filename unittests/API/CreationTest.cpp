//===- CreationTest.cpp - full, arange, eye, rand, randn ------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The random ops are checked bit for bit against the generator as
// include/kiln/Support/Random.h specifies it (written out again here from
// its description, so a change to either shows), then for their moments.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

using namespace kiln;
using namespace kiln::test;

namespace {

DispatchDevice flexDevice() { return DispatchDevice::flex(); }

TEST(CreationTest, FullZerosOnesScalarOnEveryDType) {
  for (DType dtype : allDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    double v = dtype.isBool() ? 1 : dtype.kind() == DTypeKind::U8 ? 200 : -3;
    Tensor f = DispatchTensor::full({2, 3}, v, dtype, flexDevice());
    ASSERT_EQ(f.dtype(), dtype);
    ASSERT_EQ(f.shape(), Shape({2, 3}));
    EXPECT_EQ(valuesOf(f), std::vector<double>(6, v));
    EXPECT_EQ(valuesOf(DispatchTensor::zeros({4}, dtype, flexDevice())),
              std::vector<double>(4, 0));
    EXPECT_EQ(valuesOf(DispatchTensor::ones({2, 1, 2}, dtype, flexDevice())),
              std::vector<double>(4, 1));
    Tensor s = DispatchTensor::scalar(v, dtype, flexDevice());
    EXPECT_EQ(s.rank(), 0u);
    EXPECT_EQ(valuesOf(s), std::vector<double>{v});
    EXPECT_EQ(valuesOf(DispatchTensor::full({0, 3}, v, dtype, flexDevice())),
              std::vector<double>{});
  }
  // The value rounds once to the dtype.
  for (DType dtype : floatDTypes())
    EXPECT_EQ(valuesOf(DispatchTensor::full({1}, 0.1, dtype, flexDevice()))[0],
              static_cast<double>(storedAs(dtype, 0.1)))
        << nameOf(dtype);
}

TEST(CreationTest, ArangeOnEveryNumericDType) {
  for (DType dtype : numericDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    EXPECT_EQ(valuesOf(DispatchTensor::arange(2, 11, 3, dtype, flexDevice())),
              (std::vector<double>{2, 5, 8}));
    EXPECT_EQ(valuesOf(DispatchTensor::arange(4, dtype, flexDevice())),
              (std::vector<double>{0, 1, 2, 3}));
    EXPECT_EQ(DispatchTensor::arange(3, 3, 1, dtype, flexDevice()).numel(), 0);
    if (dtype.kind() != DTypeKind::U8)
      EXPECT_EQ(
          valuesOf(DispatchTensor::arange(5, -2, -2, dtype, flexDevice())),
          (std::vector<double>{5, 3, 1, -1}));
  }
  for (DType dtype : floatDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    Tensor r = DispatchTensor::arange(0, 1, 0.25, dtype, flexDevice());
    EXPECT_EQ(valuesOf(r), (std::vector<double>{0, 0.25, 0.5, 0.75}));
    // Three elements, as numpy: ceil((0.3 - 0) / 0.1) even though 0.3 / 0.1
    // is 2.9999999999999996 in binary.
    Tensor t = DispatchTensor::arange(0, 0.3, 0.1, dtype, flexDevice());
    ASSERT_EQ(t.numel(), 3);
    EXPECT_TRUE(allClose(valuesOf(t), storedAll(dtype, {0, 0.1, 0.2}),
                         tolerance("kiln.arange", dtype)));
  }
}

TEST(CreationTest, EyeOnEveryDType) {
  for (DType dtype : allDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    EXPECT_EQ(valuesOf(DispatchTensor::eye(2, dtype, flexDevice())),
              (std::vector<double>{1, 0, 0, 1}));
    EXPECT_EQ(valuesOf(DispatchTensor::eye(2, 3, dtype, flexDevice())),
              (std::vector<double>{1, 0, 0, 0, 1, 0}));
    EXPECT_EQ(valuesOf(DispatchTensor::eye(3, 2, dtype, flexDevice())),
              (std::vector<double>{1, 0, 0, 1, 0, 0}));
    EXPECT_EQ(DispatchTensor::eye(0, 4, dtype, flexDevice()).numel(), 0);
  }
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

/// splitmix64's finalizer over seed * golden + index, top 32 bits.
uint32_t bitsRef(uint64_t seed, uint64_t index) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + index;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<uint32_t>(z >> 32);
}
double uniformRef(uint64_t seed, uint64_t i) {
  return std::ldexp(static_cast<double>(bitsRef(seed, i) >> 8), -24);
}
double normalRef(uint64_t seed, uint64_t i) {
  double u1 =
      std::ldexp(static_cast<double>(bitsRef(seed, 2 * i) >> 8) + 1, -24);
  double u2 =
      std::ldexp(static_cast<double>(bitsRef(seed, 2 * i + 1) >> 8), -24);
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
}

int significandBits(DType dtype) {
  switch (dtype.kind()) {
  case DTypeKind::F64:
    return 53;
  case DTypeKind::F32:
    return 24;
  case DTypeKind::F16:
    return 11;
  default:
    return 8;
  }
}

/// The uniform value in the dtype: low + (high - low) * u rounded once, and
/// where that rounds up onto `high`, the largest value of the dtype below it.
double uniformStored(DType dtype, uint64_t seed, uint64_t i, double low,
                     double high) {
  double v = static_cast<double>(
      storedAs(dtype, low + (high - low) * uniformRef(seed, i)));
  // Positive normal values: the gap below r is 2^(e-p+1), or half of that
  // when r is a power of two.
  while (v >= high) {
    int e = std::ilogb(v), p = significandBits(dtype);
    bool power = v == std::ldexp(1.0, e);
    v -= std::ldexp(1.0, e - p + (power ? 0 : 1));
  }
  return v;
}

struct Moments {
  double mean = 0, stddev = 0, lo = kInf, hi = -kInf;
};
Moments momentsOf(const std::vector<double> &v) {
  Moments m;
  for (double x : v) {
    m.mean += x;
    m.lo = std::min(m.lo, x);
    m.hi = std::max(m.hi, x);
  }
  m.mean /= v.size();
  for (double x : v)
    m.stddev += (x - m.mean) * (x - m.mean);
  m.stddev = std::sqrt(m.stddev / v.size());
  return m;
}

TEST(CreationTest, RandIsTheCounterBasedFormula) {
  const int64_t n = 40000;
  for (DType dtype : floatDTypes()) {
    for (auto [low, high] :
         {std::pair{0.0, 1.0}, std::pair{1.0, 2.0}, std::pair{-3.0, 5.0}}) {
      SCOPED_TRACE(nameOf(dtype) + " [" + std::to_string(low) + ", " +
                   std::to_string(high) + ")");
      Tensor a = DispatchTensor::rand({200, n / 200}, dtype, flexDevice(), 42,
                                      low, high);
      std::vector<double> v = valuesOf(a);
      int mismatches = 0;
      for (int64_t i = 0; i < n; ++i)
        if (v[i] != uniformStored(dtype, 42, i, low, high) && mismatches++ < 5)
          ADD_FAILURE() << "element " << i << ": " << v[i] << " vs "
                        << uniformStored(dtype, 42, i, low, high);
      Moments m = momentsOf(v);
      EXPECT_GE(m.lo, low);
      EXPECT_LT(m.hi, high);
      EXPECT_NEAR(m.mean, (low + high) / 2, 0.02 * (high - low));
      EXPECT_NEAR(m.stddev, (high - low) / std::sqrt(12.0),
                  0.02 * (high - low));
      // Same seed, same numbers; another seed, others.
      EXPECT_EQ(valuesOf(DispatchTensor::rand({n}, dtype, flexDevice(), 42, low,
                                              high)),
                v);
      EXPECT_NE(valuesOf(DispatchTensor::rand({n}, dtype, flexDevice(), 43, low,
                                              high)),
                v);
    }
  }
}

TEST(CreationTest, RandnIsTheCounterBasedFormula) {
  const int64_t n = 40000;
  for (DType dtype : floatDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    Tensor a = DispatchTensor::randn({n}, dtype, flexDevice(), 7, 1.5, 2.0);
    std::vector<double> v = valuesOf(a);
    int mismatches = 0;
    for (int64_t i = 0; i < n; ++i) {
      double want =
          static_cast<double>(storedAs(dtype, 1.5 + 2.0 * normalRef(7, i)));
      if (v[i] != want && mismatches++ < 5)
        ADD_FAILURE() << "element " << i << ": " << v[i] << " vs " << want;
    }
    Moments m = momentsOf(v);
    EXPECT_NEAR(m.mean, 1.5, 0.05);
    EXPECT_NEAR(m.stddev, 2.0, 0.05);
    EXPECT_EQ(
        valuesOf(DispatchTensor::randn({n}, dtype, flexDevice(), 7, 1.5, 2.0)),
        v);
  }
}

} // namespace
