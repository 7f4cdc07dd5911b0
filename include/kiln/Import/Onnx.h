//===- Onnx.h - Models from ONNX files --------------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// ONNX models (opsets 7 to 21 of the default domain, IR versions up to 10)
// as Kiln graphs. A loaded Model maps each node onto the Kiln ops it
// computes, recorded on DispatchTensors like any other Kiln code: calling it
// compiles once per structure (symbolic input dims become dynamic dims) and
// differentiates when its parameters are on an autodiff device.
//
// Everything the file says that Kiln cannot honour (an op, an attribute, a
// dtype, an opset, a malformed or truncated file) is a kiln::Error that
// names the node, its op type, domain and opset, and what is missing.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_IMPORT_ONNX_H
#define KILN_IMPORT_ONNX_H

#include "kiln/API/Device.h"
#include "kiln/API/Tensor.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kiln::onnx {

/// A graph input or output as the file declares it. A dim of -1 is symbolic
/// (or unknown), named by `symbols` when the file names it.
struct ValueInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> dims;
  std::vector<std::string> symbols; ///< one per dim ("" when fixed)
};

struct LoadOptions {
  /// Initializers of a floating dtype become parameters (tracked for
  /// gradients when the device is an autodiff device) instead of constants.
  bool trainable = false;
};

class Model {
public:
  /// Reads `path` (and the external data files it names, relative to it).
  static Model
  load(const std::string &path,
       const DispatchDevice &device = DispatchDevice::defaultDevice(),
       LoadOptions options = {});
  /// A model from its serialized bytes; external data is looked up under
  /// `baseDir`.
  static Model fromBytes(const std::string &bytes, const DispatchDevice &device,
                         LoadOptions options = {},
                         const std::string &baseDir = ".");

  /// The inputs a call binds (initializers excluded) and the outputs it
  /// returns, in the file's order.
  const std::vector<ValueInfo> &inputs() const;
  const std::vector<ValueInfo> &outputs() const;
  /// The default domain's opset and the file's IR version.
  int64_t opset() const;
  int64_t irVersion() const;
  const DispatchDevice &device() const;
  /// The op type of each node, in the graph's order.
  std::vector<std::string> opTypes() const;

  /// Records the graph on `inputs` (one per input, in order); the outputs
  /// in the file's order. Symbolic dims of the inputs are marked dynamic.
  std::vector<DispatchTensor>
  operator()(const std::vector<DispatchTensor> &inputs) const;
  /// The same, binding inputs and naming outputs by their ONNX names.
  std::map<std::string, DispatchTensor>
  run(const std::map<std::string, DispatchTensor> &inputs) const;

  /// The initializers, by name (the parameters when loaded trainable: an
  /// optimizer may rebind them).
  std::vector<std::pair<std::string, DispatchTensor *>> namedParameters();

  struct Impl;

private:
  std::shared_ptr<Impl> impl_;
};

/// The model at `path` as a kiln-dialect module (its text) with one
/// function @main: the inputs' symbolic dims are dynamic.
std::string importModel(const std::string &path);

/// The op types of the default domain that the importer maps, each with
/// the first opset it maps (it maps them up to opset 21); ops it refuses
/// with a reason (data-dependent shapes, control flow, random numbers) are
/// not listed.
std::vector<std::pair<std::string, int64_t>> supportedOps();

/// The op type of each node of the model at `path`, read without checking
/// the model (empty when the file does not parse).
std::vector<std::string> readOpTypes(const std::string &path);

/// A tensor serialized as ONNX's TensorProto (the backend test suite's
/// `input_N.pb` and `output_N.pb`); `name` receives its name.
DispatchTensor readTensorProto(const std::string &path,
                               const DispatchDevice &device,
                               std::string *name = nullptr);

} // namespace kiln::onnx

#endif // KILN_IMPORT_ONNX_H
