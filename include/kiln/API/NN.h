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

/// A module's parameters by name: the module path of each, as in
/// "blocks.0.attn.qkv.weight" (what nn::save writes and nn::load reads).
using NamedParameters = std::vector<std::pair<std::string, DispatchTensor *>>;

/// y = x W + b, W: [in, out] ~ U(-1/sqrt(in), 1/sqrt(in)), b likewise.
/// With `outIn`, W is stored [out, in] as PyTorch's nn.Linear stores it
/// (Hugging Face checkpoints load as they are) and x is multiplied by its
/// transpose, a view.
class Linear {
public:
  Linear(int64_t in, int64_t out, const DispatchDevice &device, uint64_t seed,
         bool bias = true, bool outIn = false);
  DispatchTensor forward(const DispatchTensor &x) const;
  std::vector<DispatchTensor *> parameters();
  /// "<prefix>weight" and "<prefix>bias".
  NamedParameters namedParameters(const std::string &prefix = "");

  DispatchTensor weight;
  std::optional<DispatchTensor> bias;
  bool outIn = false;
};

/// Llama's RMSNorm of the last dim: x / sqrt(mean(x^2) + eps) * weight,
/// weight ones.
class RMSNorm {
public:
  RMSNorm(int64_t dim, const DispatchDevice &device, double eps = 1e-6);
  DispatchTensor forward(const DispatchTensor &x) const;
  std::vector<DispatchTensor *> parameters() { return {&weight}; }
  /// "<prefix>weight".
  NamedParameters namedParameters(const std::string &prefix = "");

  DispatchTensor weight;
  double eps;
};

/// The SwiGLU MLP of Llama: down(silu(gate(x)) * up(x)), three bias-free
/// [out, in] projections named gate_proj, up_proj and down_proj.
class SwiGLU {
public:
  SwiGLU(int64_t dim, int64_t hidden, const DispatchDevice &device,
         uint64_t seed);
  DispatchTensor forward(const DispatchTensor &x) const;
  std::vector<DispatchTensor *> parameters();
  NamedParameters namedParameters(const std::string &prefix = "");

  Linear gate, up, down;
};

/// Normalizes the last dim; weight ones, bias zeros.
class LayerNorm {
public:
  LayerNorm(int64_t dim, const DispatchDevice &device, double eps = 1e-5);
  DispatchTensor forward(const DispatchTensor &x) const;
  std::vector<DispatchTensor *> parameters();
  NamedParameters namedParameters(const std::string &prefix = "");

  DispatchTensor weight, bias;
  double eps;
};

/// Rows of a [vocab, dim] table ~ N(0, std^2), picked by integer indices.
class Embedding {
public:
  Embedding(int64_t vocab, int64_t dim, const DispatchDevice &device,
            uint64_t seed, double std = 1.0);
  DispatchTensor forward(const DispatchTensor &indices) const;
  std::vector<DispatchTensor *> parameters();
  NamedParameters namedParameters(const std::string &prefix = "");

  DispatchTensor weight;
};

/// A 1-D or 2-D convolution over NCL or NCHW inputs: weight
/// [out, in / groups, kernel...] and bias [out], both
/// ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = in / groups times the
/// kernel's size, as PyTorch initializes them. `kernel` has one entry per
/// spatial dim; the options' empty lists mean stride 1, padding 0 and
/// dilation 1.
class Conv {
public:
  Conv(int64_t in, int64_t out, std::vector<int64_t> kernel,
       const DispatchDevice &device, uint64_t seed, ConvOptions options = {},
       bool bias = true);
  DispatchTensor forward(const DispatchTensor &x) const;
  std::vector<DispatchTensor *> parameters();
  /// "<prefix>weight" and "<prefix>bias".
  NamedParameters namedParameters(const std::string &prefix = "");

  DispatchTensor weight;
  std::optional<DispatchTensor> bias;
  ConvOptions options;
};

/// A 1-D or 2-D transposed convolution: weight [in, out / groups,
/// kernel...] and bias [out], ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with
/// fan_in = out / groups times the kernel's size, as PyTorch initializes
/// them.
class ConvTranspose {
public:
  ConvTranspose(int64_t in, int64_t out, std::vector<int64_t> kernel,
                const DispatchDevice &device, uint64_t seed,
                ConvTransposeOptions options = {}, bool bias = true);
  DispatchTensor forward(const DispatchTensor &x) const;
  std::vector<DispatchTensor *> parameters();
  NamedParameters namedParameters(const std::string &prefix = "");

  DispatchTensor weight;
  std::optional<DispatchTensor> bias;
  ConvTransposeOptions options;
};

/// Batch normalization over dim 1 of [N, C, ...] (PyTorch's BatchNorm1d
/// and BatchNorm2d): weight ones and bias zeros (with `affine`), running
/// mean zeros and running variance ones. In training mode (the default)
/// forward() normalizes with the batch's statistics and rebinds the running
/// ones to their update, all graph ops; in evaluation mode it normalizes
/// with the running ones. The running statistics are state, not
/// parameters: namedState() has them, for save and load.
class BatchNorm {
public:
  BatchNorm(int64_t channels, const DispatchDevice &device, double eps = 1e-5,
            double momentum = 0.1, bool affine = true);
  DispatchTensor forward(const DispatchTensor &x);
  std::vector<DispatchTensor *> parameters();
  /// "<prefix>weight" and "<prefix>bias".
  NamedParameters namedParameters(const std::string &prefix = "");
  /// The parameters, then "<prefix>running_mean" and "<prefix>running_var".
  NamedParameters namedState(const std::string &prefix = "");
  void train(bool on = true) { training = on; }

