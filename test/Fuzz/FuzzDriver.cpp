//===- FuzzDriver.cpp - A fuzz target without libFuzzer -------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Runs LLVMFuzzerTestOneInput in a plain build: on each file named on the
// command line (a crash a fuzzer found, say), or with `--random N [SEED]`
// on N pseudo-random inputs of 16 to 1024 bytes, the same for a seed. With
// KILN_FUZZ_KEEP=<file> each random input is written there before it runs,
// so the one that fails is left for libFuzzer to minimize.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  if (argc >= 3 && std::strcmp(argv[1], "--random") == 0) {
    long n = std::atol(argv[2]);
    uint64_t state = argc >= 4 ? std::strtoull(argv[3], nullptr, 0) : 1;
    auto next = [&] {
      uint64_t z = (state += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      return z ^ (z >> 31);
    };
    for (long i = 0; i < n; ++i) {
      std::vector<uint8_t> bytes(16 + next() % 1009);
      for (uint8_t &b : bytes)
        b = static_cast<uint8_t>(next());
      if (const char *keep = std::getenv("KILN_FUZZ_KEEP"))
        std::ofstream(keep, std::ios::binary)
            .write(reinterpret_cast<const char *>(bytes.data()),
                   static_cast<std::streamsize>(bytes.size()));
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    }
    std::printf("ran %ld random inputs\n", n);
    return 0;
  }
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", argv[i]);
      return 1;
    }
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    std::printf("ran %s\n", argv[i]);
  }
  return 0;
}
