//===- Graph.h - Recorded nodes of the pending graph ------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Recording appends a light Node: the kiln op's name, its attributes, input
// handles and result type. No MLIR is built while recording. A node is
// pending until materialized; then it holds a Buffer and lets go of its
// inputs, so the memory they pinned can be freed.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_ENGINE_GRAPH_H
#define KILN_ENGINE_GRAPH_H

#include "kiln/Runtime/Buffer.h"
#include "kiln/Support/CheckpointingStrategy.h"
#include "kiln/Support/DeviceKind.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::detail {

/// One attribute of a recorded op, named as in ODS.
struct NodeAttr {
  enum class Kind : uint8_t {
    I64,
    F64,
    I64Array,
    I32Array,
    F64Array,
    Unit,
    Enum
  };
  const char *name;
  Kind kind;
  int64_t i = 0;
  double f = 0;
  std::vector<int64_t> ints;
  std::vector<double> reals;

  static NodeAttr i64(const char *n, int64_t v) {
    return {n, Kind::I64, v, 0, {}};
  }
  static NodeAttr f64(const char *n, double v) {
    return {n, Kind::F64, 0, v, {}};
  }
  static NodeAttr array(const char *n, std::vector<int64_t> v) {
    return {n, Kind::I64Array, 0, 0, std::move(v)};
  }
  static NodeAttr segments(std::vector<int64_t> v) {
    return {"operandSegmentSizes", Kind::I32Array, 0, 0, std::move(v)};
  }
  static NodeAttr f64Array(const char *n, std::vector<double> v) {
    return {n, Kind::F64Array, 0, 0, {}, std::move(v)};
  }
  static NodeAttr unit(const char *n) { return {n, Kind::Unit, 0, 0, {}}; }
  static NodeAttr enumeration(const char *n, int64_t v) {
    return {n, Kind::Enum, v, 0, {}};
  }
};

struct Node : std::enable_shared_from_this<Node> {
  /// The kiln op ("kiln.add"), or null for data that was never an op.
  const char *op = nullptr;
  std::vector<NodeAttr> attrs;
  /// Present operands in ODS order (an absent optional operand is skipped;
  /// ops with several optional operands carry operandSegmentSizes).
  std::vector<std::shared_ptr<Node>> inputs;
  DType dtype;
  std::vector<int64_t> shape;
  DeviceKind device = DeviceKind::Flex;
  int deviceIndex = 0;
  /// Autodiff tracking: set when gradients flow through this value.
  std::optional<CheckpointingStrategy> checkpointing;
  /// A leaf whose gradient `backward` reports.
  bool requiresGrad = false;
  /// For `kiln.grad` nodes: which result of the gradient op this is.
  int resultIndex = 0;
  /// For ops that check their indices (Kiln_ChecksIndices): every index
  /// was known, and in range, when the op was recorded, so running it
  /// cannot fail on one.
  bool indicesChecked = false;
  /// A tracked value materialized while a parameter it was computed from
  /// was updated in place (its buffer given up to the update): its inputs
  /// are gone, so no later backward can retrace through it.
  bool retraceLost = false;
  /// Dims (bit d: dim d) marked dynamic: when this node is an input of a
  /// graph, executables compiled for it take any size there (markDynamic).
  uint64_t dynamicDims = 0;

  /// Set once materialized.
  std::optional<Buffer> buffer;

  /// The list of pending nodes (trackPending) this one is on, for
  /// DispatchDevice::sync(); guarded by that list's mutex.
  Node *pendingPrev = nullptr, *pendingNext = nullptr;
  bool onPendingList = false;
  /// The in-process rank whose thread recorded it (its collective queue;
  /// null outside such ranks): DispatchDevice::sync on a rank's thread
  /// materializes that rank's tensors, not another rank's.
  const void *rank = nullptr;

  bool isPending() const { return !buffer.has_value(); }

  Node() = default;
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;
  /// Releases the inputs without recursing through a long chain of nodes,
  /// which would overflow the stack.
  ~Node();
};

using NodePtr = std::shared_ptr<Node>;

/// A new node, from a pool of node-sized blocks: recording takes one per
/// op, and a pool's free list stays fast where malloc's bins, fragmented by
/// a freed graph of many nodes, were several times slower.
NodePtr makeNode();

/// Takes a node off the pending list (its destructor does, when it is
/// on it; see trackPending in Engine.h).
void untrackPending(Node &node);

} // namespace kiln::detail

#endif // KILN_ENGINE_GRAPH_H
