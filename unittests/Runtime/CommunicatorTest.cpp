//===- CommunicatorTest.cpp - The in-process world's collectives ----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Ranks as threads: sums and means against a serial sum in rank order,
// bit-identical on every rank; broadcasts; and the failures a job meets (a
// rank that never arrives, ranks that disagree, a dtype that cannot be
// summed), each an error on every rank instead of a hang.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Communicator.h"
#include "kiln/Support/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace kiln;
using namespace kiln::distributed;

namespace {

/// Runs body(communicator) on `ranks` threads and returns each rank's error
/// message (empty where the body returned).
std::vector<std::string>
onRanks(InProcessWorld &world,
        const std::function<void(Communicator &)> &body) {
  int n = world.size();
  std::vector<std::string> errors(n);
  std::vector<std::unique_ptr<Communicator>> comms;
  for (int r = 0; r < n; ++r)
    comms.push_back(world.communicator(r));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      try {
        body(*comms[r]);
      } catch (const Error &e) {
        errors[r] = e.what();
      }
    });
  for (std::thread &t : threads)
    t.join();
  return errors;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

/// Rank r's values: element i is a float that rounding makes sensitive to
/// the order of addition.
std::vector<float> valuesOf(int rank, int64_t count) {
  std::vector<float> v(count);
  for (int64_t i = 0; i < count; ++i)
    v[i] = static_cast<float>(std::sin(0.37 * i + rank) * std::pow(10.0, rank % 3)) +
           1e-3f * static_cast<float>(rank);
  return v;
}

class CommunicatorTest : public ::testing::TestWithParam<int> {};

TEST_P(CommunicatorTest, SumAndMeanAreTheSerialSumOnEveryRank) {
  int n = GetParam();
  // Counts below, at and above the number of ranks, and not a multiple.
  for (int64_t count : {int64_t(0), int64_t(1), int64_t(3), int64_t(1001)}) {
    InProcessWorld world(n);
    std::vector<std::vector<float>> sums(n), means(n);
    auto errors = onRanks(world, [&](Communicator &c) {
      EXPECT_EQ(c.size(), n);
      sums[c.rank()] = valuesOf(c.rank(), count);
      c.allReduce(sums[c.rank()].data(), count, DType::F32, ReduceOp::Sum);
      means[c.rank()] = valuesOf(c.rank(), count);
      c.allReduce(means[c.rank()].data(), count, DType::F32, ReduceOp::Mean);
    });
    for (int r = 0; r < n; ++r)
      ASSERT_EQ(errors[r], "") << "rank " << r;
    for (int64_t i = 0; i < count; ++i) {
      double want = 0;
      for (int r = 0; r < n; ++r)
        want += static_cast<double>(valuesOf(r, count)[i]);
      ASSERT_EQ(sums[0][i], static_cast<float>(want)) << "element " << i;
      ASSERT_EQ(means[0][i], static_cast<float>(want / n)) << "element " << i;
    }
    for (int r = 1; r < n; ++r) {
      ASSERT_EQ(std::memcmp(sums[r].data(), sums[0].data(),
                            count * sizeof(float)),
                0)
          << "rank " << r << "'s sum differs in its bits from rank 0's";
      ASSERT_EQ(std::memcmp(means[r].data(), means[0].data(),
                            count * sizeof(float)),
                0);
    }
  }
}

TEST_P(CommunicatorTest, IntegerAndDoubleSums) {
  int n = GetParam();
  InProcessWorld world(n);
  std::vector<std::vector<int64_t>> i64(n);
  std::vector<std::vector<int32_t>> i32(n);
  std::vector<std::vector<double>> f64(n);
  auto errors = onRanks(world, [&](Communicator &c) {
    int r = c.rank();
    i64[r] = {int64_t(1) << 40, -r, r * 7};
    i32[r] = {r, 1000 * r, -1};
    f64[r] = {0.1 * r, 1e300, -1e-300 * r};
    c.allReduce(i64[r].data(), 3, DType::I64, ReduceOp::Sum);
    c.allReduce(i32[r].data(), 3, DType::I32, ReduceOp::Sum);
    c.allReduce(f64[r].data(), 3, DType::F64, ReduceOp::Sum);
  });
  int64_t ranks = 0;
  for (int r = 0; r < n; ++r) {
    ASSERT_EQ(errors[r], "");
    ranks += r;
  }
  double tenth = 0;
  for (int r = 0; r < n; ++r)
    tenth += 0.1 * r;
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(i64[r], (std::vector<int64_t>{n * (int64_t(1) << 40), -ranks,
                                            7 * ranks}));
    EXPECT_EQ(i32[r], (std::vector<int32_t>{int32_t(ranks),
                                            int32_t(1000 * ranks), -n}));
    EXPECT_EQ(f64[r][0], tenth);
    EXPECT_EQ(f64[r][1], 1e300 * n);
  }
}

