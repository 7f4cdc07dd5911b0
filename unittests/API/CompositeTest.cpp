//===- CompositeTest.cpp - Ops that kiln-decompose rewrites ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// layer_norm, dropout, mask_fill, embedding and cross_entropy run on Flex as
// the primitives kiln-decompose turns them into; the references here are
// the ops' definitions, in double. (silu, mean, softmax, log_softmax and
// logsumexp are in the elementwise and reduction tables.)
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

using namespace kiln;
using namespace kiln::test;

namespace {

DispatchDevice flexDevice() { return DispatchDevice::flex(); }

TEST(CompositeTest, LayerNorm) {
  const int64_t rows = 3, cols = 7;
  for (DType dtype : floatDTypes()) {
    std::vector<double> x = storedAll(
        dtype, cycle({-3.5, -2, -0.75, 0, 0.5, 1, 2.25, 4, 5.5}, rows * cols));
    std::vector<double> w = storedAll(dtype, cycle({0.5, 1, -2, 1.5}, cols));
    std::vector<double> b = storedAll(dtype, cycle({0, 0.25, -1}, cols));
    for (int variant = 0; variant < 4; ++variant) {
      bool hasW = variant & 1, hasB = variant & 2;
      SCOPED_TRACE(nameOf(dtype) + (hasW ? " weight" : "") +
                   (hasB ? " bias" : ""));
      std::vector<double> want;
      for (int64_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (int64_t c = 0; c < cols; ++c)
          mean += x[r * cols + c] / cols;
        for (int64_t c = 0; c < cols; ++c)
          var += (x[r * cols + c] - mean) * (x[r * cols + c] - mean) / cols;
        for (int64_t c = 0; c < cols; ++c) {
          double y = (x[r * cols + c] - mean) / std::sqrt(var + 1e-5);
          want.push_back(y * (hasW ? w[c] : 1) + (hasB ? b[c] : 0));
        }
      }
      std::optional<Tensor> wt, bt;
      if (hasW)
        wt = tensorOf(w, {cols}, dtype, flexDevice());
      if (hasB)
        bt = tensorOf(b, {cols}, dtype, flexDevice());
      // A transposed input: the normalized axis is strided.
      Tensor y =
          layerNorm(viewOf(x, {rows, cols}, dtype, variant % 2), wt, bt, 1e-5);
      ASSERT_EQ(y.shape(), Shape({rows, cols}));
      EXPECT_TRUE(
          allClose(valuesOf(y), want, tolerance("kiln.layer_norm", dtype)));
    }
  }
}

TEST(CompositeTest, DropoutKeepsWhereTheUniformIsAtLeastP) {
  const int64_t n = 20000;
  const uint64_t seed = 11;
  for (DType dtype : floatDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    std::vector<double> x = storedAll(dtype, cycle({1, -2, 0.5, 3}, n));
    Tensor t = tensorOf(x, {n}, dtype, flexDevice());
    EXPECT_EQ(valuesOf(dropout(t, 0.0, seed)), x) << "p = 0 is the identity";
    double p = 0.25;
    // The mask is the rand op on x's dtype and shape with the same seed:
    // kept where u >= p, scaled by 1 / (1 - p).
    std::vector<double> u = valuesOf(
        DispatchTensor::rand({n}, dtype, flexDevice(), seed, 0.0, 1.0));
    double pd = static_cast<double>(storedAs(dtype, p));
    double scale = static_cast<double>(storedAs(dtype, 1 / (1 - p)));
    std::vector<double> want;
    int64_t kept = 0;
    for (int64_t i = 0; i < n; ++i) {
      bool keep = u[i] >= pd;
      kept += keep;
      want.push_back(keep ? static_cast<double>(storedAs(dtype, x[i] * scale))
                          : 0.0);
    }
    EXPECT_EQ(valuesOf(dropout(t, p, seed)), want);
    EXPECT_NEAR(double(kept) / n, 1 - p, 0.02);
    EXPECT_NE(valuesOf(dropout(t, p, seed + 1)), want);
  }
}

TEST(CompositeTest, MaskFillBroadcastsTheMaskOnEveryDType) {
  for (DType dtype : allDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    std::vector<double> x = storedAll(dtype, cycle(sampleValues(dtype), 12));
    std::vector<double> m{1, 0, 0, 1};
    double fill = dtype.isBool() ? 1 : 7;
    Tensor mask = tensorOf(m, {4}, DType::Bool, flexDevice());
    for (int layout : {0, 1, 2}) {
      Tensor y = maskFill(viewOf(x, {3, 4}, dtype, layout), mask, fill);
      std::vector<double> want = x;
      for (int i = 0; i < 12; ++i)
        if (m[i % 4])
          want[i] = fill;
      EXPECT_EQ(valuesOf(y), want) << layoutName(layout);
    }
  }
}

TEST(CompositeTest, Embedding) {
  for (DType dtype : floatDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    std::vector<double> w =
        storedAll(dtype, cycle({0.5, -1, 2, 3.5, -0.25}, 15));
    Tensor weight = tensorOf(w, {5, 3}, dtype, flexDevice());
    Tensor idx =
        DispatchTensor::fromVector<int64_t>({4, 0, 2, 2}, {2, 2}, flexDevice());
    Tensor y = embedding(weight, idx);
    ASSERT_EQ(y.shape(), Shape({2, 2, 3}));
    std::vector<double> want;
    for (int64_t r : {4, 0, 2, 2})
      for (int c = 0; c < 3; ++c)
        want.push_back(w[r * 3 + c]);
    EXPECT_EQ(valuesOf(y), want);
  }
}

TEST(CompositeTest, CrossEntropy) {
  for (DType dtype : floatDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    const int64_t n = 4, c = 5;
    std::vector<double> logits =
        storedAll(dtype, cycle({-1, 2, 0.5, 3, -2.5, 1.25, 0}, n * c));
    std::vector<int64_t> labels{0, 4, 2, 3};
    double want = 0;
    for (int64_t i = 0; i < n; ++i) {
      double m = -kInf, s = 0;
      for (int64_t j = 0; j < c; ++j)
        m = std::max(m, logits[i * c + j]);
      for (int64_t j = 0; j < c; ++j)
        s += std::exp(logits[i * c + j] - m);
      want -= (logits[i * c + labels[i]] - m - std::log(s)) / n;
    }
    Tensor l = tensorOf(logits, {n, c}, dtype, flexDevice());
    Tensor y = crossEntropy(
        l, DispatchTensor::fromVector<int64_t>(labels, {n}, flexDevice()));
    EXPECT_EQ(y.rank(), 0u);
    EXPECT_TRUE(
        allClose(valuesOf(y), {want}, tolerance("kiln.cross_entropy", dtype)));
  }
}

} // namespace
