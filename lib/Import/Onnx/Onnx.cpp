//===- Onnx.cpp - Loading ONNX models -------------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "kiln/Engine/Engine.h"

#include <onnx/checker.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

using namespace kiln;
using namespace kiln::onnx;
using namespace kiln::onnx::detail;

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

const char *kiln::onnx::detail::onnxTypeName(int32_t t) {
  switch (t) {
  case ::onnx::TensorProto::FLOAT:
    return "float";
  case ::onnx::TensorProto::UINT8:
    return "uint8";
  case ::onnx::TensorProto::INT8:
    return "int8";
  case ::onnx::TensorProto::UINT16:
    return "uint16";
  case ::onnx::TensorProto::INT16:
    return "int16";
  case ::onnx::TensorProto::INT32:
    return "int32";
  case ::onnx::TensorProto::INT64:
    return "int64";
  case ::onnx::TensorProto::STRING:
    return "string";
  case ::onnx::TensorProto::BOOL:
    return "bool";
  case ::onnx::TensorProto::FLOAT16:
    return "float16";
  case ::onnx::TensorProto::DOUBLE:
    return "double";
  case ::onnx::TensorProto::UINT32:
    return "uint32";
  case ::onnx::TensorProto::UINT64:
    return "uint64";
  case ::onnx::TensorProto::COMPLEX64:
    return "complex64";
  case ::onnx::TensorProto::COMPLEX128:
    return "complex128";
  case ::onnx::TensorProto::BFLOAT16:
    return "bfloat16";
  default:
    return "an unknown type";
  }
}

DType kiln::onnx::detail::dtypeOf(int32_t t) {
  switch (t) {
  case ::onnx::TensorProto::FLOAT:
    return DType::F32;
  case ::onnx::TensorProto::DOUBLE:
    return DType::F64;
  case ::onnx::TensorProto::FLOAT16:
    return DType::F16;
  case ::onnx::TensorProto::BFLOAT16:
    return DType::BF16;
  case ::onnx::TensorProto::INT64:
    return DType::I64;
  case ::onnx::TensorProto::INT32:
    return DType::I32;
  case ::onnx::TensorProto::INT16:
    return DType::I16;
  case ::onnx::TensorProto::INT8:
    return DType::I8;
  case ::onnx::TensorProto::UINT8:
    return DType::U8;
  case ::onnx::TensorProto::BOOL:
    return DType::Bool;
  default:
    throw Error(std::string("onnx: Kiln has no dtype for ONNX's ") +
                onnxTypeName(t) + " (type " + std::to_string(t) + ")");
  }
}

/// The bytes of an external tensor: its `location` file under `baseDir`
/// from `offset`, `length` bytes (or to the end).
static std::string externalBytes(const ::onnx::TensorProto &t,
                                 const std::string &baseDir) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &kv : t.external_data()) {
    try {
      if (kv.key() == "location")
        location = kv.value();
      else if (kv.key() == "offset")
        offset = std::stoll(kv.value());
      else if (kv.key() == "length")
        length = std::stoll(kv.value());
    } catch (const std::exception &) {
      throw Error("onnx: tensor '" + t.name() + "': external data " + kv.key() +
                  " '" + kv.value() + "' is not a number");
    }
  }
  if (location.empty())
    throw Error("onnx: tensor '" + t.name() +
                "' is external but names no location");
  if (location.find("..") != std::string::npos || location[0] == '/')
    throw Error("onnx: tensor '" + t.name() + "': external location '" +
                location + "' leaves the model's directory");
  std::string path = baseDir + "/" + location;
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw Error("onnx: tensor '" + t.name() + "': cannot open external data " +
                path);
  f.seekg(0, std::ios::end);
  int64_t size = f.tellg();
  if (offset < 0 || offset > size || (length >= 0 && length > size - offset))
    throw Error("onnx: tensor '" + t.name() + "': external data " + path +
                " holds " + std::to_string(size) + " bytes, not offset " +
                std::to_string(offset) + " + length " + std::to_string(length));
  if (length < 0)
    length = size - offset;
  std::string bytes(static_cast<size_t>(length), '\0');
  f.seekg(offset);
  f.read(bytes.data(), length);
  return bytes;
}

