//===- RandomGradCheckTest.cpp - Random graphs against finite differences -===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Random graphs in f64 on Flex, their gradients from backward() against
// central differences of the same graph on an untracked device. Unlike the
// Cpu-vs-Flex comparisons, which share the passes and so cannot see their
// bugs, this one is independent of them. Graphs mix elementwise math,
// broadcast parameters, matmul, row reductions, softmax and layout ops; some
// are materialized part-way (an intermediate synced before backward, as a
// printed loss is), and some differentiate parameters rebound by an
// optimizer step first. KILN_GRADCHECK_GRAPHS sets how many (500).
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

using namespace kiln;

namespace {

enum class Step {
  Tanh,
  Sin,
  Swish,
  AddParam,
  MulParam,
  Matmul,
  Softmax,
  Center,
  Transposes,
  Reshapes,
  Exp,
  Square,
  RowSumBroadcast,
  kCount
};

/// A graph: its steps and shapes, drawn once from a seed and replayed on
/// any device with any parameter values.
struct Plan {
  int64_t batch = 2, width = 3;
  std::vector<Step> steps;
  std::vector<bool> syncAfter;
  /// Parameter shapes, in the order the steps use them.
  std::vector<Shape> paramShapes;
  std::vector<int64_t> widths; ///< the width after each step
  std::vector<double> lossWeights;
  bool rebind = false;
  CheckpointingStrategy strategy = CheckpointingStrategy::Balanced;
};

Plan drawPlan(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  Plan p;
  p.batch = pick(1, 4);
  p.width = pick(1, 5);
  int64_t w = p.width;
  int n = static_cast<int>(pick(2, 6));
  for (int i = 0; i < n; ++i) {
    auto s = static_cast<Step>(pick(0, static_cast<int>(Step::kCount) - 1));
    p.steps.push_back(s);
    p.syncAfter.push_back(pick(0, 9) == 0);
    if (s == Step::AddParam)
      p.paramShapes.push_back(Shape({w}));
    if (s == Step::MulParam)
      p.paramShapes.push_back(Shape({1, w}));
    if (s == Step::Matmul) {
      int64_t next = pick(1, 5);
      p.paramShapes.push_back(Shape({w, next}));
      w = next;
    }
    p.widths.push_back(w);
  }
  // The loss must depend on a parameter.
  if (p.paramShapes.empty()) {
    p.steps.push_back(Step::MulParam);
    p.syncAfter.push_back(false);
    p.paramShapes.push_back(Shape({1, w}));
    p.widths.push_back(w);
  }
  std::uniform_real_distribution<double> u(-1, 1);
  for (int64_t i = 0; i < p.batch * w; ++i)
    p.lossWeights.push_back(u(rng));
  p.rebind = pick(0, 3) == 0;
  p.strategy = pick(0, 1) ? CheckpointingStrategy::Balanced
                          : CheckpointingStrategy::Disabled;
  return p;
}

std::string describe(const Plan &p) {
  static const char *names[] = {"tanh",
                                "sin",
                                "swish",
                                "add_param",
                                "mul_param",
                                "matmul",
                                "softmax",
                                "center",
                                "transposes",
                                "reshapes",
                                "exp",
                                "square",
                                "row_sum_broadcast"};
  std::string s =
      "[" + std::to_string(p.batch) + ", " + std::to_string(p.width) + "]";
  for (size_t i = 0; i < p.steps.size(); ++i)
    s += std::string(" -> ") + names[static_cast<int>(p.steps[i])] +
         (p.syncAfter[i] ? " (synced)" : "");
  s += p.rebind ? ", after an SGD step" : "";
  s += ", " + p.strategy.str();
  return s;
}

/// The loss of `plan` over `params` (tensors on `device`), with the input
/// made on `device`'s backend.
Tensor lossOf(const Plan &plan, const std::vector<Tensor> &params,
              const DispatchDevice &device) {
  std::vector<double> xs;
  for (int64_t i = 0; i < plan.batch * plan.width; ++i)
    xs.push_back(std::sin(0.7 * static_cast<double>(i) + 0.3));
  Tensor h = Tensor::fromVector<double>(xs, {plan.batch, plan.width},
                                        device.backend());
  size_t next = 0;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    switch (plan.steps[i]) {
    case Step::Tanh:
      h = tanh(h);
      break;
    case Step::Sin:
      h = sin(h);
      break;
    case Step::Swish:
      h = h * sigmoid(h);
      break;
    case Step::AddParam:
    case Step::MulParam:
      h = plan.steps[i] == Step::AddParam ? h + params[next] : h * params[next];
      ++next;
      break;
    case Step::Matmul:
      h = matmul(h, params[next++]) * 0.5;
      break;
    case Step::Softmax:
      h = softmax(h, 1);
      break;
    case Step::Center:
      h = h - h.mean(1, /*keepdim=*/true);
      break;
    case Step::Transposes:
      h = (h.transpose() * 0.5).transpose();
      break;
    case Step::Reshapes:
      h = (h.reshape({h.shape().numel()}) * 1.5).reshape(h.shape());
      break;
    case Step::Exp:
      h = exp(h * 0.3);
      break;
    case Step::Square:
      h = h * h * 0.5;
      break;
    case Step::RowSumBroadcast:
      h = h * h.sum(1, /*keepdim=*/true) * 0.3;
      break;
    case Step::kCount:
      break;
    }
    if (plan.syncAfter[i])
      h.sync();
  }
  Tensor w =
      Tensor::fromVector<double>(plan.lossWeights, h.shape(), device.backend());
  return (h * w).sum();
}

