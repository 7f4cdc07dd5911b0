//===- MaterializeTest.cpp - Materializing part of a tracked graph --------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A tracked value keeps its inputs once it is materialized, so that a later
// backward can retrace the forward graph through it. The buffers those
// inputs read must therefore stay too: materialization may give up (donate)
// only what nothing will read again. Training loops do exactly this: they
// rebind a parameter after a step, print a loss, or sync an intermediate
// before backward.
//
//===----------------------------------------------------------------------===//

#include "HostDevices.h"
#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <thread>

using namespace kiln;
using kiln::test::hostDevices;

namespace {

TEST(MaterializeTest, ARebindAfterATrackedStepSyncsTwice) {
  for (const DispatchDevice &dev : hostDevices()) {
    SCOPED_TRACE(dev.str());
    auto ad = DispatchDevice::autodiff(dev, CheckpointingStrategy::Balanced);
    DispatchTensor w = DispatchTensor::ones({4}, DType::F32, ad);
    DispatchTensor loss = (w * w).sum();
    w = w - 0.1;
    dev.sync();
    dev.sync();
    EXPECT_FLOAT_EQ(loss.item<float>(), 4.0f);
    for (float v : w.toVector<float>())
      EXPECT_FLOAT_EQ(v, 0.9f);
  }
}

TEST(MaterializeTest, AnIntermediateSyncedBeforeBackwardKeepsItsInputs) {
  for (const DispatchDevice &dev : hostDevices()) {
    SCOPED_TRACE(dev.str());
    auto ad = DispatchDevice::autodiff(dev, CheckpointingStrategy::Balanced);
    DispatchTensor x = DispatchTensor::fromVector<float>({1, -2, 3}, {3}, ad);
    DispatchTensor y = x * 2.0;
    y.sync();
    DispatchTensor loss = (y * y).sum();
    EXPECT_FLOAT_EQ(loss.item<float>(), 56.0f);
    Gradients g = backward(loss);
    // d/dx sum((2x)^2) = 8x.
    std::vector<float> dx = g.get(x).toVector<float>();
    ASSERT_EQ(dx.size(), 3u);
    EXPECT_FLOAT_EQ(dx[0], 8.0f);
    EXPECT_FLOAT_EQ(dx[1], -16.0f);
    EXPECT_FLOAT_EQ(dx[2], 24.0f);
  }
}

TEST(MaterializeTest, ALossPrintedEveryStepOfALoop) {
  for (const DispatchDevice &dev : hostDevices()) {
    SCOPED_TRACE(dev.str());
    auto ad = DispatchDevice::autodiff(dev, CheckpointingStrategy::Disabled);
    DispatchTensor w = DispatchTensor::fromVector<float>({2, 2}, {2}, ad);
    optim::SGD sgd({&w}, 0.5);
    float last = 0;
    for (int step = 0; step < 3; ++step) {
      DispatchTensor loss = (w * w * 0.5).sum();
      last = loss.item<float>(); // materialized before backward
      sgd.step(backward(loss));
    }
    // The gradient is w, so w halves each step (2, 1, 0.5, 0.25); the last
    // loss was printed at w = 0.5: 2 * 0.5 * 0.5^2.
    EXPECT_FLOAT_EQ(last, 0.25f);
    for (float v : w.toVector<float>())
      EXPECT_FLOAT_EQ(v, 0.25f);
  }
}

// A training step materializes the loss with the updated parameters: the
// update goes in place, so the old parameters are gone and the loss cannot
// be differentiated again. That is an error that says why, not a crash.
TEST(MaterializeTest, ALossWhoseParametersWereUpdatedInPlaceSaysSo) {
  for (const DispatchDevice &dev : hostDevices()) {
    SCOPED_TRACE(dev.str());
    auto ad = DispatchDevice::autodiff(dev, CheckpointingStrategy::Balanced);
    DispatchTensor w = DispatchTensor::fromVector<float>({2, 2}, {2}, ad);
    w.requireGrad(); // a parameter, as nn's modules make them
    optim::SGD sgd({&w}, 0.5);
    DispatchTensor loss = (w * w * 0.5).sum();
    sgd.step(backward(loss));
    sync({loss, w});
    EXPECT_FLOAT_EQ(loss.item<float>(), 4.0f);
    for (float v : w.toVector<float>())
      EXPECT_FLOAT_EQ(v, 1.0f);
    try {
      backward(loss);
      ADD_FAILURE() << "backward through a lost graph did not throw";
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find("updated in place"),
                std::string::npos)
          << e.what();
    }
    // The new parameters train on.
    DispatchTensor next = (w * w * 0.5).sum();
    sgd.step(backward(next));
    EXPECT_FLOAT_EQ(next.item<float>(), 1.0f);
    for (float v : w.toVector<float>())
      EXPECT_FLOAT_EQ(v, 0.5f);
  }
}

// Threads that reach the same graph together (the ranks of a data-parallel
// job in one process) compile it once: the others wait for that compile
// and count a cache hit. Whichever thread wins, the counts are the same.
TEST(MaterializeTest, ThreadsThatReachOneGraphTogetherCompileItOnce) {
  int64_t rows = 37;
  for (const DispatchDevice &dev : hostDevices()) {
    SCOPED_TRACE(dev.str());
    const int threads = 4;
    // A shape no other test uses, so the graph is not cached yet.
    const int64_t cols = 53;
    rows += 4;
    std::atomic<int> arrived{0};
    std::vector<float> got(threads);
    BackendCounters before = backendCounters(dev);
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&, t, dev = dev] {
        DispatchTensor a = DispatchTensor::arange(rows * cols, DType::F32, dev)
                               .reshape({rows, cols});
        DispatchTensor s = (exp(a * 0.001) + 1.0).softmax(1).sum();
        arrived.fetch_add(1);
        while (arrived.load() < threads)
          std::this_thread::yield();
        got[t] = s.item<float>();
      });
    for (std::thread &w : workers)
      w.join();
    BackendCounters after = backendCounters(dev);
    EXPECT_EQ(after.compiles - before.compiles, 1);
    EXPECT_EQ(after.cacheHits - before.cacheHits, threads - 1);
    for (int t = 0; t < threads; ++t)
      EXPECT_NEAR(got[t], float(rows), 1e-3) << "thread " << t;
  }
}

} // namespace
