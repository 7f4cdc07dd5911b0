//===- CheckpointingTest.cpp - Strategies agree; Budget keeps its bound ---===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Checkpointing decides what backward saves and what it recomputes, never
// what it computes: Disabled, Balanced and Budget(bytes) must give the same
// loss and gradients (to rounding) on Flex and on Cpu. Budget(bytes) must
// keep a step's measured peak under its budget when the budget lies between
// what Balanced and Disabled need.
//
//===----------------------------------------------------------------------===//

#include "GradCheck.h"

#include <cstdlib>
#include <functional>
#include <filesystem>

using namespace kiln;
using namespace kiln::test;

namespace {

class CheckpointingTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    cache_ = std::filesystem::temp_directory_path() /
             ("kiln-checkpointing-" + std::to_string(::getpid()));
    ::setenv("KILN_CACHE_DIR", cache_.c_str(), 1);
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(cache_); }
  static std::filesystem::path cache_;
};
std::filesystem::path CheckpointingTest::cache_;

/// Loss and gradients of one step, in parameter order.
struct Step {
  double loss;
  std::vector<std::vector<double>> grads;
};

Tensor inputs(Shape shape, uint64_t seed, const DispatchDevice &device) {
  std::vector<float> v;
  for (double x : uniform(shape.numel(), seed, -1, 1))
    v.push_back(static_cast<float>(x));
  return Tensor::fromVector<float>(v, shape, device.backend());
}

/// x -> Linear -> gelu -> Linear -> tanh -> Linear, squared error.
Step mlpStep(const DispatchDevice &device, int64_t batch = 8,
             int64_t width = 32) {
  nn::Linear l1(16, width, device, 1), l2(width, width, device, 3),
      l3(width, 4, device, 5);
  Tensor x = inputs({batch, 16}, 7, device), y = inputs({batch, 4}, 8, device);
  Tensor h = tanh(l2.forward(gelu(l1.forward(x))));
  Tensor d = l3.forward(h) - y;
  Tensor loss = mean(d * d);
  Gradients g = backward(loss);
  std::vector<Tensor> params;
  for (nn::Linear *l : {&l1, &l2, &l3})
    for (Tensor *p : l->parameters())
      params.push_back(*p);
  std::vector<Tensor> all = g.all();
  all.push_back(loss);
  sync(all);
  Step s{valuesOf(loss)[0], {}};
  for (const Tensor &p : params)
    s.grads.push_back(valuesOf(g.get(p)));
  return s;
}

/// Pre-norm residual blocks: h = h + Linear(gelu(LayerNorm(h))).
Step residualStep(const DispatchDevice &device, int kBlocks = 3,
                  int64_t batch = 6, int64_t width = 12) {
  std::vector<nn::LayerNorm> norms;
  std::vector<nn::Linear> linears;
  for (int i = 0; i < kBlocks; ++i) {
    norms.emplace_back(width, device);
    linears.emplace_back(width, width, device, 10 + i);
  }
  Tensor h = inputs({batch, width}, 20, device),
         y = inputs({batch, width}, 21, device);
  for (int i = 0; i < kBlocks; ++i)
    h = h + linears[i].forward(gelu(norms[i].forward(h)));
  Tensor d = h - y;
  Tensor loss = mean(d * d);
  Gradients g = backward(loss);
  std::vector<Tensor> all = g.all();
  all.push_back(loss);
  sync(all);
  Step s{valuesOf(loss)[0], {}};
  for (int i = 0; i < kBlocks; ++i) {
    for (Tensor *p : norms[i].parameters())
      s.grads.push_back(valuesOf(g.get(*p)));
    for (Tensor *p : linears[i].parameters())
      s.grads.push_back(valuesOf(g.get(*p)));
  }
  return s;
}

void expectSame(const Step &got, const Step &want, const std::string &what) {
  // Recomputing an op gives its value again, but on Cpu the recomputed
  // values fuse into different kernels: allow the table's bound for the
  // longest reductions of the step (matmul).
  Tolerance tol = tolerance("kiln.matmul", DType::F32);
  EXPECT_TRUE(allClose({got.loss}, {want.loss}, tol)) << what << ": loss";
  ASSERT_EQ(got.grads.size(), want.grads.size()) << what;
  for (size_t i = 0; i < got.grads.size(); ++i)
    EXPECT_TRUE(allClose(got.grads[i], want.grads[i], tol))
        << what << ": parameter " << i;
}

std::vector<CheckpointingStrategy> strategies() {
  return {CheckpointingStrategy::Balanced,
          CheckpointingStrategy::Budget(64 << 10),
          CheckpointingStrategy::Budget(1)};
}

TEST_F(CheckpointingTest, StrategiesAgreeOnMLP) {
  for (DispatchDevice base : {DispatchDevice::flex(), DispatchDevice::cpu()}) {
    Step want = mlpStep(
        DispatchDevice::autodiff(base, CheckpointingStrategy::Disabled));
    for (CheckpointingStrategy s : strategies())
      expectSame(mlpStep(DispatchDevice::autodiff(base, s)), want,
                 base.str() + " " + s.str());
  }
}

TEST_F(CheckpointingTest, StrategiesAgreeOnResidualLayerNorm) {
  for (DispatchDevice base : {DispatchDevice::flex(), DispatchDevice::cpu()}) {
    Step want = residualStep(
        DispatchDevice::autodiff(base, CheckpointingStrategy::Disabled));
    for (CheckpointingStrategy s : strategies())
      expectSame(residualStep(DispatchDevice::autodiff(base, s)), want,
                 base.str() + " " + s.str());
  }
}

