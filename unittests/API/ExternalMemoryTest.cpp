//===- ExternalMemoryTest.cpp - Tensors over memory Kiln does not own -----===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// DispatchTensor::fromExternal (what DLPack import uses): the memory is
// read in place on Flex and Cpu (from a copy per run on Cpu when it is not
// 64-byte aligned), never written, never reused for a result, released
// once Kiln no longer refers to it; what Kiln cannot take is an error that
// says why.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

using namespace kiln;

namespace {

struct Block {
  float *data;
  explicit Block(size_t n)
      : data(static_cast<float *>(std::aligned_alloc(64, n * 4))) {}
  ~Block() { std::free(data); }
};

TEST(ExternalMemoryTest, ReadInPlaceNeverWrittenAndReleased) {
  for (const DispatchDevice &dev :
       {DispatchDevice::flex(), DispatchDevice::cpu()}) {
    SCOPED_TRACE(dev.str());
    Block b(32);
    for (int i = 0; i < 32; ++i)
      b.data[i] = float(i);
    int released = 0;
    {
      DispatchTensor t = DispatchTensor::fromExternal(
          DType::F32, {2, 16}, {}, b.data, 128, [&] { ++released; }, dev);
      const void *at = dev.kind() == DeviceKind::Flex
                           ? t.try_into_backend<Flex>().data()
                           : t.try_into_backend<Cpu>().data();
      EXPECT_EQ(at, b.data) << "a copy";
      // A temporary over the memory: the result must not land in it.
      DispatchTensor y =
          DispatchTensor::fromExternal(
              DType::F32, {2, 16}, {}, b.data, 128, [&] { ++released; }, dev) *
              2.0 +
          1.0;
      std::vector<float> got = y.toVector<float>();
      for (int i = 0; i < 32; ++i) {
        EXPECT_EQ(got[i], 2.0f * i + 1.0f);
        EXPECT_EQ(b.data[i], float(i)) << "the external memory was written";
      }
      EXPECT_FALSE(t.can_mut());
      // A transposed view over it reads the right elements.
      DispatchTensor tt = DispatchTensor::fromExternal(
          DType::F32, {16, 2}, {1, 16}, b.data, 128, nullptr, dev);
      EXPECT_EQ((tt + 0.0).toVector<float>()[1], 16.0f);
    }
    EXPECT_EQ(released, 2);
  }
}

// Memory that is not 64-byte aligned (numpy's) or not padded to whole
// lines: Flex reads it in place, the Cpu kernels from a copy per run.
TEST(ExternalMemoryTest, UnalignedMemoryIsReadCorrectly) {
  for (const DispatchDevice &dev :
       {DispatchDevice::flex(), DispatchDevice::cpu()}) {
    SCOPED_TRACE(dev.str());
    Block b(64);
    float *data = b.data + 3; // 12 bytes past a line
    for (int i = 0; i < 37; ++i)
      data[i] = float(i) * 0.5f;
    DispatchTensor t = DispatchTensor::fromExternal(DType::F32, {37}, {}, data,
                                                    37 * 4, nullptr, dev);
    std::vector<float> got = exp(t * 0.1).toVector<float>();
    for (int i = 0; i < 37; ++i)
      EXPECT_FLOAT_EQ(got[i], std::exp(float(i) * 0.05f));
    EXPECT_FLOAT_EQ(sum(t).item<float>(), 0.5f * 36 * 37 / 2);
  }
}

TEST(ExternalMemoryTest, MemoryKilnCannotTakeIsAnError) {
  Block b(32);
  auto make = [&](void *p, size_t bytes, std::vector<int64_t> strides,
                  const DispatchDevice &d) {
    return DispatchTensor::fromExternal(DType::F32, {2, 16}, std::move(strides),
                                        p, bytes, nullptr, d);
  };
  DispatchDevice cpu = DispatchDevice::cpu();
  auto message = [](const std::function<void()> &f) {
    try {
      f();
    } catch (const Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] {
              make(b.data, 64, {}, cpu);
            }).find("64 bytes of memory do not cover the 128 bytes"),
            std::string::npos);
  EXPECT_NE(message([&] {
              make(b.data, 128, {16, -1}, cpu);
            }).find("negative"),
            std::string::npos);
  EXPECT_NE(message([&] {
              make(b.data, 128, {1}, cpu);
            }).find("1 strides for 2 dims"),
            std::string::npos);
  std::string cuda = message(
      [&] { make(b.data, 128, {}, DispatchDevice(DeviceKind::Cuda, 0)); });
  EXPECT_NE(cuda.find("host memory"), std::string::npos) << cuda;
}

} // namespace
