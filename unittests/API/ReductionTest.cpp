//===- ReductionTest.cpp - Reductions and row ops against references ------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Every reduction over single axes, several axes and all axes, with and
// without keepdim, on contiguous and strided inputs; the row ops (cumsum,
// softmax, log_softmax) along each axis; then NaN and inf behaviour and the
// long f32 runs that the SIMD and threaded paths take.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

#include <algorithm>
#include <limits>
#include <set>

using namespace kiln;
using namespace kiln::test;

namespace {

using Dims = std::vector<int64_t>;
using Group = std::vector<double>;

/// Splits `values` of `shape` into the groups that `axes` reduce, one per
/// output element in row-major order; each group in row-major order of the
/// reduced dims.
std::vector<Group> groupsOf(const std::vector<double> &values,
                            const Dims &shape, const std::set<int64_t> &axes,
                            Dims &outShape, bool keepdim) {
  Dims kept;
  outShape.clear();
  for (int64_t d = 0; d < (int64_t)shape.size(); ++d) {
    if (!axes.count(d))
      kept.push_back(shape[d]);
    if (!axes.count(d) || keepdim)
      outShape.push_back(axes.count(d) ? 1 : shape[d]);
  }
  Dims st = stridesOf(shape), kst = stridesOf(kept);
  std::vector<Group> groups(numelOf(kept));
  for (int64_t k = 0; k < (int64_t)values.size(); ++k) {
    int64_t out = 0, kd = 0;
    for (int64_t d = 0; d < (int64_t)shape.size(); ++d)
      if (!axes.count(d))
        out += ((k / st[d]) % shape[d]) * kst[kd++];
    groups[out].push_back(values[k]);
  }
  return groups;
}

double sumRef(const Group &g) {
  double s = 0;
  for (double v : g)
    s += v;
  return s;
}
double extremum(const Group &g, bool isMax, size_t *at = nullptr) {
  size_t best = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(g[best]))
      break;
    if (std::isnan(g[i]) || (isMax ? g[i] > g[best] : g[i] < g[best]))
      best = i;
  }
  if (at)
    *at = best;
  return g[best];
}
double logSumExpRef(const Group &g) {
  double m = extremum(g, true);
  if (std::isinf(m) || std::isnan(m))
    return m;
  double s = 0;
  for (double v : g)
    s += std::exp(v - m);
  return m + std::log(s);
}

struct ReduceCase {
  const char *op;
  const char *name;
  std::function<Tensor(const Tensor &, Dims, bool)> fn;
  std::function<double(const Group &)> ref;
  std::vector<DType> dtypes;
  bool arg = false; ///< one axis, i64 result
};

std::vector<ReduceCase> reduceCases() {
  auto F = floatDTypes(), N = numericDTypes();
  std::vector<DType> B{DType::Bool};
  auto argOf = [](bool isMax) {
    return [isMax](const Group &g) {
      size_t at;
      extremum(g, isMax, &at);
      return double(at);
    };
  };
  return {
      {"kiln.sum", "sum", [](auto &x, Dims a, bool k) { return sum(x, a, k); },
       sumRef, N},
      {"kiln.mean", "mean",
       [](auto &x, Dims a, bool k) { return mean(x, a, k); },
       [](const Group &g) { return sumRef(g) / g.size(); }, F},
      {"kiln.prod", "prod",
       [](auto &x, Dims a, bool k) { return prod(x, a, k); },
       [](const Group &g) {
         double p = 1;
         for (double v : g)
           p *= v;
         return p;
       },
       N},
      {"kiln.reduce_max", "max",
       [](auto &x, Dims a, bool k) { return max(x, a, k); },
       [](const Group &g) { return extremum(g, true); }, N},
      {"kiln.reduce_min", "min",
       [](auto &x, Dims a, bool k) { return min(x, a, k); },
       [](const Group &g) { return extremum(g, false); }, N},
      {"kiln.any", "any", [](auto &x, Dims a, bool k) { return any(x, a, k); },
       [](const Group &g) {
         return double(
             std::any_of(g.begin(), g.end(), [](double v) { return v != 0; }));
       },
       B},
      {"kiln.all", "all", [](auto &x, Dims a, bool k) { return all(x, a, k); },
       [](const Group &g) {
         return double(
             std::all_of(g.begin(), g.end(), [](double v) { return v != 0; }));
       },
       B},
      {"kiln.logsumexp", "logsumexp",
       [](auto &x, Dims a, bool k) { return logsumexp(x, a, k); }, logSumExpRef,
       F},
      {"kiln.argmax", "argmax",
       [](auto &x, Dims a, bool k) { return argmax(x, a[0], k); }, argOf(true),
       N, true},
      {"kiln.argmin", "argmin",
       [](auto &x, Dims a, bool k) { return argmin(x, a[0], k); }, argOf(false),
       N, true},
  };
}

