//===- Tensor.cpp - DispatchTensor: factories, metadata, materializers ----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Record.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <ostream>
#include <sstream>

using namespace kiln;
using namespace kiln::detail;

//===----------------------------------------------------------------------===//
// DispatchTensorKind
//===----------------------------------------------------------------------===//

DispatchTensorKind::State DispatchTensorKind::state() const {
  if (!node || node->isPending())
    return State::Pending;
  switch (node->device) {
  case DeviceKind::Flex:
    return State::Flex;
  case DeviceKind::Cpu:
    return State::Cpu;
  case DeviceKind::Cuda:
    return State::Cuda;
  }
  return State::Pending;
}

std::string DispatchTensorKind::str() const {
  if (!node)
    return "empty";
  if (node->isPending())
    return std::string("pending ") + (node->op ? node->op : "value");
  return DispatchDevice(node->device, node->deviceIndex).str() + " buffer";
}

const void *BackendTensor::data() const {
  return static_cast<const char *>(storage->data) + offset * dtype.byteSize();
}

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

DispatchTensor::DispatchTensor(std::shared_ptr<Node> node) {
  checkpointing = node->checkpointing;
  kind.node = std::move(node);
}

/// Marks a freshly created tensor as tracked when its device is autodiff.
static DispatchTensor tracked(DispatchTensor t, const DispatchDevice &device) {
  if (device.isAutodiff() && !gradDisabled()) {
    t.kind.node->checkpointing = device.checkpointing();
    t.checkpointing = device.checkpointing();
  }
  return t;
}

DispatchTensor DispatchTensor::fromData(DType dtype, const void *data,
                                        size_t count, Shape shape,
                                        const DispatchDevice &device) {
  for (int64_t d : shape)
    if (d < 0)
      throw Error("fromVector: negative dim in shape " + shape.str());
  if (dtype.isQuantized())
    throw Error("fromVector: use quantize() to make a " + dtype.str() +
                " tensor");
  if (static_cast<int64_t>(count) != shape.numel())
    throw Error("fromVector: " + std::to_string(count) +
                " values do not fill shape " + shape.str() + " (" +
                std::to_string(shape.numel()) + " elements)");
  return tracked(DispatchTensor(leafFromHost(dtype, shape.dims(), device.kind(),
                                             device.index(), data)),
                 device);
}

DispatchTensor DispatchTensor::fromVector(const std::vector<bool> &values,
                                          Shape shape,
                                          const DispatchDevice &device) {
  std::vector<uint8_t> bytes(values.begin(), values.end());
  return fromData(DType::Bool, bytes.data(), bytes.size(), std::move(shape),
                  device);
}

DispatchTensor DispatchTensor::scalar(double value, DType dtype,
                                      const DispatchDevice &device) {
  return tracked(DispatchTensor(scalarNode(value, dtype, device)), device);
}

DispatchTensor DispatchTensor::full(Shape shape, double value, DType dtype,
                                    const DispatchDevice &device) {
  for (int64_t d : shape)
    if (d < 0)
      throw Error("full: negative dim in shape " + shape.str());
  if (dtype.isInteger() && (std::isnan(value) || value != std::trunc(value)))
    throw Error("full: " + std::to_string(value) +
                " is not an integer, but the dtype is " + dtype.str());
  if (dtype.isBool() && value != 0 && value != 1)
    throw Error("full: " + std::to_string(value) + " is not a bool (0 or 1)");
  DispatchTensor s(scalarNode(value, dtype, device));
  if (shape.rank() == 0)
    return tracked(s, device);
  Recorder r(ops::Expand::name, {&s});
  return tracked(
      r.make(dtype, shape.dims(), {ops::Expand::shape(shape.dims())}), device);
}

DispatchTensor DispatchTensor::zeros(Shape shape, DType dtype,
                                     const DispatchDevice &device) {
  return full(std::move(shape), 0.0, dtype, device);
}

DispatchTensor DispatchTensor::ones(Shape shape, DType dtype,
                                    const DispatchDevice &device) {
  return full(std::move(shape), 1.0, dtype, device);
}

