//===- tensor-translate.cpp - Other formats into the kiln dialect ---------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
//   tensor-translate --import-onnx MODEL.onnx [-o OUT.mlir]
//
// After mlir-translate: writes the model as a kiln-dialect module (stdout
// by default), its inputs' symbolic dims dynamic. Exit status 1 for an
// error in the model, 2 for a mistake on the command line.
//
//===----------------------------------------------------------------------===//

#include "kiln/Import/Onnx.h"

#include <cstdio>
#include <fstream>
#include <string>

namespace {

constexpr const char *kUsage =
    "usage: tensor-translate --import-onnx MODEL.onnx [-o OUT.mlir]\n";

int usage(const std::string &why) {
  std::fprintf(stderr, "tensor-translate: %s\n%s", why.c_str(), kUsage);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::string input, output = "-";
  bool importOnnx = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--import-onnx") {
      importOnnx = true;
    } else if (a == "-o") {
      if (i + 1 >= argc)
        return usage("-o needs a file");
      output = argv[++i];
    } else if (a == "--help" || a == "-h") {
      std::printf("%s", kUsage);
      return 0;
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      return usage("unknown option " + a);
    } else if (input.empty()) {
      input = a;
    } else {
      return usage("more than one input file");
    }
  }
  if (!importOnnx)
    return usage("no translation given (--import-onnx)");
  if (input.empty())
    return usage("no model given");
  try {
    std::string text = kiln::onnx::importModel(input);
    if (output == "-") {
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else {
      std::ofstream f(output);
      if (!(f << text))
        throw kiln::Error("cannot write " + output);
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tensor-translate: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
