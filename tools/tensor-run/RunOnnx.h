//===- RunOnnx.h - tensor-run on ONNX models --------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_TENSOR_RUN_RUNONNX_H
#define KILN_TOOLS_TENSOR_RUN_RUNONNX_H

#include <string>
#include <utility>
#include <vector>

namespace kiln::tools {

struct OnnxRun {
  std::string file, device, outputDir;
  std::vector<std::pair<std::string, std::string>> named;
  std::vector<std::string> positional;
  int repeat = 0;
  bool print = false;
};

/// Runs an .onnx model: inputs bound by their ONNX names (or in order),
/// each output written as DIR/<output name>.npy. Throws kiln::Error.
int runOnnx(const OnnxRun &o);

} // namespace kiln::tools

#endif // KILN_TOOLS_TENSOR_RUN_RUNONNX_H