template <typename From, typename To>
static void narrowInto(const From &values, std::string &out) {
  out.resize(values.size() * sizeof(To));
  for (int i = 0; i < values.size(); ++i) {
    To v = static_cast<To>(values[i]);
    std::memcpy(out.data() + i * sizeof(To), &v, sizeof(To));
  }
}

DispatchTensor kiln::onnx::detail::tensorFromProto(const ::onnx::TensorProto &t,
                                                   const DispatchDevice &device,
                                                   const std::string &baseDir) {
  DType dtype = dtypeOf(t.data_type());
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0)
      throw Error("onnx: tensor '" + t.name() + "' has a negative dim");
    if (d && count > (int64_t(1) << 40) / d)
      throw Error("onnx: tensor '" + t.name() + "' is too large");
    count *= d;
  }
  size_t width = dtype.byteSize();
  std::string bytes;
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL)
    bytes = externalBytes(t, baseDir);
  else if (t.has_raw_data())
    bytes = t.raw_data();
  else {
    switch (t.data_type()) {
    case ::onnx::TensorProto::FLOAT:
      narrowInto<decltype(t.float_data()), float>(t.float_data(), bytes);
      break;
    case ::onnx::TensorProto::DOUBLE:
      narrowInto<decltype(t.double_data()), double>(t.double_data(), bytes);
      break;
    case ::onnx::TensorProto::INT64:
      narrowInto<decltype(t.int64_data()), int64_t>(t.int64_data(), bytes);
      break;
    case ::onnx::TensorProto::INT32:
      narrowInto<decltype(t.int32_data()), int32_t>(t.int32_data(), bytes);
      break;
    case ::onnx::TensorProto::INT16:
      narrowInto<decltype(t.int32_data()), int16_t>(t.int32_data(), bytes);
      break;
    case ::onnx::TensorProto::INT8:
      narrowInto<decltype(t.int32_data()), int8_t>(t.int32_data(), bytes);
      break;
    case ::onnx::TensorProto::UINT8:
    case ::onnx::TensorProto::BOOL:
      narrowInto<decltype(t.int32_data()), uint8_t>(t.int32_data(), bytes);
      break;
    case ::onnx::TensorProto::FLOAT16:
    case ::onnx::TensorProto::BFLOAT16:
      // The 16 bits of each value, stored in an int32.
      narrowInto<decltype(t.int32_data()), uint16_t>(t.int32_data(), bytes);
      break;
    default:
      break;
    }
  }
  if (bytes.size() != static_cast<size_t>(count) * width)
    throw Error("onnx: tensor '" + t.name() + "' holds " +
                std::to_string(bytes.size()) + " bytes, not the " +
                std::to_string(count * width) + " of " + std::to_string(count) +
                " " + dtype.str() + " values");
  if (dtype == DType::Bool)
    for (char &c : bytes)
      c = c ? 1 : 0;
  return DispatchTensor::fromData(dtype, bytes.data(), count, Shape(dims),
                                  device);
}

DispatchTensor kiln::onnx::readTensorProto(const std::string &path,
                                           const DispatchDevice &device,
                                           std::string *name) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw Error("onnx: cannot open " + path);
  ::onnx::TensorProto t;
  if (!t.ParseFromIstream(&f))
    throw Error("onnx: " + path + " is not a serialized TensorProto");
  if (name)
    *name = t.name();
  std::string dir = path.substr(0, path.find_last_of('/') + 1);
  return tensorFromProto(t, device, dir.empty() ? "." : dir);
}

//===----------------------------------------------------------------------===//
// One node
//===----------------------------------------------------------------------===//

void NodeContext::fail(const std::string &what) const {
  std::string domain = node.domain().empty() ? "ai.onnx" : node.domain();
  throw Error("onnx: node '" + node.name() + "' (" + node.op_type() +
              ", domain " + domain + ", opset " + std::to_string(opset) +
              "): " + what);
}

