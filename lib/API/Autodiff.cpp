//===- Autodiff.cpp - Tracking, detach and no-grad scopes -----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Record.h"

using namespace kiln;
using namespace kiln::detail;

namespace {
thread_local int noGradDepth = 0;
} // namespace

bool kiln::detail::gradDisabled() { return noGradDepth > 0; }

DispatchTensor &
DispatchTensor::requireGrad(std::optional<CheckpointingStrategy> strategy) {
  const NodePtr &n = nodeOf(*this, "requireGrad");
  std::optional<CheckpointingStrategy> s =
      strategy ? strategy : n->checkpointing;
  if (!s)
    s = CheckpointingStrategy::Disabled;
  n->checkpointing = s;
  n->requiresGrad = true;
  checkpointing = s;
  return *this;
}

DispatchTensor DispatchTensor::detach() const {
  Recorder r("kiln.detach", {this});
  DispatchTensor t = r.make(r.dtype(0), r.shape(0));
  t.kind.node->checkpointing.reset();
  t.checkpointing.reset();
  return t;
}
