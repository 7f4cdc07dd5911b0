//===- NcclTest.cpp - NCCL for Cuda collectives, loaded at run time -------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// What of the NCCL path holds without a GPU: loading the library (or
// saying why it cannot be), its version and types, the job's unique id, and
// the errors every rank gets when the job's communicator cannot be made.
// The collectives themselves run in CudaDataParallelTest, on a GPU.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"
#include "lib/Runtime/Cuda/Nccl.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <thread>

using namespace kiln;
using namespace kiln::detail::cuda;

namespace {

TEST(Nccl, AMissingLibrarySaysWhich) {
  NcclStatus s = loadNccl("libkiln-no-such-nccl.so.2");
  EXPECT_EQ(s.api, nullptr);
  EXPECT_EQ(s.reason, "no NCCL (libkiln-no-such-nccl.so.2 not found)");
}

TEST(Nccl, ALibraryThatIsNotNcclSaysSo) {
  NcclStatus s = loadNccl("libm.so.6");
  EXPECT_EQ(s.api, nullptr);
  EXPECT_EQ(s.reason, "libm.so.6 is not NCCL: it has no ncclGetVersion");
}

TEST(Nccl, VersionsAndTypes) {
  EXPECT_EQ(ncclVersionText(22809), "2.28.9");
  EXPECT_EQ(ncclVersionText(21000), "2.10.0");
  EXPECT_EQ(ncclVersionText(2804), "2.8.4");
  // NCCL's ncclDataType_t values.
  EXPECT_EQ(ncclDataType(DType(DTypeKind::F32)), 7);
  EXPECT_EQ(ncclDataType(DType(DTypeKind::F64)), 8);
  EXPECT_EQ(ncclDataType(DType(DTypeKind::I32)), 2);
  EXPECT_EQ(ncclDataType(DType(DTypeKind::I64)), 4);
  EXPECT_EQ(ncclDataType(DType(DTypeKind::F16)), 6);
  EXPECT_EQ(ncclDataType(DType(DTypeKind::BF16)), 9);
  EXPECT_EQ(ncclDataType(DType(DTypeKind::Bool)), -1);
}

/// The process's NCCL, or a skip that says why there is none.
#define REQUIRE_NCCL()                                                         \
  const NcclStatus &n = nccl();                                                \
  if (!n.api)                                                                  \
  GTEST_SKIP() << "no usable NCCL: " << n.reason

TEST(Nccl, TheInstalledNcclLoadsAndMakesIds) {
  REQUIRE_NCCL();
  EXPECT_GE(n.version, kMinNcclVersion) << n.library;
  EXPECT_TRUE(n.reason.empty());
  // The unique id needs no GPU: it names the bootstrap's socket.
  NcclUniqueId a, b;
  std::memset(&a, 0, sizeof a);
  std::memset(&b, 0, sizeof b);
  ASSERT_EQ(n.api->getUniqueId(&a), kNcclSuccess);
  ASSERT_EQ(n.api->getUniqueId(&b), kNcclSuccess);
  NcclUniqueId zero;
  std::memset(&zero, 0, sizeof zero);
  EXPECT_NE(std::memcmp(&a, &zero, sizeof a), 0);
  EXPECT_NE(std::memcmp(&a, &b, sizeof a), 0);
}

/// Every rank of an in-process job makes its NCCL communicator on GPU
/// `device`; the messages they fail with (empty where one succeeded).
std::vector<std::string> joinAll(int ranks, int device) {
  distributed::InProcessWorld world(ranks, std::chrono::seconds(20));
  std::vector<std::string> errors(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      auto comm = world.communicator(r);
      try {
        NcclCommunicator nc(*comm, device);
      } catch (const Error &e) {
        errors[r] = e.what();
      }
    });
  for (std::thread &t : threads)
    t.join();
  return errors;
}

TEST(Nccl, WithoutAGpuEveryRankFailsWithTheReason) {
  REQUIRE_NCCL();
  const DriverStatus &d = driver();
  if (d.api)
    GTEST_SKIP() << "a CUDA GPU is present";
  std::vector<std::string> errors = joinAll(2, 0);
  std::string want = "nccl: rank 0 could not start the job's communicator: "
                     "device cuda:0 is not available: " +
                     d.reason;
  EXPECT_EQ(errors[0], want);
  EXPECT_EQ(errors[1], want);
}

TEST(Nccl, AGpuThatDoesNotExistFailsEveryRank) {
  REQUIRE_NCCL();
  const DriverStatus &d = driver();
  if (!d.api)
    GTEST_SKIP() << "no CUDA GPU: " << d.reason;
  std::vector<std::string> errors = joinAll(2, d.deviceCount);
  std::string want = "nccl: rank 0 could not start the job's communicator: "
                     "device cuda:" +
                     std::to_string(d.deviceCount) + " does not exist on rank 0";
  EXPECT_EQ(errors[0], want);
  EXPECT_EQ(errors[1], want);
}

// A missing NCCL is an error that says what to do; the library is loaded
// once per process, so a fresh process (a death test) asks for another.
TEST(NcclDeathTest, AMissingNcclIsAClearErrorOnEveryRank) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("KILN_NCCL_LIBRARY", "libkiln-no-such-nccl.so.2", 1);
        std::vector<std::string> errors = joinAll(1, 0);
        std::fprintf(stderr, "%s\n", errors[0].c_str());
        std::exit(errors[0].empty() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0),
      "nccl: no NCCL \\(libkiln-no-such-nccl.so.2 not found\\); Cuda "
      "collectives need NCCL 2.10 or later \\(KILN_NCCL_LIBRARY names the "
      "library\\)");
}

} // namespace
