//===- Repeat.h - tensor-run's timed runs -----------------------*- C++ -*-===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_TENSOR_RUN_REPEAT_H
#define KILN_TOOLS_TENSOR_RUN_REPEAT_H

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace kiln::tools {

/// Runs `once` `repeat` times and prints the median line of --repeat:
/// "median X ms over N runs (min A, max B) on DEVICE".
template <typename F>
void timeRepeats(int repeat, const std::string &device, F &&once) {
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    once();
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - t0)
                        .count());
  }
  std::sort(times.begin(), times.end());
  std::printf("median %.4f ms over %d runs (min %.4f, max %.4f) on %s\n",
              times[times.size() / 2], repeat, times.front(), times.back(),
              device.c_str());
}

} // namespace kiln::tools

#endif // KILN_TOOLS_TENSOR_RUN_REPEAT_H
