//===- SafetensorsFuzzer.cpp - The safetensors parser under libFuzzer -----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Any bytes as a safetensors file: the parser returns tensors or throws
// kiln::Error. Tensors it returns must write back to a file that parses to
// the same tensors. Anything else (a crash, a sanitizer report, another
// exception, a round trip that differs) is a bug.
//
//===----------------------------------------------------------------------===//

#include "Safetensors.h"

#include "kiln/Support/Error.h"

#include <algorithm>
#include <cstdlib>

using namespace kiln::detail;

static bool same(const std::vector<SafetensorsTensor> &a,
                 const std::vector<SafetensorsTensor> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].dtype != b[i].dtype ||
        a[i].shape != b[i].shape || a[i].data != b[i].data)
      return false;
  return true;
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<SafetensorsTensor> tensors;
  try {
    tensors = parseSafetensors(
        std::string(reinterpret_cast<const char *>(data), size), "fuzz");
  } catch (const kiln::Error &) {
    return 0;
  }
  std::vector<SafetensorsTensor> again;
  try {
    again = parseSafetensors(serializeSafetensors(tensors), "round trip");
  } catch (const kiln::Error &) {
    // Two entries of one name cannot be written back; JSON keeps the last.
    return 0;
  }
  // Zero-byte tensors may share an offset: the order of those may change.
  auto key = [](const SafetensorsTensor &t) { return t.name; };
  auto sorted = [&](std::vector<SafetensorsTensor> v) {
    std::sort(v.begin(), v.end(),
              [&](const auto &x, const auto &y) { return key(x) < key(y); });
    return v;
  };
  if (!same(sorted(tensors), sorted(again)))
    std::abort();
  return 0;
}