/// A creation op with no operands on `device`.
static Recorder creationRecorder(const char *op, const DispatchDevice &device) {
  requireDevice(device.kind(), device.index()); // fails early without a GPU
  return Recorder(op, device.backend());
}

DispatchTensor DispatchTensor::arange(double start, double end, double step,
                                      DType dtype,
                                      const DispatchDevice &device) {
  if (step == 0 || std::isnan(step))
    throw Error("arange: step must be non-zero");
  if (!dtype.isFloat() && !dtype.isInteger())
    throw Error("arange: dtype must be numeric, not " + dtype.str());
  if (dtype.isInteger() &&
      (start != std::trunc(start) || step != std::trunc(step)))
    throw Error("arange: start and step must be integers for " + dtype.str());
  double count = std::ceil((end - start) / step);
  int64_t n = count > 0 ? static_cast<int64_t>(count) : 0;
  Recorder r = creationRecorder(ops::Arange::name, device);
  return tracked(r.make(dtype, {n},
                        {ops::Arange::start(start), ops::Arange::step(step)},
                        {}),
                 device);
}

DispatchTensor DispatchTensor::arange(int64_t n, DType dtype,
                                      const DispatchDevice &device) {
  return arange(0, static_cast<double>(n), 1, dtype, device);
}

DispatchTensor DispatchTensor::eye(int64_t n, DType dtype,
                                   const DispatchDevice &device) {
  return eye(n, n, dtype, device);
}

DispatchTensor DispatchTensor::eye(int64_t n, int64_t m, DType dtype,
                                   const DispatchDevice &device) {
  if (n < 0 || m < 0)
    throw Error("eye: sizes must be >= 0, got " + std::to_string(n) + " x " +
                std::to_string(m));
  if (dtype.isQuantized())
    throw Error("eye: dtype cannot be " + dtype.str());
  Recorder r = creationRecorder(ops::Eye::name, device);
  return tracked(r.make(dtype, {n, m}, {}, {}), device);
}

/// kiln.rand or kiln.randn, whose two parameters are `ab`.
template <typename Op>
static DispatchTensor randomTensor(Shape shape, DType dtype,
                                   const DispatchDevice &device, uint64_t seed,
                                   std::vector<NodeAttr> ab) {
  const char *op = Op::name;
  for (int64_t d : shape)
    if (d < 0)
      throw Error(std::string(op) + ": negative dim in shape " + shape.str());
  if (!dtype.isFloat())
    throw Error(std::string(op) + ": dtype must be a float, not " +
                dtype.str());
  Recorder r = creationRecorder(op, device);
  return tracked(r.make(dtype, shape.dims(),
                        {Op::seed(static_cast<int64_t>(seed)), std::move(ab[0]),
                         std::move(ab[1]), NodeAttr::segments({0, 0})},
                        {}),
                 device);
}

DispatchTensor DispatchTensor::rand(Shape shape, DType dtype,
                                    const DispatchDevice &device, uint64_t seed,
                                    double low, double high) {
  if (!(low < high))
    throw Error("rand: needs low < high, got [" + std::to_string(low) + ", " +
                std::to_string(high) + ")");
  return randomTensor<ops::Rand>(std::move(shape), dtype, device, seed,
                                 {ops::Rand::low(low), ops::Rand::high(high)});
}

DispatchTensor DispatchTensor::randn(Shape shape, DType dtype,
                                     const DispatchDevice &device,
                                     uint64_t seed, double mean, double std) {
  if (!(std >= 0))
    throw Error("randn: standard deviation must be >= 0, got " +
                std::to_string(std));
  return randomTensor<ops::Randn>(
      std::move(shape), dtype, device, seed,
      {ops::Randn::mean(mean), ops::Randn::std(std)});
}

//===----------------------------------------------------------------------===//
// Metadata
//===----------------------------------------------------------------------===//

