//===- DynamicDimsTest.cpp - One compile for every batch size ------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A training step on Cpu whose batch dim is marked dynamic compiles once
// for batches 16, 1, 7, 33, 64 and 16 again, and computes what Flex
// computes at each batch. Without marking, under KILN_AUTO_DYNAMIC=1, the
// second batch size makes the batch dim dynamic, so the step compiles at
// most twice.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>

using namespace kiln;

namespace {

struct Step {
  float loss;
  std::vector<float> w1, b1, w2;
};

/// One SGD step of a 2-layer MLP with a cross-entropy loss, from the same
/// initial parameters on every call, at `batch` rows.
Step trainStep(const DispatchDevice &inner, int64_t batch, bool mark,
               bool tanhActivation = false) {
  auto dev = DispatchDevice::autodiff(inner, CheckpointingStrategy::Balanced);
  nn::Linear l1(12, 16, dev, 1), l2(16, 5, dev, 2);
  std::vector<float> xs(batch * 12);
  std::vector<int64_t> ys(batch);
  for (int64_t i = 0; i < batch * 12; ++i)
    xs[i] = std::sin(0.37f * static_cast<float>(i) + 0.1f);
  for (int64_t i = 0; i < batch; ++i)
    ys[i] = (i * 3 + 1) % 5;
  Tensor x = Tensor::fromVector<float>(xs, {batch, 12}, dev);
  Tensor y = Tensor::fromVector<int64_t>(ys, {batch}, dev);
  if (mark) {
    x.markDynamic(0);
    y.markDynamic(0);
  }
  Tensor h = l1.forward(x);
  h = tanhActivation ? tanh(h) : gelu(h);
  Tensor loss = crossEntropy(l2.forward(h), y);
  Gradients g = backward(loss);
  std::vector<DispatchTensor *> params = l1.parameters();
  for (DispatchTensor *p : l2.parameters())
    params.push_back(p);
  optim::SGD sgd(params, 0.1);
  sgd.step(g);
  kiln::sync({loss, l1.weight, *l1.bias, l2.weight});
  return {loss.item<float>(), l1.weight.toVector<float>(),
          l1.bias->toVector<float>(), l2.weight.toVector<float>()};
}

void expectNear(const std::vector<float> &a, const std::vector<float> &b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], b[i], 1e-5f + 1e-4f * std::fabs(b[i])) << "at " << i;
}

const std::vector<int64_t> kBatches = {16, 1, 7, 33, 64, 16};

TEST(DynamicDimsTest, MarkedBatchCompilesOnce) {
  DispatchDevice cpu = DispatchDevice::cpu();
  // The parameters' creation compiles graphs of its own: count the steps'.
  trainStep(cpu, 3, false);
  int64_t before = backendCounters(cpu).compiles;
  trainStep(cpu, 16, true);
  int64_t first = backendCounters(cpu).compiles;
  EXPECT_GE(first - before, 1);
  for (int64_t batch : kBatches) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Step got = trainStep(cpu, batch, true);
    Step want = trainStep(DispatchDevice::flex(), batch, false);
    EXPECT_NEAR(got.loss, want.loss, 1e-5f * std::fabs(want.loss) + 1e-6f);
    expectNear(got.w1, want.w1);
    expectNear(got.b1, want.b1);
    expectNear(got.w2, want.w2);
  }
  EXPECT_EQ(backendCounters(cpu).compiles, first)
      << "a new batch size compiled";
}

// Unmarked, with KILN_AUTO_DYNAMIC=1, the second batch size (1, after 16)
// recompiles once, and that compile is general: no later batch size
// compiles.
TEST(DynamicDimsTest, BatchBecomesDynamicAfterOneRecompile) {
  ::setenv("KILN_AUTO_DYNAMIC", "1", 1);
  DispatchDevice cpu = DispatchDevice::cpu();
  trainStep(cpu, 16, false, true); // the parameters' graphs, the step's
  int64_t before = backendCounters(cpu).compiles;
  for (int64_t batch : kBatches) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Step got = trainStep(cpu, batch, false, true);
    Step want = trainStep(DispatchDevice::flex(), batch, false, true);
    EXPECT_NEAR(got.loss, want.loss, 1e-5f * std::fabs(want.loss) + 1e-6f);
    expectNear(got.w1, want.w1);
    expectNear(got.w2, want.w2);
  }
  EXPECT_LE(backendCounters(cpu).compiles - before, 1)
      << "the batch dim did not become dynamic";
  ::unsetenv("KILN_AUTO_DYNAMIC");
}

