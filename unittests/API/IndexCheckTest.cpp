//===- IndexCheckTest.cpp - Out-of-range indices are errors ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// gather, index_select, embedding, scatter_add and cross_entropy's labels
// once clamped a bad index (label 90 of 10 classes gave a finite loss).
// Indices known when the op is recorded are checked there; indices that
// the graph computes are checked by the kernel, and the materialization
// throws, naming the op and the index, with the graph's inputs intact.
//
//===----------------------------------------------------------------------===//

#include "HostDevices.h"
#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

using namespace kiln;
using kiln::test::hostDevices;

namespace {

/// Runs `f`, which must throw a kiln::Error whose message holds every one
/// of `parts`.
void expectError(const std::function<void()> &f,
                 std::initializer_list<const char *> parts) {
  try {
    f();
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    for (const char *p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "'" << p << "' is not in: " << e.what();
  }
}

TEST(IndexCheckTest, KnownIndicesFailWhereTheOpIsRecorded) {
  for (const DispatchDevice &dev : hostDevices()) {
    SCOPED_TRACE(dev.str());
    DispatchTensor x = DispatchTensor::ones({4, 10}, DType::F32, dev);
    DispatchTensor bad =
        DispatchTensor::fromVector<int64_t>({1, 90, 2, 3}, {4}, dev);
    DispatchTensor badCol =
        DispatchTensor::fromVector<int64_t>({1, 90, 2, 3}, {4, 1}, dev);
    const char *why = "index 90 is out of range for an axis of 10 elements";
    expectError([&] { gather(x, 1, badCol); }, {"kiln.gather", why});
    expectError([&] { indexSelect(x, 1, bad); }, {"kiln.index_select", why});
    expectError([&] { crossEntropy(x, bad); }, {"kiln.cross_entropy", why});
    // The ignored label is no error; another out-of-range one is.
    DispatchTensor ignored =
        DispatchTensor::fromVector<int64_t>({1, -100, 2, 3}, {4}, dev);
    EXPECT_TRUE(std::isfinite(crossEntropy(x, ignored).item<float>()));
    CrossEntropyOptions o;
    o.ignoreIndex = 90;
    EXPECT_TRUE(std::isfinite(crossEntropy(x, bad, o).item<float>()));
    expectError([&] { crossEntropy(x, ignored, o); },
                {"kiln.cross_entropy",
                 "index -100 is out of range for an axis of 10 elements"});
    DispatchTensor table = DispatchTensor::ones({10, 3}, DType::F32, dev);
    expectError([&] { embedding(table, bad); }, {"kiln.embedding", why});
    DispatchTensor updates = DispatchTensor::ones({4, 1}, DType::F32, dev);
    expectError([&] { scatterAdd(x, 1, badCol, updates); },
                {"kiln.scatter_add", why});
    DispatchTensor negative =
        DispatchTensor::fromVector<int32_t>({0, -1}, {2}, dev);
    expectError([&] { indexSelect(x, 0, negative); },
                {"index -1 is out of range for an axis of 4 elements"});
  }
}

TEST(IndexCheckTest, ComputedIndicesFailWhenTheGraphRuns) {
  for (const DispatchDevice &dev : hostDevices()) {
    SCOPED_TRACE(dev.str());
    DispatchTensor x = DispatchTensor::rand({4, 10}, DType::F32, dev, 1);
    std::vector<float> before = x.toVector<float>();
    // 5 + 85 = 90: known only once the graph runs.
    DispatchTensor shifted =
        DispatchTensor::fromVector<int64_t>({1, 5, 2, 3}, {4}, dev) +
        DispatchTensor::fromVector<int64_t>({0, 85, 0, 0}, {4}, dev);
    const char *why = "index 90 is out of range for an axis of 10 elements";
    expectError([&] { crossEntropy(x, shifted).item<float>(); },
                {"kiln.gather", why});
    expectError(
        [&] {
          gather(x, 1, shifted.reshape({4, 1})).sync();
        },
        {"kiln.gather", why});
    expectError([&] { indexSelect(x, 1, shifted).sync(); },
                {"kiln.index_select", why});
    DispatchTensor updates = DispatchTensor::ones({4, 1}, DType::F32, dev);
    expectError(
        [&] {
          scatterAdd(x, 1, shifted.reshape({4, 1}), updates).sync();
        },
        {"kiln.scatter_add", why});
    DispatchTensor table = DispatchTensor::ones({10, 3}, DType::F32, dev);
    expectError([&] { embedding(table, shifted).sync(); }, {why});
    // The inputs survive the failed runs, and good indices still work.
    EXPECT_EQ(x.toVector<float>(), before);
    DispatchTensor good =
        DispatchTensor::fromVector<int64_t>({1, 5, 2, 3}, {4}, dev) +
        DispatchTensor::fromVector<int64_t>({0, 4, 0, 0}, {4}, dev);
    std::vector<float> picked =
        gather(x, 1, good.reshape({4, 1})).toVector<float>();
    ASSERT_EQ(picked.size(), 4u);
    EXPECT_EQ(picked[1], before[1 * 10 + 9]);
  }
}

} // namespace
