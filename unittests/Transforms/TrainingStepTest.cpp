//===- TrainingStepTest.cpp - A repeated training step compiles once ------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Forward, backward and the optimizer update are one graph per step; the
// next step records the same graph over new buffers, so from the first
// repeat on it must come from the executable cache.
//
//===----------------------------------------------------------------------===//

#include "GradCheck.h"

#include <cstdlib>
#include <filesystem>

using namespace kiln;
using namespace kiln::test;

namespace {

class TrainingStepTest : public ::testing::Test {
protected:
  void SetUp() override {
    cache_ = std::filesystem::temp_directory_path() /
             ("kiln-training-step-" + std::to_string(::getpid()));
    ::setenv("KILN_CACHE_DIR", cache_.c_str(), 1);
  }
  void TearDown() override { std::filesystem::remove_all(cache_); }
  std::filesystem::path cache_;
};

Tensor data(Shape shape, uint64_t seed, const DispatchDevice &device) {
  std::vector<float> v;
  for (double x : uniform(shape.numel(), seed, -1, 1))
    v.push_back(static_cast<float>(x));
  return Tensor::fromVector<float>(v, shape, device);
}

/// Linear -> gelu -> Linear, squared error, one optimizer step per call;
/// returns the compiles of each of `steps` steps.
template <typename Optimizer, typename... Args>
std::vector<int64_t> compilesPerStep(int steps, Args... args) {
  DispatchDevice cpu = DispatchDevice::cpu();
  DispatchDevice ad =
      DispatchDevice::autodiff(cpu, CheckpointingStrategy::Balanced);
  nn::Linear l1(8, 16, ad, 1), l2(16, 3, ad, 2);
  std::vector<Tensor *> params = l1.parameters();
  for (Tensor *p : l2.parameters())
    params.push_back(p);
  Optimizer opt(params, args...);
  std::vector<int64_t> compiles;
  std::vector<float> losses;
  for (int step = 0; step < steps; ++step) {
    int64_t before = backendCounters(cpu).compiles;
    // The same batch each step (new tensors, same shapes): the loss must fall.
    Tensor x = data({4, 8}, 100, cpu), y = data({4, 3}, 200, cpu);
    Tensor d = l2.forward(gelu(l1.forward(x))) - y;
    Tensor loss = mean(d * d);
    opt.step(backward(loss));
    cpu.sync();
    losses.push_back(loss.item<float>());
    compiles.push_back(backendCounters(cpu).compiles - before);
  }
  EXPECT_LT(losses.back(), losses.front());
  return compiles;
}

TEST_F(TrainingStepTest, AdamStepCompilesOnce) {
  std::vector<int64_t> c = compilesPerStep<optim::Adam>(4, 1e-2);
  EXPECT_GT(c[0], 0);
  EXPECT_EQ(c[1], 0) << "the first repeated step compiled";
  EXPECT_EQ(c[2], 0);
  EXPECT_EQ(c[3], 0);
}

TEST_F(TrainingStepTest, SGDMomentumStepCompilesOnce) {
  std::vector<int64_t> c = compilesPerStep<optim::SGD>(4, 1e-1, 0.9);
  EXPECT_GT(c[0], 0);
  EXPECT_EQ(c[1], 0) << "the first repeated step compiled";
  EXPECT_EQ(c[2], 0);
  EXPECT_EQ(c[3], 0);
}

TEST_F(TrainingStepTest, PlainSGDStepCompilesOnce) {
  std::vector<int64_t> c = compilesPerStep<optim::SGD>(4, 1e-1);
  EXPECT_EQ(c[1], 0) << "the first repeated step compiled";
  EXPECT_EQ(c[2], 0);
  EXPECT_EQ(c[3], 0);
}

} // namespace
