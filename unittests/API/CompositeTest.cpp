//===- CompositeTest.cpp - Ops that kiln-decompose rewrites ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// layer_norm, dropout, mask_fill, embedding, cross_entropy, batch_norm,
// group_norm and adaptive pooling run on Flex as
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

TEST(CompositeTest, RmsNorm) {
  const int64_t rows = 3, cols = 7;
  for (DType dtype : floatDTypes()) {
    std::vector<double> x = storedAll(
        dtype, cycle({-3.5, -2, -0.75, 0, 0.5, 1, 2.25, 4, 5.5}, rows * cols));
    std::vector<double> w = storedAll(dtype, cycle({0.5, 1, -2, 1.5}, cols));
    for (bool hasW : {false, true}) {
      SCOPED_TRACE(nameOf(dtype) + (hasW ? " weight" : ""));
      std::vector<double> want;
      for (int64_t r = 0; r < rows; ++r) {
        double ms = 0;
        for (int64_t c = 0; c < cols; ++c)
          ms += x[r * cols + c] * x[r * cols + c] / cols;
        for (int64_t c = 0; c < cols; ++c)
          want.push_back(x[r * cols + c] / std::sqrt(ms + 1e-6) *
                         (hasW ? w[c] : 1));
      }
      std::optional<Tensor> wt;
      if (hasW)
        wt = tensorOf(w, {cols}, dtype, flexDevice());
      // A transposed input when there is a weight: the normalized axis is
      // strided.
      Tensor y = rmsNorm(viewOf(x, {rows, cols}, dtype, hasW), wt, 1e-6);
      ASSERT_EQ(y.shape(), Shape({rows, cols}));
      EXPECT_TRUE(
          allClose(valuesOf(y), want, tolerance("kiln.rms_norm", dtype)));
    }
  }
}

/// Rope by its definition: pair (a, b) of row t turns by (t + offset) *
/// theta^(-2k / D).
std::vector<double> ropeReference(const std::vector<double> &x, int64_t rows,
                                  int64_t t, int64_t d, double theta,
                                  int64_t offset, bool interleaved) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < d / 2; ++k) {
      int64_t ia = interleaved ? 2 * k : k;
      int64_t ib = interleaved ? 2 * k + 1 : k + d / 2;
      double angle = static_cast<double>(r % t + offset) *
                     std::pow(theta, -2.0 * static_cast<double>(k) / d);
      double a = x[r * d + ia], b = x[r * d + ib];
      y[r * d + ia] = a * std::cos(angle) - b * std::sin(angle);
      y[r * d + ib] = b * std::cos(angle) + a * std::sin(angle);
    }
  return y;
}