/// One SGD step (gradients clipped) of a 2-layer GPT over `batch`
/// sequences of 16 bytes, from the same initial parameters on every call:
/// the loss, every gradient, then every updated parameter. (Not AdamW: the
/// gradient of a key's bias is zero but for rounding, which AdamW's
/// normalized update would turn into steps of the learning rate.)
std::vector<std::vector<float>> gptStep(const DispatchDevice &inner,
                                        int64_t batch, bool mark) {
  auto dev = DispatchDevice::autodiff(inner, CheckpointingStrategy::Balanced);
  nn::GPTConfig c;
  c.vocab = 64;
  c.layers = 2;
  c.heads = 2;
  c.dim = 32;
  c.context = 16;
  nn::GPT gpt(c, dev, 3);
  optim::SGD sgd(gpt.parameters(), 0.5);
  std::vector<int64_t> xs, ys;
  for (int64_t i = 0; i < batch * c.context; ++i) {
    xs.push_back((i * 7 + 3) % c.vocab);
    ys.push_back((i * 5 + 1) % c.vocab);
  }
  Tensor x = Tensor::fromVector<int64_t>(xs, {batch, c.context}, inner);
  Tensor y = Tensor::fromVector<int64_t>(ys, {batch, c.context}, inner);
  if (mark) {
    x.markDynamic(0);
    y.markDynamic(0);
  }
  Tensor loss = gpt.loss(x, y);
  Gradients g = optim::clipGradNorm(backward(loss), 1.0);
  std::vector<Tensor> grads;
  for (DispatchTensor *p : gpt.parameters())
    grads.push_back(g.get(*p));
  sgd.step(g);
  inner.sync();
  std::vector<std::vector<float>> out{loss.toVector<float>()};
  for (Tensor &t : grads)
    out.push_back(t.toVector<float>());
  for (DispatchTensor *p : gpt.parameters())
    out.push_back(p->toVector<float>());
  return out;
}

// A GPT training step whose batch dim is marked dynamic compiles once for
// every batch size: its layers' products over [B, T] rows run as B * T
// rows, attention's over [B, H, T, T] count their batches at run time, and
// the weights' gradients sum over B * T.
TEST(DynamicDimsTest, GptStepCompilesOnceForEveryBatch) {
  DispatchDevice cpu = DispatchDevice::cpu();
  gptStep(cpu, 3, false); // the parameters' graphs
  gptStep(cpu, 16, true);
  int64_t before = backendCounters(cpu).compiles;
  for (int64_t batch : kBatches) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    auto got = gptStep(cpu, batch, true);
    auto want = gptStep(DispatchDevice::flex(), batch, false);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      SCOPED_TRACE("value " + std::to_string(i));
      expectNear(got[i], want[i]);
    }
  }
  EXPECT_EQ(backendCounters(cpu).compiles, before)
      << "a new batch size compiled";
}

// Unmarked, the second batch size makes the GPT step's batch dim dynamic
// (its reshapes to [B, T, ...] do not keep the graphs apart): one more
// compile, general, and none after it.
TEST(DynamicDimsTest, GptBatchBecomesDynamicAfterOneRecompile) {
  ::setenv("KILN_AUTO_DYNAMIC", "1", 1);
  DispatchDevice cpu = DispatchDevice::cpu();
  gptStep(cpu, 5, false);
  int64_t before = backendCounters(cpu).compiles;
  for (int64_t batch : {3, 9, 1, 16}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    auto got = gptStep(cpu, batch, false);
    auto want = gptStep(DispatchDevice::flex(), batch, false);
    expectNear(got[0], want[0]);
  }
  EXPECT_LE(backendCounters(cpu).compiles - before, 1)
      << "the batch dim did not become dynamic";
  ::unsetenv("KILN_AUTO_DYNAMIC");
}

