//===- ModelTest.cpp - AdamW, clipping, the GPT and its decoding ----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "ErrorMessage.h"
#include "HostDevices.h"

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace kiln;
using test::errorMessage;

namespace {

std::vector<float> values(const DispatchTensor &t) {
  return t.toVector<float>();
}

void expectClose(const std::vector<float> &got, const std::vector<double> &want,
                 double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << "at " << i;
}

//===----------------------------------------------------------------------===//
// AdamW and clipping against the formulas, in double on the host
//===----------------------------------------------------------------------===//

class OptimizerTest : public ::testing::TestWithParam<DispatchDevice> {};

TEST_P(OptimizerTest, AdamWMatchesItsFormula) {
  DispatchDevice ad =
      DispatchDevice::autodiff(GetParam(), CheckpointingStrategy::Disabled);
  std::vector<double> w0 = {0.5, -1.0, 2.0, 0.25, -0.75, 1.5}, b0 = {0.1, -0.2};
  std::vector<float> wf(w0.begin(), w0.end()), bf(b0.begin(), b0.end());
  DispatchTensor w = DispatchTensor::fromVector<float>(wf, {3, 2}, ad);
  DispatchTensor b = DispatchTensor::fromVector<float>(bf, {2}, ad);
  const double lr = 0.05, beta1 = 0.8, beta2 = 0.9, eps = 1e-6, decay = 0.3;
  optim::AdamW opt({&w, &b}, lr, beta1, beta2, eps, decay);
  // loss = sum((x w + b)^2) for x = [1 2 3]: dL/dw_ij = 2 y_j x_i, dL/db_j =
  // 2 y_j.
  const double x[3] = {1, 2, 3};
  std::vector<double> mw(6, 0), vw(6, 0), mb(2, 0), vb(2, 0);
  std::vector<double> wr = w0, br = b0;
  for (int step = 1; step <= 3; ++step) {
    DispatchTensor xs =
        DispatchTensor::fromVector<float>({1, 2, 3}, {1, 3}, GetParam());
    DispatchTensor y = matmul(xs, w) + b;
    opt.step(backward(sum(y * y)));
    kiln::sync({w, b});
    double yr[2];
    for (int j = 0; j < 2; ++j)
      yr[j] = x[0] * wr[j] + x[1] * wr[2 + j] + x[2] * wr[4 + j] + br[j];
    double c1 = 1 - std::pow(beta1, step), c2 = 1 - std::pow(beta2, step);
    auto update = [&](double &p, double g, double &m, double &v, bool decays) {
      m = beta1 * m + (1 - beta1) * g;
      v = beta2 * v + (1 - beta2) * g * g;
      p = p * (1 - lr * (decays ? decay : 0.0)) -
          lr * (m / c1) / (std::sqrt(v / c2) + eps);
    };
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j)
        update(wr[i * 2 + j], 2 * yr[j] * x[i], mw[i * 2 + j], vw[i * 2 + j],
               true);
    // Biases (1-D) are not decayed.
    for (int j = 0; j < 2; ++j)
      update(br[j], 2 * yr[j], mb[j], vb[j], false);
    SCOPED_TRACE("step " + std::to_string(step));
    expectClose(values(w), wr, 1e-5);
    expectClose(values(b), br, 1e-5);
  }
}

TEST_P(OptimizerTest, ClipGradNormScalesByTheGlobalNorm) {
  DispatchDevice ad =
      DispatchDevice::autodiff(GetParam(), CheckpointingStrategy::Disabled);
  DispatchTensor a = DispatchTensor::fromVector<float>({3, 4}, {2}, ad);
  DispatchTensor c = DispatchTensor::fromVector<float>({12}, {1}, ad);
  // d/da sum(a^2 / 2) = a, d/dc = c: the gradients are (3, 4) and (12),
  // whose global norm is 13.
  DispatchTensor loss = sum(a * a) * 0.5 + sum(c * c) * 0.5;
  DispatchTensor norm;
  Gradients clipped = optim::clipGradNorm(backward(loss), 6.5, &norm);
  kiln::sync({clipped.get(a), clipped.get(c), norm});
  EXPECT_NEAR(norm.item<float>(), 13.0, 1e-5);
  double s = 6.5 / (13.0 + 1e-6);
  expectClose(values(clipped.get(a)), {3 * s, 4 * s}, 1e-6);
  expectClose(values(clipped.get(c)), {12 * s}, 1e-6);
  // Under the bound, nothing changes.
  Gradients same = optim::clipGradNorm(backward(loss), 100.0);
  expectClose(values(same.get(a)), {3, 4}, 1e-7);
}