TEST(CompositeTest, RopeTurnsEachPairByItsPositionsAngle) {
  const int64_t batch = 2, t = 5, d = 8;
  for (DType dtype : floatDTypes()) {
    std::vector<double> x =
        storedAll(dtype, cycle({-1.5, -1, -0.25, 0, 0.5, 1, 1.25, 2, 0.75},
                               batch * t * d));
    for (bool interleaved : {false, true})
      for (int64_t offset : {0, 7}) {
        SCOPED_TRACE(nameOf(dtype) + (interleaved ? " interleaved" : "") +
                     " offset " + std::to_string(offset));
        std::optional<Tensor> o;
        if (offset)
          o = DispatchTensor::fromVector<int64_t>({offset}, {}, flexDevice());
        Tensor y = rope(tensorOf(x, {batch, t, d}, dtype, flexDevice()), 100.0,
                        o, interleaved);
        ASSERT_EQ(y.shape(), Shape({batch, t, d}));
        // Angles are f32 (f64 for f64): up to 7 * 2^-24 radians off.
        Tolerance tol = tolerance("kiln.rope", dtype);
        EXPECT_TRUE(allClose(
            valuesOf(y),
            ropeReference(x, batch * t, t, d, 100.0, offset, interleaved),
            tol));
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

TEST(CompositeTest, DropoutAddsItsRunTimeOffsetToTheSeed) {
  for (DType dtype : floatDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    Tensor t =
        tensorOf(cycle({1, -2, 0.5, 3}, 999), {999}, dtype, flexDevice());
    for (int64_t offset : {0, 4, -2}) {
      Tensor o =
          DispatchTensor::fromVector<int64_t>({offset}, {}, flexDevice());
      EXPECT_EQ(valuesOf(dropout(t, 0.5, 9, o)),
                valuesOf(dropout(t, 0.5, 9 + offset)))
          << "offset " << offset;
    }
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

TEST(CompositeTest, CrossEntropyOptionsAndRank3Logits) {
  // Logits [N, C, D] = [2, 4, 3]; labels [2, 3] with two ignored (-1).
  const int64_t n = 2, c = 4, d = 3;
  std::vector<int64_t> labels{0, -1, 3, 2, 1, -1};
  for (DType dtype : floatDTypes()) {
    std::vector<double> logits =
        storedAll(dtype, cycle({-1, 2, 0.5, 3, -2.5, 1.25, 0}, n * c * d));
    for (double e : {0.0, 0.2})
      for (LossReduction red :
           {LossReduction::None, LossReduction::Sum, LossReduction::Mean}) {
        SCOPED_TRACE(nameOf(dtype) + " smoothing " + std::to_string(e) +
                     " reduction " + std::to_string(int(red)));
        std::vector<double> each;
        double total = 0, counted = 0;
        for (int64_t i = 0; i < n; ++i)
          for (int64_t k = 0; k < d; ++k) {
            auto at = [&](int64_t j) { return logits[(i * c + j) * d + k]; };
            double m = -kInf, s = 0;
            for (int64_t j = 0; j < c; ++j)
              m = std::max(m, at(j));
            for (int64_t j = 0; j < c; ++j)
              s += std::exp(at(j) - m);
            double lse = m + std::log(s), uniform = 0;
            for (int64_t j = 0; j < c; ++j)
              uniform += (lse - at(j)) / c;
            int64_t t = labels[i * d + k];
            double loss = t < 0 ? 0 : (1 - e) * (lse - at(t)) + e * uniform;
            each.push_back(loss);
            total += loss;
            counted += t >= 0;
          }
        CrossEntropyOptions o;
        o.ignoreIndex = -1;
        o.labelSmoothing = e;
        o.reduction = red;
        Tensor y = crossEntropy(
            tensorOf(logits, {n, c, d}, dtype, flexDevice()),
            DispatchTensor::fromVector<int64_t>(labels, {n, d}, flexDevice()),
            o);
        std::vector<double> want = red == LossReduction::None ? each
                                   : red == LossReduction::Sum
                                       ? std::vector<double>{total}
                                       : std::vector<double>{total / counted};
        EXPECT_EQ(y.shape(),
                  red == LossReduction::None ? Shape({n, d}) : Shape({}));
        EXPECT_TRUE(allClose(valuesOf(y), want,
                             tolerance("kiln.cross_entropy", dtype)));
      }
  }
}

/// Per-channel mean and biased variance of an [N, C, S] tensor.
void channelStats(const std::vector<double> &x, int64_t n, int64_t c,
                  int64_t sp, std::vector<double> &mean,
                  std::vector<double> &var) {
  mean.assign(c, 0);
  var.assign(c, 0);
  double count = double(n * sp);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t p = 0; p < sp; ++p)
        mean[k] += x[(i * c + k) * sp + p] / count;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t p = 0; p < sp; ++p) {
        double d = x[(i * c + k) * sp + p] - mean[k];
        var[k] += d * d / count;
      }
}

TEST(CompositeTest, BatchNormTrainingAndItsRunningStatistics) {
  const int64_t n = 3, c = 2, sp = 5;
  for (DType dtype : floatDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    std::vector<double> x = storedAll(
        dtype,
        cycle({-3.5, -2, -0.75, 0, 0.5, 1, 2.25, 4, 5.5, 1.5, -1}, n * c * sp));
    std::vector<double> w = storedAll(dtype, {0.5, -2}),
                        b = storedAll(dtype, {0.25, -1}),
                        rm = storedAll(dtype, {1, -1}),
                        rv = storedAll(dtype, {2, 0.5});
    std::vector<double> mean, var;
    channelStats(x, n, c, sp, mean, var);
    std::vector<double> want;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < c; ++k)
        for (int64_t p = 0; p < sp; ++p)
          want.push_back((x[(i * c + k) * sp + p] - mean[k]) /
                             std::sqrt(var[k] + 1e-5) * w[k] +
                         b[k]);
    double m = 0.25, count = double(n * sp);
    std::vector<double> wantMean, wantVar;
    for (int64_t k = 0; k < c; ++k) {
      wantMean.push_back((1 - m) * rm[k] + m * mean[k]);
      wantVar.push_back((1 - m) * rv[k] + m * var[k] * count / (count - 1));
    }
    Tensor runningMean = tensorOf(rm, {c}, dtype, flexDevice());
    Tensor runningVar = tensorOf(rv, {c}, dtype, flexDevice());
    Tensor y = batchNormTraining(tensorOf(x, {n, c, sp}, dtype, flexDevice()),
                                 &runningMean, &runningVar,
                                 tensorOf(w, {c}, dtype, flexDevice()),
                                 tensorOf(b, {c}, dtype, flexDevice()), m);
    Tolerance tol = tolerance("kiln.layer_norm", dtype);
    EXPECT_TRUE(allClose(valuesOf(y), want, tol));
    EXPECT_TRUE(allClose(valuesOf(runningMean), wantMean, tol));
    EXPECT_TRUE(allClose(valuesOf(runningVar), wantVar, tol));
    // Evaluation mode: the given statistics, not the batch's.
    Tensor e = batchNorm(tensorOf(x, {n, c, sp}, dtype, flexDevice()),
                         tensorOf(rm, {c}, dtype, flexDevice()),
                         tensorOf(rv, {c}, dtype, flexDevice()), std::nullopt,
                         std::nullopt);
    std::vector<double> wantEval;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < c; ++k)
        for (int64_t p = 0; p < sp; ++p)
          wantEval.push_back((x[(i * c + k) * sp + p] - rm[k]) /
                             std::sqrt(rv[k] + 1e-5));
    EXPECT_TRUE(allClose(valuesOf(e), wantEval, tol));
  }
}

TEST(CompositeTest, GroupNorm) {
  const int64_t n = 2, c = 4, sp = 3, groups = 2;
  for (DType dtype : floatDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    std::vector<double> x = storedAll(
        dtype, cycle({-3.5, -2, -0.75, 0, 0.5, 1, 2.25, 4, 5.5}, n * c * sp));
    std::vector<double> w = storedAll(dtype, {0.5, -2, 1, 1.5});
    // Group g of sample i is the contiguous run of its channels
    // [g * c / groups, (g + 1) * c / groups).
    std::vector<double> want;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < c; ++k) {
        int64_t g = i * groups + k / (c / groups);
        double mu = 0, v = 0;
        for (int64_t j = 0; j < c / groups * sp; ++j)
          mu += x[g * (c / groups * sp) + j] / double(c / groups * sp);
        for (int64_t j = 0; j < c / groups * sp; ++j) {
          double d = x[g * (c / groups * sp) + j] - mu;
          v += d * d / double(c / groups * sp);
        }
        for (int64_t p = 0; p < sp; ++p)
          want.push_back((x[(i * c + k) * sp + p] - mu) / std::sqrt(v + 1e-5) *
                         w[k]);
      }
    Tensor y = groupNorm(tensorOf(x, {n, c, sp}, dtype, flexDevice()), groups,
                         tensorOf(w, {c}, dtype, flexDevice()));
    EXPECT_TRUE(
        allClose(valuesOf(y), want, tolerance("kiln.layer_norm", dtype)));
  }
}