/// Every kind of kernel with a dynamic leading dim against Flex, at sizes
/// 1, 2, 7, 64 and 1000, from one executable per graph.
/// `graphs(device, n, mark)` records graphs over n rows (dim 0 marked
/// dynamic when `mark`) and returns their results. Compiled on Cpu once at
/// `first` rows, they must match Flex at every size of `sizes` without a
/// further compile.
using Graphs = std::function<std::vector<std::vector<float>>(
    const DispatchDevice &, int64_t, bool)>;
void expectOneExecutableMatchesFlex(const Graphs &graphs, int64_t first,
                                    std::initializer_list<int64_t> sizes) {
  DispatchDevice cpu = DispatchDevice::cpu(), flex = DispatchDevice::flex();
  graphs(cpu, first, true); // compile
  int64_t before = backendCounters(cpu).compiles;
  for (int64_t n : sizes) {
    SCOPED_TRACE("size " + std::to_string(n));
    auto got = graphs(cpu, n, true), want = graphs(flex, n, false);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      SCOPED_TRACE("graph result " + std::to_string(k));
      expectNear(got[k], want[k]);
    }
  }
  EXPECT_EQ(backendCounters(cpu).compiles, before);
}

TEST(DynamicDimsTest, EveryKernelKindMatchesFlexAtEverySize) {
  const int64_t width = 24;
  std::vector<float> ws(width * 8), bs(8);
  for (size_t i = 0; i < ws.size(); ++i)
    ws[i] = std::cos(0.11f * static_cast<float>(i));
  for (size_t i = 0; i < bs.size(); ++i)
    bs[i] = 0.25f * static_cast<float>(i) - 1.0f;
  // Elementwise with a broadcast row, a row softmax, a column sum (over the
  // dynamic dim), a matmul with its epilogue, a matmul that reduces over
  // the dynamic dim (x^T y), a gather (the generic path) and a full sum
  // (parts of a length known at run time).
  auto graphs = [&](const DispatchDevice &dev, int64_t n, bool mark) {
    std::vector<float> xs(n * width);
    std::vector<int64_t> idx(n);
    for (int64_t i = 0; i < n * width; ++i)
      xs[i] = std::sin(0.013f * static_cast<float>(i) + 0.2f);
    for (int64_t i = 0; i < n; ++i)
      idx[i] = (i * 7) % width;
    Tensor x = Tensor::fromVector<float>(xs, {n, width}, dev);
    Tensor ix = Tensor::fromVector<int64_t>(idx, {n, 1}, dev);
    Tensor w = Tensor::fromVector<float>(ws, {width, 8}, dev);
    Tensor b = Tensor::fromVector<float>(bs, {8}, dev);
    if (mark) {
      x.markDynamic(0);
      ix.markDynamic(0);
    }
    std::vector<Tensor> out = {exp(x * 0.5 + b.sum(0, true)),
                               softmax(x, 1),
                               sum(x * x, {0}),
                               gelu(x.matmul(w) + b),
                               x.permute({1, 0}).matmul(x),
                               gather(x, 1, ix),
                               sum(x * 0.5)};
    kiln::sync(out);
    std::vector<std::vector<float>> values;
    for (const Tensor &t : out)
      values.push_back(t.toVector<float>());
    return values;
  };
  expectOneExecutableMatchesFlex(graphs, 5, {1, 2, 7, 64, 1000});
}

// An output of 16 MiB or more streams past the caches; with a dynamic dim
// that is chosen per call, so one executable writes small outputs with
// plain stores and large ones streamed, and both match Flex.
TEST(DynamicDimsTest, LargeDynamicOutputsMatchFlex) {
  const int64_t width = 4096;
  auto graphs = [&](const DispatchDevice &dev, int64_t n, bool mark) {
    std::vector<float> xs(n * width);
    for (int64_t i = 0; i < n * width; ++i)
      xs[i] = std::sin(0.0007f * static_cast<float>(i));
    Tensor x = Tensor::fromVector<float>(xs, {n, width}, dev);
    if (mark)
      x.markDynamic(0);
    std::vector<Tensor> out = {exp(x * 0.5), softmax(x, 1)};
    kiln::sync(out);
    std::vector<std::vector<float>> values;
    for (const Tensor &t : out)
      values.push_back(t.toVector<float>());
    return values;
  };
  // 16 KiB and 17.6 MiB per output.
  expectOneExecutableMatchesFlex(graphs, 3, {1, 1100});
}

