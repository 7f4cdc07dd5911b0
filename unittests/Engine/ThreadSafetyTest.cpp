//===- ThreadSafetyTest.cpp - Two threads record and materialize at once --===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Built with -fsanitize=thread against a Kiln library whose API and runtime
// core are instrumented too (see CMakeLists.txt), so a data race inside the
// recorder, the engine, the executable cache, the allocator, the thread pool
// or the Flex plan runner fails the test.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <thread>

using namespace kiln;

namespace {

DispatchDevice flexDevice() { return DispatchDevice::flex(); }

/// One step of a thread's work: a graph whose shape cycles through a few
/// sizes (a compile the first time each is seen, cache hits after), with a
/// scalar that changes every step, an in-place update and a long tensor
/// for the thread pool. Returns a value that depends on everything.
double step(int thread, int i, const Tensor &shared) {
  DispatchDevice flex = flexDevice();
  int64_t n = 8 + 8 * ((i + thread) % 4);
  Tensor a = Tensor::arange(n, DType::F32, flex) * (0.01 * (i % 10));
  Tensor b = exp(a) + Tensor::full({n}, 1.0 + thread, DType::F32, flex);
  Tensor c = (b.softmax(0) * b).sum() + shared.sum();
  b.sync();
  b.addInPlace(b); // can_mut: writes b's own buffer
  double v = c.item<float>() + b.max().item<float>();
  if (i % 25 == 0) {
    Tensor big = Tensor::rand({1 << 16}, DType::F32, flex, i) * 2.0 - 1.0;
    v += relu(big).mean().item<float>();
  }
  return v;
}

TEST(ThreadSafetyTest, TwoThreadsRecordAndMaterializeAtOnce) {
  const int steps = 300;
  // Read by both threads, never written.
  Tensor shared = Tensor::ones({16}, DType::F32, flexDevice()) * 0.5;
  shared.sync();
  std::vector<double> got[2];
  std::thread workers[2];
  for (int t = 0; t < 2; ++t)
    workers[t] = std::thread([t, &got, &shared] {
      for (int i = 0; i < steps; ++i)
        got[t].push_back(step(t, i, shared));
    });
  for (std::thread &w : workers)
    w.join();
  // The same work on one thread gives the same numbers.
  for (int t = 0; t < 2; ++t) {
    ASSERT_EQ(got[t].size(), size_t(steps));
    for (int i = 0; i < steps; i += 7)
      EXPECT_EQ(got[t][i], step(t, i, shared))
          << "thread " << t << " step " << i;
  }
  BackendCounters c = backendCounters(flexDevice());
  EXPECT_GT(c.cacheHits, c.compiles);
}

} // namespace