void PrintTo(const ReduceCase &c, std::ostream *os) { *os << c.name; }

/// Values for reductions: products stay small, and ties exercise argmax's
/// first-index rule.
std::vector<double> reducePool(DType dtype, const std::string &name) {
  if (dtype.isBool())
    return name == "all" ? std::vector<double>{1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1}
                         : std::vector<double>{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  if (name == "prod")
    return dtype.kind() == DTypeKind::U8
               ? std::vector<double>{1, 2, 1, 1, 3, 1, 1}
               : std::vector<double>{1, -1, 2, 1, 1, -2, 1, 3, 1, -1, 1};
  return sampleValues(dtype);
}

class ReduceTest : public ::testing::TestWithParam<ReduceCase> {};

TEST_P(ReduceTest, MatchesReference) {
  const ReduceCase &c = GetParam();
  const Dims shape{3, 4, 5};
  std::vector<Dims> axesList =
      c.arg
          ? std::vector<Dims>{{0}, {1}, {2}, {-1}}
          : std::vector<Dims>{{}, {0}, {1}, {2}, {0, 2}, {-1}, {1, 2}, {0, 1}};
  for (size_t k = 0; k < c.dtypes.size(); ++k) {
    DType dtype = c.dtypes[k];
    DType out = c.arg ? DType::I64 : dtype;
    std::vector<double> values =
        cycle(storedAll(dtype, reducePool(dtype, c.name)), numelOf(shape), k);
    for (size_t ai = 0; ai < axesList.size(); ++ai) {
      for (bool keepdim : {false, true}) {
        int layout = (ai + k + keepdim) % 4;
        const Dims &axes = axesList[ai];
        SCOPED_TRACE(std::string(c.name) + " " + nameOf(dtype) + " axes " +
                     Shape(axes).str() + (keepdim ? " keepdim " : " ") +
                     layoutName(layout));
        std::set<int64_t> set;
        for (int64_t a : axes)
          set.insert(a < 0 ? a + 3 : a);
        if (axes.empty())
          set = {0, 1, 2};
        Dims outShape;
        std::vector<double> want;
        for (const Group &g : groupsOf(values, shape, set, outShape, keepdim))
          want.push_back(static_cast<double>(storedAs(out, c.ref(g))));
        Tensor y = c.fn(viewOf(values, shape, dtype, layout), axes, keepdim);
        ASSERT_EQ(y.dtype(), out);
        ASSERT_EQ(y.shape(), Shape(outShape));
        EXPECT_TRUE(allClose(valuesOf(y), want, tolerance(c.op, dtype)));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, ReduceTest, ::testing::ValuesIn(reduceCases()),
                         [](const auto &info) {
                           return std::string(info.param.name);
                         });

//===----------------------------------------------------------------------===//
// Row ops: same shape, along one axis
//===----------------------------------------------------------------------===//

struct RowCase {
  const char *op;
  const char *name;
  std::function<Tensor(const Tensor &, int64_t)> fn;
  /// The whole row in, the whole row out.
  std::function<Group(const Group &)> ref;
  std::vector<DType> dtypes;
};

Group softmaxRef(const Group &g) {
  double m = extremum(g, true), s = 0;
  Group out;
  for (double v : g)
    s += std::exp(v - m);
  for (double v : g)
    out.push_back(std::exp(v - m) / s);
  return out;
}

std::vector<RowCase> rowCases() {
  return {
      {"kiln.cumsum", "cumsum", [](auto &x, int64_t a) { return cumsum(x, a); },
       [](const Group &g) {
         Group out;
         double s = 0;
         for (double v : g)
           out.push_back(s += v);
         return out;
       },
       numericDTypes()},
      {"kiln.softmax", "softmax",
       [](auto &x, int64_t a) { return softmax(x, a); }, softmaxRef,
       floatDTypes()},
      {"kiln.log_softmax", "log_softmax",
       [](auto &x, int64_t a) { return logSoftmax(x, a); },
       [](const Group &g) {
         Group out;
         double lse = logSumExpRef(g);
         for (double v : g)
           out.push_back(v - lse);
         return out;
       },
       floatDTypes()},
  };
}

void PrintTo(const RowCase &c, std::ostream *os) { *os << c.name; }

class RowTest : public ::testing::TestWithParam<RowCase> {};

TEST_P(RowTest, MatchesReferenceAlongEachAxis) {
  const RowCase &c = GetParam();
  const Dims shape{3, 4, 5};
  Dims st = stridesOf(shape);
  for (size_t k = 0; k < c.dtypes.size(); ++k) {
    DType dtype = c.dtypes[k];
    std::vector<double> values =
        cycle(storedAll(dtype, sampleValues(dtype)), 60, k);
    for (int64_t axis : {0, 1, 2, -1}) {
      int layout = (axis + 1 + k) % 4;
      SCOPED_TRACE(std::string(c.name) + " " + nameOf(dtype) + " axis " +
                   std::to_string(axis) + " " + layoutName(layout));
      int64_t a = axis < 0 ? axis + 3 : axis;
      std::vector<double> want(values.size());
      // Walk every row along `a`: rows start where the index along a is 0.
      for (int64_t s = 0; s < 60; ++s) {
        if ((s / st[a]) % shape[a] != 0)
          continue;
        Group row;
        for (int64_t i = 0; i < shape[a]; ++i)
          row.push_back(values[s + i * st[a]]);
        Group r = c.ref(row);
        for (int64_t i = 0; i < shape[a]; ++i)
          want[s + i * st[a]] = static_cast<double>(storedAs(dtype, r[i]));
      }
      Tensor y = c.fn(viewOf(values, shape, dtype, layout), axis);
      ASSERT_EQ(y.shape(), Shape(shape));
      EXPECT_TRUE(allClose(valuesOf(y), want, tolerance(c.op, dtype)));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, RowTest, ::testing::ValuesIn(rowCases()),
                         [](const auto &info) {
                           return std::string(info.param.name);
                         });

//===----------------------------------------------------------------------===//
// NaN, inf, and the long runs
//===----------------------------------------------------------------------===//

TEST(ReductionTest, MaxMinPropagateNaNAndArgmaxPicksIt) {
  DispatchDevice flex = DispatchDevice::flex();
  for (DType dtype : floatDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    // Row 0 has a NaN after its max, row 1 none, row 2 two NaNs.
    std::vector<double> v{1, 9, kNaN, 3, 2,    4, -1, 7,
                          0, 5, kNaN, 8, kNaN, 6, 2};
    Tensor x = tensorOf(v, {3, 5}, dtype, flex);
    for (int layout : {0, 1}) {
      Tensor xs = layout ? viewOf(v, {3, 5}, dtype, 1) : x;
      EXPECT_TRUE(allClose(valuesOf(max(xs, {1})), {kNaN, 7, kNaN}, {0, 0}));
      EXPECT_TRUE(allClose(valuesOf(min(xs, {1})), {kNaN, -1, kNaN}, {0, 0}));
      EXPECT_EQ(valuesOf(argmax(xs, 1)), (std::vector<double>{2, 2, 0}));
      EXPECT_EQ(valuesOf(argmin(xs, 1)), (std::vector<double>{2, 1, 0}));
      EXPECT_TRUE(std::isnan(valuesOf(max(xs))[0]));
    }
    Tensor inf = tensorOf({1, kInf, -kInf, 2}, {4}, dtype, flex);
    EXPECT_TRUE(std::isnan(valuesOf(sum(inf))[0]));
    EXPECT_EQ(valuesOf(max(inf))[0], kInf);
    EXPECT_EQ(valuesOf(min(inf))[0], -kInf);
  }
}

// kiln-decompose computes logsumexp as m + log(sum(exp(x - m))) with m the
// row max; an infinite m shifts by 0 instead, so a row of -inf (the masked
// row of attention) gives -inf, not -inf - -inf = NaN, and a row holding
// +inf gives +inf. The other rows keep their values.
TEST(ReductionTest, LogSumExpOfInfiniteRows) {
  for (DispatchDevice dev : {DispatchDevice::flex(), DispatchDevice::cpu()}) {
    SCOPED_TRACE(dev.str());
    Tensor x = tensorOf({-kInf, -kInf, -kInf, 1.0, kInf, 2.0, 0.0, 0.0, 0.0},
                        {3, 3}, DType::F32, dev);
    std::vector<double> got = valuesOf(logsumexp(x, {1}));
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[0], -kInf);
    EXPECT_EQ(got[1], kInf);
    EXPECT_NEAR(got[2], std::log(3.0), 1e-6);
    EXPECT_EQ(valuesOf(logsumexp(tensorOf({-kInf, -kInf}, {2}, DType::F32,
                                          dev)))[0],
              -kInf);
  }
}

TEST(ReductionTest, ArgmaxTakesTheFirstOfTies) {
  DispatchDevice flex = DispatchDevice::flex();
  for (DType dtype : numericDTypes()) {
    SCOPED_TRACE(nameOf(dtype));
    Tensor x = tensorOf({3, 1, 3, 0, 1, 0}, {6}, dtype, flex);
    EXPECT_EQ(argmax(x, 0).item<int64_t>(), 0);
    EXPECT_EQ(argmin(x, 0).item<int64_t>(), 3);
    EXPECT_EQ(argmax(x, 0, true).shape(), Shape({1}));
  }
}

/// f32 sums and extrema of one long run split across threads and blocks;
/// the NaN sits in the last chunk.
TEST(ReductionTest, LongF32Runs) {
  DispatchDevice flex = DispatchDevice::flex();
  const int64_t n = 300007;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(((i * 7919) % 1000) / 250.0 - 2.0);
  double s = 0, mx = -kInf, mn = kInf;
  for (double x : v) {
    s += x;
    mx = std::max(mx, x);
    mn = std::min(mn, x);
  }
  Tensor x = tensorOf(v, {n}, DType::F32, flex);
  EXPECT_TRUE(allClose(valuesOf(sum(x)), {s}, {1e-6 * n, 1e-6}));
  EXPECT_TRUE(allClose(valuesOf(mean(x)), {s / n}, {1e-6, 1e-5}));
  EXPECT_EQ(valuesOf(max(x))[0], mx);
  EXPECT_EQ(valuesOf(min(x))[0], mn);
  // Rows of a [n/7, 7]-like matrix reduced along the leading dim.
  Tensor m = tensorOf(cycle(v, 7000), {1000, 7}, DType::F32, flex);
  Dims outShape;
  std::vector<double> want;
  for (const Group &g :
       groupsOf(cycle(v, 7000), {1000, 7}, {0}, outShape, false))
    want.push_back(sumRef(g));
  EXPECT_TRUE(allClose(valuesOf(sum(m, {0})), want, {1e-3, 1e-5}));
  v[n - 3] = kNaN;
  Tensor withNaN = tensorOf(v, {n}, DType::F32, flex);
  EXPECT_TRUE(std::isnan(valuesOf(max(withNaN))[0]));
  EXPECT_TRUE(std::isnan(valuesOf(min(withNaN))[0]));
  EXPECT_EQ(argmax(withNaN, 0).item<int64_t>(), n - 3);
}

TEST(ReductionTest, IntegerSumsAndProductsWrap) {
  // Two's complement, on the interpreter as in compiled code; the sanitized
  // build reports a signed overflow if Flex does the arithmetic in a signed
  // type.
  constexpr int64_t big = std::numeric_limits<int64_t>::max();
  for (DispatchDevice dev : {DispatchDevice::flex(), DispatchDevice::cpu()}) {
    SCOPED_TRACE(dev.str());
    Tensor a = DispatchTensor::fromVector<int64_t>({big, 1, 2}, {3}, dev);
    EXPECT_EQ(sum(a).item<int64_t>(), std::numeric_limits<int64_t>::min() + 2);
    Tensor b = DispatchTensor::fromVector<int64_t>(
        {int64_t(1) << 62, 4, 3, int64_t(1) << 40, 5}, {5}, dev);
    EXPECT_EQ(prod(b).item<int64_t>(), 0);
    EXPECT_EQ(prod(b.narrow(0, 1, 4)).item<int64_t>(), int64_t(60) << 40);
    Tensor c = DispatchTensor::fromVector<int8_t>({100, 100, -1}, {3}, dev);
    EXPECT_EQ(sum(c).item<int8_t>(), int8_t(-57));
    Tensor d = DispatchTensor::fromVector<int16_t>({300, 300, 3}, {3}, dev);
    EXPECT_EQ(prod(d).item<int16_t>(), int16_t(270000 % 65536));
  }
}

TEST(ReductionTest, RankZeroAndSizeOneAxes) {
  DispatchDevice flex = DispatchDevice::flex();
  Tensor s = DispatchTensor::scalar(2.5, DType::F32, flex);
  EXPECT_EQ(sum(s).item<float>(), 2.5f);
  EXPECT_EQ(mean(s).item<float>(), 2.5f);
  Tensor x = tensorOf({1, 2, 3}, {1, 3, 1}, DType::F64, flex);
  EXPECT_EQ(valuesOf(sum(x, {0, 2})), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(sum(x, {0, 2}, true).shape(), Shape({1, 3, 1}));
  EXPECT_EQ(valuesOf(softmax(x, 0)), (std::vector<double>{1, 1, 1}));
}

} // namespace
