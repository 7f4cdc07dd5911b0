//===- FlexQuantTest.cpp - quantize and dequantize on Flex vs references --===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "FlexTestData.h"
#include "NumericTest.h"

#include <algorithm>
#include <cstring>

using namespace kiln;
using namespace kiln::test;

namespace {

DispatchDevice flex() { return DispatchDevice::flex(); }

/// `v` rounded to a scale dtype the way Flex stores it (through f32 for the
/// half types).
double roundScale(double v, DTypeKind kind) {
  float f = static_cast<float>(v);
  switch (kind) {
  case DTypeKind::F64:
    return v;
  case DTypeKind::F16:
    return Half::fromFloat(f).toFloat();
  case DTypeKind::BF16:
    return BFloat16::fromFloat(f).toFloat();
  default:
    return f;
  }
}

struct Quantized {
  std::vector<int> levels;
  std::vector<double> values; ///< scale * level
};

/// Symmetric quantization: scale = max|x| / maxLevel per block (1 where
/// that is 0), level = clamp(round_half_even(x / scale)).
Quantized referenceQuantize(const std::vector<double> &x, QuantScheme s) {
  const int64_t n = static_cast<int64_t>(x.size());
  const int64_t block = s.isPerTensor() ? n : s.blockSize;
  const double maxLevel = s.maxLevel();
  Quantized q;
  for (int64_t b = 0; b < n; b += block) {
    double amax = 0;
    for (int64_t k = b; k < b + block; ++k)
      amax = std::max(amax, std::fabs(x[k]));
    double scale = roundScale(amax / maxLevel, s.scale);
    if (!(scale > 0))
      scale = 1;
    for (int64_t k = b; k < b + block; ++k) {
      double level =
          std::clamp(std::nearbyint(x[k] / scale), -maxLevel, maxLevel);
      q.levels.push_back(static_cast<int>(level));
      q.values.push_back(scale * level);
    }
  }
  return q;
}

/// Values with more precision than the quantized levels, so that rounding
/// happens; read back after rounding to `dt`.
Tensor inputOf(std::vector<int64_t> shape, DType dt, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::vector<double> v(static_cast<size_t>(numelOf(shape)));
  for (double &x : v)
    x = u(gen);
  return tensorOf(v, Shape(shape), dt, flex());
}

void expectRoundTrip(const Tensor &x, QuantScheme s, DType out,
                     const std::string &what) {
  Tensor q = quantize(x, s);
  EXPECT_EQ(q.dtype(), DType::QFloat(s));
  std::vector<double> got = valuesOf(dequantize(q, out));
  std::vector<double> want = referenceQuantize(valuesOf(x), s).values;
  EXPECT_TRUE(allClose(got, want, tolerance("kiln.dequantize", out)))
      << what << ": " << x.dtype().str() << " -> " << s.str() << " -> "
      << out.str();
}

TEST(FlexQuant, RoundTripEveryCombination) {
  const DTypeKind scaleKinds[] = {DTypeKind::F64, DTypeKind::F32,
                                  DTypeKind::F16, DTypeKind::BF16};
  for (DType dt : floatDTypes())
    for (DTypeKind sk : scaleKinds) {
      Tensor x = inputOf({3, 24}, dt, 1);
      for (QuantScheme s :
           {QuantScheme::q8PerTensor(sk), QuantScheme::q8Block(8, sk),
            QuantScheme::q4Block(4, sk), QuantScheme::q4Block(3, sk),
            QuantScheme{QuantScheme::Values::Q4, 0, sk}}) {
        expectRoundTrip(x, s, dt, "[3, 24]");
        expectRoundTrip(x, s, DType::F32, "[3, 24] to f32");
      }
      // An odd number of q4 values, in odd blocks.
      Tensor odd = inputOf({1, 9}, dt, 2);
      expectRoundTrip(odd, QuantScheme::q4Block(3, sk), dt, "[1, 9]");
      expectRoundTrip(odd, QuantScheme{QuantScheme::Values::Q4, 0, sk},
                      DType::F64, "[1, 9] per tensor");
    }
}

/// The bytes a quantized tensor stores.
std::vector<uint8_t> storedBytes(const Tensor &q, size_t count) {
  BackendTensor b = q.try_into_backend<Flex>();
  const auto *p = static_cast<const uint8_t *>(b.data());
  return std::vector<uint8_t>(p, p + count);
}

// Levels round half to even, and q4 packs element 2k into the low nibble.
TEST(FlexQuant, StoredLevels) {
  // max|x| = 7 makes the q4 scale exactly 1.
  std::vector<double> x{-7, -3, 0, 2, 7, 5, -1};
  Tensor t = tensorOf(x, {7}, DType::F32, flex());
  QuantScheme q4{QuantScheme::Values::Q4, 0, DTypeKind::F32};
  std::vector<int> levels = referenceQuantize(x, q4).levels;
  EXPECT_EQ(levels, (std::vector<int>{-7, -3, 0, 2, 7, 5, -1}));
  std::vector<uint8_t> want;
  for (size_t k = 0; k < levels.size(); k += 2) {
    int hi = k + 1 < levels.size() ? levels[k + 1] : 0;
    want.push_back(static_cast<uint8_t>((levels[k] & 0xF) | ((hi & 0xF) << 4)));
  }
  EXPECT_EQ(storedBytes(quantize(t, q4), want.size()), want);

  Tensor ties =
      tensorOf({0.5, 1.5, 2.5, -0.5, -2.5, 127}, {6}, DType::F32, flex());
  std::vector<uint8_t> bytes =
      storedBytes(quantize(ties, QuantScheme::q8PerTensor()), 6);
  std::vector<int> got;
  for (uint8_t b : bytes)
    got.push_back(static_cast<int8_t>(b));
  EXPECT_EQ(got, (std::vector<int>{0, 2, 2, 0, -2, 127}));
}

TEST(FlexQuant, ZeroBlocksDequantizeToZero) {
  std::vector<double> x{0, 0, 0, 0, 1, -2, 0.5, 3};
  for (QuantScheme s :
       {QuantScheme::q8Block(4), QuantScheme::q4Block(4, DTypeKind::F16)}) {
    Tensor q = quantize(tensorOf(x, {2, 4}, DType::F32, flex()), s);
    std::vector<double> got = valuesOf(dequantize(q));
    EXPECT_EQ(std::vector<double>(got.begin(), got.begin() + 4),
              std::vector<double>(4, 0.0));
    EXPECT_TRUE(allClose(got, referenceQuantize(x, s).values,
                         tolerance("kiln.dequantize", DType::F32)));
  }
  Tensor zeros = DispatchTensor::zeros({5}, DType::F32, flex());
  EXPECT_EQ(valuesOf(dequantize(quantize(zeros, QuantScheme::q8PerTensor()))),
            std::vector<double>(5, 0.0));
}

TEST(FlexQuant, StridedInput) {
  for (DType dt : {DType::F32, DType::BF16}) {
    Tensor x = transpose(inputOf({8, 6}, dt, 3), 0, 1);
    expectRoundTrip(x, QuantScheme::q4Block(4), DType::F32, "transposed");
    expectRoundTrip(x, QuantScheme::q8PerTensor(DTypeKind::BF16), dt,
                    "transposed");
  }
}

// Large tensors: the per-tensor maximum and the levels are split across
// threads.
TEST(FlexQuant, LargeTensors) {
  Tensor x = inputOf({400, 500}, DType::F32, 4);
  expectRoundTrip(x, QuantScheme::q8PerTensor(), DType::F32, "per tensor");
  expectRoundTrip(x, QuantScheme::q4Block(25), DType::F16, "q4 blocks");
}

} // namespace