/// PyTorch's adaptive pooling by its definition: output cell i of size
/// `out` over `in` covers [floor(i * in / out), ceil((i + 1) * in / out)).
std::vector<double> adaptivePoolReference(const std::vector<double> &x,
                                          int64_t planes, int64_t h, int64_t w,
                                          int64_t oh, int64_t ow, bool max) {
  std::vector<double> out;
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        int64_t h0 = i * h / oh, h1 = ((i + 1) * h + oh - 1) / oh;
        int64_t w0 = j * w / ow, w1 = ((j + 1) * w + ow - 1) / ow;
        double acc = max ? -kInf : 0;
        for (int64_t a = h0; a < h1; ++a)
          for (int64_t b = w0; b < w1; ++b) {
            double v = x[(p * h + a) * w + b];
            acc = max ? std::max(acc, v) : acc + v;
          }
        out.push_back(max ? acc : acc / double((h1 - h0) * (w1 - w0)));
      }
  return out;
}

TEST(CompositeTest, AdaptivePooling) {
  const int64_t n = 2, c = 3, h = 5, w = 7;
  for (DType dtype : floatDTypes()) {
    std::vector<double> x = storedAll(
        dtype, cycle({-3.5, -2, -0.75, 0, 0.5, 1, 2.25, 4, 5.5, 1.5, -1, 3},
                     n * c * h * w));
    Tensor t = tensorOf(x, {n, c, h, w}, dtype, flexDevice());
    for (auto [oh, ow] : std::vector<std::pair<int64_t, int64_t>>{
             {1, 1}, {5, 7}, {3, 2}, {2, 4}, {4, 3}, {8, 9}}) {
      SCOPED_TRACE(nameOf(dtype) + " to " + std::to_string(oh) + "x" +
                   std::to_string(ow));
      Tensor avg = adaptiveAvgPool2d(t, {oh, ow});
      ASSERT_EQ(avg.shape(), Shape({n, c, oh, ow}));
      EXPECT_TRUE(allClose(valuesOf(avg),
                           adaptivePoolReference(x, n * c, h, w, oh, ow, false),
                           tolerance("kiln.mean", dtype)));
      EXPECT_EQ(valuesOf(adaptiveMaxPool2d(t, {oh, ow})),
                adaptivePoolReference(x, n * c, h, w, oh, ow, true));
    }
  }
}