const DispatchTensor &NodeContext::in(size_t i) const {
  if (!has(i))
    fail("input " + std::to_string(i) + " is required");
  return inputs_[i]->tensor;
}

const DispatchTensor &NodeContext::inRank(size_t i, int64_t lo,
                                          int64_t hi) const {
  const DispatchTensor &t = in(i);
  int64_t r = t.rank();
  if (r < lo || r > hi)
    fail("input " + std::to_string(i) + " must have rank " +
         (lo == hi ? std::to_string(lo)
                   : std::to_string(lo) + " to " + std::to_string(hi)) +
         ", not shape " + t.shape().str());
  return t;
}

std::vector<int64_t> NodeContext::attrIntsOf(const std::string &name, size_t n,
                                             int64_t fill, int64_t min,
                                             int64_t max) const {
  std::vector<int64_t> v = attrInts(name, std::vector<int64_t>(n, fill));
  if (v.size() != n)
    fail("attribute '" + name + "' must have " + std::to_string(n) +
         " entries, not " + std::to_string(v.size()));
  for (int64_t x : v)
    if (x < min || x > max)
      fail("attribute '" + name + "' must hold values from " +
           std::to_string(min) + " to " + std::to_string(max) + ", not " +
           std::to_string(x));
  return v;
}

int64_t NodeContext::countOf(double v, int64_t lo, int64_t hi,
                             const std::string &what) const {
  if (!(v >= static_cast<double>(lo) && v <= static_cast<double>(hi)) ||
      v != std::floor(v))
    fail(what + " must be an integer from " + std::to_string(lo) + " to " +
         std::to_string(hi));
  return static_cast<int64_t>(v);
}

int64_t NodeContext::attrIntAtLeast(const std::string &name, int64_t min,
                                    std::optional<int64_t> dflt) const {
  int64_t v = attrInt(name, dflt);
  if (v < min)
    fail("attribute '" + name + "' must be " + std::to_string(min) +
         " or more, not " + std::to_string(v));
  return v;
}

std::optional<DispatchTensor> NodeContext::optIn(size_t i) const {
  if (!has(i))
    return std::nullopt;
  return inputs_[i]->tensor;
}

const DispatchTensor &NodeContext::hostList(size_t i) const {
  const DispatchTensor &t = in(i);
  // A list read on the host (a shape, axes, pads, scales): a count past
  // kMaxHostElements is the file's error, before any allocation.
  if (t.numel() > kMaxHostElements)
    fail("input " + std::to_string(i) + " holds " + std::to_string(t.numel()) +
         " values; a list read on the host holds at most " +
         std::to_string(kMaxHostElements));
  return t;
}

std::vector<double> NodeContext::floats(size_t i) const {
  return cast(hostList(i), DType::F64).toVector<double>();
}

std::vector<int64_t> NodeContext::ints(size_t i) const {
  if (!has(i))
    fail("input " + std::to_string(i) + " is required");
  if (inputs_[i]->ints)
    return *inputs_[i]->ints;
  const DispatchTensor &t = hostList(i);
  if (t.dtype() == DType::I64)
    return t.toVector<int64_t>();
  if (t.dtype() == DType::I32) {
    std::vector<int32_t> v = t.toVector<int32_t>();
    return std::vector<int64_t>(v.begin(), v.end());
  }
  fail("input " + std::to_string(i) + " must be int64 or int32, not " +
       t.dtype().str());
}

double NodeContext::scalar(size_t i) const {
  const DispatchTensor &t = in(i);
  if (t.numel() != 1)
    fail("input " + std::to_string(i) + " must hold one value, not " +
         std::to_string(t.numel()));
  // Read in the tensor's own dtype: a cast would be a graph to compile.
  switch (t.dtype().kind()) {
  case DTypeKind::F32:
    return t.item<float>();
  case DTypeKind::F64:
    return t.item<double>();
  case DTypeKind::I64:
    return static_cast<double>(t.item<int64_t>());
  case DTypeKind::I32:
    return t.item<int32_t>();
  default:
    return cast(t, DType::F64).reshape({}).item<double>();
  }
}

