//===- Save.cpp - Parameters to and from safetensors files ----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Safetensors.h"

#include "kiln/API/NN.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

using namespace kiln;
using namespace kiln::detail;

namespace {

/// The raw bytes of a materialized tensor's elements, in C order.
template <typename T> std::string bytesAs(const DispatchTensor &t) {
  std::vector<T> v = t.toVector<T>();
  return std::string(reinterpret_cast<const char *>(v.data()),
                     v.size() * sizeof(T));
}

std::string rawBytes(const DispatchTensor &t) {
  switch (t.dtype().kind()) {
  case DTypeKind::F64:
    return bytesAs<double>(t);
  case DTypeKind::F32:
    return bytesAs<float>(t);
  case DTypeKind::F16:
    return bytesAs<Half>(t);
  case DTypeKind::BF16:
    return bytesAs<BFloat16>(t);
  case DTypeKind::I64:
    return bytesAs<int64_t>(t);
  case DTypeKind::I32:
    return bytesAs<int32_t>(t);
  case DTypeKind::I16:
    return bytesAs<int16_t>(t);
  case DTypeKind::I8:
    return bytesAs<int8_t>(t);
  case DTypeKind::U8:
  case DTypeKind::Bool:
    return bytesAs<uint8_t>(t);
  case DTypeKind::QFloat:
    break;
  }
  throw Error("nn::save: a quantized tensor (" + t.dtype().str() +
              ") has no safetensors dtype; save the f32 weights");
}

} // namespace

void kiln::nn::save(const NamedParameters &params, const std::string &path) {
  std::vector<SafetensorsTensor> tensors;
  std::vector<DispatchTensor> values;
  for (const auto &[name, p] : params) {
    if (!p || !p->defined())
      throw Error("nn::save: parameter '" + name + "' is not defined");
    values.push_back(*p);
  }
  if (!values.empty()) {
    // One graph for every pending update, per device.
    for (const DispatchTensor &v : values)
      v.sync();
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const DispatchTensor &v = values[i];
    SafetensorsTensor t;
    t.name = params[i].first;
    t.dtype = v.dtype();
    t.shape = v.shape().dims();
    t.data = rawBytes(v);
    tensors.push_back(std::move(t));
  }
  std::string bytes = serializeSafetensors(tensors);
  // Written beside the target and renamed over it: a failed write leaves
  // the old file (or none), never half a file.
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw Error("nn::save: cannot write " + tmp);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      out.close();
      std::remove(tmp.c_str());
      throw Error("nn::save: writing " + tmp + " failed (disk full?)");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error("nn::save: cannot rename " + tmp + " to " + path);
  }
}

void detail::loadSafetensors(
    const nn::NamedParameters &params, const std::vector<std::string> &paths,
    const std::string &who,
    const std::function<bool(const std::string &)> &extraAllowed) {
  // Every file is read and every tensor checked, then every new value is
  // made and materialized, and only then is any parameter rebound: a
  // failure at any point leaves the parameters as they were.
  std::vector<SafetensorsTensor> tensors;
  std::map<std::string, std::string> fileOf;
  for (const std::string &path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
      throw Error(who + ": cannot open " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    for (SafetensorsTensor &t : parseSafetensors(ss.str(), path)) {
      auto [it, fresh] = fileOf.emplace(t.name, path);
      if (!fresh)
        throw Error(who + ": tensor '" + t.name + "' is in both " + it->second +
                    " and " + path);
      tensors.push_back(std::move(t));
    }
  }
  std::map<std::string, const SafetensorsTensor *> byName;
  for (const SafetensorsTensor &t : tensors)
    byName[t.name] = &t;
  std::map<std::string, bool> wanted;
  for (const auto &[name, p] : params) {
    wanted[name] = true;
    if (!p || !p->defined())
      throw Error(who + ": parameter '" + name + "' is not defined");
    auto it = byName.find(name);
    if (it == byName.end())
      throw Error(who + ": " +
                  (paths.size() == 1 ? paths[0] : "the checkpoint") +
                  " has no tensor '" + name + "'");
    const SafetensorsTensor &t = *it->second;
    const std::string &file = fileOf.at(name);
    if (Shape(t.shape) != p->shape())
      throw Error(who + ": tensor '" + name + "' of " + file + " is " +
                  Shape(t.shape).str() + ", the parameter is " +
                  p->shape().str());
    DType want = p->dtype();
    bool floats = t.dtype.isFloat() && want.isFloat();
    if (t.dtype != want && !floats)
      throw Error(who + ": tensor '" + name + "' of " + file + " is " +
                  t.dtype.str() + ", which does not convert to the " +
                  want.str() + " parameter");
  }
  if (extraAllowed)
    for (const SafetensorsTensor &t : tensors)
      if (!wanted.count(t.name) && !extraAllowed(t.name))
        throw Error(who + ": " + fileOf.at(t.name) + " has tensor '" + t.name +
                    "', which the model does not have");
  std::vector<DispatchTensor> loaded;
  for (const auto &[name, p] : params) {
    const SafetensorsTensor &t = *byName.at(name);
    DispatchDevice device = p->device().backend();
    NoGradGuard guard;
    size_t count = t.data.size() / std::max<size_t>(t.dtype.byteSize(), 1);
    DispatchTensor v = DispatchTensor::fromData(t.dtype, t.data.data(), count,
                                                Shape(t.shape), device);
    if (t.dtype != p->dtype())
      v = cast(v, p->dtype());
    loaded.push_back(v);
  }
  for (const DispatchTensor &v : loaded)
    v.sync();
  for (size_t i = 0; i < params.size(); ++i) {
    DispatchTensor &p = *params[i].second;
    std::optional<CheckpointingStrategy> strategy = p.checkpointing;
    bool tracked = strategy.has_value();
    p = loaded[i];
    if (tracked)
      p.requireGrad(strategy);
  }
}

void kiln::nn::load(const NamedParameters &params, const std::string &path) {
  loadSafetensors(params, {path}, "nn::load", nullptr);
}