TEST_P(OptimizerTest, ANewLearningRateCompilesNothing) {
  DispatchDevice dev = GetParam();
  DispatchDevice ad =
      DispatchDevice::autodiff(dev, CheckpointingStrategy::Balanced);
  nn::Linear l(4, 3, ad, 1);
  optim::AdamW opt(l.parameters(), 1e-2);
  DispatchTensor x = DispatchTensor::ones({5, 4}, DType::F32, dev);
  auto step = [&] {
    opt.step(optim::clipGradNorm(backward(mean(l.forward(x))), 1.0));
    dev.sync(); // the parameters and the moments
  };
  step();
  step();
  int64_t before = backendCounters(dev).compiles;
  for (int64_t i = 1; i <= 20; ++i) {
    opt.lr = optim::warmupCosine(i, 5, 20, 1e-2, 1e-3);
    step();
  }
  EXPECT_EQ(backendCounters(dev).compiles, before);
}

TEST(OptimizerTest, WarmupCosineSchedule) {
  EXPECT_DOUBLE_EQ(optim::warmupCosine(1, 10, 110, 1.0, 0.1), 0.1);
  EXPECT_DOUBLE_EQ(optim::warmupCosine(10, 10, 110, 1.0, 0.1), 1.0);
  EXPECT_NEAR(optim::warmupCosine(60, 10, 110, 1.0, 0.1), 0.55, 1e-12);
  EXPECT_DOUBLE_EQ(optim::warmupCosine(110, 10, 110, 1.0, 0.1), 0.1);
  EXPECT_DOUBLE_EQ(optim::warmupCosine(500, 10, 110, 1.0, 0.1), 0.1);
}

TEST(OptimizerTest, ClippingToANonPositiveNormIsAnError) {
  DispatchDevice ad = DispatchDevice::autodiff(DispatchDevice::flex(),
                                               CheckpointingStrategy::Disabled);
  DispatchTensor a = DispatchTensor::ones({2}, DType::F32, ad);
  try {
    optim::clipGradNorm(backward(sum(a)), 0.0);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "clipGradNorm: maxNorm must be > 0, got 0.000000");
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, OptimizerTest,
                         ::testing::ValuesIn(test::hostDevices()),
                         [](const ::testing::TestParamInfo<DispatchDevice> &i) {
                           return i.param.str();
                         });

//===----------------------------------------------------------------------===//
// The GPT
//===----------------------------------------------------------------------===//

const nn::GPTConfig kSmall{/*vocab=*/32, /*layers=*/2, /*heads=*/2,
                           /*dim=*/16, /*context=*/8};

DispatchTensor tokens(const std::vector<int64_t> &v, int64_t b,
                      const DispatchDevice &d) {
  return DispatchTensor::fromVector<int64_t>(
      v, {b, static_cast<int64_t>(v.size()) / b}, d);
}

std::vector<int64_t> sequence(int64_t n, int64_t shift, int64_t vocab) {
  std::vector<int64_t> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = (i * 5 + shift) % vocab;
  return v;
}

