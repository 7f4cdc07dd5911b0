//===- Autodiff.cpp - Tracking, backward, detach and no-grad scopes -------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/API/Autodiff.h"
#include "Record.h"

#include <unordered_set>

using namespace kiln;
using namespace kiln::detail;

namespace {
thread_local int noGradDepth = 0;
} // namespace

bool kiln::detail::gradDisabled() { return noGradDepth > 0; }

NoGradGuard::NoGradGuard() { ++noGradDepth; }
NoGradGuard::~NoGradGuard() { --noGradDepth; }

DispatchTensor &
DispatchTensor::requireGrad(std::optional<CheckpointingStrategy> strategy) {
  const NodePtr &n = nodeOf(*this, "requireGrad");
  if (!n->dtype.isFloat())
    throw Error("requireGrad: only float tensors have gradients, not " +
                describe(*n));
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
  Recorder r(ops::Detach::name, {this});
  DispatchTensor t = r.make(r.dtype(0), r.shape(0));
  t.kind.node->checkpointing.reset();
  t.checkpointing.reset();
  return t;
}

/// A leaf of differentiation: tracked, and nothing tracked behind it.
static bool isLeaf(const Node &n) {
  if (n.requiresGrad || !n.op)
    return true;
  if (n.inputs.empty())
    return true;
  for (const NodePtr &in : n.inputs)
    if (in->checkpointing)
      return false;
  return true;
}

Gradients kiln::backward(const DispatchTensor &loss) {
  const NodePtr &l = nodeOf(loss, "backward");
  if (!l->checkpointing)
    throw Error("backward: the loss " + describe(*l) +
                " is not tracked; create the parameters on an autodiff device "
                "or call requireGrad() on them");
  if (!l->dtype.isFloat())
    throw Error("backward: the loss must be a float tensor, not " +
                describe(*l));
  if (rules::numElements(l->shape) != 1)
    throw Error("backward: the loss must have one element, but it is " +
                describe(*l) + "; reduce it first (e.g. mean())");
  DispatchTensor scalarLoss = loss;
  if (!l->shape.empty()) {
    // The reshape to rank 0 stays tracked even inside a no-grad scope.
    int depth = noGradDepth;
    noGradDepth = 0;
    scalarLoss = reshape(loss, Shape{});
    noGradDepth = depth;
  }
  const NodePtr &root = scalarLoss.kind.node;

  // Tracked leaves reachable through tracked nodes, in discovery order.
  Gradients grads;
  std::unordered_set<const Node *> seen;
  std::vector<NodePtr> stack{root};
  while (!stack.empty()) {
    NodePtr n = stack.back();
    stack.pop_back();
    if (!n->checkpointing || !seen.insert(n.get()).second)
      continue;
    if (n->retraceLost)
      throw Error("backward: the loss depends on " + describe(*n) +
                  ", which was materialized while a parameter it was computed "
                  "from was updated in place, so its graph is gone; call "
                  "backward before the update (as a training step does), or "
                  "keep a handle to the old parameter");
    if (n != root && isLeaf(*n)) {
      if (n->dtype.isFloat()) {
        auto g = makeNode();
        g->op = ops::Grad::name;
        g->inputs = {root, n};
        g->dtype = n->dtype;
        g->shape = n->shape;
        g->device = n->device;
        g->deviceIndex = n->deviceIndex;
        trackPending(g);
        grads.grads_.push_back({n, DispatchTensor(g)});
      }
      continue;
    }
    for (auto it = n->inputs.rbegin(); it != n->inputs.rend(); ++it)
      stack.push_back(*it);
  }
  return grads;
}

DispatchTensor Gradients::get(const DispatchTensor &leaf) const {
  const NodePtr &n = nodeOf(leaf, "Gradients::get");
  for (const auto &[node, grad] : grads_)
    if (node == n)
      return grad;
  if (!n->checkpointing)
    throw Error("Gradients::get: " + describe(*n) +
                " is not tracked, so it has no gradient");
  throw Error("Gradients::get: the loss does not depend on " + describe(*n) +
              " (or it is not a leaf: ask for the parameters themselves)");
}

bool Gradients::has(const DispatchTensor &leaf) const {
  const NodePtr &n = nodeOf(leaf, "Gradients::has");
  for (const auto &[node, grad] : grads_)
    if (node == n)
      return true;
  return false;
}

std::vector<DispatchTensor> Gradients::all() const {
  std::vector<DispatchTensor> out;
  for (const auto &[node, grad] : grads_)
    out.push_back(grad);
  return out;
}

Gradients Gradients::map(
    const std::function<DispatchTensor(const DispatchTensor &)> &fn) const {
  Gradients out;
  for (const auto &[node, grad] : grads_) {
    DispatchTensor g = fn(grad);
    if (g.shape() != grad.shape() || g.dtype() != grad.dtype())
      throw Error("Gradients::map: the function turned a " +
                  grad.dtype().str() + grad.shape().str() + " gradient into " +
                  g.dtype().str() + g.shape().str());
    out.grads_.emplace_back(node, std::move(g));
  }
  return out;
}