/// Checks one graph; returns an empty string or what went wrong.
std::string check(uint64_t seed) {
  Plan plan = drawPlan(seed);
  DispatchDevice flex = DispatchDevice::flex();
  DispatchDevice ad = DispatchDevice::autodiff(flex, plan.strategy);
  std::mt19937_64 rng(seed ^ 0x5eedu);
  std::uniform_real_distribution<double> u(-0.8, 0.8);
  std::vector<std::vector<double>> values;
  std::vector<Tensor> params;
  for (const Shape &s : plan.paramShapes) {
    std::vector<double> v(s.numel());
    for (double &x : v)
      x = u(rng);
    values.push_back(v);
    params.push_back(Tensor::fromVector<double>(v, s, ad));
    params.back().requireGrad();
  }
  std::vector<Tensor *> ptrs;
  for (Tensor &t : params)
    ptrs.push_back(&t);
  if (plan.rebind) {
    // An optimizer step first: the parameters are rebound to new leaves.
    optim::SGD sgd(ptrs, 0.1);
    Tensor warm = lossOf(plan, params, ad);
    sgd.step(backward(warm));
    sync({warm});
    for (size_t k = 0; k < params.size(); ++k)
      values[k] = params[k].toVector<double>();
  }
  Tensor loss = lossOf(plan, params, ad);
  Gradients g = backward(loss);
  std::vector<std::vector<double>> grads;
  for (Tensor &p : params)
    grads.push_back(g.get(p).toVector<double>());

  // Central differences on an untracked device.
  const double h = 1e-6;
  auto lossAt = [&](size_t k, size_t j, double delta) {
    std::vector<Tensor> ps;
    for (size_t q = 0; q < values.size(); ++q) {
      std::vector<double> v = values[q];
      if (q == k)
        v[j] += delta;
      ps.push_back(Tensor::fromVector<double>(v, plan.paramShapes[q], flex));
    }
    return lossOf(plan, ps, flex).item<double>();
  };
  for (size_t k = 0; k < values.size(); ++k)
    for (size_t j = 0; j < values[k].size(); ++j) {
      double fd = (lossAt(k, j, h) - lossAt(k, j, -h)) / (2 * h);
      double got = grads[k][j];
      if (!(std::abs(got - fd) <= 1e-5 * (1 + std::abs(fd))))
        return "graph " + std::to_string(seed) + " (" + describe(plan) +
               "): d loss / d param " + std::to_string(k) + "[" +
               std::to_string(j) + "] is " + std::to_string(got) +
               " by backward, " + std::to_string(fd) + " by differences";
    }
  return "";
}

TEST(RandomGradCheckTest, RandomGraphsMatchFiniteDifferences) {
  int graphs = 500;
  if (const char *n = std::getenv("KILN_GRADCHECK_GRAPHS"))
    graphs = std::atoi(n);
  int failures = 0;
  for (int i = 0; i < graphs; ++i) {
    std::string what;
    try {
      what = check(static_cast<uint64_t>(i) + 1);
    } catch (const Error &e) {
      what = "graph " + std::to_string(i + 1) + " (" +
             describe(drawPlan(i + 1)) + ") threw: " + e.what();
    }
    if (!what.empty()) {
      ADD_FAILURE() << what;
      if (++failures >= 10)
        break;
    }
  }
  std::printf("random gradient checks: %d graphs, %d failures\n", graphs,
              failures);
}

} // namespace
