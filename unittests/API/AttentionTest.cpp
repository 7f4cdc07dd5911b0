//===- AttentionTest.cpp - scaledDotProductAttention by its definition ----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Attention with and without masks (bool and additive, broadcast), causal,
// cross (T != S) and grouped-query (Hkv < H) against loops in double that
// follow the definition: query head h reads key/value head h / (H / Hkv).
//
//===----------------------------------------------------------------------===//

#include "ErrorMessage.h"
#include "Reference.h"

using namespace kiln;
using namespace kiln::test;

namespace {

DispatchDevice flexDevice() { return DispatchDevice::flex(); }

struct Case {
  std::string name;
  int64_t b, h, hkv, t, s, d, dv;
  enum MaskKind { None, Padding, Additive } mask = None;
  bool causal = false;
  std::optional<double> scale;
};

std::vector<double> series(int64_t n, double step, double phase) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(std::sin(static_cast<double>(i) * step + phase));
  return v;
}

/// Key j of batch b is padding when j >= s - 1 - b ([B, 1, 1, S], true =
/// attend); the additive mask is [T, S], -(i + j) % 3 / 2.
bool keeps(const Case &c, int64_t b, int64_t j) { return j < c.s - 1 - b; }
double added(int64_t i, int64_t j) {
  return -static_cast<double>((i + j) % 3) / 2;
}

std::vector<double> reference(const Case &c, const std::vector<double> &q,
                              const std::vector<double> &k,
                              const std::vector<double> &v) {
  int64_t g = c.h / c.hkv;
  double scale = c.scale ? *c.scale : 1 / std::sqrt(double(c.d));
  std::vector<double> out;
  for (int64_t b = 0; b < c.b; ++b)
    for (int64_t h = 0; h < c.h; ++h)
      for (int64_t i = 0; i < c.t; ++i) {
        int64_t kh = h / g;
        std::vector<double> w(c.s);
        double top = -kInf;
        for (int64_t j = 0; j < c.s; ++j) {
          double dot = 0;
          for (int64_t x = 0; x < c.d; ++x)
            dot += q[((b * c.h + h) * c.t + i) * c.d + x] *
                   k[((b * c.hkv + kh) * c.s + j) * c.d + x];
          w[j] = dot * scale;
          if (c.mask == Case::Padding && !keeps(c, b, j))
            w[j] = -kInf;
          if (c.mask == Case::Additive)
            w[j] += added(i, j);
          if (c.causal && j > i)
            w[j] = -kInf;
          top = std::max(top, w[j]);
        }
        double total = 0;
        for (double &x : w)
          total += x = std::exp(x - top);
        for (int64_t y = 0; y < c.dv; ++y) {
          double acc = 0;
          for (int64_t j = 0; j < c.s; ++j)
            acc += w[j] / total * v[((b * c.hkv + kh) * c.s + j) * c.dv + y];
          out.push_back(acc);
        }
      }
  return out;
}

} // namespace

TEST(AttentionTest, MatchesItsDefinition) {
  std::vector<Case> cases = {
      {"plain", 2, 2, 2, 5, 5, 8, 8},
      {"causal", 1, 3, 3, 6, 6, 4, 4, Case::None, true},
      {"grouped, causal", 2, 4, 2, 5, 5, 8, 8, Case::None, true},
      {"multi-query, padding", 2, 4, 1, 3, 6, 4, 6, Case::Padding},
      {"cross, additive, scale", 1, 2, 2, 3, 7, 4, 5, Case::Additive, false,
       0.3},
      {"grouped, padding and causal", 2, 6, 2, 4, 4, 4, 4, Case::Padding, true},
  };
  for (const Case &c : cases)
    for (DType dtype : {DType::F32, DType::F64}) {
      SCOPED_TRACE(c.name + " " + nameOf(dtype));
      std::vector<double> q = storedAll(dtype,
                                        series(c.b * c.h * c.t * c.d, 0.37, 0)),
                          k = storedAll(
                              dtype, series(c.b * c.hkv * c.s * c.d, 0.91, 1)),
                          v = storedAll(
                              dtype, series(c.b * c.hkv * c.s * c.dv, 0.53, 2));
      AttentionOptions o;
      o.causal = c.causal;
      o.scale = c.scale;
      if (c.mask == Case::Padding) {
        std::vector<bool> m;
        for (int64_t b = 0; b < c.b; ++b)
          for (int64_t j = 0; j < c.s; ++j)
            m.push_back(keeps(c, b, j));
        o.mask = DispatchTensor::fromVector(m, {c.b, 1, 1, c.s}, flexDevice());
      } else if (c.mask == Case::Additive) {
        std::vector<double> m;
        for (int64_t i = 0; i < c.t; ++i)
          for (int64_t j = 0; j < c.s; ++j)
            m.push_back(added(i, j));
        o.mask = tensorOf(m, {c.t, c.s}, dtype, flexDevice());
      }
      Tensor y = scaledDotProductAttention(
          tensorOf(q, {c.b, c.h, c.t, c.d}, dtype, flexDevice()),
          tensorOf(k, {c.b, c.hkv, c.s, c.d}, dtype, flexDevice()),
          tensorOf(v, {c.b, c.hkv, c.s, c.dv}, dtype, flexDevice()), o);
      ASSERT_EQ(y.shape(), Shape({c.b, c.h, c.t, c.dv}));
      EXPECT_TRUE(allClose(valuesOf(y), reference(c, q, k, v),
                           tolerance("kiln.softmax", dtype)));
    }
}

TEST(AttentionTest, ErrorsNameTheShapes) {
  auto t = [](Shape s, DType d = DType::F32) {
    return DispatchTensor::zeros(std::move(s), d, flexDevice());
  };
  EXPECT_EQ(errorMessage([&] {
              (void)scaledDotProductAttention(t({1, 6, 2, 4}), t({1, 4, 3, 4}),
                                              t({1, 4, 3, 4}));
            }),
            "scaled_dot_product_attention: 4 key/value heads do not divide 6 "
            "query heads; q [1, 6, 2, 4], k [1, 4, 3, 4], v [1, 4, 3, 4]");
  EXPECT_EQ(errorMessage([&] {
              (void)scaledDotProductAttention(t({1, 2, 2, 4}), t({1, 2, 3, 5}),
                                              t({1, 2, 3, 4}));
            }),
            "scaled_dot_product_attention: q and k differ in their last dim; "
            "q [1, 2, 2, 4], k [1, 2, 3, 5], v [1, 2, 3, 4]");
  EXPECT_NE(errorMessage([&] {
              (void)scaledDotProductAttention(t({2, 4}), t({1, 2, 3, 5}),
                                              t({1, 2, 3, 4}));
            }).find("must be [B, H, T, D]"),
            std::string::npos);
  AttentionOptions o;
  o.mask = t({1, 3, 2, 3}, DType::Bool);
  EXPECT_NE(errorMessage([&] {
              (void)scaledDotProductAttention(t({1, 2, 2, 4}), t({1, 2, 3, 4}),
                                              t({1, 2, 3, 4}), o);
            }).find("the mask's head dim 3 is neither 1 nor 2"),
            std::string::npos);
  o.mask = t({2, 3}, DType::F16);
  EXPECT_NE(errorMessage([&] {
              (void)scaledDotProductAttention(t({1, 2, 2, 4}), t({1, 2, 3, 4}),
                                              t({1, 2, 3, 4}), o);
            }).find("a float mask must have q's dtype f32, got f16"),
            std::string::npos);
}
