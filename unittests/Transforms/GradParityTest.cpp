//===- GradParityTest.cpp - Flex and Cpu give the same gradients ----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Random differentiable graphs (elementwise chains, broadcasting,
// reductions, matmul, layer norm, softmax, reshapes, permutes and slices),
// built from one seed on Flex and on Cpu, must give the same gradients in
// f32 within the tolerance table's bound for the least exact op they use.
// Graphs are differentiated in batches, one sync per batch and device, so
// that each batch compiles once.
//
//===----------------------------------------------------------------------===//

#include "GradCheck.h"

#include <cstdlib>
#include <filesystem>

using namespace kiln;
using namespace kiln::test;

namespace {

/// Values from a seeded generator, recorded on one device: the same seed
/// gives the same graph and the same parameters on every device.
class RandomGraph {
public:
  RandomGraph(uint64_t seed, const DispatchDevice &device)
      : rng_(seed), device_(device) {}

  /// Builds the graph; returns the scalar loss.
  Tensor build() {
    int64_t batch = pick(2, 5), width = pick(3, 6);
    Tensor h = Tensor::fromVector<float>(values(batch * width, 1.0),
                                         {batch, width}, device_.backend());
    int steps = static_cast<int>(pick(3, 7));
    for (int s = 0; s < steps; ++s)
      h = step(h);
    // Some steps take no parameter: make sure the loss depends on one.
    if (params.empty())
      h = h * param({h.shape()[1]});
    ops_.push_back("kiln.mean");
    return mean(h * h) + mean(h);
  }

  std::vector<Tensor> params;
  /// The ops used, for the tolerance.
  std::vector<std::string> ops_;

private:
  int64_t pick(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  std::vector<float> values(int64_t n, double scale) {
    std::uniform_real_distribution<double> u(-scale, scale);
    std::vector<float> v(n);
    for (float &x : v)
      x = static_cast<float>(u(rng_));
    return v;
  }
  Tensor param(Shape shape, double scale = 1.0) {
    Tensor p = Tensor::fromVector<float>(values(shape.numel(), scale), shape,
                                         device_);
    params.push_back(p);
    return p;
  }

  Tensor step(const Tensor &h) {
    int64_t b = h.shape()[0], d = h.shape()[1];
    switch (pick(0, 9)) {
    case 0: { // smooth unary chain
      ops_.insert(ops_.end(), {"kiln.gelu", "kiln.exp", "kiln.sigmoid"});
      Tensor y = gelu(h, pick(0, 1)) + sigmoid(h) * exp(h * 0.5);
      return pick(0, 1) ? tanh(y) : silu(y);
    }
    case 1: { // linear layer, new width
      ops_.push_back("kiln.matmul");
      int64_t out = pick(2, 7);
      Tensor w = param({d, out}, 1.0 / std::sqrt(double(d)));
      return matmul(h, w) + param({out});
    }
    case 2:
      ops_.push_back("kiln.layer_norm");
      return layerNorm(h, param({d}), param({d}));
    case 3:
      ops_.push_back("kiln.softmax");
      return softmax(h * param({1, d}), pick(0, 1) ? -1 : 0) *
             static_cast<double>(d);
    case 4: // broadcasting against a column, a row and a rank-0 scalar
      return h * param({b, 1}) + param({d}) - param({});
    case 5: // reductions
      ops_.push_back("kiln.sum");
      return pick(0, 1) ? h - mean(h, {1}, true)
                        : h * sum(h, {0}, true) * (1.0 / b);
    case 6: { // reshape, permute and back to 2-D
      Tensor t = reshape(h, {b, d, 1}) * param({1, 1, 2});
      return reshape(permute(t, {0, 2, 1}), {b, 2 * d});
    }
    case 7: { // strided slice along the width, or the batch
      if (d >= 4)
        return slice(h, {0, 1}, {b, d}, {1, 2}) * 2.0;
      return concat({h, slice(h, {0, 0}, {b, d}, {2, 1})}, 0).permute({1, 0})
          .reshape({b + (b + 1) / 2, d});
    }
    case 8: { // residual block
      ops_.push_back("kiln.matmul");
      Tensor w = param({d, d}, 1.0 / std::sqrt(double(d)));
      return h + tanh(matmul(h, w));
    }
    default: // one value into two branches
      ops_.push_back("kiln.cos");
      return sin(h) * cos(h * param({d})) + h;
    }
  }

  std::mt19937_64 rng_;
  DispatchDevice device_;
};

/// The bound of the least exact op in `ops`, in f32.
Tolerance looseTolerance(const std::vector<std::string> &ops) {
  Tolerance t = tolerance("kiln.add", DType::F32);
  for (const std::string &op : ops) {
    Tolerance o = tolerance(op, DType::F32);
    t.atol = std::max(t.atol, o.atol);
    t.rtol = std::max(t.rtol, o.rtol);
  }
  return t;
}

constexpr int kGraphs = 60, kBatch = 12;

/// Gradients of graphs [first, first + kBatch) on `device`, one sync.
std::vector<std::vector<std::vector<double>>>
gradientsOf(int first, const DispatchDevice &device,
            std::vector<std::vector<std::string>> &ops) {
  DispatchDevice ad =
      DispatchDevice::autodiff(device, CheckpointingStrategy::Balanced);
  std::vector<Gradients> grads;
  std::vector<std::vector<Tensor>> params;
  std::vector<Tensor> pending;
  ops.clear();
  for (int g = first; g < first + kBatch; ++g) {
    RandomGraph graph(1000 + g, ad);
    Tensor loss = graph.build();
    grads.push_back(backward(loss));
    params.push_back(graph.params);
    ops.push_back(graph.ops_);
    pending.push_back(loss);
    for (const Tensor &t : grads.back().all())
      pending.push_back(t);
  }
  sync(pending);
  std::vector<std::vector<std::vector<double>>> out;
  for (size_t g = 0; g < grads.size(); ++g) {
    out.emplace_back();
    for (const Tensor &p : params[g])
      out.back().push_back(grads[g].has(p) ? valuesOf(grads[g].get(p))
                                           : std::vector<double>());
  }
  return out;
}

TEST(GradParity, RandomGraphsFlexVsCpu) {
  auto cache = std::filesystem::temp_directory_path() /
               ("kiln-grad-parity-" + std::to_string(::getpid()));
  ::setenv("KILN_CACHE_DIR", cache.c_str(), 1);
  int graphs = 0;
  for (int first = 0; first < kGraphs; first += kBatch) {
    std::vector<std::vector<std::string>> ops;
    auto flex = gradientsOf(first, DispatchDevice::flex(), ops);
    auto cpu = gradientsOf(first, DispatchDevice::cpu(), ops);
    ASSERT_EQ(flex.size(), cpu.size());
    for (size_t g = 0; g < flex.size(); ++g) {
      Tolerance tol = looseTolerance(ops[g]);
      ASSERT_EQ(flex[g].size(), cpu[g].size());
      for (size_t p = 0; p < flex[g].size(); ++p) {
        // Gradients are sums of products: scale the absolute bound by the
        // largest magnitude in the tensor.
        double scale = 1;
        for (double v : flex[g][p])
          scale = std::max(scale, std::fabs(v));
        EXPECT_TRUE(allClose(cpu[g][p], flex[g][p],
                             {tol.atol * scale, tol.rtol}))
            << "graph " << first + g << ", parameter " << p;
      }
      ++graphs;
    }
  }
  std::filesystem::remove_all(cache);
  std::printf("%d random graphs: Flex and Cpu gradients agree\n", graphs);
  EXPECT_GE(graphs, 50);
}

} // namespace
