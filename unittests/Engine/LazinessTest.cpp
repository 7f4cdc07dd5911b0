//===- LazinessTest.cpp - Nothing runs until a value is needed ------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Flex counts every op it runs (backendCounters().executedOps). Recording
// ops and reading metadata must leave the count alone; each materialization
// point of the design (toVector, item, printing, sync, kiln::sync, to,
// try_into_backend, DispatchDevice::sync) must move it. A repeated graph
// must come from the executable cache.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <functional>
#include <sstream>

using namespace kiln;

namespace {

DispatchDevice flexDevice() { return DispatchDevice::flex(); }

int64_t executed() { return backendCounters(flexDevice()).executedOps; }

/// A pending graph of a few dozen ops, rebuilt identically on each call.
Tensor pendingGraph(float offset = 1) {
  DispatchDevice flex = flexDevice();
  Tensor a = Tensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, flex);
  Tensor b = Tensor::full({3}, 0.5, DType::F32, flex);
  Tensor x = exp(a * b + offset);
  for (int i = 0; i < 10; ++i)
    x = sigmoid(x) * 2.0 - x.softmax(1);
  return concat({x.transpose().reshape({6}), x.flatten()}, 0).cast(DType::F64);
}

TEST(LazinessTest, RecordingAndMetadataRunNothing) {
  int64_t before = executed();
  BackendCounters c0 = backendCounters(flexDevice());
  Tensor t = pendingGraph();
  Tensor r = Tensor::rand({64, 64}, DType::F32, flexDevice(), 1);
  Tensor m = matmul(r, r.transpose()).sum(1).argmax(0);
  Tensor q = quantize(r, QuantScheme::q8Block(32));
  // Metadata of pending tensors.
  EXPECT_EQ(t.dtype(), DType::F64);
  EXPECT_EQ(t.shape(), Shape({12}));
  EXPECT_EQ(t.rank(), 1u);
  EXPECT_EQ(t.numel(), 12);
  EXPECT_EQ(t.device(), flexDevice());
  EXPECT_EQ(q.scheme(), QuantScheme::q8Block(32));
  EXPECT_FALSE(t.can_mut());
  EXPECT_TRUE(t.isPending());
  EXPECT_TRUE(m.isPending());
  EXPECT_EQ(m.dtype(), DType::I64);
  EXPECT_FALSE(dumpGraph(t).empty());
  EXPECT_EQ(executed(), before);
  BackendCounters c1 = backendCounters(flexDevice());
  EXPECT_EQ(c1.materializations, c0.materializations);
  EXPECT_EQ(c1.compiles, c0.compiles);
}

/// Each materialization point, applied to a fresh pending graph (`t` is
/// rebound when the point reads another tensor computed from it).
struct Point {
  const char *name;
  std::function<void(Tensor &)> run;
};

std::vector<Point> materializationPoints() {
  return {
      {"toVector", [](Tensor &t) { (void)t.toVector<double>(); }},
      {"item",
       [](Tensor &t) {
         t = t.sum(); // the one element that item() reads
         (void)t.item<double>();
       }},
      {"operator<<",
       [](Tensor &t) {
         std::ostringstream os;
         os << t;
         EXPECT_NE(os.str().find("f64[12]"), std::string::npos) << os.str();
       }},
      {"sync", [](Tensor &t) { t.sync(); }},
      {"kiln::sync",
       [](Tensor &t) {
         kiln::sync({t, t * 2.0});
       }},
      {"to", [](Tensor &t) { (void)t.to(DispatchDevice::flex()); }},
      {"try_into_backend", [](Tensor &t) { (void)t.try_into_backend<Flex>(); }},
      {"DispatchDevice::sync", [](Tensor &) { DispatchDevice::flex().sync(); }},
  };
}

void PrintTo(const Point &p, std::ostream *os) { *os << p.name; }

class MaterializationPointTest : public ::testing::TestWithParam<Point> {};

TEST_P(MaterializationPointTest, RunsThePendingGraphOnce) {
  Tensor t = pendingGraph();
  int64_t before = executed();
  GetParam().run(t);
  int64_t after = executed();
  EXPECT_GT(after, before) << GetParam().name << " did not materialize";
  EXPECT_FALSE(t.isPending()) << GetParam().name;
  // Once computed, reading again runs nothing more.
  (void)t.toVector<double>();
  EXPECT_EQ(executed(), after);
}

INSTANTIATE_TEST_SUITE_P(Points, MaterializationPointTest,
                         ::testing::ValuesIn(materializationPoints()),
                         [](const auto &info) {
                           std::string n = info.param.name;
                           for (char &c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return n;
                         });

TEST(LazinessTest, DeviceSyncComputesWhatHandlesHold) {
  Tensor kept = pendingGraph(2);
  Tensor other = exp(Tensor::arange(5, DType::F32, flexDevice()));
  int64_t before = executed();
  DispatchDevice::flex().sync();
  EXPECT_GT(executed(), before);
  EXPECT_FALSE(kept.isPending());
  EXPECT_FALSE(other.isPending());
}

TEST(LazinessTest, RepeatedGraphHitsTheExecutableCache) {
  (void)pendingGraph().toVector<double>(); // compile once
  BackendCounters c0 = backendCounters(flexDevice());
  std::vector<double> first = pendingGraph().toVector<double>();
  BackendCounters c1 = backendCounters(flexDevice());
  EXPECT_EQ(c1.compiles, c0.compiles);
  EXPECT_EQ(c1.cacheHits, c0.cacheHits + 1);
  EXPECT_GT(c1.executedOps, c0.executedOps);
  // Scalars are arguments, not part of the key: another offset shares the
  // executable and still gives its own values.
  std::vector<double> second = pendingGraph(1.5f).toVector<double>();
  BackendCounters c2 = backendCounters(flexDevice());
  EXPECT_EQ(c2.compiles, c1.compiles);
  EXPECT_EQ(c2.cacheHits, c1.cacheHits + 1);
  EXPECT_NE(first, second);
  // A different shape is a different graph.
  (void)exp(Tensor::ones({7}, DType::F32, flexDevice()) * 3.0)
      .toVector<float>();
  (void)exp(Tensor::ones({9}, DType::F32, flexDevice()) * 3.0)
      .toVector<float>();
  EXPECT_GT(backendCounters(flexDevice()).compiles, c2.compiles);
}

TEST(LazinessTest, ErrorsDoNotRunAnything) {
  int64_t before = executed();
  Tensor a = pendingGraph();
  EXPECT_THROW((void)(a + Tensor::zeros({5}, DType::F64, flexDevice())), Error);
  EXPECT_THROW((void)a.toVector<float>(), Error); // wrong element type
  EXPECT_EQ(executed(), before);
}

} // namespace
