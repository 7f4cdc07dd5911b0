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

#include <memory>
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

/// The dynamic size of a graph: one symbol S, the size of every input dim
/// that is dynamic. Dims are dynamic when marked (Node::dynamicDims, or
/// `extra`, one mask per leaf) and of the first marked dim's size; marked
/// dims of another size stay static, and so does a size of 0.
struct DynamicDims {
  int64_t size = -1;              ///< S; -1: the graph is static
  std::vector<uint64_t> leafDims; ///< per leaf, the dims that are S
  bool empty() const { return size < 0; }
};
DynamicDims dynamicDimsOf(const Subgraph &graph,
                          const std::vector<uint64_t> *extra = nullptr);

/// A string that identifies the subgraph's structure (ops, attributes,
/// dtypes, shapes, argument layouts) but not the data it reads. Without
/// `withSizes`, values are keyed by their rank only: graphs that differ in
/// nothing but sizes share that key. With `dynamic`, the inputs' dynamic
/// dims read `?` and the other values are keyed by their rank (their
/// shapes follow from the inputs' and the attributes).
/// `marks`, one per node (empty: none), gives the entries of its size
/// attribute that follow the dynamic dims, in place of followedEntries.
std::string
structuralKey(const Subgraph &graph, bool withSizes = true,
              const DynamicDims *dynamic = nullptr,
              const std::vector<std::vector<bool>> *marks = nullptr);

/// For a node's attribute that may follow the dynamic dims (a reshape's or
/// expand's `shape`, a slice's `ends`): which entries the key writes as `?`,
/// those the rule of relaxRecordedShape follows when the dims of the
/// node's operand equal to `size` are the dynamic ones (a static dim equal
/// to S makes this a guess, which compileSubgraph checks). Empty when
/// none.
std::vector<bool> followedEntries(const Node &node, const NodeAttr &attr,
                                  int64_t size);

/// The subgraph as a kiln-dialect module with function @main; with
/// `dynamic`, its dynamic dims are `?` (static when some op cannot infer
/// its shapes from them).
std::string printSubgraph(const Subgraph &graph,
                          const DynamicDims *dynamic = nullptr);

/// Computes every pending target. After this, each target holds a buffer
/// and no longer pins its inputs.
void materialize(const std::vector<NodePtr> &targets);

class Executable;

/// A materialization kept to run again with other buffers for some of its
/// leaves, skipping recording, keying and the cache lookup: a decoding
/// loop's step, the same graph at every token.
class Replay {
public:
  /// Materializes `targets` (pending and distinct) and keeps their
  /// executable and the buffers of the leaves they read; `inputs`
  /// (materialized) are the leaves each run() supplies anew. The graph must
  /// not depend on the inputs' values except through their buffers.
  Replay(const std::vector<NodePtr> &targets,
         const std::vector<NodePtr> &inputs);
  ~Replay();

  /// The targets' values computed from new buffers for the inputs, of the
  /// dtypes and shapes the graph was recorded with. An input whose
  /// `giveUp` is set, and whose storage nothing else holds, may be written
  /// over by a result.
  std::vector<Buffer> run(std::vector<Buffer> inputs,
                          const std::vector<bool> &giveUp);

private:
  std::shared_ptr<Executable> exe_;
  DeviceKind device_ = DeviceKind::Flex;
  int deviceIndex_ = 0;
  /// Every leaf's buffer (an input's is empty: each run brings it).
  std::vector<Buffer> leaves_;
  /// Per input: its leaf (-1: the graph does not read it), dtype, shape.
  std::vector<int> inputLeaf_;
  std::vector<DType> inputTypes_;
  std::vector<std::vector<int64_t>> inputShapes_;
};

/// Registers a pending node so DispatchDevice::sync() can find it.
void trackPending(const NodePtr &node);
/// The pending nodes of a backend that handles hold (not those only other
/// pending nodes read), from every thread: materializing them is safe only
/// while no other thread materializes the same tensors.
std::vector<NodePtr> heldPending(DeviceKind kind, int index);

} // namespace kiln::detail

#endif // KILN_ENGINE_ENGINE_H
