//===- Engine.h - Materializing pending graphs ------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The one path every backend shares: cut the pending subgraph out, key it
// structurally, take its executable from the cache or build the kiln module,
// run the passes and compile, then run it and store the results.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ENGINE_ENGINE_H
#define KILN_ENGINE_ENGINE_H

#include "kiln/Engine/Graph.h"

#include <string>
#include <vector>

namespace kiln::detail {

/// The pending nodes that `targets` depend on, in a deterministic
/// topological order, and the materialized leaves they read.
struct Subgraph {
  std::vector<NodePtr> targets;
  std::vector<NodePtr> nodes;  ///< pending, inputs before users
  std::vector<NodePtr> leaves; ///< materialized, in argument order
  DeviceKind device = DeviceKind::Flex;
  int deviceIndex = 0;
};

/// With `throughTracked`, materialized tracked nodes that kept their inputs
/// are opened up too (to differentiate through them).
Subgraph collectSubgraph(const std::vector<NodePtr> &targets,
                         bool throughTracked = false);

/// A string that identifies the subgraph's structure (ops, attributes,
/// dtypes, shapes, argument layouts) but not the data it reads. Without
/// `withSizes`, values are keyed by their rank only: graphs that differ in
/// nothing but sizes share that key.
std::string structuralKey(const Subgraph &graph, bool withSizes = true);

/// The subgraph as a kiln-dialect module with function @main.
std::string printSubgraph(const Subgraph &graph);

/// Computes every pending target. After this, each target holds a buffer
/// and no longer pins its inputs.
void materialize(const std::vector<NodePtr> &targets);

/// Registers a pending node so DispatchDevice::sync() can find it.
void trackPending(const NodePtr &node);
/// The pending nodes of a backend that handles hold (not those only other
/// pending nodes read), from every thread: materializing them is safe only
/// while no other thread materializes the same tensors.
std::vector<NodePtr> heldPending(DeviceKind kind, int index);

} // namespace kiln::detail

#endif // KILN_ENGINE_ENGINE_H
