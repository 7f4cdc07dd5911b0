//===- Distributed.cpp - Data-parallel training ---------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/API/Distributed.h"

#include "Record.h"
#include "kiln/Engine/Distributed.h"

#include <algorithm>

using namespace kiln;
using namespace kiln::detail;

bool distributed::init(std::chrono::milliseconds timeout) {
  return joinProcessJob(timeout);
}

void distributed::finalize() { leaveProcessJob(); }

int distributed::rank() { return jobRank(); }

int distributed::size() { return jobSize(); }

DispatchTensor distributed::allReduce(const DispatchTensor &t, ReduceOp op) {
  Recorder r(ops::AllReduce::name, {&t});
  if (op == ReduceOp::Mean && !r.dtype(0).isFloat())
    r.fail("the mean of " + r.dtype(0).str() +
           " values is not defined; all-reduce their sum instead");
  return r.make(
      r.dtype(0), r.shape(0),
      {ops::AllReduce::kind(op == ReduceOp::Mean ? ops::AllReduceKind::Mean
                                                 : ops::AllReduceKind::Sum)});
}

Gradients distributed::averageGradients(const Gradients &grads) {
  return grads.map(
      [](const DispatchTensor &g) { return allReduce(g, ReduceOp::Mean); });
}

void distributed::broadcastParameters(
    const std::vector<DispatchTensor *> &params, int root) {
  for (DispatchTensor *p : params) {
    const NodePtr &old = nodeOf(*p, "broadcastParameters");
    if (old->dtype.isQuantized())
      throw Error("broadcastParameters: a quantized tensor cannot be "
                  "broadcast; broadcast its float values and quantize them "
                  "on every rank");
    std::vector<char> bytes(
        static_cast<size_t>(rules::numElements(old->shape)) *
        old->dtype.byteSize());
    materialize({old});
    copyToHost(*old, bytes.data());
    jobBroadcast(bytes.data(), bytes.size(), root);
    DispatchTensor fresh = DispatchTensor::fromData(
        old->dtype, bytes.data(), bytes.size() / old->dtype.byteSize(),
        p->shape(), p->device());
    const NodePtr &n = nodeOf(fresh, "broadcastParameters");
    n->requiresGrad = old->requiresGrad;
    n->checkpointing = old->checkpointing;
    p->assign(fresh);
  }
}

std::pair<int64_t, int64_t> distributed::shard(int64_t n) {
  int64_t ranks = size(), r = rank();
  int64_t base = n / ranks, extra = n % ranks;
  int64_t begin = r * base + std::min(r, extra);
  return {begin, begin + base + (r < extra ? 1 : 0)};
}

void distributed::runInProcess(int ranks,
                               const std::function<void(int rank)> &body,
                               std::chrono::milliseconds timeout) {
  runInProcessJob(ranks, timeout, body);
}

std::vector<distributed::CollectiveEvent> distributed::collectives(bool clear) {
  return jobCollectives(clear);
}