// The same model on Cpu and on Flex: the loss and every gradient agree.
TEST(GPTTest, CpuMatchesFlexOnTheLossAndEveryGradient) {
  std::vector<std::vector<float>> grads[2];
  float loss[2];
  int k = 0;
  for (DispatchDevice base : {DispatchDevice::cpu(), DispatchDevice::flex()}) {
    DispatchDevice ad =
        DispatchDevice::autodiff(base, CheckpointingStrategy::Balanced);
    nn::GPT gpt(kSmall, ad, 7);
    DispatchTensor l = gpt.loss(tokens(sequence(24, 0, 32), 3, base),
                                tokens(sequence(24, 1, 32), 3, base));
    Gradients g = backward(l);
    std::vector<DispatchTensor> all = {l};
    for (DispatchTensor *p : gpt.parameters())
      all.push_back(g.get(*p));
    kiln::sync(all);
    loss[k] = l.item<float>();
    for (size_t i = 1; i < all.size(); ++i)
      grads[k].push_back(values(all[i]));
    ++k;
  }
  EXPECT_NEAR(loss[0], loss[1], 1e-5 * std::fabs(loss[1]));
  ASSERT_EQ(grads[0].size(), grads[1].size());
  nn::GPT names(kSmall, DispatchDevice::flex(), 7);
  nn::NamedParameters named = names.namedParameters();
  for (size_t i = 0; i < grads[0].size(); ++i) {
    SCOPED_TRACE(named[i].first);
    ASSERT_EQ(grads[0][i].size(), grads[1][i].size());
    float scale = 0;
    for (float v : grads[1][i])
      scale = std::max(scale, std::fabs(v));
    for (size_t j = 0; j < grads[0][i].size(); ++j)
      ASSERT_NEAR(grads[0][i][j], grads[1][i][j], 1e-4f * scale + 1e-7f)
          << "at " << j;
  }
}

/// `steps` AdamW steps with clipping from seed 3; the loss of each and the
/// parameters after.
std::pair<std::vector<float>, std::vector<float>>
train(const DispatchDevice &base, int steps) {
  DispatchDevice ad =
      DispatchDevice::autodiff(base, CheckpointingStrategy::Balanced);
  nn::GPT gpt(kSmall, ad, 3);
  optim::AdamW opt(gpt.parameters(), 1e-2, 0.9, 0.95, 1e-8, 0.1);
  std::vector<float> losses, params;
  for (int s = 0; s < steps; ++s) {
    DispatchTensor l = gpt.loss(tokens(sequence(32, s, 32), 4, base),
                                tokens(sequence(32, s + 1, 32), 4, base));
    opt.step(optim::clipGradNorm(backward(l), 1.0));
    base.sync();
    losses.push_back(l.item<float>());
  }
  for (DispatchTensor *p : gpt.parameters())
    for (float v : values(*p))
      params.push_back(v);
  return {losses, params};
}

TEST(GPTTest, TrainingIsDeterministicAndLearns) {
  for (DispatchDevice base : test::hostDevices()) {
    SCOPED_TRACE(base.str());
    auto a = train(base, 20), b = train(base, 20);
    EXPECT_EQ(a.first, b.first);
    EXPECT_EQ(a.second, b.second);
    // A periodic sequence is learnt quickly.
    EXPECT_LT(a.first.back(), 0.5f * a.first.front());
  }
}

TEST(GPTTest, RepeatedStepsCompileNothing) {
  DispatchDevice cpu = DispatchDevice::cpu();
  train(cpu, 2);
  int64_t before = backendCounters(cpu).compiles;
  // A new model of the same shape (other seeds give other parameter
  // graphs, which compile once each: the same seed here) and 3 steps.
  train(cpu, 3);
  EXPECT_EQ(backendCounters(cpu).compiles, before);
}

// Greedy decoding with the key/value cache picks the tokens that a full
// forward pass over the whole sequence picks, also past the context, where
// the cache restarts from the last context / 2 tokens.
TEST(GPTTest, CachedDecodingMatchesTheFullForwardPass) {
  for (DispatchDevice base : test::hostDevices()) {
    SCOPED_TRACE(base.str());
    nn::GPT gpt(kSmall, base, 11);
    std::vector<int64_t> prompt = {3, 17, 4};
    std::vector<int64_t> got = gpt.generate(prompt, 12, {/*temperature=*/0});
    // The reference: the window the cache holds, run whole each time.
    std::vector<int64_t> want = prompt;
    size_t start = 0;
    for (int i = 0; i < 12; ++i) {
      // The cache holds the window; past the context it keeps the last
      // context / 2 tokens it held, then the new one.
      if (want.size() - start > static_cast<size_t>(kSmall.context))
        start = want.size() - 1 - kSmall.context / 2;
      std::vector<int64_t> window(want.begin() + start, want.end());
      std::vector<float> logits = values(gpt.forward(tokens(window, 1, base)));
      auto last = logits.end() - kSmall.vocab;
      want.push_back(std::max_element(last, logits.end()) - last);
    }
    EXPECT_EQ(got, want);
  }
}