TEST(CompositeTest, ConvTransposeScattersEachInputByTheWeight) {
  // y[n, g * og + o, i * s - p + a * d, ...] += x[n, g * ig + c, i, ...] *
  // w[g * ig + c, o, a, ...]: the definition, in double.
  const int64_t n = 2, cin = 4, h = 3, w = 4, og = 2, k = 3, groups = 2;
  const int64_t sh = 2, sw = 1, ph = 1, pw = 0, oph = 1, opw = 0, dh = 1,
                dw = 2;
  const int64_t ig = cin / groups, cout = og * groups;
  const int64_t oh = (h - 1) * sh - 2 * ph + dh * (k - 1) + oph + 1;
  const int64_t ow = (w - 1) * sw - 2 * pw + dw * (k - 1) + opw + 1;
  std::vector<double> x = cycle({-1.5, 0.5, 2, -0.25, 1, 3}, n * cin * h * w);
  std::vector<double> wt = cycle({0.5, -1, 0.25, 2, -0.75}, cin * og * k * k);
  std::vector<double> bias = {0.5, -1, 2, 0.25};
  std::vector<double> want(n * cout * oh * ow, 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ci = 0; ci < cin; ++ci)
      for (int64_t o = 0; o < og; ++o)
        for (int64_t i = 0; i < h; ++i)
          for (int64_t j = 0; j < w; ++j)
            for (int64_t a = 0; a < k; ++a)
              for (int64_t c = 0; c < k; ++c) {
                int64_t y = i * sh - ph + a * dh, z = j * sw - pw + c * dw;
                if (y < 0 || y >= oh || z < 0 || z >= ow)
                  continue;
                int64_t co = (ci / ig) * og + o;
                want[((b * cout + co) * oh + y) * ow + z] +=
                    x[((b * cin + ci) * h + i) * w + j] *
                    wt[((ci * og + o) * k + a) * k + c];
              }
  for (int64_t b = 0; b < n; ++b)
    for (int64_t co = 0; co < cout; ++co)
      for (int64_t e = 0; e < oh * ow; ++e)
        want[(b * cout + co) * oh * ow + e] += bias[co];
  for (DType dtype : floatDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    Tensor y =
        convTranspose2d(tensorOf(x, {n, cin, h, w}, dtype, flexDevice()),
                        tensorOf(wt, {cin, og, k, k}, dtype, flexDevice()),
                        tensorOf(bias, {cout}, dtype, flexDevice()),
                        {{sh, sw}, {ph, pw}, {oph, opw}, {dh, dw}, groups});
    ASSERT_EQ(y.shape(), Shape({n, cout, oh, ow}));
    EXPECT_TRUE(allClose(valuesOf(y), want, tolerance("kiln.conv2d", dtype)));
  }
}

