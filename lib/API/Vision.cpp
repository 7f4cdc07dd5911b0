//===- Vision.cpp - Residual networks -------------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/API/Vision.h"

using namespace kiln;
using namespace kiln::nn;

namespace {

/// Appends `more` to `into`.
void append(NamedParameters &into, NamedParameters more) {
  into.insert(into.end(), more.begin(), more.end());
}

/// A batch norm's parameters, or (`state`) its parameters and running
/// statistics.
NamedParameters normNamed(BatchNorm &bn, const std::string &prefix,
                          bool state) {
  return state ? bn.namedState(prefix) : bn.namedParameters(prefix);
}

ConvOptions square(int64_t stride, int64_t padding) {
  return {{stride, stride}, {padding, padding}, {1, 1}, 1};
}

} // namespace

BasicBlock::BasicBlock(int64_t in, int64_t out, int64_t stride,
                       const DispatchDevice &device, uint64_t seed)
    : conv1(in, out, {3, 3}, device, seed, square(stride, 1), /*bias=*/false),
      conv2(out, out, {3, 3}, device, seed + 1, square(1, 1), /*bias=*/false),
      bn1(out, device), bn2(out, device) {
  if (stride != 1 || in != out) {
    downsampleConv.emplace(in, out, std::vector<int64_t>{1, 1}, device,
                           seed + 2, square(stride, 0), /*bias=*/false);
    downsampleNorm.emplace(out, device);
  }
}

DispatchTensor BasicBlock::forward(const DispatchTensor &x) {
  DispatchTensor h = relu(bn1.forward(conv1.forward(x)));
  h = bn2.forward(conv2.forward(h));
  DispatchTensor shortcut =
      downsampleConv ? downsampleNorm->forward(downsampleConv->forward(x)) : x;
  return relu(h + shortcut);
}

NamedParameters BasicBlock::named(const std::string &prefix, bool state) {
  NamedParameters p = conv1.namedParameters(prefix + "conv1.");
  append(p, normNamed(bn1, prefix + "bn1.", state));
  append(p, conv2.namedParameters(prefix + "conv2."));
  append(p, normNamed(bn2, prefix + "bn2.", state));
  if (downsampleConv) {
    append(p, downsampleConv->namedParameters(prefix + "downsample.0."));
    append(p, normNamed(*downsampleNorm, prefix + "downsample.1.", state));
  }
  return p;
}

NamedParameters BasicBlock::namedParameters(const std::string &prefix) {
  return named(prefix, false);
}

NamedParameters BasicBlock::namedState(const std::string &prefix) {
  return named(prefix, true);
}

void BasicBlock::train(bool on) {
  bn1.train(on);
  bn2.train(on);
  if (downsampleNorm)
    downsampleNorm->train(on);
}

ResNetConfig ResNetConfig::resnet18(int64_t classes) {
  ResNetConfig c;
  c.blocks = {2, 2, 2, 2};
  c.classes = classes;
  return c;
}

ResNetConfig ResNetConfig::resnet34(int64_t classes) {
  ResNetConfig c;
  c.blocks = {3, 4, 6, 3};
  c.classes = classes;
  return c;
}

/// The checked config: a bad one is an error before any parameter is made.
static const ResNetConfig &checked(const ResNetConfig &c) {
  if (c.blocks.size() != 4)
    throw Error("ResNet: needs blocks for 4 stages, got " +
                std::to_string(c.blocks.size()));
  for (int64_t b : c.blocks)
    if (b < 1)
      throw Error("ResNet: every stage needs at least one block, got " +
                  std::to_string(b));
  if (c.classes < 1 || c.inChannels < 1)
    throw Error("ResNet: classes and input channels must be >= 1, got " +
                std::to_string(c.classes) + " and " +
                std::to_string(c.inChannels));
  return c;
}

ResNet::ResNet(const ResNetConfig &c, const DispatchDevice &device,
               uint64_t seed)
    : config(checked(c)),
      conv1(c.inChannels, 64,
            c.smallInputs ? std::vector<int64_t>{3, 3}
                          : std::vector<int64_t>{7, 7},
            device, seed, c.smallInputs ? square(1, 1) : square(2, 3),
            /*bias=*/false),
      bn1(64, device), fc(512, c.classes, device, seed + 1) {
  int64_t in = 64;
  uint64_t next = seed + 10;
  for (size_t s = 0; s < 4; ++s) {
    int64_t out = int64_t(64) << s;
    std::vector<BasicBlock> stage;
    for (int64_t b = 0; b < c.blocks[s]; ++b) {
      stage.emplace_back(in, out, s > 0 && b == 0 ? 2 : 1, device, next);
      next += 3;
      in = out;
    }
    stages.push_back(std::move(stage));
  }
}

DispatchTensor ResNet::forward(const DispatchTensor &x) {
  DispatchTensor h = relu(bn1.forward(conv1.forward(x)));
  if (!config.smallInputs)
    h = maxPool2d(h, {3, 3}, {2, 2}, {1, 1});
  for (std::vector<BasicBlock> &stage : stages)
    for (BasicBlock &block : stage)
      h = block.forward(h);
  h = adaptiveAvgPool2d(h, {1, 1}).reshape({-1, 512});
  return fc.forward(h);
}

std::vector<DispatchTensor *> ResNet::parameters() {
  std::vector<DispatchTensor *> p;
  for (auto &[name, t] : namedParameters())
    p.push_back(t);
  return p;
}

NamedParameters ResNet::named(const std::string &prefix, bool state) {
  NamedParameters p = conv1.namedParameters(prefix + "conv1.");
  append(p, normNamed(bn1, prefix + "bn1.", state));
  for (size_t s = 0; s < stages.size(); ++s)
    for (size_t b = 0; b < stages[s].size(); ++b) {
      std::string at = prefix + "layer" + std::to_string(s + 1) + "." +
                       std::to_string(b) + ".";
      append(p, state ? stages[s][b].namedState(at)
                      : stages[s][b].namedParameters(at));
    }
  append(p, fc.namedParameters(prefix + "fc."));
  return p;
}

NamedParameters ResNet::namedParameters(const std::string &prefix) {
  return named(prefix, false);
}

NamedParameters ResNet::namedState(const std::string &prefix) {
  return named(prefix, true);
}

void ResNet::train(bool on) {
  training_ = on;
  bn1.train(on);
  for (std::vector<BasicBlock> &stage : stages)
    for (BasicBlock &block : stage)
      block.train(on);
}
