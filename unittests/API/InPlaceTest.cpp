//===- InPlaceTest.cpp - can_mut, in-place updates and memory -------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// can_mut() promises that an in-place op may write the buffer; these tests
// hold it to that promise by watching the storage address and the Flex
// allocator's peak, and check that a long loop of temporaries keeps memory
// bounded.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

using namespace kiln;

namespace {

DispatchDevice flexDevice() { return DispatchDevice::flex(); }

/// Host address of the tensor's storage (materializes). The BackendTensor
/// is dropped at once so that it does not count as another owner.
const void *storageOf(const Tensor &t) {
  return t.try_into_backend<Flex>().storage.get();
}
const void *dataOf(const Tensor &t) {
  return t.try_into_backend<Flex>().data();
}

/// A freshly computed [n] f32 tensor, held by the one returned handle.
Tensor fresh(int64_t n, double value = 1) {
  Tensor t = Tensor::full({n}, value, DType::F32, flexDevice()) +
             Tensor::arange(n, DType::F32, flexDevice());
  t.sync();
  return t;
}

TEST(InPlaceTest, CanMutFollowsOwnership) {
  Tensor t = fresh(16);
  EXPECT_TRUE(t.can_mut());
  {
    Tensor copy = t;
    EXPECT_FALSE(t.can_mut());
    EXPECT_FALSE(copy.can_mut());
  }
  EXPECT_TRUE(t.can_mut()) << "the copy is gone";
  {
    Tensor view = t.slice({2}, {10});
    view.sync();
    EXPECT_FALSE(t.can_mut()) << "a view shares the storage";
    EXPECT_FALSE(view.can_mut());
  }
  EXPECT_TRUE(t.can_mut());
  {
    Tensor pendingUser = t * 2.0; // not run yet, but will read t
    EXPECT_FALSE(t.can_mut());
  }
  {
    BackendTensor bt = t.try_into_backend<Flex>();
    EXPECT_FALSE(t.can_mut()) << "the backend tensor owns the storage too";
  }
  EXPECT_TRUE(t.can_mut());
  EXPECT_FALSE((t * 3.0).can_mut()) << "pending";
  Tensor empty;
  EXPECT_FALSE(empty.can_mut());
}

TEST(InPlaceTest, CanMutIsFalseForViewsTheKernelsCannotWrite) {
  // A broadcast (full is one element seen with stride 0) and a transpose
  // each own their storage alone, but an in-place op cannot write them.
  Tensor z = Tensor::zeros({4, 4}, DType::F32, flexDevice());
  z.sync();
  EXPECT_FALSE(z.can_mut());
  Tensor t = fresh(16).reshape({4, 4}).transpose();
  t.sync();
  EXPECT_FALSE(t.can_mut());
}

TEST(InPlaceTest, AddInPlaceWritesTheSameStorage) {
  const int64_t n = 1 << 18; // 1 MiB of f32
  Tensor t = fresh(n);
  Tensor one = Tensor::ones({n}, DType::F32, flexDevice());
  ASSERT_TRUE(t.can_mut());
  const void *before = storageOf(t);
  const void *data = dataOf(t);
  ASSERT_TRUE(t.can_mut());
  MemoryStats m0 = memoryStats(flexDevice());
  resetPeakMemory(flexDevice());
  t.addInPlace(one);
  // A rank-0 operand: one*2.0 would be a full-size temporary of its own.
  t.mulInPlace(Tensor::scalar(2, DType::F32, flexDevice()));
  t.subInPlace(one);
  t.sync();
  EXPECT_EQ(storageOf(t), before);
  EXPECT_EQ(dataOf(t), data);
  MemoryStats m1 = memoryStats(flexDevice());
  EXPECT_LT(m1.peakBytes - m0.currentBytes, n * 4)
      << "a second buffer of the tensor's size was allocated";
  std::vector<float> v = t.toVector<float>();
  EXPECT_EQ(v[0], 3.0f);   // ((1 + 0) + 1) * 2 - 1
  EXPECT_EQ(v[10], 23.0f); // ((1 + 10) + 1) * 2 - 1
  EXPECT_TRUE(t.can_mut());
}

TEST(InPlaceTest, LargeBuffersStartOnAHugePageBoundary) {
  // 3 MiB: on a 2 MiB boundary (huge pages), and counted at its own size,
  // not rounded up to the next 2 MiB.
  MemoryStats m0 = memoryStats(flexDevice());
  Tensor big = fresh(3 << 18);
  MemoryStats m1 = memoryStats(flexDevice());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(dataOf(big)) % (2 << 20), 0u);
  EXPECT_EQ(m1.currentBytes - m0.currentBytes, 3 << 20);
  // Small ones on a cache line.
  Tensor small = fresh(100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(dataOf(small)) % 64, 0u);
  EXPECT_EQ(big.toVector<float>()[(3 << 18) - 1], float(3 << 18));
}

