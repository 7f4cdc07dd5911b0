//===- OnnxFuzzer.cpp - The ONNX importer under libFuzzer -----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Any bytes as an .onnx file: the importer loads a model or throws
// kiln::Error. A model that loads runs on Flex on zero inputs of its
// declared shapes (symbolic dims 2; skipped past 4096 elements), and again
// either answers or throws kiln::Error. Anything else (a crash, a sanitizer
// report, another exception, a hang) is a bug.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/Onnx.h"
#include "kiln/Kiln.h"

#include <cstdint>
#include <string>
#include <vector>

using namespace kiln;

extern "C" int LLVMFuzzerInitialize(int *, char ***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  DispatchDevice flex = DispatchDevice::flex();
  try {
    onnx::Model m = onnx::Model::fromBytes(
        std::string(reinterpret_cast<const char *>(data), size), flex,
        onnx::LoadOptions(), "/nonexistent");
    std::vector<DispatchTensor> inputs;
    for (const onnx::ValueInfo &info : m.inputs()) {
      std::vector<int64_t> dims;
      int64_t n = 1;
      for (int64_t d : info.dims) {
        dims.push_back(d < 0 ? 2 : d);
        n *= dims.back();
        if (dims.back() > 4096 || n > 4096)
          return 0;
      }
      std::vector<char> zeros(n * info.dtype.byteSize());
      inputs.push_back(DispatchTensor::fromData(info.dtype, zeros.data(), n,
                                                Shape(dims), flex));
    }
    for (const DispatchTensor &t : m(inputs))
      t.sync();
  } catch (const Error &) {
  }
  return 0;
}
