//===- TransformerGradCheckTest.cpp - Gradients of the transformer --------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// backward() through causal attention, a transformer block and a whole GPT
// loss against central differences, in f64 on Flex: the modules' f32
// parameters are swapped for f64 inputs, so the graphs are exactly the
// ones the modules record.
//
//===----------------------------------------------------------------------===//

#include "GradCheck.h"

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kiln;
using namespace kiln::test;

namespace {

const Tolerance kTol{1e-6, 1e-5};
constexpr double kStep = 1e-6;

/// Random f64 inputs shaped like `params`, for gradCheck.
std::vector<GradInput> shapedLike(const nn::NamedParameters &params,
                                  uint64_t seed, double scale) {
  std::vector<GradInput> in;
  for (size_t i = 0; i < params.size(); ++i)
    in.push_back(
        randomInput(params[i].second->shape(), seed + i, -scale, scale));
  return in;
}

/// Binds the f64 inputs `xs` (from `first` on) to `params`, in order.
void bindParameters(const nn::NamedParameters &params,
                    const std::vector<DispatchTensor> &xs, size_t first) {
  for (size_t i = 0; i < params.size(); ++i)
    *params[i].second = xs[first + i];
}

/// The checks would pass with every gradient zero if `f` ignored its
/// inputs: the outputs must move when any differentiated input does.
::testing::AssertionResult readsEveryInput(const GradFn &f,
                                           const std::vector<GradInput> &in) {
  DispatchDevice flex = DispatchDevice::flex();
  auto outputs = [&](size_t moved) {
    std::vector<DispatchTensor> xs;
    for (size_t i = 0; i < in.size(); ++i) {
      std::vector<double> v = in[i].values;
      // Not a uniform shift: a LayerNorm'd model does not see one.
      if (i == moved)
        for (size_t j = 0; j < v.size(); ++j)
          v[j] += 0.01 * std::sin(static_cast<double>(j) + 1);
      xs.push_back(makeTensor(in[i], v, flex));
    }
    std::vector<double> all;
    for (const DispatchTensor &y : f(xs))
      for (double x : valuesOf(y))
        all.push_back(x);
    return all;
  };
  std::vector<double> base = outputs(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    if (!in[i].constant && outputs(i) == base)
      return ::testing::AssertionFailure() << "input " << i << " is not read";
  return ::testing::AssertionSuccess();
}

TEST(TransformerGradCheck, CausalAttention) {
  nn::MultiheadAttention attn(8, 2, DispatchDevice::flex(), 1);
  nn::NamedParameters params = attn.namedParameters("");
  std::vector<GradInput> inputs = {randomInput({2, 5, 8}, 3)};
  for (GradInput &p : shapedLike(params, 10, 0.5))
    inputs.push_back(p);
  GradFn f = [&](const std::vector<DispatchTensor> &xs) {
    bindParameters(params, xs, 1);
    return std::vector<DispatchTensor>{attn.forward(xs[0])};
  };
  ASSERT_TRUE(readsEveryInput(f, inputs));
  for (CheckpointingStrategy s :
       {CheckpointingStrategy::Disabled, CheckpointingStrategy::Balanced}) {
    SCOPED_TRACE(s.str());
    EXPECT_TRUE(gradCheck(f, inputs, s, kTol, kStep));
  }
}

TEST(TransformerGradCheck, Block) {
  nn::TransformerBlock block(8, 2, DispatchDevice::flex(), 1);
  nn::NamedParameters params = block.namedParameters("");
  std::vector<GradInput> inputs = {randomInput({2, 4, 8}, 5)};
  for (GradInput &p : shapedLike(params, 20, 0.5))
    inputs.push_back(p);
  GradFn f = [&](const std::vector<DispatchTensor> &xs) {
    bindParameters(params, xs, 1);
    return std::vector<DispatchTensor>{block.forward(xs[0])};
  };
  ASSERT_TRUE(readsEveryInput(f, inputs));
  EXPECT_TRUE(
      gradCheck(f, inputs, CheckpointingStrategy::Balanced, kTol, kStep));
}

TEST(TransformerGradCheck, GPTLoss) {
  nn::GPT gpt({/*vocab=*/11, /*layers=*/2, /*heads=*/2, /*dim=*/8,
               /*context=*/4},
              DispatchDevice::flex(), 1);
  nn::NamedParameters params = gpt.namedParameters();
  std::vector<GradInput> inputs = {indices({2, 4}, {1, 5, 9, 2, 0, 10, 3, 3}),
                                   indices({2, 4}, {5, 9, 2, 7, 10, 3, 3, 4})};
  for (GradInput &p : shapedLike(params, 40, 0.5))
    inputs.push_back(p);
  GradFn f = [&](const std::vector<DispatchTensor> &xs) {
    bindParameters(params, xs, 2);
    return std::vector<DispatchTensor>{gpt.loss(xs[0], xs[1])};
  };
  ASSERT_TRUE(readsEveryInput(f, inputs));
  EXPECT_TRUE(
      gradCheck(f, inputs, CheckpointingStrategy::Balanced, kTol, kStep));
}

} // namespace
