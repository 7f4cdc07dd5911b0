//===- Record.cpp - Checking and recording one op -------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Record.h"

#include "kiln/Support/IndexCheck.h"

#include <cmath>
#include <cstring>

using namespace kiln;
using namespace kiln::detail;

const NodePtr &kiln::detail::nodeOf(const DispatchTensor &t, const char *op) {
  if (!t.kind.node)
    throw Error(std::string(op) + ": an operand is an empty tensor handle");
  return t.kind.node;
}

std::string kiln::detail::describe(const Node &n) {
  return n.dtype.str() + rules::formatDims(n.shape);
}

Recorder::Recorder(const char *op, std::vector<const DispatchTensor *> operands)
    : op_(op) {
  nodes_.reserve(operands.size());
  for (const DispatchTensor *t : operands)
    nodes_.push_back(nodeOf(*t, op));
  if (nodes_.empty())
    return;
  const Node &first = *nodes_.front();
  device_ = DispatchDevice(first.device, first.deviceIndex);
  for (const NodePtr &n : nodes_) {
    if (n->device != first.device || n->deviceIndex != first.deviceIndex)
      fail("tensors on two devices (" +
           DispatchDevice(first.device, first.deviceIndex).str() + " and " +
           DispatchDevice(n->device, n->deviceIndex).str() +
           "); move one with .to(device)");
    if (n->checkpointing) {
      if (tracking_ && *tracking_ != *n->checkpointing)
        fail("operands are tracked with two checkpointing strategies (" +
             tracking_->str() + " and " + n->checkpointing->str() + ")");
      tracking_ = n->checkpointing;
    }
  }
  // The dtypes ODS accepts for each operand.
  for (size_t i = 0; i < nodes_.size(); ++i)
    check(checkOperandDType(op_, i, nodes_[i]->dtype));
  if (gradDisabled())
    tracking_.reset();
}

void Recorder::fail(const std::string &message) const {
  std::string s = std::string(op_) + ": " + message;
  if (!nodes_.empty()) {
    s += "; operands ";
    for (size_t i = 0; i < nodes_.size(); ++i)
      s += (i ? ", " : "") + describe(*nodes_[i]);
  }
  throw Error(s);
}

void Recorder::requireIndex(size_t i) const {
  if (dtype(i).kind() != DTypeKind::I64 && dtype(i).kind() != DTypeKind::I32)
    fail("indices must be i64 or i32, not " + dtype(i).str());
}
void Recorder::requireSameDType(size_t i, size_t j) const {
  if (dtype(i) != dtype(j))
    fail("dtype mismatch: " + dtype(i).str() + " vs " + dtype(j).str() +
         " (cast one operand first)");
}

int64_t Recorder::axis(int64_t a, int64_t rank) const {
  int64_t n = a < 0 ? a + rank : a;
  if (n < 0 || n >= rank)
    fail("axis " + std::to_string(a) + " is out of range for rank " +
         std::to_string(rank));
  return n;
}

std::vector<int64_t> Recorder::axes(std::vector<int64_t> list,
                                    int64_t rank) const {
  for (int64_t &a : list)
    a = axis(a, rank);
  check(rules::checkAxes(list, rank));
  return list;
}

void Recorder::checkIndices(size_t i, int64_t size, int64_t reads,
                            std::optional<int64_t> allowed) {
  if (reads == 0)
    return;
  const Node &n = *nodes_[i];
  if (!n.buffer || !n.buffer->storage || n.device == DeviceKind::Cuda)
    return; // known only when the graph runs
  if (std::optional<int64_t> bad = firstIndexOutside(*n.buffer, size, allowed))
    fail(indexOutOfRangeReason(*bad, size));
  indicesChecked_ = true;
}

DispatchTensor Recorder::make(DType dtype, std::vector<int64_t> shape,
                              std::vector<NodeAttr> attrs) const {
  return make(dtype, std::move(shape), std::move(attrs), nodes_);
}