TEST(GPTTest, AGenerateCallCompilesAtMostThreeExecutables) {
  DispatchDevice cpu = DispatchDevice::cpu();
  nn::GPT gpt({256, 2, 4, 32, 128}, cpu, 5);
  for (bool q8 : {false, true})
    for (int64_t len : {1, 7, 64, 128}) {
      SCOPED_TRACE((q8 ? "q8, prompt of " : "f32, prompt of ") +
                   std::to_string(len));
      nn::GPT fresh({256, 2, 4, 32, 128}, cpu, 5 + len + (q8 ? 1000 : 0));
      int64_t before = backendCounters(cpu).compiles;
      std::vector<int64_t> out = fresh.generate(
          sequence(len, 1, 256), 20, {0.8, 20, static_cast<uint64_t>(len), q8});
      EXPECT_EQ(out.size(), static_cast<size_t>(len + 20));
      EXPECT_LE(backendCounters(cpu).compiles - before, 3);
    }
}

TEST(GPTTest, SamplingIsSeededAndQ8StaysClose) {
  nn::GPT gpt(kSmall, DispatchDevice::cpu(), 2);
  std::vector<int64_t> a = gpt.generate({1, 2}, 10, {1.0, 5, 42});
  std::vector<int64_t> b = gpt.generate({1, 2}, 10, {1.0, 5, 42});
  EXPECT_EQ(a, b);
  for (int64_t t : a)
    EXPECT_TRUE(t >= 0 && t < kSmall.vocab);
  // q8 weights change the logits by a little: greedy decoding mostly
  // agrees with f32 on this small model.
  std::vector<int64_t> f = gpt.generate({1, 2}, 16, {0});
  std::vector<int64_t> q = gpt.generate({1, 2}, 16, {0, 0, 0, true});
  int same = 0;
  for (size_t i = 2; i < f.size() && f[i] == q[i]; ++i)
    ++same;
  EXPECT_GE(same, 4);
}

TEST(GPTTest, BadInputsAreErrors) {
  nn::GPT gpt(kSmall, DispatchDevice::flex(), 2);
  EXPECT_EQ(errorMessage([&] { gpt.generate({}, 3); }),
            "GPT::generate: the prompt is empty");
  EXPECT_EQ(errorMessage([&] { gpt.generate({40}, 3); }),
            "GPT::generate: prompt token 40 is out of range for a "
            "vocabulary of 32");
  EXPECT_EQ(errorMessage([&] {
              gpt.forward(
                  tokens(sequence(9, 0, 32), 1, DispatchDevice::flex()));
            }),
            "GPT: 9 tokens are more than the context of 8");
  EXPECT_EQ(errorMessage([&] {
              nn::MultiheadAttention(10, 3, DispatchDevice::flex(), 1);
            }),
            "MultiheadAttention: 3 heads do not divide dim 10");
}

// nn::Conv: PyTorch's shapes and bounds (1/sqrt(fan_in) for weight and
// bias), conv1d or conv2d by the kernel's rank, and errors that name the
// mistake.
TEST(ConvModuleTest, ShapesBoundsAndErrors) {
  DispatchDevice dev = DispatchDevice::flex();
  nn::Conv c2(6, 8, {3, 2}, dev, 5, {{2, 1}, {1, 0}, {}, 2});
  EXPECT_EQ(c2.weight.shape(), Shape({8, 3, 3, 2}));
  ASSERT_TRUE(c2.bias.has_value());
  EXPECT_EQ(c2.namedParameters("conv.").size(), 2u);
  double bound = 1.0 / std::sqrt(3.0 * 3 * 2);
  for (float v : c2.weight.toVector<float>())
    EXPECT_LE(std::fabs(v), bound);
  std::vector<float> w = c2.weight.toVector<float>();
  EXPECT_GT(*std::max_element(w.begin(), w.end()), 0.5 * bound);
  DispatchTensor y =
      c2.forward(DispatchTensor::zeros({2, 6, 9, 7}, DType::F32, dev));
  EXPECT_EQ(y.shape(), Shape({2, 8, 5, 6}));
  nn::Conv c1(4, 5, {3}, dev, 1, {}, false);
  EXPECT_FALSE(c1.bias.has_value());
  EXPECT_EQ(
      c1.forward(DispatchTensor::zeros({2, 4, 10}, DType::F32, dev)).shape(),
      Shape({2, 5, 8}));
  EXPECT_EQ(errorMessage([&] {
              nn::Conv(6, 8, {3, 3}, dev, 1, {{}, {}, {}, 4});
            }),
            "Conv: channels 6 -> 8 must be >= 1 and divisible by groups 4");
  EXPECT_EQ(errorMessage([&] {
              nn::Conv(6, 8, {3, 3, 3}, dev, 1);
            }),
            "Conv: the kernel needs 1 or 2 sizes (conv1d or conv2d), got 3");
  EXPECT_EQ(errorMessage([&] {
              nn::Conv(6, 8, {0, 3}, dev, 1);
            }),
            "Conv: kernel sizes must be >= 1, got 0");
}

