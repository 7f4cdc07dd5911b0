//===- Vision.h - Residual networks -----------------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// ResNets of basic blocks (ResNet-18 and -34) from the layers of NN.h, with
// PyTorch's parameter names ("layer2.0.downsample.1.running_mean"), so that
// nn::save and nn::load read and write the same tensors by name. No shape is
// written in terms of the batch: a graph with its batch dim marked dynamic
// compiles once for every batch size.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_API_VISION_H
#define KILN_API_VISION_H

#include "kiln/API/NN.h"

namespace kiln::nn {

/// relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x)): two 3x3
/// convolutions without bias, the first with `stride`; the shortcut is x,
/// or a strided 1x1 convolution and batch norm when the shape changes.
class BasicBlock {
public:
  BasicBlock(int64_t in, int64_t out, int64_t stride,
             const DispatchDevice &device, uint64_t seed);
  DispatchTensor forward(const DispatchTensor &x);
  NamedParameters namedParameters(const std::string &prefix);
  /// The parameters and the batch norms' running statistics.
  NamedParameters namedState(const std::string &prefix);
  void train(bool on);

  Conv conv1, conv2;
  BatchNorm bn1, bn2;
  std::optional<Conv> downsampleConv;
  std::optional<BatchNorm> downsampleNorm;

private:
  NamedParameters named(const std::string &prefix, bool state);
};

struct ResNetConfig {
  /// Basic blocks per stage; the stages have 64, 128, 256 and 512
  /// channels, and each after the first halves the resolution.
  std::vector<int64_t> blocks = {2, 2, 2, 2};
  int64_t classes = 1000;
  int64_t inChannels = 3;
  /// A 3x3 stride-1 stem without max pooling, for 32x32 images; otherwise
  /// the 7x7 stride-2 stem and a 3x3 stride-2 max pool (224x224 images).
  bool smallInputs = false;

  static ResNetConfig resnet18(int64_t classes = 1000);
  static ResNetConfig resnet34(int64_t classes = 1000);
};

/// A ResNet of basic blocks: the stem, the stages, global average pooling
/// and a linear classifier. forward() maps [N, C, H, W] images to [N,
/// classes] logits. It starts in training mode (batch statistics); eval()
/// switches every batch norm to its running statistics.
class ResNet {
public:
  ResNet(const ResNetConfig &config, const DispatchDevice &device,
         uint64_t seed);
  DispatchTensor forward(const DispatchTensor &x);
  std::vector<DispatchTensor *> parameters();
  NamedParameters namedParameters(const std::string &prefix = "");
  /// What save and load should carry: the parameters and every running
  /// statistic.
  NamedParameters namedState(const std::string &prefix = "");
  void train(bool on = true);
  void eval() { train(false); }
  bool training() const { return training_; }

  ResNetConfig config;
  Conv conv1;
  BatchNorm bn1;
  std::vector<std::vector<BasicBlock>> stages;
  Linear fc;

private:
  NamedParameters named(const std::string &prefix, bool state);
  bool training_ = true;
};

} // namespace kiln::nn

#endif // KILN_API_VISION_H
