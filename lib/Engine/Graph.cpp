//===- Graph.cpp - Recorded nodes of the pending graph --------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Engine/Graph.h"

using namespace kiln::detail;

namespace {

/// Nodes this thread is destroying, counted down the chain of inputs.
thread_local int destroying = 0;
/// Inputs handed up by nodes destroyed too deep in a chain; the outermost
/// destructor releases them one at a time.
thread_local std::vector<NodePtr> *deferred = nullptr;

/// How deep a chain of destructors may recurse before it hands its inputs
/// up instead.
constexpr int kMaxDepth = 64;

} // namespace

Node::~Node() {
  if (inputs.empty())
    return;
  if (destroying >= kMaxDepth && deferred) {
    // Only this node's own inputs move: nothing else can see them.
    for (NodePtr &in : inputs)
      deferred->push_back(std::move(in));
    return;
  }
  ++destroying;
  if (!deferred) {
    std::vector<NodePtr> later;
    deferred = &later;
    inputs.clear();
    while (!later.empty()) {
      NodePtr n = std::move(later.back());
      later.pop_back();
      n.reset(); // may append to `later`, never recursing deeply
    }
    deferred = nullptr;
  } else {
    inputs.clear();
  }
  --destroying;
}