TEST_P(CommunicatorTest, BroadcastFromEveryRoot) {
  int n = GetParam();
  for (int root = 0; root < n; ++root) {
    InProcessWorld world(n);
    std::vector<std::vector<float>> got(n);
    auto errors = onRanks(world, [&](Communicator &c) {
      got[c.rank()] = valuesOf(c.rank(), 257);
      c.broadcast(got[c.rank()].data(), 257 * sizeof(float), root);
      c.barrier();
    });
    for (int r = 0; r < n; ++r) {
      ASSERT_EQ(errors[r], "");
      EXPECT_EQ(got[r], valuesOf(root, 257)) << "rank " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, CommunicatorTest, ::testing::Values(1, 2, 4));

TEST(CommunicatorFailureTest, ARankThatNeverArrivesFailsTheOthers) {
  InProcessWorld world(3, std::chrono::milliseconds(300));
  auto start = std::chrono::steady_clock::now();
  std::vector<double> laterSeconds(3, -1);
  auto errors = onRanks(world, [&](Communicator &c) {
    std::vector<float> v(8, 1.0f);
    if (c.rank() == 2)
      return; // dies before the collective
    try {
      c.allReduce(v.data(), 8, DType::F32, ReduceOp::Sum);
    } catch (const Error &) {
      // The world stays stopped: a later collective fails at once.
      auto t0 = std::chrono::steady_clock::now();
      try {
        c.barrier();
      } catch (const Error &) {
      }
      laterSeconds[c.rank()] = secondsSince(t0);
      throw;
    }
  });
  double seconds = secondsSince(start);
  EXPECT_LT(seconds, 10.0) << "the others waited far past the timeout";
  for (int r : {0, 1}) {
    EXPECT_NE(errors[r].find("rank 2 did not arrive within 300 ms"),
              std::string::npos)
        << errors[r];
    EXPECT_GE(laterSeconds[r], 0.0);
    EXPECT_LT(laterSeconds[r], 0.2) << "a later collective waited again";
  }
  EXPECT_NE(errors[0].find("allReduce #1 (sum of 8 f32) on rank 0 failed"),
            std::string::npos)
      << errors[0];
  EXPECT_EQ(errors[2], "");
}

TEST(CommunicatorFailureTest, AbortStopsTheWaitingRanksAtOnce) {
  InProcessWorld world(2, std::chrono::seconds(60));
  auto start = std::chrono::steady_clock::now();
  auto errors = onRanks(world, [&](Communicator &c) {
    if (c.rank() == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      world.abort("rank 1 ran out of memory");
      return;
    }
    c.barrier();
  });
  double seconds = secondsSince(start);
  EXPECT_LT(seconds, 10.0);
  EXPECT_NE(errors[0].find("barrier #1 on rank 0 failed: aborted: rank 1 "
                           "ran out of memory"),
            std::string::npos)
      << errors[0];
}

TEST(CommunicatorFailureTest, RanksThatDisagreeAllFail) {
  InProcessWorld world(2);
  auto errors = onRanks(world, [&](Communicator &c) {
    std::vector<float> v(16, 1.0f);
    c.allReduce(v.data(), c.rank() == 0 ? 16 : 12, DType::F32,
                ReduceOp::Sum);
  });
  for (int r : {0, 1}) {
    EXPECT_NE(errors[r].find("called allReduce #1 (sum of"), std::string::npos)
        << errors[r];
    EXPECT_NE(errors[r].find("12 f32"), std::string::npos) << errors[r];
    EXPECT_NE(errors[r].find("16 f32"), std::string::npos) << errors[r];
  }
  InProcessWorld mixed(2);
  errors = onRanks(mixed, [&](Communicator &c) {
    float x = 1;
    if (c.rank() == 0)
      c.barrier();
    else
      c.broadcast(&x, sizeof x, 0);
  });
  EXPECT_NE(errors[0].find("rank 1 called broadcast #1 (4 bytes from rank 0) "
                           "where rank 0 called barrier #1"),
            std::string::npos)
      << errors[0];
}

TEST(CommunicatorFailureTest, InvalidCallsFailOnEveryRankAndTheWorldGoesOn) {
  InProcessWorld world(2);
  auto errors = onRanks(world, [&](Communicator &c) {
    std::vector<int8_t> bytes(4, 1);
    try {
      c.allReduce(bytes.data(), 4, DType::I8, ReduceOp::Sum);
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find(
                    "allReduce sums f64, f32, i64 or i32 values, not i8"),
                std::string::npos)
          << e.what();
    }
    std::vector<int32_t> ints(2, 1);
    try {
      c.allReduce(ints.data(), 2, DType::I32, ReduceOp::Mean);
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find(
                    "allReduce mean takes f64 or f32 values, not i32"),
                std::string::npos)
          << e.what();
    }
    float x = 0;
    try {
      c.broadcast(&x, sizeof x, 5);
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find("root 5 is not a rank of 2"),
                std::string::npos)
          << e.what();
    }
    // The same world still works.
    std::vector<float> v(3, 1.0f + c.rank());
    c.allReduce(v.data(), 3, DType::F32, ReduceOp::Sum);
    EXPECT_EQ(v, std::vector<float>(3, 3.0f));
  });
  EXPECT_EQ(errors, std::vector<std::string>(2, ""));
}