//===----------------------------------------------------------------------===//
// SGD, batch norm and ResNet
//===----------------------------------------------------------------------===//

TEST_P(OptimizerTest, SGDWithMomentumDecayAndNesterovMatchesItsFormula) {
  DispatchDevice ad =
      DispatchDevice::autodiff(GetParam(), CheckpointingStrategy::Disabled);
  for (bool nesterov : {false, true}) {
    SCOPED_TRACE(nesterov ? "nesterov" : "plain momentum");
    std::vector<double> wr = {0.5, -1.0, 2.0};
    std::vector<float> wf(wr.begin(), wr.end());
    DispatchTensor w = DispatchTensor::fromVector<float>(wf, {3}, ad);
    const double lr = 0.1, momentum = 0.9, decay = 0.05;
    optim::SGD opt({&w}, lr, momentum, decay, nesterov);
    std::vector<double> v(3, 0.0);
    for (int step = 1; step <= 3; ++step) {
      // loss = sum(w^3) / 3: dL/dw = w^2.
      opt.step(backward(sum(w * w * w) * (1.0 / 3)));
      kiln::sync({w});
      for (int i = 0; i < 3; ++i) {
        double g = wr[i] * wr[i] + decay * wr[i];
        v[i] = momentum * v[i] + g;
        wr[i] -= lr * (nesterov ? g + momentum * v[i] : v[i]);
      }
      SCOPED_TRACE("step " + std::to_string(step));
      expectClose(values(w), wr, 1e-5);
    }
  }
  DispatchTensor w = DispatchTensor::fromVector<float>({1}, {1}, ad);
  EXPECT_EQ(errorMessage([&] { optim::SGD({&w}, 0.1, 0.0, 0.0, true); }),
            "SGD: Nesterov momentum needs a momentum > 0");
}

TEST(BatchNormModuleTest, TrainingUpdatesTheRunningStatisticsAndEvalUsesThem) {
  DispatchDevice dev = DispatchDevice::flex();
  nn::BatchNorm bn(2, dev, 1e-5, 0.5);
  EXPECT_EQ(bn.namedParameters("bn.").size(), 2u);
  EXPECT_EQ(bn.namedState("bn.").back().first, "bn.running_var");
  // Channel 0 holds 1, 3; channel 1 holds 2, 6 (N = 2, L = 1).
  DispatchTensor x =
      DispatchTensor::fromVector<float>({1, 2, 3, 6}, {2, 2, 1}, dev);
  expectClose(values(bn.forward(x)), {-1, -1, 1, 1}, 1e-4);
  // Batch means 2 and 4, unbiased variances 2 and 8, momentum 0.5.
  expectClose(values(bn.runningMean), {1, 2}, 1e-6);
  expectClose(values(bn.runningVar), {1.5, 4.5}, 1e-6);
  bn.train(false);
  expectClose(values(bn.forward(x)),
              {(1 - 1) / std::sqrt(1.5 + 1e-5), (2 - 2) / std::sqrt(4.5 + 1e-5),
               (3 - 1) / std::sqrt(1.5 + 1e-5),
               (6 - 2) / std::sqrt(4.5 + 1e-5)},
              1e-5);
  // Evaluation leaves the statistics alone.
  expectClose(values(bn.runningMean), {1, 2}, 1e-6);
  EXPECT_EQ(errorMessage([&] { nn::GroupNorm(3, 4, dev); }),
            "GroupNorm: 3 groups must be >= 1 and divide the 4 channels");
}

