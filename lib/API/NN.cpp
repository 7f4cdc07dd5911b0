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

/// A layer's weight and optional bias, as parameters and by name.
std::vector<DispatchTensor *>
weightAndBias(DispatchTensor &weight, std::optional<DispatchTensor> &bias) {
  std::vector<DispatchTensor *> p{&weight};
  if (bias)
    p.push_back(&*bias);
  return p;
}

NamedParameters namedWeightAndBias(const std::string &prefix,
                                   DispatchTensor &weight,
                                   std::optional<DispatchTensor> &bias) {
  NamedParameters p{{prefix + "weight", &weight}};
  if (bias)
    p.push_back({prefix + "bias", &*bias});
  return p;
}

} // namespace

Linear::Linear(int64_t in, int64_t out, const DispatchDevice &device,
               uint64_t seed, bool withBias, bool outIn)
    : outIn(outIn) {
  if (in < 1 || out < 1)
    throw Error("Linear: sizes must be >= 1, got " + std::to_string(in) +
                " -> " + std::to_string(out));
  double bound = 1.0 / std::sqrt(static_cast<double>(in));
  weight = parameter(
      uniform(outIn ? Shape{out, in} : Shape{in, out}, bound, device, seed),
      device);
  if (withBias)
    bias = parameter(uniform({out}, bound, device, seed + 1), device);
}

DispatchTensor Linear::forward(const DispatchTensor &x) const {
  DispatchTensor y = matmul(x, outIn ? weight.transpose(0, 1) : weight);
  return bias ? y + *bias : y;
}

RMSNorm::RMSNorm(int64_t dim, const DispatchDevice &device, double eps)
    : eps(eps) {
  if (dim < 1)
    throw Error("RMSNorm: the dim must be >= 1, got " + std::to_string(dim));
  NoGradGuard guard;
  weight = parameter(DispatchTensor::ones({dim}, DType::F32, device.backend()),
                     device);
}

DispatchTensor RMSNorm::forward(const DispatchTensor &x) const {
  return rmsNorm(x, weight, eps);
}

NamedParameters RMSNorm::namedParameters(const std::string &prefix) {
  return {{prefix + "weight", &weight}};
}

SwiGLU::SwiGLU(int64_t dim, int64_t hidden, const DispatchDevice &device,
               uint64_t seed)
    : gate(dim, hidden, device, seed, false, true),
      up(dim, hidden, device, seed + 2, false, true),
      down(hidden, dim, device, seed + 4, false, true) {}

DispatchTensor SwiGLU::forward(const DispatchTensor &x) const {
  return down.forward(silu(gate.forward(x)) * up.forward(x));
}

std::vector<DispatchTensor *> SwiGLU::parameters() {
  return {&gate.weight, &up.weight, &down.weight};
}

NamedParameters SwiGLU::namedParameters(const std::string &prefix) {
  return {{prefix + "gate_proj.weight", &gate.weight},
          {prefix + "up_proj.weight", &up.weight},
          {prefix + "down_proj.weight", &down.weight}};
}

std::vector<DispatchTensor *> Linear::parameters() {
  return weightAndBias(weight, bias);
}

