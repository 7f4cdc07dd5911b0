//===- Importer.h - Mapping ONNX nodes onto Kiln ops ------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What one node's mapping sees: its attributes, its inputs as Kiln tensors
// (with the integer values of small inputs known on the host, such as a
// Reshape's shape computed by Shape, Gather and Concat), and where its
// outputs go. Each op type has one mapping function in the table of
// OnnxOps.cpp; the names it answers to are the table's keys.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_IMPORT_ONNX_IMPORTER_H
#define KILN_IMPORT_ONNX_IMPORTER_H

#include "kiln/API/Ops.h"
#include "kiln/Import/Onnx.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln::onnx::detail {

/// The most elements a mapping computes on the host (window coefficients,
/// resize taps): larger counts are the file's error, not an allocation.
constexpr int64_t kMaxHostElements = int64_t(1) << 24;
/// The largest stride, dilation, kernel size or pad a window takes: larger
/// ones are the file's error, before any arithmetic on them could
/// overflow.
constexpr int64_t kMaxWindow = int64_t(1) << 24;

/// A value of the graph: the tensor, and its integers when they are known
/// on the host without running anything (shapes and the arithmetic on
/// them), so that shape computations fold while importing.
struct Value {
  DispatchTensor tensor;
  std::optional<std::vector<int64_t>> ints;
};

/// Kiln's dtype for an ONNX TensorProto data type; an error naming the
/// ONNX type when Kiln has none.
DType dtypeOf(int32_t onnxType);
const char *onnxTypeName(int32_t onnxType);

/// A TensorProto's values, checked against its dims (external data read
/// under `baseDir`).
DispatchTensor tensorFromProto(const ::onnx::TensorProto &t,
                               const DispatchDevice &device,
                               const std::string &baseDir);

class NodeContext {
public:
  NodeContext(const ::onnx::NodeProto &node, int64_t opset,
              std::vector<std::optional<Value>> inputs,
              const DispatchDevice &device, const std::string &baseDir)
      : node(node), opset(opset), device(device), baseDir(baseDir),
        inputs_(std::move(inputs)) {}

  const ::onnx::NodeProto &node;
  const int64_t opset;
  const DispatchDevice &device;
  const std::string &baseDir;

  /// Throws the node's kiln::Error: "onnx: node 'n' (Op, domain ai.onnx,
  /// opset 13): what".
  [[noreturn]] void fail(const std::string &what) const;

  size_t numInputs() const { return inputs_.size(); }
  bool has(size_t i) const { return i < inputs_.size() && inputs_[i]; }
  /// Input i (an error naming it when absent).
  const DispatchTensor &in(size_t i) const;
  std::optional<DispatchTensor> optIn(size_t i) const;
  /// Input i's integers: known on the host, or read (materialized).
  std::vector<int64_t> ints(size_t i) const;
  /// Input i's values read (materialized) as doubles: scales, a region.
  std::vector<double> floats(size_t i) const;
  /// A scalar input read as a double.
  double scalar(size_t i) const;

  bool hasAttr(const std::string &name) const;
  int64_t attrInt(const std::string &name,
                  std::optional<int64_t> dflt = {}) const;
  double attrFloat(const std::string &name,
                   std::optional<double> dflt = {}) const;
  std::string attrString(const std::string &name,
                         std::optional<std::string> dflt = {}) const;
  std::vector<int64_t>
  attrInts(const std::string &name,
           std::optional<std::vector<int64_t>> dflt = {}) const;
  std::vector<double> attrFloats(const std::string &name) const;
  const ::onnx::TensorProto &attrTensor(const std::string &name) const;
  /// Input i, required to have a rank in [lo, hi] (the node's error
  /// otherwise).
  const DispatchTensor &inRank(size_t i, int64_t lo, int64_t hi) const;
  /// An ints attribute of exactly n entries, `fill` repeated when absent,
  /// each at least `min`.
  std::vector<int64_t> attrIntsOf(const std::string &name, size_t n,
                                  int64_t fill, int64_t min = INT64_MIN,
                                  int64_t max = INT64_MAX) const;
  /// A count or size read from the file as a double (a scalar input):
  /// an integer in [lo, hi], else the node's error naming `what`.
  int64_t countOf(double v, int64_t lo, int64_t hi,
                  const std::string &what) const;
  /// An int attribute of at least `min`.
  int64_t attrIntAtLeast(const std::string &name, int64_t min,
                         std::optional<int64_t> dflt = {}) const;
  /// Fails on any attribute not in `known`: an attribute Kiln ignores
  /// would change the answer silently.
  void expectAttrs(std::initializer_list<const char *> known) const;

  void set(size_t i, DispatchTensor t,
           std::optional<std::vector<int64_t>> ints = {});
  std::vector<std::optional<Value>> &outputs() { return outputs_; }

private:
  /// Input i, to be read on the host: its count is bounded.
  const DispatchTensor &hostList(size_t i) const;

  std::vector<std::optional<Value>> inputs_;
  std::vector<std::optional<Value>> outputs_;
};

using OpMapping = std::function<void(NodeContext &)>;
/// The op types of the default domain that Kiln maps, with the opsets from
/// which each mapping holds.
struct OpEntry {
  OpMapping map;
  int64_t sinceOpset = 1;
  /// Mapped only to refuse it with the reason.
  bool refused = false;
};
using OpTable = std::unordered_map<std::string, OpEntry>;
const OpTable &opTable();
/// The neural-network ops of OnnxNN.cpp.
void addNNOps(OpTable &table);

/// An axis of a rank-`rank` value, negative counted from the end (the
/// node's error when out of range).
int64_t normAxis(const NodeContext &c, int64_t axis, int64_t rank);
std::vector<int64_t> normAxes(const NodeContext &c, std::vector<int64_t> axes,
                              int64_t rank);
/// A rank-0 tensor of `like`'s dtype and device.
DispatchTensor scalarLike(double v, const DispatchTensor &like);
/// The integers of a small materialized integer tensor (shapes and their
/// arithmetic fold while importing); none for others.
std::optional<std::vector<int64_t>> hostInts(const DispatchTensor &t);
/// The saturating conversion of real values to a (u)int8 zero point's
/// dtype.
DispatchTensor saturate(const DispatchTensor &x, DType dtype);
/// A quantized operand's real values: (x - zero point) as f32, the zero
/// point per tensor, or per channel along `axis` when it is a vector (dim 0
/// of a conv weight, dim 1 of its input, the last two of a matmul's).
DispatchTensor centered(const NodeContext &c, const DispatchTensor &x,
                        const std::optional<DispatchTensor> &zp, int64_t axis);
/// An i64 vector (or rank-0 with `scalar`).
DispatchTensor intsTensor(const std::vector<int64_t> &v,
                          const DispatchDevice &device, bool scalar = false);

} // namespace kiln::onnx::detail

#endif // KILN_IMPORT_ONNX_IMPORTER_H
