//===- NN.cpp - Layers and optimizers -------------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/API/NN.h"

#include <cmath>

using namespace kiln;
using namespace kiln::nn;
using namespace kiln::optim;

namespace {

/// A fresh trainable leaf: materialized now, so that every step reads the
/// same buffer instead of regenerating it.
DispatchTensor parameter(DispatchTensor t, const DispatchDevice &device) {
  t.sync();
  DispatchTensor leaf = t;
  leaf.requireGrad(device.checkpointing());
  return leaf;
}

DispatchTensor uniform(Shape shape, double bound, const DispatchDevice &device,
                       uint64_t seed) {
  NoGradGuard guard;
  return DispatchTensor::rand(std::move(shape), DType::F32, device.backend(),
                              seed, -bound, bound);
}

/// Rebinds a parameter to its update, as a new leaf with the same strategy.
void rebind(DispatchTensor &param, DispatchTensor update) {
  std::optional<CheckpointingStrategy> s = param.checkpointing;
  update.requireGrad(s);
  param = update;
}

} // namespace

Linear::Linear(int64_t in, int64_t out, const DispatchDevice &device,
               uint64_t seed, bool withBias) {
  if (in < 1 || out < 1)
    throw Error("Linear: sizes must be >= 1, got " + std::to_string(in) +
                " -> " + std::to_string(out));
  double bound = 1.0 / std::sqrt(static_cast<double>(in));
  weight = parameter(uniform({in, out}, bound, device, seed), device);
  if (withBias)
    bias = parameter(uniform({out}, bound, device, seed + 1), device);
}

DispatchTensor Linear::forward(const DispatchTensor &x) const {
  DispatchTensor y = matmul(x, weight);
  return bias ? y + *bias : y;
}

std::vector<DispatchTensor *> Linear::parameters() {
  std::vector<DispatchTensor *> p{&weight};
  if (bias)
    p.push_back(&*bias);
  return p;
}

LayerNorm::LayerNorm(int64_t dim, const DispatchDevice &device, double eps)
    : eps(eps) {
  NoGradGuard guard;
  weight = parameter(DispatchTensor::ones({dim}, DType::F32, device.backend()),
                     device);
  bias = parameter(DispatchTensor::zeros({dim}, DType::F32, device.backend()),
                   device);
}

DispatchTensor LayerNorm::forward(const DispatchTensor &x) const {
  return layerNorm(x, weight, bias, eps);
}

std::vector<DispatchTensor *> LayerNorm::parameters() {
  return {&weight, &bias};
}

Embedding::Embedding(int64_t vocab, int64_t dim, const DispatchDevice &device,
                     uint64_t seed) {
  NoGradGuard guard;
  weight = parameter(DispatchTensor::randn({vocab, dim}, DType::F32,
                                           device.backend(), seed),
                     device);
}

DispatchTensor Embedding::forward(const DispatchTensor &indices) const {
  return embedding(weight, indices);
}

std::vector<DispatchTensor *> Embedding::parameters() { return {&weight}; }

/// Materialized zeros shaped like `p`: optimizer state starts as a buffer,
/// so the first step has the same structure (and kernels) as the others.
static DispatchTensor zerosLike(const DispatchTensor &p) {
  DispatchTensor z =
      DispatchTensor::zeros(p.shape(), p.dtype(), p.device().backend());
  return cast(z + 0.0, p.dtype()).sync();
}

SGD::SGD(std::vector<DispatchTensor *> params, double lr, double momentum)
    : lr(lr), momentum(momentum), params_(std::move(params)) {
  NoGradGuard guard;
  for (DispatchTensor *p : params_)
    velocity_.push_back(momentum != 0.0 ? zerosLike(*p) : DispatchTensor());
}

void SGD::step(const Gradients &grads) {
  NoGradGuard guard;
  for (size_t i = 0; i < params_.size(); ++i) {
    DispatchTensor &p = *params_[i];
    if (!grads.has(p))
      continue;
    DispatchTensor g = grads.get(p);
    if (momentum != 0.0) {
      velocity_[i] = velocity_[i] * momentum + g;
      g = velocity_[i];
    }
    rebind(p, p - g * lr);
  }
}

Adam::Adam(std::vector<DispatchTensor *> params, double lr, double beta1,
           double beta2, double eps, double weightDecay)
    : lr(lr), beta1(beta1), beta2(beta2), eps(eps), weightDecay(weightDecay),
      params_(std::move(params)) {
  NoGradGuard guard;
  for (DispatchTensor *p : params_) {
    m_.push_back(zerosLike(*p));
    v_.push_back(zerosLike(*p));
  }
}

void Adam::step(const Gradients &grads) {
  NoGradGuard guard;
  ++steps;
  // Bias corrections are scalars, so every step reuses the same kernels.
  double c1 = 1.0 - std::pow(beta1, static_cast<double>(steps));
  double c2 = 1.0 - std::pow(beta2, static_cast<double>(steps));
  double stepSize = lr / c1;
  for (size_t i = 0; i < params_.size(); ++i) {
    DispatchTensor &p = *params_[i];
    if (!grads.has(p))
      continue;
    DispatchTensor g = grads.get(p);
    if (weightDecay != 0.0)
      g = g + p * weightDecay;
    m_[i] = m_[i] * beta1 + g * (1.0 - beta1);
    v_[i] = v_[i] * beta2 + g * g * (1.0 - beta2);
    DispatchTensor denom = sqrt(v_[i] * (1.0 / c2)) + eps;
    rebind(p, p - m_[i] / denom * stepSize);
  }
}
