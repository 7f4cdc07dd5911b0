//===- Subgraph.cpp - The pending subgraph and its structural key ---------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/KilnBuilders.h"
#include "kiln/Engine/Engine.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

using namespace kiln;
using namespace kiln::detail;

/// Differentiation must see the forward graph of tracked values even when
/// they were materialized: such nodes keep their inputs and are recomputed.
static bool isOpen(const Node &n, bool throughTracked) {
  return n.isPending() ||
         (throughTracked && n.checkpointing && n.op && !n.inputs.empty());
}

Subgraph kiln::detail::collectSubgraph(const std::vector<NodePtr> &targets,
                                       bool throughTracked) {
  Subgraph g;
  g.targets = targets;
  if (!targets.empty()) {
    g.device = targets.front()->device;
    g.deviceIndex = targets.front()->deviceIndex;
  }
  llvm::SmallDenseSet<Node *, 32> visited;
  // Iterative post-order so that deep graphs cannot overflow the stack.
  std::vector<std::pair<NodePtr, size_t>> stack;
  auto visit = [&](const NodePtr &root) {
    if (!visited.insert(root.get()).second)
      return;
    if (!isOpen(*root, throughTracked)) {
      g.leaves.push_back(root);
      return;
    }
    stack.push_back({root, 0});
    while (!stack.empty()) {
      Node *node = stack.back().first.get();
      size_t next = stack.back().second++;
      if (next == node->inputs.size()) {
        g.nodes.push_back(std::move(stack.back().first));
        stack.pop_back();
        continue;
      }
      const NodePtr &in = node->inputs[next];
      if (!visited.insert(in.get()).second)
        continue;
      if (isOpen(*in, throughTracked))
        stack.push_back({in, 0});
      else
        g.leaves.push_back(in);
    }
  };
  for (const NodePtr &t : targets)
    visit(t);
  return g;
}

namespace {

void appendShape(std::string &s, const std::vector<int64_t> &shape) {
  s += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ',';
    s += std::to_string(shape[i]);
  }
  s += ']';
}

/// `ints` as appendShape writes them, with each entry equal to `size`
/// written as `?`.
void appendFollowing(std::string &s, const std::vector<int64_t> &ints,
                     const std::vector<bool> &follows) {
  s += '[';
  for (size_t i = 0; i < ints.size(); ++i) {
    if (i)
      s += ',';
    if (i < follows.size() && follows[i])
      s += '?';
    else
      s += std::to_string(ints[i]);
  }
  s += ']';
}

/// A value's shape, or only its rank.
void appendDims(std::string &s, const std::vector<int64_t> &shape,
                bool withSizes) {
  if (withSizes) {
    appendShape(s, shape);
    return;
  }
  s += "[r";
  s += std::to_string(shape.size());
  s += ']';
}

} // namespace

DynamicDims kiln::detail::dynamicDimsOf(const Subgraph &g,
                                        const std::vector<uint64_t> *extra) {
  DynamicDims d;
  // The common case, nothing marked, allocates nothing.
  if (!extra && std::none_of(g.leaves.begin(), g.leaves.end(),
                             [](const NodePtr &l) { return l->dynamicDims; }))
    return d;
  d.leafDims.assign(g.leaves.size(), 0);
  for (size_t i = 0; i < g.leaves.size(); ++i) {
    const Node &l = *g.leaves[i];
    uint64_t marked = l.dynamicDims | (extra ? (*extra)[i] : 0);
    for (size_t k = 0; marked && k < l.shape.size() && k < 64; ++k) {
      if (!(marked >> k & 1) || l.shape[k] == 0)
        continue;
      if (d.size < 0)
        d.size = l.shape[k];
      if (l.shape[k] == d.size)
        d.leafDims[i] |= uint64_t(1) << k;
    }
  }
  return d;
}

std::vector<bool> kiln::detail::followedEntries(const Node &node,
                                               const NodeAttr &attr,
                                               int64_t size) {
  if (node.inputs.empty() || !node.op)
    return {};
  const std::vector<int64_t> &recorded = node.inputs[0]->shape;
  llvm::SmallVector<int64_t> moved;
  for (size_t i = 0; i < recorded.size(); ++i)
    if (recorded[i] == size)
      moved.push_back(static_cast<int64_t>(i));
  if (moved.empty())
    return {};
  std::vector<int64_t> starts, steps;
  for (const NodeAttr &a : node.attrs) {
    if (std::strcmp(a.name, "starts") == 0)
      starts = a.ints;
    else if (std::strcmp(a.name, "steps") == 0)
      steps = a.ints;
  }
  llvm::SmallVector<bool> follows = mlir::kiln::followingEntries(
      node.op, recorded, moved, attr.ints, starts, steps);
  if (!llvm::is_contained(follows, true))
    return {};
  return std::vector<bool>(follows.begin(), follows.end());
}