// An embedding of [n, 5] indices is decomposed into a row selection over
// the flattened indices, a dim of n * 5 elements: not S, which is all the
// kernels and the runtime's views know. Such a graph must compile static
// (once per size) rather than read the wrong rows; it did read past its
// buffers before. The reshape that splits a dynamic dim in two, for the
// same reason.
TEST(DynamicDimsTest, ADimOfAnotherSizeThanSCompilesStatic) {
  DispatchDevice cpu = DispatchDevice::cpu(), flex = DispatchDevice::flex();
  std::vector<float> ws(30 * 4);
  for (size_t i = 0; i < ws.size(); ++i)
    ws[i] = std::sin(0.3f * static_cast<float>(i));
  auto graphs = [&](const DispatchDevice &dev, int64_t n, bool mark) {
    std::vector<int64_t> idx(n * 5);
    std::vector<float> xs(n * 6);
    for (int64_t i = 0; i < n * 5; ++i)
      idx[i] = (i * 11) % 30;
    for (int64_t i = 0; i < n * 6; ++i)
      xs[i] = 0.5f * static_cast<float>(i);
    Tensor w = Tensor::fromVector<float>(ws, {30, 4}, dev);
    Tensor ix = Tensor::fromVector<int64_t>(idx, {n, 5}, dev);
    Tensor x = Tensor::fromVector<float>(xs, {n, 6}, dev);
    if (mark) {
      ix.markDynamic(0);
      x.markDynamic(0);
    }
    // Two graphs: one that does not generalize would keep the other static.
    std::vector<Tensor> out = {(embedding(w, ix) * 2.0).sync(),
                               (x.reshape({n * 2, 3}) + 1.0).sync()};
    std::vector<std::vector<float>> values;
    for (const Tensor &t : out)
      values.push_back(t.toVector<float>());
    return values;
  };
  for (int64_t n : {7, 3, 12}) {
    SCOPED_TRACE("size " + std::to_string(n));
    auto got = graphs(cpu, n, true), want = graphs(flex, n, false);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k)
      expectNear(got[k], want[k]);
  }
}

// The tiled matmul takes a dynamic M (and the K of a weight's gradient),
// not a dynamic K or N of a layer's product: those would run as naive
// loops, two orders of magnitude slower, so the graph compiles for its
// static sizes instead, marked or not, and still computes what Flex does.
TEST(DynamicDimsTest, AMatmulWithADynamicKOrNCompilesStatic) {
  DispatchDevice cpu = DispatchDevice::cpu(), flex = DispatchDevice::flex();
  auto product = [](const DispatchDevice &dev, int64_t k, int64_t n,
                    int mark) {
    std::vector<float> xs(9 * k), ws(k * n);
    for (size_t i = 0; i < xs.size(); ++i)
      xs[i] = std::sin(0.7f * static_cast<float>(i));
    for (size_t i = 0; i < ws.size(); ++i)
      ws[i] = std::cos(0.3f * static_cast<float>(i));
    Tensor x = Tensor::fromVector<float>(xs, {9, k}, dev);
    Tensor w = Tensor::fromVector<float>(ws, {k, n}, dev);
    if (mark == 1) {
      x.markDynamic(1);
      w.markDynamic(0);
    } else if (mark == 2) {
      w.markDynamic(1);
    }
    return matmul(x, w).toVector<float>();
  };
  for (int mark : {0, 1, 2}) {
    SCOPED_TRACE("mark " + std::to_string(mark));
    int64_t before = backendCounters(cpu).compiles;
    for (int64_t s : {40, 72, 40, 100}) {
      SCOPED_TRACE("size " + std::to_string(s));
      int64_t k = mark == 2 ? 24 : s, n = mark == 2 ? s : 20 + mark;
      expectNear(product(cpu, k, n, mark), product(flex, k, n, 0));
    }
    // One static executable per size (40, 72, 100): the dynamic form was
    // refused, and a refused form is not retried.
    EXPECT_EQ(backendCounters(cpu).compiles - before, 3);
  }
}

TEST(DynamicDimsTest, MarkingADimOutOfRangeIsAnError) {
  Tensor x = Tensor::zeros({2, 3}, DType::F32, DispatchDevice::cpu());
  try {
    x.markDynamic(2);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(),
                 "markDynamic: dim 2 is out of range for a tensor of rank 2");
  }
}

} // namespace