TEST(InPlaceTest, InPlaceOnASharedTensorCopies) {
  Tensor t = fresh(64);
  Tensor other = t;
  const void *before = storageOf(t);
  t.addInPlace(Tensor::ones({64}, DType::F32, flexDevice()));
  t.sync();
  EXPECT_NE(storageOf(t), before);
  EXPECT_EQ(other.toVector<float>()[5], 6.0f) << "the other handle is intact";
  EXPECT_EQ(t.toVector<float>()[5], 7.0f);
}

TEST(InPlaceTest, SliceAssignInPlaceWritesTheSameStorage) {
  const int64_t n = 1 << 18;
  Tensor t = fresh(n).reshape({512, 512});
  t.sync();
  ASSERT_TRUE(t.can_mut());
  const void *before = storageOf(t);
  Tensor patch = Tensor::full({2, 3}, -1, DType::F32, flexDevice());
  MemoryStats m0 = memoryStats(flexDevice());
  resetPeakMemory(flexDevice());
  t.sliceAssignInPlace(patch, {10, 4}, {12, 10}, {1, 2});
  t.sync();
  EXPECT_EQ(storageOf(t), before);
  EXPECT_LT(memoryStats(flexDevice()).peakBytes - m0.currentBytes, n * 4);
  std::vector<float> v = t.toVector<float>();
  EXPECT_EQ(v[10 * 512 + 4], -1.0f);
  EXPECT_EQ(v[10 * 512 + 5], 1.0f + 10 * 512 + 5);
  EXPECT_EQ(v[11 * 512 + 8], -1.0f);
  EXPECT_EQ(v[12 * 512 + 4], 1.0f + 12 * 512 + 4);
}

/// 256 iterations of 4 MiB temporaries through a few ops, each materialized:
/// 1 GiB allocated in total, but never more than a few buffers alive.
TEST(InPlaceTest, TemporariesInALoopKeepThePeakBounded) {
  const int64_t n = 1 << 20; // 4 MiB of f32
  Tensor acc = Tensor::zeros({n}, DType::F32, flexDevice()) + 0.0;
  acc.sync();
  MemoryStats m0 = memoryStats(flexDevice());
  resetPeakMemory(flexDevice());
  for (int i = 0; i < 256; ++i) {
    Tensor x = Tensor::full({n}, i % 3, DType::F32, flexDevice());
    Tensor y = relu(x * 2.0 - 1.0) + 0.5;
    y.sync();
    acc.addInPlace(y.slice({0}, {n}, {1}));
    acc.sync();
  }
  MemoryStats m1 = memoryStats(flexDevice());
  EXPECT_GT(m1.allocations - m0.allocations, 256);
  EXPECT_LT(m1.peakBytes - m0.currentBytes, int64_t(64) << 20);
  EXPECT_LE(m1.currentBytes, m0.currentBytes + 64);
  // 256 steps: values 0, 1, 2 give 0.5, 1.5, 3.5.
  EXPECT_FLOAT_EQ(acc.toVector<float>()[7], 86 * 0.5f + 85 * 1.5f + 85 * 3.5f);
}

} // namespace
