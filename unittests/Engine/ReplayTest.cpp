//===- ReplayTest.cpp - Running a recorded step again ---------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A decoding loop records its step once and then runs its executable again
// on new inputs: the results must be those of recording the step anew,
// nothing may compile or be looked up, inputs the caller keeps must come
// back untouched, and a wrong input is an error that names it.
//
//===----------------------------------------------------------------------===//

#include "ErrorMessage.h"
#include "HostDevices.h"
#include "kiln/Engine/Devices.h"
#include "kiln/Engine/Engine.h"
#include "kiln/Kiln.h"

#include <gtest/gtest.h>

using namespace kiln;
using namespace kiln::detail;
using kiln::test::errorMessage;
using kiln::test::hostDevices;

namespace {

const NodePtr &node(const DispatchTensor &t) { return t.kind.node; }

/// The materialized buffer of `values` on `dev`.
Buffer bufferOf(const std::vector<float> &values, const DispatchDevice &dev) {
  DispatchTensor t = DispatchTensor::fromVector<float>(
      values, {static_cast<int64_t>(values.size())}, dev);
  t.sync();
  return *node(t)->buffer;
}

std::vector<float> valuesOf(const Buffer &b, const DispatchDevice &dev) {
  return DispatchTensor(leafOver(b, dev.kind(), dev.index())).toVector<float>();
}

TEST(ReplayTest, ARecordedStepRunsAgainOnNewInputsWithoutCompiling) {
  for (const DispatchDevice &dev : hostDevices()) {
    SCOPED_TRACE(dev.str());
    DispatchTensor x = DispatchTensor::fromVector<float>({1, 2, 3}, {3}, dev);
    DispatchTensor s = DispatchTensor::fromVector<float>({2}, {1}, dev);
    // A leaf that is not an input (a weight) keeps its first buffer.
    DispatchTensor w =
        DispatchTensor::fromVector<float>({10, 20, 30}, {3}, dev);
    kiln::sync({x, s, w});
    DispatchTensor y = x * s + w, z = (x - 1.0).sum();
    Replay step({node(y), node(z)}, {node(x), node(s)});
    EXPECT_EQ(y.toVector<float>(), (std::vector<float>{12, 24, 36}));
    EXPECT_EQ(z.toVector<float>(), (std::vector<float>{3}));

    BackendCounters before = backendCounters(dev);
    Buffer kept = bufferOf({4, 5, 6}, dev);
    std::vector<Buffer> out =
        step.run({kept, bufferOf({-1}, dev)}, {false, true});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(valuesOf(out[0], dev), (std::vector<float>{6, 15, 24}));
    EXPECT_EQ(valuesOf(out[1], dev), (std::vector<float>{12}));
    // An input the caller keeps is read, never written.
    EXPECT_EQ(valuesOf(kept, dev), (std::vector<float>{4, 5, 6}));
    BackendCounters after = backendCounters(dev);
    EXPECT_EQ(after.compiles, before.compiles);
    EXPECT_EQ(after.cacheHits, before.cacheHits);
    EXPECT_EQ(after.materializations, before.materializations + 1);
  }
}

TEST(ReplayTest, AGivenUpInputMayHoldAResult) {
  DispatchDevice dev = DispatchDevice::cpu();
  DispatchTensor x = DispatchTensor::fromVector<float>({1, 2, 3, 4}, {4}, dev);
  x.sync();
  DispatchTensor y = x * 2.0 + 1.0;
  Replay step({node(y)}, {node(x)});
  Buffer in = bufferOf({5, 6, 7, 8}, dev);
  void *data = in.storage->data;
  std::vector<Buffer> inputs; // moved in: an initializer list would copy
  inputs.push_back(std::move(in));
  std::vector<Buffer> out = step.run(std::move(inputs), {true});
  EXPECT_EQ(valuesOf(out[0], dev), (std::vector<float>{11, 13, 15, 17}));
  EXPECT_EQ(out[0].storage->data, data);
}

TEST(ReplayTest, WrongInputsAndOutputsAreErrors) {
  DispatchDevice dev = DispatchDevice::cpu();
  DispatchTensor x = DispatchTensor::fromVector<float>({1, 2, 3}, {3}, dev);
  x.sync();
  DispatchTensor y = x + 1.0;
  EXPECT_EQ(errorMessage([&] { Replay({node(x)}, {}); }),
            "replay: the outputs of a replayed step must be distinct tensors "
            "computed by it");
  EXPECT_EQ(errorMessage([&] { Replay({node(y)}, {node(y)}); }),
            "replay: the inputs of a replayed step must be materialized "
            "tensors");
  Replay step({node(y)}, {node(x)});
  EXPECT_EQ(errorMessage([&] {
              step.run({bufferOf({1, 2, 3, 4}, dev)}, {false});
            }),
            "replay: input 0 is f32[4], but the step was recorded with f32[3]");
  EXPECT_EQ(errorMessage([&] { step.run({}, {}); }),
            "replay: the step was recorded with 1 inputs, not 0");
}

} // namespace
