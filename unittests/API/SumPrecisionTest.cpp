//===- SumPrecisionTest.cpp - Long float sums against f64 -----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Float sums of up to 2^26 elements, on Flex and Cpu, against the same sum
// in f64 of the same f32 values. The bound grows like sqrt(n) * eps: one
// f32 accumulator gains an error of up to n * eps, which is what long sums
// showed (a mean of 2^25 ones was 0.5, a fused (x * b).sum() 3.7% low).
// Splat and broadcast inputs, fused products and both row and column
// reductions are covered, since each takes its own path through the
// backends.
//
//===----------------------------------------------------------------------===//

#include "HostDevices.h"
#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

using namespace kiln;
using kiln::test::hostDevices;

namespace {

constexpr double kEps = std::numeric_limits<float>::epsilon();

/// |got - want| <= 4 sqrt(n) eps |want| (plus the final rounding to f32).
void expectSum(double got, double want, int64_t n) {
  double bound = (4.0 * std::sqrt(double(n)) + 1.0) * kEps * std::abs(want);
  EXPECT_NEAR(got, want, bound) << "n = " << n;
}

TEST(SumPrecisionTest, SplatsOfUpTo2To26) {
  for (const DispatchDevice &dev : hostDevices()) {
    SCOPED_TRACE(dev.str());
    for (int64_t n : {int64_t(1) << 20, int64_t(1) << 25, int64_t(1) << 26}) {
      DispatchTensor ones = DispatchTensor::ones({n}, DType::F32, dev);
      expectSum(ones.mean().item<float>(), 1.0, n);
      DispatchTensor tenth = DispatchTensor::full({n}, 0.1, DType::F32, dev);
      expectSum(tenth.sum().item<float>(), double(0.1f) * double(n), n);
    }
    DispatchTensor million =
        DispatchTensor::full({1000000}, 0.1, DType::F32, dev);
    expectSum(million.sum().item<float>(), double(0.1f) * 1e6, 1000000);
  }
}

TEST(SumPrecisionTest, RandomDataOf2To26) {
  const int64_t n = int64_t(1) << 26;
  DispatchTensor x =
      DispatchTensor::rand({n}, DType::F32, DispatchDevice::flex(), 11, 0, 1);
  double want = 0;
  for (float v : x.toVector<float>())
    want += v;
  for (const DispatchDevice &dev : hostDevices()) {
    SCOPED_TRACE(dev.str());
    DispatchTensor on = x.to(dev);
    expectSum(on.sum().item<float>(), want, n);
    expectSum(on.mean().item<float>(), want / double(n), n);
  }
}

/// (x * b).sum() with b broadcast along x's rows, fused into the reduction
/// on Cpu.
TEST(SumPrecisionTest, AFusedProductWithABroadcastOperand) {
  const int64_t rows = 4096, cols = 1024, n = rows * cols;
  for (const DispatchDevice &dev : hostDevices()) {
    SCOPED_TRACE(dev.str());
    DispatchTensor x = DispatchTensor::full({rows, cols}, 0.3, DType::F32, dev);
    DispatchTensor b = DispatchTensor::full({cols}, 0.7, DType::F32, dev);
    double each = double(0.3f * 0.7f);
    expectSum((x * b).sum().item<float>(), each * double(n), n);

    DispatchTensor rx =
        DispatchTensor::rand({rows, cols}, DType::F32, dev, 3, -1, 1);
    DispatchTensor rb = DispatchTensor::rand({cols}, DType::F32, dev, 4, -1, 1);
    std::vector<float> xv = rx.toVector<float>(), bv = rb.toVector<float>();
    double dot = 0, mse = 0, absDot = 0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        float p = xv[i * cols + j] * bv[j];
        float d = xv[i * cols + j] - bv[j];
        dot += p;
        absDot += std::abs(p);
        mse += double(d * d);
      }
    mse /= double(n);
    // A sum of mixed signs is bounded by the sum of magnitudes.
    double got = (rx * rb).sum().item<float>();
    EXPECT_NEAR(got, dot, (4.0 * std::sqrt(double(n)) + 1.0) * kEps * absDot);
    DispatchTensor d = rx - rb;
    expectSum((d * d).mean().item<float>(), mse, n);
  }
}

/// Reductions over leading axes (per column) and over trailing ones (per
/// row), long enough that one f32 accumulator would drift.
TEST(SumPrecisionTest, LongColumnsAndRows) {
  for (const DispatchDevice &dev : hostDevices()) {
    SCOPED_TRACE(dev.str());
    const int64_t len = int64_t(1) << 22;
    DispatchTensor cols = DispatchTensor::full({len, 4}, 0.1, DType::F32, dev);
    for (float v : cols.sum(0).toVector<float>())
      expectSum(v, double(0.1f) * double(len), len);
    DispatchTensor rows = DispatchTensor::full({4, len}, 0.1, DType::F32, dev);
    DispatchTensor scale = DispatchTensor::full({4, 1}, 3.0, DType::F32, dev);
    for (float v : (rows * scale).sum(1).toVector<float>())
      expectSum(v, double(0.1f * 3.0f) * double(len), len);
  }
}

} // namespace
