//===- RankZeroTest.cpp - Gradients of graphs of scalars ------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Rules that reduce a gradient over the axes an op added or broadcast must
// build nothing when there are none: a sum over no axes is not an op, and
// building one aborted the process from inside MLIR.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

using namespace kiln;

namespace {

TEST(RankZeroTest, GradientsOfScalarGraphs) {
  for (const DispatchDevice &dev :
       {DispatchDevice::flex(), DispatchDevice::cpu()}) {
    SCOPED_TRACE(dev.str());
    auto ad = DispatchDevice::autodiff(dev, CheckpointingStrategy::Balanced);
    DispatchTensor x = DispatchTensor::scalar(3.0, DType::F64, ad);
    // repeat with no repeats, max over every (no) axis, a broadcast against
    // another scalar: each is the identity on a scalar.
    DispatchTensor y = repeat(x, {}) * max(x) + x * 2.0;
    Gradients g = backward(y * y);
    // y = x^2 + 2x = 15 at x = 3, and d(y^2)/dx = 2y (2x + 2).
    EXPECT_DOUBLE_EQ(y.item<double>(), 15.0);
    EXPECT_DOUBLE_EQ(g.get(x).item<double>(), 2 * 15.0 * 8.0);
  }
}

// A value recorded under NoGradGuard from a tracked one is a constant to
// backward: d/dx sum(x * (3x)) with 3x computed without gradients is 3x,
// not 6x, on every backend, pending or materialized.
TEST(RankZeroTest, NoGradValuesStopGradients) {
  for (const DispatchDevice &dev :
       {DispatchDevice::flex(), DispatchDevice::cpu()}) {
    SCOPED_TRACE(dev.str());
    auto ad = DispatchDevice::autodiff(dev, CheckpointingStrategy::Balanced);
    DispatchTensor x =
        DispatchTensor::fromVector<double>({1.0, 2.0}, {2}, ad);
    DispatchTensor y;
    {
      NoGradGuard guard;
      y = x * 3.0;
    }
    EXPECT_FALSE(y.checkpointing.has_value());
    Gradients g = backward(sum(x * y));
    EXPECT_EQ(g.get(x).toVector<double>(), (std::vector<double>{3.0, 6.0}));
    // Outside the guard the same product is differentiated through.
    Gradients h = backward(sum(x * (x * 3.0)));
    EXPECT_EQ(h.get(x).toVector<double>(), (std::vector<double>{6.0, 12.0}));
  }
}

} // namespace