NamedParameters Linear::namedParameters(const std::string &prefix) {
  return namedWeightAndBias(prefix, weight, bias);
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

NamedParameters LayerNorm::namedParameters(const std::string &prefix) {
  return {{prefix + "weight", &weight}, {prefix + "bias", &bias}};
}

/// The weight [lead, per, kernel...] and bias [channels] of a convolution
/// layer (lead, per = out, in / groups; transposed: in, out / groups), both
/// ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = per times the
/// kernel's size, after checking the sizes; `what` names the layer.
static void convParameters(const char *what, int64_t in, int64_t out,
                           const std::vector<int64_t> &kernel, int64_t groups,
                           bool transposed, const DispatchDevice &device,
                           uint64_t seed, bool withBias, DispatchTensor &weight,
                           std::optional<DispatchTensor> &bias) {
  std::string layer(what);
  if (kernel.empty() || kernel.size() > 2)
    throw Error(layer + ": the kernel needs 1 or 2 sizes (" +
                (transposed ? "conv_transpose1d or conv_transpose2d"
                            : "conv1d or conv2d") +
                "), got " + std::to_string(kernel.size()));
  if (in < 1 || out < 1 || groups < 1 || in % groups || out % groups)
    throw Error(layer + ": channels " + std::to_string(in) + " -> " +
                std::to_string(out) + " must be >= 1 and divisible by groups " +
                std::to_string(groups));
  int64_t lead = transposed ? in : out;
  int64_t fanIn = (transposed ? out : in) / groups;
  std::vector<int64_t> dims{lead, fanIn};
  for (int64_t k : kernel) {
    if (k < 1)
      throw Error(layer + ": kernel sizes must be >= 1, got " +
                  std::to_string(k));
    fanIn *= k;
    dims.push_back(k);
  }
  double bound = 1.0 / std::sqrt(static_cast<double>(fanIn));
  weight = parameter(uniform(Shape(dims), bound, device, seed), device);
  if (withBias)
    bias = parameter(uniform({out}, bound, device, seed + 1), device);
}

Conv::Conv(int64_t in, int64_t out, std::vector<int64_t> kernel,
           const DispatchDevice &device, uint64_t seed, ConvOptions opts,
           bool withBias)
    : options(std::move(opts)) {
  convParameters("Conv", in, out, kernel, options.groups, false, device, seed,
                 withBias, weight, bias);
}

DispatchTensor Conv::forward(const DispatchTensor &x) const {
  return weight.rank() == 3 ? conv1d(x, weight, bias, options)
                            : conv2d(x, weight, bias, options);
}

std::vector<DispatchTensor *> Conv::parameters() {
  return weightAndBias(weight, bias);
}

NamedParameters Conv::namedParameters(const std::string &prefix) {
  return namedWeightAndBias(prefix, weight, bias);
}

ConvTranspose::ConvTranspose(int64_t in, int64_t out,
                             std::vector<int64_t> kernel,
                             const DispatchDevice &device, uint64_t seed,
                             ConvTransposeOptions opts, bool withBias)
    : options(std::move(opts)) {
  convParameters("ConvTranspose", in, out, kernel, options.groups, true, device,
                 seed, withBias, weight, bias);
}

DispatchTensor ConvTranspose::forward(const DispatchTensor &x) const {
  return weight.rank() == 3 ? convTranspose1d(x, weight, bias, options)
                            : convTranspose2d(x, weight, bias, options);
}

std::vector<DispatchTensor *> ConvTranspose::parameters() {
  return weightAndBias(weight, bias);
}

NamedParameters ConvTranspose::namedParameters(const std::string &prefix) {
  return namedWeightAndBias(prefix, weight, bias);
}

Embedding::Embedding(int64_t vocab, int64_t dim, const DispatchDevice &device,
                     uint64_t seed, double std) {
  if (vocab < 1 || dim < 1)
    throw Error("Embedding: sizes must be >= 1, got " + std::to_string(vocab) +
                " x " + std::to_string(dim));
  NoGradGuard guard;
  DispatchTensor w =
      DispatchTensor::randn({vocab, dim}, DType::F32, device.backend(), seed);
  weight = parameter(std == 1.0 ? w : w * std, device);
}

DispatchTensor Embedding::forward(const DispatchTensor &indices) const {
  return embedding(weight, indices);
}

std::vector<DispatchTensor *> Embedding::parameters() { return {&weight}; }

NamedParameters Embedding::namedParameters(const std::string &prefix) {
  return {{prefix + "weight", &weight}};
}

BatchNorm::BatchNorm(int64_t channels, const DispatchDevice &device, double eps,
                     double momentum, bool affine)
    : eps(eps), momentum(momentum) {
  if (channels < 1)
    throw Error("BatchNorm: channels must be >= 1, got " +
                std::to_string(channels));
  NoGradGuard guard;
  auto filled = [&](double v) {
    return (DispatchTensor::full({channels}, v, DType::F32, device.backend()) +
            0.0)
        .sync();
  };
  if (affine) {
    weight = parameter(filled(1.0), device);
    bias = parameter(filled(0.0), device);
  }
  runningMean = filled(0.0);
  runningVar = filled(1.0);
}

DispatchTensor BatchNorm::forward(const DispatchTensor &x) {
  if (training)
    return batchNormTraining(x, &runningMean, &runningVar, weight, bias,
                             momentum, eps);
  return batchNorm(x, runningMean, runningVar, weight, bias, eps);
}

std::vector<DispatchTensor *> BatchNorm::parameters() {
  if (!weight)
    return {};
  return {&*weight, &*bias};
}

NamedParameters BatchNorm::namedParameters(const std::string &prefix) {
  if (!weight)
    return {};
  return {{prefix + "weight", &*weight}, {prefix + "bias", &*bias}};
}

NamedParameters BatchNorm::namedState(const std::string &prefix) {
  NamedParameters p = namedParameters(prefix);
  p.emplace_back(prefix + "running_mean", &runningMean);
  p.emplace_back(prefix + "running_var", &runningVar);
  return p;
}

Dropout::Dropout(double p, uint64_t seed) : p(p), seed(seed) {
  if (!(p >= 0 && p < 1))
    throw Error("Dropout: p must be in [0, 1), got " + std::to_string(p));
}

DispatchTensor Dropout::forward(const DispatchTensor &x) {
  if (!training || p == 0)
    return x;
  DispatchTensor offset = DispatchTensor::fromVector(
      std::vector<int64_t>{calls++}, Shape{}, x.device().backend());
  return dropout(x, p, seed, offset);
}

GroupNorm::GroupNorm(int64_t groups, int64_t channels,
                     const DispatchDevice &device, double eps)
    : groups(groups), eps(eps) {
  if (groups < 1 || channels < 1 || channels % groups)
    throw Error("GroupNorm: " + std::to_string(groups) +
                " groups must be >= 1 and divide the " +
                std::to_string(channels) + " channels");
  NoGradGuard guard;
  weight = parameter(
      DispatchTensor::ones({channels}, DType::F32, device.backend()), device);
  bias = parameter(
      DispatchTensor::zeros({channels}, DType::F32, device.backend()), device);
}

DispatchTensor GroupNorm::forward(const DispatchTensor &x) const {
  return groupNorm(x, groups, weight, bias, eps);
}

std::vector<DispatchTensor *> GroupNorm::parameters() {
  return {&weight, &bias};
}

NamedParameters GroupNorm::namedParameters(const std::string &prefix) {
  return {{prefix + "weight", &weight}, {prefix + "bias", &bias}};
}

/// Materialized zeros shaped like `p`: optimizer state starts as a buffer,
/// so the first step has the same structure (and kernels) as the others.
static DispatchTensor zerosLike(const DispatchTensor &p) {
  DispatchTensor z =
      DispatchTensor::zeros(p.shape(), p.dtype(), p.device().backend());
  return cast(z + 0.0, p.dtype()).sync();
}

/// Zeroed first and second moments, one pair per parameter.
static void zeroMoments(const std::vector<DispatchTensor *> &params,
                        std::vector<DispatchTensor> &m,
                        std::vector<DispatchTensor> &v) {
  NoGradGuard guard;
  for (DispatchTensor *p : params) {
    m.push_back(zerosLike(*p));
    v.push_back(zerosLike(*p));
  }
}

/// Adam's moment updates for gradient g, and the step's direction
/// m / (sqrt(v / c2) + eps) (c2: the second moment's bias correction).
static DispatchTensor adamDirection(DispatchTensor &m, DispatchTensor &v,
                                    const DispatchTensor &g, double beta1,
                                    double beta2, double c2, double eps) {
  m = m * beta1 + g * (1.0 - beta1);
  v = v * beta2 + g * g * (1.0 - beta2);
  return m / (sqrt(v * (1.0 / c2)) + eps);
}

SGD::SGD(std::vector<DispatchTensor *> params, double lr, double momentum,
         double weightDecay, bool nesterov)
    : lr(lr), momentum(momentum), weightDecay(weightDecay), nesterov(nesterov),
      params_(std::move(params)) {
  if (nesterov && momentum == 0.0)
    throw Error("SGD: Nesterov momentum needs a momentum > 0");
  if (!(lr >= 0) || !(momentum >= 0) || !(weightDecay >= 0))
    throw Error("SGD: lr, momentum and weight decay must be >= 0, got " +
                std::to_string(lr) + ", " + std::to_string(momentum) + ", " +
                std::to_string(weightDecay));
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
    if (weightDecay != 0.0)
      g = g + p * weightDecay;
    if (momentum != 0.0) {
      velocity_[i] = velocity_[i] * momentum + g;
      g = nesterov ? g + velocity_[i] * momentum : velocity_[i];
    }
    rebind(p, p - g * lr);
  }
}