static const Node &get(const DispatchTensor &t, const char *what) {
  if (!t.kind.node)
    throw Error(std::string(what) + ": the tensor handle is empty");
  return *t.kind.node;
}

DType DispatchTensor::dtype() const { return get(*this, "dtype").dtype; }

Shape DispatchTensor::shape() const { return Shape(get(*this, "shape").shape); }

size_t DispatchTensor::rank() const { return get(*this, "rank").shape.size(); }

int64_t DispatchTensor::numel() const {
  return rules::numElements(get(*this, "numel").shape);
}

DispatchDevice DispatchTensor::device() const {
  const Node &n = get(*this, "device");
  return DispatchDevice(n.device, n.deviceIndex, n.checkpointing);
}

QuantScheme DispatchTensor::scheme() const {
  const Node &n = get(*this, "scheme");
  if (!n.dtype.isQuantized())
    throw Error("scheme: the tensor is " + n.dtype.str() +
                rules::formatDims(n.shape) + ", not quantized");
  return n.dtype.scheme();
}

bool DispatchTensor::can_mut() const {
  const NodePtr &n = kind.node;
  if (!n || n->isPending())
    return false;
  if (n.use_count() != 1)
    return false;
  // In-place kernels write only dense buffers from their first element; a
  // broadcast, transposed or offset view keeps a copy-on-write result.
  const Buffer &b = *n->buffer;
  return b.storage && b.storage.use_count() == 1 && !b.storage->external &&
         b.isContiguous() && b.offset == 0 &&
         (!b.scales || b.scales.use_count() == 1);
}

//===----------------------------------------------------------------------===//
// Materializers
//===----------------------------------------------------------------------===//

DispatchTensor &DispatchTensor::markDynamic(int64_t dim) {
  const NodePtr &n = nodeOf(*this, "markDynamic");
  int64_t rank = static_cast<int64_t>(n->shape.size());
  if (dim < 0 || dim >= rank || dim >= 64)
    throw Error("markDynamic: dim " + std::to_string(dim) +
                " is out of range for a tensor of rank " +
                std::to_string(rank));
  n->dynamicDims |= uint64_t(1) << dim;
  return *this;
}

const DispatchTensor &DispatchTensor::sync() const {
  materialize({nodeOf(*this, "sync")});
  return *this;
}

void kiln::sync(const std::vector<DispatchTensor> &tensors) {
  std::vector<NodePtr> nodes;
  for (const DispatchTensor &t : tensors)
    nodes.push_back(nodeOf(t, "sync"));
  materialize(nodes);
}

void DispatchTensor::copyTo(DType expected, void *out, size_t count) const {
  const NodePtr &n = nodeOf(*this, "toVector");
  if (n->dtype != expected)
    throw Error("toVector: the tensor is " + n->dtype.str() +
                rules::formatDims(n->shape) + ", but values of type " +
                expected.str() + " were asked for; cast() it first");
  materialize({n});
  (void)count;
  copyToHost(*n, out);
}

void DispatchTensor::copyItem(DType expected, void *out) const {
  const NodePtr &n = nodeOf(*this, "item");
  int64_t numel = rules::numElements(n->shape);
  if (numel != 1)
    throw Error("item: the tensor has " + std::to_string(numel) +
                " elements (shape " + rules::formatDims(n->shape) +
                "), not one");
  if (n->dtype != expected)
    throw Error("item: the tensor is " + n->dtype.str() +
                rules::formatDims(n->shape) + ", but a value of type " +
                expected.str() + " was asked for; cast() it first");
  copyTo(expected, out, 1);
}

size_t DispatchTensor::elementCount(const char *what) const {
  return static_cast<size_t>(rules::numElements(nodeOf(*this, what)->shape));
}

void DispatchTensor::hostOutOfMemory(size_t elements, size_t bytes) const {
  const NodePtr &n = nodeOf(*this, "toVector");
  throw Error("toVector: out of memory allocating " + std::to_string(elements) +
              " x " + std::to_string(bytes) +
              " bytes on the host for the values of " + describe(*n));
}

