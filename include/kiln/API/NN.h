//===- NN.h - Layers and optimizers -----------------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Small building blocks for training. Parameters are tracked leaves
// (requireGrad) created with the same initialisation as PyTorch's layers.
// Optimizers record their updates as graph ops under a no-grad scope and
// rebind each parameter to its update, so that the old buffer dies inside
// the step and the update writes it in place.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_API_NN_H
#define KILN_API_NN_H

#include "kiln/API/Autodiff.h"
#include "kiln/API/Ops.h"

namespace kiln::nn {

/// y = x W + b, W: [in, out] ~ U(-1/sqrt(in), 1/sqrt(in)), b likewise.
class Linear {
public:
  Linear(int64_t in, int64_t out, const DispatchDevice &device, uint64_t seed,
         bool bias = true);
  DispatchTensor forward(const DispatchTensor &x) const;
  std::vector<DispatchTensor *> parameters();

  DispatchTensor weight;
  std::optional<DispatchTensor> bias;
};

/// Normalizes the last dim; weight ones, bias zeros.
class LayerNorm {
public:
  LayerNorm(int64_t dim, const DispatchDevice &device, double eps = 1e-5);
  DispatchTensor forward(const DispatchTensor &x) const;
  std::vector<DispatchTensor *> parameters();

  DispatchTensor weight, bias;
  double eps;
};

/// Rows of a [vocab, dim] table ~ N(0, 1), picked by integer indices.
class Embedding {
public:
  Embedding(int64_t vocab, int64_t dim, const DispatchDevice &device,
            uint64_t seed);
  DispatchTensor forward(const DispatchTensor &indices) const;
  std::vector<DispatchTensor *> parameters();

  DispatchTensor weight;
};

} // namespace kiln::nn

namespace kiln::optim {

/// p -= lr * v, with v = momentum * v + g (v = g without momentum).
class SGD {
public:
  SGD(std::vector<DispatchTensor *> params, double lr, double momentum = 0.0);
  /// Records the update of every parameter that `grads` has a gradient for.
  void step(const Gradients &grads);

  double lr, momentum;

private:
  std::vector<DispatchTensor *> params_;
  std::vector<DispatchTensor> velocity_;
};

/// Adam (Kingma and Ba) with bias correction and optional L2 weight decay.
class Adam {
public:
  Adam(std::vector<DispatchTensor *> params, double lr = 1e-3,
       double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8,
       double weightDecay = 0.0);
  void step(const Gradients &grads);

  double lr, beta1, beta2, eps, weightDecay;
  int64_t steps = 0;

private:
  std::vector<DispatchTensor *> params_;
  std::vector<DispatchTensor> m_, v_;
};

} // namespace kiln::optim

#endif // KILN_API_NN_H
