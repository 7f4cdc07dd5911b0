//===- KernelCacheFuzzer.cpp - The kernel-cache reader under libFuzzer ----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Any bytes as the disk-cache entry of a key: load() gives the object or a
// miss (a corrupt entry is reported and removed), never a crash. With
// KILN_FUZZ_SEED_OUT=<file> the fuzzer writes a valid entry there and
// exits: the seed of its corpus.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "kiln/Runtime/KernelCache.h"
#include "kiln/Support/Error.h"

#include <fstream>
#include <sstream>

namespace kc = kiln::detail::kernelcache;

static const char *const kKey = "fuzz: one graph's key";

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  std::string dir = kiln::fuzz::scratchDir() + "/cache";
  ::setenv("KILN_CACHE_DIR", dir.c_str(), 1);
  if (const char *out = std::getenv("KILN_FUZZ_SEED_OUT")) {
    kc::store(kKey, std::string("\x7f"
                                "ELF a compiled object",
                                22));
    std::ifstream in(kc::directory() + "/" + kc::hashOf(kKey) + ".kobj",
                     std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    std::ofstream(out, std::ios::binary) << bytes.str();
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string path =
      kc::directory() + "/" + kc::hashOf(kKey) + ".kobj";
  kiln::fuzz::writeFile(path, data, size);
  try {
    (void)kc::load(kKey);
  } catch (const kiln::Error &) {
  }
  return 0;
}