DispatchTensor DispatchTensor::to(const DispatchDevice &device) const {
  const NodePtr &n = nodeOf(*this, "to");
  requireDevice(device.kind(), device.index());
  // A transfer is a materialization point even onto the same backend.
  materialize({n});
  if (n->device == device.kind() && n->deviceIndex == device.index()) {
    if (!device.isAutodiff() || n->checkpointing == device.checkpointing())
      return *this;
    // Tracking is per node: give the tracked copy its own node over the
    // same buffer rather than start tracking the caller's tensor.
    return tracked(
        DispatchTensor(leafOver(*n->buffer, n->device, n->deviceIndex)),
        device);
  }
  int64_t numel = rules::numElements(n->shape);
  std::vector<unsigned char> host;
  std::vector<unsigned char> scales;
  if (n->dtype.isQuantized()) {
    const QuantScheme &q = n->dtype.scheme();
    host.resize(quantValueBytes(q, numel));
    scales.resize(quantScaleCount(q, n->shape) * DType(q.scale).byteSize());
  } else {
    host.resize(numel * n->dtype.byteSize());
  }
  copyToHost(*n, host.data(), scales.empty() ? nullptr : scales.data());
  DispatchTensor t(leafFromHost(n->dtype, n->shape, device.kind(),
                                device.index(), host.data(),
                                scales.empty() ? nullptr : scales.data()));
  return device.isAutodiff() ? tracked(t, device) : t;
}

BackendTensor DispatchTensor::intoBackend(DeviceKind want) const {
  const NodePtr &n = nodeOf(*this, "try_into_backend");
  DispatchDevice have(n->device, n->deviceIndex);
  if (n->device != want)
    throw Error("try_into_backend: the tensor lives on " + have.str() +
                ", not on the " + DispatchDevice(want, 0).str() +
                " backend; move it with "
                ".to(device) first");
  materialize({n});
  BackendTensor bt;
  bt.dtype = n->dtype;
  bt.shape = Shape(n->buffer->shape);
  bt.strides = n->buffer->strides;
  bt.offset = n->buffer->offset;
  bt.storage = n->buffer->storage;
  return bt;
}

DispatchTensor DispatchTensor::fromExternal(DType dtype, Shape shape,
                                            std::vector<int64_t> strides,
                                            void *data, size_t bytes,
                                            std::function<void()> release,
                                            const DispatchDevice &device) {
  auto fail = [&](const std::string &why) -> DispatchTensor {
    throw Error("fromExternal: " + why + " (" + dtype.str() + shape.str() +
                ")");
  };
  if (device.kind() == DeviceKind::Cuda)
    return fail("external memory is host memory: use a Flex or Cpu device, "
                "then .to(cuda)");
  if (dtype.isQuantized())
    return fail("a quantized tensor cannot wrap external memory");
  if (strides.empty())
    strides = Buffer::contiguousStrides(shape.dims());
  if (strides.size() != shape.rank())
    return fail(std::to_string(strides.size()) + " strides for " +
                std::to_string(shape.rank()) + " dims");
  // The elements' extent, in bytes.
  int64_t last = 0;
  for (size_t i = 0; i < shape.rank(); ++i) {
    if (shape[i] < 0 || strides[i] < 0)
      return fail("negative dims or strides are not supported");
    if (shape[i] == 0)
      last = -1;
    if (last >= 0)
      last += (shape[i] - 1) * strides[i];
  }
  size_t extent = last < 0 ? 0 : size_t(last + 1) * dtype.byteSize();
  if (bytes < extent)
    return fail(std::to_string(bytes) + " bytes of memory do not cover the " +
                std::to_string(extent) + " bytes of the elements");
  return tracked(DispatchTensor(leafFromExternal(
                     dtype, shape.dims(), std::move(strides), data, bytes,
                     std::move(release), device.kind(), device.index())),
                 device);
}

