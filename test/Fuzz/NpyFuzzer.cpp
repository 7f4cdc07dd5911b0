//===- NpyFuzzer.cpp - The .npy reader under libFuzzer --------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Any bytes as a .npy file: readNpy returns an array or throws kiln::Error.
// Anything else (a crash, a sanitizer report, another exception) is a bug.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "kiln/Runtime/Npy.h"
#include "kiln/Support/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string path = kiln::fuzz::scratchDir() + "/input.npy";
  kiln::fuzz::writeFile(path, data, size);
  try {
    kiln::detail::NpyArray a = kiln::detail::readNpy(path);
    (void)kiln::detail::formatNpy(a, 8);
  } catch (const kiln::Error &) {
  }
  return 0;
}