TEST(CommunicatorFailureTest, WorldsAndRanksAreChecked) {
  EXPECT_THROW(InProcessWorld(0), Error);
  InProcessWorld world(2);
  EXPECT_THROW(world.communicator(2), Error);
  auto c = world.communicator(1);
  try {
    world.communicator(1);
    FAIL() << "a rank's communicator was handed out twice";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("already taken"), std::string::npos);
  }
}

// A collective queue runs its communicator's calls on its own thread, in
// start order, and keeps the records of the latest 4096 only.
TEST(CollectiveQueueTest, RunsInOrderAndKeepsTheLatestRecords) {
  InProcessWorld world(2);
  std::vector<std::vector<double>> sums(2);
  auto errors = onRanks(world, [&](Communicator &c) {
    CollectiveQueue q(c);
    std::vector<std::vector<double>> data(5000, std::vector<double>(2));
    std::vector<PendingCollective> pending;
    for (int i = 0; i < 5000; ++i) {
      data[i] = {double(i), double(c.rank())};
      pending.push_back(q.allReduce(data[i].data(), 2, DType::F64,
                                    ReduceOp::Sum, nullptr));
      if (pending.size() == 8) {
        for (PendingCollective &p : pending)
          p.wait();
        pending.clear();
      }
    }
    for (PendingCollective &p : pending)
      p.wait();
    std::vector<CollectiveEvent> e = q.events();
    ASSERT_EQ(e.size(), 4096u);
    EXPECT_EQ(e.front().seq, 5000 - 4096);
    EXPECT_EQ(e.back().seq, 4999);
    for (size_t i = 1; i < e.size(); ++i)
      ASSERT_LE(e[i - 1].endedMs, e[i].beganMs) << "out of order at " << i;
    EXPECT_EQ(e.back().bytes, 16);
    EXPECT_EQ(e.back().what, "sum of 2 x f64");
    for (int i = 0; i < 5000; ++i)
      sums[c.rank()].push_back(data[i][0] + data[i][1]);
  });
  EXPECT_EQ(errors, std::vector<std::string>(2, ""));
  // Element 0 summed i twice, element 1 the ranks 0 + 1.
  for (int i = 0; i < 5000; ++i)
    ASSERT_EQ(sums[0][i], 2.0 * i + 1.0);
  EXPECT_EQ(sums[0], sums[1]);
}