std::string kiln::detail::structuralKey(
    const Subgraph &g, bool withSizes, const DynamicDims *dynamic,
    const std::vector<std::vector<bool>> *marks) {
  if (dynamic && dynamic->empty())
    dynamic = nullptr;
  // Each leaf is named a<i> and each node n<i>, by position: the index is
  // kept, with the node flag in the top bit, rather than a string per node
  // (this runs on every materialization).
  constexpr uint32_t kNodeBit = 0x80000000u;
  llvm::SmallDenseMap<const Node *, uint32_t, 32> names;
  names.reserve(g.nodes.size() + g.leaves.size());
  auto appendName = [](std::string &key, uint32_t name) {
    key += (name & kNodeBit) ? 'n' : 'a';
    key += std::to_string(name & ~kNodeBit);
  };
  std::string key;
  key.reserve(64 * (g.nodes.size() + g.leaves.size()) + 32);
  key += dynamic ? "dyn;dev=" : "dev=";
  key += std::to_string(static_cast<int>(g.device));
  key += ':';
  key += std::to_string(g.deviceIndex);
  key += ';';
  for (size_t i = 0; i < g.leaves.size(); ++i) {
    const Node &l = *g.leaves[i];
    names[&l] = static_cast<uint32_t>(i);
    key += l.dtype.str();
    if (dynamic) {
      key += '[';
      for (size_t k = 0; k < l.shape.size(); ++k) {
        if (k)
          key += ',';
        if (k < 64 && (dynamic->leafDims[i] >> k & 1))
          key += '?';
        else
          key += std::to_string(l.shape[k]);
      }
      key += ']';
    } else {
      appendDims(key, l.shape, withSizes);
    }
    key += l.buffer->isContiguous() ? 'c' : 's';
    if (l.checkpointing)
      key += l.checkpointing->str();
    if (l.requiresGrad)
      key += 'g';
    key += ';';
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node &n = *g.nodes[i];
    names[&n] = static_cast<uint32_t>(i) | kNodeBit;
    key += n.op;
    key += '(';
    for (const NodePtr &in : n.inputs) {
      appendName(key, names.lookup(in.get()));
      key += ',';
    }
    key += ')';
    for (const NodeAttr &a : n.attrs) {
      key += a.name;
      key += '=';
      switch (a.kind) {
      case NodeAttr::Kind::I64:
      case NodeAttr::Kind::Enum:
        key += std::to_string(a.i);
        break;
      case NodeAttr::Kind::F64: {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", a.f);
        key += buf;
        break;
      }
      case NodeAttr::Kind::I64Array:
      case NodeAttr::Kind::I32Array:
        // Sizes that follow S (a reshape to [B, T, ...]) are written as
        // `?`: one key, and one executable, for every S.
        // Without sizes (a graph's group), they are left out: a new batch
        // changes a reshape to [B, T, ...] along with the inputs.
        if (dynamic && mlir::kiln::attrFollowsDynamicDims(n.op, a.name))
          appendFollowing(key, a.ints,
                          marks ? (*marks)[i]
                                : followedEntries(n, a, dynamic->size));
        else if (!withSizes &&
                 mlir::kiln::attrFollowsDynamicDims(n.op, a.name))
          key += "[r" + std::to_string(a.ints.size()) + "]";
        else
          appendShape(key, a.ints);
        break;
      case NodeAttr::Kind::F64Array:
        for (double v : a.reals) {
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.17g,", v);
          key += buf;
        }
        break;
      case NodeAttr::Kind::Unit:
        key += 'u';
        break;
      }
      key += ',';
    }
    key += n.dtype.str();
    appendDims(key, n.shape, withSizes && !dynamic);
    if (n.checkpointing)
      key += n.checkpointing->str();
    if (n.resultIndex)
      key += "#" + std::to_string(n.resultIndex);
    key += ';';
  }
  key += "->";
  for (const NodePtr &t : g.targets) {
    appendName(key, names.lookup(t.get()));
    key += ',';
  }
  return key;
}