Adam::Adam(std::vector<DispatchTensor *> params, double lr, double beta1,
           double beta2, double eps, double weightDecay)
    : lr(lr), beta1(beta1), beta2(beta2), eps(eps), weightDecay(weightDecay),
      params_(std::move(params)) {
  zeroMoments(params_, m_, v_);
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
    rebind(p, p - adamDirection(m_[i], v_[i], g, beta1, beta2, c2, eps) *
                      stepSize);
  }
}

AdamW::AdamW(std::vector<DispatchTensor *> params, double lr, double beta1,
             double beta2, double eps, double weightDecay,
             bool decayMatricesOnly)
    : lr(lr), beta1(beta1), beta2(beta2), eps(eps), weightDecay(weightDecay),
      decayMatricesOnly(decayMatricesOnly), params_(std::move(params)) {
  zeroMoments(params_, m_, v_);
}

void AdamW::step(const Gradients &grads) {
  NoGradGuard guard;
  ++steps;
  double c1 = 1.0 - std::pow(beta1, static_cast<double>(steps));
  double c2 = 1.0 - std::pow(beta2, static_cast<double>(steps));
  for (size_t i = 0; i < params_.size(); ++i) {
    DispatchTensor &p = *params_[i];
    if (!grads.has(p))
      continue;
    DispatchTensor g = grads.get(p);
    DispatchTensor update =
        adamDirection(m_[i], v_[i], g, beta1, beta2, c2, eps);
    // Decayed or not, the update has the same structure (the decay factor
    // is a scalar argument), so every parameter of one shape shares its
    // kernel.
    bool decays = !decayMatricesOnly || p.rank() >= 2;
    double keep = 1.0 - lr * (decays ? weightDecay : 0.0);
    rebind(p, p * keep - update * (lr / c1));
  }
}