/// Peak bytes of one forward + backward step of eight residual blocks on
/// Cpu (the deep_mlp_memory workload, small): Balanced recomputes the
/// layer norms instead of keeping them.
int64_t peakOfStep(CheckpointingStrategy s) {
  DispatchDevice cpu = DispatchDevice::cpu();
  DispatchDevice ad = DispatchDevice::autodiff(cpu, s);
  // Compile first, so that only the measured run allocates.
  residualStep(ad, 8, 128, 256);
  resetPeakMemory(cpu);
  residualStep(ad, 8, 128, 256);
  return memoryStats(cpu).peakBytes;
}

/// Kernels one step of `step` runs on Cpu under `strategy`, once compiled.
int64_t kernelsOfStep(CheckpointingStrategy strategy,
                      const std::function<void(const DispatchDevice &)> &step) {
  DispatchDevice cpu = DispatchDevice::cpu();
  DispatchDevice ad = DispatchDevice::autodiff(cpu, strategy);
  step(ad);
  int64_t before = backendCounters(cpu).executedOps;
  step(ad);
  return backendCounters(cpu).executedOps - before;
}

// Balanced recomputes an elementwise value inside each backward kernel that
// reads it (a matmul's prologue or epilogue, or an elementwise kernel), so
// on Cpu its step runs no more kernels than Disabled's: recomputation makes
// no pass over memory of its own. (Before prologues, the MLP step's
// recomputed gelu and its input took two kernels of their own.)
TEST_F(CheckpointingTest, RecomputationRunsInsideBackwardKernels) {
  auto mlp = [](const DispatchDevice &d) { mlpStep(d, 64, 256); };
  int64_t disabled = kernelsOfStep(CheckpointingStrategy::Disabled, mlp);
  int64_t balanced = kernelsOfStep(CheckpointingStrategy::Balanced, mlp);
  std::printf("kernels of an MLP step: disabled %lld, balanced %lld\n",
              static_cast<long long>(disabled),
              static_cast<long long>(balanced));
  EXPECT_LE(balanced, disabled);
}

TEST_F(CheckpointingTest, BudgetKeepsPeakUnderBudget) {
  int64_t disabled = peakOfStep(CheckpointingStrategy::Disabled);
  int64_t balanced = peakOfStep(CheckpointingStrategy::Balanced);
  std::printf("peak of a step: disabled %lld bytes, balanced %lld bytes\n",
              static_cast<long long>(disabled),
              static_cast<long long>(balanced));
  ASSERT_LT(balanced, disabled);
  int64_t budget = (balanced + disabled) / 2;
  int64_t peak = peakOfStep(CheckpointingStrategy::Budget(budget));
  std::printf("budget %lld bytes: peak %lld bytes\n",
              static_cast<long long>(budget), static_cast<long long>(peak));
  EXPECT_LE(peak, budget);
}

/// An MLP training step with an SGD update that replaces the weights (the
/// old ones die at their update), as nn and optim run it.
struct TrainingStep {
  nn::Linear l1, l2;
  Tensor x, y;
  optim::SGD sgd;

  static std::vector<Tensor *> paramsOf(nn::Linear &a, nn::Linear &b) {
    std::vector<Tensor *> ps = a.parameters();
    for (Tensor *p : b.parameters())
      ps.push_back(p);
    return ps;
  }
  explicit TrainingStep(const DispatchDevice &device)
      : l1(512, 2048, device, 1), l2(2048, 512, device, 2),
        x(inputs({256, 512}, 3, device)), y(inputs({256, 512}, 4, device)),
        sgd(paramsOf(l1, l2), 0.01) {}

  Tensor loss() const {
    Tensor d = l2.forward(gelu(l1.forward(x), true)) - y;
    return mean(d * d);
  }
  void run() {
    Tensor l = loss();
    sgd.step(backward(l));
    sync({l, l1.weight, *l1.bias, l2.weight, *l2.bias});
  }
};

/// The peak and the kernels run of one compiled training step on Cpu.
std::pair<int64_t, int64_t> trainingStepOn(CheckpointingStrategy s) {
  DispatchDevice cpu = DispatchDevice::cpu();
  TrainingStep step(DispatchDevice::autodiff(cpu, s));
  step.run();
  resetPeakMemory(cpu);
  int64_t before = backendCounters(cpu).executedOps;
  step.run();
  return {memoryStats(cpu).peakBytes,
          backendCounters(cpu).executedOps - before};
}

// Budget plans with the kernels the backend runs and the inputs the step
// gives up: with a budget between the peaks Disabled and Balanced measure,
// which Balanced's plan already meets, it recomputes nothing more (the
// same kernels run as under Balanced; its model once counted every value
// and both the old and the new weights, and recomputed the forward
// matmuls for such a budget).
TEST_F(CheckpointingTest, BudgetRecomputesNoMoreThanTheBudgetNeeds) {
  auto [disabled, disabledKernels] =
      trainingStepOn(CheckpointingStrategy::Disabled);
  auto [balanced, balancedKernels] =
      trainingStepOn(CheckpointingStrategy::Balanced);
  ASSERT_LT(balanced, disabled);
  int64_t budget = (disabled + balanced) / 2;
  auto [peak, kernels] = trainingStepOn(CheckpointingStrategy::Budget(budget));
  std::printf(
      "training step: disabled %lld bytes (%lld kernels), balanced "
      "%lld (%lld), budget %lld: %lld (%lld)\n",
      static_cast<long long>(disabled), static_cast<long long>(disabledKernels),
      static_cast<long long>(balanced), static_cast<long long>(balancedKernels),
      static_cast<long long>(budget), static_cast<long long>(peak),
      static_cast<long long>(kernels));
  EXPECT_LE(peak, budget);
  EXPECT_EQ(kernels, balancedKernels);
}

} // namespace
