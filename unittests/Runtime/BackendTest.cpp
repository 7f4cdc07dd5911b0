//===- BackendTest.cpp - The runtime on its own ---------------------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The backends as the engine sees them, with nothing of the engine or the
// API linked: data goes up to a device and comes back, the allocator
// counts it, and a missing GPU is a clear error.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Backend.h"
#include "kiln/Runtime/KernelCache.h"
#include "kiln/Runtime/ThreadPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

using namespace kiln;
using namespace kiln::detail;

namespace {

TEST(BackendTest, HostBackendsRoundTripData) {
  for (DeviceKind kind : {DeviceKind::Flex, DeviceKind::Cpu}) {
    Backend &b = getBackend(kind, 0);
    int64_t before = b.allocator().stats().currentBytes;
    std::vector<float> in = {1, -2, 3.5f, 0, 7, 8};
    {
      Buffer buf = b.upload(DType::F32, {2, 3}, in.data());
      EXPECT_EQ(buf.numel(), 6);
      EXPECT_TRUE(buf.isContiguous());
      EXPECT_GE(b.allocator().stats().currentBytes, before + 24);
      std::vector<float> out(6, -1);
      b.download(buf, out.data());
      EXPECT_EQ(out, in) << b.name();
    }
    EXPECT_EQ(b.allocator().stats().currentBytes, before) << b.name();
  }
}

TEST(BackendTest, AStridedViewDownloadsInRowMajorOrder) {
  Backend &b = getBackend(DeviceKind::Flex, 0);
  std::vector<int32_t> in = {0, 1, 2, 3, 4, 5};
  Buffer buf = b.upload(DType::I32, {2, 3}, in.data());
  // The transpose as a view: shape [3, 2], strides [1, 3].
  buf.shape = {3, 2};
  buf.strides = {1, 3};
  std::vector<int32_t> out(6);
  b.download(buf, out.data());
  EXPECT_EQ(out, (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
}

/// The element of `v` at row-major position `i`, read by its strides.
template <typename T>
T elementAt(const std::vector<T> &stored, const Buffer &v, int64_t i) {
  int64_t off = v.offset;
  for (int d = v.rank() - 1; d >= 0; --d) {
    off += (i % v.shape[d]) * v.strides[d];
    i /= v.shape[d];
  }
  return stored[off];
}

template <typename T> void checkViewsDownload(DType dtype) {
  Backend &b = getBackend(DeviceKind::Flex, 0);
  struct View {
    const char *what;
    std::vector<int64_t> stored, shape, strides;
    int64_t offset;
  };
  const View views[] = {
      // A convolution's input gradient reads the kernel with its in and
      // out channels swapped and its taps reversed.
      {"flipped and transposed",
       {4, 3, 3, 3},
       {3, 4, 3, 3},
       {9, 27, -3, -1},
       8},
      // The same with rows far apart in memory.
      {"flipped and transposed, many channels",
       {20, 120, 3, 3},
       {120, 20, 3, 3},
       {9, 1080, -3, -1},
       8},
      {"reversed rows", {4, 3, 3, 3}, {4, 3, 9}, {27, 9, -1}, 8},
      {"every other element", {4, 3, 3, 3}, {4, 3, 5}, {27, 9, 2}, 0},
      {"a broadcast dim", {4, 3, 3, 3}, {2, 4, 3}, {0, 27, 1}, 4},
      {"a single column", {4, 3, 3, 3}, {4, 1, 3}, {27, 1, 9}, 2},
      {"rows of a product's columns",
       {8, 32, 16},
       {32, 8, 16},
       {16, 512, 1},
       0},
  };
  for (const View &v : views) {
    int64_t n = 1;
    for (int64_t d : v.stored)
      n *= d;
    std::vector<T> in(n);
    for (int64_t i = 0; i < n; ++i)
      in[i] = static_cast<T>(i % 120);
    Buffer view = b.upload(dtype, v.stored, in.data());
    view.shape = v.shape;
    view.strides = v.strides;
    view.offset = v.offset;
    std::vector<T> out(view.numel());
    b.download(view, out.data());
    for (int64_t i = 0; i < view.numel(); ++i)
      ASSERT_EQ(out[i], elementAt(in, view, i))
          << v.what << ", " << dtype.str() << ", element " << i;
  }
}

TEST(BackendTest, ReversedAndStridedViewsDownloadInRowMajorOrder) {
  checkViewsDownload<int8_t>(DType::I8);
  checkViewsDownload<int16_t>(DType::I16);
  checkViewsDownload<float>(DType::F32);
  checkViewsDownload<int64_t>(DType::I64);
}

TEST(BackendTest, NoGpuIsAClearError) {
  try {
    getBackend(DeviceKind::Cuda, 0);
    GTEST_SKIP() << "a GPU is usable here";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos)
        << e.what();
  }
}

TEST(BackendTest, ParallelForCoversEveryUnitOnce) {
  std::vector<std::atomic<int>> hits(10000);
  parallelFor(10000, 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      hits[i].fetch_add(1);
  });
  for (auto &h : hits)
    ASSERT_EQ(h.load(), 1);
}

TEST(BackendTest, KernelCacheNamesEntriesByTheirKey) {
  EXPECT_EQ(kernelcache::hashOf("a").size(), 16u);
  EXPECT_NE(kernelcache::hashOf("a"), kernelcache::hashOf("b"));
  EXPECT_EQ(kernelcache::hashOf("a"), kernelcache::hashOf("a"));
}

} // namespace
