//===- FuzzUtil.h - What the fuzzers share ----------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TEST_FUZZ_FUZZUTIL_H
#define KILN_TEST_FUZZ_FUZZUTIL_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace kiln::fuzz {

/// A directory of this process's own under $TMPDIR (or /tmp).
inline const std::string &scratchDir() {
  static const std::string dir = [] {
    const char *tmp = std::getenv("TMPDIR");
    std::string d = std::string(tmp && *tmp ? tmp : "/tmp") + "/kiln-fuzz-" +
                    std::to_string(::getpid());
    std::string cmd = "mkdir -p '" + d + "'";
    if (std::system(cmd.c_str()) != 0)
      std::abort();
    return d;
  }();
  return dir;
}

/// Writes `size` bytes to `path` (the readers under test take paths).
inline void writeFile(const std::string &path, const uint8_t *data,
                      size_t size) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    std::abort();
  if (size && std::fwrite(data, 1, size, f) != size)
    std::abort();
  std::fclose(f);
}

} // namespace kiln::fuzz

#endif // KILN_TEST_FUZZ_FUZZUTIL_H
