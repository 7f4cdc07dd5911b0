//===- RunOnnx.cpp - tensor-run on ONNX models ----------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "RunOnnx.h"
#include "Repeat.h"

#include "kiln/Import/Onnx.h"
#include "kiln/Runtime/Npy.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

using namespace kiln;

namespace {

DispatchDevice deviceNamed(const std::string &name) {
  if (name == "flex")
    return DispatchDevice::flex();
  if (name == "cuda")
    return DispatchDevice::cuda(0);
  return DispatchDevice::cpu();
}

/// An output name as a file name: characters other than letters, digits,
/// '.', '_' and '-' become '_'.
std::string fileNameOf(const std::string &name) {
  std::string s = name.empty() ? "output" : name;
  for (char &ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' &&
        ch != '_' && ch != '-')
      ch = '_';
  if (s == "." || s == "..")
    s = "_";
  return s;
}

template <typename T>
void copyValues(const DispatchTensor &t, std::vector<unsigned char> &out) {
  std::vector<T> v = t.toVector<T>();
  out.resize(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
}

/// The tensor's values, row-major, as bytes of its dtype.
std::vector<unsigned char> bytesOf(const DispatchTensor &t) {
  std::vector<unsigned char> out;
  switch (t.dtype().kind()) {
  case DTypeKind::F64:
    copyValues<double>(t, out);
    break;
  case DTypeKind::F32:
    copyValues<float>(t, out);
    break;
  case DTypeKind::F16:
    copyValues<Half>(t, out);
    break;
  case DTypeKind::BF16:
    copyValues<BFloat16>(t, out);
    break;
  case DTypeKind::I64:
    copyValues<int64_t>(t, out);
    break;
  case DTypeKind::I32:
    copyValues<int32_t>(t, out);
    break;
  case DTypeKind::I16:
    copyValues<int16_t>(t, out);
    break;
  case DTypeKind::I8:
    copyValues<int8_t>(t, out);
    break;
  case DTypeKind::U8:
    copyValues<uint8_t>(t, out);
    break;
  case DTypeKind::Bool: {
    std::vector<bool> v = t.toVector<bool>();
    out.assign(v.begin(), v.end());
    break;
  }
  default:
    throw Error("cannot write a " + t.dtype().str() + " output as .npy");
  }
  return out;
}

} // namespace

int kiln::tools::runOnnx(const OnnxRun &o) {
  DispatchDevice device = deviceNamed(o.device);
  onnx::Model model = onnx::Model::load(o.file, device);
  const auto &infos = model.inputs();
  std::vector<std::string> files(infos.size());
  if (o.positional.size() > infos.size())
    throw Error(o.file + " takes " + std::to_string(infos.size()) +
                " inputs, but " + std::to_string(o.positional.size()) +
                " files were given");
  for (size_t i = 0; i < o.positional.size(); ++i)
    files[i] = o.positional[i];
  for (const auto &[name, file] : o.named) {
    auto it =
        std::find_if(infos.begin(), infos.end(),
                     [&](const onnx::ValueInfo &v) { return v.name == name; });
    if (it == infos.end()) {
      std::string names;
      for (const auto &v : infos)
        names += (names.empty() ? "" : ", ") + v.name;
      throw Error("--input " + name + ": " + o.file + " has no input named " +
                  name + " (it has: " + names + ")");
    }
    size_t i = it - infos.begin();
    if (!files[i].empty())
      throw Error("--input " + name + ": already has an input (" + files[i] +
                  ")");
    files[i] = file;
  }
  std::vector<DispatchTensor> inputs;
  for (size_t i = 0; i < infos.size(); ++i) {
    if (files[i].empty())
      throw Error("no input for " + infos[i].name + " of " + o.file);
    detail::NpyArray a = detail::readNpy(files[i]);
    inputs.push_back(DispatchTensor::fromData(a.dtype, a.data.data(),
                                              Shape(a.shape).numel(),
                                              Shape(a.shape), device));
  }
  auto runOnce = [&] {
    std::vector<DispatchTensor> out = model(inputs);
    for (const DispatchTensor &t : out)
      t.sync();
    return out;
  };
  std::vector<DispatchTensor> outputs = runOnce();
  if (o.repeat > 0)
    timeRepeats(o.repeat, device.str(), [&] { outputs = runOnce(); });
  std::error_code ec;
  std::filesystem::create_directories(o.outputDir, ec);
  if (ec)
    throw Error(o.outputDir + ": cannot create the output directory (" +
                ec.message() + ")");
  std::set<std::string> written;
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string name = fileNameOf(model.outputs()[i].name);
    while (!written.insert(name).second)
      name += "_";
    detail::NpyArray a;
    a.dtype = outputs[i].dtype();
    a.shape = outputs[i].shape().dims();
    a.data = bytesOf(outputs[i]);
    std::string path = o.outputDir + "/" + name + ".npy";
    detail::writeNpy(path, a);
    if (o.print)
      std::printf("%s = %s\n", path.c_str(), detail::formatNpy(a, 64).c_str());
  }
  return 0;
}
