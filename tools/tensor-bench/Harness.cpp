//===- Harness.cpp - Timing, threads and data for tensor-bench ------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <algorithm>
#include <chrono>
#include <thread>

using namespace bench;

static std::vector<double> sorted(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v;
}

double Stats::median() const {
  if (ms.empty())
    return 0;
  std::vector<double> s = sorted(ms);
  size_t n = s.size();
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}
double Stats::min() const {
  return ms.empty() ? 0 : *std::min_element(ms.begin(), ms.end());
}
double Stats::max() const {
  return ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end());
}

double bench::nowMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch())
      .count();
}

Stats bench::timeRuns(int warmup, int runs, const std::function<void()> &fn) {
  for (int i = 0; i < warmup; ++i)
    fn();
  Stats s;
  for (int i = 0; i < runs; ++i) {
    double t0 = nowMs();
    fn();
    s.ms.push_back(nowMs() - t0);
  }
  return s;
}

void bench::parallelFor(int threads, int64_t n,
                        const std::function<void(int64_t, int64_t)> &body) {
  threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, n)));
  if (threads == 1) {
    body(0, n);
    return;
  }
  std::vector<std::thread> workers;
  int64_t chunk = (n + threads - 1) / threads;
  for (int t = 1; t < threads; ++t) {
    int64_t lo = std::min(n, t * chunk), hi = std::min(n, lo + chunk);
    workers.emplace_back([&body, lo, hi] { body(lo, hi); });
  }
  body(0, std::min(n, chunk));
  for (std::thread &w : workers)
    w.join();
}

void bench::fillUniform(float *out, int64_t n, uint64_t seed, float lo,
                        float hi) {
  // splitmix64 of the index: any chunk can be generated independently, so
  // the fill itself runs on every core.
  parallelFor(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())),
              n, [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) {
                  uint64_t z = seed * 0x9E3779B97F4A7C15ull + uint64_t(i) +
                               0x632BE59BD9B4E019ull;
                  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
                  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
                  z ^= z >> 31;
                  float u = float(z >> 40) * (1.0f / 16777216.0f);
                  out[i] = lo + (hi - lo) * u;
                }
              });
}
