//===- DecodeStep.cpp - A decoding step recorded once ---------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "DecodeStep.h"

#include "Record.h"

using namespace kiln;
using namespace kiln::detail;

DecodeStep::DecodeStep(Record record) : record_(std::move(record)) {}

DecodeStep::~DecodeStep() = default;

std::vector<DispatchTensor>
DecodeStep::operator()(std::vector<DispatchTensor> inputs) {
  kiln::sync(inputs);
  if (!replay_) {
    std::vector<DispatchTensor> outputs = record_(inputs);
    std::vector<NodePtr> targets, in;
    for (const DispatchTensor &t : outputs)
      targets.push_back(nodeOf(t, "decode step"));
    for (const DispatchTensor &t : inputs)
      in.push_back(nodeOf(t, "decode step"));
    replay_ = std::make_unique<Replay>(targets, in);
    device_ = inputs.front().device();
    return outputs;
  }
  std::vector<Buffer> buffers;
  std::vector<bool> giveUp;
  for (DispatchTensor &t : inputs) {
    NodePtr n = nodeOf(t, "decode step");
    t = DispatchTensor();
    // Only this call holds the node: its buffer may be given up.
    giveUp.push_back(n.use_count() == 1);
    buffers.push_back(giveUp.back() ? std::move(*n->buffer) : *n->buffer);
  }
  inputs.clear();
  std::vector<DispatchTensor> outputs;
  for (Buffer &b : replay_->run(std::move(buffers), giveUp))
    outputs.push_back(DispatchTensor(
        leafOver(std::move(b), device_.kind(), device_.index())));
  return outputs;
}
