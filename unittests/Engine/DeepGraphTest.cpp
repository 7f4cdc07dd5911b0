//===- DeepGraphTest.cpp - Very long chains of ops ------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A graph is a chain of nodes that own their inputs: releasing one, walking
// it and compiling it must neither recurse once per node (the stack
// overflowed at 150k-200k nodes) nor take time that grows faster than the
// chain (20,000 adds on Cpu did not finish in ten minutes: one kernel per
// chain made LLVM's time grow with its square).
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

using namespace kiln;

namespace {

Tensor chain(Tensor x, int n) {
  for (int i = 0; i < n; ++i)
    x = x + 1.0;
  return x;
}

TEST(DeepGraphTest, DroppingAnUnmaterializedChainDoesNotRecurse) {
  Tensor x = Tensor::zeros({4}, DType::F32, DispatchDevice::flex());
  {
    Tensor y = chain(x, 200000);
    EXPECT_EQ(y.shape(), Shape({4}));
  } // the whole chain is released here
  SUCCEED();
}

TEST(DeepGraphTest, FlexRunsALongChain) {
  Tensor x = Tensor::zeros({4}, DType::F32, DispatchDevice::flex());
  Tensor y = chain(x, 150000);
  for (float v : y.toVector<float>())
    EXPECT_FLOAT_EQ(v, 150000.0f);
}

TEST(DeepGraphTest, CpuCompilesALongChainInKernelsOfBoundedSize) {
  Tensor x = Tensor::zeros({64}, DType::F32, DispatchDevice::cpu());
  Tensor y = chain(x, 20000);
  for (float e : y.toVector<float>())
    EXPECT_FLOAT_EQ(e, 20000.0f);
}

} // namespace