// A collective that fails on the queue's thread fails its wait.
TEST(CollectiveQueueTest, AFailedCollectiveFailsItsWait) {
  InProcessWorld world(2, std::chrono::milliseconds(200));
  auto comm = world.communicator(0);
  CollectiveQueue q(*comm);
  float x = 1;
  PendingCollective p = q.allReduce(&x, 1, DType::F32, ReduceOp::Sum, nullptr);
  try {
    p.wait();
    FAIL() << "rank 1 never came, yet the all-reduce ended";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("rank 1 did not arrive within 200 ms"),
              std::string::npos)
        << e.what();
  }
}

// What a device backend asks of the queue: a call of the communicator in
// order with the all-reduces (the handshake of NCCL), state kept per queue,
// and records of reductions it runs itself.
TEST(CollectiveQueueTest, RunsCallsInOrderKeepsStateAndRecordsDeviceWork) {
  InProcessWorld world(2);
  std::vector<int> made(2, 0);
  auto errors = onRanks(world, [&](Communicator &c) {
    CollectiveQueue q(c);
    double x = c.rank() + 1;
    PendingCollective p = q.allReduce(&x, 1, DType::F64, ReduceOp::Sum,
                                      nullptr);
    // Runs after the all-reduce, on the queue's thread: x is reduced.
    int root = -1;
    double seen = 0;
    q.runInOrder([&](Communicator &comm) {
      seen = x;
      root = comm.rank() == 0 ? 42 : 0;
      comm.broadcast(&root, sizeof root, 0);
    });
    p.wait();
    EXPECT_EQ(seen, 3.0);
    EXPECT_EQ(root, 42);
    // Its errors reach the caller.
    EXPECT_THROW(q.runInOrder([](Communicator &) { throw Error("no"); }),
                 Error);
    // Made once per queue and key.
    auto make = [&] {
      ++made[c.rank()];
      return std::make_shared<int>(7);
    };
    std::shared_ptr<void> a = q.attachment("k", make);
    EXPECT_EQ(q.attachment("k", make), a);
    EXPECT_NE(q.attachment("other", make), a);
    // A reduction run elsewhere, recorded with the queue's own.
    int64_t seq = q.recordStart(256, DType::F32, ReduceOp::Mean);
    double from = q.nowMs();
    q.recordWait(seq, from, from + 1.5);
    std::vector<CollectiveEvent> e = q.events();
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[1].seq, seq);
    EXPECT_EQ(e[1].seq, e[0].seq + 1);
    EXPECT_EQ(e[1].what, "mean of 256 x f32");
    EXPECT_EQ(e[1].bytes, 1024);
    EXPECT_EQ(e[1].beganMs, e[1].startedMs);
    EXPECT_EQ(e[1].waitedFromMs, from);
    EXPECT_EQ(e[1].waitedToMs, from + 1.5);
    EXPECT_EQ(e[1].endedMs, from + 1.5);
  });
  EXPECT_EQ(errors, std::vector<std::string>(2, ""));
  EXPECT_EQ(made, std::vector<int>(2, 2));
}

// Without Open MPI, or with another library in its place, making the MPI
// communicator is an error that says what to install.
TEST(MpiLoadTest, AMissingOrWrongLibraryIsAnError) {
  auto messageOf = [](const char *library) {
    ::setenv("KILN_MPI_LIBRARY", library, 1);
    std::string m;
    try {
      mpiCommunicator(std::chrono::seconds(5));
    } catch (const Error &e) {
      m = e.what();
    }
    ::unsetenv("KILN_MPI_LIBRARY");
    return m;
  };
  std::string missing = messageOf("/nonexistent/libmpi.so.40");
  EXPECT_NE(missing.find("distributed: cannot load Open MPI "
                         "(/nonexistent/libmpi.so.40)"),
            std::string::npos)
      << missing;
  EXPECT_NE(missing.find("install it (Debian: openmpi-bin libopenmpi-dev)"),
            std::string::npos)
      << missing;
  std::string wrong = messageOf("libm.so.6");
  EXPECT_EQ(wrong, "distributed: libm.so.6 has no MPI_Initialized: Kiln "
                   "loads Open MPI (4.x), not another MPI");
}

} // namespace