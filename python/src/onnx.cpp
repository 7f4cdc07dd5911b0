//===- onnx.cpp - kiln.onnx: ONNX models ----------------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "kiln/Import/Onnx.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using namespace nb::literals;
using kiln::DispatchDevice;
using kiln::DispatchTensor;
namespace konnx = kiln::onnx;

void kiln::python::bindOnnx(nb::module_ &m) {
  nb::module_ onnx = m.def_submodule("onnx", "ONNX models (kiln.onnx.load)");
  nb::class_<konnx::Model> model(onnx, "_Model");
  model
      .def_static(
          "load",
          [](const std::string &path, std::optional<DispatchDevice> device,
             bool trainable) {
            kiln::python::finishInterrupted();
            konnx::LoadOptions o;
            o.trainable = trainable;
            nb::gil_scoped_release release;
            return konnx::Model::load(
                path, device ? *device : DispatchDevice::defaultDevice(), o);
          },
          "path"_a, "device"_a = nb::none(), "trainable"_a = false)
      .def_prop_ro("input_names",
                   [](const konnx::Model &m) {
                     std::vector<std::string> names;
                     for (const auto &v : m.inputs())
                       names.push_back(v.name);
                     return names;
                   })
      .def_prop_ro("output_names",
                   [](const konnx::Model &m) {
                     std::vector<std::string> names;
                     for (const auto &v : m.outputs())
                       names.push_back(v.name);
                     return names;
                   })
      .def_prop_ro("input_shapes",
                   [](const konnx::Model &m) {
                     std::vector<std::vector<int64_t>> shapes;
                     for (const auto &v : m.inputs())
                       shapes.push_back(v.dims);
                     return shapes;
                   })
      .def_prop_ro("input_dtypes",
                   [](const konnx::Model &m) {
                     std::vector<kiln::DType> dtypes;
                     for (const auto &v : m.inputs())
                       dtypes.push_back(v.dtype);
                     return dtypes;
                   })
      .def_prop_ro("opset", &konnx::Model::opset)
      .def_prop_ro("device", &konnx::Model::device)
      .def("__call__",
           [](const konnx::Model &m, const std::vector<DispatchTensor> &xs) {
             return m(xs);
           })
      .def("run", &konnx::Model::run, "inputs"_a)
      .def("named_parameters", [](nb::handle self) {
        nb::dict d;
        for (const auto &[name, p] :
             nb::cast<konnx::Model &>(self).namedParameters())
          d[name.c_str()] =
              nb::cast(p, nb::rv_policy::reference_internal, self);
        return d;
      });
}