/// PyTorch's pooling by its definition over one [H, W] plane (W = 1 and
/// H the length for 1-D): values, first-maximum indices, or averages.
struct PoolReference {
  int64_t h, w, kh, kw, sh, sw, ph, pw, dh, dw;
  bool ceil, countPad;
  int64_t outSize(int64_t in, int64_t k, int64_t s, int64_t p,
                  int64_t d) const {
    int64_t span = in + 2 * p - d * (k - 1) - 1;
    int64_t n = (ceil ? (span + s - 1) / s : span / s) + 1;
    if (ceil && (n - 1) * s >= in + p)
      --n;
    return n;
  }
  int64_t oh() const { return outSize(h, kh, sh, ph, dh); }
  int64_t ow() const { return outSize(w, kw, sw, pw, dw); }
  void run(const std::vector<double> &x, std::vector<double> &maxima,
           std::vector<double> &indices, std::vector<double> &means) const {
    for (int64_t a = 0; a < oh(); ++a)
      for (int64_t b = 0; b < ow(); ++b) {
        double best = -kInf, sum = 0;
        int64_t at = -1;
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < kw; ++j) {
            int64_t r = a * sh - ph + i * dh, c = b * sw - pw + j * dw;
            if (r < 0 || r >= h || c < 0 || c >= w)
              continue;
            double v = x[r * w + c];
            sum += v;
            if (v > best || at < 0) {
              best = v;
              at = r * w + c;
            }
          }
        int64_t h0 = a * sh - ph, h1 = std::min(h0 + kh, h + ph);
        int64_t w0 = b * sw - pw, w1 = std::min(w0 + kw, w + pw);
        if (!countPad) {
          h0 = std::max<int64_t>(h0, 0), h1 = std::min(h1, h);
          w0 = std::max<int64_t>(w0, 0), w1 = std::min(w1, w);
        }
        maxima.push_back(best);
        indices.push_back(double(at));
        means.push_back(sum / double((h1 - h0) * (w1 - w0)));
      }
  }
};

TEST(CompositeTest, PoolingWithDilationCeilModeAndIndices) {
  // Distinct values, so that the first maximum is the only one.
  std::vector<double> plane;
  for (int64_t i = 0; i < 7 * 8; ++i)
    plane.push_back(double((i * 37) % 56) - 20.5);
  std::vector<PoolReference> cases = {
      {7, 8, 3, 3, 2, 2, 1, 1, 1, 1, true, true},
      {7, 8, 3, 2, 2, 3, 1, 0, 2, 1, false, false},
      {7, 8, 2, 2, 2, 2, 0, 0, 1, 1, true, false},
      {7, 8, 3, 3, 1, 1, 1, 1, 1, 1, false, true},
      {7, 8, 2, 3, 3, 2, 1, 1, 2, 2, true, true},
  };
  for (DType dtype : {DType::F32, DType::F64}) {
    for (const PoolReference &c : cases) {
      SCOPED_TRACE(nameOf(dtype) + " kernel " + std::to_string(c.kh) + "x" +
                   std::to_string(c.kw) + (c.ceil ? " ceil" : ""));
      std::vector<double> maxima, indices, means;
      c.run(plane, maxima, indices, means);
      Tensor x = tensorOf(plane, {1, 1, c.h, c.w}, dtype, flexDevice());
      PoolOptions o{{c.kh, c.kw}, {c.sh, c.sw}, {c.ph, c.pw},
                    {c.dh, c.dw}, c.ceil,       c.countPad};
      auto [values, where] = maxPoolWithIndices(x, o);
      ASSERT_EQ(values.shape(), Shape({1, 1, c.oh(), c.ow()}));
      EXPECT_EQ(valuesOf(values), maxima);
      EXPECT_EQ(valuesOf(where), indices);
      if (c.dh == 1 && c.dw == 1)
        EXPECT_TRUE(allClose(valuesOf(avgPool(x, {{c.kh, c.kw},
                                                  {c.sh, c.sw},
                                                  {c.ph, c.pw},
                                                  {},
                                                  c.ceil,
                                                  c.countPad})),
                             means, tolerance("kiln.avg_pool2d", dtype)));
    }
    // 1-D: a row of 9 as the plane [9, 1].
    PoolReference line{9, 1, 3, 1, 2, 1, 1, 0, 2, 1, true, false};
    std::vector<double> row(plane.begin(), plane.begin() + 9), maxima, indices,
        means;
    line.run(row, maxima, indices, means);
    Tensor x = tensorOf(row, {1, 1, 9}, dtype, flexDevice());
    auto [values, where] = maxPoolWithIndices(x, {{3}, {2}, {1}, {2}, true});
    EXPECT_EQ(valuesOf(values), maxima);
    EXPECT_EQ(valuesOf(where), indices);
  }
}

