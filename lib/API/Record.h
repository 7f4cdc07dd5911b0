//===- Record.h - Checking and recording one op -----------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_API_RECORD_H
#define KILN_LIB_API_RECORD_H

#include "kiln/API/Ops.h"
#include "kiln/Engine/Devices.h"
#include "kiln/Engine/Engine.h"
#include "kiln/Engine/OpSignatures.h"
#include "kiln/Engine/OpVocabulary.h"
#include "kiln/Support/ShapeRules.h"

namespace kiln::detail {

/// The node behind a handle; an error for a default-constructed handle.
const NodePtr &nodeOf(const DispatchTensor &t, const char *op);

/// True inside a kiln::NoGradGuard scope.
bool gradDisabled();

/// Validates the operands of one op and records it. Every check throws
/// kiln::Error("<op>: <what is wrong>; operands <dtype>[<shape>], ...").
class Recorder {
public:
  Recorder(const char *op, std::vector<const DispatchTensor *> operands);
  /// An op without operands (creation) on `device`.
  Recorder(const char *op, const DispatchDevice &device)
      : op_(op), device_(device.backend()) {}

  [[noreturn]] void fail(const std::string &message) const;
  /// Fails with `message` unless it is empty (the shape rules' convention).
  void check(const std::string &message) const {
    if (!message.empty())
      fail(message);
  }

  const NodePtr &node(size_t i) const { return nodes_[i]; }
  DType dtype(size_t i) const { return nodes_[i]->dtype; }
  const std::vector<int64_t> &shape(size_t i) const { return nodes_[i]->shape; }
  int64_t rank(size_t i) const {
    return static_cast<int64_t>(nodes_[i]->shape.size());
  }

  // Operand dtypes are checked against ODS when the recorder is made
  // (kiln/Engine/OpSignatures.h); these are the checks ODS cannot state.
  void requireIndex(size_t i) const;
  void requireSameDType(size_t i, size_t j) const;

  /// Checks the indices of operand `i` against [0, size) when they are
  /// already known (materialized on the host), failing with the first bad
  /// one; then the recorded op is marked as checked, and running it cannot
  /// fail on an index. Unknown indices are checked by the kernel.
  /// An op that reads no index (`reads`, the elements of its result, or of
  /// scatter_add's updates, is 0) checks none, on every backend.
  /// An index equal to `allowed` (cross-entropy's ignore_index) passes.
  void checkIndices(size_t i, int64_t size, int64_t reads,
                    std::optional<int64_t> allowed = std::nullopt);

  /// A possibly negative axis of a rank-`rank` tensor, made non-negative.
  int64_t axis(int64_t axis, int64_t rank) const;
  std::vector<int64_t> axes(std::vector<int64_t> axes, int64_t rank) const;

  /// Records the op over all operands (or `inputs` when given).
  DispatchTensor make(DType dtype, std::vector<int64_t> shape,
                      std::vector<NodeAttr> attrs = {}) const;
  DispatchTensor make(DType dtype, std::vector<int64_t> shape,
                      std::vector<NodeAttr> attrs,
                      std::vector<NodePtr> inputs) const;

  const DispatchDevice &device() const { return device_; }

private:
  const char *op_;
  std::vector<NodePtr> nodes_;
  DispatchDevice device_{DeviceKind::Flex, 0};
  std::optional<CheckpointingStrategy> tracking_;
  bool indicesChecked_ = false;
};

/// A rank-0 tensor on `device` holding `value` converted to `dtype`.
NodePtr scalarNode(double value, DType dtype, const DispatchDevice &device);
/// "" when `value` is a value of `dtype` (an integer in its range, 0 or 1
/// for bool; any number for a float dtype), else why not.
std::string scalarMisfit(double value, DType dtype);

/// "f32[2, 3]".
std::string describe(const Node &n);

} // namespace kiln::detail

#endif // KILN_LIB_API_RECORD_H