DispatchTensor Recorder::make(DType dtype, std::vector<int64_t> shape,
                              std::vector<NodeAttr> attrs,
                              std::vector<NodePtr> inputs) const {
  for (int64_t d : shape)
    if (d < 0)
      fail("negative dim in result shape " + rules::formatDims(shape));
  check(rules::checkSize(shape, static_cast<int64_t>(dtype.byteSize())));
  auto n = makeNode();
  n->op = op_;
  n->attrs = std::move(attrs);
  n->inputs = std::move(inputs);
  n->dtype = dtype;
  n->shape = std::move(shape);
  n->device = device_.kind();
  n->deviceIndex = device_.index();
  n->checkpointing = tracking_;
  n->indicesChecked = indicesChecked_;
  trackPending(n);
  DispatchTensor t(n);
  return t;
}

namespace {
/// Writes `value` as one element of `dtype`.
void storeScalar(DType dtype, double value, void *dst) {
  switch (dtype.kind()) {
  case DTypeKind::F64: {
    double v = value;
    std::memcpy(dst, &v, 8);
    return;
  }
  case DTypeKind::F32: {
    float v = static_cast<float>(value);
    std::memcpy(dst, &v, 4);
    return;
  }
  case DTypeKind::F16: {
    Half v = Half::fromFloat(static_cast<float>(value));
    std::memcpy(dst, &v, 2);
    return;
  }
  case DTypeKind::BF16: {
    BFloat16 v = BFloat16::fromFloat(static_cast<float>(value));
    std::memcpy(dst, &v, 2);
    return;
  }
  case DTypeKind::I64: {
    int64_t v = static_cast<int64_t>(value);
    std::memcpy(dst, &v, 8);
    return;
  }
  case DTypeKind::I32: {
    int32_t v = static_cast<int32_t>(value);
    std::memcpy(dst, &v, 4);
    return;
  }
  case DTypeKind::I16: {
    int16_t v = static_cast<int16_t>(value);
    std::memcpy(dst, &v, 2);
    return;
  }
  case DTypeKind::I8: {
    int8_t v = static_cast<int8_t>(value);
    std::memcpy(dst, &v, 1);
    return;
  }
  case DTypeKind::U8: {
    uint8_t v = static_cast<uint8_t>(value);
    std::memcpy(dst, &v, 1);
    return;
  }
  case DTypeKind::Bool: {
    bool v = value != 0;
    std::memcpy(dst, &v, 1);
    return;
  }
  case DTypeKind::QFloat:
    break;
  }
  throw Error("a scalar cannot have dtype " + dtype.str());
}
} // namespace

std::string kiln::detail::scalarMisfit(double value, DType dtype) {
  if (dtype.isInteger() && (std::isnan(value) || value != std::trunc(value)))
    return std::to_string(value) + " is not an integer";
  if (dtype.isBool() && value != 0 && value != 1)
    return std::to_string(value) + " is not a bool (0 or 1)";
  double lo = 0, hi = 0;
  switch (dtype.kind()) {
  case DTypeKind::I64:
    // 2^63 itself does not fit; every double below it does.
    lo = -9223372036854775808.0, hi = 9223372036854774784.0;
    break;
  case DTypeKind::I32:
    lo = -2147483648.0, hi = 2147483647.0;
    break;
  case DTypeKind::I16:
    lo = -32768, hi = 32767;
    break;
  case DTypeKind::I8:
    lo = -128, hi = 127;
    break;
  case DTypeKind::U8:
    lo = 0, hi = 255;
    break;
  default:
    return "";
  }
  if (value < lo || value > hi)
    return std::to_string(static_cast<long long>(
               std::max(std::min(value, 9.2e18), -9.2e18))) +
           " is outside " + dtype.str() + "'s range";
  return "";
}

NodePtr kiln::detail::scalarNode(double value, DType dtype,
                                 const DispatchDevice &device) {
  if (dtype.isQuantized())
    throw Error("scalar: a scalar cannot be quantized (" + dtype.str() + ")");
  std::string misfit = scalarMisfit(value, dtype);
  if (!misfit.empty())
    throw Error("scalar: " + misfit + ", but the dtype is " + dtype.str());
  alignas(8) unsigned char bytes[8] = {};
  storeScalar(dtype, value, bytes);
  return leafFromHost(dtype, {}, device.kind(), device.index(), bytes);
}
