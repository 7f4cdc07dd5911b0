//===- DataParallelMpiTest.cpp - The GPT step on two MPI ranks ------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Run by mpiexec -n 2 (the ctest mpi.DataParallelTwoRanks): the data-parallel
// GPT step of DistributedTest.cpp with the MPI communicator. Both ranks end
// with the same bits, which match one rank of the whole batch (run by each
// process on its own, in a job of one in-process rank) within 1e-5.
//
//===----------------------------------------------------------------------===//

#include "DataParallel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace kiln;
using namespace kiln::test;

namespace {

class MpiJob : public ::testing::Environment {
public:
  void SetUp() override { ASSERT_TRUE(dist::init(std::chrono::seconds(120))); }
  void TearDown() override { dist::finalize(); }
};

/// Whether `v` has rank 0's bits on this rank.
bool sameAsRankZero(std::vector<float> v) {
  DispatchTensor mine = DispatchTensor::fromVector<float>(
      v, {int64_t(v.size())}, DispatchDevice::flex());
  std::vector<DispatchTensor *> one = {&mine};
  dist::broadcastParameters(one);
  std::vector<float> first = mine.toVector<float>();
  return std::memcmp(first.data(), v.data(), v.size() * sizeof(float)) == 0;
}

TEST(DataParallelMpiTest, TwoRanksMatchOneRankOfTheWholeBatch) {
  ASSERT_EQ(dist::size(), 2);
  for (DispatchDevice base : {DispatchDevice::cpu(), DispatchDevice::flex()}) {
    SCOPED_TRACE(base.str());
    StepResult mpi = dataParallelStep(base, 8, /*steps=*/2, /*sgd=*/true);
    EXPECT_TRUE(sameAsRankZero(mpi.params));
    StepResult one;
    dist::runInProcess(1,
                       [&](int) { one = dataParallelStep(base, 8, 2, true); });
    EXPECT_NEAR(mpi.loss, one.loss, 1e-5 * std::fabs(one.loss));
    float scale = 0;
    for (float v : one.params)
      scale = std::max(scale, std::fabs(v));
    ASSERT_EQ(mpi.params.size(), one.params.size());
    for (size_t i = 0; i < one.params.size(); ++i)
      ASSERT_NEAR(mpi.params[i], one.params[i], 1e-5 * scale) << "at " << i;
  }
}

} // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new MpiJob);
  return RUN_ALL_TESTS();
}