TEST(DropoutModuleTest, EachTrainingCallDrawsTheNextMaskFromOneExecutable) {
  DispatchDevice cpu = DispatchDevice::cpu();
  std::vector<float> ones(257, 1.0f);
  DispatchTensor x = DispatchTensor::fromVector<float>(ones, {257}, cpu);
  nn::Dropout drop(0.25, 5);
  // Call k draws the mask of seed 5 + k: kiln::dropout's offset.
  std::vector<float> first = values(drop.forward(x));
  EXPECT_EQ(first, values(dropout(x, 0.25, 5)));
  int64_t before = backendCounters(cpu).compiles;
  std::vector<float> second = values(drop.forward(x));
  std::vector<float> third = values(drop.forward(x));
  EXPECT_EQ(backendCounters(cpu).compiles, before)
      << "a new offset compiled a new executable";
  EXPECT_EQ(second, values(dropout(x, 0.25, 6)));
  EXPECT_EQ(third, values(dropout(x, 0.25, 7)));
  EXPECT_NE(first, second);
  EXPECT_NE(second, third);
  for (float v : third)
    EXPECT_TRUE(v == 0.0f || v == 1.0f / 0.75f) << v;
  drop.train(false);
  EXPECT_EQ(values(drop.forward(x)), ones);
  EXPECT_EQ(drop.calls, 3);
  EXPECT_EQ(errorMessage([] { nn::Dropout(1.0); }),
            "Dropout: p must be in [0, 1), got 1.000000");
}

/// A narrow ResNet for 16x16 images: one block per stage.
nn::ResNetConfig tinyResNet() {
  nn::ResNetConfig c;
  c.blocks = {1, 1, 1, 1};
  c.classes = 3;
  c.smallInputs = true;
  return c;
}

TEST(ResNetTest, NamesShapesAndTrainingSteps) {
  DispatchDevice cpu = DispatchDevice::cpu();
  nn::ResNet net(tinyResNet(), cpu, 7);
  nn::NamedParameters state = net.namedState();
  std::vector<std::string> names;
  for (auto &[name, t] : state)
    names.push_back(name);
  for (const char *want :
       {"conv1.weight", "bn1.running_mean", "layer1.0.conv2.weight",
        "layer2.0.downsample.0.weight", "layer4.0.downsample.1.running_var",
        "fc.bias"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  EXPECT_LT(net.parameters().size(), state.size());
  // Four images of three classes, each class a constant plane; the loss
  // falls over a few SGD steps with batch statistics.
  std::vector<float> images;
  std::vector<int64_t> labels = {0, 1, 2, 1};
  for (int64_t label : labels)
    for (int i = 0; i < 3 * 16 * 16; ++i)
      images.push_back(float(label) - 1 + 0.1f * float(i % 7));
  DispatchTensor x =
      DispatchTensor::fromVector<float>(images, {4, 3, 16, 16}, cpu);
  DispatchTensor y = DispatchTensor::fromVector<int64_t>(labels, {4}, cpu);
  optim::SGD opt(net.parameters(), 0.05, 0.9, 5e-4);
  std::vector<float> losses;
  for (int step = 0; step < 4; ++step) {
    DispatchTensor loss = crossEntropy(net.forward(x), y);
    opt.step(backward(loss));
    cpu.sync();
    losses.push_back(loss.item<float>());
  }
  EXPECT_LT(losses.back(), losses.front());
  // Evaluation mode uses the running statistics, which saved and loaded
  // state carries: a new model with the loaded state gives the same logits.
  net.eval();
  std::vector<float> logits = values(net.forward(x));
  std::string path = ::testing::TempDir() + "resnet_state.safetensors";
  nn::save(net.namedState(), path);
  nn::ResNet copy(tinyResNet(), cpu, 99);
  copy.eval();
  nn::load(copy.namedState(), path);
  expectClose(values(copy.forward(x)),
              std::vector<double>(logits.begin(), logits.end()), 1e-5);
  std::remove(path.c_str());
  nn::ResNetConfig bad = tinyResNet();
  bad.blocks = {1, 1};
  EXPECT_EQ(errorMessage([&] { nn::ResNet(bad, cpu, 1); }),
            "ResNet: needs blocks for 4 stages, got 2");
}

} // namespace