DispatchTensor DispatchTensor::from_backend(const BackendTensor &bt,
                                            const DispatchDevice &device) {
  if (!bt.storage)
    throw Error("from_backend: the backend tensor has no storage");
  if (bt.strides.size() != bt.shape.rank())
    throw Error("from_backend: " + std::to_string(bt.strides.size()) +
                " strides for shape " + bt.shape.str());
  requireDevice(device.kind(), device.index()); // the device must exist here
  Buffer b;
  b.dtype = bt.dtype;
  b.shape = bt.shape.dims();
  b.strides = bt.strides;
  b.offset = bt.offset;
  b.storage = bt.storage;
  return tracked(
      DispatchTensor(leafOver(std::move(b), device.kind(), device.index())),
      device);
}

//===----------------------------------------------------------------------===//
// Printing and graphs
//===----------------------------------------------------------------------===//

namespace {
template <typename T> double asDouble(const T &v) { return (double)v; }
template <> double asDouble<Half>(const Half &v) { return v.toFloat(); }
template <> double asDouble<BFloat16>(const BFloat16 &v) { return v.toFloat(); }

template <typename T>
void printValues(std::ostream &os, const std::vector<T> &v,
                 const std::vector<int64_t> &shape) {
  if (shape.empty()) {
    os << asDouble(v[0]);
    return;
  }
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size() - 1; d-- > 0;)
    strides[d] = strides[d + 1] * shape[d + 1];
  std::function<void(size_t, int64_t)> rec = [&](size_t d, int64_t base) {
    os << "[";
    int64_t n = shape[d];
    for (int64_t i = 0; i < n; ++i) {
      if (n > 8 && i == 4) {
        os << "..., ";
        i = n - 3;
      }
      if (d + 1 == shape.size())
        os << asDouble(v[base + i]);
      else
        rec(d + 1, base + i * strides[d]);
      if (i + 1 < n)
        os << ", ";
    }
    os << "]";
  };
  rec(0, 0);
}
} // namespace

std::ostream &kiln::operator<<(std::ostream &os, const DispatchTensor &t) {
  if (!t.defined())
    return os << "tensor<empty>";
  os << "tensor<" << t.dtype().str() << t.shape().str() << " on "
     << t.device().str() << "> ";
  if (t.dtype().isQuantized())
    return os << "(quantized)";
  switch (t.dtype().kind()) {
  case DTypeKind::F64:
    printValues(os, t.toVector<double>(), t.shape().dims());
    break;
  case DTypeKind::F32:
    printValues(os, t.toVector<float>(), t.shape().dims());
    break;
  case DTypeKind::F16:
    printValues(os, t.toVector<Half>(), t.shape().dims());
    break;
  case DTypeKind::BF16:
    printValues(os, t.toVector<BFloat16>(), t.shape().dims());
    break;
  case DTypeKind::I64:
    printValues(os, t.toVector<int64_t>(), t.shape().dims());
    break;
  case DTypeKind::I32:
    printValues(os, t.toVector<int32_t>(), t.shape().dims());
    break;
  case DTypeKind::I16:
    printValues(os, t.toVector<int16_t>(), t.shape().dims());
    break;
  case DTypeKind::I8:
    printValues(os, t.toVector<int8_t>(), t.shape().dims());
    break;
  case DTypeKind::U8:
    printValues(os, t.toVector<uint8_t>(), t.shape().dims());
    break;
  case DTypeKind::Bool:
    printValues(os, t.toVector<bool>(), t.shape().dims());
    break;
  case DTypeKind::QFloat:
    break;
  }
  return os;
}

std::string kiln::dumpGraph(const DispatchTensor &t) {
  return dumpGraph(std::vector<DispatchTensor>{t});
}

std::string kiln::dumpGraph(const std::vector<DispatchTensor> &tensors) {
  std::vector<NodePtr> targets;
  for (const DispatchTensor &t : tensors) {
    const NodePtr &n = nodeOf(t, "dumpGraph");
    if (n->isPending())
      targets.push_back(n);
  }
  if (targets.empty())
    return "module {\n}\n";
  return printSubgraph(collectSubgraph(targets));
}
