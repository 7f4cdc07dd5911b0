//===- MpiCommunicatorTest.cpp - Collectives over Open MPI ----------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Run by ctest under `mpiexec -n 2` (as root: --allow-run-as-root
// --oversubscribe, and OMPI_MCA_btl_vader_single_copy_mechanism=none in a
// container). Every rank runs every test; results are compared across the
// ranks by broadcasting rank 0's bits.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Communicator.h"
#include "kiln/Support/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace kiln;
using namespace kiln::distributed;

namespace {

Communicator &comm() {
  static std::unique_ptr<Communicator> c =
      mpiCommunicator(std::chrono::seconds(60));
  return *c;
}

std::vector<float> valuesOf(int rank, int64_t count) {
  std::vector<float> v(count);
  for (int64_t i = 0; i < count; ++i)
    v[i] = static_cast<float>(std::sin(0.37 * i + rank) *
                              std::pow(10.0, rank % 3));
  return v;
}

/// Whether `v` has the same bits on every rank.
template <typename T> bool sameOnEveryRank(const std::vector<T> &v) {
  std::vector<T> first = v;
  comm().broadcast(first.data(), first.size() * sizeof(T), 0);
  return std::memcmp(first.data(), v.data(), v.size() * sizeof(T)) == 0;
}

TEST(MpiCommunicatorTest, TheLauncherStartedTwoRanks) {
  EXPECT_TRUE(launchedByMpi());
  EXPECT_EQ(comm().size(), 2);
  EXPECT_EQ(comm().backendName(), "mpi");
  std::vector<int32_t> rank = {comm().rank()};
  comm().allReduce(rank.data(), 1, DType::I32, ReduceOp::Sum);
  EXPECT_EQ(rank[0], 1) << "ranks 0 and 1";
}

TEST(MpiCommunicatorTest, SumAndMeanAreTheSameOnEveryRank) {
  int n = comm().size();
  for (int64_t count : {int64_t(0), int64_t(1), int64_t(1001)}) {
    std::vector<float> sum = valuesOf(comm().rank(), count);
    comm().allReduce(sum.data(), count, DType::F32, ReduceOp::Sum);
    std::vector<double> mean(count);
    for (int64_t i = 0; i < count; ++i)
      mean[i] = valuesOf(comm().rank(), count)[i];
    comm().allReduce(mean.data(), count, DType::F64, ReduceOp::Mean);
    for (int64_t i = 0; i < count; ++i) {
      double want = 0;
      for (int r = 0; r < n; ++r)
        want += valuesOf(r, count)[i];
      ASSERT_NEAR(sum[i], want, 1e-6 * (1 + std::fabs(want))) << i;
      ASSERT_NEAR(mean[i], want / n, 1e-12 * (1 + std::fabs(want))) << i;
    }
    EXPECT_TRUE(sameOnEveryRank(sum));
    EXPECT_TRUE(sameOnEveryRank(mean));
  }
}

TEST(MpiCommunicatorTest, BroadcastFromTheLastRank) {
  int root = comm().size() - 1;
  std::vector<float> v = valuesOf(comm().rank(), 300);
  comm().broadcast(v.data(), v.size() * sizeof(float), root);
  EXPECT_EQ(v, valuesOf(root, 300));
  comm().barrier();
}

TEST(MpiCommunicatorTest, RanksOutOfStepFailAlikeAndTheJobGoesOn) {
  std::vector<float> v(16, 1.0f);
  int64_t count = comm().rank() == 0 ? 16 : 12;
  try {
    comm().allReduce(v.data(), count, DType::F32, ReduceOp::Sum);
    FAIL() << "ranks with different counts exchanged data";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "the ranks called different collectives: their count or "
                  "bytes (12 to 16) differ"),
              std::string::npos)
        << e.what();
  }
  std::vector<float> ok(4, 2.0f);
  comm().allReduce(ok.data(), 4, DType::F32, ReduceOp::Sum);
  EXPECT_EQ(ok, std::vector<float>(4, 4.0f));
}

TEST(MpiCommunicatorTest, InvalidCallsFailOnEveryRank) {
  std::vector<int8_t> bytes(4, 1);
  try {
    comm().allReduce(bytes.data(), 4, DType::I8, ReduceOp::Sum);
    FAIL() << "an i8 sum ran";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(
                  "allReduce sums f64, f32, i64 or i32 values, not i8"),
              std::string::npos)
        << e.what();
  }
  float x = 0;
  EXPECT_THROW(comm().broadcast(&x, sizeof x, 7), Error);
  EXPECT_THROW(mpiCommunicator(), Error) << "a second MPI communicator";
  comm().barrier();
}

} // namespace
