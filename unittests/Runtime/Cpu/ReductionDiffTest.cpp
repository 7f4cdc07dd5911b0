//===- ReductionDiffTest.cpp - Reductions, Cpu against Flex ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// sum, mean, prod, max, min, any, all, argmax, argmin, cumsum, softmax,
// log_softmax and logsumexp for every dtype they accept, over trailing
// axes (row kernels), leading and middle axes (column kernels), several
// axes, every axis, with and without keepdim, on contiguous and strided
// inputs and on rows long enough for vector loops with tails.
//
//===----------------------------------------------------------------------===//

#include "Differential.h"

using namespace kiln;
using namespace kiln::test;

namespace {

using Axes = std::vector<int64_t>;

/// The axis sets every reduction runs over, on a [5, 6, 37] input.
const std::vector<Axes> &axisSets() {
  static const std::vector<Axes> sets = {{2}, {1, 2}, {0}, {1}, {0, 1},
                                         {0, 2}, {}};
  return sets;
}

std::string axesName(const Axes &axes) {
  std::string s = "[";
  for (int64_t a : axes)
    s += (s.size() > 1 ? "," : "") + std::to_string(a);
  return s + "]";
}

class ReductionDiffTest : public ::testing::TestWithParam<DType> {};

TEST_P(ReductionDiffTest, OverAxes) {
  DType dtype = GetParam();
  struct Case {
    const char *op;
    std::function<Tensor(const Tensor &, Axes, bool)> fn;
    bool floatOnly, boolOnly;
  };
  std::vector<Case> cases = {
      {"kiln.sum", [](auto &x, Axes a, bool k) { return sum(x, a, k); }, false,
       false},
      {"kiln.mean", [](auto &x, Axes a, bool k) { return mean(x, a, k); },
       true, false},
      {"kiln.prod", [](auto &x, Axes a, bool k) { return prod(x, a, k); },
       false, false},
      {"kiln.reduce_max", [](auto &x, Axes a, bool k) { return max(x, a, k); },
       false, false},
      {"kiln.reduce_min", [](auto &x, Axes a, bool k) { return min(x, a, k); },
       false, false},
      {"kiln.logsumexp",
       [](auto &x, Axes a, bool k) { return logsumexp(x, a, k); }, true, false},
      {"kiln.any", [](auto &x, Axes a, bool k) { return any(x, a, k); }, false,
       true},
      {"kiln.all", [](auto &x, Axes a, bool k) { return all(x, a, k); }, false,
       true},
  };
  compareOnDevices([&](Side &s) {
    Rng rng(10);
    // Small integers keep integer sums and products in range; products run
    // over values near 1 so that they neither vanish nor overflow.
    double lo = dtype.isInteger() ? (dtype == DType::U8 ? 0 : -3) : -2;
    double hi = dtype.isInteger() ? 3 : 2;
    Tensor x = s.input(randomValues(rng, 5 * 6 * 37, dtype, lo, hi),
                       {5, 6, 37}, dtype);
    std::vector<double> near1(4 * 5 * 6);
    for (double &v : near1)
      v = dtype.isInteger() ? (rng.chance(0.7) ? 1 : rng.chance(0.5) ? -1 : 2)
                            : rng.uniform(0.8, 1.25);
    if (dtype == DType::U8)
      for (double &v : near1)
        v = std::fabs(v);
    Tensor p = dtype.isBool() ? x : s.input(near1, {4, 5, 6}, dtype);
    Tensor wide = s.input(randomValues(rng, 4 * 129, dtype, lo, hi), {4, 129},
                          dtype);
    // A permuted view: the reduced axes are strided.
    Tensor xt = x.permute({2, 0, 1}).permute({1, 2, 0});
    for (const Case &c : cases) {
      if ((c.floatOnly && !dtype.isFloat()) || (c.boolOnly != dtype.isBool()))
        continue;
      bool isProd = std::string(c.op) == "kiln.prod";
      for (const Axes &axes : axisSets())
        for (bool keepdim : {false, true}) {
          std::string label = std::string(c.op) + " " + axesName(axes) +
                              (keepdim ? " keepdim" : "");
          s.check(c.op, dtype, label, c.fn(isProd ? p : x, axes, keepdim));
        }
      s.check(c.op, dtype, std::string(c.op) + " strided [2]",
              c.fn(isProd ? p.transpose(0, 2) : xt, {2}, false));
      s.check(c.op, dtype, std::string(c.op) + " rows of 129",
              c.fn(isProd ? p.reshape({2, 60}) : wide, {-1}, true));
      s.check(c.op, dtype, std::string(c.op) + " columns of a step slice",
              c.fn(isProd ? p.reshape({2, 60}) : wide.slice({0, 1}, {4, 129},
                                                            {1, 2}),
                   {0}, false));
      s.check(c.op, dtype, std::string(c.op) + " rank 0",
              c.fn(s.input({1}, {}, dtype), {}, false));
    }
  });
}

/// Few long rows with one reduction and a per-row result are split into
/// parts (phase 0 reduces a part of a row, phase 1 combines a row's parts):
/// a full reduction, one of 3 rows, a length that leaves a short last
/// part, a fused producer and the per-row op after the reduction (mean).
TEST_P(ReductionDiffTest, FewLongRows) {
  DType dtype = GetParam();
  compareOnDevices([&](Side &s) {
    Rng rng(12);
    const int64_t n = 100003, cols = 40009;
    double lo = dtype.isInteger() ? (dtype == DType::U8 ? 0 : -3) : -2;
    double hi = dtype.isInteger() ? 3 : 2;
    Tensor x = s.input(randomValues(rng, n, dtype, lo, hi), {n}, dtype);
    Tensor rows =
        s.input(randomValues(rng, 3 * cols, dtype, lo, hi), {3, cols}, dtype);
    // A long float sum: Flex accumulates in f64, Cpu in f32 (for f16 and
    // bf16 too) with many vector lanes and parts, each rounding step off
    // by up to eps of its partial sum. The bound is eps * sqrt(n) of the
    // sum of |x| (a part left out moves a sum by tens), plus the result's
    // own rounding. Integer sums are exact either way.
    double accEps = dtype.isFloat() ? std::min(epsilonOf(dtype), 1.2e-7) : 0;
    auto sumTol = [&](int64_t len, double sumAbs) {
      return Tolerance{accEps * std::sqrt(double(len)) * sumAbs,
                       epsilonOf(dtype)};
    };
    if (dtype.isBool()) {
      s.check("kiln.any", dtype, "any of 100003", any(x, {}, false));
      s.check("kiln.all", dtype, "all of 3 rows of 40009",
              all(rows, {1}, false));
      return;
    }
    // Values in [-2, 2]: the sum of |x| is about n.
    s.check("kiln.sum", dtype, "sum of 100003", sum(x, {}, false),
            sumTol(n, n));
    s.check("kiln.sum", dtype, "sum of 3 rows of 40009", sum(rows, {1}, true),
            sumTol(cols, cols));
    s.check("kiln.reduce_max", dtype, "max of 100003", max(x, {}, false));
    s.check("kiln.reduce_min", dtype, "min of 3 rows of 40009",
            min(rows, {1}, false));
    if (!dtype.isFloat())
      return;
    s.check("kiln.mean", dtype, "mean of 100003", mean(x, {}, false),
            sumTol(n, 1));
    s.check("kiln.mean", dtype, "mean(x * x) of 3 rows of 40009",
            mean(rows * rows, {1}, false), sumTol(cols, 4.0 / 3));
    // A product of factors near 1 (a part left out would move it by about
    // 20%). Both sides accumulate a float product in f64 (in f32 this one
    // drifted by 5e-4), so they differ by f64 roundings, sqrt(n) of them,
    // and the result's own rounding.
    std::vector<double> near1(n);
    for (double &v : near1)
      v = rng.uniform(0.99, 1.01);
    s.check("kiln.prod", dtype, "prod of 100003 near 1",
            prod(s.input(near1, {n}, dtype), {}, false),
            Tolerance{0, 4 * epsilonOf(DType::F64) * std::sqrt(double(n)) +
                             epsilonOf(dtype)});
  });
}

// Column sums over many units: 600 outer rows of 4096 columns, each unit
// with 16 KiB of column accumulators. Allocated per unit, they once took
// 9.6 MB of one thread's stack and crashed (a batch norm's channel sums in
// a ResNet's backward pass).
TEST(ReductionStackTest, ManyColumnUnitsShareOneAccumulatorBuffer) {
  compareOnDevices([&](Side &s) {
    Rng rng(13);
    const int64_t outer = 600, rows = 2, cols = 4096;
    Tensor x =
        s.input(randomValues(rng, outer * rows * cols, DType::F32, -1, 1),
                {outer, rows, cols}, DType::F32);
    s.check("kiln.sum", DType::F32, "sum over the middle of [600, 2, 4096]",
            sum(x, {1}, false));
  });
}

TEST_P(ReductionDiffTest, ArgAndScan) {
  DType dtype = GetParam();
  if (dtype.isBool())
    GTEST_SKIP() << "argmax, argmin and cumsum take numeric dtypes";
  compareOnDevices([&](Side &s) {
    Rng rng(11);
    // Few distinct values: ties must resolve to the first index.
    Tensor x = s.input(randomValues(rng, 4 * 7 * 33, dtype, 0, 5), {4, 7, 33},
                       dtype);
    for (int64_t axis : {0, 1, 2})
      for (bool keepdim : {false, true}) {
        std::string suffix =
            " axis " + std::to_string(axis) + (keepdim ? " keepdim" : "");
        s.check("kiln.argmax", dtype, "kiln.argmax" + suffix,
                argmax(x, axis, keepdim));
        s.check("kiln.argmin", dtype, "kiln.argmin" + suffix,
                argmin(x, axis, keepdim));
      }
    s.check("kiln.argmax", dtype, "kiln.argmax flipped",
            argmax(flip(x, {2}), 2));
    for (int64_t axis : {0, 1, 2}) {
      std::string suffix = " axis " + std::to_string(axis);
      s.check("kiln.cumsum", dtype, "kiln.cumsum" + suffix, cumsum(x, axis));
    }
    s.check("kiln.cumsum", dtype, "kiln.cumsum transposed",
            cumsum(x.transpose(1, 2), 2));
  });
}

TEST_P(ReductionDiffTest, SoftmaxFamily) {
  DType dtype = GetParam();
  if (!dtype.isFloat())
    GTEST_SKIP() << "softmax and log_softmax take floats";
  compareOnDevices([&](Side &s) {
    Rng rng(12);
    Tensor x = s.input(randomValues(rng, 3 * 5 * 70, dtype, -6, 6), {3, 5, 70},
                       dtype);
    for (int64_t axis : {0, 1, 2, -1}) {
      std::string suffix = " axis " + std::to_string(axis);
      s.check("kiln.softmax", dtype, "kiln.softmax" + suffix,
              softmax(x, axis));
      s.check("kiln.log_softmax", dtype, "kiln.log_softmax" + suffix,
              logSoftmax(x, axis));
    }
    s.check("kiln.softmax", dtype, "kiln.softmax transposed",
            softmax(x.transpose(1, 2), -1));
    s.check("kiln.softmax", dtype, "kiln.softmax rows of 1",
            softmax(x.slice({0, 0, 0}, {3, 5, 1}), -1));
    // Large logits: the max subtraction must keep exp finite.
    s.check("kiln.softmax", dtype, "kiln.softmax large logits",
            softmax(x * 12.0, -1));
    s.check("kiln.log_softmax", dtype, "kiln.log_softmax masked row",
            logSoftmax(where(x > 5.5, x, -kInf), -1));
  });
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, ReductionDiffTest,
                         ::testing::ValuesIn(allDTypes()),
                         [](const auto &info) { return info.param.str(); });

} // namespace