nn::NamedParameters AdamW::namedState(const nn::NamedParameters &params,
                                      const std::string &prefix) {
  nn::NamedParameters state;
  for (const auto &[name, p] : params)
    for (size_t i = 0; i < params_.size(); ++i)
      if (params_[i] == p) {
        state.emplace_back(prefix + "m." + name, &m_[i]);
        state.emplace_back(prefix + "v." + name, &v_[i]);
      }
  return state;
}

Gradients kiln::optim::clipGradNorm(const Gradients &grads, double maxNorm,
                                    DispatchTensor *norm) {
  if (!(maxNorm > 0.0))
    throw Error("clipGradNorm: maxNorm must be > 0, got " +
                std::to_string(maxNorm));
  std::vector<DispatchTensor> all = grads.all();
  if (all.empty())
    return grads;
  NoGradGuard guard;
  std::optional<DispatchTensor> squares;
  for (const DispatchTensor &g : all) {
    DispatchTensor g32 = g.dtype() == DType::F32 ? g : cast(g, DType::F32);
    DispatchTensor s = sum(g32 * g32);
    squares = squares ? *squares + s : s;
  }
  DispatchTensor total = sqrt(*squares);
  if (norm)
    *norm = total;
  // min(1, maxNorm / (norm + 1e-6)): a scalar that fuses into each
  // parameter's update.
  DispatchTensor scale = clamp(maxNorm / (total + 1e-6), 0.0, 1.0);
  return grads.map([&](const DispatchTensor &g) {
    return g * (g.dtype() == DType::F32 ? scale : cast(scale, g.dtype()));
  });
}

double kiln::optim::warmupCosine(int64_t step, int64_t warmup, int64_t total,
                                 double maxLr, double minLr) {
  if (step < 1)
    step = 1;
  if (warmup > 0 && step <= warmup)
    return maxLr * static_cast<double>(step) / static_cast<double>(warmup);
  if (step >= total)
    return minLr;
  double t = static_cast<double>(step - warmup) /
             static_cast<double>(std::max<int64_t>(total - warmup, 1));
  return minLr + 0.5 * (maxLr - minLr) * (1.0 + std::cos(M_PI * t));
}
