//===- NoGpuTest.cpp - The CUDA device where there is no GPU --------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Kiln opens the CUDA driver at run time. Without a driver or a GPU, every
// way of reaching a CUDA device must fail with a kiln::Error that says why,
// and leave the host devices working. On a machine with a GPU the tests of
// the failure messages skip.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"
#include "lib/Runtime/Cuda/CudaDriver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <dlfcn.h>
#include <functional>
#include <string>

using namespace kiln;

namespace {

/// The reason cuda:0 cannot be used here, or nothing when it can.
std::optional<std::string> cudaUnavailable() {
  try {
    DispatchDevice::cuda(0);
    return std::nullopt;
  } catch (const Error &e) {
    return std::string(e.what());
  }
}

/// The message of the kiln::Error that `f` throws ("" if none).
std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

bool hasDriverLibrary() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  return lib != nullptr;
}

class NoGpu : public ::testing::Test {
protected:
  void SetUp() override {
    reason = cudaUnavailable();
    if (!reason)
      GTEST_SKIP() << "a CUDA GPU is present";
  }
  std::optional<std::string> reason;
  const DispatchDevice gpu{DeviceKind::Cuda, 0};
};

TEST_F(NoGpu, CreatingTheDeviceSaysWhy) {
  if (!hasDriverLibrary())
    EXPECT_EQ(*reason, "device cuda:0 is not available: no CUDA driver "
                       "(libcuda.so.1 not found)");
  else
    EXPECT_TRUE(reason->find("no CUDA GPU found") != std::string::npos ||
                reason->find("the CUDA driver failed to initialize") !=
                    std::string::npos)
        << *reason;
  // The driver is probed once; asking again says the same.
  EXPECT_EQ(cudaUnavailable(), reason);
}

TEST_F(NoGpu, EveryIndexSaysWhy) {
  for (int i : {1, 3, 15}) {
    std::string e = errorOf([&] { DispatchDevice::cuda(i); });
    EXPECT_EQ(e.rfind("device cuda:" + std::to_string(i) +
                          " is not available: ",
                      0),
              0u)
        << e;
  }
  EXPECT_EQ(errorOf([] { DispatchDevice::cuda(-1); }),
            "cuda: device index -1 is negative");
}

TEST_F(NoGpu, AvailableListsTheHostDevices) {
  std::vector<DispatchDevice> devices = DispatchDevice::available();
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].str(), "cpu");
  EXPECT_EQ(devices[1].str(), "flex");
}

TEST_F(NoGpu, DefaultDeviceIsAHostDevice) {
  const char *old = std::getenv("KILN_DEVICE");
  std::string saved = old ? old : "";
  unsetenv("KILN_DEVICE");
  EXPECT_NE(DispatchDevice::defaultDevice().kind(), DeviceKind::Cuda);
  setenv("KILN_DEVICE", "cuda", 1);
  EXPECT_EQ(errorOf([] { DispatchDevice::defaultDevice(); }), *reason);
  setenv("KILN_DEVICE", "cuda:2", 1);
  EXPECT_EQ(errorOf([] { DispatchDevice::defaultDevice(); })
                .rfind("device cuda:2 is not available: ", 0),
            0u);
  if (old)
    setenv("KILN_DEVICE", saved.c_str(), 1);
  else
    unsetenv("KILN_DEVICE");
}

TEST_F(NoGpu, CreatingTensorsThere) {
  EXPECT_EQ(errorOf([&] {
              DispatchTensor::fromVector<float>({1, 2, 3}, {3}, gpu);
            }),
            *reason);
  EXPECT_EQ(errorOf([&] { DispatchTensor::zeros({2, 2}, DType::F32, gpu); }),
            *reason);
  EXPECT_EQ(errorOf([&] { DispatchTensor::arange(4, DType::I64, gpu); }),
            *reason);
  EXPECT_EQ(errorOf([&] { DispatchTensor::rand({4}, DType::F32, gpu, /*seed=*/1); }),
            *reason);
  EXPECT_EQ(errorOf([&] { DispatchTensor::eye(3, DType::F32, gpu); }),
            *reason);
}

TEST_F(NoGpu, MovingATensorThereFailsCleanly) {
  for (const DispatchDevice &host :
       {DispatchDevice::flex(), DispatchDevice::cpu()}) {
    DispatchTensor x = DispatchTensor::fromVector<float>({1, 2, 3, 4}, {2, 2},
                                                         host);
    DispatchTensor y = exp(x) + 1.0;
    EXPECT_EQ(errorOf([&] { y.to(gpu); }), *reason);
    EXPECT_EQ(errorOf([&] {
                y.to(DispatchDevice::autodiff(
                    gpu, CheckpointingStrategy::Balanced));
              }),
              *reason);
    // The tensor and its device are untouched.
    EXPECT_EQ(y.device(), host);
    std::vector<float> v = y.toVector<float>();
    ASSERT_EQ(v.size(), 4u);
    EXPECT_NEAR(v[3], std::exp(4.0f) + 1.0f, 1e-3);
  }
}

TEST_F(NoGpu, DeviceQueriesFailCleanly) {
  EXPECT_EQ(errorOf([&] { memoryStats(gpu); }), *reason);
  EXPECT_EQ(errorOf([&] { resetPeakMemory(gpu); }), *reason);
  EXPECT_EQ(errorOf([&] { backendCounters(gpu); }), *reason);
  EXPECT_EQ(errorOf([&] { gpu.sync(); }), "");
}

// The driver loader itself, with libraries that are not a working driver.
TEST(CudaDriver, MissingLibrary) {
  detail::cuda::DriverStatus s =
      detail::cuda::loadDriver("libkiln-no-such-driver.so.1");
  EXPECT_EQ(s.api, nullptr);
  EXPECT_EQ(s.reason, "no CUDA driver (libkiln-no-such-driver.so.1 not found)");
}

TEST(CudaDriver, LibraryWithoutTheDriverApi) {
  // libm opens but has no cuInit.
  detail::cuda::DriverStatus s = detail::cuda::loadDriver("libm.so.6");
  EXPECT_EQ(s.api, nullptr);
  EXPECT_EQ(s.reason,
            "the CUDA driver (libm.so.6) is too old: it has no cuInit");
}

TEST(CudaDriver, StubLibrary) {
  // The toolkit's link-time stub exports the API but initializes nothing.
  const char *stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (void *lib = dlopen(stub, RTLD_NOW | RTLD_LOCAL); !lib)
    GTEST_SKIP() << "no CUDA toolkit stub at " << stub;
  detail::cuda::DriverStatus s = detail::cuda::loadDriver(stub);
  EXPECT_EQ(s.api, nullptr);
  EXPECT_EQ(s.reason.rfind("the CUDA driver failed to initialize (cuInit: ",
                           0),
            0u)
      << s.reason;
}

} // namespace