/// PyTorch's interpolate of one [h, w] plane by its definition.
std::vector<double> resizeReference(const std::vector<double> &x, int64_t h,
                                    int64_t w, int64_t oh, int64_t ow,
                                    bool linear, bool align, double sh,
                                    double sw) {
  auto source = [&](int64_t o, int64_t in, int64_t out, double factor) {
    if (align)
      return out > 1 ? double(o) * double(in - 1) / double(out - 1) : 0.0;
    double scale = factor > 0 ? 1.0 / factor : double(in) / double(out);
    return linear ? std::max(0.0, (double(o) + 0.5) * scale - 0.5)
                  : double(o) * scale;
  };
  std::vector<double> y;
  for (int64_t a = 0; a < oh; ++a)
    for (int64_t b = 0; b < ow; ++b) {
      double r = source(a, h, oh, sh), c = source(b, w, ow, sw);
      if (!linear) {
        int64_t i = std::min<int64_t>(int64_t(r), h - 1);
        int64_t j = std::min<int64_t>(int64_t(c), w - 1);
        y.push_back(x[i * w + j]);
        continue;
      }
      int64_t i0 = std::min<int64_t>(int64_t(r), h - 1),
              i1 = std::min(i0 + 1, h - 1);
      int64_t j0 = std::min<int64_t>(int64_t(c), w - 1),
              j1 = std::min(j0 + 1, w - 1);
      double tr = r - double(i0), tc = c - double(j0);
      y.push_back((1 - tr) * ((1 - tc) * x[i0 * w + j0] + tc * x[i0 * w + j1]) +
                  tr * ((1 - tc) * x[i1 * w + j0] + tc * x[i1 * w + j1]));
    }
  return y;
}

TEST(CompositeTest, InterpolateNearestAndBilinear) {
  const int64_t h = 3, w = 5;
  std::vector<double> plane = cycle({-1.5, 0.5, 2, -0.25, 1, 3, 0.75}, h * w);
  struct Case {
    int64_t oh, ow;
    bool linear, align;
    double sh, sw; // 0: by size
  };
  for (const Case &c : std::vector<Case>{{6, 10, false, false, 0, 0},
                                         {4, 7, false, false, 0, 0},
                                         {2, 3, false, false, 0, 0},
                                         {6, 10, true, false, 0, 0},
                                         {7, 4, true, true, 0, 0},
                                         {2, 3, true, false, 0, 0},
                                         {4, 7, true, false, 1.5, 1.5},
                                         {4, 7, false, false, 1.5, 1.5}}) {
    for (DType dtype : {DType::F32, DType::F64}) {
      SCOPED_TRACE(nameOf(dtype) + (c.linear ? " linear " : " nearest ") +
                   std::to_string(c.oh) + "x" + std::to_string(c.ow) +
                   (c.align ? " aligned" : "") + (c.sh > 0 ? " by scale" : ""));
      InterpolateOptions o;
      if (c.sh > 0)
        o.scale = {c.sh, c.sw};
      else
        o.size = {c.oh, c.ow};
      o.mode = c.linear ? "bilinear" : "nearest";
      o.alignCorners = c.align;
      Tensor y =
          interpolate(tensorOf(plane, {1, 1, h, w}, dtype, flexDevice()), o);
      ASSERT_EQ(y.shape(), Shape({1, 1, c.oh, c.ow}));
      EXPECT_TRUE(allClose(valuesOf(y),
                           resizeReference(plane, h, w, c.oh, c.ow, c.linear,
                                           c.align, c.sh, c.sw),
                           tolerance("kiln.matmul", dtype)));
    }
  }
}

} // namespace
