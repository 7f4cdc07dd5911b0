//===- SmallRowTest.cpp - Row kernels of every short length ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Rows shorter than a vector are where LLVM unrolls a row kernel's loops
// fully, and where a kernel whose operands do not vary from unit to unit
// (one row, or one row broadcast to every row) gives the loop vectorizer a
// loop body that is uniform from end to end. A layer_norm feeding a
// log_softmax of 4 elements never finished compiling for AVX2 that way
// (docs/cpu-codegen.md). Each row kernel kind is compiled here, alone, for
// every row length from 1 to 33, as one row and as one row broadcast over
// three, and must match Flex.
//
// The ctests run this file once per ISA (KILN_CPU_ISA=avx2, avx512) with
// KILN_COMPILE_TIMEOUT set: a compile that hangs aborts the run and prints
// its graph. The AVX-512 leg skips on a host without AVX-512 and says why.
// The slowest compile is printed (timings are reported, never asserted).
//
//===----------------------------------------------------------------------===//

#include "Differential.h"

#include <chrono>
#include <cstdio>

using namespace kiln;
using namespace kiln::test;

namespace {

struct RowKind {
  const char *name;
  std::initializer_list<const char *> ops; ///< for the tolerance
  /// The kernel on x (rows of n), w and b ([n]).
  Tensor (*build)(const Tensor &x, const Tensor &w, const Tensor &b);
};

const RowKind kKinds[] = {
    {"softmax",
     {"kiln.softmax"},
     [](const Tensor &x, const Tensor &, const Tensor &) {
       return softmax(x, -1);
     }},
    {"log_softmax",
     {"kiln.log_softmax"},
     [](const Tensor &x, const Tensor &, const Tensor &) {
       return logSoftmax(x, -1);
     }},
    {"logsumexp",
     {"kiln.logsumexp"},
     [](const Tensor &x, const Tensor &, const Tensor &) {
       return logsumexp(x, {-1}, /*keepdim=*/true);
     }},
    {"layer_norm",
     {"kiln.layer_norm"},
     [](const Tensor &x, const Tensor &w, const Tensor &b) {
       return layerNorm(x, w, b, 1e-5);
     }},
    {"rms_norm",
     {"kiln.mul", "kiln.mean", "kiln.rsqrt", "kiln.mul"},
     [](const Tensor &x, const Tensor &w, const Tensor &) {
       return x * rsqrt(mean(x * x, {-1}, /*keepdim=*/true) + 1e-5) * w;
     }},
    {"sum_with_epilogue",
     {"kiln.mul", "kiln.sum", "kiln.tanh", "kiln.mul", "kiln.add"},
     [](const Tensor &x, const Tensor &w, const Tensor &b) {
       return tanh(sum(x * w, {-1}, /*keepdim=*/true)) * x + b;
     }},
    {"max_with_epilogue",
     {"kiln.max", "kiln.sub", "kiln.exp"},
     [](const Tensor &x, const Tensor &, const Tensor &) {
       return exp(x - max(x, {-1}, /*keepdim=*/true));
     }},
    {"layer_norm_then_log_softmax",
     {"kiln.layer_norm", "kiln.log_softmax"},
     [](const Tensor &x, const Tensor &w, const Tensor &b) {
       return logSoftmax(layerNorm(x, w, b, 1e-5), -1);
     }},
    {"softmax_then_logsumexp",
     {"kiln.softmax", "kiln.logsumexp"},
     [](const Tensor &x, const Tensor &, const Tensor &) {
       return logsumexp(softmax(x, -1), {-1}, /*keepdim=*/true);
     }},
};

struct Slowest {
  double ms = 0;
  std::string what;
};

Slowest &slowest() {
  static Slowest s;
  return s;
}

/// Compiles `kind` for rows of `n` (one row, or one row broadcast to
/// three) and compares it with Flex; keeps the slowest Cpu sync (a compile
/// and one tiny run).
void sweepOne(const RowKind &kind, int64_t n, bool broadcastRows) {
  Rng rng(static_cast<uint64_t>(n) * 131 + (broadcastRows ? 7 : 0));
  std::vector<double> xs = randomValues(rng, n, DType::F32, -2, 2);
  std::vector<double> ws = randomValues(rng, n, DType::F32, 0.5, 1.5);
  std::vector<double> bs = randomValues(rng, n, DType::F32, -0.5, 0.5);
  std::string label = std::string(kind.name) + " of " +
                      (broadcastRows ? "[3, " + std::to_string(n) +
                                           "] (one "
                                           "row broadcast)"
                                     : "[" + std::to_string(n) + "]");
  double ms = 0;
  compareOnDevices([&](Side &s) {
    Tensor x = s.input(xs, Shape({n}), DType::F32);
    if (broadcastRows)
      x = expand(x, Shape({3, n}));
    Tensor w = s.input(ws, Shape({n}), DType::F32);
    Tensor b = s.input(bs, Shape({n}), DType::F32);
    Tensor out = kind.build(x, w, b);
    if (s.device().kind() == DeviceKind::Cpu) {
      auto start = std::chrono::steady_clock::now();
      out.sync();
      ms = std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - start)
               .count();
    }
    s.check(label, out, chainTolerance(kind.ops, DType::F32));
  });
  if (ms > slowest().ms)
    slowest() = {ms, label};
}