  std::optional<DispatchTensor> weight, bias;
  DispatchTensor runningMean, runningVar;
  double eps, momentum;
  bool training = true;
};

/// Dropout (PyTorch's nn.Dropout). In training mode (the default) forward()
/// zeroes each element with probability p and scales the rest by
/// 1/(1-p), with a new mask on each call: the call count is the mask's
/// run-time offset (kiln::dropout), so a training loop compiles once. In
/// evaluation mode forward() returns x.
class Dropout {
public:
  explicit Dropout(double p = 0.5, uint64_t seed = 0);
  DispatchTensor forward(const DispatchTensor &x);
  void train(bool on = true) { training = on; }

  double p;
  uint64_t seed;
  /// Calls in training mode so far: the next mask's offset.
  int64_t calls = 0;
  bool training = true;
};

/// Group normalization of [N, C, ...] in `groups` groups of channels, with
/// a per-channel weight (ones) and bias (zeros).
class GroupNorm {
public:
  GroupNorm(int64_t groups, int64_t channels, const DispatchDevice &device,
            double eps = 1e-5);
  DispatchTensor forward(const DispatchTensor &x) const;
  std::vector<DispatchTensor *> parameters();
  NamedParameters namedParameters(const std::string &prefix = "");

  DispatchTensor weight, bias;
  int64_t groups;
  double eps;
};

/// Writes the parameters to `path` in the safetensors format (an 8-byte
/// little-endian header length, a JSON header naming each tensor's dtype,
/// shape and byte range, then the raw little-endian data), under their
/// names. Tools that read safetensors read it; a failed write leaves no
/// file behind.
void save(const NamedParameters &params, const std::string &path);
/// Reads the safetensors file at `path` into `params`, by name: every one
/// must be in the file with its shape and a dtype that converts to the
/// parameter's (F64, F32, F16, BF16). A truncated, corrupt or mismatched
/// file is a kiln::Error naming the file and the tensor, and leaves every
/// parameter as it was (nothing is half-loaded).
void load(const NamedParameters &params, const std::string &path);

} // namespace kiln::nn

namespace kiln::optim {

/// Stochastic gradient descent as PyTorch's: g = grad + weightDecay * p;
/// with momentum, v = momentum * v + g and the step follows v, or
/// g + momentum * v with `nesterov`; then p -= lr * step.
class SGD {
public:
  SGD(std::vector<DispatchTensor *> params, double lr, double momentum = 0.0,
      double weightDecay = 0.0, bool nesterov = false);
  /// Records the update of every parameter that `grads` has a gradient for.
  void step(const Gradients &grads);

  double lr, momentum, weightDecay;
  bool nesterov;

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

/// AdamW (Loshchilov and Hutter): Adam with bias correction, and the
/// weight decay applied to the parameter itself (p -= lr * decay * p), not
/// added to the gradient. With `decayMatricesOnly`, as is usual for
/// transformers, biases, LayerNorm parameters and other 1-D tensors are not
/// decayed. Every step is one fused pass over each parameter and its two
/// moments; the learning rate, the bias corrections and the decay are
/// scalar arguments of the compiled step, so a new `lr` (a schedule)
/// compiles nothing. The moments are tensors of the device like the
/// parameters: sync the device (not only the parameters) after each step,
/// or their graphs grow from step to step.
class AdamW {
public:
  AdamW(std::vector<DispatchTensor *> params, double lr = 1e-3,
        double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8,
        double weightDecay = 0.01, bool decayMatricesOnly = true);
  void step(const Gradients &grads);
  /// The moments of the parameters named in `params` (matched by address),
  /// as "<prefix>m.<name>" and "<prefix>v.<name>": saved and loaded beside
  /// the parameters, they resume training where it stopped.
  nn::NamedParameters namedState(const nn::NamedParameters &params,
                                 const std::string &prefix = "adamw.");

  double lr, beta1, beta2, eps, weightDecay;
  bool decayMatricesOnly;
  int64_t steps = 0;

private:
  std::vector<DispatchTensor *> params_;
  std::vector<DispatchTensor> m_, v_;
};

/// The gradients scaled by min(1, maxNorm / (norm + 1e-6)), where norm is
/// their global L2 norm: all graph ops, so nothing goes to the host and the
/// scale fuses into the optimizer's pass over each parameter. `norm`, when
/// given, receives the norm before clipping (a pending scalar).
Gradients clipGradNorm(const Gradients &grads, double maxNorm,
                       DispatchTensor *norm = nullptr);

/// Linear warmup from 0 to `maxLr` over `warmup` steps, then a cosine
/// decay to `minLr` at `total` steps (and `minLr` after). Steps count from
/// 1.
double warmupCosine(int64_t step, int64_t warmup, int64_t total, double maxLr,
                    double minLr);

} // namespace kiln::optim

#endif // KILN_API_NN_H