static const ::onnx::AttributeProto *findAttr(const ::onnx::NodeProto &node,
                                              const std::string &name) {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

bool NodeContext::hasAttr(const std::string &name) const {
  return findAttr(node, name) != nullptr;
}

int64_t NodeContext::attrInt(const std::string &name,
                             std::optional<int64_t> dflt) const {
  const auto *a = findAttr(node, name);
  if (!a) {
    if (!dflt)
      fail("attribute '" + name + "' is required");
    return *dflt;
  }
  if (a->type() != ::onnx::AttributeProto::INT)
    fail("attribute '" + name + "' must be an int");
  return a->i();
}

double NodeContext::attrFloat(const std::string &name,
                              std::optional<double> dflt) const {
  const auto *a = findAttr(node, name);
  if (!a) {
    if (!dflt)
      fail("attribute '" + name + "' is required");
    return *dflt;
  }
  if (a->type() != ::onnx::AttributeProto::FLOAT)
    fail("attribute '" + name + "' must be a float");
  return a->f();
}

std::string NodeContext::attrString(const std::string &name,
                                    std::optional<std::string> dflt) const {
  const auto *a = findAttr(node, name);
  if (!a) {
    if (!dflt)
      fail("attribute '" + name + "' is required");
    return *dflt;
  }
  if (a->type() != ::onnx::AttributeProto::STRING)
    fail("attribute '" + name + "' must be a string");
  return a->s();
}

std::vector<int64_t>
NodeContext::attrInts(const std::string &name,
                      std::optional<std::vector<int64_t>> dflt) const {
  const auto *a = findAttr(node, name);
  if (!a) {
    if (!dflt)
      fail("attribute '" + name + "' is required");
    return *dflt;
  }
  if (a->type() != ::onnx::AttributeProto::INTS)
    fail("attribute '" + name + "' must be a list of ints");
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<double> NodeContext::attrFloats(const std::string &name) const {
  const auto *a = findAttr(node, name);
  if (!a || a->type() != ::onnx::AttributeProto::FLOATS)
    fail("attribute '" + name + "' must be a list of floats");
  return std::vector<double>(a->floats().begin(), a->floats().end());
}

const ::onnx::TensorProto &
NodeContext::attrTensor(const std::string &name) const {
  const auto *a = findAttr(node, name);
  if (!a || a->type() != ::onnx::AttributeProto::TENSOR)
    fail("attribute '" + name + "' must be a tensor");
  return a->t();
}

void NodeContext::expectAttrs(std::initializer_list<const char *> known) const {
  for (const auto &a : node.attribute()) {
    bool ok = false;
    for (const char *k : known)
      ok |= a.name() == k;
    if (!ok)
      fail("attribute '" + a.name() + "' is not supported");
  }
}

void NodeContext::set(size_t i, DispatchTensor t,
                      std::optional<std::vector<int64_t>> ints) {
  if (outputs_.size() <= i)
    outputs_.resize(i + 1);
  outputs_[i] = Value{std::move(t), std::move(ints)};
}

//===----------------------------------------------------------------------===//
// The model
//===----------------------------------------------------------------------===//

struct Model::Impl {
  ::onnx::ModelProto proto;
  DispatchDevice device = DispatchDevice::flex();
  std::string baseDir;
  int64_t opset = 0;
  std::vector<ValueInfo> inputs, outputs;
  /// Initializers, in the file's order.
  std::vector<std::pair<std::string, DispatchTensor>> initializers;
};

static ValueInfo valueInfo(const ::onnx::ValueInfoProto &v) {
  ValueInfo info;
  info.name = v.name();
  if (!v.type().has_tensor_type())
    throw Error("onnx: graph value '" + v.name() +
                "' is not a tensor (sequence, map and optional values are "
                "not supported)");
  const auto &tt = v.type().tensor_type();
  info.dtype = dtypeOf(tt.elem_type());
  for (const auto &d : tt.shape().dim()) {
    if (d.has_dim_value()) {
      info.dims.push_back(d.dim_value());
      info.symbols.push_back("");
    } else {
      info.dims.push_back(-1);
      info.symbols.push_back(d.has_dim_param() ? d.dim_param() : "?");
    }
  }
  return info;
}

static void checkModel(const ::onnx::ModelProto &m, int64_t opset) {
  if (m.ir_version() < 3 || m.ir_version() > 10)
    throw Error("onnx: IR version " + std::to_string(m.ir_version()) +
                " is not supported (3 to 10 are)");
  if (opset < 1 || opset > 21)
    throw Error("onnx: opset " + std::to_string(opset) +
                " of the default domain is not supported (1 to 21 are)");
  // The library's checker knows the schemas up to opset 17 and IR 8; newer
  // files are checked by the mapping of each node instead.
  if (opset > 17 || m.ir_version() > 8)
    return;
  // The checker sees the initializers as typed inputs: their data, in the
  // file or external, is checked when it is read (tensorFromProto), and a
  // large model is not copied.
  ::onnx::ModelProto &model = const_cast<::onnx::ModelProto &>(m);
  ::onnx::GraphProto *g = model.mutable_graph();
  google::protobuf::RepeatedPtrField<::onnx::TensorProto> inits;
  inits.Swap(g->mutable_initializer());
  int before = g->input_size();
  std::set<std::string> declared;
  for (const auto &v : g->input())
    declared.insert(v.name());
  for (const auto &t : inits) {
    if (declared.count(t.name()))
      continue;
    auto *v = g->add_input();
    v->set_name(t.name());
    auto *tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(t.data_type());
    auto *shape = tt->mutable_shape();
    for (int64_t d : t.dims())
      shape->add_dim()->set_dim_value(d);
  }
  std::string failure;
  try {
    ::onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    failure = e.what();
  }
  while (g->input_size() > before)
    g->mutable_input()->RemoveLast();
  inits.Swap(g->mutable_initializer());
  if (!failure.empty())
    throw Error("onnx: the model fails the ONNX checker: " + failure);
}

Model Model::fromBytes(const std::string &bytes, const DispatchDevice &device,
                       LoadOptions options, const std::string &baseDir) {
  auto impl = std::make_shared<Impl>();
  impl->device = device;
  impl->baseDir = baseDir;
  if (!impl->proto.ParseFromString(bytes))
    throw Error("onnx: not a valid ONNX model (the protobuf does not parse; "
                "truncated or not a model)");
  const ::onnx::ModelProto &m = impl->proto;
  bool found = false;
  for (const auto &o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      impl->opset = o.version();
      found = true;
    }
  if (!found)
    throw Error("onnx: the model imports no opset of the default domain");
  checkModel(m, impl->opset);
  const ::onnx::GraphProto &g = m.graph();
  std::set<std::string> inits;
  for (const auto &t : g.initializer()) {
    DispatchTensor value = tensorFromProto(t, device, baseDir);
    // Parameters are tracked on an autodiff device; constants never are.
    if (options.trainable && value.dtype().isFloat())
      value.requireGrad();
    else if (device.isAutodiff())
      value = value.detach();
    impl->initializers.push_back({t.name(), value});
    inits.insert(t.name());
  }
  if (g.sparse_initializer_size())
    throw Error("onnx: sparse initializers are not supported");
  for (const auto &v : g.input())
    if (!inits.count(v.name()))
      impl->inputs.push_back(valueInfo(v));
  for (const auto &v : g.output())
    impl->outputs.push_back(valueInfo(v));
  Model model;
  model.impl_ = impl;
  return model;
}

Model Model::load(const std::string &path, const DispatchDevice &device,
                  LoadOptions options) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw Error("onnx: cannot open " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  try {
    return fromBytes(ss.str(), device, options, dir);
  } catch (const Error &e) {
    std::string what = e.what();
    if (what.rfind("onnx: ", 0) == 0)
      what = what.substr(6);
    throw Error("onnx: " + path + ": " + what);
  }
}

const std::vector<ValueInfo> &Model::inputs() const { return impl_->inputs; }
const std::vector<ValueInfo> &Model::outputs() const { return impl_->outputs; }
int64_t Model::opset() const { return impl_->opset; }
int64_t Model::irVersion() const { return impl_->proto.ir_version(); }
const DispatchDevice &Model::device() const { return impl_->device; }

std::vector<std::string> Model::opTypes() const {
  std::vector<std::string> ops;
  for (const auto &node : impl_->proto.graph().node())
    ops.push_back(node.op_type());
  return ops;
}

std::vector<std::pair<std::string, DispatchTensor *>> Model::namedParameters() {
  std::vector<std::pair<std::string, DispatchTensor *>> out;
  for (auto &[name, t] : impl_->initializers)
    out.push_back({name, &t});
  return out;
}

/// Runs node after node of `g`, reading and writing `env`.
static void runGraph(const ::onnx::GraphProto &g, int64_t opset,
                     const DispatchDevice &device, const std::string &baseDir,
                     std::unordered_map<std::string, Value> &env) {
  const auto &table = opTable();
  for (const auto &node : g.node()) {
    std::vector<std::optional<Value>> ins;
    for (const std::string &name : node.input()) {
      if (name.empty()) {
        ins.push_back(std::nullopt);
        continue;
      }
      auto it = env.find(name);
      if (it == env.end())
        throw Error("onnx: node '" + node.name() + "' (" + node.op_type() +
                    ") reads '" + name + "', which nothing before it defines");
      ins.push_back(it->second);
    }
    NodeContext ctx(node, opset, std::move(ins), device, baseDir);
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      ctx.fail("the domain is not supported (only the default domain is)");
    auto it = table.find(node.op_type());
    if (it == table.end())
      ctx.fail("Kiln has no mapping for this op");
    if (opset < it->second.sinceOpset)
      ctx.fail("Kiln maps this op from opset " +
               std::to_string(it->second.sinceOpset));
    try {
      it->second.map(ctx);
    } catch (const Error &e) {
      std::string what = e.what();
      if (what.rfind("onnx: node ", 0) == 0)
        throw;
      ctx.fail(what);
    } catch (const std::bad_alloc &) {
      ctx.fail("out of memory");
    } catch (const std::exception &e) {
      // A value the mapping did not expect (an empty list, say): the
      // file's error, reported as the node's.
      ctx.fail(std::string("malformed node (") + e.what() + ")");
    }
    auto &outs = ctx.outputs();
    for (int i = 0; i < node.output_size(); ++i) {
      if (node.output(i).empty())
        continue;
      if (static_cast<size_t>(i) >= outs.size() || !outs[i])
        ctx.fail("output " + std::to_string(i) + " is not supported");
      env[node.output(i)] = *outs[i];
    }
  }
}

std::map<std::string, DispatchTensor>
Model::run(const std::map<std::string, DispatchTensor> &inputs) const {
  std::unordered_map<std::string, Value> env;
  for (const auto &[name, t] : impl_->initializers) {
    Value v{t, std::nullopt};
    if (t.dtype() == DType::I64 && t.numel() <= 64 && !t.isPending())
      v.ints = t.toVector<int64_t>();
    env[name] = v;
  }
  std::string firstSymbol;
  for (const ValueInfo &info : impl_->inputs)
    for (const std::string &sym : info.symbols)
      if (firstSymbol.empty() && !sym.empty() && sym != "?")
        firstSymbol = sym;
  for (const ValueInfo &info : impl_->inputs) {
    auto it = inputs.find(info.name);
    if (it == inputs.end())
      throw Error("onnx: no value for the model's input '" + info.name + "'");
    const DispatchTensor &t = it->second;
    if (t.dtype() != info.dtype)
      throw Error("onnx: input '" + info.name + "' must be " +
                  info.dtype.str() + ", not " + t.dtype().str());
    if (t.rank() != info.dims.size() && !info.dims.empty())
      throw Error("onnx: input '" + info.name + "' must have rank " +
                  std::to_string(info.dims.size()) + ", not shape " +
                  t.shape().str());
    for (size_t d = 0; d < info.dims.size(); ++d)
      if (info.dims[d] >= 0 && info.dims[d] != t.shape()[d])
        throw Error("onnx: input '" + info.name + "' must have dim " +
                    std::to_string(d) + " of " + std::to_string(info.dims[d]) +
                    ", not shape " + t.shape().str());
    // Kiln has one dynamic size per graph: the dims of the first symbol
    // (the batch, in the models exporters write) become dynamic.
    DispatchTensor bound = t;
    for (size_t d = 0; d < info.symbols.size(); ++d)
      if (!info.symbols[d].empty() && info.symbols[d] != "?" &&
          info.symbols[d] == firstSymbol && bound.shape()[d] > 0)
        bound.markDynamic(d);
    env[info.name] = Value{bound, std::nullopt};
  }
  for (const auto &[name, t] : inputs)
    if (!env.count(name))
      throw Error("onnx: the model has no input '" + name + "'");
  runGraph(impl_->proto.graph(), impl_->opset, impl_->device, impl_->baseDir,
           env);
  std::map<std::string, DispatchTensor> out;
  for (const ValueInfo &info : impl_->outputs) {
    auto it = env.find(info.name);
    if (it == env.end())
      throw Error("onnx: nothing computes the output '" + info.name + "'");
    out[info.name] = it->second.tensor;
  }
  return out;
}

std::vector<DispatchTensor>
Model::operator()(const std::vector<DispatchTensor> &inputs) const {
  if (inputs.size() != impl_->inputs.size())
    throw Error("onnx: the model takes " +
                std::to_string(impl_->inputs.size()) + " inputs, not " +
                std::to_string(inputs.size()));
  std::map<std::string, DispatchTensor> named;
  for (size_t i = 0; i < inputs.size(); ++i)
    named[impl_->inputs[i].name] = inputs[i];
  std::map<std::string, DispatchTensor> out = run(named);
  std::vector<DispatchTensor> result;
  for (const ValueInfo &info : impl_->outputs)
    result.push_back(out[info.name]);
  return result;
}

std::vector<std::string> kiln::onnx::readOpTypes(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  ::onnx::ModelProto m;
  std::vector<std::string> ops;
  if (f && m.ParseFromIstream(&f))
    for (const auto &node : m.graph().node())
      ops.push_back(node.op_type());
  return ops;
}

std::string kiln::onnx::importModel(const std::string &path) {
  DispatchDevice device = DispatchDevice::flex();
  Model model = Model::load(path, device);
  // Inputs of size 1 in their symbolic dims, which run() marks dynamic.
  std::vector<DispatchTensor> inputs;
  for (const ValueInfo &info : model.inputs()) {
    std::vector<int64_t> dims;
    for (int64_t d : info.dims)
      dims.push_back(d >= 0 ? d : 1);
    Shape shape(dims);
    std::vector<char> zeros(shape.numel() * info.dtype.byteSize());
    inputs.push_back(DispatchTensor::fromData(info.dtype, zeros.data(),
                                              shape.numel(), shape, device));
  }
  std::vector<DispatchTensor> outputs;
  try {
    outputs = model(inputs);
  } catch (const Error &e) {
    std::string what = e.what();
    throw Error("onnx: " + path + ": " +
                (what.rfind("onnx: ", 0) == 0 ? what.substr(6) : what));
  }
  std::vector<kiln::detail::NodePtr> targets;
  for (const DispatchTensor &t : outputs)
    targets.push_back(t.kind.node);
  kiln::detail::Subgraph graph = kiln::detail::collectSubgraph(targets);
  kiln::detail::DynamicDims dynamic = kiln::detail::dynamicDimsOf(graph);
  return kiln::detail::printSubgraph(graph, &dynamic);
}