class SmallRowTest : public ::testing::TestWithParam<size_t> {};

TEST_P(SmallRowTest, EveryLengthCompilesAndMatchesFlex) {
  KILN_SKIP_UNLESS_THE_CPU_ISA_RUNS();
  // Every length compiles for its own static size: a row length that
  // changed would otherwise become a dynamic dim after the first.
  ::setenv("KILN_AUTO_DYNAMIC", "0", 1);
  const RowKind &kind = kKinds[GetParam()];
  for (int64_t n = 1; n <= 33; ++n)
    for (bool broadcastRows : {false, true})
      sweepOne(kind, n, broadcastRows);
  std::printf("[small-rows] KILN_CPU_ISA=%s: slowest compile so far %.1f ms "
              "(%s)\n",
              cpuIsaName(env::cpuIsa()), slowest().ms, slowest().what.c_str());
}

INSTANTIATE_TEST_SUITE_P(Kinds, SmallRowTest,
                         ::testing::Range<size_t>(0, std::size(kKinds)),
                         [](const ::testing::TestParamInfo<size_t> &info) {
                           return std::string(kKinds[info.param].name);
                         });

/// The graph that hung: x, w and b of 4 elements, one layer_norm and one
/// log_softmax, as one row kernel.
TEST(SmallRowRegressionTest, LayerNormThenLogSoftmaxOfFour) {
  KILN_SKIP_UNLESS_THE_CPU_ISA_RUNS();
  const std::vector<double> x = {0.5, -1, 2, 0.25}, w = {1, 2, 0.5, 1},
                            b = {0, 0.1, 0.2, -0.3};
  DiffStats stats = compareOnDevices([&](Side &s) {
    Tensor out = logSoftmax(layerNorm(s.input(x, Shape({4}), DType::F32),
                                      s.input(w, Shape({4}), DType::F32),
                                      s.input(b, Shape({4}), DType::F32), 1e-5),
                            0);
    s.check(
        "layer_norm then log_softmax", out,
        chainTolerance({"kiln.layer_norm", "kiln.log_softmax"}, DType::F32));
  });
  EXPECT_EQ(stats.outputs, 1);
  EXPECT_EQ(stats.failures, 0);
  // By hand: mean 0.4375, variance 1.13671875, so layer_norm gives
  // [0.05862, -2.59660, 0.93277, -0.47587]; log_softmax subtracts
  // max + log(sum(exp(v - max))) = 0.93277 + 0.52534.
  Tensor cpu = logSoftmax(
      layerNorm(DispatchTensor::fromVector<float>({0.5f, -1, 2, 0.25f}, {4},
                                                  DispatchDevice::cpu()),
                DispatchTensor::fromVector<float>({1, 2, 0.5f, 1}, {4},
                                                  DispatchDevice::cpu()),
                DispatchTensor::fromVector<float>({0, 0.1f, 0.2f, -0.3f}, {4},
                                                  DispatchDevice::cpu()),
                1e-5),
      0);
  std::vector<float> got = cpu.toVector<float>();
  std::vector<float> want = {-1.39947f, -4.05465f, -0.525335f, -1.93396f};
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-4) << "element " << i;
}

} // namespace
